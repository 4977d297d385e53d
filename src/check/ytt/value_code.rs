//! The values a schema or data-values document computes (`key: #@ expr`):
//! ytt evaluates these files as templates, so a value written as code is
//! what the code gives. confvet evaluates each such expression in its
//! file's scope (its `load`s and `def`s); one it cannot evaluate there (a
//! YAML fragment, a struct, a name only a loop binds, `data.values` of a
//! data-values file), or an `if` or `for` among a document's items, is a
//! warning that confvet does not render it yet (the document is checked as
//! written, and `render` stops), never a made-up value.

use super::engine::{Code, prints};
use super::starlark::StarValue;
use super::starlark::star_nodes::star_to_node;
use super::translate::{CodeScanner, keyword};
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::FileId;
use crate::yaml::{Comment, CommentKind, Document, Node, Value};
use std::collections::HashMap;

/// The code of a value (`#@ expr` after a key, an item's `-` or `---`).
fn value_code(comments: &[Comment]) -> Option<&str> {
    comments.iter().rev().find_map(|c| match &c.kind {
        CommentKind::Code(code) if !c.own_line => Some(code.as_str()),
        _ => None,
    })
}

/// Whether code among a document's items branches or loops (`#@ if`,
/// `#@ for` around items), which decides what the document holds. Only the
/// statements at the item level count: a `def` written between two keys
/// (a validation function) may branch inside its body. A `def` still open
/// when an item starts has YAML for its body, which confvet reads as the
/// document's own items: that counts too.
fn has_item_control_flow(doc: &Document) -> bool {
    let mut scan = ItemLevel::default();
    scan.node(&doc.value, 0)
}

/// The statements among a document's items, read in document order.
#[derive(Default)]
struct ItemLevel {
    scanner: CodeScanner,
    continuing: bool,
    /// Blocks open at this point: whether each is a `def`.
    open: Vec<bool>,
    /// The block keyword of the statement under way, until it ends.
    statement: Option<&'static str>,
}

impl ItemLevel {
    /// True once control flow shows among the items of `node`.
    fn node(&mut self, node: &Node, depth: usize) -> bool {
        let items: Vec<(&[Comment], &Node)> = match &node.value {
            Value::Map(items) => items.iter().map(|i| (&i.comments[..], &i.value)).collect(),
            Value::Array(items) => items.iter().map(|i| (&i.comments[..], &i.value)).collect(),
            Value::Scalar(_) => Vec::new(),
        };
        items.into_iter().any(|(comments, value)| {
            self.comments(comments)
                || self.open.contains(&true)
                || depth > 200
                || self.node(value, depth + 1)
        })
    }

    /// True when `comments` hold a statement that branches or loops outside
    /// a function body.
    fn comments(&mut self, comments: &[Comment]) -> bool {
        for comment in comments {
            let CommentKind::Code(code) = &comment.kind else {
                continue;
            };
            if !comment.own_line {
                continue;
            }
            let shaped = self
                .scanner
                .line(if self.continuing { code } else { code.trim() });
            let was_continuing = std::mem::replace(&mut self.continuing, shaped.continues);
            if !was_continuing {
                let statement = shaped.code.trim();
                let word = keyword(statement);
                let in_def = self.open.contains(&true);
                match word {
                    "end" if statement == "end" => {
                        self.open.pop();
                        continue;
                    }
                    "if" | "elif" | "else" | "for" | "while" if !in_def => return true,
                    "elif" | "else" => {
                        self.open.pop();
                    }
                    _ => {}
                }
                self.statement = match word {
                    "def" => Some("def"),
                    "if" | "elif" | "else" | "for" | "while" => Some("block"),
                    _ => None,
                };
            }
            // A header continued over lines opens its block where it ends.
            if !self.continuing
                && let Some(kind) = self.statement.take()
                && shaped.opens_block
            {
                self.open.push(kind == "def");
            }
        }
        false
    }
}

fn has_value_code(doc: &Document) -> bool {
    value_code(&doc.comments).is_some()
        || doc
            .value
            .any_item_comments(&|comments| value_code(comments).is_some())
}

