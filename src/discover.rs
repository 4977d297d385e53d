//! Discovery: walk the linted paths in parallel (honouring .gitignore and
//! `.confvetignore`), read and parse candidate files on all cores, classify
//! them by content and group them into units, the things a check looks at
//! as a whole (a ytt package, a KubeVirt or Tekton file set).

use crate::cache::{Cache, ScanRecord, Stamp};
use crate::check::tekton::pac_text as pac;
use crate::finding::Finding;
use crate::finding::RunError;
use crate::rules;
use crate::source::{FileId, SourceFile, Sources, Span, display_name, resolves_below};
use crate::yaml::{self, DocumentSet, ParseOptions};
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Files larger than this are reported, not parsed.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Which checker a file belongs to, decided from its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum System {
    Ytt,
    Kubevirt,
    Tekton,
}

impl System {
    /// Every system, in the order they are reported: the one list of them.
    pub const ALL: [System; 3] = [System::Ytt, System::Kubevirt, System::Tekton];

    /// The system [`System::name`] names.
    pub fn from_name(name: &str) -> Option<System> {
        System::ALL.into_iter().find(|s| s.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            System::Ytt => "ytt",
            System::Kubevirt => "kubevirt",
            System::Tekton => "tekton",
        }
    }
}

/// One file that a check may look at.
#[derive(Debug)]
pub struct DiscoveredFile {
    pub id: FileId,
    /// Absolute path.
    pub path: PathBuf,
    /// None for files that are not YAML (`.star`, data files).
    pub system: Option<System>,
    /// The parsed YAML, or the reason it could not be parsed (as a finding).
    pub parsed: Result<DocumentSet, Box<Finding>>,
    /// ytt: the file holds a `#@data/values-schema` annotation.
    pub has_schema: bool,
    /// ytt: the file holds a `#@data/values` annotation.
    pub has_values: bool,
    /// ytt: the file holds an `#@overlay/...` annotation (a schema file
    /// that has one may extend a schema above it).
    pub has_overlay: bool,
    /// Set while the YAML is not parsed yet: a lint parses each unit's
    /// files when it checks the unit and drops the trees after, so memory
    /// does not grow with the tree ([`DiscoveredFile::parse_now`]).
    pub parse_later: Option<ParseOptions>,
    /// The file's size and modification time, when read from disk: what
    /// the cache keys its entries by.
    pub stamp: Option<Stamp>,
}

impl DiscoveredFile {
    /// This file with its YAML parsed (a copy of it when it already is).
    pub fn parse_now(&self, sources: &Sources) -> DiscoveredFile {
        let parsed = match &self.parse_later {
            Some(options) => parse_source(self.id, self.system, sources, options),
            None => self.parsed.clone(),
        };
        DiscoveredFile {
            id: self.id,
            path: self.path.clone(),
            system: self.system,
            parsed,
            has_schema: self.has_schema,
            has_values: self.has_values,
            has_overlay: self.has_overlay,
            parse_later: None,
            stamp: self.stamp,
        }
    }
}

/// A set of files checked together.
#[derive(Debug)]
pub struct Unit {
    pub system: System,
    /// The package directory (ytt) or the linted root (kubevirt, tekton).
    pub root: PathBuf,
    /// Indices into `Discovery::files`, sorted by path relative to `root`
    /// in byte order (the order ytt merges files in).
    pub files: Vec<usize>,
    /// Other files below a ytt package's root (`.star`, `.txt`, ...), for loads.
    pub other_files: Vec<PathBuf>,
    /// What names the unit in reports and places it in a shard: the package
    /// directory (ytt), the linted root, or the first file of a group of
    /// KubeVirt or Tekton files (`check::components`).
    pub key: PathBuf,
}

/// The outcome of discovery.
#[derive(Debug, Default)]
pub struct Discovery {
    pub files: Vec<DiscoveredFile>,
    pub units: Vec<Unit>,
    /// Problems that are not findings (unreadable files); they make exit 2.
    pub errors: Vec<RunError>,
    /// When files were named one by one: the files and directories named.
    /// KubeVirt and Tekton units are read whole (a VM's template may sit
    /// elsewhere) but report only on these.
    pub scope: Option<Vec<PathBuf>>,
    /// Carvel `Package` resources (plain YAML, in no unit).
    pub carvel_packages: Vec<DiscoveredFile>,
    /// Warnings about the tree itself: YAML files and folders that are
    /// links leading out of the linted paths, not followed.
    pub findings: Vec<Finding>,
}

/// Decides whether the walk keeps a path (`true`) or skips it; the flag
/// tells whether the path is a directory.
pub type PathFilter = Arc<dyn Fn(&Path, bool) -> bool + Send + Sync>;

/// What a configuration file changes in discovery.
#[derive(Clone, Default)]
pub struct DiscoverOptions {
    /// Applied to every file and directory the walk meets.
    pub filter: Option<PathFilter>,
    /// Declared ytt package roots (absolute): each takes every ytt file
    /// below it, whatever discovery would have grouped.
    pub package_roots: Vec<PathBuf>,
    /// Systems whose files are neither parsed nor checked.
    pub systems_off: Vec<System>,
    /// Where the scan of unchanged files is remembered between runs.
    pub cache: Option<Arc<Cache>>,
}

