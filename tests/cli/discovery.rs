//! Which files `confvet lint` reads: hidden directories (Pipelines-as-Code's
//! `.tekton/`) but never `.git/`, files named on the command line exactly
//! as the walk classifies them, named files an ignore file hides.

use crate::common;

use common::{TempDir, findings, run_in};

/// A Task whose step reads an undeclared param: one error wherever it is.
const BAD_TASK: &str = "\
apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: t
spec:
  steps:
    - name: s
      image: $(params.nope)
";

fn files_with_findings(dir: &TempDir, args: &[&str]) -> (i32, Vec<String>) {
    let run = run_in(dir.path(), args);
    let json = run.json();
    let mut files: Vec<String> = findings(&json)
        .iter()
        .map(|f| f["file"].as_str().unwrap_or_default().to_string())
        .collect();
    files.sort();
    (run.code, files)
}

#[test]
fn hidden_directories_are_linted_but_not_version_control() {
    let dir = TempDir::new("hidden");
    dir.write(".tekton/pull-request.yaml", BAD_TASK);
    dir.write(".github/tekton/task.yaml", BAD_TASK);
    dir.write(".git/objects/task.yaml", BAD_TASK);
    let (code, files) = files_with_findings(&dir, &["lint", ".", "--format", "json"]);
    assert_eq!(code, 1);
    assert_eq!(
        files,
        [".github/tekton/task.yaml", ".tekton/pull-request.yaml"]
    );
}

#[test]
fn ignore_files_and_excludes_still_hold_in_hidden_directories() {
    let dir = TempDir::new("hidden-ignored");
    dir.write(".tekton/pull-request.yaml", BAD_TASK);
    dir.write(".tekton/generated/task.yaml", BAD_TASK);
    dir.write(".ignore", ".tekton/generated/\n");
    let (_, files) = files_with_findings(&dir, &["lint", ".", "--format", "json"]);
    assert_eq!(files, [".tekton/pull-request.yaml"]);
    dir.write(".confvet.yaml", "exclude:\n  - .tekton/\n");
    let (code, files) = files_with_findings(&dir, &["lint", ".", "--format", "json"]);
    assert_eq!((code, files), (0, Vec::<String>::new()));
}

#[test]
fn a_named_hidden_or_ignored_file_is_linted() {
    let dir = TempDir::new("named-hidden");
    dir.write(".tekton/pull-request.yaml", BAD_TASK);
    dir.write("generated/task.yaml", BAD_TASK);
    dir.write(".ignore", "generated/\n");
    for name in [".tekton/pull-request.yaml", "generated/task.yaml"] {
        let (code, files) = files_with_findings(&dir, &["lint", name, "--format", "json"]);
        assert_eq!((code, files), (1, vec![name.to_string()]), "{name}");
    }
}

#[test]
fn a_named_file_no_system_reads_is_skipped_as_the_walk_skips_it() {
    let dir = TempDir::new("named-helm");
    let helm = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicas }}
  {{- with .Values.podAnnotations }}
  template: {{ toYaml . | nindent 4 }}
  {{- end }}
