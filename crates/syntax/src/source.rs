//! Source files and byte spans. Knows nothing of YAML or findings.
//!
//! Every file confvet reads, and every command-line data value it is given,
//! is registered once in [`Sources`] and named by a [`FileId`]. Positions are
//! byte ranges ([`Span`]); they are turned into 1-based lines and columns only
//! when a finding is reported, through the file's line index.
//!
//! Files are read through [`Files`], the disk with texts standing in for
//! some files (an editor's unsaved buffers, `--diff`'s fixes): a value each
//! run holds in its [`Sources`], never process-wide state.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

/// Index of a file in [`Sources`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range in one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end.max(start) as u32,
        }
    }

    /// An empty span at the start of `file` (command-line sources, whole files).
    pub fn file_start(file: FileId) -> Span {
        Span::new(file, 0, 0)
    }

    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A 1-based line and column (column counted in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: usize,
    pub column: usize,
}

/// Where each line of a text starts: byte offsets to lines and columns, and
/// the language server's UTF-16 positions both ways. The one line index:
/// [`SourceFile`]'s, and those of texts that are not whole files (the YAML
/// parser's comments, a KubeVirt annotation's value).
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The 1-based line of byte `offset` (a `\n` is on the line it ends).
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset)
    }

    /// Byte offset where 1-based `line` starts (clamped).
    pub fn start(&self, line: usize) -> usize {
        self.starts[line.saturating_sub(1).min(self.starts.len() - 1)]
    }

    /// Byte offset where 1-based `line` ends: at its `\n` (a `\r` before
    /// it is on the line), or at the end of `text`.
    pub fn end(&self, text: &str, line: usize) -> usize {
        self.starts
            .get(line.max(1))
            .map_or(text.len(), |&next| next - 1)
    }

    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// 1-based line and column (in characters) of byte `offset` of `text`
    /// (clamped to it).
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let offset = offset.min(text.len());
        let line = self.line(offset);
        let start = self.start(line);
        let column = text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        LineCol { line, column }
    }

    /// 0-based line and column in UTF-16 code units (the language server
    /// protocol's) of byte `offset` of `text` (clamped, and moved back to a
    /// character boundary).
    pub fn utf16_position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = text.floor_char_boundary(offset.min(text.len()));
        let line = self.line(offset);
        let units = text[self.start(line)..offset]
            .chars()
            .map(char::len_utf16)
            .sum();
        (line - 1, units)
    }

    /// The byte offset of 0-based `line` and UTF-16 column `units` of
    /// `text` (clamped to the line, and to the text).
    pub fn utf16_offset(&self, text: &str, line: usize, units: usize) -> usize {
        let line = line + 1;
        if line > self.count() {
            return text.len();
        }
        let (start, end) = (self.start(line), self.end(text, line));
        let mut seen = 0;
        for (i, c) in text[start..end].char_indices() {
            if seen >= units {
                return start + i;
            }
            seen += c.len_utf16();
        }
        end
    }
}

/// One file's text and its line index.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown to users: relative to the current directory when the
    /// file is under it, else as given; a pseudo name such as
    /// `(data-value arg)` for command-line sources.
    pub name: String,
    /// The path on disk, if the source is a file.
    pub path: Option<PathBuf>,
    pub text: String,
    /// Where each line starts, computed when a position is first asked
    /// for: most files are read, parsed and dropped without one finding.
    lines: OnceLock<LineIndex>,
    /// The text was dropped to keep memory flat ([`Sources::evict`]); it is
    /// read from `path` again when someone asks for it.
    evicted: bool,
}

impl SourceFile {
    pub fn new(name: String, path: Option<PathBuf>, text: String) -> SourceFile {
        SourceFile {
            name,
            path,
            text,
            lines: OnceLock::new(),
            evicted: false,
        }
    }

    /// A file whose text is not held: read from `path` when asked for.
    fn unread(name: String, path: Option<PathBuf>) -> SourceFile {
        SourceFile {
            evicted: true,
            ..SourceFile::new(name, path, String::new())
        }
    }

