//! The subcommands that do more than call one library function.

/// A line on standard error: `eprintln!` through
/// [`Style::log_text`](confvet::report::Style::log_text), so that a file
/// name or message from the repository can neither hide text nor run a CI
/// runner's command. Every message of the binary goes through it.
macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!(
            "{}",
            $crate::commands::shared::log_style(false).log_text(&format!($($arg)*))
        )
    };
}

pub mod inspect;
pub mod lint;
pub mod render;
pub mod shared;
