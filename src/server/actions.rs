//! Code actions: each finding's fix as a quick fix (preferred when safe),
//! the document's safe fixes together as `source.fixAll.confvet`, and
//! "suppress" for any finding, which writes the suppression comment above
//! its line with a reason to fill in.

// lsp-types' `Uri` caches its parse inside itself, which clippy takes for
// a mutable key; its hash and equality never change, and the protocol's
// `WorkspaceEdit` is keyed by it.
#![allow(clippy::mutable_key_type)]

use super::{Checked, FIX_ALL, Server, convert};
use crate::finding::{Applicability, Finding, Fix};
use crate::source::FileId;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, TextEdit, Uri, WorkspaceEdit,
};
use std::collections::HashMap;

/// What the suppression comment says until the author gives the reason.
pub const REASON_PLACEHOLDER: &str = "TODO: say why";

impl Server {
    /// The code actions of the findings in the range, and the file's safe
    /// fixes together as [`FIX_ALL`].
    pub(super) fn code_actions(&self, params: CodeActionParams) -> Vec<CodeActionOrCommand> {
        let uri = &params.text_document.uri;
        let Some(checked) = self
            .documents
            .get(uri)
            .and_then(|d| d.checked.as_ref().filter(|c| c.version == d.version))
        else {
            return Vec::new();
        };
        let sources = &checked.sources;
        let wanted = |kind: &str| {
            params
                .context
                .only
                .as_ref()
                .is_none_or(|only| only.iter().any(|k| kind.starts_with(k.as_str())))
        };
        let mut actions = Vec::new();
        let mut suppressions = Vec::new();
        // Whether each file parses now, asked once per file, not once per
        // finding: a suppression comment must not make it stop.
        let mut parses_now: HashMap<FileId, bool> = HashMap::new();
        for finding in &checked.findings {
            let diagnostic = convert::diagnostic(finding, sources);
            let touches = diagnostic.range.start <= params.range.end
                && params.range.start <= diagnostic.range.end;
            if !touches || !wanted(CodeActionKind::QUICKFIX.as_str()) {
                continue;
            }
            if let Some(fix) = finding.fix.as_deref()
                && let Some(changes) = convert::text_edits(fix, sources)
            {
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: convert::title(fix),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic.clone()]),
                    edit: Some(WorkspaceEdit::new(changes)),
                    is_preferred: Some(fix.applicability == Applicability::Safe),
                    ..CodeAction::default()
                }));
            }
            if let Some(edit) = suppression(finding, checked, &mut parses_now) {
                suppressions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("Suppress {} on this line", finding.rule),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic]),
                    edit: Some(WorkspaceEdit::new(HashMap::from([(
                        uri.clone(),
                        vec![edit],
                    )]))),
                    is_preferred: Some(false),
                    ..CodeAction::default()
                }));
            }
        }
        // Fixes first: a suppression is the last resort.
        actions.extend(suppressions);
        if wanted(FIX_ALL)
            && let Some(action) = fix_all(checked)
        {
            actions.push(action);
        }
        actions
    }
}

/// The document's safe fixes that do not overlap, as one action.
fn fix_all(checked: &Checked) -> Option<CodeActionOrCommand> {
    let mut kept: Vec<&Fix> = Vec::new();
    for fix in checked
        .findings
        .iter()
        .filter_map(|f| f.applicable_fix(false))
    {
        if !kept.iter().any(|k| k.overlaps(fix)) {
            kept.push(fix);
        }
    }
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for fix in kept {
        for (uri, edits) in convert::text_edits(fix, &checked.sources).unwrap_or_default() {
            changes.entry(uri).or_default().extend(edits);
        }
    }
    (!changes.is_empty()).then(|| {
        CodeActionOrCommand::CodeAction(CodeAction {
            title: "confvet: apply every safe fix".into(),
            kind: Some(CodeActionKind::new(FIX_ALL)),
            edit: Some(WorkspaceEdit::new(changes)),
            ..CodeAction::default()
        })
    })
}

/// The edit that writes `# confvet: ignore[rule] reason` on a line of its
/// own above the finding's line, indented as that line is. None for the
/// suppression rules themselves (no comment hides them), and where the
/// comment would break the file: a line inside a plain multi-line scalar,
/// say, which a comment ends.
fn suppression(
    finding: &Finding,
    checked: &Checked,
    parses_now: &mut HashMap<FileId, bool>,
) -> Option<TextEdit> {
    if !crate::suppress::suppressible(finding.rule) {
        return None;
    }
    let file = checked.sources.get(finding.span.file);
    let text = &file.text;
    let start = (finding.span.start as usize).min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let comment = format!(
        "{indent}{} {} ignore[{}] {REASON_PLACEHOLDER}\n",
        checked.covered.comment(),
        crate::suppress::MARKER,
        finding.rule
    );
    let mut fixed = text.clone();
    fixed.insert_str(line_start, &comment);
    let parsed = *parses_now
        .entry(finding.span.file)
        .or_insert_with(|| crate::yaml::parses(text));
    if parsed && !crate::yaml::parses(&fixed) {
        return None;
    }
    let at = convert::position(&file, line_start);
    Some(TextEdit::new(lsp_types::Range::new(at, at), comment))
}
