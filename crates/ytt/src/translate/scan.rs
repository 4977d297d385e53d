//! Reading ytt code line by line: where strings, brackets and `\` line
//! ends carry a statement onto the next line, where a comment starts, and
//! whether a line opens a block.

/// What one line of code does to the statement it is part of: its code
/// (without a trailing comment), whether it continues the statement of the
/// lines before, whether the statement goes on after it, and whether it
/// ends with `:` outside strings and brackets (a block opener).
pub struct LineShape {
    pub code: String,
    pub depth_after: i32,
    pub opens_block: bool,
    /// The statement goes on past this line.
    pub continues: bool,
}

/// Scans code line by line, carrying bracket depth, open string literals
/// (triple-quoted ones may span lines) and `\` continuations across lines.
#[derive(Default)]
pub struct CodeScanner {
    depth: i32,
    /// The open quote character and whether it is tripled.
    quote: Option<(char, bool)>,
    backslash: bool,
}

impl CodeScanner {
    pub fn line(&mut self, line: &str) -> LineShape {
        // Byte offsets, not a vector of chars: a line may be megabytes long.
        let mut end = line.len();
        let mut last_significant: Option<char> = None;
        let mut at = 0;
        let mut escaped = false;
        while let Some(c) = line[at..].chars().next() {
            if let Some((q, triple)) = self.quote {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    let closes = !triple || line[at..].starts_with(&q.to_string().repeat(3));
                    if closes {
                        self.quote = None;
                        if triple {
                            at += 2;
                        }
                    }
                }
                last_significant = Some(c);
                at += c.len_utf8();
                continue;
            }
            match c {
                '"' | '\'' => {
                    let triple = line[at..].starts_with(&c.to_string().repeat(3));
                    self.quote = Some((c, triple));
                    if triple {
                        at += 2;
                    }
                }
                '#' => {
                    end = at;
                    break;
                }
                '(' | '[' | '{' => self.depth += 1,
                ')' | ']' | '}' => self.depth -= 1,
                _ => {}
            }
            if !c.is_whitespace() {
                last_significant = Some(c);
            }
            at += c.len_utf8();
        }
        // A string in single quotes ends with its line unless the line ends
        // with a backslash.
        if matches!(self.quote, Some((_, false))) && !escaped {
            self.quote = None;
        }
        let in_string = self.quote.is_some();
        let code = if in_string {
            line.to_string()
        } else {
            line[..end].trim_end().to_string()
        };
        self.backslash = !in_string && code.ends_with('\\');
        self.depth = self.depth.max(0);
        let depth = self.depth;
        LineShape {
            opens_block: depth == 0
                && !in_string
                && !self.backslash
                && last_significant == Some(':')
                && code.ends_with(':'),
            continues: depth > 0 || in_string || self.backslash,
            depth_after: depth,
            code,
        }
    }
}

/// The shape of one line on its own, `depth_before` brackets deep.
pub fn shape(line: &str, depth_before: i32) -> LineShape {
    let mut scanner = CodeScanner {
        depth: depth_before,
        ..CodeScanner::default()
    };
    scanner.line(line)
}

/// Where a scan of one line stands with respect to string literals: which
/// quote is open and whether the previous character was a backslash.
#[derive(Default)]
pub struct StringScan {
    pub quote: Option<char>,
    escaped: bool,
}

impl StringScan {
    /// Feed `c`; true when it is inside an open string literal (its closing
    /// quote included).
    pub fn in_string(&mut self, c: char) -> bool {
        let Some(q) = self.quote else {
            return false;
        };
        if self.escaped {
            self.escaped = false;
        } else if c == '\\' {
            self.escaped = true;
        } else if c == q {
            self.quote = None;
        }
        true
    }

    /// Feed `c` outside strings; true when it opens a string literal.
    pub fn opens(&mut self, c: char) -> bool {
        let is_quote = c == '"' || c == '\'';
        if is_quote {
            self.quote = Some(c);
        }
        is_quote
    }
}

pub fn keyword(code: &str) -> &str {
    code.split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or("")
}
