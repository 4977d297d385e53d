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

/// What one line of code does to the statement it is part of: its code
/// (without a trailing comment), whether it continues the statement of the
/// lines before, whether the statement goes on after it, and whether it
/// ends with `:` outside strings and brackets (a block opener).
pub(crate) struct LineShape {
    pub code: String,
    pub depth_after: i32,
    pub opens_block: bool,
    /// The statement goes on past this line.
    pub continues: bool,
}

/// Scans code line by line, carrying bracket depth, open string literals
/// (triple-quoted ones may span lines) and `\` continuations across lines.
#[derive(Default)]
pub(crate) struct CodeScanner {
    depth: i32,
    /// The open quote character and whether it is tripled.
    quote: Option<(char, bool)>,
    backslash: bool,
}

impl CodeScanner {
    pub fn line(&mut self, line: &str) -> LineShape {
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        let mut end = line.len();
        let mut last_significant: Option<char> = None;
        let mut i = 0;
        let mut escaped = false;
        while i < chars.len() {
            let (at, c) = chars[i];
            if let Some((q, triple)) = self.quote {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    let closes = !triple || line[at..].starts_with(&q.to_string().repeat(3));
                    if closes {
                        self.quote = None;
                        if triple {
                            i += 2;
                        }
                    }
                }
                last_significant = Some(c);
                i += 1;
                continue;
            }
            match c {
                '"' | '\'' => {
                    let triple = line[at..].starts_with(&c.to_string().repeat(3));
                    self.quote = Some((c, triple));
                    if triple {
                        i += 2;
                    }
                }
                '#' => {
                    end = at;
                    break;
                }
                '(' | '[' | '{' => self.depth += 1,
                ')' | ']' | '}' => self.depth -= 1,
                _ => {}
            }
            if !c.is_whitespace() {
                last_significant = Some(c);
            }
            i += 1;
        }
        // A string in single quotes ends with its line unless the line ends
        // with a backslash.
        if matches!(self.quote, Some((_, false))) && !escaped {
            self.quote = None;
        }
        let in_string = self.quote.is_some();
        let code = if in_string {
            line.to_string()
        } else {
            line[..end].trim_end().to_string()
        };
        self.backslash = !in_string && code.ends_with('\\');
        self.depth = self.depth.max(0);
        let depth = self.depth;
        LineShape {
            opens_block: depth == 0
                && !in_string
                && !self.backslash
                && last_significant == Some(':')
                && code.ends_with(':'),
            continues: depth > 0 || in_string || self.backslash,
            depth_after: depth,
            code,
        }
    }
}

/// The shape of one line on its own, `depth_before` brackets deep.
pub(crate) fn shape(line: &str, depth_before: i32) -> LineShape {
    let mut scanner = CodeScanner {
        depth: depth_before,
        ..CodeScanner::default()
    };
    scanner.line(line)
}

/// Where a scan of one line stands with respect to string literals: which
/// quote is open and whether the previous character was a backslash.
#[derive(Default)]
struct StringScan {
    quote: Option<char>,
    escaped: bool,
}

impl StringScan {
    /// Feed `c`; true when it is inside an open string literal (its closing
    /// quote included).
    fn in_string(&mut self, c: char) -> bool {
        let Some(q) = self.quote else {
            return false;
        };
        if self.escaped {
            self.escaped = false;
        } else if c == '\\' {
            self.escaped = true;
        } else if c == q {
            self.quote = None;
        }
        true
    }

    /// Feed `c` outside strings; true when it opens a string literal.
    fn opens(&mut self, c: char) -> bool {
        let is_quote = c == '"' || c == '\'';
        if is_quote {
            self.quote = Some(c);
        }
        is_quote
    }
}

pub(crate) fn keyword(code: &str) -> &str {
    code.split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or("")
}

