//! `@ytt:data`: `data.values` (the final data values, maps as structs;
//! an empty struct where ytt gives one: schema and data-values files),
//! `data.read(path)` and `data.list(path="")` over the package's files.

use super::files::{list_package_files, read_package_file};
use crate::modules::context::Context;
use crate::modules::native::{Call, Outcome, YttModule, as_str, builtin, native};
use crate::starlark::convert::node_to_struct_value;
use crate::starlark::ytt_struct::YttStruct;
use crate::template::runtime;
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};

pub fn module<'v>(heap: Heap<'v>, context: &Context) -> Value<'v> {
    let values = match context.data_values {
        Some(node) => node_to_struct_value(node, heap),
        None => heap.alloc(YttStruct::new(Vec::new())),
    };
    let members = vec![
        (
            "list".to_string(),
            builtin(heap, "data.list", native!(list)),
        ),
        (
            "read".to_string(),
            builtin(heap, "data.read", native!(read)),
        ),
        ("values".to_string(), values),
    ];
    heap.alloc(YttModule::new("data", members))
}

/// The folder of the file calling (ytt's current library), when known.
fn caller_dir(eval: &Evaluator<'_, '_, '_>) -> Option<std::path::PathBuf> {
    let caller = eval
        .call_stack_top_location()
        .map(|at| at.filename().to_string())?;
    runtime::with_current(|s| s.module_dirs.get(&caller).cloned())
        .ok()
        .flatten()
}

fn list<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    if call.args.len() > 1 {
        return Err("expected exactly zero or one argument".into());
    }
    let path = match call.args.first() {
        Some(v) => as_str(*v)?,
        None => "",
    };
    let files = list_package_files(path, caller_dir(eval).as_deref())?;
    Ok(call.heap.alloc(files))
}

fn read<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let path = as_str(call.one()?)?;
    let text = read_package_file(path, caller_dir(eval).as_deref())?;
    Ok(call.heap.alloc(text))
}
