//! ytt's `--file-mark PATH:KEY=VALUE` and the input files they mark
//! (ytt's `pkg/cmd/template/file_marks.go` and `pkg/files/file.go`): what
//! each file of a package is (YAML, text, Starlark or data), whether it is
//! a template, whether it is output, or left out altogether. Also ytt's
//! symlink rule: a symbolic link among the input files is read only when
//! its destination is allowed (`--allow-symlink-destination`).

use std::path::{Path, PathBuf};

/// Why a `--file-mark` is no mark, in ytt's words (the mark as given).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FileMarkError {
    #[error("Expected file mark '{0}' to be in format path:key=value")]
    NotPathKeyValue(String),
    #[error("Expected file mark '{0}' key-value portion to be in format key=value")]
    NotKeyValue(String),
    #[error("Unknown value in file mark '{0}'")]
    UnknownValue(String),
    #[error("Unknown key in file mark '{0}'")]
    UnknownKey(String),
}

/// Why a package's input files could not be listed or marked: ytt's
/// words, or confvet's where it does less than ytt.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// A `path=` mark moving a file across `_ytt_lib` (the mark).
    #[error(
        "file mark '{0}': confvet does not support moving a file into or out of a private library (`_ytt_lib`) yet"
    )]
    MovedAcrossPrivateLibrary(String),
    /// A mark that matched no file (the mark).
    #[error("Expected file mark '{0}' to match at least one file by path, but did not")]
    Unmatched(String),
    /// A file marked for output that ytt cannot write (its name).
    #[error(
        "Unknown file type: '{0}' is marked for output, but ytt outputs only YAML and text files"
    )]
    UnknownOutputType(String),
    /// A link whose destination could not be found (the link as shown).
    #[error("Checking symlink file '{shown}': Eval symlink: {error}")]
    LinkUnresolved {
        shown: String,
        error: std::io::Error,
    },
    /// A link to a destination the symlink flags do not allow.
    #[error(
        "Checking symlink file '{shown}': Expected symlink file '{shown}' -> '{destination}' to be allowed, but was not (hint: symlinks are disallowed as a security feature, use '--allow-symlink-destination' flags to override)"
    )]
    LinkNotAllowed { shown: String, destination: String },
    /// A path given that could not be looked at.
    #[error("Checking file '{shown}': {error}")]
    Unchecked {
        shown: String,
        error: std::io::Error,
    },
    /// A folder given that could not be read.
    #[error("Listing files '{shown}': {error}")]
    Unlisted {
        shown: String,
        error: std::io::Error,
    },
    /// A link inside a folder given that may not be read.
    #[error("Listing files '{shown}': {link}")]
    LinkRefused {
        shown: String,
        link: Box<InputError>,
    },
}

/// True for a file named `name` (`/`-separated, as ytt names its input
/// files) in a private library: ytt tells them by name, a folder
/// `_ytt_lib` on the way.
pub fn name_in_ytt_lib(name: &str) -> bool {
    name.split('/').rev().skip(1).any(|d| d == "_ytt_lib")
}

/// ytt's `File.IsLibrary` for a file name (`x.lib.yml`, `x.lib.txt`: the
/// part before the extension is `lib`): such a file is only loaded, never
/// output. The one test of it, as [`name_in_ytt_lib`] is of private
/// libraries.
pub fn is_library_name(name: &str) -> bool {
    let parts: Vec<&str> = name.split('.').collect();
    parts.len() > 2 && parts[parts.len() - 2] == "lib"
}

/// A file's type, as ytt tells it: by a mark, else by the name's ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    Yaml,
    Text,
    Starlark,
    /// Data only: read by `data.read`, never evaluated.
    Unknown,
}

/// What one mark does to the files it matches.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Action {
    Type(FileType, bool),
    Exclude,
    ForOutput,
    ExclusiveForOutput,
    /// `path=`: the name ytt gives the file from then on.
    Rename(String),
}

/// One `--file-mark`, parsed.
#[derive(Debug, Clone)]
pub struct FileMark {
    text: String,
    pattern: regex::Regex,
    action: Action,
}

