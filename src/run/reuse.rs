//! Reusing each unit's findings from the cache: which units of a run can be
//! reused (their key, see `inputs`), the outcome of those that are, the
//! outcome of the others stored for the next run, and why each unit was
//! not reused (`--explain-cache`, `--statistics`).

use super::inputs::{KeyContext, UnitKey, unit_reads};
use super::request::LintRequest;
use crate::cache::Cache;
use crate::cache::results::{FileTable, Results, StoredOutcome, UnitRecord};
use crate::check::kubernetes::{Catalog, Lookups};
use crate::check::ytt::drift::SchemaExport;
use crate::check::ytt::{PackageOutcome, marks};
use crate::discover::{DiscoveredFile, System, Unit};
use crate::source::{FileId, Sources, display_dir};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Why a unit's findings were not reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Miss {
    /// Never checked with a cache before (or its record aged out).
    New,
    /// The configuration, the command line or confvet changed.
    Settings,
    /// A CRD or schema file its output is checked against changed.
    Schemas,
    /// A file it reads was added, removed or renamed.
    Files,
    /// The content of a file it reads changed.
    Content,
    /// Its key is the last one, but the stored findings were dropped.
    Dropped,
    /// Its findings are never stored: a data-value flag reads environment
    /// variables, which findings may quote.
    Environment,
    /// Its findings could not be stored: a failure, a limit, or a finding in
    /// a command-line value.
    NotStorable,
    /// Its stored findings named a file the unit does not read: the entry
    /// is corrupt (or forged) and was ignored.
    Corrupt,
}

impl Miss {
    pub fn says(self) -> &'static str {
        match self {
            Miss::New => "not checked with this cache before",
            Miss::Settings => "the configuration, the command line or confvet changed",
            Miss::Schemas => "a CRD or schema file its output is checked against changed",
            Miss::Files => "a file it reads was added, removed or renamed",
            Miss::Content => "a file it reads changed",
            Miss::Dropped => "its stored findings were dropped (the cache's bounds)",
            Miss::Environment => {
                "data values come from environment variables, which the cache never stores"
            }
            Miss::NotStorable => "not stored last time: it failed or hit a limit",
            Miss::Corrupt => {
                "its stored findings named a file it does not read, and were ignored as corrupt"
            }
        }
    }
}

/// Which units of a run reused their findings, and why the others did not.
#[derive(Debug, Default)]
pub struct Reuse {
    pub units: usize,
    pub reused: usize,
    /// Each unit checked, by name (`ytt pkg/`), with why.
    pub checked: Vec<(String, Miss)>,
    /// The store could not be read (written by another build, or corrupt).
    pub unreadable: bool,
}

impl Reuse {
    /// One line: how many units were reused, and the reasons counted.
    pub fn summary(&self) -> String {
        let mut counts: std::collections::BTreeMap<Miss, usize> = Default::default();
        for (_, why) in &self.checked {
            *counts.entry(*why).or_default() += 1;
        }
        let mut line = format!(
            "cache: {} of {} units reused, {} checked",
            self.reused,
            self.units,
            self.checked.len()
        );
        if !counts.is_empty() {
            let reasons: Vec<String> = counts
                .iter()
                .map(|(why, count)| format!("{count}: {}", why.says()))
                .collect();
            line.push_str(&format!(" ({})", reasons.join("; ")));
        }
        if self.unreadable {
            line.push_str("; the stored results could not be read and were ignored");
        }
        line
    }
}

/// A unit's place in the plan.
enum Slot {
    Keyed(UnitKey),
    Unkeyed(Miss),
}

