//! KubeVirt template validations (`../shared/spec/kubevirt.md`): the rules of
//! a Template's `validations` annotation (or a VM's own
//! `vm.kubevirt.io/validations`) evaluated against every VirtualMachine of
//! the unit, as the SSP template validator does at admission.

pub mod annotation;
pub mod json;
pub mod jsonpath;
pub mod links;
pub mod quantity;

use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Severity};
use crate::source::{FileId, SourceFile, Sources, Span};
use crate::yaml::node::{child, item, text};
use crate::yaml::{MapItem, Node, ScalarStyle, ScalarValue, Value};
use annotation::{IntArg, Parsed, Rule, RuleType, StrArg};
use jsonpath::{K, T, V};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

const TEMPLATE_KEY: &str = "vm.kubevirt.io/template";
const NAMESPACE_KEY: &str = "vm.kubevirt.io/template.namespace";
const OLD_NAMESPACE_KEY: &str = "vm.kubevirt.io/template-namespace";
const SKIP_KEY: &str = "vm.kubevirt.io/skip-validations";
const VM_RULES_KEY: &str = "vm.kubevirt.io/validations";

fn is_template(doc: &Node) -> bool {
    text(doc, "kind") == Some("Template")
        && matches!(
            text(doc, "apiVersion"),
            Some("template.openshift.io/v1" | "v1")
        )
}

fn is_vm(doc: &Node) -> bool {
    text(doc, "kind") == Some("VirtualMachine")
        && text(doc, "apiVersion").is_some_and(|a| a.starts_with("kubevirt.io/"))
}

/// Where an annotation's JSON text lives.
struct Annot<'a> {
    file: FileId,
    key_span: Span,
    text: &'a str,
    literal: bool,
    /// Offsets of the text's newlines, so that placing each of thousands
    /// of rules costs a lookup, not a scan of the text before it.
    newlines: Vec<usize>,
}

impl<'a> Annot<'a> {
    fn new(file: FileId, key_span: Span, text: &'a str, literal: bool) -> Annot<'a> {
        Annot {
            file,
            key_span,
            text,
            literal,
            newlines: text.match_indices('\n').map(|(i, _)| i).collect(),
        }
    }

    fn from_item(file: FileId, it: &'a MapItem) -> Option<Annot<'a>> {
        let s = it.value.as_scalar()?;
        if s.resolved == ScalarValue::Null {
            return None;
        }
        Some(Annot::new(
            file,
            it.key_span,
            &s.text,
            s.style == ScalarStyle::Literal,
        ))
    }

    fn id(&self) -> (u32, u32) {
        (self.file.0, self.key_span.start)
    }
}

/// The file span of offset `off` of the annotation's JSON text: inside a
/// literal block scalar, line k of the JSON is the key's line + 1 + k.
fn json_span(src: &SourceFile, a: &Annot, off: usize) -> Span {
    if !a.literal {
        return a.key_span;
    }
    let mut off = off.min(a.text.len());
    while !a.text.is_char_boundary(off) {
        off -= 1;
    }
    let k = a.newlines.partition_point(|&i| i < off);
    let col = off - k.checked_sub(1).map_or(0, |p| a.newlines[p] + 1);
    let key_line = src.line_col(a.key_span.start as usize).line;
    let key_col = a.key_span.start as usize - src.line_start(key_line);
    let header = src.line_text(key_line).get(key_col..).unwrap_or("");
    let explicit = header
        .split_once('|')
        .and_then(|(_, h)| h.trim_start_matches(['+', '-']).chars().next())
        .and_then(|c| c.to_digit(10));
    let indent = match explicit {
        Some(n) => key_col + n as usize,
        None => (key_line + 1..=src.line_count())
            .map(|l| src.line_text(l))
            .find(|t| !t.trim().is_empty())
            .map_or(0, |t| t.len() - t.trim_start_matches(' ').len()),
    };
    let line = key_line + 1 + k;
    let line_text = src.line_text(line);
    let mut pos = (indent + col).min(line_text.len());
    while !line_text.is_char_boundary(pos) {
        pos -= 1;
    }
    let start = src.line_start(line) + pos;
    let end = start + line_text[pos..].chars().next().map_or(0, char::len_utf8);
    Span::new(a.file, start, end)
}

struct Template<'a> {
    name: &'a str,
    namespace: Option<&'a str>,
    annot: Option<Annot<'a>>,
}

struct Ctx<'s> {
    sources: &'s Sources,
    files: HashMap<u32, Arc<SourceFile>>,
    parsed: HashMap<(u32, u32), Parsed>,
    out: Vec<Finding>,
}

