//! Rendering a package's templates with its final data values, as `ytt -f`
//! does: each template file is compiled (`template`), run on the package's
//! engine, and gives its output documents, or the failure ytt would stop
//! on. `@assert/validate` on output nodes then runs on the rendered values.

use super::engine::Engine;
use super::engine::TemplateError;
use super::template::compile::CompileOptions;
use crate::discover::DiscoveredFile;
use crate::finding::Finding;
use crate::rules;
use crate::source::{SourceFile, Span};
use crate::yaml::{Document, DocumentSet, Node};
use starlark::environment::FrozenModule;
use std::collections::HashMap;
use std::path::Path;

mod failure;
mod output;
mod plain;
mod unlinted;

pub(super) use plain::has_templating;

/// Why a template did not render: where and what ytt would say.
#[derive(Debug, Clone)]
pub struct RenderFailure {
    pub span: Span,
    pub message: String,
    pub cause: Cause,
    /// The calls that led to the failure, outermost first: (module name as
    /// loaded, 1-based line).
    pub chain: Vec<(String, usize)>,
}

/// The span of a whole line of a file.
fn whole_line(source: &SourceFile, file: crate::source::FileId, line: usize) -> Span {
    let start = source.line_start(line);
    Span::new(file, start, start + source.line_text(line).len())
}

impl RenderFailure {
    /// A template that does not compile.
    fn from_compile(
        error: super::template::compile::CompileError,
        line_span: impl Fn(usize) -> Span,
    ) -> RenderFailure {
        RenderFailure {
            span: error.span.unwrap_or_else(|| line_span(error.line)),
            message: error.message,
            cause: if error.is_syntax {
                Cause::Syntax
            } else {
                Cause::Error
            },
            chain: Vec::new(),
        }
    }

    /// A failed run as a render failure. A failure inside a loaded file
    /// (`values.star:10: fail: ...`) adds that place to the call chain, so
    /// it is shown, and judged by what its line reads.
    fn from_run(
        failure: super::engine::RunFailure,
        line_span: impl Fn(usize) -> Span,
    ) -> RenderFailure {
        static IN_LOADED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r"^(\S+\.(?:star|ya?ml|txt)):(\d+): (.*)$").expect("valid pattern")
        });
        let mut chain = failure.chain;
        let mut message = failure.message;
        if let Some(found) = IN_LOADED.captures(&message) {
            let line = found[2].parse().unwrap_or(1);
            chain.push((found[1].to_string(), line));
            message = found[3].to_string();
        }
        let cause = match () {
            _ if failure.is_syntax => Cause::Syntax,
            _ if message.starts_with("fail:") => Cause::Fail,
            _ => Cause::Error,
        };
        let message = message
            .strip_prefix("fail:")
            .map_or(message.clone(), |m| m.trim().to_string());
        RenderFailure {
            span: line_span(failure.line),
            message,
            cause,
            chain,
        }
    }
}

/// What stopped a render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// An explicit `fail()` / `assert.fail()`.
    Fail,
    /// The template's code does not parse: no data value changes that.
    Syntax,
    /// Any other error ytt stops on.
    Error,
    /// An overlay document that does not apply to the rendered documents.
    Overlay,
}

/// Failures already reported: a loaded file that fails fails every template
/// loading it, and ytt reports it once.
#[derive(Default)]
struct ReportedFailures(std::collections::HashSet<(String, Option<(String, usize)>)>);

impl ReportedFailures {
    fn is_new(&mut self, failure: &RenderFailure) -> bool {
        // Only failures inside another file repeat for each template.
        let Some(place) = failure.chain.last() else {
            return true;
        };
        self.0
            .insert((failure.message.clone(), Some(place.clone())))
    }
}

/// A rendered template file.
pub struct Rendered {
    pub docs: Vec<Document>,
    /// The template's scope (None for plain YAML, which has no code).
    module: Option<FrozenModule>,
}

/// A file of the package: path, id and text.
type PackageFile = (
    std::path::PathBuf,
    crate::source::FileId,
    std::sync::Arc<SourceFile>,
);

/// Renders the templates of one package with its final data values.
pub struct Renderer {
    engine: Engine,
    options: CompileOptions,
    /// The final data values, to tell which failures wait on the consumer.
    values: Node,
    /// Values were given by the consumer (flags, a scenario): every failure
    /// is then an error.
    consumer_values: bool,
    files: Vec<PackageFile>,
    root: std::path::PathBuf,
    /// Loaded files read for call chains, by path.
    loaded: std::cell::RefCell<
        HashMap<std::path::PathBuf, (crate::source::FileId, std::sync::Arc<SourceFile>)>,
    >,
}

