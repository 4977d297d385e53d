//! ytt's overlays (`pkg/yttlibrary/overlay`): a right-hand tree whose
//! `@overlay/...` annotations say how it changes a left-hand tree, applied
//! by `overlay.apply(left, right...)` and, for overlay documents, to the
//! documents of a package's other templates (`post`). Annotation arguments
//! were evaluated when the right-hand nodes were built
//! (`template::annotation_args`);
//! matchers and `via=` functions are called on the evaluator given.

pub mod annotations;
pub mod compare;
mod documents;
pub mod expects;
pub mod explain;
mod items;
mod match_kwargs;
mod matching;
pub mod merge_mode;
pub mod post;
mod via;

use crate::source::Span;
use crate::starlark::convert::value_to_node;
use crate::starlark::fragment::fragment_child;
use crate::starlark::go::error_text;
use crate::template::runtime::with_current;
use crate::yaml::{Comment, CommentKind, Document, Node, Value as NodeValue};
use match_kwargs::ChildDefaults;
use starlark::eval::Evaluator;
use starlark::values::Value;

/// Why an overlay failed, in ytt's words.
#[derive(Debug, Clone)]
pub enum OverlayError {
    /// ytt's `MatchAnnotationNumMatchError`: the number of matches is not
    /// what was expected; under `when=` it only skips the node.
    NumMatch {
        message: String,
        from_when: bool,
        notes: Vec<explain::Note>,
    },
    Message(String),
    /// An error with what ytt does not say (see `explain`).
    Explained {
        message: String,
        notes: Vec<explain::Note>,
    },
}

impl OverlayError {
    pub fn message(&self) -> &str {
        match self {
            OverlayError::NumMatch { message, .. }
            | OverlayError::Message(message)
            | OverlayError::Explained { message, .. } => message,
        }
    }

    /// The related locations that explain the error.
    pub fn notes(&self) -> &[explain::Note] {
        match self {
            OverlayError::NumMatch { notes, .. } | OverlayError::Explained { notes, .. } => notes,
            OverlayError::Message(_) => &[],
        }
    }

    /// The error with `prefix` before its message (ytt's `fmt.Errorf`
    /// wrapping, which makes it an ordinary error); its notes stay.
    fn within(self, prefix: String) -> OverlayError {
        let message = format!("{prefix}: {}", self.message());
        match self {
            OverlayError::NumMatch { notes, .. } | OverlayError::Explained { notes, .. }
                if !notes.is_empty() =>
            {
                OverlayError::Explained { message, notes }
            }
            _ => OverlayError::Message(message),
        }
    }

    /// A number-of-matches error with the notes `explain` gives (made
    /// only when the error is one).
    fn explained(self, explain: impl FnOnce() -> Vec<explain::Note>) -> OverlayError {
        match self {
            OverlayError::NumMatch {
                message, from_when, ..
            } if !from_when => OverlayError::NumMatch {
                message,
                from_when,
                notes: explain(),
            },
            other => other,
        }
    }
}

impl From<String> for OverlayError {
    fn from(message: String) -> OverlayError {
        OverlayError::Message(message)
    }
}

impl From<&str> for OverlayError {
    fn from(message: &str) -> OverlayError {
        OverlayError::Message(message.to_string())
    }
}

/// A value that did not convert fails the overlay with the conversion's
/// text.
impl From<crate::starlark::convert::ConvertError> for OverlayError {
    fn from(e: crate::starlark::convert::ConvertError) -> OverlayError {
        OverlayError::Message(e.to_string())
    }
}

impl From<starlark::Error> for OverlayError {
    fn from(e: starlark::Error) -> OverlayError {
        OverlayError::Message(error_text(&e))
    }
}

pub type Outcome<T> = Result<T, OverlayError>;