impl Ctx<'_> {
    fn src(&mut self, id: FileId) -> Arc<SourceFile> {
        let sources = self.sources;
        self.files
            .entry(id.0)
            .or_insert_with(|| sources.get(id))
            .clone()
    }

    /// Parse an annotation once, reporting its problems the first time.
    fn parse(&mut self, a: &Annot) {
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

pub fn check_unit(files: &[&DiscoveredFile], sources: &Sources) -> Vec<Finding> {
    let mut ctx = Ctx {
        sources,
        files: HashMap::new(),
        parsed: HashMap::new(),
        out: Vec::new(),
    };
    let mut files: Vec<&DiscoveredFile> = files.to_vec();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut templates: Vec<Template> = Vec::new();
    let mut vms: Vec<(FileId, &Node)> = Vec::new();
    let mut template_docs: Vec<(FileId, &Node, usize)> = Vec::new();
    for f in &files {
        let docs = match &f.parsed {
            Ok(set) => &set.docs,
            Err(e) => {
                ctx.out.push((**e).clone());
                continue;
            }
        };
        for d in docs {
            let doc = &d.value;
            if is_template(doc) {
                let meta = child(doc, "metadata");
                let annot = meta
                    .and_then(|m| child(m, "annotations"))
                    .and_then(|a| item(a, "validations"))
                    .and_then(|it| Annot::from_item(f.id, it));
                if let Some(a) = &annot {
                    ctx.parse(a);
                } else if let Some(it) = meta
                    .and_then(|m| child(m, "annotations"))
                    .and_then(|a| item(a, "validations"))
                    .filter(|it| it.value.as_scalar().is_none())
                {
                    ctx.out.push(Finding::new(&crate::rules::kubevirt::ANNOTATION, it.key_span,
                        format!(
                            "the validations annotation must be a string holding a JSON array, found {}",
                            it.value.type_name()
                        ),
                    ));
                }
                templates.push(Template {
                    name: meta.and_then(|m| text(m, "name")).unwrap_or(""),
                    namespace: meta
                        .and_then(|m| text(m, "namespace"))
                        .filter(|n| !n.is_empty()),
                    annot,
                });
                template_docs.push((f.id, doc, templates.len() - 1));
            } else if is_vm(doc) {
                vms.push((f.id, doc));
            }
        }
    }
    for &(file, vm) in &vms {
        check_vm(&mut ctx, file, vm, &templates, None);
    }
    for &(file, doc, index) in &template_docs {
        let params: Vec<(String, String)> = match child(doc, "parameters").map(|p| &p.value) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|i| {
                    let name = text(&i.value, "name")?;
                    let value = child(&i.value, "value")?.as_scalar()?;
                    Some((name.to_string(), value.text.clone()))
                })
                .collect(),
            _ => Vec::new(),
        };
        let Some(Value::Array(objects)) = child(doc, "objects").map(|o| &o.value) else {
            continue;
        };
        for o in objects {
            if !is_vm(&o.value) {
                continue;
            }
            let mut object = o.value.clone();
            substitute(&mut object, &params);
            check_vm(&mut ctx, file, &object, &templates, Some(index));
        }
    }
    ctx.out
}

