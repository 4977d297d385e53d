//! The encoder's half (`encode.go`): a typed scalar becomes the text and
//! requested style the emitter gets. Only the resolved value counts; how the
//! scalar was written in the input does not, as ytt re-emits typed values.

use super::analyze::ScalarEvent;
use crate::yaml::{Scalar, ScalarStyle, ScalarValue};

pub(super) fn scalar_event(scalar: &Scalar) -> ScalarEvent {
    match &scalar.resolved {
        ScalarValue::Null => ScalarEvent::plain("null".into()),
        ScalarValue::Bool(b) => ScalarEvent::plain(b.to_string()),
        ScalarValue::Int(i) => ScalarEvent::plain(i.to_string()),
        ScalarValue::Float(f) => ScalarEvent::plain(
            parsed_uint(scalar, *f).map_or_else(|| format_float(*f), |u| u.to_string()),
        ),
        ScalarValue::Str(s) => ScalarEvent::string(s),
    }
}

/// `floatv`: Go's shortest `%g`, with YAML's spellings of the specials.
fn format_float(f: f64) -> String {
    if f.is_nan() {
        ".nan".into()
    } else if f.is_infinite() {
        if f > 0.0 { ".inf" } else { "-.inf" }.into()
    } else {
        crate::yaml::float::format_float(f)
    }
}

/// go-yaml decodes a plain integer above `i64::MAX` as a `uint64` and prints
/// it back as an integer; confvet's tree keeps it as a float. Recover the
/// integer from the scalar's own text when that text is the plain literal
/// the float came from (nodes built from values carry no such text).
fn parsed_uint(scalar: &Scalar, f: f64) -> Option<u64> {
    if f < 9_223_372_036_854_775_808.0 || scalar.style != ScalarStyle::Plain || scalar.tag.is_some()
    {
        return None;
    }
    let plain: String = scalar.text.chars().filter(|&c| c != '_').collect();
    // `strconv.ParseUint(plain, 0, 64)`: no sign, base from the prefix.
    let b = plain.as_bytes();
    let (radix, digits) = match b {
        [b'0', b'x' | b'X', ..] => (16, &plain[2..]),
        [b'0', b'o' | b'O', ..] => (8, &plain[2..]),
        [b'0', b'b' | b'B', ..] => (2, &plain[2..]),
        [b'0', _, ..] => (8, &plain[1..]),
        _ => (10, plain.as_str()),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let u = u64::from_str_radix(digits, radix).ok()?;
    (u as f64 == f).then_some(u)
}