/// The left side of an overlay: documents (grouped by the file they came
/// from, as post-processing keeps them) or one node.
pub enum Left<'a> {
    DocSets(&'a mut Vec<Vec<Document>>),
    Node(&'a mut Node),
}

/// The right side of an overlay.
pub enum Right<'a> {
    Documents(&'a [Document]),
    Node(&'a Node),
}

/// One overlay operation (ytt's `overlay.Op`) on an evaluator.
pub struct Overlay<'x, 'v, 'a, 'e> {
    pub eval: &'x mut Evaluator<'v, 'a, 'e>,
}

impl<'v> Overlay<'_, 'v, '_, '_> {
    /// Apply `right` onto `left`, then drop overlay annotations from the
    /// result (ytt's `Op.Apply`).
    pub fn apply(&mut self, left: Left<'_>, right: Right<'_>) -> Outcome<()> {
        let defaults = ChildDefaults::default();
        match left {
            Left::DocSets(sets) => {
                self.apply_to_docsets(sets, right, &defaults)?;
                for doc in sets.iter_mut().flatten() {
                    doc.comments.retain(|c| !is_overlay(c));
                    strip_node(&mut doc.value);
                }
            }
            Left::Node(node) => {
                self.apply_to_node(node, right, &defaults)?;
                strip_node(node);
            }
        }
        Ok(())
    }

    fn apply_to_docsets(
        &mut self,
        sets: &mut [Vec<Document>],
        right: Right<'_>,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<bool> {
        match right {
            Right::Documents(docs) => self.apply_docset(sets, docs, defaults),
            Right::Node(node) => match &node.value {
                NodeValue::Map(_) => Err("Expected map, but was document set".into()),
                NodeValue::Array(_) => Err("Expected array, but was document set".into()),
                NodeValue::Scalar(_) => Ok(true),
            },
        }
    }

    /// ytt's `Op.apply` on a node: true when the left value is to be
    /// replaced by the right one (a scalar on the right).
    fn apply_to_node(
        &mut self,
        left: &mut Node,
        right: Right<'_>,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<bool> {
        let right = match right {
            Right::Documents(_) => {
                return Err(format!("Expected document set, but was {}", left.type_name()).into());
            }
            Right::Node(node) => node,
        };
        match &right.value {
            NodeValue::Map(items) => {
                if !matches!(left.value, NodeValue::Map(_)) {
                    return Err(format!("Expected map, but was {}", left.type_name()).into());
                }
                for item in items {
                    self.map_item(left, item, defaults).map_err(|e| {
                        e.within(format!(
                            "Map item (key '{}') on {}",
                            item.key.display(),
                            position(item.key_span, true)
                        ))
                    })?;
                }
                Ok(false)
            }
            NodeValue::Array(items) => {
                if !matches!(left.value, NodeValue::Array(_)) {
                    return Err(format!("Expected array, but was {}", left.type_name()).into());
                }
                for item in items {
                    self.array_item(left, item, defaults).map_err(|e| {
                        e.within(format!("Array item on {}", position(item.span, true)))
                    })?;
                }
                Ok(false)
            }
            NodeValue::Scalar(_) => Ok(true),
        }
    }

    /// Merge `right` into the value `left` (ytt: a null left is replaced).
    fn merge_value(
        &mut self,
        left: &mut Node,
        right: &Node,
        defaults: &ChildDefaults<'v>,
    ) -> Outcome<bool> {
        if left.is_null() {
            return Ok(true);
        }
        self.apply_to_node(left, Right::Node(right), defaults)
    }

    /// A node as matchers and `via=` functions get it.
    fn value_of(&self, node: &Node) -> Value<'v> {
        fragment_child(node, self.eval.heap())
    }

    /// What a function returned, as the node it stands for.
    fn node_of(&self, value: Value<'v>, at: Span) -> Outcome<Node> {
        value_to_node(value, at).map_err(OverlayError::from)
    }

    fn call(&mut self, function: Value<'v>, args: &[Value<'v>]) -> Outcome<Value<'v>> {
        Ok(self.eval.eval_function(function, args, &[])?)
    }
}

/// ytt's position text of a node: `line FILE:N` (`AsString`), or
/// `FILE:N` when compact.
pub fn position(span: Span, long: bool) -> String {
    let compact = with_current(|s| {
        let source = s.sources.get(&span.file)?;
        let line = source.line_col(span.start as usize).line;
        Some(format!("{}:{line}", display_name(s, source)))
    })
    .ok()
    .flatten()
    .unwrap_or_else(|| "?".to_string());
    if long {
        format!("line {compact}")
    } else {
        compact
    }
}

/// The name ytt gives file `file` in messages.
pub fn file_name(file: crate::source::FileId) -> String {
    with_current(|s| s.sources.get(&file).map(|source| display_name(s, source)))
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The name ytt gives a file: as given on the command line, else relative
/// to the package root.
fn display_name(
    session: &crate::template::runtime::Session,
    source: &crate::source::SourceFile,
) -> String {
    let Some(path) = &source.path else {
        return source.name.clone();
    };
    let path = crate::source::normalize_path(path);
    if let Some(files) = &session.library_files
        && let Some((name, _)) = files
            .iter()
            .find(|(_, p)| crate::source::normalize_path(p) == path)
    {
        return name.clone();
    }
    path.strip_prefix(&session.root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| source.name.clone())
}

fn is_overlay(comment: &Comment) -> bool {
    matches!(&comment.kind, CommentKind::Annotation { name, .. } if name.starts_with("overlay/"))
}

/// Drop overlay annotations below `node` (ytt's `removeOverlayAnns`).
fn strip_node(node: &mut Node) {
    match &mut node.value {
        NodeValue::Map(items) => {
            for item in items {
                item.comments.retain(|c| !is_overlay(c));
                strip_node(&mut item.value);
            }
        }
        NodeValue::Array(items) => {
            for item in items {
                item.comments.retain(|c| !is_overlay(c));
                strip_node(&mut item.value);
            }
        }
        NodeValue::Scalar(_) => {}
    }
}
