//! `confvet lint`: the files to lint (from the paths, standard input or
//! `--changed-since`), the configuration and baseline, one run of the
//! library's lint, every output written, and the exit code.

use super::shared::{WORKER_STACK_BYTES, fail, limits, log_style, use_color, ytt_settings};
use confvet::baseline::Baseline;
use confvet::check::ytt::YttSettings;
use confvet::cli::{self, FailOn, LintArgs};
use confvet::config::{Config, ConfigSource};
use confvet::error::{Doing, Error};
use confvet::finding::Severity;
use confvet::progress;
use confvet::report::{Format, Report, Style};
use confvet::run::{LintRequest, lint};
use confvet::source::Sources;
use std::io::Write;
use std::path::{Path, PathBuf};
/// The files below `paths` that changed since git `reference`: what `git
/// diff` shows of the working tree against it, and untracked files git does
/// not ignore. Deleted files are left out (they are not there to lint).
fn changed_since(reference: &str, paths: &[PathBuf], cwd: &Path) -> Result<Vec<PathBuf>, Error> {
    let git = |args: &[&str]| -> Result<String, Error> {
        let output = std::process::Command::new("git")
            .args(args)
            .current_dir(cwd)
            .output()
            .map_err(|err| Error::io_unlocated(Doing::Running, "git", err))?;
        if !output.status.success() {
            // git's own first line: a reference that names nothing, a
            // directory outside a work tree.
            let error = String::from_utf8_lossy(&output.stderr);
            let line = error.lines().next().unwrap_or("git failed");
            return Err(Error::Usage(line.to_string()));
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    };
    let top = PathBuf::from(git(&["rev-parse", "--show-toplevel"])?.trim_end());
    let diff = git(&["diff", "--name-only", "--no-renames", reference, "--"])?;
    let untracked = git(&[
        "ls-files",
        "--others",
        "--exclude-standard",
        "--full-name",
        "--",
        ":/",
    ])?;
    // git names files from its (canonical) top; compare canonical paths,
    // and hand lint paths relative to the current directory.
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let here = canonical(cwd);
    let within: Vec<PathBuf> = paths.iter().map(|p| canonical(&cwd.join(p))).collect();
    let mut changed: Vec<PathBuf> = diff
        .lines()
        .chain(untracked.lines())
        .map(|name| canonical(&top.join(name)))
        .filter(|path| path.is_file() && within.iter().any(|w| path.starts_with(w)))
        .map(|path| match path.strip_prefix(&here) {
            Ok(relative) => relative.to_path_buf(),
            Err(_) => path,
        })
        .collect();
    changed.sort();
    changed.dedup();
    Ok(changed)
}

/// Read standard input for `lint -`, to stand in for `--stdin-filename`.
fn read_stdin(args: &LintArgs, sources: &Sources, cwd: &Path) -> Result<Vec<PathBuf>, Error> {
    let dash = Path::new("-");
    if !args.paths.iter().any(|p| p == dash) {
        return match &args.stdin_filename {
            Some(_) => Err(Error::Usage(
                "--stdin-filename is for reading standard input: pass `-` as the path".into(),
            )),
            None => Ok(args.paths.clone()),
        };
    }
    let Some(name) = &args.stdin_filename else {
        return Err(Error::Usage("reading standard input (`-`) needs --stdin-filename PATH: the file's path decides its system and unit (a ytt package, a Tekton Pipeline's Tasks)".into()));
    };
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(confvet::source::MAX_READ_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| Error::io_unlocated(Doing::Reading, "standard input", err))?;
    if bytes.len() as u64 > confvet::source::MAX_READ_BYTES {
        return Err(Error::Usage(format!(
            "standard input is larger than {} MiB",
            confvet::source::MAX_READ_BYTES / 1024 / 1024
        )));
    }
    sources.set_stdin(cwd.join(name), bytes);
    Ok(args
        .paths
        .iter()
        .map(|p| if p == dash { name.clone() } else { p.clone() })
        .collect())
}

/// What fingerprints name files relative to: the configuration file's
/// directory, else the enclosing git work tree, else (None) the current
/// directory.
fn project_root(config: Option<&Config>, cwd: &Path) -> Option<PathBuf> {
    if let Some(config) = config {
        return Some(config.dir.clone());
    }
    cwd.ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Paths that share their closest configuration, with where it comes from.
type ConfigGroup = (ConfigSource, Vec<PathBuf>);

/// The configuration each linted path takes, with the paths that take
/// it: with no `--config` or `--no-config`, the closest `.confvet.yaml` at
/// or above the path (its folder, for a file), as ruff finds its settings,
/// so a repository of several packages each with its own is linted with
/// each; else the one named, for every path.
fn config_groups(source: ConfigSource, paths: &[PathBuf], cwd: &Path) -> Vec<ConfigGroup> {
    if !matches!(source, ConfigSource::Search) || paths.is_empty() {
        return vec![(source, paths.to_vec())];
    }
    let mut groups: Vec<(Option<PathBuf>, ConfigSource, Vec<PathBuf>)> = Vec::new();
    for path in paths {
        let absolute = confvet::source::normalize_path(&cwd.join(path));
        let start = if absolute.is_dir() {
            absolute
        } else {
            absolute
                .parent()
                .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf)
        };
        let found = confvet::config::find(&start);
        match groups.iter_mut().find(|(file, ..)| *file == found) {
            Some((.., paths)) => paths.push(path.clone()),
            None => groups.push((found, ConfigSource::SearchFrom(start), vec![path.clone()])),
        }
    }
    groups
        .into_iter()
        .map(|(_, source, paths)| (source, paths))
        .collect()
}

/// Say which configuration file applies to which paths (`--statistics`,
/// `--explain-cache`).
fn say_configurations(
    groups: &[(ConfigSource, Vec<PathBuf>)],
    configs: &[Option<Config>],
    cwd: &Path,
) {
    for ((_, paths), config) in groups.iter().zip(configs) {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        match config {
            Some(config) => say!(
                "confvet: configuration {} applies to {}",
                confvet::source::display_name(&config.path, cwd),
                shown.join(", ")
            ),
            None => say!("confvet: no configuration applies to {}", shown.join(", ")),
        }
    }
}

/// `confvet lint`: its exit code, after saying why when it stops early.
pub fn run_lint(args: LintArgs, matches: &clap::ArgMatches, cwd: &Path) -> u8 {
    lint_command(args, matches, cwd).unwrap_or_else(fail)
}

/// Where this run's cache is, if it keeps one. A folder the operator names
/// (`--cache-dir`, `CONFVET_CACHE_DIR`) is believed; the default one, in
/// the checkout, only when this machine sealed it (see `cache::trust`).
fn cache_location(args: &LintArgs, cwd: &Path) -> Option<confvet::cache::CacheLocation> {
    if args.no_cache {
        None
    } else {
        let named = args
            .cache_dir
            .clone()
            .or_else(|| std::env::var_os("CONFVET_CACHE_DIR").map(PathBuf::from));
        match confvet::cache::CacheLocation::for_run(cwd, named.as_deref()) {
            Ok(location) => Some(location),
            Err(why) => {
                if args.explain_cache {
                    say!("confvet: {why}");
                }
                None
            }
        }
    }
}

/// The paths this run lints: those given (or standard input's), or with
/// `--changed-since` the files changed since the reference; None when
/// nothing changed (said, and the run ends at once).
fn paths_to_lint(
    args: &LintArgs,
    sources: &Sources,
    cwd: &Path,
) -> Result<Option<Vec<PathBuf>>, Error> {
    let paths = read_stdin(args, sources, cwd)?;
    Ok(match &args.changed_since {
        None => Some(paths),
        Some(reference) => {
            let changed = changed_since(reference, &paths, cwd)
                .map_err(|error| error.within(format!("--changed-since {reference}")))?;
            if changed.is_empty() {
                if !args.quiet {
                    say!("confvet: no file changed since {reference}; nothing to lint");
                }
                return Ok(None);
            }
            Some(changed)
        }
    })
}

/// `confvet lint` up to its exit code; `Err` stops it, with exit code 2.
fn lint_command(args: LintArgs, matches: &clap::ArgMatches, cwd: &Path) -> Result<u8, Error> {
    let outputs = formats_and_outputs(&args, matches)?;
    start_workers(args.threads);
    let baseline = match args.baseline.as_deref() {
        Some(path) => Some(Baseline::open(path, args.update_baseline)?),
        None => None,
    };
    let sources = Sources::new();
    let Some(paths) = paths_to_lint(&args, &sources, cwd)? else {
        return Ok(0);
    };
    let fixing = args.fix || args.diff;
    if fixing && sources.stdin_path().is_some() {
        return Err(Error::Usage(
            "--fix and --diff change files on disk (or show how): they do not read standard input"
                .into(),
        ));
    }
    let groups = config_groups(
        ConfigSource::from_flags(args.config.as_deref(), args.no_config),
        &paths,
        cwd,
    );
    let load_options = confvet::config::LoadOptions {
        allow_env: args.allow_config_env,
    };
    // Each pass of --fix reads the files again into sources of its own,
    // the configurations' first.
    let load_configs = |sources: &Sources| -> Result<Vec<Option<Config>>, Error> {
        let configs = groups
            .iter()
            .map(|(source, _)| confvet::config::load(source, cwd, sources, load_options))
            .collect::<Result<Vec<_>, Error>>()?;
        if let Some(root) = project_root(configs.first().and_then(Option::as_ref), cwd) {
            sources.set_root(root, cwd.to_path_buf());
        }
        Ok(configs)
    };
    let mut configs = load_configs(&sources)?;
    if args.statistics || args.explain_cache {
        say_configurations(&groups, &configs, cwd);
    }
    let config = configs.first().cloned().flatten();
    let mut bar = progress::wanted(args.quiet, args.no_progress)
        .then(|| progress::TerminalBar::start(progress::DELAY));
    let mut request = LintRequest {
        config,
        progress: bar.as_ref().map(|bar| bar.progress()),
        ..lint_request(&args, paths, cwd)
    };
    // A configuration with errors stops its part of the run: nothing
    // there is linted.
    let is_blocked = configs.iter().flatten().any(Config::has_errors);
    let lint_pass = |request: &LintRequest, configs: &[Option<Config>], sources: &Sources| {
        lint_by_configuration(request, (&groups, configs), sources, cwd)
    };
    let (sources, mut result) = if fixing && !is_blocked {
        let options = confvet::fix::Options {
            unsafe_fixes: args.unsafe_fixes,
            write: args.fix,
        };
        let mut first = Some(sources);
        let mut failure = None;
        let (outcome, last) = confvet::fix::run(options, |pass, files| {
            let sources = first
                .take()
                .unwrap_or_else(|| Sources::with_files(files.clone()));
            if pass > 0 {
                request.progress = None;
                // The cache knows the files on disk, not the fixed texts
                // --diff keeps in memory.
                if args.diff {
                    request.cache = None;
                }
                match load_configs(&sources) {
                    Ok(loaded) => {
                        request.config = loaded.first().cloned().flatten();
                        configs = loaded;
                    }
                    Err(error) => failure = Some(error),
                }
            }
            let mut result = lint_pass(&request, &configs, &sources);
            if let Some(baseline) = &baseline
                && let Err(error) = baseline.apply(&mut result, &sources)
            {
                failure = Some(error);
            }
            confvet::fix::Pass { sources, result }
        });
        if let Some(error) = failure {
            return Err(error);
        }
        if let Some(bar) = bar.take() {
            bar.finish();
        }
        say_fix_notes(&outcome);
        if args.diff {
            return show_diff(&outcome, args.quiet, &last.result.errors);
        }
        if !args.quiet && outcome.fixed > 0 {
            say!(
                "confvet: fixed {} in {}",
                confvet::report::plural(outcome.fixed, "finding"),
                confvet::report::plural(outcome.changes.len(), "file")
            );
        }
        (last.sources, last.result)
    } else {
        let result = lint_pass(&request, &configs, &sources);
        (sources, result)
    };
    if let Some(bar) = bar {
        bar.finish();
    }

    let nothing_linted = say_how_the_run_went(&args, &request, (&result, &sources), is_blocked);
    if let Some(baseline) = baseline.as_ref().filter(|_| !fixing) {
        apply_baseline(baseline, &args, &mut result, &sources)?;
    }
    confvet::finding::cap_per_rule_and_file(
        &mut result.findings,
        confvet::finding::MAX_PER_RULE_AND_FILE,
    );
    let threshold = match args.fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Never => None,
    };
    let category = sarif_category(&args);
    let report = Report {
        errors: &result.errors,
        fail_on: threshold,
        category: category.as_deref(),
        base_dir: Some(cwd),
        unchecked_kinds: &result.skipped_kinds,
        ..Report::new(&result.findings, &sources, &result.units, result.summary)
    };
    if !write_reports(&args, &outputs, &report, nothing_linted)? {
        // Standard output was closed (`| head`): nothing more to say.
        return Ok(0);
    }
    Ok(exit_code(
        &result,
        threshold,
        is_blocked,
        request.config.as_ref(),
    ))
}