";
    dir.write("chart/templates/deployment.yaml", helm);
    dir.write("chart/values.yaml", "replicas: 1\n");
    let (code, files) = files_with_findings(
        &dir,
        &[
            "lint",
            "chart/templates/deployment.yaml",
            "chart/values.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!((code, files), (0, Vec::<String>::new()));
    // The directory walk gives the same.
    let (code, files) = files_with_findings(&dir, &["lint", "chart", "--format", "json"]);
    assert_eq!((code, files), (0, Vec::<String>::new()));
}

/// A template whose only code is computed values (`key: #@ expr`) is a ytt
/// file, and is rendered; a `#@` inside a plain value is not code.
#[test]
fn a_template_of_computed_values_only_is_ytt() {
    let dir = TempDir::new("values-only");
    dir.write("pkg/deploy.yml", "---\nspec:\n  replicas: #@ 1 + \"2\"\n");
    dir.write("plain/config.yml", "password: \"a#@b\"\n");
    let (code, files) = files_with_findings(&dir, &["lint", ".", "--format", "json"]);
    assert_eq!(code, 0, "{files:?}");
    assert_eq!(files, ["pkg/deploy.yml"]);
}

/// A private library is part of the package whose folder holds its
/// `_ytt_lib`, even when that package has no schema or data values of its
/// own: its schema is checked with what the package gives it, never alone
/// (alone, `name: ""` breaks `min_len=1`, which the package's value meets).
#[test]
fn a_private_library_is_never_a_package_of_its_own() {
    let dir = TempDir::new("library-owner");
    dir.write(
        "pkg/config.yml",
        "#@ load(\"@ytt:library\", \"library\")\n#@ load(\"@ytt:template\", \"template\")\n#@ app = library.get(\"app\").with_data_values({\"name\": NAME})\n--- #@ template.replace(app.eval())\n",
    );
    dir.write(
        "pkg/_ytt_lib/app/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min_len=1\nname: \"\"\n",
    );
    dir.write(
        "pkg/_ytt_lib/app/t.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nn: #@ data.values.name\n",
    );
    let config = dir.read("pkg/config.yml");
    for (name, expected) in [
        ("\"x\"", vec![]),
        ("\"\"", vec!["pkg/config.yml".to_string()]),
    ] {
        dir.write("pkg/config.yml", config.replace("NAME", name));
        for root in [".", "pkg"] {
            let (_, files) = files_with_findings(&dir, &["lint", root, "--format", "json"]);
            assert_eq!(files, expected, "name {name}, lint {root}");
        }
    }
}

/// Templates with no schema or data values above them take the plain YAML
/// of the folders around them, as `ytt -f` of the folder above does: an
/// overlay in `config/overlays/` is written for `config/upstream/`. A
/// folder of other templates beside it stays a unit of its own.
#[test]
fn templates_without_a_package_take_the_plain_yaml_beside_them() {
    let dir = TempDir::new("template-folders");
    dir.write(
        "config/upstream/deploy.yaml",
        "kind: Deployment\nmetadata:\n  name: app\n",
    );
    dir.write(
        "config/overlays/pull-secret.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.subset({\"kind\": \"Deployment\"}), expects=\"1+\"\n---\n#@overlay/match missing_ok=True\nspec:\n  pullSecret: creds\n",
    );
    for root in [".", "config", "config/overlays/.."] {
        let (code, files) = files_with_findings(&dir, &["lint", root, "--format", "json"]);
        assert_eq!((code, files), (0, Vec::<String>::new()), "lint {root}");
    }
    // Another folder of templates in the same tree: the overlay's folder no
    // longer climbs past it, and fails alone as `ytt -f config/overlays`
    // does; a package of overlays alone that match nothing is written for
    // files given beside it, so each failure is a warning.
    dir.write(
        "config/more/extra.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.subset({\"kind\": \"Service\"})\n---\nspec: {}\n",
    );
    let (code, files) = files_with_findings(&dir, &["lint", "config", "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(
        files,
        ["config/more/extra.yml", "config/overlays/pull-secret.yml"]
    );
}

/// A package found below folders that hold nothing else is rooted at the
/// folder with its files, where `ytt -f` is pointed: an absolute load
/// (`/values.star`) names a file there, not in a folder above. Not below
/// a folder lint is given, though: that is the root, as `ytt -f DIR`
/// (and `confvet render DIR`) root it.
#[test]
fn a_package_is_rooted_at_the_folder_that_holds_its_files() {
    let dir = TempDir::new("settled-root");
    let config = "packages/app/1.0/bundle/config";
    dir.write(
        &format!("{config}/values.star"),
        "def replicas():\n  return 2\nend\n",
    );
    dir.write(
        &format!("{config}/upstream/deploy.yaml"),
        "kind: Deployment\nspec:\n  replicas: 1\n",
    );
    dir.write(
        &format!("{config}/overlays/replicas.yml"),
        "#@ load(\"/values.star\", \"replicas\")\n#@ load(\"@ytt:overlay\", \"overlay\")\n#@overlay/match by=overlay.subset({\"kind\": \"Deployment\"})\n---\nspec:\n  replicas: #@ replicas()\n",
    );
    // A sibling package keeps the walk from climbing past `packages/`.
    dir.write("packages/other/config.yml", "---\nnum: #@ 1\n");
    for root in [".", "packages", config] {
        let (code, files) = files_with_findings(&dir, &["lint", root, "--format", "json"]);
        assert_eq!((code, files), (0, Vec::<String>::new()), "lint {root}");
    }
    // `ytt -f packages/app` finds no `/values.star` there: nor does lint.
    let run = run_in(dir.path(), &["lint", "packages/app", "--format", "concise"]);
    assert!(
        run.stdout.contains("cannot load /values.star"),
        "{}",
        run.stdout
    );
    let run = run_in(dir.path(), &["render", "--each-package", "packages"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        format!(
            "# confvet render: {config}\nkind: Deployment\nspec:\n  replicas: 2\n# confvet render: packages/other\nnum: 1\n"
        )
    );
}

/// A run over hundreds of packages renders the last as it renders the
/// first: nothing one package's render leaves behind (template ids, for
/// one) runs out over a long run.
#[test]
fn hundreds_of_packages_render_in_one_run() {
    let dir = TempDir::new("many-packages");
    for i in 0..300 {
        dir.write(
            &format!("pkg-{i:03}/config.yml"),
            format!("#@ def name():\n#@   return \"app-{i}\"\n#@ end\n---\nname: #@ name()\n"),
        );
    }
    let (code, files) = files_with_findings(&dir, &["lint", ".", "--format", "json"]);
    assert_eq!((code, files), (0, Vec::<String>::new()));
    let run = run_in(dir.path(), &["render", "--each-package", "."]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let names: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("name: "))
        .collect();
    let expected: Vec<String> = (0..300).map(|i| format!("app-{i}")).collect();
    assert_eq!(names, expected);
}

/// A schema file with overlay annotations in a folder below another
/// schema's folder extends that schema (`prod/` overlaying the defaults),
/// as `ytt -f DIR` merges them: one package, not two. A nested schema
/// without overlay annotations is a package of its own.
#[test]
fn a_nested_schema_overlay_extends_the_package_above() {
    let dir = TempDir::new("schema-extension");
    // Before `prod/` in ytt's file order, as the base must be.
    dir.write(
        "app/defaults.yml",
        "#@data/values-schema\n---\nkeys:\n  key1: one\n",
    );
    dir.write(
        "app/config.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nkey3: #@ data.values.keys.key3\n",
    );
    dir.write(
        "app/prod/schema.yml",
        "#@ load(\"@ytt:overlay\", \"overlay\")\n#@data/values-schema\n---\nkeys:\n  #@overlay/match missing_ok=True\n  key3: three\n",
    );
    for root in [".", "app"] {
        let (code, files) = files_with_findings(&dir, &["lint", root, "--format", "json"]);
        assert_eq!((code, files), (0, Vec::<String>::new()), "lint {root}");
    }
    let run = run_in(dir.path(), &["render", "app"]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "key3: three\n"));
    // Without the overlay annotation, `prod/` is a package of its own (and
    // the template, without `key3`, fails with the package's own values).
    dir.write(
        "app/prod/schema.yml",
        "#@data/values-schema\n---\nkeys:\n  key3: three\n",
    );
    let run = run_in(dir.path(), &["lint", ".", "--format", "json"]);
    assert_eq!(run.json()["summary"]["units"], 2, "{}", run.stdout);
}
