//! Behaviour cases: folders of input files with what confvet must report
//! (the shared conformance cases and this repository's own under
//! tests/cases/<system>/), the render cases of tests/render, and the Tekton
//! cases a folder cannot hold: trees with a `.git`, inputs generated to
//! hostile sizes, and the upstream Triggers examples of tests/fixtures;
//! and the rule pages' examples, each a case that runs.

#[path = "../common/mod.rs"]
mod common;
mod conformance;
mod render;
mod rule_pages;
mod tekton_fixtures;
mod tekton_generated;
mod tekton_git;
#[path = "../tekton_support/mod.rs"]
mod tekton_support;
