//! Every fix applied to the real trees: the corpus and the conformance
//! cases, copied. After `--fix` (safe fixes only) every changed file still
//! parses, no safe fix is left, the fixed rules report less, and every ytt
//! package holding a changed file that rendered before renders byte for
//! byte as before (a safe fix keeps the meaning; one that failed may render
//! once fixed), except where the fix is meant to change what a Carvel
//! Package says. After `--fix --unsafe-fixes`, the same but for
//! renders (an unsafe fix may change them). The counts are printed
//! (`cargo test --test corpus fixes -- --nocapture`).

use crate::common::{TempDir, copy_tree, run_in, skipped_without_shared};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every regular file below `dir`, by path relative to it, as bytes.
fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in std::fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() && path.file_name().is_some_and(|n| n != ".confvet-cache") {
                stack.push(path);
            } else if kind.is_file() {
                let relative = path.strip_prefix(dir).unwrap().to_path_buf();
                out.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Lint with the cache (in the copy): each lint after the first checks
/// only the units a fix changed.
fn lint(dir: &Path, flags: &[&str]) -> crate::common::Run {
    let args = [&["lint"], flags, &["."]].concat();
    let run = run_in(dir, &args);
    assert!(
        run.code < 2,
        "{args:?} on {}: {}",
        dir.display(),
        run.stderr
    );
    run
}

fn findings(dir: &Path) -> Vec<Value> {
    lint(dir, &["--format", "json"]).json()["findings"]
        .as_array()
        .unwrap()
        .clone()
}

/// Findings by rule whose fix `--fix` (or with `unsafe_fixes` too,
/// `--unsafe-fixes`) applies.
fn fixable(findings: &[Value], unsafe_fixes: bool) -> BTreeMap<String, usize> {
    let mut by_rule = BTreeMap::new();
    for finding in findings {
        let applied = match finding["fix"]["applicability"].as_str() {
            Some("safe") => true,
            Some("unsafe") => unsafe_fixes,
            _ => false,
        };
        if applied {
            *by_rule
                .entry(finding["rule"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    by_rule
}

fn count(findings: &[Value], rule: &str) -> usize {
    findings.iter().filter(|f| f["rule"] == rule).count()
}

/// The folders of `tree` that are ytt packages: those of the ytt corpus,
/// or the ytt conformance cases (each holds an `expect.yml`).
fn packages(tree: &Path) -> Vec<PathBuf> {
    let ytt_tree = tree.ends_with("corpus/ytt");
    contents(tree)
        .into_keys()
        .filter(|p| p.file_name().is_some_and(|n| n == "expect.yml"))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .filter(|p| ytt_tree || p.starts_with("ytt"))
        .collect()
}

/// Fix `copy` (a copy of `original`) with `flags`; check what the module
/// header says; return the fixable counts before.
fn fix_and_check(
    original: &Path,
    copy: &Path,
    flags: &[&str],
    before: Vec<Value>,
) -> (BTreeMap<String, usize>, Vec<Value>) {
    let unsafe_fixes = flags.contains(&"--unsafe-fixes");
    let before_files = contents(copy);
    let wanted = fixable(&before, unsafe_fixes);
    let fixed = lint(copy, &[&["--fix"], flags].concat());
    let after_files = contents(copy);
    let changed: Vec<&PathBuf> = after_files
        .iter()
        .filter(|(path, bytes)| before_files.get(*path) != Some(bytes))
        .map(|(path, _)| path)
        .collect();
    assert_eq!(
        wanted.is_empty(),
        changed.is_empty(),
        "{}: fixes {wanted:?}, files changed {changed:?}\n{}",
        copy.display(),
        fixed.stderr
    );
    for path in &changed {
        let text = String::from_utf8(after_files[*path].clone()).unwrap();
        let was = String::from_utf8(before_files[*path].clone()).unwrap();
        let parses = |text: &str| {
            let options = confvet::yaml::ParseOptions {
                keeps_duplicate_keys: true,
                ..Default::default()
            };
            confvet::yaml::parse_file(confvet::source::FileId(0), text, &options).is_ok()
        };
        assert!(
            !parses(&was) || parses(&text),
            "{} no longer parses after {flags:?}",
            path.display()
        );
    }
    let after = findings(copy);
    assert!(
        fixable(&after, unsafe_fixes).is_empty(),
        "{}: fixes are left after {flags:?}: {:?}",
        copy.display(),
        fixable(&after, unsafe_fixes)
    );
    for rule in wanted.keys() {
        assert!(
            count(&after, rule) < count(&before, rule),
            "{}: {rule} is reported as often after the fix",
            copy.display()
        );
    }
    if !unsafe_fixes {
        renders_are_kept(original, copy, &changed, &before);
    }
    (wanted, after)
}

/// Each package holding a changed file renders as before: the same exit
/// code and output. A package whose changed file holds a Carvel Package
/// the drift fix rewrote is left out: that change is the point.
fn renders_are_kept(original: &Path, copy: &Path, changed: &[&PathBuf], before: &[Value]) {
    let drift_files: Vec<&str> = before
        .iter()
        .filter(|f| f["rule"] == "ytt/package-schema-drift" && f.get("fix").is_some())
        .flat_map(|f| f["fix"]["edits"].as_array().unwrap())
        .filter_map(|e| e["file"].as_str())
        .collect();
    for package in packages(original) {
        let touched: Vec<&&PathBuf> = changed.iter().filter(|p| p.starts_with(&package)).collect();
        if touched.is_empty()
            || touched.iter().any(|p| {
                drift_files
                    .iter()
                    .any(|d| Path::new(d).ends_with(p.as_path()))
            })
        {
            continue;
        }
        let render = |root: &Path| {
            let run = run_in(&root.join(&package), &["render", "."]);
            (run.code, run.stdout)
        };
        // A package that failed to render may render once fixed: that is
        // what fixing its error means.
        let was = render(original);
        if was.0 == 0 {
            assert!(
                render(copy) == was,
                "{} renders differently after --fix",
                package.display()
            );
        }
    }
}

#[test]
fn every_fix_applied_to_the_corpus_and_the_conformance_cases_keeps_them_whole() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let trees = [
        "corpus/ytt",
        "corpus/kubevirt",
        "corpus/tekton",
        "conformance",
    ];
    if !trees.iter().all(|t| shared.join(t).is_dir()) {
        return skipped_without_shared("../shared/corpus or ../shared/conformance not found");
    }
    let mut totals: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for tree in trees {
        let original = shared.join(tree).canonicalize().unwrap();
        let dir = TempDir::new("fix-corpus");
        let copy = dir.path().join("tree");
        copy_tree(&original, &copy);
        let before = findings(&copy);
        let (safe, after) = fix_and_check(&original, &copy, &[], before);
        let (with_unsafe, _) = fix_and_check(&original, &copy, &["--unsafe-fixes"], after);
        for (rule, n) in safe {
            totals.entry(rule).or_default().0 += n;
        }
        for (rule, n) in with_unsafe {
            totals.entry(rule).or_default().1 += n;
        }
    }
    println!("fixes applied (rule: safe, then unsafe after them):");
    for (rule, (safe, unsafe_)) in &totals {
        println!("  {rule}: {safe} safe, {unsafe_} unsafe");
    }
}
