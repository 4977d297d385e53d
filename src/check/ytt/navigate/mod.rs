//! Hover, definition and completion in ytt files (see `crate::navigate`):
//! data values (in data-values and schema files, and `data.values.x.y` in
//! code) answered from the package's schema and final values, `load`ed
//! files and functions, and ytt's annotation names.
//!
//! - `package.rs`: the document's package, found through the workspace memo
//!   and evaluated as the lint does (schema and final values).
//! - `code.rs`: the Starlark of a file read as text (dotted names, loads,
//!   defs).
//! - `facts.rs`: what is said about one data value.
//! - `annotations.rs`: the annotation names.

mod annotations;
mod code;
mod facts;
mod package;

#[cfg(test)]
mod tests;

use self::code::{Flavor, Load};
use self::facts::{ITEMS, Origins};
use super::schema::{SchemaType, TypeKind};
use crate::navigate::{Completion, CompletionKind, Context, Hover, Navigator};
use crate::source::{FileId, SourceFile, Span};
use crate::yaml::{Annotated, Node, Value};
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// The navigator of the document, when it is a ytt file.
pub fn navigator(cx: &Context) -> Option<Box<dyn Navigator>> {
    let (flavor, is_ytt_yaml) = claims(cx)?;
    let text = cx.sources.get(cx.file).text.clone();
    let package = package::evaluate(cx, flavor == Flavor::Yaml, is_ytt_yaml)?;
    let own_id = package.file(cx.path).map(|f| f.id);
    // Spans in the document as read with its package name it by the id
    // the server knows.
    let in_document = |span: Span| {
        if Some(span.file) == own_id {
            Span::new(cx.file, span.start as usize, span.end as usize)
        } else {
            span
        }
    };
    let in_schema = |span: Span| package.in_schema(span);
    let origins = Origins {
        sources: cx.sources,
        root: &package.root,
        in_schema: &in_schema,
    };
    let mut values = HashMap::new();
    if let Some(schema) = &package.schema {
        collect_facts(
            schema,
            &mut Vec::new(),
            package.values.as_ref(),
            &origins,
            &in_document,
            &mut values,
        );
    }
    let keys = package
        .file(cx.path)
        .and_then(|f| f.parsed.as_ref().ok())
        .map(document_keys)
        .unwrap_or_default();
    let loads = code::loads(&text, flavor);
    let dir = cx.path.parent().unwrap_or(cx.root);
    let loaded = loads
        .iter()
        .map(|load| loaded_file(cx, (dir, &package.root), &load.module.text))
        .collect();
    Some(Box::new(YttNavigator {
        file: cx.file,
        flavor,
        defs: code::defs(&text, flavor),
        reads_data: code::loads_data_module(&loads),
        text,
        values,
        keys,
        loads,
        loaded,
    }))
}

/// Whether the document is ytt's to navigate: its flavor, and whether it
/// is YAML with templating.
fn claims(cx: &Context) -> Option<(Flavor, bool)> {
    let flavor = flavor_of(cx.path)?;
    let text = &cx.sources.get(cx.file).text;
    let is_ytt_yaml = flavor == Flavor::Yaml
        && crate::discover::classify(text) == Some(crate::discover::System::Ytt);
    match flavor {
        Flavor::Yaml if !is_ytt_yaml => None,
        Flavor::Text if !text.contains("(@") => None,
        _ => Some((flavor, is_ytt_yaml)),
    }
}

/// Keep the workspace's packages in the memo, as the document's navigator
/// would, without evaluating the document's package.
pub fn warm(cx: &Context) {
    if claims(cx).is_some() {
        package::packages(cx);
    }
}

/// How the file at `path` holds code; None for no ytt file.
fn flavor_of(path: &Path) -> Option<Flavor> {
    match path.extension()?.to_str()? {
        "yml" | "yaml" => Some(Flavor::Yaml),
        "star" => Some(Flavor::Star),
        "txt" => Some(Flavor::Text),
        _ => None,
    }
}

fn is_identifier(name: &str) -> bool {
    name.bytes().all(code::is_ident_byte)
        && name.as_bytes().first().is_some_and(|b| !b.is_ascii_digit())
}

/// What is known of one data value.
struct ValueFacts {
    markdown: String,
    /// Its key in the schema.
    declaration: Span,
    /// A map's keys: (key, type, description).
    keys: Vec<(String, String, Option<String>)>,
}