/// A filter that is true for paths matching gitignore-style `patterns`
/// relative to `dir` (or below a directory that does); paths outside `dir`
/// never match. The error names the first bad pattern.
pub fn exclude_filter(dir: &Path, patterns: &[String]) -> Result<PathFilter, String> {
    let mut builder = ignore::gitignore::GitignoreBuilder::new(dir);
    builder.allow_unclosed_class(false);
    for pattern in patterns {
        builder
            .add_line(None, pattern)
            .map_err(|err| format!("bad pattern \"{pattern}\": {err}"))?;
    }
    let matcher = builder.build().map_err(|err| err.to_string())?;
    let dir = dir.to_path_buf();
    Ok(Arc::new(move |path: &Path, is_dir: bool| {
        path.strip_prefix(&dir).is_ok_and(|relative| {
            !relative.as_os_str().is_empty()
                && matcher
                    .matched_path_or_any_parents(relative, is_dir)
                    .is_ignore()
        })
    }))
}

/// Read, classify and group everything below `paths`, as the
/// configuration's `options` shape it.
///
/// A directory is walked; a file is linted as part of its unit, which is
/// found by walking the directory it sits in (pre-commit passes changed files
/// one by one, and a values file must be checked with its package's schema).
pub fn discover_with(
    paths: &[PathBuf],
    sources: &Sources,
    cwd: &Path,
    parse: &ParseOptions,
    options: &DiscoverOptions,
) -> Discovery {
    let mut discovery = Discovery::default();
    // Each root, and whether it was named as a directory (a package may then
    // be rooted at it; below a root walked only to place single files, not).
    let mut roots: BTreeMap<PathBuf, bool> = BTreeMap::new();
    let mut wanted_files: BTreeSet<PathBuf> = BTreeSet::new();
    let mut explicit_dirs: Vec<PathBuf> = Vec::new();
    for path in paths {
        let absolute = absolutize(path, cwd);
        if sources.stdin_path() == Some(absolute.as_path()) {
            // Standard input stands in for this file, which may not exist yet.
            let root = file_context_root(&absolute, cwd);
            wanted_files.insert(absolute);
            roots.entry(root).or_insert(false);
            continue;
        }
        match std::fs::metadata(&absolute) {
            Ok(meta) if meta.is_dir() => {
                explicit_dirs.push(absolute.clone());
                roots.insert(absolute, true);
            }
            Ok(_) => {
                let root = file_context_root(&absolute, cwd);
                wanted_files.insert(absolute);
                roots.entry(root).or_insert(false);
            }
            Err(err) => discovery.errors.push(RunError::about(
                display_name(&absolute, cwd),
                format!("{}: {err}", path.display()),
            )),
        }
    }
    // A root inside another root adds nothing.
    let roots: Vec<(PathBuf, bool)> = roots
        .iter()
        .filter(|(r, _)| !roots.keys().any(|o| o != *r && r.starts_with(o)))
        .map(|(r, explicit)| (r.clone(), *explicit))
        .collect();

    for (root, is_explicit) in &roots {
        let Walked {
            yaml: mut yaml_paths,
            other: other_paths,
            links,
            errors,
        } = walk(root, options.filter.as_ref());
        discovery
            .errors
            .extend(errors.into_iter().map(|(path, message)| RunError {
                file: path.map(|p| display_name(&p, cwd)),
                message,
            }));
        // A file named on the command line is linted even where an ignore
        // file hides it from the walk (as ripgrep searches a named file);
        // only the configuration's excludes keep it out.
        let keeps = |p: &Path| options.filter.as_ref().is_none_or(|keeps| keeps(p, false));
        let mut outward_links: Vec<PathBuf> = links
            .into_iter()
            .filter(|link| is_yaml_name(link) || link.is_dir())
            .filter(|link| !resolves_below(link, root))
            .collect();
        // A named file that is a link out of the tree (a file changed in
        // a pull request, for `--changed-since`) is not read either.
        let (named_outward, missed): (Vec<PathBuf>, Vec<PathBuf>) = wanted_files
            .iter()
            .filter(|w| w.starts_with(root) && is_yaml_name(w) && keeps(w))
            .filter(|w| yaml_paths.binary_search(w).is_err())
            .cloned()
            .partition(|w| w.is_symlink() && !resolves_below(w, root));
        outward_links.extend(named_outward);
        if !missed.is_empty() {
            yaml_paths.extend(missed);
            yaml_paths.sort();
        }
        let start = discovery.files.len();
        let read: Vec<Result<DiscoveredFile, RunError>> = yaml_paths
            .par_iter()
            .filter_map(|p| {
                read_and_parse(p, sources, cwd, parse, options.cache.as_deref()).transpose()
            })
            .collect();
        let ytt_off = options.systems_off.contains(&System::Ytt);
        for file in read {
            match file {
                Err(error) => discovery.errors.push(error),
                Ok(file) => match file.system {
                    Some(system) if options.systems_off.contains(&system) => {}
                    Some(_) => discovery.files.push(file),
                    None if !ytt_off => discovery.carvel_packages.push(file),
                    None => {}
                },
            }
        }
        group_units(
            &mut discovery,
            start,
            root,
            *is_explicit,
            (&yaml_paths, &other_paths),
            &options.package_roots,
        );
        // A link below a ytt package is the package's to judge, as ytt
        // judges links among its input files.
        let ytt_roots: Vec<&Path> = discovery
            .units
            .iter()
            .filter(|u| u.system == System::Ytt)
            .map(|u| u.root.as_path())
            .collect();
        outward_links.retain(|link| !ytt_roots.iter().any(|r| link.starts_with(r)));
        outward_links.sort();
        outward_links.dedup();
        for link in outward_links {
            discovery.findings.push(link_not_followed(
                &link,
                "it leads out of the linted tree",
                "confvet reads only what is inside the paths it lints; lint the destination's own folder, or put the file itself here",
                sources,
                cwd,
            ));
        }
    }

    if !wanted_files.is_empty() {
        discovery.scope = Some(
            wanted_files
                .iter()
                .cloned()
                .chain(explicit_dirs.iter().cloned())
                .collect(),
        );
        // Keep the units that hold a file or directory that was asked for;
        // a wanted file that is not YAML of a unit (a plain values file)
        // selects the ytt package it sits in.
        let files = &discovery.files;
        let is_wanted = |path: &Path| {
            wanted_files.contains(path) || explicit_dirs.iter().any(|d| path.starts_with(d))
        };
        let ytt_roots: BTreeSet<PathBuf> = discovery
            .units
            .iter()
            .filter(|u| u.system == System::Ytt)
            .map(|u| u.root.clone())
            .collect();
        // A file of a KubeVirt or Tekton unit selects only its own unit.
        let other_systems: BTreeSet<&Path> = discovery
            .units
            .iter()
            .filter(|u| u.system != System::Ytt)
            .flat_map(|u| u.files.iter().map(|&i| files[i].path.as_path()))
            .collect();
        let selected: BTreeSet<&PathBuf> = wanted_files
            .iter()
            .filter(|w| !other_systems.contains(w.as_path()))
            .filter_map(|w| deepest_root(w, &ytt_roots))
            .collect();
        discovery.units.retain(|unit| {
            unit.files.iter().any(|&i| is_wanted(&files[i].path))
                || (unit.system == System::Ytt && selected.contains(&unit.root))
        });
    }
    discovery
}

