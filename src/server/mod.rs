//! `confvet server`: a language server over stdio. Each open or changed
//! document is linted with its unit, its buffer standing in for the file
//! on disk (as `lint --stdin-filename` does), and its findings are pushed as
//! diagnostics; their fixes are quick fixes, and the safe ones together are
//! `source.fixAll.confvet`.
//!
//! Built on `lsp-server` and `lsp-types`, the crates rust-analyzer and ruff
//! use: a synchronous message loop over stdio (or memory, for tests), with
//! the protocol's types, and nothing else.

// lsp-types' `Uri` caches its parse inside itself, which clippy takes for
// a mutable key; its hash and equality never change, and the protocol's
// `WorkspaceEdit` is keyed by it.
#![allow(clippy::mutable_key_type)]

pub mod convert;

use crate::config::{ConfigSource, LoadOptions};
use crate::finding::Finding;
use crate::run::{LintRequest, lint};
use crate::source::Sources;
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{CodeActionRequest, Request as _};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, InitializeParams, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentSyncCapability, TextDocumentSyncKind, Uri, WorkspaceEdit,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The code action kind of "apply every safe fix of this file".
pub const FIX_ALL: &str = "source.fixAll.confvet";

/// One open document: its text and what its last lint found.
struct Document {
    text: String,
    findings: Vec<Finding>,
    sources: Sources,
}

/// Serve on standard input and output until the client exits.
pub fn run_stdio() -> Result<(), String> {
    let (connection, threads) = Connection::stdio();
    serve(&connection)?;
    drop(connection);
    threads.join().map_err(|e| e.to_string())
}

