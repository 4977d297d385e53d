//! Cache keys: what decides that a unit of work read the same inputs as a
//! run before, so its results can be reused.
//!
//! A key is a BLAKE3 hash over parts, each framed by its length
//! ([`KeyHasher`]). A value goes into a key through [`Key`], written field
//! by field: an implementation takes its struct apart without `..`, so a
//! field added later does not compile until it is written into the key or
//! said to be left out, and why. Nothing here formats a value with `Debug`:
//! that text is no contract (a matcher's Debug output once carried the id
//! of the thread that first used it, and keys missed at random).
//!
//! Paths are written relative to the folder a hasher is given
//! ([`KeyHasher::relative_to`]), so a checkout elsewhere, or a CI runner's
//! fresh copy, computes the same keys.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A content hash (BLAKE3, the first 128 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest(pub [u8; 16]);

impl Digest {
    pub fn of(bytes: &[u8]) -> Digest {
        let mut out = [0; 16];
        out.copy_from_slice(&blake3::hash(bytes).as_bytes()[..16]);
        Digest(out)
    }

    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    pub fn from_hex(text: &str) -> Option<Digest> {
        let mut out = [0; 16];
        if text.len() != 32 {
            return None;
        }
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Digest(out))
    }
}

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.hex())
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Digest, D::Error> {
        let text = String::deserialize(deserializer)?;
        Digest::from_hex(&text).ok_or_else(|| serde::de::Error::custom("not a digest"))
    }
}

/// Hashes the parts of a key one after another, each framed by its length
/// so that no two different sequences of parts hash alike.
#[derive(Default)]
pub struct KeyHasher {
    hasher: blake3::Hasher,
    /// Paths below it are written relative to it.
    base: Option<PathBuf>,
}

impl KeyHasher {
    pub fn new() -> KeyHasher {
        KeyHasher::default()
    }

    /// A hasher that writes paths below `base` relative to it.
    pub fn relative_to(base: &Path) -> KeyHasher {
        KeyHasher {
            hasher: blake3::Hasher::new(),
            base: Some(base.to_path_buf()),
        }
    }

    pub fn part(&mut self, bytes: &[u8]) -> &mut KeyHasher {
        frame(&mut self.hasher, bytes);
        self
    }

    pub fn text(&mut self, text: &str) -> &mut KeyHasher {
        self.part(text.as_bytes())
    }

    /// A path: relative to the base when below it, else as given.
    pub fn path(&mut self, path: &Path) -> &mut KeyHasher {
        let relative = match &self.base {
            Some(base) => strip_prefix(path, base).unwrap_or(path),
            None => path,
        };
        frame(&mut self.hasher, relative.as_os_str().as_encoded_bytes());
        self
    }

    /// Any value, through its [`Key`].
    pub fn key(&mut self, value: &(impl Key + ?Sized)) -> &mut KeyHasher {
        value.key(self);
        self
    }

    pub fn finish(&self) -> Digest {
        let mut out = [0; 16];
        out.copy_from_slice(&self.hasher.finalize().as_bytes()[..16]);
        Digest(out)
    }
}

/// `path.strip_prefix(base).ok()`, done on the bytes when both are spelled
/// plainly (absolute, no empty or `.` component): `Path::strip_prefix`
/// parses both into components on every call, and keys and file names take
/// a path relative to the run's folder once per file of the tree (a
/// twentieth of a warm run). Kept here, the lowest crate, for every layer
/// that names a path relative to another.
pub fn strip_prefix<'a>(path: &'a Path, base: &Path) -> Option<&'a Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = path.as_os_str().as_bytes();
        let base_bytes = base.as_os_str().as_bytes();
        if is_plain_absolute(base)
            && let Some(rest) = bytes.strip_prefix(base_bytes)
        {
            match rest.strip_prefix(b"/") {
                Some(rest) if plain_components(rest, true) => {
                    return Some(Path::new(std::ffi::OsStr::from_bytes(rest)));
                }
                None if rest.is_empty() => return Some(Path::new("")),
                _ => {}
            }
        }
    }
    path.strip_prefix(base).ok()
}

/// Whether `path` is absolute and spelled plainly: no empty, `.` or `..`
/// component, no trailing separator. Its components are then its bytes
/// between separators, and it is already normalized; paths the walk gives
/// are all spelled so.
pub fn is_plain_absolute(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    cfg!(unix) && bytes.len() > 1 && bytes[0] == b'/' && plain_components(&bytes[1..], false)
}

/// Components separated by `/`, none empty or `.` (nor `..` unless
/// `parent_ok`).
fn plain_components(bytes: &[u8], parent_ok: bool) -> bool {
    bytes.split(|&b| b == b'/').all(|component| {
        !component.is_empty() && component != b"." && (parent_ok || component != b"..")
    })
}

/// One part, framed by its length.
fn frame(hasher: &mut blake3::Hasher, bytes: &[u8]) {
    hasher.update(&(bytes.len() as u64).to_le_bytes());
    hasher.update(bytes);
}

/// A value as it goes into a cache key. Implement it by taking the value
/// apart without `..` (see the crate's docs).
pub trait Key {
    fn key(&self, out: &mut KeyHasher);
}

