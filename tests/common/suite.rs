//! Runs the `confvet` binary over folders of cases, each a set of input
//! files and an `expect.yml`: the shared conformance cases and corpus
//! (../shared, format and comparison in ../shared/conformance/README.md)
//! and this repository's own cases (tests/cases, README there). Prints
//! `N passed, M failed` per system, and fails when a case that must pass
//! fails: one on a suite's passing list (a ratchet: cases are added as they
//! pass, never removed), or any case of a suite that has no list.
//!
//! `CONFVET_CONFORMANCE_FILTER=ytt/types` runs only matching cases, and
//! `CONFVET_CONFORMANCE_VERBOSE=1` prints why each failing case failed.

use super::{copy_case, passing_list, skipped_without_shared};
use confvet::source::{FileId, SourceFile, Sources};
use rayon::prelude::*;
use serde_json::Value as J;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Parse a YAML file with confvet's own parser into JSON data.
pub fn read_yaml(path: &Path) -> Result<J, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let sources = Sources::new();
    let id: FileId = sources.add(SourceFile::new("expect.yml".into(), None, text.clone()));
    let set = confvet::yaml::parse_file(id, &text, &Default::default()).map_err(|e| e.message)?;
    let doc = set.docs.into_iter().next().ok_or("empty expect.yml")?;
    Ok(confvet::yaml::emit::to_json(&doc.value))
}

#[derive(Debug)]
struct Expected {
    kind: String,
    file: String,
    line: i64,
    path: Option<String>,
    contains: Option<String>,
    // Given by this repository's own cases only (tests/cases/README.md).
    rule: Option<String>,
    column: Option<i64>,
    related: Option<Vec<String>>,
    help: Option<String>,
}

fn expectations(list: Option<&J>) -> Vec<Expected> {
    list.and_then(J::as_array)
        .map(|items| {
            items
                .iter()
                .map(|f| Expected {
                    kind: f["kind"].as_str().unwrap_or_default().to_string(),
                    file: f["file"].as_str().unwrap_or_default().to_string(),
                    line: f["line"].as_i64().unwrap_or(0),
                    path: f.get("path").and_then(J::as_str).map(str::to_string),
                    contains: f.get("contains").and_then(J::as_str).map(str::to_string),
                    rule: f.get("rule").and_then(J::as_str).map(str::to_string),
                    column: f.get("column").and_then(J::as_i64),
                    related: f.get("related").and_then(J::as_array).map(|r| {
                        r.iter()
                            .filter_map(|v| v.as_str().map(str::to_string))
                            .collect()
                    }),
                    help: f.get("help").and_then(J::as_str).map(str::to_string),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn matches(expected: &Expected, actual: &J) -> bool {
    actual["kind"] == expected.kind.as_str()
        && actual["file"] == expected.file.as_str()
        && actual["line"].as_i64() == Some(expected.line)
        && expected
            .path
            .as_ref()
            .is_none_or(|p| actual["path"] == p.as_str())
        && expected.contains.as_ref().is_none_or(|c| {
            actual["message"]
                .as_str()
                .is_some_and(|m| m.contains(c.as_str()))
        })
        && expected
            .rule
            .as_ref()
            .is_none_or(|r| actual["rule"] == r.as_str())
        && expected
            .column
            .is_none_or(|c| actual["column"].as_i64() == Some(c))
        && expected
            .related
            .as_ref()
            .is_none_or(|r| *r == related(actual))
        && expected
            .help
            .as_ref()
            .is_none_or(|h| actual["help"] == h.as_str())
}

/// A finding's related locations as `file:line:column message`.
fn related(actual: &J) -> Vec<String> {
    actual["related"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            format!(
                "{}:{}:{} {}",
                r["file"].as_str().unwrap_or_default(),
                r["line"],
                r["column"],
                r["message"].as_str().unwrap_or_default()
            )
        })
        .collect()
}

/// Match each expectation to a distinct finding; the unmatched of both
/// sides, and the rule ids of the matched findings (the rules a case holds).
fn assign<'a>(
    expected: &'a [Expected],
    actual: &'a [&'a J],
) -> (Vec<&'a Expected>, Vec<&'a J>, Vec<String>) {
    let mut used = vec![false; actual.len()];
    let mut missing = Vec::new();
    let mut held = Vec::new();
    for e in expected {
        match (0..actual.len()).find(|&i| !used[i] && matches(e, actual[i])) {
            Some(i) => {
                used[i] = true;
                held.extend(actual[i]["rule"].as_str().map(str::to_string));
            }
            None => missing.push(e),
        }
    }
    let extra = actual
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(a, _)| *a)
        .collect();
    (missing, extra, held)
}

/// Data equality where 1 and 1.0 are the same number.
fn same_data(a: &J, b: &J) -> bool {
    match (a, b) {
        (J::Number(x), J::Number(y)) => x.as_f64() == y.as_f64(),
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_data(p, q))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_data(v, w)))
        }
        _ => a == b,
    }
}

