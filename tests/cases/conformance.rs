//! The conformance cases: the shared ones (../shared/conformance), with
//! tests/conformance-passing.txt as their ratchet, and this repository's
//! own (tests/cases/<system>/<case>), every one of which must pass, run by
//! the runner in tests/common/suite.rs; and the check that every rule of
//! the rule table is held by a case of either.

use crate::common::skipped_without_shared;
use crate::common::suite::{Compare, MustPass, Verdict, run_shared_suite, run_suite};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

/// Each suite runs once per test binary: its own test and the coverage
/// test share the result (a panic, a failed case, poisons neither: the
/// coverage test then sees no rules and its own test names the failure).
fn shared_held() -> &'static Option<BTreeSet<String>> {
    static HELD: OnceLock<Option<BTreeSet<String>>> = OnceLock::new();
    HELD.get_or_init(|| {
        run_shared_suite(
            "conformance",
            "conformance",
            &["ytt", "kubevirt", "tekton"],
            "conformance-passing.txt",
            Verdict::Lint,
        )
    })
}

fn local_held() -> &'static BTreeSet<String> {
    static HELD: OnceLock<BTreeSet<String>> = OnceLock::new();
    HELD.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
        run_suite(
            "local",
            &root,
            confvet::rules::GROUPS,
            MustPass::All,
            Verdict::Lint,
            Compare::Exact,
        )
    })
}

#[test]
fn conformance_cases() {
    shared_held();
}

/// This repository's own cases: the findings of each, of every severity,
/// are exactly those its `expect.yml` lists (tests/cases/README.md).
#[test]
fn local_cases() {
    local_held();
}

/// Rules no data case can hold, each with why.
pub(crate) const NO_CASE: &[(&str, &str)] = &[
    (
        "confvet/internal",
        "a bug of confvet: a case that produced it would be a bug to fix",
    ),
    (
        "confvet/unit-limit",
        "a package past its time or memory limit: hostile sizes, tests/cases/tekton_generated.rs",
    ),
];

/// Rules no case holds yet: debt, to be emptied by writing their cases.
const NOT_YET_HELD: &[&str] = &[];

/// Every rule of the rule table is held by a case: some passing case (this
/// repository's, or a shared one on the ratchet) expects a finding that
/// confvet reports under that rule.
#[test]
fn every_rule_is_held_by_a_case() {
    if std::env::var_os("CONFVET_CONFORMANCE_FILTER").is_some() {
        println!("skipped: CONFVET_CONFORMANCE_FILTER runs only some cases");
        return;
    }
    let Some(shared) = shared_held() else {
        skipped_without_shared("../shared/conformance not found; rule coverage not checked");
        return;
    };
    let held: BTreeSet<&str> = shared
        .iter()
        .chain(local_held())
        .map(String::as_str)
        .collect();
    let excused =
        |id: &str| NO_CASE.iter().any(|(rule, _)| *rule == id) || NOT_YET_HELD.contains(&id);
    let unheld: Vec<&str> = confvet::rules::RULES
        .iter()
        .map(|rule| rule.id)
        .filter(|id| !held.contains(id) && !excused(id))
        .collect();
    assert!(
        unheld.is_empty(),
        "rules no case holds (add a case under tests/cases/<system>/):\n  {}",
        unheld.join("\n  ")
    );
    let stale: Vec<&str> = NO_CASE
        .iter()
        .map(|(rule, _)| *rule)
        .chain(NOT_YET_HELD.iter().copied())
        .filter(|id| held.contains(id) || confvet::rules::find(id).is_none())
        .collect();
    assert!(
        stale.is_empty(),
        "listed as without a case, but held or no rule: {stale:?}"
    );
}
