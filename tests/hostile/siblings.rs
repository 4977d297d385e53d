//! Siblings of the classes in main.rs that once broke confvet: a named
//! pipe where a file is expected, maps and lists of a million entries, a
//! line of template code of megabytes.

use super::common::TempDir;
use super::{TASK_HEAD, assert_capped, assert_healthy_linted, healthy_package, run_capped};

/// A named pipe no one writes to: reading it would wait forever.
#[cfg(unix)]
fn mkfifo(dir: &TempDir, rel: &str) -> String {
    let path = dir.path().join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("directories");
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    path.to_string_lossy().into_owned()
}

#[cfg(unix)]
#[test]
fn a_named_pipe_is_refused_wherever_a_file_is_expected() {
    let dir = TempDir::new("hostile-fifo");
    healthy_package(&dir);
    // Found by the walk (and passed over), and loaded by a template (not a
    // file of the package).
    mkfifo(&dir, "healthy/pipe.yaml");
    mkfifo(&dir, "loads/pipe.star");
    dir.write(
        "loads/deploy.yml",
        "#@ load(\"pipe.star\", \"x\")\n---\nv: #@ x\n",
    );
    let run = run_capped(&dir, &["lint", "healthy", "loads", "--format", "json"], &[]);
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    assert!(
        findings.iter().any(|f| f["file"] == "loads/deploy.yml"
            && f["message"]
                .as_str()
                .is_some_and(|m| m.contains("cannot load pipe.star"))),
        "{findings:?}"
    );
    assert_healthy_linted(&run.found());
    // Named by a flag.
    let pipe = mkfifo(&dir, "pipe");
    let value_file = format!("a={pipe}");
    for args in [
        &["--data-values-file", pipe.as_str()][..],
        &["--data-value-file", value_file.as_str()][..],
    ] {
        let mut all = vec!["lint", "healthy", "--format", "json"];
        all.extend_from_slice(args);
        let run = run_capped(&dir, &all, &[]);
        assert!(
            run.stdout.contains("named pipe"),
            "{args:?}: {}",
            run.stdout
        );
    }
    for flag in ["--config", "--baseline"] {
        let run = run_capped(&dir, &["lint", "healthy", flag, &pipe], &[]);
        assert_eq!(run.code, Some(2), "{flag}");
        assert!(run.stderr.contains("named pipe"), "{flag}: {}", run.stderr);
    }
    // The configuration file looked for in the current directory: not a
    // file, so not a configuration; the run goes on without waiting.
    mkfifo(&dir, ".confvet.yaml");
    let run = run_capped(&dir, &["lint", "healthy", "--format", "json"], &[]);
    assert_healthy_linted(&run.found());
}

/// Checks that compared each key or param with all before it took
/// quadratic time: 200,000 keys in a data values file, as many params in a
/// Task, a schema and values of 100,000 keys, lint in seconds; a package of
/// more than 250,000 nodes is refused.
#[test]
fn a_map_or_list_of_many_entries_is_linted_in_linear_time() {
    let dir = TempDir::new("hostile-wide");
    healthy_package(&dir);
    let keys: String = (0..200_000).map(|i| format!("k{i}: 1\n")).collect();
    dir.write(
        "values/values.yml",
        format!("#@data/values\n---\n{keys}k7: 2\n"),
    );
    let params: String = (0..200_000)
        .map(|i| format!("    - name: p{i}\n"))
        .collect();
    dir.write(
        "task/t.yaml",
        format!(
            "{TASK_HEAD}spec:\n  params:\n{params}    - name: p7\n  steps:\n    - name: s\n      image: $(params.p1)\n"
        ),
    );
    // A schema and data values of 100,000 keys each: defaults, types,
    // validations and the merge look keys up, not through every key.
    let declared: String = (0..100_000).map(|i| format!("s{i}: 1\n")).collect();
    let given: String = (0..100_000).map(|i| format!("s{i}: 2\n")).collect();
    dir.write(
        "schema/schema.yml",
        format!("#@data/values-schema\n---\n{declared}"),
    );
    dir.write(
        "schema/values.yml",
        format!("#@data/values\n---\n{given}unknown: 1\n"),
    );
    // Past the package size limit: refused before it is checked, as a
    // limit of confvet's (the file is valid YAML).
    let many: String = (0..300_000).map(|i| format!("m{i}: 1\n")).collect();
    dir.write("huge/values.yml", format!("#@data/values\n---\n{many}"));
    let started = std::time::Instant::now();
    let run = run_capped(
        &dir,
        &[
            "lint", "values", "task", "schema", "huge", "healthy", "--format", "json",
        ],
        &[],
    );
    let found = run.found();
    assert!(
        found
            .iter()
            .any(|(r, f)| r == "yaml/duplicate-key" && f == "values/values.yml"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(r, f)| r == "tekton/duplicate" && f == "task/t.yaml"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(r, f)| r == "ytt/unknown-key" && f == "schema/values.yml"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(r, f)| r == "confvet/unit-limit" && f == "huge/values.yml"),
        "{found:?}"
    );
    assert_healthy_linted(&found);
    // Seconds in a release build (the square of these sizes took minutes);
    // a debug build on a busy machine is only held to the hang guard.
    if !cfg!(debug_assertions) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(15),
            "{:?}",
            started.elapsed()
        );
    }
}

