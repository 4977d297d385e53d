//! ytt's text templates (ytt's `texttemplate` package): text with code in
//! `(@ code @)` and printed expressions in `(@= expr @)`; `(@-` trims the
//! blanks before a piece of code and `-@)` those after it. A text template
//! compiles into the same instruction scheme as a YAML template: a text
//! context whose nodes are the pieces of text, started and set in order, so
//! `if`, `for` and `def` decide which pieces are kept. A `def` whose body
//! holds text returns that text, as ytt's text fragments do.
//!
//! `.txt` files are text templates, and so are the map keys and string
//! values under `@yaml/text-templated-strings` (compiled inline into the
//! YAML template's program, see `compile.rs`).

use super::ctxs::insert_ctxs;
use super::runtime::RuntimeError;
use starlark::values::Value;

/// ytt's `File.IsLibrary` for a file name: `x.lib.txt`, `x.lib.yml`; such
/// a file is only loaded, never output.
pub use crate::marks::is_library_name as is_library;

/// A piece of a parsed text template, at the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Text { line: usize, content: String },
    Code { line: usize, content: String },
}

/// Why a text template does not parse (ytt's parser messages).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

/// Split `data` into text and code pieces, as ytt's `texttemplate.Parser`
/// does: `(@` opens code, `@)` closes it, nothing escapes them. Lines count
/// from `start_line`; columns count characters from 1.
pub fn parse(data: &str, start_line: usize) -> Result<Vec<Piece>, ParseError> {
    let mut line = start_line;
    let mut col = 1;
    let mut last: Option<char> = None;
    let mut pieces = Vec::new();
    // The piece being read: code or text, its line and where it starts.
    let mut in_code = false;
    let mut piece_line = line;
    let mut piece_start = 0;
    for (i, c) in data.char_indices() {
        if last == Some('(') && c == '@' {
            if in_code {
                return Err(ParseError {
                    line,
                    col,
                    message: format!("Unexpected code opening '(@' at line {line} col {col}"),
                });
            }
            pieces.push(Piece::Text {
                line: piece_line,
                content: data[piece_start..i - 1].to_string(),
            });
            in_code = true;
            piece_line = line;
            piece_start = i + 1;
        }
        if last == Some('@') && c == ')' {
            if !in_code {
                return Err(ParseError {
                    line,
                    col,
                    message: format!("Unexpected code closing '@)' at line {line} col {col}"),
                });
            }
            // `(@)`: the `@` both opens and closes (ytt's parser panics).
            if piece_start > i - 1 {
                return Err(ParseError {
                    line,
                    col,
                    message: format!(
                        "Unexpected code closing '@)' at line {line} col {col} (the '@' of '(@' cannot also close it)"
                    ),
                });
            }
            pieces.push(Piece::Code {
                line: piece_line,
                content: data[piece_start..i - 1].to_string(),
            });
            in_code = false;
            piece_line = line;
            piece_start = i + 1;
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
        last = Some(c);
    }
    if in_code {
        return Err(ParseError {
            line,
            col,
            message: format!("Missing code closing '@)' at line {line} col {col}"),
        });
    }
    pieces.push(Piece::Text {
        line: piece_line,
        content: data[piece_start..].to_string(),
    });
    Ok(pieces)
}

/// What a code piece asks for (ytt's `NodeCodeMeta`).
struct CodeMeta<'a>(&'a str);

impl CodeMeta<'_> {
    fn trims_left(&self) -> bool {
        self.0.starts_with('-')
    }

    fn trims_right(&self) -> bool {
        self.0.ends_with('-')
    }

    fn prints(&self) -> bool {
        self.0.starts_with('=') || self.0.starts_with("-=")
    }

    fn code(&self) -> &str {
        let code = self.0.strip_prefix("-=").unwrap_or(self.0);
        let code = code.strip_prefix('=').unwrap_or(code);
        let code = code.strip_prefix('-').unwrap_or(code);
        code.strip_suffix('-').unwrap_or(code)
    }
}

/// The nodes of a text template id, tag `n` at `nodes[n - 1]`: a root (one
/// per template or templated string, `None`) or a piece of text under the
/// root added before it (its text as written, trimmed).
#[derive(Debug, Default, Clone)]
pub struct TextNodes {
    nodes: Vec<Option<String>>,
}

