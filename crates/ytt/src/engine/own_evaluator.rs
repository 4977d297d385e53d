//! An evaluator of the engine's own, outside any template run: overlay
//! documents are applied once every template ran, and their matchers and
//! `via=` functions are called there, in the render session and with the
//! engine's limits.

use super::sandbox::sandboxed;
use super::{Engine, InterpreterFailed, Loader};
use crate::template::runtime::SessionGuard;
use starlark::environment::Module;

impl Engine {
    /// Run `f` on an evaluator of its own, in this engine's render session
    /// and with its limits (overlays applied after templates ran); Err when
    /// the interpreter failed (a value too large to make), as for a run.
    pub fn with_evaluator<T>(
        &self,
        f: impl for<'v, 'a, 'e> FnOnce(&mut starlark::eval::Evaluator<'v, 'a, 'e>) -> T,
    ) -> Result<T, InterpreterFailed> {
        let _session = SessionGuard::install(&self.session);
        let loader = Loader {
            engine: self,
            dir: self.root.clone(),
        };
        Module::with_temp_heap(|module| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut eval = sandboxed(&module, &loader);
                f(&mut eval)
            }))
            .map_err(|panic| InterpreterFailed(crate::watchdog::panic_message(&panic)))
        })
    }
}