impl FileMark {
    /// Parse `PATH:KEY=VALUE`; the error is ytt's message.
    pub fn parse(text: &str) -> Result<FileMark, FileMarkError> {
        let Some((path, key_value)) = text.split_once(':') else {
            return Err(FileMarkError::NotPathKeyValue(text.to_string()));
        };
        let Some((key, value)) = key_value.split_once('=') else {
            return Err(FileMarkError::NotKeyValue(text.to_string()));
        };
        let unknown_value = || FileMarkError::UnknownValue(text.to_string());
        let action = match (key, value) {
            ("type", kind) => {
                let (ty, template) = match kind {
                    "yaml-template" => (FileType::Yaml, true),
                    "yaml-plain" => (FileType::Yaml, false),
                    "text-template" => (FileType::Text, true),
                    "text-plain" => (FileType::Text, false),
                    "starlark" => (FileType::Starlark, false),
                    "data" => (FileType::Unknown, false),
                    _ => return Err(unknown_value()),
                };
                Action::Type(ty, template)
            }
            ("exclude", "true") => Action::Exclude,
            ("for-output", "true") => Action::ForOutput,
            ("exclusive-for-output", "true") => Action::ExclusiveForOutput,
            ("exclude" | "for-output" | "exclusive-for-output", _) => return Err(unknown_value()),
            ("path", name) => Action::Rename(name.to_string()),
            _ => return Err(FileMarkError::UnknownKey(text.to_string())),
        };
        Ok(FileMark {
            text: text.to_string(),
            pattern: pattern(path),
            action,
        })
    }

    fn matches(&self, name: &str) -> bool {
        self.pattern.is_match(name)
    }
}

/// ytt's path pattern: the path quoted, then its first `**/*` matching any
/// non-empty path and its first remaining `*` any non-empty name; any
/// other `*` matches itself.
fn pattern(path: &str) -> regex::Regex {
    let quoted = regex::escape(path)
        .replacen(r"\*\*/\*", ".+", 1)
        .replacen(r"\*", "[^/]+", 1);
    regex::Regex::new(&format!("^{quoted}$")).unwrap_or_else(|_| {
        // An escaped path always compiles; a regex too large to build
        // matches nothing.
        regex::Regex::new("$^").expect("valid pattern")
    })
}

/// One input file: its name as ytt gives it (relative to the folder
/// given, or the base name of a file given), where it is, and its marks.
#[derive(Debug, Clone)]
pub struct InputFile {
    pub name: String,
    /// The name before a `path=` mark renamed the file (what marks
    /// match); None while it is `name`: a package's files are held for
    /// the whole run, and most are never renamed.
    original: Option<String>,
    pub path: PathBuf,
    marked_type: Option<FileType>,
    marked_template: Option<bool>,
    marked_for_output: Option<bool>,
}

/// What ytt makes of the file, but where it is (its path is keyed with
/// the file's content, by the caller): its name and marks.
impl confvet_key::Key for InputFile {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        let InputFile {
            name,
            original,
            path: _,
            marked_type,
            marked_template,
            marked_for_output,
        } = self;
        out.key(name).key(original).key(marked_type);
        out.key(marked_template).key(marked_for_output);
    }
}

impl confvet_key::Key for FileType {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        out.text(match self {
            FileType::Yaml => "yaml",
            FileType::Text => "text",
            FileType::Starlark => "starlark",
            FileType::Unknown => "unknown",
        });
    }
}

impl InputFile {
    pub fn new(name: String, path: PathBuf) -> InputFile {
        InputFile {
            original: None,
            name,
            path,
            marked_type: None,
            marked_template: None,
            marked_for_output: None,
        }
    }

    /// The name before any `path=` mark: what marks match.
    fn original(&self) -> &str {
        self.original.as_deref().unwrap_or(&self.name)
    }

    fn base_name(&self) -> &str {
        self.name.rsplit('/').next().unwrap_or(&self.name)
    }

    pub fn file_type(&self) -> FileType {
        if let Some(ty) = self.marked_type {
            return ty;
        }
        let name = self.base_name();
        if name.ends_with(".yaml") || name.ends_with(".yml") {
            FileType::Yaml
        } else if name.ends_with(".star") {
            FileType::Starlark
        } else if name.ends_with(".txt") {
            FileType::Text
        } else {
            FileType::Unknown
        }
    }

