//! Tests of the ytt navigator on a fixture package (schema, two
//! data-values files, a template, a `.star` library, a text template) and
//! on packages of the shared corpus.

use super::navigator;
use crate::navigate::{CompletionKind, Context, Navigator, WorkspaceMemo};
use crate::source::{SourceFile, Sources, Span};
use std::path::{Path, PathBuf};

const SCHEMA: &str = r#"#@data/values-schema
---
#@schema/desc "The application"
app:
  #@schema/desc "Its name, as labels show it"
  #@schema/validation min_len=1
  name: demo
  #@schema/desc "How many pods run"
  replicas: 1
  #@schema/nullable
  image: ""
  ports:
  - 8080
  env-name: prod
"#;

const VALUES: &str = "#@data/values\n---\napp:\n  replicas: 3\n";

const PROD: &str = "#@data/values\n---\napp:\n  replicas: 5\n";

const TEMPLATE: &str = r#"#@ load("@ytt:data", "data")
#@ load("lib/helpers.star", "labels", full="full_name")
#@ def port():
#@   return data.values.app.ports[0]
#@ end
apiVersion: apps/v1
kind: Deployment
metadata:
  name: #@ full(data.values.app.name)
  labels: #@ labels()
#@ if data.values.app.replicas > 1:
spec:
  replicas: #@ data.values.app.replicas
  port: #@ port()
#@ end
#@yaml/text-templated-strings
data:
  greeting: hello (@= data.values.app.image @)
"#;

const HELPERS: &str = r#"load("@ytt:data", "data")

def labels():
  return {"app": data.values.app.name}
end

def full_name(name):
  return name + "-app"
end
"#;

const TEXT: &str = "(@ load(\"@ytt:data\", \"data\") @)name: (@= data.values.app.name @)\n";

/// A fixture workspace, removed when dropped.
struct Workspace {
    root: PathBuf,
    memo: WorkspaceMemo,
}

