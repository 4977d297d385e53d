//! The value `template.replace()` returns: setting it on a node does
//! nothing, since the replacement already happened (ytt's `StarlarkNoop`).

use allocative::Allocative;
use starlark::values::{NoSerialize, ProvidesStaticType, StarlarkValue, starlark_value};
use std::fmt;

pub const NOOP_TYPE: &str = "noop";

#[derive(Debug, ProvidesStaticType, NoSerialize, Allocative)]
pub struct Noop;

starlark::starlark_simple_value!(Noop);

impl fmt::Display for Noop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("noop")
    }
}

#[starlark_value(type = NOOP_TYPE)]
impl<'v> StarlarkValue<'v> for Noop {}
