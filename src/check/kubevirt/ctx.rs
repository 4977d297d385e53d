//! The state of one unit's KubeVirt check: the findings so far and each
//! validations annotation parsed once (its problems reported the first time).

use super::annotation::{self, Parsed};
use super::placement::{Annot, json_span};
use crate::finding::Finding;
use crate::source::{FileId, SourceFile, Sources};
use std::collections::HashMap;
use std::sync::Arc;

/// One unit's check in progress.
pub(super) struct Ctx<'s> {
    sources: &'s Sources,
    files: HashMap<u32, Arc<SourceFile>>,
    pub(super) parsed: HashMap<(u32, u32), Parsed>,
    pub(super) out: Vec<Finding>,
}

impl<'s> Ctx<'s> {
    pub(super) fn new(sources: &'s Sources) -> Ctx<'s> {
        Ctx {
            sources,
            files: HashMap::new(),
            parsed: HashMap::new(),
            out: Vec::new(),
        }
    }

    pub(super) fn src(&mut self, id: FileId) -> Arc<SourceFile> {
        let sources = self.sources;
        self.files
            .entry(id.0)
            .or_insert_with(|| sources.get(id))
            .clone()
    }

    /// Parse an annotation once, reporting its problems the first time.
    pub(super) fn parse(&mut self, a: &Annot) {
        if self.parsed.contains_key(&a.id()) {
            return;
        }
        let parsed = annotation::parse(a.text);
        let src = self.src(a.file);
        for p in &parsed.problems {
            let span = json_span(&src, a, p.off);
            let rule = if p.warning {
                &crate::rules::kubevirt::RULE_WITHOUT_ARGUMENTS
            } else if parsed.rules.is_none() {
                &crate::rules::kubevirt::ANNOTATION
            } else {
                &crate::rules::kubevirt::RULE
            };
            self.out.push(
                Finding::new(rule, span, p.message.clone())
                    .with_related(a.key_span, "in this validations annotation"),
            );
        }
        self.parsed.insert(a.id(), parsed);
    }
}
