//! Data values: documents merged one at a time as ytt overlays them (maps
//! merge by key, array items append unless matched, scalars replace,
//! `@overlay/match missing_ok=True`, `@overlay/replace`, `@overlay/remove`,
//! `by=`), and the merged result type-checked against the schema after each
//! step. Unlike ytt, every error of every step is reported.

use super::engine::Code;
use super::overlay::explain;
use super::overlay::merge_mode::MergeMode;
use super::path::DataPath;
use super::quoting::WrittenValues;
use super::schema::{SchemaType, TypeKind, fill_defaults};
use super::starlark::star_nodes::node_to_star;
use super::starlark::{StarValue, eval_annotation_args};
use crate::edit::Fix;
use crate::finding::Finding;
use crate::rules;
use crate::source::Span;
use crate::suggest::did_you_mean;
use crate::yaml::{Annotated, ArrayItem, Comment, MapItem, Node, Value};

/// Overlay annotations read from one node's comments.
#[derive(Debug, Default, Clone)]
struct Overlay {
    missing_ok: bool,
    replace: bool,
    remove: bool,
    by_key: Option<String>,
    /// The arguments of `@overlay/match` as written, for a `by=` that is not
    /// a map key (`overlay.subset(...)`, a lambda): evaluated in its file.
    match_args: Option<String>,
    child_missing_ok: bool,
}

impl Overlay {
    fn read(comments: &[Comment]) -> Overlay {
        let mut overlay = Overlay::default();
        for comment in comments {
            let crate::yaml::CommentKind::Annotation { name, args } = &comment.kind else {
                continue;
            };
            let named = || {
                eval_annotation_args(args)
                    .map(|call| call.named)
                    .unwrap_or_default()
            };
            let is_true = |named: &[(String, StarValue)], key: &str| {
                named
                    .iter()
                    .any(|(k, v)| k == key && *v == StarValue::Bool(true))
            };
            match name.as_str() {
                "overlay/match" => {
                    overlay.match_args = Some(args.clone());
                    let named = named();
                    overlay.missing_ok |= is_true(&named, "missing_ok");
                    for (k, v) in &named {
                        if let ("by", StarValue::Str(key)) = (k.as_str(), v) {
                            overlay.by_key = Some(key.clone());
                        }
                    }
                }
                "overlay/replace" => {
                    overlay.replace = true;
                    overlay.missing_ok |= is_true(&named(), "or_add");
                }
                "overlay/remove" => overlay.remove = true,
                "overlay/match-child-defaults" => {
                    overlay.child_missing_ok |= is_true(&named(), "missing_ok");
                }
                _ => {}
            }
        }
        overlay
    }
}

/// Merges data-values documents and type-checks the result.
/// Keys a did-you-mean for an unknown key is chosen among.
const MAX_SUGGESTED_FROM: usize = 1_000;

/// The first item of each key of a map being merged onto, so that merging
/// a map of a million keys stays linear.
struct KeyIndex {
    first: std::collections::HashMap<String, usize>,
}

impl KeyIndex {
    fn of(items: &[MapItem]) -> KeyIndex {
        let mut first = std::collections::HashMap::with_capacity(items.len());
        for (at, item) in items.iter().enumerate() {
            first.entry(item.key.display()).or_insert(at);
        }
        KeyIndex { first }
    }
}

pub struct Merger<'a> {
    pub findings: &'a mut Vec<Finding>,
    pub has_schema: bool,
    /// Schema documents: where two annotate one value, the first's annotations stay.
    pub keeps_left_annotations: bool,
    /// The package's code, to call an array item's `by=` matcher; without
    /// it only a map-key `by=` matches.
    pub code: Option<&'a Code<'a>>,
}

