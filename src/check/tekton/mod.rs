//! Tekton params and results (`../shared/spec/tekton.md`): declarations,
//! `$(params…)` references and bindings at call sites.

use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Kind, Severity};
use crate::source::{FileId, SourceFile, Sources, Span};
use crate::yaml::node::{child, item, text};
use crate::yaml::{Node, ScalarStyle, ScalarValue, Value};
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    Str,
    Arr,
    Obj,
    Unknown,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Str => "string",
            Ty::Arr => "array",
            Ty::Obj => "object",
            Ty::Unknown => "unknown",
        }
    }
}

#[derive(Debug, Clone)]
struct Param {
    ty: Ty,
    keys: Option<Vec<String>>,
}

type Scope = HashMap<String, Param>;

/// A callee param declaration.
#[derive(Debug, Clone)]
struct Decl {
    name: String,
    ty: Ty,
    keys: Vec<String>,
    default: Option<Node>,
    enums: Option<Vec<String>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cx {
    Str,
    Elem,
    Bind,
}

fn items(n: Option<&Node>) -> Vec<&Node> {
    match n.map(|n| &n.value) {
        Some(Value::Array(a)) => a.iter().map(|i| &i.value).collect(),
        _ => Vec::new(),
    }
}

fn value_ty(n: &Node) -> Ty {
    match &n.value {
        Value::Array(_) => Ty::Arr,
        Value::Map(_) => Ty::Obj,
        Value::Scalar(_) => Ty::Str,
    }
}

fn is_string_scalar(n: &Node) -> bool {
    match &n.value {
        Value::Scalar(s) => {
            s.style != ScalarStyle::Plain
                || s.tag.as_deref() == Some("!!str")
                || matches!(s.resolved, ScalarValue::Str(_))
        }
        _ => false,
    }
}

fn map_keys(n: &Node) -> Vec<String> {
    match &n.value {
        Value::Map(items) => items.iter().map(|i| i.key.text.clone()).collect(),
        _ => Vec::new(),
    }
}

fn valid_name(name: &str, dots: bool) -> bool {
    let mut cs = name.chars();
    match cs.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || (dots && c == '.'))
}

fn valid_result_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
}

/// A parsed `$(params…)` body.
enum PRef {
    Malformed,
    Ok {
        name: String,
        key: Option<String>,
        star: bool,
        index: bool,
    },
}

fn parse_param_ref(body: &str) -> Option<PRef> {
    let rest = body.strip_prefix("params")?;
    if !(rest.starts_with('.') || rest.starts_with('[')) {
        return None;
    }
    let (core, star, index) = strip_selector(rest);
    if let Some(r) = core.strip_prefix('.') {
        let parts: Vec<&str> = r.split('.').collect();
        if parts.len() > 2
            || parts
                .iter()
                .any(|p| p.is_empty() || p.contains('[') || p.contains(']'))
            || (parts.len() == 2 && (star || index))
        {
            return Some(PRef::Malformed);
        }
        return Some(PRef::Ok {
            name: parts[0].to_string(),
            key: parts.get(1).map(|s| s.to_string()),
            star,
            index,
        });
    }
    for q in ['\'', '"'] {
        let open = format!("[{q}");
        let close = format!("{q}]");
        if let Some(r) = core.strip_prefix(open.as_str())
            && let Some(name) = r.strip_suffix(close.as_str())
            && !name.is_empty()
            && !name.contains(q)
        {
            return Some(PRef::Ok {
                name: name.to_string(),
                key: None,
                star,
                index,
            });
        }
    }
    Some(PRef::Malformed)
}

/// Strip one trailing `[*]` or `[N]`.
fn strip_selector(s: &str) -> (&str, bool, bool) {
    if let Some(c) = s.strip_suffix("[*]") {
        return (c, true, false);
    }
    if let Some(c) = s.strip_suffix(']')
        && let Some(i) = c.rfind('[')
    {
        let digits = &c[i + 1..];
        if !digits.is_empty() && digits.chars().all(|d| d.is_ascii_digit()) {
            return (&c[..i], false, true);
        }
    }
    (s, false, false)
}

/// Expressions in a string: (offset of `$(`, body).
fn exprs(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = s[from..].find("$(") {
        let start = from + i;
        match s[start + 2..].find(')') {
            Some(j) => out.push((start, &s[start + 2..start + 2 + j])),
            None => break,
        }
        from = start + 2;
    }
    out
}

struct Ctx<'s> {
    sources: &'s Sources,
    files: HashMap<u32, Arc<SourceFile>>,
    file: FileId,
    out: Vec<Finding>,
    /// Pipeline tasks of the `tasks` section in scope: name → results if known.
    tasks: Option<HashMap<String, Option<Scope>>>,
    /// Results of the Task spec being scanned.
    results: Option<Scope>,
    /// The pipeline task being bound has a `matrix`, which supplies params
    /// the `params` list does not name.
    in_matrix_task: bool,
}