impl Workspace {
    fn new(name: &str, files: &[(&str, &str)]) -> Workspace {
        // Tests run in parallel: each workspace in a folder of its own.
        static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let root =
            std::env::temp_dir().join(format!("confvet-nav-ytt-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Workspace {
            root,
            memo: WorkspaceMemo::default(),
        }
    }

    fn fixture() -> Workspace {
        Workspace::new(
            "fixture",
            &[
                ("pkg/config/schema.yml", SCHEMA),
                ("pkg/config/values.yml", VALUES),
                ("pkg/config/values/prod.yml", PROD),
                ("pkg/config/deployment.yml", TEMPLATE),
                ("pkg/config/lib/helpers.star", HELPERS),
                ("pkg/config/notes.txt", TEXT),
            ],
        )
    }

    /// The document at `path` with `text` in its buffer, as the server
    /// opens it.
    fn open(&self, path: &str, text: &str) -> Opened {
        open_in(&self.root, &self.root.join(path), text, &self.memo)
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

struct Opened {
    sources: Sources,
    navigator: Box<dyn Navigator>,
    text: String,
}

fn open_in(root: &Path, path: &Path, text: &str, memo: &WorkspaceMemo) -> Opened {
    try_open(root, path, text, memo).expect("a ytt navigator")
}

fn try_open(root: &Path, path: &Path, text: &str, memo: &WorkspaceMemo) -> Option<Opened> {
    let sources = Sources::new();
    sources.set_stdin(path.to_path_buf(), text.as_bytes().to_vec());
    let name = crate::source::display_name(path, root);
    let file = sources.add(SourceFile::new(
        name,
        Some(path.to_path_buf()),
        text.to_string(),
    ));
    let cx = Context {
        sources: &sources,
        file,
        path,
        root,
        config: None,
        memo,
    };
    let navigator = navigator(&cx)?;
    Some(Opened {
        sources,
        navigator,
        text: text.to_string(),
    })
}

impl Opened {
    /// The offset of the `nth` (0-based) `needle` plus `plus`.
    fn at(&self, needle: &str, nth: usize, plus: usize) -> usize {
        self.text
            .match_indices(needle)
            .nth(nth)
            .unwrap_or_else(|| panic!("{needle} #{nth} in the text"))
            .0
            + plus
    }

    /// Each span as (file name, text spanned).
    fn named(&self, spans: &[Span]) -> Vec<(String, String)> {
        spans
            .iter()
            .map(|span| {
                let source = self.sources.get(span.file);
                let path = self.sources.path(span.file).unwrap();
                (
                    path.file_name().unwrap().to_string_lossy().into_owned(),
                    source.text[span.range()].to_string(),
                )
            })
            .collect()
    }

    fn hover(&self, needle: &str, nth: usize, plus: usize) -> Option<(String, String)> {
        let hover = self.navigator.hover(self.at(needle, nth, plus))?;
        let spanned = self.sources.get(hover.span.file).text[hover.span.range()].to_string();
        Some((spanned, hover.markdown))
    }
}

#[test]
fn hover_on_a_data_value_in_a_template_gives_its_schema_and_final_value() {
    let ws = Workspace::fixture();
    let doc = ws.open("pkg/config/deployment.yml", TEMPLATE);
    let (spanned, markdown) = doc.hover("replicas > 1", 0, 3).unwrap();
    assert_eq!(spanned, "replicas");
    assert_eq!(
        markdown,
        "```\ndata.values.app.replicas: int\n```\n\nHow many pods run\n\n- default: `1`\n- value: `5` (from values/prod.yml:4)\n"
    );
    // Each segment: the path up to the one hovered.
    let (spanned, markdown) = doc.hover("app.replicas > 1", 0, 1).unwrap();
    assert_eq!(spanned, "app");
    assert!(markdown.starts_with("```\ndata.values.app: map\n```\n\nThe application\n"));
    assert!(
        markdown.contains("- value: `{\"name\":\"demo\""),
        "{markdown}"
    );
    // Validations as written, and a value from the schema default.
    let (_, markdown) = doc.hover("app.name)", 0, 5).unwrap();
    assert!(
        markdown.contains("- validation: `min_len=1`\n"),
        "{markdown}"
    );
    assert!(
        markdown.contains("- value: `\"demo\"` (from the schema default)\n"),
        "{markdown}"
    );
    // In a string's text template.
    let (spanned, markdown) = doc.hover("app.image @)", 0, 4).unwrap();
    assert_eq!(spanned, "image");
    assert!(markdown.contains("data.values.app.image: nullable string"));
    // Not on `data` or `values`, not outside code, not an undeclared path.
    assert_eq!(doc.hover("data.values.app.name", 0, 1), None);
    assert_eq!(doc.hover("apiVersion", 0, 1), None);
}

#[test]
fn hover_on_a_key_of_a_data_values_or_schema_file() {
    let ws = Workspace::fixture();
    let doc = ws.open("pkg/config/values.yml", VALUES);
    let (spanned, markdown) = doc.hover("replicas", 0, 0).unwrap();
    assert_eq!(spanned, "replicas");
    assert!(
        markdown.contains("- value: `5` (from values/prod.yml:4)"),
        "{markdown}"
    );
    let doc = ws.open("pkg/config/schema.yml", SCHEMA);
    let (_, markdown) = doc.hover("image", 0, 2).unwrap();
    assert!(
        markdown.starts_with("```\ndata.values.app.image: nullable string\n```\n"),
        "{markdown}"
    );
    assert!(markdown.contains("- default: `null`"), "{markdown}");
    let (_, markdown) = doc.hover("ports", 0, 2).unwrap();
    assert!(
        markdown.starts_with("```\ndata.values.app.ports: array of int\n```\n"),
        "{markdown}"
    );
}

#[test]
fn the_buffer_stands_in_for_the_file_on_disk() {
    let ws = Workspace::fixture();
    let edited = "#@data/values\n---\napp:\n  replicas: 3\n  name: edited\n";
    let doc = ws.open("pkg/config/values.yml", edited);
    let (_, markdown) = doc.hover("name", 0, 0).unwrap();
    assert!(
        markdown.contains("- value: `\"edited\"` (from values.yml:5)"),
        "{markdown}"
    );
}

#[test]
fn a_data_value_and_a_values_key_lead_to_the_schema_key() {
    let ws = Workspace::fixture();
    let doc = ws.open("pkg/config/deployment.yml", TEMPLATE);
    let found = doc.navigator.definition(doc.at("replicas > 1", 0, 0));
    assert_eq!(
        doc.named(&found),
        vec![("schema.yml".into(), "replicas".into())]
    );
    let doc = ws.open("pkg/config/values/prod.yml", PROD);
    let found = doc.navigator.definition(doc.at("app", 0, 0));
    assert_eq!(doc.named(&found), vec![("schema.yml".into(), "app".into())]);
    // The schema's own key is the declaration: nothing further.
    let doc = ws.open("pkg/config/schema.yml", SCHEMA);
    assert!(
        doc.navigator
            .definition(doc.at("replicas", 0, 0))
            .is_empty()
    );
}

#[test]
fn loads_and_calls_lead_to_files_and_defs() {
    let ws = Workspace::fixture();
    let doc = ws.open("pkg/config/deployment.yml", TEMPLATE);
    let found = doc.navigator.definition(doc.at("lib/helpers.star", 0, 3));
    assert_eq!(doc.named(&found), vec![("helpers.star".into(), "".into())]);
    assert_eq!(found[0].start, 0);
    let found = doc.navigator.definition(doc.at("\"labels\"", 0, 2));
    assert_eq!(
        doc.named(&found),
        vec![("helpers.star".into(), "labels".into())]
    );
    // A call of a loaded symbol under another name, and of a local def.
    let found = doc.navigator.definition(doc.at("full(", 0, 1));
    assert_eq!(
        doc.named(&found),
        vec![("helpers.star".into(), "full_name".into())]
    );
    let found = doc.navigator.definition(doc.at("port()", 1, 1));
    assert_eq!(
        doc.named(&found),
        vec![("deployment.yml".into(), "port".into())]
    );
    assert_eq!(found[0].file, doc.navigator_file());
    // ytt's modules, names that are not calls: nothing.
    assert!(
        doc.navigator
            .definition(doc.at("@ytt:data", 0, 2))
            .is_empty()
    );
    assert!(
        doc.navigator
            .definition(doc.at("Deployment", 0, 2))
            .is_empty()
    );
}

impl Opened {
    /// The document's id as the server gave it (the first file added).
    fn navigator_file(&self) -> crate::source::FileId {
        crate::source::FileId(0)
    }
}

#[test]
fn a_load_out_of_the_workspace_is_not_followed() {
    let ws = Workspace::new(
        "outside",
        &[("outside.star", "def f():\n  return 1\nend\n")],
    );
    let root = ws.root.join("ws");
    let text = "#@ load(\"../outside.star\", \"f\")\na: #@ f()\n";
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("t.yml"), text).unwrap();
    let doc = open_in(&root, &root.join("t.yml"), text, &ws.memo);
    assert!(doc.navigator.definition(doc.at("outside", 0, 1)).is_empty());
    assert!(doc.navigator.definition(doc.at("f()", 0, 0)).is_empty());
}

#[test]
fn star_and_text_files_read_data_values_too() {
    let ws = Workspace::fixture();
    let doc = ws.open("pkg/config/lib/helpers.star", HELPERS);
    let (spanned, markdown) = doc.hover("app.name", 0, 5).unwrap();
    assert_eq!(spanned, "name");
    assert!(markdown.starts_with("```\ndata.values.app.name: string\n```\n"));
    let found = doc.navigator.definition(doc.at("app.name", 0, 0));
    assert_eq!(doc.named(&found), vec![("schema.yml".into(), "app".into())]);
    let doc = ws.open("pkg/config/notes.txt", TEXT);
    let (spanned, _) = doc.hover("app.name", 0, 5).unwrap();
    assert_eq!(spanned, "name");
}

#[test]
fn completion_of_data_values_and_annotations() {
    let ws = Workspace::fixture();
    let text = TEMPLATE.replace(
        "#@ if data.values.app.replicas > 1:",
        "#@ if data.values.app.re",
    );
    let doc = ws.open("pkg/config/deployment.yml", &text);
    let at = doc.at("app.re", 0, 6);
    let found = doc.navigator.completions(at);
    let labels: Vec<&str> = found.iter().map(|c| c.label.as_str()).collect();
    // `env-name` is no identifier: not offered.
    assert_eq!(labels, vec!["name", "replicas", "image", "ports"]);
    let replicas = &found[1];
    assert_eq!(replicas.kind, CompletionKind::Field);
    assert_eq!(replicas.detail.as_deref(), Some("int"));
    assert_eq!(replicas.documentation.as_deref(), Some("How many pods run"));
    assert_eq!(&doc.text[replicas.replace.range()], "re");
    let text = TEMPLATE.replace("#@ if data.values.app.replicas > 1:", "#@ if data.values.");
    let doc = ws.open("pkg/config/deployment.yml", &text);
    let found = doc.navigator.completions(doc.at("values.", 1, 7));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].label, "app");
    assert!(found[0].replace.range().is_empty());

