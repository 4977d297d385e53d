//! Command-line flags, as clap derives them. Only parsing and validation
//! live here; `config` turns flags into the settings the run uses.

use crate::error::Error;
use crate::report::Format;
use crate::rules::Selector;
use crate::run::{NotAShard, Shard};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Check configuration against its schemas and validation rules.
#[derive(Debug, Parser)]
#[command(name = "confvet", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The limits of one unit's work (a ytt package checked or rendered); see
/// SECURITY.md.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// Seconds of CPU time a ytt package may take to check or render (wall time: six times that); past it the package gets `confvet/unit-limit`
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = crate::watchdog::DEFAULT_SECONDS, value_parser = clap::value_parser!(u64).range(1..))]
    pub unit_timeout: u64,

    /// MiB of memory a ytt package may hold while checked or rendered; past it the package gets `confvet/unit-limit`
    #[arg(long, global = true, value_name = "MIB", default_value_t = crate::watchdog::DEFAULT_MEMORY_MIB, value_parser = clap::value_parser!(u64).range(16..))]
    pub unit_memory: u64,
}

impl LimitArgs {
    pub fn limits(&self) -> crate::watchdog::Limits {
        crate::watchdog::Limits {
            time: std::time::Duration::from_secs(self.unit_timeout),
            memory: usize::try_from(self.unit_memory.saturating_mul(1024 * 1024))
                .unwrap_or(usize::MAX),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint ytt packages, KubeVirt Templates and Tekton files below PATHs
    // `check` is ruff's name for the same command: the same meaning, so
    // taken as it is, not answered with a tip toward another command.
    #[command(visible_alias = "check")]
    Lint(Box<LintArgs>),
    /// Print the final data values of the ytt package in DIR (like `ytt --data-values-inspect`)
    Values(ValuesArgs),
    /// Render a ytt package as `ytt -f PATH...` does and print the output
    Render(RenderArgs),
    /// Export the schema of the ytt package in DIR: OpenAPI v3 (as ytt, with rules), JSON Schema or Markdown
    Schema(SchemaArgs),
    /// List every rule id with a one-line summary
    Rules,
    /// Print the documentation of one rule
    Explain {
        /// A rule id such as ytt/validation
        rule: String,
    },
    /// Serve editors over the language server protocol on standard input and output: diagnostics as you type, quick fixes
    Server,
    /// Print a shell completion script (e.g. `confvet completions bash > /etc/bash_completion.d/confvet`)
    Completions {
        /// The shell to complete in
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files or directories to lint; `-` reads one file from standard input (with --stdin-filename)
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,

    /// Report only these rules: ids or systems (`ytt/validation`, `tekton`), comma-separated
    #[arg(long, value_name = "RULE", value_delimiter = ',', value_parser = selector)]
    pub select: Vec<Selector>,

    /// Report none of these rules: ids or systems, comma-separated
    #[arg(long, value_name = "RULE", value_delimiter = ',', value_parser = selector)]
    pub ignore: Vec<Selector>,

    /// Gitignore-style patterns of files and directories not to lint, added to the configuration's `exclude`
    #[arg(long, value_name = "PATTERN", value_delimiter = ',')]
    pub extend_exclude: Vec<String>,

    /// The path of the file read from standard input (`-`): it decides the file's unit, and names it in the output
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,

    /// Output format; repeat to write several (each paired with the --output after it). Also spelt --output-format, as ruff does
    #[arg(long, value_enum, alias = "output-format")]
    pub format: Vec<Format>,

    /// Write the preceding --format to FILE instead of standard output. Also spelt --output-file, as ruff does
    #[arg(long, value_name = "FILE", alias = "output-file")]
    pub output: Vec<PathBuf>,

    /// When to colour text output (honours NO_COLOR and CLICOLOR_FORCE)
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Print nothing on standard output for text, only the exit code tells
    #[arg(short, long)]
    pub quiet: bool,

    /// The lowest severity that makes the exit code 1
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,

    /// Number of threads (default: one per core)
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,

    /// Read the configuration from FILE instead of searching for .confvet.yaml
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Read no configuration file
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,

    /// Let the configuration's scenarios read environment variables (`data-values-env`); without it they are refused, since the repository writes the configuration and CI keeps secrets in the environment
    #[arg(long)]
    pub allow_config_env: bool,

    /// Check ytt schemas and data values only, as `ytt --data-values-inspect`: render no template
    #[arg(long)]
    pub no_render: bool,

    /// Check plain Kubernetes manifests of the tree against Kubernetes and CRD schemas too (what ytt packages render and KubeVirt Templates' objects are always checked)
    #[arg(long, conflicts_with = "no_kubernetes")]
    pub kubernetes: bool,

    /// Check nothing against Kubernetes and CRD schemas
    #[arg(long)]
    pub no_kubernetes: bool,

    /// The Kubernetes minor version whose schemas are used (default: the newest confvet ships)
    #[arg(long, value_name = "1.NN", value_parser = kubernetes_version)]
    pub kubernetes_version: Option<crate::check::kubernetes::Version>,

    /// Apply the safe fixes findings propose, lint again, and repeat until none is left; report what remains
    #[arg(long, conflicts_with = "update_baseline")]
    pub fix: bool,

    /// With --fix or --diff, apply unsafe fixes too (they may change what the configuration means)
    #[arg(long)]
    pub unsafe_fixes: bool,

    /// Print what --fix would change as a unified diff, and change nothing (exit code 1 when there is something to fix)
    #[arg(long, conflicts_with_all = ["fix", "update_baseline"])]
    pub diff: bool,

    /// Report only findings whose fingerprint is not in this baseline FILE
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Write every current finding to the --baseline FILE, then report none
    #[arg(long, requires = "baseline")]
    pub update_baseline: bool,

    /// Instead of the findings, print how many each rule gave (text and concise formats)
    #[arg(long)]
    pub statistics: bool,

    /// GitHub code scanning category of the SARIF report (its automationDetails.id; a `/` is added)
    #[arg(long, value_name = "NAME")]
    pub category: Option<String>,

    /// Lint only the units that files changed since git REF touch (the working tree against REF, untracked files included), each reported whole
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,

    /// Lint shard K of N (1-based): units split by a hash of their root path, for a CI matrix
    #[arg(long, value_name = "K/N", value_parser = shard)]
    pub shard: Option<Shard>,

    /// Neither read nor write the cache (`.confvet-cache/`, or CONFVET_CACHE_DIR): every unit is checked
    #[arg(long)]
    pub no_cache: bool,

    /// Keep the cache in DIR (as CONFVET_CACHE_DIR does): a folder you name is believed as it is, where the default `.confvet-cache/` is believed only when this machine sealed it
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<PathBuf>,

    /// Say on standard error which units reused their findings from the cache, and why the others did not
    #[arg(long, conflicts_with = "no_cache")]
    pub explain_cache: bool,

    /// Never draw a progress bar (drawn on a terminal after one second, never in CI)
    #[arg(long)]
    pub no_progress: bool,

    #[command(flatten)]
    pub ytt: YttFlags,
}

#[derive(Debug, Args)]
pub struct ValuesArgs {
    /// The ytt package directory
    pub dir: PathBuf,

    /// Output format of the data values
    #[arg(long, value_enum, default_value_t = ValuesFormat::Yaml)]
    pub format: ValuesFormat,

    #[command(flatten)]
    pub ytt: YttFlags,
}

#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The ytt package directory
    #[arg(default_value = ".")]
    pub dir: PathBuf,

    /// What to write
    #[arg(long, value_enum, default_value_t = SchemaFormat::OpenapiV3)]
    pub format: SchemaFormat,

    /// OpenAPI exactly as `ytt --data-values-schema-inspect -o openapi-v3` prints it: no rules
    #[arg(long)]
    pub ytt_compatible: bool,

    /// Write to FILE instead of standard output
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Write nothing; exit 1 when the --output FILE differs from the export (for CI and pre-commit)
    #[arg(long, requires = "output")]
    pub check: bool,

    #[command(flatten)]
    pub ytt: YttFlags,
}

/// The formats of `confvet schema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaFormat {
    /// OpenAPI 3.0, as ytt exports it, plus the rules
    #[value(name = "openapi-v3")]
    OpenapiV3,
    /// JSON Schema 2020-12 of a data-values file, for editors
    JsonSchema,
    /// a Markdown table of every data value, for a README
    Markdown,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// Files and directories of the package, in ytt's order
    pub paths: Vec<PathBuf>,

    /// Files and directories of the package (ytt's -f)
    #[arg(short = 'f', long = "file", value_name = "PATH")]
    pub files: Vec<PathBuf>,

    /// Write each output file (YAML and text templates) under DIR instead of printing
    #[arg(long = "output-files", value_name = "DIR")]
    pub output_files: Option<PathBuf>,

    /// Render every ytt package found below the paths (as `lint` finds them), each as `ytt -f PACKAGE`, in parallel; with --output-files, each under DIR/PACKAGE
    #[arg(long)]
    pub each_package: bool,

    #[command(flatten)]
    pub ytt: YttFlags,
}

/// ytt's data-value flags, with ytt's names and meaning. They apply when the
/// linted paths make up one ytt package.
#[derive(Debug, Args, Default, Clone)]
pub struct YttFlags {
    /// Set a data value to a string (key.sub=value)
    #[arg(short = 'v', long = "data-value", value_name = "KEY=VAL", value_parser = key_value)]
    pub data_value: Vec<String>,

