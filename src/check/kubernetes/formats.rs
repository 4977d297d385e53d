//! The string formats Kubernetes decodes itself: quantities
//! (`resource.Quantity`) and base64 bytes (`format: byte`). Each says why a
//! string is not one, in the words Kubernetes uses, or nothing when it is.

/// Why `text` is not a quantity (`500m`, `1Gi`, `1e3`), as apimachinery's
/// `ParseQuantity` says it; `None` when it is one.
pub fn quantity_error(text: &str) -> Option<&'static str> {
    const FORMAT: &str = "quantities must match the regular expression \
                          '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    let bytes = text.as_bytes();
    if bytes.is_empty() {
        return Some(FORMAT);
    }
    let digits_from = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        at
    };
    let mut at = usize::from(matches!(bytes[0], b'+' | b'-'));
    let number_start = at;
    at = digits_from(at);
    if bytes.get(at) == Some(&b'.') {
        at = digits_from(at + 1);
    }
    let number = &text[number_start..at];
    let suffix_start = at;
    while bytes.get(at).is_some_and(|b| b"eEinumkKMGTP".contains(b)) {
        at += 1;
    }
    if matches!(bytes.get(at), Some(b'+' | b'-')) {
        at += 1;
    }
    if digits_from(at) != bytes.len() {
        return Some(FORMAT);
    }
    let suffix = &text[suffix_start..];
    let known = matches!(
        suffix,
        "" | "Ki"
            | "Mi"
            | "Gi"
            | "Ti"
            | "Pi"
            | "Ei"
            | "n"
            | "u"
            | "m"
            | "k"
            | "M"
            | "G"
            | "T"
            | "P"
            | "E"
    );
    let exponent =
        suffix.len() > 1 && suffix.starts_with(['e', 'E']) && suffix[1..].parse::<i64>().is_ok();
    if !known && !exponent {
        return Some("unable to parse quantity's suffix");
    }
    if !number.bytes().any(|b| b.is_ascii_digit()) {
        return Some("unable to parse quantity's numeric part");
    }
    None
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
        for good in [
            "0", "1", "500m", "1Gi", "1.5", ".5", "5.", "+1k", "-2", "1e3", "1E3", "2E", "1e-3",
            "100Mi", "0.1",
        ] {
            assert_eq!(quantity_error(good), None, "{good}");
        }
        for bad in ["", "1GB", "1 Gi", "abc", "1.2.3", "Gi", "1e", "1Ki2", "."] {
            assert!(quantity_error(bad).is_some(), "{bad}");
        }
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
