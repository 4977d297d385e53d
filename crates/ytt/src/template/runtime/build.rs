//! The output nodes one evaluation context builds: an arena of nodes under
//! construction, the stack of started parents, ytt's map-key override rule,
//! `template.replace`, and the finished tree.

use super::super::nodes::{Kind, Tag, TemplateNode, TemplateNodes};
use super::super::text::TextBuild;
use super::RuntimeError;
use crate::source::Span;
use crate::starlark::convert::{self, Converted};
use crate::starlark::fragment::Fragment;
use crate::starlark::scalars::{self, scalar_node};
use crate::yaml::{
    ArrayItem, Comment, CommentKind, Document, MapItem, Node, Scalar, ScalarValue,
    Value as NodeValue,
};
use starlark::values::Value;
use std::collections::HashMap;

/// The annotation that lets a map item override an earlier one of its key
/// (split so it does not read as a rule id).
const MAP_KEY_OVERRIDE: &str = concat!("yaml", "/map-key-override");

/// What a context slot holds.
#[derive(Debug, Clone)]
pub(super) enum Slot {
    Empty,
    Node(Node),
    Child(usize),
}

/// One output node under construction.
#[derive(Debug, Clone)]
pub(super) struct Built {
    pub(super) kind: Kind,
    pub(super) span: Span,
    pub(super) key: Option<Scalar>,
    pub(super) comments: Vec<Comment>,
    pub(super) has_start_marker: bool,
    /// The value of an item or document.
    pub(super) slot: Slot,
    /// The items of a map, array or document set.
    pub(super) children: Vec<usize>,
}

pub(super) struct Ctx {
    pub(super) template: usize,
    pub(super) arena: Vec<Built>,
    pub(super) root: Option<usize>,
    pub(super) parents: Vec<usize>,
    pub(super) parent_tags: Vec<Tag>,
    /// Map item keys computed before their items start (ytt's
    /// `pendingMapItemKeys`: `@yaml/text-templated-strings` keys).
    pub(super) pending_keys: HashMap<Tag, Scalar>,
    /// Evaluated annotation arguments of nodes about to start, by name.
    pub(super) pending_annotations: HashMap<Tag, Vec<(String, crate::yaml::EvaluatedArgs)>>,
    /// The context of a text template (ytt's text dialect).
    pub(super) text: Option<TextBuild>,
}

pub(super) enum Materialized {
    Node(Node),
    Documents(Vec<Document>),
    Item,
}

impl Ctx {
    pub(super) fn built_from(template: &TemplateNode) -> Built {
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

    pub(super) fn start_node(
        &mut self,
        nodes: &TemplateNodes,
        tag: Tag,
        implicit: bool,
    ) -> Result<(), RuntimeError> {
        let template = nodes.get(tag).ok_or(RuntimeError::NodeNotFound(tag))?;
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
        for (name, args) in self.pending_annotations.remove(&tag).unwrap_or_default() {
            // ytt keeps the last of an annotation given twice.
            let last =
                built.comments.iter_mut().rev().find(
                    |c| matches!(&c.kind, CommentKind::Annotation { name: n, .. } if *n == name),
                );
            if let Some(comment) = last {
                comment.evaluated = Some(args);
            }
        }
        self.arena.push(built);
        if self.root.is_none() {
            self.root = Some(index);
        }
        if let Some(&current) = self.parent_tags.last() {
            let common = nodes.common_parent(current, tag);
            let Some(keep) = self.parent_tags.iter().position(|t| *t == common) else {
                return Err(RuntimeError::UnwindNodeNotFound(common));
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

    pub(super) fn add_value(&mut self, parent: usize, child: usize) {
        match self.arena[parent].kind {
            Kind::Map | Kind::Array | Kind::DocSet => self.arena[parent].children.push(child),
            Kind::MapItem | Kind::ArrayItem | Kind::Doc => {
                self.arena[parent].slot = Slot::Child(child);
            }
        }
    }

    /// ytt's `MapItemOverride.Apply`: a key given twice replaces the
    /// earlier item only when overriding is allowed.
    pub(super) fn make_room(
        &mut self,
        map: usize,
        item: usize,
        strict: bool,
        implicit: bool,
    ) -> Result<(), RuntimeError> {
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
        Err(RuntimeError::KeyRepeated(key))
    }

    pub(super) fn replace(&mut self, value: Value<'_>, implicit: bool) -> Result<(), RuntimeError> {
        let Some(&current) = self.parents.last() else {
            return Err(RuntimeError::NotReplaceable);
        };
        let parent = match self.parents.len() {
            n if n >= 2 => self.parents[n - 2],
            _ => return Err(RuntimeError::NotEnoughParents),
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
            _ => return Err(RuntimeError::NotReplaceable),
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
            return Err(RuntimeError::PlaceholderMissing);
        };
        children.splice(position..=position, indexes);
        Ok(())
    }

    pub(super) fn slot_node(&self, index: usize) -> Node {
        let built = &self.arena[index];
        match &built.slot {
            Slot::Empty => scalar_node(ScalarValue::Null, built.span),
            Slot::Node(node) => node.clone(),
            Slot::Child(child) => match self.materialize(*child) {
                Materialized::Node(node) => node,
                Materialized::Documents(docs) => convert::documents_as_array(docs, built.span),
                Materialized::Item => scalar_node(ScalarValue::Null, built.span),
            },
        }
    }

    pub(super) fn materialize(&self, index: usize) -> Materialized {
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
                                .unwrap_or_else(|| scalars::scalar(ScalarValue::Null)),
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

pub(super) fn item(
    kind: Kind,
    span: Span,
    key: Option<Scalar>,
    value: Node,
    comments: Vec<Comment>,
) -> Built {
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

pub(super) fn documents_of(converted: Converted, span: Span) -> Result<Vec<Built>, RuntimeError> {
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
        Converted::Node(node) => Err(wrong_replacement("document set", type_name(&node))),
    }
}

pub(super) fn map_items_of(converted: Converted) -> Result<Vec<Built>, RuntimeError> {
    match converted {
        Converted::Node(Node {
            value: NodeValue::Map(items),
            ..
        }) => Ok(items
            .into_iter()
            .map(|i| item(Kind::MapItem, i.key_span, Some(i.key), i.value, i.comments))
            .collect()),
        Converted::Node(node) => Err(wrong_replacement("map", type_name(&node))),
        Converted::Documents(_) => Err(wrong_replacement("map", "document set")),
    }
}

pub(super) fn array_items_of(converted: Converted) -> Result<Vec<Built>, RuntimeError> {
    match converted {
        Converted::Node(Node {
            value: NodeValue::Array(items),
            ..
        }) => Ok(items
            .into_iter()
            .map(|i| item(Kind::ArrayItem, i.span, None, i.value, i.comments))
            .collect()),
        Converted::Node(node) => Err(wrong_replacement("array", type_name(&node))),
        Converted::Documents(_) => Err(wrong_replacement("array", "document set")),
    }
}

fn wrong_replacement(expected: &'static str, found: &'static str) -> RuntimeError {
    RuntimeError::WrongReplacement { expected, found }
}

pub(super) fn type_name(node: &Node) -> &'static str {
    match &node.value {
        NodeValue::Map(_) => "map",
        NodeValue::Array(_) => "array",
        NodeValue::Scalar(s) => s.resolved.type_name(),
    }
}