    /// Set a data value to a YAML-decoded value (key.sub=yaml)
    #[arg(long = "data-value-yaml", value_name = "KEY=YAML", value_parser = key_value)]
    pub data_value_yaml: Vec<String>,

    /// Set a data value to the contents of a file (key=path)
    #[arg(long = "data-value-file", value_name = "KEY=PATH", value_parser = key_value)]
    pub data_value_file: Vec<String>,

    /// Plain YAML file or directory of data values, merged in order
    #[arg(long = "data-values-file", value_name = "PATH")]
    pub data_values_file: Vec<PathBuf>,

    /// Read data values as strings from environment variables PREFIX_key__sub
    #[arg(long = "data-values-env", value_name = "PREFIX")]
    pub data_values_env: Vec<String>,

    /// Read data values as YAML from environment variables PREFIX_key__sub
    #[arg(long = "data-values-env-yaml", value_name = "PREFIX")]
    pub data_values_env_yaml: Vec<String>,

    /// Skip validation rules (type checks still run)
    #[arg(long = "dangerous-data-values-disable-validation")]
    pub disable_validation: bool,

    /// Reject ambiguous YAML scalars such as `yes`, as `ytt --strict` does
    #[arg(long)]
    pub strict: bool,

    /// Allow plain `#` comments in schema and data-values files, as ytt's flag does
    #[arg(long = "ignore-unknown-comments")]
    pub ignore_unknown_comments: bool,

