//! `ytt/package-schema-drift`: a Carvel `Package` resource
//! (`data.packaging.carvel.dev/v1alpha1`) carries the values schema of the
//! ytt package it ships in `spec.valuesSchema.openAPIv3`, copied from
//! `ytt --data-values-schema-inspect -o openapi-v3` (`kctrl package
//! release` does it). When the schema changes and the copy does not,
//! kapp-controller validates consumers' values against a stale schema.
//!
//! The ytt package a Package ships is found, in this order, by the
//! configuration (`ytt.packages[].package-resource`), by a `git` fetch's
//! `subPath` (with the `ytt` template's `paths`) in this repository, or as
//! the only ytt package below the Package file's directory (the
//! `<version>/package.yml` + `<version>/bundle/config/` layout). When none
//! of these finds exactly one, nothing is compared.

use super::schema::SchemaType;
use super::schema::export::openapi;
use crate::discover::DiscoveredFile;
use crate::edit::{Edit, Fix};
use crate::finding::Finding;
use crate::rules;
use crate::source::{Sources, Span, display_dir};
use crate::yaml::{MapItem, Node, Value, child, item};
use serde_json::Value as J;
use std::path::{Path, PathBuf};

/// Keywords only an export with rules writes: a Package holding one was
/// made from `confvet schema` without `--ytt-compatible`.
const RULE_KEYWORDS: &[&str] = &[
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "enum",
    "multipleOf",
    "x-ytt-validations",
];

/// Documentation a Package may add at the top of its schema.
const ROOT_DOCS: &[&str] = &["title", "description", "example", "examples", "$schema"];

/// What the drift check needs to know of a run.
pub struct DriftContext<'a> {
    /// The exported schema of each ytt package root a Package ships.
    pub exports: &'a [(PathBuf, SchemaExport)],
    /// Every ytt package of the tree (checked in this run or not) with each
    /// of its schema files: which package a Package ships is decided on
    /// all of them, so a shard decides as a whole run does.
    pub schema_files: &'a [(PathBuf, PathBuf)],
    /// `(Package file, ytt package root)` pairs the configuration names.
    pub mapping: &'a [(PathBuf, PathBuf)],
    pub sources: &'a Sources,
    /// Where display names are relative to.
    pub cwd: &'a Path,
}

/// Findings for every Package resource whose values schema is not its ytt
/// package's export.
pub fn check(packages: &[DiscoveredFile], context: &DriftContext<'_>) -> Vec<Finding> {
    let mut findings = Vec::new();
    for file in packages {
        let Ok(set) = &file.parsed else {
            continue;
        };
        for doc in &set.docs {
            let is_package = child(&doc.value, "kind")
                .and_then(Node::as_scalar)
                .is_some_and(|k| k.text == "Package");
            let Some(spec) = child(&doc.value, "spec") else {
                continue;
            };
            let Some(stored_item) = child(spec, "valuesSchema")
                .and_then(|v| item(v, "openAPIv3"))
                .filter(|i| !i.value.is_null())
            else {
                continue;
            };
            if !is_package {
                continue;
            }
            let Some(root) = shipped_package(&file.path, spec, context) else {
                continue;
            };
            let Some((_, export)) = context.exports.iter().find(|(r, _)| *r == root) else {
                continue;
            };
            if let Some(finding) = compare(stored_item, export, &root, context) {
                findings.push(finding);
            }
        }
    }
    findings
}

/// The roots of the ytt packages the Packages among `packages` ship: the
/// packages whose schema the check compares (their findings are not reused
/// from a cache, which keeps no schema).
pub fn shipped_roots(packages: &[DiscoveredFile], context: &DriftContext<'_>) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    for file in packages {
        let Ok(set) = &file.parsed else {
            continue;
        };
        for doc in &set.docs {
            if let Some(root) = child(&doc.value, "spec")
                .and_then(|spec| shipped_package(&file.path, spec, context))
            {
                roots.push(root);
            }
        }
    }
    roots.sort();
    roots.dedup();
    roots
}

