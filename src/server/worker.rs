//! The server's checks, on a thread of their own so the editor is never
//! kept waiting: the message loop hands each change over and goes on
//! answering. Changes waiting for the thread are merged, the newest text of
//! each document winning, and a check whose document changed meanwhile is
//! dropped by the loop: an older check never overwrites a newer one.

use super::workspace::{Scope, WorkspaceUnits};
use crate::config::{ConfigSource, LoadOptions};
use crate::finding::Finding;
use crate::navigate::WorkspaceMemo;
use crate::run::{LintRequest, LintResult, lint};
use crate::source::{Files, Sources};
use crossbeam_channel::{Receiver, Sender};
use lsp_types::Uri;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One document to check at one version.
pub struct Job {
    pub uri: Uri,
    pub version: i32,
    pub path: PathBuf,
    pub text: String,
    /// The workspace folder holding it.
    pub root: PathBuf,
    /// What the folder's navigators keep: the ytt packages found go there.
    pub memo: Arc<WorkspaceMemo>,
    /// Set when a newer version of the document came: the check stops.
    pub cancel: Arc<AtomicBool>,
    /// The open documents' texts standing in for their files.
    pub files: Files,
}

/// What the thread is told.
pub enum Command {
    Check(Job),
    /// Files of this folder changed on disk (or its configuration): its
    /// units are found again at the next check.
    Forget(PathBuf),
}

/// What the thread tells the message loop, in the order it happened.
pub enum Event {
    Checked(Done),
    /// The folder at `root` is indexed whole (its units and every link of
    /// its files), after the first check of one of its documents was sent.
    Indexed(Indexed),
}

/// A folder indexed whole.
pub struct Indexed {
    pub root: PathBuf,
    /// Its files of a system.
    pub files: usize,
    /// Its ytt packages.
    pub packages: usize,
}

/// A finished check.
pub struct Done {
    pub uri: Uri,
    pub version: i32,
    /// The findings of every file of the unit, by path: other open
    /// documents of the unit get theirs too.
    pub findings: HashMap<PathBuf, Vec<Finding>>,
    pub sources: Sources,
    /// The files the check covered: their findings are all in `findings`
    /// (none when a file has none).
    pub covered: Scope,
    /// What is wrong with the folder's `.confvet.yaml`, said to the user
    /// once: a configuration with errors stops every check, as in `confvet
    /// lint`, and one that cannot be read is left out.
    pub config_problem: Option<String>,
}

impl Done {
    /// The findings of the file at `path`.
    pub fn findings_of(&self, path: &Path) -> Vec<Finding> {
        let path = crate::source::normalize_path(path);
        self.findings.get(&path).cloned().unwrap_or_default()
    }
}

/// Start the thread: it checks what `commands` hands it until that channel
/// closes, and sends each result to `done`.
pub fn spawn(commands: Receiver<Command>, done: Sender<Event>) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("confvet-check".into())
        .spawn(move || {
            let mut units: HashMap<PathBuf, WorkspaceUnits> = HashMap::new();
            let mut waiting: Vec<Job> = Vec::new();
            // Folders whose first check was sent and whose index is not
            // complete yet: completed while no check waits.
            let mut incomplete: Vec<PathBuf> = Vec::new();
            loop {
                if waiting.is_empty() {
                    let command = match incomplete.first().cloned() {
                        Some(root) => match commands.try_recv() {
                            Ok(command) => command,
                            Err(crossbeam_channel::TryRecvError::Empty) => {
                                let Some(found) = units.get_mut(&root) else {
                                    incomplete.remove(0);
                                    continue;
                                };
                                match complete_step(&root, found, &done) {
                                    Some(true) => {
                                        incomplete.remove(0);
                                    }
                                    Some(false) => {}
                                    None => return,
                                }
                                continue;
                            }
                            Err(crossbeam_channel::TryRecvError::Disconnected) => return,
                        },
                        None => match commands.recv() {
                            Ok(command) => command,
                            Err(_) => return,
                        },
                    };
                    take(command, &mut waiting, &mut units);
                }
                // Everything sent meanwhile, the newest version of each
                // document replacing an older one.
                while let Ok(command) = commands.try_recv() {
                    take(command, &mut waiting, &mut units);
                }
                if waiting.is_empty() {
                    continue;
                }
                let job = waiting.remove(0);
                if job.cancel.load(Ordering::Relaxed) {
                    continue;
                }
                // A bug must not end the thread: the document keeps its
                // last diagnostics, and its units are found again.
                let fresh = !units.contains_key(&job.root);
                match crate::watchdog::catch(|| check(&job, &mut units)) {
                    Ok(result) => {
                        if done.send(Event::Checked(result)).is_err() {
                            return;
                        }
                    }
                    Err(_) => {
                        units.clear();
                        continue;
                    }
                }
                // The folder's first check is sent: the rest of its index
                // (the links of the systems that check did not need) once
                // no other check waits.
                if fresh && units.contains_key(&job.root) && !incomplete.contains(&job.root) {
                    incomplete.push(job.root.clone());
                }
            }
        })
        .map(drop)
}