impl TextNodes {
    fn add(&mut self, content: Option<String>) -> usize {
        self.nodes.push(content);
        self.nodes.len()
    }

    fn get(&self, tag: usize) -> Option<&Option<String>> {
        tag.checked_sub(1).and_then(|i| self.nodes.get(i))
    }
}

/// The instructions of text template `id` that the fragment-function pass
/// (`insert_ctxs`) must not mistake for the YAML template's: renamed once
/// that pass has run over the text code.
fn start_node(id: usize, tag: usize) -> String {
    format!("__ytt_start_node({id}, {tag})")
}

fn set_node(id: usize, tag: usize) -> String {
    format!("__ytt_set_node({id}, {tag})")
}

/// Compile parsed pieces (ytt's `texttemplate.Template.compile`) into code
/// lines of template `id`, adding their nodes to `nodes`: the context
/// starts, then the root node, then each piece. The caller ends the context
/// (`__ytt_end_ctx(id...)`), then passes the lines through [`finish`].
pub fn compile(pieces: &[Piece], id: usize, nodes: &mut TextNodes) -> Vec<(usize, String)> {
    let first_line = match pieces.first() {
        Some(Piece::Text { line, .. } | Piece::Code { line, .. }) => *line,
        None => 1,
    };
    // Trimming first: `(@-` trims the text before, `-@)` the text after.
    let mut texts: Vec<Option<String>> = pieces
        .iter()
        .map(|p| match p {
            Piece::Text { content, .. } => Some(content.clone()),
            Piece::Code { .. } => None,
        })
        .collect();
    let mut trim_next = false;
    for (i, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Text { .. } => {
                if trim_next {
                    if let Some(text) = &mut texts[i] {
                        *text = text.trim_start().to_string();
                    }
                    trim_next = false;
                }
            }
            Piece::Code { content, .. } => {
                let meta = CodeMeta(content);
                trim_next = meta.trims_right();
                if meta.trims_left()
                    && i != 0
                    && let Some(text) = &mut texts[i - 1]
                {
                    *text = text.trim_end().to_string();
                }
            }
        }
    }
    let root = nodes.add(None);
    let mut code = vec![
        (first_line, super::ctxs::start_ctx(id)),
        (first_line, start_node(id, root)),
    ];
    for (piece, text) in pieces.iter().zip(texts) {
        match piece {
            Piece::Text { line, .. } => {
                let tag = nodes.add(text);
                code.push((*line, start_node(id, tag)));
                code.push((*line, set_node(id, tag)));
            }
            Piece::Code { line, content } => {
                let meta = CodeMeta(content);
                let lines: Vec<&str> = meta.code().split('\n').collect();
                if meta.prints() {
                    let tag = nodes.add(Some(String::new()));
                    code.push((*line, start_node(id, tag)));
                    let last = lines.len() - 1;
                    for (offset, text) in lines.iter().enumerate() {
                        let mut out = String::new();
                        if offset == 0 {
                            out.push_str(&format!("__ytt_set_node({id}, {tag}, ("));
                        }
                        out.push_str(text);
                        if offset == last {
                            out.push_str("))");
                        }
                        code.push((line + offset, out));
                    }
                } else {
                    for (offset, text) in lines.iter().enumerate() {
                        code.push((line + offset, (*text).to_string()));
                    }
                }
            }
        }
    }
    code
}

/// The fragment-function pass over text code of template `id` (a `def`
/// holding text opens a text context and returns its text), then the
/// text's node instructions renamed so a YAML template's own pass over its
/// whole program leaves those functions alone.
pub fn finish(code: Vec<(usize, String)>, id: usize) -> Vec<(usize, String)> {
    let starts = format!("__ytt_start_node({id}, ");
    let sets = format!("__ytt_set_node({id}, ");
    insert_ctxs(code, id)
        .into_iter()
        .map(|(line, text)| {
            let renamed = if let Some(rest) = text.strip_prefix(&starts) {
                format!("__ytt_text_start_node({id}, {rest}")
            } else if let Some(rest) = text.strip_prefix(&sets) {
                format!("__ytt_text_set_node({id}, {rest}")
            } else {
                text
            };
            (line, renamed)
        })
        .collect()
}