/// 2 when the run was incomplete or a configuration names what is
/// outside its directory (a usage error, not a lint result); 1 when a
/// configuration with errors blocked the run or a finding is at or above
/// `threshold`; else 0.
fn exit_code(
    result: &confvet::run::LintResult,
    threshold: Option<Severity>,
    is_blocked: bool,
    config: Option<&Config>,
) -> u8 {
    if !result.errors.is_empty() {
        return 2;
    }
    if is_blocked {
        let names_outside = config.is_some_and(|c| c.names_outside);
        return if names_outside { 2 } else { 1 };
    }
    let failed = threshold.is_some_and(|t| result.findings.iter().any(|f| f.severity >= t));
    u8::from(failed)
}

/// What `--fix` or `--diff` has to say beyond the fixes: notes on fixes
/// left out, and a loop stopped.
fn say_fix_notes(outcome: &confvet::fix::Outcome) {
    for note in &outcome.notes {
        say!("confvet: {note}");
    }
    if !outcome.converged {
        say!(
            "confvet: fixes still apply after {} passes; stopped (a fix may make the finding it fixes again: please report it)",
            confvet::fix::MAX_PASSES
        );
    }
}

/// The baseline over the findings: the ones it accepts dropped, or all of
/// them written to it (`--update-baseline`, said on standard error).
fn apply_baseline(
    baseline: &Baseline,
    args: &LintArgs,
    result: &mut confvet::run::LintResult,
    sources: &Sources,
) -> Result<(), Error> {
    let count = baseline.apply(result, sources)?;
    if args.update_baseline && !args.quiet {
        let noun = if count == 1 { "finding" } else { "findings" };
        say!(
            "confvet: wrote {count} {noun} to {}",
            baseline.path().display()
        );
    }
    Ok(())
}

