//! Where a validations annotation's JSON text sits in its YAML file, so
//! that a problem at an offset of the JSON is reported on its own line.

use crate::source::{FileId, SourceFile, Span};
use crate::yaml::node::MapItem;
use crate::yaml::{ScalarStyle, ScalarValue};

/// Where an annotation's JSON text lives.
pub(super) struct Annot<'a> {
    pub(super) file: FileId,
    pub(super) key_span: Span,
    pub(super) text: &'a str,
    literal: bool,
    /// Offsets of the text's newlines, so that placing each of thousands
    /// of rules costs a lookup, not a scan of the text before it.
    newlines: Vec<usize>,
}

impl<'a> Annot<'a> {
    pub(super) fn new(file: FileId, key_span: Span, text: &'a str, literal: bool) -> Annot<'a> {
        Annot {
            file,
            key_span,
            text,
            literal,
            newlines: text.match_indices('\n').map(|(i, _)| i).collect(),
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
            &s.text,
            s.style == ScalarStyle::Literal,
        ))
    }

    pub(super) fn id(&self) -> (u32, u32) {
        (self.file.0, self.key_span.start)
    }
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
    let k = a.newlines.partition_point(|&i| i < off);
    let col = off - k.checked_sub(1).map_or(0, |p| a.newlines[p] + 1);
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
        let a = Annot::new(id, Span::new(id, key, key + 11), json, true);
        let brace = json.find('{').unwrap();
        let span = json_span(&src, &a, brace);
        assert_eq!(span.start as usize, text.find('{').unwrap());
        assert_eq!(src.line_col(span.start as usize).line, 5);
        let close = json.rfind(']').unwrap();
        let span = json_span(&src, &a, close);
        assert_eq!(span.start as usize, text.find("\n      ]").unwrap() + 7);
        assert_eq!(src.line_col(span.start as usize).column, 7);
        let plain = Annot::new(id, a.key_span, json, false);
        assert_eq!(json_span(&src, &plain, brace).start as usize, key);
    }
}