impl Merger<'_> {
    /// Merge `right` (a document's value, with its comments) onto `left`.
    pub fn merge_document(
        &mut self,
        left: &mut Node,
        right: &Node,
        comments: &[Comment],
        mode: MergeMode,
    ) {
        let overlay = Overlay::read(comments);
        self.merge_value(
            left,
            right,
            Span::file_start(right.span.file),
            &overlay,
            &DataPath::root(),
            mode,
            overlay.child_missing_ok,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn merge_value(
        &mut self,
        left: &mut Node,
        right: &Node,
        right_at: Span,
        overlay: &Overlay,
        path: &DataPath,
        mode: MergeMode,
        child_missing_ok: bool,
    ) {
        if overlay.replace {
            *left = right.clone();
            return;
        }
        let left_is_null = left.is_null();
        let left_kind = left.type_name();
        let left_span = left.span;
        match (&mut left.value, &right.value) {
            (Value::Map(left_items), Value::Map(right_items)) => {
                let mut index = KeyIndex::of(left_items);
                for item in right_items {
                    self.merge_map_item(left_items, &mut index, item, path, mode, child_missing_ok);
                }
            }
            (Value::Array(left_items), Value::Array(right_items)) => {
                if mode.arrays_replace {
                    *left = right.clone();
                    return;
                }
                for (index, item) in right_items.iter().enumerate() {
                    self.merge_array_item(left_items, item, &path.index(index), mode);
                }
            }
            (_, Value::Map(_) | Value::Array(_)) if !left_is_null => {
                let new_kind = right.type_name();
                let old_kind = left_kind;
                self.findings.push(
                    Finding::new(&rules::ytt::TYPE_MISMATCH, right_at,
                        format!("cannot merge a {new_kind} onto {path}: expected {new_kind}, but was {old_kind}"),
                    )
                    .with_path(path.to_string())
                    .with_related(left_span, format!("{path} is a {old_kind} here"))
                    .with_help("give a value of the declared type, or replace the value wholesale with #@overlay/replace"),
                );
            }
            _ => *left = right.clone(),
        }
    }

    fn merge_map_item(
        &mut self,
        left_items: &mut Vec<MapItem>,
        index: &mut KeyIndex,
        item: &MapItem,
        path: &DataPath,
        mode: MergeMode,
        parent_missing_ok: bool,
    ) {
        let key = item.key.display();
        let item_path = path.key(&key);
        let overlay = Overlay::read(item.comments());
        let position = index.first.get(&key).copied();
        let missing_ok = overlay.missing_ok || parent_missing_ok || mode.implicit_missing_ok;
        match position {
            Some(at) if overlay.remove => {
                left_items.remove(at);
                *index = KeyIndex::of(left_items);
            }
            Some(at) => {
                let left = &mut left_items[at];
                let is_merge = matches!(
                    (&left.value.value, &item.value.value),
                    (Value::Map(_), Value::Map(_)) | (Value::Array(_), Value::Array(_))
                ) && !overlay.replace;
                if !is_merge
                    && !overlay.replace
                    && (item.value.type_name() == "map" || item.value.type_name() == "array")
                    && !left.value.is_null()
                {
                    // A collection onto a scalar or the other collection kind.
                    let (new_kind, old_kind) = (item.value.type_name(), left.value.type_name());
                    self.findings.push(
                        Finding::new(&rules::ytt::TYPE_MISMATCH, item.key_span,
                            format!("cannot merge a {new_kind} onto {item_path}: expected {new_kind}, but was {old_kind}"),
                        )
                        .with_path(item_path.to_string())
                        .with_label(format!("a {new_kind}"))
                        .with_related(left.key_span, format!("{item_path} is a {old_kind} here"))
                        .with_help("give a value of the declared type, or replace it wholesale with #@overlay/replace"),
                    );
                    return;
                }
                if is_merge {
                    let child_missing_ok = overlay.child_missing_ok || parent_missing_ok;
                    self.merge_value(
                        &mut left.value,
                        &item.value,
                        item.key_span,
                        &overlay,
                        &item_path,
                        mode,
                        child_missing_ok,
                    );
                } else {
                    // The value is replaced: ytt then reports it where it was given.
                    left.key_span = item.key_span;
                    left.value = item.value.clone();
                    if self.keeps_left_annotations {
                        let kept: Vec<String> =
                            left.annotations().map(|(n, _)| n.to_string()).collect();
                        let added: Vec<Comment> = item
                            .comments
                            .iter()
                            .filter(|c| !matches!(&c.kind, crate::yaml::CommentKind::Annotation { name, .. } if kept.contains(name)))
                            .cloned()
                            .collect();
                        left.comments.extend(added);
                    } else if !self.has_schema {
                        // Where the schema declares the value, ytt keeps the
                        // schema's node: an overlay's @assert/validate is dropped.
                        left.comments = item.comments.clone();
                    }
                }
            }
            None if overlay.remove && missing_ok => {}
            None if missing_ok => {
                index.first.entry(key).or_insert(left_items.len());
                left_items.push(item.clone());
            }
            None => {
                // Suggestions from the first keys only: a map of a million
                // keys would otherwise cost a million per unknown key.
                let siblings: Vec<String> = left_items
                    .iter()
                    .take(MAX_SUGGESTED_FROM)
                    .map(|l| l.key.display())
                    .collect();
                let mut finding = Finding::new(&rules::ytt::UNKNOWN_KEY, item.key_span,
                    if self.has_schema {
                        format!("{item_path} is not declared in the schema")
                    } else {
                        format!("{item_path} is not in the data values it overlays (ytt: Expected number of matched nodes to be 1, but was 0)")
                    },
                )
                .with_path(item_path.to_string())
                .with_label("unknown key");
                finding.help = Some(match did_you_mean(&key, &siblings) {
                    Some(near) => format!("did you mean \"{near}\"?"),
                    None if self.has_schema => "declare it in the data-values schema".into(),
                    None => {
                        "to add a new key, annotate it with #@overlay/match missing_ok=True".into()
                    }
                });
                self.findings.push(finding);
            }
        }
    }

    fn merge_array_item(
        &mut self,
        left_items: &mut Vec<ArrayItem>,
        item: &ArrayItem,
        path: &DataPath,
        mode: MergeMode,
    ) {
        let overlay = Overlay::read(item.comments());
        let Some(matched) = self.array_matches(left_items, item, &overlay) else {
            // No `@overlay/match`, or one that cannot be evaluated here.
            left_items.push(item.clone());
            return;
        };
        let expects = Expects::read(&overlay, item, self.code);
        if !expects.accepts(matched.len()) {
            let message = match &overlay.by_key {
                Some(by) if matched.is_empty() => format!(
                    "{path} matches no array item by \"{by}\" (ytt: Expected number of matched nodes to be 1, but was 0)"
                ),
                _ => format!(
                    "{path} matches {} array items (ytt: Expected number of matched nodes to be {}, but was {})",
                    matched.len(),
                    expects.describe(),
                    matched.len()
                ),
            };
            let mut finding = Finding::new(&rules::ytt::UNKNOWN_KEY, item.span, message)
                .with_path(path.to_string());
            if matched.is_empty() {
                finding = finding.with_help("add missing_ok=True to append it");
            }
            // What ytt does not say: why the nearest items differ, or where
            // each of too many matches is.
            let notes = if matched.is_empty() {
                let candidates: Vec<&Node> = left_items.iter().map(|l| &l.value).collect();
                overlay
                    .by_key
                    .as_deref()
                    .and_then(|by| explain::asked_key(&item.value, by))
                    .map(|asked| explain::no_match(&asked, &candidates))
                    .unwrap_or_default()
            } else {
                let spans: Vec<Span> = matched.iter().map(|&i| left_items[i].span).collect();
                explain::matches(&spans)
            };
            for (span, note) in notes {
                finding = finding.with_related(span, note);
            }
            self.findings.push(finding);
            return;
        }
        if overlay.remove {
            let mut at = 0;
            left_items.retain(|_| {
                at += 1;
                !matched.contains(&(at - 1))
            });
        } else if overlay.replace {
            for &index in &matched {
                left_items[index] = item.clone();
            }
            if matched.is_empty() && overlay.missing_ok {
                left_items.push(item.clone());
            }
        } else if matched.is_empty() {
            left_items.push(item.clone());
        } else {
            for &index in &matched {
                let left = &mut left_items[index];
                self.merge_value(
                    &mut left.value,
                    &item.value,
                    item.span,
                    &Overlay::default(),
                    path,
                    mode,
                    false,
                );
            }
        }
    }

    /// The indexes of the left items an array item's `@overlay/match by=`
    /// matches, as ytt calls the matcher on each (index, left, right); None
    /// when the item has no `by=` or it cannot be evaluated here.
    fn array_matches(
        &self,
        left_items: &[ArrayItem],
        item: &ArrayItem,
        overlay: &Overlay,
    ) -> Option<Vec<usize>> {
        if let Some(by) = &overlay.by_key {
            // A right item without the key matches nothing (ytt: an error).
            let wanted = map_value(&item.value, by);
            return Some(
                left_items
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| wanted.is_some() && map_value(&l.value, by) == wanted)
                    .map(|(at, _)| at)
                    .collect(),
            );
        }
        let code = self.code?;
        let args = code
            .eval_args(overlay.match_args.as_ref()?, item.span.file)
            .ok()?;
        if args.named.iter().any(|(k, _)| k == "when") {
            return None;
        }
        let matcher = args.named.iter().find(|(k, _)| k == "by").map(|(_, v)| v)?;
        let StarValue::Other {
            handle: Some(handle),
            ..
        } = matcher
        else {
            return None;
        };
        let right = node_to_star(&item.value);
        let mut matched = Vec::new();
        for (at, left) in left_items.iter().enumerate() {
            let index = StarValue::Int(i64::try_from(at).ok()?);
            let left = node_to_star(&left.value);
            match code.engine.call(&handle.0, &[&index, &left, &right], &[]) {
                Ok(StarValue::Bool(true)) => matched.push(at),
                Ok(StarValue::Bool(false)) => {}
                _ => return None,
            }
        }
        Some(matched)
    }
}

