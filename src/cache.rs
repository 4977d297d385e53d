//! The on-disk cache of what the cheap scan and the link readers learn of
//! each file, keyed by its size and modification time: a pre-commit run on a
//! few files of a large repository needs every other file's role (ytt, Tekton,
//! KubeVirt) and names (the Tasks a file declares, the template a VM names)
//! to find their context, and reads none of the unchanged files to get them.
//!
//! It lives in `.confvet-cache/` of the current directory (or
//! `CONFVET_CACHE_DIR`), holds a `.gitignore` so that git never sees it, and
//! is safe to delete. A cache that cannot be read or was written by another
//! version is ignored; one that cannot be written is left as it was.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Bumped whenever what is cached, or how it is read, changes.
const FORMAT: u32 = 2;
const INDEX: &str = "index.json";

/// What identifies one version of a file: an edit changes its size or its
/// modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub size: u64,
    pub modified_secs: i64,
    pub modified_nanos: u32,
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Option<Stamp> {
        let modified = meta.modified().ok()?;
        let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
        Some(Stamp {
            size: meta.len(),
            modified_secs: i64::try_from(since.as_secs()).ok()?,
            modified_nanos: since.subsec_nanos(),
        })
    }
}

/// What the scan of a file found (see `discover`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanRecord {
    /// `ytt`, `kubevirt` or `tekton`, or none.
    pub system: Option<String>,
    pub has_schema: bool,
    pub has_values: bool,
    #[serde(default)]
    pub has_overlay: bool,
    pub is_carvel_package: bool,
    pub is_crd: bool,
    pub is_manifest: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub crd_groups: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    stamp: Stamp,
    scan: ScanRecord,
    /// A system's links of the file (`check::components`), once read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    links: Option<serde_json::Value>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Index {
    format: u32,
    version: String,
    entries: HashMap<PathBuf, Entry>,
}

/// The cache of one run: what the last run left, and what this run saw.
#[derive(Debug)]
pub struct Cache {
    dir: PathBuf,
    /// False when the directory or its index is a symbolic link: a
    /// repository could point it anywhere, and the cache never writes
    /// outside the directory it names.
    usable: bool,
    old: HashMap<PathBuf, Entry>,
    seen: Mutex<HashMap<PathBuf, Entry>>,
    /// This run learnt something the cache did not hold.
    learnt: std::sync::atomic::AtomicBool,
}

