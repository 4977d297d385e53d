//! Rewrites of ytt code that starlark-rust needs: `assert` is a reserved
//! word there, and `**x` takes only dicts.

use super::scan::{StringScan, keyword};

/// Rename `assert` outside strings, and turn `load("@ytt:assert", "assert")`
/// into `load("@ytt:assert", "assert_")` (the module exports `assert_`).
pub fn rename_assert(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + 8);
    let mut strings = StringScan::default();
    // Byte offsets, not a vector of chars: code may be megabytes long.
    let loads_assert = code.find("@ytt:assert");
    let mut at = 0;
    while let Some(c) = code[at..].chars().next() {
        if code[at..].starts_with("\"assert\"")
            && strings.quote.is_none()
            && loads_assert.is_some_and(|l| l + "@ytt:assert".len() <= at)
        {
            out.push_str("\"assert_\"");
            at += 8;
            continue;
        }
        if strings.in_string(c) || strings.opens(c) {
            out.push(c);
            at += c.len_utf8();
            continue;
        }
        let boundary_before = at == 0 || {
            let p = code[..at].chars().next_back().unwrap_or(' ');
            !(p.is_alphanumeric() || p == '_' || p == '.')
        };
        if boundary_before && code[at..].starts_with("assert") {
            let after = code[at + 6..].chars().next().unwrap_or(' ');
            if !(after.is_alphanumeric() || after == '_') {
                out.push_str("assert_");
                at += 6;
                continue;
            }
        }
        out.push(c);
        at += c.len_utf8();
    }
    out
}

/// ytt's `**x` takes any mapping (a struct, a fragment); starlark-rust's
/// takes dicts only. Outside `def` headers and lambda parameters, `**x` in a
/// call becomes `**__ytt_kwargs(x)`, which makes a dict of a mapping.
pub fn wrap_kwargs_splats(code: &str) -> String {
    if !code.contains("**") || keyword(code.trim_start()) == "def" {
        return code.to_string();
    }
    let mut out = String::with_capacity(code.len() + 16);
    let mut strings = StringScan::default();
    let mut at = 0;
    while let Some(c) = code[at..].chars().next() {
        if strings.in_string(c) || strings.opens(c) {
            out.push(c);
            at += c.len_utf8();
            continue;
        }
        if code[at..].starts_with("**")
            && matches!(code[..at].trim_end().chars().next_back(), Some('(' | ','))
            && let Some(end) = splat_end(code, at + 2)
        {
            out.push_str("**__ytt_kwargs(");
            out.push_str(&code[at + 2..end]);
            out.push(')');
            // Continue after the wrapped expression.
            at = end;
            continue;
        }
        out.push(c);
        at += c.len_utf8();
    }
    out
}

/// Where the expression after `**` at `start` ends: a `,` or a closing
/// bracket at its own depth. None when it ends at `:` (a lambda's
/// parameters) or with the line.
fn splat_end(code: &str, start: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut strings = StringScan::default();
    for (offset, c) in code[start..].char_indices() {
        if strings.in_string(c) || strings.opens(c) {
            continue;
        }
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return Some(start + offset),
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => return Some(start + offset),
            ':' if depth == 0 => return None,
            '#' => return None,
            _ => {}
        }
    }
    None
}
