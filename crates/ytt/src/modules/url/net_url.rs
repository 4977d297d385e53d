//! A port of Go's `net/url`, as much of it as ytt's `@ytt:url` uses: what
//! each part of a URL escapes, unescaping with Go's errors, `url.Parse`
//! and `URL.String`, `Hostname`, `Userinfo.String`.

/// Go's `encoding` modes of `shouldEscape`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Path,
    PathSegment,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if (mode == Mode::Host || mode == Mode::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::PathSegment => return matches!(c, b'/' | b';' | b',' | b'?'),
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

pub(super) fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push('+');
        } else if should_escape(c, mode) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(c as char);
        }
    }
    out
}

/// Go's `strconv.Quote` for the short texts errors show.
fn quote(s: &str) -> String {
    format!("{s:?}")
}

/// Why a URL or an escaped text was refused, in Go's `net/url` words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum UrlError {
    /// A `%` without two hex digits, or an escape a host may not hold
    /// (the escape as written).
    #[error("invalid URL escape {}", quote(.0))]
    InvalidEscape(String),
    /// A character a host name may not hold.
    #[error("invalid character {} in host name", quote(.0))]
    InvalidHostCharacter(String),
    #[error("net/url: invalid control character in URL")]
    ControlCharacter,
    #[error("first path segment in URL cannot contain colon")]
    ColonInFirstSegment,
    #[error("missing protocol scheme")]
    MissingScheme,
    #[error("net/url: invalid userinfo")]
    InvalidUserinfo,
    #[error("missing ']' in host")]
    MissingBracket,
    /// What follows a host that is no `:port` (as written).
    #[error("invalid port {} after host", quote(.0))]
    InvalidPort(String),
    /// Go's `*url.Error` from `url.Parse`: the text parsed, and why.
    #[error("parse {}: {reason}", quote(.text))]
    Parse { text: String, reason: Box<UrlError> },
}

impl crate::modules::native::YttMessage for UrlError {}

impl UrlError {
    /// This error as `url.Parse` gives it for `text`.
    fn parsing(self, text: &str) -> UrlError {
        UrlError::Parse {
            text: text.to_string(),
            reason: Box::new(self),
        }
    }
}

pub(super) fn unescape(s: &str, mode: Mode) -> Result<String, UrlError> {
    let bytes = s.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                if i + 2 >= bytes.len()
                    || hex(bytes[i + 1]).is_none()
                    || hex(bytes[i + 2]).is_none()
                {
                    let bad = &s[i..(i + 3).min(s.len())];
                    return Err(UrlError::InvalidEscape(bad.to_string()));
                }
                let v = hex(bytes[i + 1]).unwrap_or(0) << 4 | hex(bytes[i + 2]).unwrap_or(0);
                let escaped = &s[i..i + 3];
                if mode == Mode::Host && v >> 4 < 8 && escaped != "%25" {
                    return Err(UrlError::InvalidEscape(escaped.to_string()));
                }
                if mode == Mode::Zone
                    && escaped != "%25"
                    && v != b' '
                    && should_escape(v, Mode::Host)
                {
                    return Err(UrlError::InvalidEscape(escaped.to_string()));
                }
                i += 3;
            }
            c => {
                if (mode == Mode::Host || mode == Mode::Zone) && c < 0x80 && should_escape(c, mode)
                {
                    return Err(UrlError::InvalidHostCharacter(s[i..i + 1].to_string()));
                }
                i += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                out.push(hex(bytes[i + 1]).unwrap_or(0) << 4 | hex(bytes[i + 2]).unwrap_or(0));
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Go's `url.URL`, as far as ytt shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Url {
    pub(super) scheme: String,
    opaque: String,
    pub(super) user: Option<(String, Option<String>)>,
    host: String,
    path: String,
    raw_path: String,
    omit_host: bool,
    force_query: bool,
    raw_query: String,
    fragment: String,
    raw_fragment: String,
}

