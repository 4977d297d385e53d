//! Custom resources: the kinds `CustomResourceDefinition`s define (in the
//! tree, in a ytt package's rendered output, in the configuration's
//! `kubernetes.schemas`), each version with its `openAPIV3Schema`, and JSON
//! Schemas of kinds as kubeconform reads them. Both become [`Schema`]s in a
//! [`CrdSet`] the validator walks like the built-in ones.

use super::schema::{Schema, SchemaSet};
use crate::finding::Finding;
use crate::rules;
use crate::source::Span;
use crate::yaml::{Node, ScalarValue, Value, child};
use serde_json::Value as Json;
use std::collections::HashMap;

/// One kind a CRD (or a JSON Schema file) defines.
#[derive(Debug)]
pub struct CrdKind {
    pub group: String,
    /// As the definition spells it (`VirtualMachine`).
    pub kind: String,
    pub versions: Vec<CrdVersion>,
    /// The definition, for a related location.
    pub at: Span,
    /// An `apiextensions.k8s.io/v1beta1` CRD that keeps unknown fields
    /// (`preserveUnknownFields` is true unless set false): the API server
    /// neither prunes nor refuses them.
    pub keeps_unknown_fields: bool,
    /// Defined by a JSON Schema file, not a CRD.
    pub from_json_schema: bool,
}

#[derive(Debug)]
pub struct CrdVersion {
    pub name: String,
    pub served: bool,
    /// The definition of the version's schema in the set; None when the
    /// CRD gives none (its resources are then not checked).
    pub schema: Option<u32>,
    /// The version has the status subresource (`subresources: {status:
    /// {}}`): the API server drops a resource's `status` on create and
    /// update instead of validating it. A JSON Schema does not say, so its
    /// kinds are taken to have it (their status is not judged).
    pub status_subresource: bool,
}

/// What a set of definitions says about an `apiVersion` and `kind`.
pub enum CrdLookup<'a> {
    /// Checked against this version's definition.
    Schema(&'a CrdKind, &'a CrdVersion, u32),
    /// The kind is defined, and the version is not served.
    NotServed(&'a CrdKind),
    /// Defined without a schema, or twice, differently: not checked.
    Unchecked,
}

/// The kinds of a set of CRDs and JSON Schemas, with their definitions.
pub struct CrdSet {
    /// By group and kind in lower case (JSON Schema files name kinds in
    /// lower case).
    kinds: HashMap<(String, String), CrdKind>,
    /// Kinds defined twice, differently: which one the cluster has is not
    /// known, so neither is used.
    ambiguous: Vec<(String, String)>,
    pub set: SchemaSet,
}

/// Builds a [`CrdSet`], collecting the problems of what it is given.
#[derive(Default)]
pub struct CrdSetBuilder {
    /// Each kind with the digest of its versions' schemas.
    kinds: HashMap<(String, String), (CrdKind, u64)>,
    ambiguous: Vec<(String, String)>,
    definitions: Vec<Schema>,
    pub problems: Vec<Finding>,
}

/// A kind read from a CRD or a JSON Schema, before it joins a set: reading
/// (converting and compiling the schemas) is the costly part, done for
/// many files at once.
pub struct ReadKind {
    /// Its versions' schemas are indices into `schemas`.
    crd: CrdKind,
    schemas: Vec<Schema>,
    /// Of the versions and their schemas as written, to tell a kind
    /// defined twice the same way from one defined twice differently.
    digest: u64,
    problems: Vec<Finding>,
}

/// Whether a document is a `CustomResourceDefinition`.
pub fn is_crd(document: &Node) -> bool {
    crate::yaml::string(document, "kind") == Some("CustomResourceDefinition")
        && crate::yaml::string(document, "apiVersion")
            .is_some_and(|api| api.starts_with("apiextensions.k8s.io/"))
}

fn crd_problem(at: Span, message: impl Into<String>) -> Finding {
    Finding::new(&rules::kubernetes::CRD, at, message)
}

