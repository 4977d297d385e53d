//! What each file of a package is to ytt: template, schema, data values,
//! private library or text template, and the files `ytt -f PATH` reads, in
//! its order. Documents are sorted into schema and data values here, with
//! the shape checks ytt makes on them.

use crate::discover::DiscoveredFile;
use crate::finding::Finding;
use crate::rules;
use crate::source::Sources;
use crate::yaml::{Annotated, Document, DocumentSet, Node, Value};
use std::path::Path;

/// Every comment of a file, in source order.
pub(super) fn all_comments(set: &DocumentSet) -> Vec<&crate::yaml::Comment> {
    fn walk<'a>(node: &'a Node, found: &mut Vec<&'a crate::yaml::Comment>) {
        match &node.value {
            Value::Map(items) => items.iter().for_each(|i| {
                found.extend(&i.comments);
                walk(&i.value, found);
            }),
            Value::Array(items) => items.iter().for_each(|i| {
                found.extend(&i.comments);
                walk(&i.value, found);
            }),
            Value::Scalar(_) => {}
        }
    }
    let mut comments: Vec<&crate::yaml::Comment> = set.trailing_comments.iter().collect();
    for doc in &set.docs {
        comments.extend(&doc.comments);
        walk(&doc.value, &mut comments);
    }
    comments.sort_by_key(|c| c.span.start);
    comments
}

/// The first plain `#` comment of a file, which ytt rejects in a templated
/// file unless `--ignore-unknown-comments` is given.
/// Every plain `#` comment of a file, in order.
pub(super) fn plain_comments(set: &DocumentSet) -> Vec<&crate::yaml::Comment> {
    all_comments(set)
        .into_iter()
        .filter(|c| c.kind == crate::yaml::CommentKind::Plain)
        .collect()
}

pub(super) fn first_plain_comment(set: &DocumentSet) -> Option<&crate::yaml::Comment> {
    all_comments(set)
        .into_iter()
        .find(|c| c.kind == crate::yaml::CommentKind::Plain)
}

/// A file ytt renders as a template: neither schema nor data values, and
/// not in a private library (`_ytt_lib`), whose files only its users load.
pub(super) fn is_template(file: &DiscoveredFile, set: &DocumentSet, root: &Path) -> bool {
    !holds_data_values(set) && !in_ytt_lib(&file.path, root)
}

/// A file of schema or data-values documents.
pub(super) fn holds_data_values(set: &DocumentSet) -> bool {
    set.docs
        .iter()
        .any(|d| d.has_annotation("data/values") || d.has_annotation("data/values-schema"))
}

/// A YAML file ytt renders to output (not a `.lib.yml` only loaded).
pub(super) fn is_yaml_template(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    (name.ends_with(".yml") || name.ends_with(".yaml"))
        && !name.ends_with(".lib.yml")
        && !name.ends_with(".lib.yaml")
}

pub(super) use crate::discover::in_ytt_lib;

/// Put each document of a file in its list; a schema or values file must hold
/// only such documents, and `@data/values-schema` belongs on a document.
pub(super) fn classify_documents<'a>(
    set: &'a DocumentSet,
    in_fragment: &dyn Fn(usize) -> bool,
    schema_docs: &mut Vec<&'a Document>,
    value_docs: &mut Vec<&'a Document>,
    findings: &mut Vec<Finding>,
) {
    let is_schema = |d: &Document| d.has_annotation("data/values-schema");
    let is_values = |d: &Document| d.has_annotation("data/values");
    let docs: Vec<&Document> = set
        .docs
        .iter()
        .filter(|d| !in_fragment(d.span.start as usize))
        .collect();
    let has_schema = docs.iter().any(|d| is_schema(d));
    let has_values = docs.iter().any(|d| is_values(d));
    for doc in docs {
        if let Value::Map(items) = &doc.value.value {
            for item in items {
                if item.has_annotation("data/values-schema") {
                    findings.push(Finding::new(&rules::ytt::SCHEMA, item.key_span,
                        "@data/values-schema annotates a map item; only documents (---) can be annotated with @data/values-schema",
                    ).with_help("put `---` on the line after the annotation"));
                }
            }
        }
        if (is_schema(doc) || is_values(doc)) && !doc.has_start_marker {
            // Without `---` ytt attaches the annotation to the first map item.
            let name = if is_schema(doc) {
                "@data/values-schema"
            } else {
                "@data/values"
            };
            let at = match &doc.value.value {
                Value::Map(items) if !items.is_empty() => items[0].key_span,
                _ => doc.span,
            };
            findings.push(
                Finding::new(&rules::ytt::SCHEMA, at,
                    format!("{name} annotates a map item; only documents (---) can be annotated with {name}"),
                )
                .with_help("put `---` on the line after the annotation"),
            );
            continue;
        }
        if is_schema(doc) || is_values(doc) {
            report_duplicate_keys(&doc.value, findings);
        }
        if is_schema(doc) {
            schema_docs.push(doc);
        } else if is_values(doc) {
            value_docs.push(doc);
        } else if (has_schema || has_values)
            && !doc.value.is_null()
            // Content in a function's body (`#@ def` right after `---`)
            // is not output: the document is empty once evaluated, as
            // ytt checks it.
            && !in_fragment(doc.value.span.start as usize)
        {
            let what = if has_schema { "schema" } else { "data values" };
            let annotation = if has_schema {
                "@data/values-schema"
            } else {
                "@data/values"
            };
            findings.push(
                Finding::new(&rules::ytt::SCHEMA, doc.span,
                    format!("a {what} file must only have {what} documents ({annotation}); this document is not one"),
                )
                .with_help("move ordinary documents into a template file of their own"),
            );
        }
    }
}

