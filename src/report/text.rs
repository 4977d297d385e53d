//! text output (stub, being written).
use super::{Emitter, Report};
use std::io::{self, Write};

pub struct TextEmitter { pub color: bool }

impl Emitter for TextEmitter {
    fn emit(&self, _out: &mut dyn Write, _report: &Report<'_>) -> io::Result<()> {
        Ok(())
    }
}
