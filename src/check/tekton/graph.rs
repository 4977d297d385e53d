//! The pipeline task graph: `runAfter` entries that name no task of the
//! `tasks` section (or a finally task), `runAfter` in `finally`, and
//! dependency cycles.
//!
//! Upstream (tektoncd/pipeline): `validateGraph` (pipeline_validation.go)
//! builds the DAG of the `tasks` section with `dag.Build`
//! (pkg/reconciler/pipeline/dag/dag.go) from `PipelineTask.Deps`
//! (pipeline_types.go): each `runAfter` entry and each task a
//! `$(tasks.T.results.R…)` names (`PipelineTaskResultRefs`, resultref.go:
//! params, `matrix` params and includes, `when` input, cel and values, and
//! the steps and sidecars of an inline taskSpec). A cycle is rejected
//! (`findCyclesInDependencies`), and so is a dependency on a name that is
//! not a task of `tasks` (`addLink`), which is how a `runAfter` naming a
//! finally task fails. `validateFinalTasks` rejects `runAfter` in finally.

use super::ctx::Ctx;
use super::hints::{Help, Hints};
use super::model::items;
use super::refs::exprs;
use super::rename::crowded;
use crate::rules;
use crate::source::Span;
use crate::yaml::node::{child, item, text};
use crate::yaml::{Node, Value};
use std::collections::{HashMap, HashSet, VecDeque};

/// Related locations listed for one cycle, at most.
const MAX_RELATED: usize = 100;
/// Tasks named in a cycle's message, at most.
const MAX_NAMED: usize = 10;

/// A dependency of one pipeline task on another (`to`, an index into
/// `tasks`), where it is written.
struct Edge {
    to: usize,
    span: Span,
    run_after: bool,
}

/// The task a `$(tasks.T.results.R…)` body names, read as upstream's
/// `NewResultRefs` does: the whole `$(…)` of `[_a-zA-Z0-9.-]` with at most
/// a trailing `[N]` or `[*]`, split on dots into 4 or 5 parts.
fn result_dep(body: &str) -> Option<&str> {
    let core = match body
        .strip_suffix(']')
        .and_then(|b| b.rfind('[').map(|i| (b, i)))
    {
        Some((b, i)) => {
            let idx = &b[i + 1..];
            if !(idx == "*" || (!idx.is_empty() && idx.bytes().all(|c| c.is_ascii_digit()))) {
                return None;
            }
            &b[..i]
        }
        None => body,
    };
    if core.is_empty()
        || !core
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
    {
        return None;
    }
    let parts: Vec<&str> = body.split('.').collect();
    // `then`, not `then_some`: the index must only be read once the length
    // is known (the fuzzer found `$(x)` panicking here).
    (matches!(parts.len(), 4 | 5) && parts[0] == "tasks" && parts[2] == "results").then(|| parts[1])
}

/// The strings of a binding value: a scalar, the items of a sequence, the
/// members of a mapping.
fn param_values<'n>(params: Option<&'n Node>, out: &mut Vec<&'n Node>) {
    for p in items(params) {
        if let Some(v) = child(p, "value") {
            match &v.value {
                Value::Scalar(_) => out.push(v),
                Value::Array(a) => out.extend(a.iter().map(|i| &i.value)),
                Value::Map(m) => out.extend(m.iter().map(|i| &i.value)),
            }
        }
    }
}

/// The strings of pipeline task `t` in which upstream looks for result
/// references that order the task.
fn dep_strings(t: &Node) -> Vec<&Node> {
    let mut out = Vec::new();
    let values = param_values;
    values(child(t, "params"), &mut out);
    if let Some(m) = child(t, "matrix") {
        values(child(m, "params"), &mut out);
        for inc in items(child(m, "include")) {
            values(child(inc, "params"), &mut out);
        }
    }
    for w in items(child(t, "when")) {
        out.extend(["input", "cel"].into_iter().filter_map(|k| child(w, k)));
        out.extend(items(child(w, "values")));
    }
    if let Some(ts) = child(t, "taskSpec") {
        for c in items(child(ts, "steps"))
            .into_iter()
            .chain(items(child(ts, "sidecars")))
        {
            let fields = ["name", "image", "imagePullPolicy", "script", "workingDir"];
            out.extend(fields.into_iter().filter_map(|k| child(c, k)));
            out.extend(items(child(c, "command")));
            out.extend(items(child(c, "args")));
            for e in items(child(c, "env")) {
                out.extend(child(e, "value"));
                let from = child(e, "valueFrom");
                for r in ["secretKeyRef", "configMapKeyRef"] {
                    if let Some(r) = from.and_then(|f| child(f, r)) {
                        out.extend(["key", "name"].into_iter().filter_map(|k| child(r, k)));
                    }
                }
            }
        }
    }
    out
}