/// The kind a CRD document defines; one confvet cannot read is a
/// `kubernetes/crd` warning and defines nothing.
pub fn read_crd(document: &Node) -> Result<ReadKind, Box<Finding>> {
    let at = document.span;
    let spec = child(document, "spec")
        .ok_or_else(|| Box::new(crd_problem(at, "the CustomResourceDefinition has no spec")))?;
    let (Some(group), Some(kind)) = (
        string(spec, "group"),
        child(spec, "names").and_then(|names| string(names, "kind")),
    ) else {
        return Err(Box::new(crd_problem(
            at,
            "the CustomResourceDefinition names no spec.group or spec.names.kind",
        )));
    };
    let is_v1beta1 =
        string(document, "apiVersion").as_deref() == Some("apiextensions.k8s.io/v1beta1");
    // v1beta1: one schema (and one set of subresources) for every
    // version, and one version may be named alone.
    let shared = child(spec, "validation").and_then(|v| child(v, "openAPIV3Schema"));
    let shared_status = has_status_subresource(spec);
    // (name, served, schema, status subresource) of each version listed.
    let mut listed: Vec<(String, bool, Option<&Node>, bool)> = Vec::new();
    if let Some(Value::Array(items)) = child(spec, "versions").map(|v| &v.value) {
        for version in items.iter().map(|i| &i.value) {
            let Some(name) = string(version, "name") else {
                continue;
            };
            let served = !matches!(
                child(version, "served")
                    .and_then(Node::as_scalar)
                    .map(|s| &s.resolved),
                Some(ScalarValue::Bool(false))
            );
            let own = child(version, "schema").and_then(|s| child(s, "openAPIV3Schema"));
            let status = has_status_subresource(version) || shared_status;
            listed.push((name, served, own.or(shared), status));
        }
    }
    if listed.is_empty()
        && let Some(name) = string(spec, "version")
    {
        listed.push((name, true, shared, shared_status));
    }
    let keeps_unknown_fields = is_v1beta1
        && !matches!(
            child(spec, "preserveUnknownFields")
                .and_then(Node::as_scalar)
                .map(|s| &s.resolved),
            Some(ScalarValue::Bool(false))
        );
    let mut read = ReadKind {
        crd: CrdKind {
            group,
            kind,
            versions: Vec::new(),
            // The kind's name in the definition, where a reader looks.
            at: child(spec, "names")
                .and_then(|names| child(names, "kind"))
                .map_or(at, |kind| kind.span),
            keeps_unknown_fields,
            from_json_schema: false,
        },
        schemas: Vec::new(),
        digest: 0,
        problems: Vec::new(),
    };
    let mut digest = crate::finding::Fnv64::new();
    for (name, served, schema, status_subresource) in listed {
        digest.write(&format!("{name} {served} {status_subresource}"));
        let schema = schema.and_then(|node| {
            let json = crate::yaml::emit::to_json(node);
            digest.write(&json.to_string());
            read.definition(json, node.span, &name)
        });
        read.crd.versions.push(CrdVersion {
            name,
            served,
            schema,
            status_subresource,
        });
    }
    read.digest = digest.0;
    Ok(read)
}

/// The kind a JSON Schema defines, as kubeconform reads one: named by its
/// `x-kubernetes-group-version-kind`, else by its path
/// `<group>/<kind>_<version>.json` (the layout of the CRDs catalog
/// kubeconform points to).
pub fn read_json_schema(
    path: &std::path::Path,
    json: Json,
    at: Span,
) -> Result<ReadKind, Box<Finding>> {
    let named = json
        .get("x-kubernetes-group-version-kind")
        .and_then(Json::as_array)
        .and_then(|all| all.first())
        .and_then(|gvk| {
            let field = |key| gvk.get(key).and_then(Json::as_str).map(str::to_string);
            Some((field("group")?, field("version")?, field("kind")?))
        })
        .or_else(|| {
            let stem = path.file_stem()?.to_str()?;
            let (kind, version) = stem.rsplit_once('_')?;
            let group = path.parent()?.file_name()?.to_str()?;
            group
                .contains('.')
                .then(|| (group.to_string(), version.to_string(), kind.to_string()))
        });
    let Some((group, version, kind)) = named else {
        return Err(Box::new(crd_problem(
            at,
            "a JSON Schema that names no kind: give it `x-kubernetes-group-version-kind`, or name the file `<group>/<kind>_<version>.json`",
        )));
    };
    let mut digest = crate::finding::Fnv64::new();
    digest.write(&json.to_string());
    let mut read = ReadKind {
        crd: CrdKind {
            group,
            kind,
            versions: Vec::new(),
            at,
            keeps_unknown_fields: false,
            from_json_schema: true,
        },
        schemas: Vec::new(),
        digest: digest.0,
        problems: Vec::new(),
    };
    let schema = read.definition(json, at, &version);
    read.crd.versions.push(CrdVersion {
        name: version,
        served: true,
        schema,
        status_subresource: true,
    });
    Ok(read)
}