    /// The file's line index.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// 1-based line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: usize) -> LineCol {
        self.lines().line_col(&self.text, offset)
    }

    /// Byte offset where 1-based `line` starts (clamped).
    pub fn line_start(&self, line: usize) -> usize {
        self.lines().start(line)
    }

    /// The text of 1-based `line` without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        let lines = self.lines();
        let (start, end) = (lines.start(line), lines.end(&self.text, line));
        self.text
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches('\r')
    }

    pub fn line_count(&self) -> usize {
        self.lines().count()
    }
}

/// The largest file confvet reads, whether found by the walk or named by a
/// flag (`--data-values-file /dev/zero` must not read forever).
pub const MAX_READ_BYTES: u64 = 64 * 1024 * 1024;

/// The files a run reads: the disk, with texts standing in for some of
/// them. `lint --diff` fixes in memory, pass after pass, and every read of a
/// fixed file sees its fixed text; the language server stands each open
/// document's unsaved text in for its file, so every file of a unit is read
/// as the editor holds it. A value handed to each run (through [`Sources`]),
/// not a global: two runs in one process see their own texts. Cheap to clone.
#[derive(Clone, Default)]
pub struct Files {
    /// By normalized absolute path.
    overlay: Arc<HashMap<PathBuf, Arc<[u8]>>>,
}

impl std::fmt::Debug for Files {
    // The paths, not the texts (a Debug of `Sources` would print them all).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.overlay.keys()).finish()
    }
}

impl Files {
    /// The disk, nothing standing in.
    pub fn disk() -> Files {
        Files::default()
    }

    /// Make every later read of `path` (absolute) through this value return
    /// `bytes`; nothing is written.
    pub fn overlay(&mut self, path: &Path, bytes: Vec<u8>) {
        Arc::make_mut(&mut self.overlay).insert(normalize_path(path), bytes.into());
    }

    /// Read these files from disk again.
    pub fn remove_overlay<'a>(&mut self, paths: impl IntoIterator<Item = &'a Path>) {
        let overlay = Arc::make_mut(&mut self.overlay);
        for path in paths {
            overlay.remove(&normalize_path(path));
        }
    }

    /// Whether some text stands in for `path`: its disk stamp says nothing
    /// of its text.
    pub fn is_overlaid(&self, path: &Path) -> bool {
        self.standing_in(path).is_some()
    }

    /// The text standing in for `path`, if any.
    fn standing_in(&self, path: &Path) -> Option<&[u8]> {
        if self.overlay.is_empty() {
            return None;
        }
        self.overlay.get(&*normalized(path)).map(|bytes| &bytes[..])
    }

    /// Whether any text stands in for a file.
    pub fn has_overlay(&self) -> bool {
        !self.overlay.is_empty()
    }

    /// The file's bytes: the text standing in for it, else
    /// [`read_limited`] from disk.
    pub fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        match self.standing_in(path) {
            Some(bytes) => Ok(bytes.to_vec()),
            None => read_limited(path),
        }
    }

    /// `f` of the file's bytes, as [`Files::read`] gives them, without
    /// keeping them: read from disk into room the thread reuses.
    pub fn read_with<R>(&self, path: &Path, f: impl FnOnce(&[u8]) -> R) -> std::io::Result<R> {
        if let Some(bytes) = self.standing_in(path) {
            return Ok(f(bytes));
        }
        READ_ROOM.with(|room| {
            let Ok(mut room) = room.try_borrow_mut() else {
                // Asked again from within `f`: a buffer of its own.
                return read_limited(path).map(|bytes| f(&bytes));
            };
            let read = read_limited_into(path, &mut room).map(|()| f(&room));
            room.clear();
            if room.capacity() > READ_ROOM_KEPT {
                room.shrink_to(READ_ROOM_KEPT);
            }
            read
        })
    }
}

