//! ytt's template language (ytt's `template` and `yamltemplate` packages):
//! a YAML template is compiled into a Starlark program (`compile`, `ctxs`)
//! whose instructions (`instructions`, `runtime`) build the output nodes.

pub mod compile;
pub mod ctxs;
pub mod instructions;
pub mod nodes;
pub mod noop;
pub mod runtime;

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
    let id = session.borrow().next_id();
    let compiled = compile_yaml(set, source, file, id, options)?;
    session.borrow_mut().register(compiled.nodes);
    reject_reserved(&compiled.code)?;
    let code = ctxs::insert_ctxs(compiled.code, id);
    let translated = translate(&code).map_err(|e| CompileError {
        line: e.line,
        span: None,
        message: e.message,
        is_syntax: true,
    })?;
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
            return Err(CompileError {
                line: *line,
                span: None,
                message: "use of reserved keyword 'pass' is not allowed".into(),
                is_syntax: true,
            });
        }
        continuing = shaped.continues;
    }
    Ok(())
}
