//! go-yaml v2's emitter (`emitterc.go` in ytt's fork), driven by a node tree
//! instead of an event queue.
//!
//! The event emitter's states map onto recursion here: a block mapping's
//! "key" and "value" states are the two halves of one loop turn, and the
//! look-ahead it buffers events for (empty collection? simple key?) is read
//! off the tree. What remains is its layout state (column, indent stack,
//! `whitespace`, `indention`), kept exactly, since every space and line break
//! it writes is decided from it.
//!
//! ytt's fork sets no line width (`best_width` = 2³¹-1), so the folding
//! branches of the scalar writers never run and are left out; it never uses
//! flow style for non-empty collections, tags, anchors or the folded style.

use super::analyze::{Analysis, ScalarEvent, Style, analyze, is_break, is_printable, select_style};
use super::encode::scalar_event;
use crate::yaml::{ArrayItem, MapItem, Node, Value};

const BEST_INDENT: i32 = 2;
/// `yaml_emitter_check_simple_key`: longer keys are written as `? key`.
const MAX_SIMPLE_KEY_LEN: usize = 128;

/// The context `yaml_emitter_emit_node` records for the node being written.
#[derive(Clone, Copy, Default)]
struct Context {
    /// The node is a mapping key or value (`mapping_context`).
    mapping: bool,
    /// The node is a key written without `?` (`simple_key_context`).
    simple_key: bool,
}

pub(super) struct Emitter {
    out: String,
    /// Characters since the last line break.
    column: usize,
    indent: i32,
    indents: Vec<i32>,
    /// The last character written was whitespace (or nothing yet).
    whitespace: bool,
    /// Only indentation has been written on this line so far.
    indention: bool,
}

impl Emitter {
    /// One document as `yaml.Marshal` writes it: a fresh emitter, an implicit
    /// document start (no `---`), the root node, an implicit end.
    pub fn document(node: &Node) -> String {
        let mut e = Emitter {
            out: String::new(),
            column: 0,
            indent: -1,
            indents: Vec::new(),
            whitespace: true,
            indention: true,
        };
        e.node(node, Context::default());
        // DOCUMENT-END: finish the last line.
        e.write_indent();
        e.out
    }

    fn node(&mut self, node: &Node, ctx: Context) {
        match &node.value {
            Value::Scalar(s) => self.scalar(&scalar_event(s), ctx),
            Value::Map(items) if items.is_empty() => self.empty_flow('{', '}'),
            Value::Array(items) if items.is_empty() => self.empty_flow('[', ']'),
            Value::Map(items) => self.block_mapping(items),
            Value::Array(items) => self.block_sequence(items, ctx),
        }
    }

    /// An empty collection is written in flow style: `{}` or `[]`.
    fn empty_flow(&mut self, open: char, close: char) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn block_sequence(&mut self, items: &[ArrayItem], ctx: Context) {
        // A sequence right after `key:` is not indented ("indentless").
        self.increase_indent(false, ctx.mapping && !self.indention);
        for item in items {
            self.write_indent();
            self.write_indicator('-', true, false, true);
            self.node(&item.value, Context::default());
        }
        self.pop_indent();
    }

    fn block_mapping(&mut self, items: &[MapItem]) {
        self.increase_indent(false, false);
        for item in items {
            self.write_indent();
            let key = scalar_event(&item.key);
            let analysis = analyze(&key.value);
            let value_ctx = Context {
                mapping: true,
                simple_key: false,
            };
            if !analysis.multiline && key.value.len() <= MAX_SIMPLE_KEY_LEN {
                let key_ctx = Context {
                    mapping: true,
                    simple_key: true,
                };
                self.scalar_analyzed(&key, &analysis, key_ctx);
                self.write_indicator(':', false, false, false);
            } else {
                // A complex key: `? key` on its own line(s), then `: value`.
                self.write_indicator('?', true, false, true);
                self.scalar_analyzed(&key, &analysis, value_ctx);
                self.write_indent();
                self.write_indicator(':', true, false, true);
            }
            self.node(&item.value, value_ctx);
        }
        self.pop_indent();
    }

    fn scalar(&mut self, event: &ScalarEvent, ctx: Context) {
        let analysis = analyze(&event.value);
        self.scalar_analyzed(event, &analysis, ctx);
    }

    fn scalar_analyzed(&mut self, event: &ScalarEvent, analysis: &Analysis, ctx: Context) {
        let style = select_style(event.style, &event.value, analysis, ctx.simple_key);
        self.increase_indent(true, false);
        match style {
            Style::Plain => self.write_plain(&event.value),
            Style::SingleQuoted => self.write_single_quoted(&event.value),
            Style::DoubleQuoted => self.write_double_quoted(&event.value),
            Style::Literal => self.write_literal(&event.value),
        }
        self.pop_indent();
    }