/// `path` from `cwd` when relative, without `.` and `..`.
pub fn absolutize(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    crate::source::normalize_path(&joined)
}

/// The directory to walk for a single file: the current directory when the
/// file is under it (the repository, for pre-commit), else the file's folder.
fn file_context_root(file: &Path, cwd: &Path) -> PathBuf {
    let cwd = crate::source::normalize_path(cwd);
    if file.starts_with(&cwd) {
        cwd
    } else {
        file.parent().map_or_else(|| cwd.clone(), Path::to_path_buf)
    }
}

/// What a walk found, sorted.
#[derive(Default)]
struct Walked {
    yaml: Vec<PathBuf>,
    other: Vec<PathBuf>,
    /// Symbolic links (to files or folders): never followed.
    links: Vec<PathBuf>,
    /// Walk errors, with the path they are about when they name one.
    errors: Vec<(Option<PathBuf>, String)>,
}

/// A `confvet/symlink` warning at a link lint did not follow. Nothing is
/// read through the link, and its destination is not shown: it may be
/// outside the repository.
pub fn link_not_followed(
    link: &Path,
    why: &str,
    help: &str,
    sources: &Sources,
    cwd: &Path,
) -> Finding {
    let name = display_name(link, cwd);
    let id = sources.add(SourceFile::new(
        name.clone(),
        Some(link.to_path_buf()),
        String::new(),
    ));
    Finding::new(
        &rules::confvet::SYMLINK,
        Span::file_start(id),
        format!("symbolic link {name} not followed: {why}"),
    )
    .with_help(help)
}

/// Walk `root` in parallel.
fn walk(root: &Path, filter: Option<&PathFilter>) -> Walked {
    let found = Mutex::new(Walked::default());
    let filter = filter.cloned();
    ignore::WalkBuilder::new(root)
        .add_custom_ignore_filename(".confvetignore")
        // Hidden directories hold configuration too (`.tekton/` of
        // Pipelines-as-Code, `.github/`, `.tanzu-managed/`); version
        // control metadata never does.
        .hidden(false)
        .require_git(false)
        .filter_entry(move |entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if is_dir && entry.depth() > 0 && is_vcs_dir(entry.file_name()) {
                return false;
            }
            filter
                .as_ref()
                .is_none_or(|keeps| keeps(entry.path(), is_dir))
        })
        .build_parallel()
        .run(|| {
            Box::new(|entry| {
                match entry {
                    Ok(entry) if entry.file_type().is_some_and(|t| t.is_file()) => {
                        let path = entry.into_path();
                        let mut found = found.lock().unwrap_or_else(|e| e.into_inner());
                        if is_yaml_name(&path) {
                            found.yaml.push(path);
                        } else {
                            found.other.push(path);
                        }
                    }
                    Ok(entry) if entry.path_is_symlink() => {
                        let path = entry.into_path();
                        found
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .links
                            .push(path);
                    }
                    Ok(_) => {}
                    Err(err) => found
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .errors
                        .push((error_path(&err).map(Path::to_path_buf), err.to_string())),
                }
                ignore::WalkState::Continue
            })
        });
    let mut walked = found.into_inner().unwrap_or_else(|e| e.into_inner());
    walked.yaml.sort();
    walked.other.sort();
    walked.links.sort();
    walked
}

