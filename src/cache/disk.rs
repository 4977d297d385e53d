//! The cache's files on disk: written aside and renamed, never through a
//! link.

use crate::replace::Mode;
use std::path::Path;

pub(super) fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Create `path` and write `bytes`; never through an existing file or link.
pub(super) fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?
        .write_all(bytes)
}

/// Write `bytes` as `dir/name`, aside first (named `name.…`, which
/// `trust` counts as a cache's file) so a run reading at the same time
/// never sees half of it.
pub(super) fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let aside = format!("{name}.");
    crate::replace::replace(&dir.join(name), &aside, bytes, Mode::New, false)
}