/// Lint the request's paths, those with different closest configurations
/// apart, each with its own, and report them as one run. A configuration
/// with errors stops its part of the run: nothing there is linted.
fn lint_by_configuration(
    request: &LintRequest,
    (groups, configs): (&[ConfigGroup], &[Option<Config>]),
    sources: &Sources,
    cwd: &Path,
) -> confvet::run::LintResult {
    let lint_part = |request: &LintRequest| match &request.config {
        Some(config) if config.has_errors() => {
            confvet::run::LintResult::blocked_by(config, sources)
        }
        _ => lint(request, sources, cwd),
    };
    if configs.len() <= 1 {
        return lint_part(request);
    }
    let parts = groups
        .iter()
        .zip(configs)
        .map(|((_, paths), config)| {
            let part = LintRequest {
                paths: paths.clone(),
                config: config.clone(),
                ..request.clone()
            };
            lint_part(&part)
        })
        .collect();
    confvet::run::LintResult::merge(parts, sources)
}

/// Each `--format` with the `--output` given after it (None: standard
/// output), in the order given.
fn formats_and_outputs(
    args: &LintArgs,
    matches: &clap::ArgMatches,
) -> Result<Vec<(Format, Option<PathBuf>)>, Error> {
    let indexed = |name: &str| -> Vec<usize> {
        matches
            .indices_of(name)
            .map(|i| i.collect())
            .unwrap_or_default()
    };
    let formats: Vec<(usize, Format)> = indexed("format")
        .into_iter()
        .zip(args.format.iter().copied())
        .collect();
    let outputs: Vec<(usize, PathBuf)> = indexed("output")
        .into_iter()
        .zip(args.output.iter().cloned())
        .collect();
    cli::pair_outputs(&formats, &outputs)
}