/// The path a walk error is about, if it names one.
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Partial(errors) => errors.iter().find_map(error_path),
        _ => None,
    }
}

/// A version control system's own directory, or confvet's cache: they hold
/// nothing to lint.
fn is_vcs_dir(name: &std::ffi::OsStr) -> bool {
    [".git", ".hg", ".svn", ".jj", ".confvet-cache"]
        .iter()
        .any(|v| name == *v)
}

fn is_yaml_name(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yml" | "yaml")
    )
}

/// Decide from the text which checker a YAML file is for, without parsing,
/// so that a file that does not parse is still reported by its checker.
pub fn classify(text: &str) -> Option<System> {
    scan(text).system
}

/// What one pass over a file's lines tells about it.
struct Scan {
    system: Option<System>,
    has_schema: bool,
    has_values: bool,
    has_overlay: bool,
    /// A Carvel `Package` resource (`data.packaging.carvel.dev`), whose
    /// values schema is compared with the ytt package it ships.
    is_carvel_package: bool,
}

fn scan(text: &str) -> Scan {
    // A byte-order mark is not part of the first line's content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut is_tekton = false;
    let mut is_kubevirt = false;
    let mut is_ytt = false;
    let mut has_schema = false;
    let mut has_values = false;
    let mut has_overlay = false;
    let mut is_packaging = false;
    let mut is_package_kind = false;
    // The indentation of the line that opened the block scalar the scan is
    // in: its text is content, never an annotation or a resource's kind.
    let mut block_at: Option<usize> = None;
    for raw in text.lines() {
        let line = raw.trim_start();
        let indent = raw.len() - line.len();
        if let Some(opened) = block_at {
            if line.is_empty() || indent > opened {
                continue;
            }
            block_at = None;
        }
        if opens_block_scalar(line) {
            block_at = Some(indent);
        }
        // `key: #@ expr`, `- #@ expr`: a template whose only code is
        // computed values (a YAML comment follows a blank).
        is_ytt |= line.contains(" #@");
        match line.as_bytes().first() {
            Some(b'#') if line.starts_with("#@") => {
                is_ytt = true;
                // An annotation's name ends at the first blank:
                // `#@data/values-schemaX` is another annotation.
                let name = line[2..].split_whitespace().next().unwrap_or("");
                has_schema |= name == "data/values-schema";
                has_values |= name == "data/values";
                has_overlay |= name.starts_with("overlay/");
            }
            Some(b'a') => {
                if let Some(rest) = line.strip_prefix("apiVersion:") {
                    let api = rest.trim().trim_matches(['"', '\'']);
                    // Pipelines-as-Code's Repository declares the params
                    // its templates' placeholders may name.
                    is_tekton |= api.starts_with("tekton.dev/")
                        || api.starts_with("triggers.tekton.dev/")
                        || api.starts_with("pipelinesascode.tekton.dev/");
                    is_packaging |= api.starts_with("data.packaging.carvel.dev/");
                }
            }
            Some(b'k') => {
                if let Some(rest) = line.strip_prefix("kind:") {
                    let kind = rest.trim().trim_matches(['"', '\'']);
                    is_kubevirt |= kind == "Template" || kind == "VirtualMachine";
                    is_package_kind |= kind == "Package";
                }
            }
            _ => {}
        }
    }
    let system = if is_tekton {
        Some(System::Tekton)
    } else if is_kubevirt {
        Some(System::Kubevirt)
    } else if is_ytt {
        Some(System::Ytt)
    } else {
        None
    };
    Scan {
        system,
        has_schema,
        has_values,
        has_overlay,
        is_carvel_package: is_packaging && is_package_kind,
    }
}

/// Whether `line` (without its indentation) ends in a block scalar header,
/// `key: |`, `- >-`, `key: |2 # comment`: the lines indented below it are
/// the scalar's text.
fn opens_block_scalar(line: &str) -> bool {
    let value = if let Some(rest) = line.strip_prefix("- ") {
        rest.rsplit_once(": ").map_or(rest, |(_, v)| v)
    } else if let Some((_, v)) = line.rsplit_once(": ") {
        v
    } else {
        return false;
    };
    let value = value.split(" #").next().unwrap_or("").trim();
    let mut chars = value.chars();
    matches!(chars.next(), Some('|' | '>'))
        && chars.all(|c| c.is_ascii_digit() || c == '+' || c == '-')
}

/// Read and parse a file given to `confvet render` as part of a ytt package:
/// every YAML file is a ytt file there, annotated or not (as `ytt -f`).
pub fn read_ytt_file(path: &Path, sources: &Sources, cwd: &Path) -> Option<DiscoveredFile> {
    read_file(
        path,
        sources,
        cwd,
        &ParseOptions::default(),
        true,
        When::Now,
    )
    .ok()
    .flatten()
}

