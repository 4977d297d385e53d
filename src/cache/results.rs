//! Each unit's findings, kept between runs under the key of everything the
//! unit read (see `run::inputs`): a unit whose key is found again reuses
//! all of its findings, warnings and errors alike, without being parsed or
//! checked.
//!
//! Findings are stored with their files named by path (relative to the
//! current directory when below it, so a cache restored into a checkout
//! elsewhere serves), and their spans as byte offsets: a hit means the same
//! bytes, so the offsets still point where they did. The store is one file,
//! `results.json`, written aside and renamed like the index; entries not
//! used for [`MAX_AGE`] runs, and the oldest beyond [`MAX_ENTRIES`], are
//! dropped, so it stays bounded.

use super::disk::is_link;
use super::{CacheLocation, Digest, lock, write_sealed};
use crate::finding::{Applicability, Edit, Finding, Fix, Kind, Related, Severity};
use crate::source::{FileId, SourceFile, Sources, Span};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const FILE: &str = "results.json";
/// Bumped whenever what an entry holds, or how it is read, changes.
const FORMAT: u32 = 2;
/// Runs an unused entry is kept for.
pub const MAX_AGE: u64 = 16;
/// Entries kept at most (the most recently used).
pub const MAX_ENTRIES: usize = 200_000;

/// A file a stored finding points into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredFile {
    /// Relative to the current directory when below it, else absolute.
    pub path: PathBuf,
    /// The name the check gave the file.
    pub name: String,
    /// One of the files discovery registered (a unit's member, a CRD):
    /// the run's own id for it is used, so that suppressions and sorting
    /// treat it as the same file. Otherwise a file the check read itself
    /// (a `.star` a template loads), registered anew.
    pub discovered: bool,
    /// The text of a source with no path (a data value given by a flag or
    /// a scenario), which cannot be read again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredSpan {
    file: u32,
    start: u32,
    end: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredFinding {
    rule: String,
    kind: Kind,
    severity: Severity,
    message: String,
    span: StoredSpan,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    related: Vec<(StoredSpan, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    help: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    left_out: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fix: Option<StoredFix>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredFix {
    message: String,
    applicability: Applicability,
    edits: Vec<(StoredSpan, String)>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One unit's outcome as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredOutcome {
    files: Vec<StoredFile>,
    findings: Vec<StoredFinding>,
    /// Documents of kinds no schema knows, by kind (`--statistics`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_kinds: BTreeMap<String, usize>,
    /// What reading the tree's CRDs for the kinds the unit looked up found
    /// wrong (`kubernetes/crd`), which the
    /// run reports once, whichever units read them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    crd_problems: Vec<StoredFinding>,
    /// The unit's schema as a Carvel Package's copy is compared with it:
    /// where it starts, and its exports with rules and as ytt writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    schema_export: Option<(
        StoredSpan,
        Option<serde_json::Value>,
        Option<serde_json::Value>,
    )>,
    /// The run that last used the entry.
    #[serde(default)]
    last_used: u64,
}

/// A schema's exports as [`StoredOutcome`] keeps them (see
/// `check::ytt::drift::SchemaExport`).
pub type Exports = (Span, Option<serde_json::Value>, Option<serde_json::Value>);

/// A stored outcome with this run's file ids.
pub struct Restored {
    pub findings: Vec<Finding>,
    pub crd_problems: Vec<Finding>,
    pub exports: Option<Exports>,
}

/// How the files of a unit's findings are found again: by the id a run
/// gave them, and, for files discovery registered, by their path.
pub struct FileTable<'a> {
    pub sources: &'a Sources,
    pub cwd: &'a Path,
    /// The run's id of a file discovery registered, by its absolute path.
    pub discovered: &'a (dyn Fn(&Path) -> Option<FileId> + Sync),
}

