//! ytt's Starlark dialect to plain Starlark: blocks close with `end` instead
//! of by indentation, and `assert` (a reserved word in starlark-rust) is a
//! module name. Each output line maps back to a line of the ytt file.

/// Starlark source with, for each of its lines, the 1-based line of the ytt
/// file it came from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Translated {
    pub source: String,
    pub lines: Vec<usize>,
}

impl Translated {
    /// The ytt line of a 0-based line of `source`.
    pub fn original_line(&self, generated: usize) -> usize {
        self.lines
            .get(generated)
            .or(self.lines.last())
            .copied()
            .unwrap_or(1)
    }
}

/// Why code cannot be translated: a message and the 1-based ytt line.
#[derive(Debug, Clone, PartialEq)]
pub struct TranslateError {
    pub line: usize,
    pub message: String,
}

mod guarded;
mod legacy;
mod nesting;
mod rewrite;
mod scan;
#[cfg(test)]
mod tests;

pub use guarded::{GUARDED_METHODS, parse_guarded};
pub use legacy::{star_code_lines, yaml_code_lines, yaml_program};
pub use nesting::{MAX_NESTING, nesting_error};
pub use rewrite::{rename_assert, wrap_kwargs_splats};
pub use scan::{CodeScanner, StringScan, keyword, shape};

/// The most ytt code one file may hold: translating and parsing it takes
/// many times its size, and real templates hold kilobytes.
pub const MAX_CODE_BYTES: usize = 8 * 1024 * 1024;

/// An error at the line where the file's template code passes
/// [`MAX_CODE_BYTES`].
fn within_size(code_lines: &[(usize, String)]) -> Result<(), TranslateError> {
    let mut total = 0;
    for (line, code) in code_lines {
        total += code.len();
        if total > MAX_CODE_BYTES {
            return Err(TranslateError {
                line: *line,
                message: format!(
                    "the file holds more than {} MiB of template code",
                    MAX_CODE_BYTES / 1024 / 1024
                ),
            });
        }
    }
    Ok(())
}
/// Translate lines of ytt code (1-based line, text without `#@`) into Starlark.
pub fn translate(code_lines: &[(usize, String)]) -> Result<Translated, TranslateError> {
    within_size(code_lines)?;
    let mut out = Translated::default();
    // Open blocks: (opening line, statements seen in the block).
    let mut blocks: Vec<(usize, usize)> = Vec::new();
    let mut scanner = CodeScanner::default();
    let push = |out: &mut Translated, indent: usize, text: &str, line: usize| {
        out.source.push_str(&"    ".repeat(indent));
        out.source.push_str(text);
        out.source.push('\n');
        out.lines.push(line);
    };
    let mut continuing = false;
    let mut backslash_before = false;
    for (line, raw) in code_lines {
        // Each line is indented by its depth: past the limit, stop before
        // the text grows with the square of the depth.
        if blocks.len() > nesting::MAX_BLOCK_DEPTH {
            return Err(TranslateError {
                line: *line,
                message: format!(
                    "code nested deeper than {} blocks",
                    nesting::MAX_BLOCK_DEPTH
                ),
            });
        }
        // ytt drops the leading blanks of every code line, inside a
        // multi-line string too, except after a line ending in a backslash.
        let after_backslash = std::mem::replace(&mut backslash_before, raw.ends_with('\\'));
        if continuing {
            // A continuation line (brackets, a multi-line string, a line
            // ending in a backslash): kept as ytt has it, leading blanks
            // included after a backslash (they may be inside a string).
            let raw = if after_backslash {
                raw.as_str()
            } else {
                raw.trim_start()
            };
            let shaped = scanner.line(&wrap_kwargs_splats(&rename_assert(raw)));
            continuing = shaped.continues;
            push(&mut out, 0, &shaped.code, *line);
            // A header continued over lines (`if a and \` ...) opens its
            // block where it ends.
            if shaped.opens_block {
                blocks.push((*line, 0));
            }
            continue;
        }
        let text = wrap_kwargs_splats(&rename_assert(raw.trim()));
        let shaped = scanner.line(&text);
        continuing = shaped.continues;
        let code = shaped.code.trim().to_string();
        if code.is_empty() {
            continue;
        }
        match keyword(&code) {
            "end" if code == "end" => {
                let Some((_, statements)) = blocks.pop() else {
                    return Err(TranslateError {
                        line: *line,
                        message: "unexpected end: no block is open (if/else/elif/for/def)".into(),
                    });
                };
                if statements == 0 {
                    push(&mut out, blocks.len() + 1, "pass", *line);
                }
                continue;
            }
            "elif" | "else" => {
                let Some((_, statements)) = blocks.pop() else {
                    return Err(TranslateError {
                        line: *line,
                        message: format!("{} without an open if/for block", keyword(&code)),
                    });
                };
                if statements == 0 {
                    push(&mut out, blocks.len() + 1, "pass", *line);
                }
                if let Some(parent) = blocks.last_mut() {
                    parent.1 += 1;
                }
                push(&mut out, blocks.len(), &code, *line);
                // A one-line clause (`else: return []`) ends the statement
                // with it, as in ytt: the next `end` closes the block around.
                if shaped.opens_block {
                    blocks.push((*line, 0));
                }
                continue;
            }
            _ => {}
        }
        if let Some(parent) = blocks.last_mut() {
            parent.1 += 1;
        }
        // `#@ if/end cond:` and `#@ for/end x in xs:` govern only the next
        // node: a block that closes by itself.
        let word = keyword(&code);
        if let Some(rest) = code[word.len()..].strip_prefix("/end") {
            push(&mut out, blocks.len(), &format!("{word}{rest}"), *line);
            push(&mut out, blocks.len() + 1, "pass", *line);
            continue;
        }
        // starlark-rust has no `while`: an unbounded `for` that checks the
        // condition first (the statement budget still ends endless loops).
        if word == "while" && shaped.opens_block {
            let condition = code["while".len()..code.len() - 1].trim();
            push(
                &mut out,
                blocks.len(),
                "for _ytt_while in range(2147483647):",
                *line,
            );
            push(
                &mut out,
                blocks.len() + 1,
                &format!("if not ({condition}):"),
                *line,
            );
            push(&mut out, blocks.len() + 2, "break", *line);
            blocks.push((*line, 1));
            continue;
        }
        push(&mut out, blocks.len(), &code, *line);
        if shaped.opens_block {
            blocks.push((*line, 0));
        }
    }
    if let Some((line, _)) = blocks.first() {
        return Err(TranslateError {
            line: *line,
            message: "mismatched set of block openings (if/else/elif/for/def) and closing (end)"
                .into(),
        });
    }
    if let Some((line, message)) = nesting_error(&out.source) {
        return Err(TranslateError {
            line: out.original_line(line),
            message,
        });
    }
    Ok(out)
}
