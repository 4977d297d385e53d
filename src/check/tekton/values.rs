//! Values (spec § 5, § 8, § 9): members of array and object values, the
//! bindings a call site gives its callee, and the scope that binding values
//! make for inline specs.

use super::ctx::Ctx;
use super::model::{
    Decl, Param, Scope, Ty, is_string_scalar, items, map_keys, named, siblings, value_ty,
};
use super::refs::{bound_whole, exprs, isolated_body, referenced_params};
use super::rename::{crowded, rename_fix};
use crate::edit::Fix;
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::Span;
use crate::yaml::node::{child, item, text};
use crate::yaml::{MapItem, Node, Value};
use std::collections::HashSet;

/// Where a callee is called: missing values are reported here (spec § 3.2
/// rule 5).
/// The bindings of one call site, as rename fixes see them: each rename
/// looks through the whole list, so a few per call site keep the work
/// linear.
struct Renames<'n> {
    list: Option<&'n Node>,
    left: usize,
}

impl Renames<'_> {
    /// Whether one more rename may be looked for; counts it.
    fn allow(&mut self) -> bool {
        let allowed = self.left > 0;
        self.left = self.left.saturating_sub(1);
        allowed
    }
}

pub(super) struct CallSite<'p> {
    pub span: Span,
    pub path: &'p str,
    /// Params the pipeline task's `matrix` supplies.
    pub matrix: Vec<String>,
    /// Params a trigger system gives the call when it runs it (Lighthouse).
    pub injected: &'static [&'static str],
    /// The callee's spec, when known: a binding it does not declare may
    /// still be used there (spec § 6.3).
    pub spec: Option<&'p Node>,
}

impl<'p> CallSite<'p> {
    pub fn new(span: Span, path: &'p str) -> CallSite<'p> {
        CallSite {
            span,
            path,
            matrix: Vec::new(),
            injected: &[],
            spec: None,
        }
    }
}

impl Ctx<'_> {
    /// D11/B2: members of an array or object value must be string scalars;
    /// true when one is not.
    pub(super) fn members(&mut self, v: &Node, path: &str, name: &str) -> bool {
        let mut bad = false;
        match &v.value {
            Value::Array(a) => {
                for (j, it) in a.iter().enumerate() {
                    if !is_string_scalar(&it.value) {
                        bad = true;
                        self.push(
                            &rules::tekton::VALUE_TYPE,
                            it.value.span,
                            &format!("{path}[{j}]"),
                            format!("item {j} of {name} is not a string"),
                        );
                    }
                }
            }
            Value::Map(m) => {
                for it in m {
                    if !is_string_scalar(&it.value) {
                        bad = true;
                        self.push(
                            &rules::tekton::VALUE_TYPE,
                            it.key_span,
                            &format!("{path}.{}", it.key.text),
                            format!("key {} of {name} is not a string", it.key.text),
                        );
                    }
                }
            }
            Value::Scalar(_) => {}
        }
        bad
    }

    /// What a binding's value gives: its type (§ 5) and, for an object,
    /// its keys when known.
    fn bound(&self, v: &Node, scope: &Scope) -> Param {
        if decodes_as_string(v) {
            return Param {
                ty: Ty::Str,
                keys: None,
            };
        }
        match &v.value {
            Value::Scalar(s) => isolated_body(&s.text)
                .and_then(|body| bound_whole(body, scope, self.tasks.as_ref()))
                .unwrap_or(Param {
                    ty: Ty::Str,
                    keys: None,
                }),
            Value::Map(_) => Param {
                ty: Ty::Obj,
                keys: Some(map_keys(v)),
            },
            Value::Array(_) => Param {
                ty: Ty::Arr,
                keys: None,
            },
        }
    }

