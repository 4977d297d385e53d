//! The shapes of Tekton's API types (`../data/shapes.json`, written by
//! `scripts/tekton-schemas.py` from the Go types of tektoncd/pipeline and
//! tektoncd/triggers): the JSON fields of each struct and the shape of each
//! field's value, and where the Kubernetes types Tekton embeds are found in
//! the bundled Kubernetes schemas. Read once, on first use.

use crate::check::kubernetes::schema::{Schema, Version};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

/// What a value may be, as Tekton's Go types decode it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Shape {
    /// A string, number or boolean: its type is not checked here.
    Scalar,
    /// Anything: a param value, a raw extension, a pod template, a status.
    Open,
    /// A struct of [`Shapes::types`].
    Struct(usize),
    List(Box<Shape>),
    /// A map of string keys to values of this shape (labels, properties).
    Map(Box<Shape>),
    /// A Kubernetes type, by index into [`Shapes::kubernetes`].
    Kubernetes(usize),
    /// A resource of its own (a TriggerTemplate's `resourcetemplates`),
    /// checked as the document its `apiVersion` and `kind` make it.
    Resource,
}

/// One Go struct: its JSON field names, sorted, with their shapes.
#[derive(Debug)]
pub(super) struct Type {
    /// As the data names it: `v1.PipelineTask`, `triggers.v1beta1.Param`.
    pub name: String,
    pub fields: Vec<(String, Shape)>,
}

impl Type {
    /// The Go type's own name, without its package (`PipelineTask`).
    pub fn short_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    /// The package its name starts with (`v1`, `triggers.v1beta1`).
    pub fn package(&self) -> &str {
        self.name
            .rsplit_once('.')
            .map_or("", |(package, _)| package)
    }

    /// The field `key` names, as encoding/json finds it: the exact name,
    /// else one equal to it but for ASCII case.
    pub fn field(&self, key: &str) -> Option<&Shape> {
        let exact = self
            .fields
            .binary_search_by(|(name, _)| name.as_str().cmp(key));
        match exact {
            Ok(at) => Some(&self.fields[at].1),
            Err(_) => (self.fields.iter())
                .find(|(name, _)| name.eq_ignore_ascii_case(key))
                .map(|(_, shape)| shape),
        }
    }

    pub fn names(&self) -> Vec<String> {
        self.fields.iter().map(|(name, _)| name.clone()).collect()
    }
}

/// A Kubernetes type Tekton embeds, and where the bundled schemas have it.
#[derive(Debug)]
pub(super) struct KubernetesType {
    /// `io.k8s.api.core.v1.Container`.
    pub name: String,
    /// A built-in kind (`v1`, `Pod`) and the path from it to the type
    /// (`spec.containers[]`).
    pub api_version: String,
    pub kind: String,
    pub path: String,
}

impl KubernetesType {
    pub fn short_name(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }
}

/// The whole data file, compiled.
#[derive(Debug)]
pub(super) struct Shapes {
    /// (group, version, kind) to the struct of the document.
    kinds: HashMap<(String, String, String), usize>,
    pub types: Vec<Type>,
    by_name: HashMap<String, usize>,
    pub kubernetes: Vec<KubernetesType>,
    /// The schema of each of `kubernetes` in the newest Kubernetes version,
    /// found on first use (None where the path leads nowhere).
    kubernetes_schemas: OnceLock<Vec<Option<&'static Schema>>>,
}

/// The file as the script writes it.
#[derive(Deserialize)]
struct DataFile {
    kinds: Vec<(String, String, String, String)>,
    kubernetes: BTreeMap<String, (String, String, String)>,
    types: BTreeMap<String, BTreeMap<String, String>>,
}