/// Take a command into the checks waiting: a document's newest version
/// replaces an older one.
fn take(command: Command, waiting: &mut Vec<Job>, units: &mut HashMap<PathBuf, WorkspaceUnits>) {
    match command {
        Command::Check(job) => {
            waiting.retain(|j| j.uri != job.uri);
            waiting.push(job);
        }
        Command::Forget(root) => {
            units.retain(|r, _| !r.starts_with(&root) && !root.starts_with(r));
        }
    }
}

/// One more step of the index of the folder at `root`, said once it is
/// complete: whether it is, None when the message loop is gone.
fn complete_step(root: &Path, found: &mut WorkspaceUnits, done: &Sender<Event>) -> Option<bool> {
    // A bug must not end the thread: the links left are read when a check
    // asks for them, and the folder is not said to be indexed.
    match crate::watchdog::catch(|| found.complete_step()) {
        Ok(true) => {}
        Ok(false) => return Some(false),
        Err(_) => return Some(true),
    }
    let (files, packages) = found.counts();
    let indexed = Indexed {
        root: root.to_path_buf(),
        files,
        packages,
    };
    done.send(Event::Indexed(indexed)).ok().map(|()| true)
}

/// Lint the unit of the job's document, its text standing in for the file.
pub fn check(job: &Job, units: &mut HashMap<PathBuf, WorkspaceUnits>) -> Done {
    let sources = Sources::with_files(job.files.clone());
    sources.set_stdin(job.path.clone(), job.text.clone().into_bytes());
    let (config, mut config_problem) = match crate::config::load(
        &ConfigSource::Search,
        &job.root,
        &sources,
        LoadOptions::default(),
    ) {
        Ok(config) => (config, None),
        Err(error) => (
            None,
            Some(format!(
                "confvet: the configuration could not be read ({error}); files are checked without it"
            )),
        ),
    };
    if let Some(config) = config.as_ref().filter(|c| c.has_errors()) {
        let errors = config
            .findings
            .iter()
            .filter(|f| f.severity == crate::finding::Severity::Error)
            .count();
        config_problem = Some(format!(
            "confvet: {} has {errors} error{}; no file is checked until it is fixed",
            config.path.display(),
            if errors == 1 { "" } else { "s" }
        ));
    }
    let (result, covered) = match config.as_ref().filter(|c| c.has_errors()) {
        // As `confvet lint`: a configuration with errors stops the run.
        Some(config) => (LintResult::blocked_by(config, &sources), Scope::Walk),
        None => {
            let units = units.entry(job.root.clone()).or_insert_with(|| {
                WorkspaceUnits::build(&job.root, config.as_ref(), &job.memo, &job.files)
            });
            let scope = units.scope(&job.path, &job.root, &sources);
            // A Tekton unit reads no CRD, unless its plain documents are
            // checked as manifests.
            let reads_crds = units.system(&job.path) != Some(crate::discover::System::Tekton)
                || config
                    .as_ref()
                    .is_some_and(crate::config::Config::kubernetes_manifests);
            let known_crds = if reads_crds {
                units.known_crds(&job.files)
            } else {
                Default::default()
            };
            let covered = scope.clone();
            let (paths, named_only) = match scope {
                // The document too: new and unsaved, the walk of its
                // package does not find it.
                Scope::Package(root) => (vec![root, job.path.clone()], false),
                Scope::Files(files) => (files, true),
                Scope::Walk => (vec![job.path.clone()], false),
            };
            // What `confvet lint FILE` checks, with the defaults of its
            // flags, reporting on every file of the unit.
            let request = LintRequest {
                paths,
                named_only,
                known_crds,
                whole_units: true,
                cancel: Some(Arc::clone(&job.cancel)),
                config,
                kubernetes: crate::check::kubernetes::tree::Options {
                    check: true,
                    ..Default::default()
                },
                ..LintRequest::default()
            };
            (lint(&request, &sources, &job.root), covered)
        }
    };
    let mut findings: HashMap<PathBuf, Vec<Finding>> = HashMap::new();
    for finding in result.findings {
        if let Some(path) = sources.path(finding.span.file) {
            findings.entry(path).or_default().push(finding);
        }
    }
    Done {
        uri: job.uri.clone(),
        version: job.version,
        findings,
        sources,
        covered,
        config_problem,
    }
}
