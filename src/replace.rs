//! A file replaced whole: written aside in its folder, then renamed over
//! it. A reader at the same time sees the old file or the new one, never
//! half of one, and the rename replaces a link at the path, never follows
//! it. Used by the cache's files and by `lint --fix`.

use std::fs::Permissions;
use std::io::Write;
use std::path::Path;

/// The permissions the new file gets.
pub enum Mode {
    /// A new file's (on Unix 0666 less the umask, not `tempfile`'s 0600).
    New,
    /// These exactly, as the replaced file had.
    Kept(Permissions),
}

/// Replace `path` by `bytes`, written aside as `{aside}…` (a random
/// suffix) in its folder; flushed to the disk before the rename when
/// `sync`. The aside file is removed when anything fails.
pub fn replace(
    path: &Path,
    aside: &str,
    bytes: &[u8],
    mode: Mode,
    sync: bool,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(aside);
    #[cfg(unix)]
    if let Mode::New = mode {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(Permissions::from_mode(0o666));
    }
    let mut file = builder.tempfile_in(dir)?;
    file.write_all(bytes)?;
    if sync {
        file.as_file().sync_all()?;
    }
    if let Mode::Kept(permissions) = mode {
        std::fs::set_permissions(file.path(), permissions)?;
    }
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_in_place_and_leaves_nothing_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.yaml");
        std::fs::write(&path, "old").unwrap();
        replace(&path, ".a.yaml.", b"new", Mode::New, false).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "{names:?}");
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_a_new_files_or_the_kept_ones() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        replace(&path, "run.sh.", b"x", Mode::New, false).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path) & 0o644, 0o644, "as a new file, not 0600");
        replace(
            &path,
            "run.sh.",
            b"y",
            Mode::Kept(Permissions::from_mode(0o750)),
            true,
        )
        .unwrap();
        assert_eq!(mode(&path), 0o750);
    }

    #[cfg(unix)]
    #[test]
    fn a_link_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "kept").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        replace(&link, "link.", b"new", Mode::New, false).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
    }
}
