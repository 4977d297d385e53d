//! What the instructions of a compiled template do while it runs (ytt's
//! `template.EvaluationCtx` with the YAML dialect): a stack of evaluation
//! contexts, one per template run or fragment-function call, each building
//! its output nodes. Starting a node copies the template node and attaches
//! it under the nearest started ancestor, which is how `for` repeats nodes
//! and `if` drops them.

use super::nodes::{Kind, Tag, TemplateNode, TemplateNodes};
use super::text::{TextBuild, TextNodes};
use crate::check::ytt::starlark::convert::{self, Converted, scalar_node};
use crate::check::ytt::starlark::fragment::{Fragment, FragmentData};
use crate::source::Span;
use crate::yaml::{
    ArrayItem, Comment, CommentKind, Document, MapItem, Node, Scalar, ScalarValue,
    Value as NodeValue,
};
use starlark::values::Value;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

/// The annotation that lets a map item override an earlier one of its key
/// (split so it does not read as a rule id).
const MAP_KEY_OVERRIDE: &str = concat!("yaml", "/map-key-override");

/// The templates of one render and their running contexts.
#[derive(Default)]
pub struct Session {
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
    /// The files of a package given file by file or folder by folder
    /// (`render`), by the names ytt gives them; None: every file below
    /// `root`.
    pub library_files: Option<Vec<(String, std::path::PathBuf)>>,
}

pub type SharedSession = Rc<RefCell<Session>>;