/// A key of a data-values or schema document of the document.
struct DocumentKey {
    span: Range<usize>,
    path: Vec<String>,
    in_schema: bool,
}

/// A file named by a `load`, read: its id and its `def`s.
struct LoadedFile {
    id: FileId,
    defs: Vec<(String, Range<usize>)>,
}

struct YttNavigator {
    file: FileId,
    text: String,
    flavor: Flavor,
    /// Facts by data value path ([`ITEMS`] for an array's items).
    values: HashMap<Vec<String>, ValueFacts>,
    keys: Vec<DocumentKey>,
    loads: Vec<Load>,
    /// The file of each load, when it is one in the workspace.
    loaded: Vec<Option<LoadedFile>>,
    defs: Vec<(String, Range<usize>)>,
    /// The file binds `data` to `@ytt:data`.
    reads_data: bool,
}

fn collect_facts(
    ty: &SchemaType,
    path: &mut Vec<String>,
    values: Option<&Node>,
    origins: &Origins,
    in_document: &dyn Fn(Span) -> Span,
    out: &mut HashMap<Vec<String>, ValueFacts>,
) {
    let keys = match &ty.kind {
        TypeKind::Map(entries) => entries
            .iter()
            .map(|e| {
                (
                    e.key.clone(),
                    facts::type_name(&e.ty),
                    e.ty.docs.description.clone(),
                )
            })
            .collect(),
        _ => Vec::new(),
    };
    let markdown = if path.is_empty() {
        String::new()
    } else {
        facts::markdown(path, ty, values, origins)
    };
    out.insert(
        path.clone(),
        ValueFacts {
            markdown,
            declaration: in_document(ty.span),
            keys,
        },
    );
    match &ty.kind {
        TypeKind::Map(entries) => {
            for entry in entries {
                path.push(entry.key.clone());
                collect_facts(&entry.ty, path, values, origins, in_document, out);
                path.pop();
            }
        }
        TypeKind::Array(item) => {
            path.push(ITEMS.to_string());
            collect_facts(item, path, values, origins, in_document, out);
            path.pop();
        }
        _ => {}
    }
}

/// The keys of the file's data-values and schema documents with their
/// paths (not those addressed to a library).
fn document_keys(set: &crate::yaml::DocumentSet) -> Vec<DocumentKey> {
    let mut out = Vec::new();
    for doc in &set.docs {
        let in_schema = doc.has_annotation("data/values-schema");
        if !(in_schema || doc.has_annotation("data/values")) || doc.has_annotation("library/ref") {
            continue;
        }
        walk_keys(&doc.value, &mut Vec::new(), in_schema, &mut out);
    }
    out
}

