//! The values ytt's Go code adds to Starlark, as starlark-rust values: a
//! builtin function (`starlark.Builtin` wrapped in ytt's `core.ErrWrapper`,
//! which names the function in its errors), a module (`starlarkstruct.Module`)
//! and the struct-like objects some functions return (`url.parse()`,
//! `ip.parse_addr()`), each with its own type name.

use crate::starlark::go::{AssertFail, error_text, go_type};
use allocative::Allocative;
use starlark::coerce::Coerce;
use starlark::eval::{Arguments, Evaluator};
use starlark::starlark_complex_value;
use starlark::values::{
    Freeze, FreezeResult, Freezer, Heap, NoSerialize, ProvidesStaticType, StarlarkValue, Trace,
    Value, ValueLike, starlark_value,
};
use starlark::{Error, ErrorKind};
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// Why a builtin failed.
#[derive(Debug)]
pub enum Failure {
    /// ytt's error text; the function's name goes before it (`json.decode:
    /// ...`), as ytt's `ErrWrapper` does.
    Message(String),
    /// An error text given as it is (a check function's `check: ...`).
    Plain(String),
    /// A `fail()` with this message, as a check lambda fails in ytt.
    Fail(String),
    /// `assert.fail(message)`.
    AssertFail(String),
    /// An error from Starlark code the builtin called: it keeps its place
    /// and call stack, and gets the builtin's name before its message.
    Nested(Error),
    /// An error passed on as it is (a check function's, which ytt writes
    /// in Starlark and so does not name).
    Raw(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Nested(e)
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Message(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::Message(message.to_string())
    }
}

/// A typed error of a layer or module whose text is ytt's message: it
/// becomes a [`Failure::Message`] through its `Display`, here and nowhere
/// else, so the text a template sees is the one the type prints.
pub trait YttMessage: std::error::Error {}

impl<E: YttMessage> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure::Message(e.to_string())
    }
}

impl YttMessage for crate::starlark::convert::ConvertError {}
impl YttMessage for super::go_value::GoError {}
impl YttMessage for crate::template::runtime::RuntimeError {}

pub type Outcome<'v> = Result<Value<'v>, Failure>;

/// `e` with another message, keeping where it happened.
fn with_message(e: &Error, message: String) -> Error {
    let mut out = Error::new_other(anyhow::anyhow!(message));
    if let Some(span) = e.span() {
        out.set_span(span.span, &span.file);
    }
    let stack = e.call_stack().clone();
    out.set_call_stack(move || stack);
    out
}

impl Failure {
    pub fn into_error(self, name: &str) -> Error {
        match self {
            Failure::Message(m) => Error::new_other(anyhow::anyhow!("{name}: {m}")),
            Failure::Plain(m) => Error::new_other(anyhow::anyhow!(m)),
            Failure::Fail(m) => Error::new_kind(ErrorKind::Fail(anyhow::anyhow!(" {m}"))),
            Failure::AssertFail(m) => {
                Error::new_kind(ErrorKind::Fail(anyhow::Error::new(AssertFail(m))))
            }
            Failure::Nested(e) => with_message(&e, format!("{name}: {}", error_text(&e))),
            Failure::Raw(e) => e,
        }
    }

    /// The text ytt's `err.Error()` gives for this failure.
    pub fn text(self, name: &str) -> String {
        error_text(&self.into_error(name))
    }
}

/// One call of a builtin: its arguments and what it was made with.
pub struct Call<'v, 'c> {
    pub name: &'static str,
    /// The values the builtin was made with (`struct.bind`'s function).
    pub captured: &'c [Value<'v>],
    /// The Rust data the builtin was made with (a parsed URL).
    pub data: Option<&'c (dyn Any + Send + Sync)>,
    pub args: Vec<Value<'v>>,
    pub kwargs: Vec<(&'v str, Value<'v>)>,
    pub heap: Heap<'v>,
}

