//! The Starlark of a ytt file read as text, for the navigator: where code
//! is (`#@` lines of a YAML template, `(@ @)` of a text template, a whole
//! `.star` file), the dotted name around a place (`data.values.a.b`), the
//! `load(...)` statements and the `def`s. Only what is written plainly is
//! recognised; anything else is left unanswered.

use std::ops::Range;

/// How a file holds its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flavor {
    /// A YAML file: code after `#@`.
    Yaml,
    /// A text template: code between `(@` and `@)`.
    Text,
    /// A `.star` file: code everywhere but comments.
    Star,
}

pub(super) fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The line of `text` holding `offset`: its start and its end (before the
/// newline).
fn line_around(text: &str, offset: usize) -> Range<usize> {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    start..end
}

/// Whether `offset` is in code, not in a comment or plain text.
pub(super) fn is_code_at(text: &str, offset: usize, flavor: Flavor) -> bool {
    if offset > text.len() || !text.is_char_boundary(offset) {
        return false;
    }
    let line = line_around(text, offset);
    let before = &text[line.start..offset];
    match flavor {
        // After `#@`, or in a `(@= @)` of a string (`@yaml/text-templated-strings`).
        Flavor::Yaml => {
            before
                .find("#@")
                .is_some_and(|at| !before[..at].contains("#!"))
                || in_text_template(before)
        }
        Flavor::Star => !before.contains('#'),
        Flavor::Text => in_text_template(&text[..offset]),
    }
}

/// Whether the end of `before` is inside a `(@ @)` opened in it.
fn in_text_template(before: &str) -> bool {
    match (before.rfind("(@"), before.rfind("@)")) {
        (Some(open), Some(close)) => open > close,
        (Some(_), None) => true,
        _ => false,
    }
}

/// A dotted name with the span of each part (`data`, `values`, `a`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Dotted {
    pub parts: Vec<(String, Range<usize>)>,
}

/// The dotted name around `offset` (a plain name is one part), not itself
/// a member of something else (`x.data.values` is not `data.values`).
pub(super) fn dotted_at(text: &str, offset: usize) -> Option<Dotted> {
    let bytes = text.as_bytes();
    if offset > bytes.len() {
        return None;
    }
    let is_part = |b: u8| is_ident_byte(b) || b == b'.';
    let mut start = offset;
    while start > 0 && is_part(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset;
    while end < bytes.len() && is_part(bytes[end]) {
        end += 1;
    }
    if start == end {
        return None;
    }
    let mut parts = Vec::new();
    let mut at = start;
    for part in text[start..end].split('.') {
        if part.is_empty() {
            // `a..b`, a leading or trailing dot: only a trailing one (being
            // typed) is kept, as an empty last part.
            if at + part.len() != end {
                return None;
            }
        }
        if part.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            return None;
        }
        parts.push((part.to_string(), at..at + part.len()));
        at += part.len() + 1;
    }
    Some(Dotted { parts })
}

impl Dotted {
    /// The data value path this name is, up to the part at `offset`:
    /// `data.values.a.b` with the cursor on `a` is `["a"]`, with the span
    /// of `a`.
    pub fn data_value_at(&self, offset: usize) -> Option<(Vec<String>, Range<usize>)> {
        if self.parts.len() < 3 || self.parts[0].0 != "data" || self.parts[1].0 != "values" {
            return None;
        }
        let index = (2..self.parts.len()).find(|&i| {
            let span = &self.parts[i].1;
            span.start <= offset && offset <= span.end && !self.parts[i].0.is_empty()
        })?;
        let path = self.parts[2..=index]
            .iter()
            .map(|(p, _)| p.clone())
            .collect();
        Some((path, self.parts[index].1.clone()))
    }
}

/// A string literal in code: its text and the span of the whole literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Literal {
    pub text: String,
    pub span: Range<usize>,
}

/// One `load(...)`: the module and each symbol (the name it is bound to
/// here, and the name in the module as written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Load {
    pub module: Literal,
    /// (local name, the symbol's literal).
    pub symbols: Vec<(String, Literal)>,
}

/// Every `load(...)` of the file written plainly (string literals,
/// `name="symbol"`), in code.
pub(super) fn loads(text: &str, flavor: Flavor) -> Vec<Load> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("load(") {
        let at = from + found;
        from = at + 5;
        let preceded =
            at > 0 && (is_ident_byte(text.as_bytes()[at - 1]) || text.as_bytes()[at - 1] == b'.');
        if preceded || !is_code_at(text, at, flavor) {
            continue;
        }
        if let Some(load) = load_args(text, at + 5, flavor) {
            out.push(load);
        }
    }
    out
}

