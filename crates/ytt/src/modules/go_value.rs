//! The Go values ytt's modules work on. ytt converts a Starlark value into
//! Go data (`core.StarlarkValue.AsGoValue`) before it encodes it, and Go
//! data back into Starlark (`core.GoValue.AsStarlarkValue`) after it
//! decodes; fragments stay YAML nodes on the way (`yamlmeta` values) until
//! an encoder turns them into plain data (`yamlmeta.NewGoFromAST`). [`Go`]
//! is that data, so every module converts the same way and refuses what
//! ytt refuses.

use crate::source::Span;
use crate::starlark::convert::{self, ConvertError};
use crate::starlark::fragment::{Fragment, FragmentData};
use crate::starlark::go::go_type;
use crate::starlark::scalars::{self, scalar_to_value, value_to_scalar};
use crate::starlark::ytt_struct::YttStruct;
use crate::yaml::{ArrayItem, Document, MapItem, Node, ScalarValue, Value as NodeValue};
use starlark::values::dict::{AllocDict, DictRef};
use starlark::values::list::ListRef;
use starlark::values::tuple::TupleRef;
use starlark::values::{Heap, Value};

/// Nesting past this is refused rather than recursed into.
const MAX_DEPTH: usize = 200;

/// Go data, as ytt's modules hold it.
#[derive(Debug, Clone, PartialEq)]
pub enum Go {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    /// An ordered map (`orderedmap.Map`): keys in insertion order, unique.
    Map(Vec<(Go, Go)>),
    List(Vec<Go>),
    /// A fragment's map or array (`*yamlmeta.Map`, `*yamlmeta.Array`).
    Node(Node),
    /// A fragment's document set (`*yamlmeta.DocumentSet`).
    Docs(Vec<Document>),
}

impl Go {
    pub fn from_scalar(scalar: &ScalarValue) -> Go {
        match scalar {
            ScalarValue::Null => Go::Null,
            ScalarValue::Bool(b) => Go::Bool(*b),
            ScalarValue::Int(i) => Go::Int(*i),
            ScalarValue::Float(f) => Go::Float(*f),
            ScalarValue::Str(s) => Go::Str(s.clone()),
        }
    }

    fn as_scalar(&self) -> Option<ScalarValue> {
        Some(match self {
            Go::Null => ScalarValue::Null,
            Go::Bool(b) => ScalarValue::Bool(*b),
            Go::Int(i) => ScalarValue::Int(*i),
            Go::Float(f) => ScalarValue::Float(*f),
            Go::Str(s) => ScalarValue::Str(s.clone()),
            _ => return None,
        })
    }

    /// The Go type ytt names in conversion errors.
    fn go_type(&self) -> &'static str {
        match self {
            Go::Node(node) if matches!(node.value, NodeValue::Array(_)) => "*yamlmeta.Array",
            Go::Node(_) => "*yamlmeta.Map",
            Go::Docs(_) => "*yamlmeta.DocumentSet",
            _ => "interface {}",
        }
    }
}