impl Cache {
    /// The cache in `dir`; empty when there is none or it cannot be read.
    pub fn open(dir: &Path) -> Cache {
        let usable = !is_link(dir) && !is_link(&dir.join(INDEX));
        let old = usable
            .then(|| crate::source::read_limited(&dir.join(INDEX)).ok())
            .flatten()
            .and_then(|bytes| serde_json::from_slice::<Index>(&bytes).ok())
            .filter(|index| index.format == FORMAT && index.version == env!("CARGO_PKG_VERSION"))
            .map(|index| index.entries)
            .unwrap_or_default();
        Cache {
            dir: dir.to_path_buf(),
            usable,
            old,
            seen: Mutex::new(HashMap::new()),
            learnt: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The scan of `path` as it was at `stamp`, if the cache holds it.
    pub fn scan(&self, path: &Path, stamp: Stamp) -> Option<ScanRecord> {
        let entry = self.old.get(path).filter(|e| e.stamp == stamp)?.clone();
        let scan = entry.scan.clone();
        self.lock().insert(path.to_path_buf(), entry);
        Some(scan)
    }

    /// Remember the scan of `path` at `stamp`.
    pub fn record_scan(&self, path: &Path, stamp: Stamp, scan: ScanRecord) {
        let entry = Entry {
            stamp,
            scan,
            links: None,
        };
        self.lock().insert(path.to_path_buf(), entry);
        self.learn();
    }

    /// The links of `path` at `stamp`, if this run's entry holds them.
    pub fn links<L: DeserializeOwned>(&self, path: &Path, stamp: Stamp) -> Option<L> {
        let seen = self.lock();
        let entry = seen.get(path).filter(|e| e.stamp == stamp)?;
        serde_json::from_value(entry.links.clone()?).ok()
    }

    /// Remember the links of `path` at `stamp` (with its scan, recorded first).
    pub fn record_links<L: Serialize>(&self, path: &Path, stamp: Stamp, links: &L) {
        let mut seen = self.lock();
        if let Some(entry) = seen.get_mut(path).filter(|e| e.stamp == stamp) {
            entry.links = serde_json::to_value(links).ok();
            self.learn();
        }
    }

    /// Write what this run saw (files no longer there drop out). Best
    /// effort: a cache that cannot be written costs only time.
    pub fn save(self) {
        let entries = self.seen.into_inner().unwrap_or_else(|e| e.into_inner());
        // Unchanged, and no file gone: nothing to write.
        if !self.usable || (!self.learnt.into_inner() && entries.len() == self.old.len()) {
            return;
        }
        let index = Index {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            entries,
        };
        let _ = write_index(&self.dir, &index);
    }

    fn learn(&self) {
        self.learnt
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Entry>> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Create `path` and write `bytes`; never through an existing file or link.
fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(bytes)
}

fn write_index(dir: &Path, index: &Index) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    if is_link(dir) {
        return Ok(());
    }
    let ignore = dir.join(".gitignore");
    if std::fs::symlink_metadata(&ignore).is_err() {
        write_new(&ignore, b"# Written by confvet: safe to delete.\n*\n")?;
    }
    // Written aside, then renamed (which replaces a link, never follows
    // it): a run reading at the same time sees the old index or the new
    // one, never half of one.
    let partial = dir.join(format!("{INDEX}.{}", std::process::id()));
    let _ = std::fs::remove_file(&partial);
    write_new(&partial, &serde_json::to_vec(index)?)?;
    std::fs::rename(&partial, dir.join(INDEX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(size: u64) -> Stamp {
        Stamp {
            size,
            modified_secs: 1,
            modified_nanos: 2,
        }
    }

    #[test]
    fn a_saved_entry_is_found_again_only_for_the_same_stamp() {
        let dir = std::env::temp_dir().join(format!("confvet-cache-{}", std::process::id()));
        let path = Path::new("/repo/task.yaml");
        let scan = ScanRecord {
            system: Some("tekton".into()),
            has_schema: false,
            has_values: false,
            has_overlay: false,
            is_carvel_package: false,
            is_crd: false,
            is_manifest: false,
            crd_groups: Vec::new(),
        };
        let cache = Cache::open(&dir);
        assert_eq!(cache.scan(path, stamp(10)), None);
        cache.record_scan(path, stamp(10), scan.clone());
        cache.record_links(path, stamp(10), &vec!["build".to_string()]);
        cache.save();
        assert!(
            std::fs::read_to_string(dir.join(".gitignore"))
                .unwrap()
                .contains('*')
        );

        let again = Cache::open(&dir);
        assert_eq!(again.scan(path, stamp(11)), None, "an edited file is read");
        assert_eq!(again.scan(path, stamp(10)), Some(scan));
        let links: Option<Vec<String>> = again.links(path, stamp(10));
        assert_eq!(links, Some(vec!["build".to_string()]));
        std::fs::write(dir.join(INDEX), "not json").unwrap();
        assert_eq!(Cache::open(&dir).scan(path, stamp(10)), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_cache_directory_that_is_a_link_is_neither_read_nor_written() {
        let base = std::env::temp_dir().join(format!("confvet-cache-link-{}", std::process::id()));
        let elsewhere = base.join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let dir = base.join(".confvet-cache");
        std::os::unix::fs::symlink(&elsewhere, &dir).unwrap();
        let cache = Cache::open(&dir);
        let scan = ScanRecord {
            system: None,
            has_schema: false,
            has_values: false,
            has_overlay: false,
            is_carvel_package: false,
            is_crd: false,
            is_manifest: false,
            crd_groups: Vec::new(),
        };
        cache.record_scan(Path::new("/repo/a.yml"), stamp(1), scan);
        cache.save();
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