/// Read a file of at most [`MAX_READ_BYTES`]; a longer one is an
/// `InvalidData` error that says so. Only regular files are read: a named
/// pipe, socket or device, and the kernel's `/proc` and `/sys` files (whose
/// text is the process's environment, memory and secrets, though `stat`
/// calls them regular files), are refused with an error naming what they
/// are, wherever their path came from. The file is opened without blocking,
/// so even a pipe is refused at once rather than waited on. This is the
/// disk only: a run reads through its [`Files`] (`Sources::read`).
pub fn read_limited(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    read_limited_into(path, &mut bytes)?;
    Ok(bytes)
}

/// [`read_limited`] into `bytes`, whose room is reused.
fn read_limited_into(path: &Path, bytes: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::Read;
    bytes.clear();
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if let Some(what) = special_file(&file, &meta)? {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{what}, not a file"),
        ));
    }
    // Sized by the file's length (one byte more, to see the end at once):
    // `take` hides the length, and growing by doubling copied each file
    // several times over.
    let expected = meta.len().min(MAX_READ_BYTES) as usize;
    bytes.reserve(expected + 1);
    file.take(MAX_READ_BYTES + 1).read_to_end(bytes)?;
    if bytes.len() as u64 > MAX_READ_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {} MiB", MAX_READ_BYTES / 1024 / 1024),
        ));
    }
    Ok(())
}

thread_local! {
    /// The room [`Files::read_with`] reads into, one per thread: reading
    /// every file of a tree into a fresh buffer of its size made a large
    /// one (a vendored manifest) come from new pages each time, and
    /// faulting them in and unmapping them cost more than the reading.
    static READ_ROOM: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// How much room a thread keeps between reads.
const READ_ROOM_KEPT: usize = 4 * 1024 * 1024;

/// What an open file is when it is not an ordinary file confvet may read:
/// "a named pipe", "a device", "a file of the kernel's /proc file system"...
fn special_file(
    file: &std::fs::File,
    meta: &std::fs::Metadata,
) -> std::io::Result<Option<&'static str>> {
    let kind = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Ok(Some("a named pipe"));
        }
        if kind.is_socket() {
            return Ok(Some("a socket"));
        }
        if kind.is_char_device() || kind.is_block_device() {
            return Ok(Some("a device"));
        }
    }
    if kind.is_dir() {
        return Ok(Some("a directory"));
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use std::os::fd::AsRawFd;
        // By file system, not by path: a link or a bind mount to
        // /proc/self/environ is refused too.
        const PROC: i64 = 0x9fa0;
        const SYSFS: i64 = 0x6265_6572;
        const DEBUGFS: i64 = 0x6462_6720;
        const SECURITYFS: i64 = 0x7363_6673;
        const CGROUP2: i64 = 0x6367_7270;
        let mut stats: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: `stats` is a valid, writable statfs and the descriptor is
        // open for the call's duration.
        if unsafe { libc::fstatfs(file.as_raw_fd(), &mut stats) } == 0 {
            #[allow(clippy::unnecessary_cast)]
            let magic = stats.f_type as i64;
            match magic {
                PROC => return Ok(Some("a file of the kernel's /proc file system")),
                SYSFS | DEBUGFS | SECURITYFS | CGROUP2 => {
                    return Ok(Some("a file of a kernel file system (/sys)"));
                }
                _ => {}
            }
        }
    }
    Ok(None)
}

/// A file's bytes as text: UTF-16 (with a byte-order mark, or ASCII with
/// every other byte zero, as Windows editors write it) decoded; other bytes
/// as UTF-8, invalid sequences replaced, with the offset of the first one.
pub fn decode_text(bytes: Vec<u8>) -> (String, Option<usize>) {
    let bytes = match decode_utf16(&bytes) {
        Some(text) => text.into_bytes(),
        None => bytes,
    };
    match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(err) => {
            let offset = err.utf8_error().valid_up_to();
            (
                String::from_utf8_lossy(err.as_bytes()).into_owned(),
                Some(offset),
            )
        }
    }
}