/// The server's capabilities.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, CodeActionKind::new(FIX_ALL)]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// Initialize, then answer until `shutdown` and `exit`.
pub fn serve(connection: &Connection) -> Result<(), String> {
    let capabilities = serde_json::to_value(capabilities()).map_err(|e| e.to_string())?;
    let params = connection
        .initialize(capabilities)
        .map_err(|e| e.to_string())?;
    let params: InitializeParams = serde_json::from_value(params).map_err(|e| e.to_string())?;
    #[allow(deprecated)] // root_uri: clients without workspace folders send it
    let mut roots: Vec<PathBuf> = params
        .workspace_folders
        .unwrap_or_default()
        .iter()
        .filter_map(|folder| convert::path_of(&folder.uri))
        .chain(params.root_uri.as_ref().and_then(convert::path_of))
        .collect();
    roots.dedup();
    let mut server = Server {
        roots,
        documents: HashMap::new(),
    };
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection
                    .handle_shutdown(&request)
                    .map_err(|e| e.to_string())?
                {
                    return Ok(());
                }
                let response = server.answer(request);
                send(connection, Message::Response(response));
            }
            Message::Notification(notification) => {
                for published in server.notified(notification) {
                    send(connection, Message::Notification(published));
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn send(connection: &Connection, message: Message) {
    // The client is gone: the loop ends when its messages do.
    let _ = connection.sender.send(message);
}

struct Server {
    roots: Vec<PathBuf>,
    documents: HashMap<Uri, Document>,
}

impl Server {
    /// The diagnostics a notification changes.
    fn notified(&mut self, notification: Notification) -> Vec<Notification> {
        let (uri, text) = match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(
                    notification.params,
                ) else {
                    return Vec::new();
                };
                (params.text_document.uri, params.text_document.text)
            }
            DidChangeTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(
                    notification.params,
                ) else {
                    return Vec::new();
                };
                // Full sync: the last change is the whole text.
                let Some(change) = params.content_changes.into_iter().last() else {
                    return Vec::new();
                };
                (params.text_document.uri, change.text)
            }
            DidSaveTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(
                    notification.params,
                ) else {
                    return Vec::new();
                };
                let uri = params.text_document.uri;
                let Some(text) = self.documents.get(&uri).map(|d| d.text.clone()) else {
                    return Vec::new();
                };
                (uri, text)
            }
            DidCloseTextDocument::METHOD => {
                let Ok(params) = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(
                    notification.params,
                ) else {
                    return Vec::new();
                };
                self.documents.remove(&params.text_document.uri);
                return vec![publish(params.text_document.uri, Vec::new())];
            }
            _ => return Vec::new(),
        };
        let Some(path) = convert::path_of(&uri) else {
            return Vec::new();
        };
        let document = self.lint(&path, text);
        let diagnostics = document
            .findings
            .iter()
            .map(|f| convert::diagnostic(f, &document.sources))
            .collect();
        self.documents.insert(uri.clone(), document);
        vec![publish(uri, diagnostics)]
    }

    /// The workspace folder holding `path` (the deepest), else its folder.
    fn root_of(&self, path: &Path) -> PathBuf {
        self.roots
            .iter()
            .filter(|root| path.starts_with(root))
            .max_by_key(|root| root.components().count())
            .cloned()
            .or_else(|| path.parent().map(Path::to_path_buf))
            .unwrap_or_default()
    }

    /// Lint the unit of `path` with `text` standing in for the file; the
    /// findings are those in the file.
    fn lint(&self, path: &Path, text: String) -> Document {
        let root = self.root_of(path);
        let sources = Sources::new();
        sources.set_stdin(path.to_path_buf(), text.clone().into_bytes());
        let config = crate::config::load(
            &ConfigSource::Search,
            &root,
            &sources,
            LoadOptions::default(),
        )
        .ok()
        .flatten();
        // What `confvet lint FILE` checks, with the defaults of its flags.
        let request = LintRequest {
            paths: vec![path.to_path_buf()],
            config,
            kubernetes: crate::check::kubernetes::tree::Options {
                check: true,
                ..Default::default()
            },
            ..LintRequest::default()
        };
        let result = lint(&request, &sources, &root);
        let path = crate::source::normalize_path(path);
        let findings = result
            .findings
            .into_iter()
            .filter(|f| sources.path(f.span.file).as_deref() == Some(path.as_path()))
            .collect();
        Document {
            text,
            findings,
            sources,
        }
    }

    fn answer(&self, request: Request) -> Response {
        if request.method != CodeActionRequest::METHOD {
            return Response::new_err(
                request.id,
                lsp_server::ErrorCode::MethodNotFound as i32,
                format!("confvet does not answer {}", request.method),
            );
        }
        match serde_json::from_value::<CodeActionParams>(request.params) {
            Ok(params) => self.code_actions(request.id, params),
            Err(error) => Response::new_err(
                request.id,
                lsp_server::ErrorCode::InvalidParams as i32,
                error.to_string(),
            ),
        }
    }

    /// The quick fixes of the findings in the range, and the file's safe
    /// fixes together as [`FIX_ALL`].
    fn code_actions(&self, id: RequestId, params: CodeActionParams) -> Response {
        let Some(document) = self.documents.get(&params.text_document.uri) else {
            return Response::new_ok(id, Vec::<CodeActionOrCommand>::new());
        };
        let sources = &document.sources;
        let wanted = |kind: &str| {
            params
                .context
                .only
                .as_ref()
                .is_none_or(|only| only.iter().any(|k| kind.starts_with(k.as_str())))
        };
        let mut actions = Vec::new();
        for finding in &document.findings {
            let Some(fix) = finding.fix.as_deref() else {
                continue;
            };
            let diagnostic = convert::diagnostic(finding, sources);
            let touches = diagnostic.range.start <= params.range.end
                && params.range.start <= diagnostic.range.end;
            if !touches || !wanted(CodeActionKind::QUICKFIX.as_str()) {
                continue;
            }
            let Some(changes) = convert::text_edits(fix, sources) else {
                continue;
            };
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: convert::title(fix),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diagnostic]),
                edit: Some(WorkspaceEdit::new(changes)),
                is_preferred: Some(fix.applicability == crate::finding::Applicability::Safe),
                ..CodeAction::default()
            }));
        }
        if wanted(FIX_ALL) {
            let mut kept: Vec<&crate::finding::Fix> = Vec::new();
            for fix in document
                .findings
                .iter()
                .filter_map(|f| f.applicable_fix(false))
            {
                if !kept.iter().any(|k| k.overlaps(fix)) {
                    kept.push(fix);
                }
            }
            let mut changes: HashMap<Uri, Vec<lsp_types::TextEdit>> = HashMap::new();
            for fix in kept {
                for (uri, edits) in convert::text_edits(fix, sources).unwrap_or_default() {
                    changes.entry(uri).or_default().extend(edits);
                }
            }
            if !changes.is_empty() {
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: "confvet: apply every safe fix".into(),
                    kind: Some(CodeActionKind::new(FIX_ALL)),
                    edit: Some(WorkspaceEdit::new(changes)),
                    ..CodeAction::default()
                }));
            }
        }
        Response::new_ok(id, actions)
    }
}

fn publish(uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>) -> Notification {
    Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        PublishDiagnosticsParams::new(uri, diagnostics, None),
    )
}

#[cfg(test)]
mod tests;