    /// A library file (`x.lib.yml`, any Starlark file): only loaded.
    /// In a private library: ytt tells it by the name it gives the file (a
    /// folder `_ytt_lib` in it), so a file of a `_ytt_lib` given as a path
    /// of its own is the root package's.
    pub fn in_private_library(&self) -> bool {
        name_in_ytt_lib(&self.name)
    }

    pub fn is_library(&self) -> bool {
        is_library_name(self.base_name()) || self.file_type() == FileType::Starlark
    }

    fn is_template_by_type(&self) -> bool {
        !self.is_library() && matches!(self.file_type(), FileType::Yaml | FileType::Text)
    }

    /// Evaluated as a template (else read as plain YAML or text).
    pub fn is_template(&self) -> bool {
        self.marked_template
            .unwrap_or_else(|| self.is_template_by_type())
    }

    /// Its result is output (YAML documents or a text file).
    pub fn is_for_output(&self) -> bool {
        if let Some(marked) = self.marked_for_output {
            return marked;
        }
        self.marked_template == Some(true) || self.is_template_by_type()
    }

    /// Marked `type=...`: how the file is read changed.
    pub fn is_type_marked(&self) -> bool {
        self.marked_type.is_some()
    }
}

/// The input files of a package after the marks: the files left, each
/// with its marks, by path.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub files: Vec<InputFile>,
    /// Paths left out by `exclude=true`.
    pub excluded: Vec<PathBuf>,
    /// Links among the package's files that the symlink flags do not
    /// allow, left out (`lint`): each gets a warning at the link.
    pub refused_links: Vec<PathBuf>,
    by_path: PathIndex,
}

/// The files by their normalized path: the hash of each path with the
/// file's index, sorted, instead of a second copy of every path (a run
/// holds every package's inputs until it ends).
#[derive(Debug, Clone, Default)]
struct PathIndex(Vec<(u64, usize)>);

impl PathIndex {
    fn new(files: &[InputFile]) -> PathIndex {
        let mut entries: Vec<(u64, usize)> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (path_hash(&crate::source::normalized(&f.path)), i))
            .collect();
        entries.sort_unstable();
        PathIndex(entries)
    }

    /// The file at `path` (normalized); the last of the files there, as a
    /// map filled in file order keeps.
    fn get<'f>(&self, files: &'f [InputFile], path: &Path) -> Option<&'f InputFile> {
        let hash = path_hash(path);
        let first = self.0.partition_point(|&(h, _)| h < hash);
        let end = self.0.partition_point(|&(h, _)| h <= hash);
        self.0[first..end]
            .iter()
            .rev()
            .map(|&(_, i)| &files[i])
            .find(|f| crate::source::normalized(&f.path) == path)
    }
}

fn path_hash(path: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut hasher);
    hasher.finish()
}

impl Inputs {
    pub fn get(&self, path: &Path) -> Option<&InputFile> {
        self.by_path
            .get(&self.files, &crate::source::normalized(path))
    }

    pub fn is_excluded(&self, path: &Path) -> bool {
        let path = crate::source::normalized(path);
        self.excluded.iter().any(|excluded| *excluded == *path)
    }

    /// The inputs below `dir` (a private library), named relative to it,
    /// with their marks.
    pub fn below(&self, dir: &Path) -> Inputs {
        let dir = crate::source::normalize_path(dir);
        let files: Vec<InputFile> = self
            .files
            .iter()
            .filter(|f| crate::source::normalize_path(&f.path).starts_with(&dir))
            .map(|f| {
                let name =
                    crate::source::display_name(&crate::source::normalize_path(&f.path), &dir);
                InputFile {
                    original: Some(f.original().to_string()).filter(|o| *o != name),
                    name,
                    ..f.clone()
                }
            })
            .collect();
        let by_path = PathIndex::new(&files);
        Inputs {
            files,
            excluded: self
                .excluded
                .iter()
                .filter(|p| p.starts_with(&dir))
                .cloned()
                .collect(),
            refused_links: Vec::new(),
            by_path,
        }
    }