impl Renderer {
    pub fn new(
        root: &Path,
        values: &Node,
        consumer_values: bool,
        known_files: HashMap<
            std::path::PathBuf,
            (crate::source::FileId, std::sync::Arc<SourceFile>),
        >,
        options: CompileOptions,
    ) -> Renderer {
        let fallback = known_files
            .values()
            .next()
            .map_or(crate::source::FileId(0), |(id, _)| *id);
        let files = known_files
            .iter()
            .map(|(path, (id, source))| (path.clone(), *id, source.clone()))
            .collect();
        Renderer {
            engine: Engine::for_templates(root, values, super::workspace::MODULES)
                .with_known_files(known_files, fallback),
            options,
            values: values.clone(),
            consumer_values,
            files,
            root: crate::source::normalize_path(root),
            loaded: Default::default(),
        }
    }

    /// The package is files named one by one: loads see them by base name.
    pub fn with_flat_files(mut self, files: &[std::path::PathBuf]) -> Renderer {
        self.engine = self.engine.with_flat_files(files);
        self
    }

    /// The package's files by the names ytt gives them, when the package
    /// is files and folders named on the command line.
    pub fn with_library_files(self, files: Vec<(String, std::path::PathBuf)>) -> Renderer {
        self.engine.session().borrow_mut().library_files = Some(files);
        self
    }

    /// Read the package's files through `files`.
    pub fn with_files(self, files: &crate::source::Files) -> Renderer {
        self.engine.session().borrow_mut().files = files.clone();
        self
    }

    /// ytt's `--implicit-map-key-overrides` for this package's renders.
    pub fn session_options(&self, implicit_map_key_overrides: bool) {
        self.engine
            .session()
            .borrow_mut()
            .implicit_map_key_overrides = implicit_map_key_overrides;
    }

    /// The package's input files as `--file-mark`s made them: loads,
    /// `data.read` and plain files follow them.
    pub fn with_inputs(&self, inputs: std::sync::Arc<super::marks::Inputs>) {
        self.engine.session().borrow_mut().inputs = Some(inputs);
    }

    /// Marked `type=yaml-plain` or `type=text-plain`: read, not evaluated.
    fn is_marked_plain(&self, path: &Path) -> bool {
        let session = self.engine.session().borrow();
        let input = session.inputs.as_ref().and_then(|i| i.get(path));
        input.is_some_and(|f| !f.is_template() && !f.is_library())
    }

    /// How `library.get(...).eval()` evaluates a private library, and
    /// what the package gives its libraries.
    pub fn with_libraries(
        &self,
        evaluate: super::workspace::execution::LibraryEvaluator,
        given: &super::library::Given,
    ) {
        let mut session = self.engine.session().borrow_mut();
        let libraries = session.state::<super::workspace::execution::LibraryState>();
        libraries.evaluator = Some(evaluate);
        libraries.values = given.values.clone();
        libraries.schemas = given.schemas.clone();
        libraries.options = given.options;
    }

    /// The session this package's templates run in.
    pub fn session(&self) -> super::template::runtime::SharedSession {
        self.engine.session().clone()
    }

    /// Evaluate each library file of the package (`.star`, `.lib.yml`,
    /// `.lib.txt`; not those of its own libraries), as ytt evaluates a
    /// library's: their globals by path, or the first that fails.
    pub fn library_exports(
        &self,
        root: &Path,
    ) -> Result<Vec<(String, starlark::environment::FrozenModule)>, super::engine::LoadError> {
        let mut exports = Vec::new();
        let mut paths = crate::source::files_below(root);
        // ytt's order: a folder's files, then its folders'.
        paths.sort_by(|a, b| {
            let (a, b) = (
                a.components().collect::<Vec<_>>(),
                b.components().collect::<Vec<_>>(),
            );
            let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            let a_is_file = common + 1 == a.len();
            let b_is_file = common + 1 == b.len();
            b_is_file
                .cmp(&a_is_file)
                .then_with(|| a[common..].cmp(&b[common..]))
        });
        for path in paths {
            let Ok(relative) = path.strip_prefix(root) else {
                continue;
            };
            let name = relative.to_string_lossy().replace('\\', "/");
            let is_library = name.ends_with(".star")
                || super::template::text::is_library(&name)
                || name.ends_with(".lib.yml")
                || name.ends_with(".lib.yaml");
            if !is_library || super::package::in_ytt_lib(&path, root) {
                continue;
            }
            let module = self.engine.load_file(&name)?;
            exports.push((name.clone(), module));
        }
        Ok(exports)
    }

