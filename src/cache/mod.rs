//! The on-disk cache: what each file holds (its content hash, and what the
//! cheap scan and the link readers learn of it), and each unit's findings
//! (`results`, keyed by the hashes of everything the unit read).
//!
//! A file's entry is found by its size and modification time, a first cheap
//! check; when those differ (an edit, or a fresh checkout that gave every
//! file a new time) the file is read and hashed again, and its content hash
//! is what decides whether a unit's results still hold. So a run reads none
//! of the unchanged files to learn their roles (ytt, Tekton, KubeVirt) and
//! names, and a cache restored into a new clone still serves.
//!
//! It lives in `.confvet-cache/` of the current directory (or
//! `CONFVET_CACHE_DIR`), holds a `.gitignore` so that git never sees it, and
//! is safe to delete. A cache that cannot be read or was written by another
//! version is ignored; one that cannot be written is left as it was.

mod disk;
pub mod results;
pub mod trust;

use disk::{is_link, replace_file};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
pub use trust::{CacheFolders, CacheLocation, Trust};

/// Bumped whenever what is cached, or how it is read, changes.
const FORMAT: u32 = 6;

/// The build a cache was written by: the version and a hash of the source
/// (`build.rs`). Another build's cache is ignored, so a development build
/// never reuses the findings of an older one of the same version.
pub const BUILD: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("CONFVET_SOURCE_HASH"));
/// The index's groupings (`groups`, `units`); its entries, one per file,
/// are in [`SHARDS`] files of their own (`index-00.json` ...), so that a
/// run that learnt about a few files rewrites a few shards, not one entry
/// per file of the tree (5 MB for 19,000 files).
const INDEX: &str = "index.json";
/// How many files the index's entries are spread over, by a hash of the
/// file's path.
const SHARDS: usize = 64;

/// The file of shard `shard` of the index's entries.
fn shard_name(shard: usize) -> String {
    format!("index-{shard:02x}.json")
}

/// The shard of the index that holds `path`'s entry: FNV-1a of its bytes,
/// the same on every machine and in every run.
fn shard_of(path: &Path) -> usize {
    let mut hash = crate::finding::Fnv64::new();
    hash.write_bytes(path.as_os_str().as_encoded_bytes());
    (hash.0 % SHARDS as u64) as usize
}

/// What identifies one version of a file, by git's rule: its size, its
/// modification and change times, and its inode. A modification time
/// alone can lie (`cp -p`, `touch -r`, `rsync -a` and `tar -x` put an old
/// one back on new content); the change time cannot be set back, and a
/// file replaced by a rename gets another inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
// Short names on disk: the index of a large tree holds one entry per file,
// and every run reads it (and a run that learnt something writes it).
pub struct Stamp {
    #[serde(rename = "n")]
    pub size: u64,
    #[serde(rename = "s")]
    pub modified_secs: i64,
    #[serde(rename = "ns")]
    pub modified_nanos: u32,
    #[serde(rename = "c")]
    pub changed_secs: i64,
    #[serde(rename = "cn")]
    pub changed_nanos: u32,
    #[serde(rename = "i")]
    pub inode: u64,
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Option<Stamp> {
        let modified = meta.modified().ok()?;
        let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
        let (changed_secs, changed_nanos, inode) = changed_and_inode(meta);
        Some(Stamp {
            size: meta.len(),
            modified_secs: i64::try_from(since.as_secs()).ok()?,
            modified_nanos: since.subsec_nanos(),
            changed_secs,
            changed_nanos,
            inode,
        })
    }

    /// The stamp of an entry whose file was racily clean: no file has it.
    pub const RACY: Stamp = Stamp {
        size: u64::MAX,
        modified_secs: i64::MIN,
        modified_nanos: 0,
        changed_secs: i64::MIN,
        changed_nanos: 0,
        inode: 0,
    };

    /// Whether the file may still change within the same time tick as its
    /// stamp was taken at `now` (git's "racily clean" entries): a stamp
    /// taken less than two seconds after the file's last change (the
    /// coarsest timestamps file systems keep) does not vouch for its
    /// content, and the file is hashed again next time.
    pub fn is_racy(&self, now: std::time::SystemTime) -> bool {
        let Ok(now) = now.duration_since(std::time::UNIX_EPOCH) else {
            return true;
        };
        let now = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
        self.modified_secs.max(self.changed_secs) >= now.saturating_sub(2)
    }
}