/// Why data did not convert or encode, in ytt's words (Go's, for the
/// JSON encoder's).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GoError {
    /// What the Starlark side refuses, in the words its conversions share.
    #[error(transparent)]
    Convert(#[from] ConvertError),
    #[error("value nested deeper than {MAX_DEPTH} levels cannot be converted")]
    TooDeep,
    /// An error of starlark-rust iterating a set: its text as it is.
    #[error("{0}")]
    Starlark(String),
    #[error("Unexpected *yamlmeta.DocumentSet value within *yamlmeta.Document")]
    DocumentSetInDocument,
    #[error("map keys must be scalars for conversion to YAML")]
    YamlKeyNotScalar,
    /// A map key that is not a string where ytt needs one (encoders,
    /// `AsUnorderedStringMaps`).
    #[error("Expected key to be string")]
    KeyNotString,
    /// A map key that is not a string where a struct is made (the key as
    /// JSON).
    #[error("expected struct key {0} to be string")]
    StructKeyNotString(String),
    /// Data with no Starlark form (its Go type).
    #[error("unknown type {0} for conversion to starlark value")]
    NoStarlarkForm(&'static str),
    /// A float JSON has no form for (`NaN`, `+Inf`, `-Inf`).
    #[error("json: unsupported value: {0}")]
    UnsupportedFloat(&'static str),
}

/// Set `key` in an ordered map: a key already there keeps its place.
pub fn map_set(items: &mut Vec<(Go, Go)>, key: Go, value: Go) {
    match items.iter_mut().find(|(k, _)| *k == key) {
        Some(item) => item.1 = value,
        None => items.push((key, value)),
    }
}

/// ytt's `AsGoValue`: a Starlark value as Go data. Functions and values
/// that do not encode (`url.parse()`'s) are errors, with ytt's words.
pub fn from_value<'v>(value: Value<'v>, heap: Heap<'v>) -> Result<Go, GoError> {
    crate::starlark::convert::check_output_size(value)?;
    from_value_at(value, heap, 0)
}

fn from_value_at<'v>(value: Value<'v>, heap: Heap<'v>, depth: usize) -> Result<Go, GoError> {
    if depth > MAX_DEPTH {
        return Err(GoError::TooDeep);
    }
    if let Some(scalar) = value_to_scalar(value) {
        return Ok(Go::from_scalar(&scalar));
    }
    let next = |v: Value<'v>| from_value_at(v, heap, depth + 1);
    if value.get_type() == "int" {
        return Err(ConvertError::IntTooLarge(value.to_string()).into());
    }
    if let Some(hint) = convert::conversion_hint(value) {
        return Err(hint.into());
    }
    if let Some(fragment) = Fragment::from_value(value) {
        return Ok(match &*fragment.data {
            FragmentData::Nil => Go::Null,
            FragmentData::Node(node) => Go::Node(node.clone()),
            FragmentData::Documents(docs) => Go::Docs(docs.clone()),
        });
    }
    if let Some(list) = ListRef::from_value(value) {
        return list
            .iter()
            .map(next)
            .collect::<Result<_, _>>()
            .map(Go::List);
    }
    if let Some(tuple) = TupleRef::from_value(value) {
        return tuple
            .iter()
            .map(next)
            .collect::<Result<_, _>>()
            .map(Go::List);
    }
    if let Some(dict) = DictRef::from_value(value) {
        let mut items = Vec::new();
        for (k, v) in dict.iter() {
            map_set(&mut items, next(k)?, next(v)?);
        }
        return Ok(Go::Map(items));
    }
    if let Some(fields) = YttStruct::from_value(value) {
        let mut items = Vec::new();
        for (k, v) in fields.fields() {
            items.push((Go::Str(k.to_string()), next(v)?));
        }
        return Ok(Go::Map(items));
    }
    if value.get_type() == "set" {
        let items = value
            .iterate(heap)
            .map_err(|e| GoError::Starlark(e.to_string()))?;
        return items.map(next).collect::<Result<_, _>>().map(Go::List);
    }
    Err(ConvertError::UnknownType(go_type(value)).into())
}

/// ytt's `NewGoFromAST`: a YAML node as plain Go data.
pub fn from_node(node: &Node) -> Go {
    match &node.value {
        NodeValue::Scalar(s) => Go::from_scalar(&s.resolved),
        NodeValue::Array(items) => Go::List(items.iter().map(|i| from_node(&i.value)).collect()),
        NodeValue::Map(items) => {
            let mut out = Vec::new();
            for item in items {
                map_set(
                    &mut out,
                    Go::from_scalar(&item.key.resolved),
                    from_node(&item.value),
                );
            }
            Go::Map(out)
        }
    }
}

/// Fragments inside turned into plain data, for the JSON and TOML
/// encoders; a document set has no plain form.
pub fn plain(go: Go) -> Result<Go, GoError> {
    Ok(match go {
        Go::Node(node) => from_node(&node),
        Go::Docs(_) => {
            return Err(GoError::DocumentSetInDocument);
        }
        Go::List(items) => Go::List(items.into_iter().map(plain).collect::<Result<_, _>>()?),
        Go::Map(items) => Go::Map(
            items
                .into_iter()
                .map(|(k, v)| Ok((plain(k)?, plain(v)?)))
                .collect::<Result<_, GoError>>()?,
        ),
        scalar => scalar,
    })
}

