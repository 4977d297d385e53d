//! `@ytt:json`: `encode(value, indent=0, escape_html=True)` and
//! `decode(text)`, as Go's `encoding/json` does them for ytt: map keys
//! sorted and strings only, floats in Go's form (`1e+21`, `1e-7`), `<`,
//! `>`, `&` escaped unless `escape_html=False`; decoded numbers are all
//! floats and maps come back with sorted keys; syntax errors have Go's
//! words ("invalid character '}' looking for beginning of value").

use super::context::Context;
use super::go_value::{self, Go, map_set, write};
use super::native::{Call, Outcome, as_str, native};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    super::native::module(
        heap,
        "json",
        &[
            ("encode", "json.encode", native!(encode)),
            ("decode", "json.decode", native!(decode)),
        ],
    )
}

fn encode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let value = call.one()?;
    call.allow_kwargs(&["indent", "escape_html"])?;
    let go = go_value::plain(go_value::from_value(value, call.heap)?)?;
    let indent = call.int_kwarg("indent")?;
    if !(0..=8).contains(&indent) {
        return Err("indent value must be between 0 and 8".into());
    }
    let escape_html = call.bool_kwarg("escape_html", true)?;
    let mut out = String::new();
    write(&mut out, &go, escape_html)?;
    if indent > 0 {
        out = reindent(&out, &" ".repeat(indent as usize));
    }
    Ok(call.heap.alloc(out))
}

/// Go's `json.Indent` of compact JSON with `indent` per level: a line per
/// item, `[]` and `{}` kept together.
fn reindent(compact: &str, indent: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut need_indent = false;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(indent);
        }
    };
    for c in compact.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if need_indent && c != ']' && c != '}' {
            need_indent = false;
            depth += 1;
            newline(&mut out, depth);
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                need_indent = true;
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            '}' | ']' => {
                if need_indent {
                    need_indent = false;
                } else {
                    depth = depth.saturating_sub(1);
                    newline(&mut out, depth);
                }
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn decode<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let text = as_str(call.one()?)?;
    let go = parse(text)?;
    Ok(go_value::to_value(&go, call.heap, false)?)
}

/// Why JSON did not decode, in the words of Go's `encoding/json`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JsonError {
    #[error("unexpected end of JSON input")]
    UnexpectedEnd,
    /// A byte that cannot come here: the byte as Go quotes it
    /// (`quoteChar`), and what the parser was doing ("after object key").
    #[error("invalid character {found} {context}")]
    InvalidCharacter { found: String, context: String },
    #[error("exceeded max depth")]
    TooDeep,
    /// A number past float64 (its text).
    #[error("json: cannot unmarshal number {0} into Go value of type float64")]
    NumberRange(String),
    /// A backslash escape Go does not know (what follows the backslash).
    #[error("invalid escape sequence `\\{0}` in string")]
    InvalidEscape(String),
}

impl super::native::YttMessage for JsonError {}

