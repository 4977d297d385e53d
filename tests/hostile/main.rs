//! Hostile input: each class that once crashed, hung or flooded confvet,
//! generated here (no checked-in giants) and linted by the real binary
//! under a 1 GiB address-space cap and a hang guard. Every run must end
//! with exit 1 (a finding) or 2 (a clear error), never a panic (101), an
//! abort (134) or a signal, and a healthy package linted beside the hostile
//! file must still get its finding.

#[path = "../common/mod.rs"]
mod common;
mod fuzz;
mod growth;
mod kubernetes;
mod secrets;
mod siblings;
#[path = "../tekton_support/mod.rs"]
mod tekton_support;

use common::{BIN, TempDir};
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// CPU time longer than any of these runs takes (the heaviest take about
/// 50 s in a debug build); only a hang reaches it. CPU time, not wall time,
/// so that the verdict does not depend on what else the machine runs.
const HANG_GUARD: Duration = Duration::from_secs(120);
/// Wall time after which a run is called hung whatever its CPU time says
/// (where it cannot be read, and for a run blocked on nothing).
const WALL_GUARD: Duration = Duration::from_secs(900);

/// The CPU time (user and system) process `pid` has used so far, on
/// Linux; None elsewhere or when it cannot be read.
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which may hold spaces, in `()`.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 2..)?.split(' ').collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // The kernel's USER_HZ, 100 on every Linux this runs on.
    Some(Duration::from_millis(ticks * 10))
}

