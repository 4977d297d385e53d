//! What the instructions of a compiled template do while it runs (ytt's
//! `template.EvaluationCtx` with the YAML dialect): a stack of evaluation
//! contexts, one per template run or fragment-function call, each building
//! its output nodes. Starting a node copies the template node and attaches
//! it under the nearest started ancestor, which is how `for` repeats nodes
//! and `if` drops them.

use super::nodes::{Tag, TemplateNodes};
use super::text::{TextBuild, TextNodes};
use crate::check::ytt::starlark::convert::{self, Converted};
use crate::check::ytt::starlark::fragment::{Fragment, FragmentData};
use crate::check::ytt::starlark::scalars::scalar_node;
use crate::yaml::{Document, Node, ScalarValue, Value as NodeValue};
use starlark::values::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

mod addressed;
mod build;
mod files;

use build::{Ctx, Materialized, Slot};
pub use files::{list_package_files, read_package_file};

/// The annotation that lets a map item override an earlier one of its key
/// (split so it does not read as a rule id).
const MAP_KEY_OVERRIDE: &str = concat!("yaml", "/map-key-override");

/// The templates of one render and their running contexts.
#[derive(Default)]
pub struct Session {
    /// The first template id of this session: ids differ between sessions,
    /// so a function exported by a library never runs on another's nodes.
    id_base: usize,
    templates: Vec<Arc<TemplateNodes>>,
    ctxs: Vec<Ctx>,
    /// What each template's top level built, by template id.
    results: Vec<Option<Vec<Document>>>,
    /// The nodes of text templates, by template id.
    texts: HashMap<usize, Arc<TextNodes>>,
    /// What each text template's top level built, by template id.
    text_results: HashMap<usize, String>,
    /// ytt's `--implicit-map-key-overrides`.
    pub implicit_map_key_overrides: bool,
    /// The package root, for `data.read` and `data.list`.
    pub root: std::path::PathBuf,
    /// The directory of each module run (by module name): `library.get`
    /// finds libraries in the `_ytt_lib` beside the file calling it.
    pub module_dirs: HashMap<String, std::path::PathBuf>,
    /// The files of a package given file by file or folder by folder
    /// (`render`), by the names ytt gives them; None: every file below
    /// `root`.
    pub library_files: Option<Vec<(String, std::path::PathBuf)>>,
    /// The runs that evaluated overlay annotations, once frozen, by number
    /// (see `overlay::registry`).
    pub frozen_runs: HashMap<u32, starlark::environment::FrozenModule>,
    /// Evaluates a private library (`library.get(...).eval()`), given by
    /// the package check so templates do not depend on it.
    pub library_evaluator: Option<LibraryEvaluator>,
    /// Library evaluations so far, against a template calling one in a loop.
    pub library_evaluations: usize,
    /// The package's input files after `--file-mark`s, when any applies.
    pub inputs: Option<Arc<crate::check::ytt::marks::Inputs>>,
    /// What each library evaluated to, by folder and inputs.
    pub library_cache: Vec<(String, EvaluatedLibrary)>,
    /// Data values and schemas this package addresses to its libraries
    /// (`#@library/ref`, `--data-value @lib:...`), and the options its
    /// libraries inherit.
    pub library_values: Vec<Addressed<ValuesDoc>>,
    pub library_schemas: Vec<Addressed<Document>>,
    pub library_options: LibraryOptions,
    /// The sessions of the libraries whose functions were exported, by
    /// number: an exported function runs in its library's session.
    pub library_sessions: Vec<(u64, SharedSession)>,
    /// The package's files by id, for the positions overlay errors name.
    pub sources: HashMap<crate::source::FileId, Arc<crate::source::SourceFile>>,
}

pub type SharedSession = Rc<RefCell<Session>>;

/// How many template ids one session has: ids of live sessions never
/// overlap, and every id fits the `int` (i32) the compiled code passes.
pub const SESSION_TEMPLATES: usize = 1 << ID_BITS;

/// The bits of a template id below its session's `id_base`.
const ID_BITS: u32 = 20;
const SESSION_NUMBERS: usize = (i32::MAX as usize + 1) / SESSION_TEMPLATES;