impl Key for bool {
    fn key(&self, out: &mut KeyHasher) {
        out.part(&[u8::from(*self)]);
    }
}

macro_rules! integer_keys {
    ($($t:ty),*) => {$(
        impl Key for $t {
            fn key(&self, out: &mut KeyHasher) {
                out.part(&self.to_le_bytes());
            }
        }
    )*};
}
integer_keys!(u8, u16, u32, u64, usize, i32, i64);

impl Key for str {
    fn key(&self, out: &mut KeyHasher) {
        out.text(self);
    }
}

impl Key for String {
    fn key(&self, out: &mut KeyHasher) {
        out.text(self);
    }
}

impl Key for Path {
    fn key(&self, out: &mut KeyHasher) {
        out.path(self);
    }
}

impl Key for PathBuf {
    fn key(&self, out: &mut KeyHasher) {
        out.path(self);
    }
}

impl Key for Digest {
    fn key(&self, out: &mut KeyHasher) {
        out.part(&self.0);
    }
}

impl Key for std::time::Duration {
    fn key(&self, out: &mut KeyHasher) {
        out.part(&self.as_nanos().to_le_bytes());
    }
}

impl<T: Key + ?Sized> Key for &T {
    fn key(&self, out: &mut KeyHasher) {
        (**self).key(out);
    }
}

impl<T: Key + ?Sized> Key for Box<T> {
    fn key(&self, out: &mut KeyHasher) {
        (**self).key(out);
    }
}

impl<T: Key + ?Sized> Key for Arc<T> {
    fn key(&self, out: &mut KeyHasher) {
        (**self).key(out);
    }
}

impl<T: Key> Key for Option<T> {
    fn key(&self, out: &mut KeyHasher) {
        match self {
            None => {
                out.part(&[0]);
            }
            Some(value) => {
                out.part(&[1]);
                value.key(out);
            }
        }
    }
}

/// A sequence: its length, then each element (so `[a, b] + []` and
/// `[a] + [b]` differ).
impl<T: Key> Key for [T] {
    fn key(&self, out: &mut KeyHasher) {
        self.len().key(out);
        for item in self {
            item.key(out);
        }
    }
}

impl<T: Key> Key for Vec<T> {
    fn key(&self, out: &mut KeyHasher) {
        self.as_slice().key(out);
    }
}

impl<A: Key, B: Key> Key for (A, B) {
    fn key(&self, out: &mut KeyHasher) {
        self.0.key(out);
        self.1.key(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(value: &(impl Key + ?Sized)) -> Digest {
        KeyHasher::relative_to(Path::new("/work/repo"))
            .key(value)
            .finish()
    }

    #[test]
    fn parts_are_framed_so_that_no_two_sequences_hash_alike() {
        let split = |a: &str, b: &str| KeyHasher::new().text(a).text(b).finish();
        assert_ne!(split("ab", "c"), split("a", "bc"));
        assert_ne!(
            digest(&vec![vec![1u8, 2], vec![]]),
            digest(&vec![vec![1u8], vec![2]])
        );
        assert_ne!(digest(&None::<bool>), digest(&Some(false)));
    }

    #[test]
    fn paths_below_the_base_are_keyed_as_relative_ones() {
        let inside = KeyHasher::relative_to(Path::new("/a/checkout"))
            .key(Path::new("/a/checkout/pkg/values.yml"))
            .finish();
        let elsewhere = KeyHasher::relative_to(Path::new("/b/copy"))
            .key(Path::new("/b/copy/pkg/values.yml"))
            .finish();
        assert_eq!(inside, elsewhere);
        let outside = KeyHasher::relative_to(Path::new("/b/copy"))
            .key(Path::new("/a/checkout/pkg/values.yml"))
            .finish();
        assert_ne!(inside, outside);
    }

    #[test]
    fn digests_read_back_from_their_hex() {
        let digest = Digest::of(b"text");
        assert_eq!(Digest::from_hex(&digest.hex()), Some(digest));
        assert_eq!(Digest::from_hex("xyz"), None);
        assert_eq!(Digest::from_hex(&"é".repeat(16)), None);
    }

    #[test]
    fn strip_prefix_by_bytes_agrees_with_components() {
        let bases = [
            "/", "/repo", "/repo/", "/repo/.", "/repo//x", "/re", "repo", "",
        ];
        let paths = [
            "/repo/a/b.yml",
            "/repo//a/b.yml",
            "/repo/./a.yml",
            "/repo/a/./b.yml",
            "/repo/a/",
            "/repo/a/.",
            "/repo",
            "/repo/",
            "/repository/a.yml",
            "/repo/x/a.yml",
            "/repo/../a.yml",
            "repo/a.yml",
        ];
        for base in bases {
            for path in paths {
                let (path, base) = (Path::new(path), Path::new(base));
                let expected = path.strip_prefix(base).ok().map(Path::as_os_str);
                assert_eq!(
                    super::strip_prefix(path, base).map(Path::as_os_str),
                    expected,
                    "{path:?} less {base:?}"
                );
            }
        }
    }
}