/// The worker threads of the run (`--threads`, else one per core).
/// Workers get a large stack: Starlark's parser and evaluator recurse once
/// per level of an expression, and code nested as deep as the translation
/// lets through must not overflow (the stack is reserved, not used, until
/// it is needed).
fn start_workers(threads: Option<usize>) {
    let mut pool = rayon::ThreadPoolBuilder::new().stack_size(WORKER_STACK_BYTES);
    if let Some(threads) = threads {
        pool = pool.num_threads(threads.max(1));
    }
    let _ = pool.build_global();
}

/// What the flags ask of a lint of `paths` (the configuration and the
/// progress bar are the caller's).
fn lint_request(args: &LintArgs, paths: Vec<PathBuf>, cwd: &Path) -> LintRequest {
    LintRequest {
        paths,
        // Each unit's findings, and the role of every file of the tree
        // (which files named one by one need to find their context), are
        // remembered between runs. A folder the operator names is
        // believed; the default one, in the checkout, only when this
        // machine sealed it (see `cache::trust`).
        cache: cache_location(args, cwd),
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        extend_exclude: args.extend_exclude.clone(),
        shard: args.shard,
        whole_units: args.changed_since.is_some(),
        keep_outputs: false,
        package_roots: Vec::new(),
        named_only: false,
        // The walk finds the tree's CRDs.
        known_crds: Default::default(),
        cancel: None,
        limits: limits(),
        kubernetes: confvet::check::kubernetes::tree::Options {
            check: !args.no_kubernetes,
            manifests: args.kubernetes,
            version: args.kubernetes_version,
        },
        ytt: YttSettings {
            skip_templates: args.no_render,
            ..ytt_settings(&args.ytt, cwd)
        },
        config: None,
        progress: None,
    }
}

