//! Operations whose result can be far larger than their operands in one
//! step: `"x" * n`, `sep.join(xs)` over one long string repeated,
//! `"%s%s" % (s, s)`, `"{0}{0}".format(s)`, `s.replace("a", long)`,
//! `s.split(",")` into millions of pieces, a big integer squared. The
//! statement-by-statement heap limit sees them only once made, and a failed
//! allocation aborts the process, so each is measured before it runs:
//! translate's `parse_guarded` routes them through the functions here,
//! which refuse a result that would pass the heap limit (alone, or with
//! what the heap holds already) and otherwise do what the operation does.

use crate::starlark::convert::written_size;
use starlark::environment::GlobalsBuilder;
use starlark::eval::Evaluator;
use starlark::values::dict::DictRef;
use starlark::values::list::ListRef;
use starlark::values::tuple::{TupleRef, UnpackTuple};
use starlark::values::{Heap, UnpackValue, Value};

/// The most one operation may make: the heap limit.
const GROWTH_LIMIT_BYTES: u64 = super::sandbox::HEAP_LIMIT_BYTES as u64;

/// The most bits a computed integer may have: writing one out takes time
/// quadratic in its size, and its digits live outside the heap the limit
/// measures. Far past any number a configuration holds.
const INT_BITS_LIMIT: u64 = 100_000;

/// What one piece of a split takes beside its text (the string's header
/// and its slot in the list).
const PIECE_BYTES: u64 = 48;

fn too_large(what: &str) -> starlark::Error {
    starlark::Error::new_other(anyhow::anyhow!(
        "{what}: the result would pass {} MiB",
        GROWTH_LIMIT_BYTES / 1024 / 1024
    ))
}

/// Refuses making `bytes` more when that passes the limit, alone or with
/// what the heap holds.
fn check_growth(heap: Heap<'_>, bytes: u64, what: &str) -> starlark::Result<()> {
    if bytes.saturating_add(heap.allocated_bytes() as u64) > GROWTH_LIMIT_BYTES {
        return Err(too_large(what));
    }
    Ok(())
}

/// The bits of `value` if it is an integer.
fn int_bits(value: Value<'_>) -> Option<u64> {
    if value.get_type() != "int" {
        return None;
    }
    if let Ok(Some(small)) = i64::unpack_value(value) {
        return Some(64 - small.unsigned_abs().leading_zeros() as u64);
    }
    num_bigint::BigInt::unpack_value(value)
        .ok()
        .flatten()
        .map(|big| big.bits())
}

fn check_int_bits(bits: u64, what: &str) -> starlark::Result<()> {
    if bits > INT_BITS_LIMIT {
        return Err(starlark::Error::new_other(anyhow::anyhow!(
            "{what}: the integer would have more than {INT_BITS_LIMIT} bits"
        )));
    }
    Ok(())
}

/// The size in bytes a sequence's repetition takes per repeat, if `value`
/// is a string, list or tuple (a list element counted as 8).
fn unit_bytes(value: Value<'_>) -> Option<u64> {
    if let Some(text) = value.unpack_str() {
        return Some(text.len() as u64);
    }
    if let Some(list) = ListRef::from_value(value) {
        return Some(list.len() as u64 * 8);
    }
    TupleRef::from_value(value).map(|t| t.len() as u64 * 8)
}

/// The most any one of `values` takes written out.
fn largest_written(values: impl Iterator<Item = u64>) -> u64 {
    values.max().unwrap_or(0)
}

/// `fmt % args`: each conversion writes at most one argument.
fn percent_bytes(fmt: &str, args: Value<'_>) -> u64 {
    let conversions = fmt.bytes().filter(|b| *b == b'%').count() as u64;
    let args_bytes = if let Some(tuple) = TupleRef::from_value(args) {
        // Each conversion takes the next argument: at most all of them.
        tuple
            .iter()
            .map(|a| written_size(a, GROWTH_LIMIT_BYTES))
            .fold(0u64, u64::saturating_add)
    } else if let Some(dict) = DictRef::from_value(args) {
        // `%(name)s` may name one value many times.
        conversions.saturating_mul(largest_written(
            dict.values().map(|v| written_size(v, GROWTH_LIMIT_BYTES)),
        ))
    } else {
        written_size(args, GROWTH_LIMIT_BYTES)
    };
    (fmt.len() as u64).saturating_add(args_bytes)
}

