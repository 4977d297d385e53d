//! Lighthouse (jenkins-x/lighthouse), the trigger system of Jenkins X, runs
//! the PipelineRuns of a repository's `.lighthouse/` folder. When it
//! starts one it sets the params of [`INJECTED`] in the run's `spec.params`
//! (`makePipelineRun`, pkg/engines/tekton/utils.go, from
//! `LighthouseJobSpec.GetEnvVars`), so a run there need not give them.
//! When it loads an in-repo PipelineRun with an inline `pipelineSpec` it
//! also declares them in that spec and binds each to every pipeline task
//! as `$(params.NAME)` (`DefaultPipelineParameters`,
//! pkg/triggerconfig/inrepo/default_parameters.go), unless the annotation
//! `lighthouse.jenkins-x.io/defaultParameters` is `"false"`.
//!
//! A PipelineRun is Lighthouse's when its file is under a `.lighthouse`
//! folder, when it carries a `lighthouse.jenkins-x.io/` annotation or label,
//! or when its inline `pipelineSpec` declares every param of [`INJECTED`]
//! (what Lighthouse writes into a run it loads, as `jx pipeline effective`
//! shows it).

use crate::yaml::node::{child, text};
use crate::yaml::{Node, Value};
use std::path::Path;

/// The params Lighthouse gives every PipelineRun it starts (some are empty
/// for a postsubmit, none is left out).
pub(super) const INJECTED: [&str; 13] = [
    "BUILD_ID",
    "JOB_NAME",
    "JOB_SPEC",
    "JOB_TYPE",
    "PULL_BASE_REF",
    "PULL_BASE_SHA",
    "PULL_NUMBER",
    "PULL_PULL_REF",
    "PULL_PULL_SHA",
    "PULL_REFS",
    "REPO_NAME",
    "REPO_OWNER",
    "REPO_URL",
];

/// The prefix of Lighthouse's annotations and labels.
const PREFIX: &str = "lighthouse.jenkins-x.io/";

/// What Lighthouse gives a PipelineRun it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Fills {
    /// Each pipeline task of its inline `pipelineSpec` binds [`INJECTED`]
    /// too.
    pub tasks: bool,
}

/// What Lighthouse gives the PipelineRun `doc` of the file at `path`, or
/// None when Lighthouse does not run it.
pub(super) fn fills(doc: &Node, path: Option<&Path>) -> Option<Fills> {
    if text(doc, "kind") != Some("PipelineRun") {
        return None;
    }
    let metadata = child(doc, "metadata");
    let marked = ["annotations", "labels"].iter().any(|field| {
        match metadata.and_then(|m| child(m, field)).map(|n| &n.value) {
            Some(Value::Map(entries)) => entries.iter().any(|it| it.key.text.starts_with(PREFIX)),
            _ => false,
        }
    });
    let in_folder = path.is_some_and(|p| p.components().any(|c| c.as_os_str() == ".lighthouse"));
    let spec = child(doc, "spec");
    let inline = spec.and_then(|s| child(s, "pipelineSpec"));
    if !(in_folder || marked || inline.is_some_and(declares_all)) {
        return None;
    }
    let disabled = metadata
        .and_then(|m| child(m, "annotations"))
        .and_then(|a| text(a, "lighthouse.jenkins-x.io/defaultParameters"))
        == Some("false");
    Some(Fills {
        tasks: inline.is_some() && !disabled,
    })
}

/// Whether the pipeline spec `spec` declares every param of [`INJECTED`].
fn declares_all(spec: &Node) -> bool {
    let declared: Vec<&str> = match child(spec, "params").map(|n| &n.value) {
        Some(Value::Array(list)) => list.iter().filter_map(|p| text(&p.value, "name")).collect(),
        _ => Vec::new(),
    };
    INJECTED.iter().all(|name| declared.contains(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{ParseOptions, parse_file};

    fn doc(text: &str) -> Node {
        let set = parse_file(crate::source::FileId(0), text, &ParseOptions::default())
            .expect("a YAML document");
        set.docs.into_iter().next().expect("one document").value
    }

    #[test]
    fn a_pipeline_run_is_lighthouses_by_folder_marker_or_declarations() {
        let run = doc("kind: PipelineRun\nspec:\n  pipelineSpec:\n    tasks: []\n");
        let in_folder = Path::new("/repo/.lighthouse/jenkins-x/pullrequest.yaml");
        assert_eq!(fills(&run, Some(in_folder)), Some(Fills { tasks: true }));
        assert_eq!(fills(&run, Some(Path::new("/repo/.tekton/pr.yaml"))), None);
        assert_eq!(fills(&run, None), None);
        let disabled = doc(
            "kind: PipelineRun\nmetadata:\n  annotations:\n    lighthouse.jenkins-x.io/defaultParameters: \"false\"\nspec:\n  pipelineRef:\n    name: p\n",
        );
        assert_eq!(fills(&disabled, None), Some(Fills { tasks: false }));
        let params: String = INJECTED
            .iter()
            .map(|n| format!("      - name: {n}\n"))
            .collect();
        let effective = doc(&format!(
            "kind: PipelineRun\nspec:\n  pipelineSpec:\n    params:\n{params}"
        ));
        assert_eq!(fills(&effective, None), Some(Fills { tasks: true }));
        let task = doc("kind: Task\nmetadata:\n  labels:\n    lighthouse.jenkins-x.io/x: y\n");
        assert_eq!(fills(&task, Some(in_folder)), None);
    }
}
