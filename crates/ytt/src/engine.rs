//! The Starlark engine of one ytt package, on starlark-rust: compiles each
//! file's code once (ytt's dialect translated by `translate`), provides the
//! `@ytt:` modules rules use, loads the package's own `.star` and `.lib.yml`
//! files (never anything outside the package), evaluates annotation
//! arguments in their file's scope and calls rule functions with a
//! statement budget, so an endless loop becomes a finding, not a hang.

use crate::marks::FileType;
use crate::modules::ModuleTable;
use crate::starlark::convert::star_to_value;
use crate::starlark::{CallArgs, StarError, StarValue};
use crate::template::runtime::{SessionGuard, SharedSession};
use crate::translate::{Translated, star_code_lines, translate, yaml_code_lines};
use starlark::environment::{FrozenModule, Globals, GlobalsBuilder, LibraryExtension, Module};
use starlark::eval::FileLoader;
use starlark::values::{OwnedFrozenValue, Value};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

mod amplify;
mod errors;
pub use errors::{CallError, InterpreterFailed, LoadError};
mod iterations;
mod originals;
mod own_evaluator;
mod run_failure;
pub use run_failure::{Compiled, RunFailure};
pub mod prints;
mod sandbox;
pub use sandbox::STATEMENT_BUDGET;
use sandbox::{dialect, sandboxed};

/// Why a template gave no documents: its code did not compile (ytt's
/// template errors), or it stopped while running.
#[derive(Debug)]
pub enum TemplateError {
    Compile(crate::template::compile::CompileError),
    Run(RunFailure),
}

/// One package's Starlark world.
pub struct Engine {
    globals: Globals,
    root: PathBuf,
    /// Compiled modules by load path (`@ytt:assert`, `helpers/x.star`),
    /// each with what its evaluation printed: ytt evaluates a file again at
    /// each load, so a module taken from here prints that again.
    modules: RefCell<HashMap<String, Loaded>>,
    /// Paths being loaded, to stop load cycles.
    loading: RefCell<Vec<String>>,
    /// The final data values as JSON, for templates' `data.values`; None
    /// where ytt gives an empty struct (schema and data-values files).
    data_values: Option<crate::yaml::Node>,
    /// The template nodes and contexts of this package's renders.
    session: SharedSession,
    /// The `@ytt:` modules the workspace adds (`data`, `library`).
    added_modules: ModuleTable,
    known_files: HashMap<
        PathBuf,
        (
            crate::source::FileId,
            std::sync::Arc<crate::source::SourceFile>,
        ),
    >,
    fallback_file: crate::source::FileId,
    /// Set when the package is files named one by one: base name to path.
    flat_files: Option<HashMap<String, PathBuf>>,
    /// Each module's generated-line to source-line map, for call chains.
    line_maps: RefCell<HashMap<String, Vec<usize>>>,
}

/// A module as a load gives it, and the lines its evaluation printed.
struct Loaded {
    module: Result<FrozenModule, LoadError>,
    printed: String,
}

impl Engine {
    pub fn new(root: &Path, added_modules: ModuleTable) -> Engine {
        // Built once per process and shared frozen: every engine of every
        // package sees the same builtins.
        static GLOBALS: std::sync::OnceLock<Globals> = std::sync::OnceLock::new();
        let globals = GLOBALS.get_or_init(|| {
            GlobalsBuilder::extended_by(&[LibraryExtension::StructType, LibraryExtension::SetType])
                .with(crate::modules::builtins::universe)
                .with(crate::template::instructions::template_instructions)
                .with(amplify::guards)
                .with(iterations::guards)
                .build()
        });
        Engine {
            globals: globals.clone(),
            root: root.to_path_buf(),
            modules: RefCell::new(HashMap::new()),
            loading: RefCell::new(Vec::new()),
            data_values: None,
            session: crate::template::runtime::new_session(),
            added_modules,
            known_files: HashMap::new(),
            fallback_file: crate::source::FileId(0),
            flat_files: None,
            line_maps: RefCell::new(HashMap::new()),
        }
    }

    /// An engine for templates: `data.values` holds `values` (a JSON
    /// document), maps as structs, as ytt gives them to templates.
    pub fn for_templates(root: &Path, values: &crate::yaml::Node, added: ModuleTable) -> Engine {
        let engine = Engine {
            data_values: Some(values.clone()),
            ..Engine::new(root, added)
        };
        engine.session.borrow_mut().root = engine.root.clone();
        engine
    }