    /// The bindings `list` (at `path`) against the callee's declarations
    /// (None: unknown callee): B1–B7. `scope` is what the values' references
    /// see.
    pub(super) fn bindings(
        &mut self,
        list: Option<&Node>,
        path: &str,
        callee: Option<&[Decl]>,
        site: &CallSite,
        scope: &Scope,
    ) {
        let mut seen: Vec<String> = Vec::new();
        let given = named(list);
        let mut renames = Renames { list, left: 20 };
        for &(i, b, name_it, ref name) in &given {
            let name = name.clone();
            if seen.contains(&name) {
                self.push(
                    &rules::tekton::DUPLICATE_BINDING,
                    name_it.key_span,
                    &format!("{path}[{i}].name"),
                    format!("parameter {name} appears more than once"),
                );
                continue;
            }
            seen.push(name.clone());
            if let Some(c) = callee
                && !c.iter().any(|d| d.name == name)
            {
                let p = format!("{path}[{i}].name");
                self.unknown_binding(c, site, name_it, &p, &name, &mut renames);
            }
            let Some(vit) = item(b, "value") else {
                continue;
            };
            let v = &vit.value;
            let vpath = format!("{path}[{i}].value");
            let d = callee.and_then(|c| c.iter().find(|d| d.name == name));
            // Members are judged against a declared param only (spec § 8:
            // with an unknown callee only B6 and B9 run); a value Tekton
            // decodes as its JSON text feeds a string param well.
            let bad_member = match d {
                Some(d) if !decodes_as_string(v) || matches!(d.ty, Ty::Arr | Ty::Obj) => {
                    self.members(v, &vpath, &name)
                }
                _ => false,
            };
            let Some(d) = d else {
                continue;
            };
            let given = self.bound(v, scope);
            if bad_member || given.ty == Ty::Unknown {
                continue;
            }
            if given.ty != d.ty {
                self.push(&rules::tekton::BINDING_TYPE, vit.key_span, &vpath, format!("param types don't match the user-specified type: [{name}] ({} given, {} declared)", given.ty.name(), d.ty.name()));
                continue;
            }
            if d.ty == Ty::Obj
                && let Some(keys) = given.keys
            {
                let mut have = d.default.as_ref().map(map_keys).unwrap_or_default();
                have.extend(keys);
                if let Some(k) = d.keys.iter().find(|k| !have.contains(k)) {
                    self.push(&rules::tekton::MISSING_KEYS, vit.key_span, &vpath, format!("missing keys for these params which are required in ParamSpec's properties map[{name}:[{k}]]"));
                }
            }
            // `$(…)` is substituted at run time, `{{…}}` by Pipelines-as-Code
            // or another template tool first: the value is not known.
            if let (Some(en), Some(s)) = (&d.enums, v.as_scalar())
                && !s.text.contains("$(")
                && !s.text.contains("{{")
                && !en.contains(&s.text)
            {
                self.push(
                    &rules::tekton::ENUM,
                    vit.key_span,
                    &vpath,
                    format!("param `{name}` value: {} is not in the enum list", s.text),
                );
            }
        }
        let Some(callee) = callee else { return };
        for d in callee {
            if seen.contains(&d.name)
                || site.matrix.contains(&d.name)
                || site.injected.contains(&d.name.as_str())
            {
                continue;
            }
            match &d.default {
                None => {
                    let fix = renames
                        .allow()
                        .then(|| self.misspelled_binding(callee, site, &given, &d.name))
                        .flatten();
                    self.out.push(
                        Finding::new(
                            &rules::tekton::MISSING_PARAM,
                            site.span,
                            format!(
                                "missing values for these params which have no default values: [{}]",
                                d.name
                            ),
                        )
                        .with_path(site.path)
                        .with_fix(fix),
                    );
                }
                Some(def) if d.ty == Ty::Obj => {
                    let have = map_keys(def);
                    if let Some(k) = d.keys.iter().find(|k| !have.contains(k)) {
                        self.push(&rules::tekton::MISSING_KEYS, site.span, site.path, format!("missing keys for these params which are required in ParamSpec's properties map[{}:[{k}]]", d.name));
                    }
                }
                _ => {}
            }
        }
    }

    /// A binding to a param the callee does not declare, named like one it
    /// does: the value is dropped and the declared param keeps its default.
    /// Not when the callee's spec uses the name, as a passed param is
    /// substituted there whether declared or not.
    fn unknown_binding(
        &mut self,
        callee: &[Decl],
        site: &CallSite,
        name_it: &MapItem,
        path: &str,
        name: &str,
        renames: &mut Renames,
    ) {
        let declared: Vec<String> = callee.iter().map(|d| d.name.clone()).collect();
        let Some(near) = crate::suggest::within(name, &declared, 2) else {
            return;
        };
        if siblings(name, &near) {
            return;
        }
        if site
            .spec
            .is_some_and(|s| referenced_params(s).contains(name))
        {
            return;
        }
        let finding = Finding::new(
            &rules::tekton::UNKNOWN_BINDING,
            name_it.value.span,
            format!("param {name} is not declared by the callee, so its value is dropped"),
        )
        .with_path(path)
        .with_severity(Severity::Warning);
        // Renamed to a param the call site binds, or may bind by the same
        // fix of another binding, it would be bound twice.
        let fix = (renames.allow() && !crowded(renames.list, name, &near))
            .then(|| rename_fix(self.sources, name_it.value.span, name, &near, &declared))
            .flatten();
        self.out.push(Finding {
            help: Some(format!("did you mean \"{near}\"?")),
            ..finding.with_fix(fix)
        });
    }