/// Schema and data-values documents hold no template code, so a key given
/// twice there is the error ytt reports after templating.
/// A map key as its resolved value compares: floats by value (`0.0` and
/// `-0.0` alike), NaN never.
#[derive(PartialEq, Eq, Hash)]
enum KeyOf<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(&'a str),
}

fn key_of(value: &crate::yaml::ScalarValue) -> Option<KeyOf<'_>> {
    use crate::yaml::ScalarValue as S;
    Some(match value {
        S::Null => KeyOf::Null,
        S::Bool(b) => KeyOf::Bool(*b),
        S::Int(i) => KeyOf::Int(*i),
        S::Float(f) if f.is_nan() => return None,
        S::Float(f) => KeyOf::Float(if *f == 0.0 { 0 } else { f.to_bits() }),
        S::Str(s) => KeyOf::Str(s),
    })
}

pub(super) fn report_duplicate_keys(node: &Node, findings: &mut Vec<Finding>) {
    match &node.value {
        Value::Map(items) => {
            // The first item of each key, so a map of a million keys stays
            // linear.
            let mut firsts: std::collections::HashMap<KeyOf<'_>, usize> =
                std::collections::HashMap::new();
            for (index, item) in items.iter().enumerate() {
                let key = item.key.display();
                let first = match key_of(&item.key.resolved) {
                    Some(k) => Some(*firsts.entry(k).or_insert(index)).filter(|&f| f != index),
                    // NaN equals no key, not even itself.
                    None => None,
                };
                if let Some(first) = first.map(|f| &items[f]) {
                    findings.push(
                        Finding::new(
                            &rules::yaml::DUPLICATE_KEY,
                            item.key_span,
                            format!("expected key '{key}' to not be specified again"),
                        )
                        .with_related(first.key_span, "first given here"),
                    );
                }
                report_duplicate_keys(&item.value, findings);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|i| report_duplicate_keys(&i.value, findings)),
        Value::Scalar(_) => {}
    }
}

/// The files `ytt -f path` reads, in ytt's order: a file itself; a
/// directory's files recursively, sorted by path.
pub fn package_files(path: &Path) -> Vec<std::path::PathBuf> {
    let is_yaml = |p: &Path| matches!(p.extension().and_then(|e| e.to_str()), Some("yml" | "yaml"));
    if !path.is_dir() {
        return if is_yaml(path) {
            vec![path.to_path_buf()]
        } else {
            Vec::new()
        };
    }
    crate::source::files_below(path)
        .into_iter()
        .filter(|p| is_yaml(p))
        .collect()
}

/// The text templates (`.txt`, not `.lib.txt`) below `root` outside private
/// libraries, read into `sources`, named as the package's YAML files are.
pub(super) fn text_templates(
    root: &Path,
    files: &[&DiscoveredFile],
    sources: &Sources,
    inputs: Option<&super::marks::Inputs>,
) -> Vec<(crate::source::FileId, std::path::PathBuf)> {
    // Where names are shown from: a YAML file's path less its shown name.
    let shown_from = files.first().and_then(|f| {
        let name = sources.get(f.id).name.clone();
        let path = f.path.to_string_lossy().into_owned();
        path.strip_suffix(&name).map(std::path::PathBuf::from)
    });
    let found: Vec<std::path::PathBuf> = match inputs {
        // As the marks made them: text files output.
        Some(inputs) => inputs
            .files
            .iter()
            .filter(|f| f.file_type() == super::marks::FileType::Text && f.is_for_output())
            .map(|f| f.path.clone())
            .collect(),
        None => text_template_files(root)
            .into_iter()
            .map(|(path, _)| path)
            .collect(),
    };
    let found: Vec<std::path::PathBuf> = found
        .into_iter()
        .filter(|path| !in_ytt_lib(path, root))
        .collect();
    let names: Vec<String> = found
        .iter()
        .map(|p| crate::source::display_name(p, root))
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    super::marks::library_order(&names)
        .into_iter()
        .map(|i| found[i].clone())
        .filter_map(|path| {
            let text = String::from_utf8(sources.read(&path).ok()?).ok()?;
            let name = match &shown_from {
                Some(base) => crate::source::display_name(&path, base),
                None => path.to_string_lossy().into_owned(),
            };
            let id = sources.add(crate::source::SourceFile::new(
                name,
                Some(path.clone()),
                text,
            ));
            Some((id, path))
        })
        .collect()
}

/// The text templates `ytt -f path` renders: `.txt` files that are not
/// libraries (`x.lib.txt`) nor in a private library (`_ytt_lib`); a file
/// itself, or a directory's, by path relative to it (ytt's order). Each
/// comes with that relative path, its name among ytt's output files.
pub fn text_template_files(path: &Path) -> Vec<(std::path::PathBuf, String)> {
    let is_text_template =
        |name: &str| name.ends_with(".txt") && !super::template::text::is_library(name);
    let name_of = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if !path.is_dir() {
        let name = name_of(path);
        return if is_text_template(&name) {
            vec![(path.to_path_buf(), name)]
        } else {
            Vec::new()
        };
    }
    let mut found = Vec::new();
    for p in crate::source::files_below(path) {
        let Ok(relative) = p.strip_prefix(path) else {
            continue;
        };
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let in_library = crate::discover::name_in_ytt_lib(&parts.join("/"));
        if is_text_template(&name_of(&p)) && !in_library {
            found.push((p.clone(), parts.join("/")));
        }
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// A plain file (no system's, no `#@`) that is a Helm or Jinja template:
/// text, not YAML, until another tool renders it.
pub(super) fn is_plain_text_template(file: &DiscoveredFile, sources: &Sources) -> bool {
    file.system.is_none() && crate::discover::is_text_template(&sources.get(file.id).text)
}

/// The warning that a package lint took the root of from where its files
/// sit was not checked, because `templates` (plain files below that root
/// that are Helm or Jinja templates and do not parse) would stop
/// `ytt -f ROOT`: whether anyone renders the folder whole is unknown, so
/// neither they nor the package are reported as errors.
pub(super) fn unchecked_for_text_templates(
    templates: &[&DiscoveredFile],
    root: &Path,
    sources: &Sources,
) -> Finding {
    let first = templates[0];
    let (name, shown_root) = name_below_root(first, root, sources);
    let more = match templates.len() - 1 {
        0 => String::new(),
        1 => " and 1 more file".to_string(),
        n => format!(" and {n} more files"),
    };
    let mut finding = Finding::new(
        &rules::ytt::PACKAGE_UNCHECKED,
        crate::source::Span::file_start(first.id),
        format!(
            "the package `{shown_root}` was not checked: `{name}`{more} below it are Helm or Jinja templates, which `ytt -f {shown_root}` would stop at"
        ),
    )
    .with_help("lint took the folder for a package's root from the ytt files in it, but such a folder is most often rendered another way (`helm template ... | ytt -f - -f OVERLAY`); if ytt reads it whole, name it in .confvet.yaml (`ytt.packages`) to have it checked and these files reported as ytt reports them");
    // The message counts them all; a few are shown.
    for file in templates.iter().skip(1).take(4) {
        finding = finding.with_related(
            crate::source::Span::file_start(file.id),
            "a Helm or Jinja template too",
        );
    }
    finding
}

/// A file's name relative to its package's root, and the root as the
/// file's shown name shows it (`ytt -f` names them so).
fn name_below_root(file: &DiscoveredFile, root: &Path, sources: &Sources) -> (String, String) {
    let relative = file.path.strip_prefix(root).unwrap_or(&file.path);
    let name = relative.to_string_lossy().replace('\\', "/");
    let shown = sources.get(file.id).name.clone();
    let shown_root = match shown
        .strip_suffix(name.as_str())
        .map(|r| r.trim_end_matches('/'))
    {
        Some("") => ".".to_string(),
        Some(dir) => dir.to_string(),
        None => root.display().to_string(),
    };
    (name, shown_root)
}

/// The finding of a file of the package that does not parse. A file of no
/// system is plain YAML (no `#@`) lint found below the root: ytt reads it
/// as it reads the templates, and stops there; where lint guessed the
/// root (`root_guessed`), the help says how to tell it otherwise when the
/// file is not the package's.
pub(super) fn unparsed(
    finding: &Finding,
    file: &DiscoveredFile,
    root: &Path,
    sources: &Sources,
    root_guessed: bool,
) -> Finding {
    if file.system.is_some() {
        return finding.clone();
    }
    let (name, shown_root) = name_below_root(file, root, sources);
    // Naming the root is advice only where lint guessed it.
    let or_name_the_root = if root_guessed {
        " or name the package's root in .confvet.yaml (`ytt.packages`)"
    } else {
        ""
    };
    finding.clone().with_help(format!(
        "`ytt -f {shown_root}` reads every YAML file below it, `#@` or not, and stops here: Unmarshaling YAML template '{name}'. If the file is not the package's, exclude it (`--file-mark '{name}:exclude=true'`){or_name_the_root}"
    ))
}
