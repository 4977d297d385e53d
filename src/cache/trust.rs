//! Whether a cache may be believed. A cache says which findings a unit
//! has without checking it, so one the checkout brought (a committed
//! `.confvet-cache/` with its findings emptied) would hide them. A cache
//! is therefore used only when this machine wrote it or the operator named
//! it:
//!
//! - a folder the operator named (`CONFVET_CACHE_DIR`, `--cache-dir`, the
//!   GitHub Action's input) is believed as it is: CI restores it from its
//!   own store, across machines, and the operator chose it;
//! - the default folder, `.confvet-cache/` in the current directory, sits
//!   in the checkout: each of its files is sealed with a key this machine
//!   keeps outside the checkout (`machine-key` in the user's cache folder,
//!   made on first use, readable by its owner only), and a file whose seal
//!   does not verify is ignored whole. A checkout can bring files, but not
//!   the key, so it cannot forge a seal.
//!
//! The seal is a keyed BLAKE3 hash of the file's bytes, written as the
//! file's first line. The same key seals the folder's `CACHEDIR.TAG`, with
//! the folder's own path: that is how a walk knows a folder is a cache this
//! machine made (and skips it), where a folder merely named like one is
//! linted like any other.

use super::disk::{is_link, replace_file, write_new};
use std::path::{Path, PathBuf};

/// The first bytes of a sealed file, before its seal's 64 hex digits.
const SEAL_PREFIX: &[u8] = b"confvet-seal-1 ";
/// The line `CACHEDIR.TAG` carries its seal on.
const TAG_SEAL: &str = "# confvet-seal: ";
/// The tag's standard first line (https://bford.info/cachedir/): backup
/// and archiving tools skip the folder too.
const TAG_SIGNATURE: &str = "Signature: 8a477f597d28d172789f06886806bc55";
pub const TAG: &str = crate::source::CACHE_TAG;
/// The key's file, in the user's cache folder.
const KEY_FILE: &str = "machine-key";

/// A key this machine keeps outside every checkout.
#[derive(Clone)]
pub struct MachineKey([u8; 32]);

impl std::fmt::Debug for MachineKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MachineKey(..)")
    }
}

impl MachineKey {
    /// The key of this machine's user: read from the user's cache folder,
    /// or made there when `create` and there is none. None when there is
    /// no such folder (no `HOME`), or it cannot be read or written.
    pub fn load(create: bool) -> Option<MachineKey> {
        let path = user_cache_dir()?.join(KEY_FILE);
        if let Some(key) = read_key(&path) {
            return Some(key);
        }
        if !create {
            return None;
        }
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).ok()?;
        std::fs::create_dir_all(path.parent()?).ok()?;
        // Made aside and linked into place: two runs making it at once
        // agree on the one that lands first.
        let partial = path.with_extension(format!("{}", std::process::id()));
        let _ = std::fs::remove_file(&partial);
        write_private(&partial, &bytes).ok()?;
        let linked = std::fs::hard_link(&partial, &path);
        let _ = std::fs::remove_file(&partial);
        if linked.is_err() && read_key(&path).is_none() {
            return None;
        }
        read_key(&path)
    }

    fn hash(&self, context: &[u8], bytes: &[u8]) -> blake3::Hash {
        let mut hasher = blake3::Hasher::new_keyed(&self.0);
        hasher.update(&(context.len() as u64).to_le_bytes());
        hasher.update(context);
        hasher.update(bytes);
        hasher.finalize()
    }

    /// The seal of a cache folder's tag, bound to the folder's path.
    fn tag_seal(&self, dir: &Path) -> String {
        let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        self.hash(b"cachedir-tag", dir.as_os_str().as_encoded_bytes())
            .to_hex()
            .to_string()
    }
}

fn read_key(path: &Path) -> Option<MachineKey> {
    let bytes = std::fs::read(path).ok()?;
    Some(MachineKey(bytes.try_into().ok()?))
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(bytes)
}