    let text = TEMPLATE.replace("kind: Deployment", "#@ overlay/ma\nkind: Deployment");
    let doc = ws.open("pkg/config/deployment.yml", &text);
    let found = doc.navigator.completions(doc.at("overlay/ma", 0, 10));
    let labels: Vec<&str> = found.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(
        labels,
        vec!["overlay/match", "overlay/match-child-defaults"]
    );
    assert_eq!(&doc.text[found[0].replace.range()], "overlay/ma");
    let text = TEMPLATE.replace("kind: Deployment", "#@\nkind: Deployment");
    let doc = ws.open("pkg/config/deployment.yml", &text);
    let found = doc.navigator.completions(doc.at("#@\n", 0, 2));
    assert_eq!(found.len(), super::annotations::ANNOTATIONS.len());
    assert!(found.iter().all(|c| c.documentation.is_some()));
    // Not in plain YAML.
    assert!(
        doc.navigator
            .completions(doc.at("apiVersion", 0, 3))
            .is_empty()
    );
}

#[test]
fn no_navigator_for_files_of_other_systems() {
    let ws = Workspace::fixture();
    let plain = "apiVersion: v1\nkind: ConfigMap\n";
    std::fs::write(ws.root.join("plain.yml"), plain).unwrap();
    assert!(try_open(&ws.root, &ws.root.join("plain.yml"), plain, &ws.memo).is_none());
    assert!(try_open(&ws.root, &ws.root.join("README.md"), "# x", &ws.memo).is_none());
}

