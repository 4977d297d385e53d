//! Hostile repositories that try to make confvet read what is outside them,
//! or print the CI job's secrets: each is linted in every output format
//! with a marker secret in the environment and in a file beside the
//! repository, and the marker must appear in none of them (nor on standard
//! error). Each run ends with exit 1 or 2, or 0 with a warning naming the
//! link it refused, well within the hang guard.

use super::common::TempDir;
use super::run_guarded;
use std::path::Path;

/// What a leak would show: in the environment of every run, and in a file
/// beside the repository that is not valid YAML (so a read would quote it
/// in a `yaml/syntax` snippet).
const MARKER: &str = "ghp_CONFVETMARKERSECRET0123456789";

const FORMATS: [&str; 10] = [
    "text", "concise", "json", "sarif", "junit", "github", "markdown", "gitlab", "azure", "rdjson",
];

/// A repository: `repo/` (where confvet runs), with a ytt package `pkg/`
/// whose schema validates `key`, and `secret.yml` beside it.
fn hostile_repository(label: &str) -> TempDir {
    let dir = TempDir::new(label);
    dir.write("secret.yml", format!("token: [{MARKER}\n"));
    dir.write("secretdir/values.yml", format!("key: {MARKER}\n"));
    dir.write(
        "repo/pkg/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation one_of=[\"a\", \"b\"]\nkey: a\n",
    );
    dir.write(
        "repo/pkg/tpl.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nk: #@ data.values.key\n",
    );
    dir
}

fn link(dir: &TempDir, target: &str, at: &str) {
    let at = dir.path().join(at);
    std::fs::create_dir_all(at.parent().expect("a parent")).expect("directories");
    std::os::unix::fs::symlink(target, at).expect("a symlink");
}

fn mkfifo(dir: &TempDir, rel: &str) {
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join(rel))
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
}

/// Lint `repo/` with `args` in every format, the marker in the
/// environment; no output holds it. The exit codes, one per format.
fn lint_every_format(dir: &TempDir, args: &[&str]) -> Vec<(i32, String)> {
    let repo = dir.path().join("repo");
    let env = [("MY_key", MARKER), ("CI_TOKEN", MARKER)];
    FORMATS
        .iter()
        .map(|format| {
            let mut all = vec!["lint", "--format", format];
            all.extend_from_slice(args);
            let run = run_guarded(&repo, &all, &env);
            for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
                assert!(
                    !text.contains(MARKER) && !text.contains(&MARKER[..16]),
                    "confvet {all:?} printed the secret on {stream}:\n{text}"
                );
            }
            let code = run.code.unwrap_or(-1);
            assert!(
                (0..=2).contains(&code),
                "confvet {all:?} ended with {:?}:\n{}",
                run.code,
                run.stderr
            );
            (code, format!("{}{}", run.stdout, run.stderr))
        })
        .collect()
}

/// Every format exited with `code`, and the text output says `says`.
fn assert_refused(runs: &[(i32, String)], code: i32, says: &str) {
    for (format, (got, output)) in FORMATS.iter().zip(runs) {
        assert_eq!(*got, code, "--format {format}:\n{output}");
    }
    assert!(runs[0].1.contains(says), "{}", runs[0].1);
}

fn config(dir: &TempDir, scenario: &str) {
    dir.write(
        "repo/.confvet.yaml",
        format!("ytt:\n  packages:\n    - path: pkg\n      scenarios:\n        - name: s\n          {scenario}\n"),
    );
}

#[test]
fn configuration_paths_out_of_the_repository_are_refused_before_anything_is_read() {
    let absolute = |dir: &TempDir, rel: &str| dir.path().join(rel).display().to_string();
    // Each case lays out what it needs and gives its scenario's line.
    type Case = Box<dyn Fn(&TempDir) -> String>;
    let cases: Vec<(&str, Case)> = vec![
        (
            "proc",
            Box::new(|_| "data-value-file: key=/proc/self/environ".into()),
        ),
        (
            "absolute",
            Box::new(move |d| format!("data-values-file: {}", absolute(d, "secret.yml"))),
        ),
        (
            "dotdot",
            Box::new(|_| "data-values-file: ../secret.yml".into()),
        ),
        (
            "dotdot-key",
            Box::new(|_| "data-value-file: key=pkg/../../secret.yml".into()),
        ),
        (
            "dir-outside",
            Box::new(|_| "data-values-file: ../secretdir".into()),
        ),
        (
            "linked-dir",
            Box::new(|d| {
                link(d, "../secretdir", "repo/values");
                "data-values-file: values/values.yml".into()
            }),
        ),
        (
            "linked-file",
            Box::new(|d| {
                link(d, "../secret.yml", "repo/prod.yml");
                "data-values-file: prod.yml".into()
            }),
        ),
        (
            "fifo",
            Box::new(|d| {
                mkfifo(d, "repo/pipe.yml");
                "data-values-file: pipe.yml".into()
            }),
        ),
    ];
    for (label, scenario) in cases {
        let dir = hostile_repository(&format!("secrets-config-{label}"));
        let scenario = scenario(&dir);
        config(&dir, &scenario);
        let runs = lint_every_format(&dir, &[]);
        assert_refused(&runs, 2, "config/invalid");
    }
}

