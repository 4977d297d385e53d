//! Repairs of a validations annotation that is not JSON for a comma only:
//! a trailing comma before `]` or `}`, or none between two rules (`}` then
//! `{`). Each repair is made and the text parsed again, so a repair is
//! offered only when the text with all of them is JSON.

use super::json;

/// One comma to repair, at an offset of the original text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Comma {
    /// The offset of a comma to delete.
    Trailing(usize),
    /// The offset (just after a `}`) where a comma is missing.
    Missing(usize),
}

/// More repairs than this in one annotation are no slip of the pen.
const MAX_REPAIRS: usize = 32;

/// The commas whose repair makes `text` JSON, in order; None when the text
/// is JSON already or has any other error.
pub(super) fn commas(text: &str) -> Option<Vec<Comma>> {
    let mut repaired = text.to_string();
    let mut repairs = Vec::new();
    // The parse is the same up to a repair, so each error lies after the
    // repairs before it; `shift` maps offsets back to the original text.
    let mut shift: isize = 0;
    loop {
        let error = match json::parse(&repaired) {
            Ok(_) => return (!repairs.is_empty()).then_some(repairs),
            Err(error) => error,
        };
        if repairs.len() == MAX_REPAIRS {
            return None;
        }
        let bytes = repaired.as_bytes();
        let at = *bytes.get(error.off)?;
        let before = bytes[..error.off]
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))?;
        let original = |off: usize| off.checked_add_signed(-shift);
        match (bytes[before], at) {
            (b',', b']' | b'}') => {
                repairs.push(Comma::Trailing(original(before)?));
                repaired.remove(before);
                shift -= 1;
            }
            (b'}', b'{') => {
                repairs.push(Comma::Missing(original(before + 1)?));
                repaired.insert(before + 1, ',');
                shift += 1;
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_and_missing_commas_are_found_in_the_original_text() {
        let text = "[\n  {\"a\": 1,},\n  {\"b\": 2}\n  {\"c\": [3,]},\n]";
        let found = commas(text).unwrap();
        let trailing = |s: &str| Comma::Trailing(text.find(s).unwrap() + s.len() - 2);
        assert_eq!(
            found,
            vec![
                trailing("1,}"),
                Comma::Missing(text.find("2}").unwrap() + 2),
                trailing("3,]"),
                Comma::Trailing(text.rfind(',').unwrap()),
            ]
        );
    }

    #[test]
    fn other_errors_get_no_repair() {
        assert_eq!(commas("[{\"a\": 1}]"), None, "JSON already");
        assert_eq!(commas("[{\"a\": 1},,]"), None, "two commas");
        assert_eq!(commas("[{\"a\": 1},]x"), None, "another error after");
        assert_eq!(commas("[{\"a\": 1 \"b\": 2}]"), None, "between members");
        assert_eq!(commas("{\"a\": {} {}}"), None, "not between rules");
        assert_eq!(commas("[{\"a\": 1},"), None, "cut short");
    }
}
