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
    let mut text_templates: Vec<&DiscoveredFile> = Vec::new();
    for file in files {
        match &file.parsed {
            Ok(set) => parsed.push(set),
            // A Helm chart's templates below a folder that holds ytt
            // files: ytt reading the folder whole is lint's guess, and
            // such a folder is most often rendered otherwise (`helm
            // template | ytt -f - -f overlay.yml`).
            Err(_) if settings.root_guessed && package::is_plain_text_template(file, sources) => {
                text_templates.push(file);
            }
            Err(finding) => findings.push(package::unparsed(
                finding,
                file,
                root,
                sources,
                settings.root_guessed,
            )),
        }
    }
    if !text_templates.is_empty() {
        findings.push(package::unchecked_for_text_templates(
            &text_templates,
            root,
            sources,
        ));
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
