//! The state one Tekton document is checked with: where findings go, which
//! file is read, and what the enclosing pipeline or run puts in scope. Every
//! check is a method on [`Ctx`]; this file only holds the state, so that the
//! checks (`refs`, `values`, `decls`, …) and the walker in `walk` all depend
//! on it and not on each other.

use super::lighthouse::Fills;
use super::model::{Scope, Tasks, siblings};
use crate::finding::{Finding, Severity};
use crate::source::{FileId, SourceFile, Sources, Span};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// One document's check in progress: the findings so far and the scope
/// the walk is in.
pub(super) struct Ctx<'s> {
    pub(super) sources: &'s Sources,
    /// Source files read so far, by file id, for placing spans.
    files: HashMap<u32, Arc<SourceFile>>,
    /// The file of the document being checked.
    pub(super) file: FileId,
    pub(super) out: Vec<Finding>,
    /// Pipeline tasks of the `tasks` section, while a Pipeline is checked.
    pub(super) tasks: Option<Tasks>,
    /// Pipeline tasks of the `finally` section, while pipeline results
    /// (which may name them as `$(finally.T.results.R)`) are checked.
    pub(super) finally_tasks: Option<Tasks>,
    /// Results of the Task spec being scanned.
    pub(super) results: Option<Scope>,
    /// Params the runs of the Task spec being scanned pass (spec § 6.3).
    pub(super) passed: Option<Passed>,
    /// Where the expressions of the last scalar placed are.
    pub(super) expr_offsets: Option<ExprOffsets>,
    /// The document is a Pipelines-as-Code PipelineRun that names tasks to
    /// inline (`pipelinesascode.tekton.dev/task*` annotations): PaC embeds
    /// the Tasks its taskRefs name as inline specs before Tekton sees it.
    pub(super) pac_inlines: bool,
    /// The document is a PipelineRun Lighthouse runs, which gives it (and
    /// maybe its pipeline tasks) the params of [`INJECTED`].
    ///
    /// [`INJECTED`]: super::lighthouse::INJECTED
    pub(super) lighthouse: Option<Fills>,
}

impl<'s> Ctx<'s> {
    pub(super) fn new(sources: &'s Sources, file: FileId) -> Ctx<'s> {
        Ctx {
            sources,
            files: HashMap::new(),
            file,
            out: Vec::new(),
            tasks: None,
            finally_tasks: None,
            results: None,
            passed: None,
            expr_offsets: None,
            pac_inlines: false,
            lighthouse: None,
        }
    }

    pub(super) fn src(&mut self) -> Arc<SourceFile> {
        let sources = self.sources;
        let id = self.file;
        self.files
            .entry(id.0)
            .or_insert_with(|| sources.get(id))
            .clone()
    }

    pub(super) fn push(
        &mut self,
        rule: &'static crate::rules::Rule,
        span: Span,
        path: &str,
        msg: String,
    ) {
        self.out
            .push(Finding::new(rule, span, msg).with_path(path.to_string()));
    }

    pub(super) fn warn(
        &mut self,
        rule: &'static crate::rules::Rule,
        span: Span,
        path: &str,
        msg: String,
    ) {
        self.out.push(
            Finding::new(rule, span, msg)
                .with_path(path.to_string())
                .with_severity(Severity::Warning),
        );
    }
}

/// Which params a run passes into the Task spec being scanned (spec § 6.3):
/// the reconciler substitutes every passed param, declared or not, outside
/// the step fields the webhook checks.
pub(super) enum Passed {
    /// An inline spec: the names its pipeline task or TaskRun binds.
    Names(HashSet<String>),
    /// A named Task: the names each caller in view that resolves to it binds.
    Callers(Vec<HashSet<String>>),
}

impl Passed {
    /// Why an undeclared `name` outside the webhook's fields is worth a
    /// warning, or None when a run passes it or no caller is in view.
    pub(super) fn undeclared(&self, name: &str) -> Option<String> {
        match self {
            Passed::Names(names) => (!names.contains(name)).then(|| {
                "the run does not pass this param either, so the text stays literal".to_string()
            }),
            Passed::Callers(callers) => {
                let passed = callers.iter().any(|c| c.contains(name));
                (!callers.is_empty() && !passed).then(|| {
                    format!(
                        "none of the {} run(s) in view that use this Task passes it, so the text stays literal",
                        callers.len()
                    )
                })
            }
        }
    }
}

impl Passed {
    /// The declared param an undeclared `name` in a named Task is almost
    /// surely a typo of: within two edits of it, and not a sibling name
    /// such as `image2` of `image1`. Worth a warning with no run in view
    /// too, though not when a run in view passes `name` itself (then it is
    /// substituted, spec § 6.3).
    pub(super) fn near_typo(&self, name: &str, scope: &Scope) -> Option<String> {
        let Passed::Callers(callers) = self else {
            return None;
        };
        if callers.iter().any(|c| c.contains(name)) {
            return None;
        }
        let mut declared: Vec<String> = scope.keys().cloned().collect();
        declared.sort();
        let near = crate::suggest::within(name, &declared, 2)?;
        (!siblings(name, &near)).then_some(near)
    }
}

/// Where the `$(` of one scalar's expressions are, for [`Ctx::expr_span`].
pub(super) struct ExprOffsets {
    /// The scalar node they belong to.
    pub(super) node: Span,
    /// Offsets of `$(` in the node's source text, and of the `)` after each.
    pub(super) in_source: Vec<usize>,
    pub(super) ends: Vec<usize>,
    /// Offsets of `$(` in the scalar's value.
    pub(super) in_text: Vec<usize>,
}
