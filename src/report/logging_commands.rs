//! Azure Pipelines logging commands (`##vso[area.action key=value;…]message`):
//! how a value and a message are escaped in one, and how output that is not
//! one is kept from forming one where an Azure Pipelines agent reads it.
//!
//! The agent (`Command.TryParse` in microsoft/azure-pipelines-agent) reads
//! each line of a step's standard output and error, takes the first
//! `##vso[` *anywhere in the line* as a command, up to the first `]` after
//! it, splits the properties at `;` and each at its first `=`, and unescapes
//! every value and the message with one table (`CommandStringConvertor`):
//! `%3B` is `;`, `%0D` CR, `%0A` LF, `%5D` `]`, then `%AZP25` is `%` (unless
//! the job sets `DECODE_PERCENTS` to false). So a value is escaped with the
//! whole table and a message with `%`, CR and LF (as the task library's
//! `escapeData` does); `%` first, so that every `%` written starts one of
//! those escapes and unescaping gives back exactly the text.
//!
//! The agent finds `##vso[` with .NET's culture-sensitive `IndexOf`, which
//! passes over characters the collation ignores (a soft hyphen, a zero-width
//! space, a control character). [`neutralize`] therefore looks for `##vso[`
//! and the log's formatting commands (`##[group]`, `##[error]`) with such
//! characters skipped, `vso` in any case, and writes the first `#` of each
//! as the format writes a `#` that is no `#` to the agent: `\u{23}` in text,
//! `\u0023` in JSON, `&#35;` in XML and Markdown. Output written for people
//! and for programs to standard output goes through it when `TF_BUILD` is
//! `True` ([`WithoutLoggingCommands`]), as text under GitHub Actions is
//! wrapped in `::stop-commands::`: Azure has no such switch.

use super::model::{Emitter, Report};
use std::borrow::Cow;
use std::io::{self, Write};

/// A property value of a command: every character the agent reads as
/// syntax (`;` ends the value, `]` the properties, CR and LF the command)
/// escaped, `%` first.
pub(crate) fn escape_property(text: &str) -> String {
    escape_message(text).replace(';', "%3B").replace(']', "%5D")
}

/// A command's message: `%`, CR and LF escaped, `%` first.
pub(crate) fn escape_message(text: &str) -> String {
    text.replace('%', "%AZP25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// What the agent gives back for an escaped value or message (its
/// `CommandStringConvertor.Unescape`, percents decoded): for tests that
/// check nothing is lost.
#[cfg(test)]
pub(crate) fn unescape(text: &str) -> String {
    text.replace("%3B", ";")
        .replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%5D", "]")
        .replace("%AZP25", "%")
}

/// How a format writes a `#` that the agent does not read as one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InertHash {
    /// Text for people: `\u{23}`, as `escape` shows a hidden character.
    Text,
    /// A JSON string's escape: `\u0023` (`#` is only ever inside strings).
    Json,
    /// A character reference: `&#35;` (XML text and attributes, Markdown).
    Markup,
}

impl InertHash {
    fn written(self) -> &'static str {
        match self {
            InertHash::Text => "\\u{23}",
            InertHash::Json => "\\u0023",
            InertHash::Markup => "&#35;",
        }
    }
}

/// `text` with the first `#` of every `##vso[` and `##[` (see the file
/// header) written as `hash` says; borrowed when there is none.
pub(crate) fn neutralize(text: &str, hash: InertHash) -> Cow<'_, str> {
    let starts: Vec<usize> = text
        .match_indices('#')
        .map(|(at, _)| at)
        .filter(|&at| starts_command(&text[at..]))
        .collect();
    if starts.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut written = String::with_capacity(text.len() + 8 * starts.len());
    let mut copied = 0;
    for at in starts {
        written.push_str(&text[copied..at]);
        written.push_str(hash.written());
        copied = at + 1;
    }
    written.push_str(&text[copied..]);
    Cow::Owned(written)
}