/// `text.format(args, kwargs)`: each `{…}` writes at most one argument.
fn format_bytes<'v>(text: &str, args: &[Value<'v>], kwargs: &[(&str, Value<'v>)]) -> u64 {
    let fields = text.bytes().filter(|b| *b == b'{').count() as u64;
    let largest = largest_written(
        args.iter()
            .copied()
            .chain(kwargs.iter().map(|(_, v)| *v))
            .map(|v| written_size(v, GROWTH_LIMIT_BYTES)),
    );
    (text.len() as u64).saturating_add(fields.saturating_mul(largest))
}

/// `sep.join(items)`: the items' text and a separator between each two;
/// stops counting once past the limit, or at an item that is no string
/// (join refuses it).
fn join_bytes<'v>(sep: &str, items: Value<'v>, heap: Heap<'v>) -> u64 {
    let Ok(iter) = items.iterate(heap) else {
        return 0;
    };
    let mut total: u64 = 0;
    for item in iter {
        let Some(text) = item.unpack_str() else {
            break;
        };
        total = total.saturating_add(text.len() as u64 + sep.len() as u64);
        if total > GROWTH_LIMIT_BYTES {
            break;
        }
    }
    total
}

/// How many times `pattern` occurs in `text` (an empty one between every
/// two characters and at both ends), at most `most`.
fn occurrences(text: &str, pattern: &str, most: Option<u64>) -> u64 {
    let found = if pattern.is_empty() {
        text.chars().count() as u64 + 1
    } else {
        text.matches(pattern).count() as u64
    };
    most.map_or(found, |m| found.min(m))
}

/// A non-negative count argument (`count`, `maxsplit`), if given.
fn limit_arg(value: Option<&Value<'_>>) -> Option<u64> {
    let n = i64::unpack_value(*value?).ok().flatten()?;
    u64::try_from(n).ok()
}

/// What a string method call makes, in bytes; 0 for methods that cannot
/// grow.
fn str_method_bytes<'v>(text: &str, method: &str, args: &[Value<'v>], heap: Heap<'v>) -> u64 {
    let arg_str = |i: usize| args.get(i).and_then(|a| a.unpack_str());
    let len = text.len() as u64;
    match method {
        "join" => args
            .first()
            .map_or(0, |items| join_bytes(text, *items, heap)),
        "replace" => match (arg_str(0), arg_str(1)) {
            (Some(old), Some(new)) => {
                let times = occurrences(text, old, limit_arg(args.get(2)));
                len.saturating_add(times.saturating_mul(new.len() as u64))
            }
            _ => 0,
        },
        "split" | "rsplit" => {
            let most = limit_arg(args.get(1));
            let pieces = match arg_str(0) {
                Some(sep) if !sep.is_empty() => occurrences(text, sep, most),
                _ => most.map_or(text.split_whitespace().count() as u64, |m| {
                    (text.split_whitespace().count() as u64).min(m)
                }),
            } + 1;
            len.saturating_add(pieces.saturating_mul(PIECE_BYTES))
        }
        "splitlines" => {
            let pieces = text.bytes().filter(|b| *b == b'\n' || *b == b'\r').count() as u64 + 1;
            len.saturating_add(pieces.saturating_mul(PIECE_BYTES))
        }
        // Lazy, but whatever iterates them holds one value per character.
        "elems" | "codepoints" | "elem_ords" | "codepoint_ords" => len.saturating_mul(8),
        _ => 0,
    }
}

/// Whether `obj.method(args)` can fail with an error that writes out `obj`
/// whole (`list.index` and `list.remove` of a missing element, `dict.pop`
/// of a missing key without a default): one shared a million times would
/// make gigabytes of message. Those scan the list anyway; a dict is only
/// measured when the key is missing.
fn names_itself_on_a_miss<'v>(obj: Value<'v>, method: &str, args: &[Value<'v>]) -> bool {
    match (obj.get_type(), method) {
        ("list", "index" | "remove") => true,
        // `obj.is_in(k)` is `k in obj`.
        ("dict", "pop") => args.len() == 1 && !obj.is_in(args[0]).unwrap_or(false),
        _ => false,
    }
}