impl<'v> Call<'v, '_> {
    /// Exactly `n` positional arguments, or ytt's `message`.
    pub fn expect(&self, n: usize, message: &str) -> Result<(), Failure> {
        if self.args.len() == n {
            Ok(())
        } else {
            Err(Failure::Message(message.to_string()))
        }
    }

    /// Exactly one positional argument (most of ytt's builtins).
    pub fn one(&self) -> Result<Value<'v>, Failure> {
        self.expect(1, "expected exactly one argument")?;
        Ok(self.args[0])
    }

    /// Positional argument `i` as a string (ytt's `AsString`).
    pub fn str_arg(&self, i: usize) -> Result<&'v str, Failure> {
        as_str(self.args[i])
    }

    /// A keyword argument given as a boolean (ytt's `core.BoolArg`).
    pub fn bool_kwarg(&self, name: &str, default: bool) -> Result<bool, Failure> {
        match self.kwargs.iter().find(|(k, _)| *k == name) {
            None => Ok(default),
            Some((_, v)) => v.unpack_bool().ok_or_else(|| {
                Failure::Message(format!("expected starlark.Bool, but was {}", go_type(*v)))
            }),
        }
    }

    /// A keyword argument given as an int, 0 when absent (`core.Int64Arg`).
    pub fn int_kwarg(&self, name: &str) -> Result<i64, Failure> {
        match self.kwargs.iter().find(|(k, _)| *k == name) {
            None => Ok(0),
            Some((_, v)) if v.get_type() == "int" => {
                starlark::values::UnpackValue::unpack_value(*v)
                    .ok()
                    .flatten()
                    .ok_or_else(|| Failure::Message("expected int64 value".into()))
            }
            Some(_) => Err(Failure::Message("expected starlark.Int".into())),
        }
    }

    /// Refuse keyword arguments not in `allowed` (`core.CheckArgNames`).
    pub fn allow_kwargs(&self, allowed: &[&str]) -> Result<(), Failure> {
        match self.kwargs.iter().find(|(k, _)| !allowed.contains(k)) {
            Some((k, _)) => Err(Failure::Message(format!("invalid argument name: {k}"))),
            None => Ok(()),
        }
    }

    /// The Rust data this builtin was made with.
    pub fn data<T: 'static>(&self) -> Result<&T, Failure> {
        self.data
            .and_then(|d| d.downcast_ref::<T>())
            .ok_or_else(|| Failure::Message("internal: builtin without its data".into()))
    }
}

/// A string argument, or ytt's "expected a string, but was int".
pub fn as_str(value: Value<'_>) -> Result<&str, Failure> {
    value
        .unpack_str()
        .ok_or_else(|| Failure::Message(format!("expected a string, but was {}", value.get_type())))
}

/// The Rust function behind a builtin.
#[derive(Clone, Copy)]
pub struct NativeFn(pub for<'v> fn(&Call<'v, '_>, &mut Evaluator<'v, '_, '_>) -> Outcome<'v>);

// SAFETY: a function pointer holds no Starlark values.
unsafe impl Coerce<NativeFn> for NativeFn {}

/// What a builtin is, besides the values it captured.
#[derive(Clone, Allocative)]
pub struct Fixed {
    name: &'static str,
    #[allocative(skip)]
    data: Option<Arc<dyn Any + Send + Sync>>,
    #[allocative(skip)]
    call: NativeFn,
}

// SAFETY: holds no Starlark values.
unsafe impl Coerce<Fixed> for Fixed {}

/// A builtin function.
#[derive(Trace, Coerce, ProvidesStaticType, NoSerialize, Allocative)]
#[repr(C)]
pub struct NativeGen<V> {
    #[trace(static)]
    fixed: Fixed,
    captured: Vec<V>,
}

starlark_complex_value!(pub Native);

impl<V> fmt::Debug for NativeGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Native({})", self.fixed.name)
    }
}

impl<'v> Native<'v> {
    pub fn new(name: &'static str, call: NativeFn) -> Self {
        Self::with(name, call, Vec::new(), None)
    }
}

impl<V> NativeGen<V> {
    /// A builtin with values it captures (frozen ones for a frozen builtin).
    pub fn with(
        name: &'static str,
        call: NativeFn,
        captured: Vec<V>,
        data: Option<Arc<dyn Any + Send + Sync>>,
    ) -> Self {
        NativeGen {
            fixed: Fixed { name, data, call },
            captured,
        }
    }
}