    /// Evaluate each library file among the package's inputs (`.star`,
    /// `x.lib.yml`, `x.lib.txt`, outside `_ytt_lib`), loaded by a template
    /// or not, as ytt's library execution evaluates every one: Err names the
    /// first that fails and why.
    /// `own` are the package's YAML files: a library file in a folder
    /// below the root holding YAML the package does not take (another
    /// package's, as lint groups a tree) is that package's.
    pub fn evaluate_library_files(
        &self,
        inputs: &super::marks::Inputs,
        own: &std::collections::HashSet<&Path>,
    ) -> Result<(), (String, String)> {
        let foreign: std::collections::HashSet<&Path> = inputs
            .files
            .iter()
            .filter(|f| f.file_type() == super::marks::FileType::Yaml)
            .filter(|f| !own.contains(f.path.as_path()))
            .filter_map(|f| f.path.parent())
            .filter(|dir| *dir != self.root)
            .collect();
        for file in &inputs.files {
            let is_foreign = file
                .path
                .ancestors()
                .skip(1)
                .take_while(|dir| *dir != self.root)
                .any(|dir| foreign.contains(dir));
            if !file.is_library() || file.is_for_output() || is_foreign || file.in_private_library()
            {
                continue;
            }
            if let Err(failed) = self.engine.load_input(&file.name) {
                return Err((file.name.clone(), failed.to_string()));
            }
        }
        Ok(())
    }

    /// Render one template file.
    pub fn render(
        &self,
        file: &DiscoveredFile,
        set: &DocumentSet,
        source: &SourceFile,
    ) -> Result<Rendered, RenderFailure> {
        // Plain YAML (no `#@` anywhere) is not a template: ytt passes it
        // through, the last of repeated keys winning.
        if !plain::has_templating(set) || self.is_marked_plain(&file.path) {
            let mut docs = set.docs.clone();
            for doc in &mut docs {
                plain::override_map_keys(&mut doc.value);
            }
            return Ok(Rendered { docs, module: None });
        }
        let line_span = |line: usize| whole_line(source, file.id, line);
        let dir = file.path.parent().unwrap_or(Path::new("."));
        match (self.engine).render_yaml(set, source, file.id, dir, self.options) {
            Ok((docs, module)) => Ok(Rendered {
                docs,
                module: Some(module),
            }),
            Err(TemplateError::Compile(e)) => Err(RenderFailure::from_compile(e, line_span)),
            Err(TemplateError::Run(failure)) => Err(RenderFailure::from_run(failure, line_span)),
        }
    }

    /// Render every template of a package (ytt's file order), reporting
    /// failures and output validations as findings; gives each file's
    /// documents.
    pub fn check(
        &self,
        templates: &[(&DiscoveredFile, &DocumentSet)],
        sources: &crate::source::Sources,
        findings: &mut Vec<Finding>,
    ) -> Vec<(crate::source::FileId, Vec<Document>)> {
        let mut outputs = Vec::new();
        let mut reported = ReportedFailures::default();
        let mut all_rendered = true;
        for (file, set) in templates {
            let source = sources.get(file.id);
            match self.render(file, set, &source) {
                Ok(rendered) => {
                    self.validate_output(file.id, &rendered, findings);
                    outputs.push((file.id, rendered.docs));
                }
                Err(failure) => {
                    all_rendered = false;
                    if reported.is_new(&failure) {
                        findings.push(self.failure_finding(failure, &source, sources));
                    }
                }
            }
        }
        if !all_rendered {
            // Overlays on some of the documents would match differently
            // than on all: they are not applied, nor output.
            for (_, docs) in &mut outputs {
                docs.retain(|d| !super::overlay::post::is_overlay(d));
            }
            return outputs;
        }
        self.apply_overlays(outputs, sources, findings)
    }

