//! Param and result declarations (spec § 4): types, properties, names,
//! duplicates, enum, defaults.

use super::ctx::Ctx;
use super::model::{Decl, Param, Scope, Ty, items, map_keys, named, value_ty};
use crate::rules;
use crate::yaml::node::{child, item, text};
use crate::yaml::{Node, Value};

/// A name of a string or array param (`dots`), or of an object param or key.
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

/// A `properties` entry declares a string: a mapping with no type or type
/// string, or nothing at all (D3, R4).
fn property_is_string(spec: &Node) -> bool {
    match &spec.value {
        Value::Map(_) => matches!(text(spec, "type"), None | Some("string")),
        Value::Scalar(_) => spec.is_null(),
        Value::Array(_) => false,
    }
}

impl Ctx<'_> {
    /// Param declarations (D1–D12, D14); returns the declarations in scope.
    pub(super) fn param_decls(&mut self, list: Option<&Node>, path: &str) -> Vec<Decl> {
        let mut out: Vec<Decl> = Vec::new();
        // Names seen, so that a list of a million params stays linear.
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        for (i, p, name_it, name) in named(list) {
            let npath = format!("{path}[{i}].name");
            let span = name_it.key_span;
            if !seen.insert(name.clone()) {
                self.push(
                    &rules::tekton::DUPLICATE,
                    span,
                    &npath,
                    format!("parameter {name} appears more than once"),
                );
                continue;
            }
            let bad_decl = |ctx: &mut Self, message: String| {
                ctx.push(&rules::tekton::DECLARATION, span, &npath, message)
            };
            let props = child(p, "properties");
            let default = child(p, "default").cloned();
            let ty = match text(p, "type") {
                Some("string") => Ty::Str,
                Some("array") => Ty::Arr,
                Some("object") => Ty::Obj,
                Some(t) => {
                    bad_decl(self, format!("invalid value: {t} (type of param {name})"));
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
                match props.map(|pr| &pr.value) {
                    None => bad_decl(self, format!("object param {name} is missing properties")),
                    Some(Value::Map(m)) => {
                        for it in m {
                            keys.push(it.key.text.clone());
                            if !property_is_string(&it.value) {
                                bad_decl(
                                    self,
                                    format!(
                                        "The value type specified for these keys [{}] is invalid",
                                        it.key.text
                                    ),
                                );
                            }
                        }
                    }
                    Some(_) => bad_decl(self, format!("properties of {name} must be a mapping")),
                }
                if !valid_name(&name, false) {
                    bad_decl(
                        self,
                        format!("Object param name and key name format is invalid: map[{name}:[]]"),
                    );
                }
                for k in keys.iter().filter(|k| !valid_name(k, false)) {
                    bad_decl(
                        self,
                        format!(
                            "Object param name and key name format is invalid: map[{name}:[{k}]]"
                        ),
                    );
                }
            } else {
                if props.is_some() {
                    bad_decl(
                        self,
                        format!("param {name} of type {} has properties", ty.name()),
                    );
                }
                if !valid_name(&name, true) {
                    bad_decl(
                        self,
                        format!(
                            "The format of following array and string variable names is invalid: [{name}]"
                        ),
                    );
                }
            }
            let mut enums = None;
            if let Some(en) = child(p, "enum") {
                if ty != Ty::Str {
                    bad_decl(
                        self,
                        format!("enum can only be set with string type param {name}"),
                    );
                }
                let vals: Vec<String> = items(Some(en))
                    .iter()
                    .filter_map(|n| n.as_scalar().map(|s| s.text.clone()))
                    .collect();
                for (j, v) in vals.iter().enumerate() {
                    if vals[..j].contains(v) {
                        bad_decl(
                            self,
                            format!("parameter enum value {v} appears more than once"),
                        );
                    }
                }
                enums = Some(vals);
            }
            if let (Some(d), Some(dit)) = (&default, item(p, "default")) {
                let dpath = format!("{path}[{i}].default");
                let declared = (ty, props, keys.as_slice(), enums.as_deref());
                self.param_default((d, dit, &dpath), &name, declared);
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

    /// A param's `default` (written `d` at `dit`, `dpath`) against what
    /// the param declares: its type, properties' keys and enum.
    fn param_default(
        &mut self,
        (d, dit, dpath): (&Node, &crate::yaml::MapItem, &str),
        name: &str,
        (ty, props, keys, enums): (Ty, Option<&Node>, &[String], Option<&[String]>),
    ) {
        let dty = value_ty(d);
        if dty != ty {
            self.push(
                &rules::tekton::DEFAULT,
                dit.key_span,
                dpath,
                format!(
                    "\"{}\" type does not match default value's type: \"{}\" (param {name})",
                    ty.name(),
                    dty.name()
                ),
            );
        } else {
            self.members(d, dpath, name);
            if let (Ty::Obj, Some(pr), Value::Map(m)) = (ty, props, &d.value)
                && matches!(pr.value, Value::Map(_))
            {
                for it in m.iter().filter(|it| !keys.contains(&it.key.text)) {
                    self.warn(
                        &rules::tekton::DEFAULT_UNKNOWN_KEY,
                        it.key_span,
                        &format!("{dpath}.{}", it.key.text),
                        format!(
                            "key {} is not declared in properties of {name}",
                            it.key.text
                        ),
                    );
                }
            }
            if let (Some(en), Some(s)) = (&enums, d.as_scalar())
                && ty == Ty::Str
                && !s.text.is_empty()
                && !en.contains(&s.text)
            {
                self.push(
                    &rules::tekton::ENUM_DEFAULT,
                    dit.key_span,
                    dpath,
                    format!("param default value {} not in the enum list", s.text),
                );
            }
        }
    }

    /// Result declarations (R1–R7); returns name → (type, keys).
    pub(super) fn result_decls(&mut self, list: Option<&Node>, path: &str) -> Scope {
        let mut out = Scope::new();
        for (i, r, name_it, name) in named(list) {
            let npath = format!("{path}[{i}].name");
            let span = name_it.key_span;
            if out.contains_key(&name) {
                self.push(
                    &rules::tekton::DUPLICATE,
                    span,
                    &npath,
                    format!("result {name} appears more than once"),
                );
                continue;
            }
            let bad_decl = |ctx: &mut Self, message: String| {
                ctx.push(&rules::tekton::RESULT_DECLARATION, span, &npath, message)
            };
            let props = child(r, "properties");
            let ty = match text(r, "type") {
                Some("string") => Ty::Str,
                Some("array") => Ty::Arr,
                Some("object") => Ty::Obj,
                Some(t) => {
                    bad_decl(self, format!("invalid value: {t} (type of result {name})"));
                    let string = Param {
                        ty: Ty::Str,
                        keys: None,
                    };
                    out.insert(name, string);
                    continue;
                }
                None if props.is_some() => Ty::Obj,
                None => Ty::Str,
            };
            if !valid_result_name(&name) {
                bad_decl(self, format!("invalid key name \"{name}\""));
            }
            let mut keys = None;
            if ty == Ty::Obj {
                if name.contains('.') {
                    bad_decl(
                        self,
                        format!("object result name {name} must not contain a dot"),
                    );
                }
                match props.map(|pr| &pr.value) {
                    None => bad_decl(self, format!("object result {name} is missing properties")),
                    Some(Value::Map(m)) => {
                        for it in m {
                            if !property_is_string(&it.value) {
                                bad_decl(
                                    self,
                                    format!(
                                        "The value type specified for these keys [{}] is invalid, the type must be string",
                                        it.key.text
                                    ),
                                );
                            }
                            if !valid_name(&it.key.text, false) {
                                bad_decl(
                                    self,
                                    format!("invalid key {} of object result {name}", it.key.text),
                                );
                            }
                        }
                        keys = Some(m.iter().map(|it| it.key.text.clone()).collect());
                    }
                    Some(_) => {
                        bad_decl(
                            self,
                            format!("properties of result {name} must be a mapping"),
                        );
                        keys = Some(Vec::new());
                    }
                }
            } else if props.is_some() {
                bad_decl(
                    self,
                    format!("result {name} of type {} has properties", ty.name()),
                );
            }
            out.insert(name, Param { ty, keys });
        }
        out
    }

    /// D13: object defaults of a top-level Task or Pipeline that miss
    /// declared keys.
    pub(super) fn partial_defaults(&mut self, list: Option<&Node>, decls: &[Decl], path: &str) {
        // The first declaration of each name, looked up in constant time.
        let mut by_name: std::collections::HashMap<&str, &Decl> = std::collections::HashMap::new();
        for d in decls {
            by_name.entry(d.name.as_str()).or_insert(d);
        }
        for (i, p) in items(list).into_iter().enumerate() {
            let Some(name) = text(p, "name") else {
                continue;
            };
            let Some(d) = by_name.get(name) else {
                continue;
            };
            let (Some(def), Some(dit)) = (&d.default, item(p, "default")) else {
                continue;
            };
            if d.ty != Ty::Obj || value_ty(def) != Ty::Obj {
                continue;
            }
            let given: std::collections::HashSet<_> = map_keys(def).into_iter().collect();
            if let Some(k) = d.keys.iter().find(|k| !given.contains(*k)) {
                self.warn(
                    &rules::tekton::PARTIAL_DEFAULT,
                    dit.key_span,
                    &format!("{path}[{i}].default"),
                    format!("default of {name} does not give key {k}"),
                );
            }
        }
    }
}