    /// A YAML file lint found is read: not excluded, not made another
    /// type (a file not on disk, as standard input, is).
    pub fn keeps_yaml(&self, path: &Path) -> bool {
        !self.is_excluded(path)
            && self
                .get(path)
                .is_none_or(|f| f.file_type() == FileType::Yaml)
    }

    /// A YAML file ytt reads: among the inputs, of YAML type.
    pub fn is_yaml(&self, path: &Path) -> bool {
        self.get(path)
            .is_some_and(|f| f.file_type() == FileType::Yaml)
    }
}

/// Apply `marks` to `files` (name, path) in order, as ytt does: each mark
/// must match a file; the first error is ytt's message. `matched` counts,
/// per mark, the files it matched (for marks spread over packages, which
/// then need not match in each).
pub fn apply(
    marks: &[FileMark],
    files: Vec<(String, PathBuf)>,
    must_match: bool,
    matched: &mut [usize],
) -> Result<Inputs, InputError> {
    let mut files: Vec<Option<InputFile>> = files
        .into_iter()
        .map(|(name, path)| Some(InputFile::new(name, path)))
        .collect();
    let mut excluded = Vec::new();
    let mut exclusive: Vec<PathBuf> = Vec::new();
    for (index, mark) in marks.iter().enumerate() {
        let mut count = 0;
        for slot in files.iter_mut() {
            let Some(file) = slot.as_mut().filter(|f| mark.matches(f.original())) else {
                continue;
            };
            count += 1;
            match &mark.action {
                &Action::Type(ty, template) => {
                    file.marked_type = Some(ty);
                    file.marked_template = Some(template);
                }
                Action::Exclude => {
                    excluded.push(crate::source::normalize_path(&file.path));
                    *slot = None;
                }
                Action::ForOutput => file.marked_for_output = Some(true),
                Action::ExclusiveForOutput => exclusive.push(file.path.clone()),
                Action::Rename(name) => {
                    // confvet finds private libraries on disk: a file
                    // renamed into or out of one is not rendered.
                    let mut renamed = file.clone();
                    renamed.name = name.clone();
                    if renamed.in_private_library() != file.in_private_library() {
                        return Err(InputError::MovedAcrossPrivateLibrary(mark.text.clone()));
                    }
                    file.original = Some(file.original().to_string());
                    file.name = renamed.name;
                }
            }
        }
        if let Some(total) = matched.get_mut(index) {
            *total += count;
        }
        if count == 0 && must_match {
            return Err(InputError::Unmatched(mark.text.clone()));
        }
    }
    let mut files: Vec<InputFile> = files.into_iter().flatten().collect();
    if !exclusive.is_empty() {
        for file in &mut files {
            file.marked_for_output = Some(exclusive.contains(&file.path));
        }
    }
    // ytt stops on output it cannot make (outside private libraries).
    let unmakeable = files.iter().find(|f| {
        f.is_for_output()
            && matches!(f.file_type(), FileType::Starlark | FileType::Unknown)
            && !f.in_private_library()
    });
    if let Some(file) = unmakeable {
        return Err(InputError::UnknownOutputType(file.name.clone()));
    }
    let by_path = PathIndex::new(&files);
    Ok(Inputs {
        files,
        excluded,
        refused_links: Vec::new(),
        by_path,
    })
}

/// A package's input files for `lint`: every file below `root` as `ytt -f
/// ROOT` names them (links only where the symlink flags allow), marked.
/// A mark need not match in every package (`matched` counts).
pub fn package_inputs(
    root: &Path,
    cwd: &Path,
    marks: &[FileMark],
    policy: &SymlinkPolicy,
    skip: SkipFolder<'_>,
    matched: &mut [usize],
) -> Result<Inputs, InputError> {
    let mut refused_links = Vec::new();
    let files = list_files(root, cwd, policy, policy.refuses, skip, &mut refused_links)?;
    let mut inputs = apply(marks, files, false, matched)?;
    inputs.refused_links = refused_links;
    Ok(inputs)
}

