//! `file://` URIs of absolute paths, and the paths they name, for the
//! language server's documents and SARIF's artifact locations. `url`'s own
//! `Url::from_file_path` and `to_file_path` follow the platform they are
//! built for, so Windows paths could only be tested on Windows; here the
//! path syntax is an argument, and the platform's own syntax is held to
//! agree with `url`'s conversions (tested).

use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use url::Url;

/// How a platform writes paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `/work/a.yaml`
    Unix,
    /// `C:\work\a.yaml`, `\\server\share\a.yaml`, `\\?\C:\work\a.yaml`;
    /// `/` separates as `\` does.
    Windows,
}

impl Syntax {
    /// The syntax of the platform confvet runs on.
    pub const NATIVE: Syntax = if cfg!(windows) {
        Syntax::Windows
    } else {
        Syntax::Unix
    };
}

/// What `url` encodes in a file path's segment (its private
/// `SPECIAL_PATH_SEGMENT`: the WHATWG path set, `/`, `%` and `\`).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'`')
    .add(b'#')
    .add(b'?')
    .add(b'{')
    .add(b'}')
    .add(b'/')
    .add(b'%')
    .add(b'\\');

/// The `file://` URL of absolute `path` written in `syntax`: None when it
/// is relative (a Windows path without a drive or server is), or names a
/// server that is no host name.
pub fn from_path(path: &str, syntax: Syntax) -> Option<Url> {
    let mut text = String::from("file://");
    // A URL's path is never empty, and a drive alone is `C:/`.
    let (rest, separators, ends_in_slash): (&str, &[char], bool) = match syntax {
        Syntax::Unix => (path.strip_prefix('/')?, &['/'], true),
        Syntax::Windows => {
            let (root, rest) = windows_root(path)?;
            let is_drive = matches!(root, Root::Drive(_));
            match root {
                Root::Drive(letter) => {
                    text.push('/');
                    text.push(letter);
                    text.push(':');
                }
                Root::Share(server, share) => {
                    text.push_str(server);
                    text.push('/');
                    text.extend(utf8_percent_encode(share, SEGMENT));
                }
            }
            (rest, &['\\', '/'], is_drive)
        }
    };
    let mut segments = rest
        .split(separators)
        .filter(|segment| !segment.is_empty() && *segment != ".")
        .peekable();
    if segments.peek().is_none() && ends_in_slash {
        text.push('/');
    }
    for segment in segments {
        text.push('/');
        text.extend(utf8_percent_encode(segment, SEGMENT));
    }
    Url::parse(&text).ok()
}

/// The absolute path, in `syntax`, that a `file:` URL names: None for
/// another scheme, a server on Unix, a Windows path without a drive or
/// server, or a name that is not UTF-8 once decoded.
pub fn to_path(url: &Url, syntax: Syntax) -> Option<String> {
    if url.scheme() != "file" {
        return None;
    }
    let host = url.host_str().filter(|host| *host != "localhost");
    let mut segments = url.path_segments()?;
    let mut path = String::new();
    let separator = match syntax {
        Syntax::Unix if host.is_some() => return None,
        Syntax::Unix => '/',
        Syntax::Windows => {
            if let Some(host) = host {
                path.push_str(r"\\");
                path.push_str(host);
            } else {
                // `C:`, or `c%3A` as some clients write it.
                let first = segments.next()?;
                let letter = first.chars().next().filter(char::is_ascii_alphabetic)?;
                if !matches!(&first[1..], ":" | "%3A" | "%3a") {
                    return None;
                }
                path.push(letter);
                path.push(':');
            }
            '\\'
        }
    };
    for segment in segments {
        path.push(separator);
        path.push_str(&percent_decode_str(segment).decode_utf8().ok()?);
    }
    Some(path)
}

/// Where an absolute Windows path starts from.
enum Root<'a> {
    Drive(char),
    Share(&'a str, &'a str),
}