/// The user's cache folder: `XDG_CACHE_HOME`, else `~/.cache` (on Windows
/// `%LOCALAPPDATA%`), with `confvet` below it. The environment is the
/// operator's, never the checkout's.
fn user_cache_dir() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let base = non_empty("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| non_empty("LOCALAPPDATA").map(PathBuf::from))
        .or_else(|| non_empty("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    base.is_absolute().then(|| base.join("confvet"))
}

/// Why a cache's files are believed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trust {
    /// The operator named the folder: its files are believed as they are.
    Operator,
    /// Files are believed when sealed with this machine's key.
    Sealed,
}

/// Where a run's cache is, and why it is believed.
#[derive(Debug, Clone)]
pub struct CacheLocation {
    pub dir: PathBuf,
    pub trust: Trust,
    /// Seals what is written (and, for [`Trust::Sealed`], checks what is
    /// read). Always there for a sealed cache; for a named one, when this
    /// machine can keep a key.
    key: Option<MachineKey>,
}

impl CacheLocation {
    /// The cache of a run in `cwd`: the folder the operator named (relative
    /// to `cwd`), or `.confvet-cache/` there, sealed with this machine's key.
    /// Err says why there is none (no key can be kept).
    pub fn for_run(cwd: &Path, named: Option<&Path>) -> Result<CacheLocation, &'static str> {
        let key = MachineKey::load(true);
        match named.filter(|dir| !dir.as_os_str().is_empty()) {
            Some(dir) => Ok(CacheLocation {
                dir: cwd.join(dir),
                trust: Trust::Operator,
                key,
            }),
            None if key.is_some() => Ok(CacheLocation {
                dir: cwd.join(".confvet-cache"),
                trust: Trust::Sealed,
                key,
            }),
            None => Err(
                "no cache: the key that seals `.confvet-cache/` could not be kept in the \
                 user's cache folder (set HOME or XDG_CACHE_HOME, or name a cache folder \
                 with CONFVET_CACHE_DIR)",
            ),
        }
    }

    /// A folder named by the operator, with no key: for tests.
    #[cfg(test)]
    pub(crate) fn named(dir: PathBuf) -> CacheLocation {
        CacheLocation {
            dir,
            trust: Trust::Operator,
            key: None,
        }
    }

    /// `bytes` sealed for writing as the file `name` of the folder.
    pub fn seal(&self, name: &str, body: &[u8]) -> Vec<u8> {
        let seal = match &self.key {
            Some(key) => key.hash(name.as_bytes(), body).to_hex().to_string(),
            // Nobody checks it; the layout stays the same.
            None => "0".repeat(64),
        };
        let mut out = Vec::with_capacity(SEAL_PREFIX.len() + 65 + body.len());
        out.extend_from_slice(SEAL_PREFIX);
        out.extend_from_slice(seal.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(body);
        out
    }

    /// The body of the file `name` of the folder, when it is to be believed.
    pub fn open<'a>(&self, name: &str, bytes: &'a [u8]) -> Option<&'a [u8]> {
        let rest = bytes.strip_prefix(SEAL_PREFIX)?;
        let (seal, body) = (rest.get(..64)?, rest.get(64..)?.strip_prefix(b"\n")?);
        match (self.trust, &self.key) {
            (Trust::Operator, _) => Some(body),
            (Trust::Sealed, None) => None,
            (Trust::Sealed, Some(key)) => {
                let expected = key.hash(name.as_bytes(), body);
                let given = blake3::Hash::from_hex(seal).ok()?;
                // blake3's Hash compares in constant time.
                (given == expected).then_some(body)
            }
        }
    }

    /// Make the folder ready for writing: created with its `.gitignore` and
    /// `CACHEDIR.TAG`. Err when it is not ours to write: a link, or a
    /// folder the checkout brought (one holding other files than a cache's,
    /// without this machine's tag), which a tag written now would hide
    /// from the next run's walk.
    pub fn prepare(&self) -> std::io::Result<()> {
        let refuse = |why: &str| Err(std::io::Error::other(why.to_string()));
        if is_link(&self.dir) {
            return refuse("the cache folder is a symbolic link");
        }
        if self.dir.exists() && !self.is_ours()? {
            return refuse("the cache folder holds files confvet did not write");
        }
        std::fs::create_dir_all(&self.dir)?;
        let ignore = self.dir.join(".gitignore");
        if std::fs::symlink_metadata(&ignore).is_err() {
            write_new(&ignore, b"# Written by confvet: safe to delete.\n*\n")?;
        }
        let tag = self.tag();
        if std::fs::read_to_string(self.dir.join(TAG)).ok().as_deref() != Some(tag.as_str()) {
            replace_file(&self.dir, TAG, tag.as_bytes())?;
        }
        Ok(())
    }

    /// Whether the existing folder is a cache this machine wrote (its tag
    /// verifies), or holds nothing but a cache's files.
    fn is_ours(&self) -> std::io::Result<bool> {
        if CacheFolders::new(Some(self)).holds(&self.dir) {
            return Ok(true);
        }
        for entry in std::fs::read_dir(&self.dir)? {
            let entry = entry?;
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let is_cache_file = [".gitignore", TAG, "index.json", "results.json"]
                .into_iter()
                .map(str::to_string)
                .chain((0..super::SHARDS).map(super::shard_name))
                .any(|known| name == known || name.starts_with(&format!("{known}.")));
            if !is_cache_file || !entry.file_type()?.is_file() {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The text of the folder's `CACHEDIR.TAG`.
    pub fn tag(&self) -> String {
        let mut text = format!(
            "{TAG_SIGNATURE}\n# This file is a cache directory tag created by confvet.\n\
             # For information about cache directory tags see https://bford.info/cachedir/\n"
        );
        if let Some(key) = &self.key {
            text.push_str(&format!("{TAG_SEAL}{}\n", key.tag_seal(&self.dir)));
        }
        text
    }
}

/// Recognises the cache folders a walk skips: the run's own when the
/// operator named it, and any whose `CACHEDIR.TAG` this machine sealed for
/// that folder. A folder is never skipped for its name: the default one
/// sits in the checkout, which may have brought a folder of that name.
#[derive(Debug, Default)]
pub struct CacheFolders {
    own: Option<PathBuf>,
    /// This machine's key, read when a tag is first met.
    key: std::sync::OnceLock<Option<MachineKey>>,
}

impl CacheFolders {
    /// For a run whose cache is `own`.
    pub fn new(own: Option<&CacheLocation>) -> CacheFolders {
        let folders = CacheFolders::default();
        let Some(own) = own else {
            return folders;
        };
        if let Some(key) = &own.key {
            let _ = folders.key.set(Some(key.clone()));
        }
        CacheFolders {
            own: (own.trust == Trust::Operator)
                .then(|| own.dir.canonicalize().unwrap_or_else(|_| own.dir.clone())),
            ..folders
        }
    }

    /// Whether `dir` is a cache folder confvet made (on this machine), not
    /// to be linted.
    pub fn holds(&self, dir: &Path) -> bool {
        let tag = dir.join(TAG);
        // Most folders have no tag: one failed lookup.
        let Ok(meta) = std::fs::symlink_metadata(&tag) else {
            return false;
        };
        if !meta.is_file() || meta.len() > 4096 {
            return false;
        }
        if self
            .own
            .as_deref()
            .is_some_and(|own| dir.canonicalize().is_ok_and(|d| d == own))
        {
            return true;
        }
        let Some(key) = self.key.get_or_init(|| MachineKey::load(false)) else {
            return false;
        };
        let Ok(text) = std::fs::read_to_string(&tag) else {
            return false;
        };
        let expected = key.tag_seal(dir);
        text.starts_with(TAG_SIGNATURE)
            && text
                .lines()
                .filter_map(|line| line.strip_prefix(TAG_SEAL))
                .any(|seal| seal.trim() == expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealed() -> CacheLocation {
        CacheLocation {
            dir: PathBuf::from("/nowhere/.confvet-cache"),
            trust: Trust::Sealed,
            key: Some(MachineKey([7; 32])),
        }
    }

    #[test]
    fn a_sealed_file_opens_only_with_its_key_name_and_bytes() {
        let location = sealed();
        let file = location.seal("index.json", b"{\"a\":1}");
        assert_eq!(location.open("index.json", &file), Some(&b"{\"a\":1}"[..]));
        assert_eq!(location.open("results.json", &file), None, "another name");
        let other = CacheLocation {
            key: Some(MachineKey([8; 32])),
            ..location.clone()
        };
        assert_eq!(other.open("index.json", &file), None, "another machine");
        let mut edited = file.clone();
        *edited.last_mut().unwrap() = b'2';
        assert_eq!(location.open("index.json", &edited), None, "an edited body");
        assert_eq!(location.open("index.json", b"{\"a\":1}"), None, "no seal");
    }

    #[test]
    fn an_operator_named_folder_is_believed_without_a_key() {
        let named = CacheLocation {
            dir: PathBuf::from("/ci/cache"),
            trust: Trust::Operator,
            key: None,
        };
        let file = sealed().seal("index.json", b"{}");
        assert_eq!(named.open("index.json", &file), Some(&b"{}"[..]));
        assert_eq!(named.open("index.json", b"{}"), None, "not a cache file");
    }
}