/// The error when a mark matched no file of any package.
pub fn unmatched(marks: &[FileMark], matched: &[usize]) -> Option<String> {
    marks
        .iter()
        .zip(matched)
        .find(|(_, n)| **n == 0)
        .map(|(mark, _)| InputError::Unmatched(mark.text.clone()).to_string())
}

/// The order ytt evaluates text templates in (and writes them): its
/// library tree's, each folder's own files (in input order) before its
/// subfolders (in the order a file first names them). `names` are in
/// input order; gives their indices.
pub fn library_order(names: &[&str]) -> Vec<usize> {
    #[derive(Default)]
    struct Folder<'a> {
        files: Vec<usize>,
        children: Vec<(&'a str, Folder<'a>)>,
    }
    fn walk(folder: &Folder<'_>, order: &mut Vec<usize>) {
        order.extend(&folder.files);
        for (_, child) in &folder.children {
            walk(child, order);
        }
    }
    let mut root = Folder::default();
    for (index, name) in names.iter().enumerate() {
        let mut pieces: Vec<&str> = name.split('/').collect();
        pieces.pop();
        let mut folder = &mut root;
        for piece in pieces {
            let at = match folder.children.iter().position(|(n, _)| *n == piece) {
                Some(at) => at,
                None => {
                    folder.children.push((piece, Folder::default()));
                    folder.children.len() - 1
                }
            };
            folder = &mut folder.children[at].1;
        }
        folder.files.push(index);
    }
    let mut order = Vec::with_capacity(names.len());
    walk(&root, &mut order);
    order
}

/// ytt's `--allow-symlink-destination` and
/// `--dangerous-allow-all-symlink-destinations`.
#[derive(Debug, Clone, Default)]
pub struct SymlinkPolicy {
    pub allow_all: bool,
    /// Absolute, cleaned.
    pub allowed: Vec<PathBuf>,
    /// A link not allowed stops the run (`render`, `values`, as ytt);
    /// else it is left out (`lint`).
    pub refuses: bool,
}

/// A mark is keyed as written: its pattern and action follow from the text.
impl confvet_key::Key for FileMark {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        let FileMark {
            text,
            pattern: _,
            action: _,
        } = self;
        out.key(text);
    }
}

impl confvet_key::Key for SymlinkPolicy {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        let SymlinkPolicy {
            allow_all,
            allowed,
            refuses,
        } = self;
        out.key(allow_all).key(allowed).key(refuses);
    }
}

impl SymlinkPolicy {
    pub fn new(allow_all: bool, allowed: &[PathBuf], cwd: &Path) -> SymlinkPolicy {
        SymlinkPolicy {
            allow_all,
            allowed: allowed
                .iter()
                .map(|p| crate::source::normalize_path(&cwd.join(p)))
                .collect(),
            refuses: false,
        }
    }

    /// Whether the link at `path` (as given, `shown` as the user named it)
    /// may be read; else ytt's message.
    pub fn check(&self, path: &Path, shown: &str, cwd: &Path) -> Result<(), InputError> {
        if self.allow_all {
            return Ok(());
        }
        let destination = path
            .canonicalize()
            .map_err(|error| InputError::LinkUnresolved {
                shown: shown.to_string(),
                error,
            })?;
        if self
            .allowed
            .iter()
            .any(|allowed| within(&destination, allowed))
        {
            return Ok(());
        }
        Err(InputError::LinkNotAllowed {
            shown: shown.to_string(),
            destination: crate::source::display_name(&destination, cwd),
        })
    }
}

/// `path` is `allowed` or below it, by whole components (ytt compares the
/// absolute paths piece by piece, without resolving links in `allowed`).
fn within(path: &Path, allowed: &Path) -> bool {
    path.starts_with(allowed)
        || allowed
            .canonicalize()
            .is_ok_and(|real| path.starts_with(real))
}

/// Every file `ytt -f PATH` reads below a folder given, by the name ytt
/// gives it, in ytt's order; links are not followed into folders, and a
/// link among the files must be allowed by `policy`: else the error
/// (`refuse`), or the link is left out (`lint`, which never reads through
/// a link it was not allowed to).
pub fn files_in(
    given: &Path,
    cwd: &Path,
    policy: &SymlinkPolicy,
    refuse: bool,
    skip: SkipFolder<'_>,
) -> Result<Vec<(String, PathBuf)>, InputError> {
    list_files(given, cwd, policy, refuse, skip, &mut Vec::new())
}

