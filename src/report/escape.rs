//! How text from linted files is shown in the formats a terminal or a CI
//! log renders (`text`, `concise`, `github`, `markdown`, `azure`,
//! `--statistics`) and in the prose CI pages show (`gitlab`'s description,
//! `rdjson`'s messages).
//!
//! A key, a value or a file name may hold characters that are not text: an
//! escape sequence that retitles the terminal (`ESC ] 0 ; … BEL`), writes a
//! hyperlink (OSC 8) or recolours the log (a C1 CSI, U+009B), a carriage
//! return that overwrites the line, or a bidirectional override that shows
//! the text in another order than it is read (the "Trojan Source" class).
//! None of them may reach a terminal raw, so every emitter of those formats
//! passes file-derived text through this file before writing or styling it
//! (the ANSI colours confvet writes itself are added after).
//!
//! Which characters: [`is_hidden`]. Two ways to show them:
//!
//! * In messages, labels, data paths, help, fix messages and file names:
//!   Rust's `char::escape_unicode` form, `\u{1b}`, which says exactly which
//!   character it was (JUnit uses the same form for what XML cannot hold).
//!   [`text`] keeps line feeds, which each format writes its own way (a
//!   line of its own, a space, `%0A`, `<br>`); [`line`] escapes them too,
//!   for what must stay on one line. A tab stays a tab: it only moves the
//!   cursor right.
//! * In snippets (the source lines `text` draws): as rustc draws them, one
//!   character for one, so that columns and underlines still line up with
//!   the positions every other format reports: a C0 control and DEL become
//!   their Unicode Control Picture (`␛` U+241B, `␇`, `␡`), and a character
//!   with no picture (C1, bidirectional formatting, line and paragraph
//!   separators) becomes `�` U+FFFD, as rustc shows bidirectional
//!   overrides. Tabs and line breaks stay; a carriage return not ending a
//!   line becomes `␍`. See [`SnippetSource`].
//!
//! The machine formats (JSON, SARIF, JUnit) carry the original characters:
//! their own syntax escapes them; so do the paths and suggested text of
//! `gitlab` and `rdjson`, which CI systems match and apply.

use std::borrow::Cow;

/// Whether `c` is shown escaped: every control character (C0, DEL, C1)
/// and every Unicode bidirectional formatting character (the marks U+061C,
/// U+200E, U+200F, the embeddings and overrides U+202A–U+202E, the isolates
/// U+2066–U+2069), and the line and paragraph separators U+2028/U+2029,
/// which JavaScript and Python's `splitlines` take for line breaks. Tab
/// and line feed are the callers' to keep or escape.
pub(crate) fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Text that may span lines (a message, help): every hidden character but
/// tab and line feed as `\u{..}`.
pub(crate) fn text(text: &str) -> Cow<'_, str> {
    escaped(text, |c| c != '\t' && c != '\n' && is_hidden(c))
}

/// Text that must stay on its line (a file name, a label, a data path):
/// every hidden character but tab as `\u{..}`, line feeds included.
pub(crate) fn line(text: &str) -> Cow<'_, str> {
    escaped(text, |c| c != '\t' && is_hidden(c))
}

/// `text` with each character `escape` picks written as `\u{..}`; borrowed
/// when there is none, as almost always.
fn escaped(text: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&escape) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if escape(c) {
            shown.extend(c.escape_unicode());
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// A file's text as a snippet shows it, each hidden character replaced by
/// one visible character (see the file header), and the way from a byte
/// offset in the original text to the same place in the shown one: a
/// picture may take more bytes than the character it shows.
pub(crate) struct SnippetSource<'a> {
    pub text: Cow<'a, str>,
    /// For each replaced character, in order: its offset in the original
    /// text and how many bytes the shown text has grown by after it.
    growth: Vec<(usize, usize)>,
}