/// `obj.method`, for a string the method with its guard: a partial
/// application of `__ytt_method` to `obj` and the method's name.
fn bound<'v>(
    obj: Value<'v>,
    method: &str,
    eval: &mut Evaluator<'v, '_, '_>,
) -> starlark::Result<Value<'v>> {
    if obj.unpack_str().is_none() && !matches!(method, "extend" | "index" | "remove" | "pop") {
        return obj.get_attr_error(method, eval.heap());
    }
    // Fails as the attribute would (`1 .join`), before it is bound.
    obj.get_attr_error(method, eval.heap())?;
    let guard = GUARDS
        .iter()
        .find(|(n, _)| *n == "__ytt_method")
        .map(|(_, v)| v.to_value())
        .ok_or_else(|| starlark::Error::new_other(anyhow::anyhow!("no __ytt_method")))?;
    let name = eval.heap().alloc(method);
    let empty = starlark::values::dict::Dict::default();
    let kwargs = eval.heap().alloc(empty);
    let kwargs = DictRef::from_value(kwargs).expect("a dict");
    super::originals::call("partial", &[guard, obj, name], kwargs, eval)
}

/// This module's functions as values, for `bound` to apply.
static GUARDS: std::sync::LazyLock<starlark::environment::Globals> =
    std::sync::LazyLock::new(|| GlobalsBuilder::new().with(guards).build());

#[starlark::starlark_module]
pub fn guards(builder: &mut GlobalsBuilder) {
    /// `a * b`, refusing a repetition or an integer product that would
    /// pass its limit before it is made.
    fn __ytt_mul<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        guarded_mul(a, b, heap)
    }

    /// `a + b`, refused when the sum of two strings or lists would pass the
    /// heap limit (a chain of additions makes each partial sum).
    fn __ytt_add<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        if let (Some(x), Some(y)) = (unit_bytes(a), unit_bytes(b)) {
            check_growth(heap, x + y, "concatenation")?;
        }
        a.add(b, heap)
    }

    /// `a % b`: a format string's conversions measured before they are
    /// written.
    fn __ytt_mod<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        guarded_percent(a, b, heap)
    }

    /// `a << b` on integers, refused past the integer size limit.
    fn __ytt_shl<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        if let (Some(bits), Ok(Some(shift))) = (int_bits(a), i64::unpack_value(b)) {
            check_int_bits(bits.saturating_add(shift.max(0) as u64), "left shift")?;
        }
        a.left_shift(b, heap)
    }

    /// `obj.method` where it is not called (`j = s.join`): the method
    /// with the guard `__ytt_method` puts on a call, for a string.
    fn __ytt_bind<'v>(
        #[starlark(require = pos)] obj: Value<'v>,
        #[starlark(require = pos)] method: &str,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        bound(obj, method, eval)
    }

    /// `getattr(obj, name, default)`, a growing method bound as
    /// `__ytt_bind` binds it.
    fn getattr<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(kwargs)] kwargs: DictRef<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if let [obj, name, ..] = args.items[..]
            && let Some(name) = name.unpack_str()
            && obj.unpack_str().is_some()
            && crate::translate::GUARDED_METHODS.contains(&name)
        {
            return bound(obj, name, eval);
        }
        super::originals::call("getattr", &args.items, kwargs, eval)
    }

    /// `int(x, …)`, refusing a string of more digits than the integer size
    /// limit allows before parsing it (parsing takes quadratic time).
    fn int<'v>(
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(kwargs)] kwargs: DictRef<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        if let Some(text) = args.items.first().and_then(|a| a.unpack_str()) {
            // Every digit carries a bit at least, in any base.
            check_int_bits(text.len() as u64, "int()")?;
        }
        super::originals::call("int", &args.items, kwargs, eval)
    }

    /// `obj.method(args…)` for a method that can grow its result (see
    /// translate's `parse_guarded`): measured first when `obj` is a
    /// string, then called as written.
    fn __ytt_method<'v>(
        #[starlark(require = pos)] obj: Value<'v>,
        #[starlark(require = pos)] method: &str,
        #[starlark(args)] args: UnpackTuple<Value<'v>>,
        #[starlark(kwargs)] kwargs: DictRef<'v>,
        eval: &mut Evaluator<'v, '_, '_>,
    ) -> starlark::Result<Value<'v>> {
        let heap = eval.heap();
        let named = super::originals::named(&kwargs);
        if let Some(text) = obj.unpack_str() {
            let bytes = if method == "format" {
                format_bytes(text, &args.items, &named)
            } else {
                str_method_bytes(text, method, &args.items, heap)
            };
            check_growth(heap, bytes, &format!("str.{method}"))?;
        }
        if method == "extend"
            && let Some(items) = args.items.first()
        {
            super::iterations::draw_iterations(*items, heap)?;
        }
        if names_itself_on_a_miss(obj, method, &args.items) {
            crate::starlark::convert::check_output_size(obj)
                .map_err(|e| starlark::Error::new_other(anyhow::anyhow!("{method}: {e}")))?;
        }
        let bound = obj.get_attr_error(method, heap)?;
        // ytt prints a float in a format string as its str() does (`768`,
        // not `768.0`); `{!r}` would tell a string from a float.
        if method == "format" && obj.unpack_str().is_some_and(|t| !t.contains("!r")) {
            let args: Vec<Value<'v>> = args.items.iter().map(|&a| float_as_str(a, heap)).collect();
            let named: Vec<(&str, Value<'v>)> = named
                .iter()
                .map(|&(k, v)| (k, float_as_str(v, heap)))
                .collect();
            return eval.eval_function(bound, &args, &named);
        }
        eval.eval_function(bound, &args.items, &named)
    }
}