/// The root of an absolute Windows path and the rest after it.
fn windows_root(path: &str) -> Option<(Root<'_>, &str)> {
    let is_separator = |c: char| c == '\\' || c == '/';
    if let Some(rest) = path
        .strip_prefix(r"\\?\UNC\")
        .or_else(|| {
            path.strip_prefix(r"\\")
                .filter(|rest| !rest.starts_with(r"?\"))
        })
        .or_else(|| path.strip_prefix("//"))
    {
        let (server, rest) = rest.split_once(is_separator)?;
        let (share, rest) = rest.split_once(is_separator).unwrap_or((rest, ""));
        return (!server.is_empty() && !share.is_empty())
            .then_some((Root::Share(server, share), rest));
    }
    let disk = path.strip_prefix(r"\\?\").unwrap_or(path);
    let mut chars = disk.chars();
    let letter = chars.next().filter(char::is_ascii_alphabetic)?;
    let rest = chars.as_str().strip_prefix(':')?;
    rest.starts_with(is_separator)
        .then_some((Root::Drive(letter), rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(path: &str, syntax: Syntax) -> String {
        from_path(path, syntax).map_or("(none)".into(), String::from)
    }

    fn path(uri: &str, syntax: Syntax) -> Option<String> {
        to_path(&Url::parse(uri).unwrap(), syntax)
    }

    #[test]
    fn windows_paths_are_uris_with_a_drive_or_a_server() {
        let windows = Syntax::Windows;
        let cases = [
            (r"C:\work\a.yaml", "file:///C:/work/a.yaml"),
            (
                r"C:/work/my repo/é.yaml",
                "file:///C:/work/my%20repo/%C3%A9.yaml",
            ),
            (r"C:\", "file:///C:/"),
            (r"d:\x#1\100%.yml", "file:///d:/x%231/100%25.yml"),
            (r"\\?\C:\work\a.yaml", "file:///C:/work/a.yaml"),
            (r"\\server\share\a.yaml", "file://server/share/a.yaml"),
            (r"\\?\UNC\server\share\a.yaml", "file://server/share/a.yaml"),
        ];
        for (path, expected) in cases {
            assert_eq!(uri(path, windows), expected, "{path}");
        }
        for relative in [
            r"work\a.yaml",
            r"C:a.yaml",
            "C:",
            r"\work\a.yaml",
            r"\\server",
        ] {
            assert_eq!(uri(relative, windows), "(none)", "{relative}");
        }
    }

    #[test]
    fn windows_uris_are_paths_with_a_drive_or_a_server() {
        let windows = Syntax::Windows;
        let round_trip = [
            r"C:\work\a.yaml",
            r"C:\work\my repo\é #1 100%.yaml",
            r"\\server\share\a.yaml",
        ];
        for original in round_trip {
            let uri = from_path(original, windows).unwrap();
            assert_eq!(to_path(&uri, windows).as_deref(), Some(original));
        }
        // As VS Code writes them.
        assert_eq!(
            path("file:///c%3A/work/a.yaml", windows).as_deref(),
            Some(r"c:\work\a.yaml")
        );
        assert_eq!(
            path("file://localhost/C:/a.yaml", windows).as_deref(),
            Some(r"C:\a.yaml")
        );
        assert_eq!(path("file:///work/a.yaml", windows), None, "no drive");
        assert_eq!(path("https://x/C:/a.yaml", windows), None);
    }

    #[test]
    fn unix_paths_and_uris() {
        let unix = Syntax::Unix;
        assert_eq!(
            uri("/work/my repo/é.yaml", unix),
            "file:///work/my%20repo/%C3%A9.yaml"
        );
        assert_eq!(uri("/", unix), "file:///");
        assert_eq!(uri("work/a.yaml", unix), "(none)");
        assert_eq!(
            path("file:///a%20b/%C3%A9", unix).as_deref(),
            Some("/a b/é")
        );
        assert_eq!(path("file://server/a", unix), None);
        assert_eq!(path("file:///a/%FF", unix), None, "not UTF-8");
    }

    /// The platform's syntax is `url`'s own conversion.
    #[test]
    fn the_native_syntax_agrees_with_url() {
        let paths: &[&str] = if cfg!(windows) {
            &[
                r"C:\work\a.yaml",
                r"C:\",
                r"\\server\share\a b\é.yaml",
                r"C:\x\100%#?{}`.yml",
            ]
        } else {
            &[
                "/work/a.yaml",
                "/",
                "/a b/é/c\\d.yaml",
                "/x/100%#?{}`!$&'()*+,;=@[]:|.yml",
            ]
        };
        for path in paths {
            let ours = from_path(path, Syntax::NATIVE).unwrap();
            assert_eq!(
                Some(&ours),
                Url::from_file_path(path).ok().as_ref(),
                "{path}"
            );
            let back = to_path(&ours, Syntax::NATIVE).map(std::path::PathBuf::from);
            assert_eq!(back, ours.to_file_path().ok(), "{path}");
        }
    }
}
