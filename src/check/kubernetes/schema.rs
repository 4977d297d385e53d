//! The schemas of Kubernetes kinds: the built-in definitions of each
//! supported Kubernetes minor version, shipped in `data/` (see its README
//! and `scripts/kubernetes-schemas.py`), the kinds of KubeVirt and Carvel
//! shipped beside them (`data/bundled.json`, `scripts/bundled-schemas.py`),
//! and the compiled form the validator walks. A file is read the first time
//! a document it may know is checked, and each definition is compiled the
//! first time a document reaches it; both are kept for the rest of the run
//! and shared by all threads.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{LazyLock, OnceLock};

/// One node of an OpenAPI v3 schema, with what validation reads and nothing
/// else (descriptions and defaults are dropped when the data is made).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct Schema {
    /// Another definition of the same set, by index: the whole of this
    /// node (the data keeps no constraint beside a reference).
    #[serde(rename = "$ref")]
    pub reference: Option<u32>,
    #[serde(rename = "type")]
    pub kind: Option<Type>,
    pub properties: Option<BTreeMap<String, Schema>>,
    pub required: Vec<String>,
    #[serde(rename = "enum")]
    pub allowed: Option<Vec<serde_json::Value>>,
    pub items: Option<Box<Schema>>,
    #[serde(rename = "additionalProperties")]
    pub additional_properties: Option<AdditionalProperties>,
    pub format: Option<String>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    #[serde(rename = "exclusiveMinimum")]
    pub exclusive_minimum: bool,
    #[serde(rename = "exclusiveMaximum")]
    pub exclusive_maximum: bool,
    #[serde(rename = "minLength")]
    pub min_length: Option<u64>,
    #[serde(rename = "maxLength")]
    pub max_length: Option<u64>,
    pub pattern: Option<Pattern>,
    #[serde(rename = "minItems")]
    pub min_items: Option<u64>,
    #[serde(rename = "maxItems")]
    pub max_items: Option<u64>,
    #[serde(rename = "minProperties")]
    pub min_properties: Option<u64>,
    #[serde(rename = "maxProperties")]
    pub max_properties: Option<u64>,
    pub nullable: bool,
    #[serde(rename = "x-kubernetes-int-or-string")]
    pub int_or_string: bool,
    #[serde(rename = "x-kubernetes-preserve-unknown-fields")]
    pub preserve_unknown_fields: bool,
    #[serde(rename = "x-kubernetes-embedded-resource")]
    pub embedded_resource: bool,
    #[serde(rename = "x-kubernetes-list-type")]
    pub list_type: Option<String>,
    #[serde(rename = "x-kubernetes-list-map-keys")]
    pub list_map_keys: Vec<String>,
}

/// The JSON types a schema can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Type {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
}

impl Type {
    pub fn name(self) -> &'static str {
        match self {
            Type::Object => "object",
            Type::Array => "array",
            Type::String => "string",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::Boolean => "boolean",
        }
    }
}

/// A `pattern`, compiled the first time a value is matched against it and
/// kept with its schema for the rest of the run.
#[derive(Debug, Deserialize)]
#[serde(from = "String")]
pub struct Pattern {
    pub source: String,
    compiled: OnceLock<Option<regex::Regex>>,
}

impl From<String> for Pattern {
    fn from(source: String) -> Pattern {
        Pattern {
            source,
            compiled: OnceLock::new(),
        }
    }
}

impl Pattern {
    /// The compiled pattern; `None` when it does not compile here (then
    /// nothing is said about the value).
    pub fn regex(&self) -> Option<&regex::Regex> {
        self.compiled
            .get_or_init(|| regex::Regex::new(&self.source).ok())
            .as_ref()
    }
}

/// `additionalProperties`: allowed or not, or the schema of every value.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum AdditionalProperties {
    Allowed(bool),
    Schema(Box<Schema>),
}

