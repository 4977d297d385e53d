//! Where a validations annotation's JSON text sits in its YAML file, so
//! that a problem at an offset of the JSON is reported on its own line,
//! and a fix edits its bytes.

use crate::source::{FileId, LineIndex, SourceFile, Span};
use crate::yaml::node::MapItem;
use crate::yaml::{ScalarStyle, ScalarValue};

/// Where an annotation's JSON text lives.
pub(super) struct Annot<'a> {
    pub(super) file: FileId,
    pub(super) key_span: Span,
    /// The scalar as written: its header and lines, or its quotes.
    value_span: Span,
    pub(super) text: &'a str,
    literal: bool,
    /// The text's lines, so that placing each of thousands of rules costs
    /// a lookup, not a scan of the text before it.
    lines: LineIndex,
}

impl<'a> Annot<'a> {
    pub(super) fn new(
        file: FileId,
        key_span: Span,
        value_span: Span,
        text: &'a str,
        literal: bool,
    ) -> Annot<'a> {
        Annot {
            file,
            key_span,
            value_span,
            text,
            literal,
            lines: LineIndex::new(text),
        }
    }

    pub(super) fn from_item(file: FileId, it: &'a MapItem) -> Option<Annot<'a>> {
        let s = it.value.as_scalar()?;
        if s.resolved == ScalarValue::Null {
            return None;
        }
        Some(Annot::new(
            file,
            it.key_span,
            it.value.span,
            &s.text,
            s.style == ScalarStyle::Literal,
        ))
    }

    pub(super) fn id(&self) -> (u32, u32) {
        (self.file.0, self.key_span.start)
    }

    /// Line and column (0-based, in bytes) of offset `off` of the text.
    fn line_col(&self, off: usize) -> (usize, usize) {
        let line = self.lines.line(off);
        (line - 1, off - self.lines.start(line))
    }
}

/// The key's line and the indentation of a literal block's lines.
fn block_indent(src: &SourceFile, a: &Annot) -> (usize, usize) {
    let key_line = src.line_col(a.key_span.start as usize).line;
    let key_col = a.key_span.start as usize - src.line_start(key_line);
    let header = src.line_text(key_line).get(key_col..).unwrap_or("");
    let explicit = header
        .split_once('|')
        .and_then(|(_, h)| h.trim_start_matches(['+', '-']).chars().next())
        .and_then(|c| c.to_digit(10));
    let indent = match explicit {
        Some(n) => key_col + n as usize,
        None => (key_line + 1..=src.line_count())
            .map(|l| src.line_text(l))
            .find(|t| !t.trim().is_empty())
            .map_or(0, |t| t.len() - t.trim_start_matches(' ').len()),
    };
    (key_line, indent)
}

/// The file offset of offset `off` of the annotation's JSON text, where
/// the text is the file's bytes: in a literal block, a line written as the
/// text has it; else a scalar that is the text itself, or the text in
/// quotes with no escape. None elsewhere (a folded or escaped scalar, a
/// Template parameter substituted into it).
pub(super) fn source_offset(src: &SourceFile, a: &Annot, off: usize) -> Option<usize> {
    if off > a.text.len() || !a.text.is_char_boundary(off) {
        return None;
    }
    if a.literal {
        let (k, col) = a.line_col(off);
        let (key_line, indent) = block_indent(src, a);
        let line = key_line + 1 + k;
        let json_line = a.text[off - col..].split('\n').next().unwrap_or("");
        let file_line = src.line_text(line);
        let within = a.value_span.start as usize <= src.line_start(line)
            && src.line_start(line) < a.value_span.end as usize;
        return (within && file_line.get(indent..) == Some(json_line))
            .then(|| src.line_start(line) + indent + col);
    }
    let raw = src.text.get(a.value_span.range())?;
    let start = a.value_span.start as usize;
    if raw == a.text {
        return Some(start + off);
    }
    let quoted = raw.len() == a.text.len() + 2
        && ['\'', '"']
            .iter()
            .any(|q| raw.starts_with(*q) && raw.ends_with(*q))
        && &raw[1..raw.len() - 1] == a.text;
    quoted.then_some(start + 1 + off)
}

/// The file span of offset `off` of the annotation's JSON text: inside a
/// literal block scalar, line k of the JSON is the key's line + 1 + k.
pub(super) fn json_span(src: &SourceFile, a: &Annot, off: usize) -> Span {
    if !a.literal {
        return a.key_span;
    }
    let mut off = off.min(a.text.len());
    while !a.text.is_char_boundary(off) {
        off -= 1;
    }
    let (k, col) = a.line_col(off);
    let (key_line, indent) = block_indent(src, a);
    let line = key_line + 1 + k;
    let line_text = src.line_text(line);
    let mut pos = (indent + col).min(line_text.len());
    while !line_text.is_char_boundary(pos) {
        pos -= 1;
    }
    let start = src.line_start(line) + pos;
    let end = start + line_text[pos..].chars().next().map_or(0, char::len_utf8);
    Span::new(a.file, start, end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Sources;

    #[test]
    fn literal_block_offsets_map_to_file_lines() {
        let text = "metadata:\n  annotations:\n    validations: |\n      [\n        {\"a\": 1},\n      ]\nobjects: []\n";
        let sources = Sources::new();
        let id = sources.add(SourceFile::new("t.yaml".into(), None, text.into()));
        let src = sources.get(id);
        let key = text.find("validations").unwrap();
        let json = "[\n  {\"a\": 1},\n]\n";
        let block = text.find('|').unwrap();
        let value = Span::new(id, block, text.find("objects").unwrap());
        let a = Annot::new(id, Span::new(id, key, key + 11), value, json, true);
        let brace = json.find('{').unwrap();
        let span = json_span(&src, &a, brace);
        assert_eq!(span.start as usize, text.find('{').unwrap());
        assert_eq!(src.line_col(span.start as usize).line, 5);
        let close = json.rfind(']').unwrap();
        let span = json_span(&src, &a, close);
        assert_eq!(span.start as usize, text.find("\n      ]").unwrap() + 7);
        assert_eq!(src.line_col(span.start as usize).column, 7);
        let plain = Annot::new(id, a.key_span, value, json, false);
        assert_eq!(json_span(&src, &plain, brace).start as usize, key);
    }
}