impl<'v> Native<'v> {
    /// The builtin `value` is (frozen or not), if it is one.
    pub fn of(value: Value<'v>) -> Option<&'v Native<'v>> {
        Native::from_value(value)
    }

    /// The builtin's name, as ytt prints it.
    pub fn name(&self) -> &'static str {
        self.fixed.name
    }

    /// What the builtin was made with besides its captured values.
    pub fn data<T: Any>(&self) -> Option<&T> {
        self.fixed.data.as_deref()?.downcast_ref()
    }

    /// The values the builtin captured when it was made.
    pub fn captured(&self) -> &[Value<'v>] {
        &self.captured
    }
}

impl<V> fmt::Display for NativeGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<built-in function {}>", self.fixed.name)
    }
}

impl<'v> Freeze for Native<'v> {
    type Frozen = FrozenNative;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        let mut captured = Vec::with_capacity(self.captured.len());
        for v in self.captured {
            captured.push(v.freeze(freezer)?);
        }
        Ok(NativeGen {
            fixed: self.fixed,
            captured,
        })
    }
}

#[starlark_value(type = "builtin_function_or_method")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for NativeGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn invoke(
        &self,
        _me: Value<'v>,
        args: &Arguments<'v, '_>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let heap = eval.heap();
        let positional: Vec<Value<'v>> = args.positions(heap)?.collect();
        let kwargs: Vec<(&'v str, Value<'v>)> = args
            .names_map()?
            .into_iter()
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        let captured: Vec<Value<'v>> = self.captured.iter().map(|v| v.to_value()).collect();
        let call = Call {
            name: self.fixed.name,
            captured: &captured,
            data: self.fixed.data.as_deref(),
            args: positional,
            kwargs,
            heap,
        };
        (self.fixed.call.0)(&call, eval).map_err(|f| f.into_error(self.fixed.name))
    }
}

/// A Starlark module: `load("@ytt:json", "json")` gives one (ytt's
/// `starlarkstruct.Module`). Its members are read as attributes.
#[derive(Debug, Trace, Coerce, ProvidesStaticType, NoSerialize, Allocative)]
#[repr(C)]
pub struct YttModuleGen<V> {
    name: String,
    members: Vec<(String, V)>,
}

starlark_complex_value!(pub YttModule);

impl<'v> YttModule<'v> {
    pub fn new(name: &str, members: Vec<(String, Value<'v>)>) -> Self {
        YttModuleGen {
            name: name.to_string(),
            members,
        }
    }
}

impl<V> fmt::Display for YttModuleGen<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<module {:?}>", self.name)
    }
}

impl<'v> Freeze for YttModule<'v> {
    type Frozen = FrozenYttModule;
    fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
        let mut members = Vec::with_capacity(self.members.len());
        for (k, v) in self.members {
            members.push((k, v.freeze(freezer)?));
        }
        Ok(YttModuleGen {
            name: self.name,
            members,
        })
    }
}