/// A UTF-16 file (with a byte-order mark, or ASCII text with every other
/// byte zero, as Windows editors write it) as UTF-8 text; None for others.
fn decode_utf16(bytes: &[u8]) -> Option<String> {
    let (little, body) = match bytes {
        [0xff, 0xfe, rest @ ..] => (true, rest),
        [0xfe, 0xff, rest @ ..] => (false, rest),
        [a, 0, b, 0, ..] if *a != 0 && *b != 0 => (true, bytes),
        [0, a, 0, b, ..] if *a != 0 && *b != 0 => (false, bytes),
        _ => return None,
    };
    let units: Vec<u16> = body
        .chunks(2)
        .map(|c| {
            let pair = [c[0], c.get(1).copied().unwrap_or(0)];
            if little {
                u16::from_le_bytes(pair)
            } else {
                u16::from_be_bytes(pair)
            }
        })
        .collect();
    Some(String::from_utf16_lossy(&units))
}

/// Every source of one run. Cheap to share between threads, and to clone
/// (clones share the files: a unit checked on a thread of its own holds one,
/// see `watchdog`); files are added while discovering and parsing, then only
/// read.
#[derive(Debug, Default, Clone)]
pub struct Sources(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    files: RwLock<Vec<Arc<SourceFile>>>,
    /// The project root and the current directory, when the root is known:
    /// fingerprints name files relative to the root, so that a baseline or a
    /// code-scanning alert survives running confvet from another directory.
    root: OnceLock<(PathBuf, PathBuf)>,
    /// A file read from standard input (`lint -`) and the path it stands
    /// for: it replaces that file, which need not exist on disk.
    stdin: OnceLock<(PathBuf, Vec<u8>)>,
    /// Where every other file is read from.
    layer: Files,
    /// The evicted file each thread read last: reports ask for one file
    /// many times in a row (its findings are sorted together), and read it
    /// once; a report made on all cores walks a run of findings per thread.
    recent: std::sync::Mutex<Vec<(std::thread::ThreadId, FileId, Arc<SourceFile>)>>,
}

impl Sources {
    pub fn new() -> Sources {
        Sources::default()
    }

    /// Sources whose files are read through `files` (an overlay of unsaved
    /// or fixed texts on the disk).
    pub fn with_files(files: Files) -> Sources {
        Sources(Arc::new(Shared {
            layer: files,
            ..Shared::default()
        }))
    }

    /// The files this run reads through.
    pub fn files(&self) -> &Files {
        &self.0.layer
    }

    /// Whether the disk stamp of `path` says nothing of the text this run
    /// reads for it (standard input or an overlay stands in for it).
    pub fn stands_in(&self, path: &Path) -> bool {
        self.stdin_path() == Some(path) || self.0.layer.is_overlaid(path)
    }

    /// Stand `bytes`, read from standard input, in for the file at `path`
    /// (absolute): discovery sees it there, and reads it instead of the disk.
    pub fn set_stdin(&self, path: PathBuf, bytes: Vec<u8>) {
        let _ = self.0.stdin.set((normalize_path(&path), bytes));
    }

    /// The path standard input stands in for, if any.
    pub fn stdin_path(&self) -> Option<&Path> {
        self.0.stdin.get().map(|(path, _)| path.as_path())
    }