/// The arguments of a `load(` whose `(` ends just before `start`.
fn load_args(text: &str, start: usize, flavor: Flavor) -> Option<Load> {
    let bytes = text.as_bytes();
    let mut at = start;
    let mut literals: Vec<(Option<String>, Literal)> = Vec::new();
    let mut name: Option<String> = None;
    loop {
        let b = *bytes.get(at)?;
        match b {
            b' ' | b'\t' | b'\r' | b',' => at += 1,
            // A load over several lines of a YAML template goes on after
            // `#@` on each.
            b'\n' => {
                at += 1;
                if flavor == Flavor::Yaml {
                    while bytes.get(at).is_some_and(|b| *b == b' ' || *b == b'\t') {
                        at += 1;
                    }
                    if !text[at..].starts_with("#@") {
                        return None;
                    }
                    at += 2;
                }
            }
            b')' => break,
            b'"' | b'\'' => {
                let end = at + 1 + text[at + 1..].find([b as char, '\n', '\\'])?;
                if bytes[end] != b {
                    return None;
                }
                let literal = Literal {
                    text: text[at + 1..end].to_string(),
                    span: at..end + 1,
                };
                literals.push((name.take(), literal));
                at = end + 1;
            }
            b if is_ident_byte(b) => {
                let end = at + text[at..].find(|c: char| !c.is_ascii_alphanumeric() && c != '_')?;
                name = Some(text[at..end].to_string());
                at = end;
                while bytes.get(at).is_some_and(|b| *b == b' ' || *b == b'\t') {
                    at += 1;
                }
                if bytes.get(at) != Some(&b'=') {
                    return None;
                }
                at += 1;
            }
            _ => return None,
        }
    }
    let mut literals = literals.into_iter();
    let (None, module) = literals.next()? else {
        return None;
    };
    let symbols = literals
        .map(|(local, literal)| (local.unwrap_or_else(|| literal.text.clone()), literal))
        .collect();
    Some(Load { module, symbols })
}

/// Each `def NAME(` in code: the name and its span.
pub(super) fn defs(text: &str, flavor: Flavor) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find("def ") {
        let at = from + found;
        from = at + 4;
        if at > 0 && is_ident_byte(bytes[at - 1]) || !is_code_at(text, at, flavor) {
            continue;
        }
        // Only a statement: nothing but `#@`, `(@` or blanks before it.
        let line = line_around(text, at);
        let before = text[line.start..at].trim();
        let starts_statement = match flavor {
            Flavor::Star => before.is_empty(),
            Flavor::Yaml => before == "#@",
            Flavor::Text => before.ends_with("(@") || before.ends_with("(@-") || before.is_empty(),
        };
        if !starts_statement {
            continue;
        }
        let mut start = at + 4;
        while bytes.get(start) == Some(&b' ') {
            start += 1;
        }
        let mut end = start;
        while bytes.get(end).is_some_and(|b| is_ident_byte(*b)) {
            end += 1;
        }
        let mut after = end;
        while bytes.get(after) == Some(&b' ') {
            after += 1;
        }
        if end > start && !bytes[start].is_ascii_digit() && bytes.get(after) == Some(&b'(') {
            out.push((text[start..end].to_string(), start..end));
        }
    }
    out
}

/// The name called at `offset` (`f` of `f(...)`, not a method `x.f(...)`
/// nor the name of a `def`), with its span.
pub(super) fn call_at(text: &str, offset: usize) -> Option<(String, Range<usize>)> {
    let dotted = dotted_at(text, offset)?;
    let [(name, span)] = dotted.parts.as_slice() else {
        return None;
    };
    if name.is_empty() {
        return None;
    }
    let rest = text[span.end..].trim_start_matches([' ', '\t']);
    if !rest.starts_with('(') {
        return None;
    }
    let before = text[..span.start].trim_end_matches([' ', '\t']);
    if before.ends_with("def")
        && !before[..before.len() - 3].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    {
        return None;
    }
    Some((name.clone(), span.clone()))
}

/// The literal of `loads` holding `offset`: the load, and which symbol
/// (None: the module).
pub(super) fn load_literal_at(loads: &[Load], offset: usize) -> Option<(&Load, Option<usize>)> {
    loads.iter().find_map(|load| {
        if load.module.span.contains(&offset) {
            return Some((load, None));
        }
        load.symbols
            .iter()
            .position(|(_, literal)| literal.span.contains(&offset))
            .map(|i| (load, Some(i)))
    })
}

