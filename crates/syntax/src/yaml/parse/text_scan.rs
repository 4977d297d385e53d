//! Scans of the source bytes for what the parser's events leave out: the
//! `-` of a sequence entry, a block scalar's `|`/`>` header and whether
//! its last line ends in a line break.

pub(super) fn byte_start(span: &granit_parser::Span) -> usize {
    span.start.byte_offset().unwrap_or(0)
}

pub(super) fn byte_end(span: &granit_parser::Span) -> usize {
    span.end.byte_offset().unwrap_or(0).max(byte_start(span))
}

pub(super) fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// The `-` of a block sequence entry whose content (with its properties)
/// starts at `pos`: scan back over blanks and comments.
pub(super) fn find_dash(b: &[u8], pos: usize) -> Option<usize> {
    let mut p = pos.min(b.len());
    loop {
        while p > 0 && is_blank(b[p - 1]) {
            p -= 1;
        }
        if p == 0 {
            return None;
        }
        if b[p - 1] == b'-' && (p == pos || b.get(p).is_none_or(|&c| is_blank(c))) {
            return Some(p - 1);
        }
        // Perhaps the end of a comment: its line holds only blanks, `-`
        // markers and the comment, so the first `#` after a blank starts it.
        let line_start = b[..p]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let line = &b[line_start..p];
        let hash = (0..line.len())
            .find(|&i| line[i] == b'#' && (i == 0 || matches!(line[i - 1], b' ' | b'\t')))?;
        p = line_start + hash;
    }
}

/// Whether the block scalar whose header is at `header` (and whose events
/// end at `end`) runs to the end of a file that does not end with a line
/// break, its last line being content (indented deeper than the block):
/// that line has no line break for the scalar to keep.
pub(super) fn ends_in_last_line_unbroken(b: &[u8], header: usize, end: usize) -> bool {
    if matches!(b.last(), None | Some(b'\n' | b'\r'))
        || !b
            .get(end..)
            .unwrap_or_default()
            .iter()
            .all(|&c| c == b' ' || c == b'\t')
    {
        return false;
    }
    let Some(header_end) = b
        .get(header..)
        .and_then(|r| r.iter().position(|&c| c == b'\n'))
    else {
        return false;
    };
    let header_end = header + header_end;
    let body = &b[header_end + 1..];
    // An explicit indentation indicator (`|2`): the indentation counts
    // from the parent's, which the text here does not give; a last line
    // with anything but blanks is content whatever it is.
    if b[header..header_end].iter().any(u8::is_ascii_digit) {
        let last_line = body.rsplit(|&c| c == b'\n').next().unwrap_or_default();
        return last_line
            .iter()
            .any(|&c| !matches!(c, b' ' | b'\t' | b'\r'));
    }
    let Some(indent) = body
        .split(|&c| c == b'\n')
        .find(|line| line.iter().any(|&c| c != b' ' && c != b'\r'))
        .map(|line| line.iter().take_while(|&&c| c == b' ').count())
    else {
        return false;
    };
    let last_line = body.rsplit(|&c| c == b'\n').next().unwrap_or_default();
    last_line.len() > indent && last_line.iter().take(indent).all(|&c| c == b' ')
}

/// The `|` or `>` header of a block scalar whose content starts at `content`.
pub(super) fn block_scalar_header(b: &[u8], content: usize) -> Option<usize> {
    let mut p = content.min(b.len());
    while p > 0 && is_blank(b[p - 1]) {
        p -= 1;
    }
    let line_start = b[..p]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let line = &b[line_start..p];
    (0..line.len()).find_map(|i| {
        if !matches!(line[i], b'|' | b'>') || (i > 0 && !matches!(line[i - 1], b' ' | b'\t')) {
            return None;
        }
        let mut j = i + 1;
        while j < line.len() && matches!(line[j], b'0'..=b'9' | b'+' | b'-') {
            j += 1;
        }
        let rest = &line[j..];
        let after = rest
            .iter()
            .position(|&c| !matches!(c, b' ' | b'\t' | b'\r'));
        let ok = match after {
            None => true,
            Some(k) => k > 0 && rest[k] == b'#',
        };
        ok.then_some(line_start + i)
    })
}