/// Go's `url.Parse`; errors as Go's `*url.Error` prints them.
pub(super) fn parse_url(raw: &str) -> Result<Url, UrlError> {
    let (main, frag) = match raw.split_once('#') {
        Some((m, f)) => (m, Some(f)),
        None => (raw, None),
    };
    let mut url = parse_main(main).map_err(|e| e.parsing(main))?;
    if let Some(frag) = frag.filter(|f| !f.is_empty()) {
        let fragment = unescape(frag, Mode::Fragment).map_err(|e| e.parsing(raw))?;
        url.raw_fragment = if escape(&fragment, Mode::Fragment) == frag {
            String::new()
        } else {
            frag.to_string()
        };
        url.fragment = fragment;
    }
    Ok(url)
}

fn parse_main(raw: &str) -> Result<Url, UrlError> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err(UrlError::ControlCharacter);
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = "*".into();
        return Ok(url);
    }
    let (scheme, mut rest) = scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some((r, q)) = rest.split_once('?') {
        url.raw_query = q.to_string();
        rest = r;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            return Ok(url);
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err(UrlError::ColonInFirstSegment);
        }
    }
    if (!url.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let authority_and_path = &rest[2..];
        let (authority, path) = match authority_and_path.find('/') {
            Some(i) => authority_and_path.split_at(i),
            None => (authority_and_path, ""),
        };
        let (user, host) = parse_authority(authority)?;
        url.user = user;
        url.host = host;
        rest = path;
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        url.omit_host = true;
    }
    let path = unescape(rest, Mode::Path)?;
    url.raw_path = if escape(&path, Mode::Path) == rest {
        String::new()
    } else {
        rest.to_string()
    };
    url.path = path;
    Ok(url)
}

/// Go's `getScheme`.
fn scheme(raw: &str) -> Result<(&str, &str), UrlError> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err(UrlError::MissingScheme),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

type User = Option<(String, Option<String>)>;

fn parse_authority(authority: &str) -> Result<(User, String), UrlError> {
    let at = authority.rfind('@');
    let host = parse_host(at.map_or(authority, |i| &authority[i + 1..]))?;
    let Some(at) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..at];
    let valid = userinfo.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    });
    if !valid {
        return Err(UrlError::InvalidUserinfo);
    }
    let user = match userinfo.split_once(':') {
        None => (unescape(userinfo, Mode::UserPassword)?, None),
        Some((name, password)) => (
            unescape(name, Mode::UserPassword)?,
            Some(unescape(password, Mode::UserPassword)?),
        ),
    };
    Ok((Some(user), host))
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

fn parse_host(host: &str) -> Result<String, UrlError> {
    if host.starts_with('[') {
        let i = host.rfind(']').ok_or(UrlError::MissingBracket)?;
        let colon_port = &host[i + 1..];
        if !valid_optional_port(colon_port) {
            return Err(UrlError::InvalidPort(colon_port.to_string()));
        }
        if let Some(zone) = host[..i].find("%25") {
            return Ok(unescape(&host[..zone], Mode::Host)?
                + &unescape(&host[zone..i], Mode::Zone)?
                + &unescape(&host[i..], Mode::Host)?);
        }
    } else if let Some(i) = host.rfind(':') {
        let colon_port = &host[i..];
        if !valid_optional_port(colon_port) {
            return Err(UrlError::InvalidPort(colon_port.to_string()));
        }
    }
    unescape(host, Mode::Host)
}