/// A text context under construction (ytt's text `EvaluationCtx`): its
/// root, once started, and the pieces of text added under it.
#[derive(Debug, Default)]
pub struct TextBuild {
    root: bool,
    pieces: Vec<String>,
}

impl TextBuild {
    /// `__ytt_start_node` on a text node: a piece starts empty; a piece
    /// started before its root starts the root first.
    pub fn start_node(&mut self, nodes: &TextNodes, tag: usize) -> Result<(), RuntimeError> {
        let node = nodes.get(tag).ok_or(RuntimeError::NodeNotFound(tag))?;
        self.root = true;
        if node.is_some() {
            self.pieces.push(String::new());
        }
        Ok(())
    }

    /// `__ytt_set_node` on the current piece: its text as written (no
    /// value), or the value of a `(@= @)`, which must be a string.
    pub fn set_node(
        &mut self,
        nodes: &TextNodes,
        tag: usize,
        value: Option<Value<'_>>,
    ) -> Result<(), RuntimeError> {
        let Some(current) = self.pieces.last_mut() else {
            return Err(RuntimeError::SetOnNodeRoot);
        };
        match value {
            None => {
                let node = nodes.get(tag).ok_or(RuntimeError::NodeNotFound(tag))?;
                *current = node.clone().unwrap_or_default();
            }
            Some(value) if value.get_type() == super::noop::NOOP_TYPE => {}
            Some(value) => match value.unpack_str() {
                Some(text) => *current = text.to_string(),
                None => {
                    return Err(RuntimeError::NonStringText(go_type_name(value)));
                }
            },
        }
        Ok(())
    }

    /// The text built: its pieces joined.
    pub fn finish(self) -> String {
        self.pieces.concat()
    }
}

