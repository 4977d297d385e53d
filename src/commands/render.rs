//! `confvet render`: one ytt package rendered as `ytt -f PATH...` renders
//! it, or (`--each-package`) every package found below the paths, in
//! parallel, each as `ytt -f PACKAGE`.

use super::shared::{
    fail, limits, log_style, print_findings, print_stdout, use_color, ytt_settings,
};
use confvet::check::ytt::YttSettings;
use confvet::check::ytt::marks::FileType;
use confvet::cli::{ColorChoice, RenderArgs};
use confvet::config::ConfigSource;
use confvet::discover::System;
use confvet::error::{Doing, Error};
use confvet::finding::Severity;
use confvet::report::{Format, Report};
use confvet::run::LintResult;
use confvet::source::{FileId, Sources};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What one package renders to.
struct Rendered {
    /// Standard output as ytt prints it: the YAML documents.
    stdout: String,
    /// Each output file (name, contents) in ytt's `--output-files` order,
    /// when files were asked for.
    files: Vec<(String, String)>,
    /// Text templates were rendered (ytt warns they are not printed).
    has_texts: bool,
    /// What the package's code wrote with `print`, for standard error.
    printed: String,
}

/// Why a package gives no output.
enum Failure {
    /// A usage or I/O problem (exit 2), said in one line.
    Run(Error),
    /// The findings that stop ytt (exit 1), as text for standard error
    /// (after what the code printed before it stopped).
    Stopped(String),
    /// The package ran past the unit limits (exit 1).
    Limit(confvet::watchdog::Stopped),
}

impl Failure {
    /// What standard error gets for a package that stopped (exit 1).
    fn stopped_text(&self) -> Option<String> {
        match self {
            Failure::Run(_) => None,
            Failure::Stopped(report) => Some(report.clone()),
            Failure::Limit(stopped) => Some(format!(
                "confvet: the package was not rendered: {stopped}\n"
            )),
        }
    }
}

/// `confvet render`: the exit code after printing or writing the output.
pub fn run(args: RenderArgs, cwd: &Path) -> u8 {
    let paths: Vec<PathBuf> = args.paths.iter().chain(&args.files).cloned().collect();
    if paths.is_empty() {
        return fail(Error::Usage(
            "render needs at least one file or directory".into(),
        ));
    }
    if args.each_package {
        return run_each_package(&args, &paths, cwd);
    }
    let settings = ytt_settings(&args.ytt, cwd);
    let rendered = match render_guarded(paths, settings, cwd, args.output_files.is_some()) {
        Ok(rendered) => rendered,
        Err(Failure::Run(error)) => return fail(error),
        Err(stopped) => {
            eprint!("{}", stopped.stopped_text().unwrap_or_default());
            return 1;
        }
    };
    eprint!("{}", rendered.printed);
    if let Some(dir) = &args.output_files {
        let mut creating = String::new();
        return match write_output_files(dir, cwd, &rendered.files, &mut creating) {
            Ok(()) => print_stdout(&creating),
            Err(error) => {
                let _ = print_stdout(&creating);
                fail(error)
            }
        };
    }
    if rendered.has_texts {
        // ytt's warning, on standard error.
        eprint!(
            "\nWarning: Found Non-YAML templates in input. Non-YAML templates are not rendered to standard output.\nIf you want to include those results, use the --output-files or --dangerous-emptied-output-directory flag.\n"
        );
    }
    print_stdout(&rendered.stdout)
}