/// A new session, its template ids apart from every other live session's
/// on this thread. Sessions are per thread (`Rc`), so a base only needs to
/// differ from the live sessions' of this thread: the lowest free one is
/// taken, which keeps ids small however many packages a long run renders.
pub fn new_session() -> SharedSession {
    BY_ID_BASE.with(|all| {
        let mut all = all.borrow_mut();
        all.retain(|_, session| session.strong_count() > 0);
        // Past the numbers there are (thousands of live sessions, which the
        // limits on library evaluations rule out) a base repeats; a repeated
        // id only fails a call, it cannot crash.
        let number = (0..SESSION_NUMBERS)
            .find(|n| !all.contains_key(&(n * SESSION_TEMPLATES)))
            .unwrap_or(all.len() % SESSION_NUMBERS);
        let id_base = number * SESSION_TEMPLATES;
        let session = Session {
            id_base,
            ..Session::default()
        };
        let shared = Rc::new(RefCell::new(session));
        all.insert(id_base, Rc::downgrade(&shared));
        shared
    })
}

/// The session whose template has id `id`, when it is not the running one
/// (a function of another session's template called from this one).
fn foreign_owner(id: usize) -> Option<SharedSession> {
    let owner = BY_ID_BASE.with(|all| {
        all.borrow()
            .get(&(id >> ID_BITS << ID_BITS))
            .and_then(std::rc::Weak::upgrade)
    })?;
    let current = CURRENT.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|current| Rc::ptr_eq(current, &owner))
    });
    (!current).then_some(owner)
}

/// Run `f` on the session whose template `id` is: the running one, or
/// the one that owns it.
fn with_session_of<T>(
    id: usize,
    f: impl FnOnce(&mut Session) -> Result<T, String>,
) -> Result<T, String> {
    match foreign_owner(id) {
        Some(owner) => {
            let mut session = owner
                .try_borrow_mut()
                .map_err(|_| "template instructions re-entered".to_string())?;
            f(&mut session)
        }
        None => with_session(f),
    }
}

/// What evaluating a private library gives.
#[derive(Clone)]
pub struct EvaluatedLibrary {
    /// The documents it outputs, after its overlays.
    pub docs: Vec<Document>,
    /// Its final data values.
    pub values: Node,
    /// The globals of each of its library files (`.star`, `.lib.yml`,
    /// `.lib.txt`), by path in the library, for `export()`; with the
    /// session their functions run in.
    pub exports: Vec<(String, starlark::environment::FrozenModule)>,
    pub session: Option<SharedSession>,
}

pub use addressed::{Addressed, LibraryOptions, LibraryRef, ValuesDoc, unused_error};

/// What a library is evaluated with: its data values (merged after its
/// own, in this order) and schema documents, what is addressed through it
/// to its own libraries, and its options.
#[derive(Debug, Clone, Default)]
pub struct LibraryInputs {
    pub values: Vec<ValuesDoc>,
    pub schemas: Vec<Document>,
    pub child_values: Vec<Addressed<ValuesDoc>>,
    pub child_schemas: Vec<Addressed<Document>>,
    pub options: LibraryOptions,
    /// `data_values()`: the data values only, no templates.
    pub values_only: bool,
    /// Evaluated as a library: its library files are evaluated for
    /// `export()`, as ytt evaluates them.
    pub is_library: bool,
    /// The input files of the package that uses the library, as its
    /// `--file-mark`s made them (the library's are among them).
    pub files: Option<Arc<crate::check::ytt::marks::Inputs>>,
}

/// Evaluate the library in a folder with `LibraryInputs`; Err holds ytt's
/// message.
pub type LibraryEvaluator =
    fn(&std::path::Path, &LibraryInputs) -> Result<EvaluatedLibrary, String>;

thread_local! {
    static CURRENT: RefCell<Option<SharedSession>> = const { RefCell::new(None) };
    /// Every live session of this thread, by the first id of its templates.
    static BY_ID_BASE: RefCell<HashMap<usize, std::rc::Weak<RefCell<Session>>>> =
        RefCell::new(HashMap::new());
}

/// Makes `session` the one instructions on this thread use, until dropped.
pub struct SessionGuard(Option<SharedSession>);