/// Read and classify a file the walk found; its YAML is parsed when its
/// unit is checked ([`DiscoveredFile::parse_now`]).
fn read_and_parse(
    path: &Path,
    sources: &Sources,
    cwd: &Path,
    parse: &ParseOptions,
    cache: Option<&Cache>,
) -> Result<Option<DiscoveredFile>, RunError> {
    read_file(path, sources, cwd, parse, false, When::Later(cache))
}

/// When a file is parsed: now, or when its unit is checked (then an
/// unchanged file's scan may come from the cache).
enum When<'c> {
    Now,
    Later(Option<&'c Cache>),
}

fn read_file(
    path: &Path,
    sources: &Sources,
    cwd: &Path,
    parse: &ParseOptions,
    force_ytt: bool,
    when: When,
) -> Result<Option<DiscoveredFile>, RunError> {
    let name = display_name(path, cwd);
    let (defer, cache) = match when {
        When::Now => (false, None),
        When::Later(cache) => (true, cache),
    };
    let meta = (sources.stdin_path() != Some(path))
        .then(|| std::fs::metadata(path).ok())
        .flatten();
    let stamp = meta.as_ref().and_then(Stamp::of);
    if let (Some(cache), Some(stamp)) = (cache, stamp)
        && let Some(record) = cache.scan(path, stamp)
    {
        // Unchanged since the last run: its role is known without reading it.
        let system = record.system.as_deref().and_then(System::from_name);
        if system.is_none() && !record.is_carvel_package {
            return Ok(None);
        }
        return Ok(Some(DiscoveredFile {
            id: sources.add_unread(name, path.to_path_buf()),
            path: path.to_path_buf(),
            system,
            parsed: Ok(DocumentSet::default()),
            has_schema: record.has_schema,
            has_values: record.has_values,
            has_overlay: record.has_overlay,
            parse_later: Some(parse.clone()),
            stamp: Some(stamp),
        }));
    }
    let too_large = meta.is_some_and(|m| m.len() > MAX_FILE_BYTES);
    if too_large {
        use std::io::Read;
        let mut head = Vec::new();
        let _ = std::fs::File::open(path).and_then(|f| f.take(1 << 20).read_to_end(&mut head));
        let system = classify(&String::from_utf8_lossy(&head));
        if system.is_none() {
            return Ok(None);
        }
        let id = sources.add(SourceFile::new(
            name,
            Some(path.to_path_buf()),
            String::new(),
        ));
        let finding = Finding::new(
            &rules::yaml::SYNTAX,
            Span::file_start(id),
            format!(
                "file is larger than {} MiB; not parsed",
                MAX_FILE_BYTES / 1024 / 1024
            ),
        );
        return Ok(Some(DiscoveredFile {
            id,
            path: path.to_path_buf(),
            system,
            parsed: Err(Box::new(finding)),
            has_schema: false,
            has_values: false,
            has_overlay: false,
            parse_later: None,
            stamp: None,
        }));
    }
    // A file the walk found but cannot read (permissions, a vanished file)
    // is a run error: the run is incomplete, and says which file.
    let bytes = sources
        .read(path)
        .map_err(|err| RunError::about(name.clone(), format!("{name}: cannot read: {err}")))?;
    let (text, bad_offset) = crate::source::decode_text(bytes);
    let is_binary = text.contains('\0');
    let Scan {
        system,
        has_schema,
        has_values,
        has_overlay,
        is_carvel_package,
    } = scan(&text);
    if let (Some(cache), Some(stamp)) = (cache, stamp)
        && !is_binary
        && bad_offset.is_none()
    {
        let record = ScanRecord {
            system: system.map(|s| s.name().to_string()),
            has_schema,
            has_values,
            has_overlay,
            is_carvel_package,
        };
        cache.record_scan(path, stamp, record);
    }
    let system = if force_ytt { Some(System::Ytt) } else { system };
    // A file named on the command line is classified as the walk would
    // classify it: a Helm template or any other YAML that no system reads is
    // skipped, not reported. A Carvel Package resource is read for the ytt
    // package it ships (system None).
    if system.is_none() && !is_carvel_package {
        return Ok(None);
    }
    // The walk keeps no text of a file parsed later: its unit reads it again
    // when it is checked, so memory does not grow with the tree (standard
    // input, which cannot be read twice, is kept).
    let unread = defer && !is_binary && bad_offset.is_none() && sources.stdin_path() != Some(path);
    let id = if unread {
        sources.add_unread(name, path.to_path_buf())
    } else {
        sources.add(SourceFile::new(name, Some(path.to_path_buf()), text))
    };
    let parsed = if is_binary {
        let text = sources.get(id);
        let offset = text.text.find('\0').unwrap_or(0);
        Err(Box::new(Finding::new(
            &rules::yaml::SYNTAX,
            Span::new(id, offset, offset),
            "file holds NUL bytes: binary data, not YAML",
        )))
    } else if let Some(offset) = bad_offset {
        Err(Box::new(Finding::new(
            &rules::yaml::SYNTAX,
            Span::new(id, offset, offset),
            "file is not UTF-8 text",
        )))
    } else if defer {
        Ok(DocumentSet::default())
    } else {
        parse_source(id, system, sources, parse)
    };
    let is_deferred = defer && parsed.is_ok();
    Ok(Some(DiscoveredFile {
        id,
        path: path.to_path_buf(),
        system,
        parsed,
        has_schema,
        has_values,
        has_overlay,
        parse_later: is_deferred.then(|| parse.clone()),
        stamp,
    }))
}