impl Shapes {
    /// The shipped data, read on first use.
    pub fn get() -> &'static Shapes {
        static SHAPES: OnceLock<Shapes> = OnceLock::new();
        SHAPES.get_or_init(|| Shapes::read(include_str!("../data/shapes.json")))
    }

    /// The shapes of `text`; data that does not read gives no kinds (so
    /// nothing is checked) rather than a failure. The tests read the
    /// shipped file.
    pub fn read(text: &str) -> Shapes {
        let file: DataFile = serde_json::from_str(text).unwrap_or(DataFile {
            kinds: Vec::new(),
            kubernetes: BTreeMap::new(),
            types: BTreeMap::new(),
        });
        let by_name: HashMap<String, usize> = (file.types.keys().enumerate())
            .map(|(index, name)| (name.clone(), index))
            .collect();
        let kubernetes: Vec<KubernetesType> = (file.kubernetes.into_iter())
            .map(|(name, (api_version, kind, path))| KubernetesType {
                name,
                api_version,
                kind,
                path,
            })
            .collect();
        let kubernetes_index: HashMap<&str, usize> = (kubernetes.iter().enumerate())
            .map(|(index, k)| (k.name.as_str(), index))
            .collect();
        let types = (file.types.iter())
            .map(|(name, fields)| Type {
                name: name.clone(),
                fields: (fields.iter())
                    .map(|(field, shape)| {
                        (field.clone(), parse(shape, &by_name, &kubernetes_index))
                    })
                    .collect(),
            })
            .collect();
        let kinds = (file.kinds.into_iter())
            .filter_map(|(group, version, kind, root)| {
                Some(((group, version, kind), *by_name.get(&root)?))
            })
            .collect();
        Shapes {
            kinds,
            types,
            by_name,
            kubernetes,
            kubernetes_schemas: OnceLock::new(),
        }
    }

    /// The struct of a document of `apiVersion` and `kind`, when Tekton
    /// serves that kind at that version.
    pub fn kind(&self, api_version: &str, kind: &str) -> Option<usize> {
        let (group, version) = api_version.split_once('/')?;
        let key = (group.to_string(), version.to_string(), kind.to_string());
        self.kinds.get(&key).copied()
    }

    pub fn type_named(&self, name: &str) -> Option<&Type> {
        self.by_name.get(name).map(|&index| &self.types[index])
    }

    /// The Kubernetes schema of `kubernetes[index]`.
    pub fn kubernetes_schema(&self, index: usize) -> Option<&'static Schema> {
        let found = self.kubernetes_schemas.get_or_init(|| {
            let schemas = Version::newest().schemas();
            (self.kubernetes.iter())
                .map(|k| find_kubernetes(schemas, k))
                .collect()
        });
        found.get(index).copied().flatten()
    }

    /// Every Kubernetes type of the data whose place is not found in the
    /// schemas of `version` (none, in data the script checked).
    #[cfg(test)]
    pub fn missing_kubernetes(&self, version: Version) -> Vec<&str> {
        (self.kubernetes.iter())
            .filter(|k| find_kubernetes(version.schemas(), k).is_none())
            .map(|k| k.name.as_str())
            .collect()
    }
}

/// A shape as the data writes it; a name the data does not define reads as
/// open (never in data the script wrote: a test reads every one).
fn parse(text: &str, types: &HashMap<String, usize>, kubernetes: &HashMap<&str, usize>) -> Shape {
    if let Some(inner) = text.strip_prefix("[]") {
        return Shape::List(Box::new(parse(inner, types, kubernetes)));
    }
    if let Some(inner) = text.strip_prefix("{}") {
        return Shape::Map(Box::new(parse(inner, types, kubernetes)));
    }
    if let Some(name) = text.strip_prefix("k8s:") {
        return kubernetes
            .get(name)
            .map_or(Shape::Open, |&i| Shape::Kubernetes(i));
    }
    match text {
        "" => Shape::Scalar,
        "*" => Shape::Open,
        "@" => Shape::Resource,
        name => types.get(name).map_or(Shape::Open, |&i| Shape::Struct(i)),
    }
}

/// Follow `k`'s path from its kind in `schemas`: each step a property, or
/// `[]` for a list's items.
fn find_kubernetes(
    schemas: &'static crate::check::kubernetes::schema::BuiltinSchemas,
    k: &KubernetesType,
) -> Option<&'static Schema> {
    let root = schemas.kind(&k.api_version, &k.kind)?;
    let mut schema = resolve(schemas, schemas.set.definition(root));
    let mut rest = k.path.as_str();
    while !rest.is_empty() {
        let (step, after) = match rest.find(['.', '[']) {
            Some(0) => match rest.strip_prefix("[]") {
                Some(after) => ("[]", after),
                None => (".", &rest[1..]),
            },
            Some(at) => (&rest[..at], &rest[at..]),
            None => (rest, ""),
        };
        rest = after;
        schema = match step {
            "." => continue,
            "[]" => schema.items.as_deref()?,
            name => schema.properties.as_ref()?.get(name)?,
        };
        schema = resolve(schemas, schema);
    }
    schema.properties.as_ref().map(|_| schema)
}

/// Follow references to the schema that says something.
pub(super) fn resolve(
    schemas: &'static crate::check::kubernetes::schema::BuiltinSchemas,
    mut schema: &'static Schema,
) -> &'static Schema {
    // A cycle of bare references would be a broken file: give up after a
    // few hops rather than loop.
    for _ in 0..16 {
        match schema.reference {
            Some(index) => schema = schemas.set.definition(index),
            None => break,
        }
    }
    schema
}