#[test]
fn a_package_that_does_not_evaluate_keeps_its_schema_facts() {
    let ws = Workspace::fixture();
    // A value of the wrong type: still the schema's facts.
    let broken = "#@data/values\n---\napp:\n  replicas: many\n";
    let doc = ws.open("pkg/config/values.yml", broken);
    let (_, markdown) = doc.hover("replicas", 0, 0).unwrap();
    assert!(
        markdown.starts_with("```\ndata.values.app.replicas: int\n```\n"),
        "{markdown}"
    );
}

/// The repository of the ytt corpus named `name`, when the shared folder
/// is there (it must be where `CONFVET_REQUIRE_SHARED` is set).
fn corpus_repo(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus/ytt")
        .join(name);
    if dir.is_dir() {
        return Some(crate::source::normalize_path(&dir));
    }
    if std::env::var_os("CONFVET_REQUIRE_SHARED").is_some_and(|v| !v.is_empty()) {
        panic!(
            "CONFVET_REQUIRE_SHARED is set, but {} is missing",
            dir.display()
        );
    }
    None
}

/// The corpus file at `path` below `repo`, opened with its repository as
/// the workspace.
fn open_corpus(repo: &Path, path: &str, memo: &WorkspaceMemo) -> Opened {
    let path = repo.join(path);
    let text = std::fs::read_to_string(&path).unwrap();
    open_in(repo, &path, &text, memo)
}

