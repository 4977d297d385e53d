//! Where the evaluated arguments of overlay annotations live. ytt keeps
//! them on the nodes; here they are Starlark values, so they stay on the
//! heap of the run (module) that evaluated them: a list set as the module's
//! extra value, `[run number, kwargs, kwargs, ...]`, each `kwargs` a list of
//! `(name, value)` pairs. Output nodes carry only the handle
//! ([`EvaluatedArgs`]); once a run is frozen, the session keeps its module
//! by number ([`FrozenRuns`]) so later overlays (other templates,
//! post-processing) find it.

use crate::template::runtime::{RuntimeError, with_current};
use crate::yaml::EvaluatedArgs;
use starlark::environment::FrozenModule;
use starlark::eval::Evaluator;
use starlark::values::Value;
use starlark::values::list::{AllocList, ListRef};
use starlark::values::tuple::TupleRef;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

/// The runs that evaluated overlay annotations, once frozen, by number:
/// the registry's state in a render's session.
#[derive(Default)]
pub struct FrozenRuns(HashMap<u32, FrozenModule>);

/// The number the next run recording annotations gets.
static NEXT_RUN: AtomicU32 = AtomicU32::new(0);

/// Keep `kwargs` on the current run's heap; the handle to find them again.
pub fn record<'v>(
    eval: &mut Evaluator<'v, '_, '_>,
    kwargs: Vec<(String, Value<'v>)>,
) -> Result<EvaluatedArgs, RuntimeError> {
    let heap = eval.heap();
    let store = match eval.module().extra_value() {
        Some(store) => store,
        None => {
            // Numbers unique across sessions: a library's documents keep
            // their handles in the package that evaluates it.
            let run = NEXT_RUN.fetch_add(1, Ordering::Relaxed) % i32::MAX as u32 + 1;
            let store = heap.alloc(AllocList([heap.alloc(run)]));
            eval.module().set_extra_value(store);
            store
        }
    };
    let list = ListRef::from_value(store).ok_or(RuntimeError::AnnotationStore("is not a list"))?;
    let run = list
        .content()
        .first()
        .and_then(|v| v.unpack_i32())
        .ok_or(RuntimeError::AnnotationStore("without its run"))?;
    let index = list.len() - 1;
    let pairs: Vec<Value<'v>> = kwargs
        .into_iter()
        .map(|(k, v)| heap.alloc((heap.alloc(k), v)))
        .collect();
    let entry = heap.alloc(AllocList(pairs));
    let append = store
        .get_attr("append", heap)
        .map_err(|e| RuntimeError::Starlark(e.to_string()))?
        .ok_or(RuntimeError::AnnotationStore("cannot grow"))?;
    eval.eval_function(append, &[entry], &[])
        .map_err(|e| RuntimeError::Starlark(e.to_string()))?;
    Ok(EvaluatedArgs {
        run: run as u32,
        index: index as u32,
    })
}

/// A run is over: its module keeps the annotations it recorded.
pub fn keep_frozen(module: &FrozenModule) {
    let Some(store) = module.extra_value() else {
        return;
    };
    let run = ListRef::from_value(store.to_value())
        .and_then(|l| l.content().first().and_then(|v| v.unpack_i32()));
    if let Some(run) = run {
        let _ = with_current(|s| s.state::<FrozenRuns>().0.insert(run as u32, module.clone()));
    }
}

/// The runs of `library` (a library's session, once evaluated) known to
/// the running session too: the annotations of the documents `eval()`
/// gives keep their arguments there.
pub fn adopt_runs(library: &crate::template::runtime::SharedSession) {
    let Ok(library) = library.try_borrow() else {
        return;
    };
    let _ = with_current(|s| {
        let Some(FrozenRuns(runs)) = library.state_ref::<FrozenRuns>() else {
            return;
        };
        let own = &mut s.state::<FrozenRuns>().0;
        for (run, module) in runs {
            own.entry(*run).or_insert_with(|| module.clone());
        }
    });
}

/// The keyword arguments recorded under `at`, on `eval`'s heap; None when
/// the run is unknown.
pub fn kwargs<'v>(
    eval: &mut Evaluator<'v, '_, '_>,
    at: EvaluatedArgs,
) -> Option<Vec<(String, Value<'v>)>> {
    let live = eval
        .module()
        .extra_value()
        .filter(|store| run_of(*store) == Some(at.run));
    let store = match live {
        Some(store) => store,
        None => {
            let module = with_current(|s| s.state::<FrozenRuns>().0.get(&at.run).cloned())
                .ok()
                .flatten()?;
            eval.frozen_heap().add_reference(module.frozen_heap());
            module.extra_value()?.to_value()
        }
    };
    let entry = *ListRef::from_value(store)?
        .content()
        .get(at.index as usize + 1)?;
    ListRef::from_value(entry)?
        .content()
        .iter()
        .map(|pair| {
            let pair = TupleRef::from_value(*pair)?;
            let name = pair.content().first()?.unpack_str()?.to_string();
            Some((name, *pair.content().get(1)?))
        })
        .collect()
}

fn run_of(store: Value<'_>) -> Option<u32> {
    ListRef::from_value(store)?
        .content()
        .first()?
        .unpack_i32()
        .map(|r| r as u32)
}