impl StoredOutcome {
    /// The outcome to store for `findings`; None when one says the unit was
    /// not checked as a whole (a limit, a failure of confvet), which a
    /// later run must try again.
    pub fn new(
        (findings, crd_problems): (&[Finding], &[Finding]),
        exports: Option<&Exports>,
        skipped_kinds: &BTreeMap<String, usize>,
        table: &FileTable<'_>,
    ) -> Option<StoredOutcome> {
        let mut files: Vec<StoredFile> = Vec::new();
        let mut ids: HashMap<FileId, u32> = HashMap::new();
        let mut span_of = |span: Span| -> Option<StoredSpan> {
            let file = match ids.get(&span.file) {
                Some(&index) => index,
                None => {
                    let file = match table.sources.path(span.file) {
                        Some(path) => StoredFile {
                            discovered: (table.discovered)(&path) == Some(span.file),
                            path: path
                                .strip_prefix(table.cwd)
                                .map_or_else(|_| path.clone(), Path::to_path_buf),
                            name: table.sources.name(span.file),
                            text: None,
                        },
                        None => StoredFile {
                            path: PathBuf::new(),
                            name: table.sources.name(span.file),
                            discovered: false,
                            text: Some(table.sources.get(span.file).text.clone()),
                        },
                    };
                    files.push(file);
                    let index = u32::try_from(files.len() - 1).ok()?;
                    ids.insert(span.file, index);
                    index
                }
            };
            Some(StoredSpan {
                file,
                start: span.start,
                end: span.end,
            })
        };
        let mut store = |findings: &[Finding]| -> Option<Vec<StoredFinding>> {
            let mut stored = Vec::with_capacity(findings.len());
            for finding in findings {
                if matches!(finding.kind, Kind::Internal | Kind::Limit) {
                    return None;
                }
                let mut related = Vec::with_capacity(finding.related.len());
                for r in &finding.related {
                    related.push((span_of(r.span)?, r.message.clone()));
                }
                let fix = match finding.fix.as_deref() {
                    Some(fix) => {
                        let mut edits = Vec::with_capacity(fix.edits.len());
                        for edit in &fix.edits {
                            edits.push((span_of(edit.span)?, edit.content.clone()));
                        }
                        Some(StoredFix {
                            message: fix.message.clone(),
                            applicability: fix.applicability,
                            edits,
                        })
                    }
                    None => None,
                };
                stored.push(StoredFinding {
                    rule: finding.rule.to_string(),
                    kind: finding.kind,
                    severity: finding.severity,
                    message: finding.message.clone(),
                    span: span_of(finding.span)?,
                    label: finding.label.clone(),
                    path: finding.path.clone(),
                    related,
                    help: finding.help.clone(),
                    left_out: finding.left_out,
                    fix,
                });
            }
            Some(stored)
        };
        let findings = store(findings)?;
        let crd_problems = store(crd_problems)?;
        let schema_export = match exports {
            Some((span, with_rules, ytt)) => {
                Some((span_of(*span)?, with_rules.clone(), ytt.clone()))
            }
            None => None,
        };
        Some(StoredOutcome {
            files,
            findings,
            skipped_kinds: skipped_kinds.clone(),
            crd_problems,
            schema_export,
            last_used: 0,
        })
    }

