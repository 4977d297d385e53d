//! The keyword arguments of `@overlay/match` that decide how many matches
//! it expects (`expects=`, `missing_ok=`, `when=`), and the defaults
//! `@overlay/match-child-defaults` passes down; checked in `expects`.

use starlark::values::Value;

/// The three keyword arguments that decide the expected number.
#[derive(Clone, Copy, Default)]
pub struct Expects<'v> {
    pub expects: Option<Value<'v>>,
    pub missing_ok: Option<Value<'v>>,
    pub when: Option<Value<'v>>,
}

/// What `@overlay/match-child-defaults` passes down.
pub type ChildDefaults<'v> = Expects<'v>;

impl<'v> Expects<'v> {
    /// Take one keyword argument; false when it is not one of these.
    pub fn take(&mut self, name: &str, value: Value<'v>) -> bool {
        match name {
            "expects" => self.expects = Some(value),
            "missing_ok" => self.missing_ok = Some(value),
            "when" => self.when = Some(value),
            _ => return false,
        }
        true
    }

    pub fn fill_in_defaults(&mut self, defaults: &Expects<'v>) {
        self.expects = self.expects.or(defaults.expects);
        self.missing_ok = self.missing_ok.or(defaults.missing_ok);
        self.when = self.when.or(defaults.when);
    }
}