impl ReadKind {
    /// The API group of the kind.
    pub fn group(&self) -> &str {
        &self.crd.group
    }

    /// The kind, in lower case (as JSON Schema files name it).
    pub fn kind_in_lower_case(&self) -> String {
        self.crd.kind.to_lowercase()
    }

    /// This kind as read from a document parsed alone, its spans moved to
    /// where the document is in its file.
    pub fn moved_by(mut self, offset: usize) -> ReadKind {
        self.crd.at = moved(self.crd.at, offset);
        for problem in &mut self.problems {
            problem.span = moved(problem.span, offset);
        }
        self
    }

    /// A version's schema as a definition; None (and a warning) when it
    /// does not read as one.
    fn definition(&mut self, mut json: Json, at: Span, version: &str) -> Option<u32> {
        normalize(&mut json);
        if self.crd.from_json_schema {
            // JSON Schema reads an object schema without properties as any
            // object, where a CRD's structural schema keeps no field.
            free_bare_objects(&mut json);
        }
        match serde_json::from_value::<Schema>(json) {
            Ok(mut schema) => {
                // The API server adds `apiVersion`, `kind` and `metadata` to
                // every custom resource's schema.
                schema.embedded_resource = true;
                self.schemas.push(schema);
                u32::try_from(self.schemas.len() - 1).ok()
            }
            Err(error) => {
                self.problems.push(crd_problem(
                    at,
                    format!(
                        "the schema of {} {version} cannot be read ({error}); its resources are not checked",
                        self.crd.kind
                    ),
                ));
                None
            }
        }
    }
}

impl CrdSetBuilder {
    /// Add the kind a CRD document defines (see [`read_crd`]).
    pub fn add_crd(&mut self, document: &Node) {
        self.add(read_crd(document));
    }

    /// Add a kind read, or the problem of reading it; one defined again,
    /// differently, is used by neither.
    pub fn add(&mut self, read: Result<ReadKind, Box<Finding>>) {
        let ReadKind {
            mut crd,
            schemas,
            digest,
            problems,
        } = match read {
            Ok(read) => read,
            Err(problem) => return self.problems.push(*problem),
        };
        self.problems.extend(problems);
        let key = (crd.group.clone(), crd.kind.to_lowercase());
        match self.kinds.get(&key) {
            Some((_, known)) if *known == digest => {}
            Some(_) => self.ambiguous.push(key),
            None => {
                let offset = self.definitions.len() as u32;
                for version in &mut crd.versions {
                    version.schema = version.schema.map(|index| index + offset);
                }
                self.definitions.extend(schemas);
                self.kinds.insert(key, (crd, digest));
            }
        }
    }

    pub fn build(self) -> (CrdSet, Vec<Finding>) {
        let set = CrdSet {
            kinds: self
                .kinds
                .into_iter()
                .map(|(key, (crd, _))| (key, crd))
                .collect(),
            ambiguous: self.ambiguous,
            set: SchemaSet::compiled(self.definitions, true).structural(),
        };
        (set, self.problems)
    }
}

impl CrdSet {
    /// What this set says about `apiVersion` and `kind`; None when it does
    /// not define the kind.
    pub fn lookup(&self, api_version: &str, kind: &str) -> Option<CrdLookup<'_>> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let key = (group.to_string(), kind.to_lowercase());
        if self.ambiguous.contains(&key) {
            return Some(CrdLookup::Unchecked);
        }
        let crd = self.kinds.get(&key)?;
        Some(
            match crd.versions.iter().find(|v| v.name == version && v.served) {
                Some(
                    served @ CrdVersion {
                        schema: Some(index),
                        ..
                    },
                ) => CrdLookup::Schema(crd, served, *index),
                Some(_) => CrdLookup::Unchecked,
                None => CrdLookup::NotServed(crd),
            },
        )
    }
}