fn substitute(n: &mut Node, params: &[(String, String)]) {
    match &mut n.value {
        Value::Scalar(s) => {
            if !s.text.contains("${") {
                return;
            }
            if let Some(name) = s
                .text
                .strip_prefix("${{")
                .and_then(|r| r.strip_suffix("}}"))
                && let Some((_, v)) = params.iter().find(|(k, _)| k == name)
            {
                s.resolved = crate::yaml::scalar::resolve(v, ScalarStyle::Plain, None);
                s.text = v.clone();
                s.style = ScalarStyle::Plain;
                return;
            }
            let mut t = s.text.clone();
            for (k, v) in params {
                t = t.replace(&format!("${{{k}}}"), v);
            }
            if t != s.text {
                s.resolved = ScalarValue::Str(t.clone());
                s.text = t;
            }
        }
        Value::Map(items) => items
            .iter_mut()
            .for_each(|i| substitute(&mut i.value, params)),
        Value::Array(items) => items
            .iter_mut()
            .for_each(|i| substitute(&mut i.value, params)),
    }
}

/// The template key from one map (labels or annotations).
fn template_key(m: Option<&Node>) -> Option<(&str, &str, Span)> {
    let m = m?;
    let name_item = item(m, TEMPLATE_KEY)?;
    let name = name_item.value.as_scalar()?.text.as_str();
    let ns = text(m, NAMESPACE_KEY)
        .filter(|n| !n.is_empty())
        .or_else(|| text(m, OLD_NAMESPACE_KEY))
        .unwrap_or("");
    (!name.is_empty() && !ns.is_empty()).then_some((name, ns, name_item.key_span))
}

fn check_vm(
    ctx: &mut Ctx,
    file: FileId,
    vm: &Node,
    templates: &[Template],
    enclosing: Option<usize>,
) {
    let meta = child(vm, "metadata");
    let annotations = meta.and_then(|m| child(m, "annotations"));
    if annotations.is_some_and(|a| item(a, SKIP_KEY).is_some()) {
        return;
    }
    let own = annotations
        .and_then(|a| item(a, VM_RULES_KEY))
        .and_then(|it| Annot::from_item(file, it))
        .filter(|a| !a.text.is_empty());
    let annot: &Annot = if let Some(a) = &own {
        ctx.parse(a);
        a
    } else if let Some(index) = enclosing {
        match &templates[index].annot {
            Some(a) => a,
            None => return,
        }
    } else {
        let labels = meta.and_then(|m| child(m, "labels"));
        let Some((name, ns, span)) = template_key(labels).or_else(|| template_key(annotations))
        else {
            return;
        };
        let found = templates
            .iter()
            .find(|t| t.name == name && t.namespace == Some(ns))
            .or_else(|| {
                templates
                    .iter()
                    .find(|t| t.name == name && t.namespace.is_none())
            });
        match found {
            Some(t) => match &t.annot {
                Some(a) => a,
                None => return,
            },
            None => {
                ctx.out.push(Finding::new(&crate::rules::kubevirt::TEMPLATE_NOT_FOUND, span,
                    format!(
                        "template `{name}` in namespace `{ns}` is not among the linted files; its validations cannot be checked"
                    ),
                ));
                return;
            }
        }
    };
    let Some(rules) = ctx.parsed.get(&annot.id()).and_then(|p| p.rules.clone()) else {
        return;
    };
    let Some(tpl_item) = child(vm, "spec").and_then(|s| item(s, "template")) else {
        return;
    };
    if tpl_item.value.is_null() {
        return;
    }
    let root = V {
        node: Some(&tpl_item.value),
        kind: K::S(T::Template),
        anchor: tpl_item.key_span,
        in_domain: false,
        cpu_default: false,
        reference: false,
        default_text: None,
    };
    let src = ctx.src(annot.file);
    let mut seen = HashSet::new();
    for (index, rule) in rules.iter().enumerate() {
        let rule_span = json_span(&src, annot, rule.off);
        let mut eval = RuleEval {
            rule,
            rule_span,
            vm_file: tpl_item.key_span.file,
            vm_src: ctx.src(tpl_item.key_span.file),
            out: Vec::new(),
        };
        eval.run(&root);
        for f in eval.out {
            let line = ctx.src(f.span.file).line_col(f.span.start as usize).line;
            if seen.insert((index, f.kind, line)) {
                ctx.out.push(f);
            }
        }
    }
}

