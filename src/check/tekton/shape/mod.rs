//! Document shape (spec § 13): every field of a Tekton or Tekton Triggers
//! document checked against the Go types its version decodes into, as
//! Tekton's webhooks decode them (strictly: "json: unknown field"). The
//! Kubernetes types Tekton embeds (`env`, `volumes`, `securityContext`, …)
//! are checked against the bundled Kubernetes schemas of the newest
//! version. `data` reads the shapes; this file walks a document and reports
//! each unknown field at its key, with the nearest declared name and the
//! rename as an unsafe fix.
//!
//! Open, never reported inside: param and result values (they decode
//! themselves), raw extensions (a custom task's `spec`), `podTemplate`,
//! `status`, maps of values (labels, annotations), and Kubernetes fields
//! marked `x-kubernetes-preserve-unknown-fields`. A key equal to a field
//! but for ASCII case is that field: encoding/json matches names so, and
//! the defaulting webhook writes it back under its own name.

mod data;
#[cfg(test)]
mod tests;

use super::hints::hint;
use crate::check::kubernetes::schema::{
    AdditionalProperties, BuiltinSchemas, Schema, Type as K8sType, Version,
};
use crate::edit::Fix;
use crate::finding::Finding;
use crate::rules;
use crate::source::Sources;
use crate::yaml::node::text;
use crate::yaml::{MapItem, Node, ScalarStyle, ScalarValue, Value};
use data::{Shape, Shapes, Type, resolve};

/// How far an unknown key may be from the field a fix renames it to.
const MAX_EDITS: usize = 2;

/// Fields Tekton renamed between v1beta1 and v1, by the Go type that holds
/// them (`docs/migrating-v1beta1-to-v1.md`): (v1beta1 type, v1 type,
/// v1beta1 name, v1 name). The value keeps its type, so a rename is the
/// whole migration of the field.
const RENAMED_IN_V1: [(&str, &str, &str, &str); 11] = [
    ("Step", "Step", "resources", "computeResources"),
    ("Sidecar", "Sidecar", "resources", "computeResources"),
    (
        "StepTemplate",
        "StepTemplate",
        "resources",
        "computeResources",
    ),
    ("TaskRunSpec", "TaskRunSpec", "stepOverrides", "stepSpecs"),
    (
        "TaskRunSpec",
        "TaskRunSpec",
        "sidecarOverrides",
        "sidecarSpecs",
    ),
    (
        "TaskRunStepOverride",
        "TaskRunStepSpec",
        "resources",
        "computeResources",
    ),
    (
        "TaskRunSidecarOverride",
        "TaskRunSidecarSpec",
        "resources",
        "computeResources",
    ),
    (
        "PipelineTaskRunSpec",
        "PipelineTaskRunSpec",
        "stepOverrides",
        "stepSpecs",
    ),
    (
        "PipelineTaskRunSpec",
        "PipelineTaskRunSpec",
        "sidecarOverrides",
        "sidecarSpecs",
    ),
    (
        "PipelineTaskRunSpec",
        "PipelineTaskRunSpec",
        "taskServiceAccountName",
        "serviceAccountName",
    ),
    (
        "PipelineTaskRunSpec",
        "PipelineTaskRunSpec",
        "taskPodTemplate",
        "podTemplate",
    ),
];

/// Fields of a v1beta1 PipelineRun or ref that tekton.dev/v1 moved
/// elsewhere, by the Go type that held them: (type, field, what v1 has).
const MOVED_IN_V1: [(&str, &str, &str); 5] = [
    (
        "PipelineRunSpec",
        "serviceAccountName",
        "\"taskRunTemplate.serviceAccountName\"",
    ),
    (
        "PipelineRunSpec",
        "podTemplate",
        "\"taskRunTemplate.podTemplate\"",
    ),
    ("PipelineRunSpec", "timeout", "\"timeouts.pipeline\""),
    (
        "TaskRef",
        "bundle",
        "the bundles resolver (\"resolver: bundles\")",
    ),
    (
        "PipelineRef",
        "bundle",
        "the bundles resolver (\"resolver: bundles\")",
    ),
];

