//! ytt's file flags in `render`, `values` and `lint`: `--file-mark`, the
//! symlink flags, `--output-files` names, and the template flags every
//! command takes. Expectations are what the reference ytt does with the
//! same files (`ytt -f DIR ...`).

use crate::common;

use common::{Run, TempDir, run_in};

/// `confvet COMMAND PATH FLAGS...` run in `dir`.
fn confvet(dir: &TempDir, command: &str, path: &str, flags: &[&str]) -> Run {
    run_in(dir.path(), &[&[command, path][..], flags].concat())
}

/// A package with a schema, a data-values file, an example values file,
/// a template and a `.txt` holding YAML.
fn package(dir: &TempDir) {
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nport: 80\n");
    dir.write("pkg/values.yml", "#@data/values\n---\nport: 8080\n");
    dir.write("pkg/examples/values.yml", "#@data/values\n---\nport: 1\n");
    dir.write(
        "pkg/deploy.yml",
        "#@ load(\"@ytt:data\", \"data\")\nport: #@ data.values.port\n",
    );
    dir.write(
        "pkg/extra.txt",
        "#@data/values\n---\nport: \"not a number\"\n",
    );
}

#[test]
fn bad_file_marks_are_usage_errors_with_ytts_message() {
    let dir = TempDir::new("marks-bad");
    package(&dir);
    let cases = [
        (
            "values.yml:kind=x",
            "Unknown key in file mark 'values.yml:kind=x'",
        ),
        (
            "values.yml:type=json",
            "Unknown value in file mark 'values.yml:type=json'",
        ),
        (
            "values.yml:exclude=false",
            "Unknown value in file mark 'values.yml:exclude=false'",
        ),
        (
            "values.yml",
            "Expected file mark 'values.yml' to be in format path:key=value",
        ),
        (
            "values.yml:exclude",
            "Expected file mark 'values.yml:exclude' key-value portion to be in format key=value",
        ),
    ];
    for command in ["render", "values", "lint"] {
        for (mark, message) in cases {
            let run = run_in(dir.path(), &[command, "pkg", "--file-mark", mark]);
            assert_eq!(run.code, 2, "{command} {mark}: {}", run.stderr);
            assert!(
                run.stderr.contains(message),
                "{command} {mark}: {}",
                run.stderr
            );
        }
    }
}

#[test]
fn a_mark_that_matches_no_file_is_a_usage_error() {
    let dir = TempDir::new("marks-unmatched");
    package(&dir);
    let message = "Expected file mark 'pkg/values.yml:exclude=true' to match at least one file by path, but did not";
    for command in ["render", "values", "lint"] {
        let run = run_in(
            dir.path(),
            &[command, "pkg", "--file-mark", "pkg/values.yml:exclude=true"],
        );
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{command}: {}", run.stderr);
    }
    // lint says what the names are relative to.
    let run = confvet(
        &dir,
        "lint",
        "pkg",
        &["--file-mark", "pkg/values.yml:exclude=true"],
    );
    assert!(
        run.stderr.contains("ytt packages here: pkg"),
        "{}",
        run.stderr
    );
    // A mark on a data file for output: ytt cannot output it.
    let marks = [
        "--file-mark=extra.txt:type=data",
        "--file-mark=extra.txt:for-output=true",
    ];
    let run = confvet(&dir, "render", "pkg", &marks);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("Unknown file type"), "{}", run.stderr);
}

#[test]
fn values_follow_the_marks_as_ytt_data_values_inspect_does() {
    let dir = TempDir::new("marks-values");
    package(&dir);
    let values = |marks: &[&str]| {
        let mut args = vec!["values", "pkg"];
        for mark in marks {
            args.extend(["--file-mark", mark]);
        }
        let run = run_in(dir.path(), &args);
        (run.code, run.stdout)
    };
    // examples/values.yml comes before values.yml in ytt's order.
    assert_eq!(values(&[]), (0, "port: 8080\n".into()));
    assert_eq!(
        values(&["values.yml:exclude=true"]),
        (0, "port: 1\n".into())
    );
    assert_eq!(
        values(&["examples/*:exclude=true", "values.yml:type=yaml-plain"]),
        (0, "port: 80\n".into())
    );
    assert_eq!(values(&["**/*:type=data"]), (0, String::new()));
    // A `.txt` marked a YAML template is a data-values file.
    let (code, _) = values(&["extra.txt:type=yaml-template"]);
    assert_eq!(code, 1);
}