#[starlark_value(type = "module")]
impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for YttModuleGen<V>
where
    Self: ProvidesStaticType<'v>,
{
    fn get_attr(&self, attribute: &str, _heap: Heap<'v>) -> Option<Value<'v>> {
        self.members
            .iter()
            .find(|(k, _)| k == attribute)
            .map(|(_, v)| v.to_value())
    }

    fn has_attr(&self, attribute: &str, _heap: Heap<'v>) -> bool {
        self.members.iter().any(|(k, _)| k == attribute)
    }

    fn dir_attr(&self) -> Vec<String> {
        let mut names: Vec<String> = self.members.iter().map(|(k, _)| k.clone()).collect();
        names.sort();
        names
    }
}

/// Declares a struct-like value type with its own type name, as ytt's
/// `URLValue` or `IPAddrValue` (a `core.StarlarkStruct` under another
/// `Type()`): attributes, `x["name"]`, `"name" in x`, `len(x)`, iteration
/// over its field names; it never converts to YAML.
macro_rules! object_type {
    ($gen:ident, $name:ident, $frozen:ident, $type_name:literal) => {
        #[derive(Debug, Trace, Coerce, ProvidesStaticType, NoSerialize, Allocative)]
        #[repr(C)]
        pub struct $gen<V> {
            fields: Vec<(String, V)>,
        }

        starlark_complex_value!(pub $name);

        impl<'v> $name<'v> {
            pub fn new(fields: Vec<(&str, Value<'v>)>) -> Self {
                $gen {
                    fields: fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                }
            }
        }

        impl<V> fmt::Display for $gen<V> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("struct(...)")
            }
        }

        impl<'v> Freeze for $name<'v> {
            type Frozen = $frozen;
            fn freeze(self, freezer: &Freezer) -> FreezeResult<Self::Frozen> {
                let mut fields = Vec::with_capacity(self.fields.len());
                for (k, v) in self.fields {
                    fields.push((k, v.freeze(freezer)?));
                }
                Ok($gen { fields })
            }
        }

        #[starlark_value(type = $type_name)]
        impl<'v, V: ValueLike<'v>> StarlarkValue<'v> for $gen<V>
        where
            Self: ProvidesStaticType<'v>,
        {
            fn get_attr(&self, attribute: &str, _heap: Heap<'v>) -> Option<Value<'v>> {
                field(&self.fields, attribute)
            }

            fn has_attr(&self, attribute: &str, _heap: Heap<'v>) -> bool {
                field(&self.fields, attribute).is_some()
            }

            fn dir_attr(&self) -> Vec<String> {
                self.fields.iter().map(|(k, _)| k.clone()).collect()
            }

            fn at(&self, index: Value<'v>, _heap: Heap<'v>) -> starlark::Result<Value<'v>> {
                let name = as_str(index).map_err(|f| f.into_error("struct"))?;
                field(&self.fields, name).ok_or_else(|| {
                    Error::new_other(anyhow::anyhow!("key {:?} not in struct", name))
                })
            }

            fn is_in(&self, other: Value<'v>) -> starlark::Result<bool> {
                Ok(other
                    .unpack_str()
                    .is_some_and(|k| field(&self.fields, k).is_some()))
            }

            fn length(&self) -> starlark::Result<i32> {
                Ok(self.fields.len() as i32)
            }

            fn to_bool(&self) -> bool {
                !self.fields.is_empty()
            }

            fn iterate_collect(&self, heap: Heap<'v>) -> starlark::Result<Vec<Value<'v>>> {
                Ok(self
                    .fields
                    .iter()
                    .map(|(k, _)| heap.alloc(k.as_str()))
                    .collect())
            }
        }
    };
}

fn field<'v, V: ValueLike<'v>>(fields: &[(String, V)], name: &str) -> Option<Value<'v>> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.to_value())
}

object_type!(UrlValueGen, UrlValue, FrozenUrlValue, "@ytt:url.value");
object_type!(UrlUserGen, UrlUser, FrozenUrlUser, "@ytt:url.user");
object_type!(IpAddrGen, IpAddr, FrozenIpAddr, "@ytt:ip.addr");
object_type!(IpNetGen, IpNet, FrozenIpNet, "@ytt:ip.net");

/// A builtin value on `heap`.
pub fn builtin<'v>(heap: Heap<'v>, name: &'static str, call: NativeFn) -> Value<'v> {
    heap.alloc(Native::new(name, call))
}

/// A module of builtins: `(member name, ytt's function name, function)`.
pub fn module<'v>(
    heap: Heap<'v>,
    name: &str,
    members: &[(&str, &'static str, NativeFn)],
) -> Value<'v> {
    let members = members
        .iter()
        .map(|(member, full, f)| (member.to_string(), builtin(heap, full, *f)))
        .collect();
    heap.alloc(YttModule::new(name, members))
}

/// A `NativeFn` from a function item: `native!(encode)`.
macro_rules! native {
    ($f:path) => {
        $crate::modules::native::NativeFn($f)
    };
}
pub(crate) use native;