#[cfg(unix)]
fn changed_and_inode(meta: &std::fs::Metadata) -> (i64, u32, u64) {
    use std::os::unix::fs::MetadataExt;
    let nanos = u32::try_from(meta.ctime_nsec()).unwrap_or(0);
    (meta.ctime(), nanos, meta.ino())
}

// Elsewhere the change time and inode are not to be had from std: the
// size and modification time decide alone, as they did.
#[cfg(not(unix))]
fn changed_and_inode(_: &std::fs::Metadata) -> (i64, u32, u64) {
    (0, 0, 0)
}

/// A file's content hash, and the keys units are kept under: the crate
/// `confvet-key` (crates/key), below every layer whose settings go into a
/// key.
pub use confvet_key::{Digest, Key, KeyHasher};

/// What the scan of a file found (see `discover`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanRecord {
    /// `ytt`, `kubevirt` or `tekton`, or none.
    #[serde(default, rename = "sys", skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    #[serde(default, rename = "sch", skip_serializing_if = "is_false")]
    pub has_schema: bool,
    #[serde(default, rename = "val", skip_serializing_if = "is_false")]
    pub has_values: bool,
    #[serde(default, rename = "ovl", skip_serializing_if = "is_false")]
    pub has_overlay: bool,
    #[serde(default, rename = "pkg", skip_serializing_if = "is_false")]
    pub is_carvel_package: bool,
    #[serde(default, rename = "crd", skip_serializing_if = "is_false")]
    pub is_crd: bool,
    #[serde(default, rename = "man", skip_serializing_if = "is_false")]
    pub is_manifest: bool,
    #[serde(default, rename = "grp", skip_serializing_if = "Vec::is_empty")]
    pub crd_groups: Vec<String>,
    /// The text holds a suppression comment's marker: only such files are
    /// read again to apply suppressions.
    #[serde(default, rename = "sup", skip_serializing_if = "is_false")]
    pub has_suppression: bool,
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    #[serde(rename = "t")]
    stamp: Stamp,
    /// The content's hash, once read.
    #[serde(default, rename = "h", skip_serializing_if = "Option::is_none")]
    hash: Option<Digest>,
    /// What the scan found, for a YAML file the walk classified.
    #[serde(default, rename = "c", skip_serializing_if = "Option::is_none")]
    scan: Option<ScanRecord>,
    /// A system's links of the file (`check::components`), once read; kept
    /// as JSON text, read only for the files whose links are asked for.
    #[serde(default, rename = "l", skip_serializing_if = "Option::is_none")]
    links: Option<Box<serde_json::value::RawValue>>,
    /// This run saw the file: only such entries are written back.
    #[serde(skip)]
    seen: bool,
}

/// The index's own file: the groupings.
#[derive(Debug, Serialize, Deserialize)]
struct Index {
    format: u32,
    version: String,
    /// How the files of a KubeVirt or Tekton unit split into groups (see
    /// `check::components`), by the digest of the unit's files (paths and
    /// contents) and the repositories they sit in.
    #[serde(default)]
    groups: HashMap<Digest, Vec<Vec<u32>>>,
    /// How a walked root's files were grouped into units, by the digest of
    /// everything grouping reads (see `discover`).
    #[serde(default)]
    units: HashMap<Digest, Vec<StoredUnit>>,
}

/// One shard of the index's entries.
#[derive(Debug, Serialize, Deserialize)]
struct Shard {
    format: u32,
    version: String,
    #[serde(with = "path_keys")]
    entries: EntryMap,
}

/// Entries by their file's path, as bytes: `Path`'s own hash and equality
/// parse the path into components on every call, which was a tenth of a
/// pre-commit run. The walk gives each file one spelling, and the shard is
/// chosen by the same bytes, so a lookup by bytes finds what one by
/// components would.
type EntryMap = HashMap<OsString, Entry>;

