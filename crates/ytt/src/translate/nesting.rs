//! Limits on how deep code may nest before starlark-rust sees it.

/// Deepest nesting of brackets, and most binary operators in one
/// statement, that code may have: Starlark parses and evaluates them by
/// recursion, so deeper code could overflow any stack. ytt's own code never
/// comes near.
pub const MAX_NESTING: usize = 1_000;

/// Deepest block indentation (in levels of `if`/`for`/`def`).
pub(super) const MAX_BLOCK_DEPTH: usize = 1_000;

/// Where `code` nests deeper than the limits: (1-based line, message).
/// Strings and comments are skipped roughly; a quote miscounted only makes
/// the check looser or stricter on code that Starlark rejects anyway.
pub fn nesting_error(code: &str) -> Option<(usize, String)> {
    let mut depth = 0usize;
    let mut operators = 0usize;
    let mut line = 1usize;
    let mut quote: Option<u8> = None;
    let mut at_line_start = true;
    let mut indent = 0usize;
    let mut bytes = code.bytes().peekable();
    while let Some(b) = bytes.next() {
        if at_line_start {
            if b == b' ' {
                indent += 1;
                continue;
            }
            if indent / 4 > MAX_BLOCK_DEPTH {
                return Some((
                    line,
                    format!("code nested deeper than {MAX_BLOCK_DEPTH} blocks"),
                ));
            }
            at_line_start = false;
        }
        if let Some(q) = quote {
            match b {
                b'\\' => {
                    bytes.next();
                }
                b'\n' => {
                    line += 1;
                    quote = None;
                    at_line_start = true;
                    indent = 0;
                }
                _ if b == q => quote = None,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' | b'\'' => quote = Some(b),
            b'#' => {
                while bytes.peek().is_some_and(|&c| c != b'\n') {
                    bytes.next();
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some((
                        line,
                        format!("expression nested deeper than {MAX_NESTING} brackets"),
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'+' | b'-' | b'*' | b'/' | b'%' | b'|' | b'&' | b'^' | b'<' | b'>' | b'=' => {
                operators += 1;
                if operators > MAX_NESTING {
                    return Some((
                        line,
                        format!("statement with more than {MAX_NESTING} operators"),
                    ));
                }
            }
            b'\n' => {
                line += 1;
                at_line_start = true;
                indent = 0;
                if depth == 0 {
                    operators = 0;
                }
            }
            _ => {}
        }
    }
    None
}
