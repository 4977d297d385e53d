//! `confvet server`: a language server over stdio. Each open or changed
//! document is linted with its unit, every open document's buffer standing
//! in for its file on disk, on a thread of its own (`worker`); only the
//! unit the change touches is checked again (`workspace`). Findings are
//! pushed as diagnostics, or pulled by clients that ask for them; their
//! fixes are quick fixes, the safe ones together `source.fixAll.confvet`,
//! and any finding may be suppressed by a comment (`actions`). Hover,
//! definition and completion come from each system's navigator
//! (`crate::navigate`).
//!
//! Built on `lsp-server` and `lsp-types`, the crates rust-analyzer and ruff
//! use: a synchronous message loop over stdio (or memory, for tests), with
//! the protocol's types, and nothing else. The stdio transport is our own
//! (`transport`): a frame it cannot read is answered with an error and the
//! server goes on.

// lsp-types' `Uri` caches its parse inside itself, which clippy takes for
// a mutable key; its hash and equality never change, and the protocol's
// `WorkspaceEdit` is keyed by it.
#![allow(clippy::mutable_key_type)]

pub mod actions;
pub mod convert;
mod navigation;
pub mod transport;
pub mod worker;
pub mod workspace;

use crate::finding::Finding;
use crate::navigate::WorkspaceMemo;
use crate::source::{Files, Sources};
use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidChangeWatchedFiles, DidChangeWorkspaceFolders,
    DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Exit, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, DocumentDiagnosticRequest, GotoDefinition, HoverRequest,
    Initialize, RegisterCapability, Request as _, Shutdown,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    DiagnosticOptions, DiagnosticServerCapabilities, DidChangeWatchedFilesRegistrationOptions,
    FileSystemWatcher, GlobPattern, HoverProviderCapability, InitializeParams, OneOf,
    PublishDiagnosticsParams, Registration, RegistrationParams, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, Uri, WorkspaceFoldersServerCapabilities,
    WorkspaceServerCapabilities,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The code action kind of "apply every safe fix of this file".
pub const FIX_ALL: &str = "source.fixAll.confvet";

/// One open document.
struct Document {
    path: PathBuf,
    version: i32,
    text: String,
    /// Its last check, at the version it checked.
    checked: Option<Checked>,
    /// Its navigators, built at a version when first asked.
    navigation: Option<navigation::Navigation>,
    /// Cancels its check under way.
    cancel: Option<Arc<AtomicBool>>,
}

/// A document's findings at one version.
struct Checked {
    version: i32,
    findings: Vec<Finding>,
    sources: Sources,
    /// What its check covered: its unit, when known.
    covered: workspace::Scope,
}

impl Checked {
    fn diagnostics(&self) -> Vec<lsp_types::Diagnostic> {
        self.findings
            .iter()
            .map(|f| convert::diagnostic(f, &self.sources))
            .collect()
    }
}

/// How a session ended, which decides the process's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `shutdown`, then `exit` or the end of input: status 0.
    ShutDown,
    /// `exit` without `shutdown` before it (at any time, before
    /// `initialize` too): status 1, as the protocol says.
    ExitWithoutShutdown,
    /// The input ended before `shutdown`: the client went away without
    /// asking, counted as `exit` without `shutdown`: status 1.
    InputClosed,
}

impl Ending {
    /// The process's exit status.
    pub fn status(self) -> u8 {
        match self {
            Ending::ShutDown => 0,
            Ending::ExitWithoutShutdown | Ending::InputClosed => 1,
        }
    }
}

/// Why the server stopped other than by the client's word.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("reading or writing messages: {0}")]
    Transport(std::io::Error),
    #[error("starting the check thread: {0}")]
    Worker(std::io::Error),
    #[error("describing the server's capabilities: {0}")]
    Capabilities(serde_json::Error),
}

/// Serve on standard input and output until the client exits.
pub fn run_stdio() -> Result<Ending, ServerError> {
    let (connection, threads) = transport::stdio().map_err(ServerError::Transport)?;
    let ending = serve(&connection)?;
    drop(connection);
    threads.join().map_err(ServerError::Transport)?;
    Ok(ending)
}

/// The server's capabilities.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::new(FIX_ALL)]),
            ..CodeActionOptions::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into(), "@".into(), "/".into(), "(".into()]),
            ..CompletionOptions::default()
        }),
        diagnostic_provider: Some(DiagnosticServerCapabilities::Options(DiagnosticOptions {
            identifier: Some("confvet".into()),
            // A values file's findings change when its schema does.
            inter_file_dependencies: true,
            workspace_diagnostics: false,
            ..DiagnosticOptions::default()
        })),
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}