/// The entries on disk: a JSON object keyed by path, as a `PathBuf`-keyed
/// map is written (a path that is not UTF-8 cannot be, and its shard is
/// not written).
mod path_keys {
    use super::{Entry, EntryMap};
    use serde::de::{Deserializer, MapAccess, Visitor};
    use serde::ser::Serializer;
    use std::path::{Path, PathBuf};

    pub fn serialize<S: Serializer>(entries: &EntryMap, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(entries.iter().map(|(path, entry)| (Path::new(path), entry)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<EntryMap, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = EntryMap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of paths to entries")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EntryMap, A::Error> {
                let mut entries = EntryMap::with_capacity(map.size_hint().unwrap_or(0));
                while let Some((path, entry)) = map.next_entry::<PathBuf, Entry>()? {
                    entries.insert(path.into_os_string(), entry);
                }
                Ok(entries)
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

/// The entries of one shard: what the last run left and what this run
/// saw, in one map (an entry is marked when seen), so that the index of a
/// large tree is held in one table, not in one for each.
#[derive(Debug, Default)]
struct EntryShard {
    entries: EntryMap,
    /// How many entries the last run left.
    old_len: usize,
    /// How many entries this run saw.
    seen: usize,
    /// This run learnt something of a file of the shard.
    learnt: bool,
}

/// A unit as grouping made it: files as indices into the root's files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredUnit {
    pub system: String,
    pub root: PathBuf,
    pub key: PathBuf,
    pub files: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_files: Vec<PathBuf>,
}

/// Groups of a unit's files, as indices into its files.
pub type Groups = Vec<Vec<usize>>;

/// The cache of one run: what the last run left, and what this run saw.
#[derive(Debug)]
pub struct Cache {
    location: CacheLocation,
    /// False when the directory is a symbolic link: a repository could
    /// point it anywhere, and the cache never writes outside the directory
    /// it names. (A file of it that is a link is not read, and is replaced,
    /// not written through.)
    usable: bool,
    /// The entries, by shard; a lock each, so that the files read on all
    /// cores seldom wait for one another.
    shards: Vec<Mutex<EntryShard>>,
    old_groups: HashMap<Digest, Vec<Vec<u32>>>,
    /// The groups this run used or found.
    groups: Mutex<HashMap<Digest, Vec<Vec<u32>>>>,
    old_units: HashMap<Digest, Vec<StoredUnit>>,
    /// The groupings this run used or made.
    units: Mutex<HashMap<Digest, Vec<StoredUnit>>>,
    /// This run made or dropped a grouping the cache did not hold.
    learnt_groupings: std::sync::atomic::AtomicBool,
}

impl Cache {
    /// The cache at `location`; empty when there is none, it cannot be
    /// read, or it is not to be believed (see `trust`).
    pub fn open(location: &CacheLocation) -> Cache {
        use rayon::prelude::*;
        let dir = &location.dir;
        let usable = !is_link(dir);
        let read = |name: &str| {
            (usable && !is_link(&dir.join(name)))
                .then(|| crate::source::read_limited(&dir.join(name)).ok())
                .flatten()
        };
        let index = read(INDEX)
            .and_then(|bytes| {
                let body = location.open(INDEX, &bytes)?;
                serde_json::from_slice::<Index>(body).ok()
            })
            .filter(|index| index.format == FORMAT && index.version == BUILD);
        let (old_groups, old_units) = index
            .map(|index| (index.groups, index.units))
            .unwrap_or_default();
        // Each shard stands alone: one that cannot be read or was written by
        // another build holds nothing, and is written whole.
        let shards = (0..SHARDS)
            .into_par_iter()
            .map(|shard| {
                let name = shard_name(shard);
                let old = read(&name)
                    .and_then(|bytes| {
                        let body = location.open(&name, &bytes)?;
                        serde_json::from_slice::<Shard>(body).ok()
                    })
                    .filter(|s| s.format == FORMAT && s.version == BUILD)
                    .map(|s| s.entries)
                    .unwrap_or_default();
                Mutex::new(EntryShard {
                    old_len: old.len(),
                    seen: 0,
                    entries: old,
                    learnt: false,
                })
            })
            .collect();
        Cache {
            location: location.clone(),
            usable,
            shards,
            old_groups,
            groups: Mutex::new(HashMap::new()),
            old_units,
            units: Mutex::new(HashMap::new()),
            learnt_groupings: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The scan of `path` as it was at `stamp`, if the cache holds it.
    pub fn scan(&self, path: &Path, stamp: Stamp) -> Option<ScanRecord> {
        let mut shard = self.shard(path);
        let entry = shard.see_old(path, |e| e.stamp == stamp && e.scan.is_some())?;
        entry.scan.clone()
    }

    /// The scan of `path`, whose content at `stamp` hashes to `hash`, when
    /// the last run scanned the same content there under another stamp (a
    /// fresh checkout or a restored cache gives every file a new time);
    /// its entry moves to `stamp`, links and all.
    pub fn scan_of_same_content(
        &self,
        path: &Path,
        stamp: Stamp,
        hash: Digest,
    ) -> Option<ScanRecord> {
        let mut shard = self.shard(path);
        let entry = shard.see_old(path, |e| e.hash == Some(hash) && e.scan.is_some())?;
        entry.stamp = stamp;
        let scan = entry.scan.clone();
        shard.learnt = true;
        scan
    }

    /// Whether the last run left a scan of `path` this run has not taken:
    /// the file changed its stamp since, and may hold the same content.
    pub fn has_earlier_scan(&self, path: &Path) -> bool {
        let shard = self.shard(path);
        (shard.entries.get(path.as_os_str()))
            .is_some_and(|e| !e.seen && e.hash.is_some() && e.scan.is_some())
    }

    /// Remember the scan of `path` at `stamp`, whose content hashes to `hash`.
    pub fn record_scan(&self, path: &Path, stamp: Stamp, hash: Digest, scan: ScanRecord) {
        // The same content seen before under another time (a fresh
        // checkout): its links stay good.
        let mut shard = self.shard(path);
        let links = shard
            .see_old(path, |e| {
                e.hash == Some(hash) && e.scan.as_ref() == Some(&scan)
            })
            .and_then(|e| e.links.take());
        let entry = Entry {
            stamp,
            hash: Some(hash),
            scan: Some(scan),
            links,
            seen: true,
        };
        shard.see(path, entry);
        shard.learnt = true;
    }

    /// The content hash of the file at `path` (None when it cannot be
    /// read): from this run's entry, else the last run's when its size and
    /// time are the same, else read and hashed now. The disk's, as its
    /// stamp is: a run with texts standing in for files uses no cache.
    pub fn hash(&self, path: &Path) -> Option<Digest> {
        if let Some(hash) = self.shard(path).seen(path).and_then(|e| e.hash) {
            return Some(hash);
        }
        let stamp = std::fs::metadata(path).ok().as_ref().and_then(Stamp::of)?;
        if let Some(entry) = self
            .shard(path)
            .see_old(path, |e| e.stamp == stamp && e.hash.is_some())
        {
            return entry.hash;
        }
        // Read and hashed without the shard's lock held.
        let hash = Digest::of(&crate::source::read_limited(path).ok()?);
        let mut shard = self.shard(path);
        match shard.seen_mut(path) {
            Some(entry) if entry.stamp == stamp => entry.hash = Some(hash),
            Some(_) => {}
            None => shard.see(
                path,
                Entry {
                    stamp,
                    hash: Some(hash),
                    scan: None,
                    links: None,
                    seen: true,
                },
            ),
        }
        shard.learnt = true;
        Some(hash)
    }

    /// The links of `path` at `stamp`, if this run's entry holds them.
    pub fn links<L: DeserializeOwned>(&self, path: &Path, stamp: Stamp) -> Option<L> {
        let shard = self.shard(path);
        let entry = shard.seen(path).filter(|e| e.stamp == stamp)?;
        serde_json::from_str(entry.links.as_ref()?.get()).ok()
    }

    /// Remember the links of `path` at `stamp` (with its scan, recorded first).
    pub fn record_links<L: Serialize>(&self, path: &Path, stamp: Stamp, links: &L) {
        let mut shard = self.shard(path);
        if let Some(entry) = shard.seen_mut(path).filter(|e| e.stamp == stamp) {
            entry.links = serde_json::value::to_raw_value(links).ok();
            shard.learnt = true;
        }
    }

    /// Write what this run saw (files no longer there drop out): the
    /// shards that changed, and the groupings when they did. Best effort:
    /// a cache that cannot be written costs only time.
    pub fn save(self) {
        use rayon::prelude::*;
        if !self.usable {
            return;
        }
        // Unchanged, and no file of it gone: a shard is not written.
        let changed: Vec<(usize, EntryShard)> = self
            .shards
            .into_iter()
            .map(|shard| shard.into_inner().unwrap_or_else(|e| e.into_inner()))
            .enumerate()
            .filter(|(_, shard)| shard.learnt || shard.seen != shard.old_len)
            .collect();
        let groups = self.groups.into_inner().unwrap_or_else(|e| e.into_inner());
        let units = self.units.into_inner().unwrap_or_else(|e| e.into_inner());
        // Groupings no run used since are dropped when the index is written.
        let groupings_changed = self.learnt_groupings.into_inner()
            || groups.len() != self.old_groups.len()
            || units.len() != self.old_units.len();
        let location = &self.location;
        if (changed.is_empty() && !groupings_changed) || location.prepare().is_err() {
            return;
        }
        // A file changed within the tick its stamp was taken in may change
        // again unseen: its entry keeps the hash, not the stamp.
        let now = std::time::SystemTime::now();
        changed.into_par_iter().for_each(|(index, shard)| {
            let entries = shard
                .entries
                .into_iter()
                .filter(|(_, entry)| entry.seen)
                .map(|(path, mut entry)| {
                    if entry.stamp.is_racy(now) {
                        entry.stamp = Stamp::RACY;
                    }
                    (path, entry)
                })
                .collect();
            let shard = Shard {
                format: FORMAT,
                version: BUILD.to_string(),
                entries,
            };
            if let Ok(body) = serde_json::to_vec(&shard) {
                let _ = write_prepared(location, &shard_name(index), &body);
            }
        });
        if groupings_changed {
            let index = Index {
                format: FORMAT,
                version: BUILD.to_string(),
                groups,
                units,
            };
            if let Ok(body) = serde_json::to_vec(&index) {
                let _ = write_prepared(location, INDEX, &body);
            }
        }
    }

    /// The groups of the unit whose files hash to `key`, as the last run
    /// found them.
    pub fn groups(&self, key: &Digest) -> Option<Groups> {
        let found = self.old_groups.get(key)?;
        lock(&self.groups).insert(*key, found.clone());
        Some(
            found
                .iter()
                .map(|g| g.iter().map(|&i| i as usize).collect())
                .collect(),
        )
    }

    /// Remember the groups of the unit whose files hash to `key`.
    pub fn record_groups(&self, key: Digest, groups: &Groups) {
        let stored = groups
            .iter()
            .map(|g| g.iter().filter_map(|&i| u32::try_from(i).ok()).collect())
            .collect();
        lock(&self.groups).insert(key, stored);
        self.learn_groupings();
    }

    /// The units of the walked root whose grouping inputs hash to `key`.
    pub fn units(&self, key: &Digest) -> Option<Vec<StoredUnit>> {
        let found = self.old_units.get(key)?;
        lock(&self.units).insert(*key, found.clone());
        Some(found.clone())
    }

    /// Remember the units of the walked root whose grouping inputs hash to
    /// `key`.
    pub fn record_units(&self, key: Digest, units: Vec<StoredUnit>) {
        lock(&self.units).insert(key, units);
        self.learn_groupings();
    }

    fn learn_groupings(&self) {
        self.learnt_groupings
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The shard holding `path`'s entry, locked.
    fn shard(&self, path: &Path) -> std::sync::MutexGuard<'_, EntryShard> {
        lock(&self.shards[shard_of(path)])
    }
}

impl EntryShard {
    /// The last run's entry of `path`, marked seen by this run, when
    /// `wanted` says so.
    fn see_old(&mut self, path: &Path, wanted: impl Fn(&Entry) -> bool) -> Option<&mut Entry> {
        let entry = self.entries.get_mut(path.as_os_str())?;
        if entry.seen || !wanted(entry) {
            return None;
        }
        entry.seen = true;
        self.seen += 1;
        Some(entry)
    }

    /// This run's entry of `path`.
    fn seen(&self, path: &Path) -> Option<&Entry> {
        self.entries.get(path.as_os_str()).filter(|e| e.seen)
    }

    /// This run's entry of `path`, to change.
    fn seen_mut(&mut self, path: &Path) -> Option<&mut Entry> {
        self.entries.get_mut(path.as_os_str()).filter(|e| e.seen)
    }

    /// Make `entry` this run's entry of `path`, in place of any other.
    fn see(&mut self, path: &Path, entry: Entry) {
        let before = self.entries.insert(path.as_os_str().to_owned(), entry);
        if !before.is_some_and(|e| e.seen) {
            self.seen += 1;
        }
    }
}

/// A lock that a panic elsewhere does not poison for good: what the cache
/// holds is a value, never left half-changed.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Write `body`, sealed, as the file `name` of the cache folder, made
/// ready first (see [`CacheLocation::prepare`]).
fn write_sealed(location: &CacheLocation, name: &str, body: &[u8]) -> std::io::Result<()> {
    location.prepare()?;
    write_prepared(location, name, body)
}

/// Write `body`, sealed, as the file `name` of a cache folder made ready
/// (files of it are written at once: preparing it is not).
fn write_prepared(location: &CacheLocation, name: &str, body: &[u8]) -> std::io::Result<()> {
    replace_file(&location.dir, name, &location.seal(name, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(size: u64) -> Stamp {
        Stamp {
            size,
            modified_secs: 1,
            modified_nanos: 2,
            changed_secs: 1,
            changed_nanos: 2,
            inode: 3,
        }
    }

    #[test]
    fn a_saved_entry_is_found_again_only_for_the_same_stamp() {
        let dir = std::env::temp_dir().join(format!("confvet-cache-{}", std::process::id()));
        let path = Path::new("/repo/task.yaml");
        let scan = ScanRecord {
            system: Some("tekton".into()),
            ..ScanRecord::default()
        };
        let cache = Cache::open(&CacheLocation::named(dir.clone()));
        assert_eq!(cache.scan(path, stamp(10)), None);
        cache.record_scan(path, stamp(10), Digest::of(b"task"), scan.clone());
        cache.record_links(path, stamp(10), &vec!["build".to_string()]);
        cache.save();
        assert!(
            std::fs::read_to_string(dir.join(".gitignore"))
                .unwrap()
                .contains('*')
        );

        let again = Cache::open(&CacheLocation::named(dir.clone()));
        assert_eq!(again.scan(path, stamp(11)), None, "an edited file is read");
        assert_eq!(again.scan(path, stamp(10)), Some(scan));
        let links: Option<Vec<String>> = again.links(path, stamp(10));
        assert_eq!(links, Some(vec!["build".to_string()]));
        std::fs::write(dir.join(shard_name(shard_of(path))), "not json").unwrap();
        assert_eq!(
            Cache::open(&CacheLocation::named(dir.clone())).scan(path, stamp(10)),
            None
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_changed_in_the_tick_its_stamp_was_taken_is_hashed_again() {
        let now = std::time::SystemTime::now();
        let secs = now.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
        let racy = Stamp {
            changed_secs: secs,
            ..stamp(10)
        };
        assert!(racy.is_racy(now));
        assert!(!stamp(10).is_racy(now));
        let dir = std::env::temp_dir().join(format!("confvet-cache-racy-{}", std::process::id()));
        let path = Path::new("/repo/task.yaml");
        let cache = Cache::open(&CacheLocation::named(dir.clone()));
        let scan = ScanRecord::default();
        cache.record_scan(path, racy, Digest::of(b"a"), scan.clone());
        cache.record_scan(
            Path::new("/repo/old.yaml"),
            stamp(10),
            Digest::of(b"b"),
            scan.clone(),
        );
        cache.save();
        let again = Cache::open(&CacheLocation::named(dir.clone()));
        assert_eq!(again.scan(path, racy), None, "its content is read again");
        assert_eq!(
            again.scan(Path::new("/repo/old.yaml"), stamp(10)),
            Some(scan)
        );
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
        let cache = Cache::open(&CacheLocation::named(dir.clone()));
        let scan = ScanRecord::default();
        cache.record_scan(Path::new("/repo/a.yml"), stamp(1), Digest::of(b"a"), scan);
        cache.save();
        assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