/// On standard error: the run's errors, what the cache reused when asked,
/// and, when nothing was linted, why (instead of "no problems in 0
/// files"). Gives whether nothing was linted.
fn say_how_the_run_went(
    args: &LintArgs,
    request: &LintRequest,
    (result, sources): (&confvet::run::LintResult, &Sources),
    is_blocked: bool,
) -> bool {
    for error in &result.errors {
        say!("confvet: {error}");
    }
    if let Some(reuse) = &result.reuse
        && (args.explain_cache || (args.statistics && !args.quiet))
    {
        say!("confvet: {}", reuse.summary());
        if args.explain_cache {
            for (unit, why) in &reuse.checked {
                say!("  {unit}: {}", why.says());
            }
        }
    }
    let nothing_linted = result.summary.files == 0 && !is_blocked && result.findings.is_empty();
    if nothing_linted && result.errors.is_empty() && !args.quiet {
        let shown: Vec<String> = request
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        say!(
            "confvet: nothing to lint: no ytt package, KubeVirt Template or Tekton file in {}",
            shown.join(", ")
        );
        // A file named outright: say why it is not one.
        for path in request.paths.iter().filter(|p| p.is_file()) {
            if let Ok(bytes) = sources.read(path) {
                let why = confvet::discover::why_not_linted(path, &bytes);
                say!("  {}: {why}", path.display());
            }
        }
    }
    nothing_linted
}

/// SARIF's run category: each shard's is a category of its own, so code
/// scanning keeps the alerts of every shard.
fn sarif_category(args: &LintArgs) -> Option<String> {
    match (&args.category, args.shard) {
        (Some(category), Some(shard)) => Some(format!(
            "{}/shard-{}-of-{}",
            category.trim_end_matches('/'),
            shard.index,
            shard.count
        )),
        (None, Some(shard)) => Some(format!("confvet/shard-{}-of-{}", shard.index, shard.count)),
        (category, None) => category.clone(),
    }
}

/// Write the report in each format to its output. Gives false when
/// standard output was closed under it (a pipe to `head`): the run ends
/// quietly then.
fn write_reports(
    args: &LintArgs,
    outputs: &[(Format, Option<PathBuf>)],
    report: &Report<'_>,
    nothing_linted: bool,
) -> Result<bool, Error> {
    let color = use_color(args.color);
    for (format, output) in outputs {
        let written = match output {
            Some(path) => std::fs::File::create(path).and_then(|file| {
                let mut writer = std::io::BufWriter::new(file);
                let style = Style {
                    statistics: args.statistics,
                    ..Style::default()
                };
                format.emitter(style).emit(&mut writer, report)?;
                writer.flush()
            }),
            None if (args.quiet || nothing_linted)
                && matches!(format, Format::Text | Format::Concise) =>
            {
                Ok(())
            }
            None => {
                let stdout = std::io::stdout();
                let mut lock = stdout.lock();
                let style = Style {
                    statistics: args.statistics,
                    ..log_style(color && *format == Format::Text)
                };
                format
                    .emitter(style)
                    .emit(&mut lock, report)
                    .and_then(|_| lock.flush())
            }
        };
        match written {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => return Ok(false),
            Err(err) => {
                let target = output
                    .as_ref()
                    .map_or("standard output".to_string(), |p| p.display().to_string());
                return Err(Error::io_unlocated(Doing::Writing, target, err));
            }
        }
    }
    Ok(true)
}

/// `--diff`: the fixes as a unified diff on standard output; exit code 1
/// when there is something to fix, 2 when the run was incomplete.
fn show_diff(
    outcome: &confvet::fix::Outcome,
    quiet: bool,
    errors: &[confvet::report::RunError],
) -> Result<u8, Error> {
    for error in errors {
        say!("confvet: {error}");
    }
    let diff = confvet::fix::unified_diff(&outcome.changes);
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(diff.as_bytes())
        .and_then(|_| stdout.flush())
    {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
            return Err(Error::io_unlocated(Doing::Writing, "standard output", err));
        }
        _ => {}
    }
    if quiet {
    } else if outcome.changes.is_empty() {
        say!("confvet: nothing to fix");
    } else {
        say!(
            "confvet: would fix {} in {}",
            confvet::report::plural(outcome.fixed, "finding"),
            confvet::report::plural(outcome.changes.len(), "file")
        );
    }
    Ok(if !errors.is_empty() {
        2
    } else {
        u8::from(!outcome.changes.is_empty())
    })
}