    /// Allow an overriding map key without `@yaml/map-key-override`
    #[arg(long = "implicit-map-key-overrides")]
    pub implicit_map_key_overrides: bool,

    /// Mark files as ytt does (PATH:type=yaml-template|yaml-plain|text-template|text-plain|starlark|data,
    /// PATH:exclude=true, PATH:for-output=true, PATH:exclusive-for-output=true); PATH relative to the package, `*` and `**/*` as in ytt
    #[arg(long = "file-mark", value_name = "PATH:KEY=VALUE", value_parser = file_mark)]
    pub file_mark: Vec<String>,

    /// Read symbolic links whose destination is PATH or below it (comma-separated or repeated)
    #[arg(
        long = "allow-symlink-destination",
        value_name = "PATH",
        value_delimiter = ','
    )]
    pub allow_symlink_destination: Vec<PathBuf>,

    /// Read symbolic links wherever they point
    #[arg(long = "dangerous-allow-all-symlink-destinations")]
    pub allow_all_symlink_destinations: bool,
}

fn kubernetes_version(text: &str) -> Result<crate::check::kubernetes::Version, UnknownVersion> {
    crate::check::kubernetes::Version::parse(text).ok_or_else(|| UnknownVersion(text.to_string()))
}

/// A `--kubernetes-version` confvet has no schemas of.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("confvet has the schemas of Kubernetes {known}, not \"{0}\"", known = known_versions())]
pub struct UnknownVersion(pub String);

