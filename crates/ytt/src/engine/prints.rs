//! What code writes with ytt's `print`: ytt writes each line to standard
//! error as it runs. A render collects the lines of its package (a package
//! renders on one thread) and writes them before its output; outside a
//! render (lint) they are dropped.

use std::cell::RefCell;

/// The most text one render keeps from `print`; past it, lines are dropped
/// (a loop printing forever must not fill memory).
const MAX_PRINTED_BYTES: usize = 4 * 1024 * 1024;

thread_local! {
    static PRINTED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Run `f`, collecting what `print` writes on this thread meanwhile.
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, String) {
    let outer = PRINTED.with(|p| p.borrow_mut().replace(String::new()));
    let result = f();
    let printed = PRINTED.with(|p| std::mem::replace(&mut *p.borrow_mut(), outer));
    (result, printed.unwrap_or_default())
}

/// Run `f`, keeping what it prints apart (empty when nothing collects
/// prints), for [`replay`] where ytt prints it: confvet evaluates some
/// code in another order than ytt.
pub fn aside<R>(f: impl FnOnce() -> R) -> (R, String) {
    if PRINTED.with(|p| p.borrow().is_none()) {
        return (f(), String::new());
    }
    capture(f)
}

/// Run `f`; also give what it printed (empty when nothing collects prints).
pub fn recording<R>(f: impl FnOnce() -> R) -> (R, String) {
    let start = PRINTED.with(|p| p.borrow().as_ref().map(String::len));
    let result = f();
    let printed = PRINTED.with(|p| match (p.borrow().as_ref(), start) {
        (Some(out), Some(start)) => out.get(start..).unwrap_or_default().to_string(),
        _ => String::new(),
    });
    (result, printed)
}

/// One line printed by code: kept when a render collects them.
pub fn print_line(line: &str) {
    replay(&format!("{line}\n"));
}

/// Lines printed before, printed again (`lines` ends with a line break).
pub fn replay(lines: &str) {
    if lines.is_empty() {
        return;
    }
    PRINTED.with(|p| {
        if let Some(out) = p.borrow_mut().as_mut()
            && out.len() + lines.len() < MAX_PRINTED_BYTES
        {
            out.push_str(lines);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_kept_only_while_captured() {
        print_line("dropped");
        let ((), printed) = capture(|| {
            print_line("a");
            print_line("b c");
        });
        assert_eq!(printed, "a\nb c\n");
        print_line("dropped too");
        let ((), printed) = capture(|| ());
        assert_eq!(printed, "");
    }

    #[test]
    fn what_is_set_aside_prints_only_when_replayed() {
        let ((), printed) = capture(|| {
            let ((), later) = aside(|| print_line("second"));
            print_line("first");
            replay(&later);
        });
        assert_eq!(printed, "first\nsecond\n");
        assert_eq!(aside(|| print_line("dropped")).1, "");
    }

    #[test]
    fn a_recorded_evaluation_prints_again_when_replayed() {
        let ((), printed) = capture(|| {
            print_line("before");
            let ((), recorded) = recording(|| print_line("loaded"));
            assert_eq!(recorded, "loaded\n");
            replay(&recorded);
        });
        assert_eq!(printed, "before\nloaded\nloaded\n");
    }
}
