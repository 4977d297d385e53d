//! Did-you-mean hints with a budget, shared by the run-time checks.

use crate::edit::Fix;
use crate::suggest::did_you_mean;
use std::cell::Cell;

/// Did-you-mean hints left for one spec: each costs a pass over the
/// candidates, so a hostile file with thousands of misses gets a few and
/// the work stays linear.
pub(super) struct Hints(Cell<usize>);

impl Hints {
    pub fn new() -> Hints {
        Hints(Cell::new(20))
    }

    /// The closest of `candidates`, while hints last.
    pub fn nearest(&self, name: &str, candidates: &[String]) -> Option<String> {
        let left = self.0.get();
        if left == 0 {
            return None;
        }
        self.0.set(left - 1);
        did_you_mean(name, candidates)
    }
}

/// The help that proposes `near`.
pub(super) fn hint(near: &str) -> String {
    format!("did you mean \"{near}\"?")
}

/// What a finding offers beyond its message: a did-you-mean and the fix
/// that makes it.
#[derive(Default)]
pub(super) struct Help {
    pub text: Option<String>,
    pub fix: Option<Fix>,
}
