//! The `confvet` binary: parse flags, call the library, map the outcome to
//! an exit code (0 clean, 1 findings at or above --fail-on, 2 usage or I/O).

mod commands;

use commands::shared::{
    LIMITS, limits, log_style, print_findings, print_stdout, use_color, ytt_settings,
};

use clap::{CommandFactory, FromArgMatches};
use confvet::baseline::Baseline;
use confvet::check::ytt::YttSettings;
use confvet::cli::{
    self, Cli, Command, FailOn, LintArgs, SchemaArgs, SchemaFormat, ValuesArgs, ValuesFormat,
    YttFlags,
};
use confvet::config::{Config, ConfigSource};
use confvet::finding::Severity;
use confvet::progress;
use confvet::report::{Format, Report, Style};
use confvet::run::{LintRequest, lint};
use confvet::source::Sources;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Memory is counted per thread, so that a unit past its limit is stopped
/// before an allocation that would abort the process.
#[global_allocator]
static ALLOCATOR: confvet::watchdog::CountingAllocator = confvet::watchdog::CountingAllocator;

/// The stack of each worker thread.
const WORKER_STACK_BYTES: usize = 64 * 1024 * 1024;

fn main() -> ExitCode {
    confvet::allocator::keep_freed_pages();
    // glibc gives each thread a malloc arena of 64 MiB of address space:
    // under an address-space limit (`ulimit -v`, as CI runners and the
    // hostile tests set) those reservations, not the data, would fail a
    // large input first.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only tunes the allocator; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
    // The whole run on a thread with the workers' stack: a unit may be
    // checked on the calling thread too.
    let run = std::thread::Builder::new()
        .name("confvet".into())
        .stack_size(WORKER_STACK_BYTES)
        .spawn(run_main);
    match run.map(|thread| thread.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => ExitCode::from(101),
        Err(err) => {
            eprintln!("confvet: cannot start: {err}");
            ExitCode::from(2)
        }
    }
}

fn run_main() -> ExitCode {
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 2 } else { 0 });
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(2);
        }
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let _ = LIMITS.set(cli.limits.limits());
    let code = match cli.command {
        Command::Lint(args) => {
            let sub = matches.subcommand_matches("lint").expect("lint matches");
            run_lint(*args, sub, &cwd)
        }
        Command::Values(args) => run_values(args, &cwd),
        Command::Render(args) => commands::render::run(args, &cwd),
        Command::Schema(args) => run_schema(args, &cwd),
        Command::Rules => {
            let mut table = String::new();
            for rule in confvet::rules::RULES {
                table.push_str(&format!(
                    "{:<32} {:<8} {}\n",
                    rule.id,
                    rule.severity.as_str(),
                    rule.summary
                ));
            }
            print_stdout(&table)
        }
        Command::Explain { rule } => match confvet::rules::find(&rule) {
            Some(rule) => print_stdout(&rule.page()),
            None => {
                let hint = confvet::rules::Selector::parse(&rule)
                    .err()
                    .unwrap_or_else(|| {
                        format!("{rule:?} is a system; `confvet rules` lists its rules")
                    });
                eprintln!("confvet: {hint}");
                2
            }
        },
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "confvet", &mut script);
            print_stdout(&String::from_utf8_lossy(&script))
        }
    };
    ExitCode::from(code)
}

