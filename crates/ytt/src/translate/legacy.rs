//! The code of schema and data-values files as one program, where a
//! fragment function returns its YAML as a Starlark literal (templates are
//! compiled by `template` instead).

use super::rewrite::rename_assert;
use super::scan::{keyword, shape};

/// The code of one line of a ytt YAML file, if it is a `#@ code` line: what
/// follows `#@` and one blank, as templates read it. The blanks after that
/// one are code: after a line ending in `\` they continue a string.
fn code_of(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("#@")?;
    if rest.is_empty() {
        return Some(rest);
    }
    rest.strip_prefix([' ', '\t'])
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
