//! `$(…)` references (spec § 6, § 7): the grammar of `$(params…)`,
//! `$(results…)` and `$(tasks.T.results…)`, the rules T1–T8 and P1–P5, and
//! where in the file an expression sits.

use super::ctx::{Ctx, ExprOffsets};
use super::legacy::{At, Legacy, legacy_form};
use super::model::{Cx, Param, Scope, Tasks, Ty};
use super::rename::rename_fix;
use super::syntax::openings;
pub(super) use super::syntax::{
    PRef, exprs, is_result_ref, isolated_body, parse_param_ref, strip_selector,
};
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::Span;
use crate::yaml::{Node, Value};
use std::collections::HashSet;

/// Findings one string may make before the rest of its references are
/// counted instead (100 per rule and file are shown in any case).
const MAX_FINDINGS_PER_STRING: usize = 10_000;

/// A finding about one expression, before it is placed.
pub(super) struct Verdict {
    rule: &'static crate::rules::Rule,
    message: String,
    help: Option<String>,
    /// T1: the param named is not in scope (a run may still pass it).
    unbound: Option<String>,
    /// The undeclared name the help proposes a declared one for.
    rename: Option<Rename>,
}

/// An undeclared name, the declared name the help proposes instead, and
/// every declared name it could mean.
struct Rename {
    name: String,
    near: String,
    rivals: Vec<String>,
}

impl Verdict {
    fn new(rule: &'static crate::rules::Rule, message: String) -> Option<Verdict> {
        Some(Verdict {
            rule,
            message,
            help: None,
            unbound: None,
            rename: None,
        })
    }

    /// A reference to `name`, which is none of `declared`: the help names
    /// the nearest declared name, else lists them.
    fn undeclared<'a>(
        rule: &'static crate::rules::Rule,
        message: String,
        name: &str,
        declared: impl IntoIterator<Item = &'a String>,
    ) -> Option<Verdict> {
        let mut declared: Vec<String> = declared.into_iter().cloned().collect();
        declared.sort();
        let near = crate::suggest::did_you_mean(name, &declared);
        let help = match &near {
            Some(near) => format!("did you mean \"{near}\"?"),
            None if declared.is_empty() => "nothing is declared here".to_string(),
            None => format!("declared: {}", declared.join(", ")),
        };
        Some(Verdict {
            rule,
            message,
            help: Some(help),
            unbound: None,
            rename: near.map(|near| Rename {
                name: name.to_string(),
                near,
                rivals: declared,
            }),
        })
    }
}

/// T4/T5: a whole array or object reference where `cx` does not take it.
/// In a binding the plain form (no `[*]`) is accepted for task results
/// (`plain_ok`), not for params.
fn misplaced_whole(
    cx: Cx,
    ty: Ty,
    isolated: bool,
    star: bool,
    plain_ok: bool,
) -> Option<&'static str> {
    let allowed = match cx {
        Cx::Str => false,
        Cx::Elem => ty == Ty::Arr && isolated,
        Cx::Bind => isolated && (star || plain_ok),
        Cx::StepBind => isolated,
    };
    if allowed {
        None
    } else if cx == Cx::Elem && ty == Ty::Arr {
        Some("variable is not properly isolated in")
    } else {
        Some("variable type invalid in")
    }
}

/// T3, T1, T2, T6, T4, T5 for a `$(params…)` body, in that order.
fn judge_param_ref(scope: &Scope, body: &str, cx: Cx, isolated: bool) -> Option<Verdict> {
    let expr = format!("$({body})");
    let (name, key, star, index) = match parse_param_ref(body)? {
        PRef::Malformed => {
            return Verdict::new(
                &rules::tekton::PARAM_REFERENCE,
                format!("malformed param reference {expr}"),
            );
        }
        PRef::Ok {
            name,
            key,
            star,
            index,
        } => (name, key, star, index),
    };
    let Some(p) = scope.get(&name) else {
        let verdict = Verdict::undeclared(
            &rules::tekton::PARAM_REFERENCE,
            format!("non-existent variable {expr}"),
            &name,
            scope.keys(),
        );
        return verdict.map(|v| Verdict {
            unbound: Some(name),
            ..v
        });
    };
    if p.ty == Ty::Unknown {
        return None;
    }
    if let Some(k) = &key {
        if p.ty != Ty::Obj {
            return Verdict::new(
                &rules::tekton::PARAM_TYPE,
                format!("{expr}: param {name} is a {} and has no keys", p.ty.name()),
            );
        }
        if let Some(keys) = p.keys.as_ref().filter(|ks| !ks.contains(k)) {
            return Verdict::undeclared(
                &rules::tekton::PARAM_REFERENCE,
                format!("non-existent variable {expr}"),
                k,
                keys,
            );
        }
        return None;
    }
    if (index && p.ty != Ty::Arr) || (star && p.ty == Ty::Str) {
        return Verdict::new(
            &rules::tekton::PARAM_TYPE,
            format!("{expr}: selector does not fit {} param {name}", p.ty.name()),
        );
    }
    if index || p.ty == Ty::Str {
        return None;
    }
    let what = misplaced_whole(cx, p.ty, isolated, star, false)?;
    Verdict::new(&rules::tekton::PARAM_TYPE, format!("{what} {expr}"))
}

