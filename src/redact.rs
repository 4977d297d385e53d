//! Values read from the environment are never shown as their text.
//!
//! CI jobs keep secrets in the environment, and `--data-values-env PREFIX`
//! turns every variable starting with `PREFIX_` into a data value, which a
//! validation message may then quote ("must be one of [...], found ..."),
//! in a report that code scanning publishes. Each variable a run read is
//! named instead: `the value of MY_TOKEN`. The text is replaced as written
//! and as messages quote it (escaped, or cut short with `...`); the flag's
//! pseudo file shows masked text, see `check::ytt::flags`.

use crate::finding::Finding;

/// Fewer characters than this are replaced only as a whole word: `1` or
/// `true` from the environment must not turn every `1` of a message into
/// a variable's name, and so short a value is no secret.
const SHORT: usize = 6;
/// A quoted prefix of a value cut short (`ghp_abcdefgh...`) is replaced from
/// this length on.
const CUT_PREFIX: usize = 8;

/// The environment variables a run read into data values.
#[derive(Debug, Clone, Default)]
pub struct EnvironmentValues {
    /// (what a message shows instead, forms of the value as messages
    /// write it), longest values first so that no shorter value replaces
    /// part of a longer one.
    values: Vec<(String, Vec<String>)>,
}

impl EnvironmentValues {
    /// The variables a run read (name, value), as the data-value flags
    /// select them.
    pub fn new<'a>(read: impl IntoIterator<Item = &'a (String, String)>) -> EnvironmentValues {
        let mut values: Vec<(String, Vec<String>)> = read
            .into_iter()
            .filter(|(_, value)| !value.trim().is_empty())
            .map(|(name, value)| (format!("the value of {name}"), forms(value)))
            .collect();
        // Longest first; a variable read by two flags once.
        values.sort_by(|(a, fa), (b, fb)| fb[0].len().cmp(&fa[0].len()).then(a.cmp(b)));
        values.dedup();
        EnvironmentValues { values }
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `text` with every value replaced by the name of its variable.
    pub fn scrub(&self, text: &str) -> String {
        let mut text = text.to_string();
        for (shown, forms) in &self.values {
            for form in forms {
                text = replace(&text, form, shown);
            }
            // A long value cut short in a message.
            let value = &forms[0];
            if value.chars().count() > CUT_PREFIX {
                for ellipsis in ["...", "…"] {
                    text = replace_cut(&text, value, ellipsis, shown);
                }
            }
        }
        text
    }

    /// Every text of `finding` scrubbed.
    pub fn scrub_finding(&self, finding: &mut Finding) {
        if self.values.is_empty() {
            return;
        }
        finding.message = self.scrub(&finding.message);
        for text in [&mut finding.label, &mut finding.path, &mut finding.help]
            .into_iter()
            .flatten()
        {
            *text = self.scrub(text);
        }
        for related in &mut finding.related {
            related.message = self.scrub(&related.message);
        }
    }
}

/// The value as written, and as messages quote it: escaped as JSON,
/// Starlark and Go write strings (`\n`, `\"`, `\x00`, `\u0000`).
fn forms(value: &str) -> Vec<String> {
    let mut forms = vec![value.to_string()];
    // Both always write a quoted string.
    let json = serde_json::to_string(value).unwrap_or_default();
    let json = json
        .get(1..json.len().saturating_sub(1))
        .unwrap_or("")
        .to_string();
    let hex: String = json
        .split("\\u00")
        .enumerate()
        .map(|(i, piece)| match i {
            0 => piece.to_string(),
            _ => format!("\\x{piece}"),
        })
        .collect();
    let debug = format!("{value:?}");
    let debug = debug
        .get(1..debug.len().saturating_sub(1))
        .unwrap_or("")
        .to_string();
    for form in [json, hex, debug] {
        if !forms.contains(&form) {
            forms.push(form);
        }
    }
    forms
}

/// `text` with `value` replaced; a short value only where it stands as a
/// word of its own.
fn replace(text: &str, value: &str, shown: &str) -> String {
    if value.is_empty() || !text.contains(value) {
        return text.to_string();
    }
    if value.chars().count() >= SHORT {
        return text.replace(value, shown);
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '.';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut before: Option<char> = None;
    while let Some(at) = rest.find(value) {
        let (head, tail) = rest.split_at(at);
        let after = tail[value.len()..].chars().next();
        let prev = head.chars().next_back().or(before);
        out.push_str(head);
        if prev.is_some_and(is_word) || after.is_some_and(is_word) {
            out.push_str(value);
        } else {
            out.push_str(shown);
        }
        before = value.chars().next_back();
        rest = &tail[value.len()..];
    }
    out.push_str(rest);
    out
}

/// `text` with each prefix of `value` (of [`CUT_PREFIX`] characters or
/// more) that is followed by `ellipsis` replaced, ellipsis included.
fn replace_cut(text: &str, value: &str, ellipsis: &str, shown: &str) -> String {
    let start: String = value.chars().take(CUT_PREFIX).collect();
    if !text.contains(&start) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&start) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        // The longest prefix of the value that the text holds here.
        let mut end = 0;
        for (offset, c) in value.char_indices() {
            if tail[offset..].starts_with(c) {
                end = offset + c.len_utf8();
            } else {
                break;
            }
        }
        if tail[end..].starts_with(ellipsis) {
            out.push_str(shown);
            rest = &tail[end + ellipsis.len()..];
        } else {
            out.push_str(&tail[..start.len()]);
            rest = &tail[start.len()..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(env: &[(&str, &str)], prefixes: &[&str]) -> EnvironmentValues {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let read: Vec<&(String, String)> = prefixes
            .iter()
            .flat_map(|p| crate::check::ytt::flags::env_vars_read(p, &env))
            .collect();
        EnvironmentValues::new(read)
    }

    #[test]
    fn a_value_read_is_named_not_shown() {
        let values = read(
            &[
                ("MY_TOKEN", "ghp_s3cr3t_value"),
                ("OTHER", "ghp_s3cr3t_value2"),
            ],
            &["MY"],
        );
        assert_eq!(
            values.scrub("token must be one of [\"a\"], found \"ghp_s3cr3t_value\""),
            "token must be one of [\"a\"], found \"the value of MY_TOKEN\""
        );
        // A variable no prefix read is not the run's business.
        assert!(read(&[("OTHER_X", "abcdefgh")], &["MY"]).is_empty());
        // A library's prefix reads the same variables.
        assert!(!read(&[("MY_X", "abcdefgh")], &["@lib:MY"]).is_empty());
    }

    #[test]
    fn escaped_and_cut_short_forms_are_replaced() {
        let values = read(&[("MY_T", "line one\n\"two\"\0three-is-long")], &["MY"]);
        let escaped = "found \"line one\\n\\\"two\\\"\\x00three-is-long\"";
        assert_eq!(values.scrub(escaped), "found \"the value of MY_T\"");
        let json = "found \"line one\\n\\\"two\\\"\\u0000three-is-long\"";
        assert_eq!(values.scrub(json), "found \"the value of MY_T\"");
        let cut = "expected int, found line one\n\"tw...";
        assert_eq!(values.scrub(cut), "expected int, found the value of MY_T");
    }

    #[test]
    fn a_short_value_is_replaced_only_as_a_word() {
        let values = read(&[("MY_PORT", "80")], &["MY"]);
        assert_eq!(
            values.scrub("port 80 is below 1080"),
            "port the value of MY_PORT is below 1080"
        );
    }
}