/// Go's `json.Unmarshal` into `interface{}`, maps with sorted keys (ytt's
/// `FromUnorderedMaps`).
pub fn parse(text: &str) -> Result<Go, JsonError> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    let value = parser.value()?;
    parser.space();
    if parser.at < parser.bytes.len() {
        return Err(parser.invalid("after top-level value"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
    depth: usize,
}

/// Go's `quoteChar`.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".into(),
        b'"' => "'\"'".into(),
        c => {
            let quoted = format!("{:?}", char::from(c));
            let inner = &quoted[1..quoted.len() - 1];
            match c {
                0x20..=0x7e => format!("'{}'", char::from(c)),
                _ if inner.starts_with("\\u{") => format!("'\\u{:04x}'", c),
                _ => format!("'{inner}'"),
            }
        }
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    fn invalid(&self, context: &str) -> JsonError {
        match self.peek() {
            None => JsonError::UnexpectedEnd,
            Some(c) => JsonError::InvalidCharacter {
                found: quote_char(c),
                context: context.to_string(),
            },
        }
    }

    fn value(&mut self) -> Result<Go, JsonError> {
        self.space();
        match self.peek() {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(Go::Str),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b't') => self.literal("true", Go::Bool(true)),
            Some(b'f') => self.literal("false", Go::Bool(false)),
            Some(b'n') => self.literal("null", Go::Null),
            _ => Err(self.invalid("looking for beginning of value")),
        }
    }

    fn nest(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > 10_000 {
            return Err(JsonError::TooDeep);
        }
        Ok(())
    }

    fn object(&mut self) -> Result<Go, JsonError> {
        self.nest()?;
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            self.depth -= 1;
            return Ok(Go::Map(items));
        }
        loop {
            self.space();
            if self.peek() != Some(b'"') {
                return Err(self.invalid("looking for beginning of object key string"));
            }
            let key = self.string()?;
            self.space();
            if self.peek() != Some(b':') {
                return Err(self.invalid("after object key"));
            }
            self.at += 1;
            let value = self.value()?;
            map_set(&mut items, Go::Str(key), value);
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    break;
                }
                _ => return Err(self.invalid("after object key:value pair")),
            }
        }
        self.depth -= 1;
        items.sort_by(|a, b| match (&a.0, &b.0) {
            (Go::Str(x), Go::Str(y)) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        });
        Ok(Go::Map(items))
    }

    fn array(&mut self) -> Result<Go, JsonError> {
        self.nest()?;
        self.at += 1;
        let mut items = Vec::new();
        self.space();
        if self.peek() == Some(b']') {
            self.at += 1;
            self.depth -= 1;
            return Ok(Go::List(items));
        }
        loop {
            items.push(self.value()?);
            self.space();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    break;
                }
                _ => return Err(self.invalid("after array element")),
            }
        }
        self.depth -= 1;
        Ok(Go::List(items))
    }

    fn literal(&mut self, word: &str, value: Go) -> Result<Go, JsonError> {
        for expected in word.bytes().skip(1) {
            self.at += 1;
            if self.peek() != Some(expected) {
                return Err(self.invalid(&format!(
                    "in literal {word} (expecting '{}')",
                    char::from(expected)
                )));
            }
        }
        self.at += 1;
        Ok(value)
    }

    fn digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
    }

    fn number(&mut self) -> Result<Go, JsonError> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.invalid("in numeric literal")),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.invalid("in numeric literal"));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.invalid("in numeric literal"));
            }
            self.digits();
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap_or("0");
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Go::Float(f)),
            _ => Err(JsonError::NumberRange(text.to_string())),
        }
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.at += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.invalid(""));
            };
            match c {
                b'"' => {
                    self.at += 1;
                    break;
                }
                b'\\' => {
                    self.at += 1;
                    let escape = self.peek();
                    let simple = match escape {
                        Some(b'"') => Some(b'"'),
                        Some(b'\\') => Some(b'\\'),
                        Some(b'/') => Some(b'/'),
                        Some(b'b') => Some(8),
                        Some(b'f') => Some(12),
                        Some(b'n') => Some(b'\n'),
                        Some(b'r') => Some(b'\r'),
                        Some(b't') => Some(b'\t'),
                        _ => None,
                    };
                    if let Some(b) = simple {
                        out.push(b);
                        self.at += 1;
                    } else if escape == Some(b'u') {
                        self.at += 1;
                        let first = self.hex4()?;
                        let c = if (0xd800..0xdc00).contains(&first)
                            && self.bytes.get(self.at..self.at + 2) == Some(b"\\u")
                        {
                            let save = self.at;
                            self.at += 2;
                            let second = self.hex4()?;
                            if (0xdc00..0xe000).contains(&second) {
                                char::from_u32(
                                    0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00),
                                )
                            } else {
                                self.at = save;
                                None
                            }
                        } else {
                            char::from_u32(first)
                        };
                        let c = c.unwrap_or('\u{fffd}');
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    } else {
                        return Err(match escape {
                            None => self.invalid(""),
                            Some(c) => {
                                JsonError::InvalidEscape(String::from_utf8_lossy(&[c]).into_owned())
                            }
                        });
                    }
                }
                c if c < 0x20 => return Err(self.invalid("in string literal")),
                c => {
                    out.push(c);
                    self.at += 1;
                }
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let start = self.at;
        let mut n = 0;
        for _ in 0..4 {
            let Some(d) = self.peek().and_then(|c| char::from(c).to_digit(16)) else {
                if self.peek().is_none() {
                    return Err(self.invalid(""));
                }
                let seen = String::from_utf8_lossy(&self.bytes[start..=self.at]);
                return Err(JsonError::InvalidEscape(format!("u{seen}")));
            };
            n = n * 16 + d;
            self.at += 1;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(go: &Go, indent: usize) -> String {
        let mut out = String::new();
        write(&mut out, go, true).unwrap();
        if indent > 0 {
            out = reindent(&out, &" ".repeat(indent));
        }
        out
    }

    #[test]
    fn encodes_as_go_does() {
        // Expected values from the reference ytt and ytt's json filetest.
        let floats = Go::List(
            [1.5, 1e20, 1e21, 0.000001, 1e-7, -0.0, 123456789.0, 1.0]
                .into_iter()
                .map(Go::Float)
                .collect(),
        );
        assert_eq!(
            encoded(&floats, 0),
            "[1.5,100000000000000000000,1e+21,0.000001,1e-7,-0,123456789,1]"
        );
        assert_eq!(
            encoded(
                &Go::Str("é\u{2028}<>&\u{1}\u{8}\u{c}\n\"\\\u{7f}".into()),
                0
            ),
            r#""é\u2028\u003c\u003e\u0026\u0001\b\f\n\"\\"#.to_string() + "\u{7f}\""
        );
        let doc = Go::Map(vec![
            (
                Go::Str("a".into()),
                Go::List(vec![
                    Go::Int(1),
                    Go::Map(vec![(Go::Str("c".into()), Go::Int(456))]),
                    Go::List(vec![]),
                ]),
            ),
            (Go::Str("b".into()), Go::Map(vec![])),
        ]);
        assert_eq!(encoded(&doc, 0), r#"{"a":[1,{"c":456},[]],"b":{}}"#);
        assert_eq!(
            encoded(&doc, 2),
            "{\n  \"a\": [\n    1,\n    {\n      \"c\": 456\n    },\n    []\n  ],\n  \"b\": {}\n}"
        );
    }

    #[test]
    fn decodes_with_go_errors() {
        // The texts are what a template sees: compared as they print.
        let parse = |text: &str| super::parse(text).map_err(|e| e.to_string());
        assert_eq!(
            parse("}junk"),
            Err("invalid character '}' looking for beginning of value".into())
        );
        assert_eq!(parse("[1,"), Err("unexpected end of JSON input".into()));
        assert_eq!(parse(""), Err("unexpected end of JSON input".into()));
        assert_eq!(
            parse("1 2"),
            Err("invalid character '2' after top-level value".into())
        );
        assert_eq!(
            parse("{\"a\" 1}"),
            Err("invalid character '1' after object key".into())
        );
        assert_eq!(parse("tru"), Err("unexpected end of JSON input".into()));
        assert_eq!(
            parse("[1.]"),
            Err("invalid character ']' in numeric literal".into())
        );
        assert_eq!(
            parse(r#""\u12""#),
            Err("invalid escape sequence `\\u12\"` in string".into())
        );
        assert_eq!(
            parse(r#""\q""#),
            Err("invalid escape sequence `\\q` in string".into())
        );
        assert_eq!(
            parse("{'a': 1}"),
            Err(r"invalid character '\'' looking for beginning of object key string".into())
        );
        assert_eq!(
            parse(r#"{"b":1,"a":[1,2.5,null,true,"x\u00e9"]}"#),
            Ok(Go::Map(vec![
                (
                    Go::Str("a".into()),
                    Go::List(vec![
                        Go::Float(1.0),
                        Go::Float(2.5),
                        Go::Null,
                        Go::Bool(true),
                        Go::Str("xé".into())
                    ])
                ),
                (Go::Str("b".into()), Go::Float(1.0)),
            ]))
        );
    }
}