/// The files below `paths` that changed since git `reference`: what `git
/// diff` shows of the working tree against it, and untracked files git does
/// not ignore. Deleted files are left out (they are not there to lint).
fn changed_since(reference: &str, paths: &[PathBuf], cwd: &Path) -> Result<Vec<PathBuf>, String> {
    let git = |args: &[&str]| -> Result<String, String> {
        let output = std::process::Command::new("git")
            .args(args)
            .current_dir(cwd)
            .output()
            .map_err(|err| format!("cannot run git: {err}"))?;
        if !output.status.success() {
            let error = String::from_utf8_lossy(&output.stderr);
            return Err(error.lines().next().unwrap_or("git failed").to_string());
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
fn read_stdin(args: &LintArgs, sources: &Sources, cwd: &Path) -> Result<Vec<PathBuf>, String> {
    let dash = Path::new("-");
    if !args.paths.iter().any(|p| p == dash) {
        return match &args.stdin_filename {
            Some(_) => {
                Err("--stdin-filename is for reading standard input: pass `-` as the path".into())
            }
            None => Ok(args.paths.clone()),
        };
    }
    let Some(name) = &args.stdin_filename else {
        return Err("reading standard input (`-`) needs --stdin-filename PATH: the file's path decides its system and unit (a ytt package, a Tekton Pipeline's Tasks)".into());
    };
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(confvet::source::MAX_READ_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| format!("cannot read standard input: {err}"))?;
    if bytes.len() as u64 > confvet::source::MAX_READ_BYTES {
        return Err(format!(
            "standard input is larger than {} MiB",
            confvet::source::MAX_READ_BYTES / 1024 / 1024
        ));
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

fn run_lint(args: LintArgs, matches: &clap::ArgMatches, cwd: &Path) -> u8 {
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
    let outputs = match cli::pair_outputs(&formats, &outputs) {
        Ok(pairs) => pairs,
        Err(message) => {
            eprintln!("confvet: {message}");
            return 2;
        }
    };
    // Workers get a large stack: Starlark's parser and evaluator recurse
    // once per level of an expression, and code nested as deep as the
    // translation lets through must not overflow (the stack is reserved,
    // not used, until it is needed).
    let mut pool = rayon::ThreadPoolBuilder::new().stack_size(WORKER_STACK_BYTES);
    if let Some(threads) = args.threads {
        pool = pool.num_threads(threads.max(1));
    }
    let _ = pool.build_global();
    let baseline = match args.baseline.as_deref() {
        Some(path) => match Baseline::open(path, args.update_baseline) {
            Ok(baseline) => Some(baseline),
            Err(message) => {
                eprintln!("confvet: {message}");
                return 2;
            }
        },
        None => None,
    };
    let sources = Sources::new();
    let paths = match read_stdin(&args, &sources, cwd) {
        Ok(paths) => paths,
        Err(message) => {
            eprintln!("confvet: {message}");
            return 2;
        }
    };
    let paths = match &args.changed_since {
        None => paths,
        Some(reference) => match changed_since(reference, &paths, cwd) {
            Ok(changed) if changed.is_empty() => {
                if !args.quiet {
                    eprintln!("confvet: no file changed since {reference}; nothing to lint");
                }
                return 0;
            }
            Ok(changed) => changed,
            Err(message) => {
                eprintln!("confvet: --changed-since {reference}: {message}");
                return 2;
            }
        },
    };
    let config_source = ConfigSource::from_flags(args.config.as_deref(), args.no_config);
    let load_options = confvet::config::LoadOptions {
        allow_env: args.allow_config_env,
    };
    let config = match confvet::config::load(&config_source, cwd, &sources, load_options) {
        Ok(config) => config,
        Err(message) => {
            eprintln!("confvet: {message}");
            return 2;
        }
    };
    if let Some(root) = project_root(config.as_ref(), cwd) {
        sources.set_root(root, cwd.to_path_buf());
    }
    let bar = progress::wanted(args.quiet, args.no_progress)
        .then(|| progress::TerminalBar::start(progress::DELAY));
    // Files named one by one (pre-commit, --changed-since) need the role of
    // every other file of the tree: remembered between runs.
    let names_files = paths.iter().any(|p| !cwd.join(p).is_dir());
    let cache = (names_files && !args.no_cache).then(|| {
        std::env::var_os("CONFVET_CACHE_DIR")
            .map_or_else(|| cwd.join(".confvet-cache"), |dir| cwd.join(dir))
    });
    let request = LintRequest {
        paths,
        cache,
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        extend_exclude: args.extend_exclude.clone(),
        shard: args.shard,
        whole_units: args.changed_since.is_some(),
        keep_outputs: false,
        package_roots: Vec::new(),
        limits: limits(),
        ytt: YttSettings {
            skip_templates: args.no_render,
            ..ytt_settings(&args.ytt, cwd)
        },
        config,
        progress: bar.as_ref().map(|bar| bar.progress()),
    };
    // A configuration with errors stops the run: nothing is linted.
    let is_blocked = request.config.as_ref().is_some_and(Config::has_errors);
    let mut result = match &request.config {
        Some(config) if is_blocked => confvet::run::LintResult::blocked_by(config, &sources),
        _ => lint(&request, &sources, cwd),
    };
    if let Some(bar) = bar {
        bar.finish();
    }

    for error in &result.errors {
        eprintln!("confvet: {error}");
    }
    // Nothing was linted: say why instead of "no problems in 0 files".
    let nothing_linted = result.summary.files == 0 && !is_blocked && result.findings.is_empty();
    if nothing_linted && result.errors.is_empty() && !args.quiet {
        let shown: Vec<String> = request
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        eprintln!(
            "confvet: nothing to lint: no ytt package, KubeVirt Template or Tekton file in {}",
            shown.join(", ")
        );
    }
    if let Some(baseline) = &baseline {
        match baseline.apply(&mut result, &sources) {
            Ok(count) if args.update_baseline && !args.quiet => {
                let noun = if count == 1 { "finding" } else { "findings" };
                eprintln!(
                    "confvet: wrote {count} {noun} to {}",
                    baseline.path().display()
                );
            }
            Ok(_) => {}
            Err(message) => {
                eprintln!("confvet: {message}");
                return 2;
            }
        }
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
    // Each shard's SARIF is a category of its own, so code scanning keeps
    // the alerts of every shard.
    let category = match (&args.category, args.shard) {
        (Some(category), Some(shard)) => Some(format!(
            "{}/shard-{}-of-{}",
            category.trim_end_matches('/'),
            shard.index,
            shard.count
        )),
        (None, Some(shard)) => Some(format!("confvet/shard-{}-of-{}", shard.index, shard.count)),
        (category, None) => category.clone(),
    };
    let report = Report {
        errors: &result.errors,
        fail_on: threshold,
        category: category.as_deref(),
        base_dir: Some(cwd),
        ..Report::new(&result.findings, &sources, &result.units, result.summary)
    };
    let color = use_color(args.color);
    for (format, output) in &outputs {
        let written = match output {
            Some(path) => std::fs::File::create(path).and_then(|file| {
                let mut writer = std::io::BufWriter::new(file);
                let style = Style {
                    statistics: args.statistics,
                    ..Style::default()
                };
                format.emitter(style).emit(&mut writer, &report)?;
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
                    .emit(&mut lock, &report)
                    .and_then(|_| lock.flush())
            }
        };
        match written {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => return 0,
            Err(err) => {
                let target = output
                    .as_ref()
                    .map_or("standard output".to_string(), |p| p.display().to_string());
                eprintln!("confvet: cannot write {target}: {err}");
                return 2;
            }
        }
    }
    if !result.errors.is_empty() {
        return 2;
    }
    if is_blocked {
        // A configuration naming what is outside its directory is refused
        // as a usage error, not reported as a lint result.
        let names_outside = request.config.as_ref().is_some_and(|c| c.names_outside);
        return if names_outside { 2 } else { 1 };
    }
    let failed = threshold.is_some_and(|t| result.findings.iter().any(|f| f.severity >= t));
    u8::from(failed)
}

/// Check the one ytt package in `dir` as far as its data values (templates
/// are not rendered): the run's result, or the exit code after saying why
/// there is none (I/O errors; no package or several).
fn inspect_package(
    dir: &Path,
    flags: &YttFlags,
    cwd: &Path,
    sources: &Sources,
) -> Result<confvet::run::LintResult, u8> {
    let request = LintRequest {
        paths: vec![dir.to_path_buf()],
        // As `--data-values-inspect` and `--data-values-schema-inspect`:
        // a link not allowed stops it, as it stops ytt.
        ytt: {
            let mut settings = ytt_settings(flags, cwd);
            settings.skip_templates = true;
            settings.values_only = true;
            settings.symlinks.refuses = true;
            settings
        },
        keep_outputs: true,
        // `DIR` is one package, as `ytt -f DIR` reads it.
        package_roots: vec![dir.to_path_buf()],
        limits: limits(),
        ..LintRequest::default()
    };
    let result = lint(&request, sources, cwd);
    for error in &result.errors {
        eprintln!("confvet: {error}");
    }
    if !result.errors.is_empty() {
        return Err(2);
    }
    // A folder of no ytt file is data values that are empty, as ytt has it.
    let is_empty = result.values.is_empty() && result.findings.is_empty();
    if result.values.len() != 1 && !is_empty {
        print_findings(&result, sources);
        eprintln!(
            "confvet: {} holds {} ytt packages; name one",
            dir.display(),
            result.values.len()
        );
        return Err(2);
    }
    Ok(result)
}

fn run_values(args: ValuesArgs, cwd: &Path) -> u8 {
    let sources = Sources::new();
    let result = match inspect_package(&args.dir, &args.ytt, cwd, &sources) {
        Ok(result) => result,
        Err(code) => return code,
    };
    if result
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error)
    {
        print_findings(&result, &sources);
        return 1;
    }
    let Some((_, values)) = result.values.first() else {
        // `--data-values-inspect` of no data values prints nothing.
        return 0;
    };
    let Some(values) = values else {
        return 1;
    };
    let text = match args.format {
        // As `--data-values-inspect`: empty data values print nothing.
        ValuesFormat::Yaml => confvet::yaml::emit::document_set_to_yaml(&[Some(values)]),
        ValuesFormat::Json => {
            let mut text = serde_json::to_string_pretty(&confvet::yaml::emit::to_json(values))
                .unwrap_or_default();
            text.push('\n');
            text
        }
    };
    print_stdout(&text)
}

fn run_schema(args: SchemaArgs, cwd: &Path) -> u8 {
    use confvet::check::ytt::schema::export;
    let sources = Sources::new();
    let result = match inspect_package(&args.dir, &args.ytt, cwd, &sources) {
        Ok(result) => result,
        Err(code) => return code,
    };
    // As `--data-values-schema-inspect`, only the schema must be sound:
    // ytt exports it before it looks at any data value.
    if result.schemas.is_empty() {
        eprintln!(
            "confvet: {} holds 0 ytt packages; name one",
            args.dir.display()
        );
        return 2;
    }
    let Some((root, Some(schema))) = result.schemas.first() else {
        print_findings(&result, &sources);
        return 1;
    };
    // The package as the user named it; the current directory by its own
    // name (a heading of `.` says nothing, an absolute path differs per machine).
    let title = match confvet::source::display_dir(root, cwd).as_str() {
        "." => root
            .file_name()
            .map_or(".".into(), |n| n.to_string_lossy().into_owned()),
        shown => shown.to_string(),
    };
    let schema = schema.as_ref();
    let text = match args.format {
        SchemaFormat::OpenapiV3 => export::openapi::to_yaml(schema, &sources, args.ytt_compatible),
        SchemaFormat::JsonSchema => {
            let document = export::json_schema::document(schema, &sources, &title);
            let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
            text.push('\n');
            text
        }
        SchemaFormat::Markdown => export::markdown::document(schema, &sources, &title),
    };
    let Some(output) = &args.output else {
        return print_stdout(&text);
    };
    if args.check {
        return match std::fs::read_to_string(output) {
            Ok(current) if current == text => 0,
            Ok(_) => {
                eprintln!(
                    "confvet: {} is out of date; run the same `confvet schema` without --check to rewrite it",
                    output.display()
                );
                1
            }
            Err(err) => {
                eprintln!("confvet: {}: {err}", output.display());
                1
            }
        };
    }
    match std::fs::write(output, text) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("confvet: cannot write {}: {err}", output.display());
            2
        }
    }
}