    /// The render session templates of this engine run in.
    pub fn session(&self) -> &SharedSession {
        &self.session
    }

    /// Run translated code as a module (a compiled template, a loaded
    /// file, code of a schema or values file); a failure keeps its call
    /// chain.
    pub fn run_module(
        &self,
        name: &str,
        translated: &Translated,
        dir: &Path,
    ) -> Result<FrozenModule, RunFailure> {
        let _session = SessionGuard::install(&self.session);
        self.line_maps
            .borrow_mut()
            .insert(name.to_string(), translated.lines.clone());
        // Files named one by one are all in one library, the root.
        if self.flat_files.is_none() {
            self.session
                .borrow_mut()
                .module_dirs
                .insert(name.to_string(), dir.to_path_buf());
        }
        let loader = Loader {
            engine: self,
            dir: dir.to_path_buf(),
        };
        // Repetition is checked before it allocates (a failed allocation
        // would abort the process).
        let ast = crate::translate::parse_guarded(name, translated.source.clone(), &dialect())
            .map_err(|e| {
                let line = e
                    .span()
                    .map(|s| translated.original_line(s.resolve_span().begin.line))
                    .unwrap_or(1);
                RunFailure {
                    message: first_line(&e.without_diagnostic().to_string()),
                    line,
                    is_syntax: true,
                    chain: Vec::new(),
                }
            })?;
        Module::with_temp_heap(|module| {
            // starlark-rust panics on some allocations it cannot make (a
            // list of a billion elements): that stops this evaluation, not
            // the run.
            let evaluated = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut eval = sandboxed(&module, &loader);
                eval.eval_module(ast, &self.globals).map(|_| ())
            }));
            let result = match evaluated {
                Ok(result) => result,
                Err(panic) => {
                    return Err(RunFailure {
                        message: InterpreterFailed(crate::watchdog::panic_message(&panic))
                            .to_string(),
                        line: 1,
                        is_syntax: false,
                        chain: Vec::new(),
                    });
                }
            };
            if let Err(e) = result {
                // Calls from the outermost in, then the failing expression.
                let places: Vec<&starlark::codemap::FileSpan> = e
                    .call_stack()
                    .frames
                    .iter()
                    .filter_map(|f| f.location.as_ref())
                    .chain(e.span())
                    .collect();
                // The innermost place in this file: the failing expression,
                // else the call that led to a failure in another module.
                let line = places
                    .iter()
                    .rev()
                    .find(|l| l.filename() == name)
                    .map(|s| translated.original_line(s.resolve_span().begin.line))
                    .unwrap_or(1);
                let maps = self.line_maps.borrow();
                let mut chain: Vec<(String, usize)> = places
                    .iter()
                    .filter_map(|place| {
                        let generated = place.resolve_span().begin.line;
                        let lines = maps.get(place.filename())?;
                        let line = lines.get(generated).or(lines.last()).copied()?;
                        Some((place.filename().to_string(), line))
                    })
                    .collect();
                // A builtin that fails has its call both as the last frame
                // and as the failing expression.
                chain.dedup();
                return Err(RunFailure {
                    message: first_line(&e.without_diagnostic().to_string()),
                    line,
                    is_syntax: false,
                    chain,
                });
            }
            let frozen = module.freeze().map_err(|e| RunFailure {
                message: format!("{e:?}"),
                line: 1,
                is_syntax: false,
                chain: Vec::new(),
            })?;
            crate::template::annotation_args::keep_frozen(&frozen);
            Ok(frozen)
        })
    }

    /// Render one YAML template as ytt renders a file of a package: the
    /// documents it outputs, each node at its source position, and the
    /// module its code defined. `set` is the file parsed with its comments
    /// (duplicate keys kept: templates repeat them under `if`), `dir` the
    /// folder its relative loads start from.
    pub fn render_yaml(
        &self,
        set: &crate::yaml::DocumentSet,
        source: &crate::source::SourceFile,
        file: crate::source::FileId,
        dir: &Path,
        options: crate::template::compile::CompileOptions,
    ) -> Result<(Vec<crate::yaml::Document>, FrozenModule), TemplateError> {
        let program = crate::template::program(set, source, file, &self.session, options)
            .map_err(TemplateError::Compile)?;
        let result = self.run_module(&source.name, &program.translated, dir);
        let docs = self.session.borrow_mut().take_result(program.id);
        match result {
            Ok(module) => Ok((docs.unwrap_or_default(), module)),
            Err(failure) => {
                // The next template starts from no open output.
                self.session.borrow_mut().reset_ctxs();
                Err(TemplateError::Run(failure))
            }
        }
    }

    /// Compile the code lines of a ytt YAML file in directory `dir`.
    pub fn compile_yaml_file(&self, name: &str, text: &str, dir: &Path) -> Compiled {
        let translated = translate(&yaml_code_lines(text)).map_err(|e| RunFailure {
            message: e.message,
            line: e.line,
            is_syntax: true,
            chain: Vec::new(),
        })?;
        self.run_module(name, &translated, dir)
    }

    /// Where `load(path)` from a file in `dir` points: a built-in module, a
    /// path relative to `dir`, or `@lib:path` in a `_ytt_lib` above `dir`;
    /// never outside the package.
    fn resolve(&self, dir: &Path, path: &str) -> Result<String, LoadError> {
        if path.starts_with("@ytt:") || path.starts_with("@confvet:") {
            return Ok(path.to_string());
        }
        // Files named one by one (`ytt -f a.yml -f lib/b.star`) are known by
        // their base names only, in one flat directory.
        if let Some(flat) = &self.flat_files {
            return flat
                .get(path)
                .map(|p| p.to_string_lossy().into_owned())
                .ok_or_else(|| LoadError::NotNamed {
                    path: path.to_string(),
                });
        }
        // Inside the package by its path, and by where symbolic links on
        // the way lead: a link to code outside the package is refused as
        // `load("../..")` is (ytt refuses both).
        let canonical_root = self.root.canonicalize().ok();
        let inside = |p: &Path| -> Option<PathBuf> {
            let normalized = crate::source::normalize_path(p);
            if !normalized.starts_with(&self.root) {
                return None;
            }
            match (p.canonicalize(), &canonical_root) {
                (Ok(real), Some(root)) if !real.starts_with(root) => None,
                _ => Some(normalized),
            }
        };
        let found =
            if let Some((library, rest)) = path.strip_prefix('@').and_then(|p| p.split_once(':')) {
                dir.ancestors()
                    .take_while(|a| a.starts_with(&self.root))
                    .map(|a| a.join("_ytt_lib").join(library).join(rest))
                    .find(|candidate| candidate.is_file())
                    .and_then(|p| inside(&p))
            } else {
                // `/x.star` is relative to the package root (ytt's library
                // root), anything else to the loading file's directory.
                let base = match path.strip_prefix('/') {
                    Some(rest) => self.root.join(rest),
                    None => dir.join(path),
                };
                inside(&base)
                    .filter(|p| p.is_file())
                    .or_else(|| self.named_file(dir, path))
            };
        found
            .map(|p| p.to_string_lossy().into_owned())
            .ok_or_else(|| LoadError::NotFound {
                path: path.to_string(),
            })
    }

    /// A file of several paths given (`ytt -f a -f b`), found as ytt finds
    /// it: by the names it gives the files (each relative to the path it
    /// came with), so a template of `b` loads `x.lib.yml` of `a`, and
    /// `/x.star` is `x.star` of any of them.
    fn named_file(&self, dir: &Path, path: &str) -> Option<PathBuf> {
        let session = self.session.borrow();
        let files = session.library_files.as_ref()?;
        let folder = files.iter().find_map(|(name, p)| {
            (p.parent() == Some(dir)).then(|| name.rsplit_once('/').map_or("", |(d, _)| d))
        })?;
        let wanted = match path.strip_prefix('/') {
            Some(rest) => rest.to_string(),
            None if folder.is_empty() => path.to_string(),
            None => format!("{folder}/{path}"),
        };
        if wanted.split('/').any(|part| part == ".." || part == ".") {
            return None;
        }
        files
            .iter()
            .find(|(name, _)| *name == wanted)
            .map(|(_, p)| crate::source::normalize_path(p))
    }

    /// Load an input file of the package by the name ytt gives it (a base
    /// name when files were named one by one).
    pub fn load_input(&self, name: &str) -> Result<FrozenModule, LoadError> {
        if self.flat_files.is_some() {
            self.load_path(&self.root, name)
        } else {
            self.load_file(name)
        }
    }

    /// Load a file of the package by its path below the package root.
    pub fn load_file(&self, relative: &str) -> Result<FrozenModule, LoadError> {
        self.load_path(&self.root, &format!("/{relative}"))
    }

    fn load_path(&self, dir: &Path, path: &str) -> Result<FrozenModule, LoadError> {
        let key = self.resolve(dir, path)?;
        if let Some(loaded) = self.modules.borrow().get(&key) {
            prints::replay(&loaded.printed);
            return loaded.module.clone();
        }
        if self.loading.borrow().contains(&key) {
            return Err(LoadError::Cycle {
                path: path.to_string(),
            });
        }
        self.loading.borrow_mut().push(key.clone());
        let (module, printed) = prints::recording(|| self.compile_load(&key, path));
        self.loading.borrow_mut().pop();
        self.modules.borrow_mut().insert(
            key,
            Loaded {
                module: module.clone(),
                printed,
            },
        );
        module
    }

    fn compile_load(&self, key: &str, path: &str) -> Result<FrozenModule, LoadError> {
        let context = crate::modules::Context {
            data_values: self.data_values.as_ref(),
        };
        if let Some(module) = crate::modules::load(path, &context, self.added_modules) {
            return Ok(module?);
        }
        let owned_path = || path.to_string();
        let failed = |line, message| LoadError::failed(path, line, message);
        let translated = if key.starts_with('@') {
            return Err(LoadError::NotProvided { path: owned_path() });
        } else {
            let file = PathBuf::from(key);
            let read = self.session.borrow().files.read(&file);
            let bytes = read.map_err(|e| LoadError::Unreadable {
                path: owned_path(),
                reason: e.to_string(),
            })?;
            let text =
                String::from_utf8(bytes).map_err(|_| LoadError::NotUtf8 { path: owned_path() })?;
            match self.marked_type(key, path)? {
                Some(FileType::Starlark) => {
                    translate(&star_code_lines(&text)).map_err(|e| failed(e.line, e.message))?
                }
                Some(FileType::Yaml) => self.compile_template_text(key, path, text, false)?,
                Some(FileType::Text) => self.compile_template_text(key, path, text, true)?,
                Some(FileType::Unknown) => {
                    return Err(LoadError::UnknownType { path: owned_path() });
                }
                None if path.ends_with(".star") => {
                    translate(&star_code_lines(&text)).map_err(|e| failed(e.line, e.message))?
                }
                None => {
                    let is_text = path.ends_with(".txt");
                    if is_text {
                        let name = Path::new(key).file_name().unwrap_or_default();
                        if !crate::template::text::is_library(&name.to_string_lossy()) {
                            return Err(LoadError::NotALibrary { path: owned_path() });
                        }
                    }
                    self.compile_template_text(key, path, text, is_text)?
                }
            }
        };
        let dir = Path::new(key).parent().unwrap_or(&self.root).to_path_buf();
        self.run_module(path, &translated, &dir)
            .map_err(|f| failed(f.line, f.message))
    }

    /// A loaded YAML file (`.lib.yml`) compiled as a template of this
    /// engine's session.
    fn compile_template_text(
        &self,
        key: &str,
        path: &str,
        text: String,
        is_text: bool,
    ) -> Result<Translated, LoadError> {
        let (file, source) = match self.known_files.get(Path::new(key)) {
            Some((file, source)) => (*file, source.clone()),
            None => (
                self.fallback_file,
                std::sync::Arc::new(crate::source::SourceFile::new(path.to_string(), None, text)),
            ),
        };
        let failed = |line, message| LoadError::failed(path, line, message);
        // A text template (`.lib.txt`): its functions return text.
        if is_text {
            return crate::template::text_program(&source, &self.session)
                .map(|p| p.translated)
                .map_err(|e| failed(e.line, e.message));
        }
        // Templates may repeat a key under `if`/`else` or in fragment functions.
        let options = crate::yaml::ParseOptions {
            keeps_duplicate_keys: true,
            ..Default::default()
        };
        let set = crate::yaml::parse_file(file, &source.text, &options).map_err(|e| {
            LoadError::NotYaml {
                path: path.to_string(),
                message: e.message,
            }
        })?;
        crate::template::program(&set, &source, file, &self.session, Default::default())
            .map(|p| p.translated)
            .map_err(|e| failed(e.line, e.message))
    }

    /// The type `--file-mark`s gave the file at `key`, when they gave one;
    /// an error when the marks make it no file to load (excluded, not a
    /// library).
    fn marked_type(&self, key: &str, path: &str) -> Result<Option<FileType>, LoadError> {
        let session = self.session.borrow();
        let Some(inputs) = session.inputs.as_ref() else {
            return Ok(None);
        };
        let at = Path::new(key);
        let path = path.to_string();
        if inputs.is_excluded(at) {
            return Err(LoadError::NotFound { path });
        }
        match inputs.get(at) {
            // Behind a link the symlink flags did not allow.
            None => Err(LoadError::NotFound { path }),
            Some(file) if !file.is_type_marked() => Ok(None),
            Some(file) if !file.is_library() => Err(LoadError::NotALibrary { path }),
            Some(file) => Ok(Some(file.file_type())),
        }
    }

    /// The package is these files named one by one, not a directory.
    pub fn with_flat_files(mut self, files: &[PathBuf]) -> Engine {
        let by_name = files
            .iter()
            .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), p.clone())))
            .collect();
        self.flat_files = Some(by_name);
        self
    }

    /// Files of the package already read and parsed: loads use their ids,
    /// so positions in loaded templates point into them.
    pub fn with_known_files(
        mut self,
        files: HashMap<
            PathBuf,
            (
                crate::source::FileId,
                std::sync::Arc<crate::source::SourceFile>,
            ),
        >,
        fallback: crate::source::FileId,
    ) -> Engine {
        self.session.borrow_mut().sources = files.values().cloned().collect();
        self.known_files = files;
        self.fallback_file = fallback;
        self
    }

    /// Evaluate annotation arguments in the scope of `module` (a file's code).
    pub fn eval_args(
        &self,
        module: Option<&FrozenModule>,
        args: &str,
    ) -> Result<CallArgs, StarError> {
        if args.trim().is_empty() {
            return Ok(CallArgs::default());
        }
        if let Some((_, message)) = crate::translate::nesting_error(args) {
            return Err(StarError {
                message,
                offset: None,
                is_syntax: true,
            });
        }
        let prefix = crate::starlark::CAPTURE_PREFIX;
        let program = format!("{prefix}{}\n)\n", crate::translate::rename_assert(args));
        let ast =
            crate::translate::parse_guarded("annotation", program, &dialect()).map_err(|e| {
                StarError {
                    message: first_line(&e.without_diagnostic().to_string()),
                    offset: e
                        .span()
                        .map(|s| (s.span.begin().get() as usize).saturating_sub(prefix.len())),
                    is_syntax: true,
                }
            })?;
        let _session = SessionGuard::install(&self.session);
        let frozen = Module::with_temp_heap(|m| {
            if let Some(scope) = module {
                m.import_public_symbols(scope);
            }
            let result = {
                let mut eval = sandboxed(&m, self);
                eval.eval_module(ast, &self.globals).map(|_| ())
            };
            result.map_err(|e| run_error(first_line(&e.without_diagnostic().to_string())))?;
            m.freeze().map_err(|e| run_error(format!("{e:?}")))
        })?;
        let captured = frozen
            .get("confvet_args_")
            .map_err(|e| run_error(e.to_string()))?;
        Ok(crate::starlark::convert::captured_call_args(&captured))
    }

    /// The Starlark type name of a frozen value.
    pub fn type_of(&self, value: &OwnedFrozenValue) -> String {
        value.value().get_type().to_string()
    }

    /// Call a rule: a function, or an object's `check` (assertion objects,
    /// structs). Ok is the returned value; Err the error text.
    pub fn call(
        &self,
        callee: &OwnedFrozenValue,
        args: &[&StarValue],
        named: &[(&str, &StarValue)],
    ) -> Result<StarValue, CallError> {
        let _session = SessionGuard::install(&self.session);
        Module::with_temp_heap(|module| {
            let heap = module.heap();
            let mut f = in_module(&module, callee);
            if !is_function(f) {
                f = match f.get_attr("check", heap) {
                    Ok(Some(check)) => check,
                    _ => return Err(CallError::NotCallable(f.get_type().to_string())),
                };
            }
            let positional: Vec<Value> = args.iter().map(|a| star_to_value(heap, a)).collect();
            let named: Vec<(&str, Value)> = named
                .iter()
                .map(|(k, v)| (*k, star_to_value(heap, v)))
                .collect();
            self.invoke(&module, f, &positional, &named)
        })
    }

    /// Call a `when=` predicate as ytt does: with `(value, ctx)` when it
    /// takes two parameters, `(value)` when it takes one; `ctx` has `parent`
    /// and `root`. Err says why it could not be evaluated.
    pub fn call_when(
        &self,
        callee: &OwnedFrozenValue,
        value: &StarValue,
        parent: &StarValue,
        root: &StarValue,
    ) -> Result<StarValue, CallError> {
        let arity = Module::with_temp_heap(|module| {
            let f = in_module(&module, callee);
            parameter_count(f)
        });
        match arity {
            Some(1) => self.call(callee, &[value], &[]),
            Some(2) => Module::with_temp_heap(|module| {
                let heap = module.heap();
                let f = in_module(&module, callee);
                let ctx = heap.alloc(starlark::values::structs::AllocStruct([
                    ("parent", star_to_value(heap, parent)),
                    ("root", star_to_value(heap, root)),
                ]));
                self.invoke(&module, f, &[star_to_value(heap, value), ctx], &[])
            }),
            Some(n) => Err(CallError::WhenArity(n)),
            None => self.call(callee, &[value], &[]),
        }
    }

    /// Call `f` in `module` with the sandbox's limits; Err is the error text.
    fn invoke<'v>(
        &self,
        module: &Module<'v>,
        f: Value<'v>,
        positional: &[Value<'v>],
        named: &[(&str, Value<'v>)],
    ) -> Result<StarValue, CallError> {
        let mut eval = sandboxed(module, self);
        match eval.eval_function(f, positional, named) {
            Ok(v) => Ok(crate::starlark::to_star_value(v, 0)),
            Err(e) => Err(CallError::Failed(first_line(
                &e.without_diagnostic().to_string(),
            ))),
        }
    }
}

/// The number of parameters of a def or lambda, read from its signature.
fn parameter_count(value: Value<'_>) -> Option<usize> {
    // `<function name>` reprs carry no signature; documentation does.
    let doc = value.documentation();
    match doc {
        starlark::docs::DocItem::Member(starlark::docs::DocMember::Function(f)) => {
            let p = &f.params;
            Some(p.pos_only.len() + p.pos_or_named.len())
        }
        _ => None,
    }
}

/// A frozen value usable in `module`.
fn in_module<'v>(module: &Module<'v>, value: &OwnedFrozenValue) -> Value<'v> {
    // SAFETY: the module's frozen heap takes a reference to the value's
    // owner, so the value lives as long as the module that uses it.
    unsafe { value.owned_frozen_value(module.frozen_heap()) }.to_value()
}

