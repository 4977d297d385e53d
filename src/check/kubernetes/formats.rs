//! The string formats Kubernetes decodes itself: quantities
//! (`resource.Quantity`) and base64 bytes (`format: byte`). Each says why a
//! string is not one, in words that name what is wrong, or nothing when it
//! is.

/// The pattern controller-gen writes on every `resource.Quantity` of a
/// custom resource (with `x-kubernetes-int-or-string`); the API server
/// matches a string against it.
pub const QUANTITY_PATTERN: &str = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// The units a quantity may end in, as messages list them.
const UNITS: &str = "Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E or an exponent such as e3";

/// Which reading of a quantity decides whether a string is one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuantityReading {
    /// apimachinery's `ParseQuantity`, as a built-in kind's field is
    /// decoded (blanks around the value trimmed first).
    Decoded,
    /// [`QUANTITY_PATTERN`], as the API server validates a custom
    /// resource's quantity.
    Pattern,
}

/// Why `text` is not a quantity (`500m`, `1Gi`, `1e3`) under `reading`,
/// in words: `unit "MB" is not one of Ki, Mi, ...`; `None` when it is one.
pub fn quantity_problem(text: &str, reading: QuantityReading) -> Option<String> {
    let text = match reading {
        QuantityReading::Decoded => text.trim(),
        QuantityReading::Pattern => text,
    };
    if text.is_empty() {
        return Some("it is empty".to_string());
    }
    let (number, unit) = split_number(text);
    let has_digit = number.bytes().any(|b| b.is_ascii_digit());
    let unit_is_known = match reading {
        QuantityReading::Decoded => decoded_unit(unit),
        QuantityReading::Pattern => pattern_unit(unit),
    };
    // apimachinery reads a missing number as 0 (`Gi`, `.`), the pattern
    // wants a digit.
    if unit_is_known && (has_digit || reading == QuantityReading::Decoded) {
        return None;
    }
    Some(if !has_digit && unit_is_known && !unit.is_empty() {
        format!("it has no number before its unit {unit:?}")
    } else if !has_digit {
        "it does not start with a number".to_string()
    } else if unit.starts_with(|c: char| c.is_ascii_alphabetic()) {
        format!("unit {unit:?} is not one of {UNITS}")
    } else {
        format!("{unit:?} after the number is not a unit ({UNITS})")
    })
}

/// A quantity's number (sign, digits, a point and digits) and the rest.
fn split_number(text: &str) -> (&str, &str) {
    let bytes = text.as_bytes();
    let digits_from = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        at
    };
    let mut at = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    at = digits_from(at);
    if bytes.get(at) == Some(&b'.') {
        at = digits_from(at + 1);
    }
    text.split_at(at)
}

/// Whether apimachinery reads `unit` as a suffix: a decimal or binary SI
/// A quantity's suffixes: none, the binary and the decimal SI ones.
const SUFFIXES: [&str; 16] = [
    "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E",
];

/// prefix, or `e`/`E` and an integer exponent.
fn decoded_unit(unit: &str) -> bool {
    let prefix = SUFFIXES.contains(&unit);
    let exponent =
        unit.len() > 1 && unit.starts_with(['e', 'E']) && unit[1..].parse::<i64>().is_ok();
    prefix || exponent
}

/// Whether [`QUANTITY_PATTERN`] takes `unit` after a number.
fn pattern_unit(unit: &str) -> bool {
    if SUFFIXES.contains(&unit) {
        return true;
    }
    let Some(exponent) = unit.strip_prefix(['e', 'E']) else {
        return false;
    };
    let (number, rest) = split_number(exponent);
    rest.is_empty() && number.bytes().any(|b| b.is_ascii_digit())
}

/// The byte offset where `text` stops being base64 as Go's
/// `base64.StdEncoding` reads it (padding required, line breaks ignored);
/// `None` when it all is.
pub fn base64_error(text: &str) -> Option<usize> {
    let is_symbol = |b: u8| b.is_ascii_alphanumeric() || b == b'+' || b == b'/';
    let mut symbols = 0usize;
    let mut padding = 0usize;
    for (at, b) in text.bytes().enumerate() {
        match b {
            b'\r' | b'\n' => {}
            b'=' if symbols % 4 >= 2 && padding < 2 => padding += 1,
            _ if is_symbol(b) && padding == 0 => symbols += 1,
            _ => return Some(at),
        }
    }
    (!(symbols + padding).is_multiple_of(4)).then_some(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_read_as_apimachinery_reads_them() {
        use QuantityReading::Decoded;
        for good in [
            "0", "1", "500m", "1Gi", "1.5", ".5", "5.", "+1k", "-2", "1e3", "1E3", "2E", "1e-3",
            "100Mi", "0.1", " 1Gi ", "Gi", ".",
        ] {
            assert_eq!(quantity_problem(good, Decoded), None, "{good}");
        }
        for bad in [
            "", "1GB", "1 Gi", "abc", "1.2.3", "1e", "1Ki2", "1K", "1e3.5",
        ] {
            assert!(quantity_problem(bad, Decoded).is_some(), "{bad}");
        }
    }

    #[test]
    fn the_pattern_reading_agrees_with_the_pattern() {
        let pattern = regex::Regex::new(QUANTITY_PATTERN).unwrap();
        for text in [
            "0", "1", "500m", "1Gi", "1.5", ".5", "5.", "+1k", "-2", "1e3", "1E3", "2E", "1e-3",
            "1e3.5", "1e.5", "100Mi", " 1Gi", "Gi", ".", "", "1GB", "1 Gi", "abc", "1.2.3", "1e",
            "1Ki2", "1K", "+", "-.5", "1e+", "1e+2", "1ee2", "512MB", "2gi", "1u", "1n", "1ki",
        ] {
            assert_eq!(
                quantity_problem(text, QuantityReading::Pattern).is_none(),
                pattern.is_match(text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_quantity_problem_says_what_is_wrong() {
        use QuantityReading::{Decoded, Pattern};
        let unit = |u: &str| format!("unit \"{u}\" is not one of {UNITS}");
        assert_eq!(quantity_problem("512MB", Decoded), Some(unit("MB")));
        assert_eq!(quantity_problem("512MB", Pattern), Some(unit("MB")));
        assert_eq!(quantity_problem("2gi", Pattern), Some(unit("gi")));
        assert_eq!(
            quantity_problem("1.2.3", Pattern),
            Some(format!("\".3\" after the number is not a unit ({UNITS})"))
        );
        assert_eq!(
            quantity_problem("Gi", Pattern).as_deref(),
            Some("it has no number before its unit \"Gi\"")
        );
        assert_eq!(
            quantity_problem("abc", Decoded).as_deref(),
            Some("it does not start with a number")
        );
    }

    #[test]
    fn base64_needs_padding_and_its_alphabet() {
        for good in ["", "aGVsbG8=", "aGVsbG8h", "aGk=\n", "YQ==", "aG\nVsbG8="] {
            assert_eq!(base64_error(good), None, "{good}");
        }
        assert_eq!(base64_error("hello!!!"), Some(5));
        assert_eq!(base64_error("aGVsbG8"), Some(7));
        assert_eq!(base64_error("YQ=a"), Some(3));
        assert_eq!(base64_error("Y==="), Some(1));
    }
}