/// Folders a listing leaves out besides version control's (a linter's own
/// cache, which `ytt -f` would read as input): the caller knows them. Asked
/// only of folders that hold a `CACHEDIR.TAG`.
pub type SkipFolder<'a> = &'a dyn Fn(&Path) -> bool;

/// [`files_in`], with the links it left out added to `refused_links`.
fn list_files(
    given: &Path,
    cwd: &Path,
    policy: &SymlinkPolicy,
    refuse: bool,
    skip: SkipFolder<'_>,
    refused_links: &mut Vec<PathBuf>,
) -> Result<Vec<(String, PathBuf)>, InputError> {
    let shown_given = crate::source::display_name(given, cwd);
    let metadata = std::fs::symlink_metadata(given).map_err(|error| InputError::Unchecked {
        shown: shown_given.clone(),
        error,
    })?;
    if !metadata.is_dir() {
        if metadata.file_type().is_symlink() {
            match policy.check(given, &shown_given, cwd) {
                Ok(()) => {}
                Err(e) if refuse => return Err(e),
                Err(_) => {
                    refused_links.push(given.to_path_buf());
                    return Ok(Vec::new());
                }
            }
        }
        let name = given
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Ok(vec![(name, given.to_path_buf())]);
    }
    let mut found = Vec::new();
    let mut pending = vec![given.to_path_buf()];
    while let Some(dir) = pending.pop() {
        // lint's walk reports a folder it cannot read.
        let entries: Vec<std::fs::DirEntry> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries.flatten().collect(),
            Err(_) if !refuse => continue,
            Err(error) => {
                return Err(InputError::Unlisted {
                    shown: shown_given,
                    error,
                });
            }
        };
        // lint never reads a cache folder confvet made below the folder
        // given: known by its tag among the folder's files, which is then
        // checked (not looked up in every folder).
        if !refuse
            && dir != given
            && entries
                .iter()
                .any(|e| e.file_name() == crate::source::CACHE_TAG)
            && skip(&dir)
        {
            continue;
        }
        for entry in entries {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                // lint never looks into version control's own folders.
                if refuse || !crate::source::is_vcs_dir(&entry.file_name()) {
                    pending.push(path);
                }
                continue;
            }
            if kind.is_symlink() {
                let shown = crate::source::display_name(&path, cwd);
                match policy.check(&path, &shown, cwd) {
                    Ok(()) => {}
                    Err(link) if refuse => {
                        return Err(InputError::LinkRefused {
                            shown: shown_given,
                            link: Box::new(link),
                        });
                    }
                    Err(_) => {
                        refused_links.push(path);
                        continue;
                    }
                }
            }
            let Ok(relative) = path.strip_prefix(given) else {
                continue;
            };
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            found.push((name, path));
        }
    }
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of `files` once `marks` applied; else the error's text.
    fn names(marks: &[&str], files: &[&str]) -> Result<Vec<String>, String> {
        let marks: Vec<FileMark> = marks
            .iter()
            .map(|m| FileMark::parse(m))
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let files = files
            .iter()
            .map(|f| (f.to_string(), PathBuf::from(f)))
            .collect();
        let inputs = apply(&marks, files, true, &mut []).map_err(|e| e.to_string())?;
        Ok(inputs.files.into_iter().map(|f| f.name).collect())
    }

    #[test]
    fn a_single_star_matches_one_level_and_only_the_first_star_is_a_wildcard() {
        let files = ["a.yml", "sub/b.yml", "sub/c.txt", "x/y/z.yml"];
        assert_eq!(
            names(&["*.yml:exclude=true"], &files).unwrap(),
            ["sub/b.yml", "sub/c.txt", "x/y/z.yml"]
        );
        assert_eq!(
            names(&["**/*:exclude=true", "a.yml:exclude=true"], &files).unwrap_err(),
            "Expected file mark 'a.yml:exclude=true' to match at least one file by path, but did not"
        );
        // The second `*` is a star, not a wildcard.
        assert!(names(&["*/*.yml:exclude=true"], &files).is_err());
        assert_eq!(
            names(&["sub/**/*:exclude=true"], &files).unwrap(),
            ["a.yml", "x/y/z.yml"]
        );
    }

    #[test]
    fn text_templates_go_in_library_order_files_before_folders() {
        let names = [
            "a.txt",
            "b/c.txt",
            "b/d/e.txt",
            "b/z.txt",
            "c.txt",
            "a.b/x.txt",
        ];
        let order: Vec<&str> = library_order(&names)
            .into_iter()
            .map(|i| names[i])
            .collect();
        assert_eq!(
            order,
            [
                "a.txt",
                "c.txt",
                "b/c.txt",
                "b/z.txt",
                "b/d/e.txt",
                "a.b/x.txt"
            ]
        );
    }

    #[test]
    fn bad_marks_give_ytts_messages() {
        let err = |m: &str| FileMark::parse(m).unwrap_err().to_string();
        assert_eq!(
            err("a.yml"),
            "Expected file mark 'a.yml' to be in format path:key=value"
        );
        assert_eq!(
            err("a.yml:exclude"),
            "Expected file mark 'a.yml:exclude' key-value portion to be in format key=value"
        );
        assert_eq!(
            err("a.yml:exclude=false"),
            "Unknown value in file mark 'a.yml:exclude=false'"
        );
        assert_eq!(
            err("a.yml:type=json"),
            "Unknown value in file mark 'a.yml:type=json'"
        );
        assert_eq!(
            err("a.yml:kind=x"),
            "Unknown key in file mark 'a.yml:kind=x'"
        );
    }

    #[test]
    fn types_decide_template_and_output_as_in_ytt() {
        let file = |name: &str, marks: &[&str]| {
            let marks: Vec<FileMark> = marks.iter().map(|m| FileMark::parse(m).unwrap()).collect();
            apply(
                &marks,
                vec![(name.to_string(), PathBuf::from(name))],
                true,
                &mut [],
            )
            .unwrap()
            .files
            .remove(0)
        };
        let plain = file("v.yml", &["v.yml:type=yaml-plain"]);
        assert!(!plain.is_template() && plain.is_for_output());
        let data = file("v.yml", &["v.yml:type=data"]);
        assert!(!data.is_template() && !data.is_for_output() && !data.is_library());
        let star = file("v.yml", &["v.yml:type=starlark"]);
        assert!(star.is_library() && !star.is_for_output());
        let lib = file("x.lib.yml", &["x.lib.yml:for-output=true"]);
        assert!(lib.is_library() && lib.is_for_output());
        let text = file("t.yml", &["t.yml:type=text-template"]);
        assert_eq!(text.file_type(), FileType::Text);
        assert!(text.is_template() && text.is_for_output());
    }

    #[test]
    fn path_renames_a_file_and_later_marks_match_its_old_name() {
        let run = |marks: &[&str]| {
            let marks: Vec<FileMark> = marks.iter().map(|m| FileMark::parse(m).unwrap()).collect();
            let files = vec![("a.txt".to_string(), PathBuf::from("a.txt"))];
            apply(&marks, files, true, &mut [])
        };
        let renamed = run(&["a.txt:path=sub/a.lib.yml"]).unwrap().files.remove(0);
        assert_eq!(renamed.name, "sub/a.lib.yml");
        assert_eq!(renamed.file_type(), FileType::Yaml);
        assert!(renamed.is_library() && !renamed.is_for_output());
        let excluded = run(&["a.txt:path=b.yml", "a.txt:exclude=true"]).unwrap();
        assert!(excluded.files.is_empty());
        let unmatched = run(&["a.txt:path=b.yml", "b.yml:exclude=true"])
            .unwrap_err()
            .to_string();
        assert!(unmatched.starts_with("Expected file mark 'b.yml:exclude=true' to match"));
        let moved = run(&["a.txt:path=_ytt_lib/x/a.yml"])
            .unwrap_err()
            .to_string();
        assert!(moved.contains("confvet does not support"), "{moved}");
    }
}