/// Initialize, then answer until `exit` or the end of input.
pub fn serve(connection: &Connection) -> Result<Ending, ServerError> {
    let capabilities = serde_json::to_value(capabilities()).map_err(ServerError::Capabilities)?;
    let params = match handshake(connection, capabilities) {
        Ok(params) => params,
        Err(ending) => return Ok(ending),
    };
    #[allow(deprecated)] // root_uri: clients without workspace folders send it
    let mut folders: Vec<PathBuf> = params
        .workspace_folders
        .unwrap_or_default()
        .iter()
        .filter_map(|folder| convert::path_of(&folder.uri))
        .chain(params.root_uri.as_ref().and_then(convert::path_of))
        .map(|p| crate::source::normalize_path(&p))
        .collect();
    folders.sort();
    folders.dedup();
    let text_caps = params.capabilities.text_document.as_ref();
    // A client that pulls diagnostics is not also pushed them: it would
    // show each twice.
    let pulls = text_caps.is_some_and(|t| t.diagnostic.is_some());
    let watches = params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files)
        .and_then(|w| w.dynamic_registration)
        .unwrap_or(false);
    let (commands, commands_out) = crossbeam_channel::unbounded();
    let (done_in, done) = crossbeam_channel::unbounded();
    worker::spawn(commands_out, done_in).map_err(ServerError::Worker)?;
    let mut server = Server {
        folders,
        documents: HashMap::new(),
        files: Files::disk(),
        memos: HashMap::new(),
        indexed: Default::default(),
        pulls,
        waiting_pulls: Vec::new(),
        commands,
        outbox: Vec::new(),
        config_problem: None,
        config_published: Vec::new(),
    };
    if watches {
        server.watch_files();
    }
    server.flush(connection);
    let ending = server.serve(connection, &done);
    Ok(ending)
}

/// Wait for `initialize` and answer it with `capabilities`. Before it,
/// requests are refused with `ServerNotInitialized` and notifications
/// dropped, as the protocol says; `exit` or the end of input ends the
/// session. `initialized` is not waited for: it is dropped with the other
/// notifications the loop does not use.
fn handshake(
    connection: &Connection,
    capabilities: serde_json::Value,
) -> Result<InitializeParams, Ending> {
    loop {
        let Ok(message) = connection.receiver.recv() else {
            return Err(Ending::InputClosed);
        };
        let answer = match message {
            Message::Request(request) if request.method == Initialize::METHOD => {
                match serde_json::from_value::<InitializeParams>(request.params) {
                    Ok(params) => {
                        let result = serde_json::json!({ "capabilities": capabilities });
                        let _ = connection
                            .sender
                            .send(Response::new_ok(request.id, result).into());
                        return Ok(params);
                    }
                    // The client may try again.
                    Err(error) => Response::new_err(
                        request.id,
                        ErrorCode::InvalidParams as i32,
                        error.to_string(),
                    ),
                }
            }
            Message::Request(request) => Response::new_err(
                request.id,
                ErrorCode::ServerNotInitialized as i32,
                format!("{} before initialize", request.method),
            ),
            Message::Notification(notification) if notification.method == Exit::METHOD => {
                return Err(Ending::ExitWithoutShutdown);
            }
            Message::Notification(_) | Message::Response(_) => continue,
        };
        // The client is gone: the loop ends when its messages do.
        let _ = connection.sender.send(answer.into());
    }
}

/// After `shutdown`: wait for `exit` (or the end of input), refusing
/// requests, as the protocol says.
fn shut_down(connection: &Connection) -> Ending {
    loop {
        match connection.receiver.recv() {
            Err(_) => return Ending::ShutDown,
            Ok(Message::Notification(notification)) if notification.method == Exit::METHOD => {
                return Ending::ShutDown;
            }
            Ok(Message::Request(request)) => {
                let refused = Response::new_err(
                    request.id,
                    ErrorCode::InvalidRequest as i32,
                    format!("{} after shutdown", request.method),
                );
                let _ = connection.sender.send(refused.into());
            }
            Ok(_) => {}
        }
    }
}

