//! The bridge to starlark-rust: annotation arguments are ordinary Starlark
//! call arguments (`#@schema/validation min=1, max=3` is `f(min=1, max=3)`),
//! evaluated as ytt evaluates them and converted into [`StarValue`]s.
//! Below it, the value types ytt adds to Starlark and the conversions
//! between YAML nodes and Starlark values that every phase shares.

pub mod convert;
pub mod fragment;
pub mod go;
pub mod scalars;
pub mod star_nodes;
pub mod ytt_struct;

/// What a template reaching an unimplemented part of ytt gets: the one
/// text every layer recognises as confvet's gap, not the package's error.
pub const NOT_RENDERED: &str = "confvet does not render this yet";

use starlark::environment::{Globals, Module};
use starlark::eval::Evaluator;
use starlark::syntax::{AstModule, Dialect};
use starlark::values::dict::DictRef;
use starlark::values::float::StarlarkFloat;
use starlark::values::list::ListRef;
use starlark::values::tuple::TupleRef;
use starlark::values::{UnpackValue, Value};
use std::fmt;

/// A Starlark value converted out of the interpreter's heap.
#[derive(Debug, Clone, PartialEq)]
pub enum StarValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<StarValue>),
    Tuple(Vec<StarValue>),
    Dict(Vec<(StarValue, StarValue)>),
    /// Anything else (functions, structs): its Starlark type name and repr,
    /// and the frozen value itself when it came from a compiled file.
    Other {
        type_name: String,
        repr: String,
        handle: Option<Handle>,
    },
}

/// A frozen Starlark value kept alive with its heap (a rule function).
#[derive(Clone)]
pub struct Handle(pub starlark::values::OwnedFrozenValue);

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Handle")
    }
}

/// Functions never compare equal: two rules are two rules.
impl PartialEq for Handle {
    fn eq(&self, _other: &Handle) -> bool {
        false
    }
}

impl StarValue {
    /// ytt's name for the value's type in messages (`string`, `int`, ...).
    pub fn type_name(&self) -> &str {
        match self {
            StarValue::None => "NoneType",
            StarValue::Bool(_) => "bool",
            StarValue::Int(_) => "int",
            StarValue::Float(_) => "float",
            StarValue::Str(_) => "string",
            StarValue::List(_) => "list",
            StarValue::Tuple(_) => "tuple",
            StarValue::Dict(_) => "dict",
            StarValue::Other { type_name, .. } => type_name,
        }
    }

    pub fn as_number(&self) -> Option<f64> {
        match self {
            StarValue::Int(i) => Some(*i as f64),
            StarValue::Float(f) => Some(*f),
            _ => None,
        }
    }
}

/// Starlark's repr, with floats printed as Go's `%g` (ytt prints `1.0` as `1`).
impl fmt::Display for StarValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn join(f: &mut fmt::Formatter<'_>, items: &[StarValue]) -> fmt::Result {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{item}")?;
            }
            Ok(())
        }
        match self {
            StarValue::None => f.write_str("None"),
            StarValue::Bool(true) => f.write_str("True"),
            StarValue::Bool(false) => f.write_str("False"),
            StarValue::Int(i) => write!(f, "{i}"),
            StarValue::Float(x) => f.write_str(&crate::yaml::float::format_float(*x)),
            StarValue::Str(s) => write!(f, "{s:?}"),
            StarValue::List(items) => {
                f.write_str("[")?;
                join(f, items)?;
                f.write_str("]")
            }
            StarValue::Tuple(items) => {
                f.write_str("(")?;
                join(f, items)?;
                if items.len() == 1 {
                    f.write_str(",")?;
                }
                f.write_str(")")
            }
            StarValue::Dict(items) => {
                f.write_str("{")?;
                for (i, (k, v)) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            StarValue::Other { repr, .. } => f.write_str(repr),
        }
    }
}

/// Positional and keyword arguments of an annotation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CallArgs {
    pub positional: Vec<StarValue>,
    pub named: Vec<(String, StarValue)>,
}

/// A Starlark error: its message and, for syntax errors, the byte offset in
/// the evaluated text.
#[derive(Debug, Clone, PartialEq)]
pub struct StarError {
    pub message: String,
    pub offset: Option<usize>,
    pub is_syntax: bool,
}

/// The program annotation arguments are evaluated in: a call that
/// captures them.
pub(crate) const CAPTURE_PREFIX: &str = "def confvet_capture_(*args, **kwargs):\n    return (args, kwargs)\nconfvet_args_ = confvet_capture_(";