/// Whether `text` starts with `##vso[` or `##[` as the agent compares: with
/// ignorable characters anywhere after the first `#`, `vso` in any case.
fn starts_command(text: &str) -> bool {
    let mut chars = text.chars().filter(|&c| !is_ignorable(c));
    if chars.next() != Some('#') || chars.next() != Some('#') {
        return false;
    }
    match chars.next() {
        Some('[') => true,
        Some('v' | 'V') => {
            matches!(chars.next(), Some('s' | 'S'))
                && matches!(chars.next(), Some('o' | 'O'))
                && chars.next() == Some('[')
        }
        _ => false,
    }
}

/// A character a culture-sensitive .NET comparison may pass over: a
/// control character (but the line breaks, which end the agent's line) or
/// a Unicode default-ignorable code point (DerivedCoreProperties.txt).
fn is_ignorable(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\r')
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'..='\u{1160}'
                | '\u{17B4}'..='\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF0}'..='\u{FFF8}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// Writes what another emitter writes with every `##vso[` and `##[` made
/// inert ([`neutralize`]): for standard output read by an Azure Pipelines
/// agent, which would run a command a linted file spells out anywhere in a
/// line of it.
pub(crate) struct WithoutLoggingCommands {
    pub inner: Box<dyn Emitter>,
    pub hash: InertHash,
}

impl Emitter for WithoutLoggingCommands {
    fn emit(&self, out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
        let mut written = Vec::new();
        self.inner.emit(&mut written, report)?;
        match String::from_utf8(written) {
            Ok(text) => out.write_all(neutralize(&text, self.hash).as_bytes()),
            // Every emitter writes UTF-8; were one not to, the lossy text
            // is still searched rather than passed through unchecked.
            Err(error) => {
                let text = String::from_utf8_lossy(error.as_bytes());
                out.write_all(neutralize(&text, self.hash).as_bytes())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_messages_are_escaped_percent_first() {
        assert_eq!(
            escape_property("a;b]c%3B\r\nd=e"),
            "a%3Bb%5Dc%AZP253B%0D%0Ad=e"
        );
        assert_eq!(escape_message("50%; [x]\r\n"), "50%AZP25; [x]%0D%0A");
        for text in ["%3B;%0A]%AZP25%%", "plain", "", "%", "%5D]"] {
            assert_eq!(unescape(&escape_property(text)), text);
            assert_eq!(unescape(&escape_message(text)), text);
        }
    }

    #[test]
    fn commands_are_made_inert_wherever_they_are() {
        let text = |s: &str| neutralize(s, InertHash::Text).into_owned();
        assert_eq!(
            text("x ##vso[task.setvariable variable=A]1"),
            "x \\u{23}#vso[task.setvariable variable=A]1"
        );
        assert_eq!(text("##[group]hidden"), "\\u{23}#[group]hidden");
        assert_eq!(text("###VSO[x]"), "#\\u{23}#VSO[x]");
        // Characters .NET's comparison skips do not hide a command.
        assert_eq!(
            text("#\u{ad}#v\u{200b}so\u{0}[x]"),
            "\\u{23}\u{ad}#v\u{200b}so\u{0}[x]"
        );
        assert_eq!(
            neutralize("a#b ## [ #vso[", InertHash::Text),
            "a#b ## [ #vso["
        );
        assert!(matches!(
            neutralize("no commands # here", InertHash::Json),
            Cow::Borrowed(_)
        ));
        // A line break ends the agent's line: no command across it.
        assert_eq!(text("#\n#vso[x]"), "#\n#vso[x]");
        assert_eq!(
            neutralize("\"##vso[x]\"", InertHash::Json),
            "\"\\u0023#vso[x]\""
        );
        assert_eq!(
            neutralize("<a b=\"##[x]\"/>", InertHash::Markup),
            "<a b=\"&#35;#[x]\"/>"
        );
    }

    #[test]
    fn what_is_left_has_no_command() {
        for input in [
            "##vso[a.b]",
            "####vso[a.b]##[c]",
            "#\u{feff}#\u{2060}[x]",
            "##vs##vso[",
        ] {
            for hash in [InertHash::Text, InertHash::Json, InertHash::Markup] {
                let out = neutralize(input, hash);
                assert!(
                    !out.match_indices('#')
                        .any(|(at, _)| starts_command(&out[at..])),
                    "{input:?} -> {out:?}"
                );
            }
        }
    }
}