/// The first index of each name in `list`, and whether a name repeats.
fn index(list: &[&Node]) -> (HashMap<String, usize>, Vec<String>, bool) {
    let mut map = HashMap::new();
    let mut names = Vec::new();
    let mut dup = false;
    for (i, t) in list.iter().enumerate() {
        if let Some(n) = text(t, "name") {
            if map.contains_key(n) {
                dup = true;
            } else {
                map.insert(n.to_string(), i);
                names.push(n.to_string());
            }
        }
    }
    (map, names, dup)
}

impl Ctx<'_> {
    /// The task graph of the Pipeline spec at `path`.
    pub(super) fn task_graph(&mut self, spec: &Node, path: &str) {
        let tasks = items(child(spec, "tasks"));
        let finally = items(child(spec, "finally"));
        let (index_of, names, dup) = index(&tasks);
        let (final_of, _, _) = index(&finally);
        let tasks_site = item(spec, "tasks").map_or(spec.span, |it| it.key_span);
        let mut edges: Vec<Vec<Edge>> = (0..tasks.len()).map(|_| Vec::new()).collect();
        let mut seen: HashSet<(usize, usize)> = HashSet::new();
        let hints = Hints::new();
        for (i, t) in tasks.iter().enumerate() {
            let task = text(t, "name").unwrap_or("");
            for (j, r) in items(child(t, "runAfter")).into_iter().enumerate() {
                let Some(name) = r.as_scalar().map(|s| s.text.as_str()) else {
                    continue;
                };
                if name.contains("$(") {
                    continue;
                }
                let rp = format!("{path}.tasks[{i}].runAfter[{j}]");
                if let Some(&k) = index_of.get(name) {
                    if seen.insert((i, k)) {
                        edges[i].push(Edge {
                            to: k,
                            span: r.span,
                            run_after: true,
                        });
                    }
                } else if let Some(&f) = final_of.get(name) {
                    let fspan =
                        item(finally[f], "name").map_or(finally[f].span, |it| it.value.span);
                    let msg = format!(
                        "pipeline task \"{task}\" runs after \"{name}\", a finally task: finally tasks run after every task of `tasks`, which cannot wait for them"
                    );
                    let rel = vec![(fspan, "finally task declared here".to_string())];
                    self.report(
                        &rules::tekton::RUN_AFTER,
                        r.span,
                        &rp,
                        msg,
                        rel,
                        Help::default(),
                    );
                } else {
                    let msg = format!(
                        "pipeline task \"{task}\" runs after \"{name}\", but the pipeline has no task \"{name}\""
                    );
                    let rel = vec![(tasks_site, "pipeline tasks declared here".to_string())];
                    let near = hints.nearest(name, &names);
                    // Renamed to a task it runs after already, the entry
                    // would be given twice.
                    let twice = near
                        .as_deref()
                        .is_some_and(|n| crowded(child(t, "runAfter"), name, n));
                    let rivals: &[String] = if twice { &[] } else { &names };
                    let help = self.rename_help(r.span, name, near, rivals);
                    self.report(&rules::tekton::RUN_AFTER, r.span, &rp, msg, rel, help);
                }
            }
            for n in dep_strings(t) {
                let Some(s) = n.as_scalar() else { continue };
                if !s.text.contains("$(tasks.") {
                    continue;
                }
                for (off, body) in exprs(&s.text) {
                    if let Some(&k) = result_dep(body).and_then(|d| index_of.get(d))
                        && seen.insert((i, k))
                    {
                        let span = self.expr_span(n, off);
                        edges[i].push(Edge {
                            to: k,
                            span,
                            run_after: false,
                        });
                    }
                }
            }
        }
        self.finally_run_after(spec, &finally, path);
        // Tekton rejects repeated task names first; which task a name then
        // means is not defined.
        if dup {
            return;
        }
        self.report_cycles(&tasks, &edges, path);
    }

    /// `runAfter` in a finally task, which Tekton rejects.
    fn finally_run_after(&mut self, spec: &Node, finally: &[&Node], path: &str) {
        let finally_site = item(spec, "finally").map_or(spec.span, |it| it.key_span);
        for (i, t) in finally.iter().enumerate() {
            let Some(it) = item(t, "runAfter").filter(|it| !items(Some(&it.value)).is_empty())
            else {
                continue;
            };
            let task = text(t, "name").unwrap_or("");
            let msg = format!(
                "no runAfter allowed under spec.finally, final task {task} has runAfter specified"
            );
            let rel = vec![(
                finally_site,
                "finally tasks run after every task of `tasks`".to_string(),
            )];
            let p = format!("{path}.finally[{i}].runAfter");
            self.report(
                &rules::tekton::RUN_AFTER,
                it.key_span,
                &p,
                msg,
                rel,
                Help::default(),
            );
        }
    }

    /// Each cycle of the task graph, once, at its first task's name, with
    /// each edge where it is written.
    fn report_cycles(&mut self, tasks: &[&Node], edges: &[Vec<Edge>], path: &str) {
        for cycle in cycles(edges) {
            let name = |k: usize| text(tasks[k], "name").unwrap_or("").to_string();
            let first = cycle[0].0;
            let mut steps: Vec<String> = cycle
                .iter()
                .take(MAX_NAMED)
                .map(|&(from, e)| {
                    format!(
                        "\"{}\" depends on \"{}\"",
                        name(from),
                        name(edges[from][e].to)
                    )
                })
                .collect();
            if cycle.len() > MAX_NAMED {
                steps.push(format!("… ({} dependencies in all)", cycle.len()));
            }
            let msg = format!("cycle detected in the pipeline tasks: {}", steps.join(", "));
            let related = cycle
                .iter()
                .take(MAX_RELATED)
                .map(|&(from, e)| {
                    let edge = &edges[from][e];
                    let how = if edge.run_after {
                        "runs after"
                    } else {
                        "uses a result of"
                    };
                    (
                        edge.span,
                        format!("\"{}\" {how} \"{}\" here", name(from), name(edge.to)),
                    )
                })
                .collect();
            let span = item(tasks[first], "name").map_or(tasks[first].span, |it| it.value.span);
            let p = format!("{path}.tasks[{first}].name");
            self.report(
                &rules::tekton::CYCLE,
                span,
                &p,
                msg,
                related,
                Help::default(),
            );
        }
    }
}

