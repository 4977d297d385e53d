//! Findings and fixes in the language server protocol's terms: 0-based
//! lines, columns in UTF-16 code units (the protocol's default position
//! encoding), diagnostics with their rule's code and docs link, and fixes
//! as workspace edits.

// lsp-types' `Uri` caches its parse inside itself, which clippy takes for
// a mutable key; its hash and equality never change, and the protocol's
// `WorkspaceEdit` is keyed by it.
#![allow(clippy::mutable_key_type)]

use crate::finding::{Applicability, Finding, Fix, Severity};
use crate::source::{SourceFile, Sources, Span};
use crate::uri::Syntax;
use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Position, Range, TextEdit, Uri,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The protocol position of byte `offset` of `file` (clamped, and moved
/// back to a character boundary).
pub fn position(file: &SourceFile, offset: usize) -> Position {
    let (line, character) = file.lines().utf16_position(&file.text, offset);
    Position::new(line as u32, character as u32)
}

/// The byte offset of protocol position `at` in `file` (clamped to its
/// line, and to the text).
pub fn offset(file: &SourceFile, at: Position) -> usize {
    let (line, character) = (at.line as usize, at.character as usize);
    file.lines().utf16_offset(&file.text, line, character)
}

/// The protocol range of a span.
pub fn range(sources: &Sources, span: Span) -> Range {
    let file = sources.get(span.file);
    Range::new(
        position(&file, span.start as usize),
        position(&file, span.end as usize),
    )
}

/// `file://` URI of an absolute path.
pub fn uri_of(path: &Path) -> Option<Uri> {
    let url = crate::uri::from_path(path.to_str()?, Syntax::NATIVE)?;
    url.as_str().parse().ok()
}

/// The path a `file://` URI names.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let url = url::Url::parse(uri.as_str()).ok()?;
    crate::uri::to_path(&url, Syntax::NATIVE).map(PathBuf::from)
}

/// A finding as a diagnostic: its rule as code with the docs page, and its
/// related places in files.
pub fn diagnostic(finding: &Finding, sources: &Sources) -> Diagnostic {
    let related: Vec<DiagnosticRelatedInformation> = finding
        .related
        .iter()
        .filter_map(|related| {
            let uri = uri_of(&sources.path(related.span.file)?)?;
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, range(sources, related.span)),
                message: related.message.clone(),
            })
        })
        .collect();
    let mut message = finding.message.clone();
    if let Some(help) = &finding.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    Diagnostic {
        range: range(sources, finding.span),
        severity: Some(match finding.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(finding.rule.to_string())),
        code_description: crate::rules::doc_url(finding.rule)
            .parse()
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some("confvet".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    }
}

/// A fix's edits by file URI, positioned in the texts the finding was
/// made against; None when an edit is in a source with no file.
pub fn text_edits(fix: &Fix, sources: &Sources) -> Option<HashMap<Uri, Vec<TextEdit>>> {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for edit in &fix.edits {
        let uri = uri_of(&sources.path(edit.span.file)?)?;
        changes.entry(uri).or_default().push(TextEdit::new(
            range(sources, edit.span),
            edit.content.clone(),
        ));
    }
    Some(changes)
}

/// What a quick fix's title says of how safe it is.
pub fn title(fix: &Fix) -> String {
    match fix.applicability {
        Applicability::Safe => fix.message.clone(),
        Applicability::Unsafe => format!("{} (unsafe fix)", fix.message),
        Applicability::DisplayOnly => format!("{} (suggestion)", fix.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> SourceFile {
        SourceFile::new("f.yaml".into(), None, text.into())
    }

    #[test]
    fn positions_count_utf16_units_on_0_based_lines() {
        let text = file("a: 1\nné: \u{1F600}x\n");
        assert_eq!(position(&text, 0), Position::new(0, 0));
        let x = text.text.find('x').unwrap();
        assert_eq!(
            position(&text, x),
            Position::new(1, 6),
            "é is 1 unit, the emoji 2"
        );
        assert_eq!(position(&text, 999), Position::new(2, 0));
    }

    #[test]
    fn offsets_are_the_inverse_of_positions() {
        let text = file("a: 1\nné: \u{1F600}x\nlast");
        for (at, _) in text.text.char_indices() {
            assert_eq!(offset(&text, position(&text, at)), at);
        }
        assert_eq!(
            offset(&text, Position::new(0, 99)),
            4,
            "clamped to the line"
        );
        assert_eq!(offset(&text, Position::new(9, 0)), text.text.len());
    }

    #[test]
    fn uris_and_paths_round_trip() {
        let path = Path::new("/work/my repo/tasks/build é.yaml");
        let uri = uri_of(path).unwrap();
        assert_eq!(
            uri.as_str(),
            "file:///work/my%20repo/tasks/build%20%C3%A9.yaml"
        );
        assert_eq!(path_of(&uri).unwrap(), path);
    }

    #[test]
    fn uris_encoded_otherwise_name_the_same_path() {
        let uri: Uri = "file:///work/a%40b%2Bc%3Ad.yaml".parse().unwrap();
        assert_eq!(path_of(&uri).unwrap(), Path::new("/work/a@b+c:d.yaml"));
        let other: Uri = "https://example.com/a.yaml".parse().unwrap();
        assert_eq!(path_of(&other), None);
    }
}