/// T1 for `$(inputs.params…)`, the v1alpha1 form of the `params…` body
/// `params_body`: its name is not in scope. The rest of what T-rules judge
/// is left to the warning about the form.
fn judge_legacy_param(scope: &Scope, body: &str, params_body: &str) -> Option<Verdict> {
    let Some(PRef::Ok { name, .. }) = parse_param_ref(params_body) else {
        return None;
    };
    if scope.contains_key(&name) {
        return None;
    }
    let verdict = Verdict::undeclared(
        &rules::tekton::PARAM_REFERENCE,
        format!("non-existent variable $({body})"),
        &name,
        scope.keys(),
    );
    verdict.map(|v| Verdict {
        unbound: Some(name),
        ..v
    })
}

/// The parts of a task result reference body, or None when malformed (P5):
/// (task, result, key, star, index).
fn parse_result_ref(body: &str) -> Option<(&str, &str, Option<&str>, bool, bool)> {
    let (core, star, index) = strip_selector(body);
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() < 4
        || parts.len() > 5
        || parts
            .iter()
            .any(|p| p.is_empty() || p.contains('[') || p.contains(']'))
        || (parts.len() == 5 && (star || index))
    {
        return None;
    }
    Some((parts[1], parts[3], parts.get(4).copied(), star, index))
}

/// P5, P1, P2, P4, P3, T4, T5 for a `$(tasks.T.results…)` body, in that
/// order; `tasks` are the tasks it may name.
fn judge_result_ref(tasks: &Tasks, body: &str, cx: Cx, isolated: bool) -> Option<Verdict> {
    let expr = format!("$({body})");
    let section = if body.starts_with("finally.") {
        "finally"
    } else {
        "tasks"
    };
    let Some((task, result, key, star, index)) = parse_result_ref(body) else {
        return Verdict::new(
            &rules::tekton::RESULT_REFERENCE,
            format!("malformed task result reference {expr}"),
        );
    };
    let Some(t) = tasks.get(task) else {
        return Verdict::undeclared(
            &rules::tekton::RESULT_REFERENCE,
            format!("{expr}: task {task} is not a pipeline task of the {section} section"),
            task,
            tasks.keys(),
        );
    };
    let results = t.results.as_ref()?;
    let Some(r) = results.get(result) else {
        return Verdict::undeclared(
            &rules::tekton::RESULT_REFERENCE,
            format!(
                "{expr}: \"{result}\" is not a named result returned by pipeline task \"{task}\""
            ),
            result,
            results.keys(),
        );
    };
    let whole_ty = if t.matrix {
        // Every result of a matrixed task is an array of the runs' values;
        // only the whole of it means something.
        (key.is_none() && !index).then_some(Ty::Arr)
    } else if let Some(k) = key {
        if r.ty != Ty::Obj {
            return Verdict::new(
                &rules::tekton::RESULT_TYPE,
                format!(
                    "{expr}: result {result} is a {} and has no keys",
                    r.ty.name()
                ),
            );
        }
        if let Some(keys) = r.keys.as_ref().filter(|ks| !ks.iter().any(|x| x == k)) {
            return Verdict::undeclared(
                &rules::tekton::RESULT_REFERENCE,
                format!("{expr}: object result {result} has no key {k}"),
                k,
                keys,
            );
        }
        None
    } else if index {
        if r.ty != Ty::Arr {
            return Verdict::new(
                &rules::tekton::RESULT_TYPE,
                format!("{expr}: index on {} result {result}", r.ty.name()),
            );
        }
        None
    } else {
        matches!(r.ty, Ty::Arr | Ty::Obj).then_some(r.ty)
    };
    let what = misplaced_whole(cx, whole_ty?, isolated, star, true)?;
    Verdict::new(
        &rules::tekton::RESULT_TYPE,
        format!(
            "{what} {expr}: result {result} is a whole {}",
            whole_ty?.name()
        ),
    )
}