#[test]
fn corpus_contour_data_values_in_an_overlay_and_a_star_file() {
    let Some(repo) = corpus_repo("kadras-io__package-for-contour") else {
        return;
    };
    let memo = WorkspaceMemo::default();
    let doc = open_corpus(&repo, "package/config/overlays/envoy-service.yml", &memo);
    let needle = "type: #@ data.values.envoy.service.type";
    let (spanned, markdown) = doc.hover(needle, 0, 35).unwrap();
    assert_eq!(spanned, "type");
    let declared = "```\ndata.values.envoy.service.type: string\n```\n";
    assert!(markdown.starts_with(declared), "{markdown}");
    assert!(markdown.contains("(from the schema default)"), "{markdown}");
    let at = doc.at(needle, 0, 35);
    let found = doc.navigator.definition(at);
    let named = doc.named(&found);
    assert_eq!(named, vec![("values-schema.yml".into(), "type".into())]);
    let line = doc
        .sources
        .get(found[0].file)
        .line_col(found[0].range().start)
        .line;
    let schema = std::fs::read_to_string(repo.join("package/config/values-schema.yml")).unwrap();
    let service = schema.find("\n  service:").unwrap();
    let declared = service + schema[service..].find("\n    type:").unwrap() + 1;
    assert_eq!(line, schema[..declared].lines().count() + 1);

    let doc = open_corpus(&repo, "package/config/contour.star", &memo);
    let (spanned, markdown) = doc.hover("config.logFormat", 0, 8).unwrap();
    assert_eq!(spanned, "logFormat");
    assert!(
        markdown.contains("- validation: `one_of=[\"json\", \"text\"]`"),
        "{markdown}"
    );
    assert!(
        markdown.contains("Log output format for Contour."),
        "{markdown}"
    );
}

#[test]
fn corpus_platform_loads_from_the_package_root() {
    let Some(repo) = corpus_repo("kadras-io__kadras-engineering-platform") else {
        return;
    };
    let memo = WorkspaceMemo::default();
    let doc = open_corpus(
        &repo,
        "package/config/components/secretgen-controller.yml",
        &memo,
    );
    let found = doc
        .navigator
        .definition(doc.at("is_package_enabled(", 0, 3));
    assert_eq!(
        doc.named(&found),
        vec![("helpers.star".into(), "is_package_enabled".into())]
    );
    let found = doc
        .navigator
        .definition(doc.at("\"is_package_enabled\"", 0, 3));
    assert_eq!(
        doc.named(&found),
        vec![("helpers.star".into(), "is_package_enabled".into())]
    );
    let (spanned, markdown) = doc.hover("platform.namespace", 0, 10).unwrap();
    assert_eq!(spanned, "namespace");
    assert!(
        markdown.starts_with("```\ndata.values.platform.namespace: string\n```\n"),
        "{markdown}"
    );
}

