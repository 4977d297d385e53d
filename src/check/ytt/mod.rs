//! ytt: the data values of a package checked as ytt checks them (spec/ytt.md).
//!
//! Order, as ytt: YAML syntax of every file; schema documents turned into
//! types (stops at the first schema error); data-values documents merged one
//! at a time, each step type-checked (confvet reports every step's errors,
//! ytt only the first); validations on the final values, collect-all.

pub mod awaits;
pub mod digest;
pub mod engine;
pub mod flags;
pub mod formats;
pub mod modules;
pub mod path;
pub mod render;
pub mod schema;
pub mod starlark;
pub mod template;
pub mod translate;
pub mod validate;
pub mod values;

use crate::discover::DiscoveredFile;
use crate::finding::{Finding, Kind, Severity};
use crate::source::{Sources, Span};
use crate::yaml::{Annotated, Document, DocumentSet, Node, Value};
use engine::{Code, Engine};
use flags::DataValueFlags;
use path::DataPath;
use schema::{SchemaBuilder, SchemaType};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use validate::Validator;
use values::{MergeMode, Merger, TypeChecker};

/// What checking one package gives.
#[derive(Debug, Default)]
pub struct PackageOutcome {
    pub findings: Vec<Finding>,
    /// The final data values, when the checks got that far.
    pub values: Option<Node>,
    /// Each template file's output documents, when rendering got that far.
    pub rendered: Option<Vec<(crate::source::FileId, Vec<Document>)>>,
    /// Each text template's (`.txt`) output, when rendering got that far.
    pub rendered_texts: Option<Vec<(crate::source::FileId, String)>>,
}

/// Settings of a ytt check.
#[derive(Debug, Clone, Default)]
pub struct YttSettings {
    pub flags: DataValueFlags,
    pub disable_validation: bool,
    pub strict: bool,
    /// ytt's `--ignore-unknown-comments`: plain `#` comments are allowed.
    pub ignore_unknown_comments: bool,
    /// Skip rendering templates, as `ytt --data-values-inspect` does.
    pub skip_templates: bool,
    /// ytt's `--implicit-map-key-overrides`.
    pub implicit_map_key_overrides: bool,
    /// `render` given files one by one (no directory): ytt knows them by
    /// their base names only.
    pub flat_files: Option<Vec<std::path::PathBuf>>,
    /// The text templates (`.txt`) of the package, already read into the
    /// sources; None to find them below the package root.
    pub text_templates: Option<Vec<(crate::source::FileId, std::path::PathBuf)>>,
    /// `render`'s files by the names ytt gives them (for `data.list` and
    /// `data.read`); None: every file below the package root.
    pub library_files: Option<Vec<(String, std::path::PathBuf)>>,
}

