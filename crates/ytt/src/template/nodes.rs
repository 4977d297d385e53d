//! The nodes of a compiled template, numbered by tag (ytt's
//! `template.Nodes`): what each node is, its parent, its literal scalar and
//! the annotations it carries into the output.

use crate::source::Span;
use crate::yaml::{Comment, Node, Scalar};

/// A template node's number; [`ROOT`] is the parent of the document set.
pub type Tag = usize;
pub const ROOT: Tag = 0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    DocSet,
    Doc,
    Map,
    MapItem,
    Array,
    ArrayItem,
}

#[derive(Debug, Clone)]
pub struct TemplateNode {
    pub kind: Kind,
    pub parent: Tag,
    /// The node's position: a map item's key, an array item's `-`, a
    /// document's `---` (or first node).
    pub span: Span,
    /// A map item's key.
    pub key: Option<Scalar>,
    /// The scalar an item or document holds as written, if a scalar.
    pub scalar: Option<Node>,
    pub has_start_marker: bool,
    /// Annotations (not code) on the node; they travel to its output.
    pub annotations: Vec<Comment>,
}

impl TemplateNode {
    pub fn new(kind: Kind, parent: Tag, span: Span) -> TemplateNode {
        TemplateNode {
            kind,
            parent,
            span,
            key: None,
            scalar: None,
            has_start_marker: false,
            annotations: Vec::new(),
        }
    }
}

/// All nodes of one template; tag `n` is `nodes[n - 1]`.
#[derive(Debug, Default)]
pub struct TemplateNodes {
    nodes: Vec<TemplateNode>,
}

impl TemplateNodes {
    pub fn add(&mut self, node: TemplateNode) -> Tag {
        self.nodes.push(node);
        self.nodes.len()
    }

    pub fn get(&self, tag: Tag) -> Option<&TemplateNode> {
        tag.checked_sub(1).and_then(|i| self.nodes.get(i))
    }

    pub fn parent(&self, tag: Tag) -> Tag {
        self.get(tag).map_or(ROOT, |n| n.parent)
    }

    /// The tags from the root down to `tag`'s parent (`ROOT` first).
    pub fn ancestors(&self, tag: Tag) -> Vec<Tag> {
        let mut chain = Vec::new();
        let mut current = tag;
        while current != ROOT {
            current = self.parent(current);
            chain.push(current);
        }
        chain.reverse();
        chain
    }

    /// ytt's `FindCommonParentTag`: the deepest tag shared by `current`'s
    /// ancestors (itself included) and `new`'s ancestors.
    pub fn common_parent(&self, current: Tag, new: Tag) -> Tag {
        let mut current_chain = self.ancestors(current);
        current_chain.push(current);
        let new_chain = self.ancestors(new);
        let mut common = ROOT;
        for (a, b) in current_chain.iter().zip(&new_chain) {
            if a != b {
                break;
            }
            common = *a;
        }
        common
    }
}
