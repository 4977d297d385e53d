//! The CRDs and JSON Schemas of the tree and the configuration, read only
//! for the kinds checked documents name. A tree holds many CRDs (a
//! provider's components file alone defines dozens) and its resources use
//! few: each file is indexed by the API groups its text names, and the
//! first time a document of a kind is checked, only the CRD documents of
//! its group's files that name the kind are parsed (each alone, its spans
//! moved to the file) and compiled, once for the run, on whichever thread
//! needs it.

use super::crd::{CrdSet, CrdSetBuilder, is_crd, moved, read_crd, read_json_schema};
use crate::discover::groups_named;
use crate::finding::Finding;
use crate::source::{FileId, Sources, Span};
use crate::yaml::{self, ParseOptions};
use rayon::prelude::*;
use regex::Regex;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

/// A file that may define kinds.
#[derive(Debug, Clone)]
pub struct CrdFile {
    /// Registered in the run's sources (its text read when needed); None
    /// for a file registered only when a document first needs it (named
    /// then relative to the index's directory): a workspace's CRDs by the
    /// thousand cost nothing to a check that reads none.
    pub id: Option<FileId>,
    pub path: PathBuf,
    /// Named by the configuration: a document that is not a CRD is read as
    /// a JSON Schema of one kind.
    pub holds_json_schemas: bool,
    /// The groups its text names, when the walk found them already.
    pub groups: Option<Vec<String>>,
}

/// A file, and where its CRDs are once it was read for one.
struct FileEntry {
    file: CrdFile,
    /// Its id once registered, when the file came without one.
    id: OnceLock<FileId>,
    documents: OnceLock<Vec<Document>>,
}

/// One CRD document of a file: its bytes, and the groups and kinds its text
/// names (a superset of the one it defines).
struct Document {
    start: usize,
    end: usize,
    groups: Vec<String>,
    /// In lower case.
    kinds: Vec<String>,
}

/// The files of one API group, and each kind's definitions once read.
struct Group {
    files: Vec<usize>,
    /// By kind in lower case.
    kinds: Mutex<HashMap<String, Arc<OnceLock<CrdSet>>>>,
}

/// The kinds the tree and the configuration define, read by kind on first
/// use.
pub struct CrdFiles {
    files: Vec<FileEntry>,
    groups: HashMap<String, Group>,
    sources: Sources,
    /// What names a file registered late.
    cwd: PathBuf,
    /// What reading found wrong with the files (`kubernetes/crd`), for the
    /// run to report.
    problems: Mutex<Vec<Finding>>,
    /// The same, by the (group, kind in lower case) whose read found them.
    problems_by_kind: Mutex<std::collections::HashMap<(String, String), Vec<Finding>>>,
}

/// `kind: Widget`, block or flow style.
static KIND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?m)(?:^|[\s{,])"?kind"?\s*:\s*["']?([A-Za-z0-9]+)"#).expect("a valid pattern")
});

/// The CRD documents of a text, each with the groups and kinds it names.
fn crd_documents(text: &str) -> Vec<Document> {
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
    starts
        .windows(2)
        .filter_map(|w| {
            let document = &text[w[0]..w[1]];
            document
                .contains("CustomResourceDefinition")
                .then(|| Document {
                    start: w[0],
                    end: w[1],
                    groups: groups_named(document),
                    kinds: KIND
                        .captures_iter(document)
                        .map(|c| c[1].to_lowercase())
                        .collect(),
                })
        })
        .collect()
}

