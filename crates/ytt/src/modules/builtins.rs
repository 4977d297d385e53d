//! What ytt's Starlark (k14s/starlark-go) prints differently from
//! starlark-rust: a float's string is Go's `%g` with six significant
//! digits (`str(3.0)` is `"3"`, `str(1234567.0)` is `"1.23457e+06"`).
//! [`universe`] overrides `str` and `repr` with these; [`to_str`] is what
//! the modules use to put a value in a message.

use starlark::environment::GlobalsBuilder;
use starlark::values::dict::DictRef;
use starlark::values::float::StarlarkFloat;
use starlark::values::list::ListRef;
use starlark::values::tuple::TupleRef;
use starlark::values::{UnpackValue, Value};

use crate::starlark::convert::check_output_size;

/// Go's `strconv.FormatFloat(f, 'g', 6, 64)`.
pub fn format_float(f: f64) -> String {
    crate::yaml::float::format_float_g(f, Some(6))
}

fn has_float(value: Value<'_>, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    match value.get_type() {
        "float" => true,
        "list" => {
            ListRef::from_value(value).is_some_and(|l| l.iter().any(|v| has_float(v, depth + 1)))
        }
        "tuple" => {
            TupleRef::from_value(value).is_some_and(|t| t.iter().any(|v| has_float(v, depth + 1)))
        }
        "dict" => DictRef::from_value(value).is_some_and(|d| {
            d.iter()
                .any(|(k, v)| has_float(k, depth + 1) || has_float(v, depth + 1))
        }),
        _ => false,
    }
}

/// `repr(value)` as ytt prints it.
pub fn to_repr(value: Value<'_>) -> String {
    if !has_float(value, 0) {
        return value.to_repr();
    }
    let mut out = String::new();
    write_repr(&mut out, value);
    out
}

fn write_repr(out: &mut String, value: Value<'_>) {
    let join = |out: &mut String, items: &mut dyn Iterator<Item = Value<'_>>| {
        for (i, item) in items.enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_repr(out, item);
        }
    };
    if let Ok(Some(StarlarkFloat(f))) = StarlarkFloat::unpack_value(value) {
        out.push_str(&format_float(f));
    } else if let Some(list) = ListRef::from_value(value) {
        out.push('[');
        join(out, &mut list.iter());
        out.push(']');
    } else if let Some(tuple) = TupleRef::from_value(value) {
        out.push('(');
        join(out, &mut tuple.iter());
        if tuple.len() == 1 {
            out.push(',');
        }
        out.push(')');
    } else if let Some(dict) = DictRef::from_value(value) {
        out.push('{');
        for (i, (k, v)) in dict.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_repr(out, k);
            out.push_str(": ");
            write_repr(out, v);
        }
        out.push('}');
    } else {
        out.push_str(&value.to_repr());
    }
}

/// `str(value)` as ytt prints it.
pub fn to_str(value: Value<'_>) -> String {
    match value.unpack_str() {
        Some(s) => s.to_string(),
        None => to_repr(value),
    }
}

/// Refuses `value` when writing it out would be too large, with the
/// conversion's text as the builtin's error.
fn writable(value: Value<'_>) -> anyhow::Result<()> {
    check_output_size(value).map_err(|e| anyhow::anyhow!(e.to_string()))
}

#[starlark::starlark_module]
pub fn universe(builder: &mut GlobalsBuilder) {
    /// `str(x)`, floats printed as ytt prints them.
    fn str<'v>(#[starlark(require = pos)] value: Value<'v>) -> anyhow::Result<String> {
        if value.unpack_str().is_none() {
            // Refused before the text is made (a shared list written out).
            writable(value)?;
        }
        Ok(to_str(value))
    }

    /// `print(*args, sep=" ")`: strings as they are, other values as
    /// `repr`, one line; kept for standard error while a render collects
    /// them (see `engine::prints`).
    fn print<'v>(
        #[starlark(args)] args: starlark::values::tuple::UnpackTuple<Value<'v>>,
        #[starlark(require = named, default = " ")] sep: &str,
    ) -> anyhow::Result<starlark::values::none::NoneType> {
        let mut line = String::new();
        for (i, value) in args.items.into_iter().enumerate() {
            if i > 0 {
                line.push_str(sep);
            }
            if value.unpack_str().is_none() {
                writable(value)?;
            }
            line.push_str(&to_str(value));
        }
        crate::engine::prints::print_line(&line);
        Ok(starlark::values::none::NoneType)
    }

    /// `repr(x)`, floats printed as ytt prints them.
    fn repr<'v>(#[starlark(require = pos)] value: Value<'v>) -> anyhow::Result<String> {
        writable(value)?;
        Ok(to_repr(value))
    }
}

#[cfg(test)]
mod tests {
    use super::format_float;

    #[test]
    fn floats_print_as_ytt_prints_them() {
        // Expected values from the reference ytt.
        let cases = [
            (3.0, "3"),
            (1.23456789, "1.23457"),
            (1e20, "1e+20"),
            (0.1 + 0.2, "0.3"),
            (2.5, "2.5"),
            (1234567.0, "1.23457e+06"),
            (1e-7, "1e-07"),
            (100000.0, "100000"),
            (1000000.0, "1e+06"),
            (-0.0, "-0"),
            (0.0001, "0.0001"),
            (-123.456, "-123.456"),
        ];
        for (f, want) in cases {
            assert_eq!(format_float(f), want, "{f}");
        }
    }
}