    // Layout primitives ------------------------------------------------------

    /// `yaml_emitter_increase_indent`.
    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    /// `put`: one ASCII character.
    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    /// `write`: one character of the value.
    fn write(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    /// `write_break`: LF becomes the output line break; CR, NEL, LS and PS
    /// are copied as they are, yet count as a line break.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.write(c);
            self.column = 0;
        }
    }

    /// `yaml_emitter_write_indent`: a line break unless the line holds only
    /// indentation so far, then spaces up to the indent.
    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    /// `yaml_emitter_write_indicator`.
    fn write_indicator(
        &mut self,
        indicator: char,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.write(indicator);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    // Scalar writers ---------------------------------------------------------

    fn write_plain(&mut self, value: &str) {
        if !self.whitespace {
            self.put(' ');
        }
        let mut breaks = false;
        for c in value.chars() {
            if is_break(c) {
                // Unreachable for a plain scalar (a break rules plain out),
                // kept as go-yaml has it.
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else if c == ' ' {
                self.write(c);
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(c);
                self.indention = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn write_single_quoted(&mut self, value: &str) {
        self.write_indicator('\'', true, false, false);
        let mut breaks = false;
        for c in value.chars() {
            if is_break(c) {
                // Only LS and PS get here: they are printable, so a string
                // holding one without LF is single-quoted, and the character
                // is followed by a fresh indent as if it ended the line.
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else if c == ' ' {
                self.write(c);
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.write(c);
                self.indention = false;
                breaks = false;
            }
        }
        self.write_indicator('\'', false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &str) {
        self.write_indicator('"', true, false, false);
        // go-yaml's `is_bom(value, i)` looks at the start of the value, not
        // at `i`: a string starting with U+FEFF has every character escaped.
        let starts_with_bom = value.starts_with('\u{FEFF}');
        for c in value.chars() {
            if !is_printable(c) || starts_with_bom || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                self.write_escape(c);
            } else {
                self.write(c);
            }
        }
        self.write_indicator('"', false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    /// The escape after `\`: a named one, else `xXX`, `uXXXX` or `UXXXXXXXX`
    /// in upper-case hex.
    fn write_escape(&mut self, c: char) {
        let named = match c {
            '\0' => Some('0'),
            '\u{07}' => Some('a'),
            '\u{08}' => Some('b'),
            '\t' => Some('t'),
            '\n' => Some('n'),
            '\u{0B}' => Some('v'),
            '\u{0C}' => Some('f'),
            '\r' => Some('r'),
            '\u{1B}' => Some('e'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            '\u{85}' => Some('N'),
            '\u{A0}' => Some('_'),
            '\u{2028}' => Some('L'),
            '\u{2029}' => Some('P'),
            _ => None,
        };
        if let Some(n) = named {
            self.put(n);
            return;
        }
        let v = u32::from(c);
        let (letter, digits) = match v {
            0..=0xFF => ('x', 2),
            0x100..=0xFFFF => ('u', 4),
            _ => ('U', 8),
        };
        self.put(letter);
        for k in (0..digits).rev() {
            let digit = (v >> (4 * k)) & 0xF;
            let hex = char::from_digit(digit, 16).unwrap_or('0');
            self.put(hex.to_ascii_uppercase());
        }
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator('|', true, false, false);
        self.write_block_scalar_hints(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in value.chars() {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    /// `yaml_emitter_write_block_scalar_hints`: an indentation indicator when
    /// the text starts with a space or break, and the chomping indicator:
    /// `-` without a final break, `+` with more than one (or only one).
    fn write_block_scalar_hints(&mut self, value: &str) {
        let mut chars = value.chars();
        if chars
            .clone()
            .next()
            .is_some_and(|c| c == ' ' || is_break(c))
        {
            let hint = char::from_digit(BEST_INDENT as u32, 10).unwrap_or('2');
            self.write_indicator(hint, false, false, false);
        }
        let last = chars.next_back();
        let before_last = chars.next_back();
        let chomp = match (last, before_last) {
            (None, _) => Some('-'),
            (Some(c), _) if !is_break(c) => Some('-'),
            (Some(_), None) => Some('+'),
            (Some(_), Some(c)) if is_break(c) => Some('+'),
            _ => None,
        };
        if let Some(c) = chomp {
            self.write_indicator(c, false, false, false);
        }
    }
}