/// The reuse of one run's units, indexed like the run's units.
pub struct Plan<'a> {
    units: &'a [Unit],
    files: &'a [DiscoveredFile],
    /// The results store, read when the first unit asks: by then the run
    /// has written and dropped the cache's index, so the two (each tens of
    /// megabytes in a large tree) are not held at once.
    results: std::sync::OnceLock<Results>,
    location: crate::cache::CacheLocation,
    slots: Vec<Slot>,
    names: Vec<String>,
    misses: Mutex<Vec<(usize, Miss)>>,
    /// Units whose stored outcome could not be restored.
    corrupt: Mutex<std::collections::HashSet<usize>>,
    /// The files every unit may point into (see `KeyContext::shared_reads`).
    shared_reads: std::collections::HashSet<PathBuf>,
    /// The CRD problems the reused units stored.
    crd_problems: Mutex<Vec<crate::finding::Finding>>,
    /// The ids of the files discovery registered, by path, borrowed.
    discovered: HashMap<&'a Path, FileId>,
    /// The ids of the Kubernetes catalog's own files.
    catalog_files: HashMap<PathBuf, FileId>,
    settings: crate::cache::Digest,
    catalog_digest: crate::cache::Digest,
    catalog: Option<&'a Catalog>,
    sources: &'a Sources,
    cwd: &'a Path,
}

impl<'a> Plan<'a> {
    /// The plan of a run with a cache; None without one, or when standard
    /// input or an overlay stands in for a file (its bytes are not the
    /// file's), or when
    /// the run keeps outputs a cache does not hold.
    pub fn new(
        request: &LintRequest,
        cache: Option<&Cache>,
        (units, files, resources): (&'a [Unit], &'a [DiscoveredFile], &'a [DiscoveredFile]),
        package_inputs: &HashMap<PathBuf, std::sync::Arc<marks::Inputs>>,
        catalog: Option<&'a Catalog>,
        (sources, cwd): (&'a Sources, &'a Path),
    ) -> Option<Plan<'a>> {
        let cache = cache?;
        let location = request.cache.as_ref()?;
        if sources.stdin_path().is_some() || sources.files().has_overlay() || request.keep_outputs {
            return None;
        }
        let catalog_files = catalog.map(Catalog::files).unwrap_or_default();
        let catalog_inputs = catalog.map(|c| {
            (
                c.version,
                catalog_files.iter().map(|f| f.0.clone()).collect(),
            )
        });
        let mut context = KeyContext::new(request, cache, cwd, catalog_inputs);
        // On all cores: hashing every unit's files was a third of a warm run.
        use rayon::prelude::*;
        let slots = units
            .par_iter()
            .map(|unit| {
                if unit.system == System::Ytt && context.reads_environment {
                    return Slot::Unkeyed(Miss::Environment);
                }
                let inputs = package_inputs.get(&unit.root).map(|i| i.as_ref());
                Slot::Keyed(context.unit_key(unit, files, inputs))
            })
            .collect();
        let shared_reads = std::mem::take(&mut context.shared_reads);
        let names = units
            .iter()
            .map(|unit| format!("{} {}", unit.system.name(), display_dir(&unit.key, cwd)))
            .collect();
        let discovered = files
            .iter()
            .chain(resources)
            .map(|f| (f.path.as_path(), f.id))
            .collect();
        Some(Plan {
            units,
            files,
            results: std::sync::OnceLock::new(),
            location: location.clone(),
            slots,
            names,
            misses: Mutex::new(Vec::new()),
            corrupt: Mutex::new(Default::default()),
            shared_reads,
            crd_problems: Mutex::new(Vec::new()),
            discovered,
            catalog_files: catalog_files.into_iter().collect(),
            settings: context.settings,
            catalog_digest: context.catalog,
            catalog,
            sources,
            cwd,
        })
    }

    /// The run's id of a file discovery registered, or of the catalog's
    /// own files: a CRD problem a reused unit stored is then the same
    /// finding as the one a checked unit reports.
    fn discovered_id(&self, path: &Path) -> Option<FileId> {
        self.discovered
            .get(path)
            .or_else(|| self.catalog_files.get(path))
            .copied()
    }

    fn results(&self) -> &Results {
        self.results.get_or_init(|| Results::open(&self.location))
    }

