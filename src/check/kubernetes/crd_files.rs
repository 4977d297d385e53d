//! The CRDs and JSON Schemas of the tree and the configuration, read only
//! for the API groups a checked document names. A tree holds many CRDs
//! (a provider's components file alone defines dozens) and its resources
//! use few: each file is indexed by the groups its text mentions, and the
//! files of a group are parsed and compiled the first time a document of
//! that group is checked, once for the run, on whichever thread needs it.

use super::crd::{CrdSet, CrdSetBuilder, is_crd, read_crd, read_json_schema};
use crate::finding::Finding;
use crate::source::{FileId, Sources, Span};
use crate::yaml::{self, ParseOptions};
use rayon::prelude::*;
use regex::Regex;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex, OnceLock};

/// A file that may define kinds.
#[derive(Debug, Clone)]
pub struct CrdFile {
    /// Registered in the run's sources (its text read when needed).
    pub id: FileId,
    pub path: PathBuf,
    /// Named by the configuration: a document that is not a CRD is read as
    /// a JSON Schema of one kind.
    pub holds_json_schemas: bool,
    /// The groups its text names, when the walk found them already.
    pub groups: Option<Vec<String>>,
}

/// The files of one API group, and their kinds once read.
struct Group {
    files: Vec<CrdFile>,
    set: OnceLock<CrdSet>,
}

/// The kinds the tree and the configuration define, read by group on
/// first use.
pub struct CrdFiles {
    groups: HashMap<String, Group>,
    sources: Sources,
    /// What reading a group found wrong with its files (`kubernetes/crd`),
    /// for the run to report.
    problems: Mutex<Vec<Finding>>,
}

/// The API groups a text names (`group: example.com` in YAML, `"group":
/// "example.com"` in JSON): a superset of those its CRDs define.
pub fn groups_named(text: &str) -> Vec<String> {
    let mut groups: Vec<String> = GROUP
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect();
    groups.sort();
    groups.dedup();
    groups
}

/// The text with every document that is not a CRD naming `group` blanked
/// out (each byte a space, line ends kept): a components file of dozens of
/// CRDs parses as fast as the few it is read for, and every span stays
/// where it is in the file.
fn documents_naming<'t>(text: &'t str, group: &str) -> std::borrow::Cow<'t, str> {
    let mut starts: Vec<usize> = vec![0];
    starts.extend(
        text.match_indices("\n---")
            .map(|(at, _)| at + 1)
            .filter(|&at| {
                matches!(
                    text.as_bytes().get(at + 3),
                    None | Some(b' ' | b'\n' | b'\r' | b'\t')
                )
            }),
    );
    starts.push(text.len());
    let wanted = |document: &str| {
        document.contains("CustomResourceDefinition")
            && GROUP.captures_iter(document).any(|c| &c[1] == group)
    };
    if starts.windows(2).all(|w| wanted(&text[w[0]..w[1]])) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut kept = String::with_capacity(text.len());
    for window in starts.windows(2) {
        let document = &text[window[0]..window[1]];
        if wanted(document) {
            kept.push_str(document);
        } else {
            kept.extend(
                document
                    .bytes()
                    .map(|b| if b == b'\n' { '\n' } else { ' ' }),
            );
        }
    }
    std::borrow::Cow::Owned(kept)
}

/// `group: example.com` in YAML, `"group": "example.com"` in JSON.
static GROUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?m)(?:^|[\s{,])"?group"?\s*:\s*["']?([A-Za-z0-9][A-Za-z0-9.-]*)"#)
        .expect("a valid pattern")
});

impl CrdFiles {
    /// Index `files` by the groups their text names (a superset: a group
    /// that is no CRD's costs one read of the file when used).
    pub fn index(files: Vec<CrdFile>, sources: &Sources) -> CrdFiles {
        let named: Vec<(CrdFile, Vec<String>)> = files
            .into_par_iter()
            .map(|file| {
                // Read, not kept: an evicted file's text is read from disk.
                let mut groups = match &file.groups {
                    Some(groups) => groups.clone(),
                    None => groups_named(&sources.get(file.id).text),
                };
                // A JSON Schema named `<group>/<kind>_<version>.json`.
                if file.holds_json_schemas
                    && let Some(group) = file
                        .path
                        .parent()
                        .and_then(|dir| dir.file_name())
                        .and_then(|name| name.to_str())
                {
                    groups.push(group.to_string());
                }
                groups.sort();
                groups.dedup();
                (file, groups)
            })
            .collect();
        let mut groups: HashMap<String, Group> = HashMap::new();
        for (file, names) in named {
            for name in names {
                groups
                    .entry(name)
                    .or_insert_with(|| Group {
                        files: Vec::new(),
                        set: OnceLock::new(),
                    })
                    .files
                    .push(file.clone());
            }
        }
        CrdFiles {
            groups,
            sources: sources.clone(),
            problems: Mutex::new(Vec::new()),
        }
    }

    /// The kinds of `group` the files define; None when no file names it.
    pub fn group(&self, group: &str) -> Option<&CrdSet> {
        let entry = self.groups.get(group)?;
        Some(entry.set.get_or_init(|| self.read(group, &entry.files)))
    }

    fn read(&self, group: &str, files: &[CrdFile]) -> CrdSet {
        let mut builder = CrdSetBuilder::default();
        let mut problems = Vec::new();
        for file in files {
            let text = self.sources.get(file.id);
            let text = if file.holds_json_schemas {
                std::borrow::Cow::Borrowed(text.text.as_str())
            } else {
                documents_naming(&text.text, group)
            };
            match yaml::parse_file(file.id, &text, &ParseOptions::default()) {
                Ok(set) => {
                    for document in &set.docs {
                        let read = if is_crd(&document.value) {
                            read_crd(&document.value)
                        } else if file.holds_json_schemas
                            && matches!(document.value.value, yaml::Value::Map(_))
                        {
                            let json = yaml::emit::to_json(&document.value);
                            read_json_schema(&file.path, json, Span::file_start(file.id))
                        } else {
                            continue;
                        };
                        match read {
                            Ok(read) if read.group() == group => builder.add(Ok(read)),
                            Ok(_) => {}
                            Err(problem) => problems.push(*problem),
                        }
                    }
                }
                // A tree file that does not parse is reported by what reads
                // it as a manifest; one the configuration names, here.
                Err(error) if file.holds_json_schemas => {
                    problems.push(Finding::new(error.rule, error.span, error.message))
                }
                Err(_) => {}
            }
        }
        let (set, more) = builder.build();
        problems.extend(more);
        if let Ok(mut all) = self.problems.lock() {
            all.extend(problems);
        }
        set
    }

    /// What reading groups found wrong so far (each problem once per group
    /// that read its file: the run removes repeats).
    pub fn take_problems(&self) -> Vec<Finding> {
        self.problems
            .lock()
            .map(|mut all| std::mem::take(&mut *all))
            .unwrap_or_default()
    }

    /// How many groups some file names.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }
}