enum Conv<X> {
    Ok(X),
    Unknown,
    Type(String),
    Reference(String),
}

fn describe(v: &V) -> String {
    match v.node.map(|n| &n.value) {
        Some(Value::Map(_)) => "an object".into(),
        Some(Value::Array(_)) => "a list".into(),
        Some(Value::Scalar(s)) => format!("the {} `{}`", s.resolved.type_name(), s.text),
        None => match v.kind {
            K::O(_) | K::OInt | K::OStr | K::OBool | K::OQ if v.absent() => {
                "an absent optional value".into()
            }
            K::S(_) | K::O(_) => "an object".into(),
            K::L(_) => "a list".into(),
            K::M(_) => "a map".into(),
            K::Bool => "a boolean".into(),
            K::Int => "an integer".into(),
            _ => "a value".into(),
        },
    }
}

fn to_int(v: &V) -> Conv<i64> {
    if v.kind == K::OInt {
        return Conv::Type(format!(
            "mismatching type: {} of an optional integer field (*int64), not int or resource.Quantity",
            describe(v)
        ));
    }
    if v.absent() {
        if v.kind == K::OQ {
            return Conv::Reference("the quantity is not set".into());
        }
        return Conv::Type(format!(
            "mismatching type: {}, not int or resource.Quantity",
            describe(v)
        ));
    }
    let bad = || {
        Conv::Type(format!(
            "mismatching type: {}, not int or resource.Quantity",
            describe(v)
        ))
    };
    let value = match v.node {
        None => match v.kind {
            K::Int | K::Q | K::OQ => 0,
            _ => return bad(),
        },
        Some(n) => match &n.value {
            Value::Scalar(s) => {
                if s.text.contains("${") {
                    return Conv::Unknown;
                }
                let numeric = matches!(v.kind, K::Int | K::Q | K::OQ | K::Any);
                match &s.resolved {
                    ScalarValue::Int(i) if numeric => *i,
                    ScalarValue::Float(f) if numeric && f.fract() == 0.0 => *f as i64,
                    ScalarValue::Float(f) if matches!(v.kind, K::Int | K::Any) => f.round() as i64,
                    ScalarValue::Str(t) if matches!(v.kind, K::Q | K::OQ) => {
                        match quantity::parse_whole(t) {
                            Some(i) => i,
                            None => {
                                return Conv::Type(format!(
                                    "mismatching type: the quantity `{t}` is not a whole number that fits in 64 bits"
                                ));
                            }
                        }
                    }
                    _ => return bad(),
                }
            }
            _ => return bad(),
        },
    };
    Conv::Ok(if v.cpu_default && value == 0 {
        1
    } else {
        value
    })
}

fn to_str(v: &V) -> Conv<String> {
    let bad = || Conv::Type(format!("mismatching type: {}, not a string", describe(v)));
    if v.absent() {
        return bad();
    }
    match v.node {
        None => match v.kind {
            K::Str | K::OStr => Conv::Ok(v.default_text.unwrap_or("").to_string()),
            _ => bad(),
        },
        Some(n) => match &n.value {
            Value::Scalar(s) => {
                if s.text.contains("${") {
                    return Conv::Unknown;
                }
                match (v.kind, &s.resolved) {
                    (K::Str | K::OStr, _) => Conv::Ok(s.text.clone()),
                    (K::Any, ScalarValue::Str(t)) => Conv::Ok(t.clone()),
                    _ => bad(),
                }
            }
            _ => bad(),
        },
    }
}

struct RuleEval<'r> {
    rule: &'r Rule,
    rule_span: Span,
    /// The VirtualMachine's file, to place findings on values.
    vm_file: FileId,
    vm_src: Arc<SourceFile>,
    out: Vec<Finding>,
}

enum Arg<X> {
    Ok(X),
    Skip,
    Fail,
}

