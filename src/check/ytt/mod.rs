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
pub mod digest;
pub mod drift;
pub mod engine;
pub mod flags;
pub mod formats;
mod library;
pub mod marks;
pub mod modules;
pub mod navigate;
pub mod overlay;
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
pub mod starlark;
pub mod template;
pub mod translate;
mod undefined;
pub mod validate;
mod value_code;
pub mod values;
pub mod workspace;

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
