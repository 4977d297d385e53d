//! The cache's files on disk: written aside and renamed, never through a
//! link.

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

/// Write `bytes` as `dir/name`.
pub(super) fn replace_file(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    // Written aside, then renamed (which replaces a link, never follows
    // it): a run reading at the same time sees the old file or the new
    // one, never half of one.
    let partial = dir.join(format!("{name}.{}", std::process::id()));
    let _ = std::fs::remove_file(&partial);
    write_new(&partial, bytes)?;
    std::fs::rename(&partial, dir.join(name))
}
