//! `@ytt:library` (ytt's `workspace/library_module.go`): `library.get(name)`
//! finds a private library in the package's `_ytt_lib`; the value it gives
//! is immutable, `with_data_values(values, plain=)` makes another, and
//! `eval()` renders the library as a package of its own (through the
//! session's library evaluator) into a document set; `data_values()` gives
//! its final data values; `with_data_values_schema(schema)` adds a schema
//! document. `export()` is not rendered yet: it says so, which render
//! failures report as a gap of confvet's, never as the package's error.

use super::Context;
use super::NOT_RENDERED;
use super::native::{Call, Failure, Native, NativeFn, Outcome, YttModule, native};
use crate::check::ytt::starlark::convert::{node_to_struct_value, value_to_node};
use crate::check::ytt::starlark::fragment::{Fragment, FragmentData};
use crate::check::ytt::template::runtime::{EvaluatedLibrary, LibraryInputs, with_current};
use crate::source::{FileId, Span};
use starlark::eval::Evaluator;
use starlark::values::{Heap, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// The most library evaluations one render makes.
const MAX_EVALUATIONS: usize = 100;

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    let members = [("get", "library.get", native!(get))];
    super::native::module(heap, "library", &members)
}

/// One library value: where the library is and what was given to it.
struct Library {
    name: String,
    dir: PathBuf,
    inputs: LibraryInputs,
}

fn get<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    call.one()?;
    let name = call.str_arg(0)?;
    for (kwarg, _) in &call.kwargs {
        match *kwarg {
            "alias" => {}
            "ignore_unknown_comments"
            | "implicit_map_key_overrides"
            | "strict"
            | "dangerous_data_values_disable_validation" => {
                return Err(format!("{kwarg}=: {NOT_RENDERED}").into());
            }
            other => return Err(format!("Unexpected kwarg '{other}'").into()),
        }
    }
    if name.starts_with('@') {
        return Err(format!("Expected library '{name}' to be specified without '@'").into());
    }
    let root = with_current(|s| s.root.clone()).map_err(Failure::Message)?;
    let private = root.join("_ytt_lib");
    if !private.is_dir() {
        return Err("Could not find private library (directory '_ytt_lib' missing?)".into());
    }
    // Piece by piece: ytt names the part of the path it did find.
    let pieces: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    let mut dir = private.clone();
    for (i, piece) in pieces.iter().enumerate() {
        dir = dir.join(piece);
        if matches!(*piece, "." | "..") || !dir.is_dir() {
            return Err(format!(
                "Expected to find library '{name}', but did not find '{}'",
                pieces[..i].join("/")
            )
            .into());
        }
    }
    Ok(library_value(
        call.heap,
        Library {
            name: name.to_string(),
            dir,
            inputs: LibraryInputs::default(),
        },
    ))
}

fn library_value(heap: Heap<'_>, library: Library) -> Value<'_> {
    let data: Arc<dyn std::any::Any + Send + Sync> = Arc::new(library);
    let member = |name: &'static str, call: NativeFn| {
        let builtin = heap.alloc(Native::with(name, call, Vec::new(), Some(data.clone())));
        (name.trim_start_matches("library.").to_string(), builtin)
    };
    let members = vec![
        member("library.with_data_values", native!(with_data_values)),
        member(
            "library.with_data_values_schema",
            native!(with_data_values_schema),
        ),
        member("library.eval", native!(eval)),
        member("library.export", native!(not_rendered)),
        member("library.data_values", native!(data_values)),
    ];
    heap.alloc(YttModule::new("library", members))
}

fn not_rendered<'v>(_: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    Err(NOT_RENDERED.into())
}

fn with_data_values<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let given = call.one()?;
    call.allow_kwargs(&["plain"])?;
    let plain = call.bool_kwarg("plain", false)?;
    let library = call.data::<Library>()?;
    let node =
        value_to_node(given, Span::file_start(FileId(u32::MAX))).map_err(Failure::Message)?;
    let mut inputs = library.inputs.clone();
    inputs.values.push((node, plain));
    Ok(library_value(call.heap, library.with(inputs)))
}

fn with_data_values_schema<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let given = call.one()?;
    let library = call.data::<Library>()?;
    let node =
        value_to_node(given, Span::file_start(FileId(u32::MAX))).map_err(Failure::Message)?;
    let mut inputs = library.inputs.clone();
    inputs.schemas.push(node);
    Ok(library_value(call.heap, library.with(inputs)))
}

impl Library {
    /// The same library with other inputs.
    fn with(&self, inputs: LibraryInputs) -> Library {
        Library {
            name: self.name.clone(),
            dir: self.dir.clone(),
            inputs,
        }
    }
}

/// Render the library, or ytt's error naming it.
fn evaluate(call: &Call<'_, '_>) -> Result<EvaluatedLibrary, Failure> {
    if !call.args.is_empty() {
        return Err("expected no arguments".into());
    }
    let library = call.data::<Library>()?;
    let (evaluator, files) = with_current(|s| {
        s.library_evaluations += 1;
        let evaluator = (s.library_evaluations <= MAX_EVALUATIONS).then_some(s.library_evaluator);
        (evaluator, s.inputs.clone())
    })
    .map_err(Failure::Message)?;
    let Some(evaluator) = evaluator else {
        return Err(
            format!("more than {MAX_EVALUATIONS} library evaluations in one render").into(),
        );
    };
    let Some(evaluator) = evaluator else {
        return Err(NOT_RENDERED.into());
    };
    let inputs = LibraryInputs {
        files,
        ..library.inputs.clone()
    };
    evaluator(&library.dir, &inputs)
        .map_err(|e| Failure::Message(format!("Evaluating library '{}': {e}", library.name)))
}

fn eval<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let evaluated = evaluate(call)?;
    Ok(call
        .heap
        .alloc(Fragment::new(FragmentData::Documents(evaluated.docs))))
}

fn data_values<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let evaluated = evaluate(call)?;
    Ok(node_to_struct_value(&evaluated.values, call.heap))
}