/// The text templates (`.txt`, not `.lib.txt`) below `root` outside private
/// libraries, read into `sources`, named as the package's YAML files are.
fn text_templates(
    root: &Path,
    files: &[&DiscoveredFile],
    sources: &Sources,
) -> Vec<(crate::source::FileId, std::path::PathBuf)> {
    // Where names are shown from: a YAML file's path less its shown name.
    let shown_from = files.first().and_then(|f| {
        let name = sources.get(f.id).name.clone();
        let path = f.path.to_string_lossy().into_owned();
        path.strip_suffix(&name).map(std::path::PathBuf::from)
    });
    render::text_template_files(root)
        .into_iter()
        .filter(|(path, _)| !in_ytt_lib(path, root))
        .filter_map(|(path, _)| {
            let text = String::from_utf8(crate::source::read_limited(&path).ok()?).ok()?;
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
    let mut found = Vec::new();
    let mut pending = vec![path.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                pending.push(p);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("yml" | "yaml")) {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

/// Check one ytt package: `files` in ytt's merge order.
pub fn check_package(
    root: &Path,
    files: &[&DiscoveredFile],
    sources: &Sources,
    settings: &YttSettings,
) -> PackageOutcome {
    let mut outcome = PackageOutcome::default();
    let findings = &mut outcome.findings;

    // 1. Every file must parse; ytt stops at the first that does not.
    let mut parsed: Vec<&DocumentSet> = Vec::new();
    for file in files {
        match &file.parsed {
            Ok(set) => parsed.push(set),
            Err(finding) => findings.push((**finding).clone()),
        }
    }
    if !findings.is_empty() {
        return outcome;
    }
    if settings.strict {
        for set in &parsed {
            flags::check_strict(set, findings);
        }
        if !findings.is_empty() {
            return outcome;
        }
    }

    // 2. Sort documents into schema and data values; check file shapes.
    let mut schema_docs: Vec<&Document> = Vec::new();
    let mut value_docs: Vec<&Document> = Vec::new();
    for (file, set) in files.iter().zip(&parsed) {
        // ytt private libraries keep their own data values.
        if in_ytt_lib(&file.path, root) {
            continue;
        }
        let source = sources.get(file.id);
        let fragments = if source.text.contains("#@ def") {
            translate::yaml_program(&source.text).1
        } else {
            Vec::new()
        };
        let in_fragment = |doc: &Document| {
            let line = source.line_col(doc.span.start as usize).line;
            fragments.iter().any(|r| r.contains(&line))
        };
        classify_documents(
            set,
            &in_fragment,
            &mut schema_docs,
            &mut value_docs,
            findings,
        );
    }
    if has_errors(findings) {
        return outcome;
    }

    // 3. The code of schema and data-values files, compiled once; annotation
    // arguments are evaluated in their file's scope.
    let engine = Engine::new(root);
    let mut scopes = HashMap::new();
    for (file, set) in files.iter().zip(&parsed) {
        if in_ytt_lib(&file.path, root) {
            continue;
        }
        let is_schema_file = set
            .docs
            .iter()
            .any(|d| d.has_annotation("data/values-schema"));
        let is_values_file = set.docs.iter().any(|d| d.has_annotation("data/values"));
        if !is_schema_file && !is_values_file {
            continue;
        }
        let source = sources.get(file.id);
        if !settings.ignore_unknown_comments
            && let Some(comment) = first_plain_comment(set)
        {
            let line = source.line_col(comment.span.start as usize).line;
            findings.push(
                Finding::new(
                    "ytt/unknown-comment",
                    Kind::Syntax,
                    comment.span,
                    format!(
                        "Failed to parse line {line}: '#{}': Expected ytt-formatted string (use '#@' for annotations or code, '#!' for comments)",
                        comment.text
                    ),
                )
                .with_help("write `#!` for a comment in a ytt file, or pass --ignore-unknown-comments as ytt users do"),
            );
            return outcome;
        }
        match engine.compile_yaml_file(
            &source.name,
            &source.text,
            file.path.parent().unwrap_or(root),
        ) {
            Ok(module) => {
                scopes.insert(file.id, module);
            }
            // A data-values file may template with data it cannot see here
            // (ytt evaluates it with the values before it); only a schema
            // file that does not compile is reported.
            Err(_) if !is_schema_file => {}
            Err((message, line, is_syntax)) => {
                let start = source.line_start(line);
                let end = start + source.line_text(line).len();
                let (rule, kind) = if is_syntax {
                    ("ytt/starlark-syntax", Kind::Syntax)
                } else {
                    ("ytt/undefined", Kind::Reference)
                };
                findings.push(Finding::new(
                    rule,
                    kind,
                    Span::new(file.id, start, end),
                    format!("templating {}: {message}", source.name),
                ));
                return outcome;
            }
        }
    }
    let code = Code {
        engine: &engine,
        scopes: &scopes,
    };

    // 4. Schema: each document on its own, then merged.
    let schema = match build_schema(&schema_docs, findings, &code) {
        Ok(schema) => schema,
        Err(()) => return outcome,
    };

    // 4. Data values, merged step by step.
    let mut seen: HashSet<(Span, String)> = HashSet::new();
    let mut current: Option<Node> = schema.as_ref().map(|ty| ty.default.clone());
    let root_at = schema.as_ref().map(|ty| ty.span);
    let mut step_findings = Vec::new();
    // Documents are merged by reference; only command-line values are new.
    let flag_overlays = settings.flags.overlays(sources, &mut step_findings);
    let sources_in_order: Vec<(&Node, &[crate::yaml::Comment], MergeMode)> = value_docs
        .iter()
        .map(|doc| (&doc.value, doc.comments.as_slice(), MergeMode::default()))
        .chain(
            flag_overlays
                .iter()
                .map(|(node, mode)| (node, &[][..], *mode)),
        )
        .collect();
    findings.append(&mut step_findings);
    for &(node, comments, mode) in &sources_in_order {
        let mut step = Vec::new();
        if let Some(ty) = &schema {
            report_given_deprecated(node, ty, &DataPath::root(), &mut step);
        }
        match current.as_mut() {
            // Without a schema the first document is the base; an empty
            // one is an empty map, as in ytt.
            None if node.is_null() => {
                current = Some(Node {
                    span: node.span,
                    value: Value::Map(Vec::new()),
                })
            }
            None => current = Some(node.clone()),
            Some(left) => {
                let mut merger = Merger {
                    findings: &mut step,
                    has_schema: schema.is_some(),
                    keeps_left_annotations: false,
                };
                merger.merge_document(left, node, comments, mode);
            }
        }
        if let (Some(ty), Some(values)) = (&schema, current.as_mut()) {
            let at = if values.span.file == ty.span.file {
                ty.span
            } else {
                values.span
            };
            TypeChecker {
                findings: &mut step,
            }
            .check(values, root_at.unwrap_or(at), ty, &DataPath::root());
        }
        for finding in step {
            if seen.insert((finding.span, finding.message.clone())) {
                findings.push(finding);
            }
        }
    }
    let values = current.unwrap_or_else(|| Node {
        span: Span::file_start(files.first().map_or(crate::source::FileId(0), |f| f.id)),
        value: Value::Map(Vec::new()),
    });
    // 5. Validations on the final values. ytt never gets here after a type
    // or unknown-key error, and neither does confvet: a rule on a value of
    // the wrong type would only report the same problem again, or a false
    // one.
    if !settings.disable_validation && !has_errors(findings) {
        let mistyped: HashSet<Span> = findings.iter().map(|f| f.span).collect();
        let mut violations = Vec::new();
        let mut annotation_errors = Vec::new();
        let mut validator = Validator {
            findings: &mut violations,
            code: &code,
            root: Some(&values),
            root_value: None,
            is_aborted: false,
        };
        if let Some(ty) = &schema {
            validator.validate(&values, ty.span, ty, &DataPath::root(), None);
        }
        // @assert/validate on data-values documents and on the nodes that
        // survived the merge.
        for doc in &value_docs {
            if let Some(validation) =
                assert_validation(doc.comments(), &code, &mut annotation_errors)
            {
                validator.run(&values, doc.span, &validation, &DataPath::root(), None);
            }
        }
        run_asserts(
            &values,
            &DataPath::root(),
            &mut validator,
            &code,
            &mut annotation_errors,
        );
        findings.extend(annotation_errors);
        findings.extend(
            violations
                .into_iter()
                .filter(|v| !mistyped.contains(&v.span)),
        );
    }
    // ytt evaluates templates only once data values are valid.
    if !has_errors(findings) {
        check_templates(
            files,
            &parsed,
            root,
            sources,
            Some(&values),
            schema.as_ref(),
            findings,
        );
    }
    if !has_errors(findings) && !settings.skip_templates {
        let templates: Vec<(&DiscoveredFile, &DocumentSet)> = files
            .iter()
            .copied()
            .zip(parsed.iter().copied())
            .filter(|(file, set)| is_template(file, set, root) && is_yaml_template(&file.path))
            .collect();
        let texts = match &settings.text_templates {
            Some(given) => given.clone(),
            None => text_templates(root, files, sources),
        };
        // The engine and the values' conversion only for packages that use them.
        if !templates.is_empty() || !texts.is_empty() {
            let known = files
                .iter()
                .map(|f| (f.path.clone(), (f.id, sources.get(f.id))))
                .collect();
            let options = template::compile::CompileOptions {
                ignore_unknown_comments: settings.ignore_unknown_comments,
            };
            let mut renderer =
                render::Renderer::new(root, &values, !settings.flags.is_empty(), known, options);
            if let Some(files) = &settings.flat_files {
                renderer = renderer.with_flat_files(files);
            }
            if let Some(files) = &settings.library_files {
                renderer = renderer.with_library_files(files.clone());
            }
            renderer.session_options(settings.implicit_map_key_overrides);
            outcome.rendered = Some(renderer.check(&templates, sources, findings));
            // Text templates render after the YAML ones, as in ytt.
            if !texts.is_empty() && !has_errors(findings) {
                outcome.rendered_texts = Some(renderer.check_texts(&texts, sources, findings));
            }
        }
    }
    outcome.values = Some(values);
    outcome
}

/// Every comment of a file, in source order.
fn all_comments(set: &DocumentSet) -> Vec<&crate::yaml::Comment> {
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
fn first_plain_comment(set: &DocumentSet) -> Option<&crate::yaml::Comment> {
    all_comments(set)
        .into_iter()
        .find(|c| c.kind == crate::yaml::CommentKind::Plain)
}

/// Templates are not rendered, but their code must parse (ytt would fail to
/// compile it), and every `data.values.a.b` they read must exist in the
/// final data values (ytt: `struct has no .b field or method`).
fn check_templates(
    files: &[&DiscoveredFile],
    parsed: &[&DocumentSet],
    root: &Path,
    sources: &Sources,
    values: Option<&Node>,
    schema: Option<&SchemaType>,
    findings: &mut Vec<Finding>,
) {
    static DATA_VALUES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\bdata\.values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)").unwrap()
    });
    for (file, set) in files.iter().zip(parsed) {
        if !is_template(file, set, root) {
            continue;
        }
        let source = sources.get(file.id);
        let comments: Vec<&crate::yaml::Comment> = all_comments(set)
            .into_iter()
            .filter(|c| matches!(c.kind, crate::yaml::CommentKind::Code(_)))
            .collect();
        if comments.is_empty() {
            continue;
        }
        let code: Vec<(usize, String)> = comments
            .iter()
            .map(|c| {
                let line = source.line_col(c.span.start as usize).line;
                let crate::yaml::CommentKind::Code(text) = &c.kind else {
                    unreachable!()
                };
                if c.own_line {
                    (line, format!(" {text}"))
                } else {
                    (line, format!(" _ = ({text})"))
                }
            })
            .collect();
        // Code that does not parse is reported by the render, with ytt's
        // block sugar (`if/end`, `else/end`) understood.
        let parses = translate::translate(&code).is_ok_and(|program| {
            ::starlark::syntax::AstModule::parse(
                &source.name,
                program.source,
                &::starlark::syntax::Dialect::Extended,
            )
            .is_ok()
        });
        if !parses {
            continue;
        }
        // hasattr()/getattr() guard optional values: leave such files alone.
        let (Some(values), false) = (
            values,
            source.text.contains("hasattr(") || source.text.contains("getattr("),
        ) else {
            continue;
        };
        // Only code that always runs: not inside a def, if or for block, and
        // nothing after a single-node `if/end`/`for/end` (its extent is a
        // node, which comments alone do not show).
        let mut depth = 0usize;
        let mut is_conditional = false;
        for comment in &comments {
            let crate::yaml::CommentKind::Code(text) = &comment.kind else {
                continue;
            };
            if comment.own_line {
                let statement = text.trim();
                let word = statement
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap_or("");
                if statement[word.len()..].starts_with("/end") {
                    is_conditional = true;
                } else if statement == "end" {
                    depth = depth.saturating_sub(1);
                } else if statement.ends_with(':') && !matches!(word, "else" | "elif") {
                    depth += 1;
                }
                if depth > 0 || is_conditional || matches!(word, "load" | "def") {
                    continue;
                }
            } else if depth > 0 || is_conditional {
                continue;
            }
            let Some(offset) = comment.text.find(text.as_str()) else {
                continue;
            };
            for found in DATA_VALUES.captures_iter(text) {
                let keys: Vec<&str> = found[1].split('.').skip(1).collect();
                if let Some(missing) = missing_key(values, schema, &keys) {
                    let whole = found.get(0).expect("match");
                    let start = comment.span.start as usize + 1 + offset + whole.start();
                    let path = keys[..=missing].join(".");
                    findings.push(
                        Finding::new(
                            "ytt/undefined",
                            Kind::Reference,
                            Span::new(file.id, start, start + whole.len()),
                            format!(
                                "data.values.{path} does not exist: the data values have no {:?}",
                                keys[missing]
                            ),
                        )
                        .with_help("declare it in the data-values schema, or fix the name"),
                    );
                }
            }
        }
    }
}

/// A file ytt renders as a template: neither schema nor data values, and
/// not in a private library (`_ytt_lib`), whose files only its users load.
fn is_template(file: &DiscoveredFile, set: &DocumentSet, root: &Path) -> bool {
    let is_data = set
        .docs
        .iter()
        .any(|d| d.has_annotation("data/values") || d.has_annotation("data/values-schema"));
    !is_data && !in_ytt_lib(&file.path, root)
}

/// A YAML file ytt renders to output (not a `.lib.yml` only loaded).
fn is_yaml_template(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    (name.ends_with(".yml") || name.ends_with(".yaml"))
        && !name.ends_with(".lib.yml")
        && !name.ends_with(".lib.yaml")
}

/// The index of the first key of `keys` missing below `node`, if any. Only
/// where a schema declares the map (no consumer value could add the key):
/// an any-typed value, an array, a scalar or null on the way ends the check.
fn missing_key(node: &Node, schema: Option<&SchemaType>, keys: &[&str]) -> Option<usize> {
    let mut current = node;
    let mut ty = schema?;
    for (index, key) in keys.iter().enumerate() {
        let (Value::Map(items), schema::TypeKind::Map(_)) = (&current.value, &ty.kind) else {
            return None;
        };
        match (
            items.iter().find(|i| i.key.display() == *key),
            ty.entry(key),
        ) {
            (Some(item), Some(child)) => {
                current = &item.value;
                ty = child;
            }
            (None, None) => return Some(index),
            _ => return None,
        }
    }
    None
}

/// Files in a ytt private library (`_ytt_lib`) below the package root.
fn in_ytt_lib(path: &Path, root: &Path) -> bool {
    path.strip_prefix(root)
        .is_ok_and(|rel| rel.components().any(|c| c.as_os_str() == "_ytt_lib"))
}

/// A value given for a `@schema/deprecated` data value is a warning, for a
/// `@schema/removed` one an error (seed design; ytt says nothing).
fn report_given_deprecated(
    node: &Node,
    ty: &SchemaType,
    path: &DataPath,
    findings: &mut Vec<Finding>,
) {
    match (&node.value, &ty.kind) {
        (Value::Map(items), schema::TypeKind::Map(_)) => {
            for item in items {
                let key = item.key.display();
                let Some(child) = ty.entry(&key) else {
                    continue;
                };
                let item_path = path.key(&key);
                if let Some(notice) = &child.docs.deprecated {
                    findings.push(
                        Finding::new(
                            "ytt/deprecated",
                            Kind::Deprecated,
                            item.key_span,
                            format!("{item_path} is deprecated: {notice}"),
                        )
                        .with_path(item_path.to_string())
                        .with_related(child.span, "deprecated here"),
                    );
                }
                if let Some(notice) = &child.docs.removed {
                    findings.push(
                        Finding::new(
                            "ytt/removed",
                            Kind::UnknownKey,
                            item.key_span,
                            format!("{item_path} was removed: {notice}"),
                        )
                        .with_path(item_path.to_string())
                        .with_related(child.span, "removed here"),
                    );
                }
                report_given_deprecated(&item.value, child, &item_path, findings);
            }
        }
        (Value::Array(items), schema::TypeKind::Array(item_type)) => {
            for (index, item) in items.iter().enumerate() {
                report_given_deprecated(&item.value, item_type, &path.index(index), findings);
            }
        }
        _ => {}
    }
}

/// The `@assert/validate` of a node's comments, evaluated in its file's scope.
pub(crate) fn assert_validation(
    comments: &[crate::yaml::Comment],
    code: &Code<'_>,
    errors: &mut Vec<Finding>,
) -> Option<validate::Validation> {
    let comment = comments.iter().rev().find(|c| {
        matches!(&c.kind, crate::yaml::CommentKind::Annotation { name, .. } if name == "assert/validate")
    })?;
    let crate::yaml::CommentKind::Annotation { args, .. } = &comment.kind else {
        return None;
    };
    let call = match code.eval_args(args, comment.span.file) {
        Ok(call) => call,
        Err(err) => {
            let (rule, kind) = if err.is_syntax {
                ("ytt/starlark-syntax", Kind::Syntax)
            } else {
                ("ytt/undefined", Kind::Reference)
            };
            errors.push(Finding::new(
                rule,
                kind,
                comment.span,
                format!("@assert/validate: {}", err.message),
            ));
            return None;
        }
    };
    match validate::parse_validation(&call, comment, "assert/validate") {
        Ok(validation) => {
            for note in &validation.compat {
                errors.push(Finding::new(
                    "ytt/compat",
                    Kind::Compat,
                    comment.span,
                    note.clone(),
                ));
            }
            Some(validation)
        }
        Err(message) => {
            errors.push(Finding::new(
                "ytt/rule-annotation",
                Kind::Schema,
                comment.span,
                message,
            ));
            None
        }
    }
}

/// Run the `@assert/validate` rules found on the merged data values.
fn run_asserts(
    node: &Node,
    path: &DataPath,
    validator: &mut Validator<'_>,
    code: &Code<'_>,
    errors: &mut Vec<Finding>,
) {
    match &node.value {
        Value::Map(items) => {
            for item in items {
                let item_path = path.key(&item.key.display());
                if let Some(validation) = assert_validation(item.comments(), code, errors) {
                    validator.run(
                        &item.value,
                        item.key_span,
                        &validation,
                        &item_path,
                        Some(node),
                    );
                }
                run_asserts(&item.value, &item_path, validator, code, errors);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let item_path = path.index(index);
                if let Some(validation) = assert_validation(item.comments(), code, errors) {
                    validator.run(&item.value, item.span, &validation, &item_path, Some(node));
                }
                run_asserts(&item.value, &item_path, validator, code, errors);
            }
        }
        Value::Scalar(_) => {}
    }
}

pub(crate) fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// Put each document of a file in its list; a schema or values file must hold
/// only such documents, and `@data/values-schema` belongs on a document.
fn classify_documents<'a>(
    set: &'a DocumentSet,
    in_fragment: &dyn Fn(&Document) -> bool,
    schema_docs: &mut Vec<&'a Document>,
    value_docs: &mut Vec<&'a Document>,
    findings: &mut Vec<Finding>,
) {
    let is_schema = |d: &Document| d.has_annotation("data/values-schema");
    let is_values = |d: &Document| d.has_annotation("data/values");
    let docs: Vec<&Document> = set.docs.iter().filter(|d| !in_fragment(d)).collect();
    let has_schema = docs.iter().any(|d| is_schema(d));
    let has_values = docs.iter().any(|d| is_values(d));
    for doc in docs {
        if let Value::Map(items) = &doc.value.value {
            for item in items {
                if item.has_annotation("data/values-schema") {
                    findings.push(Finding::new(
                        "ytt/schema",
                        Kind::Schema,
                        item.key_span,
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
                Finding::new(
                    "ytt/schema",
                    Kind::Schema,
                    at,
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
        } else if (has_schema || has_values) && !doc.value.is_null() {
            let what = if has_schema { "schema" } else { "data values" };
            let annotation = if has_schema {
                "@data/values-schema"
            } else {
                "@data/values"
            };
            findings.push(
                Finding::new(
                    "ytt/schema",
                    Kind::Schema,
                    doc.span,
                    format!("a {what} file must only have {what} documents ({annotation}); this document is not one"),
                )
                .with_help("move ordinary documents into a template file of their own"),
            );
        }
    }
}

/// Schema and data-values documents hold no template code, so a key given
/// twice there is the error ytt reports after templating.
fn report_duplicate_keys(node: &Node, findings: &mut Vec<Finding>) {
    match &node.value {
        Value::Map(items) => {
            for (index, item) in items.iter().enumerate() {
                let key = item.key.display();
                if let Some(first) = items[..index]
                    .iter()
                    .find(|earlier| earlier.key.resolved == item.key.resolved)
                {
                    findings.push(
                        Finding::new(
                            "yaml/duplicate-key",
                            Kind::Syntax,
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

/// Build and merge the schema. Ok(None) without schema documents.
fn build_schema(
    docs: &[&Document],
    findings: &mut Vec<Finding>,
    code: &Code<'_>,
) -> Result<Option<SchemaType>, ()> {
    let Some(first) = docs.first() else {
        return Ok(None);
    };
    let mut builder = SchemaBuilder { findings, code };
    let mut types = Vec::new();
    for doc in docs {
        match builder.document_type(doc) {
            Some(ty) => types.push(ty),
            None => return Err(()),
        }
    }
    if docs.len() == 1 {
        return Ok(types.pop());
    }
    // Merge the documents as overlays, keeping the first document's
    // annotations where two annotate one value (ytt: first rule wins).
    let mut merged = (*first).clone();
    let mut merge_findings = Vec::new();
    for doc in &docs[1..] {
        let mut merger = Merger {
            findings: &mut merge_findings,
            has_schema: false,
            keeps_left_annotations: true,
        };
        merger.merge_document(
            &mut merged.value,
            &doc.value,
            &doc.comments,
            MergeMode::default(),
        );
    }
    if !merge_findings.is_empty() {
        for mut finding in merge_findings {
            finding.rule = "ytt/schema";
            finding.kind = Kind::Schema;
            finding.message = format!("schema documents do not merge: {}", finding.message);
            findings.push(finding);
        }
        return Err(());
    }
    SchemaBuilder { findings, code }
        .document_type(&merged)
        .map(Some)
        .ok_or(())
}