impl CrdFiles {
    /// Index `files` by the groups their text names (a superset: a group
    /// that is no CRD's costs one read of the file when used).
    pub fn index(files: Vec<CrdFile>, sources: &Sources, cwd: &std::path::Path) -> CrdFiles {
        let named: Vec<(CrdFile, Vec<String>)> = files
            .into_par_iter()
            .map(|file| {
                // Read, not kept: an evicted file's text is read from disk.
                let mut groups = match (&file.groups, file.id) {
                    (Some(groups), _) => groups.clone(),
                    (None, Some(id)) => groups_named(&sources.get(id).text),
                    (None, None) => sources
                        .read(&file.path)
                        .map(|bytes| groups_named(&crate::source::decode_text(bytes).0))
                        .unwrap_or_default(),
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
        let mut entries = Vec::new();
        for (index, (file, names)) in named.into_iter().enumerate() {
            for name in names {
                groups
                    .entry(name)
                    .or_insert_with(|| Group {
                        files: Vec::new(),
                        kinds: Mutex::new(HashMap::new()),
                    })
                    .files
                    .push(index);
            }
            entries.push(FileEntry {
                file,
                id: OnceLock::new(),
                documents: OnceLock::new(),
            });
        }
        CrdFiles {
            files: entries,
            groups,
            sources: sources.clone(),
            cwd: cwd.to_path_buf(),
            problems: Mutex::new(Vec::new()),
            problems_by_kind: Mutex::new(Default::default()),
        }
    }

    /// The definitions of `kind` in `group` the files give (read now, if
    /// no document asked before); None when no file names the group.
    pub fn for_kind(&self, group: &str, kind: &str) -> Option<Arc<OnceLock<CrdSet>>> {
        let entry = self.groups.get(group)?;
        let kind = kind.to_lowercase();
        let slot = {
            let mut kinds = entry.kinds.lock().ok()?;
            Arc::clone(kinds.entry(kind.clone()).or_default())
        };
        // Outside the lock: other kinds are read meanwhile.
        slot.get_or_init(|| self.read(group, &kind, &entry.files));
        Some(slot)
    }

    fn read(&self, group: &str, kind: &str, files: &[usize]) -> CrdSet {
        let mut builder = CrdSetBuilder::default();
        let mut problems = Vec::new();
        for entry in files.iter().filter_map(|&i| self.files.get(i)) {
            let file = &entry.file;
            let id = self.id(entry);
            let text = self.sources.get(id);
            // The documents to parse, each at its offset in the file.
            let parts: Vec<(usize, &str)> = if file.holds_json_schemas {
                vec![(0, text.text.as_str())]
            } else {
                entry
                    .documents
                    .get_or_init(|| crd_documents(&text.text))
                    .iter()
                    .filter(|d| d.groups.iter().any(|g| g == group))
                    .filter(|d| d.kinds.iter().any(|k| k == kind))
                    .filter_map(|d| Some((d.start, text.text.get(d.start..d.end)?)))
                    .collect()
            };
            for (offset, part) in parts {
                let set = match yaml::parse_file(id, part, &ParseOptions::default()) {
                    Ok(set) => set,
                    // A tree file that does not parse is reported by what
                    // reads it as a manifest; one the configuration names,
                    // here.
                    Err(error) if file.holds_json_schemas => {
                        problems.push(Finding::from(error));
                        continue;
                    }
                    Err(_) => continue,
                };
                for document in &set.docs {
                    let read = if is_crd(&document.value) {
                        read_crd(&document.value)
                    } else if file.holds_json_schemas
                        && matches!(document.value.value, yaml::Value::Map(_))
                    {
                        let json = yaml::emit::to_json(&document.value);
                        read_json_schema(&file.path, json, Span::file_start(id))
                    } else {
                        continue;
                    };
                    // Spans of a document parsed alone, moved to the file.
                    match read.map(|r| r.moved_by(offset)) {
                        Ok(read) if read.group() == group && read.kind_in_lower_case() == kind => {
                            builder.add(Ok(read))
                        }
                        Ok(_) => {}
                        Err(mut problem) => {
                            problem.span = moved(problem.span, offset);
                            problems.push(*problem)
                        }
                    }
                }
            }
        }
        let (set, more) = builder.build();
        problems.extend(more);
        if let Ok(mut by_kind) = self.problems_by_kind.lock() {
            by_kind.insert((group.to_string(), kind.to_string()), problems.clone());
        }
        if let Ok(mut all) = self.problems.lock() {
            all.extend(problems);
        }
        set
    }

    /// What reading found wrong so far (each problem once per kind that
    /// read its document: the run removes repeats).
    pub fn take_problems(&self) -> Vec<Finding> {
        self.problems
            .lock()
            .map(|mut all| std::mem::take(&mut *all))
            .unwrap_or_default()
    }

    /// Every file the index may read, with its id (registered now when
    /// it was not).
    pub fn files(&self) -> Vec<(std::path::PathBuf, crate::source::FileId)> {
        self.files
            .iter()
            .map(|entry| (entry.file.path.clone(), self.id(entry)))
            .collect()
    }

    /// The file's id in the run's sources, registered on first use.
    fn id(&self, entry: &FileEntry) -> FileId {
        entry.file.id.unwrap_or_else(|| {
            *entry.id.get_or_init(|| {
                let name = crate::source::display_name(&entry.file.path, &self.cwd);
                self.sources.add_unread(name, entry.file.path.clone())
            })
        })
    }

    /// What reading the definitions of these (group, kind) pairs found
    /// wrong, for the kinds read so far.
    pub fn problems_of(&self, kinds: &[(String, String)]) -> Vec<Finding> {
        let Ok(by_kind) = self.problems_by_kind.lock() else {
            return Vec::new();
        };
        kinds
            .iter()
            .filter_map(|(group, kind)| by_kind.get(&(group.clone(), kind.to_lowercase())))
            .flatten()
            .cloned()
            .collect()
    }

    /// How many groups some file names.
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }
}
