//! github output (stub, being written).
use super::{Emitter, Report};
use std::io::{self, Write};

pub struct GithubEmitter;

impl Emitter for GithubEmitter {
    fn emit(&self, _out: &mut dyn Write, _report: &Report<'_>) -> io::Result<()> {
        Ok(())
    }
}