/// The Go type ytt's message names for a value that is not a string.
fn go_type_name(value: Value<'_>) -> String {
    use crate::starlark::fragment::{Fragment, FragmentData};
    if let Some(fragment) = Fragment::from_value(value) {
        return match &*fragment.data {
            FragmentData::Nil => "<nil>",
            FragmentData::Documents(_) => "*yamlmeta.DocumentSet",
            FragmentData::Node(node) => match node.value {
                crate::yaml::Value::Map(_) => "*yamlmeta.Map",
                crate::yaml::Value::Array(_) => "*yamlmeta.Array",
                crate::yaml::Value::Scalar(_) => "<nil>",
            },
        }
        .to_string();
    }
    match value.get_type() {
        "int" => "int64",
        "float" => "float64",
        "bool" => "bool",
        "NoneType" => "<nil>",
        "list" | "tuple" => "[]interface {}",
        "dict" | "struct" => "*orderedmap.Map",
        other => other,
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: usize, content: &str) -> Piece {
        Piece::Text {
            line,
            content: content.into(),
        }
    }

    fn code(line: usize, content: &str) -> Piece {
        Piece::Code {
            line,
            content: content.into(),
        }
    }

    #[test]
    fn text_and_code_pieces_alternate() {
        assert_eq!(
            parse("before(@ a = 5 @)af(@= \"5\" @)ter", 1).unwrap(),
            [
                text(1, "before"),
                code(1, " a = 5 "),
                text(1, "af"),
                code(1, "= \"5\" "),
                text(1, "ter"),
            ]
        );
        // Code after code has an empty text between; empty code is code.
        assert_eq!(
            parse("(@@)(@ @)(@\n\n@)", 1).unwrap(),
            [
                text(1, ""),
                code(1, ""),
                text(1, ""),
                code(1, " "),
                text(1, ""),
                code(1, "\n\n"),
                text(3, ""),
            ]
        );
        assert_eq!(parse("", 7).unwrap(), [text(7, "")]);
    }

    #[test]
    fn lines_count_from_the_start_line() {
        assert_eq!(
            parse("a\nb(@ x\ny @)\nc", 10).unwrap(),
            [text(10, "a\nb"), code(11, " x\ny "), text(12, "\nc")]
        );
    }

    // The messages are the reference ytt's (pkg/texttemplate/filetests).
    #[test]
    fn unclosed_and_stray_markers_are_errors() {
        let err = parse("\ntest(@ a = 5", 1).unwrap_err();
        assert_eq!(err.message, "Missing code closing '@)' at line 2 col 13");
        let err = parse("(@= \"@)\" @)", 1).unwrap_err();
        assert_eq!(err.message, "Unexpected code closing '@)' at line 1 col 11");
        let err = parse("a(@(@ x @)", 1).unwrap_err();
        assert_eq!(err.message, "Unexpected code opening '(@' at line 1 col 5");
        // ytt's parser panics on `(@)`; here it is an error.
        assert!(parse("(@)", 1).is_err());
        // Nothing escapes a marker, but code can build one.
        assert_eq!(
            parse("(@= \"@\"+\")\" @)", 1).unwrap()[1],
            code(1, "= \"@\"+\")\" ")
        );
    }

    #[test]
    fn library_files_are_named_x_lib_ext() {
        assert!(is_library("funcs.lib.txt") && is_library("a.b.lib.yml"));
        assert!(!is_library("lib.txt") && !is_library("notes.txt") && !is_library("x.lib"));
    }

    #[test]
    fn code_markers_say_what_to_trim_and_print() {
        let meta = CodeMeta("-= x -");
        assert!(meta.trims_left() && meta.trims_right() && meta.prints());
        assert_eq!(meta.code(), " x ");
        let meta = CodeMeta("--");
        assert!(meta.trims_left() && meta.trims_right() && !meta.prints());
        assert_eq!(meta.code(), "");
        let meta = CodeMeta("=- x");
        assert!(!meta.trims_left() && meta.prints());
        assert_eq!(meta.code(), " x");
    }

    fn compiled(data: &str) -> (Vec<(usize, String)>, TextNodes) {
        let mut nodes = TextNodes::default();
        let code = compile(&parse(data, 1).unwrap(), 3, &mut nodes);
        (code, nodes)
    }

    #[test]
    fn trimming_changes_the_text_around_code() {
        // pkg/texttemplate/filetests/remove-space.yml: the reference ytt
        // prints `content`.
        let (_, nodes) = compiled("(@--@)\n\ncon (@--@) tent\n\n(@--@)\n");
        let texts: Vec<_> = nodes.nodes.iter().flatten().cloned().collect();
        assert_eq!(texts.concat(), "content");
        let (_, nodes) = compiled("a (@ x -@)\n  b (@- y @) c");
        let texts: Vec<_> = nodes.nodes.iter().flatten().cloned().collect();
        assert_eq!(texts, ["a ", "b", " c"]);
    }

    #[test]
    fn pieces_compile_to_instructions_at_their_lines() {
        let (code, _) = compiled("x(@ if a:\n  b = 1 @)(@= f(\n 2) @)");
        assert_eq!(
            code,
            [
                (1, "__ytt_start_ctx(3)".to_string()),
                (1, "__ytt_start_node(3, 1)".into()),
                (1, "__ytt_start_node(3, 2)".into()),
                (1, "__ytt_set_node(3, 2)".into()),
                (1, " if a:".into()),
                (2, "  b = 1 ".into()),
                (2, "__ytt_start_node(3, 3)".into()),
                (2, "__ytt_set_node(3, 3)".into()),
                (2, "__ytt_start_node(3, 4)".into()),
                (2, "__ytt_set_node(3, 4, ( f(".into()),
                (3, " 2) ))".into()),
                (3, "__ytt_start_node(3, 5)".into()),
                (3, "__ytt_set_node(3, 5)".into()),
            ]
        );
        let finished = finish(code, 3);
        assert_eq!(finished[2].1, "__ytt_text_start_node(3, 2)");
        assert_eq!(finished[9].1, "__ytt_text_set_node(3, 4, ( f(");
    }

    #[test]
    fn a_def_holding_text_opens_a_text_context() {
        let mut code = compiled("(@ def f(): @)t(@ end @)").0;
        code.push((1, "__ytt_end_ctx(3, None)".into()));
        let texts: Vec<String> = finish(code, 3).into_iter().map(|(_, t)| t).collect();
        let def = texts.iter().position(|t| t.trim() == "def f():").unwrap();
        assert_eq!(texts[def + 1], "__ytt_start_ctx(3)");
        let end = texts.iter().position(|t| t.trim() == "end").unwrap();
        assert_eq!(texts[end - 1], "return __ytt_end_ctx(3)");
    }
}
