//! `data.read` and `data.list`: the package's files as the running
//! template's library sees them.

use super::with_session;

/// `data.read(path)`: a file of the package (relative to its root; ytt
/// reads relative to the library root when the path starts with `/`).
pub fn read_package_file(path: &str) -> Result<String, String> {
    let (root, listed, inputs) =
        with_session(|s| Ok((s.root.clone(), s.library_files.clone(), s.inputs.clone())))?;
    let relative = path.trim_start_matches('/');
    let full = match listed {
        // Files named on the command line: known by their names only.
        Some(files) => files
            .iter()
            .find(|(name, _)| name == relative)
            .map(|(_, p)| p.clone())
            .ok_or_else(|| format!("Expected to find file '{path}'"))?,
        None => {
            let full = crate::source::normalize_path(&root.join(relative));
            // Not outside the package, not a file `--file-mark` excluded,
            // not through a link the symlink flags did not allow.
            let refused = inputs
                .as_ref()
                .is_some_and(|i| i.is_excluded(&full) || i.get(&full).is_none());
            if !full.starts_with(&root) || relative.split('/').any(|p| p == "..") || refused {
                return Err(format!("Expected to find file '{path}'"));
            }
            full
        }
    };
    let bytes = crate::source::read_limited(&full)
        .map_err(|_| format!("Expected to find file '{path}'"))?;
    String::from_utf8(bytes).map_err(|_| format!("file '{path}' is not UTF-8 text"))
}

/// `data.list(path)`: the package's files under `path`, relative to its root.
pub fn list_package_files(path: &str) -> Result<Vec<String>, String> {
    let (root, listed) = with_session(|s| Ok((s.root.clone(), s.library_files.clone())))?;
    if let Some(files) = listed {
        let prefix = path.trim_start_matches('/').trim_end_matches('/');
        let mut names: Vec<String> = files
            .into_iter()
            .map(|(name, _)| name)
            .filter(|name| prefix.is_empty() || name.starts_with(&format!("{prefix}/")))
            .collect();
        names.sort();
        return Ok(names);
    }
    let base = root.join(path.trim_start_matches('/'));
    Ok(crate::source::files_below(&base)
        .iter()
        .filter_map(|p| p.strip_prefix(&root).ok())
        .map(|relative| relative.to_string_lossy().replace('\\', "/"))
        .collect())
}