    /// The bytes of the file at `path`: standard input's where it stands in
    /// for that file, else through the run's [`Files`].
    pub fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        match self.stdin_for(path) {
            Some(bytes) => Ok(bytes.to_vec()),
            None => self.0.layer.read(path),
        }
    }

    /// `f` of the file's bytes, as [`Sources::read`] gives them, without
    /// keeping them (see [`Files::read_with`]).
    pub fn read_with<R>(&self, path: &Path, f: impl FnOnce(&[u8]) -> R) -> std::io::Result<R> {
        match self.stdin_for(path) {
            Some(bytes) => Ok(f(bytes)),
            None => self.0.layer.read_with(path, f),
        }
    }

    /// Standard input's bytes, when they stand in for `path`.
    fn stdin_for(&self, path: &Path) -> Option<&[u8]> {
        match self.0.stdin.get() {
            Some((stdin, bytes)) if stdin == path => Some(bytes),
            _ => None,
        }
    }

    pub fn add(&self, file: SourceFile) -> FileId {
        let mut files = self.0.files.write().unwrap_or_else(|e| e.into_inner());
        // Growing the list under the lock never stops the thread: every
        // other thread would wait on it.
        confvet_watchdog::unchecked(|| files.push(Arc::new(file)));
        FileId((files.len() - 1) as u32)
    }

    /// A file known by its path only: its text is read when asked for.
    pub fn add_unread(&self, name: String, path: PathBuf) -> FileId {
        self.add(SourceFile::unread(name, Some(path)))
    }

    /// The file with its text: read again from disk (and not kept) when it
    /// was evicted.
    pub fn get(&self, id: FileId) -> Arc<SourceFile> {
        let file = {
            let files = self.0.files.read().unwrap_or_else(|e| e.into_inner());
            Arc::clone(&files[id.0 as usize])
        };
        if !file.evicted {
            return file;
        }
        let thread = std::thread::current().id();
        let lock = || self.0.recent.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, _, text)) = lock()
            .iter()
            .find(|(t, last, _)| *t == thread && *last == id)
        {
            return Arc::clone(text);
        }
        let read = self.read_again(&file);
        // A file that could not be read is asked for again next time.
        if !read.text.is_empty() {
            let mut recent = lock();
            recent.retain(|(t, _, _)| *t != thread);
            // Bounded: a server's threads come and go.
            if recent.len() >= 8 {
                recent.remove(0);
            }
            recent.push((thread, id, Arc::clone(&read)));
        }
        read
    }

    /// An evicted file with its text read from disk again.
    fn read_again(&self, file: &SourceFile) -> Arc<SourceFile> {
        let text = file
            .path
            .as_deref()
            .and_then(|path| self.read(path).ok())
            .map(|bytes| decode_text(bytes).0)
            .unwrap_or_default();
        Arc::new(SourceFile::new(file.name.clone(), file.path.clone(), text))
    }

    /// The file's display name, without reading an evicted file again.
    pub fn name(&self, id: FileId) -> String {
        let files = self.0.files.read().unwrap_or_else(|e| e.into_inner());
        files[id.0 as usize].name.clone()
    }

    /// The file's path on disk, without reading an evicted file again.
    pub fn path(&self, id: FileId) -> Option<PathBuf> {
        let files = self.0.files.read().unwrap_or_else(|e| e.into_inner());
        files[id.0 as usize].path.clone()
    }

    /// Drop the texts of these files, which are read from disk: a lint
    /// keeps only the texts its findings show, so memory stays flat as the
    /// tree grows. Files with no path (command-line values) and standard
    /// input stay.
    pub fn evict(&self, ids: impl IntoIterator<Item = FileId>) {
        let stdin = self.stdin_path().map(Path::to_path_buf);
        let mut files = self.0.files.write().unwrap_or_else(|e| e.into_inner());
        for id in ids {
            let Some(slot) = files.get_mut(id.0 as usize) else {
                continue;
            };
            let keep =
                slot.evicted || slot.path.is_none() || slot.path.as_deref() == stdin.as_deref();
            if keep {
                continue;
            }
            // Dropped in place when no one else holds the file: its name and
            // path are not copied.
            if let Some(file) = Arc::get_mut(slot) {
                file.text = String::new();
                file.lines = OnceLock::new();
                file.evicted = true;
            } else {
                *slot = Arc::new(SourceFile::unread(slot.name.clone(), slot.path.clone()));
            }
        }
    }

    /// Read the texts of these evicted files back from disk and keep them
    /// until the next [`Sources::evict`]: a unit loads its files before it is
    /// checked, so its checks do not read a file again at every look.
    pub fn load(&self, ids: impl IntoIterator<Item = FileId>) {
        let wanted: Vec<(FileId, Arc<SourceFile>)> = {
            let files = self.0.files.read().unwrap_or_else(|e| e.into_inner());
            ids.into_iter()
                .filter_map(|id| Some((id, Arc::clone(files.get(id.0 as usize)?))))
                .filter(|(_, file)| file.evicted)
                .collect()
        };
        if wanted.is_empty() {
            return;
        }
        // Read outside the lock: other threads load their own units.
        let loaded: Vec<(FileId, Arc<SourceFile>)> = wanted
            .into_iter()
            .map(|(id, file)| (id, self.read_again(&file)))
            .collect();
        let mut files = self.0.files.write().unwrap_or_else(|e| e.into_inner());
        for (id, file) in loaded {
            if let Some(slot) = files.get_mut(id.0 as usize)
                && slot.evicted
            {
                *slot = file;
            }
        }
    }

    pub fn len(&self) -> usize {
        self.0.files.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Name files relative to `root` (absolute) in [`Sources::stable_name`];
    /// `cwd` is what relative paths on disk are relative to. Set once.
    pub fn set_root(&self, root: PathBuf, cwd: PathBuf) {
        let _ = self.0.root.set((root, cwd));
    }

    /// The file's name for fingerprints: relative to the project root when
    /// one is set and the file is under it, else its display name.
    pub fn stable_name(&self, id: FileId) -> String {
        // Name and path only: an evicted file is not read again for them.
        let file = {
            let files = self.0.files.read().unwrap_or_else(|e| e.into_inner());
            Arc::clone(&files[id.0 as usize])
        };
        let under_root =
            self.0
                .root
                .get()
                .zip(file.path.as_ref())
                .and_then(|((root, cwd), path)| {
                    let absolute = normalize_path(&cwd.join(path));
                    let relative = absolute.strip_prefix(root).ok()?;
                    (!relative.as_os_str().is_empty())
                        .then(|| relative.to_string_lossy().replace('\\', "/"))
                });
        under_root.unwrap_or_else(|| file.name.clone())
    }

    /// Start and end positions of a span.
    pub fn resolve(&self, span: Span) -> (Arc<SourceFile>, LineCol, LineCol) {
        let file = self.get(span.file);
        let start = file.line_col(span.start as usize);
        let end = file.line_col(span.end as usize);
        (file, start, end)
    }
}