/// Parse a registered file's text as YAML for `system`.
fn parse_source(
    id: FileId,
    system: Option<System>,
    sources: &Sources,
    parse: &ParseOptions,
) -> Result<DocumentSet, Box<Finding>> {
    let source = sources.get(id);
    // ytt templates repeat keys under `#@ if`/`#@ else`; the ytt check
    // reports duplicates where no template code can choose.
    let options = ParseOptions {
        keeps_duplicate_keys: system == Some(System::Ytt) || system.is_none(),
        ..parse.clone()
    };
    // A bug in the parser must not end the run: the file gets a finding
    // that asks for a report, the other files are still linted.
    // Pipelines-as-Code fills its `{{ }}` placeholders in as text before
    // the YAML is parsed: parse with them blanked out, then put them back.
    let pac = match (&source.path, system) {
        (Some(path), Some(System::Tekton))
            if source.text.contains("{{") && pac::reads(path, &source.text) =>
        {
            Some(pac::placeholders(&source.text)).filter(|r| !r.is_empty())
        }
        _ => None,
    };
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &pac {
        Some(ranges) => {
            let blanked = pac::blank(&source.text, ranges);
            yaml::parse_file(id, &blanked, &options).map(|mut set| {
                pac::restore(&mut set, &source.text, ranges);
                set
            })
        }
        None => yaml::parse_file(id, &source.text, &options),
    }));
    match parsed {
        Ok(result) => result.map_err(|e| Box::new(Finding::new(e.rule, e.span, e.message))),
        Err(panic) => Err(Box::new(Finding::new(
            &rules::confvet::INTERNAL,
            Span::file_start(id),
            format!(
                "internal error while parsing this file ({}); please report it with the file",
                crate::finding::panic_message(&panic)
            ),
        ))),
    }
}

/// True for paths inside a ytt private library (`_ytt_lib`) below `root`,
/// which ytt does not include in the package's own data values. The one
/// test of it, with [`name_in_ytt_lib`] for names.
pub fn in_ytt_lib(path: &Path, root: &Path) -> bool {
    library_owner(path, root).is_some()
}

/// True for a file named `name` (`/`-separated, as ytt names its input
/// files) in a private library: ytt tells them by name, a folder
/// `_ytt_lib` on the way.
pub fn name_in_ytt_lib(name: &str) -> bool {
    name.split('/').rev().skip(1).any(|d| d == "_ytt_lib")
}

/// The folder holding the outermost `_ytt_lib` on `path` below `root`: the
/// package a private library's file belongs to.
fn library_owner(path: &Path, root: &Path) -> Option<PathBuf> {
    let relative = path.strip_prefix(root).ok()?;
    let mut owner = root.to_path_buf();
    for component in relative.components() {
        if component.as_os_str() == "_ytt_lib" {
            return Some(owner);
        }
        owner.push(component);
    }
    None
}

/// For each anchor directory, the highest directory up to `root` (or below
/// it, unless `may_claim_root`) whose subtree holds no blocker outside the
/// anchor's own subtree.
fn climb(
    anchors: &BTreeSet<PathBuf>,
    blockers: &BTreeSet<PathBuf>,
    root: &Path,
    may_claim_root: bool,
) -> BTreeSet<PathBuf> {
    // Blockers in each directory's subtree, counted once through their
    // ancestors: the climb is then linear in the tree depth.
    let mut below: HashMap<&Path, usize> = HashMap::new();
    for blocker in blockers {
        for ancestor in blocker.ancestors() {
            *below.entry(ancestor).or_default() += 1;
            if ancestor == root {
                break;
            }
        }
    }
    let count = |dir: &Path| below.get(dir).copied().unwrap_or(0);
    let mut tops = BTreeSet::new();
    for dir in anchors {
        let own = count(dir);
        let mut top = dir.clone();
        while top != root {
            let Some(parent) = top.parent() else { break };
            let holds_other = count(parent) > own;
            if holds_other || !parent.starts_with(root) || (parent == root && !may_claim_root) {
                break;
            }
            top = parent.to_path_buf();
        }
        tops.insert(top);
    }
    tops
}

/// Each of `roots` lowered to the deepest folder that holds every one of
/// `paths` whose deepest root it is (a root holding none stays).
fn settle_roots<'a>(
    roots: &BTreeSet<PathBuf>,
    paths: impl Iterator<Item = &'a PathBuf>,
) -> BTreeSet<PathBuf> {
    let mut lowest: HashMap<&PathBuf, PathBuf> = HashMap::new();
    for path in paths {
        let (Some(root), Some(dir)) = (deepest_root(path, roots), path.parent()) else {
            continue;
        };
        match lowest.get_mut(root) {
            None => {
                lowest.insert(root, dir.to_path_buf());
            }
            Some(common) => while !dir.starts_with(&*common) && common.pop() {},
        }
    }
    roots
        .iter()
        .map(|r| match lowest.get(r) {
            Some(common) if common.starts_with(r) => common.clone(),
            _ => r.clone(),
        })
        .collect()
}

