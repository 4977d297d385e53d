//! Would a string read back as something else when written plain? The
//! encoder (`encode.go`: `stringv`) asks go-yaml's `resolve("", s)`, which
//! unlike ytt's decoding also recognises timestamps, and additionally quotes
//! YAML 1.1 base-60 floats for other parsers' sake.

use crate::yaml::ScalarStyle;
use crate::yaml::ScalarValue;
use crate::yaml::scalar::resolve;

/// True when `s` must be quoted to stay a string: go-yaml's resolver gives it
/// another tag (null, bool, int, float, timestamp), or it is a base-60 float.
pub(super) fn needs_quotes(s: &str) -> bool {
    let numeric_hint = s.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '-');
    // `resolve` tries timestamps only on the digit/sign hint, before numbers.
    (numeric_hint && is_timestamp(s))
        || !matches!(resolve(s, ScalarStyle::Plain, None), ScalarValue::Str(_))
        || is_base60_float(s)
}

/// `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        // `[0-5]?[0-9]`: two digits when the first is 0-5 and a digit
        // follows; a lone digit otherwise. Taking one digit where two fit
        // never helps, as a digit could not follow.
        match (b.get(i), b.get(i + 1)) {
            (Some(b'0'..=b'5'), Some(b'0'..=b'9')) => i += 2,
            (Some(b'0'..=b'9'), _) => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// go-yaml's `parseTimestamp`: four digits and a `-`, then any of its
/// layouts as Go's `time.Parse` reads them.
fn is_timestamp(s: &str) -> bool {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits != 4 || s.as_bytes().get(4) != Some(&b'-') {
        return false;
    }
    LAYOUTS.iter().any(|layout| parses(layout, s.as_bytes()))
}

/// The pieces of a Go time layout that go-yaml's layouts use.
#[derive(Clone, Copy)]
enum Chunk {
    Lit(&'static str),
    /// `2006`
    LongYear,
    /// `1`
    NumMonth,
    /// `2`
    Day,
    /// `15`
    Hour,
    /// `4`
    Minute,
    /// `5`
    Second,
    /// `.999999999`
    FracSecond9,
    /// `Z07:00`
    Iso8601ColonTz,
}

use Chunk::*;

/// `allowedTimestampFormats`, chunked as Go's `nextStdChunk` does.
const LAYOUTS: [&[Chunk]; 4] = [
    // "2006-1-2T15:4:5.999999999Z07:00"
    &[
        LongYear,
        Lit("-"),
        NumMonth,
        Lit("-"),
        Day,
        Lit("T"),
        Hour,
        Lit(":"),
        Minute,
        Lit(":"),
        Second,
        FracSecond9,
        Iso8601ColonTz,
    ],
    // "2006-1-2t15:4:5.999999999Z07:00"
    &[
        LongYear,
        Lit("-"),
        NumMonth,
        Lit("-"),
        Day,
        Lit("t"),
        Hour,
        Lit(":"),
        Minute,
        Lit(":"),
        Second,
        FracSecond9,
        Iso8601ColonTz,
    ],
    // "2006-1-2 15:4:5.999999999"
    &[
        LongYear,
        Lit("-"),
        NumMonth,
        Lit("-"),
        Day,
        Lit(" "),
        Hour,
        Lit(":"),
        Minute,
        Lit(":"),
        Second,
        FracSecond9,
    ],
    // "2006-1-2"
    &[LongYear, Lit("-"), NumMonth, Lit("-"), Day],
];

/// Go's `time.Parse(layout, value)` succeeding, for the chunks above.
fn parses(layout: &[Chunk], value: &[u8]) -> bool {
    let mut v = value;
    let (mut year, mut month, mut day) = (0u32, 0u32, 0u32);
    for chunk in layout {
        let ok = match *chunk {
            Lit(prefix) => skip(&mut v, prefix.as_bytes()),
            LongYear => {
                if v.len() < 4 || !v[..4].iter().all(u8::is_ascii_digit) {
                    return false;
                }
                year = v[..4].iter().fold(0, |n, d| n * 10 + u32::from(d - b'0'));
                v = &v[4..];
                true
            }
            NumMonth => getnum(&mut v, false).is_some_and(|m| {
                month = m;
                (1..=12).contains(&m)
            }),
            // Any one or two digits; the date is checked at the end.
            Day => getnum(&mut v, false).is_some_and(|d| {
                day = d;
                true
            }),
            Hour => getnum(&mut v, false).is_some_and(|h| h < 24),
            Minute | Second => getnum(&mut v, false).is_some_and(|m| m < 60),
            FracSecond9 => {
                // Optional: `.` or `,` and at least one digit, then any digits.
                if v.len() >= 2 && matches!(v[0], b'.' | b',') && v[1].is_ascii_digit() {
                    let n = 1 + v[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                    v = &v[n..];
                }
                true
            }
            Iso8601ColonTz => zone(&mut v),
        };
        if !ok {
            return false;
        }
    }
    v.is_empty() && day >= 1 && day <= days_in(month, year)
}

/// Go's `skip`: a space in the layout matches any run of spaces.
fn skip(value: &mut &[u8], prefix: &[u8]) -> bool {
    let mut p = prefix;
    while let Some(&c) = p.first() {
        if c == b' ' {
            if value.first().is_some_and(|&v| v != b' ') {
                return false;
            }
            p = trim_spaces(p);
            *value = trim_spaces(value);
            continue;
        }
        if value.first() != Some(&c) {
            return false;
        }
        p = &p[1..];
        *value = &value[1..];
    }
    true
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&c| c == b' ').count();
    &s[n..]
}

/// Go's `getnum`: one or two digits (exactly two when `fixed`).
fn getnum(value: &mut &[u8], fixed: bool) -> Option<u32> {
    let v = *value;
    let first = v.first().filter(|c| c.is_ascii_digit())?;
    let first = u32::from(first - b'0');
    match v.get(1).filter(|c| c.is_ascii_digit()) {
        Some(second) => {
            *value = &v[2..];
            Some(first * 10 + u32::from(second - b'0'))
        }
        None if fixed => None,
        None => {
            *value = &v[1..];
            Some(first)
        }
    }
}

/// `Z07:00`: `Z`, or `±hh:mm` with hours up to 24 and minutes up to 60 (Go
/// accepts those bounds for offsets).
fn zone(value: &mut &[u8]) -> bool {
    let v = *value;
    if v.first() == Some(&b'Z') {
        *value = &v[1..];
        return true;
    }
    if v.len() < 6 || v[3] != b':' {
        return false;
    }
    let (Some(hours), Some(minutes)) = (getnum(&mut &v[1..3], true), getnum(&mut &v[4..6], true))
    else {
        return false;
    };
    *value = &v[6..];
    hours <= 24 && minutes <= 60 && matches!(v[0], b'+' | b'-')
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_as_go_parses_them() {
        for s in [
            "2024-01-01",
            "2024-1-5",
            "2024-02-29",
            "2001-12-14t21:59:43.10-05:00",
            "2001-12-14T21:59:43Z",
            "2001-12-14 21:59:43.10",
            "2001-12-14 21:59:43,10",
            "2024-01-01   1:2:3",
            "2024-01-01T10:00:00.123456789123Z",
            "2024-01-01T10:00:00-24:00",
        ] {
            assert!(is_timestamp(s), "{s:?}");
        }
        for s in [
            "2024-13-01",
            "2024-02-30",
            "2023-02-29",
            "2024-01-01T10:00:00",
            "2024-01-01T10:00:00+0500",
            "2024-01-01T25:00:00Z",
            "2024-01-01T10:00:00+25:00",
            "2024-01-01T10:00:00+05:61",
            "2024-01-01 10:00:00Z",
            "2024-01-01T10:00:00.Z",
            "02024-01-01",
            "2024-01-011",
        ] {
            assert!(!is_timestamp(s), "{s:?}");
        }
    }

    #[test]
    fn base60_floats() {
        for s in ["12:30", "190:20:30", "-1:30", "+1:5", "1_0:30.5_"] {
            assert!(is_base60_float(s), "{s:?}");
        }
        for s in ["1:60", "1:", ":30", "a1:30", "1:30:", "1:2x", "12"] {
            assert!(!is_base60_float(s), "{s:?}");
        }
    }
}
