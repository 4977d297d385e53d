//! The limits every evaluation runs under: ytt's dialect, loads through
//! the engine only, a bounded call stack, a statement budget and a heap
//! limit, so an endless loop or a runaway list becomes a finding.

use starlark::environment::{GlobalsBuilder, Module};
use starlark::eval::{BeforeStmtFuncDyn, Evaluator, FileLoader};
use starlark::syntax::Dialect;
use starlark::values::{Heap, UnpackValue, Value};

/// Statements one rule call may run before it is stopped.
pub const STATEMENT_BUDGET: usize = 1_000_000;

pub fn dialect() -> Dialect {
    Dialect {
        enable_top_level_stmt: true,
        ..Dialect::Extended
    }
}

/// The most heap one evaluation may hold, checked between statements.
const HEAP_LIMIT_BYTES: usize = 64 * 1024 * 1024;

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
    ITERATIONS_LEFT.with(|l| l.set(ITERATION_BUDGET));
    let _ = eval.set_max_callstack_size(100);
    eval.before_stmt_for_dap(starlark::eval::BeforeStmtFunc::from_dyn(Box::new(Budget {
        left: STATEMENT_BUDGET,
    })));
    eval
}

/// The most a repetition (`"x" * n`, `[0] * n`) may make, in bytes (a list
/// element counted as 8): the heap limit, checked before allocating.
const REPEAT_LIMIT_BYTES: u64 = HEAP_LIMIT_BYTES as u64;

/// The size in bytes a sequence's repetition takes per repeat, if `value`
/// is a string, list or tuple.
fn unit_bytes(value: Value<'_>) -> Option<u64> {
    if let Some(text) = value.unpack_str() {
        return Some(text.len() as u64);
    }
    if let Some(list) = starlark::values::list::ListRef::from_value(value) {
        return Some(list.len() as u64 * 8);
    }
    starlark::values::tuple::TupleRef::from_value(value).map(|t| t.len() as u64 * 8)
}

/// Comprehension iterations one evaluation may run (its statements are
/// counted by the statement budget; a comprehension runs none).
const ITERATION_BUDGET: u64 = 1_000_000;

thread_local! {
    static ITERATIONS_LEFT: std::cell::Cell<u64> = const { std::cell::Cell::new(ITERATION_BUDGET) };
}

#[starlark::starlark_module]
pub fn guards(builder: &mut GlobalsBuilder) {
    /// A comprehension's iterable, its length drawn from the evaluation's
    /// iteration budget (see translate's `parse_guarded`).
    fn __ytt_iter<'v>(value: Value<'v>) -> starlark::Result<Value<'v>> {
        let Ok(length) = value.length() else {
            return Ok(value);
        };
        let length = length.max(0) as u64;
        let left = ITERATIONS_LEFT.with(|l| l.get());
        if length > left {
            return Err(starlark::Error::new_other(anyhow::anyhow!(
                "evaluation stopped after {ITERATION_BUDGET} comprehension iterations (a runaway comprehension?)"
            )));
        }
        ITERATIONS_LEFT.with(|l| l.set(left - length));
        Ok(value)
    }

    /// `a * b`, refusing a repetition that would pass the heap limit before
    /// it is made (see translate's `parse_guarded`).
    fn __ytt_mul<'v>(a: Value<'v>, b: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
        let repeat = match (unit_bytes(a), unit_bytes(b)) {
            (Some(unit), None) if b.get_type() == "int" => Some((unit, b)),
            (None, Some(unit)) if a.get_type() == "int" => Some((unit, a)),
            _ => None,
        };
        if let Some((unit, times)) = repeat {
            let times = i64::unpack_value(times).ok().flatten();
            let bytes = match times {
                Some(n) if n <= 0 => Some(0),
                Some(n) => unit.checked_mul(n as u64),
                None => None,
            };
            if bytes.is_none_or(|b| b > REPEAT_LIMIT_BYTES) {
                return Err(starlark::Error::new_other(anyhow::anyhow!(
                    "excessive repeat: the result would pass {} MiB",
                    REPEAT_LIMIT_BYTES / 1024 / 1024
                )));
            }
        }
        a.mul(b, heap)
    }
}
