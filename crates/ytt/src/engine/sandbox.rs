//! The limits every evaluation runs under: ytt's dialect, loads through
//! the engine only, a bounded call stack, a statement budget and a heap
//! limit, so an endless loop or a runaway list becomes a finding.

use starlark::environment::Module;
use starlark::eval::{BeforeStmtFuncDyn, Evaluator, FileLoader};
use starlark::syntax::Dialect;

/// Statements one rule call may run before it is stopped.
pub const STATEMENT_BUDGET: usize = 1_000_000;

pub fn dialect() -> Dialect {
    Dialect {
        enable_top_level_stmt: true,
        ..Dialect::Extended
    }
}

/// The most heap one evaluation may hold, checked between statements.
pub(super) const HEAP_LIMIT_BYTES: usize = 64 * 1024 * 1024;

/// Stops evaluation after a number of statements, or once its heap has
/// grown past [`HEAP_LIMIT_BYTES`].
struct Budget {
    left: usize,
}

impl<'e> BeforeStmtFuncDyn<'e> for Budget {
    fn call<'v>(
        &mut self,
        _span: starlark::codemap::FileSpanRef,
        _continued: bool,
        eval: &mut Evaluator<'v, '_, 'e>,
    ) -> starlark::Result<()> {
        if self.left == 0 {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "evaluation stopped after {STATEMENT_BUDGET} statements (an endless loop?)"
            )));
        }
        // The language server no longer wants this check: its document
        // changed.
        if crate::watchdog::cancelled() {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "evaluation cancelled"
            )));
        }
        self.left -= 1;
        // Memory that grows statement by statement (a loop appending to a
        // list, a string doubled in a loop) stops at the heap limit.
        if eval.heap().allocated_bytes() > HEAP_LIMIT_BYTES {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "evaluation stopped: its heap passed {} MiB",
                HEAP_LIMIT_BYTES / 1024 / 1024
            )));
        }
        Ok(())
    }
}

/// An evaluator with ytt's limits: loads through `loader` only, a bounded
/// call stack (recursion ends there) and the statement budget.
pub fn sandboxed<'v, 'a, 'e>(
    module: &'a Module<'v>,
    loader: &'a dyn FileLoader,
) -> Evaluator<'v, 'a, 'e> {
    let mut eval = Evaluator::new(module);
    eval.set_loader(loader);
    super::iterations::reset();
    let _ = eval.set_max_callstack_size(100);
    eval.before_stmt_for_dap(starlark::eval::BeforeStmtFunc::from_dyn(Box::new(Budget {
        left: STATEMENT_BUDGET,
    })));
    eval
}