fn known_versions() -> String {
    use crate::check::kubernetes::Version;
    let known: Vec<&str> = Version::all().map(Version::name).collect();
    known.join(", ")
}

/// `--shard K/N`.
fn shard(text: &str) -> Result<Shard, NotAShard> {
    Shard::parse(text)
}

/// `--select`/`--ignore` values: a rule id or a system.
fn selector(text: &str) -> Result<Selector, crate::rules::UnknownRule> {
    Selector::parse(text)
}

/// A data-value flag's `KEY=VALUE`, checked when the flags are read so a
/// mistake is a usage error that says what was expected (ytt's `@lib:key`
/// prefix and `key+=value` both contain `=` and pass through).
fn key_value(text: &str) -> Result<String, NotKeyValue> {
    match text.split_once('=') {
        None => Err(NotKeyValue::NoEquals),
        Some((key, _)) if key.is_empty() || key == "+" => Err(NotKeyValue::NoKey),
        Some(_) => Ok(text.to_string()),
    }
}

/// A data-value flag that is not `KEY=VALUE`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotKeyValue {
    #[error("expected KEY=VALUE with a dotted key, as in `image.tag=1.2`, but it has no `=`")]
    NoEquals,
    #[error(
        "expected KEY=VALUE with a dotted key, as in `image.tag=1.2`, but it has no key before `=`"
    )]
    NoKey,
}

/// A `--file-mark`, checked when the flags are read: ytt's message when it
/// is not one.
fn file_mark(text: &str) -> Result<String, crate::check::ytt::marks::FileMarkError> {
    crate::check::ytt::marks::FileMark::parse(text).map(|_| text.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValuesFormat {
    Yaml,
    Json,
}

/// Pairs each `--output` with the `--format` before it, by their positions on
/// the command line: `--format sarif --output a.sarif --format text` writes
/// SARIF to a.sarif and text to standard output. No `--format` means text.
pub fn pair_outputs(
    formats: &[(usize, Format)],
    outputs: &[(usize, PathBuf)],
) -> Result<Vec<(Format, Option<PathBuf>)>, Error> {
    let mut pairs: Vec<(usize, Format, Option<PathBuf>)> =
        formats.iter().map(|(i, f)| (*i, *f, None)).collect();
    if pairs.is_empty() {
        pairs.push((0, Format::Text, None));
    }
    for (index, path) in outputs {
        let target = pairs.iter_mut().rev().find(|(i, _, _)| i < index);
        match target {
            Some((_, _, slot @ None)) => *slot = Some(path.clone()),
            Some((_, format, Some(_))) => {
                return Err(Error::Usage(format!(
                    "--output {} follows a --format {:?} that already has an --output",
                    path.display(),
                    format
                )));
            }
            None if formats.is_empty() => pairs[0].2 = Some(path.clone()),
            None => {
                return Err(Error::Usage(format!(
                    "--output {} comes before any --format",
                    path.display()
                )));
            }
        }
    }
    Ok(pairs.into_iter().map(|(_, f, o)| (f, o)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_pair_with_the_format_before_them() {
        let pairs = pair_outputs(
            &[(1, Format::Sarif), (5, Format::Text)],
            &[(3, PathBuf::from("confvet.sarif"))],
        )
        .unwrap();
        assert_eq!(
            pairs,
            vec![
                (Format::Sarif, Some(PathBuf::from("confvet.sarif"))),
                (Format::Text, None)
            ]
        );
    }

    #[test]
    fn a_lone_output_takes_the_default_text_format() {
        let pairs = pair_outputs(&[], &[(1, PathBuf::from("out.txt"))]).unwrap();
        assert_eq!(pairs, vec![(Format::Text, Some(PathBuf::from("out.txt")))]);
    }

    #[test]
    fn two_outputs_for_one_format_are_an_error() {
        let result = pair_outputs(
            &[(1, Format::Json)],
            &[(3, PathBuf::from("a")), (5, PathBuf::from("b"))],
        );
        assert!(result.is_err());
    }
}