/// The findings of one document: none unless its `apiVersion` and `kind`
/// are a kind Tekton serves at that version.
pub(super) fn check(document: &Node, sources: &Sources) -> Vec<Finding> {
    let shapes = Shapes::get();
    let mut walk = Walk {
        shapes,
        kubernetes: Version::newest().schemas(),
        sources,
        document: String::new(),
        out: Vec::new(),
    };
    walk.resource(document, &mut String::new());
    walk.out
}

struct Walk<'a> {
    shapes: &'static Shapes,
    kubernetes: &'static BuiltinSchemas,
    sources: &'a Sources,
    /// The kind and version the fields belong to, for messages:
    /// `Pipeline tekton.dev/v1`.
    document: String,
    out: Vec<Finding>,
}

/// Where an unknown key stands: a Tekton struct, or a Kubernetes object
/// (named by the Tekton field's Kubernetes type and the path below it).
enum Owner<'s> {
    Tekton(&'s Type),
    Kubernetes {
        name: String,
        schema: &'static Schema,
    },
}

impl Walk<'_> {
    /// A document, or a resource a TriggerTemplate creates: checked as its
    /// kind when it is one the data has, else left alone.
    fn resource(&mut self, node: &Node, path: &mut String) {
        let (Some(api_version), Some(kind)) = (text(node, "apiVersion"), text(node, "kind")) else {
            return;
        };
        let Some(root) = self.shapes.kind(api_version, kind) else {
            return;
        };
        let outer = std::mem::replace(&mut self.document, format!("{kind} {api_version}"));
        self.value(node, &Shape::Struct(root), path);
        self.document = outer;
    }

    fn value(&mut self, node: &Node, shape: &Shape, path: &mut String) {
        match (shape, &node.value) {
            (Shape::Struct(index), Value::Map(items)) => {
                let ty = &self.shapes.types[*index];
                self.structure(items, ty, path);
            }
            (Shape::List(each), Value::Array(items)) => {
                for (index, item) in items.iter().enumerate() {
                    let length = path.len();
                    path.push_str(&format!("[{index}]"));
                    self.value(&item.value, each, path);
                    path.truncate(length);
                }
            }
            (Shape::Map(each), Value::Map(items)) => {
                for item in items {
                    let length = path.len();
                    push_field(path, &item.key.text);
                    self.value(&item.value, each, path);
                    path.truncate(length);
                }
            }
            (Shape::Kubernetes(index), _) => {
                if let Some(schema) = self.shapes.kubernetes_schema(*index) {
                    let name = self.shapes.kubernetes[*index].short_name().to_string();
                    self.kubernetes(node, schema, &name, path);
                }
            }
            (Shape::Resource, Value::Map(_)) => self.resource(node, path),
            // A scalar, an open value, or a value of another type than its
            // field's (a type error, not an unknown field).
            _ => {}
        }
    }

    fn structure(&mut self, items: &[MapItem], ty: &Type, path: &mut String) {
        for item in items {
            let key = item.key.text.as_str();
            if is_placeholder(key) {
                continue;
            }
            let length = path.len();
            push_field(path, key);
            match ty.field(key) {
                Some(shape) => self.value(&item.value, shape, path),
                None => self.unknown(item, items, &Owner::Tekton(ty), path),
            }
            path.truncate(length);
        }
    }

    /// A Kubernetes value against its schema, for unknown fields only
    /// (types and the rest are the `kubernetes/*` rules' business).
    fn kubernetes(&mut self, node: &Node, schema: &'static Schema, name: &str, path: &mut String) {
        let schema = resolve(self.kubernetes, schema);
        if schema.preserve_unknown_fields
            || schema.int_or_string
            || schema.format.as_deref() == Some("quantity")
        {
            return;
        }
        match &node.value {
            Value::Map(items) if is_object(schema) => {
                for item in items {
                    let key = item.key.text.as_str();
                    if is_placeholder(key) {
                        continue;
                    }
                    let length = path.len();
                    push_field(path, key);
                    let inner = format!("{name}.{key}");
                    match (kubernetes_field(schema, key), &schema.additional_properties) {
                        (Some(field), _) => self.kubernetes(&item.value, field, &inner, path),
                        (None, Some(AdditionalProperties::Schema(values))) => {
                            self.kubernetes(&item.value, values, &inner, path)
                        }
                        (None, Some(AdditionalProperties::Allowed(true))) => {}
                        // No properties: a free-form object.
                        (None, None) if schema.properties.is_none() => {}
                        (None, _) if schema.embedded_resource && is_resource_field(key) => {}
                        (None, _) => {
                            let owner = Owner::Kubernetes {
                                name: name.to_string(),
                                schema,
                            };
                            self.unknown(item, items, &owner, path);
                        }
                    }
                    path.truncate(length);
                }
            }
            Value::Array(items) => {
                let Some(each) = schema.items.as_deref() else {
                    return;
                };
                for (index, item) in items.iter().enumerate() {
                    let length = path.len();
                    path.push_str(&format!("[{index}]"));
                    self.kubernetes(&item.value, each, name, path);
                    path.truncate(length);
                }
            }
            _ => {}
        }
    }

    fn unknown(&mut self, item: &MapItem, siblings: &[MapItem], owner: &Owner, path: &str) {
        let key = item.key.text.as_str();
        let (owner_name, declared) = match owner {
            Owner::Tekton(ty) => (ty.short_name().to_string(), ty.names()),
            Owner::Kubernetes { name, schema } => (
                format!("Kubernetes {name}"),
                schema
                    .properties
                    .iter()
                    .flat_map(|p| p.keys().cloned())
                    .collect(),
            ),
        };
        let (help, target) = match owner {
            Owner::Tekton(ty) => match self.other_version(ty, key) {
                Some(found) => found,
                None => self.near(key, &declared),
            },
            Owner::Kubernetes { .. } => self.near(key, &declared),
        };
        let fix = target
            .filter(|target| {
                !siblings
                    .iter()
                    .any(|s| s.key.text.eq_ignore_ascii_case(target))
            })
            .filter(|target| self.fits(&item.value, owner, target))
            .and_then(|target| self.rename(item, &target));
        let message = format!(
            "unknown field \"{key}\" in {owner_name} ({})",
            self.document
        );
        let mut finding = Finding::new(&rules::tekton::UNKNOWN_FIELD, item.key_span, message)
            .with_label("unknown field")
            .with_path(path.to_string())
            .with_fix(fix);
        if let Some(help) = help {
            finding = finding.with_help(help);
        }
        self.out.push(finding);
    }

    /// The nearest declared field (the help), and the field a fix may
    /// rename the key to: the nearest, when it is the only one within
    /// [`MAX_EDITS`].
    fn near(&self, key: &str, declared: &[String]) -> (Option<String>, Option<String>) {
        let near = crate::suggest::did_you_mean(key, declared);
        let target = crate::suggest::only_within(key, declared, MAX_EDITS)
            .filter(|only| near.as_ref() == Some(*only))
            .cloned();
        (near.as_deref().map(hint), target)
    }

    /// When the key is a field of the same type in the other version of
    /// the API (v1 and v1beta1, or Triggers' v1beta1 and v1alpha1): what to
    /// say, and the field to rename it to when Tekton only renamed it.
    fn other_version(&self, ty: &Type, key: &str) -> Option<(Option<String>, Option<String>)> {
        let package = ty.package();
        let short = ty.short_name();
        for (old_type, new_type, old, new) in RENAMED_IN_V1 {
            let (here, there, written, wanted, version) = match package {
                "v1" => (new_type, "v1beta1", old, new, "tekton.dev/v1"),
                "v1beta1" => (old_type, "v1", new, old, "tekton.dev/v1beta1"),
                _ => continue,
            };
            if here == short && written == key {
                let help = format!(
                    "{version} names it \"{wanted}\" (\"{written}\" is its name in tekton.dev/{there})"
                );
                return Some((Some(help), Some(wanted.to_string())));
            }
        }
        let other = match package {
            "v1" => "v1beta1",
            "v1beta1" => "v1",
            "triggers.v1beta1" => "triggers.v1alpha1",
            "triggers.v1alpha1" => "triggers.v1beta1",
            _ => return None,
        };
        let there = self.shapes.type_named(&format!("{other}.{short}"))?;
        there.field(key)?;
        let moved = (MOVED_IN_V1.iter())
            .find(|(ty, field, _)| package == "v1" && *ty == short && *field == key);
        if let Some((_, _, instead)) = moved {
            let help =
                format!("\"{key}\" is a tekton.dev/v1beta1 field; tekton.dev/v1 has {instead}");
            return Some((Some(help), None));
        }
        let help = format!(
            "\"{key}\" is a field of {short} in {}, not in {}",
            api_version(other),
            api_version(package)
        );
        Some((Some(help), None))
    }

    /// Whether `node` has the shape of field `target` of `owner` (a map
    /// for a struct, a list for a list, a scalar for a scalar): a key
    /// renamed to a field of another shape was not misspelt.
    fn fits(&self, node: &Node, owner: &Owner, target: &str) -> bool {
        enum Wants {
            Map,
            List,
            Scalar,
            Anything,
        }
        let wants = match owner {
            Owner::Tekton(ty) => match ty.field(target) {
                Some(Shape::Struct(_) | Shape::Map(_) | Shape::Resource) => Wants::Map,
                Some(Shape::List(_)) => Wants::List,
                Some(Shape::Scalar) => Wants::Scalar,
                Some(Shape::Kubernetes(index)) => match self.shapes.kubernetes_schema(*index) {
                    Some(_) => Wants::Map,
                    None => Wants::Anything,
                },
                Some(Shape::Open) | None => Wants::Anything,
            },
            Owner::Kubernetes { schema, .. } => {
                match kubernetes_field(schema, target).map(|f| resolve(self.kubernetes, f)) {
                    Some(field) if field.int_or_string || field.format.is_some() => Wants::Anything,
                    Some(field) => match field.kind {
                        Some(K8sType::Object) => Wants::Map,
                        Some(K8sType::Array) => Wants::List,
                        Some(_) => Wants::Scalar,
                        None if field.properties.is_some() => Wants::Map,
                        None => Wants::Anything,
                    },
                    None => Wants::Anything,
                }
            }
        };
        match (&node.value, wants) {
            (_, Wants::Anything) => true,
            (Value::Scalar(scalar), _) if scalar.resolved == ScalarValue::Null => true,
            (Value::Map(_), Wants::Map) => true,
            (Value::Array(_), Wants::List) => true,
            (Value::Scalar(_), Wants::Scalar) => true,
            _ => false,
        }
    }

    /// The fix renaming the key of `item` to `target`, when the key is
    /// written as it reads (plain, or quoted without escapes).
    fn rename(&self, item: &MapItem, target: &str) -> Option<Fix> {
        let key = item.key.text.as_str();
        let file = self.sources.get(item.key_span.file);
        let raw = file.text.get(item.key_span.range())?;
        let literal = match item.key.style {
            ScalarStyle::Plain => raw == key,
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                raw.len() >= 2 && raw.get(1..raw.len() - 1) == Some(key)
            }
            _ => false,
        };
        if !literal || !target.chars().all(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        let edit = crate::check::edits::rename_once(self.sources, item.key_span, key, target)?;
        Fix::unsafe_(format!("rename \"{key}\" to \"{target}\""), vec![edit])
    }
}