/// `--each-package`: every ytt package below `paths` (found as `lint` finds
/// them, `.confvet.yaml` package roots and excludes included) rendered on
/// all cores. The outputs follow in package order: on standard output each
/// after a `# confvet render: PACKAGE` comment, or with `--output-files DIR`
/// under DIR/PACKAGE/. A package that fails is reported on standard error
/// and the others still render; exit 1 when any failed.
fn run_each_package(args: &RenderArgs, paths: &[PathBuf], cwd: &Path) -> u8 {
    let sources = Sources::new();
    // Only the configuration's package roots and excludes are used here,
    // never its scenarios: nothing would read the environment.
    let load_options = confvet::config::LoadOptions { allow_env: true };
    let config = match confvet::config::load(&ConfigSource::Search, cwd, &sources, load_options) {
        Ok(config) => config,
        Err(error) => return fail(error),
    };
    if let Some(config) = config.as_ref().filter(|c| c.has_errors()) {
        print_findings(&LintResult::blocked_by(config, &sources), &sources);
        return 2;
    }
    let options = config
        .as_ref()
        .map(confvet::config::Config::discover_options)
        .unwrap_or_default();
    let discovery = confvet::discover::discover_with(
        paths,
        &sources,
        cwd,
        &confvet::yaml::parse::ParseOptions::default(),
        &options,
    );
    for error in &discovery.errors {
        say!("confvet: {error}");
    }
    if !discovery.errors.is_empty() {
        return 2;
    }
    let mut roots: Vec<PathBuf> = discovery
        .units
        .iter()
        .filter(|u| u.system == System::Ytt)
        .map(|u| u.root.clone())
        .collect();
    roots.sort();
    roots.dedup();
    // The walk's texts are not needed again: each package reads its files
    // as `ytt -f` would.
    drop(discovery);
    if roots.is_empty() {
        return fail(Error::Usage(
            "no ytt package found below the paths given".into(),
        ));
    }
    let base = ytt_settings(&args.ytt, cwd);
    let wants_files = args.output_files.is_some();
    let render_one = |root: &PathBuf| -> (String, Result<(String, String), Failure>) {
        let shown = confvet::source::display_dir(root, cwd);
        let mut settings = base.clone();
        if let Some(config) = &config {
            let own = config.file_marks(root).to_vec();
            settings.marks = own.into_iter().chain(base.marks.clone()).collect();
        }
        let result =
            render_guarded(vec![root.clone()], settings, cwd, wants_files).and_then(|rendered| {
                match &args.output_files {
                    // Written as soon as rendered: only the `creating:` lines
                    // wait for the package order.
                    Some(dir) => {
                        let mut creating = String::new();
                        write_output_files(
                            &dir.join(package_folder(root, cwd)),
                            cwd,
                            &rendered.files,
                            &mut creating,
                        )
                        .map(|()| (rendered.printed, creating))
                        .map_err(Failure::Run)
                    }
                    None => Ok((rendered.printed, rendered.stdout)),
                }
            });
        (shown, result)
    };
    // Workers take packages in order, each rendered on a guarded thread of
    // its own; outputs are printed in package order as soon as each is
    // next, so memory holds the few outputs that finished early, not the
    // tree's, and no worker waits for a slow package but its own.
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(roots.len());
    let next = AtomicUsize::new(0);
    let (sender, receiver) = std::sync::mpsc::channel();
    let mut code = 0;
    let mut stdout = std::io::stdout().lock();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, roots, render_one) = (&next, &roots, &render_one);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(root) = roots.get(index) else { break };
                    if sender.send((index, render_one(root))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut finished = std::collections::BTreeMap::new();
        let mut printed = 0;
        for (index, result) in receiver {
            finished.insert(index, result);
            while let Some(result) = finished.remove(&printed) {
                printed += 1;
                if print_result(result, wants_files, &mut stdout, &mut code).is_err() {
                    // Nothing more can be printed: the workers stop taking
                    // packages.
                    next.store(usize::MAX / 2, Ordering::Relaxed);
                    return;
                }
            }
        }
    });
    let _ = stdout.flush();
    code
}

/// Print one `--each-package` result: output on standard output, failure
/// on standard error (raising `code`). Err when standard output is gone (a
/// closed pipe ends the run quietly; another error is said, and `code` is 2).
fn print_result(
    (shown, result): (String, Result<(String, String), Failure>),
    wants_files: bool,
    stdout: &mut impl Write,
    code: &mut u8,
) -> Result<(), ()> {
    let written = match result {
        Ok((printed, text)) => {
            eprint!("{printed}");
            if wants_files {
                stdout.write_all(text.as_bytes())
            } else {
                writeln!(stdout, "# confvet render: {shown}")
                    .and_then(|()| stdout.write_all(text.as_bytes()))
            }
        }
        Err(Failure::Run(error)) => {
            say!("confvet: {shown}: {error}");
            *code = (*code).max(error.exit_code());
            Ok(())
        }
        Err(stopped) => {
            say!("confvet: {shown}: not rendered");
            eprint!("{}", stopped.stopped_text().unwrap_or_default());
            *code = (*code).max(1);
            Ok(())
        }
    };
    match written {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => Err(()),
        Err(err) => {
            *code = fail(Error::io_unlocated(Doing::Writing, "standard output", err));
            Err(())
        }
    }
}