struct Server {
    folders: Vec<PathBuf>,
    documents: HashMap<Uri, Document>,
    /// The open documents' texts standing in for their files: each check
    /// and navigation reads through a snapshot of it.
    files: Files,
    /// What navigators keep of each folder between documents.
    memos: HashMap<PathBuf, Arc<WorkspaceMemo>>,
    /// Folders whose navigators' index was built in the background.
    indexed: std::collections::HashSet<PathBuf>,
    /// The client pulls diagnostics (`textDocument/diagnostic`).
    pulls: bool,
    /// Pulls of documents whose check is under way.
    waiting_pulls: Vec<(RequestId, Uri)>,
    commands: Sender<worker::Command>,
    /// Messages to send once the current one is handled.
    outbox: Vec<Message>,
    /// The configuration problem last shown, so each is shown once, and
    /// the configuration files given its findings (cleared once it is
    /// fixed).
    config_problem: Option<String>,
    config_published: Vec<Uri>,
}

impl Server {
    fn serve(&mut self, connection: &Connection, done: &Receiver<worker::Event>) -> Ending {
        loop {
            select! {
                recv(connection.receiver) -> message => {
                    let Ok(message) = message else { return Ending::InputClosed };
                    match message {
                        Message::Request(request) if request.method == Shutdown::METHOD => {
                            self.outbox.push(Response::new_ok(request.id, ()).into());
                            self.flush(connection);
                            return shut_down(connection);
                        }
                        Message::Request(request) => {
                            if let Some(response) = self.answer(request) {
                                self.outbox.push(response.into());
                            }
                        }
                        Message::Notification(notification) if notification.method == Exit::METHOD => {
                            return Ending::ExitWithoutShutdown;
                        }
                        Message::Notification(notification) => self.notified(notification),
                        Message::Response(_) => {}
                    }
                }
                recv(done) -> event => match event {
                    Ok(worker::Event::Checked(finished)) => self.checked(finished),
                    Ok(worker::Event::Indexed(indexed)) => self.indexed(indexed),
                    Err(_) => {}
                },
            }
            self.flush(connection);
        }
    }

    fn flush(&mut self, connection: &Connection) {
        for message in self.outbox.drain(..) {
            // The client is gone: the loop ends when its messages do.
            let _ = connection.sender.send(message);
        }
    }

