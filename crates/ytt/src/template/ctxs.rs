//! Fragment functions (ytt's `ProgramAST.InsertTplCtxs`): a `def` whose own
//! body starts or sets template nodes opens an evaluation context when it is
//! called and returns what it built, so `#@ def f():` with YAML inside
//! returns that YAML. An explicit `return x` still returns `x`; a bare
//! `return` returns the YAML built so far.

use crate::translate::{CodeScanner, StringScan, keyword, shape};

/// The names of the instructions a program calls; `id` tells templates
/// apart (a fragment function runs the nodes of the file defining it).
pub fn start_ctx(id: usize) -> String {
    format!("__ytt_start_ctx({id})")
}

struct Frame {
    is_def: bool,
    uses_tpl: bool,
    /// Index of the line holding the block's header.
    header: usize,
    /// (first, last) line index of each `return` statement directly inside,
    /// and where `return` starts in the first line's trimmed text (after
    /// `else:` of a one-line clause).
    returns: Vec<(usize, usize, usize)>,
    /// Index of the innermost `def` frame at or around this one, so that
    /// finding it stays constant time however deep blocks nest.
    def_at: Option<usize>,
}

/// Open a block at line `header`.
fn push_frame(frames: &mut Vec<Frame>, is_def: bool, header: usize) {
    let def_at = if is_def {
        Some(frames.len())
    } else {
        frames.last().and_then(|f| f.def_at)
    };
    frames.push(Frame {
        is_def,
        uses_tpl: false,
        header,
        returns: Vec::new(),
        def_at,
    });
}

/// The innermost open `def`.
fn innermost_def(frames: &mut [Frame]) -> Option<&mut Frame> {
    let at = frames.last()?.def_at?;
    frames.get_mut(at)
}

/// A def that builds nodes: its header line, its `end` line and the
/// (first, last, offset) lines of its `return` statements.
type FragmentDef = (usize, usize, Vec<(usize, usize, usize)>);

/// Rewrite `code` (ytt's `end`-block dialect, one entry per line) so the
/// fragment functions of template `id` open and close their contexts.
pub fn insert_ctxs(code: Vec<(usize, String)>, id: usize) -> Vec<(usize, String)> {
    let mut frames: Vec<Frame> = Vec::new();
    // (header, end, returns) of each def that builds nodes.
    let mut fragment_defs: Vec<FragmentDef> = Vec::new();
    let mut scanner = CodeScanner::default();
    let mut continuing = false;
    let mut open_return: Option<(usize, usize)> = None;
    // The first word of the statement a continuation line belongs to.
    let mut statement_word = String::new();
    for (index, (_, raw)) in code.iter().enumerate() {
        if continuing {
            let shaped = scanner.line(raw);
            continuing = shaped.continues;
            if !continuing
                && let Some((start, offset)) = open_return.take()
                && let Some(frame) = innermost_def(&mut frames)
            {
                frame.returns.push((start, index, offset));
            }
            if shaped.opens_block {
                push_frame(&mut frames, statement_word == "def", index);
            }
            continue;
        }
        let shaped = scanner.line(raw.trim());
        continuing = shaped.continues;
        let statement = shaped.code.trim();
        if statement.is_empty() {
            continue;
        }
        let word = keyword(statement);
        statement_word = word.to_string();
        match word {
            "end" if statement == "end" => {
                if let Some(frame) = frames.pop()
                    && frame.is_def
                    && frame.uses_tpl
                {
                    fragment_defs.push((frame.header, index, frame.returns));
                }
                continue;
            }
            _ => {}
        }
        // A one-line clause returning (`else: return []`) returns from the
        // def as a `return` statement does.
        let return_at = match word {
            "return" => Some(0),
            "if" | "elif" | "else" | "for" if !shaped.opens_block => inline_return(statement),
            _ => None,
        };
        if matches!(word, "elif" | "else") {
            if let Some(offset) = return_at {
                record_return(&mut frames, &mut open_return, continuing, index, offset);
            }
            // The clause ends the block before it; one that opens a block
            // (here or where its header ends) starts the next, and a
            // one-line clause ends the `if` statement.
            frames.pop();
            if shaped.opens_block {
                push_frame(&mut frames, false, index);
            }
            continue;
        }
        let builds =
            statement.contains("__ytt_start_node(") || statement.contains("__ytt_set_node(");
        if builds && let Some(frame) = innermost_def(&mut frames) {
            frame.uses_tpl = true;
        }
        if let Some(offset) = return_at {
            record_return(&mut frames, &mut open_return, continuing, index, offset);
        }
        if shaped.opens_block {
            push_frame(&mut frames, word == "def", index);
        }
    }
    if fragment_defs.is_empty() {
        return code;
    }

    let mut after: Vec<Vec<String>> = vec![Vec::new(); code.len()];
    let mut before: Vec<Vec<String>> = vec![Vec::new(); code.len()];
    let mut replaced: Vec<Option<String>> = vec![None; code.len()];
    for (header, end, returns) in fragment_defs {
        after[header].push(start_ctx(id));
        before[end].push(format!("return __ytt_end_ctx({id})"));
        for (first, last, offset) in returns {
            let text = code[first].1.trim();
            let (clause, text) = text.split_at(offset.min(text.len()));
            let value = text.get("return".len()..).unwrap_or_default().trim();
            let value_code = shape(value, 0).code;
            if value_code.trim().is_empty() {
                replaced[first] = Some(format!("{clause}return __ytt_end_ctx({id})"));
            } else {
                replaced[first] = Some(format!("{clause}return __ytt_end_ctx({id}, {value}"));
                after[last].insert(0, ")".into());
            }
        }
    }
    let mut out = Vec::with_capacity(code.len() + 8);
    for (index, (line, text)) in code.into_iter().enumerate() {
        for extra in before[index].drain(..) {
            out.push((line, extra));
        }
        out.push((line, replaced[index].take().unwrap_or(text)));
        for extra in after[index].drain(..) {
            out.push((line, extra));
        }
    }
    out
}