/// The root of the ytt package a Package ships, when exactly one is found.
fn shipped_package(file: &Path, spec: &Node, context: &DriftContext<'_>) -> Option<PathBuf> {
    if let Some((_, root)) = context.mapping.iter().find(|(package, _)| package == file) {
        return Some(root.clone());
    }
    // Each package root with the file its schema starts in: confvet may root
    // a package above the directory a Package's `ytt -f` names, so a
    // package is found by where its schema is.
    let roots: Vec<(&PathBuf, PathBuf)> = context
        .schema_files
        .iter()
        .map(|(root, file)| (root, file.clone()))
        .collect();
    let only_one = |mut candidates: Vec<&PathBuf>| {
        candidates.sort();
        candidates.dedup();
        match candidates.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    };
    let template = child(spec, "template").and_then(|t| child(t, "spec"));
    let git_dirs = template
        .and_then(|t| child(t, "fetch"))
        .map(|fetch| {
            items(fetch)
                .filter_map(|f| child(f, "git"))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    if !git_dirs.is_empty() {
        let repository = file
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(context.cwd);
        let ytt_paths: Vec<String> = template
            .and_then(|t| child(t, "template"))
            .map(|steps| {
                items(steps)
                    .filter_map(|step| child(step, "ytt").and_then(|y| child(y, "paths")))
                    .flat_map(items)
                    .filter_map(|p| p.as_scalar().map(|s| s.text.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let mut candidates = Vec::new();
        for git in git_dirs {
            let sub_path = child(git, "subPath")
                .and_then(Node::as_scalar)
                .map_or(String::new(), |s| s.text.clone());
            let base = crate::source::normalize_path(&repository.join(sub_path));
            let wanted: Vec<PathBuf> = if ytt_paths.is_empty() {
                vec![base.clone()]
            } else {
                ytt_paths
                    .iter()
                    .map(|p| crate::source::normalize_path(&base.join(p)))
                    .collect()
            };
            candidates.extend(
                roots
                    .iter()
                    .filter(|(_, schema)| wanted.iter().any(|w| schema.starts_with(w)))
                    .map(|(root, _)| *root),
            );
        }
        return only_one(candidates);
    }
    let dir = file.parent()?;
    only_one(
        roots
            .iter()
            .filter(|(_, schema)| schema.starts_with(dir))
            .map(|(root, _)| *root)
            .collect(),
    )
}

fn items(node: &Node) -> impl Iterator<Item = &Node> {
    let list: &[crate::yaml::ArrayItem] = match &node.value {
        Value::Array(list) => list,
        _ => &[],
    };
    list.iter().map(|item| &item.value)
}

/// What a Package's schema is compared with: a package's schema exported
/// with its rules and as ytt exports it (`components.schemas.dataValues`
/// of each), and where the schema starts. A cached unit keeps this, not
/// its schema.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaExport {
    pub span: Span,
    pub with_rules: Option<J>,
    pub ytt_compatible: Option<J>,
}

impl SchemaExport {
    pub fn of(schema: &SchemaType, sources: &Sources) -> SchemaExport {
        let export = |ytt_compatible| {
            let document = openapi::document(Some(schema), sources, ytt_compatible);
            crate::yaml::emit::to_json(&document)
                .pointer("/components/schemas/dataValues")
                .cloned()
        };
        SchemaExport {
            span: schema.span,
            with_rules: export(false),
            ytt_compatible: export(true),
        }
    }
}

fn compare(
    stored_item: &MapItem,
    export: &SchemaExport,
    root: &Path,
    context: &DriftContext<'_>,
) -> Option<Finding> {
    let stored = &stored_item.value;
    let stored_json = crate::yaml::emit::to_json(stored);
    let with_rules = mentions_rules(&stored_json);
    let expected = if with_rules {
        export.with_rules.clone()?
    } else {
        export.ytt_compatible.clone()?
    };
    let (span, problem) = first_difference(stored, &expected, "", true)?;
    let fix = rewrite_fix(
        stored_item,
        &stored_json,
        (&expected, with_rules),
        context.sources,
    );
    let dir = display_dir(root, context.cwd);
    let flag = if with_rules { "" } else { " --ytt-compatible" };
    Some(
        Finding::new(&rules::ytt::PACKAGE_SCHEMA_DRIFT, span,
            format!(
                "spec.valuesSchema.openAPIv3 differs from the schema in {}: {problem}",
                context.sources.name(export.span.file)
            ),
        )
        .with_related(export.span, "the package's schema starts here")
        .with_help(format!(
            "run `confvet schema {dir}{flag}` and copy its `components.schemas.dataValues` into spec.valuesSchema.openAPIv3"
        ))
        .with_fix(fix),
    )
}

/// Write `expected` (with the documentation keys the Package adds at the
/// top) over the value of `openAPIv3:`, as block YAML indented where the
/// value sits: the key's line and everything after the value stay. Only
/// for a block map in plain YAML: a value with ytt annotations is made by
/// template code, and one with anchors or aliases shares text with other
/// places; comments inside the value would be lost, so that rewrite is
/// only shown.
fn rewrite_fix(
    stored_item: &MapItem,
    stored_json: &J,
    (expected, with_rules): (&J, bool),
    sources: &Sources,
) -> Option<Fix> {
    let stored = &stored_item.value;
    let file = sources.get(stored.span.file);
    let text = file.text.as_str();
    let (start, end) = (stored.span.start as usize, stored.span.end as usize);
    let between = text.get(stored_item.key_span.end as usize..start)?;
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    let indent = &text[line_start..start];
    // To the end of the value's last line, so a comment there goes with it.
    let end = start + text.get(start..end)?.trim_end().len();
    let end = text[end..].find('\n').map_or(text.len(), |at| end + at);
    let body = text.get(start..end)?.trim_end();
    let is_block_map = matches!(stored.value, Value::Map(_))
        && between.contains('\n')
        && indent.bytes().all(|b| b == b' ')
        && !body.starts_with('{');
    if !is_block_map || body.contains("#@") || has_anchor_or_alias(body) {
        return None;
    }
    let mut wanted = expected.clone();
    if let (J::Object(wanted_keys), J::Object(stored_keys)) = (&mut wanted, stored_json) {
        let docs = stored_keys.iter().filter(|(key, _)| {
            ROOT_DOCS.contains(&key.as_str()) && !wanted_keys.contains_key(*key)
        });
        let mut merged: serde_json::Map<String, J> = docs
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        merged.extend(std::mem::take(wanted_keys));
        *wanted_keys = merged;
    }
    let yaml = crate::yaml::emit::to_yaml(&openapi::json_node(&wanted));
    if !reads_back_in_sync(&yaml, &wanted, (expected, with_rules)) {
        return None;
    }
    let block: Vec<String> = yaml
        .lines()
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("{indent}{line}")
            }
        })
        .collect();
    let edit = Edit::replace(
        Span::new(stored.span.file, line_start, start + body.len()),
        block.join("\n"),
    );
    let message = "write the package's schema export into spec.valuesSchema.openAPIv3";
    let has_comments = stored.any_item_comments(&|comments| !comments.is_empty())
        || body.contains(" #")
        || body.lines().any(|line| line.trim_start().starts_with('#'));
    // A template file may compute or overlay the value the fix writes over.
    let is_template = text.contains("#@");
    if has_comments || is_template {
        Fix::display_only(message, vec![edit])
    } else {
        Fix::safe(message, vec![edit])
    }
}

/// Whether the YAML text anchors (`&name`) or aliases (`*name`) a node.
/// Errs towards yes: an indicator at the start of any word counts.
fn has_anchor_or_alias(body: &str) -> bool {
    let bytes = body.as_bytes();
    bytes.iter().enumerate().any(|(at, &b)| {
        let starts_word = at == 0 || b" \t\n:-[{,".contains(&bytes[at - 1]);
        let names = bytes
            .get(at + 1)
            .is_some_and(|n| n.is_ascii_alphanumeric() || *n == b'_' || *n == b'-');
        (b == b'&' || b == b'*') && starts_word && names
    })
}

/// Whether `yaml` reads back as `wanted` and the drift check finds nothing
/// in it (compared with the same export, so with rules only if it still
/// mentions them): the fix must end the finding it is made for.
fn reads_back_in_sync(yaml: &str, wanted: &J, (expected, with_rules): (&J, bool)) -> bool {
    let options = crate::yaml::ParseOptions::default();
    let Ok(set) = crate::yaml::parse_file(crate::source::FileId(0), yaml, &options) else {
        return false;
    };
    let [doc] = set.docs.as_slice() else {
        return false;
    };
    let read = crate::yaml::emit::to_json(&doc.value);
    read == *wanted
        && mentions_rules(&read) == with_rules
        && first_difference(&doc.value, expected, "", true).is_none()
}

fn mentions_rules(value: &J) -> bool {
    match value {
        J::Object(map) => map
            .iter()
            .any(|(key, value)| RULE_KEYWORDS.contains(&key.as_str()) || mentions_rules(value)),
        J::Array(items) => items.iter().any(mentions_rules),
        _ => false,
    }
}

/// Where `actual` first differs from `expected`, and how.
fn first_difference(
    actual: &Node,
    expected: &J,
    at: &str,
    is_root: bool,
) -> Option<(Span, String)> {
    let here = |key: &str| {
        if at.is_empty() {
            key.to_string()
        } else {
            format!("{at}.{key}")
        }
    };
    match (expected, &actual.value) {
        (J::Object(keys), Value::Map(items)) => {
            for (key, want) in keys {
                match items.iter().find(|item| item.key.text == *key) {
                    Some(item) => {
                        if let Some(found) = first_difference(&item.value, want, &here(key), false)
                        {
                            return Some(found);
                        }
                    }
                    None => {
                        let span = items.first().map_or(actual.span, |item| item.key_span);
                        return Some((
                            span,
                            format!("`{}` is missing (the schema has {want})", here(key)),
                        ));
                    }
                }
            }
            items
                .iter()
                .find(|item| {
                    let is_root_docs = is_root && ROOT_DOCS.contains(&item.key.text.as_str());
                    !(keys.contains_key(&item.key.text) || is_root_docs)
                })
                .map(|item| {
                    (
                        item.key_span,
                        format!("`{}` is not in the schema", here(&item.key.text)),
                    )
                })
        }
        (J::Array(want), Value::Array(got)) if want.len() == got.len() => want
            .iter()
            .zip(got)
            .enumerate()
            .find_map(|(i, (want, got))| {
                first_difference(&got.value, want, &format!("{at}[{i}]"), false)
            }),
        _ => {
            let got = crate::yaml::emit::to_json(actual);
            let same = got == *expected
                || matches!((got.as_f64(), expected.as_f64()), (Some(a), Some(b)) if a == b);
            (!same).then(|| {
                let place = if at.is_empty() { "the schema" } else { at };
                (
                    actual.span,
                    format!("`{place}` is {got} here, {expected} in the schema"),
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;
    use serde_json::json;

    const PACKAGE: &str = "apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
spec:
  valuesSchema:
    openAPIv3: # copied from the export
      title: web values
      type: object
      additionalProperties: false
      properties:
        replicas:
          type: integer
          default: 1
  # the bundle
  template: {}
";

    fn expected() -> J {
        json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "replicas": {"type": "integer", "default": 2},
                "image": {"type": "string", "default": "web:1.0"}
            }
        })
    }

    /// The fix for the Package `text` whose schema should be `expected`.
    fn fix_of(text: &str, expected: &J) -> Option<(Fix, String)> {
        let sources = Sources::new();
        let id = sources.add(SourceFile::new("package.yml".into(), None, text.into()));
        let set = crate::yaml::parse_file(id, text, &Default::default()).unwrap();
        let spec = child(&set.docs[0].value, "spec").unwrap();
        let stored_item = item(child(spec, "valuesSchema").unwrap(), "openAPIv3").unwrap();
        let stored_json = crate::yaml::emit::to_json(&stored_item.value);
        let fix = rewrite_fix(stored_item, &stored_json, (expected, false), &sources)?;
        let edits: Vec<&Edit> = fix.edits.iter().collect();
        let fixed = crate::edit::apply_edits(text, &edits);
        Some((fix, fixed))
    }

    #[test]
    fn the_value_is_rewritten_in_place_keeping_the_root_docs() {
        let (fix, fixed) = fix_of(PACKAGE, &expected()).unwrap();
        assert_eq!(fix.applicability, crate::edit::Applicability::Safe);
        assert_eq!(
            fixed,
            "apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
spec:
  valuesSchema:
    openAPIv3: # copied from the export
      title: web values
      type: object
      additionalProperties: false
      properties:
        replicas:
          type: integer
          default: 2
        image:
          type: string
          default: web:1.0
  # the bundle
  template: {}
"
        );
    }

    #[test]
    fn a_value_with_comments_or_in_a_template_is_only_shown() {
        let commented = PACKAGE.replace("          default: 1", "          default: 1 # was 2");
        let (fix, _) = fix_of(&commented, &expected()).unwrap();
        assert_eq!(fix.applicability, crate::edit::Applicability::DisplayOnly);
        let template = format!("#@ load(\"@ytt:data\", \"data\")\n{PACKAGE}");
        let (fix, _) = fix_of(&template, &expected()).unwrap();
        assert_eq!(fix.applicability, crate::edit::Applicability::DisplayOnly);
    }

    #[test]
    fn no_fix_for_flow_annotated_or_anchored_values() {
        let flow = "kind: Package\nspec:\n  valuesSchema:\n    openAPIv3: {type: object}\n";
        assert!(fix_of(flow, &expected()).is_none());
        let annotated = PACKAGE.replace("default: 1", "default: #@ data.values.replicas");
        assert!(fix_of(&annotated, &expected()).is_none());
        let anchored = PACKAGE.replace("replicas:\n", "replicas: &replicas\n");
        assert!(fix_of(&anchored, &expected()).is_none());
    }
}