struct Capped {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Capped {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("not JSON ({e}); stderr:\n{}", self.stderr);
        })
    }

    /// (rule, file) of every finding.
    fn found(&self) -> Vec<(String, String)> {
        let json = self.json();
        json["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap_or_default().to_string(),
                    f["file"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    }
}

/// Run `confvet ARGS` in `dir` under `ulimit -v` 1 GiB, with `env` set;
/// it must end with exit 1 or 2.
fn run_capped(dir: &TempDir, args: &[&str], env: &[(&str, &str)]) -> Capped {
    let capped = run_guarded(dir.path(), args, env);
    assert!(
        matches!(capped.code, Some(1 | 2)),
        "confvet {args:?} ended with {:?}:\n{}",
        capped.code,
        capped.stderr
    );
    capped
}

/// Run `confvet ARGS` in `dir` under `ulimit -v` 1 GiB and the hang guard,
/// with `env` set.
fn run_guarded(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Capped {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("ulimit -v 1048576; exec \"$0\" \"$@\"")
        .arg(BIN)
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("sh runs");
    let started = Instant::now();
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        let used = cpu_time(child.id()).unwrap_or_else(|| started.elapsed());
        if used > HANG_GUARD || started.elapsed() > WALL_GUARD {
            let _ = child.kill();
            panic!("confvet {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Capped {
        code: status.code(),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// A ytt package with one real validation error, to show the run went on.
fn healthy_package(dir: &TempDir) {
    dir.write(
        "healthy/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 0\n",
    );
}

fn assert_healthy_linted(found: &[(String, String)]) {
    assert!(
        found
            .iter()
            .any(|(rule, file)| rule == "ytt/validation" && file == "healthy/schema.yml"),
        "the healthy package was not linted: {found:?}"
    );
}

/// The report of `file` is capped: 100 findings shown, and one more whose
/// message starts with `more` ("9900 more tekton/...") counts the rest.
fn assert_capped(json: &Value, file: &str, more: &str) {
    let in_file: Vec<&Value> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["file"] == file)
        .collect();
    assert_eq!(in_file.len(), 101, "100 shown and one that counts the rest");
    assert!(
        in_file
            .iter()
            .any(|f| f["message"].as_str().is_some_and(|m| m.starts_with(more))),
        "{in_file:?}"
    );
}

const TASK_HEAD: &str = "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: t\n";

#[test]
fn an_unclosed_flow_sequence_before_a_comment_is_a_syntax_finding() {
    let dir = TempDir::new("hostile-flow");
    healthy_package(&dir);
    // Beside the healthy package, not in it: a broken file of a ytt package
    // stops that package, as it stops ytt.
    dir.write("bad/tekton/t.yaml", format!("{TASK_HEAD}x: [ # x\nb: 1\n"));
    dir.write("bad/kubevirt/t.yaml", "kind: Template\nx: [ # x\nb: 1\n");
    dir.write("bad/ytt/t.yml", "#@ x = 1\nx: [ # x\nb: 1\n");
    let run = run_capped(&dir, &["lint", "bad", "healthy", "--format", "json"], &[]);
    let found = run.found();
    for file in ["bad/tekton/t.yaml", "bad/kubevirt/t.yaml", "bad/ytt/t.yml"] {
        assert!(
            found.iter().any(|(r, f)| r == "yaml/syntax" && f == file),
            "{file}: {found:?}"
        );
    }
    assert_healthy_linted(&found);
}

#[test]
fn ten_thousand_references_in_one_string_give_a_bounded_report() {
    let dir = TempDir::new("hostile-refs");
    healthy_package(&dir);
    let refs = "$(params.a) ".repeat(10_000);
    dir.write(
        "t.yaml",
        format!(
            "{TASK_HEAD}spec:\n  steps:\n    - name: s\n      image: x\n      script: \"{refs}\"\n"
        ),
    );
    // Nested openings: each `$(` ends at the one `)` far away.
    let nested = format!("{}{}", "$(".repeat(50_000), ")");
    dir.write(
        "nested.yaml",
        format!("{TASK_HEAD}spec:\n  steps:\n    - name: s\n      image: x\n      script: \"{nested}\"\n"),
    );
    let run = run_capped(&dir, &["lint", ".", "--format", "json"], &[]);
    assert!(run.stdout.len() < 500_000, "{} bytes", run.stdout.len());
    assert_capped(&run.json(), "t.yaml", "9900 more tekton/param-reference");
    assert_healthy_linted(&run.found());
}

#[test]
fn thirty_thousand_kubevirt_rules_are_checked_in_linear_time() {
    let dir = TempDir::new("hostile-kubevirt");
    healthy_package(&dir);
    let rules: Vec<String> = (0..30_000)
        .map(|i| {
            format!(
                "{{\"name\": \"r{i}\", \"path\": \"jsonpath::.spec.domain.cpu.cores\", \"rule\": \"integer\", \"min\": 1, \"max\": 4}}"
            )
        })
        .collect();
    let template = format!(
        "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\n  annotations:\n    validations: |\n      [{}]\nobjects:\n  - apiVersion: kubevirt.io/v1\n    kind: VirtualMachine\n    metadata:\n      name: vm\n    spec:\n      template:\n        spec:\n          domain:\n            cpu:\n              cores: 8\n",
        rules.join(", ")
    );
    dir.write("template.yaml", template);
    let run = run_capped(&dir, &["lint", ".", "--format", "json"], &[]);
    let found = run.found();
    assert!(
        found.iter().any(|(r, _)| r.starts_with("kubevirt/")),
        "{found:?}"
    );
    assert_healthy_linted(&found);
}

#[test]
fn aliases_of_a_huge_scalar_are_bounded_by_bytes() {
    let dir = TempDir::new("hostile-alias-bytes");
    healthy_package(&dir);
    let mut text = format!("{TASK_HEAD}x: &a \"{}\"\nl:\n", "y".repeat(100_000));
    text.push_str(&"  - *a\n".repeat(20_000));
    dir.write("t.yaml", text);
    let run = run_capped(&dir, &["lint", ".", "--format", "json"], &[]);
    let json = run.json();
    let syntax = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["file"] == "t.yaml")
        .expect("a finding for t.yaml");
    assert_eq!(syntax["rule"], "yaml/syntax");
    assert!(
        syntax["message"]
            .as_str()
            .is_some_and(|m| m.contains("alias expansion exceeds")),
        "{syntax}"
    );
    assert_healthy_linted(&run.found());
}

#[test]
fn byte_order_marks_and_utf16_files_are_linted() {
    let dir = TempDir::new("hostile-bom");
    healthy_package(&dir);
    let task = format!("{TASK_HEAD}spec:\n  steps:\n    - name: s\n      image: $(params.x)\n");
    let mut bom = vec![0xef, 0xbb, 0xbf];
    bom.extend(task.as_bytes());
    dir.write("bom.yaml", bom);
    let mut utf16 = vec![0xff, 0xfe];
    utf16.extend(task.encode_utf16().flat_map(u16::to_le_bytes));
    dir.write("utf16.yaml", utf16);
    dir.write(
        "bom-ytt/schema.yml",
        [
            &[0xef, 0xbb, 0xbf][..],
            b"#@data/values-schema\n---\n#@schema/validation min=1\nreplicas: 0\n",
        ]
        .concat(),
    );
    let run = run_capped(&dir, &["lint", ".", "--format", "json"], &[]);
    let found = run.found();
    for (rule, file) in [
        ("tekton/param-reference", "bom.yaml"),
        ("tekton/param-reference", "utf16.yaml"),
        ("ytt/validation", "bom-ytt/schema.yml"),
    ] {
        assert!(
            found.iter().any(|(r, f)| r == rule && f == file),
            "{file}: {found:?}"
        );
    }
    assert_healthy_linted(&found);
}

#[test]
fn flags_that_name_endless_or_deep_input_give_a_clear_error() {
    let dir = TempDir::new("hostile-flags");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\na: 1\n");
    let deep = vec!["k"; 20_000].join(".");
    let deep_value = format!("{deep}=1");
    let run = run_capped(
        &dir,
        &["lint", "pkg", "-v", &deep_value, "--format", "json"],
        &[],
    );
    assert!(
        run.stdout.contains("key path nests deeper"),
        "{}",
        run.stdout
    );
    let env_key = format!("DVS_{}", vec!["k"; 20_000].join("__"));
    let run = run_capped(
        &dir,
        &[
            "lint",
            "pkg",
            "--data-values-env",
            "DVS",
            "--format",
            "json",
        ],
        &[(&env_key, "1")],
    );
    assert!(
        run.stdout.contains("key path nests deeper"),
        "{}",
        run.stdout
    );
    for args in [
        &["--data-values-file", "/dev/zero"][..],
        &["--data-value-file", "a=/dev/zero"][..],
    ] {
        let mut all = vec!["lint", "pkg", "--format", "json"];
        all.extend_from_slice(args);
        let run = run_capped(&dir, &all, &[]);
        assert!(
            run.stdout.contains("cannot read") && run.stdout.contains("a device, not a file"),
            "{args:?}: {}",
            run.stdout
        );
    }
    for flag in ["--config", "--baseline"] {
        let run = run_capped(&dir, &["lint", "pkg", flag, "/dev/zero"], &[]);
        assert_eq!(run.code, Some(2), "{flag}");
        assert!(
            run.stderr.contains("a device, not a file"),
            "{flag}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_failing_check_is_an_internal_finding_and_the_run_goes_on() {
    if !cfg!(debug_assertions) {
        println!("skipped: the test hook exists in debug builds only");
        return;
    }
    let dir = TempDir::new("hostile-panic");
    healthy_package(&dir);
    dir.write("broken/schema.yml", "#@data/values-schema\n---\na: 1\n");
    let run = run_capped(
        &dir,
        &["lint", ".", "--format", "json"],
        &[("CONFVET_TEST_PANIC_IN", "broken")],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let found = run.found();
    assert!(
        found
            .iter()
            .any(|(r, f)| r == "confvet/internal" && f == "broken/schema.yml"),
        "{found:?}"
    );
    assert_healthy_linted(&found);
}

#[cfg(unix)]
#[test]
fn code_behind_a_symlink_out_of_the_package_never_runs() {
    let dir = TempDir::new("hostile-symlink");
    healthy_package(&dir);
    // Outside code that would fail the validation if it ran.
    dir.write("outside/helpers.star", "def ok():\n  return False\nend\n");
    dir.write(
        "outside/lib/helpers.star",
        "def ok():\n  return False\nend\n",
    );
    dir.write(
        "pkg/schema.yml",
        "#@ load(\"helpers.star\", \"ok\")\n#@data/values-schema\n---\n#@schema/validation (\"ok\", lambda v: ok())\nx: 1\n",
    );
    dir.write(
        "pkg2/schema.yml",
        "#@ load(\"linked/helpers.star\", \"ok\")\n#@data/values-schema\n---\n#@schema/validation (\"ok\", lambda v: ok())\nx: 1\n",
    );
    let link = |target: &str, at: &str| {
        std::os::unix::fs::symlink(dir.path().join(target), dir.path().join(at))
            .expect("a symlink");
    };
    link("outside/helpers.star", "pkg/helpers.star");
    link("outside/lib", "pkg2/linked");
    let run = run_capped(
        &dir,
        &["lint", "pkg", "pkg2", "healthy", "--format", "json"],
        &[],
    );
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    for file in ["pkg/schema.yml", "pkg2/schema.yml"] {
        let f = findings
            .iter()
            .find(|f| f["file"] == file)
            .unwrap_or_else(|| panic!("no finding for {file}: {findings:?}"));
        assert!(
            f["message"]
                .as_str()
                .is_some_and(|m| m.contains("cannot load")),
            "{f}"
        );
        assert_ne!(f["rule"], "ytt/validation", "the outside code ran: {f}");
    }
    assert_healthy_linted(&run.found());
}

#[test]
fn deeply_nested_starlark_is_evaluated_or_refused_never_a_stack_overflow() {
    let dir = TempDir::new("hostile-nesting");
    healthy_package(&dir);
    let schema = |rule: &str| {
        format!(
            "#@data/values-schema\n---\n#@schema/validation (\"deep\", lambda v: {rule})\nx: 1\n"
        )
    };
    // Deep, but within the limits: evaluated (the rule is false).
    let brackets = |n: usize| format!("len({}{}) == 2", "[".repeat(n), "]".repeat(n));
    dir.write("bad/within/schema.yml", schema(&brackets(900)));
    let chain = vec!["v"; 900].join(" + ");
    dir.write("bad/chain/schema.yml", schema(&format!("{chain} == 0")));
    // Past the limits: refused with a finding at the annotation.
    dir.write("bad/past/schema.yml", schema(&brackets(100_000)));
    dir.write(
        "bad/code/schema.yml",
        format!(
            "#@ x = {}\n#@data/values-schema\n---\nx: 1\n",
            vec!["1"; 100_000].join("+")
        ),
    );
    let run = run_capped(
        &dir,
        &[
            "lint",
            "bad/within",
            "bad/chain",
            "bad/past",
            "bad/code",
            "healthy",
            "--format",
            "json",
        ],
        &[],
    );
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    let message = |file: &str| {
        findings
            .iter()
            .find(|f| f["file"] == file)
            .and_then(|f| f["message"].as_str())
            .unwrap_or_else(|| panic!("no finding for {file}: {findings:?}"))
            .to_string()
    };
    assert!(message("bad/within/schema.yml").contains("x must be deep"));
    assert!(message("bad/chain/schema.yml").contains("x must be deep"));
    assert!(message("bad/past/schema.yml").contains("nested deeper than"));
    assert!(message("bad/code/schema.yml").contains("more than 1000 operators"));
    assert_healthy_linted(&run.found());
}

#[test]
fn starlark_memory_that_grows_statement_by_statement_stops_at_the_heap_limit() {
    let dir = TempDir::new("hostile-heap");
    healthy_package(&dir);
    // A megabyte appended a thousand times would take a gigabyte; no one
    // statement grows much (doubling a string is refused in one step, see
    // growth.rs).
    dir.write(
        "bad/loop/schema.yml",
        "#@ l = []\n#@ for i in range(1000):\n#@   l.append(\"x\" * 1000000)\n#@ end\n#@data/values-schema\n---\nx: 1\n",
    );
    dir.write(
        "bad/rule/schema.yml",
        "#@ def grow():\n#@   l = []\n#@   for i in range(1000):\n#@     l.append(\"x\" * 1000000)\n#@   end\n#@   return len(l)\n#@ end\n#@data/values-schema\n---\n#@schema/validation (\"grows\", lambda v: grow() > 0)\nx: 1\n",
    );
    let run = run_capped(
        &dir,
        &[
            "lint", "bad/loop", "bad/rule", "healthy", "--format", "json",
        ],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    for file in ["bad/loop/schema.yml", "bad/rule/schema.yml"] {
        assert!(
            findings.iter().any(|f| f["file"] == file
                && f["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("heap passed"))),
            "{file}: {findings:?}"
        );
    }
    assert_healthy_linted(&run.found());
}

/// One repetition that would allocate gigabytes at once (`"x" * 2000000000`,
/// `[0] * 1000000000`) in a template, in a rule, or with `*=`: refused before
/// it allocates (a failed allocation would abort the process), a finding
/// at its line, and the healthy package beside it still linted.
#[test]
fn a_huge_repetition_is_refused_before_it_allocates() {
    let dir = TempDir::new("hostile-repeat");
    healthy_package(&dir);
    dir.write(
        "bad/template/deploy.yml",
        "#@ x = \"x\" * 2000000000\n---\nv: #@ len(x)\n",
    );
    dir.write(
        "bad/list/deploy.yml",
        "#@ x = [0]\n#@ x *= 1000000000\n---\nv: #@ len(x)\n",
    );
    dir.write(
        "bad/rule/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation (\"big\", lambda v: len([0] * 1000000000) > 0)\nx: 1\n",
    );
    let run = run_capped(
        &dir,
        &[
            "lint",
            "bad/template",
            "bad/list",
            "bad/rule",
            "healthy",
            "--format",
            "json",
        ],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    for file in [
        "bad/template/deploy.yml",
        "bad/list/deploy.yml",
        "bad/rule/schema.yml",
    ] {
        assert!(
            findings.iter().any(|f| f["file"] == file
                && f["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("excessive repeat"))),
            "{file}: {findings:?}"
        );
    }
    assert_healthy_linted(&run.found());
}

/// A value small on the heap but gigabytes once written out (one list
/// shared a million times): `str()`, `repr()`, a template value and
/// `json.encode()` refuse it before making the text, a finding at its
/// line; the healthy package beside it is still linted.
#[test]
fn a_value_that_writes_out_to_gigabytes_is_refused_before_it_is_written() {
    let dir = TempDir::new("hostile-output");
    healthy_package(&dir);
    let shared = "[[0] * 1000] * 1000000";
    for (name, code) in [
        ("str", format!("#@ x = str({shared})\n---\nv: #@ len(x)\n")),
        (
            "repr",
            format!("#@ x = repr({shared})\n---\nv: #@ len(x)\n"),
        ),
        ("value", format!("#@ x = {shared}\n---\nv: #@ x\n")),
        (
            "json",
            format!("#@ load(\"@ytt:json\", \"json\")\n---\nv: #@ json.encode({shared})\n"),
        ),
    ] {
        dir.write(&format!("bad/{name}/deploy.yml"), code);
    }
    dir.write(
        "bad/rule/schema.yml",
        format!("#@data/values-schema\n---\n#@schema/validation (\"big\", lambda v: len(str({shared})) > 0)\nx: 1\n"),
    );
    let names = ["str", "repr", "value", "json"];
    let mut args = vec!["lint".to_string()];
    args.extend(names.iter().map(|n| format!("bad/{n}")));
    args.extend(["bad/rule", "healthy", "--format", "json"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = std::time::Instant::now();
    let run = run_capped(&dir, &args, &[]);
    assert!(run.code == Some(1), "{}", run.stderr);
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    for file in names
        .iter()
        .map(|n| format!("bad/{n}/deploy.yml"))
        .chain(["bad/rule/schema.yml".to_string()])
    {
        assert!(
            findings.iter().any(|f| f["file"] == file.as_str()
                && f["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("value too large"))),
            "{file}: {findings:?}"
        );
    }
    assert_healthy_linted(&run.found());
    // Refused, not made: far from what writing gigabytes takes. Wall time,
    // so set far above the seconds it takes on a quiet machine: the verdict
    // must not depend on what else the machine runs.
    assert!(started.elapsed() < std::time::Duration::from_secs(180));
}

/// A builtin that materialises a billion elements at once makes
/// starlark-rust panic: the evaluation stops with a finding, the run goes
/// on with the healthy package, and `render` exits 1, never 101.
#[test]
fn a_billion_element_list_stops_its_evaluation_not_the_run() {
    let dir = TempDir::new("hostile-list");
    healthy_package(&dir);
    dir.write(
        "bad/deploy.yml",
        "#@ x = list(range(1000000000))\n---\nv: #@ len(x)\n",
    );
    let run = run_capped(&dir, &["lint", "bad", "healthy", "--format", "json"], &[]);
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    assert!(
        findings.iter().any(|f| f["file"] == "bad/deploy.yml"
            && f["message"]
                .as_str()
                .is_some_and(|m| m.contains("evaluation stopped"))),
        "{findings:?}"
    );
    assert_healthy_linted(&run.found());
    let render = run_capped(&dir, &["render", "bad"], &[]);
    assert_eq!(render.code, Some(1), "{}", render.stderr);
}

/// A comprehension runs no statement, so the statement budget never sees
/// it: its iterations are drawn from a budget of their own, and a runaway
/// one (a billion iterations, or nested ones multiplying) stops quickly.
#[test]
fn a_runaway_comprehension_stops_at_its_iteration_budget() {
    let dir = TempDir::new("hostile-comprehension");
    healthy_package(&dir);
    dir.write(
        "bad/one/deploy.yml",
        "---\nv: #@ len([i for i in range(1000000000)])\n",
    );
    dir.write(
        "bad/nested/deploy.yml",
        "---\nv: #@ len([0 for a in range(100000) for b in range(100000)])\n",
    );
    let run = run_capped(
        &dir,
        &[
            "lint",
            "bad/one",
            "bad/nested",
            "healthy",
            "--format",
            "json",
        ],
        &[],
    );
    assert!(matches!(run.code, Some(0 | 1)), "{}", run.stderr);
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    for file in ["bad/one/deploy.yml", "bad/nested/deploy.yml"] {
        assert!(
            findings.iter().any(|f| f["file"] == file
                && f["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("comprehension iterations"))),
            "{file}: {findings:?}"
        );
    }
    assert_healthy_linted(&run.found());
}

/// What no statement boundary sees: starlark-rust writing a shared value
/// whole into a type error (gigabytes, and a failed allocation aborts), and
/// comparing or hashing two structures that share their parts (2^40
/// steps). The package is given up at its memory or time limit with
/// `confvet/unit-limit`; the run goes on, and `render` exits 1.
#[test]
fn work_no_statement_sees_is_stopped_at_the_unit_limits() {
    let dir = TempDir::new("hostile-unit-limits");
    healthy_package(&dir);
    let grow = "#@ def grow(t):\n#@   for i in range(40):\n#@     t = (t, t)\n#@   end\n#@   return t\n#@ end\n";
    dir.write(
        "bad/type-error/deploy.yml",
        "#@ x = int([[0] * 1000] * 1000000)\n---\nv: #@ x\n",
    );
    dir.write(
        "bad/compare/deploy.yml",
        format!("{grow}---\nv: #@ grow(1) == grow(1)\n"),
    );
    dir.write(
        "bad/hash/deploy.yml",
        format!("{grow}---\nv: #@ len({{grow(1): 1}})\n"),
    );
    // Memory first, with a time limit that a debug build cannot reach
    // before it.
    let run = run_capped(
        &dir,
        &[
            "lint",
            "bad/type-error",
            "healthy",
            "--format",
            "json",
            "--unit-memory",
            "128",
            "--unit-timeout",
            "60",
        ],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.found().contains(&(
            "confvet/unit-limit".into(),
            "bad/type-error/deploy.yml".into()
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("more than 128 MiB, the limit"),
        "{}",
        run.stdout
    );
    assert_healthy_linted(&run.found());

    let started = Instant::now();
    let run = run_capped(
        &dir,
        &[
            "lint",
            "bad/compare",
            "bad/hash",
            "healthy",
            "--format",
            "json",
            "--unit-timeout",
            "3",
        ],
        &[],
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let json = run.json();
    let findings = json["findings"].as_array().expect("findings");
    for name in ["compare", "hash"] {
        assert!(
            findings.iter().any(|f| f["rule"] == "confvet/unit-limit"
                && f["file"] == format!("bad/{name}/deploy.yml").as_str()
                && f["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("more than 3 s, the limit"))),
            "{name}: {findings:?}"
        );
    }
    assert_healthy_linted(&run.found());
    // Two workers, two packages stopped after 3 s of CPU time each (a
    // wall-time bound far above that, for loaded machines).
    assert!(started.elapsed() < Duration::from_secs(180));

    let render = run_capped(&dir, &["render", "bad/compare", "--unit-timeout", "2"], &[]);
    assert_eq!(render.code, Some(1), "{}", render.stderr);
    assert!(
        render
            .stderr
            .contains("not rendered: it ran for more than 2 s"),
        "{}",
        render.stderr
    );
}