impl SessionGuard {
    pub fn install(session: &SharedSession) -> SessionGuard {
        let previous = CURRENT.with(|c| c.replace(Some(session.clone())));
        SessionGuard(previous)
    }
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// The session of the render running on this thread, if any.
pub fn with_current<T>(f: impl FnOnce(&mut Session) -> T) -> Result<T, String> {
    with_session(|s| Ok(f(s)))
}

fn with_session<T>(f: impl FnOnce(&mut Session) -> Result<T, String>) -> Result<T, String> {
    CURRENT.with(|current| {
        let current = current.borrow();
        let session = current
            .as_ref()
            .ok_or("template instructions run outside a render")?;
        let mut session = session
            .try_borrow_mut()
            .map_err(|_| "template instructions re-entered".to_string())?;
        f(&mut session)
    })
}

impl Session {
    /// Register a compiled template's nodes; returns its id.
    pub fn register(&mut self, nodes: TemplateNodes) -> usize {
        self.templates.push(Arc::new(nodes));
        self.results.push(None);
        self.id_base + self.templates.len() - 1
    }

    /// Register a text template's nodes; returns its id.
    pub fn register_text(&mut self, nodes: TextNodes) -> usize {
        let id = self.register(TemplateNodes::default());
        self.texts.insert(id, Arc::new(nodes));
        id
    }

    /// What text template `id`'s top level built, once it has run.
    pub fn take_text_result(&mut self, id: usize) -> Option<String> {
        self.text_results.remove(&id)
    }

    /// The id the next registered template gets.
    pub fn next_id(&self) -> usize {
        self.id_base + self.templates.len()
    }

    /// Whether `more` templates still fit this session's ids.
    pub fn has_room(&self, more: usize) -> bool {
        self.templates.len() + more <= SESSION_TEMPLATES
    }

    /// What template `id`'s top level built, once it has run.
    pub fn take_result(&mut self, id: usize) -> Option<Vec<Document>> {
        let index = id.checked_sub(self.id_base)?;
        self.results.get_mut(index).and_then(Option::take)
    }

    /// Contexts left open by a failed evaluation are dropped.
    pub fn reset_ctxs(&mut self) {
        self.ctxs.clear();
    }

