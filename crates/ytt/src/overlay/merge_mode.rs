//! How one data-values source merges (a data-values file, a library's
//! addressed values, a flag): a leaf the overlay, template and workspace
//! layers share.

/// How one data-values source merges.
#[derive(Debug, Clone, Copy, Default)]
pub struct MergeMode {
    /// Every map key may be added (`--data-values-file`, command-line flags).
    pub implicit_missing_ok: bool,
    /// Arrays replace instead of appending (`--data-values-file`).
    pub arrays_replace: bool,
}