/// A JSON Schema made what [`Schema`] reads: `type: [string, "null"]`
/// becomes `nullable`, a `$ref` to a name (which a CRD never has) and
/// keywords of later JSON Schema drafts are dropped (each then accepts
/// anything rather than failing the whole schema).
fn normalize(json: &mut Json) {
    let Some(map) = json.as_object_mut() else {
        return;
    };
    if let Some(Json::Array(types)) = map.get("type") {
        let nullable = types.iter().any(|t| t == "null");
        let named: Vec<Json> = types.iter().filter(|t| *t != "null").cloned().collect();
        match named.as_slice() {
            [one] => {
                map.insert("type".into(), one.clone());
            }
            _ => {
                map.remove("type");
            }
        }
        if nullable {
            map.insert("nullable".into(), Json::Bool(true));
        }
    }
    // The API server checks no integer width of a custom resource
    // (controller-gen writes `int32` for a Go `uint32`).
    if map
        .get("format")
        .and_then(Json::as_str)
        .is_some_and(|f| matches!(f, "int32" | "int64" | "float" | "double"))
    {
        map.remove("format");
    }
    if map.get("$ref").is_some_and(|r| !r.is_u64()) {
        map.remove("$ref");
    }
    for bound in ["exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(value) = map.get(bound).filter(|v| v.is_number()).cloned() {
            let limit = if bound == "exclusiveMinimum" {
                "minimum"
            } else {
                "maximum"
            };
            map.insert(limit.into(), value);
            map.insert(bound.into(), Json::Bool(true));
        }
    }
    if map.get("items").is_some_and(|items| !items.is_object()) {
        map.remove("items");
    }
    if map.get("required").is_some_and(|r| !r.is_array()) {
        map.remove("required");
    }
    for key in ["properties", "patternProperties", "definitions", "$defs"] {
        if let Some(Json::Object(children)) = map.get_mut(key) {
            children.values_mut().for_each(normalize);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(child) = map.get_mut(key) {
            normalize(child);
        }
    }
}

/// Whether a CRD version (or a v1beta1 CRD's spec) declares the status
/// subresource: `subresources.status` is there, `{}` as it always is.
fn has_status_subresource(node: &Node) -> bool {
    child(node, "subresources")
        .and_then(|subresources| child(subresources, "status"))
        .is_some_and(|status| {
            !matches!(
                status.as_scalar().map(|s| &s.resolved),
                Some(ScalarValue::Null)
            )
        })
}

/// Make every object schema of a JSON Schema that declares no fields
/// (`type: object` alone) keep unknown fields, as JSON Schema reads it.
fn free_bare_objects(json: &mut Json) {
    let Some(map) = json.as_object_mut() else {
        return;
    };
    let bare = map.get("type").and_then(Json::as_str) == Some("object")
        && !map.contains_key("properties")
        && !map.contains_key("additionalProperties");
    if bare {
        map.insert(
            "x-kubernetes-preserve-unknown-fields".into(),
            Json::Bool(true),
        );
    }
    for key in ["properties", "patternProperties", "definitions", "$defs"] {
        if let Some(Json::Object(children)) = map.get_mut(key) {
            children.values_mut().for_each(free_bare_objects);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = map.get_mut(key) {
            free_bare_objects(child);
        }
    }
}

/// A non-empty string of map `node` under `key`.
fn string(node: &Node, key: &str) -> Option<String> {
    crate::yaml::string(node, key)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

/// A span of a document parsed alone, where it is in its file.
pub(super) fn moved(span: Span, offset: usize) -> Span {
    let offset = u32::try_from(offset).unwrap_or(u32::MAX);
    Span {
        file: span.file,
        start: span.start.saturating_add(offset),
        end: span.end.saturating_add(offset),
    }
}