/// `a * b`, refusing a repetition or an integer product that would pass
/// its limit before it is made.
fn guarded_mul<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
    let repeat = match (unit_bytes(a), unit_bytes(b)) {
        (Some(unit), None) if b.get_type() == "int" => Some((unit, b)),
        (None, Some(unit)) if a.get_type() == "int" => Some((unit, a)),
        _ => None,
    };
    if let Some((unit, times)) = repeat {
        let times = i64::unpack_value(times).ok().flatten();
        let bytes = match times {
            Some(n) if n <= 0 => Some(0),
            Some(n) => unit.checked_mul(n as u64),
            None => None,
        };
        if bytes.is_none_or(|b| b > GROWTH_LIMIT_BYTES) {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "excessive repeat: the result would pass {} MiB",
                GROWTH_LIMIT_BYTES / 1024 / 1024
            )));
        }
    }
    if let (Some(x), Some(y)) = (int_bits(a), int_bits(b)) {
        check_int_bits(x + y, "integer product")?;
    }
    a.mul(b, heap)
}

/// `a % b`: the conversions measured before they are written, and `%s` of
/// a float printed as ytt's str() prints it.
fn guarded_percent<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
    if let Some(fmt) = a.unpack_str() {
        check_growth(heap, percent_bytes(fmt, b), "string formatting")?;
    }
    // `%s` of a float prints it as ytt's str() does.
    if let Some(fmt) = a.unpack_str() {
        let conversions = percent_conversions(fmt);
        if let Some(tuple) = TupleRef::from_value(b) {
            if conversions.contains(&'s') {
                let items: Vec<Value<'v>> = tuple
                    .iter()
                    .enumerate()
                    .map(|(i, v)| match conversions.get(i) {
                        Some('s') => float_as_str(v, heap),
                        _ => v,
                    })
                    .collect();
                return a.percent(heap.alloc(starlark::values::tuple::AllocTuple(items)), heap);
            }
        } else if conversions.as_slice() == ['s'] {
            return a.percent(float_as_str(b, heap), heap);
        }
    }
    a.percent(b, heap)
}

/// A float as ytt's `str()` prints it (a string); any other value as it is.
fn float_as_str<'v>(value: Value<'v>, heap: Heap<'v>) -> Value<'v> {
    match starlark::values::float::StarlarkFloat::unpack_value(value) {
        Ok(Some(f)) => heap.alloc(crate::modules::builtins::format_float(f.0)),
        _ => value,
    }
}

/// The conversion letters of a `%` format string, in order (`%%` none);
/// empty for one naming its arguments (`%(name)s`).
fn percent_conversions(fmt: &str) -> Vec<char> {
    let mut out = Vec::new();
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        match chars.next() {
            Some('%') => {}
            Some('(') => return Vec::new(),
            Some(letter) => out.push(letter),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn growth_is_measured_before_it_is_made() {
        assert_eq!(occurrences("abab", "ab", None), 2);
        assert_eq!(occurrences("abab", "ab", Some(1)), 1);
        assert_eq!(occurrences("abc", "", None), 4);
        starlark::environment::Module::with_temp_heap(|module| {
            let heap = module.heap();
            let s = heap.alloc("xyz");
            let bytes = format_bytes("{0}{0}{0}", &[s], &[]);
            assert!(bytes >= 9 + 9, "{bytes}");
            let comma = heap.alloc(",");
            assert!(str_method_bytes("a,b,c", "split", &[comma], heap) >= 3 * PIECE_BYTES);
            assert_eq!(str_method_bytes("abc", "upper", &[], heap), 0);
        });
    }
}