    /// The findings and the CRD problems again, with this run's file ids;
    /// None when the entry names a rule this build does not know (a corrupt
    /// entry).
    ///
    /// An entry is data: it never chooses which file is read or shown. A
    /// file it names must be one whose content the unit's key hashed
    /// (`reads`), so a hit means its bytes are the ones the findings were
    /// made on and snippets come from the file itself; an entry naming any
    /// other (`../secret`, `/etc/passwd`) is corrupt, and None.
    pub fn restore(
        &self,
        table: &FileTable<'_>,
        reads: &dyn Fn(&Path) -> bool,
    ) -> Option<Restored> {
        let ids: Vec<FileId> = self
            .files
            .iter()
            .map(|file| {
                if let Some(text) = &file.text {
                    let source = SourceFile::new(file.name.clone(), None, text.clone());
                    return Some(table.sources.add(source));
                }
                let absolute = crate::source::normalize_path(&table.cwd.join(&file.path));
                if !reads(&absolute) {
                    return None;
                }
                Some(match (table.discovered)(&absolute) {
                    Some(id) if file.discovered => id,
                    _ => table.sources.add_unread(file.name.clone(), absolute),
                })
            })
            .collect::<Option<_>>()?;
        let span = |s: &StoredSpan| -> Option<Span> {
            let file = *ids.get(s.file as usize)?;
            (s.start <= s.end).then_some(Span {
                file,
                start: s.start,
                end: s.end,
            })
        };
        let restore = |stored: &StoredFinding| -> Option<Finding> {
            let rule = crate::rules::find(&stored.rule)?;
            let related = stored
                .related
                .iter()
                .map(|(s, message)| {
                    Some(Related {
                        span: span(s)?,
                        message: message.clone(),
                    })
                })
                .collect::<Option<Vec<Related>>>()?;
            let fix = match &stored.fix {
                Some(fix) => {
                    let edits = fix
                        .edits
                        .iter()
                        .map(|(s, content)| Some(Edit::replace(span(s)?, content.clone())))
                        .collect::<Option<Vec<Edit>>>()?;
                    Some(Box::new(Fix {
                        message: fix.message.clone(),
                        applicability: fix.applicability,
                        edits,
                    }))
                }
                None => None,
            };
            Some(Finding {
                rule: rule.id,
                kind: stored.kind,
                severity: stored.severity,
                message: stored.message.clone(),
                span: span(&stored.span)?,
                label: stored.label.clone(),
                path: stored.path.clone(),
                related,
                help: stored.help.clone(),
                occurrence: 0,
                left_out: stored.left_out,
                fix,
            })
        };
        let findings = self.findings.iter().map(restore).collect::<Option<_>>()?;
        let crd_problems = self
            .crd_problems
            .iter()
            .map(restore)
            .collect::<Option<_>>()?;
        let exports = match &self.schema_export {
            Some((s, with_rules, ytt)) => Some((span(s)?, with_rules.clone(), ytt.clone())),
            None => None,
        };
        Some(Restored {
            findings,
            crd_problems,
            exports,
        })
    }
}

/// What a unit's key was made of when it was last checked: a miss is
/// explained by which part differs now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitRecord {
    pub key: Digest,
    /// The paths of the files it read.
    pub paths: Digest,
    /// The run's settings.
    pub settings: Digest,
    /// The Kubernetes catalog's files.
    pub catalog: Digest,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Store {
    format: u32,
    version: String,
    /// Counts the runs that wrote the store: an entry's age.
    run: u64,
    entries: HashMap<Digest, StoredOutcome>,
    /// The last record of each unit, by name.
    #[serde(default)]
    units: HashMap<String, UnitRecord>,
}

/// The results of one run: what the last runs left, and what this one
/// checked.
#[derive(Debug)]
pub struct Results {
    location: CacheLocation,
    usable: bool,
    run: u64,
    old: HashMap<Digest, StoredOutcome>,
    used: Mutex<Vec<Digest>>,
    new: Mutex<HashMap<Digest, StoredOutcome>>,
    old_units: HashMap<String, UnitRecord>,
    new_units: Mutex<Vec<(String, UnitRecord)>>,
    /// Whether the store held entries this build cannot read: said once.
    pub unreadable: bool,
    hits: AtomicUsize,
}

