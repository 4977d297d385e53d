//! Runs `confvet render` over every case in tests/render and compares it with
//! what the reference ytt printed (format in tests/render/README.md): a case
//! whose folder holds `expected.txt` must exit 0 with exactly that on
//! stdout (and that of `expected-stderr.txt` on stderr when the case has
//! one); a case with `expected-error.txt` must exit 1. Prints
//! `render: N passed, M failed` and the names of the failing cases, and fails
//! when a case on the passing list (tests/render-passing.txt) fails or is not
//! a folder. Cases are a ratchet: add them to the list as they pass, never
//! remove one.
//!
//! `CONFVET_RENDER_FILTER=load-` runs only matching cases,
//! `CONFVET_RENDER_VERBOSE=1` prints why each failing case failed, and
//! `CONFVET_RENDER_BIN=path` runs another program as `path render ARGS`
//! (a wrapper around the reference ytt must pass every case).

use crate::common;

use rayon::prelude::*;
use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A render that takes longer than this is stopped and fails its case.
const TIMEOUT: Duration = Duration::from_secs(60);

fn cases_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/render")
}

fn is_expectation(name: &str) -> bool {
    name == "args" || (name.starts_with("expected") && name.ends_with(".txt"))
}

/// The arguments after `render`: the lines of `args`, one argument a line,
/// or else every file and folder of the case but its expectations, by name.
fn arguments(case: &Path) -> Result<Vec<String>, String> {
    if let Ok(text) = std::fs::read_to_string(case.join("args")) {
        return Ok(text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect());
    }
    let mut names: Vec<String> = std::fs::read_dir(case)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !is_expectation(n))
        .collect();
    names.sort();
    Ok(names)
}

enum Expect {
    Output(Vec<u8>),
    Error,
}

fn expectation(case: &Path) -> Result<Expect, String> {
    let output = std::fs::read(case.join("expected.txt")).ok();
    let error = case.join("expected-error.txt").is_file();
    match (output, error) {
        (Some(bytes), false) => Ok(Expect::Output(bytes)),
        (None, true) => Ok(Expect::Error),
        (Some(_), true) => Err("has both expected.txt and expected-error.txt".into()),
        (None, false) => Err("has neither expected.txt nor expected-error.txt".into()),
    }
}

struct Outcome {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

/// Run `confvet render ARGS` in `case`, output into files under `scratch`
/// (no pipes to fill up), stopped after [`TIMEOUT`].
fn render(case: &Path, args: &[String], scratch: &Path) -> Result<Outcome, String> {
    let out_path = scratch.join("stdout");
    let err_path = scratch.join("stderr");
    let out = File::create(&out_path).map_err(|e| e.to_string())?;
    let err = File::create(&err_path).map_err(|e| e.to_string())?;
    let bin = std::env::var_os("CONFVET_RENDER_BIN").unwrap_or_else(|| common::BIN.into());
    let mut child = Command::new(bin)
        .arg("render")
        .args(args)
        .current_dir(case)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {}s", TIMEOUT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Ok(Outcome {
        code: status.code(),
        stdout: std::fs::read(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    })
}

/// The first line where `got` and `want` differ, for the verbose report.
fn first_difference(got: &[u8], want: &[u8]) -> String {
    let got = String::from_utf8_lossy(got);
    let want = String::from_utf8_lossy(want);
    let mut got_lines = got.split_inclusive('\n');
    let mut want_lines = want.split_inclusive('\n');
    let mut line = 1;
    loop {
        match (got_lines.next(), want_lines.next()) {
            (Some(g), Some(w)) if g == w => line += 1,
            (g, w) => {
                return format!(
                    "stdout differs at line {line}: got {:?}, expected {:?}",
                    g.unwrap_or("<end>"),
                    w.unwrap_or("<end>")
                );
            }
        }
    }
}

fn run_case(case: &Path, scratch: &Path) -> Result<(), String> {
    let expect = expectation(case)?;
    let args = arguments(case)?;
    std::fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
    let outcome = render(case, &args, scratch)?;
    let first_stderr_line = || {
        outcome
            .stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string()
    };
    match (expect, outcome.code) {
        (Expect::Output(want), Some(0)) if outcome.stdout == want => {
            // What the code printed, when the case says what ytt printed.
            match std::fs::read_to_string(case.join("expected-stderr.txt")) {
                Ok(want) if outcome.stderr != want => Err(format!(
                    "stderr differs: got {:?}, expected {want:?}",
                    outcome.stderr
                )),
                _ => Ok(()),
            }
        }
        (Expect::Output(want), Some(0)) => Err(first_difference(&outcome.stdout, &want)),
        (Expect::Output(_), code) => Err(format!(
            "exit {code:?}, expected 0: {}",
            first_stderr_line()
        )),
        (Expect::Error, Some(1)) => Ok(()),
        (Expect::Error, code) => Err(format!(
            "exit {code:?}, expected 1 (an error): {}",
            first_stderr_line()
        )),
    }
}

/// Every folder directly below tests/render is a case.
fn case_dirs(root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

#[test]
fn render_cases() {
    let root = cases_root();
    let listed = common::passing_list("render-passing.txt");
    let filter = std::env::var("CONFVET_RENDER_FILTER").unwrap_or_default();
    let verbose = std::env::var_os("CONFVET_RENDER_VERBOSE").is_some();
    let name_of = |c: &Path| c.file_name().unwrap().to_string_lossy().into_owned();

    let all = case_dirs(&root);
    let names: BTreeSet<String> = all.iter().map(|c| name_of(c)).collect();
    let unknown: Vec<&String> = listed.iter().filter(|n| !names.contains(*n)).collect();
    // A case without exactly one expectation is a broken case, whatever
    // render does.
    let broken: Vec<String> = all
        .iter()
        .filter_map(|c| {
            expectation(c)
                .err()
                .map(|why| format!("{}: {why}", name_of(c)))
        })
        .collect();

    let scratch = common::TempDir::new("render");
    let mut cases = all;
    cases.retain(|c| name_of(c).contains(&filter));
    let results: Vec<(String, Result<(), String>)> = cases
        .par_iter()
        .map(|case| {
            let name = name_of(case);
            let result = run_case(case, &scratch.path().join(&name));
            (name, result)
        })
        .collect();

    let passed = results.iter().filter(|(_, r)| r.is_ok()).count();
    let failed = results.len() - passed;
    println!("render: {passed} passed, {failed} failed");
    let mut regressions = Vec::new();
    let mut now_passing = Vec::new();
    for (name, result) in &results {
        match result {
            Ok(()) if !listed.contains(name) => now_passing.push(name.clone()),
            Ok(()) => {}
            Err(why) => {
                if verbose {
                    println!("FAIL {name}: {why}");
                } else {
                    println!("FAIL {name}");
                }
                if listed.contains(name) {
                    regressions.push(format!("{name}: {why}"));
                }
            }
        }
    }
    if !now_passing.is_empty() {
        println!("passing but not on the list (add them to tests/render-passing.txt):");
        for name in &now_passing {
            println!("  {name}");
        }
    }
    assert!(
        unknown.is_empty(),
        "tests/render-passing.txt names cases that have no folder in tests/render: {unknown:?}"
    );
    assert!(broken.is_empty(), "broken cases:\n{}", broken.join("\n"));
    assert!(
        regressions.is_empty(),
        "listed cases failed:\n{}",
        regressions.join("\n")
    );
}
