//! What every subcommand takes from the command line and the environment
//! in the same way: the unit limits, ytt's settings from its flags, and how
//! text is written to the terminal.

use confvet::check::ytt::marks::{FileMark, SymlinkPolicy};
use confvet::check::ytt::{YttSettings, flags::DataValueFlags};
use confvet::cli::{ColorChoice, YttFlags};
use confvet::error::{Doing, Error};
use confvet::report::{Format, Report, Style};
use confvet::source::Sources;
use std::io::{IsTerminal, Write};
use std::path::Path;

/// The stack of each worker thread.
pub const WORKER_STACK_BYTES: usize = 64 * 1024 * 1024;

/// The unit limits the command line sets (`--unit-timeout`, `--unit-memory`).
pub static LIMITS: std::sync::OnceLock<confvet::watchdog::Limits> = std::sync::OnceLock::new();

pub fn limits() -> confvet::watchdog::Limits {
    LIMITS.get().copied().unwrap_or_default()
}

/// Write `text` to standard output: exit code 0, also when the reader went
/// away (`confvet rules | head`), 2 on any other write error.
pub fn print_stdout(text: &str) -> u8 {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => 0,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(err) => fail(Error::io_unlocated(Doing::Writing, "standard output", err)),
    }
}

/// Say why a command stops, on standard error: its exit code.
pub fn fail(error: Error) -> u8 {
    say!("confvet: {error}");
    error.exit_code()
}

pub fn ytt_settings(flags: &YttFlags, cwd: &Path) -> YttSettings {
    YttSettings {
        flags: DataValueFlags {
            data_value: flags.data_value.clone(),
            data_value_yaml: flags.data_value_yaml.clone(),
            data_value_file: flags.data_value_file.clone(),
            data_values_file: flags.data_values_file.clone(),
            data_values_env: flags.data_values_env.clone(),
            data_values_env_yaml: flags.data_values_env_yaml.clone(),
            env: std::env::vars().collect(),
            cwd: cwd.to_path_buf(),
        },
        disable_validation: flags.disable_validation,
        strict: flags.strict,
        ignore_unknown_comments: flags.ignore_unknown_comments,
        implicit_map_key_overrides: flags.implicit_map_key_overrides,
        flat_files: None,
        text_templates: None,
        library_files: None,
        library: Default::default(),
        skip_templates: false,
        values_only: false,
        // Checked when the flags were read.
        marks: flags
            .file_mark
            .iter()
            .filter_map(|m| FileMark::parse(m).ok())
            .collect(),
        symlinks: SymlinkPolicy::new(
            flags.allow_all_symlink_destinations,
            &flags.allow_symlink_destination,
            cwd,
        ),
        inputs: None,
        kubernetes: None,
        plain_manifests: false,
        // `render` and `values` are given the package: ytt's own reading.
        root_guessed: false,
    }
}

pub fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
                false
            } else if std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0")
            {
                true
            } else {
                std::io::stdout().is_terminal()
            }
        }
    }
}

/// How output is written to standard output or error: in colour or not,
/// and with workflow commands turned off where a GitHub Actions runner
/// reads it, logging commands where an Azure Pipelines agent does (file
/// contents are untrusted).
pub fn log_style(color: bool) -> Style {
    Style {
        color,
        github_actions: std::env::var_os("GITHUB_ACTIONS").is_some_and(|v| v == "true"),
        // The agent sets `TF_BUILD=True` in every step's environment.
        azure_pipelines: std::env::var_os("TF_BUILD")
            .is_some_and(|v| v.eq_ignore_ascii_case("true")),
        statistics: false,
    }
}

/// The findings of a run that stops a `values` or `schema` command, as text
/// on standard error.
pub fn print_findings(result: &confvet::run::LintResult, sources: &Sources) {
    let report = Report::new(&result.findings, sources, &result.units, result.summary);
    let _ = Format::Text
        .emitter(log_style(use_color(ColorChoice::Auto)))
        .emit(&mut std::io::stderr(), &report);
}