/// Definitions that refer to each other by index, each compiled on first
/// use.
pub struct SchemaSet {
    raw: Vec<&'static RawValue>,
    compiled: Vec<OnceLock<Schema>>,
    /// Whether documents are decoded into Go structs, as the built-in kinds
    /// are: `null` is then the zero value of any field, never an error.
    pub null_is_zero: bool,
    /// Whether these are custom resources' structural schemas, which the
    /// API server applies itself: an object schema without properties
    /// keeps no field (it is pruned, and refused under strict field
    /// validation), and a quantity is matched against controller-gen's
    /// pattern. A built-in kind's object without properties is free-form
    /// (`RawExtension`), and its quantities are decoded by apimachinery.
    pub structural: bool,
}

impl SchemaSet {
    /// The definition at `index`; an index the data does not have (never
    /// in data the script wrote) reads as an empty schema, which accepts
    /// anything.
    pub fn definition(&self, index: u32) -> &Schema {
        static ANYTHING: LazyLock<Schema> = LazyLock::new(Schema::default);
        let index = index as usize;
        match self.compiled.get(index) {
            Some(slot) => slot.get_or_init(|| {
                // The data is ours and checked by the tests: a definition
                // that does not read accepts anything rather than failing.
                self.raw
                    .get(index)
                    .and_then(|raw| serde_json::from_str(raw.get()).ok())
                    .unwrap_or_default()
            }),
            None => &ANYTHING,
        }
    }

    /// The definitions whose data does not read as a schema (none, in
    /// data the script wrote).
    #[cfg(test)]
    pub(super) fn unreadable_definitions(&self) -> Vec<usize> {
        (self.raw.iter().enumerate())
            .filter(|(_, raw)| serde_json::from_str::<Schema>(raw.get()).is_err())
            .map(|(index, _)| index)
            .collect()
    }

    /// A set of schemas compiled already (a CRD's versions, a test's).
    pub fn compiled(definitions: Vec<Schema>, null_is_zero: bool) -> SchemaSet {
        SchemaSet {
            raw: Vec::new(),
            compiled: definitions.into_iter().map(OnceLock::from).collect(),
            null_is_zero,
            structural: false,
        }
    }

    /// This set, read as custom resources' structural schemas (see
    /// [`SchemaSet::structural`]).
    pub fn structural(mut self) -> SchemaSet {
        self.structural = true;
        self
    }
}

/// The built-in kinds of one Kubernetes minor version (or the bundled
/// kinds).
pub struct BuiltinSchemas {
    pub set: SchemaSet,
    /// (group, version, kind) to the definition of its top-level object.
    kinds: HashMap<(String, String, String), u32>,
    /// The (group, kind) pairs served with the status subresource, when
    /// the data lists them (the bundled kinds); None for the built-in
    /// kinds, where every kind with a `status` has it or computes its
    /// status itself (see [`BuiltinSchemas::resets_status`]).
    status_subresource: Option<HashSet<(String, String)>>,
}

impl BuiltinSchemas {
    /// The definition of `apiVersion` (`apps/v1`, `v1`) and `kind`, if this
    /// version serves it.
    pub fn kind(&self, api_version: &str, kind: &str) -> Option<u32> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        self.kinds
            .get(&(group.to_string(), version.to_string(), kind.to_string()))
            .copied()
    }

    /// Whether the API server drops a document's `status` on create and
    /// update rather than validating it: the kind has the status
    /// subresource. Every built-in kind with a `status` does, in the
    /// OpenAPI of 1.35 (paths `.../{name}/status`), except those that are
    /// no stored resource: the reviews (`TokenReview`,
    /// `SubjectAccessReview` and the like), whose status the server
    /// computes and writes over the request's, and `Scale`, `TokenRequest`
    /// and `Status`, which no manifest creates.
    pub fn resets_status(&self, api_version: &str, kind: &str) -> bool {
        let group = api_version.split_once('/').map_or("", |(group, _)| group);
        self.status_subresource
            .as_ref()
            .is_none_or(|kinds| kinds.contains(&(group.to_string(), kind.to_string())))
    }

    /// How many kinds this version serves.
    pub fn kind_count(&self) -> usize {
        self.kinds.len()
    }
}