fn walk_keys(node: &Node, path: &mut Vec<String>, in_schema: bool, out: &mut Vec<DocumentKey>) {
    match &node.value {
        Value::Map(items) => {
            for item in items {
                path.push(item.key.display());
                out.push(DocumentKey {
                    span: item.key_span.range(),
                    path: path.clone(),
                    in_schema,
                });
                walk_keys(&item.value, path, in_schema, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            path.push(ITEMS.to_string());
            for item in items {
                walk_keys(&item.value, path, in_schema, out);
            }
            path.pop();
        }
        Value::Scalar(_) => {}
    }
}

/// The file a `load` names, when it is a file of the workspace: relative
/// to the loading file's folder, or with a leading `/` to the package's
/// root (`(dir, root)`); never outside the workspace, never ytt's own
/// modules or a library's (`@name:...`).
fn loaded_file(
    cx: &Context,
    (dir, package_root): (&Path, &Path),
    module: &str,
) -> Option<LoadedFile> {
    let path: PathBuf = match module.strip_prefix('/') {
        _ if module.starts_with('@') || module.is_empty() => return None,
        Some(below_root) => crate::source::normalize_path(&package_root.join(below_root)),
        None => crate::source::normalize_path(&dir.join(module)),
    };
    let root = crate::source::normalize_path(cx.root);
    if !path.starts_with(&root) || !crate::source::resolves_below(&path, &root) || !path.is_file() {
        return None;
    }
    let flavor = flavor_of(&path)?;
    let bytes = cx.sources.read(&path).ok()?;
    let (text, _) = crate::source::decode_text(bytes);
    let defs = code::defs(&text, flavor);
    let name = crate::source::display_name(&path, cx.root);
    let id = cx.sources.add(SourceFile::new(name, Some(path), text));
    Some(LoadedFile { id, defs })
}

impl YttNavigator {
    fn is_code_at(&self, offset: usize) -> bool {
        code::is_code_at(&self.text, offset, self.flavor)
    }

    fn key_at(&self, offset: usize) -> Option<&DocumentKey> {
        self.keys
            .iter()
            .find(|k| k.span.start <= offset && offset < k.span.end)
    }

    /// The data value named in code at `offset`, with the span of the part.
    fn data_value_at(&self, offset: usize) -> Option<(Vec<String>, Range<usize>)> {
        if !self.reads_data || !self.is_code_at(offset) {
            return None;
        }
        code::dotted_at(&self.text, offset)?.data_value_at(offset)
    }

    fn span(&self, range: Range<usize>) -> Span {
        Span::new(self.file, range.start, range.end)
    }

    /// Where a loaded symbol (by its name in the module) is defined.
    fn symbol_defs(&self, load: usize, symbol: &str) -> Vec<Span> {
        let Some(Some(file)) = self.loaded.get(load) else {
            return Vec::new();
        };
        file.defs
            .iter()
            .filter(|(name, _)| name == symbol)
            .map(|(_, range)| Span::new(file.id, range.start, range.end))
            .collect()
    }
}

impl Navigator for YttNavigator {
    fn hover(&self, offset: usize) -> Option<Hover> {
        let (path, range) = match self.key_at(offset) {
            Some(key) => (key.path.clone(), key.span.clone()),
            None => self.data_value_at(offset)?,
        };
        let facts = self.values.get(&path)?;
        Some(Hover {
            span: self.span(range),
            markdown: facts.markdown.clone(),
        })
    }

    fn definition(&self, offset: usize) -> Vec<Span> {
        if let Some(key) = self.key_at(offset) {
            // A schema key is the declaration itself.
            return match self.values.get(&key.path) {
                Some(facts) if !key.in_schema => vec![facts.declaration],
                _ => Vec::new(),
            };
        }
        if !self.is_code_at(offset) {
            return Vec::new();
        }
        if let Some((load, symbol)) = code::load_literal_at(&self.loads, offset) {
            let index = self
                .loads
                .iter()
                .position(|l| l == load)
                .unwrap_or(usize::MAX);
            return match symbol {
                None => match self.loaded.get(index) {
                    Some(Some(file)) => vec![Span::new(file.id, 0, 0)],
                    _ => Vec::new(),
                },
                Some(i) => self.symbol_defs(index, &load.symbols[i].1.text),
            };
        }
        if let Some((path, _)) = self.data_value_at(offset) {
            return self
                .values
                .get(&path)
                .map(|f| vec![f.declaration])
                .unwrap_or_default();
        }
        let Some((name, _)) = code::call_at(&self.text, offset) else {
            return Vec::new();
        };
        let local: Vec<Span> = self
            .defs
            .iter()
            .filter(|(def, _)| *def == name)
            .map(|(_, range)| self.span(range.clone()))
            .collect();
        if !local.is_empty() {
            return local;
        }
        // The last load binding the name is the one in force.
        self.loads
            .iter()
            .enumerate()
            .rev()
            .find_map(|(index, load)| {
                let (_, literal) = load.symbols.iter().find(|(bound, _)| *bound == name)?;
                Some(self.symbol_defs(index, &literal.text))
            })
            .unwrap_or_default()
    }

    fn completions(&self, offset: usize) -> Vec<Completion> {
        if self.flavor == Flavor::Yaml {
            let names = annotations::completions(&self.text, offset, self.file);
            if !names.is_empty() {
                return names;
            }
        }
        if !self.reads_data || !self.is_code_at(offset) {
            return Vec::new();
        }
        let Some((path, typed)) = code::data_value_prefix(&self.text, offset) else {
            return Vec::new();
        };
        let Some(facts) = self.values.get(&path) else {
            return Vec::new();
        };
        let replace = self.span(typed);
        facts
            .keys
            .iter()
            // A key that is no identifier is read as `data.values["a-b"]`.
            .filter(|(key, _, _)| is_identifier(key))
            .map(|(key, type_name, description)| Completion {
                label: key.clone(),
                kind: CompletionKind::Field,
                detail: Some(type_name.clone()),
                documentation: description.clone(),
                insert: None,
                replace,
            })
            .collect()
    }
}