/// The deepest of `roots` that holds `path`, found by walking its ancestors.
fn deepest_root<'a>(path: &Path, roots: &'a BTreeSet<PathBuf>) -> Option<&'a PathBuf> {
    path.ancestors().find_map(|a| roots.get(a))
}

/// Group the files discovered under `root` (from index `start`) into units.
///
/// ytt: a package is rooted at the highest directory (up to `root` when it was
/// named on the command line, else below it) above a
/// directory holding a schema file whose subtree holds no other package's
/// schema; it takes every ytt file below it except nested packages. ytt files
/// with no package above them are rooted the same way at their folders,
/// climbing past folders of plain YAML only.
/// KubeVirt and Tekton files form one unit per system: references between
/// their files are resolved across the whole linted root.
fn group_units(
    discovery: &mut Discovery,
    start: usize,
    root: &Path,
    may_claim_root: bool,
    (yaml_paths, other_paths): (&[PathBuf], &[PathBuf]),
    declared_roots: &[PathBuf],
) {
    let files = &discovery.files[start..];
    let schema_files: Vec<&DiscoveredFile> = files
        .iter()
        .filter(|f| f.system == Some(System::Ytt) && f.has_schema && !in_ytt_lib(&f.path, root))
        .collect();
    let folder = |f: &&DiscoveredFile| f.path.parent().map(Path::to_path_buf);
    let schema_dirs: BTreeSet<PathBuf> = schema_files.iter().filter_map(folder).collect();
    // Folders with a schema file that carries no overlay annotation.
    let base_schema_dirs: HashSet<PathBuf> = schema_files
        .iter()
        .filter(|f| !f.has_overlay)
        .filter_map(folder)
        .collect();
    // A folder whose schema files all carry overlay annotations, below
    // another schema's folder, extends that schema (`prod/` of a package
    // overlaying its defaults, as `ytt -f DIR` merges them): it anchors no
    // package of its own.
    let extends_above = |dir: &PathBuf| {
        !base_schema_dirs.contains(dir)
            && dir
                .ancestors()
                .skip(1)
                .take_while(|a| a.starts_with(root))
                .any(|a| schema_dirs.contains(a))
    };
    let schema_dirs: BTreeSet<PathBuf> = schema_dirs
        .iter()
        .filter(|d| !extends_above(d))
        .cloned()
        .collect();
    let mut package_roots = climb(&schema_dirs, &schema_dirs, root, may_claim_root);
    // Packages without a schema are anchored at their data-values files;
    // their roots climb past other folders, never past a schema or another
    // data-values folder.
    let values_dirs: BTreeSet<PathBuf> = files
        .iter()
        .filter(|f| f.system == Some(System::Ytt) && f.has_values && !in_ytt_lib(&f.path, root))
        .filter_map(|f| f.path.parent().map(Path::to_path_buf))
        .filter(|d| !package_roots.iter().any(|r| d.starts_with(r)))
        .collect();
    let mut blockers: BTreeSet<PathBuf> = values_dirs.union(&schema_dirs).cloned().collect();
    package_roots.extend(climb(&values_dirs, &blockers, root, may_claim_root));
    // Templates with no package above them are anchored at their folders,
    // whose roots climb past folders of plain YAML only: an overlay in
    // `config/overlays/` is written for the plain documents of
    // `config/upstream/`, which `ytt -f config` gives it. A folder never
    // climbs past another folder of ytt files.
    let template_dirs: BTreeSet<PathBuf> = files
        .iter()
        .filter(|f| f.system == Some(System::Ytt))
        .filter(|f| library_owner(&f.path, root).is_none())
        .filter(|f| deepest_root(&f.path, &package_roots).is_none())
        .filter_map(|f| f.path.parent().map(Path::to_path_buf))
        .collect();
    blockers.extend(template_dirs.iter().cloned());
    let template_roots = climb(&template_dirs, &blockers, root, may_claim_root);
    // A folder of templates inside another's root is part of it, as `ytt
    // -f` of the outer folder reads it.
    package_roots.extend(
        template_roots
            .iter()
            .filter(|r| !template_roots.iter().any(|o| o != *r && r.starts_with(o)))
            .cloned()
            .collect::<Vec<_>>(),
    );
    // A root climbed through folders that hold nothing but the folder
    // below goes back down to the deepest folder holding all its files:
    // `ytt -f` is pointed at the folder with the files, and absolute loads
    // (`/values.star`) name files from there.
    let mut package_roots = settle_roots(&package_roots, yaml_paths.iter().chain(other_paths));
    // A declared package is one package, as `ytt -f DIR` sees it: packages
    // found inside it become part of it.
    let declared: Vec<&PathBuf> = declared_roots
        .iter()
        .filter(|d| d.starts_with(root))
        .collect();
    package_roots.retain(|r| !declared.iter().any(|d| r.starts_with(d) && r != *d));
    package_roots.extend(declared.into_iter().cloned());

    let mut ytt_units: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    let mut kubevirt = Vec::new();
    let mut tekton = Vec::new();
    for (offset, file) in files.iter().enumerate() {
        let index = start + offset;
        match file.system {
            Some(System::Ytt) => {
                let package = deepest_root(&file.path, &package_roots);
                let unit_root = match package {
                    Some(r) => r.clone(),
                    // A private library belongs to the folder that holds its
                    // `_ytt_lib`: it is evaluated only as that package's
                    // library, with the values the package gives it, never
                    // as a package of its own.
                    None => library_owner(&file.path, root).unwrap_or_else(|| {
                        file.path
                            .parent()
                            .map_or_else(|| root.to_path_buf(), Path::to_path_buf)
                    }),
                };
                ytt_units.entry(unit_root).or_default().push(index);
            }
            Some(System::Kubevirt) => kubevirt.push(index),
            Some(System::Tekton) => tekton.push(index),
            None => {}
        }
    }
    let unit_roots: BTreeSet<PathBuf> = ytt_units.keys().cloned().collect();
    let mut others_by_unit: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    for path in other_paths {
        if let Some(unit_root) = deepest_root(path, &unit_roots) {
            others_by_unit
                .entry(unit_root.clone())
                .or_default()
                .push(path.clone());
        }
    }
    for (unit_root, mut members) in ytt_units {
        let all = &discovery.files;
        members.sort_by(|&a, &b| {
            let ra = all[a].path.strip_prefix(&unit_root).unwrap_or(&all[a].path);
            let rb = all[b].path.strip_prefix(&unit_root).unwrap_or(&all[b].path);
            ra.as_os_str()
                .as_encoded_bytes()
                .cmp(rb.as_os_str().as_encoded_bytes())
        });
        let other_files = others_by_unit.remove(&unit_root).unwrap_or_default();
        discovery.units.push(Unit {
            system: System::Ytt,
            key: unit_root.clone(),
            root: unit_root,
            files: members,
            other_files,
        });
    }
    for (system, members) in [(System::Kubevirt, kubevirt), (System::Tekton, tekton)] {
        if !members.is_empty() {
            discovery.units.push(Unit {
                system,
                root: root.to_path_buf(),
                files: members,
                other_files: Vec::new(),
                key: root.to_path_buf(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_cannot_be_read_is_a_run_error_naming_it() {
        // A directory named like YAML: reading it fails, even as root.
        let dir = std::env::temp_dir().join(format!("confvet-unreadable-{}", std::process::id()));
        let path = dir.join("values.yml");
        std::fs::create_dir_all(&path).unwrap();
        let sources = Sources::new();
        let error =
            read_and_parse(&path, &sources, &dir, &ParseOptions::default(), None).unwrap_err();
        assert_eq!(error.file.as_deref(), Some("values.yml"));
        assert!(
            error.message.starts_with("values.yml: cannot read: "),
            "{}",
            error.message
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn files_are_classified_by_content() {
        assert_eq!(
            classify("apiVersion: tekton.dev/v1\nkind: Task\n"),
            Some(System::Tekton)
        );
        assert_eq!(classify("kind: Template\n"), Some(System::Kubevirt));
        assert_eq!(classify("kind: VirtualMachine\n"), Some(System::Kubevirt));
        assert_eq!(classify("#@data/values\n---\na: 1\n"), Some(System::Ytt));
        assert_eq!(classify("a: 1 # plain\n"), None);
        assert_eq!(classify("kind: TemplateInstance\n"), None);
    }

    #[test]
    fn block_scalar_text_is_content_not_annotations() {
        // A ConfigMap carrying a ytt schema and a Tekton Task as text.
        let config_map = "kind: ConfigMap\ndata:\n  schema.yml: |\n    #@data/values-schema\n    ---\n    a: 1\n\n  task.yml: |-\n    apiVersion: tekton.dev/v1\n    kind: Task\n";
        assert_eq!(classify(config_map), None);
        let after = format!("{config_map}other: 1\n#@ load(\"@ytt:data\", \"data\")\n");
        assert_eq!(classify(&after), Some(System::Ytt), "the block ends");
        let listed = "items:\n- |\n  #@data/values\n- >+\n  kind: Template\n";
        assert_eq!(classify(listed), None);
        assert!(opens_block_scalar("key: |2 # note"));
        assert!(!opens_block_scalar("key: \"|\""));
        assert!(!opens_block_scalar("key: |x"));
    }

    #[test]
    fn an_annotation_is_named_by_its_whole_first_word() {
        let scan = |text: &str| {
            let s = scan(text);
            (s.has_schema, s.has_values)
        };
        assert_eq!(scan("#@data/values-schema\n---\na: 1\n"), (true, false));
        assert_eq!(scan("#@data/values-schemaX\n---\na: 1\n"), (false, false));
        assert_eq!(
            scan("#@data/values after=\"x\"\n---\na: 1\n"),
            (false, true)
        );
        assert_eq!(scan("#@data/values-other\n---\na: 1\n"), (false, false));
    }
}
