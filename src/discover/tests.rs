//! Unit tests of discovery: reading, classification and scanning.

use super::classify::{opens_block_scalar, scan};
use super::*;

#[test]
fn a_file_that_cannot_be_read_is_a_run_error_naming_it() {
    // A directory named like YAML: reading it fails, even as root.
    let dir = std::env::temp_dir().join(format!("confvet-unreadable-{}", std::process::id()));
    let path = dir.join("values.yml");
    std::fs::create_dir_all(&path).unwrap();
    let sources = Sources::new();
    let error = read_and_parse(&path, &sources, &dir, &ParseOptions::default(), None).unwrap_err();
    assert!(matches!(error, crate::error::Error::Io { .. }), "{error:?}");
    assert_eq!(error.file(), Some("values.yml"));
    let message = error.to_string();
    assert!(
        message.starts_with("values.yml: cannot read: "),
        "{message}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn files_are_classified_by_content() {
    assert_eq!(
        classify("apiVersion: tekton.dev/v1\nkind: Task\n"),
        Some(System::Tekton)
    );
    assert_eq!(classify("kind: Template\n"), Some(System::Kubevirt));
    assert_eq!(classify("kind: VirtualMachine\n"), Some(System::Kubevirt));
    assert_eq!(classify("#@data/values\n---\na: 1\n"), Some(System::Ytt));
    assert_eq!(classify("a: 1 # plain\n"), None);
    assert_eq!(classify("kind: TemplateInstance\n"), None);
}

#[test]
fn block_scalar_text_is_content_not_annotations() {
    // A ConfigMap carrying a ytt schema and a Tekton Task as text.
    let config_map = "kind: ConfigMap\ndata:\n  schema.yml: |\n    #@data/values-schema\n    ---\n    a: 1\n\n  task.yml: |-\n    apiVersion: tekton.dev/v1\n    kind: Task\n";
    assert_eq!(classify(config_map), None);
    let after = format!("{config_map}other: 1\n#@ load(\"@ytt:data\", \"data\")\n");
    assert_eq!(classify(&after), Some(System::Ytt), "the block ends");
    let listed = "items:\n- |\n  #@data/values\n- >+\n  kind: Template\n";
    assert_eq!(classify(listed), None);
    assert!(opens_block_scalar("key: |2 # note"));
    assert!(!opens_block_scalar("key: \"|\""));
    assert!(!opens_block_scalar("key: |x"));
}

#[test]
fn an_annotation_is_named_by_its_whole_first_word() {
    let scan = |text: &str| {
        let s = scan(text);
        (s.has_schema, s.has_values)
    };
    assert_eq!(scan("#@data/values-schema\n---\na: 1\n"), (true, false));
    assert_eq!(scan("#@data/values-schemaX\n---\na: 1\n"), (false, false));
    assert_eq!(
        scan("#@data/values after=\"x\"\n---\na: 1\n"),
        (false, true)
    );
    assert_eq!(scan("#@data/values-other\n---\na: 1\n"), (false, false));
}

#[test]
fn a_package_takes_the_plain_yaml_below_it_that_ytt_outputs() {
    let dir = std::env::temp_dir().join(format!("confvet-plain-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let files = [
        ("pkg/values.yml", "#@data/values\n---\na: 1\n"),
        ("pkg/upstream/deployment.yml", "kind: Deployment\n"),
        ("pkg/notes.yaml", "a: [1, 2\n"),
        ("pkg/helpers.lib.yml", "b: 1\n"),
        ("pkg/_ytt_lib/lib/plain.yml", "c: 1\n"),
        ("other/plain.yml", "d: 1\n"),
    ];
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let sources = Sources::new();
    let discovery = discover_with(
        &[dir.join("pkg"), dir.join("other")],
        &sources,
        &dir,
        &ParseOptions::default(),
        &DiscoverOptions::default(),
    );
    let members: Vec<String> = discovery
        .units
        .iter()
        .flat_map(|unit| &unit.files)
        .map(|&i| sources.name(discovery.files[i].id))
        .collect();
    // In ytt's order; not the library file, the private library's file or
    // the YAML of no package.
    assert_eq!(
        members,
        [
            "pkg/notes.yaml",
            "pkg/upstream/deployment.yml",
            "pkg/values.yml"
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_tekton_or_kubevirt_file_holding_other_resources_is_a_manifest_too() {
    let manifest = |text: &str| scan(text).resource.manifest;
    assert!(!manifest("apiVersion: tekton.dev/v1\nkind: Task\n"));
    let install = "apiVersion: v1\nkind: Namespace\n---\napiVersion: triggers.tekton.dev/v1alpha1\nkind: ClusterInterceptor\n";
    assert!(manifest(install));
    // A resource a TriggerTemplate creates is no document of the file.
    let template = "apiVersion: triggers.tekton.dev/v1beta1\nkind: TriggerTemplate\nspec:\n  resourcetemplates:\n  - apiVersion: v1\n    kind: ConfigMap\n";
    assert!(!manifest(template));
    let objects = "apiVersion: template.openshift.io/v1\nkind: Template\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n";
    assert!(!manifest(objects));
    assert!(manifest(&format!(
        "{objects}---\napiVersion: v1\nkind: ConfigMap\n"
    )));
    // Helm markup makes no manifest, whatever the system.
    assert!(!manifest(&format!(
        "{install}  name: {{{{ .Release.Name }}}}\n"
    )));
}

#[test]
fn a_system_reads_the_documents_of_its_kinds() {
    let doc = |text: &str| {
        let set = crate::yaml::parse_file(crate::source::FileId(0), text, &ParseOptions::default());
        set.expect("parses").docs.remove(0).value
    };
    let task = doc("apiVersion: tekton.dev/v1\nkind: Task\n");
    let config_map = doc("apiVersion: v1\nkind: ConfigMap\n");
    let template = doc("apiVersion: template.openshift.io/v1\nkind: Template\n");
    let vm = doc("apiVersion: kubevirt.io/v1\nkind: VirtualMachine\n");
    let vmi = doc("apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstance\n");
    assert!(reads_document(System::Tekton, &task));
    assert!(!reads_document(System::Tekton, &config_map));
    assert!(!reads_document(System::Tekton, &vm));
    assert!(reads_document(System::Kubevirt, &template));
    assert!(reads_document(System::Kubevirt, &vm));
    assert!(!reads_document(System::Kubevirt, &vmi));
    assert!(!reads_document(System::Kubevirt, &config_map));
}

/// The walk sorts by bytes with separators lowest, which must be the order
/// `Path::cmp` gives: findings and units are listed in it.
#[test]
fn the_walk_orders_paths_as_path_comparison_does() {
    let paths = [
        "a",
        "a/b",
        "a-b",
        "a.b",
        "a/b/c",
        "a/b-c",
        "a/b.c",
        "ab",
        "a0",
        "./x",
        "./x/y",
        "./.x",
        "../x",
        ".hidden/y",
        "/abs",
        "/abs/z",
        "b/a",
        "b",
        "é/x",
        "e/x",
        "a b/c",
        "a/ b",
    ];
    let paths: Vec<&std::path::Path> = paths.iter().map(std::path::Path::new).collect();
    for a in &paths {
        for b in &paths {
            assert_eq!(
                walk::path_order(a, b),
                a.cmp(b),
                "{} vs {}",
                a.display(),
                b.display()
            );
        }
    }
}