    /// The fix of a missing param `missing` that the call site binds under
    /// a misspelled name: the one given name the callee does not declare
    /// within two edits of it, renamed. Not when the callee's spec uses
    /// that name (a passed param is substituted there, declared or not).
    fn misspelled_binding(
        &self,
        callee: &[Decl],
        site: &CallSite,
        given: &[(usize, &Node, &MapItem, String)],
        missing: &str,
    ) -> Option<Fix> {
        let declared: HashSet<&str> = callee.iter().map(|d| d.name.as_str()).collect();
        let undeclared: Vec<String> = given
            .iter()
            .map(|g| g.3.clone())
            .filter(|g| !declared.contains(g.as_str()))
            .collect();
        let name = crate::suggest::sole_within(missing, &undeclared, 2)?;
        if undeclared.iter().filter(|g| **g == name).count() != 1
            || site
                .spec
                .is_some_and(|s| referenced_params(s).contains(&name))
        {
            return None;
        }
        let name_it = given.iter().find(|g| g.3 == name)?.2;
        let rivals: Vec<String> = declared.iter().map(|d| d.to_string()).collect();
        rename_fix(self.sources, name_it.value.span, &name, missing, &rivals)
    }

    /// B8: a pipeline task binding `$(params.p)` to a callee param with an
    /// enum; `pipeline` are the Pipeline's declarations.
    pub(super) fn enum_subset(
        &mut self,
        list: Option<&Node>,
        path: &str,
        callee: &[Decl],
        pipeline: &[Decl],
        task: &str,
    ) {
        for (i, b) in items(list).into_iter().enumerate() {
            let (Some(name), Some(vit)) = (text(b, "name"), item(b, "value")) else {
                continue;
            };
            let Some(v) = vit.value.as_scalar() else {
                continue;
            };
            let Some(cen) = callee
                .iter()
                .find(|d| d.name == name)
                .and_then(|d| d.enums.as_ref())
            else {
                continue;
            };
            let Some(p) = v
                .text
                .strip_prefix("$(params.")
                .and_then(|r| r.strip_suffix(')'))
            else {
                continue;
            };
            let Some(pd) = pipeline.iter().find(|d| d.name == p && d.ty == Ty::Str) else {
                continue;
            };
            let vp = format!("{path}[{i}].value");
            let message = match &pd.enums {
                None => format!(
                    "pipeline param \"{p}\" has no enum, but referenced in \"{task}\" task has enums: {cen:?}"
                ),
                Some(pen) if pen.iter().any(|x| !cen.contains(x)) => format!(
                    "pipeline param \"{p}\" enum: {pen:?} is not a subset of the referenced in \"{task}\" task param enum: {cen:?}"
                ),
                _ => continue,
            };
            self.push(&rules::tekton::ENUM, vit.key_span, &vp, message);
        }
    }
}

/// A sequence or mapping Tekton keeps as a string, its JSON text
/// (`ParamValue.UnmarshalJSON` tries `[]string`, then `map[string]string`,
/// spec § 5): a member is neither a string nor null (null decodes as "").
pub(super) fn decodes_as_string(v: &Node) -> bool {
    let odd = |n: &Node| !is_string_scalar(n) && !n.is_null();
    match &v.value {
        Value::Array(a) => a.iter().any(|it| odd(&it.value)),
        Value::Map(m) => m.iter().any(|it| odd(&it.value)),
        Value::Scalar(_) => false,
    }
}

/// `outer` with the items the binding values of `list` derive (spec § 6.3):
/// an object value over an outer object adds its keys; a value that is one
/// whole-reference expression has an unknown type.
pub(super) fn value_scope(list: Option<&Node>, outer: &Scope) -> Scope {
    let mut scope = outer.clone();
    for b in items(list) {
        let (Some(name), Some(v)) = (text(b, "name"), child(b, "value")) else {
            continue;
        };
        let p = match &v.value {
            _ if decodes_as_string(v) => Param {
                ty: Ty::Str,
                keys: None,
            },
            Value::Map(_) => {
                let mut keys = map_keys(v);
                if let Some(Param {
                    ty: Ty::Obj,
                    keys: Some(outer_keys),
                }) = outer.get(name)
                {
                    keys.extend(outer_keys.iter().cloned());
                }
                Param {
                    ty: Ty::Obj,
                    keys: Some(keys),
                }
            }
            Value::Array(_) | Value::Scalar(_) => {
                let t = v.as_scalar().map_or("", |s| s.text.trim());
                let whole_ref = (t.starts_with("$(tasks.") || t.ends_with("[*])"))
                    && exprs(t).len() == 1
                    && t.starts_with("$(");
                Param {
                    ty: if whole_ref { Ty::Unknown } else { value_ty(v) },
                    keys: None,
                }
            }
        };
        scope.insert(name.to_string(), p);
    }
    scope
}

/// `outer` with the declarations `decls` over it.
pub(super) fn decl_scope(decls: &[Decl], outer: &Scope) -> Scope {
    let mut scope = outer.clone();
    for d in decls {
        let p = Param {
            ty: d.ty,
            keys: Some(d.keys.clone()),
        };
        scope.insert(d.name.clone(), p);
    }
    scope
}
