//! Hover, go to definition and completion: the open document's navigators
//! (one per system that claims the file, see `crate::navigate`), built at
//! its current version when first asked and reused until it changes.

use super::convert;
use crate::config::Config;
use crate::navigate::{CompletionKind, Context, Navigator, WorkspaceMemo};
use crate::source::{FileId, Files, SourceFile, Sources, Span};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionResponse, CompletionTextEdit, Documentation,
    GotoDefinitionResponse, Hover, HoverContents, Location, MarkupContent, MarkupKind, Position,
    Range, TextEdit,
};
use std::path::{Path, PathBuf};

/// A document's navigators at one version.
pub struct Navigation {
    version: i32,
    sources: Sources,
    file: FileId,
    navigators: Vec<Box<dyn Navigator>>,
}

/// What the navigators of every system are made from: the document's
/// text in a `Sources` of its own, its id there and the folder's
/// configuration.
struct Opened {
    sources: Sources,
    file: FileId,
    config: Option<Config>,
}

impl Opened {
    fn new(path: &Path, text: String, root: &Path, files: &Files) -> Opened {
        let sources = Sources::with_files(files.clone());
        sources.set_stdin(path.to_path_buf(), text.clone().into_bytes());
        let name = crate::source::display_name(path, root);
        let file = sources.add(SourceFile::new(name, Some(path.to_path_buf()), text));
        let config = crate::config::load(
            &crate::config::ConfigSource::Search,
            root,
            &sources,
            crate::config::LoadOptions::default(),
        )
        .ok()
        .flatten();
        Opened {
            sources,
            file,
            config,
        }
    }

    fn context<'a>(
        &'a self,
        path: &'a Path,
        root: &'a Path,
        memo: &'a WorkspaceMemo,
    ) -> Context<'a> {
        Context {
            sources: &self.sources,
            file: self.file,
            path,
            root,
            config: self.config.as_ref(),
            memo,
        }
    }
}

/// Fill `memo` with what the document's navigators read of the workspace
/// folder (its ytt packages, its Tasks by name, its Templates) without
/// reading the document as they do. The server calls this in the
/// background once a folder is indexed, while a check of the same
/// document may be running: building the navigators there parsed and
/// evaluated the document a second time at once (335 MB for a 5 MB ytt
/// document); they are built when a hover first asks.
pub fn warm(path: &Path, text: String, root: &Path, memo: &WorkspaceMemo, files: &Files) {
    let opened = Opened::new(path, text, root, files);
    let cx = opened.context(path, root, memo);
    for warm in [
        crate::check::ytt::navigate::warm,
        crate::check::tekton::navigate::warm,
        crate::check::kubevirt::navigate::warm,
    ] {
        let _ = crate::watchdog::catch(|| warm(&cx));
    }
}

impl Navigation {
    /// The navigators of the document at `path` holding `text`, in the
    /// workspace folder `root`.
    pub fn new(
        path: &Path,
        text: String,
        version: i32,
        root: &Path,
        memo: &WorkspaceMemo,
        files: &Files,
    ) -> Navigation {
        let opened = Opened::new(path, text, root, files);
        let cx = opened.context(path, root, memo);
        let navigators: Vec<Box<dyn Navigator>> = [
            crate::check::ytt::navigate::navigator,
            crate::check::tekton::navigate::navigator,
            crate::check::kubevirt::navigate::navigator,
        ]
        .iter()
        .filter_map(|make| crate::watchdog::catch(|| make(&cx)).ok().flatten())
        .collect();
        Navigation {
            version,
            sources: opened.sources,
            file: opened.file,
            navigators,
        }
    }

    /// The version of the document it answers for.
    pub fn version(&self) -> i32 {
        self.version
    }

    pub fn hover(&self, at: Position) -> Option<Hover> {
        let offset = self.offset(at);
        let hover = self
            .navigators
            .iter()
            .find_map(|n| crate::watchdog::catch(|| n.hover(offset)).ok().flatten())?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: hover.markdown,
            }),
            range: self.range(hover.span),
        })
    }

    pub fn definition(&self, at: Position) -> Option<GotoDefinitionResponse> {
        let offset = self.offset(at);
        let locations: Vec<Location> = self
            .navigators
            .iter()
            .flat_map(|n| crate::watchdog::catch(|| n.definition(offset)).unwrap_or_default())
            .filter_map(|span| self.location(span))
            .collect();
        match locations.len() {
            0 => None,
            1 => locations
                .into_iter()
                .next()
                .map(GotoDefinitionResponse::Scalar),
            _ => Some(GotoDefinitionResponse::Array(locations)),
        }
    }

    pub fn completion(&self, at: Position) -> Option<CompletionResponse> {
        let offset = self.offset(at);
        let items: Vec<CompletionItem> = self
            .navigators
            .iter()
            .flat_map(|n| crate::watchdog::catch(|| n.completions(offset)).unwrap_or_default())
            .filter_map(|completion| self.item(completion))
            .collect();
        (!items.is_empty()).then_some(CompletionResponse::Array(items))
    }

    fn item(&self, completion: crate::navigate::Completion) -> Option<CompletionItem> {
        let range = self.range(completion.replace)?;
        let text = completion
            .insert
            .clone()
            .unwrap_or_else(|| completion.label.clone());
        Some(CompletionItem {
            kind: Some(match completion.kind {
                CompletionKind::Field => CompletionItemKind::FIELD,
                CompletionKind::Variable => CompletionItemKind::VARIABLE,
                CompletionKind::Function => CompletionItemKind::FUNCTION,
                CompletionKind::Keyword => CompletionItemKind::KEYWORD,
                CompletionKind::Reference => CompletionItemKind::REFERENCE,
            }),
            detail: completion.detail,
            documentation: completion.documentation.map(|value| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value,
                })
            }),
            text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(range, text))),
            label: completion.label,
            ..CompletionItem::default()
        })
    }

    /// The byte offset of a protocol position in the document.
    fn offset(&self, position: Position) -> usize {
        convert::offset(&self.sources.get(self.file), position)
    }

    /// The range of a span in the document; None for a span elsewhere.
    fn range(&self, span: Span) -> Option<Range> {
        (span.file == self.file).then(|| convert::range(&self.sources, span))
    }

    fn location(&self, span: Span) -> Option<Location> {
        let path: PathBuf = self.sources.path(span.file)?;
        Some(Location::new(
            convert::uri_of(&path)?,
            convert::range(&self.sources, span),
        ))
    }
}