impl Ctx<'_> {
    fn src(&mut self) -> Arc<SourceFile> {
        let sources = self.sources;
        let id = self.file;
        self.files
            .entry(id.0)
            .or_insert_with(|| sources.get(id))
            .clone()
    }

    fn push(&mut self, rule: &'static str, kind: Kind, span: Span, path: &str, msg: String) {
        self.out
            .push(Finding::new(rule, kind, span, msg).with_path(path.to_string()));
    }

    fn warn(&mut self, rule: &'static str, kind: Kind, span: Span, path: &str, msg: String) {
        self.out.push(
            Finding::new(rule, kind, span, msg)
                .with_path(path.to_string())
                .with_severity(Severity::Warning),
        );
    }

    /// The span of offset `off` within scalar `n`.
    fn expr_span(&mut self, n: &Node, off: usize) -> Span {
        let Some(s) = n.as_scalar() else {
            return n.span;
        };
        if !matches!(s.style, ScalarStyle::Literal | ScalarStyle::Folded) {
            return n.span;
        }
        let src = self.src();
        let k = s.text[..off.min(s.text.len())].matches('\n').count();
        let line = src.line_col(n.span.start as usize).line + 1 + k;
        if line > src.line_count() {
            return n.span;
        }
        let start = src.line_start(line);
        let t = src.line_text(line);
        let lead = t.len() - t.trim_start().len();
        Span::new(self.file, start + lead, start + t.len())
    }

    /// Param declarations: D-rules; returns the declarations in scope.
    fn param_decls(&mut self, list: Option<&Node>, path: &str) -> Vec<Decl> {
        let mut out: Vec<Decl> = Vec::new();
        for (i, p) in items(list).into_iter().enumerate() {
            let Some(name_it) = item(p, "name") else {
                continue;
            };
            let name = name_it
                .value
                .as_scalar()
                .map(|s| s.text.clone())
                .unwrap_or_default();
            let npath = format!("{path}[{i}].name");
            let span = name_it.key_span;
            if out.iter().any(|d| d.name == name) {
                self.push(
                    "tekton/duplicate",
                    Kind::Schema,
                    span,
                    &npath,
                    format!("parameter {name} appears more than once"),
                );
                continue;
            }
            let props = child(p, "properties");
            let default = child(p, "default").cloned();
            let ty = match text(p, "type") {
                Some("string") => Ty::Str,
                Some("array") => Ty::Arr,
                Some("object") => Ty::Obj,
                Some(t) => {
                    self.push(
                        "tekton/declaration",
                        Kind::Schema,
                        span,
                        &npath,
                        format!("invalid value: {t} (type of param {name})"),
                    );
                    out.push(Decl {
                        name,
                        ty: Ty::Str,
                        keys: Vec::new(),
                        default: None,
                        enums: None,
                    });
                    continue;
                }
                None if props.is_some() => Ty::Obj,
                None => default.as_ref().map_or(Ty::Str, value_ty),
            };
            let mut keys = Vec::new();
            if ty == Ty::Obj {
                match props {
                    None => self.push(
                        "tekton/declaration",
                        Kind::Schema,
                        span,
                        &npath,
                        format!("object param {name} is missing properties"),
                    ),
                    Some(pr) => match &pr.value {
                        Value::Map(m) => {
                            for it in m {
                                keys.push(it.key.text.clone());
                                let ok = match &it.value.value {
                                    Value::Map(_) => {
                                        matches!(text(&it.value, "type"), None | Some("string"))
                                    }
                                    Value::Scalar(_) if it.value.is_null() => true,
                                    _ => false,
                                };
                                if !ok {
                                    self.push("tekton/declaration", Kind::Schema, span, &npath, format!("The value type specified for these keys [{}] is invalid", it.key.text));
                                }
                            }
                        }
                        _ => self.push(
                            "tekton/declaration",
                            Kind::Schema,
                            span,
                            &npath,
                            format!("properties of {name} must be a mapping"),
                        ),
                    },
                }
                if !valid_name(&name, false) {
                    self.push(
                        "tekton/declaration",
                        Kind::Schema,
                        span,
                        &npath,
                        format!("Object param name and key name format is invalid: map[{name}:[]]"),
                    );
                }
                for k in &keys {
                    if !valid_name(k, false) {
                        self.push("tekton/declaration", Kind::Schema, span, &npath, format!("Object param name and key name format is invalid: map[{name}:[{k}]]"));
                    }
                }
            } else {
                if props.is_some() {
                    self.push(
                        "tekton/declaration",
                        Kind::Schema,
                        span,
                        &npath,
                        format!("param {name} of type {} has properties", ty.name()),
                    );
                }
                if !valid_name(&name, true) {
                    self.push("tekton/declaration", Kind::Schema, span, &npath, format!("The format of following array and string variable names is invalid: [{name}]"));
                }
            }
            let mut enums = None;
            if let Some(en) = child(p, "enum") {
                if ty != Ty::Str {
                    self.push(
                        "tekton/declaration",
                        Kind::Schema,
                        span,
                        &npath,
                        format!("enum can only be set with string type param {name}"),
                    );
                }
                let vals: Vec<String> = items(Some(en))
                    .iter()
                    .filter_map(|n| n.as_scalar().map(|s| s.text.clone()))
                    .collect();
                for (j, v) in vals.iter().enumerate() {
                    if vals[..j].contains(v) {
                        self.push(
                            "tekton/declaration",
                            Kind::Schema,
                            span,
                            &npath,
                            format!("parameter enum value {v} appears more than once"),
                        );
                    }
                }
                enums = Some(vals);
            }
            if let (Some(d), Some(dit)) = (&default, item(p, "default")) {
                let dpath = format!("{path}[{i}].default");
                let dty = value_ty(d);
                if dty != ty {
                    self.push("tekton/default", Kind::Type, dit.key_span, &dpath, format!("\"{}\" type does not match default value's type: \"{}\" (param {name})", ty.name(), dty.name()));
                } else {
                    self.members(d, &dpath, &name);
                    if let (Ty::Obj, Some(pr), Value::Map(m)) = (ty, props, &d.value)
                        && matches!(pr.value, Value::Map(_))
                    {
                        for it in m {
                            if !keys.contains(&it.key.text) {
                                self.warn(
                                    "tekton/default-unknown-key",
                                    Kind::UnknownKey,
                                    it.key_span,
                                    &format!("{dpath}.{}", it.key.text),
                                    format!(
                                        "key {} is not declared in properties of {name}",
                                        it.key.text
                                    ),
                                );
                            }
                        }
                    }
                    if let (Some(en), Some(s)) = (&enums, d.as_scalar())
                        && ty == Ty::Str
                        && !s.text.is_empty()
                        && !en.contains(&s.text)
                    {
                        self.push(
                            "tekton/enum",
                            Kind::Validation,
                            dit.key_span,
                            &dpath,
                            format!("param default value {} not in the enum list", s.text),
                        );
                    }
                }
            }
            out.push(Decl {
                name,
                ty,
                keys,
                default,
                enums,
            });
        }
        out
    }

    /// D11/B2: members of an array/object value must be string scalars.
    fn members(&mut self, v: &Node, path: &str, name: &str) -> bool {
        let mut bad = false;
        match &v.value {
            Value::Array(a) => {
                for (j, it) in a.iter().enumerate() {
                    if !is_string_scalar(&it.value) {
                        bad = true;
                        self.push(
                            "tekton/value-type",
                            Kind::Type,
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
                            "tekton/value-type",
                            Kind::Type,
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

    /// Result declarations (R-rules); returns name → (type, keys).
    fn result_decls(&mut self, list: Option<&Node>, path: &str) -> Scope {
        let mut out = Scope::new();
        for (i, r) in items(list).into_iter().enumerate() {
            let Some(name_it) = item(r, "name") else {
                continue;
            };
            let name = name_it
                .value
                .as_scalar()
                .map(|s| s.text.clone())
                .unwrap_or_default();
            let npath = format!("{path}[{i}].name");
            let span = name_it.key_span;
            if out.contains_key(&name) {
                self.push(
                    "tekton/duplicate",
                    Kind::Schema,
                    span,
                    &npath,
                    format!("result {name} appears more than once"),
                );
                continue;
            }
            let props = child(r, "properties");
            let ty = match text(r, "type") {
                Some("string") => Ty::Str,
                Some("array") => Ty::Arr,
                Some("object") => Ty::Obj,
                Some(t) => {
                    self.push(
                        "tekton/result-declaration",
                        Kind::Schema,
                        span,
                        &npath,
                        format!("invalid value: {t} (type of result {name})"),
                    );
                    out.insert(
                        name,
                        Param {
                            ty: Ty::Str,
                            keys: None,
                        },
                    );
                    continue;
                }
                None if props.is_some() => Ty::Obj,
                None => Ty::Str,
            };
            if !valid_result_name(&name) {
                self.push(
                    "tekton/result-declaration",
                    Kind::Schema,
                    span,
                    &npath,
                    format!("invalid key name \"{name}\""),
                );
            }
            let mut keys = None;
            if ty == Ty::Obj {
                if name.contains('.') {
                    self.push(
                        "tekton/result-declaration",
                        Kind::Schema,
                        span,
                        &npath,
                        format!("object result name {name} must not contain a dot"),
                    );
                }
                match props {
                    None => self.push(
                        "tekton/result-declaration",
                        Kind::Schema,
                        span,
                        &npath,
                        format!("object result {name} is missing properties"),
                    ),
                    Some(pr) => {
                        let mut ks = Vec::new();
                        if let Value::Map(m) = &pr.value {
                            for it in m {
                                ks.push(it.key.text.clone());
                                let ok = match &it.value.value {
                                    Value::Map(_) => {
                                        matches!(text(&it.value, "type"), None | Some("string"))
                                    }
                                    Value::Scalar(_) if it.value.is_null() => true,
                                    _ => false,
                                };
                                if !ok {
                                    self.push("tekton/result-declaration", Kind::Schema, span, &npath, format!("The value type specified for these keys [{}] is invalid, the type must be string", it.key.text));
                                }
                                if !valid_name(&it.key.text, false) {
                                    self.push(
                                        "tekton/result-declaration",
                                        Kind::Schema,
                                        span,
                                        &npath,
                                        format!(
                                            "invalid key {} of object result {name}",
                                            it.key.text
                                        ),
                                    );
                                }
                            }
                        } else {
                            self.push(
                                "tekton/result-declaration",
                                Kind::Schema,
                                span,
                                &npath,
                                format!("properties of result {name} must be a mapping"),
                            );
                        }
                        keys = Some(ks);
                    }
                }
            } else if props.is_some() {
                self.push(
                    "tekton/result-declaration",
                    Kind::Schema,
                    span,
                    &npath,
                    format!("result {name} of type {} has properties", ty.name()),
                );
            }
            out.insert(name, Param { ty, keys });
        }
        out
    }

    /// Check every expression in scalar `n`.
    fn check_str(&mut self, n: &Node, path: &str, scope: &Scope, cx: Cx) {
        let Some(s) = n.as_scalar() else {
            return;
        };
        if !s.text.contains("$(") {
            return;
        }
        let whole_text = s.text.clone();
        for (off, body) in exprs(&whole_text) {
            let expr = format!("$({body})");
            if body.starts_with("tasks.") && body.split('.').nth(2) == Some("results") {
                self.task_result_ref(n, off, body, path);
                continue;
            }
            if body.starts_with("results.") || body.starts_with("results[") {
                self.result_path_ref(n, off, body, path);
                continue;
            }
            let Some(r) = parse_param_ref(body) else {
                continue;
            };
            let span = self.expr_span(n, off);
            let (name, key, star, index) = match r {
                PRef::Malformed => {
                    self.push(
                        "tekton/param-reference",
                        Kind::Reference,
                        span,
                        path,
                        format!("malformed param reference {expr}"),
                    );
                    continue;
                }
                PRef::Ok {
                    name,
                    key,
                    star,
                    index,
                } => (name, key, star, index),
            };
            let Some(p) = scope.get(&name) else {
                self.push(
                    "tekton/param-reference",
                    Kind::Reference,
                    span,
                    path,
                    format!("non-existent variable {expr}"),
                );
                continue;
            };
            if p.ty == Ty::Unknown {
                continue;
            }
            if let Some(k) = &key {
                if p.ty != Ty::Obj {
                    self.push(
                        "tekton/param-type",
                        Kind::Type,
                        span,
                        path,
                        format!("{expr}: param {name} is a {} and has no keys", p.ty.name()),
                    );
                } else if p.keys.as_ref().is_some_and(|ks| !ks.contains(k)) {
                    self.push(
                        "tekton/param-reference",
                        Kind::Reference,
                        span,
                        path,
                        format!("non-existent variable {expr}"),
                    );
                }
                continue;
            }
            if (index && p.ty != Ty::Arr) || (star && p.ty == Ty::Str) {
                self.push(
                    "tekton/param-type",
                    Kind::Type,
                    span,
                    path,
                    format!("{expr}: selector does not fit {} param {name}", p.ty.name()),
                );
                continue;
            }
            if index || p.ty == Ty::Str {
                continue;
            }
            let isolated = whole_text == expr;
            let ok = match cx {
                Cx::Str => false,
                Cx::Elem => p.ty == Ty::Arr,
                Cx::Bind => isolated && star,
            };
            if !ok {
                if cx == Cx::Elem && p.ty == Ty::Arr && !isolated {
                    self.push(
                        "tekton/param-type",
                        Kind::Type,
                        span,
                        path,
                        format!("variable is not properly isolated in {expr}"),
                    );
                } else {
                    self.push(
                        "tekton/param-type",
                        Kind::Type,
                        span,
                        path,
                        format!("variable type invalid in {expr}"),
                    );
                }
            } else if cx == Cx::Elem && !isolated {
                self.push(
                    "tekton/param-type",
                    Kind::Type,
                    span,
                    path,
                    format!("variable is not properly isolated in {expr}"),
                );
            }
        }
    }

    /// Walk every string under `n` in Task context.
    fn walk_task(&mut self, n: &Node, path: &str, scope: &Scope, elem: bool) {
        match &n.value {
            Value::Scalar(_) => {
                self.check_str(n, path, scope, if elem { Cx::Elem } else { Cx::Str })
            }
            Value::Array(a) => {
                for (i, it) in a.iter().enumerate() {
                    self.walk_task(&it.value, &format!("{path}[{i}]"), scope, elem);
                }
            }
            Value::Map(m) => {
                for it in m {
                    let k = it.key.text.as_str();
                    if k == "description" {
                        continue;
                    }
                    let p = format!("{path}.{k}");
                    // steps[].params[].value binds a StepAction's param: a
                    // whole array or object `$(params.x[*])` is a value there.
                    let is_step_binding = k == "value"
                        && path.contains(".steps[")
                        && path
                            .rsplit('.')
                            .next()
                            .is_some_and(|last| last.starts_with("params["));
                    if is_step_binding && matches!(it.value.value, Value::Scalar(_)) {
                        self.check_str(&it.value, &p, scope, Cx::Bind);
                        continue;
                    }
                    let e = matches!(k, "command" | "args")
                        && matches!(it.value.value, Value::Array(_));
                    self.walk_task(&it.value, &p, scope, e);
                }
            }
        }
    }

    /// A Task spec: declarations and references. `outer` is the scope from outside.
    fn task_spec(
        &mut self,
        spec: &Node,
        path: &str,
        outer: &Scope,
        top: bool,
    ) -> (Vec<Decl>, Scope) {
        let decls = self.param_decls(child(spec, "params"), &format!("{path}.params"));
        if top {
            self.partial_defaults(child(spec, "params"), &decls, &format!("{path}.params"));
        }
        let results = self.result_decls(child(spec, "results"), &format!("{path}.results"));
        let mut scope = outer.clone();
        for d in &decls {
            scope.insert(
                d.name.clone(),
                Param {
                    ty: d.ty,
                    keys: Some(d.keys.clone()),
                },
            );
        }
        let saved = self.results.replace(results.clone());
        for k in ["steps", "stepTemplate", "sidecars", "volumes", "workspaces"] {
            if let Some(n) = child(spec, k) {
                self.walk_task(n, &format!("{path}.{k}"), &scope, false);
            }
        }
        self.results = saved;
        (decls, results)
    }

    /// D13: top-level object defaults missing declared keys.
    fn partial_defaults(&mut self, list: Option<&Node>, decls: &[Decl], path: &str) {
        for (i, p) in items(list).into_iter().enumerate() {
            let Some(name) = text(p, "name") else {
                continue;
            };
            let Some(d) = decls.iter().find(|d| d.name == name) else {
                continue;
            };
            let (Some(def), Some(dit)) = (&d.default, item(p, "default")) else {
                continue;
            };
            if d.ty != Ty::Obj || value_ty(def) != Ty::Obj {
                continue;
            }
            let dk = map_keys(def);
            if let Some(k) = d.keys.iter().find(|k| !dk.contains(k)) {
                self.warn(
                    "tekton/partial-default",
                    Kind::Validation,
                    dit.key_span,
                    &format!("{path}[{i}].default"),
                    format!("default of {name} does not give key {k}"),
                );
            }
        }
    }

    /// Bindings `list` against callee `decls` (None: unknown callee).
    fn bindings(
        &mut self,
        list: Option<&Node>,
        path: &str,
        decls: Option<&[Decl]>,
        site: (Span, &str),
        scope: &Scope,
    ) {
        let mut seen: Vec<String> = Vec::new();
        for (i, b) in items(list).into_iter().enumerate() {
            let Some(name_it) = item(b, "name") else {
                continue;
            };
            let name = name_it
                .value
                .as_scalar()
                .map(|s| s.text.clone())
                .unwrap_or_default();
            if seen.contains(&name) {
                self.push(
                    "tekton/duplicate",
                    Kind::Validation,
                    name_it.key_span,
                    &format!("{path}[{i}].name"),
                    format!("parameter {name} appears more than once"),
                );
                continue;
            }
            seen.push(name.clone());
            let Some(vit) = item(b, "value") else {
                continue;
            };
            let v = &vit.value;
            let vpath = format!("{path}[{i}].value");
            let bad = self.members(v, &vpath, &name);
            let Some(decls) = decls else { continue };
            let Some(d) = decls.iter().find(|d| d.name == name) else {
                continue;
            };
            let vty = match &v.value {
                Value::Scalar(s) => {
                    let ex = exprs(&s.text);
                    if ex.len() == 1
                        && s.text.starts_with("$(")
                        && s.text.ends_with(')')
                        && s.text.len() == ex[0].1.len() + 3
                    {
                        match parse_param_ref(ex[0].1) {
                            Some(PRef::Ok {
                                name: n,
                                key: None,
                                star: true,
                                ..
                            }) => scope.get(&n).map_or(Ty::Unknown, |p| p.ty),
                            _ if ex[0].1.starts_with("tasks.")
                                && (ex[0].1.ends_with("[*]") || !ex[0].1.contains('['))
                                && ex[0].1.split('.').count() == 4 =>
                            {
                                Ty::Unknown
                            }
                            _ => Ty::Str,
                        }
                    } else {
                        Ty::Str
                    }
                }
                _ => value_ty(v),
            };
            if bad || vty == Ty::Unknown {
                continue;
            }
            if vty != d.ty {
                self.push("tekton/binding-type", Kind::Type, vit.key_span, &vpath, format!("param types don't match the user-specified type: [{name}] ({} given, {} declared)", vty.name(), d.ty.name()));
                continue;
            }
            if d.ty == Ty::Obj {
                let mut have = d.default.as_ref().map(map_keys).unwrap_or_default();
                if let Value::Map(_) = v.value {
                    have.extend(map_keys(v));
                } else if let Some(s) = v.as_scalar() {
                    if let Some(PRef::Ok { name: n, .. }) =
                        exprs(&s.text).first().and_then(|e| parse_param_ref(e.1))
                    {
                        match scope.get(&n).and_then(|p| p.keys.clone()) {
                            Some(ks) => have.extend(ks),
                            None => continue,
                        }
                    } else {
                        continue;
                    }
                }
                if let Some(k) = d.keys.iter().find(|k| !have.contains(k)) {
                    self.push("tekton/missing-keys", Kind::Validation, vit.key_span, &vpath, format!("missing keys for these params which are required in ParamSpec's properties map[{name}:[{k}]]"));
                }
            }
            if let (Some(en), Some(s)) = (&d.enums, v.as_scalar())
                && !s.text.contains("$(")
                && !en.contains(&s.text)
            {
                self.push(
                    "tekton/enum",
                    Kind::Validation,
                    vit.key_span,
                    &vpath,
                    format!("param `{name}` value: {} is not in the enum list", s.text),
                );
            }
        }
        let Some(decls) = decls else { return };
        if self.in_matrix_task {
            return;
        }
        for d in decls {
            if seen.contains(&d.name) {
                continue;
            }
            match &d.default {
                None => self.push(
                    "tekton/missing-param",
                    Kind::Validation,
                    site.0,
                    site.1,
                    format!(
                        "missing values for these params which have no default values: [{}]",
                        d.name
                    ),
                ),
                Some(def) if d.ty == Ty::Obj => {
                    let have = map_keys(def);
                    if let Some(k) = d.keys.iter().find(|k| !have.contains(k)) {
                        self.push("tekton/missing-keys", Kind::Validation, site.0, site.1, format!("missing keys for these params which are required in ParamSpec's properties map[{}:[{k}]]", d.name));
                    }
                }
                _ => {}
            }
        }
    }
}

/// Scope items derived from binding values.
fn value_scope(list: Option<&Node>, outer: &Scope) -> Scope {
    let mut scope = outer.clone();
    for b in items(list) {
        let (Some(name), Some(v)) = (text(b, "name"), child(b, "value")) else {
            continue;
        };
        let p = match &v.value {
            Value::Map(_) => {
                let mut keys = map_keys(v);
                if let Some(Param {
                    ty: Ty::Obj,
                    keys: Some(ok),
                }) = outer.get(name)
                {
                    keys.extend(ok.iter().cloned());
                }
                Param {
                    ty: Ty::Obj,
                    keys: Some(keys),
                }
            }
            Value::Array(_) => Param {
                ty: Ty::Arr,
                keys: None,
            },
            Value::Scalar(s) => {
                let t = s.text.trim();
                if (t.starts_with("$(tasks.") || t.ends_with("[*])"))
                    && exprs(t).len() == 1
                    && t.starts_with("$(")
                {
                    Param {
                        ty: Ty::Unknown,
                        keys: None,
                    }
                } else {
                    Param {
                        ty: Ty::Str,
                        keys: None,
                    }
                }
            }
        };
        scope.insert(name.to_string(), p);
    }
    scope
}

fn decl_scope(decls: &[Decl], outer: &Scope) -> Scope {
    let mut scope = outer.clone();
    for d in decls {
        scope.insert(
            d.name.clone(),
            Param {
                ty: d.ty,
                keys: Some(d.keys.clone()),
            },
        );
    }
    scope
}

struct Doc<'a> {
    file: FileId,
    kind: &'a str,
    node: &'a Node,
}

fn resolve<'a>(docs: &[Doc<'a>], r: &Node, kind: &str) -> Option<&'a Node> {
    if child(r, "resolver").is_some()
        || child(r, "bundle").is_some()
        || child(r, "apiVersion").is_some()
    {
        return None;
    }
    if text(r, "kind").is_some_and(|k| k != kind) {
        return None;
    }
    let name = text(r, "name")?;
    docs.iter()
        .find(|d| {
            d.kind == kind && child(d.node, "metadata").and_then(|m| text(m, "name")) == Some(name)
        })
        .map(|d| d.node)
}

/// Callee declarations of a resolved Task/Pipeline document, without reporting.
fn callee_decls(sources: &Sources, file: FileId, doc: &Node) -> Vec<Decl> {
    let mut c = Ctx {
        sources,
        files: HashMap::new(),
        file,
        out: Vec::new(),
        tasks: None,
        results: None,
        in_matrix_task: false,
    };
    child(doc, "spec").map_or_else(Vec::new, |s| {
        c.param_decls(child(s, "params"), "spec.params")
    })
}

/// Result declarations of a Task spec, without reporting.
fn spec_results(sources: &Sources, file: FileId, spec: &Node) -> Scope {
    let mut c = Ctx {
        sources,
        files: HashMap::new(),
        file,
        out: Vec::new(),
        tasks: None,
        results: None,
        in_matrix_task: false,
    };
    c.result_decls(child(spec, "results"), "results")
}

impl Ctx<'_> {
    fn result_path_ref(&mut self, n: &Node, off: usize, body: &str, path: &str) {
        let Some(results) = self.results.clone() else {
            return;
        };
        let expr = format!("$({body})");
        let rest = &body["results".len()..];
        let (name, tail) = if let Some(r) = rest.strip_prefix('.') {
            match r.split_once('.') {
                Some((a, b)) => (a.to_string(), Some(b.to_string())),
                None => (r.to_string(), None),
            }
        } else {
            let mut found = None;
            for q in ['\'', '"'] {
                if let Some(r) = rest.strip_prefix(&format!("[{q}")[..])
                    && let Some((a, b)) = r.split_once(&format!("{q}]")[..])
                {
                    found = Some((a.to_string(), b.strip_prefix('.').map(str::to_string)));
                }
            }
            found.unwrap_or_default()
        };
        let span = self.expr_span(n, off);
        if !name.is_empty()
            && !results.contains_key(&name)
            && tail.as_deref().is_some_and(|t| !t.contains('.'))
        {
            self.push(
                "tekton/result-reference",
                Kind::Reference,
                span,
                path,
                format!("non-existent variable {expr}"),
            );
        } else if tail.as_deref() != Some("path") {
            self.push(
                "tekton/result-reference",
                Kind::Reference,
                span,
                path,
                format!("{expr}: only .path of a result can be referenced inside a Task"),
            );
        }
    }

    fn task_result_ref(&mut self, n: &Node, off: usize, body: &str, path: &str) {
        let Some(tasks) = self.tasks.clone() else {
            return;
        };
        let expr = format!("$({body})");
        let span = self.expr_span(n, off);
        let (core, star, index) = strip_selector(body);
        let parts: Vec<&str> = core.split('.').collect();
        if parts.len() < 4
            || parts.len() > 5
            || parts
                .iter()
                .any(|p| p.is_empty() || p.contains('[') || p.contains(']'))
            || (parts.len() == 5 && (star || index))
        {
            self.push(
                "tekton/result-reference",
                Kind::Reference,
                span,
                path,
                format!("malformed task result reference {expr}"),
            );
            return;
        }
        let Some(known) = tasks.get(parts[1]) else {
            self.push(
                "tekton/result-reference",
                Kind::Reference,
                span,
                path,
                format!(
                    "{expr}: task {} is not a pipeline task of the tasks section",
                    parts[1]
                ),
            );
            return;
        };
        let Some(results) = known else {
            return;
        };
        let Some(r) = results.get(parts[3]) else {
            self.push(
                "tekton/result-reference",
                Kind::Reference,
                span,
                path,
                format!(
                    "{expr}: \"{}\" is not a named result returned by pipeline task \"{}\"",
                    parts[3], parts[1]
                ),
            );
            return;
        };
        if parts.len() == 5 {
            if r.ty != Ty::Obj {
                self.push(
                    "tekton/result-type",
                    Kind::Type,
                    span,
                    path,
                    format!(
                        "{expr}: result {} is a {} and has no keys",
                        parts[3],
                        r.ty.name()
                    ),
                );
            } else if r
                .keys
                .as_ref()
                .is_some_and(|k| !k.iter().any(|k| k == parts[4]))
            {
                self.push(
                    "tekton/result-reference",
                    Kind::Reference,
                    span,
                    path,
                    format!("{expr}: object result {} has no key {}", parts[3], parts[4]),
                );
            }
        } else if index && r.ty != Ty::Arr {
            self.push(
                "tekton/result-type",
                Kind::Type,
                span,
                path,
                format!("{expr}: index on {} result {}", r.ty.name(), parts[3]),
            );
        }
    }

    /// Pipeline spec at `path` with outer scope `outer`.
    fn pipeline_spec(
        &mut self,
        spec: &Node,
        path: &str,
        outer: &Scope,
        docs: &[Doc],
        inner_bind: bool,
    ) -> Vec<Decl> {
        let decls = self.param_decls(child(spec, "params"), &format!("{path}.params"));
        let scope = decl_scope(&decls, outer);
        let mut tasks = HashMap::new();
        for t in items(child(spec, "tasks")) {
            let Some(name) = text(t, "name") else {
                continue;
            };
            let res = if child(t, "matrix").is_some() {
                None
            } else if let Some(ts) = child(t, "taskSpec") {
                if child(ts, "apiVersion").is_some() || child(ts, "kind").is_some() {
                    None
                } else {
                    Some(spec_results(self.sources, self.file, ts))
                }
            } else if let Some(r) = child(t, "taskRef") {
                resolve(docs, r, "Task").and_then(|n| {
                    let f = docs
                        .iter()
                        .find(|d| std::ptr::eq(d.node, n))
                        .map_or(self.file, |d| d.file);
                    child(n, "spec").map(|s| spec_results(self.sources, f, s))
                })
            } else {
                None
            };
            tasks.insert(name.to_string(), res);
        }
        let saved = self.tasks.replace(tasks);
        self.pipeline_results(spec, path);
        for sect in ["tasks", "finally"] {
            for (i, t) in items(child(spec, sect)).into_iter().enumerate() {
                let tpath = format!("{path}.{sect}[{i}]");
                for (j, b) in items(child(t, "params")).into_iter().enumerate() {
                    if let Some(v) = child(b, "value") {
                        let vp = format!("{tpath}.params[{j}].value");
                        match &v.value {
                            Value::Scalar(_) => self.check_str(v, &vp, &scope, Cx::Bind),
                            Value::Array(a) => {
                                for (k, it) in a.iter().enumerate() {
                                    self.check_str(
                                        &it.value,
                                        &format!("{vp}[{k}]"),
                                        &scope,
                                        Cx::Elem,
                                    );
                                }
                            }
                            Value::Map(m) => {
                                for it in m {
                                    self.check_str(
                                        &it.value,
                                        &format!("{vp}.{}", it.key.text),
                                        &scope,
                                        Cx::Str,
                                    );
                                }
                            }
                        }
                    }
                }
                for (k, w) in items(child(t, "when")).into_iter().enumerate() {
                    let wp = format!("{tpath}.when[{k}]");
                    for f in ["input", "cel"] {
                        if let Some(n) = child(w, f) {
                            self.check_str(n, &format!("{wp}.{f}"), &scope, Cx::Str);
                        }
                    }
                    for (l, v) in items(child(w, "values")).into_iter().enumerate() {
                        self.check_str(v, &format!("{wp}.values[{l}]"), &scope, Cx::Elem);
                    }
                }
                self.in_matrix_task = child(t, "matrix").is_some();
                let name_span = item(t, "name").map_or(t.span, |it| it.key_span);
                let site_path = format!("{tpath}.name");
                if let Some(ts) = child(t, "taskSpec") {
                    if child(ts, "apiVersion").is_some() || child(ts, "kind").is_some() {
                        continue;
                    }
                    let inner = if inner_bind {
                        value_scope(child(t, "params"), &scope)
                    } else {
                        scope.clone()
                    };
                    let (tdecls, _) =
                        self.task_spec(ts, &format!("{tpath}.taskSpec"), &inner, false);
                    self.bindings(
                        child(t, "params"),
                        &format!("{tpath}.params"),
                        Some(&tdecls),
                        (name_span, &site_path),
                        &scope,
                    );
                    let tn = text(t, "name").unwrap_or("");
                    self.enum_subset(
                        child(t, "params"),
                        &format!("{tpath}.params"),
                        &tdecls,
                        &decls,
                        tn,
                    );
                } else if let Some(r) = child(t, "taskRef") {
                    let found = resolve(docs, r, "Task").map(|n| {
                        (
                            n,
                            docs.iter()
                                .find(|d| std::ptr::eq(d.node, n))
                                .map_or(self.file, |d| d.file),
                        )
                    });
                    let cd = found.map(|(n, f)| callee_decls(self.sources, f, n));
                    self.bindings(
                        child(t, "params"),
                        &format!("{tpath}.params"),
                        cd.as_deref(),
                        (name_span, &site_path),
                        &scope,
                    );
                    if let Some(cd) = &cd {
                        let tn = text(t, "name").unwrap_or("");
                        self.enum_subset(
                            child(t, "params"),
                            &format!("{tpath}.params"),
                            cd,
                            &decls,
                            tn,
                        );
                    }
                } else {
                    self.bindings(
                        child(t, "params"),
                        &format!("{tpath}.params"),
                        None,
                        (name_span, &site_path),
                        &scope,
                    );
                }
            }
        }
        self.tasks = saved;
        decls
    }

    /// B8: `$(params.p)` bound to a callee param with enum.
    fn enum_subset(
        &mut self,
        list: Option<&Node>,
        path: &str,
        callee: &[Decl],
        pdecls: &[Decl],
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
                .and_then(|d| d.enums.clone())
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
            let Some(pd) = pdecls.iter().find(|d| d.name == p && d.ty == Ty::Str) else {
                continue;
            };
            let vp = format!("{path}[{i}].value");
            match &pd.enums {
                None => self.push("tekton/enum", Kind::Validation, vit.key_span, &vp, format!("pipeline param \"{p}\" has no enum, but referenced in \"{task}\" task has enums: {cen:?}")),
                Some(pen) if pen.iter().any(|x| !cen.contains(x)) => self.push("tekton/enum", Kind::Validation, vit.key_span, &vp, format!("pipeline param \"{p}\" enum: {pen:?} is not a subset of the referenced in \"{task}\" task param enum: {cen:?}")),
                _ => {}
            }
        }
    }

    /// Pipeline `results`: P6 and the references in each value.
    fn pipeline_results(&mut self, spec: &Node, path: &str) {
        let empty = Scope::new();
        for (i, r) in items(child(spec, "results")).into_iter().enumerate() {
            let Some(vit) = item(r, "value") else {
                continue;
            };
            let vp = format!("{path}.results[{i}].value");
            let mut strs: Vec<(&Node, String)> = Vec::new();
            match &vit.value.value {
                Value::Scalar(_) => strs.push((&vit.value, vp.clone())),
                Value::Array(a) => strs.extend(
                    a.iter()
                        .enumerate()
                        .map(|(k, it)| (&it.value, format!("{vp}[{k}]"))),
                ),
                Value::Map(m) => strs.extend(
                    m.iter()
                        .map(|it| (&it.value, format!("{vp}.{}", it.key.text))),
                ),
            }
            let has = strs.iter().any(|(n, _)| {
                n.as_scalar().is_some_and(|s| {
                    exprs(&s.text)
                        .iter()
                        .any(|(_, b)| b.starts_with("tasks.") || b.starts_with("finally."))
                })
            });
            if !has {
                let name = text(r, "name").unwrap_or("");
                self.push("tekton/pipeline-result", Kind::Validation, vit.key_span, &vp, format!("pipeline result {name}: expected pipeline results to be task result expressions but no expressions were found"));
                continue;
            }
            for (n, p) in strs {
                self.check_str(n, &p, &empty, Cx::Bind);
            }
        }
    }
}