#[test]
fn lint_applies_marks_relative_to_each_package_root() {
    let dir = TempDir::new("marks-lint");
    package(&dir);
    let lint = |path: &str, mark: &str| {
        let run = run_in(
            dir.path(),
            &["lint", path, "--format", "concise", "--file-mark", mark],
        );
        (run.code, run.stdout, run.stderr)
    };
    let (code, stdout, stderr) = lint("pkg", "extra.txt:type=yaml-template");
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("pkg/extra.txt:3:7: error[ytt/type-mismatch]"),
        "{stdout}"
    );
    // Linting the folder above, which holds nothing else, the package is
    // rooted there, as `ytt -f .` roots it: marks name files from there.
    let (code, stdout, stderr) = lint(".", "pkg/extra.txt:type=yaml-template");
    assert_eq!(code, 1, "{stdout}{stderr}");
    let (code, _, stderr) = lint(".", "extra.txt:type=yaml-template");
    assert_eq!(code, 2, "{stderr}");
    // Excluded, a broken template is not rendered.
    dir.write("pkg/broken.yml", "#@ fail(\"broken\")\na: 1\n");
    let (code, stdout, _) = lint("pkg", "broken.yml:exclude=true");
    assert_eq!(code, 0, "{stdout}");
    let (_, stdout, _) = lint("pkg", "extra.txt:exclude=true");
    assert!(stdout.contains("broken"), "{stdout}");
    // An excluded file is not linted at all: its suppression comments are
    // not unused, and it is not counted.
    dir.write(
        "pkg/examples/values.yml",
        "#@data/values\n---\nport: 1  #! confvet: ignore[ytt/validation] an example\n",
    );
    let (code, stdout, _) = lint("pkg", "examples/**/*:exclude=true");
    assert_eq!(code, 1, "{stdout}");
    assert!(!stdout.contains("unused-suppression"), "{stdout}");
    assert!(stdout.contains("in 4 files"), "{stdout}");
}

