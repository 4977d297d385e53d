//! A YAML template compiled into a Starlark program, as ytt's
//! `yamltemplate.Template.Compile` does: every document, map, map item,
//! array and array item becomes a numbered template node; the program
//! starts each node (`__ytt_start_node`), sets computed values
//! (`__ytt_set_node`) and runs the template's own code between them, so
//! `if`, `for` and fragment functions decide which nodes are built.

use super::nodes::{Kind, ROOT, Tag, TemplateNode, TemplateNodes};
use super::text::{self, TextNodes};
use crate::source::{FileId, SourceFile, Span};
use crate::yaml::{Comment, CommentKind, Document, DocumentSet, Node, ScalarValue, Value};

/// A compiled template: the code lines in ytt's `end`-block dialect (each
/// with its 1-based source line) and the nodes they build.
#[derive(Debug)]
pub struct CompiledTemplate {
    pub code: Vec<(usize, String)>,
    pub nodes: TemplateNodes,
    /// The text nodes of its `@yaml/text-templated-strings` strings: the
    /// text template of id `id + 1`.
    pub text: Option<TextNodes>,
}

/// The annotation that makes map keys and string values text templates
/// (split so it does not read as a rule id).
const TEXT_TEMPLATED_STRINGS: &str = concat!("yaml", "/text-templated-strings");

/// Why a template cannot be compiled: a message at a 1-based line.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileError {
    pub line: usize,
    pub span: Option<Span>,
    pub message: String,
    /// The code does not parse (as opposed to a template ytt rejects).
    pub is_syntax: bool,
}

impl CompileError {
    /// Code that does not parse, at a 1-based line.
    pub fn syntax(line: usize, message: String) -> CompileError {
        CompileError {
            line,
            span: None,
            message,
            is_syntax: true,
        }
    }
}

/// Options ytt's template compiler takes.
#[derive(Debug, Clone, Copy, Default)]
pub struct CompileOptions {
    /// `--ignore-unknown-comments`: plain `# text` comments are allowed.
    pub ignore_unknown_comments: bool,
}

struct Compiler<'a> {
    id: usize,
    source: &'a SourceFile,
    options: CompileOptions,
    nodes: TemplateNodes,
    code: Vec<(usize, String)>,
    /// Under `@yaml/text-templated-strings`.
    text_strings: bool,
    text: Option<TextNodes>,
}

/// Compile the documents of one template file; `id` is its template number
/// in the render session.
pub fn compile_yaml(
    set: &DocumentSet,
    source: &SourceFile,
    file: FileId,
    id: usize,
    options: CompileOptions,
) -> Result<CompiledTemplate, CompileError> {
    let start = Span::new(file, 0, 0);
    let mut compiler = Compiler {
        id,
        source,
        options,
        nodes: TemplateNodes::default(),
        code: Vec::new(),
        text_strings: false,
        text: None,
    };
    let docs = positioned_documents(set, start);
    let docset = compiler
        .nodes
        .add(TemplateNode::new(Kind::DocSet, ROOT, start));
    compiler.code.push((1, super::ctxs::start_ctx(id)));
    compiler
        .code
        .push((1, format!("__ytt_start_node({id}, {docset})")));
    for doc in &docs {
        compiler.document(doc, docset)?;
    }
    let last_line = source.text.lines().count().max(1);
    compiler
        .code
        .push((last_line, format!("__ytt_end_ctx({id}, None)")));
    Ok(CompiledTemplate {
        code: compiler.code,
        nodes: compiler.nodes,
        text: compiler.text,
    })
}

/// The documents as ytt's parser positions them. ytt gives the first
/// document no position when it starts on the file's first line, so its
/// comments belong to the first node below them, and comments after a
/// document's last node belong to the next document; the comments at the
/// end of the file open a document that is never printed.
fn positioned_documents(set: &DocumentSet, start: Span) -> Vec<Document> {
    let mut docs = set.docs.clone();
    if let Some(first) = docs.first_mut()
        && !first.has_start_marker
    {
        let comments = std::mem::take(&mut first.comments);
        let mut unassigned = Vec::new();
        // Given in reverse, each to the front: the node keeps their order.
        for comment in comments.into_iter().rev() {
            if !give_to_first_node(&mut first.value, comment.clone()) {
                unassigned.insert(0, comment);
            }
        }
        if !unassigned.is_empty() {
            match docs.get_mut(1) {
                Some(next) => {
                    unassigned.append(&mut next.comments);
                    next.comments = unassigned;
                }
                None => docs.push(injected(unassigned, start)),
            }
        }
    }
    if !set.trailing_comments.is_empty() {
        docs.push(injected(set.trailing_comments.clone(), start));
    }
    docs
}