/// How many left items an array item's `@overlay/match` expects to match
/// (ytt's `expects=`, 1 by default; `missing_ok=True` also allows none).
struct Expects {
    counts: Vec<usize>,
    at_least: Option<usize>,
    missing_ok: bool,
}

impl Expects {
    fn read(overlay: &Overlay, item: &ArrayItem, code: Option<&Code<'_>>) -> Expects {
        let mut expects = Expects {
            counts: vec![1],
            at_least: None,
            missing_ok: overlay.missing_ok,
        };
        let named = overlay
            .match_args
            .as_ref()
            .and_then(|args| match code {
                Some(code) => code.eval_args(args, item.span.file).ok(),
                None => eval_annotation_args(args).ok(),
            })
            .map(|call| call.named)
            .unwrap_or_default();
        let count = |value: &StarValue| match value {
            StarValue::Int(n) => usize::try_from(*n).ok(),
            _ => None,
        };
        for (key, value) in &named {
            if key != "expects" {
                continue;
            }
            match value {
                StarValue::Int(_) => expects.counts = count(value).into_iter().collect(),
                StarValue::Str(text) => {
                    if let Some(n) = text.strip_suffix('+').and_then(|n| n.parse().ok()) {
                        expects.counts.clear();
                        expects.at_least = Some(n);
                    }
                }
                StarValue::List(items) => {
                    expects.counts = items.iter().filter_map(count).collect();
                }
                // A function: whatever it accepts is not known here.
                _ => {
                    expects.counts.clear();
                    expects.at_least = Some(0);
                }
            }
        }
        expects
    }