    /// ytt's overlay post-processing of the rendered documents; a failure
    /// is reported at the `@overlay/match` of the overlay that failed.
    fn apply_overlays(
        &self,
        outputs: Vec<(crate::source::FileId, Vec<Document>)>,
        sources: &crate::source::Sources,
        findings: &mut Vec<Finding>,
    ) -> Vec<(crate::source::FileId, Vec<Document>)> {
        let first_overlay = outputs
            .iter()
            .flat_map(|(_, docs)| docs)
            .find(|d| super::overlay::post::is_overlay(d))
            .map(|d| d.span);
        let Some(first_overlay) = first_overlay else {
            return outputs;
        };
        let is_lint = self.engine.session().borrow().library_files.is_none();
        let mut outputs = outputs;
        let mut unlinted = Vec::new();
        if is_lint {
            let found = match self.unlinted_documents(sources) {
                Ok(found) => found,
                Err(why) => {
                    // Not all of ytt's documents are known: overlays cannot
                    // be checked against them.
                    findings.extend(unchecked_overlays(&outputs, &why.to_string()));
                    for (_, docs) in &mut outputs {
                        docs.retain(|d| !super::overlay::post::is_overlay(d));
                    }
                    return outputs;
                }
            };
            unlinted = found.iter().map(|(id, _)| *id).collect::<Vec<_>>();
            outputs.extend(found);
            outputs.sort_by_key(|(id, _)| sources.path(*id));
        }
        let only_overlays = outputs
            .iter()
            .flat_map(|(_, docs)| docs)
            .all(|d| d.value.is_null() || super::overlay::post::is_overlay(d));
        let result = self
            .engine
            .with_evaluator(|eval| {
                super::overlay::post::apply(eval, outputs, super::overlay::file_name)
            })
            .unwrap_or_else(|failed| {
                Err(super::overlay::post::PostFailure {
                    span: first_overlay,
                    message: failed.to_string(),
                    notes: Vec::new(),
                })
            });
        match result {
            Ok(mut outputs) => {
                outputs.retain(|(id, _)| !unlinted.contains(id));
                outputs
            }
            Err(failure) => {
                let source = sources.get(failure.span.file);
                let notes = failure.notes;
                let failure = RenderFailure {
                    span: failure.span,
                    message: failure.message,
                    cause: Cause::Overlay,
                    chain: Vec::new(),
                };
                let matched_none = failure.message.contains(", but was 0");
                let mut finding = self.failure_finding(failure, &source, sources);
                for (span, note) in notes {
                    finding = finding.with_related(span, note);
                }
                // A package whose every document is an overlay, none of
                // which matched, is written for documents given beside it
                // (`ytt -f upstream/ -f DIR`), which lint cannot know:
                // `ytt -f DIR` alone stops, but nobody runs that.
                if is_lint && only_overlays && matched_none {
                    finding = finding
                        .with_severity(crate::finding::Severity::Warning)
                        .with_help(OVERLAYS_FOR_OTHER_FILES);
                }
                findings.push(finding);
                Vec::new()
            }
        }
    }

    /// Render one text template (`.txt`): the text it builds.
    pub fn render_text(
        &self,
        file: crate::source::FileId,
        path: &Path,
        source: &SourceFile,
    ) -> Result<String, RenderFailure> {
        if self.is_marked_plain(path) {
            return Ok(source.text.clone());
        }
        let line_span = |line: usize| whole_line(source, file, line);
        let session = self.engine.session();
        let program = super::template::text_program(source, session)
            .map_err(|e| RenderFailure::from_compile(e, line_span))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let result = self
            .engine
            .run_module(&source.name, &program.translated, dir);
        let text = session.borrow_mut().take_text_result(program.id);
        match result {
            Ok(_) => Ok(text.unwrap_or_default()),
            Err(failure) => {
                session.borrow_mut().reset_ctxs();
                Err(RenderFailure::from_run(failure, line_span))
            }
        }
    }

    /// Render text templates (ytt's file order), reporting failures as
    /// findings; gives each file's text.
    pub fn check_texts(
        &self,
        texts: &[(crate::source::FileId, std::path::PathBuf)],
        sources: &crate::source::Sources,
        findings: &mut Vec<Finding>,
    ) -> Vec<(crate::source::FileId, String)> {
        let mut outputs = Vec::new();
        for (file, path) in texts {
            let source = sources.get(*file);
            match self.render_text(*file, path, &source) {
                Ok(text) => outputs.push((*file, text)),
                Err(failure) => findings.push(self.failure_finding(failure, &source, sources)),
            }
        }
        outputs
    }
}

/// The help of a package of overlays alone whose overlays matched nothing.
const OVERLAYS_FOR_OTHER_FILES: &str = "`ytt -f` of this folder alone stops here, but its documents are all overlays: they are written for documents given beside them (`ytt -f UPSTREAM -f DIR`), which lint does not know; to check them together, keep both below one folder and name it in .confvet.yaml (`ytt.packages[].path`)";

/// The warning that overlays were not applied, at the first overlay.
fn unchecked_overlays(
    outputs: &[(crate::source::FileId, Vec<Document>)],
    why: &str,
) -> Option<Finding> {
    Some(
        Finding::new(
            &rules::ytt::OVERLAY_UNCHECKED,
            first_overlay_match(outputs)?,
            format!("the package's overlays were not applied: {why}"),
        )
        .with_severity(crate::finding::Severity::Warning)
        .with_help("ytt applies overlays to that file's documents too; confvet cannot tell what they match"),
    )
}

/// Where the first overlay document of `outputs` says what it matches.
fn first_overlay_match(outputs: &[(crate::source::FileId, Vec<Document>)]) -> Option<Span> {
    let first = outputs
        .iter()
        .flat_map(|(_, docs)| docs)
        .find(|d| super::overlay::post::is_overlay(d))?;
    Some(
        super::overlay::annotations::find(&first.comments, "overlay/match")
            .map_or(first.span, |c| c.span),
    )
}
