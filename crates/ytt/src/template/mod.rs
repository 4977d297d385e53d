//! ytt's template language (ytt's `template` and `yamltemplate` packages):
//! a YAML template is compiled into a Starlark program (`compile`, `ctxs`)
//! whose instructions (`instructions`, `runtime`) build the output nodes.

pub mod annotation_args;
pub mod compile;
pub mod ctxs;
pub mod instructions;
pub mod nodes;
pub mod noop;
pub mod runtime;
pub mod text;

use super::translate::{CodeScanner, Translated, keyword, translate};
use crate::source::{FileId, SourceFile};
use crate::yaml::DocumentSet;
use compile::{CompileError, CompileOptions, compile_yaml};
use runtime::SharedSession;

/// A YAML template ready to run: its id in `session` and its Starlark.
pub struct Program {
    pub id: usize,
    pub translated: Translated,
}

/// Compile `set` (the parsed `source`) into a program of `session`.
pub fn program(
    set: &DocumentSet,
    source: &SourceFile,
    file: FileId,
    session: &SharedSession,
    options: CompileOptions,
) -> Result<Program, CompileError> {
    let id = next_id(session)?;
    let compiled = compile_yaml(set, source, file, id, options)?;
    session.borrow_mut().register(compiled.nodes);
    if let Some(text) = compiled.text {
        // Its strings' text template: id + 1, as compiled.
        session.borrow_mut().register_text(text);
    }
    reject_reserved(&compiled.code)?;
    let code = ctxs::insert_ctxs(compiled.code, id);
    let translated = translate(&code).map_err(|e| CompileError::syntax(e.line, e.message))?;
    Ok(Program { id, translated })
}

/// The id of the next template of `session` (a YAML template may take two:
/// its own and its strings' text template), or an error when the session
/// has no room left for them.
fn next_id(session: &SharedSession) -> Result<usize, CompileError> {
    let session = session.borrow();
    if !session.has_room(2) {
        return Err(CompileError {
            line: 1,
            span: None,
            message: format!(
                "more than {} templates in one render",
                runtime::SESSION_TEMPLATES / 2
            ),
            is_syntax: false,
        });
    }
    Ok(session.next_id())
}

/// Compile a text template (a `.txt` file, `source`) into a program of
/// `session`; its top level ends with the text it built as the result.
pub fn text_program(source: &SourceFile, session: &SharedSession) -> Result<Program, CompileError> {
    let id = next_id(session)?;
    let pieces = text::parse(&source.text, 1).map_err(|e| CompileError {
        line: e.line,
        span: None,
        message: e.message,
        is_syntax: false,
    })?;
    let mut nodes = text::TextNodes::default();
    let mut code = text::compile(&pieces, id, &mut nodes);
    let last_line = code.last().map_or(1, |(line, _)| *line);
    code.push((last_line, format!("__ytt_end_ctx({id}, None)")));
    session.borrow_mut().register_text(nodes);
    reject_reserved(&code)?;
    let code = text::finish(code, id);
    let translated = translate(&code).map_err(|e| CompileError::syntax(e.line, e.message))?;
    Ok(Program { id, translated })
}

/// ytt's dialect closes blocks with `end`, so `pass` is not allowed.
pub fn reject_reserved(code: &[(usize, String)]) -> Result<(), CompileError> {
    let mut scanner = CodeScanner::default();
    let mut continuing = false;
    for (line, text) in code {
        let shaped = scanner.line(if continuing { text } else { text.trim() });
        let statement = shaped.code.trim();
        if !continuing && keyword(statement) == "pass" && statement == "pass" {
            return Err(CompileError::syntax(
                *line,
                "use of reserved keyword 'pass' is not allowed".into(),
            ));
        }
        continuing = shaped.continues;
    }
    Ok(())
}
