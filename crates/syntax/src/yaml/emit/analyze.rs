//! Which style a scalar is written in: the encoder's request (`encode.go`:
//! `stringv`, `floatv`, ...) and the emitter's analysis of the text, which may
//! overrule it (`emitterc.go`: `yamlEmitterAnalyzeScalar`,
//! `yamlEmitterSelectScalarStyle`).
//!
//! go-yaml works on UTF-8 bytes; every test it makes there is a test on the
//! character starting at that byte, so this port works on `char`s.

use super::resolve::needs_quotes;

/// The styles go-yaml can write a scalar in (folded `>` is never requested
/// by the encoder, so it is left out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// `|`, `|-`, `|+`.
    Literal,
}

/// What the encoder hands the emitter for one scalar: its text and the style
/// it asks for.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ScalarEvent {
    pub value: String,
    pub style: Style,
}

impl ScalarEvent {
    /// Non-strings (`null`, `true`, `42`, `1e+06`, `.inf`) are asked for plain.
    pub fn plain(value: String) -> Self {
        ScalarEvent {
            value,
            style: Style::Plain,
        }
    }

    /// `encode.go`'s `stringv`: a string with a newline asks for a literal
    /// block; one that reads back as itself when plain (YAML 1.1 resolution,
    /// timestamps and base-60 floats included) asks for plain; any other is
    /// double-quoted. The emitter may still pick another style.
    pub fn string(s: &str) -> Self {
        let style = if s.contains('\n') {
            Style::Literal
        } else if needs_quotes(s) {
            Style::DoubleQuoted
        } else {
            Style::Plain
        };
        ScalarEvent {
            value: s.to_string(),
            style,
        }
    }
}

/// `yaml_emitter_analyze_scalar`'s verdict on a scalar's text. Its flow
/// context verdicts are left out: ytt writes only empty collections in flow
/// style, so no scalar is ever written inside one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Analysis {
    pub multiline: bool,
    pub block_plain_allowed: bool,
    pub single_quoted_allowed: bool,
    pub block_allowed: bool,
}

/// `is_printable`: LF, printable ASCII, U+00A0..U+D7FF and U+E000..U+FFFD
/// except the BOM. Characters outside the BMP (emoji) are not "printable" to
/// go-yaml and so force double quotes with a `\U` escape.
pub(super) fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

/// `is_break`: CR, LF, NEL, LS, PS.
pub(super) fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `is_blank`: space or tab.
fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// `is_blankz`: blank, break or NUL.
fn is_blankz(c: char) -> bool {
    is_blank(c) || is_break(c) || c == '\0'
}

/// Port of `yaml_emitter_analyze_scalar`.
pub(super) fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = value.chars().collect();
    let mut block_indicators = false;
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;

    // A document marker at the start can never be plain.
    if value.starts_with("---") || value.starts_with("...") {
        block_indicators = true;
    }

    let mut preceded_by_whitespace = true;
    let last = chars.len() - 1;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = i == last || is_blank(chars[i + 1]);
        // Block indicators: any of these first, `?`, `:` or `-` followed by
        // a blank, a `:` followed by a blank or a `#` preceded by one anywhere.
        // (`,`, `[`, `]`, `{`, `}` and `?` later on matter only in flow.)
        block_indicators |= if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => true,
                '?' | ':' | '-' => followed_by_whitespace,
                _ => false,
            }
        } else {
            match c {
                ':' => followed_by_whitespace,
                '#' => preceded_by_whitespace,
                _ => false,
            }
        };

        // The emitter runs with `unicode` on, so only unprintables count.
        if !is_printable(c) {
            special_characters = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i == last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= i == last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(c);
    }

    let mut a = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// Port of `yaml_emitter_select_scalar_style` for untagged, implicit
/// scalars in block context (the only kind ytt's encoder emits): plain falls
/// back to single quotes, single quotes to double quotes, a literal block to
/// double quotes.
pub(super) fn select_style(
    requested: Style,
    value: &str,
    analysis: &Analysis,
    simple_key: bool,
) -> Style {
    let mut style = requested;
    if simple_key && analysis.multiline {
        style = Style::DoubleQuoted;
    }
    if style == Style::Plain && (!analysis.block_plain_allowed || (value.is_empty() && simple_key))
    {
        style = Style::SingleQuoted;
    }
    if style == Style::SingleQuoted && !analysis.single_quoted_allowed {
        style = Style::DoubleQuoted;
    }
    if style == Style::Literal && (!analysis.block_allowed || simple_key) {
        style = Style::DoubleQuoted;
    }
    style
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style_of(s: &str) -> Style {
        let event = ScalarEvent::string(s);
        select_style(event.style, s, &analyze(s), false)
    }

    #[test]
    fn styles_follow_the_analysis() {
        assert_eq!(style_of("abc"), Style::Plain);
        assert_eq!(style_of("a:b"), Style::Plain);
        assert_eq!(style_of("a: b"), Style::SingleQuoted);
        assert_eq!(style_of("- a"), Style::SingleQuoted);
        assert_eq!(style_of("-a"), Style::Plain);
        assert_eq!(style_of("a #b"), Style::SingleQuoted);
        assert_eq!(style_of("a#b"), Style::Plain);
        assert_eq!(style_of("yes"), Style::DoubleQuoted);
        assert_eq!(style_of("a\tb"), Style::DoubleQuoted);
        assert_eq!(style_of("a\nb"), Style::Literal);
        assert_eq!(style_of("a \nb"), Style::DoubleQuoted);
        assert_eq!(style_of("a\n b"), Style::Literal);
        assert_eq!(style_of("a\n \nb"), Style::DoubleQuoted);
        assert_eq!(style_of("\u{1F600}"), Style::DoubleQuoted);
        assert_eq!(style_of("\u{2028}"), Style::SingleQuoted);
    }

    #[test]
    fn printable_matches_the_byte_tests() {
        for c in ['\n', ' ', '~', '\u{A0}', '\u{D7FF}', '\u{E000}', '\u{FFFD}'] {
            assert!(is_printable(c), "{c:?}");
        }
        for c in [
            '\t',
            '\r',
            '\0',
            '\u{7F}',
            '\u{85}',
            '\u{9F}',
            '\u{FEFF}',
            '\u{FFFE}',
            '\u{10000}',
        ] {
            assert!(!is_printable(c), "{c:?}");
        }
    }
}