    fn accepts(&self, matched: usize) -> bool {
        (self.missing_ok && matched == 0)
            || self.counts.contains(&matched)
            || self.at_least.is_some_and(|n| matched >= n)
    }

    fn describe(&self) -> String {
        match (self.at_least, self.counts.as_slice()) {
            (Some(n), _) => format!("{n}+"),
            (None, [one]) => one.to_string(),
            (None, counts) => format!("{counts:?}"),
        }
    }
}

fn map_value(node: &Node, key: &str) -> Option<String> {
    match &node.value {
        Value::Map(items) => items
            .iter()
            .find(|i| i.key.display() == key)
            .map(|i| format!("{:?}", i.value.value)),
        _ => None,
    }
}

/// Type-checks merged data values against the schema, as ytt does after each
/// merge step, and fills in defaults.
pub struct TypeChecker<'a> {
    pub findings: &'a mut Vec<Finding>,
    /// Where values were written, for the fixes that quote or unquote them.
    pub written: Option<&'a WrittenValues<'a>>,
}

impl TypeChecker<'_> {
    pub fn check(&mut self, node: &mut Node, at: Span, ty: &SchemaType, path: &DataPath) {
        if matches!(ty.kind, TypeKind::Any) {
            return;
        }
        if node.is_null() {
            if !ty.is_nullable {
                self.mismatch(
                    super::validate::value_span(node, at),
                    ty,
                    "null",
                    path,
                    node,
                    None,
                );
            }
            return;
        }
        fill_defaults(node, ty);
        let found = node.type_name();
        match (&mut node.value, &ty.kind) {
            (Value::Map(items), TypeKind::Map(entries)) => {
                let by_key = ty.entries_by_key();
                for item in items.iter_mut() {
                    let key = item.key.display();
                    match by_key.get(key.as_str()) {
                        Some(&entry_ty) => {
                            self.check(&mut item.value, item.key_span, entry_ty, &path.key(&key))
                        }
                        None => {
                            let declared: Vec<String> = entries
                                .iter()
                                .take(MAX_SUGGESTED_FROM)
                                .map(|e| e.key.clone())
                                .collect();
                            let mut finding = Finding::new(
                                &rules::ytt::UNKNOWN_KEY,
                                item.key_span,
                                format!("{} is not declared in the schema", path.key(&key)),
                            )
                            .with_path(path.key(&key).to_string())
                            .with_label("not declared")
                            .with_related(ty.span, "map declared here");
                            finding.help = Some(match did_you_mean(&key, &declared) {
                                Some(near) => format!("did you mean \"{near}\"?"),
                                None => expected_keys(&declared),
                            });
                            self.findings.push(finding);
                        }
                    }
                }
            }
            (Value::Array(items), TypeKind::Array(item_type)) => {
                for (index, item) in items.iter_mut().enumerate() {
                    self.check(&mut item.value, item.span, item_type, &path.index(index));
                }
            }
            (Value::Scalar(scalar), kind) if kind.accepts_scalar(&scalar.resolved) => {}
            _ => {
                let shown = node.clone();
                let fix = self.written.and_then(|w| w.fix(&shown, &ty.kind));
                self.mismatch(
                    super::validate::value_span(node, at),
                    ty,
                    found,
                    path,
                    &shown,
                    fix,
                );
            }
        }
    }

    /// Whether a data-values document (`node`, starting at `at`) is of the
    /// schema's type at its root. One that is not (a `README.md` read from
    /// a `--data-values-file` folder is a string) is reported at the
    /// document, as ytt reports it, and is not merged: ytt stops there, and
    /// the values after it are checked against the schema, not against it.
    pub fn fits_document(&mut self, node: &Node, at: Span, ty: &SchemaType) -> bool {
        let fits = node.is_null()
            || match (&node.value, &ty.kind) {
                (_, TypeKind::Any)
                | (Value::Map(_), TypeKind::Map(_))
                | (Value::Array(_), TypeKind::Array(_)) => true,
                (Value::Scalar(scalar), kind) => kind.accepts_scalar(&scalar.resolved),
                _ => false,
            };
        if !fits {
            self.mismatch(at, ty, node.type_name(), &DataPath::root(), node, None);
        }
        fits
    }

    /// A value of the wrong type, reported at `at`, with the fix that
    /// quoting or unquoting it is when that is all it takes.
    #[allow(clippy::too_many_arguments)]
    fn mismatch(
        &mut self,
        at: Span,
        ty: &SchemaType,
        found: &str,
        path: &DataPath,
        node: &Node,
        fix: Option<Fix>,
    ) {
        let shown = match node.as_scalar() {
            Some(s) if !s.text.is_empty() && found != "null" => {
                format!("{found} ({})", truncate(&s.text))
            }
            _ => found.to_string(),
        };
        let expected = if ty.is_nullable {
            format!("{} or null", ty.kind.name())
        } else {
            ty.kind.name().to_string()
        };
        self.findings.push(
            Finding::new(
                &rules::ytt::TYPE_MISMATCH,
                at,
                format!("{path}: expected {expected}, found {shown}"),
            )
            .with_path(path.to_string())
            .with_label(format!("found {found}"))
            .with_related(ty.span, format!("declared as {} here", ty.kind.name()))
            .with_fix(fix),
        );
    }
}

fn truncate(text: &str) -> String {
    if text.len() > 40 {
        format!("{}...", &text[..text.floor_char_boundary(37)])
    } else {
        text.to_string()
    }
}

/// ytt's `expected:` text for an undeclared key.
fn expected_keys(declared: &[String]) -> String {
    match declared.len() {
        1 => format!("expected a map item with the key named \"{}\"", declared[0]),
        2..=9 => {
            let mut sorted = declared.to_vec();
            sorted.sort();
            format!("expected one of {{ {} }}", sorted.join(", "))
        }
        _ => "expected a key declared in the map".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_keys_lists_the_declared_keys() {
        let keys = vec!["namespace".to_string(), "service_account".to_string()];
        assert_eq!(
            expected_keys(&keys),
            "expected one of { namespace, service_account }"
        );
    }
}
