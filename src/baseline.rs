//! Baselines: a file of the findings a project has accepted for now, so that
//! a run reports only new ones. Findings are matched by fingerprint (rule,
//! file name, data path, message with digits masked; never a line), so the
//! baseline holds when lines move. Findings alike in all of those get
//! fingerprints of their own by their order (see `Finding::fingerprint`);
//! each entry stands for one finding, and a baseline written before that,
//! which holds one fingerprint several times, still matches as many.
//!
//! # File format, version 1
//!
//! ```json
//! {
//!   "version": 1,
//!   "findings": [
//!     {"file": "config/values.yml", "rule": "ytt/validation",
//!      "fingerprint": "5f0c1e2a9b3d4c7e", "message": "replicas must be ..."}
//!   ]
//! }
//! ```
//!
//! Only `fingerprint` is matched; `rule`, `file` and `message` are there for
//! people reviewing the file. Entries are sorted, so updates diff well.

use crate::error::{Doing, Error};
use crate::finding::{Finding, Severity};
use crate::run::LintResult;
use crate::source::Sources;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The version written as `version`.
pub const BASELINE_VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
struct BaselineFile {
    version: u32,
    findings: Vec<Entry>,
}

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    file: String,
    rule: String,
    fingerprint: String,
    message: String,
}

/// A `--baseline` file: read before the run, or, with `--update-baseline`,
/// written after it.
#[derive(Debug)]
pub struct Baseline {
    path: PathBuf,
    /// None when the file is to be written.
    fingerprints: Option<Vec<String>>,
}

impl Baseline {
    /// Read the baseline at `path`, unless `update` says it is to be
    /// written. An error is a message for exit code 2.
    pub fn open(path: &Path, update: bool) -> Result<Baseline, Error> {
        Ok(Baseline {
            path: path.to_path_buf(),
            fingerprints: if update { None } else { Some(read(path)?) },
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Hide the run's findings that the baseline holds and count them as
    /// suppressed; when updating, first write every finding (so all are
    /// hidden). Returns how many entries the baseline has.
    pub fn apply(&self, result: &mut LintResult, sources: &Sources) -> Result<usize, Error> {
        let shown = self.path.display();
        let fingerprints = match &self.fingerprints {
            Some(fingerprints) => fingerprints.clone(),
            None if !result.errors.is_empty() => {
                return Err(Error::Usage(format!(
                    "not writing the baseline {shown}: the run was incomplete"
                )));
            }
            None => write(&self.path, &result.findings, sources).map_err(|err| {
                Error::io_named(Doing::Writing, "the baseline", shown.to_string(), err)
            })?,
        };
        let count = fingerprints.len();
        let mut remaining: HashMap<String, usize> = HashMap::new();
        for fingerprint in fingerprints {
            *remaining.entry(fingerprint).or_default() += 1;
        }
        let summary = &mut result.summary;
        result.findings.retain(|finding| {
            // A baseline written before fingerprints told findings alike
            // apart holds the first one's fingerprint for each of them.
            let keys = [
                finding.fingerprint(sources),
                finding.first_fingerprint(sources),
            ];
            let Some(left) = keys
                .iter()
                .find(|key| remaining.get(*key).is_some_and(|n| *n > 0))
                .and_then(|key| remaining.get_mut(key))
            else {
                return true;
            };
            *left -= 1;
            match finding.severity {
                Severity::Error => summary.errors -= 1,
                Severity::Warning => summary.warnings -= 1,
            }
            summary.suppressed += 1;
            false
        });
        Ok(count)
    }
}

/// The fingerprints in a baseline file.
fn read(path: &Path) -> Result<Vec<String>, Error> {
    let shown = path.display();
    let bytes = crate::source::read_limited(path).map_err(|err| {
        if err.kind() == std::io::ErrorKind::NotFound {
            Error::Usage(format!(
                "no baseline at {shown}; create it with --update-baseline"
            ))
        } else {
            Error::io_named(Doing::Reading, "the baseline", shown.to_string(), err)
        }
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let file: BaselineFile = serde_json::from_str(&text)
        .map_err(|err| Error::Usage(format!("{shown} is not a confvet baseline: {err}")))?;
    if file.version != BASELINE_VERSION {
        return Err(Error::Usage(format!(
            "{shown} is a version {} baseline; this confvet reads version {BASELINE_VERSION}",
            file.version
        )));
    }
    Ok(file.findings.into_iter().map(|e| e.fingerprint).collect())
}

/// Write `findings` as a baseline; returns their fingerprints.
fn write(path: &Path, findings: &[Finding], sources: &Sources) -> std::io::Result<Vec<String>> {
    let mut entries: Vec<Entry> = findings
        .iter()
        .map(|finding| Entry {
            file: sources.name(finding.span.file),
            rule: finding.rule.to_string(),
            fingerprint: finding.fingerprint(sources),
            message: finding.message.clone(),
        })
        .collect();
    entries.sort();
    let fingerprints = entries.iter().map(|e| e.fingerprint.clone()).collect();
    let file = BaselineFile {
        version: BASELINE_VERSION,
        findings: entries,
    };
    let mut text = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)?;
    text.push('\n');
    std::fs::write(path, text)?;
    Ok(fingerprints)
}