impl<'a> SnippetSource<'a> {
    pub(crate) fn new(original: &'a str) -> SnippetSource<'a> {
        let bytes = original.as_bytes();
        // A carriage return right before a line feed ends a line: the
        // renderer cuts it off with the line feed.
        let ends_line = |at: usize| bytes.get(at + 1) == Some(&b'\n');
        let picks = |(at, c): (usize, char)| match c {
            '\t' | '\n' => None,
            '\r' if ends_line(at) => None,
            c if is_hidden(c) => Some(picture(c)),
            _ => None,
        };
        if !original.char_indices().any(|ch| picks(ch).is_some()) {
            return SnippetSource {
                text: Cow::Borrowed(original),
                growth: Vec::new(),
            };
        }
        let mut text = String::with_capacity(original.len() + 16);
        let mut growth = Vec::new();
        let mut grown = 0;
        for (at, c) in original.char_indices() {
            match picks((at, c)) {
                Some(shown) => {
                    text.push(shown);
                    // Every picture is 3 bytes in UTF-8, no character it
                    // stands for more.
                    grown += shown.len_utf8().saturating_sub(c.len_utf8());
                    growth.push((at, grown));
                }
                None => text.push(c),
            }
        }
        SnippetSource {
            text: Cow::Owned(text),
            growth,
        }
    }

    /// Where byte `offset` of the original text (a character boundary) is
    /// in the shown text.
    pub(crate) fn offset(&self, offset: usize) -> usize {
        let before = self.growth.partition_point(|&(at, _)| at < offset);
        match before.checked_sub(1) {
            Some(last) => offset + self.growth[last].1,
            None => offset,
        }
    }
}

/// The one visible character a hidden one is drawn as in a snippet.
fn picture(c: char) -> char {
    match u32::from(c) {
        // U+2400 SYMBOL FOR NULL … U+241F SYMBOL FOR UNIT SEPARATOR.
        code @ 0..=0x1F => char::from_u32(0x2400 + code).unwrap_or('\u{FFFD}'),
        0x7F => '\u{2421}',
        _ => '\u{FFFD}',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_controls_and_bidirectional_formatting() {
        let hidden = (0..=0x1F)
            .chain(0x7F..=0x9F)
            .chain([0x61C, 0x200E, 0x200F, 0x2028, 0x2029])
            .chain(0x202A..=0x202E)
            .chain(0x2066..=0x2069);
        for code in hidden {
            let c = char::from_u32(code).unwrap();
            assert!(is_hidden(c), "U+{code:04X}");
        }
        for c in [
            ' ', 'a', '~', '\u{A0}', 'é', '名', '\u{200D}', '\u{FFFD}', '😀',
        ] {
            assert!(!is_hidden(c), "{c:?}");
        }
    }

    #[test]
    fn text_escapes_all_but_tab_and_line_feed() {
        assert_eq!(
            text("\u{1b}]0;t\u{7}\u{9b}\u{7f}\u{202e}\r\n\ta"),
            "\\u{1b}]0;t\\u{7}\\u{9b}\\u{7f}\\u{202e}\\u{d}\n\ta"
        );
        assert!(matches!(text("naïve 名\n\tx"), Cow::Borrowed(_)));
    }

    #[test]
    fn line_escapes_line_feeds_too() {
        assert_eq!(line("a\nb\r\tc\u{2028}"), "a\\u{a}b\\u{d}\tc\\u{2028}");
        assert!(matches!(line("values.yml"), Cow::Borrowed(_)));
    }

    #[test]
    fn snippets_show_one_picture_for_one_character() {
        let original = "a\u{0}\u{1b}\u{7}\u{7f}\u{9b}\u{202e}\u{200f}\u{61c}\tb\r\nc\rd\n";
        let shown = SnippetSource::new(original);
        assert_eq!(shown.text, "a␀␛␇␡����\tb\r\nc␍d\n");
        assert_eq!(
            shown.text.chars().count(),
            original.chars().count(),
            "columns stay"
        );
        // Every original character boundary maps onto the same character.
        for ((at, _), (shown_at, _)) in original.char_indices().zip(shown.text.char_indices()) {
            assert_eq!(shown.offset(at), shown_at, "offset {at}");
        }
        assert_eq!(shown.offset(original.len()), shown.text.len());
        assert!(matches!(
            SnippetSource::new("a:\t\"é\"\r\n").text,
            Cow::Borrowed(_)
        ));
    }
}