/// The file that marks a cache folder (<https://bford.info/cachedir/>):
/// confvet's own is known by it, sealed (see `cache::CacheFolders`).
pub const CACHE_TAG: &str = "CACHEDIR.TAG";

/// A version control system's own directory: it holds nothing to lint.
/// (confvet's cache is known by its tag, see `cache::CacheFolders`, never
/// by its name.)
pub fn is_vcs_dir(name: &std::ffi::OsStr) -> bool {
    [".git", ".hg", ".svn", ".jj"].iter().any(|v| name == *v)
}

/// The name users see for a path: relative to `cwd` when under it, `/` separated.
pub fn display_name(path: &Path, cwd: &Path) -> String {
    let shown = confvet_key::strip_prefix(path, cwd)
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(path);
    let text = shown.to_string_lossy();
    let text = if text.contains('\\') {
        std::borrow::Cow::Owned(text.replace('\\', "/"))
    } else {
        text
    };
    text.strip_prefix("./").unwrap_or(&text).to_string()
}

/// A directory's name as users type it: [`display_name`], but `.` for the
/// current directory itself (not its absolute path, which differs from
/// machine to machine).
pub fn display_dir(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_string(),
        _ => display_name(path, cwd),
    }
}

/// Every file below `dir` (folders walked recursively, unreadable ones
/// skipped), sorted by path.
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Remove `.` and `..` components without touching the file system.
pub fn normalize_path(path: &Path) -> PathBuf {
    normalized(path).into_owned()
}