fn injected(comments: Vec<Comment>, span: Span) -> Document {
    Document {
        span,
        has_start_marker: false,
        value: Node {
            span,
            value: Value::Scalar(crate::yaml::Scalar {
                text: String::new(),
                style: crate::yaml::ScalarStyle::Plain,
                tag: None,
                resolved: crate::yaml::ScalarValue::Null,
            }),
        },
        comments,
    }
}

/// Give a comment of a position-less first document to the outermost node
/// starting at or after it (ytt's comment assignment); false when the
/// document holds no such node.
fn give_to_first_node(node: &mut Node, comment: Comment) -> bool {
    match &mut node.value {
        Value::Map(items) => match items.first_mut() {
            Some(item) => {
                item.comments.insert(0, comment);
                true
            }
            None => false,
        },
        Value::Array(items) => match items.first_mut() {
            Some(item) => {
                item.comments.insert(0, comment);
                true
            }
            None => false,
        },
        Value::Scalar(_) => false,
    }
}

/// What a node's comments ask for (ytt's `extractMetas`).
#[derive(Default)]
struct Metas {
    /// Code lines before the node: (line, code).
    blocks: Vec<(usize, String)>,
    /// `#@ expr` on the node's own line.
    values: Vec<(usize, String)>,
    /// Annotations, evaluated before the node starts.
    annotations: Vec<Comment>,
    needs_end: usize,
}

