//! References in the forms of `tekton.dev/v1alpha1`: `$(inputs.params.x)`
//! and the PipelineResource forms `$(inputs.resources.r.…)`,
//! `$(outputs.resources.r.…)` and their v1beta1 spellings
//! `$(resources.inputs.r.…)`, `$(resources.outputs.r.…)`.
//!
//! tektoncd/pipeline still substitutes `$(inputs.params.NAME)` in a Task
//! (`paramPatterns` of pkg/reconciler/taskrun/resources/apply.go, marked
//! "Remove that with deprecating v1beta1"), with the value `$(params.NAME)`
//! gets; the Pipeline reconciler does not (its `paramPatterns` lack the
//! form), nor does either take a key or bracket form of it. PipelineResources
//! were removed in v0.44.0 (TEP-0074): nothing substitutes their forms.

use super::ctx::Ctx;
use super::model::Scope;
use super::syntax::{PRef, parse_param_ref};
use crate::edit::Fix;
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::yaml::Node;

/// A reference body in a v1alpha1 form.
pub(super) enum Legacy<'b> {
    /// `inputs.params…`: the `params…` body it stands for.
    Param(&'b str),
    /// A PipelineResource: `inputs.resources.…` and the like.
    Resource,
}

/// The prefixes of PipelineResource references.
const RESOURCE_PREFIXES: [&str; 4] = [
    "inputs.resources.",
    "outputs.resources.",
    "resources.inputs.",
    "resources.outputs.",
];

/// The v1alpha1 form `body` is written in, if any.
pub(super) fn legacy_form(body: &str) -> Option<Legacy<'_>> {
    if let Some(rest) = body.strip_prefix("inputs.")
        && parse_param_ref(rest).is_some()
    {
        return Some(Legacy::Param(rest));
    }
    RESOURCE_PREFIXES
        .iter()
        .any(|p| body.starts_with(p))
        .then_some(Legacy::Resource)
}

/// Where an expression stands, as [`Ctx::legacy_reference`] judges it.
pub(super) struct At<'a> {
    pub node: &'a Node,
    /// The offset of its `$(` in the scalar's text.
    pub off: usize,
    pub path: &'a str,
    pub scope: &'a Scope,
    /// Its `params…` body, rewritten from `inputs.params…`, breaks no
    /// T-rule where it stands.
    pub fits: bool,
}

impl Ctx<'_> {
    /// The warning about `$(body)`, written in the v1alpha1 form `form`:
    /// what Tekton makes of it and what to write instead, with the rewrite
    /// to `$(params…)` as a fix when that form names a param in scope and
    /// fits where it stands.
    pub(super) fn legacy_reference(&mut self, at: &At, body: &str, form: &Legacy) {
        let span = self.expr_span(at.node, at.off);
        let expr = format!("$({body})");
        // Only a Task (whose runs set what is passed) substitutes the form.
        let in_task = self.passed.is_some();
        let (message, help, fix) = match form {
            Legacy::Resource => (
                format!(
                    "{expr} refers to a PipelineResource: Tekton removed PipelineResources in v0.44.0, so nothing substitutes it and the text stays as it is"
                ),
                "give the files through a workspace ($(workspaces.<name>.path)) or the value as a param ($(params.<name>))".to_string(),
                None,
            ),
            Legacy::Param(params_body) => {
                let name = match parse_param_ref(params_body) {
                    Some(PRef::Ok { name, key: None, .. }) => Some((name, true)),
                    Some(PRef::Ok { name, .. }) => Some((name, false)),
                    _ => None,
                };
                let substituted =
                    in_task && params_body.starts_with("params.") && name.as_ref().is_some_and(|(_, plain)| *plain);
                let instead = format!("$({params_body})");
                let message = if substituted {
                    format!(
                        "{expr} is the tekton.dev/v1alpha1 form of {instead}: Tekton still substitutes it in a Task, as a leftover it marks for removal"
                    )
                } else if in_task {
                    format!(
                        "{expr} is a tekton.dev/v1alpha1 form that Tekton substitutes only as $(inputs.params.<name>): the text stays as it is"
                    )
                } else {
                    format!(
                        "{expr} is a tekton.dev/v1alpha1 form, which Tekton does not substitute in a Pipeline: the text stays as it is"
                    )
                };
                let declared = name.as_ref().is_some_and(|(n, _)| at.scope.contains_key(n));
                let fits = declared && at.fits;
                let fix = fits
                    .then(|| {
                        let edit =
                            crate::check::edits::replace_once(self.sources, span, &expr, &instead)?;
                        // In a Pipeline's inline taskSpec the Pipeline's
                        // params are substituted into `$(params.x)` first.
                        let why = match (substituted, self.tasks.is_some()) {
                            (true, false) => "the same value",
                            (true, true) => {
                                "the same value, unless the Pipeline declares a param of that name, which Tekton substitutes there first"
                            }
                            (false, _) => "the value where it got the text as it is",
                        };
                        Fix::unsafe_(format!("write {instead}: the run gets {why}"), vec![edit])
                    })
                    .flatten();
                let help = match name {
                    Some((n, _)) if !declared => format!("write {instead} ({n} is not declared here)"),
                    _ => format!("write {instead}"),
                };
                (message, help, fix)
            }
        };
        let finding = Finding::new(&rules::tekton::LEGACY_REFERENCE, span, message)
            .with_path(at.path.to_string())
            .with_severity(Severity::Warning)
            .with_help(help)
            .with_fix(fix);
        self.out.push(finding);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1alpha1_forms_are_told_apart_from_current_ones() {
        assert!(matches!(
            legacy_form("inputs.params.IMAGE"),
            Some(Legacy::Param("params.IMAGE"))
        ));
        assert!(matches!(
            legacy_form("inputs.params['a.b']"),
            Some(Legacy::Param("params['a.b']"))
        ));
        for resource in [
            "inputs.resources.source.path",
            "outputs.resources.image.url",
            "resources.inputs.repo.path",
        ] {
            assert!(matches!(legacy_form(resource), Some(Legacy::Resource)));
        }
        for current in [
            "params.x",
            "inputs.paramsx",
            "inputs.other",
            "resources.x",
            "workspaces.source.path",
        ] {
            assert!(legacy_form(current).is_none(), "{current}");
        }
    }
}
