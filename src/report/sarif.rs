//! sarif output (stub, being written).
use super::{Emitter, Report};
use std::io::{self, Write};

pub struct SarifEmitter;

impl Emitter for SarifEmitter {
    fn emit(&self, _out: &mut dyn Write, _report: &Report<'_>) -> io::Result<()> {
        Ok(())
    }
}