pub fn check_unit(files: &[&DiscoveredFile], sources: &Sources) -> Vec<Finding> {
    let mut files: Vec<&DiscoveredFile> = files.to_vec();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut out = Vec::new();
    let mut docs: Vec<Doc> = Vec::new();
    for f in &files {
        match &f.parsed {
            Ok(set) => {
                for d in &set.docs {
                    let n = &d.value;
                    let api = text(n, "apiVersion");
                    if !matches!(api, Some("tekton.dev/v1" | "tekton.dev/v1beta1")) {
                        continue;
                    }
                    if let Some(k @ ("Task" | "Pipeline" | "TaskRun" | "PipelineRun")) =
                        text(n, "kind")
                    {
                        docs.push(Doc {
                            file: f.id,
                            kind: k,
                            node: n,
                        });
                    }
                }
            }
            Err(e) => out.push((**e).clone()),
        }
    }
    let mut ctx = Ctx {
        sources,
        files: HashMap::new(),
        file: FileId(0),
        out,
        tasks: None,
        results: None,
        in_matrix_task: false,
    };
    let empty = Scope::new();
    for d in &docs {
        ctx.file = d.file;
        let Some(spec) = child(d.node, "spec") else {
            continue;
        };
        match d.kind {
            "Task" => {
                ctx.task_spec(spec, "spec", &empty, true);
            }
            "Pipeline" => {
                let decls = ctx.pipeline_spec(spec, "spec", &empty, &docs, false);
                ctx.partial_defaults(child(spec, "params"), &decls, "spec.params");
            }
            "TaskRun" => {
                let outer = value_scope(child(spec, "params"), &empty);
                if let Some(ts_it) = item(spec, "taskSpec") {
                    let (decls, _) = ctx.task_spec(&ts_it.value, "spec.taskSpec", &outer, false);
                    ctx.bindings(
                        child(spec, "params"),
                        "spec.params",
                        Some(&decls),
                        (ts_it.key_span, "spec.taskSpec"),
                        &empty,
                    );
                } else if let Some(r_it) = item(spec, "taskRef") {
                    let cd = resolve(&docs, &r_it.value, "Task").map(|n| {
                        let f = docs
                            .iter()
                            .find(|x| std::ptr::eq(x.node, n))
                            .map_or(d.file, |x| x.file);
                        callee_decls(sources, f, n)
                    });
                    ctx.bindings(
                        child(spec, "params"),
                        "spec.params",
                        cd.as_deref(),
                        (r_it.key_span, "spec.taskRef"),
                        &empty,
                    );
                } else {
                    ctx.bindings(
                        child(spec, "params"),
                        "spec.params",
                        None,
                        (spec.span, "spec"),
                        &empty,
                    );
                }
            }
            _ => {
                let outer = value_scope(child(spec, "params"), &empty);
                for (i, b) in items(child(spec, "params")).into_iter().enumerate() {
                    let mut strs: Vec<(&Node, String)> = Vec::new();
                    if let Some(v) = child(b, "value") {
                        let vp = format!("spec.params[{i}].value");
                        match &v.value {
                            Value::Scalar(_) => strs.push((v, vp)),
                            Value::Array(a) => strs.extend(
                                a.iter()
                                    .enumerate()
                                    .map(|(k, it)| (&it.value, format!("{vp}[{k}]"))),
                            ),
                            Value::Map(m) => strs.extend(
                                m.iter()
                                    .map(|it| (&it.value, format!("{vp}.{}", it.key.text))),
                            ),
                        }
                    }
                    for (vn, vp) in strs {
                        let Some(v) = vn.as_scalar() else { continue };
                        for (off, body) in exprs(&v.text) {
                            if body.starts_with("tasks.")
                                && body.split('.').nth(2) == Some("results")
                            {
                                let span = ctx.expr_span(vn, off);
                                ctx.push("tekton/run-param-result", Kind::Validation, span, &vp, format!("cannot use result expressions in [$({body})] as PipelineRun parameter values"));
                            }
                        }
                    }
                }
                if let Some(ps_it) = item(spec, "pipelineSpec") {
                    let decls =
                        ctx.pipeline_spec(&ps_it.value, "spec.pipelineSpec", &outer, &docs, true);
                    ctx.bindings(
                        child(spec, "params"),
                        "spec.params",
                        Some(&decls),
                        (ps_it.key_span, "spec.pipelineSpec"),
                        &empty,
                    );
                } else if let Some(r_it) = item(spec, "pipelineRef") {
                    let cd = resolve(&docs, &r_it.value, "Pipeline").map(|n| {
                        let f = docs
                            .iter()
                            .find(|x| std::ptr::eq(x.node, n))
                            .map_or(d.file, |x| x.file);
                        callee_decls(sources, f, n)
                    });
                    ctx.bindings(
                        child(spec, "params"),
                        "spec.params",
                        cd.as_deref(),
                        (r_it.key_span, "spec.pipelineRef"),
                        &empty,
                    );
                }
            }
        }
    }
    ctx.out
}
