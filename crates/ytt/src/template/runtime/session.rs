//! The state of one render's templates (ytt's `template.EvaluationCtx`s
//! and their compiled nodes): a session per package or library, the one
//! running on this thread, and the stack of open evaluation contexts.

use super::super::nodes::TemplateNodes;
use super::super::text::TextNodes;
use super::RuntimeError;
use super::build::Ctx;
use crate::yaml::Document;
use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// The templates of one render and their running contexts, where the
/// package's files are, and what the layers above keep for the render
/// (the runs that evaluated annotations, the library execution), held by type.
#[derive(Default)]
pub struct Session {
    /// The first template id of this session: ids differ between sessions,
    /// so a function exported by a library never runs on another's nodes.
    pub(super) id_base: usize,
    templates: Vec<Arc<TemplateNodes>>,
    pub(super) ctxs: Vec<OpenCtx>,
    /// What each template's top level built, by template id.
    pub(super) results: Vec<Option<Vec<Document>>>,
    /// The nodes of text templates, by template id.
    pub(super) texts: HashMap<usize, Arc<TextNodes>>,
    /// What each text template's top level built, by template id.
    pub(super) text_results: HashMap<usize, String>,
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
    /// The package's input files after `--file-mark`s, when any applies.
    pub inputs: Option<Arc<crate::marks::Inputs>>,
    /// The package's files by id, for the positions overlay errors name.
    pub sources: HashMap<crate::source::FileId, Arc<crate::source::SourceFile>>,
    /// What `load`, `data.read` and libraries read files through.
    pub files: crate::source::Files,
    /// What the layers above keep per session, one value of each type:
    /// this layer holds them without knowing them.
    states: HashMap<TypeId, Box<dyn Any>>,
}

/// An open evaluation context, and the session that ran before it when
/// its template is another session's (a library's function called by the
/// package, or the package's by a library): it runs again when the context
/// ends.
pub(super) struct OpenCtx {
    pub(super) ctx: Ctx,
    pub(super) return_to: Option<SharedSession>,
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
pub(super) fn foreign_owner(id: usize) -> Option<SharedSession> {
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
pub(super) fn with_session_of<T>(
    id: usize,
    f: impl FnOnce(&mut Session) -> Result<T, RuntimeError>,
) -> Result<T, RuntimeError> {
    match foreign_owner(id) {
        Some(owner) => {
            let mut session = owner
                .try_borrow_mut()
                .map_err(|_| RuntimeError::Reentered)?;
            f(&mut session)
        }
        None => with_session(f),
    }
}

thread_local! {
    static CURRENT: RefCell<Option<SharedSession>> = const { RefCell::new(None) };
    /// Every live session of this thread, by the first id of its templates.
    static BY_ID_BASE: RefCell<HashMap<usize, std::rc::Weak<RefCell<Session>>>> =
        RefCell::new(HashMap::new());
}

/// Makes `session` (or none) the one instructions on this thread use;
/// the one before.
pub(super) fn replace_current(session: Option<SharedSession>) -> Option<SharedSession> {
    CURRENT.with(|c| c.replace(session))
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
pub fn with_current<T>(f: impl FnOnce(&mut Session) -> T) -> Result<T, RuntimeError> {
    with_session(|s| Ok(f(s)))
}

pub(super) fn with_session<T>(
    f: impl FnOnce(&mut Session) -> Result<T, RuntimeError>,
) -> Result<T, RuntimeError> {
    CURRENT.with(|current| {
        let current = current.borrow();
        let session = current.as_ref().ok_or(RuntimeError::OutsideRender)?;
        let mut session = session
            .try_borrow_mut()
            .map_err(|_| RuntimeError::Reentered)?;
        f(&mut session)
    })
}

impl Session {
    /// The session's `T` (made on first use): the state a layer above
    /// keeps for the render.
    pub fn state<T: Default + 'static>(&mut self) -> &mut T {
        self.states
            .entry(TypeId::of::<T>())
            .or_insert_with(|| Box::new(T::default()))
            .downcast_mut()
            .expect("states are kept by their type")
    }

    /// The session's `T`, when a layer made it.
    pub fn state_ref<T: 'static>(&self) -> Option<&T> {
        self.states.get(&TypeId::of::<T>())?.downcast_ref()
    }

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

    pub(super) fn ctx(
        &mut self,
        id: usize,
    ) -> Result<(&mut Ctx, Arc<TemplateNodes>, bool), RuntimeError> {
        let implicit = self.implicit_map_key_overrides;
        let nodes = id
            .checked_sub(self.id_base)
            .and_then(|index| self.templates.get(index))
            .cloned()
            // A fragment function of another session's template (a library
            // exported it inside a value): not run on this session's nodes.
            .ok_or(RuntimeError::ForeignTemplate)?;
        let ctx = self
            .ctxs
            .last_mut()
            .map(|open| &mut open.ctx)
            .filter(|c| c.template == id)
            .ok_or(RuntimeError::OutsideContext)?;
        Ok((ctx, nodes, implicit))
    }
}