    /// Finds files for the results store (through [`Plan::discovered_id`]).
    fn with_table<T>(&self, f: impl FnOnce(&FileTable<'_>) -> T) -> T {
        let lookup = |path: &Path| self.discovered_id(path);
        f(&FileTable {
            sources: self.sources,
            cwd: self.cwd,
            discovered: &lookup,
        })
    }

    /// The stored outcome of unit `index`, when its key is found, with its
    /// schema's exports when it stored them; `inputs` is the unit's package
    /// listing when it is a ytt package (passed, not held: the run drops
    /// the listings once the units are checked).
    pub fn reused(
        &self,
        index: usize,
        inputs: Option<&marks::Inputs>,
    ) -> Option<(PackageOutcome, Option<SchemaExport>)> {
        let Slot::Keyed(key) = &self.slots[index] else {
            return None;
        };
        let stored = self.results().get(&key.key)?;
        let unit = &self.units[index];
        let reads = |path: &Path| {
            unit_reads(unit, self.files, inputs, path) || self.shared_reads.contains(path)
        };
        let Some(restored) = self.with_table(|table| stored.restore(table, &reads)) else {
            self.corrupt
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(index);
            return None;
        };
        self.results().reused(&key.key);
        self.crd_problems
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(restored.crd_problems);
        let export = restored
            .exports
            .map(|(span, with_rules, ytt_compatible)| SchemaExport {
                span,
                with_rules,
                ytt_compatible,
            });
        let outcome = PackageOutcome {
            findings: restored.findings,
            kind_lookups: Lookups {
                skipped: stored.skipped_kinds.clone(),
                ..Lookups::default()
            },
            ..PackageOutcome::default()
        };
        Some((outcome, export))
    }

    /// Store the outcome of unit `index`, just checked, for the next run.
    pub fn store(&self, index: usize, outcome: &PackageOutcome, export: Option<&SchemaExport>) {
        let why = match &self.slots[index] {
            Slot::Unkeyed(why) => *why,
            Slot::Keyed(key) => {
                let crd_kinds: Vec<(String, String)> =
                    outcome.kind_lookups.crd_kinds.iter().cloned().collect();
                let crd_problems = self
                    .catalog
                    .map(|c| c.problems_of(&crd_kinds))
                    .unwrap_or_default();
                let exports =
                    export.map(|e| (e.span, e.with_rules.clone(), e.ytt_compatible.clone()));
                let stored = self.with_table(|table| {
                    StoredOutcome::new(
                        (&outcome.findings, &crd_problems),
                        exports.as_ref(),
                        &outcome.kind_lookups.skipped,
                        table,
                    )
                });
                let why = self.why_missed(index, key);
                if let Some(stored) = stored {
                    self.results().put(key.key, stored);
                    let record = UnitRecord {
                        key: key.key,
                        paths: key.paths,
                        settings: self.settings,
                        catalog: self.catalog_digest,
                    };
                    self.results().record(self.names[index].clone(), record);
                }
                why
            }
        };
        self.misses
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((index, why));
    }

    fn why_missed(&self, index: usize, key: &UnitKey) -> Miss {
        if lock_set(&self.corrupt).contains(&index) {
            return Miss::Corrupt;
        }
        let Some(previous) = self.results().previous(&self.names[index]) else {
            return Miss::New;
        };
        if previous.key == key.key {
            return if self.results().holds(&key.key) {
                Miss::NotStorable
            } else {
                Miss::Dropped
            };
        }
        if previous.settings != self.settings {
            Miss::Settings
        } else if previous.catalog != self.catalog_digest {
            Miss::Schemas
        } else if previous.paths != key.paths {
            Miss::Files
        } else {
            Miss::Content
        }
    }

    /// The CRD problems the reused units stored, to report with the
    /// catalog's own.
    pub fn take_crd_problems(&self) -> Vec<crate::finding::Finding> {
        std::mem::take(&mut *self.crd_problems.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Write the store, and say what was reused.
    pub fn finish(self) -> Reuse {
        let mut misses = self.misses.into_inner().unwrap_or_else(|e| e.into_inner());
        misses.sort();
        let results = (self.results.into_inner()).unwrap_or_else(|| Results::open(&self.location));
        let reuse = Reuse {
            units: self.slots.len(),
            reused: results.hits(),
            checked: misses
                .into_iter()
                .map(|(index, why)| (self.names[index].clone(), why))
                .collect(),
            unreadable: results.unreadable,
        };
        results.save();
        reuse
    }
}

fn lock_set(
    set: &Mutex<std::collections::HashSet<usize>>,
) -> std::sync::MutexGuard<'_, std::collections::HashSet<usize>> {
    set.lock().unwrap_or_else(|e| e.into_inner())
}