/// How long a navigator takes to build and to answer on corpus packages:
/// `cargo test --release --lib navigator_timings -- --ignored --nocapture`;
/// with `CONFVET_BENCH_WORKSPACE` set to a folder made by
/// `scripts/corpus-copies.sh`, the packages of its first copy with the
/// whole folder as the workspace.
#[test]
#[ignore]
fn navigator_timings() {
    let cases = [
        (
            "kadras-io__package-for-contour",
            "package/config/overlays/envoy-service.yml",
            "service.type",
        ),
        (
            "kadras-io__kadras-engineering-platform",
            "package/config/components/secretgen-controller.yml",
            "platform.namespace",
        ),
        (
            "educates__educates-training-platform",
            "carvel-packages/installer/config/app.yaml",
            "imageRegistry.host",
        ),
    ];
    let workspace = std::env::var_os("CONFVET_BENCH_WORKSPACE").map(PathBuf::from);
    for (repo, path, needle) in cases {
        let Some(mut repo) = corpus_repo(repo) else {
            return;
        };
        let mut root = repo.clone();
        if let Some(workspace) = &workspace {
            root = workspace.clone();
            repo = workspace.join("copy1/ytt").join(repo.file_name().unwrap());
        }
        let memo = WorkspaceMemo::default();
        let started = std::time::Instant::now();
        let doc = open_bench(&root, &repo.join(path), &memo);
        let first = started.elapsed();
        let runs = 10;
        let started = std::time::Instant::now();
        for _ in 0..runs {
            open_bench(&root, &repo.join(path), &memo);
        }
        let build = started.elapsed() / runs;
        let at = doc.at(needle, 0, needle.len() - 1);
        let started = std::time::Instant::now();
        let answers = 1000;
        for _ in 0..answers {
            assert!(doc.navigator.hover(at).is_some());
            assert!(!doc.navigator.definition(at).is_empty());
            doc.navigator.completions(at);
        }
        let answer = started.elapsed() / (3 * answers);
        println!(
            "{path}: first build (with the workspace index) {first:?}, build {build:?}, answer {answer:?}"
        );
    }
}

/// The file at `path` opened in the workspace `root`.
fn open_bench(root: &Path, path: &Path, memo: &WorkspaceMemo) -> Opened {
    let text = std::fs::read_to_string(path).unwrap();
    open_in(root, path, &text, memo)
}

#[test]
fn corpus_educates_a_private_library_has_its_own_schema() {
    let Some(repo) = corpus_repo("educates__educates-training-platform") else {
        return;
    };
    let memo = WorkspaceMemo::default();
    let library = "carvel-packages/installer/bundle/config/ytt/_ytt_lib/packages/contour";
    let doc = open_corpus(
        &repo,
        &format!("{library}/overlays/overlay-service.yaml"),
        &memo,
    );
    let (spanned, markdown) = doc.hover("service.type", 0, 9).unwrap();
    assert_eq!(spanned, "type");
    assert!(
        markdown.contains("data.values.service.type: "),
        "{markdown}"
    );
    let found = doc.navigator.definition(doc.at("service.type", 0, 9));
    assert_eq!(
        doc.named(&found),
        vec![("values-schema.yaml".into(), "type".into())]
    );
    let schema = doc.sources.path(found[0].file).unwrap();
    assert!(
        schema.ends_with(format!("{library}/values-schema.yaml")),
        "{}",
        schema.display()
    );
}

#[test]
fn a_value_set_in_the_schema_file_but_not_by_its_schema() {
    let both = "#@data/values-schema\n---\nsize: 1\n#@data/values\n---\nsize: 2\n";
    let ws = Workspace::new("both", &[("pkg/both.yml", both)]);
    let doc = ws.open("pkg/both.yml", both);
    let (_, markdown) = doc.hover("size", 0, 0).unwrap();
    assert!(
        markdown.contains("- value: `2` (from both.yml:6)"),
        "{markdown}"
    );
}

#[test]
fn hover_names_where_an_array_or_a_map_was_set() {
    let prod = "#@data/values\n---\napp:\n  replicas: 5\n  ports:\n  - 80\n  - 443\n";
    let ws = Workspace::new(
        "origins",
        &[
            ("pkg/config/schema.yml", SCHEMA),
            ("pkg/config/values.yml", VALUES),
            ("pkg/config/values/prod.yml", prod),
            ("pkg/config/deployment.yml", TEMPLATE),
        ],
    );
    let doc = ws.open("pkg/config/values/prod.yml", prod);
    // An array a values file replaced whole: from where it was written.
    let (_, markdown) = doc.hover("ports", 0, 1).unwrap();
    assert!(
        markdown.contains("- value: `[80,443]` (from values/prod.yml:6)"),
        "{markdown}"
    );
    // A map the schema gave, which values files changed in part.
    let (_, markdown) = doc.hover("app", 0, 1).unwrap();
    assert!(
        markdown.contains("(from the schema default, changed at values/prod.yml:4)"),
        "{markdown}"
    );
}
