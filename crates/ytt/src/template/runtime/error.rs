//! Why a template instruction failed while a template ran: ytt's words
//! where ytt has them (a repeated key, a `template.replace` of the wrong
//! kind, a text template given no string), else what went wrong inside
//! the render. A template sees the text as the error of the instruction.

use crate::starlark::convert::ConvertError;

/// Why a template instruction (`__ytt_set_node`, `template.replace`...)
/// failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    /// The value given did not convert to YAML.
    #[error(transparent)]
    Convert(#[from] ConvertError),
    #[error("template instructions run outside a render")]
    OutsideRender,
    /// A render's session used while in use (an instruction from inside
    /// another).
    #[error("template instructions re-entered")]
    Reentered,
    /// A fragment function of another session's template, exported by a
    /// library inside a value.
    #[error(
        "a function of a library's template called outside its library: {}",
        crate::starlark::NOT_RENDERED
    )]
    ForeignTemplate,
    #[error("template instruction outside its evaluation context")]
    OutsideContext,
    #[error("unexpected end of an evaluation context")]
    UnexpectedEnd,
    #[error("evaluation contexts ended out of order")]
    EndedOutOfOrder,
    #[error("no node to set a value on")]
    NoNodeToSet,
    #[error("unknown template node")]
    UnknownNode,
    /// An instruction a text template has no use for.
    #[error("unsupported operation")]
    Unsupported,
    #[error("expected a map item key to be a scalar")]
    KeyNotScalar,
    #[error("template.replace outside a template")]
    ReplaceOutsideTemplate,
    /// A template node the compiled code names that is not there (its tag).
    #[error("expected to find node {0}")]
    NodeNotFound(usize),
    #[error("expected to find node {0} when unwinding")]
    UnwindNodeNotFound(usize),
    /// ytt's `MapItemOverride` refusal (the key as written).
    #[error(
        "expected key '{0}' to not be specified again (unless 'yaml/map-key-override' annotation is added)"
    )]
    KeyRepeated(String),
    #[error("expected to replace document value, map item or array item")]
    NotReplaceable,
    #[error("expected to find a parent node, but was not enough parents")]
    NotEnoughParents,
    #[error("expected to find placeholder item in its parent")]
    PlaceholderMissing,
    /// `template.replace` given a value of another kind than the item it
    /// replaces ("map", "array", "document set").
    #[error("expected value to be {expected}, but was {found}")]
    WrongReplacement {
        expected: &'static str,
        found: &'static str,
    },
    #[error("cannot set a value on a noderoot")]
    SetOnNodeRoot,
    /// A text template's `(@= @)` given no string (its Go type).
    #[error("cannot set non-string value ({0}), consider using str(...) to convert to string")]
    NonStringText(String),
    /// The run's annotation store (`annotation_args`) is not as recorded.
    #[error("annotation store {0}")]
    AnnotationStore(&'static str),
    /// starlark-rust failed appending to the annotation store: its text.
    #[error("{0}")]
    Starlark(String),
}