/// Evaluate the text of annotation arguments.
pub fn eval_annotation_args(args: &str) -> Result<CallArgs, StarError> {
    if args.trim().is_empty() {
        return Ok(CallArgs::default());
    }
    if let Some((_, message)) = super::translate::nesting_error(args) {
        return Err(StarError {
            message,
            offset: None,
            is_syntax: true,
        });
    }
    let program = format!("{CAPTURE_PREFIX}{args}\n)\n");
    let ast = AstModule::parse("annotation", program, &Dialect::Extended).map_err(|e| {
        let offset = e
            .span()
            .map(|span| span.span.begin().get() as usize)
            .map(|o| o.saturating_sub(CAPTURE_PREFIX.len()).min(args.len()));
        StarError {
            message: first_line(&e.without_diagnostic().to_string()),
            offset,
            is_syntax: true,
        }
    })?;
    // Built once per process: building the standard globals parses every
    // builtin's docstring, which costs more than evaluating the arguments
    // of an annotation, and overlays and data values have many.
    static GLOBALS: std::sync::LazyLock<Globals> = std::sync::LazyLock::new(Globals::standard);
    let globals = &*GLOBALS;
    Module::with_temp_heap(|module| {
        let mut eval = Evaluator::new(&module);
        let _ = eval.set_max_callstack_size(50);
        eval.eval_module(ast, globals).map_err(|e| StarError {
            message: first_line(&e.without_diagnostic().to_string()),
            offset: None,
            is_syntax: false,
        })?;
        let captured = module.get("confvet_args_").ok_or_else(|| StarError {
            message: "annotation arguments did not evaluate".into(),
            offset: None,
            is_syntax: false,
        })?;
        let pair = TupleRef::from_value(captured).map(|t| t.content().to_vec());
        let (positional, named) = match pair.as_deref() {
            Some([args, kwargs]) => (*args, *kwargs),
            _ => unreachable_args(),
        };
        let positional = TupleRef::from_value(positional)
            .map(|t| t.content().iter().map(|v| to_star_value(*v, 0)).collect())
            .unwrap_or_default();
        let named = DictRef::from_value(named)
            .map(|d| {
                d.iter()
                    .map(|(k, v)| {
                        (
                            k.unpack_str().unwrap_or_default().to_string(),
                            to_star_value(v, 0),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(CallArgs { positional, named })
    })
}

fn unreachable_args<'v>() -> (Value<'v>, Value<'v>) {
    (Value::new_none(), Value::new_none())
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or("").trim().to_string()
}

/// Convert a heap value; nesting beyond a bound becomes `Other`.
pub fn to_star_value(value: Value<'_>, depth: usize) -> StarValue {
    convert(value, None, depth)
}

/// Convert a frozen value owned by `owner`, keeping handles to functions and
/// objects so they can be called later.
pub fn to_star_value_owned(
    value: Value<'_>,
    owner: &starlark::values::OwnedFrozenValue,
    depth: usize,
) -> StarValue {
    convert(value, Some(owner), depth)
}

fn convert(
    value: Value<'_>,
    owner: Option<&starlark::values::OwnedFrozenValue>,
    depth: usize,
) -> StarValue {
    if depth > 64 {
        return StarValue::Other {
            type_name: value.get_type().to_string(),
            repr: "...".into(),
            handle: None,
        };
    }
    if value.is_none() {
        return StarValue::None;
    }
    if let Some(b) = value.unpack_bool() {
        return StarValue::Bool(b);
    }
    if let Some(s) = value.unpack_str() {
        return StarValue::Str(s.to_string());
    }
    if value.get_type() == "int"
        && let Ok(Some(i)) = i64::unpack_value(value)
    {
        return StarValue::Int(i);
    }
    if value.get_type() == "float"
        && let Ok(Some(f)) = StarlarkFloat::unpack_value(value)
    {
        return StarValue::Float(f.0);
    }
    if let Some(list) = ListRef::from_value(value) {
        return StarValue::List(list.iter().map(|v| convert(v, owner, depth + 1)).collect());
    }
    if let Some(tuple) = TupleRef::from_value(value) {
        return StarValue::Tuple(tuple.iter().map(|v| convert(v, owner, depth + 1)).collect());
    }
    if let Some(dict) = DictRef::from_value(value) {
        return StarValue::Dict(
            dict.iter()
                .map(|(k, v)| (convert(k, owner, depth + 1), convert(v, owner, depth + 1)))
                .collect(),
        );
    }
    let handle = owner.and_then(|owner| {
        let frozen = value.unpack_frozen()?;
        Some(Handle(owner.map(|_| frozen)))
    });
    StarValue::Other {
        type_name: value.get_type().to_string(),
        repr: value.to_repr(),
        handle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyword_and_positional_arguments_are_evaluated() {
        let args = eval_annotation_args(r#"min=1, max=32767.0, one_of=["a", "b"]"#).unwrap();
        assert!(args.positional.is_empty());
        assert_eq!(args.named[0], ("min".into(), StarValue::Int(1)));
        assert_eq!(args.named[1], ("max".into(), StarValue::Float(32767.0)));
        assert_eq!(args.named[2].1.to_string(), r#"["a", "b"]"#);
        let args = eval_annotation_args(r#""text", None"#).unwrap();
        assert_eq!(
            args.positional,
            vec![StarValue::Str("text".into()), StarValue::None]
        );
    }

    #[test]
    fn syntax_errors_say_where() {
        let err = eval_annotation_args("min=1, max=(3").unwrap_err();
        assert!(err.is_syntax);
        let err = eval_annotation_args("min=undefined_name").unwrap_err();
        assert!(!err.is_syntax);
        assert!(err.message.contains("undefined_name"), "{}", err.message);
    }

    #[test]
    fn floats_print_as_ytt_prints_them() {
        assert_eq!(StarValue::Float(2.0).to_string(), "2");
        assert_eq!(
            StarValue::Tuple(vec![StarValue::Int(1)]).to_string(),
            "(1,)"
        );
    }
}