#[test]
fn package_paths_out_of_the_repository_are_refused() {
    for (label, path) in [("dotdot", "../secretdir"), ("linked", "linked")] {
        let dir = hostile_repository(&format!("secrets-package-{label}"));
        link(&dir, "../secretdir", "repo/linked");
        dir.write(
            "repo/.confvet.yaml",
            format!("ytt:\n  packages:\n    - path: {path}\n"),
        );
        let runs = lint_every_format(&dir, &[]);
        assert_refused(&runs, 2, "the configuration may only name what is inside");
    }
}

#[test]
fn a_configuration_file_linked_out_of_the_repository_is_not_read() {
    let dir = hostile_repository("secrets-config-link");
    dir.write(
        "outside.yaml",
        format!("{MARKER}: [\nytt:\n  packages:\n    - path: ../\n"),
    );
    link(&dir, "../outside.yaml", "repo/.confvet.yaml");
    let runs = lint_every_format(&dir, &[]);
    assert_refused(&runs, 2, "symbolic link that leads out of its directory");
}

#[test]
fn the_configuration_reads_the_environment_only_when_the_command_line_allows_it() {
    for key in ["data-values-env", "data-values-env-yaml"] {
        let dir = hostile_repository("secrets-env");
        config(&dir, &format!("{key}: MY"));
        let runs = lint_every_format(&dir, &[]);
        assert_refused(&runs, 1, "--allow-config-env");
        // Allowed, the value is read and breaks the rule: the finding names
        // the variable instead of quoting it.
        let runs = lint_every_format(&dir, &["--allow-config-env"]);
        assert_refused(&runs, 1, "found the value of MY_key");
    }
}

#[test]
fn values_from_the_environment_are_named_in_every_format_never_shown() {
    let dir = hostile_repository("secrets-env-flags");
    let runs = lint_every_format(&dir, &["--no-config", "pkg", "--data-values-env", "MY"]);
    assert_refused(&runs, 1, "found the value of MY_key");
    let runs = lint_every_format(
        &dir,
        &["--no-config", "pkg", "--data-values-env-yaml", "MY"],
    );
    assert_refused(&runs, 1, "the value of MY_key");
    // The process's own environment, named by the operator: refused as a
    // kernel file, not read.
    let runs = lint_every_format(
        &dir,
        &[
            "--no-config",
            "pkg",
            "--data-value-file",
            "key=/proc/self/environ",
        ],
    );
    assert_refused(&runs, 1, "kernel's /proc file system, not a file");
}

#[test]
fn links_out_of_the_repository_are_warned_about_and_never_followed() {
    let dir = hostile_repository("secrets-links");
    // A file and a folder of the package, a Tekton file, a folder, and a
    // data values folder's file: each a link out.
    link(&dir, "../../secret.yml", "repo/pkg/values.yml");
    link(&dir, "../../secretdir", "repo/pkg/more");
    link(&dir, "../../secret.yml", "repo/tekton/task.yaml");
    link(&dir, "../secretdir", "repo/config");
    link(&dir, "../../secret.yml", "repo/vals/prod.yml");
    mkfifo(&dir, "repo/pkg/pipe.yml");
    dir.write("repo/vals/base.yml", "key: b\n");
    config(&dir, "data-values-file: vals");
    let runs = lint_every_format(&dir, &[]);
    for (format, (code, output)) in FORMATS.iter().zip(&runs) {
        assert_eq!(*code, 0, "--format {format}: only warnings:\n{output}");
    }
    let text = &runs[0].1;
    for link in [
        "pkg/values.yml",
        "pkg/more",
        "tekton/task.yaml",
        "config",
        "vals/prod.yml",
    ] {
        assert!(
            text.contains(&format!("symbolic link {link} not followed")),
            "{link}:\n{text}"
        );
    }
    assert!(
        text.contains("--allow-symlink-destination"),
        "the flag that allows a package's link is named:\n{text}"
    );
    // Each link once, though the walk and the values folder both meet
    // vals/prod.yml.
    assert_eq!(text.matches("confvet/symlink]").count(), 5, "{text}");
    // A link named on the command line (as `--changed-since` names the
    // files a pull request changed) is not read either.
    let runs = lint_every_format(&dir, &["--no-config", "tekton/task.yaml"]);
    assert!(
        runs[0]
            .1
            .contains("symbolic link tekton/task.yaml not followed"),
        "{}",
        runs[0].1
    );
    assert!(Path::new(&dir.path().join("repo/tekton/task.yaml")).is_symlink());
}