/// T7, T8 for a `$(results…)` body inside a Task with `results`.
fn judge_result_path(results: &Scope, body: &str) -> Option<Verdict> {
    let expr = format!("$({body})");
    let rest = &body["results".len()..];
    let (name, tail) = if let Some(r) = rest.strip_prefix('.') {
        match r.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (r, None),
        }
    } else {
        let mut found = ("", None);
        for q in ['\'', '"'] {
            if let Some(r) = rest.strip_prefix(&format!("[{q}")[..])
                && let Some((a, b)) = r.split_once(&format!("{q}]")[..])
            {
                found = (a, b.strip_prefix('.'));
            }
        }
        found
    };
    if !name.is_empty() && !results.contains_key(name) && tail.is_some_and(|t| !t.contains('.')) {
        return Verdict::undeclared(
            &rules::tekton::RESULT_REFERENCE,
            format!("non-existent variable {expr}"),
            name,
            results.keys(),
        );
    }
    if tail != Some("path") {
        return Verdict::new(
            &rules::tekton::RESULT_REFERENCE,
            format!("{expr}: only .path of a result can be referenced inside a Task"),
        );
    }
    None
}

/// What the isolated binding value `$(body)` stands for when it is a whole
/// array or object reference (spec § 5): None when the value is a string,
/// type `Unknown` when what it refers to is unknown.
pub(super) fn bound_whole(body: &str, scope: &Scope, tasks: Option<&Tasks>) -> Option<Param> {
    let unknown = Param {
        ty: Ty::Unknown,
        keys: None,
    };
    if let Some(PRef::Ok {
        name,
        key: None,
        star: true,
        index: false,
    }) = parse_param_ref(body)
    {
        return match scope.get(&name) {
            None => Some(unknown),
            Some(p) if p.ty == Ty::Str => None,
            Some(p) => Some(p.clone()),
        };
    }
    if !is_result_ref(body, "tasks.") {
        return None;
    }
    let Some((task, result, key, _, index)) = parse_result_ref(body) else {
        return Some(unknown);
    };
    if index || key.is_some() {
        return None;
    }
    let Some(t) = tasks.and_then(|ts| ts.get(task)) else {
        return Some(unknown);
    };
    let declared = t.results.as_ref().map(|rs| rs.get(result));
    if let Some(None) = declared {
        return Some(unknown);
    }
    if t.matrix {
        return Some(Param {
            ty: Ty::Arr,
            keys: None,
        });
    }
    match declared.flatten() {
        None => Some(unknown),
        Some(r) => (r.ty != Ty::Str).then(|| r.clone()),
    }
}

/// The names of the params referenced anywhere under `n`.
pub(super) fn referenced_params(n: &Node) -> HashSet<String> {
    let mut out = HashSet::new();
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        match &n.value {
            Value::Scalar(s) => {
                for (_, body) in exprs(&s.text) {
                    if let Some(PRef::Ok { name, .. }) = parse_param_ref(body) {
                        out.insert(name);
                    }
                }
            }
            Value::Array(a) => stack.extend(a.iter().map(|i| &i.value)),
            Value::Map(m) => stack.extend(m.iter().map(|i| &i.value)),
        }
    }
    out
}

/// Whether the webhook checks undeclared params at data path `path`: the
/// step (and `stepTemplate`) fields `name`, `image`, `workingDir`,
/// `script`, `command`, `args`, `env[].value`,
/// `volumeMounts[].name|mountPath|subPath` and `onError` (spec § 6.3).
pub(super) fn webhook_checked(path: &str) -> bool {
    let in_template = path
        .rfind(".stepTemplate.")
        .map(|i| i + ".stepTemplate.".len());
    let in_step = path.rfind(".steps[").and_then(|i| {
        let close = path[i..].find("].")?;
        Some(i + close + 2)
    });
    let Some(start) = in_template.max(in_step) else {
        return false;
    };
    let rest = &path[start..];
    let field = rest.split(['.', '[']).next().unwrap_or("");
    let after = &rest[field.len()..];
    let index_then = |tail: &str| {
        after
            .strip_prefix('[')
            .and_then(|a| a.split_once(']'))
            .is_some_and(|(n, t)| n.bytes().all(|b| b.is_ascii_digit()) && t == tail)
    };
    match field {
        "name" | "image" | "workingDir" | "script" | "onError" => after.is_empty(),
        "command" | "args" => index_then(""),
        "env" => index_then(".value"),
        "volumeMounts" => index_then(".name") || index_then(".mountPath") || index_then(".subPath"),
        _ => false,
    }
}