/// Megabytes of template code (one string literal on one line): its
/// translation once took sixteen bytes a character, and more copies after;
/// past 8 MiB a file it is refused with a finding.
#[test]
fn megabytes_of_template_code_are_refused_not_a_crash() {
    let dir = TempDir::new("hostile-code-size");
    healthy_package(&dir);
    let long = "a".repeat(40 * 1024 * 1024);
    dir.write("bad/deploy.yml", format!("---\nv: #@ \"{long}\"\n"));
    let run = run_capped(&dir, &["lint", "bad", "healthy", "--format", "json"], &[]);
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    assert!(
        findings.iter().any(|f| f["file"] == "bad/deploy.yml"
            && f["message"]
                .as_str()
                .is_some_and(|m| m.contains("8 MiB of template code"))),
        "{findings:?}"
    );
    assert_healthy_linted(&run.found());
}

/// `$(params.` opened 20,000 times before as many `)`: every opening starts
/// a reference that ends at the first `)`, each as long as the rest of the
/// string; they are judged by their start, not copied whole into each
/// finding.
#[test]
fn nested_references_are_judged_in_linear_time() {
    let dir = TempDir::new("hostile-nested-refs");
    healthy_package(&dir);
    let n = 20_000;
    let script = format!("{}{}", "$(params.".repeat(n), ")".repeat(n));
    dir.write(
        "t.yaml",
        format!("{TASK_HEAD}spec:\n  steps:\n    - name: s\n      image: x\n      script: \"{script}\"\n"),
    );
    let run = run_capped(&dir, &["lint", ".", "--format", "json"], &[]);
    assert!(run.stdout.len() < 1_000_000, "{} bytes", run.stdout.len());
    let found = run.found();
    assert!(
        found
            .iter()
            .any(|(r, f)| r == "tekton/param-reference" && f == "t.yaml"),
        "{found:?}"
    );
    assert_healthy_linted(&found);
}

/// A text template with its `(@ if @)` blocks nested 100,000 deep: the
/// code was indented by its depth (text growing with the square of it) and
/// each line looked through every open block; it is refused at once.
#[test]
fn deeply_nested_text_template_blocks_are_refused_at_once() {
    let dir = TempDir::new("hostile-text-nesting");
    healthy_package(&dir);
    let n = 100_000;
    dir.write("bad/schema.yml", "#@data/values-schema\n---\na: 1\n");
    dir.write(
        "bad/config.txt",
        format!("{}x{}\n", "(@ if True: @)".repeat(n), "(@ end @)".repeat(n)),
    );
    let run = run_capped(&dir, &["lint", "bad", "healthy", "--format", "json"], &[]);
    let found = run.found();
    assert!(
        found.iter().any(|(_, f)| f == "bad/config.txt"),
        "{found:?}"
    );
    assert_healthy_linted(&found);
}