impl Compiler<'_> {
    fn line(&self, span: Span) -> usize {
        self.source.line_col(span.start as usize).line
    }

    fn metas(&self, comments: &[Comment], has_value: bool) -> Result<Metas, CompileError> {
        let mut metas = Metas::default();
        for comment in comments {
            let line = self.line(comment.span);
            // ytt keeps the code as written after `#@ `: blanks inside a
            // string continued from the line before are part of it.
            let untrimmed;
            let kind = match &comment.kind {
                CommentKind::Code(_) => {
                    let rest = comment.text.strip_prefix('@').unwrap_or(&comment.text);
                    let rest = rest.strip_prefix([' ', '\t']).unwrap_or(rest);
                    untrimmed = CommentKind::Code(rest.trim_end_matches(['\r', '\n']).to_string());
                    &untrimmed
                }
                other => other,
            };
            match kind {
                CommentKind::Code(code) if !comment.own_line => {
                    if has_value {
                        return Err(CompileError {
                            line,
                            span: Some(comment.span),
                            message: format!(
                                "Expected YAML node at {}:{line} to have either computed or YAML value, but found both",
                                self.source.name
                            ),
                            is_syntax: false,
                        });
                    }
                    metas.values.push((line, code.clone()));
                }
                CommentKind::Code(code) => {
                    if metas.needs_end > 0 {
                        return Err(CompileError {
                            line,
                            span: Some(comment.span),
                            message: format!(
                                "Unexpected code at {}:{line} after use of '*/end', expected YAML node",
                                self.source.name
                            ),
                            is_syntax: false,
                        });
                    }
                    let trimmed = code.trim_start();
                    let prefix = &code[..code.len() - trimmed.len()];
                    let mut code = code.clone();
                    for keyword in ["if", "else", "elif", "for", "def"] {
                        if let Some(rest) = trimmed.strip_prefix(keyword)
                            && let Some(rest) = rest.strip_prefix("/end")
                        {
                            metas.needs_end += 1;
                            code = format!("{prefix}{keyword}{rest}");
                        }
                    }
                    metas.blocks.push((line, code));
                }
                // `#@comment text` is a ytt comment, like `#! text`.
                CommentKind::Annotation { name, .. } if name == "comment" => {}
                CommentKind::Annotation { .. } => metas.annotations.push(comment.clone()),
                CommentKind::Ytt => {}
                CommentKind::Plain if self.options.ignore_unknown_comments => {}
                CommentKind::Plain => {
                    return Err(CompileError {
                        line,
                        span: Some(comment.span),
                        message: format!(
                            "Failed to parse line {line}: '#{}': Expected ytt-formatted string (use '#@' for annotations or code, '#!' for comments)",
                            comment.text
                        ),
                        is_syntax: false,
                    });
                }
            }
        }
        Ok(metas)
    }

    fn emit(&mut self, line: usize, code: String) {
        self.code.push((line, code));
    }

    /// The code before and after a node: its code lines, annotations, the
    /// start of the node, then `body` (its values or children).
    fn node_with(
        &mut self,
        node: TemplateNode,
        parent: Tag,
        comments: &[Comment],
        value: &Node,
    ) -> Result<(), CompileError> {
        let line = self.line(node.span);
        let has_value = !value.is_null() || !matches!(value.value, Value::Scalar(_));
        let metas = self.metas(comments, has_value)?;
        let id = self.id;
        let mut node = node;
        node.parent = parent;
        node.annotations = metas.annotations.clone();
        let key = match &node.key {
            Some(crate::yaml::Scalar {
                resolved: ScalarValue::Str(key),
                ..
            }) if node.kind == Kind::MapItem => Some(key.clone()),
            _ => None,
        };
        let tag = self.nodes.add(node);
        for (line, code) in &metas.blocks {
            self.emit(*line, code.clone());
        }
        for annotation in &metas.annotations {
            if let CommentKind::Annotation { name, args } = &annotation.kind {
                let args = if args.trim().is_empty() {
                    String::new()
                } else {
                    format!(", {args}")
                };
                self.emit(
                    self.line(annotation.span),
                    format!("__ytt_annotation({id}, {tag}, {name:?}{args})"),
                );
            }
        }
        // ytt's `buildOpts.TextTemplatedStrings`: for this node and below.
        let outer_text_strings = self.text_strings;
        self.text_strings |= metas.annotations.iter().any(|a| {
            matches!(&a.kind, CommentKind::Annotation { name, .. } if name == TEXT_TEMPLATED_STRINGS)
        });
        if self.text_strings
            && let Some(key) = key
        {
            let text_id = self.id + 1;
            self.text_string(
                &key,
                line,
                format!("__ytt_set_map_item_key({id}, {tag}, (__ytt_end_ctx({text_id})))"),
            )?;
        }
        self.emit(line, format!("__ytt_start_node({id}, {tag})"));
        if metas.values.is_empty() {
            self.value(value, tag)?;
        } else {
            for (line, code) in &metas.values {
                self.emit(*line, format!("__ytt_set_node({id}, {tag}, ({code}))"));
            }
        }
        for _ in 0..metas.needs_end {
            self.emit(line, "end".into());
        }
        self.text_strings = outer_text_strings;
        Ok(())
    }

    /// A string under `@yaml/text-templated-strings` (ytt's `buildString`):
    /// a text template of id `id + 1`, at the line of its node, whose
    /// context ends in `end`, the instruction that uses the text built.
    fn text_string(&mut self, value: &str, line: usize, end: String) -> Result<(), CompileError> {
        let text_id = self.id + 1;
        let pieces = text::parse(value, line).map_err(|e| CompileError {
            line: e.line,
            span: None,
            message: e.message,
            is_syntax: false,
        })?;
        let nodes = self.text.get_or_insert_with(TextNodes::default);
        let code = text::compile(&pieces, text_id, nodes);
        self.code.extend(text::finish(code, text_id));
        self.emit(line, end);
        Ok(())
    }

    fn document(&mut self, doc: &Document, docset: Tag) -> Result<(), CompileError> {
        let mut node = TemplateNode::new(Kind::Doc, docset, doc.span);
        node.has_start_marker = doc.has_start_marker;
        node.scalar = scalar_of(&doc.value);
        self.node_with(node, docset, &doc.comments, &doc.value)
    }

    /// The value of an item or document: a scalar is copied
    /// (`__ytt_set_node(id, tag)`), a map or array is a node of its own.
    fn value(&mut self, value: &Node, owner: Tag) -> Result<(), CompileError> {
        let id = self.id;
        let line = self.line(value.span);
        match &value.value {
            Value::Scalar(scalar) => match &scalar.resolved {
                ScalarValue::Str(text) if self.text_strings => {
                    // Code lines at their own lines (ytt counts from the
                    // item's line, one off for block scalars).
                    let first_line = match scalar.style {
                        crate::yaml::ScalarStyle::Literal | crate::yaml::ScalarStyle::Folded => {
                            line + 1
                        }
                        _ => line,
                    };
                    let text_id = self.id + 1;
                    self.text_string(
                        text,
                        first_line,
                        format!("__ytt_set_node({id}, {owner}, (__ytt_end_ctx({text_id})))"),
                    )?;
                }
                _ => self.emit(line, format!("__ytt_set_node({id}, {owner})")),
            },
            Value::Map(items) => {
                let map = self
                    .nodes
                    .add(TemplateNode::new(Kind::Map, owner, value.span));
                self.emit(line, format!("__ytt_start_node({id}, {map})"));
                for item in items {
                    let mut node = TemplateNode::new(Kind::MapItem, map, item.key_span);
                    node.key = Some(item.key.clone());
                    node.scalar = scalar_of(&item.value);
                    self.node_with(node, map, &item.comments, &item.value)?;
                }
            }
            Value::Array(items) => {
                let array = self
                    .nodes
                    .add(TemplateNode::new(Kind::Array, owner, value.span));
                self.emit(line, format!("__ytt_start_node({id}, {array})"));
                for item in items {
                    let mut node = TemplateNode::new(Kind::ArrayItem, array, item.span);
                    node.scalar = scalar_of(&item.value);
                    self.node_with(node, array, &item.comments, &item.value)?;
                }
            }
        }
        Ok(())
    }
}

fn scalar_of(node: &Node) -> Option<Node> {
    matches!(node.value, Value::Scalar(_)).then(|| node.clone())
}