/// A folder whose only entry is the package's folder (the GitOps layout
/// `config/tap-install/.tanzu-managed/`): `ytt -f config/tap-install`
/// roots the package at `tap-install`, and so do `render`, `values` and
/// `lint`; a mark names `.tanzu-managed/x.yml` in each, and an error
/// names the package's root as given.
#[test]
fn every_command_roots_a_folder_of_one_folder_where_ytt_does() {
    let dir = TempDir::new("marks-one-folder");
    dir.write(
        "config/tap-install/.tanzu-managed/values.yml",
        "#@data/values\n---\nteam: blue\n",
    );
    dir.write(
        "config/tap-install/.tanzu-managed/x.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nname: #@ data.values.team\n",
    );
    dir.write(
        "config/tap-install/.tanzu-managed/broken.yml",
        "#@ fail(\"not excluded\")\na: 1\n",
    );
    let excluded = ".tanzu-managed/broken.yml:exclude=true";
    for command in ["render", "values", "lint"] {
        let run = confvet(
            &dir,
            command,
            "config/tap-install",
            &["--file-mark", excluded],
        );
        assert_eq!(run.code, 0, "{command}: {}{}", run.stdout, run.stderr);
        // Named from the folder below, the mark matches nothing, as in ytt.
        let run = confvet(
            &dir,
            command,
            "config/tap-install",
            &["--file-mark", "broken.yml:exclude=true"],
        );
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        assert!(
            run.stderr.contains(
                "Expected file mark 'broken.yml:exclude=true' to match at least one file by path"
            ),
            "{command}: {}",
            run.stderr
        );
    }
    let run = confvet(
        &dir,
        "lint",
        "config/tap-install",
        &["--file-mark", "broken.yml:exclude=true"],
    );
    assert!(
        run.stderr
            .contains("ytt packages here: config/tap-install)"),
        "{}",
        run.stderr
    );
    // Given the folder itself, the package is rooted there.
    let run = confvet(
        &dir,
        "lint",
        "config/tap-install/.tanzu-managed",
        &["--file-mark", "broken.yml:exclude=true"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[cfg(unix)]
fn linked(dir: &TempDir) {
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\na: 1\n");
    dir.write(
        "pkg/secret.yml",
        "#@ load(\"@ytt:data\", \"data\")\nsecret: #@ data.read(\"token.txt\")\n",
    );
    dir.write("outside/token.txt", "TOP-SECRET\n");
    std::os::unix::fs::symlink(
        dir.path().join("outside/token.txt"),
        dir.path().join("pkg/token.txt"),
    )
    .expect("a symlink");
}

#[cfg(unix)]
#[test]
fn render_and_values_refuse_a_symlink_unless_its_destination_is_allowed() {
    let dir = TempDir::new("marks-symlink");
    linked(&dir);
    for command in ["render", "values"] {
        let run = run_in(dir.path(), &[command, "pkg"]);
        assert_eq!(run.code, 2, "{command}: {}", run.stderr);
        assert!(
            run.stderr.contains(
                "Expected symlink file 'pkg/token.txt' -> 'outside/token.txt' to be allowed, but was not"
            ),
            "{command}: {}",
            run.stderr
        );
        assert!(!run.stdout.contains("TOP-SECRET"));
    }
    for allow in [
        &["--allow-symlink-destination", "outside"][..],
        &["--allow-symlink-destination", "elsewhere,outside/token.txt"],
        &["--dangerous-allow-all-symlink-destinations"],
    ] {
        let mut args = vec!["render", "pkg"];
        args.extend(allow);
        let run = run_in(dir.path(), &args);
        assert_eq!(run.code, 0, "{allow:?}: {}", run.stderr);
        assert!(run.stdout.contains("TOP-SECRET"), "{}", run.stdout);
    }
    // Allowed somewhere else: still refused.
    let run = run_in(
        dir.path(),
        &["render", "pkg", "--allow-symlink-destination", "pkg"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
}

#[cfg(unix)]
#[test]
fn lint_never_reads_through_a_symlink_unless_allowed() {
    let dir = TempDir::new("marks-symlink-lint");
    linked(&dir);
    // A template behind a link: linted only when the link is allowed.
    dir.write(
        "shared/check.yml",
        "#@ fail(\"linked template ran\")\na: 1\n",
    );
    std::os::unix::fs::symlink(
        dir.path().join("shared/check.yml"),
        dir.path().join("pkg/check.yml"),
    )
    .expect("a symlink");
    let run = confvet(&dir, "lint", "pkg", &["--format", "json"]);
    assert!(!run.stdout.contains("TOP-SECRET"), "{}", run.stdout);
    assert!(
        !run.stdout.contains("linked template ran"),
        "{}",
        run.stdout
    );
    let message = "Expected to find file 'token.txt'";
    assert!(run.stdout.contains(message), "{}", run.stdout);
    let allowed = [
        "--format=json",
        "--allow-symlink-destination=outside,shared",
    ];
    let run = confvet(&dir, "lint", "pkg", &allowed);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let findings = run.json()["findings"].clone();
    let messages: Vec<&str> = findings
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["message"].as_str())
        .collect();
    assert_eq!(messages, ["linked template ran"], "{findings}");
}

#[test]
fn output_files_are_named_and_ordered_as_ytt_writes_them() {
    let dir = TempDir::new("marks-output");
    dir.write("p/a.txt", "a (@= \"1\" @)\n");
    dir.write("p/c.txt", "c\n");
    dir.write("p/a.b/x.txt", "x\n");
    dir.write("p/b/c.txt", "bc\n");
    dir.write("p/b/z.txt", "z\n");
    dir.write("p/b/d/e.txt", "e\n");
    dir.write("p/b/y.yml", "yy: 1\n");
    dir.write("p/w.yml", "w: (@= \"kept\" @)\n");
    dir.write("p/empty.yml", "#@ if False:\nq: 1\n#@ end\n");
    let flags = ["--output-files=out", "--file-mark=w.yml:type=text-plain"];
    let run = confvet(&dir, "render", "p", &flags);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // ytt's order: text files of each folder before its subfolders, then
    // YAML in input order; a YAML file with no document is not written.
    assert_eq!(
        run.stdout,
        "creating: out/a.txt\ncreating: out/c.txt\ncreating: out/w.yml\ncreating: out/a.b/x.txt\ncreating: out/b/c.txt\ncreating: out/b/z.txt\ncreating: out/b/d/e.txt\ncreating: out/b/y.yml\n"
    );
    assert_eq!(dir.read("out/a.txt"), "a 1\n");
    assert_eq!(dir.read("out/w.yml"), "w: (@= \"kept\" @)\n");
    assert_eq!(dir.read("out/b/y.yml"), "yy: 1\n");
    assert!(!dir.path().join("out/empty.yml").exists());
}

/// `render --each-package`: every package below the paths, each as `ytt
/// -f PACKAGE`; outputs under DIR/PACKAGE in package order; a package that
/// fails is reported by name, the others still render, and the run exits 1.
#[test]
fn each_package_renders_every_package_and_names_the_one_that_fails() {
    let dir = TempDir::new("each-package");
    dir.write("repo/a/config/t.yml", "---\na: #@ 1 + 1\n");
    dir.write("repo/a/config/notes.txt", "(@= \"text\" @)\n");
    dir.write("repo/b/t.yml", "---\nb: #@ fail_here()\n");
    dir.write("repo/c/t.yml", "---\nc: #@ 3\n");
    let run = confvet(&dir, "render", "repo", &["--each-package"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "# confvet render: repo/a/config\na: 2\n# confvet render: repo/c\nc: 3\n"
    );
    assert!(
        run.stderr.contains("repo/b: not rendered"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("fail_here"), "{}", run.stderr);
    let run = confvet(
        &dir,
        "render",
        "repo",
        &["--each-package", "--output-files=out"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "creating: out/repo/a/config/notes.txt\ncreating: out/repo/a/config/t.yml\ncreating: out/repo/c/t.yml\n"
    );
    assert_eq!(dir.read("out/repo/a/config/notes.txt"), "text\n");
    assert_eq!(dir.read("out/repo/c/t.yml"), "c: 3\n");
    assert!(!dir.path().join("out/repo/b").exists());
}

#[test]
fn lint_and_values_take_the_template_flags_render_takes() {
    let dir = TempDir::new("marks-flags");
    dir.write("k/schema.yml", "#@data/values-schema\n---\na: 1\n");
    dir.write("k/values.yml", "#@data/values\n---\na: 2 # plain comment\n");
    dir.write(
        "k/t.yml",
        "#@ load(\"@ytt:data\", \"data\")\nk: #@ data.values.a\nk: 2\n",
    );
    let lint = |flags: &[&str]| {
        let mut args = vec!["lint", "k", "--format", "concise", "--fail-on", "warning"];
        args.extend(flags);
        run_in(dir.path(), &args)
    };
    let run = lint(&[]);
    assert!(run.stdout.contains("ytt/unknown-comment"), "{}", run.stdout);
    let run = lint(&["--ignore-unknown-comments"]);
    assert!(
        run.stdout.contains("to not be specified again"),
        "{}",
        run.stdout
    );
    let run = lint(&["--ignore-unknown-comments", "--implicit-map-key-overrides"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let run = run_in(dir.path(), &["values", "k", "--ignore-unknown-comments"]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (0, "a: 2\n"),
        "{}",
        run.stderr
    );
    let run = run_in(
        dir.path(),
        &[
            "values",
            "k",
            "--ignore-unknown-comments",
            "--implicit-map-key-overrides",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn a_configured_package_carries_its_file_marks() {
    let dir = TempDir::new("marks-config");
    package(&dir);
    dir.write(
        "pkg/examples/values.yml",
        "#@data/values\n---\nport: \"x\"\n",
    );
    let lint = || run_in(dir.path(), &["lint", "--format", "concise"]);
    let run = lint();
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("pkg/examples/values.yml:3:7"),
        "{}",
        run.stdout
    );
    let configure = |marks: &str| {
        let text = format!("ytt:\n  packages:\n    - path: pkg\n      file-mark: [{marks}]\n");
        dir.write(".confvet.yaml", text);
    };
    configure("\"examples/**/*:exclude=true\"");
    let run = lint();
    assert_eq!(run.code, 0, "{}", run.stdout);
    // A mark that is not one, or matches nothing, is the file's mistake.
    configure("\"nothing.yml:exclude=true\", \"values.yml:bad=1\"");
    let run = lint();
    assert_eq!(run.code, 1, "{}", run.stdout);
    for expected in [
        ".confvet.yaml:4:19: error[config/invalid] ytt.packages[0].file-mark: no file of the package matches it",
        ".confvet.yaml:4:47: error[config/invalid] ytt.packages[0].file-mark: Unknown key in file mark 'values.yml:bad=1'",
    ] {
        assert!(run.stdout.contains(expected), "{}", run.stdout);
    }
}