thread_local! {
    static CURRENT: RefCell<Option<SharedSession>> = const { RefCell::new(None) };
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

/// What a context slot holds.
#[derive(Debug, Clone)]
enum Slot {
    Empty,
    Node(Node),
    Child(usize),
}

/// One output node under construction.
#[derive(Debug, Clone)]
struct Built {
    kind: Kind,
    span: Span,
    key: Option<Scalar>,
    comments: Vec<Comment>,
    has_start_marker: bool,
    /// The value of an item or document.
    slot: Slot,
    /// The items of a map, array or document set.
    children: Vec<usize>,
}

struct Ctx {
    template: usize,
    arena: Vec<Built>,
    root: Option<usize>,
    parents: Vec<usize>,
    parent_tags: Vec<Tag>,
    /// Map item keys computed before their items start (ytt's
    /// `pendingMapItemKeys`: `@yaml/text-templated-strings` keys).
    pending_keys: HashMap<Tag, Scalar>,
    /// The context of a text template (ytt's text dialect).
    text: Option<TextBuild>,
}

impl Session {
    /// Register a compiled template's nodes; returns its id.
    pub fn register(&mut self, nodes: TemplateNodes) -> usize {
        self.templates.push(Arc::new(nodes));
        self.results.push(None);
        self.templates.len() - 1
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
        self.templates.len()
    }

    /// What template `id`'s top level built, once it has run.
    pub fn take_result(&mut self, id: usize) -> Option<Vec<Document>> {
        self.results.get_mut(id).and_then(Option::take)
    }

    /// Contexts left open by a failed evaluation are dropped.
    pub fn reset_ctxs(&mut self) {
        self.ctxs.clear();
    }

    fn ctx(&mut self, id: usize) -> Result<(&mut Ctx, Arc<TemplateNodes>, bool), String> {
        let implicit = self.implicit_map_key_overrides;
        let nodes = self
            .templates
            .get(id)
            .cloned()
            .ok_or_else(|| format!("unknown template {id}"))?;
        let ctx = self
            .ctxs
            .last_mut()
            .filter(|c| c.template == id)
            .ok_or("template instruction outside its evaluation context")?;
        Ok((ctx, nodes, implicit))
    }
}

pub fn start_ctx(id: usize) -> Result<(), String> {
    with_session(|s| {
        let text = s.texts.contains_key(&id).then(TextBuild::default);
        s.ctxs.push(Ctx {
            template: id,
            arena: Vec::new(),
            root: None,
            parents: Vec::new(),
            parent_tags: Vec::new(),
            pending_keys: HashMap::new(),
            text,
        });
        Ok(())
    })
}

/// What ending a context returns: the value given, or what it built.
pub enum Ended<'v> {
    Given(Value<'v>),
    Built(Fragment),
    /// What a text context built.
    Text(String),
}

pub fn end_ctx(id: usize, given: Option<Value<'_>>) -> Result<Ended<'_>, String> {
    with_session(|s| {
        let ctx = s
            .ctxs
            .pop()
            .ok_or("unexpected end of an evaluation context")?;
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
                && let Some(slot) = s.results.get_mut(id)
            {
                *slot = Some(docs.clone());
            }
        }
        Ok(match given {
            Some(value) => Ended::Given(value),
            None => Ended::Built(Fragment::new(built)),
        })
    })
}

pub fn start_node(id: usize, tag: Tag) -> Result<(), String> {
    with_session(|s| {
        let text = s.texts.get(&id).cloned();
        let (ctx, nodes, implicit) = s.ctx(id)?;
        if let (Some(nodes), Some(build)) = (text, ctx.text.as_mut()) {
            return build.start_node(&nodes, tag);
        }
        ctx.start_node(&nodes, tag, implicit)
    })
}

pub fn set_node(id: usize, tag: Tag, value: Option<Value<'_>>) -> Result<(), String> {
    with_session(|s| {
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
                    Converted::Documents(docs) => Node {
                        span,
                        value: NodeValue::Array(
                            docs.into_iter()
                                .map(|d| ArrayItem {
                                    span: d.span,
                                    value: d.value,
                                    comments: d.comments,
                                })
                                .collect(),
                        ),
                    },
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
    with_session(|s| {
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

enum Materialized {
    Node(Node),
    Documents(Vec<Document>),
    Item,
}

impl Ctx {
    fn built_from(template: &TemplateNode) -> Built {
        Built {
            kind: template.kind,
            span: template.span,
            key: template.key.clone(),
            comments: template.annotations.clone(),
            has_start_marker: template.has_start_marker,
            slot: Slot::Empty,
            children: Vec::new(),
        }
    }

    fn start_node(
        &mut self,
        nodes: &TemplateNodes,
        tag: Tag,
        implicit: bool,
    ) -> Result<(), String> {
        let template = nodes
            .get(tag)
            .ok_or_else(|| format!("expected to find node {tag}"))?;
        if self.root.is_none()
            && matches!(template.kind, Kind::Doc | Kind::MapItem | Kind::ArrayItem)
            && self.parents.is_empty()
        {
            self.start_node(nodes, template.parent, implicit)?;
        }
        let index = self.arena.len();
        let mut built = Ctx::built_from(template);
        if let Some(key) = self.pending_keys.remove(&tag) {
            built.key = Some(key);
        }
        self.arena.push(built);
        if self.root.is_none() {
            self.root = Some(index);
        }
        if let Some(&current) = self.parent_tags.last() {
            let common = nodes.common_parent(current, tag);
            let Some(keep) = self.parent_tags.iter().position(|t| *t == common) else {
                return Err(format!("expected to find node {common} when unwinding"));
            };
            self.parents.truncate(keep + 1);
            self.parent_tags.truncate(keep + 1);
            let parent = *self.parents.last().unwrap_or(&index);
            if self.arena[parent].kind == Kind::Map && template.kind == Kind::MapItem {
                self.make_room(parent, index, true, implicit)?;
            }
            self.add_value(parent, index);
        }
        self.parents.push(index);
        self.parent_tags.push(tag);
        Ok(())
    }

    fn add_value(&mut self, parent: usize, child: usize) {
        match self.arena[parent].kind {
            Kind::Map | Kind::Array | Kind::DocSet => self.arena[parent].children.push(child),
            Kind::MapItem | Kind::ArrayItem | Kind::Doc => {
                self.arena[parent].slot = Slot::Child(child);
            }
        }
    }

    /// ytt's `MapItemOverride.Apply`: a key given twice replaces the
    /// earlier item only when overriding is allowed.
    fn make_room(
        &mut self,
        map: usize,
        item: usize,
        strict: bool,
        implicit: bool,
    ) -> Result<(), String> {
        let key = self.arena[item].key.clone().map(|k| k.resolved);
        let existing = self.arena[map]
            .children
            .iter()
            .position(|c| self.arena[*c].key.as_ref().map(|k| &k.resolved) == key.as_ref());
        let Some(position) = existing else {
            return Ok(());
        };
        let annotated = self.arena[item].comments.iter().any(
            |c| matches!(&c.kind, CommentKind::Annotation { name, .. } if name == MAP_KEY_OVERRIDE),
        );
        if implicit || annotated || !strict {
            self.arena[map].children.remove(position);
            return Ok(());
        }
        let key = self.arena[item]
            .key
            .as_ref()
            .map(Scalar::display)
            .unwrap_or_default();
        Err(format!(
            "expected key '{key}' to not be specified again (unless 'yaml/map-key-override' annotation is added)"
        ))
    }

    fn replace(&mut self, value: Value<'_>, implicit: bool) -> Result<(), String> {
        let Some(&current) = self.parents.last() else {
            return Err("expected to replace document value, map item or array item".into());
        };
        let parent = match self.parents.len() {
            n if n >= 2 => self.parents[n - 2],
            _ => return Err("expected to find a parent node, but was not enough parents".into()),
        };
        let span = self.arena[current].span;
        // Items of a fragment carry their annotations, so a repeated key is
        // an error unless overriding is asked for (ytt's `carryMeta`).
        let strict = Fragment::from_value(value).is_some();
        let converted = convert::convert(value, span, 0)?;
        let (expected, new_items): (&str, Vec<Built>) = match self.arena[current].kind {
            Kind::Doc => ("document set", documents_of(converted, span)?),
            Kind::MapItem => ("map", map_items_of(converted)?),
            Kind::ArrayItem => ("array", array_items_of(converted)?),
            _ => {
                return Err("expected to replace document value, map item or array item".into());
            }
        };
        let _ = expected;
        let mut indexes = Vec::with_capacity(new_items.len());
        for built in new_items {
            let index = self.arena.len();
            self.arena.push(built);
            if self.arena[parent].kind == Kind::Map {
                self.make_room(parent, index, strict, implicit)?;
            }
            indexes.push(index);
        }
        let children = &mut self.arena[parent].children;
        let Some(position) = children.iter().position(|c| *c == current) else {
            return Err("expected to find placeholder item in its parent".into());
        };
        children.splice(position..=position, indexes);
        Ok(())
    }

    fn slot_node(&self, index: usize) -> Node {
        let built = &self.arena[index];
        match &built.slot {
            Slot::Empty => scalar_node(ScalarValue::Null, built.span),
            Slot::Node(node) => node.clone(),
            Slot::Child(child) => match self.materialize(*child) {
                Materialized::Node(node) => node,
                Materialized::Documents(docs) => Node {
                    span: built.span,
                    value: NodeValue::Array(
                        docs.into_iter()
                            .map(|d| ArrayItem {
                                span: d.span,
                                value: d.value,
                                comments: d.comments,
                            })
                            .collect(),
                    ),
                },
                Materialized::Item => scalar_node(ScalarValue::Null, built.span),
            },
        }
    }

    fn materialize(&self, index: usize) -> Materialized {
        let built = &self.arena[index];
        match built.kind {
            Kind::Map => Materialized::Node(Node {
                span: built.span,
                value: NodeValue::Map(
                    built
                        .children
                        .iter()
                        .map(|c| MapItem {
                            key_span: self.arena[*c].span,
                            key: self.arena[*c]
                                .key
                                .clone()
                                .unwrap_or_else(|| convert::scalar(ScalarValue::Null)),
                            value: self.slot_node(*c),
                            comments: self.arena[*c].comments.clone(),
                        })
                        .collect(),
                ),
            }),
            Kind::Array => Materialized::Node(Node {
                span: built.span,
                value: NodeValue::Array(
                    built
                        .children
                        .iter()
                        .map(|c| ArrayItem {
                            span: self.arena[*c].span,
                            value: self.slot_node(*c),
                            comments: self.arena[*c].comments.clone(),
                        })
                        .collect(),
                ),
            }),
            Kind::DocSet => Materialized::Documents(
                built
                    .children
                    .iter()
                    .map(|c| Document {
                        span: self.arena[*c].span,
                        has_start_marker: self.arena[*c].has_start_marker,
                        value: self.slot_node(*c),
                        comments: self.arena[*c].comments.clone(),
                    })
                    .collect(),
            ),
            Kind::Doc | Kind::MapItem | Kind::ArrayItem => Materialized::Item,
        }
    }
}

fn item(kind: Kind, span: Span, key: Option<Scalar>, value: Node, comments: Vec<Comment>) -> Built {
    Built {
        kind,
        span,
        key,
        comments,
        has_start_marker: false,
        slot: Slot::Node(value),
        children: Vec::new(),
    }
}

fn documents_of(converted: Converted, span: Span) -> Result<Vec<Built>, String> {
    match converted {
        Converted::Documents(docs) => Ok(docs
            .into_iter()
            .map(|d| {
                let mut built = item(Kind::Doc, d.span, None, d.value, d.comments);
                built.has_start_marker = d.has_start_marker;
                built
            })
            .collect()),
        Converted::Node(Node {
            value: NodeValue::Array(items),
            ..
        }) => Ok(items
            .into_iter()
            .map(|i| item(Kind::Doc, span, None, i.value, Vec::new()))
            .collect()),
        Converted::Node(node) => Err(format!(
            "expected value to be document set, but was {}",
            type_name(&node)
        )),
    }
}

fn map_items_of(converted: Converted) -> Result<Vec<Built>, String> {
    match converted {
        Converted::Node(Node {
            value: NodeValue::Map(items),
            ..
        }) => Ok(items
            .into_iter()
            .map(|i| item(Kind::MapItem, i.key_span, Some(i.key), i.value, i.comments))
            .collect()),
        Converted::Node(node) => Err(format!(
            "expected value to be map, but was {}",
            type_name(&node)
        )),
        Converted::Documents(_) => Err("expected value to be map, but was document set".into()),
    }
}

fn array_items_of(converted: Converted) -> Result<Vec<Built>, String> {
    match converted {
        Converted::Node(Node {
            value: NodeValue::Array(items),
            ..
        }) => Ok(items
            .into_iter()
            .map(|i| item(Kind::ArrayItem, i.span, None, i.value, i.comments))
            .collect()),
        Converted::Node(node) => Err(format!(
            "expected value to be array, but was {}",
            type_name(&node)
        )),
        Converted::Documents(_) => Err("expected value to be array, but was document set".into()),
    }
}

fn type_name(node: &Node) -> &'static str {
    match &node.value {
        NodeValue::Map(_) => "map",
        NodeValue::Array(_) => "array",
        NodeValue::Scalar(s) => s.resolved.type_name(),
    }
}

/// `data.read(path)`: a file of the package (relative to its root; ytt
/// reads relative to the library root when the path starts with `/`).
pub fn read_package_file(path: &str) -> Result<String, String> {
    let (root, listed) = with_session(|s| Ok((s.root.clone(), s.library_files.clone())))?;
    let relative = path.trim_start_matches('/');
    let full = match listed {
        // Files named on the command line: known by their names only.
        Some(files) => files
            .iter()
            .find(|(name, _)| name == relative)
            .map(|(_, p)| p.clone())
            .ok_or_else(|| format!("Expected to find file '{path}'"))?,
        None => {
            let full = crate::source::normalize_path(&root.join(relative));
            if !full.starts_with(&root) || relative.split('/').any(|p| p == "..") {
                return Err(format!("Expected to find file '{path}'"));
            }
            full
        }
    };
    let bytes = crate::source::read_limited(&full)
        .map_err(|_| format!("Expected to find file '{path}'"))?;
    String::from_utf8(bytes).map_err(|_| format!("file '{path}' is not UTF-8 text"))
}

/// `data.list(path)`: the package's files under `path`, relative to its root.
pub fn list_package_files(path: &str) -> Result<Vec<String>, String> {
    let (root, listed) = with_session(|s| Ok((s.root.clone(), s.library_files.clone())))?;
    if let Some(files) = listed {
        let prefix = path.trim_start_matches('/').trim_end_matches('/');
        let mut names: Vec<String> = files
            .into_iter()
            .map(|(name, _)| name)
            .filter(|name| prefix.is_empty() || name.starts_with(&format!("{prefix}/")))
            .collect();
        names.sort();
        return Ok(names);
    }
    let base = root.join(path.trim_start_matches('/'));
    let mut found = Vec::new();
    let mut pending = vec![base];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                pending.push(p);
            } else if let Ok(relative) = p.strip_prefix(&root) {
                found.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    found.sort();
    Ok(found)
}