/// [`render_package`] on a thread of its own under the unit limits; a
/// package past them is a failure that says so.
fn render_guarded(
    paths: Vec<PathBuf>,
    settings: YttSettings,
    cwd: &Path,
    wants_files: bool,
) -> Result<Rendered, Failure> {
    let cwd = cwd.to_path_buf();
    match confvet::watchdog::run(limits(), move || {
        render_package(&paths, settings, &cwd, wants_files)
    }) {
        Ok(result) => result,
        Err(confvet::watchdog::Failure::Panicked(panic)) => std::panic::resume_unwind(panic),
        Err(confvet::watchdog::Failure::Stopped(stopped)) => Err(Failure::Limit(stopped)),
    }
}

/// Where a package's output files go below `--output-files DIR`: the
/// package's path relative to the current directory (an absolute path
/// outside it without its leading `/`).
fn package_folder(root: &Path, cwd: &Path) -> PathBuf {
    match root.strip_prefix(cwd) {
        Ok(relative) => relative.to_path_buf(),
        Err(_) => root.components().skip(1).collect(),
    }
}

/// Render the package made of `paths` (ytt's `-f`s, in order).
fn render_package(
    paths: &[PathBuf],
    mut settings: YttSettings,
    cwd: &Path,
    wants_files: bool,
) -> Result<Rendered, Failure> {
    let sources = Sources::new();
    // Every file of the paths, by the name ytt gives it (its path relative
    // to the folder given, or the base name of a file given), then marked.
    let mut named = Vec::new();
    // confvet's own cache folders are not the package's files.
    let cache_folders = confvet::cache::CacheFolders::default();
    let skip = |dir: &Path| cache_folders.holds(dir);
    for path in paths {
        let path = cwd.join(path);
        if std::fs::symlink_metadata(&path).is_err() {
            return Err(Failure::Run(Error::Usage(format!(
                "{}: no such file or directory",
                path.display()
            ))));
        }
        named.extend(
            confvet::check::ytt::marks::files_in(&path, cwd, &settings.symlinks, true, &skip)
                .map_err(|refused| Failure::Run(Error::Usage(refused.to_string())))?,
        );
    }
    let mut matched = vec![0; settings.marks.len()];
    let inputs = confvet::check::ytt::marks::apply(&settings.marks, named, true, &mut matched)
        .map_err(|refused| Failure::Run(Error::Usage(refused.to_string())))?;
    let mut files = Vec::new();
    // Text templates (`.txt`): (id, path).
    let mut texts: Vec<(FileId, PathBuf)> = Vec::new();
    // Each output file's name, as ytt gives it.
    let mut output_names: HashMap<FileId, String> = Default::default();
    for input in &inputs.files {
        let in_library = input.in_private_library();
        match input.file_type() {
            FileType::Yaml => {
                if let Some(found) = confvet::discover::read_ytt_file(&input.path, &sources, cwd) {
                    output_names.insert(found.id, input.name.clone());
                    files.push(found);
                }
            }
            FileType::Text if input.is_for_output() && !in_library => {
                let text = match sources.read(&input.path).map(String::from_utf8) {
                    Ok(Ok(text)) => text,
                    Ok(Err(_)) => {
                        return Err(Failure::Run(Error::Usage(format!(
                            "{}: not UTF-8 text",
                            input.path.display()
                        ))));
                    }
                    Err(err) => {
                        let shown = input.path.display().to_string();
                        return Err(Failure::Run(Error::io_unlocated(Doing::Naming, shown, err)));
                    }
                };
                let name_shown = confvet::source::display_name(&input.path, cwd);
                let id = sources.add(confvet::source::SourceFile::new(
                    name_shown,
                    Some(input.path.clone()),
                    text,
                ));
                output_names.insert(id, input.name.clone());
                texts.push((id, input.path.clone()));
            }
            _ => {}
        }
    }
    // Text templates run in ytt's library order.
    let text_names: Vec<&str> = texts
        .iter()
        .map(|(id, _)| output_names.get(id).map_or("", String::as_str))
        .collect();
    let texts: Vec<(FileId, PathBuf)> = confvet::check::ytt::marks::library_order(&text_names)
        .into_iter()
        .map(|i| texts[i].clone())
        .collect();
    let root = package_root(paths, cwd);
    if paths.iter().all(|p| cwd.join(p).is_file()) {
        settings.flat_files = Some(inputs.files.iter().map(|f| f.path.clone()).collect());
    }
    settings.text_templates = Some(texts.clone());
    settings.library_files = Some(
        inputs
            .files
            .iter()
            .map(|f| (f.name.clone(), f.path.clone()))
            .collect(),
    );
    settings.inputs = Some(std::sync::Arc::new(inputs));
    let refs: Vec<&confvet::discover::DiscoveredFile> = files.iter().collect();
    let (outcome, printed) = confvet::check::ytt::engine::prints::capture(|| {
        confvet::check::ytt::check_package(&root, &refs, &sources, &settings)
    });
    let findings: Vec<_> = outcome
        .stops()
        .map(|f| f.clone().with_severity(Severity::Error))
        .collect();
    if !findings.is_empty() || outcome.rendered.is_none() && outcome.values.is_none() {
        return Err(stopped(
            &findings,
            &sources,
            files.len() + texts.len(),
            &printed,
        ));
    }
    let text_outputs = outcome.rendered_texts.unwrap_or_default();
    let rendered = outcome.rendered.iter().flatten();
    if wants_files {
        // ytt's order: text templates, then YAML ones; a YAML template
        // whose documents are all empty gives no file.
        let name = |id: &FileId| output_names.get(id).cloned().unwrap_or_default();
        let mut outputs: Vec<(String, String)> = text_outputs
            .iter()
            .map(|(id, text)| (name(id), text.clone()))
            .collect();
        for (id, docs) in rendered {
            let docs: Vec<Option<&confvet::yaml::Node>> =
                docs.iter().map(|d| Some(&d.value)).collect();
            let text = confvet::yaml::emit::document_set_to_yaml(&docs);
            if !text.is_empty() {
                outputs.push((name(id), text));
            }
        }
        return Ok(Rendered {
            stdout: String::new(),
            files: outputs,
            has_texts: !text_outputs.is_empty(),
            printed,
        });
    }
    let docs: Vec<Option<&confvet::yaml::Node>> = rendered
        .flat_map(|(_, docs)| docs.iter())
        .map(|d| Some(&d.value))
        .collect();
    Ok(Rendered {
        stdout: confvet::yaml::emit::document_set_to_yaml(&docs),
        files: Vec::new(),
        has_texts: !text_outputs.is_empty(),
        printed,
    })
}