impl RuleEval<'_> {
    /// The rejected scalar itself when it stands on its key's (or item's)
    /// line, so that the report underlines the value; else the anchor.
    fn value_span(&self, v: &V) -> Span {
        let line = |offset: u32| self.vm_src.line_col(offset as usize).line;
        match v.node {
            Some(n)
                if n.as_scalar().is_some()
                    && n.span.file == self.vm_file
                    && v.anchor.file == self.vm_file
                    && line(n.span.start) == line(v.anchor.start) =>
            {
                n.span
            }
            _ => v.anchor,
        }
    }

    /// Report a finding of this rule; the caller may adjust it (severity).
    fn finding(
        &mut self,
        rule: &'static crate::rules::Rule,
        span: Span,
        detail: String,
    ) -> &mut Finding {
        let f = Finding::new(rule, span, format!("{}: {detail}", self.rule.message)).with_related(
            self.rule_span,
            format!("rule `{}` declared here", self.rule.name),
        );
        self.out.push(f);
        self.out.last_mut().expect("a finding was just pushed")
    }

    fn resolve<X>(
        &mut self,
        root: &V,
        path: &annotation::Path,
        convert: fn(&V) -> Conv<X>,
    ) -> Arg<X> {
        let o = jsonpath::eval_with_ref(root, &path.steps);
        let Some(values) = o.values else {
            self.finding(
                &crate::rules::kubevirt::PATH_NOT_FOUND,
                o.last,
                format!("invalid JSONPath: argument `{}` is not found", path.text),
            );
            return Arg::Fail;
        };
        if values.len() != 1 {
            let span = values.first().map_or(o.last, |v| v.anchor);
            self.finding(
                &crate::rules::kubevirt::PATH_NOT_FOUND,
                span,
                format!(
                    "argument `{}`: expected one value, found {}",
                    path.text,
                    values.len()
                ),
            );
            return Arg::Fail;
        }
        match convert(&values[0]) {
            Conv::Ok(x) => Arg::Ok(x),
            Conv::Unknown => Arg::Skip,
            Conv::Type(m) => {
                self.finding(
                    &crate::rules::kubevirt::VALUE_TYPE,
                    values[0].anchor,
                    format!("argument `{}`: {m}", path.text),
                );
                Arg::Fail
            }
            Conv::Reference(m) => {
                self.finding(
                    &crate::rules::kubevirt::PATH_NOT_FOUND,
                    values[0].anchor,
                    format!("argument `{}`: {m}", path.text),
                );
                Arg::Fail
            }
        }
    }

    fn int_arg(&mut self, root: &V, arg: &Option<IntArg>) -> Arg<Option<i64>> {
        match arg {
            None => Arg::Ok(None),
            Some(IntArg::Lit(n)) => Arg::Ok(Some(*n)),
            Some(IntArg::Path(p)) => match self.resolve(root, p, to_int) {
                Arg::Ok(n) => Arg::Ok(Some(n)),
                Arg::Skip => Arg::Skip,
                Arg::Fail => Arg::Fail,
            },
        }
    }

    fn run(&mut self, root: &V) {
        let rule = self.rule;
        if let Some(valid) = &rule.valid {
            let o = jsonpath::eval(root.clone(), &valid.steps);
            if o.values.is_none_or(|v| v.is_empty()) {
                return;
            }
        }
        let (min, max) = match (self.int_arg(root, &rule.min), self.int_arg(root, &rule.max)) {
            (Arg::Ok(a), Arg::Ok(b)) => (a, b),
            _ => return,
        };
        let mut allowed = Vec::new();
        if rule.rule == RuleType::Enum {
            for v in &rule.values {
                match v {
                    StrArg::Lit(s) => allowed.push(s.clone()),
                    StrArg::Path(p) => match self.resolve(root, p, to_str) {
                        Arg::Ok(s) => allowed.push(s),
                        _ => return,
                    },
                }
            }
        }
        let o = jsonpath::eval_with_ref(root, &rule.path.steps);
        let Some(values) = o.values else {
            self.finding(
                &crate::rules::kubevirt::PATH_NOT_FOUND,
                o.last,
                format!("invalid JSONPath: `{}` is not found", rule.path.text),
            );
            return;
        };
        if values.is_empty() {
            self.finding(
                &crate::rules::kubevirt::PATH_NOT_FOUND,
                o.last,
                format!("no values were found for `{}`", rule.path.text),
            );
            return;
        }
        let severity = if rule.just_warning {
            Severity::Warning
        } else {
            Severity::Error
        };
        let range = |min: Option<i64>, max: Option<i64>| {
            format!(
                "[{}, {}]",
                min.map_or("N/A".into(), |m| m.to_string()),
                max.map_or("N/A".into(), |m| m.to_string())
            )
        };
        for v in &values {
            let detail = match rule.rule {
                RuleType::Integer => match to_int(v) {
                    Conv::Ok(n) => {
                        if min.is_some_and(|m| n < m) {
                            Some(format!(
                                "value {n} is lower than minimum [{}]",
                                min.unwrap_or(0)
                            ))
                        } else if max.is_some_and(|m| n > m) {
                            Some(format!(
                                "value {n} is higher than maximum [{}]",
                                max.unwrap_or(0)
                            ))
                        } else {
                            None
                        }
                    }
                    Conv::Unknown => None,
                    Conv::Type(m) => {
                        self.finding(&crate::rules::kubevirt::VALUE_TYPE, v.anchor, m);
                        return;
                    }
                    Conv::Reference(m) => {
                        self.finding(&crate::rules::kubevirt::PATH_NOT_FOUND, v.anchor, m);
                        return;
                    }
                },
                _ => match to_str(v) {
                    Conv::Ok(s) => match rule.rule {
                        RuleType::String => {
                            let n = s.len() as i64;
                            (min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m)).then(|| {
                                format!(
                                    "the length of \"{s}\" ({n} bytes) is not in interval {}",
                                    range(min, max)
                                )
                            })
                        }
                        RuleType::Enum => (!allowed.contains(&s))
                            .then(|| format!("\"{s}\" is not in [{}]", allowed.join(", "))),
                        _ => rule
                            .regex
                            .as_ref()
                            .is_some_and(|re| !re.is_match(&s))
                            .then(|| format!("\"{s}\" does not match {}", rule.regex_text)),
                    },
                    Conv::Unknown => None,
                    Conv::Type(m) | Conv::Reference(m) => {
                        self.finding(&crate::rules::kubevirt::VALUE_TYPE, v.anchor, m);
                        return;
                    }
                },
            };
            if let Some(detail) = detail {
                let span = self.value_span(v);
                self.finding(
                    &crate::rules::kubevirt::VALIDATION,
                    span,
                    format!("{detail} (rule `{}`, path `{}`)", rule.name, rule.path.text),
                )
                .severity = severity;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_block_offsets_map_to_file_lines() {
        let text = "metadata:\n  annotations:\n    validations: |\n      [\n        {\"a\": 1},\n      ]\nobjects: []\n";
        let sources = Sources::new();
        let id = sources.add(SourceFile::new("t.yaml".into(), None, text.into()));
        let src = sources.get(id);
        let key = text.find("validations").unwrap();
        let json = "[\n  {\"a\": 1},\n]\n";
        let a = Annot::new(id, Span::new(id, key, key + 11), json, true);
        let brace = json.find('{').unwrap();
        let span = json_span(&src, &a, brace);
        assert_eq!(span.start as usize, text.find('{').unwrap());
        assert_eq!(src.line_col(span.start as usize).line, 5);
        let close = json.rfind(']').unwrap();
        let span = json_span(&src, &a, close);
        assert_eq!(span.start as usize, text.find("\n      ]").unwrap() + 7);
        assert_eq!(src.line_col(span.start as usize).column, 7);
        let plain = Annot::new(id, a.key_span, json, false);
        assert_eq!(json_span(&src, &plain, brace).start as usize, key);
    }
}
