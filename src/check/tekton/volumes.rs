//! Volume mounts that name no volume, and env variables set twice in one
//! container.
//!
//! Upstream (tektoncd/pipeline): the pod builder (pkg/pod/pod.go `Build`)
//! gives the pod Tekton's own `tekton-internal-*` volumes, the Task's
//! `volumes`, a generated volume per bound workspace, and the volumes of
//! the TaskRun's pod template, which the cluster's `default-pod-template`
//! (config-defaults) is merged into (docs/podtemplates.md: "This allows you
//! to specify a volume type for each volumeMount in a Task"). Kubernetes
//! rejects a pod whose container mounts a volume it does not have. As the
//! cluster's default pod template is not in the files, a mount that no
//! visible volume satisfies is a warning.
//!
//! `MergeStepsWithStepTemplate` (merge.go) merges each step into the
//! `stepTemplate` by strategic merge patch, where `env` merges by name: a
//! step's variable replaces the template's of the same name, and a step's
//! second entry of one name merges into its first. So with a stepTemplate
//! only the template's own repeats reach the container (every step gets
//! them); without one a step's repeats do. Kubernetes keeps the last value
//! and warns that it hides the earlier one.

use super::ctx::Ctx;
use super::hints::{Help, Hints};
use super::model::items;
use super::workspaces::Names;
use crate::rules;
use crate::source::Span;
use crate::yaml::node::{child, item, text};
use crate::yaml::{Node, Value};
use std::collections::HashMap;

impl Ctx<'_> {
    /// `volumeMounts[].name` of the steps, sidecars and stepTemplate of the
    /// Task spec at `path` (its key at `key`) that name no volume of the
    /// Task, no workspace and none of `pod` (the run's pod templates).
    pub(super) fn volume_mounts(
        &mut self,
        spec: &Node,
        path: &str,
        key: Span,
        pod: &Names,
        hints: &Hints,
    ) {
        let volumes = Names::of(child(spec, "volumes"));
        if volumes.unknown || pod.unknown {
            return;
        }
        let workspaces = Names::of(child(spec, "workspaces"));
        let related = match item(spec, "volumes") {
            Some(it) => (it.key_span, "volumes declared here".to_string()),
            None => (key, "no volumes declared here".to_string()),
        };
        let mut containers: Vec<(&Node, String)> = Vec::new();
        if let Some(t) = child(spec, "stepTemplate") {
            containers.push((t, format!("{path}.stepTemplate")));
        }
        for k in ["steps", "sidecars"] {
            for (i, c) in items(child(spec, k)).into_iter().enumerate() {
                containers.push((c, format!("{path}.{k}[{i}]")));
            }
        }
        let mut mountable: Option<Vec<String>> = None;
        for (c, cpath) in containers {
            for (j, m) in items(child(c, "volumeMounts")).into_iter().enumerate() {
                let Some(nit) = item(m, "name") else { continue };
                let Some(v) = nit.value.as_scalar().map(|s| s.text.as_str()) else {
                    continue;
                };
                if v.is_empty()
                    || v.contains("$(")
                    || v.starts_with("tekton-internal-")
                    || volumes.has(v)
                    || workspaces.has(v)
                    || pod.has(v)
                {
                    continue;
                }
                let msg = format!(
                    "volumeMount \"{v}\" names no volume of the Task: unless a pod template (the run's podTemplate or the cluster's default-pod-template) adds a volume \"{v}\", Kubernetes rejects the pod"
                );
                let p = format!("{cpath}.volumeMounts[{j}].name");
                let rel = vec![related.clone()];
                // A workspace's volume may be mounted by name too.
                let mountable = mountable.get_or_insert_with(|| {
                    let mut names = volumes.list().to_vec();
                    names.extend(workspaces.list().iter().cloned());
                    names
                });
                let near = hints.nearest(v, volumes.list());
                let help = self.rename_help(nit.value.span, v, near, mountable);
                let rule = &rules::tekton::VOLUME_MOUNT;
                self.report(rule, nit.value.span, &p, msg, rel, help);
            }
        }
    }

    /// Env variables given twice in one container of the Task spec at
    /// `path`, after the stepTemplate merge.
    pub(super) fn duplicate_env(&mut self, spec: &Node, path: &str) {
        match item(spec, "stepTemplate").filter(|it| matches!(it.value.value, Value::Map(_))) {
            Some(t) => {
                let p = format!("{path}.stepTemplate");
                self.env_twice(&t.value, &p, "the stepTemplate, so in every step");
            }
            None => {
                for (i, s) in items(child(spec, "steps")).into_iter().enumerate() {
                    if child(s, "ref").is_some() {
                        continue;
                    }
                    let what = format!("step \"{}\"", text(s, "name").unwrap_or(""));
                    self.env_twice(s, &format!("{path}.steps[{i}]"), &what);
                }
            }
        }
        for (i, s) in items(child(spec, "sidecars")).into_iter().enumerate() {
            let what = format!("sidecar \"{}\"", text(s, "name").unwrap_or(""));
            self.env_twice(s, &format!("{path}.sidecars[{i}]"), &what);
        }
    }

    /// The second and later entries of one name in container `c`'s `env`.
    fn env_twice(&mut self, c: &Node, cpath: &str, what: &str) {
        let mut first: HashMap<&str, (&Node, Span)> = HashMap::new();
        for (j, e) in items(child(c, "env")).into_iter().enumerate() {
            let Some(nit) = item(e, "name") else { continue };
            let Some(name) = nit.value.as_scalar().map(|s| s.text.as_str()) else {
                continue;
            };
            if name.contains("$(") {
                continue;
            }
            let Some(&(earlier, at)) = first.get(name) else {
                first.insert(name, (e, nit.value.span));
                continue;
            };
            // The same value twice changes nothing the container sees.
            if ["value", "valueFrom"]
                .iter()
                .all(|k| same(child(earlier, k), child(e, k)))
            {
                continue;
            }
            let msg = format!(
                "env variable \"{name}\" is set twice in {what}, with different values: the container sees only the last"
            );
            let p = format!("{cpath}.env[{j}].name");
            let rel = vec![(at, "first set here".to_string())];
            self.report(
                &rules::tekton::DUPLICATE_ENV,
                nit.value.span,
                &p,
                msg,
                rel,
                Help::default(),
            );
        }
    }
}

/// Two optional YAML values are equal as data: scalars by text, sequences
/// item by item, mappings key by key in order.
fn same(a: Option<&Node>, b: Option<&Node>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => match (&a.value, &b.value) {
            (Value::Scalar(x), Value::Scalar(y)) => x.text == y.text,
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(p, q)| same(Some(&p.value), Some(&q.value)))
            }
            (Value::Map(x), Value::Map(y)) => {
                x.len() == y.len()
                    && x.iter().zip(y).all(|(p, q)| {
                        p.key.text == q.key.text && same(Some(&p.value), Some(&q.value))
                    })
            }
            _ => false,
        },
        _ => false,
    }
}