impl Results {
    /// The results in `dir`; empty when there are none or they cannot be
    /// read (then [`Results::unreadable`] says so, unless there were none).
    pub fn open(location: &CacheLocation) -> Results {
        let dir = &location.dir;
        let path = dir.join(FILE);
        let usable = !is_link(dir) && !is_link(&path);
        let bytes = usable
            .then(|| crate::source::read_limited(&path).ok())
            .flatten();
        // A store whose seal does not verify (brought by the checkout, or
        // edited) is read as no store, and said to be unreadable.
        let store = bytes
            .as_ref()
            .and_then(|bytes| location.open(FILE, bytes))
            .and_then(|body| serde_json::from_slice::<Store>(body).ok())
            .filter(|s| s.format == FORMAT && s.version == super::BUILD);
        let unreadable = bytes.is_some() && store.is_none();
        let store = store.unwrap_or_default();
        Results {
            location: location.clone(),
            usable,
            run: store.run + 1,
            old: store.entries,
            used: Mutex::new(Vec::new()),
            new: Mutex::new(HashMap::new()),
            old_units: store.units,
            new_units: Mutex::new(Vec::new()),
            unreadable,
            hits: AtomicUsize::new(0),
        }
    }

    /// The stored outcome of the unit whose inputs hash to `key`.
    pub fn get(&self, key: &Digest) -> Option<&StoredOutcome> {
        self.old.get(key)
    }

    /// Count the outcome stored under `key` as reused (it is kept).
    pub fn reused(&self, key: &Digest) {
        lock(&self.used).push(*key);
        self.hits.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether an outcome is stored under `key` (not counted as a use).
    pub fn holds(&self, key: &Digest) -> bool {
        self.old.contains_key(key)
    }

    /// What the unit named `name` was keyed by when last checked.
    pub fn previous(&self, name: &str) -> Option<&UnitRecord> {
        self.old_units.get(name)
    }

    /// Remember what the unit named `name` is keyed by now.
    pub fn record(&self, name: String, record: UnitRecord) {
        lock(&self.new_units).push((name, record));
    }

    /// Keep the outcome of the unit whose inputs hash to `key`.
    pub fn put(&self, key: Digest, outcome: StoredOutcome) {
        lock(&self.new).insert(key, outcome);
    }

    /// Write the store: this run's entries, and earlier ones still young.
    /// Best effort, like the index. Nothing is written when every unit was
    /// a hit and nothing aged out.
    pub fn save(self) {
        let used = self.used.into_inner().unwrap_or_else(|e| e.into_inner());
        let new = self.new.into_inner().unwrap_or_else(|e| e.into_inner());
        let new_units = self
            .new_units
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        let units_unchanged = new_units
            .iter()
            .all(|(name, record)| self.old_units.get(name) == Some(record));
        // Only runs that checked something write; an entry ages by the
        // runs that write, so one reused by runs in between is not lost.
        if !self.usable || (new.is_empty() && units_unchanged) {
            return;
        }
        let run = self.run;
        let mut entries = self.old;
        for key in used {
            if let Some(entry) = entries.get_mut(&key) {
                entry.last_used = run;
            }
        }
        for (key, mut outcome) in new {
            outcome.last_used = run;
            entries.insert(key, outcome);
        }
        entries.retain(|_, e| run.saturating_sub(e.last_used) < MAX_AGE);
        if entries.len() > MAX_ENTRIES {
            let mut ages: Vec<u64> = entries.values().map(|e| e.last_used).collect();
            ages.sort_unstable_by(|a, b| b.cmp(a));
            let oldest_kept = ages[MAX_ENTRIES - 1];
            entries.retain(|_, e| e.last_used >= oldest_kept);
        }
        let mut units = self.old_units;
        units.extend(new_units);
        // A record whose outcome is gone explains nothing more than none.
        units.retain(|_, record| entries.contains_key(&record.key));
        let store = Store {
            format: FORMAT,
            version: super::BUILD.to_string(),
            run,
            entries,
            units,
        };
        if let Ok(bytes) = serde_json::to_vec(&store) {
            let _ = write_sealed(&self.location, FILE, &bytes);
        }
    }

    /// How many units were reused so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }
}