/// The folder ytt names the package's files from: the first path given, or
/// the folder of a file given.
fn package_root(paths: &[PathBuf], cwd: &Path) -> PathBuf {
    let root = paths
        .first()
        .map(|p| cwd.join(p))
        .map(|p| {
            if p.is_dir() {
                p
            } else {
                p.parent().map(Path::to_path_buf).unwrap_or(p)
            }
        })
        .unwrap_or_else(|| cwd.to_path_buf());
    confvet::source::normalize_path(&root)
}

/// What stopped the render, as ytt stops: what the package printed, then
/// the findings as the text report shows them.
fn stopped(
    findings: &[confvet::finding::Finding],
    sources: &Sources,
    files: usize,
    printed: &str,
) -> Failure {
    let summary = confvet::report::Summary {
        files,
        units: 1,
        errors: findings.len(),
        ..Default::default()
    };
    let report = Report::new(findings, sources, &[], summary);
    let mut text = Vec::new();
    let _ = Format::Text
        .emitter(log_style(use_color(ColorChoice::Auto)))
        .emit(&mut text, &report);
    Failure::Stopped(format!("{printed}{}", String::from_utf8_lossy(&text)))
}

/// ytt's `--output-files DIR`: each output (name, contents) written to
/// DIR/name, folders made as needed, files replaced; `creating: PATH` added
/// to `creating` before each, PATH joined and cleaned as Go's
/// `filepath.Join` does. Folders and files get mode 0700, as ytt's.
fn write_output_files(
    dir: &Path,
    cwd: &Path,
    outputs: &[(String, String)],
    creating: &mut String,
) -> Result<(), Error> {
    let make_dirs = |path: &Path| -> std::io::Result<()> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(path)
    };
    let target = cwd.join(dir);
    let failed = |path: String| move |err| Error::io_unlocated(Doing::Naming, path, err);
    make_dirs(&target).map_err(failed(dir.display().to_string()))?;
    for (name, contents) in outputs {
        let shown = clean_path(&format!("{}/{name}", dir.to_string_lossy()));
        creating.push_str(&format!("creating: {shown}\n"));
        let path = cwd.join(&shown);
        if let Some(parent) = path.parent() {
            make_dirs(parent).map_err(failed(parent.display().to_string()))?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o700);
        options
            .open(&path)
            .and_then(|mut f| f.write_all(contents.as_bytes()))
            .map_err(failed(shown))?;
    }
    Ok(())
}

/// Go's `path.Clean`: `.` and empty parts dropped, `..` applied.
fn clean_path(path: &str) -> String {
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if rooted => {}
                _ => parts.push(".."),
            },
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}