/// The command-line arguments a case gives (`args:`).
pub fn expect_args(expect: &J) -> Vec<String> {
    expect
        .get("args")
        .and_then(J::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// What a suite's verdicts are of.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// `confvet lint`, templates rendered (the conformance cases).
    Lint,
    /// `ytt --data-values-inspect` (the corpus): `confvet lint --no-render`.
    DataValues,
    /// The corpus header's full render (`ytt -f .`): fails or not.
    Render,
}

/// How a suite's findings are compared with its expectations.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// As ../shared/conformance/README.md says: more warnings are allowed,
    /// and so are more errors after one that stops ytt.
    Shared,
    /// This repository's own cases: the findings of every severity are
    /// exactly the expected ones, so a false finding fails its case.
    Exact,
}

/// Which cases of a suite must pass.
#[derive(Clone, Copy)]
pub enum MustPass {
    /// Those on this list under `tests/`.
    Listed(&'static str),
    /// Every one, and the suite holds at least one.
    All,
}

fn run_case(
    system: &str,
    case_dir: &Path,
    scratch: &Path,
    verdict: Verdict,
    compare: Compare,
) -> Result<Vec<String>, String> {
    let expect = read_yaml(&case_dir.join("expect.yml"))?;
    copy_case(case_dir, scratch).map_err(|e| e.to_string())?;
    if verdict == Verdict::Render {
        return render_verdict(case_dir, scratch, &expect).map(|()| Vec::new());
    }
    let args = expect_args(&expect);
    // The corpus verdict is `--data-values-inspect`: nothing is rendered.
    let no_render: &[&str] = if verdict == Verdict::DataValues {
        &["--no-render"]
    } else {
        &[]
    };
    let env: Vec<(String, String)> = expect
        .get("env")
        .and_then(J::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().map_or(v.to_string(), str::to_string)))
                .collect()
        })
        .unwrap_or_default();
    let bin = env!("CARGO_BIN_EXE_confvet");
    let output = Command::new(bin)
        .current_dir(scratch)
        .args(["lint", ".", "--format", "json"])
        .args(no_render)
        .args(&args)
        .envs(env.iter().cloned())
        .output()
        .map_err(|e| e.to_string())?;
    let report: J = serde_json::from_slice(&output.stdout).map_err(|e| {
        format!(
            "no JSON report (exit {:?}): {e}; stderr: {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    let want_exit = expect["exit"].as_i64().unwrap_or(0);
    let got_exit = i64::from(output.status.code().unwrap_or(-1));
    let findings: Vec<&J> = report["findings"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let errors: Vec<&J> = findings
        .iter()
        .copied()
        .filter(|f| f["severity"] == "error")
        .collect();
    let warnings: Vec<&J> = findings
        .iter()
        .copied()
        .filter(|f| f["severity"] == "warning")
        .collect();
    let mut problems = Vec::new();
    if want_exit != got_exit {
        problems.push(format!("exit {got_exit}, expected {want_exit}"));
    }
    let expected = expectations(expect.get("findings"));
    let (missing, extra, mut held) = assign(&expected, &errors);
    for m in missing {
        problems.push(format!("missing {m:?}"));
    }
    let stops_early = compare == Compare::Shared
        && system == "ytt"
        && expected.iter().any(|e| {
            matches!(
                e.kind.as_str(),
                "syntax" | "schema" | "type" | "unknown-key" | "reference"
            )
        });
    if !stops_early {
        for e in extra {
            problems.push(format!(
                "unexpected {} {}:{} {}",
                e["kind"], e["file"], e["line"], e["message"]
            ));
        }
    }
    let expected_warnings = expectations(expect.get("warnings"));
    let (missing_warnings, extra_warnings, held_warnings) = assign(&expected_warnings, &warnings);
    held.extend(held_warnings);
    for m in missing_warnings {
        problems.push(format!("missing warning {m:?}"));
    }
    if compare == Compare::Exact {
        for e in extra_warnings {
            problems.push(format!(
                "unexpected warning {} {}:{} {}",
                e["rule"], e["file"], e["line"], e["message"]
            ));
        }
    }
    if let Some(want_values) = expect.get("values").filter(|v| !v.is_null()) {
        let output = Command::new(bin)
            .current_dir(scratch)
            .args(["values", ".", "--format", "json"])
            .args(&args)
            .envs(env.iter().cloned())
            .output()
            .map_err(|e| e.to_string())?;
        match serde_json::from_slice::<J>(&output.stdout) {
            Ok(got) if same_data(&got, want_values) => {}
            Ok(got) => problems.push(format!("values differ: got {got}, expected {want_values}")),
            Err(_) => problems.push(format!("no values (exit {:?})", output.status.code())),
        }
    }
    if problems.is_empty() {
        Ok(held)
    } else {
        Err(problems.join("; "))
    }
}

/// A corpus package whose header records the full render's exit: confvet's
/// lint (templates rendered, the package's own values) must stop on a
/// template exactly when `ytt -f .` fails.
fn render_verdict(case_dir: &Path, scratch: &Path, expect: &J) -> Result<(), String> {
    let header = std::fs::read_to_string(case_dir.join("expect.yml")).map_err(|e| e.to_string())?;
    let Some(ytt_fails) = header
        .lines()
        .take_while(|l| l.starts_with('#'))
        .find_map(|l| l.strip_prefix("# Full render `ytt -f .`: exit "))
        .map(|rest| !rest.starts_with('0'))
    else {
        return Err("no full-render verdict in the header".into());
    };
    let args = expect_args(expect);
    let output = Command::new(env!("CARGO_BIN_EXE_confvet"))
        .current_dir(scratch)
        .args(["lint", ".", "--format", "json"])
        .args(&args)
        .output()
        .map_err(|e| e.to_string())?;
    let report: J = serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())?;
    let stops: Vec<String> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        // What stops `ytt -f .`: any error, and a template that failed
        // (a warning with the package's own values).
        .filter(|f| {
            f["severity"] == "error"
                || matches!(
                    f["rule"].as_str(),
                    Some("ytt/template-fail" | "ytt/template-error")
                )
        })
        .map(|f| format!("{}:{} {}", f["file"], f["line"], f["message"]))
        .collect();
    match (ytt_fails, stops.is_empty()) {
        (true, true) => Err("ytt -f . fails; confvet rendered it".into()),
        (false, false) => Err(format!(
            "ytt -f . renders; confvet stops: {}",
            stops.join("; ")
        )),
        _ => Ok(()),
    }
}

/// Every directory below `dir` that holds an `expect.yml`.
fn case_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.join("expect.yml").is_file() {
                found.push(path);
            } else {
                found.extend(case_dirs(&path));
            }
        }
    }
    found.sort();
    found
}