/// `docs` with the values their code computes; a document confvet cannot
/// compute stays as written, with a warning.
/// What the code of each file printed is added to `printed`, by file.
pub fn evaluate<'a>(
    docs: &[&'a Document],
    code: &Code<'_>,
    is_schema: bool,
    findings: &mut Vec<Finding>,
    printed: &mut HashMap<FileId, String>,
) -> Vec<std::borrow::Cow<'a, Document>> {
    let ctx = Ctx { code, is_schema };
    let mut out = Vec::with_capacity(docs.len());
    for doc in docs {
        // Documents of no file of this package (given by a parent) and
        // documents without code stay as they are.
        let branches = has_item_control_flow(doc);
        let has_code = has_value_code(doc) || branches;
        if !has_code || !code.scopes.contains_key(&doc.span.file) {
            out.push(std::borrow::Cow::Borrowed(*doc));
            continue;
        }
        if branches {
            findings.push(not_rendered(doc, "an `if` or `for` among its items"));
            out.push(std::borrow::Cow::Borrowed(*doc));
            continue;
        }
        let mut evaluated = (*doc).clone();
        let (result, lines) = prints::aside(|| {
            match value_code(&doc.comments).map(str::to_string) {
                Some(expr) => computed(&expr, &ctx, &evaluated.value).map(|node| {
                    evaluated.value = node;
                }),
                None => Ok(()),
            }
            .and_then(|()| evaluate_node(&mut evaluated.value, &ctx, 0))
        });
        printed.entry(doc.span.file).or_default().push_str(&lines);
        match result {
            Ok(()) => out.push(std::borrow::Cow::Owned(evaluated)),
            Err(Failed::Unknown(message)) => {
                findings.push(not_rendered(doc, &message));
                out.push(std::borrow::Cow::Borrowed(*doc));
            }
        }
    }
    out
}

/// The warning for a document confvet leaves out.
fn not_rendered(doc: &Document, why: &str) -> Finding {
    Finding::new(
        &rules::ytt::TEMPLATE_ERROR,
        doc.span,
        format!(
            "a schema or data-values document computed by code ({why}): {}",
            super::starlark::NOT_RENDERED
        ),
    )
    .with_severity(Severity::Warning)
}

struct Ctx<'c, 'e> {
    code: &'c Code<'e>,
    /// ytt's schema takes no Starlark list or dict as a value (a YAML
    /// fragment or a scalar only).
    is_schema: bool,
}

enum Failed {
    /// What confvet cannot compute.
    Unknown(String),
}

/// What `expr` gives, as a node where `at` is.
fn computed(expr: &str, ctx: &Ctx<'_, '_>, at: &Node) -> Result<Node, Failed> {
    let expr = expr.trim();
    // Evaluated once (it may print): the value and its type.
    let args = format!("*(lambda v: (v, type(v)))(({expr}))");
    let call = ctx
        .code
        .eval_args(&args, at.span.file)
        .map_err(|e| Failed::Unknown(e.message.clone()))?;
    let [value, StarValue::Str(type_name)] = call.positional.as_slice() else {
        return Err(Failed::Unknown(format!("`{expr}` is not one value")));
    };
    // ytt takes a YAML fragment here but refuses a Starlark list or dict;
    // confvet's fragment functions give dicts here, so it cannot tell.
    if ctx.is_schema && matches!(type_name.as_str(), "list" | "dict" | "tuple") {
        return Err(Failed::Unknown(format!(
            "`{expr}` gives a {type_name} in a schema: ytt takes it if it is a YAML fragment, refuses a Starlark {type_name}"
        )));
    }
    if !is_data(value) {
        return Err(Failed::Unknown(format!("`{expr}` gives no plain data")));
    }
    Ok(star_to_node(value, at.span))
}

/// Data a node can hold (no function, struct or YAML fragment).
fn is_data(value: &StarValue) -> bool {
    match value {
        StarValue::List(items) | StarValue::Tuple(items) => items.iter().all(is_data),
        StarValue::Dict(items) => items.iter().all(|(k, v)| is_data(k) && is_data(v)),
        StarValue::Other { .. } => false,
        _ => true,
    }
}

fn evaluate_node(node: &mut Node, ctx: &Ctx<'_, '_>, depth: usize) -> Result<(), Failed> {
    if depth > 200 {
        return Err(Failed::Unknown("nested too deep".into()));
    }
    let items: Vec<(&mut Vec<Comment>, &mut Node)> = match &mut node.value {
        Value::Map(items) => items
            .iter_mut()
            .map(|i| (&mut i.comments, &mut i.value))
            .collect(),
        Value::Array(items) => items
            .iter_mut()
            .map(|i| (&mut i.comments, &mut i.value))
            .collect(),
        Value::Scalar(_) => Vec::new(),
    };
    for (comments, value) in items {
        match value_code(comments).map(str::to_string) {
            Some(expr) => {
                *value = computed(&expr, ctx, value)?;
                comments.retain(|c| value_code(std::slice::from_ref(c)).is_none());
            }
            None => evaluate_node(value, ctx, depth + 1)?,
        }
    }
    Ok(())
}