impl Url {
    fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).as_deref() == Ok(self.path.as_str())
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".into();
        }
        escape(&self.path, Mode::Path)
    }

    fn escaped_fragment(&self) -> String {
        if !self.raw_fragment.is_empty()
            && valid_encoded(&self.raw_fragment, Mode::Fragment)
            && unescape(&self.raw_fragment, Mode::Fragment).as_deref() == Ok(self.fragment.as_str())
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Mode::Fragment)
    }

    /// Go's `URL.String`.
    pub(super) fn string(&self) -> String {
        let mut out = String::new();
        if !self.scheme.is_empty() {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if !self.opaque.is_empty() {
            out.push_str(&self.opaque);
        } else {
            let has_authority =
                !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            let omitted = self.omit_host && self.host.is_empty() && self.user.is_none();
            if has_authority && !omitted {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    out.push_str("//");
                }
                if let Some(user) = &self.user {
                    out.push_str(&user_string(user));
                    out.push('@');
                }
                if !self.host.is_empty() {
                    out.push_str(&escape(&self.host, Mode::Host));
                }
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                out.push('/');
            }
            if out.is_empty() && path.split('/').next().unwrap_or("").contains(':') {
                out.push_str("./");
            }
            out.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            out.push('?');
            out.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            out.push('#');
            out.push_str(&self.escaped_fragment());
        }
        out
    }

    /// Go's `URL.Hostname`.
    pub(super) fn hostname(&self) -> String {
        let mut host = self.host.as_str();
        if let Some(colon) = host.rfind(':')
            && valid_optional_port(&host[colon..])
        {
            host = &host[..colon];
        }
        if host.starts_with('[') && host.ends_with(']') && host.len() >= 2 {
            host = &host[1..host.len() - 1];
        }
        host.to_string()
    }
}

fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes().all(|c| {
        matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'['
                | b']'
                | b'%'
        ) || !should_escape(c, mode)
    })
}

/// Go's `Userinfo.String`.
pub(super) fn user_string((name, password): &(String, Option<String>)) -> String {
    let mut out = escape(name, Mode::UserPassword);
    if let Some(password) = password {
        out.push(':');
        out.push_str(&escape(password, Mode::UserPassword));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str) -> Result<String, UrlError> {
        parse_url(text).map(|u| u.string())
    }

    #[test]
    fn escapes_as_go_does() {
        // Expected values from the reference ytt.
        assert_eq!(
            escape("path path/other", Mode::PathSegment),
            "path%20path%2Fother"
        );
        assert_eq!(
            escape("val val/other", Mode::QueryComponent),
            "val+val%2Fother"
        );
        assert_eq!(escape("a b&c", Mode::QueryComponent), "a+b%26c");
        assert_eq!(
            unescape("val+val%2Fother", Mode::QueryComponent).unwrap(),
            "val val/other"
        );
        assert_eq!(unescape("a+b", Mode::PathSegment).unwrap(), "a+b");
        let error = |s| unescape(s, Mode::PathSegment).unwrap_err().to_string();
        assert_eq!(error("%zz"), "invalid URL escape \"%zz\"");
        assert_eq!(error("%4"), "invalid URL escape \"%4\"");
    }

    #[test]
    fn urls_parse_and_print_as_in_go() {
        assert_eq!(
            round_trip("http://admin:password@url.domain:8080").as_deref(),
            Ok("http://admin:password@url.domain:8080")
        );
        assert_eq!(
            round_trip("https://user:secret@example.com:8443/a/b?x=1&y=two#frag").as_deref(),
            Ok("https://user:secret@example.com:8443/a/b?x=1&y=two#frag")
        );
        assert_eq!(round_trip("HTTP://h/a b").as_deref(), Ok("http://h/a%20b"));
        assert_eq!(round_trip("mailto:x@y").as_deref(), Ok("mailto:x@y"));
        assert_eq!(round_trip("file:///etc").as_deref(), Ok("file:///etc"));
        assert_eq!(round_trip("/a/b%2fc").as_deref(), Ok("/a/b%2fc"));
        assert!(round_trip(":foo").is_err());
        assert!(round_trip("http://h:port").is_err());
        assert!(round_trip("a:b/c:d").is_ok());
        assert!(round_trip("x/c:d").is_ok());
        assert!(round_trip("c:d/x").is_ok());
        let url = parse_url("https://[2001:db8::1]:17000").unwrap();
        assert_eq!(url.hostname(), "2001:db8::1");
    }
}
