//! Phase 1: every file of the package parsed (ytt stops at the first that
//! does not), the package within its size limit, and `--strict`'s checks.

use super::super::{flags, package, package_size};
use crate::discover::DiscoveredFile;
use crate::finding::Finding;
use crate::source::Sources;
use crate::yaml::DocumentSet;
use std::path::Path;

/// The YAML of each file, in the files' order; None when ytt stops here
/// (the reasons are in `findings`).
pub(super) fn read<'a>(
    root: &Path,
    files: &[&'a DiscoveredFile],
    sources: &Sources,
    settings: &super::super::settings::YttSettings,
    findings: &mut Vec<Finding>,
) -> Option<Vec<&'a DocumentSet>> {
    let mut parsed: Vec<&DocumentSet> = Vec::new();
    for file in files {
        match &file.parsed {
            Ok(set) => parsed.push(set),
            Err(finding) => findings.push(package::unparsed(finding, file, root, sources)),
        }
    }
    if !findings.is_empty() {
        return None;
    }
    if let Some(finding) = package_size::too_large(&parsed) {
        findings.push(finding);
        return None;
    }
    if settings.strict {
        for set in &parsed {
            flags::check_strict(set, findings);
        }
        if !findings.is_empty() {
            return None;
        }
    }
    Some(parsed)
}
