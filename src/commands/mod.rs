//! The subcommands that do more than call one library function.

pub mod render;
pub mod shared;