/// One cycle of each strongly connected component that has one, as
/// (task, index of the edge into `edges[task]`) from its first task in
/// file order. Tarjan's algorithm with an explicit stack, then a
/// breadth-first search inside each component: linear in tasks and edges.
fn cycles(edges: &[Vec<Edge>]) -> Vec<Vec<(usize, usize)>> {
    const NONE: usize = usize::MAX;
    let n = edges.len();
    let mut order = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack = Vec::new();
    let mut comps: Vec<Vec<usize>> = Vec::new();
    let mut next = 0;
    for s in 0..n {
        if order[s] != NONE {
            continue;
        }
        order[s] = next;
        low[s] = next;
        next += 1;
        stack.push(s);
        on_stack[s] = true;
        let mut calls: Vec<(usize, usize)> = vec![(s, 0)];
        while let Some(top) = calls.last_mut() {
            let (v, e) = *top;
            if e < edges[v].len() {
                top.1 += 1;
                let w = edges[v][e].to;
                if order[w] == NONE {
                    order[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    calls.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == order[v] {
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = comps.len();
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                comps.push(members);
            }
        }
    }
    let mut out = Vec::new();
    // How each task was reached in its component's search: (from, edge).
    let mut parent: Vec<Option<(usize, usize)>> = vec![None; n];
    let mut visited = vec![false; n];
    let mut found: Vec<(usize, usize)> = Vec::new();
    for (c, members) in comps.iter().enumerate() {
        let Some(&root) = members.iter().min() else {
            continue;
        };
        let looped = members.len() > 1 || edges[root].iter().any(|e| e.to == root);
        if !looped {
            continue;
        }
        let mut queue = VecDeque::from([root]);
        visited[root] = true;
        let mut closing = None;
        'search: while let Some(v) = queue.pop_front() {
            for (e, edge) in edges[v].iter().enumerate() {
                let w = edge.to;
                if comp[w] != c {
                    continue;
                }
                if w == root {
                    closing = Some((v, e));
                    break 'search;
                }
                if !visited[w] {
                    visited[w] = true;
                    parent[w] = Some((v, e));
                    queue.push_back(w);
                }
            }
        }
        let Some(last) = closing else { continue };
        found.clear();
        found.push(last);
        let mut at = last.0;
        while at != root {
            let Some(p) = parent[at] else { break };
            found.push(p);
            at = p.0;
        }
        found.reverse();
        out.push(found.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_dependencies_of_short_or_odd_bodies_are_none() {
        // Found by the fuzzer: a body with fewer than two dots.
        for body in ["x", "", "tasks", "tasks.a", "[*]", "tasks.a.results"] {
            assert_eq!(result_dep(body), None, "{body}");
        }
        assert_eq!(result_dep("tasks.build.results.digest"), Some("build"));
        assert_eq!(result_dep("tasks.build.results.files[*]"), Some("build"));
    }

    fn graph(adj: &[&[usize]]) -> Vec<Vec<Edge>> {
        adj.iter()
            .map(|to| {
                to.iter()
                    .map(|&t| Edge {
                        to: t,
                        span: Span::new(crate::source::FileId(0), 0, 0),
                        run_after: true,
                    })
                    .collect()
            })
            .collect()
    }

    fn nodes(c: &[(usize, usize)]) -> Vec<usize> {
        c.iter().map(|&(n, _)| n).collect()
    }

    #[test]
    fn result_references_are_read_as_upstream_reads_them() {
        assert_eq!(result_dep("tasks.a.results.b"), Some("a"));
        assert_eq!(result_dep("tasks.a.results.b[*]"), Some("a"));
        assert_eq!(result_dep("tasks.a.results.b[0]"), Some("a"));
        assert_eq!(result_dep("tasks.a.results.b.key"), Some("a"));
        assert_eq!(result_dep("tasks.a.results"), None);
        assert_eq!(result_dep("tasks.a.status"), None);
        assert_eq!(result_dep("tasks.a.results.b.c.d"), None);
        assert_eq!(result_dep("tasks.a.results.b c"), None);
        assert_eq!(result_dep("finally.a.results.b"), None);
    }

    #[test]
    fn one_cycle_per_component_from_its_first_task() {
        // 0 -> 1 -> 2 -> 0, 3 -> 3, 4 -> 0 (not in a cycle)
        let g = graph(&[&[1], &[2], &[0], &[3], &[0]]);
        let found: Vec<Vec<usize>> = cycles(&g).iter().map(|c| nodes(c)).collect();
        assert_eq!(found.len(), 2);
        assert!(found.contains(&vec![0, 1, 2]));
        assert!(found.contains(&vec![3]));
    }

    #[test]
    fn an_acyclic_graph_has_no_cycle() {
        let g = graph(&[&[1, 2], &[2], &[]]);
        assert!(cycles(&g).is_empty());
    }

    #[test]
    fn a_long_chain_does_not_overflow_the_stack() {
        let n = 200_000;
        let g: Vec<Vec<Edge>> = (0..n)
            .map(|i| {
                vec![Edge {
                    to: (i + 1) % n,
                    span: Span::new(crate::source::FileId(0), 0, 0),
                    run_after: true,
                }]
            })
            .collect();
        let found = cycles(&g);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].len(), n);
    }
}