/// The file `scripts/kubernetes-schemas.py` (or `bundled-schemas.py`)
/// writes.
#[derive(Deserialize)]
struct DataFile {
    kinds: Vec<(String, String, String, u32)>,
    /// (group, kind) of the kinds with the status subresource, where the
    /// file lists them (`bundled.json`).
    #[serde(default)]
    status_subresource: Option<Vec<(String, String)>>,
    #[serde(borrow)]
    definitions: Vec<&'static RawValue>,
}

/// The supported versions, oldest first, with their data.
const DATA: [(&str, &str); 3] = [
    ("1.35", include_str!("data/1.35.json")),
    ("1.36", include_str!("data/1.36.json")),
    ("1.37", include_str!("data/1.37.json")),
];

/// A Kubernetes minor version confvet has the schemas of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Version(usize);

/// A version is keyed by its name: the index is this build's.
impl confvet_key::Key for Version {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        out.text(self.name());
    }
}

impl Version {
    /// Every supported version, oldest first.
    pub fn all() -> impl Iterator<Item = Version> {
        (0..DATA.len()).map(Version)
    }

    /// The newest supported version, the default.
    pub fn newest() -> Version {
        Version(DATA.len() - 1)
    }

    /// `1.36` (a patch, `1.36.2`, or a leading `v` is accepted).
    pub fn parse(text: &str) -> Option<Version> {
        let text = text.strip_prefix('v').unwrap_or(text);
        let minor = match text.match_indices('.').nth(1) {
            Some((at, _)) => &text[..at],
            None => text,
        };
        DATA.iter()
            .position(|(name, _)| *name == minor)
            .map(Version)
    }

    pub fn name(self) -> &'static str {
        DATA[self.0].0
    }

    /// This version's schemas, read on first use.
    pub fn schemas(self) -> &'static BuiltinSchemas {
        static LOADED: [OnceLock<BuiltinSchemas>; DATA.len()] =
            [const { OnceLock::new() }; DATA.len()];
        LOADED[self.0].get_or_init(|| load(DATA[self.0].1))
    }
}

/// The kinds confvet ships beside the built-in ones, whatever the
/// Kubernetes version: KubeVirt's `VirtualMachine` and
/// `VirtualMachineInstance` (`kubevirt.io` `v1`, `v1alpha3`), Carvel's
/// `Package` and `PackageMetadata` (`data.packaging.carvel.dev`),
/// `PackageInstall` and `PackageRepository` (`packaging.carvel.dev`) and
/// `App` (`kappctrl.k14s.io`), all `v1alpha1`; read on first use (see
/// `scripts/bundled-schemas.py`).
///
/// `null_is_zero` holds for them too: the API server prunes `null` from a
/// custom resource's field that is not `nullable` rather than refusing it,
/// and Carvel's aggregated API decodes `Package`s into Go structs.
///
/// `structural` holds as well: they are CRDs' schemas (for `Package` and
/// `PackageMetadata`, those of the CRDs that store them, made from the Go
/// types the aggregated API decodes, where an object without fields keeps
/// none either).
pub fn bundled() -> &'static BuiltinSchemas {
    static BUNDLED: OnceLock<BuiltinSchemas> = OnceLock::new();
    BUNDLED.get_or_init(|| {
        let mut schemas = load(include_str!("data/bundled.json"));
        schemas.set.structural = true;
        schemas
    })
}

fn load(text: &'static str) -> BuiltinSchemas {
    // Shipped data, read by the tests of every version: it always parses.
    let file: DataFile = serde_json::from_str(text).unwrap_or(DataFile {
        kinds: Vec::new(),
        status_subresource: None,
        definitions: Vec::new(),
    });
    let compiled = file.definitions.iter().map(|_| OnceLock::new()).collect();
    BuiltinSchemas {
        set: SchemaSet {
            raw: file.definitions,
            compiled,
            null_is_zero: true,
            structural: false,
        },
        kinds: file
            .kinds
            .into_iter()
            .map(|(group, version, kind, index)| ((group, version, kind), index))
            .collect(),
        status_subresource: file
            .status_subresource
            .map(|kinds| kinds.into_iter().collect()),
    }
}