/// Go data as a YAML node for the YAML emitter; fragments keep their nodes.
pub fn to_node(go: &Go, span: Span) -> Result<Node, GoError> {
    let value = match go {
        Go::Node(node) => return Ok(node.clone()),
        Go::Docs(_) => {
            return Err(GoError::DocumentSetInDocument);
        }
        Go::List(items) => NodeValue::Array(
            items
                .iter()
                .map(|i| {
                    Ok(ArrayItem {
                        span,
                        value: to_node(i, span)?,
                        comments: Vec::new(),
                    })
                })
                .collect::<Result<_, GoError>>()?,
        ),
        Go::Map(items) => NodeValue::Map(
            items
                .iter()
                .map(|(k, v)| {
                    let key = k.as_scalar().ok_or(GoError::YamlKeyNotScalar)?;
                    Ok(MapItem {
                        key_span: span,
                        key: scalars::scalar(key),
                        value: to_node(v, span)?,
                        comments: Vec::new(),
                    })
                })
                .collect::<Result<_, GoError>>()?,
        ),
        scalar => {
            return Ok(scalars::scalar_node(
                scalar.as_scalar().unwrap_or(ScalarValue::Null),
                span,
            ));
        }
    };
    Ok(Node { span, value })
}

/// ytt's `NewGoValue(...).AsStarlarkValue()`: maps become dicts, or
/// structs with `map_is_struct` (whose keys must be strings).
pub fn to_value<'v>(go: &Go, heap: Heap<'v>, map_is_struct: bool) -> Result<Value<'v>, GoError> {
    Ok(match go {
        Go::List(items) => {
            let values = items
                .iter()
                .map(|i| to_value(i, heap, map_is_struct))
                .collect::<Result<Vec<_>, _>>()?;
            heap.alloc(values)
        }
        Go::Map(items) if map_is_struct => {
            let mut fields = Vec::with_capacity(items.len());
            for (k, v) in items {
                let Go::Str(key) = k else {
                    return Err(GoError::StructKeyNotString(
                        encode_plain(k).unwrap_or_default(),
                    ));
                };
                fields.push((key.clone(), to_value(v, heap, map_is_struct)?));
            }
            heap.alloc(YttStruct::new(fields))
        }
        Go::Map(items) => {
            let pairs = items
                .iter()
                .map(|(k, v)| Ok((to_value(k, heap, false)?, to_value(v, heap, map_is_struct)?)))
                .collect::<Result<Vec<_>, GoError>>()?;
            heap.alloc(AllocDict(pairs))
        }
        Go::Node(_) | Go::Docs(_) => {
            return Err(GoError::NoStarlarkForm(go.go_type()));
        }
        scalar => scalar_to_value(&scalar.as_scalar().unwrap_or(ScalarValue::Null), heap),
    })
}

// Go's `encoding/json` form of a value: `@ytt:json`'s encoder, and the
// text of a map key that is not a string.

/// Plain data as compact JSON (HTML characters escaped).
pub fn encode_plain(go: &Go) -> Result<String, GoError> {
    let mut out = String::new();
    write(&mut out, go, true)?;
    Ok(out)
}

/// `go` as JSON onto `out`, `<`, `>` and `&` escaped when `escape_html`.
pub fn write(out: &mut String, go: &Go, escape_html: bool) -> Result<(), GoError> {
    match go {
        Go::Null => out.push_str("null"),
        Go::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Go::Int(i) => out.push_str(&i.to_string()),
        Go::Float(f) => out.push_str(&float(*f)?),
        Go::Str(s) => string(out, s, escape_html),
        Go::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(out, item, escape_html)?;
            }
            out.push(']');
        }
        Go::Map(items) => {
            let mut entries = Vec::with_capacity(items.len());
            for (k, v) in items {
                let Go::Str(key) = k else {
                    return Err(GoError::KeyNotString);
                };
                entries.push((key, v));
            }
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(out, k, escape_html);
                out.push(':');
                write(out, v, escape_html)?;
            }
            out.push('}');
        }
        Go::Node(_) | Go::Docs(_) => {
            return Err(GoError::DocumentSetInDocument);
        }
    }
    Ok(())
}

/// Go's float encoding: `strconv` `'f'` form, or `'e'` form (exponent
/// without leading zeros) below 1e-6 and from 1e21.
fn float(f: f64) -> Result<String, GoError> {
    if !f.is_finite() {
        let name = if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "+Inf"
        } else {
            "-Inf"
        };
        return Err(GoError::UnsupportedFloat(name));
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // Shortest round-trip digits in exponent form: "1e+21", "1e-7".
        let e = format!("{f:e}");
        let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return Ok(format!("{mantissa}e{sign}{}", exp.abs()));
    }
    if f == 0.0 && f.is_sign_negative() {
        return Ok("-0".into());
    }
    // Rust's Display gives the shortest round-trip digits, never exponents.
    Ok(format!("{f}"))
}

fn string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' if escape_html => out.push_str(&format!("\\u{:04x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}