/// Four million references in one string (a 48 MiB line): each made a
/// finding, gigabytes of them, before 100 were shown; a string makes at
/// most 10,000 and counts the rest.
#[test]
fn millions_of_references_in_one_string_make_a_bounded_number_of_findings() {
    let dir = TempDir::new("hostile-many-refs");
    healthy_package(&dir);
    let refs = "$(params.a)".repeat(4_000_000);
    dir.write(
        "t.yaml",
        format!(
            "{TASK_HEAD}spec:\n  steps:\n    - name: s\n      image: x\n      script: \"{refs}\"\n"
        ),
    );
    let run = run_capped(&dir, &["lint", ".", "--format", "json"], &[]);
    assert!(run.stdout.len() < 500_000, "{} bytes", run.stdout.len());
    let found = run.found();
    assert!(
        found
            .iter()
            .any(|(r, f)| r == "tekton/param-reference" && f == "t.yaml"),
        "{found:?}"
    );
    assert_healthy_linted(&found);
}

/// A file within the size limit whose tree would be many times its text
/// (a million tiny keys, twice, checked at once on two cores): refused at
/// the node past a million with `yaml/syntax`, the other files still linted.
#[test]
fn a_file_of_millions_of_tiny_nodes_is_refused_not_parsed_whole() {
    let dir = TempDir::new("hostile-nodes");
    healthy_package(&dir);
    let keys: String = (0..600_000).map(|i| format!("k{i}: 1\n")).collect();
    for name in ["a", "b"] {
        dir.write(&format!("big/{name}.yaml"), format!("{TASK_HEAD}{keys}"));
    }
    let run = run_capped(&dir, &["lint", ".", "--format", "json"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let found = run.found();
    for name in ["big/a.yaml", "big/b.yaml"] {
        assert!(
            found.iter().any(|(r, f)| r == "yaml/syntax" && f == name),
            "{found:?}"
        );
    }
    let message = run.json()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "big/a.yaml")
        .map(|f| f["message"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default();
    assert!(message.contains("YAML nodes"), "{message}");
    assert_healthy_linted(&found);
}

/// Findings by the million, spread over many files (each small, each its
/// own unit), were all kept until the report capped them: 20 files of
/// 100,000 bad references held 2,000,000 findings and aborted under 1 GiB.
/// Each unit keeps a bounded number per rule and file; the report still
/// counts every finding left out, and the summary counts them all.
#[test]
fn millions_of_findings_over_many_units_stay_bounded_and_counted() {
    let dir = TempDir::new("hostile-many-findings");
    healthy_package(&dir);
    let refs: String = (0..100_000)
        .map(|i| format!("        - $(params.nope{i})\n"))
        .collect();
    for k in 0..20 {
        dir.write(
            &format!("tasks/t{k}.yaml"),
            format!(
                "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: t{k}\nspec:\n  steps:\n    - name: s\n      image: x\n      args:\n{refs}"
            ),
        );
    }
    let run = run_capped(&dir, &["lint", ".", "--format", "json"], &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["summary"]["errors"], 2_000_001, "{}", json["summary"]);
    assert_capped(&json, "tasks/t0.yaml", "99900 more tekton/param-reference");
    assert_healthy_linted(&run.found());
}

/// `data.values` of 100,000 keys read key by key: each lookup searched the
/// fields in order (the loop took 9 s); fields are hashed now.
#[test]
fn data_values_of_many_keys_are_looked_up_by_hash() {
    let dir = TempDir::new("hostile-wide-struct");
    let n: u64 = 100_000;
    let declared: String = (0..n).map(|i| format!("k{i}: {i}\n")).collect();
    dir.write(
        "pkg/schema.yml",
        format!("#@data/values-schema\n---\n{declared}"),
    );
    dir.write(
        "pkg/t.yml",
        format!(
            "#@ load(\"@ytt:data\", \"data\")\n#@ def total():\n#@   t = 0\n#@   for i in range({n}):\n#@     t += getattr(data.values, \"k\" + str(i)) + data.values[\"k\" + str(i)]\n#@   end\n#@   return t\n#@ end\n---\nsum: #@ total()\n"
        ),
    );
    let started = std::time::Instant::now();
    let output = std::process::Command::new(super::common::BIN)
        .args(["render", "pkg"])
        .current_dir(dir.path())
        .output()
        .expect("confvet runs");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("sum: {}\n", n * (n - 1))
    );
    if !cfg!(debug_assertions) {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(4),
            "{:?}",
            started.elapsed()
        );
    }
}
