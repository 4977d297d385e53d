//! The subcommands that do more than call one library function.

pub mod inspect;
pub mod lint;
pub mod render;
pub mod shared;