    fn ctx(&mut self, id: usize) -> Result<(&mut Ctx, Arc<TemplateNodes>, bool), String> {
        let implicit = self.implicit_map_key_overrides;
        let nodes = id
            .checked_sub(self.id_base)
            .and_then(|index| self.templates.get(index))
            .cloned()
            // A fragment function of another session's template (a library
            // exported it inside a value): not run on this session's nodes.
            .ok_or_else(|| {
                format!(
                    "a function of a library's template called outside its library: {}",
                    crate::check::ytt::starlark::NOT_RENDERED
                )
            })?;
        let ctx = self
            .ctxs
            .last_mut()
            .filter(|c| c.template == id)
            .ok_or("template instruction outside its evaluation context")?;
        Ok((ctx, nodes, implicit))
    }
}

pub fn start_ctx(id: usize) -> Result<(), String> {
    // Another session's template: that session runs until the context
    // ends (its `template.replace`, `data.read`, libraries).
    let owner = foreign_owner(id);
    let return_to = match &owner {
        Some(owner) => CURRENT.with(|c| c.replace(Some(owner.clone()))),
        None => None,
    };
    let started = with_session(|s| {
        let text = s.texts.contains_key(&id).then(TextBuild::default);
        s.ctxs.push(Ctx {
            template: id,
            arena: Vec::new(),
            root: None,
            parents: Vec::new(),
            parent_tags: Vec::new(),
            pending_keys: HashMap::new(),
            pending_annotations: HashMap::new(),
            text,
            return_to: return_to.clone(),
        });
        Ok(())
    });
    if started.is_err()
        && let Some(previous) = return_to
    {
        CURRENT.with(|c| *c.borrow_mut() = Some(previous));
    }
    started
}

/// What ending a context returns: the value given, or what it built.
pub enum Ended<'v> {
    Given(Value<'v>),
    Built(Fragment),
    /// What a text context built.
    Text(String),
}

pub fn end_ctx(id: usize, given: Option<Value<'_>>) -> Result<Ended<'_>, String> {
    let mut return_to = None;
    let ended = with_session_of(id, |s| {
        let mut ctx = s
            .ctxs
            .pop()
            .ok_or("unexpected end of an evaluation context")?;
        return_to = ctx.return_to.take();
        if ctx.template != id {
            return Err("evaluation contexts ended out of order".into());
        }
        if let Some(text) = ctx.text {
            let text = text.finish();
            return Ok(match given {
                // A text template's top level ends with a given `None`.
                Some(value) => {
                    if value.is_none() {
                        s.text_results.insert(id, text);
                    }
                    Ended::Given(value)
                }
                None => Ended::Text(text),
            });
        }
        let built = match ctx.root {
            Some(root) => match ctx.materialize(root) {
                Materialized::Node(node) => FragmentData::Node(node),
                Materialized::Documents(docs) => FragmentData::Documents(docs),
                _ => FragmentData::Nil,
            },
            None => FragmentData::Nil,
        };
        if s.ctxs.is_empty() || given.is_some() {
            // A template's top level ends with a given `None`: keep what it
            // built as the template's output.
            if let FragmentData::Documents(docs) = &built
                && given.is_some_and(|v| v.is_none())
                && let Some(slot) = id
                    .checked_sub(s.id_base)
                    .and_then(|index| s.results.get_mut(index))
            {
                *slot = Some(docs.clone());
            }
        }
        Ok(match given {
            Some(value) => Ended::Given(value),
            None => Ended::Built(Fragment::new(built)),
        })
    });
    if let Some(previous) = return_to {
        CURRENT.with(|c| *c.borrow_mut() = Some(previous));
    }
    ended
}

pub fn start_node(id: usize, tag: Tag) -> Result<(), String> {
    with_session_of(id, |s| {
        let text = s.texts.get(&id).cloned();
        let (ctx, nodes, implicit) = s.ctx(id)?;
        if let (Some(nodes), Some(build)) = (text, ctx.text.as_mut()) {
            return build.start_node(&nodes, tag);
        }
        ctx.start_node(&nodes, tag, implicit)
    })
}

pub fn set_node(id: usize, tag: Tag, value: Option<Value<'_>>) -> Result<(), String> {
    with_session_of(id, |s| {
        let text = s.texts.get(&id).cloned();
        let (ctx, nodes, _) = s.ctx(id)?;
        if let (Some(nodes), Some(build)) = (text, ctx.text.as_mut()) {
            return build.set_node(&nodes, tag, value);
        }
        let top = *ctx.parents.last().ok_or("no node to set a value on")?;
        match value {
            None => {
                let template = nodes.get(tag).ok_or("unknown template node")?;
                let span = template.span;
                let node = template
                    .scalar
                    .clone()
                    .unwrap_or_else(|| scalar_node(ScalarValue::Null, span));
                ctx.arena[top].slot = Slot::Node(node);
            }
            Some(value) if is_noop(value) => {}
            Some(value) => {
                let span = ctx.arena[top].span;
                let node = match convert::convert(value, span, 0)? {
                    Converted::Node(node) => node,
                    Converted::Documents(docs) => convert::documents_as_array(docs, span),
                };
                ctx.arena[top].slot = Slot::Node(node);
            }
        }
        Ok(())
    })
}

/// `__ytt_set_map_item_key`: the key the map item `tag` gets when it
/// starts (a templated key of `@yaml/text-templated-strings`).
pub fn set_map_item_key(id: usize, tag: Tag, value: Value<'_>) -> Result<(), String> {
    with_session_of(id, |s| {
        let (ctx, nodes, _) = s.ctx(id)?;
        if ctx.text.is_some() {
            return Err("unsupported operation".into());
        }
        let span = nodes.get(tag).ok_or("unknown template node")?.span;
        let key = match convert::convert(value, span, 0)? {
            Converted::Node(Node {
                value: NodeValue::Scalar(scalar),
                ..
            }) => scalar,
            _ => return Err("expected a map item key to be a scalar".into()),
        };
        ctx.pending_keys.insert(tag, key);
        Ok(())
    })
}

/// `__ytt_annotation`: the evaluated arguments of annotation `name` of
/// node `tag`, which it carries when it starts.
pub fn set_annotation_args(
    id: usize,
    tag: Tag,
    name: &str,
    args: crate::yaml::EvaluatedArgs,
) -> Result<(), String> {
    with_session_of(id, |s| {
        let (ctx, _, _) = s.ctx(id)?;
        ctx.pending_annotations
            .entry(tag)
            .or_default()
            .push((name.to_string(), args));
        Ok(())
    })
}

/// `template.replace(value)`: the current item becomes the items of `value`.
pub fn replace(value: Value<'_>) -> Result<(), String> {
    with_session(|s| {
        let implicit = s.implicit_map_key_overrides;
        let ctx = s
            .ctxs
            .last_mut()
            .ok_or("template.replace outside a template")?;
        if ctx.text.is_some() {
            return Err("unsupported operation".into());
        }
        ctx.replace(value, implicit)
    })
}

fn is_noop(value: Value<'_>) -> bool {
    value.get_type() == super::noop::NOOP_TYPE
}
