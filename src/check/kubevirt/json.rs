//! A strict JSON (RFC 8259) parser that keeps the byte offset of every value
//! and key, so that problems in a `validations` annotation can be placed.

/// A JSON value with the offset of its first byte in the parsed text.
#[derive(Debug, Clone, PartialEq)]
pub struct Jv {
    pub off: usize,
    pub v: J,
}

#[derive(Debug, Clone, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Jv>),
    Obj(Vec<Member>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub key: String,
    pub key_off: usize,
    pub value: Jv,
}

/// Where and why the text stops being JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonError {
    pub off: usize,
    pub msg: String,
}

impl J {
    pub fn type_name(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "boolean",
            J::Num(_) => "number",
            J::Str(_) => "string",
            J::Arr(_) => "array",
            J::Obj(_) => "object",
        }
    }
}

/// Parse one JSON value that spans the whole text (surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Jv, JsonError> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
        depth: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i < p.s.len() {
        return Err(p.err(format!(
            "invalid character {} after top-level value",
            p.describe()
        )));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, msg: String) -> JsonError {
        JsonError { off: self.i, msg }
    }

    fn describe(&self) -> String {
        match self.text.get(self.i..).and_then(|t| t.chars().next()) {
            Some(c) => format!("'{c}'"),
            None => "end of input".into(),
        }
    }

    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eof(&self) -> JsonError {
        JsonError {
            off: self.s.len(),
            msg: "unexpected end of JSON input".into(),
        }
    }

    fn value(&mut self) -> Result<Jv, JsonError> {
        let off = self.i;
        let Some(&c) = self.s.get(self.i) else {
            return Err(self.eof());
        };
        let v = match c {
            b'{' => self.object()?,
            b'[' => self.array()?,
            b'"' => J::Str(self.string()?),
            b't' => self.word("true", J::Bool(true))?,
            b'f' => self.word("false", J::Bool(false))?,
            b'n' => self.word("null", J::Null)?,
            b'-' | b'0'..=b'9' => self.number()?,
            _ => {
                return Err(self.err(format!(
                    "invalid character {} looking for beginning of value",
                    self.describe()
                )));
            }
        };
        Ok(Jv { off, v })
    }

    fn word(&mut self, w: &str, v: J) -> Result<J, JsonError> {
        for &b in w.as_bytes() {
            match self.s.get(self.i) {
                None => return Err(self.eof()),
                Some(&c) if c == b => self.i += 1,
                Some(_) => {
                    return Err(self.err(format!(
                        "invalid character {} in literal {w}",
                        self.describe()
                    )));
                }
            }
        }
        Ok(v)
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<J, JsonError> {
        let start = self.i;
        if self.s[self.i] == b'-' {
            self.i += 1;
        }
        match self.s.get(self.i) {
            None => return Err(self.eof()),
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            Some(_) => {
                return Err(self.err(format!(
                    "invalid character {} in numeric literal",
                    self.describe()
                )));
            }
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                if self.i >= self.s.len() {
                    return Err(self.eof());
                }
                return Err(self.err(format!(
                    "invalid character {} after decimal point in numeric literal",
                    self.describe()
                )));
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                if self.i >= self.s.len() {
                    return Err(self.eof());
                }
                return Err(self.err(format!(
                    "invalid character {} in exponent of numeric literal",
                    self.describe()
                )));
            }
        }
        let n: f64 = self.text[start..self.i].parse().unwrap_or(f64::INFINITY);
        Ok(J::Num(n))
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.i += 1;
        let mut out = String::new();
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return Err(self.eof());
            };
            match c {
                b'"' => {
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.i += 1;
                    let Some(&e) = self.s.get(self.i) else {
                        return Err(self.eof());
                    };
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hex = self.text.get(self.i..self.i + 4).unwrap_or("");
                            let Ok(code) = u32::from_str_radix(hex, 16) else {
                                return Err(self.err(
                                    "invalid character in \\u hexadecimal character escape".into(),
                                ));
                            };
                            self.i += 4;
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        _ => {
                            self.i -= 1;
                            return Err(self.err(format!(
                                "invalid character {} in string escape code",
                                self.describe()
                            )));
                        }
                    }
                }
                c if c < 0x20 => {
                    return Err(self.err(format!(
                        "invalid character {} in string literal",
                        self.describe().escape_debug()
                    )));
                }
                _ => {
                    let ch = self.text[self.i..].chars().next().unwrap_or('\u{fffd}');
                    out.push(ch);
                    self.i += ch.len_utf8();
                }
            }
        }
    }

    fn enter(&mut self) -> Result<(), JsonError> {
        self.depth += 1;
        if self.depth > 10000 {
            return Err(self.err("exceeded max depth".into()));
        }
        Ok(())
    }

    fn array(&mut self) -> Result<J, JsonError> {
        self.enter()?;
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.s.get(self.i) == Some(&b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(J::Arr(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            match self.s.get(self.i) {
                None => return Err(self.eof()),
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(J::Arr(items));
                }
                Some(_) => {
                    return Err(self.err(format!(
                        "invalid character {} after array element",
                        self.describe()
                    )));
                }
            }
        }
    }

    fn object(&mut self) -> Result<J, JsonError> {
        self.enter()?;
        self.i += 1;
        let mut members = Vec::new();
        self.ws();
        if self.s.get(self.i) == Some(&b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(J::Obj(members));
        }
        loop {
            self.ws();
            match self.s.get(self.i) {
                None => return Err(self.eof()),
                Some(b'"') => {}
                Some(_) => {
                    return Err(self.err(format!(
                        "invalid character {} looking for beginning of object key string",
                        self.describe()
                    )));
                }
            }
            let key_off = self.i;
            let key = self.string()?;
            self.ws();
            match self.s.get(self.i) {
                None => return Err(self.eof()),
                Some(b':') => self.i += 1,
                Some(_) => {
                    return Err(self.err(format!(
                        "invalid character {} after object key",
                        self.describe()
                    )));
                }
            }
            self.ws();
            let value = self.value()?;
            members.push(Member {
                key,
                key_off,
                value,
            });
            self.ws();
            match self.s.get(self.i) {
                None => return Err(self.eof()),
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(J::Obj(members));
                }
                Some(_) => {
                    return Err(self.err(format!(
                        "invalid character {} after object key:value pair",
                        self.describe()
                    )));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_placed_where_the_text_stops_being_json() {
        let text = "[\n {\"a\": 1},\n]";
        assert_eq!(parse(text).unwrap_err().off, text.rfind(']').unwrap());
        let text = "{\"a\": 1 \"b\": 2}";
        assert_eq!(parse(text).unwrap_err().off, text.find("\"b\"").unwrap());
        assert_eq!(parse("  ").unwrap_err().msg, "unexpected end of JSON input");
        let v = parse("[{\"k\": \"v\", \"n\": -2.5e1}]").unwrap();
        let J::Arr(items) = v.v else { panic!() };
        let J::Obj(m) = &items[0].v else { panic!() };
        assert_eq!(m[1].value.v, J::Num(-25.0));
        assert_eq!(m[1].key_off, 12);
    }
}
