//! Real ytt packages (../shared/corpus/ytt) get ytt's verdict, through the
//! case runner of tests/common/suite.rs: their data values, and whether
//! their full render fails.

use crate::common::suite::{Verdict, run_shared_suite};

/// Real ytt packages get ytt's verdict (exit, findings, data values).
#[test]
fn corpus_ytt_packages() {
    run_shared_suite(
        "corpus",
        "corpus",
        &["ytt"],
        "corpus-passing.txt",
        Verdict::DataValues,
    );
}

/// Real ytt packages rendered: confvet stops on a template exactly where
/// `ytt -f .` fails (the verdict in each package's header).
#[test]
fn corpus_ytt_renders() {
    run_shared_suite(
        "corpus-render",
        "corpus",
        &["ytt"],
        "corpus-render-passing.txt",
        Verdict::Render,
    );
}
