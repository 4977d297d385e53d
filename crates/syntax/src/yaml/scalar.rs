//! Scalar resolution as go-yaml v2 does it (YAML 1.1, what ytt and Kubernetes
//! use), and Go's float formatting.
//!
//! Plain scalars are resolved by go-yaml v2's `resolve.go` rules; quoted and
//! block scalars are strings unless an explicit tag says otherwise.
//! Timestamps are deliberately left as strings, as ytt does.

use crate::yaml::node::{ScalarStyle, ScalarValue};

/// The core tags go-yaml v2 can resolve to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CoreTag {
    Str,
    Int,
    Float,
    Bool,
    Null,
    /// `!!binary`, `!!timestamp`, `!!merge`, and any tag we do not resolve:
    /// the text is kept as a string.
    Other,
}

/// Map a tag as written (`!!str`, `!<tag:yaml.org,2002:str>`,
/// `tag:yaml.org,2002:str`, `!`) to the core tag it names.
fn core_tag(tag: &str) -> CoreTag {
    let suffix = tag
        .strip_prefix("!!")
        .or_else(|| tag.strip_prefix("tag:yaml.org,2002:"))
        .or_else(|| {
            tag.strip_prefix("!<tag:yaml.org,2002:")
                .and_then(|s| s.strip_suffix('>'))
        });
    match suffix {
        Some("str") => CoreTag::Str,
        Some("int") => CoreTag::Int,
        Some("float") => CoreTag::Float,
        Some("bool") => CoreTag::Bool,
        Some("null") => CoreTag::Null,
        _ if tag == "!" => CoreTag::Str,
        _ => CoreTag::Other,
    }
}

/// Resolve a scalar as go-yaml v2 does. A tag that does not fit the text
/// (`!!int abc`) resolves to the string; see [`resolve_tagged`] to detect it.
pub fn resolve(text: &str, style: ScalarStyle, tag: Option<&str>) -> ScalarValue {
    resolve_tagged(text, style, tag).unwrap_or_else(|_| ScalarValue::Str(text.to_string()))
}

/// Resolve a scalar as go-yaml v2 does, failing as go-yaml does when an
/// explicit core tag does not fit the text: ``cannot decode !!str `abc` as a !!int``.
pub fn resolve_tagged(
    text: &str,
    style: ScalarStyle,
    tag: Option<&str>,
) -> Result<ScalarValue, TagMismatch> {
    let wanted = match tag {
        Some(t) => core_tag(t),
        // Quoted and block scalars are not implicit: go-yaml gives them !!str.
        None if style != ScalarStyle::Plain => CoreTag::Str,
        None => return Ok(resolve_plain(text)),
    };
    match wanted {
        CoreTag::Str | CoreTag::Other => Ok(ScalarValue::Str(text.to_string())),
        CoreTag::Int | CoreTag::Float | CoreTag::Bool | CoreTag::Null => {
            let got = resolve_plain(text);
            let fits = matches!(
                (wanted, &got),
                (CoreTag::Int, ScalarValue::Int(_))
                    | (CoreTag::Float, ScalarValue::Float(_))
                    | (CoreTag::Bool, ScalarValue::Bool(_))
                    | (CoreTag::Null, ScalarValue::Null)
            );
            if fits {
                return Ok(got);
            }
            if let (CoreTag::Float, ScalarValue::Int(i)) = (wanted, &got) {
                return Ok(ScalarValue::Float(*i as f64));
            }
            let got_tag = match got {
                ScalarValue::Int(_) => CoreTag::Int,
                ScalarValue::Float(_) => CoreTag::Float,
                ScalarValue::Bool(_) => CoreTag::Bool,
                ScalarValue::Null => CoreTag::Null,
                ScalarValue::Str(_) => CoreTag::Str,
            };
            Err(TagMismatch {
                text: text.to_string(),
                resolved: got_tag.short(),
                wanted: wanted.short(),
            })
        }
    }
}

/// A scalar whose explicit core tag does not fit its text, in go-yaml's
/// words: ``cannot decode !!str `abc` as a !!int``.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagMismatch {
    pub text: String,
    /// The tag the text resolves to without one.
    pub resolved: &'static str,
    /// The tag written.
    pub wanted: &'static str,
}

impl std::fmt::Display for TagMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot decode {} `{}` as a {}",
            self.resolved, self.text, self.wanted
        )
    }
}

impl std::error::Error for TagMismatch {}

