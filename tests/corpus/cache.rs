//! The cache on the real trees: a warm run of the whole corpus, and of the
//! conformance cases linted as one tree, reports byte for byte what the
//! cold run before it reported, and reuses every unit.

use crate::common::{TempDir, run_env, skipped_without_shared};
use std::path::Path;

/// Lint `tree` cold (the cache empty), then warm; both reports must be the
/// same, and the warm run must have checked nothing.
fn warm_run_reports_what_the_cold_run_did(tree: &Path) {
    let cache = TempDir::new("corpus-cache");
    let dir = cache.path().join("store");
    let env = [("CONFVET_CACHE_DIR", dir.to_str().unwrap())];
    let tree = tree.canonicalize().unwrap();
    let args = [
        "lint",
        tree.to_str().unwrap(),
        "--format",
        "json",
        "--explain-cache",
    ];
    let cold = run_env(cache.path(), &args, &env);
    assert!(cold.code < 2, "{}", cold.stderr);
    assert!(dir.join("results.json").is_file(), "{}", cold.stderr);
    let warm = run_env(cache.path(), &args, &env);
    assert_eq!(warm.code, cold.code);
    assert!(
        warm.stdout == cold.stdout,
        "the warm report differs from the cold one on {}",
        tree.display()
    );
    let said = warm
        .stderr
        .lines()
        .find(|l| l.contains("cache:"))
        .unwrap_or("");
    let reused = said
        .split_whitespace()
        .nth(2)
        .and_then(|n| n.parse::<usize>().ok());
    let units = said
        .split_whitespace()
        .nth(4)
        .and_then(|n| n.parse::<usize>().ok());
    assert!(units.is_some_and(|u| u > 10), "{}", warm.stderr);
    assert_eq!(reused, units, "{}", warm.stderr);
}

#[test]
fn the_corpus_warm_reports_what_it_reports_cold() {
    let corpus = Path::new("../shared/corpus");
    if !corpus.is_dir() {
        return skipped_without_shared("../shared/corpus not found");
    }
    for system in ["ytt", "kubevirt", "tekton"] {
        warm_run_reports_what_the_cold_run_did(&corpus.join(system));
    }
}

#[test]
fn the_conformance_cases_warm_report_what_they_report_cold() {
    let cases = Path::new("../shared/conformance");
    if !cases.is_dir() {
        return skipped_without_shared("../shared/conformance not found");
    }
    warm_run_reports_what_the_cold_run_did(cases);
}