/// What was typed of a data value's key before `offset` after
/// `data.values.` (and deeper parts): the path of the map completed and
/// the span of the part typed.
pub(super) fn data_value_prefix(text: &str, offset: usize) -> Option<(Vec<String>, Range<usize>)> {
    if offset > text.len() || !text.is_char_boundary(offset) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut start = offset;
    while start > 0 && (is_ident_byte(bytes[start - 1]) || bytes[start - 1] == b'.') {
        start -= 1;
    }
    let written = &text[start..offset];
    let parts: Vec<&str> = written.split('.').collect();
    if parts.len() < 3 || parts[0] != "data" || parts[1] != "values" {
        return None;
    }
    let (typed, map) = parts[2..].split_last()?;
    if map.iter().any(|p| p.is_empty()) {
        return None;
    }
    Some((
        map.iter().map(|p| p.to_string()).collect(),
        offset - typed.len()..offset,
    ))
}

/// Whether the file binds `data` to ytt's data module.
pub(super) fn loads_data_module(loads: &[Load]) -> bool {
    loads.iter().any(|load| {
        load.module.text == "@ytt:data"
            && load
                .symbols
                .iter()
                .any(|(local, literal)| local == "data" && literal.text == "data")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_value_path_runs_up_to_the_part_at_the_cursor() {
        let text = "#@ if data.values.app.replicas > 1:";
        let at = text.find("app").unwrap() + 1;
        let dotted = dotted_at(text, at).unwrap();
        let (path, span) = dotted.data_value_at(at).unwrap();
        assert_eq!(path, vec!["app"]);
        assert_eq!(&text[span], "app");
        let at = text.find("replicas").unwrap();
        assert_eq!(dotted.data_value_at(at).unwrap().0, vec!["app", "replicas"]);
        assert_eq!(
            dotted_at("x.data.values.a", 9).unwrap().data_value_at(9),
            None
        );
    }

    #[test]
    fn loads_are_read_with_their_aliases_and_lines() {
        let text = "#@ load(\"@ytt:data\", \"data\")\n#@ load(\"lib/helpers.star\",\n#@   \"labels\", n=\"name\")\n# load(\"x.star\", \"y\")\n";
        let found = loads(text, Flavor::Yaml);
        assert_eq!(found.len(), 2);
        assert!(loads_data_module(&found));
        assert_eq!(found[1].module.text, "lib/helpers.star");
        let names: Vec<(&str, &str)> = found[1]
            .symbols
            .iter()
            .map(|(l, s)| (l.as_str(), s.text.as_str()))
            .collect();
        assert_eq!(names, vec![("labels", "labels"), ("n", "name")]);
    }

    #[test]
    fn defs_and_calls_in_each_flavor() {
        let star = "def labels(app):\n  return {}\nend\n# def no():\n";
        assert_eq!(defs(star, Flavor::Star).len(), 1);
        let yaml = "#@ def name(x):\n#@ end\nmetadata:\n  name: #@ name(1)\n";
        assert_eq!(defs(yaml, Flavor::Yaml)[0].0, "name");
        let at = yaml.rfind("name(").unwrap();
        assert_eq!(call_at(yaml, at + 1).unwrap().0, "name");
        assert_eq!(call_at(yaml, yaml.find("name(").unwrap()), None);
        assert_eq!(call_at("x.f(1)", 2), None);
    }

    #[test]
    fn the_key_being_typed_after_data_values() {
        let text = "#@ data.values.app.rep";
        let (path, span) = data_value_prefix(text, text.len()).unwrap();
        assert_eq!(path, vec!["app"]);
        assert_eq!(&text[span], "rep");
        let text = "#@ data.values.";
        let (path, span) = data_value_prefix(text, text.len()).unwrap();
        assert!(path.is_empty() && span.is_empty());
        assert_eq!(data_value_prefix("#@ data.valu", 12), None);
    }

    #[test]
    fn code_is_where_the_flavor_says() {
        assert!(is_code_at("a: #@ data.values.x", 8, Flavor::Yaml));
        assert!(!is_code_at("a: data.values.x", 8, Flavor::Yaml));
        assert!(is_code_at("a: x-(@= data.values.x @)", 14, Flavor::Yaml));
        assert!(is_code_at("x (@= data.values.x @) y", 10, Flavor::Text));
        assert!(!is_code_at("x (@= data.values.x @) y", 23, Flavor::Text));
        assert!(!is_code_at("# data.values.x", 5, Flavor::Star));
    }
}
