//! The conformance cases: the shared ones (../shared/conformance), with
//! tests/conformance-passing.txt as their ratchet, and this repository's
//! own (tests/cases/<system>/<case>), every one of which must pass, run by
//! the runner in tests/common/suite.rs.

use crate::common::suite::{Compare, MustPass, Verdict, run_shared_suite, run_suite};
use std::path::Path;

#[test]
fn conformance_cases() {
    run_shared_suite(
        "conformance",
        "conformance",
        &["ytt", "kubevirt", "tekton"],
        "conformance-passing.txt",
        Verdict::Lint,
    );
}

/// This repository's own cases: the findings of each, of every severity,
/// are exactly those its `expect.yml` lists (tests/cases/README.md).
#[test]
fn local_cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    run_suite(
        "local",
        &root,
        &["tekton", "kubernetes", "ytt"],
        MustPass::All,
        Verdict::Lint,
        Compare::Exact,
    );
}