/// Run every case under `root/<system>`, print the counts per system, and
/// fail when a case that must pass fails. Returns the rules the cases that
/// must pass hold: those of the findings matched to their expectations.
pub fn run_suite(
    label: &str,
    root: &Path,
    systems: &[&str],
    must_pass: MustPass,
    verdict: Verdict,
    compare: Compare,
) -> BTreeSet<String> {
    let (listed, list_name) = match must_pass {
        MustPass::Listed(name) => (passing_list(name), name),
        MustPass::All => (Default::default(), ""),
    };
    let every = matches!(must_pass, MustPass::All);
    let mut total = 0;
    let filter = std::env::var("CONFVET_CONFORMANCE_FILTER").unwrap_or_default();
    let verbose = std::env::var_os("CONFVET_CONFORMANCE_VERBOSE").is_some();
    let scratch_root = std::env::temp_dir().join(format!("confvet-{label}-{}", std::process::id()));
    let mut regressions = Vec::new();
    let mut now_passing = Vec::new();
    let mut held = BTreeSet::new();
    for system in systems {
        let system_root = root.join(system);
        let name_of = |c: &Path| {
            let relative = c.strip_prefix(&system_root).unwrap_or(c);
            format!("{system}/{}", relative.to_string_lossy())
        };
        let mut cases = case_dirs(&system_root);
        cases.retain(|c| name_of(c).contains(&filter));
        let results: Vec<(String, Result<Vec<String>, String>)> = cases
            .par_iter()
            .map(|case| {
                let name = name_of(case);
                let scratch = scratch_root.join(&name);
                (name, run_case(system, case, &scratch, verdict, compare))
            })
            .collect();
        total += results.len();
        let passed = results.iter().filter(|(_, r)| r.is_ok()).count();
        let failed = results.len() - passed;
        for (name, result) in &results {
            match result {
                Ok(_) if !every && !listed.contains(name) => now_passing.push(name.clone()),
                Ok(rules) => held.extend(rules.iter().cloned()),
                Err(why) if every || listed.contains(name) => {
                    regressions.push(format!("{name}: {why}"))
                }
                Err(why) if verbose => println!("FAIL {name}: {why}"),
                _ => {}
            }
        }
        println!("{label}-{system}: {passed} passed, {failed} failed");
    }
    let _ = std::fs::remove_dir_all(&scratch_root);
    if !now_passing.is_empty() {
        println!("passing but not on the list (add them to tests/{list_name}):");
        for name in &now_passing {
            println!("  {name}");
        }
    }
    assert!(
        regressions.is_empty(),
        "cases that must pass failed:\n{}",
        regressions.join("\n")
    );
    assert!(
        !every || total > 0 || !filter.is_empty(),
        "{label}: no cases under {}",
        root.display()
    );
    held
}

/// Run the suite of `../shared/<dir>` whose ratchet is `list`, or say that
/// it was skipped where `../shared` lacks it (`None`); the rules it holds.
pub fn run_shared_suite(
    label: &str,
    dir: &str,
    systems: &[&str],
    list: &'static str,
    verdict: Verdict,
) -> Option<BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(dir);
    if !systems.iter().all(|s| root.join(s).is_dir()) {
        skipped_without_shared(&format!(
            "../shared/{dir}/{{{}}} not found; {label} cases not run",
            systems.join(",")
        ));
        return None;
    }
    Some(run_suite(
        label,
        &root,
        systems,
        MustPass::Listed(list),
        verdict,
        Compare::Shared,
    ))
}
