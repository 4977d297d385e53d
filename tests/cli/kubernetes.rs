//! The Kubernetes schema check from the command line: the version flag and
//! key, turning the check off, the `--statistics` note on kinds no schema
//! knows, and a rendered finding's place in each report format.

use crate::common::{TempDir, run_in};

const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: \"2\"
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: web
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: api
";

fn manifests() -> TempDir {
    let dir = TempDir::new("kubernetes-cli");
    dir.write("deploy.yaml", DEPLOYMENT);
    dir
}

#[test]
fn the_version_flag_picks_the_schemas_and_names_them() {
    let dir = manifests();
    let run = run_in(
        dir.path(),
        &[
            "lint",
            ".",
            "--kubernetes",
            "--kubernetes-version",
            "1.36",
            "--format",
            "concise",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout.lines().next(),
        Some(
            "deploy.yaml:6:13: error[kubernetes/type] spec.replicas: expected integer, got string \"2\" (Deployment apps/v1, Kubernetes 1.36)"
        ),
        "{}",
        run.stdout
    );
    let newest = run_in(
        dir.path(),
        &["lint", ".", "--kubernetes", "--format", "concise"],
    );
    assert!(
        newest.stdout.contains("Kubernetes 1.37)"),
        "{}",
        newest.stdout
    );

    let unknown = run_in(dir.path(), &["lint", ".", "--kubernetes-version", "1.20"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown
            .stderr
            .contains("confvet has the schemas of Kubernetes 1.35, 1.36, 1.37, not \"1.20\""),
        "{}",
        unknown.stderr
    );
}

#[test]
fn the_configuration_sets_the_version_and_turns_the_check_on_or_off() {
    let dir = manifests();
    dir.write(
        ".confvet.yaml",
        "kubernetes: {manifests: true, version: 1.35}\n",
    );
    let run = run_in(dir.path(), &["lint", ".", "--format", "concise"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains("(Deployment apps/v1, Kubernetes 1.35)"),
        "{}",
        run.stdout
    );
    // The command line wins over the configuration.
    let flag = run_in(
        dir.path(),
        &[
            "lint",
            ".",
            "--kubernetes-version",
            "1.37",
            "--format",
            "concise",
        ],
    );
    assert!(flag.stdout.contains("Kubernetes 1.37)"), "{}", flag.stdout);
    let off = run_in(
        dir.path(),
        &["lint", ".", "--no-kubernetes", "--format", "concise"],
    );
    assert_eq!(off.code, 0, "{}", off.stdout);

    dir.write(".confvet.yaml", "kubernetes: false\n");
    let run = run_in(
        dir.path(),
        &["lint", ".", "--kubernetes", "--format", "concise"],
    );
    assert_eq!(
        run.code, 0,
        "kubernetes: false turns it off: {}",
        run.stdout
    );

    dir.write(
        ".confvet.yaml",
        "kubernetes: {version: \"2.0\", manifest: true}\n",
    );
    let bad = run_in(dir.path(), &["lint", ".", "--format", "concise"]);
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert!(
        bad.stdout.contains(
            "error[config/invalid] kubernetes.version must be one of 1.35, 1.36, 1.37, found \"2.0\""
        ),
        "{}",
        bad.stdout
    );
    assert!(bad.stdout.contains("config/unknown-key"), "{}", bad.stdout);
}

#[test]
fn statistics_note_each_kind_no_schema_knows_once() {
    let dir = manifests();
    let run = run_in(dir.path(), &["lint", ".", "--kubernetes", "--statistics"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "1  kubernetes/type  error    A value of a type the kind's schema does not allow\n\
         \n\
         note: 2 documents of kind Certificate (cert-manager.io/v1) not checked: no Kubernetes schema or CRD knows the kind\n\
         \n\
         1 error, 0 warnings in 1 file\n"
    );
}

#[test]
fn a_finding_in_rendered_output_points_into_the_template_in_every_format() {
    let dir = TempDir::new("kubernetes-formats");
    dir.write("pkg/values.yml", "#@data/values-schema\n---\nreplicas: 2\n");
    dir.write(
        "pkg/deployment.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n\
         spec:\n  replicas: #@ str(data.values.replicas)\n  selector: {matchLabels: {app: web}}\n  template:\n    \
         metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n",
    );
    let sarif = run_in(dir.path(), &["lint", ".", "--format", "sarif"]).json();
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "kubernetes/type");
    assert_eq!(result["level"], "warning");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "pkg/deployment.yml");
    assert_eq!(location["region"]["startLine"], 8);
    let github = run_in(dir.path(), &["lint", ".", "--format", "github"]);
    assert!(
        github
            .stdout
            .starts_with("::warning file=pkg/deployment.yml,line=8,"),
        "{}",
        github.stdout
    );
}