/// [`normalize_path`], borrowed when the path is normal already, as every
/// path the walk gives is: a lookup by a path then neither copies it nor
/// parses and rebuilds it component by component.
pub fn normalized(path: &Path) -> std::borrow::Cow<'_, Path> {
    if confvet_key::is_plain_absolute(path) {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether `path`, with every symbolic link on the way resolved, is `dir`
/// or below it: the one test of where a link or a named path leads. A path
/// that does not exist resolves as far as it does; a link whose
/// destination does not exist leads nowhere (false).
pub fn resolves_below(path: &Path, dir: &Path) -> bool {
    let Ok(dir) = dir.canonicalize() else {
        return false;
    };
    // The longest part of the path that exists, resolved, then the rest.
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    while existing.symlink_metadata().is_err() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return false,
        }
    }
    let Ok(mut real) = existing.canonicalize() else {
        return false;
    };
    for name in rest.iter().rev() {
        real.push(name);
    }
    normalize_path(&real).starts_with(&dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_directory_is_shown_as_a_dot() {
        let cwd = Path::new("/repo");
        assert_eq!(display_dir(Path::new("/repo"), cwd), ".");
        assert_eq!(display_dir(Path::new("/repo/config"), cwd), "config");
        assert_eq!(display_dir(Path::new("/elsewhere"), cwd), "/elsewhere");
    }

    #[test]
    fn an_evicted_file_is_read_again_when_asked_for_and_not_kept() {
        let dir = std::env::temp_dir().join(format!("confvet-evict-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.yml");
        std::fs::write(&path, "a: 1\nb: \"\u{e9}\"\n").unwrap();
        let sources = Sources::new();
        let text = std::fs::read_to_string(&path).unwrap();
        let on_disk = sources.add(SourceFile::new("a.yml".into(), Some(path.clone()), text));
        let given = sources.add(SourceFile::new(
            "(data-value arg)".into(),
            None,
            "x=1".into(),
        ));
        sources.evict([on_disk, given]);
        // The name and path come without reading.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(sources.name(on_disk), "a.yml");
        assert_eq!(sources.path(on_disk), Some(path.clone()));
        // A file gone from disk reads as empty, never a panic.
        assert_eq!(sources.get(on_disk).text, "");
        std::fs::write(&path, "a: 1\nb: \"\u{e9}\"\n").unwrap();
        let again = sources.get(on_disk);
        assert_eq!(again.line_col(11).line, 2);
        assert_eq!(again.line_text(2), "b: \"\u{e9}\"");
        // A value from the command line has no file to read again: kept.
        assert_eq!(sources.get(given).text, "x=1");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reading_through_reused_room_gives_each_file_its_own_bytes() {
        let dir = std::env::temp_dir().join(format!("confvet-room-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (long, short, standing) = (
            dir.join("long.yml"),
            dir.join("short.yml"),
            dir.join("s.yml"),
        );
        std::fs::write(&long, "a: 1\n".repeat(1000)).unwrap();
        std::fs::write(&short, "b: 2\n").unwrap();
        std::fs::write(&standing, "on disk\n").unwrap();
        let mut files = Files::disk();
        files.overlay(&standing, b"standing in\n".to_vec());
        // A shorter file after a longer one: nothing of the longer is left.
        assert_eq!(files.read_with(&long, <[u8]>::len).unwrap(), 5000);
        assert_eq!(files.read_with(&short, <[u8]>::to_vec).unwrap(), b"b: 2\n");
        // As `read` gives them: the text standing in, and the same errors.
        assert_eq!(
            files.read_with(&standing, <[u8]>::to_vec).unwrap(),
            b"standing in\n"
        );
        assert!(files.read_with(&dir.join("gone.yml"), <[u8]>::len).is_err());
        assert!(files.read_with(&dir, <[u8]>::len).is_err());
        // Asked again from within: each read its own.
        let nested = files.read_with(&short, |outer| {
            let inner = files.read_with(&long, <[u8]>::len).unwrap();
            (outer.to_vec(), inner)
        });
        assert_eq!(nested.unwrap(), (b"b: 2\n".to_vec(), 5000));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_line_index_maps_offsets_to_lines_both_ways() {
        let text = "a: 1\r\nné: \u{1F600}x\nlast";
        let index = LineIndex::new(text);
        assert_eq!(index.count(), 3);
        assert_eq!((index.line(0), index.line(5), index.line(6)), (1, 1, 2));
        assert_eq!(
            (index.start(2), index.end(text, 1)),
            (6, 5),
            "`\\r` on line 1"
        );
        assert_eq!((index.start(9), index.end(text, 9)), (17, text.len()));
        let x = text.find('x').unwrap();
        assert_eq!(index.line_col(text, x), LineCol { line: 2, column: 6 });
        assert_eq!(
            index.utf16_position(text, x),
            (1, 6),
            "the emoji is 2 units"
        );
        assert_eq!(
            index.utf16_position(text, x - 1),
            (1, 4),
            "inside the emoji"
        );
        assert_eq!(index.utf16_offset(text, 1, 6), x);
        assert_eq!(index.utf16_offset(text, 0, 99), 5, "clamped to the line");
    }

    #[test]
    fn line_col_counts_characters_from_one() {
        let file = SourceFile::new("a.yml".into(), None, "a: 1\nbé: 2\n".into());
        assert_eq!(file.line_col(0), LineCol { line: 1, column: 1 });
        assert_eq!(file.line_col(5), LineCol { line: 2, column: 1 });
        // 'é' is two bytes but one column.
        assert_eq!(file.line_col(9), LineCol { line: 2, column: 4 });
        assert_eq!(file.line_text(2), "bé: 2");
        assert_eq!(file.line_col(1000).line, 3);
    }

    #[test]
    fn stable_names_are_relative_to_the_root_whatever_the_cwd() {
        let sources = Sources::new();
        let inside = sources.add(SourceFile::new(
            "b.yml".into(),
            Some(PathBuf::from("b.yml")),
            String::new(),
        ));
        let outside = sources.add(SourceFile::new(
            "/other/c.yml".into(),
            Some(PathBuf::from("/other/c.yml")),
            String::new(),
        ));
        assert_eq!(sources.stable_name(inside), "b.yml");
        sources.set_root(PathBuf::from("/repo"), PathBuf::from("/repo/a"));
        assert_eq!(sources.stable_name(inside), "a/b.yml");
        assert_eq!(sources.stable_name(outside), "/other/c.yml");
    }

    #[test]
    fn normalize_path_drops_dot_components_and_climbs_parents() {
        for (path, normal) in [
            ("/repo/a/b.yml", "/repo/a/b.yml"),
            ("/repo/./a/../b.yml", "/repo/b.yml"),
            ("/repo//a/", "/repo/a"),
            ("/repo/a/..", "/repo"),
            ("/", "/"),
            ("a/./b", "a/b"),
        ] {
            assert_eq!(normalize_path(Path::new(path)), Path::new(normal), "{path}");
            assert_eq!(
                normalize_path(Path::new(path)).as_os_str(),
                Path::new(normal).as_os_str(),
                "{path}: spelled as the components give it"
            );
        }
    }

    #[test]
    fn display_name_is_relative_to_cwd() {
        let cwd = Path::new("/repo");
        assert_eq!(display_name(Path::new("/repo/a/b.yml"), cwd), "a/b.yml");
        assert_eq!(display_name(Path::new("/other/b.yml"), cwd), "/other/b.yml");
        assert_eq!(display_name(Path::new("./b.yml"), Path::new("/x")), "b.yml");
        // Spellings the byte-wise shortcut leaves to `Path::strip_prefix`.
        assert_eq!(
            display_name(Path::new("/repo//a/./b.yml"), cwd),
            "a/./b.yml"
        );
        assert_eq!(
            display_name(Path::new("/repo/a.yml"), Path::new("/repo/")),
            "a.yml"
        );
        assert_eq!(
            display_name(Path::new("/repository/a.yml"), cwd),
            "/repository/a.yml"
        );
        assert_eq!(display_name(Path::new("/repo"), cwd), "/repo");
    }
}