impl Ctx<'_> {
    /// Check every expression in scalar `n` (at data path `path`), a string
    /// of context `cx` with `scope` in scope.
    pub(super) fn check_str(&mut self, n: &Node, path: &str, scope: &Scope, cx: Cx) {
        let Some(s) = n.as_scalar() else {
            return;
        };
        if !s.text.contains("$(") {
            return;
        }
        let all = exprs(&s.text);
        let mut made = 0;
        let mut last_rule = None;
        for (index, &(off, body)) in all.iter().enumerate() {
            // Millions of references in one string (a file of 64 MiB is one
            // line) would make millions of findings, of which 100 are shown.
            if made >= MAX_FINDINGS_PER_STRING
                && let Some(rule) = last_rule
            {
                let span = self.expr_span(n, off);
                let rest = all.len() - index;
                self.out.push(
                    Finding::new(
                        rule,
                        span,
                        format!(
                            "{rest} more references in this string are not checked (at most {MAX_FINDINGS_PER_STRING} findings a string)"
                        ),
                    )
                    .with_path(path.to_string()),
                );
                return;
            }
            let isolated = off == 0 && body.len() + 3 == s.text.len();
            let legacy = legacy_form(body);
            if let Some(form) = &legacy {
                let fits = match form {
                    &Legacy::Param(params_body) => {
                        judge_param_ref(scope, params_body, cx, isolated).is_none()
                    }
                    Legacy::Resource => false,
                };
                let at = At {
                    node: n,
                    off,
                    path,
                    scope,
                    fits,
                };
                self.legacy_reference(&at, body, form);
                last_rule = Some(&rules::tekton::LEGACY_REFERENCE);
                made += 1;
            }
            let verdict = if let Some(form) = &legacy {
                // The webhook does not read these forms; in a Task an
                // undeclared name is judged as outside its fields, in a
                // Pipeline the text stays as it is anyway.
                match form {
                    &Legacy::Param(params_body) if self.passed.is_some() => {
                        judge_legacy_param(scope, body, params_body)
                    }
                    _ => None,
                }
            } else if is_result_ref(body, "tasks.") {
                let tasks = self.tasks.as_ref();
                tasks.and_then(|t| judge_result_ref(t, body, cx, isolated))
            } else if is_result_ref(body, "finally.") {
                let finally = self.finally_tasks.as_ref();
                finally.and_then(|t| judge_result_ref(t, body, cx, isolated))
            } else if body.starts_with("results.") || body.starts_with("results[") {
                let results = self.results.as_ref();
                results.and_then(|r| judge_result_path(r, body))
            } else {
                judge_param_ref(scope, body, cx, isolated)
            };
            let Some(v) = verdict else { continue };
            // Outside the fields the webhook checks an undeclared name is a
            // warning, when no run passes it or it is a typo of a declared
            // param (then the help names that param).
            let mut typo = None;
            let unchecked = legacy.is_some() || !webhook_checked(path);
            let why = match (&v.unbound, self.passed.as_ref()) {
                (Some(name), Some(passed)) if unchecked => match passed.undeclared(name) {
                    Some(why) => Some(why),
                    None => {
                        let Some(near) = passed.near_typo(name, scope) else {
                            continue;
                        };
                        let why = format!(
                            "\"{near}\" is declared, and a misspelled name stays literal unless a run passes it"
                        );
                        typo = Some(near);
                        Some(why)
                    }
                },
                _ => None,
            };
            let span = self.expr_span(n, off);
            let rule = v.rule;
            // The help's name, unless a typo check proposes another.
            let fix = v
                .rename
                .filter(|r| typo.as_ref().is_none_or(|t| *t == r.near))
                .and_then(|r| rename_fix(self.sources, span, &r.name, &r.near, &r.rivals));
            let finding = Finding::new(v.rule, span, v.message).with_fix(fix);
            let mut finding = Finding {
                help: v.help,
                ..finding.with_path(path.to_string())
            };
            if let Some(why) = why {
                finding.severity = Severity::Warning;
                finding.message = format!("{}: {why}", finding.message);
            }
            if let Some(near) = typo {
                finding.help = Some(format!("did you mean \"{near}\"?"));
            }
            last_rule = Some(rule);
            made += 1;
            self.out.push(finding);
        }
    }

    /// Where the expression at byte `off` of scalar `n`'s text sits in the
    /// file: from its `$(` to its `)`, on its own line inside a block scalar
    /// or a string spread over lines. Found by counting: the k-th `$(` of the
    /// text is the k-th `$(` of the source (after a block scalar's header
    /// line), which holds unless an escape made one up (then: the scalar).
    pub(super) fn expr_span(&mut self, n: &Node, off: usize) -> Span {
        let Some(s) = n.as_scalar() else {
            return n.span;
        };
        // Offsets of every `$(` in the scalar's text and in its source,
        // computed once per scalar: a string with thousands of expressions
        // must not cost the square of its length.
        if self.expr_offsets.as_ref().is_none_or(|c| c.node != n.span) {
            let src = self.src();
            let raw = src.text.get(n.span.range()).unwrap_or("");
            let (in_source, in_text) = openings(raw, s);
            let ends: Vec<usize> = in_source
                .iter()
                .map(|&at| raw[at..].find(')').map_or(raw.len(), |j| at + j + 1))
                .collect();
            self.expr_offsets = Some(ExprOffsets {
                node: n.span,
                in_source,
                ends,
                in_text,
            });
        }
        let Some(c) = self.expr_offsets.as_ref() else {
            return n.span;
        };
        if c.in_source.len() != c.in_text.len() {
            return n.span;
        }
        let ordinal = c.in_text.partition_point(|&i| i < off);
        match (c.in_source.get(ordinal), c.ends.get(ordinal)) {
            (Some(&at), Some(&end)) => {
                let base = n.span.start as usize;
                Span::new(n.span.file, base + at, base + end)
            }
            _ => n.span,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::tekton::syntax::MAX_BODY;

    #[test]
    fn expressions_end_at_the_first_parenthesis() {
        assert_eq!(exprs("a $(params.x) b"), vec![(2, "params.x")]);
        assert_eq!(
            exprs("$(echo $(params.x))"),
            vec![(0, "echo $(params.x"), (7, "params.x")]
        );
        assert_eq!(exprs("$(params.x"), vec![]);
        assert_eq!(exprs("$($(a)"), vec![(0, "$(a"), (2, "a")]);
        assert_eq!(isolated_body("$(params.x[*])"), Some("params.x[*]"));
        assert_eq!(isolated_body("-$(params.x)"), None);
        // A body past any valid length is judged by its start.
        let long = format!("$(params.{})", "x".repeat(5000));
        assert_eq!(exprs(&long)[0].1.len(), MAX_BODY);
        assert_eq!(isolated_body(&long), None);
    }

    #[test]
    fn the_webhook_checks_only_some_step_fields() {
        for checked in [
            "spec.steps[0].image",
            "spec.steps[2].args[3]",
            "spec.steps[0].env[1].value",
            "spec.stepTemplate.env[0].value",
            "spec.tasks[0].taskSpec.steps[0].volumeMounts[0].mountPath",
            "spec.steps[0].script",
        ] {
            assert!(webhook_checked(checked), "{checked}");
        }
        for unchecked in [
            "spec.volumes[0].configMap.name",
            "spec.sidecars[0].image",
            "spec.steps[0].env[1].valueFrom.secretKeyRef.name",
            "spec.steps[0].securityContext.runAsUser",
            "spec.steps[0].params[0].value",
            "spec.workspaces[0].mountPath",
            "spec.steps[0].args",
        ] {
            assert!(!webhook_checked(unchecked), "{unchecked}");
        }
    }

    #[test]
    fn task_status_is_not_a_result_reference() {
        assert!(is_result_ref("tasks.build.results.image", "tasks."));
        assert!(!is_result_ref("tasks.build.status", "tasks."));
        assert!(!is_result_ref("tasks.status", "tasks."));
        assert!(is_result_ref("finally.report.results.x", "finally."));
    }
}
