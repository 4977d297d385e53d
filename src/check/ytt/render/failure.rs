//! A template that did not render, as a finding: which rule, how severe
//! (does it wait on a value the consumer gives?), and the calls that led
//! there as related locations.

use super::{Cause, RenderFailure, Renderer};
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::{SourceFile, Span};

impl Renderer {
    pub(super) fn failure_finding(
        &self,
        failure: RenderFailure,
        template: &SourceFile,
        sources: &crate::source::Sources,
    ) -> Finding {
        let rule = match failure.cause {
            Cause::Fail => &rules::ytt::TEMPLATE_FAIL,
            Cause::Error | Cause::Overlay => &rules::ytt::TEMPLATE_ERROR,
            Cause::Syntax => {
                return Finding::new(
                    &rules::ytt::STARLARK_SYNTAX,
                    failure.span,
                    format!("template code does not parse: {}", failure.message),
                );
            }
        };
        // The calls that led here, outermost first, each a line of a file
        // of the package; the last is where it failed.
        let places: Vec<(Span, String)> = failure
            .chain
            .iter()
            .filter_map(|(module, line)| {
                self.place(module, *line, template, failure.span.file, sources)
            })
            .collect();
        let mut lines: Vec<String> = places.iter().map(|(_, text)| text.clone()).collect();
        let failing_line = template.line_col(failure.span.start as usize).line;
        lines.push(template.line_text(failing_line).to_string());
        let awaited =
            super::super::awaits::awaited_values(lines.iter().map(String::as_str), &self.values);
        let comment_rejected = failure.message.contains("Expected ytt-formatted string");
        let unsupported = failure
            .message
            .contains(super::super::starlark::NOT_RENDERED);
        let (severity, help) = if unsupported {
            (
                Severity::Warning,
                "confvet does not render this yet (see `confvet render` in docs/usage.md); the template was not checked".to_string(),
            )
        } else if self.consumer_values {
            (
                Severity::Error,
                "`ytt -f` stops here with these data values".to_string(),
            )
        } else if !awaited.is_empty() {
            (
                Severity::Warning,
                format!(
                    "`ytt -f` stops here until the consumer gives data value {} (null or absent in the package's own values)",
                    awaited
                        .iter()
                        .map(|p| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        } else if comment_rejected {
            (
                Severity::Warning,
                "`ytt -f` rejects plain `#` comments in templates unless `--ignore-unknown-comments` is given; use `#!` for comments".to_string(),
            )
        } else if matches!(failure.cause, Cause::Fail | Cause::Overlay) {
            (
                Severity::Error,
                "`ytt -f` stops here with the package's own data values".to_string(),
            )
        } else {
            // An error no data value explains may still be confvet's gap
            // (overlays, libraries): a warning until the engine is whole.
            (
                Severity::Warning,
                "`ytt -f` stops here with the package's own data values".to_string(),
            )
        };
        let mut finding = Finding::new(rule, failure.span, failure.message)
            .with_severity(severity)
            .with_help(help);
        for (span, _) in places {
            if span != failure.span {
                finding = finding.with_related(span, "in this call");
            }
        }
        finding
    }

    /// A place of a call chain: the span and text of `line` in the package
    /// file loaded as `module` (the template itself, or a loaded file; a
    /// `.star` file is read and added to `sources` the first time).
    fn place(
        &self,
        module: &str,
        line: usize,
        template: &SourceFile,
        template_file: crate::source::FileId,
        sources: &crate::source::Sources,
    ) -> Option<(Span, String)> {
        let at = |id, source: &SourceFile| {
            let span = super::whole_line(source, id, line);
            (span, source.line_text(line).to_string())
        };
        if module == template.name {
            return Some(at(template_file, template));
        }
        let wanted = module.trim_start_matches("./").trim_start_matches('/');
        let known = self
            .files
            .iter()
            .filter(|(path, _, _)| path.to_string_lossy().ends_with(&format!("/{wanted}")))
            .min_by_key(|(path, _, _)| path.as_os_str().len())
            .map(|(_, id, s)| (*id, s.clone()));
        let (id, source) = match known {
            Some(found) => found,
            None => self.loaded_source(wanted, sources)?,
        };
        Some(at(id, &source))
    }

    /// A loaded file of the package that confvet did not lint itself (a
    /// `.star` file), read once and added to `sources` for its positions.
    fn loaded_source(
        &self,
        relative: &str,
        sources: &crate::source::Sources,
    ) -> Option<(crate::source::FileId, std::sync::Arc<SourceFile>)> {
        let path = crate::source::normalize_path(&self.root.join(relative));
        if !path.starts_with(&self.root) {
            return None;
        }
        if let Some(found) = self.loaded.borrow().get(&path) {
            return Some(found.clone());
        }
        let bytes = sources.read(&path).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let name = self
            .files
            .first()
            .and_then(|(p, _, s)| {
                // Name it as the package's files are named (relative to
                // where they are shown from).
                let shown = std::path::Path::new(&s.name);
                let dir = p.parent()?.strip_prefix(&self.root).ok()?;
                let base = shown.ancestors().nth(dir.components().count() + 1)?;
                Some(base.join(relative).to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| relative.to_string());
        let id = sources.add(SourceFile::new(name, Some(path.clone()), text));
        let found = (id, sources.get(id));
        self.loaded.borrow_mut().insert(path, found.clone());
        Some(found)
    }
}
