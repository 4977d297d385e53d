//! The iteration budget: work that runs no statement, so the statement
//! budget never sees it. A comprehension (`[0 for a in range(10**6) for b
//! in range(10**6)]`, see translate's `parse_guarded`) and the builtins that
//! walk a whole iterable (`list(range(10**9))`, `max(range(10**12))`,
//! `sorted`, `zip`…) draw the length of what they walk from one budget per
//! evaluation, and stop with a finding once it is spent.

use starlark::environment::GlobalsBuilder;
use starlark::eval::Evaluator;
use starlark::values::dict::DictRef;
use starlark::values::tuple::UnpackTuple;
use starlark::values::{Heap, Value};

/// Iterations one evaluation may run outside statements.
const ITERATION_BUDGET: u64 = 1_000_000;

thread_local! {
    static ITERATIONS_LEFT: std::cell::Cell<u64> = const { std::cell::Cell::new(ITERATION_BUDGET) };
}

/// A new evaluation starts with the whole budget.
pub(super) fn reset() {
    ITERATIONS_LEFT.with(|l| l.set(ITERATION_BUDGET));
}

fn spent() -> starlark::Error {
    starlark::Error::new_other(anyhow::anyhow!(
        "evaluation stopped after {ITERATION_BUDGET} comprehension iterations and items walked by builtins (a runaway comprehension?)"
    ))
}

/// Draw what walking `value` takes from the budget: its length, or, for an
/// iterable without one, its items counted (never more than are left).
/// Strings are not iterable; other values are left to the caller.
pub(super) fn draw_iterations<'v>(value: Value<'v>, heap: Heap<'v>) -> starlark::Result<()> {
    if value.unpack_str().is_some() {
        return Ok(());
    }
    let left = ITERATIONS_LEFT.with(|l| l.get());
    let length = match value.length() {
        Ok(length) => length.max(0) as u64,
        Err(_) => match value.iterate(heap) {
            Ok(items) => items.take(left as usize + 1).count() as u64,
            Err(_) => return Ok(()),
        },
    };
    if length > left {
        return Err(spent());
    }
    ITERATIONS_LEFT.with(|l| l.set(left - length));
    Ok(())
}

/// `name(args…)` with each positional argument drawn from the budget,
/// then the original builtin called as written.
fn walked<'v>(
    name: &str,
    args: &[Value<'v>],
    kwargs: DictRef<'v>,
    eval: &mut Evaluator<'v, '_, '_>,
) -> starlark::Result<Value<'v>> {
    for arg in args {
        draw_iterations(*arg, eval.heap())?;
    }
    super::originals::call(name, args, kwargs, eval)
}

/// One override per builtin that walks its arguments.
macro_rules! walking {
    ($($name:ident),*) => {
        #[starlark::starlark_module]
        pub fn guards(builder: &mut GlobalsBuilder) {
            /// A comprehension's iterable, its length drawn from the
            /// budget (see translate's `parse_guarded`).
            fn __ytt_iter<'v>(value: Value<'v>, heap: Heap<'v>) -> starlark::Result<Value<'v>> {
                draw_iterations(value, heap)?;
                Ok(value)
            }
            $(
                fn $name<'v>(
                    #[starlark(args)] args: UnpackTuple<Value<'v>>,
                    #[starlark(kwargs)] kwargs: DictRef<'v>,
                    eval: &mut Evaluator<'v, '_, '_>,
                ) -> starlark::Result<Value<'v>> {
                    walked(stringify!($name), &args.items, kwargs, eval)
                }
            )*
        }
    };
}

walking!(
    list, tuple, dict, set, sorted, reversed, enumerate, zip, max, min, any, all
);