/// Rename `assert` outside strings, and turn `load("@ytt:assert", "assert")`
/// into `load("@ytt:assert", "assert_")` (the module exports `assert_`).
pub fn rename_assert(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + 8);
    let mut strings = StringScan::default();
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if code[at..].starts_with("\"assert\"")
            && strings.quote.is_none()
            && code[..at].contains("@ytt:assert")
        {
            out.push_str("\"assert_\"");
            i += 8;
            continue;
        }
        if strings.in_string(c) || strings.opens(c) {
            out.push(c);
            i += 1;
            continue;
        }
        let boundary_before = at == 0 || {
            let p = code[..at].chars().next_back().unwrap_or(' ');
            !(p.is_alphanumeric() || p == '_' || p == '.')
        };
        if boundary_before && code[at..].starts_with("assert") {
            let after = code[at + 6..].chars().next().unwrap_or(' ');
            if !(after.is_alphanumeric() || after == '_') {
                out.push_str("assert_");
                i += 6;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// ytt's `**x` takes any mapping (a struct, a fragment); starlark-rust's
/// takes dicts only. Outside `def` headers and lambda parameters, `**x` in a
/// call becomes `**__ytt_kwargs(x)`, which makes a dict of a mapping.
pub fn wrap_kwargs_splats(code: &str) -> String {
    if !code.contains("**") || keyword(code.trim_start()) == "def" {
        return code.to_string();
    }
    let chars: Vec<(usize, char)> = code.char_indices().collect();
    let mut out = String::with_capacity(code.len() + 16);
    let mut strings = StringScan::default();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        if strings.in_string(c) || strings.opens(c) {
            out.push(c);
            i += 1;
            continue;
        }
        let before = code[..at].trim_end().chars().next_back();
        if code[at..].starts_with("**")
            && matches!(before, Some('(' | ','))
            && let Some(end) = splat_end(code, at + 2)
        {
            out.push_str("**__ytt_kwargs(");
            out.push_str(&code[at + 2..end]);
            out.push(')');
            // Continue after the wrapped expression.
            i = chars.partition_point(|(p, _)| *p < end);
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Where the expression after `**` at `start` ends: a `,` or a closing
/// bracket at its own depth. None when it ends at `:` (a lambda's
/// parameters) or with the line.
fn splat_end(code: &str, start: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut strings = StringScan::default();
    for (offset, c) in code[start..].char_indices() {
        if strings.in_string(c) || strings.opens(c) {
            continue;
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return Some(start + offset),
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => return Some(start + offset),
            ':' if depth == 0 => return None,
            '#' => return None,
            _ => {}
        }
    }
    None
}

/// Translate lines of ytt code (1-based line, text without `#@`) into Starlark.
pub fn translate(code_lines: &[(usize, String)]) -> Result<Translated, TranslateError> {
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
    for (line, raw) in code_lines {
        if continuing {
            // A continuation line (brackets, a multi-line string, a line
            // ending in a backslash): kept as it is, leading blanks included
            // (they may be inside a string).
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
                blocks.push((*line, 0));
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

/// Deepest nesting of brackets, and most binary operators in one
/// statement, that code may have: Starlark parses and evaluates them by
/// recursion, so deeper code could overflow any stack. ytt's own code never
/// comes near.
pub const MAX_NESTING: usize = 1_000;

/// Deepest block indentation (in levels of `if`/`for`/`def`).
const MAX_BLOCK_DEPTH: usize = 1_000;

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

/// The code of one line of a ytt YAML file, if it is a `#@ code` line.
fn code_of(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("#@")?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some(rest)
}

/// The code lines of a ytt YAML file: `#@ code` comments, in order.
pub fn yaml_code_lines(text: &str) -> Vec<(usize, String)> {
    yaml_program(text).0
}

/// The code of a ytt YAML file, where a fragment function (`#@ def f():`,
/// YAML nodes, `#@ end`) returns its YAML as a Starlark literal, and the
/// 1-based line ranges of those functions' bodies (their nodes are not
/// documents of the file).
pub fn yaml_program(text: &str) -> (Vec<(usize, String)>, Vec<std::ops::RangeInclusive<usize>>) {
    struct Block {
        is_def: bool,
        start: usize,
        yaml: Vec<String>,
        has_code: bool,
    }
    let mut code = Vec::new();
    let mut ranges = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut depth = 0;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let Some(rest) = code_of(line) else {
            if let Some(block) = blocks.last_mut().filter(|b| b.is_def) {
                block.yaml.push(line.to_string());
            }
            continue;
        };
        code.push((number, rest.to_string()));
        if depth > 0 {
            depth = shape(rest, depth).depth_after.max(0);
            continue;
        }
        let shaped = shape(rest.trim(), 0);
        let statement = shaped.code.trim();
        match keyword(statement) {
            "end" if statement == "end" => {
                if let Some(block) = blocks.pop()
                    && block.is_def
                    && !block.has_code
                    && block.yaml.iter().any(|l| !l.trim().is_empty())
                {
                    if let Some(literal) = fragment_literal(&block.yaml) {
                        code.insert(code.len() - 1, (number, format!("return {literal}")));
                    }
                    ranges.push(block.start..=number);
                }
                if let Some(parent) = blocks.last_mut() {
                    parent.has_code = true;
                }
                continue;
            }
            "elif" | "else" => {
                if let Some(block) = blocks.last_mut() {
                    block.has_code = true;
                }
                continue;
            }
            _ => {}
        }
        if let Some(block) = blocks.last_mut() {
            block.has_code = true;
        }
        depth = shaped.depth_after.max(0);
        if shaped.opens_block {
            blocks.push(Block {
                is_def: keyword(statement) == "def",
                start: number,
                yaml: Vec::new(),
                has_code: false,
            });
        }
    }
    (code, ranges)
}

/// The YAML of a fragment function's body as a Starlark literal: the value
/// of its one document, or a list of documents when it has several.
fn fragment_literal(lines: &[String]) -> Option<String> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let text: String = lines
        .iter()
        .map(|l| format!("{}\n", l.get(indent..).unwrap_or("").trim_end()))
        .collect();
    let set = crate::yaml::parse_file(crate::source::FileId(0), &text, &Default::default()).ok()?;
    let has_markers = set.docs.iter().any(|d| d.has_start_marker);
    if has_markers {
        let docs: Vec<String> = set.docs.iter().map(|d| node_literal(&d.value)).collect();
        Some(format!("[{}]", docs.join(", ")))
    } else {
        set.docs.first().map(|d| node_literal(&d.value))
    }
}

/// `key: #@ expr` inside a fragment: the value is the expression.
fn value_literal(node: &crate::yaml::Node, comments: &[crate::yaml::Comment]) -> String {
    let expression = comments.iter().find_map(|c| match &c.kind {
        crate::yaml::CommentKind::Code(code) if !c.own_line && node.is_null() => Some(code),
        _ => None,
    });
    match expression {
        Some(code) => format!("({})", rename_assert(code)),
        None => node_literal(node),
    }
}

fn node_literal(node: &crate::yaml::Node) -> String {
    use crate::yaml::{ScalarValue, Value};
    match &node.value {
        Value::Scalar(s) => match &s.resolved {
            ScalarValue::Null => "None".into(),
            ScalarValue::Bool(true) => "True".into(),
            ScalarValue::Bool(false) => "False".into(),
            ScalarValue::Int(i) => i.to_string(),
            ScalarValue::Float(f) if f.is_finite() => format!("{f:?}"),
            ScalarValue::Float(f) => format!("float({:?})", f.to_string()),
            ScalarValue::Str(text) => serde_json::to_string(text).unwrap_or_default(),
        },
        Value::Map(items) => {
            let entries: Vec<String> = items
                .iter()
                .map(|i| {
                    let key = match &i.key.resolved {
                        ScalarValue::Str(k) => serde_json::to_string(k).unwrap_or_default(),
                        _ => serde_json::to_string(&i.key.display()).unwrap_or_default(),
                    };
                    format!("{key}: {}", value_literal(&i.value, &i.comments))
                })
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::Array(items) => {
            let values: Vec<String> = items
                .iter()
                .map(|i| value_literal(&i.value, &i.comments))
                .collect();
            format!("[{}]", values.join(", "))
        }
    }
}

/// The lines of a `.star` file.
pub fn star_code_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_nested_past_the_limits_is_refused_before_starlark_sees_it() {
        assert_eq!(
            nesting_error("x = [[1], (2, {3: 4})]\ny = 1 + 2 * 3\n"),
            None
        );
        let deep = format!(
            "x = {}{}\n",
            "[".repeat(MAX_NESTING + 1),
            "]".repeat(MAX_NESTING + 1)
        );
        assert_eq!(nesting_error(&deep).map(|e| e.0), Some(1));
        let chain = format!("x = 1\ny = {}\n", vec!["v"; MAX_NESTING + 2].join(" + "));
        assert_eq!(nesting_error(&chain).map(|e| e.0), Some(2));
        // Brackets and operators inside strings and comments do not count.
        let quoted = format!(
            "x = \"{}\" # {}\n",
            "[".repeat(MAX_NESTING + 1),
            "+".repeat(MAX_NESTING + 1)
        );
        assert_eq!(nesting_error(&quoted), None);
        let blocks = format!("{}x = 1\n", " ".repeat(4 * (MAX_BLOCK_DEPTH + 1)));
        assert!(nesting_error(&blocks).is_some());
    }

    fn lines(text: &str) -> Vec<(usize, String)> {
        star_code_lines(text)
    }

    #[test]
    fn end_closes_blocks() {
        let out = translate(&lines(
            "def f(v):\n  if v:\n    return 1\n  else:\n  end\n  return 2\nend\nx = f(1)",
        ))
        .unwrap();
        assert_eq!(
            out.source,
            "def f(v):\n    if v:\n        return 1\n    else:\n        pass\n    return 2\nx = f(1)\n"
        );
        assert_eq!(out.lines, vec![1, 2, 3, 4, 5, 6, 8]);
    }

    #[test]
    fn brackets_span_lines_and_colons_in_lambdas_do_not_open_blocks() {
        let out = translate(&lines("rules = {\n  \"a\": lambda v: v,\n}\ny = 1")).unwrap();
        assert_eq!(out.source, "rules = {\n  \"a\": lambda v: v,\n}\ny = 1\n");
    }

    #[test]
    fn continued_lines_keep_strings_and_open_blocks_where_they_end() {
        let out = translate(&lines(
            "def f(v):\nif v and \\\n   v > 1:\nreturn '''a\n  # not a comment\nb'''\nend\nend",
        ))
        .unwrap();
        assert_eq!(
            out.source,
            "def f(v):\n    if v and \\\n   v > 1:\n        return '''a\n  # not a comment\nb'''\n"
        );
        let out = translate(&lines("n = 0\nwhile n < 3:\nn += 1\nend")).unwrap();
        assert!(
            out.source
                .contains("for _ytt_while in range(2147483647):\n    if not (n < 3):\n        break\n    n += 1"),
            "{}",
            out.source
        );
    }

    #[test]
    fn kwargs_splats_take_any_mapping_but_parameters_stay() {
        assert_eq!(
            wrap_kwargs_splats("f(a, **m(), b=1)"),
            "f(a, **__ytt_kwargs(m()), b=1)"
        );
        assert_eq!(wrap_kwargs_splats("f(**x)"), "f(**__ytt_kwargs(x))");
        assert_eq!(wrap_kwargs_splats("def f(**kw):"), "def f(**kw):");
        assert_eq!(
            wrap_kwargs_splats("g = lambda a, **kw: kw"),
            "g = lambda a, **kw: kw"
        );
        assert_eq!(wrap_kwargs_splats("s = \"(**x)\""), "s = \"(**x)\"");
    }

    #[test]
    fn missing_end_names_the_opening_line() {
        let err = translate(&lines("x = 1\ndef f():\n  return 1\n")).unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("mismatched"));
    }

    #[test]
    fn assert_is_renamed_outside_strings() {
        assert_eq!(
            rename_assert(r#"load("@ytt:assert", "assert")"#),
            r#"load("@ytt:assert", "assert_")"#
        );
        assert_eq!(
            rename_assert(r#"assert.fail("assert x")"#),
            r#"assert_.fail("assert x")"#
        );
        assert_eq!(
            rename_assert("my_assert.x + reassert"),
            "my_assert.x + reassert"
        );
    }

    #[test]
    fn fragment_functions_return_their_yaml() {
        let text = "#@ def db():\nhost: localhost\nports: [1, 2]\n#@ end\n#@data/values-schema\n---\na: 1\n";
        let (code, ranges) = yaml_program(text);
        let out = translate(&code).unwrap();
        assert_eq!(
            out.source,
            "def db():\n    return {\"host\": \"localhost\", \"ports\": [1, 2]}\n"
        );
        assert_eq!(ranges, vec![1..=4]);
    }

    #[test]
    fn code_lines_of_yaml_are_the_hash_at_space_comments() {
        let got = yaml_code_lines(
            "#@ load(\"x.star\", \"y\")\n#@data/values\n---\na: 1 #@ z\n  #@ end\n",
        );
        assert_eq!(
            got,
            vec![(1, " load(\"x.star\", \"y\")".into()), (5, " end".into())]
        );
    }
}