fn is_function(value: Value<'_>) -> bool {
    matches!(
        value.get_type(),
        "function" | "builtin_function_or_method" | "native_function"
    )
}

/// The engine with each file's compiled code: where annotations are evaluated.
pub struct Code<'a> {
    pub engine: &'a Engine,
    pub scopes: &'a HashMap<crate::source::FileId, FrozenModule>,
}

impl Code<'_> {
    /// Evaluate annotation arguments in the scope of the file they are in.
    pub fn eval_args(
        &self,
        args: &str,
        file: crate::source::FileId,
    ) -> Result<CallArgs, StarError> {
        self.engine.eval_args(self.scopes.get(&file), args)
    }
}

/// Loads for code in one directory (ytt resolves loads from the loading file).
struct Loader<'a> {
    engine: &'a Engine,
    dir: PathBuf,
}

impl FileLoader for Loader<'_> {
    fn load(&self, path: &str) -> starlark::Result<FrozenModule> {
        self.engine.load_path(&self.dir, path).map_err(load_failed)
    }
}

impl FileLoader for Engine {
    fn load(&self, path: &str) -> starlark::Result<FrozenModule> {
        self.load_path(&self.root, path).map_err(load_failed)
    }
}

/// A failed load as the Starlark error of the `load()`: its text, unchanged.
fn load_failed(e: LoadError) -> starlark::Error {
    starlark::Error::new_other(anyhow::anyhow!(e.to_string()))
}

/// An error evaluating annotation arguments that parsed.
fn run_error(message: String) -> StarError {
    StarError {
        message,
        offset: None,
        is_syntax: false,
    }
}

fn first_line(message: &str) -> String {
    let text = message.trim();
    let line = text.lines().next().unwrap_or("").trim();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

#[cfg(test)]
mod tests;