/// Record a `return` starting at `offset` of line `index`'s trimmed text.
fn record_return(
    frames: &mut [Frame],
    open_return: &mut Option<(usize, usize)>,
    continuing: bool,
    index: usize,
    offset: usize,
) {
    if !continuing {
        if let Some(frame) = innermost_def(frames) {
            frame.returns.push((index, index, offset));
        }
    } else {
        *open_return = Some((index, offset));
    }
}

/// Where `return` starts in a one-line clause (`else: return []`): right
/// after its first `:` outside brackets and strings.
fn inline_return(statement: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut strings = StringScan::default();
    for (at, c) in statement.char_indices() {
        if strings.in_string(c) || strings.opens(c) {
            continue;
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ':' if depth == 0 => {
                let rest = &statement[at + 1..];
                let body = rest.trim_start();
                let is_return = keyword(body) == "return";
                return is_return.then_some(at + 1 + rest.len() - body.len());
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<(usize, String)> {
        text.lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.to_string()))
            .collect()
    }

    fn texts(code: &[(usize, String)]) -> Vec<&str> {
        code.iter().map(|(_, t)| t.as_str()).collect()
    }

    #[test]
    fn a_def_that_builds_nodes_opens_and_returns_its_context() {
        let code = lines("def f(x):\nif x:\nreturn 1\nend\n__ytt_start_node(1, 2)\nend\nx = 1");
        let out = insert_ctxs(code, 1);
        assert_eq!(
            texts(&out),
            [
                "def f(x):",
                "__ytt_start_ctx(1)",
                "if x:",
                "return __ytt_end_ctx(1, 1",
                ")",
                "end",
                "__ytt_start_node(1, 2)",
                "return __ytt_end_ctx(1)",
                "end",
                "x = 1"
            ]
        );
    }

    #[test]
    fn plain_functions_and_nested_defs_are_left_alone() {
        let code = lines("def f():\ndef g():\nreturn 2\nend\n__ytt_set_node(1, 3)\nreturn\nend");
        let out = insert_ctxs(code, 1);
        assert_eq!(
            texts(&out),
            [
                "def f():",
                "__ytt_start_ctx(1)",
                "def g():",
                "return 2",
                "end",
                "__ytt_set_node(1, 3)",
                "return __ytt_end_ctx(1)",
                "return __ytt_end_ctx(1)",
                "end"
            ]
        );
        let plain = lines("def h():\nreturn [\n1]\nend");
        assert_eq!(insert_ctxs(plain.clone(), 1), plain);
    }
}
