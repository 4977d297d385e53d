//! What ytt's `pkg/workspace` adds on top of the engine: private libraries
//! (what is addressed to them, how one is executed), and the `@ytt:data`
//! and `@ytt:library` modules, which need the package's files. The engine
//! gets those modules from [`MODULES`] instead of importing them.

pub mod addressed;
pub mod data_module;
pub mod execution;
mod files;
pub mod library_module;

use super::modules::ModuleTable;

/// The `@ytt:` modules of the workspace, for the engine's loads.
pub const MODULES: ModuleTable = &[
    ("data", data_module::module),
    ("library", library_module::module),
];