    /// Ask the client to tell of changes to files on disk: YAML and
    /// Starlark files and configuration files.
    fn watch_files(&mut self) {
        let watchers = [
            "**/*.{yaml,yml,star,json}",
            "**/.confvet.yaml",
            "**/.confvet.yml",
        ]
        .into_iter()
        .map(|glob| FileSystemWatcher {
            glob_pattern: GlobPattern::String(glob.into()),
            kind: None,
        })
        .collect();
        let options = DidChangeWatchedFilesRegistrationOptions { watchers };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "confvet-watched-files".into(),
                method: DidChangeWatchedFiles::METHOD.into(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        self.outbox.push(
            Request::new(
                RequestId::from("confvet-register".to_string()),
                RegisterCapability::METHOD.into(),
                params,
            )
            .into(),
        );
    }

    /// The workspace folder holding `path` (the deepest), else its folder.
    fn root_of(&self, path: &Path) -> PathBuf {
        self.folders
            .iter()
            .filter(|root| path.starts_with(root))
            .max_by_key(|root| root.components().count())
            .cloned()
            .or_else(|| path.parent().map(Path::to_path_buf))
            .unwrap_or_default()
    }

    fn notified(&mut self, notification: Notification) {
        let params = notification.params;
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(params)
                {
                    let document = p.text_document;
                    self.changed(document.uri, document.version, document.text);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(params)
                    // Full sync: the last change is the whole text.
                    && let Some(change) = p.content_changes.into_iter().last()
                {
                    self.changed(p.text_document.uri, p.text_document.version, change.text);
                }
            }
            DidSaveTextDocument::METHOD => {}
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(params)
                    && let Some(document) = self.documents.remove(&p.text_document.uri)
                {
                    self.files.remove_overlay([document.path.as_path()]);
                    if !self.pulls {
                        self.publish(p.text_document.uri, None, Vec::new());
                    }
                    // The unit's other open documents read the file from
                    // disk again.
                    if let Some(checked) = &document.checked {
                        self.recheck_open(|other| checked.covered.covers(&other.path));
                    }
                }
            }
            DidChangeWatchedFiles::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeWatchedFilesParams>(params)
                {
                    self.files_changed(
                        p.changes
                            .iter()
                            .filter_map(|c| convert::path_of(&c.uri))
                            .collect(),
                    );
                }
            }
            DidChangeWorkspaceFolders::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeWorkspaceFoldersParams>(params)
                {
                    let removed: Vec<PathBuf> = p
                        .event
                        .removed
                        .iter()
                        .filter_map(|f| convert::path_of(&f.uri))
                        .collect();
                    self.folders.retain(|f| !removed.contains(f));
                    for folder in p
                        .event
                        .added
                        .iter()
                        .filter_map(|f| convert::path_of(&f.uri))
                    {
                        self.folders.push(crate::source::normalize_path(&folder));
                    }
                    self.folders.sort();
                    self.folders.dedup();
                    for folder in removed {
                        self.memos.remove(&folder);
                        let _ = self.commands.send(worker::Command::Forget(folder));
                    }
                    self.recheck_open(|_| true);
                }
            }
            Cancel::METHOD => {
                if let Ok(p) = serde_json::from_value::<lsp_types::CancelParams>(params) {
                    let id: RequestId = match p.id {
                        lsp_types::NumberOrString::Number(n) => n.into(),
                        lsp_types::NumberOrString::String(s) => s.into(),
                    };
                    if let Some(at) = self.waiting_pulls.iter().position(|(w, _)| *w == id) {
                        self.waiting_pulls.remove(at);
                        self.outbox.push(
                            Response::new_err(
                                id,
                                ErrorCode::RequestCanceled as i32,
                                "cancelled".into(),
                            )
                            .into(),
                        );
                    }
                }
            }
            _ => {}
        }
    }

    /// Files changed on disk: units are found again, navigators forget
    /// what they kept, and open documents are checked again (a changed
    /// configuration applies at once).
    fn files_changed(&mut self, paths: Vec<PathBuf>) {
        let open: Vec<&Path> = self.documents.values().map(|d| d.path.as_path()).collect();
        // An open document saved: its buffer already stood in for it.
        let outside: Vec<PathBuf> = paths
            .into_iter()
            .filter(|p| !open.contains(&p.as_path()))
            .collect();
        if outside.is_empty() {
            return;
        }
        let mut roots: Vec<PathBuf> = outside.iter().map(|p| self.root_of(p)).collect();
        roots.sort();
        roots.dedup();
        for root in roots {
            if let Some(memo) = self.memos.get(&root) {
                memo.clear();
            }
            let _ = self.commands.send(worker::Command::Forget(root));
        }
        self.recheck_open(|_| true);
    }

    /// Check again the open documents `which` picks.
    fn recheck_open(&mut self, which: impl Fn(&Document) -> bool) {
        let jobs: Vec<worker::Job> = self
            .documents
            .iter()
            .filter(|(_, d)| which(d))
            .map(|(uri, d)| (uri.clone(), d.version, d.path.clone(), d.text.clone()))
            .collect::<Vec<_>>()
            .into_iter()
            .map(|(uri, version, path, text)| self.job(uri, version, path, text))
            .collect();
        for job in jobs {
            let _ = self.commands.send(worker::Command::Check(job));
        }
    }

    /// What navigators keep of the folder at `root`.
    fn memo(&mut self, root: &Path) -> Arc<WorkspaceMemo> {
        Arc::clone(self.memos.entry(root.to_path_buf()).or_default())
    }

    fn job(&mut self, uri: Uri, version: i32, path: PathBuf, text: String) -> worker::Job {
        let root = self.root_of(&path);
        let memo = self.memo(&root);
        let cancel = Arc::new(AtomicBool::new(false));
        // A newer version makes the check of the older one pointless.
        if let Some(document) = self.documents.get_mut(&uri)
            && let Some(older) = document.cancel.replace(Arc::clone(&cancel))
        {
            older.store(true, Ordering::Relaxed);
        }
        worker::Job {
            uri,
            version,
            path,
            text,
            root,
            memo,
            cancel,
            files: self.files.clone(),
        }
    }

    /// A document opened or changed: its text stands in for its file from
    /// now on, and it is checked.
    fn changed(&mut self, uri: Uri, version: i32, text: String) {
        let Some(path) = convert::path_of(&uri).map(|p| crate::source::normalize_path(&p)) else {
            return;
        };
        self.files.overlay(&path, text.clone().into_bytes());
        let document = self
            .documents
            .entry(uri.clone())
            .or_insert_with(|| Document {
                path: path.clone(),
                version,
                text: String::new(),
                checked: None,
                navigation: None,
                cancel: None,
            });
        document.version = version;
        document.text = text.clone();
        let job = self.job(uri, version, path, text);
        let _ = self.commands.send(worker::Command::Check(job));
    }

    /// The check thread indexed a folder whole, after the first check of
    /// one of its documents was published: said in the client's log, and
    /// the navigators' index of the folder is built next.
    fn indexed(&mut self, indexed: worker::Indexed) {
        let message = format!(
            "confvet: indexed {}: {} files of a system, {} ytt package{}",
            indexed.root.display(),
            indexed.files,
            indexed.packages,
            if indexed.packages == 1 { "" } else { "s" }
        );
        self.outbox.push(
            Notification::new(
                lsp_types::notification::LogMessage::METHOD.to_string(),
                lsp_types::LogMessageParams {
                    typ: lsp_types::MessageType::LOG,
                    message,
                },
            )
            .into(),
        );
        let uri = self
            .documents
            .iter()
            .find(|(_, d)| self.root_of(&d.path) == indexed.root)
            .map(|(uri, _)| uri.clone());
        if let Some(uri) = uri {
            self.index_in_background(&uri);
        }
    }

    /// Build what navigators keep of the document's folder (an index of
    /// every Task, say) in the background, before a hover asks for it: once
    /// per folder, after its units are indexed, which it would slow down.
    fn index_in_background(&mut self, uri: &Uri) {
        let Some(document) = self.documents.get(uri) else {
            return;
        };
        let root = self.root_of(&document.path);
        if self.indexed.contains(&root) {
            return;
        }
        let (path, text) = (document.path.clone(), document.text.clone());
        self.indexed.insert(root.clone());
        let memo = self.memo(&root);
        let files = self.files.clone();
        let _ = std::thread::Builder::new()
            .name("confvet-index".into())
            .spawn(move || {
                let index = || navigation::warm(&path, text, &root, &memo, &files);
                // On a pool of its own: on the checks' pool, its long
                // parallel work would hold every thread a keystroke's check
                // waits for (half a second in the corpus copied 10x).
                match rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .thread_name(|_| "confvet-index-pool".into())
                    .build()
                {
                    Ok(pool) => pool.install(index),
                    Err(_) => index(),
                }
            });
    }

    /// A check finished: the findings of each open document it covered,
    /// when that document has not changed since.
    fn checked(&mut self, done: worker::Done) {
        let checked_version = done.version;
        let mut published = Vec::new();
        for (uri, document) in &mut self.documents {
            let current = if *uri == done.uri {
                document.version == checked_version
            } else {
                // Another open document of the unit: its buffer stood in
                // for it; a check of its own follows any change of it.
                document.checked.is_some() && done.covered.covers(&document.path)
            };
            if !current {
                continue;
            }
            let findings = done.findings_of(&document.path);
            let changed = document
                .checked
                .as_ref()
                .is_none_or(|c| c.findings != findings || *uri == done.uri);
            document.checked = Some(Checked {
                version: document.version,
                findings,
                sources: done.sources.clone(),
                covered: done.covered.clone(),
            });
            if changed {
                published.push(uri.clone());
            }
        }
        self.say_config_problem(&done);
        for uri in published {
            let Some(document) = self.documents.get(&uri) else {
                continue;
            };
            let Some(checked) = &document.checked else {
                continue;
            };
            let diagnostics = checked.diagnostics();
            let version = checked.version;
            if self.pulls {
                self.answer_pulls(&uri, &diagnostics);
            } else {
                self.publish(uri, Some(version), diagnostics);
            }
        }
    }

    /// A configuration that stops every check, or that could not be read,
    /// is said once as a message; its findings go to the configuration file
    /// itself, open or not, so the user sees why nothing else is reported.
    fn say_config_problem(&mut self, done: &worker::Done) {
        if done.config_problem == self.config_problem {
            return;
        }
        self.config_problem = done.config_problem.clone();
        for uri in std::mem::take(&mut self.config_published) {
            if !self.documents.contains_key(&uri) && !self.pulls {
                self.publish(uri, None, Vec::new());
            }
        }
        let Some(message) = &done.config_problem else {
            return;
        };
        self.outbox.push(
            Notification::new(
                lsp_types::notification::ShowMessage::METHOD.to_string(),
                lsp_types::ShowMessageParams {
                    typ: lsp_types::MessageType::WARNING,
                    message: message.clone(),
                },
            )
            .into(),
        );
        if self.pulls {
            return;
        }
        for (path, findings) in &done.findings {
            let is_config = path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| crate::config::FILE_NAMES.contains(&n));
            let Some(uri) = convert::uri_of(path).filter(|_| is_config) else {
                continue;
            };
            if self.documents.contains_key(&uri) {
                continue;
            }
            let diagnostics = findings
                .iter()
                .map(|f| convert::diagnostic(f, &done.sources))
                .collect();
            self.config_published.push(uri.clone());
            self.publish(uri, None, diagnostics);
        }
    }

    fn publish(&mut self, uri: Uri, version: Option<i32>, diagnostics: Vec<lsp_types::Diagnostic>) {
        self.outbox.push(
            Notification::new(
                PublishDiagnostics::METHOD.to_string(),
                PublishDiagnosticsParams::new(uri, diagnostics, version),
            )
            .into(),
        );
    }

    fn answer_pulls(&mut self, uri: &Uri, diagnostics: &[lsp_types::Diagnostic]) {
        let (answered, waiting): (Vec<_>, Vec<_>) =
            self.waiting_pulls.drain(..).partition(|(_, u)| u == uri);
        self.waiting_pulls = waiting;
        for (id, _) in answered {
            self.outbox
                .push(Response::new_ok(id, report(diagnostics.to_vec())).into());
        }
    }

    /// The answer to a request; None when it comes later (a pull of a
    /// document whose check is under way).
    fn answer(&mut self, request: Request) -> Option<Response> {
        let id = request.id.clone();
        let invalid = |error: serde_json::Error| {
            Response::new_err(
                id.clone(),
                ErrorCode::InvalidParams as i32,
                error.to_string(),
            )
        };
        Some(match request.method.as_str() {
            CodeActionRequest::METHOD => match serde_json::from_value(request.params) {
                Ok(params) => Response::new_ok(request.id, self.code_actions(params)),
                Err(error) => invalid(error),
            },
            HoverRequest::METHOD | GotoDefinition::METHOD | Completion::METHOD => {
                match serde_json::from_value::<lsp_types::TextDocumentPositionParams>(
                    request.params,
                ) {
                    Ok(place) => {
                        let at = place.position;
                        let navigation = self.navigation(&place.text_document.uri);
                        let answer = match request.method.as_str() {
                            HoverRequest::METHOD => {
                                serde_json::to_value(navigation.and_then(|n| n.hover(at)))
                            }
                            GotoDefinition::METHOD => {
                                serde_json::to_value(navigation.and_then(|n| n.definition(at)))
                            }
                            _ => serde_json::to_value(navigation.and_then(|n| n.completion(at))),
                        };
                        Response::new_ok(request.id, answer.unwrap_or_default())
                    }
                    Err(error) => invalid(error),
                }
            }
            DocumentDiagnosticRequest::METHOD => {
                match serde_json::from_value::<lsp_types::DocumentDiagnosticParams>(request.params)
                {
                    Ok(params) => return self.pull(request.id, params.text_document.uri),
                    Err(error) => invalid(error),
                }
            }
            method => Response::new_err(
                request.id,
                ErrorCode::MethodNotFound as i32,
                format!("confvet does not answer {method}"),
            ),
        })
    }

    /// `textDocument/diagnostic`: the findings of the document's current
    /// version, now or once its check finishes.
    fn pull(&mut self, id: RequestId, uri: Uri) -> Option<Response> {
        let Some(document) = self.documents.get(&uri) else {
            return Some(Response::new_ok(id, report(Vec::new())));
        };
        match &document.checked {
            Some(checked) if checked.version == document.version => {
                Some(Response::new_ok(id, report(checked.diagnostics())))
            }
            _ => {
                self.waiting_pulls.push((id, uri));
                None
            }
        }
    }

    /// The navigation of the document at its current version, built now
    /// if it is not.
    fn navigation(&mut self, uri: &Uri) -> Option<&navigation::Navigation> {
        let document = self.documents.get(uri)?;
        if document.navigation.as_ref().map(|n| n.version()) != Some(document.version) {
            let root = self.root_of(&document.path);
            let memo = self.memo(&root);
            let document = self.documents.get_mut(uri)?;
            document.navigation = Some(navigation::Navigation::new(
                &document.path,
                document.text.clone(),
                document.version,
                &root,
                &memo,
                &self.files,
            ));
        }
        self.documents.get(uri)?.navigation.as_ref()
    }
}

/// A full document diagnostic report.
fn report(items: Vec<lsp_types::Diagnostic>) -> lsp_types::DocumentDiagnosticReportResult {
    lsp_types::DocumentDiagnosticReportResult::Report(lsp_types::DocumentDiagnosticReport::Full(
        lsp_types::RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: lsp_types::FullDocumentDiagnosticReport {
                result_id: None,
                items,
            },
        },
    ))
}

#[cfg(test)]
mod tests;