/// The property of a Kubernetes object `key` names, exactly or but for
/// ASCII case (as encoding/json, which Tekton's webhook decodes with).
fn kubernetes_field<'s>(schema: &'s Schema, key: &str) -> Option<&'s Schema> {
    let properties = schema.properties.as_ref()?;
    properties.get(key).or_else(|| {
        (properties.iter())
            .find(|(name, _)| name.eq_ignore_ascii_case(key))
            .map(|(_, field)| field)
    })
}

/// Whether a map can be checked against `schema` as an object.
fn is_object(schema: &Schema) -> bool {
    schema.kind == Some(K8sType::Object)
        || schema.properties.is_some()
        || schema.additional_properties.is_some()
}

/// The fields every embedded resource has beside its schema's own.
fn is_resource_field(name: &str) -> bool {
    matches!(name, "apiVersion" | "kind" | "metadata")
}

/// A key a later tool fills in (a TriggerTemplate's `$(tt.params.x)`, a
/// Pipelines-as-Code `{{ x }}`): what it will be is unknown here.
fn is_placeholder(key: &str) -> bool {
    key.contains("$(") || key.contains("{{")
}

/// The `apiVersion` of a package of the data (`triggers.v1beta1`).
fn api_version(package: &str) -> String {
    match package.strip_prefix("triggers.") {
        Some(version) => format!("triggers.tekton.dev/{version}"),
        None => format!("tekton.dev/{package}"),
    }
}

/// `.name` after a path, or `name` at its start.
fn push_field(path: &mut String, name: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    path.push_str(name);
}