impl CoreTag {
    /// The tag's short form, as go-yaml's messages write it.
    fn short(self) -> &'static str {
        match self {
            CoreTag::Int => "!!int",
            CoreTag::Float => "!!float",
            CoreTag::Bool => "!!bool",
            CoreTag::Null => "!!null",
            _ => "!!str",
        }
    }
}

/// go-yaml v2's `resolveMap`: exact spellings of null, bools and special floats.
fn lookup(text: &str) -> Option<ScalarValue> {
    Some(match text {
        "" | "~" | "null" | "Null" | "NULL" => ScalarValue::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            ScalarValue::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            ScalarValue::Bool(false)
        }
        ".nan" | ".NaN" | ".NAN" => ScalarValue::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => ScalarValue::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => ScalarValue::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// Resolve a plain (untagged, unquoted) scalar.
fn resolve_plain(text: &str) -> ScalarValue {
    let Some(&first) = text.as_bytes().first() else {
        return ScalarValue::Null;
    };
    let hint = match first {
        b'+' | b'-' => 'S',
        b'0'..=b'9' => 'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => 'M',
        b'.' => '.',
        _ => return ScalarValue::Str(text.to_string()),
    };
    if let Some(v) = lookup(text) {
        return v;
    }
    match hint {
        '.' => {
            if let Some(f) = go_parse_float(text) {
                return ScalarValue::Float(f);
            }
        }
        'D' | 'S' => {
            let plain: String = text.chars().filter(|&c| c != '_').collect();
            if let Some(i) = go_parse_int(&plain) {
                return ScalarValue::Int(i);
            }
            if let Some(u) = go_parse_uint(&plain) {
                // Above i64::MAX: go-yaml gives a uint64; we keep it as a float.
                return ScalarValue::Float(u as f64);
            }
            if is_yaml_style_float(&plain)
                && let Some(f) = go_parse_float(&plain)
            {
                return ScalarValue::Float(f);
            }
            let binary = if let Some(rest) = plain.strip_prefix("0b") {
                parse_radix_signed(rest, 2)
            } else if let Some(rest) = plain.strip_prefix("-0b") {
                parse_radix_signed(&format!("-{rest}"), 2)
            } else {
                None
            };
            if let Some(i) = binary {
                return ScalarValue::Int(i);
            }
        }
        _ => {}
    }
    ScalarValue::Str(text.to_string())
}

/// Go's `strconv.ParseInt(s, base, 64)` for an explicit base: optional sign,
/// then digits of that base only.
fn parse_radix_signed(s: &str, radix: u32) -> Option<i64> {
    let (neg, digits) = split_sign(s);
    let magnitude = parse_radix_unsigned(digits, radix)?;
    if neg {
        if magnitude <= (i64::MAX as u64) + 1 {
            Some((magnitude as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(magnitude).ok()
    }
}

fn parse_radix_unsigned(digits: &str, radix: u32) -> Option<u64> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

fn split_sign(s: &str) -> (bool, &str) {
    if let Some(rest) = s.strip_prefix('-') {
        (true, rest)
    } else if let Some(rest) = s.strip_prefix('+') {
        (false, rest)
    } else {
        (false, s)
    }
}

/// Base detection of Go's base-0 parsing: `0x`, `0o`, `0b` prefixes, a
/// leading `0` for octal, else decimal.
fn split_base(s: &str) -> (u32, &str) {
    let b = s.as_bytes();
    if b.len() >= 2 && b[0] == b'0' {
        match b[1] {
            b'x' | b'X' => return (16, &s[2..]),
            b'o' | b'O' => return (8, &s[2..]),
            b'b' | b'B' => return (2, &s[2..]),
            _ => return (8, &s[1..]),
        }
    }
    (10, s)
}

/// Go's `strconv.ParseInt(s, 0, 64)` (underscores already removed).
fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, rest) = split_sign(s);
    let (radix, digits) = split_base(rest);
    let magnitude = parse_radix_unsigned(digits, radix)?;
    if neg {
        if magnitude <= (i64::MAX as u64) + 1 {
            Some((magnitude as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// Go's `strconv.ParseUint(s, 0, 64)`: no sign allowed.
fn go_parse_uint(s: &str) -> Option<u64> {
    if s.starts_with(['+', '-']) {
        return None;
    }
    let (radix, digits) = split_base(s);
    parse_radix_unsigned(digits, radix)
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if i < b.len() && b[i] == b'.' {
            i += 1;
            digits(&mut i);
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseFloat(s, 64)` for decimal input (the only form that
/// reaches it here): underscores only between digits, out of range fails.
fn go_parse_float(s: &str) -> Option<f64> {
    if s.contains('_') && !go_underscore_ok(s) {
        return None;
    }
    let cleaned: String = s.chars().filter(|&c| c != '_').collect();
    // Only decimal syntax: sign, digits, '.', exponent.
    let (_, body) = split_sign(&cleaned);
    let mut saw_digit = false;
    let mut saw_dot = false;
    let mut exp_at = None;
    for (i, c) in body.char_indices() {
        match c {
            '0'..='9' => saw_digit = true,
            '.' if !saw_dot => saw_dot = true,
            'e' | 'E' => {
                exp_at = Some(i);
                break;
            }
            _ => return None,
        }
    }
    if !saw_digit {
        return None;
    }
    if let Some(i) = exp_at {
        let exp = &body[i + 1..];
        let (_, exp_digits) = split_sign(exp);
        if exp_digits.is_empty() || !exp_digits.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
    }
    let f: f64 = cleaned.parse().ok()?;
    f.is_finite().then_some(f)
}

/// Go's `underscoreOK`: underscores only between digits.
fn go_underscore_ok(s: &str) -> bool {
    let (_, s) = split_sign(s);
    let mut saw = b'^';
    for &c in s.as_bytes() {
        if c.is_ascii_digit() {
            saw = b'0';
            continue;
        }
        if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
            continue;
        }
        if saw == b'_' {
            return false;
        }
        saw = b'!';
    }
    saw != b'_'
}

/// True for what ytt's `--strict` rejects as ambiguous: a plain scalar that
/// resolves to a boolean but is not spelled `true` or `false` (`yes`, `On`,
/// `n`, `True`, ...), as in ytt's "Found 'yes' ambigious (could be !!str or !!bool)".
pub fn is_ambiguous_for_strict(text: &str, style: ScalarStyle) -> bool {
    style == ScalarStyle::Plain
        && matches!(lookup(text), Some(ScalarValue::Bool(_)))
        && text != "true"
        && text != "false"
}

#[cfg(test)]
mod tests {
    use super::*;
    use ScalarStyle::*;

    fn plain(text: &str) -> ScalarValue {
        resolve(text, Plain, None)
    }

    fn s(text: &str) -> ScalarValue {
        ScalarValue::Str(text.into())
    }

    #[test]
    fn null_spellings() {
        for t in ["", "~", "null", "Null", "NULL"] {
            assert_eq!(plain(t), ScalarValue::Null, "{t:?}");
        }
        for t in ["nULL", "nil", "None"] {
            assert_eq!(plain(t), s(t), "{t:?}");
        }
    }

    #[test]
    fn yaml_1_1_bools() {
        for t in [
            "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON",
        ] {
            assert_eq!(plain(t), ScalarValue::Bool(true), "{t:?}");
        }
        for t in [
            "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF",
        ] {
            assert_eq!(plain(t), ScalarValue::Bool(false), "{t:?}");
        }
        for t in ["yEs", "tRUE", "oN", "nO", "t", "f"] {
            assert_eq!(plain(t), s(t), "{t:?}");
        }
    }

    #[test]
    fn special_floats() {
        for t in [".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"] {
            assert_eq!(plain(t), ScalarValue::Float(f64::INFINITY), "{t:?}");
        }
        for t in ["-.inf", "-.Inf", "-.INF"] {
            assert_eq!(plain(t), ScalarValue::Float(f64::NEG_INFINITY), "{t:?}");
        }
        for t in [".nan", ".NaN", ".NAN"] {
            assert!(
                matches!(plain(t), ScalarValue::Float(f) if f.is_nan()),
                "{t:?}"
            );
        }
        assert_eq!(plain(".iNf"), s(".iNf"));
        assert_eq!(plain("inf"), s("inf"));
        assert_eq!(plain("NaN"), s("NaN"));
    }

    #[test]
    fn integers_as_go_parse_int_base_0() {
        let cases: &[(&str, i64)] = &[
            ("0", 0),
            ("42", 42),
            ("-42", -42),
            ("+42", 42),
            ("1_000", 1000),
            ("0x1F", 31),
            ("0X1f", 31),
            ("-0x10", -16),
            ("0o17", 15),
            ("0O17", 15),
            ("0b101", 5),
            ("0B101", 5),
            ("-0b101", -5),
            ("0755", 493),
            ("-0755", -493),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
            ("0b-1", -1),
        ];
        for (t, want) in cases {
            assert_eq!(plain(t), ScalarValue::Int(*want), "{t:?}");
        }
    }

    #[test]
    fn numbers_that_become_floats() {
        let cases: &[(&str, f64)] = &[
            ("08", 8.0),
            ("09.5", 9.5),
            ("1e3", 1000.0),
            ("1E3", 1000.0),
            ("1.", 1.0),
            ("1.5", 1.5),
            ("-1.5", -1.5),
            ("+1.5e-2", 0.015),
            ("1_000.5", 1000.5),
            ("-.5", -0.5),
            (".5", 0.5),
            (".5e1", 5.0),
            ("9223372036854775808", 9223372036854775808.0),
            ("18446744073709551615", 18446744073709551615.0),
        ];
        for (t, want) in cases {
            assert_eq!(plain(t), ScalarValue::Float(*want), "{t:?}");
        }
    }

    #[test]
    fn other_plain_scalars_are_strings() {
        for t in [
            "2024-01-01",
            "12:30",
            "1.2.3",
            "0x",
            "0xZZ",
            "1e400",
            "abc",
            "<<",
            "-",
            "+",
            ".",
            ".e5",
            "._5",
            "1e",
            "3 apples",
            "0b2",
            "0o8",
        ] {
            assert_eq!(plain(t), s(t), "{t:?}");
        }
        // Below i64::MIN: not an int, not a uint; the float regex matches.
        assert_eq!(
            plain("-9223372036854775809"),
            ScalarValue::Float(-9223372036854775809.0)
        );
    }

    #[test]
    fn quoted_and_block_scalars_are_strings() {
        for style in [SingleQuoted, DoubleQuoted, Literal, Folded] {
            for t in ["3", "yes", "null", "", "1.5", ".inf"] {
                assert_eq!(resolve(t, style, None), s(t), "{t:?} {style:?}");
            }
        }
    }

    #[test]
    fn explicit_tags_win() {
        assert_eq!(
            resolve("3", DoubleQuoted, Some("!!int")),
            ScalarValue::Int(3)
        );
        assert_eq!(resolve("3", Plain, Some("!!str")), s("3"));
        assert_eq!(resolve("yes", Plain, Some("!!str")), s("yes"));
        assert_eq!(
            resolve("3", Plain, Some("!!float")),
            ScalarValue::Float(3.0)
        );
        assert_eq!(
            resolve("2.5", SingleQuoted, Some("!!float")),
            ScalarValue::Float(2.5)
        );
        assert_eq!(
            resolve("yes", DoubleQuoted, Some("!!bool")),
            ScalarValue::Bool(true)
        );
        assert_eq!(resolve("", DoubleQuoted, Some("!!null")), ScalarValue::Null);
        assert_eq!(resolve("~", Plain, Some("!!null")), ScalarValue::Null);
        assert_eq!(resolve("3", Plain, Some("tag:yaml.org,2002:str")), s("3"));
        assert_eq!(
            resolve("3", Plain, Some("!<tag:yaml.org,2002:str>")),
            s("3")
        );
        assert_eq!(resolve("3", Plain, Some("!")), s("3"));
        assert_eq!(resolve("3", Plain, Some("!custom")), s("3"));
        assert_eq!(resolve("aGk=", Plain, Some("!!binary")), s("aGk="));
        // A tag that does not fit: go-yaml's error, and a string for `resolve`.
        let message = |text| {
            resolve_tagged(text, Plain, Some("!!int"))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(message("abc"), "cannot decode !!str `abc` as a !!int");
        assert_eq!(message("1.5"), "cannot decode !!float `1.5` as a !!int");
        assert_eq!(resolve("abc", Plain, Some("!!int")), s("abc"));
    }

    #[test]
    fn strict_mode_ambiguity() {
        for t in ["yes", "Yes", "NO", "on", "Off", "y", "N", "True", "FALSE"] {
            assert!(is_ambiguous_for_strict(t, Plain), "{t:?}");
        }
        for t in ["true", "false", "null", "~", "1", "hello"] {
            assert!(!is_ambiguous_for_strict(t, Plain), "{t:?}");
        }
        assert!(!is_ambiguous_for_strict("yes", DoubleQuoted));
    }
}
