//! ytt: a package checked as `ytt -f` checks it (spec/ytt.md). `phases/`
//! runs ytt's phases in order, stopping where ytt stops (every file
//! parsed; documents sorted; value code compiled; the schema; data values
//! merged step by step; validations; templates rendered with their
//! overlays), one file each; the modules here are what the phases use
//! (`schema`, `values`, `flags`, `validate`, `asserts`, `render` over
//! `template` on the Starlark `engine` with its `modules`).
//!
//! Below every phase, `starlark` holds the value types and conversions they
//! share.

mod asserts;
pub mod awaits;
mod deprecated;
pub mod drift;
pub mod flags;
mod library;
pub mod navigate;
mod package;
mod package_size;
pub mod path;
mod phases;
pub(crate) use phases::check_package_exporting;
mod quoting;
pub mod render;
pub mod rule;
pub mod scenarios;
pub mod schema;
mod settings;
mod undefined;
pub mod validate;
mod value_code;
pub mod values;

// The ytt engine, a crate of its own (crates/ytt) that renders and knows
// nothing of findings, under the names the checks here use.
pub use confvet_ytt::{
    digest, engine, formats, marks, modules, overlay, starlark, template, translate, workspace,
};

use crate::discover::DiscoveredFile;
use crate::source::Sources;
use std::path::Path;

pub(crate) use asserts::assert_validation;
pub(crate) use asserts::run_asserts;
pub use package::package_files;
pub(crate) use settings::has_errors;
pub use settings::{PackageOutcome, YttSettings};

/// Check one ytt package: `files` in ytt's merge order.
pub fn check_package(
    root: &Path,
    files: &[&DiscoveredFile],
    sources: &Sources,
    settings: &YttSettings,
) -> PackageOutcome {
    check_package_exporting(root, files, sources, settings, &mut None)
}
