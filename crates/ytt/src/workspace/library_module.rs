//! `@ytt:library` (ytt's `workspace/library_module.go`): `library.get(name,
//! alias=, ignore_unknown_comments=, implicit_map_key_overrides=, strict=,
//! dangerous_data_values_disable_validation=)` finds a private library in
//! the package's `_ytt_lib`; the value it gives is immutable,
//! `with_data_values(values, plain=)` and `with_data_values_schema(schema)`
//! make others, `eval()` renders the library as a package of its own
//! (through the session's library evaluator) into a document set,
//! `data_values()` gives its final data values and `export(name, path=)` a
//! global of one of its library files. What the package addresses to its
//! libraries (`#@library/ref`, `--data-value @lib:...`) goes to the library
//! it names, in ytt's order: the library's own values, then the parent's
//! addressed documents and flags, then `with_data_values(...)`, then
//! documents marked `after_library_module=True`.

use super::addressed::{Addressed, LibraryOptions, LibraryRef, ValuesDoc};
use super::execution::{EvaluatedLibrary, LibraryInputs, LibraryState};
use crate::modules::context::Context;
use crate::modules::native::{
    Call, Failure, FrozenNative, Native, NativeFn, Outcome, YttModule, as_str, native,
};
use crate::overlay::merge_mode::MergeMode;
use crate::source::{FileId, Span};
use crate::starlark::NOT_RENDERED;
use crate::starlark::convert::{node_to_struct_value, value_to_node};
use crate::starlark::fragment::{Fragment, FragmentData};
use crate::starlark::ytt_struct::FrozenYttStruct;
use crate::template::runtime::{SessionGuard, with_current};
use crate::yaml::Document;
use starlark::eval::Evaluator;
use starlark::values::dict::{AllocDict, DictRef};
use starlark::values::list::{AllocList, ListRef};
use starlark::values::tuple::{AllocTuple, TupleRef};
use starlark::values::{FrozenHeap, FrozenValue, Heap, OwnedFrozenValue, Value};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most library evaluations one render makes.
const MAX_EVALUATIONS: usize = 100;

pub fn module<'v>(heap: Heap<'v>, _: &Context) -> Value<'v> {
    let members = [("get", "library.get", native!(get))];
    crate::modules::native::module(heap, "library", &members)
}

/// One library value: where the library is and what was given to it.
#[derive(Clone)]
struct Library {
    reference: LibraryRef,
    dir: PathBuf,
    values: Vec<Addressed<ValuesDoc>>,
    schemas: Vec<Addressed<Document>>,
    options: LibraryOptions,
}

fn nowhere() -> Span {
    Span::file_start(FileId(u32::MAX))
}

fn get<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    call.one()?;
    let name = call.str_arg(0)?;
    // The libraries of the calling file's folder (ytt's current library).
    let caller = eval
        .call_stack_top_location()
        .map(|at| at.filename().to_string());
    let (values, schemas, mut options, root, named) = with_current(|s| {
        let libraries = s.state::<LibraryState>();
        let (values, schemas, options) = (
            libraries.values.clone(),
            libraries.schemas.clone(),
            libraries.options,
        );
        let dir = caller
            .and_then(|module| s.module_dirs.get(&module))
            .filter(|dir| dir.starts_with(&s.root))
            .unwrap_or(&s.root);
        // With the input files named, a `_ytt_lib` folder is one only
        // when a file's name has it (ytt builds libraries from names).
        let private = crate::source::normalize_path(&dir.join("_ytt_lib"));
        let named = s.library_files.as_ref().map(|files| {
            files.iter().any(|(name, path)| {
                crate::source::normalize_path(path).starts_with(&private)
                    && crate::marks::name_in_ytt_lib(name)
            })
        });
        (values, schemas, options, dir.clone(), named)
    })?;
    let mut alias = String::new();
    for (kwarg, value) in &call.kwargs {
        match *kwarg {
            "alias" => alias = as_str(*value)?.to_string(),
            "ignore_unknown_comments" => {
                options.ignore_unknown_comments = call.bool_kwarg(kwarg, false)?
            }
            "implicit_map_key_overrides" => {
                options.implicit_map_key_overrides = call.bool_kwarg(kwarg, false)?
            }
            "strict" => options.strict = call.bool_kwarg(kwarg, false)?,
            "dangerous_data_values_disable_validation" => {
                options.skip_validation |= call.bool_kwarg(kwarg, false)?
            }
            other => return Err(format!("Unexpected kwarg '{other}'").into()),
        }
    }
    if name.starts_with('@') {
        return Err(format!("Expected library '{name}' to be specified without '@'").into());
    }
    let private = root.join("_ytt_lib");
    if !private.is_dir() || named == Some(false) {
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
        if *piece == "_ytt_lib" {
            return Err(
                format!("Could not load private library '{}'", pieces[..i].join("/")).into(),
            );
        }
    }
    Ok(library_value(
        call.heap,
        Library {
            reference: LibraryRef {
                path: name.to_string(),
                alias,
            },
            dir,
            values,
            schemas,
            options,
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
        member("library.export", native!(export)),
        member("library.data_values", native!(data_values)),
    ];
    heap.alloc(YttModule::new("library", members))
}

fn with_data_values<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let given = call.one()?;
    call.allow_kwargs(&["plain"])?;
    let plain = call.bool_kwarg("plain", false)?;
    let mut library = call.data::<Library>()?.clone();
    let node = value_to_node(given, nowhere())?;
    if plain && has_annotations(&node) {
        return Err(
            "Expected to be plain YAML, having no annotations (hint: remove comments starting with `#@`)"
                .into(),
        );
    }
    let doc = ValuesDoc {
        node,
        comments: Vec::new(),
        mode: MergeMode {
            implicit_missing_ok: plain,
            arrays_replace: plain,
        },
    };
    library.values.push(Addressed::unaddressed(doc, nowhere()));
    Ok(library_value(call.heap, library))
}

/// Whether a YAML fragment given as data values carries annotations.
fn has_annotations(node: &crate::yaml::Node) -> bool {
    node.any_item_comments(&|comments| {
        comments
            .iter()
            .any(|c| matches!(c.kind, crate::yaml::CommentKind::Annotation { .. }))
    })
}

fn with_data_values_schema<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let given = call.one()?;
    let mut library = call.data::<Library>()?.clone();
    let node = value_to_node(given, nowhere())?;
    let doc = Document {
        span: node.span,
        has_start_marker: true,
        value: node,
        comments: Vec::new(),
    };
    library.schemas.push(Addressed::unaddressed(doc, nowhere()));
    Ok(library_value(call.heap, library))
}

impl Library {
    /// ytt's `librarySchemas` and `libraryValues`: what of the given is for
    /// this library (its values in merge order), and what goes on through it.
    fn inputs(&self, values_only: bool) -> LibraryInputs {
        let mut inputs = LibraryInputs {
            options: self.options,
            values_only,
            is_library: true,
            ..LibraryInputs::default()
        };
        let mut after = Vec::new();
        for given in &self.values {
            let Some(copy) = given.used_in(&self.reference) else {
                continue;
            };
            if !copy.refs.is_empty() {
                inputs.child_values.push(copy);
            } else if copy.after_library_module {
                after.push(copy.item);
            } else {
                inputs.values.push(copy.item);
            }
        }
        inputs.values.extend(after);
        for given in &self.schemas {
            match given.used_in(&self.reference) {
                Some(copy) if copy.refs.is_empty() => inputs.schemas.push(copy.item),
                Some(copy) => inputs.child_schemas.push(copy),
                None => {}
            }
        }
        inputs
    }
}

/// Evaluate the library: everything (`eval`, `export`) or its data values
/// only (`data_values`); errors name the library as ytt does.
fn evaluate(call: &Call<'_, '_>, values_only: bool) -> Result<EvaluatedLibrary, Failure> {
    let library = call.data::<Library>()?;
    // ytt's `librarySchemas` keeps a nil for each schema addressed to
    // another library, and its evaluation then stops on it.
    if !values_only
        && library.schemas.iter().any(|s| {
            s.refs
                .first()
                .is_some_and(|r| !r.matches(&library.reference))
        })
    {
        return Err("runtime error: invalid memory address or nil pointer dereference (ytt stops so when a schema addressed to another library is given to this one)".into());
    }
    let inputs = library.inputs(values_only);
    // The same library with the same inputs evaluates to the same: a
    // template calling `export()` in a loop evaluates it once.
    let key = format!("{}\n{inputs:?}", library.dir.display());
    let cached = with_current(|s| {
        s.state::<LibraryState>()
            .cache
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, found)| found.clone())
    })?;
    if let Some(found) = cached {
        return Ok(found);
    }
    let (evaluator, files) = with_current(|s| {
        let libraries = s.state::<LibraryState>();
        libraries.evaluations += 1;
        let evaluator = (libraries.evaluations <= MAX_EVALUATIONS).then_some(libraries.evaluator);
        (evaluator, (s.inputs.clone(), s.files.clone()))
    })?;
    let Some(evaluator) = evaluator else {
        return Err(format!(
            "more than {MAX_EVALUATIONS} library evaluations in one render: {NOT_RENDERED}"
        )
        .into());
    };
    let Some(evaluator) = evaluator else {
        return Err(NOT_RENDERED.into());
    };
    let (files, file_layer) = files;
    let inputs = LibraryInputs {
        files,
        file_layer,
        ..inputs
    };
    let evaluated =
        evaluator(&library.dir, &inputs).map_err(|e| Failure::Message(e.to_string()))?;
    with_current(|s| {
        s.state::<LibraryState>()
            .cache
            .push((key, evaluated.clone()))
    })?;
    Ok(evaluated)
}

/// ytt's prefix for the errors of `eval()` or of `export()` and
/// `data_values()`.
fn described(call: &Call<'_, '_>, what: &str, failure: Failure) -> Failure {
    let name = call
        .data::<Library>()
        .map(|l| l.reference.display())
        .unwrap_or_default();
    match failure {
        Failure::Message(message) => {
            Failure::Message(format!("{what} library '{name}': {message}"))
        }
        other => other,
    }
}

fn no_arguments(call: &Call<'_, '_>) -> Result<(), Failure> {
    if call.args.is_empty() {
        Ok(())
    } else {
        Err("expected no arguments".into())
    }
}

fn eval<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let evaluated = no_arguments(call)
        .and_then(|()| evaluate(call, false))
        .map_err(|f| described(call, "Evaluating", f))?;
    if let Some(session) = &evaluated.session {
        crate::template::annotation_args::adopt_runs(session);
    }
    Ok(call
        .heap
        .alloc(Fragment::new(FragmentData::Documents(evaluated.docs))))
}

fn data_values<'v>(call: &Call<'v, '_>, _: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let evaluated = no_arguments(call)
        .and_then(|()| evaluate(call, true))
        .map_err(|f| described(call, "Exporting from", f))?;
    Ok(node_to_struct_value(&evaluated.values, call.heap))
}

fn export<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let found = exported(call).map_err(|f| described(call, "Exporting from", f))?;
    let (value, session) = found;
    // SAFETY: the evaluator's frozen heap takes a reference to the value's
    // owner, so the value lives as long as the module that uses it.
    let value = unsafe { value.owned_frozen_value(eval.frozen_heap()) };
    // A function runs in its library's session (its templates, its
    // libraries): the caller's session keeps it while the render lasts,
    // also for what the library re-exports.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let key = NEXT.fetch_add(1, Ordering::Relaxed);
    with_current(|s| s.state::<LibraryState>().sessions.push((key, session)))?;
    Ok(in_library(call.heap, eval.frozen_heap(), value, key, 0).to_value())
}

/// `value` with each function in it (itself, or a member of a struct, an
/// item of a list or tuple, a value of a dict, as deep as they go) made to
/// run in the session of exported value `key`. What it builds is frozen,
/// as the library's globals are in ytt; what holds no function is `value`.
fn in_library<'v>(
    heap: Heap<'v>,
    frozen: &FrozenHeap,
    value: FrozenValue,
    key: u64,
    depth: usize,
) -> FrozenValue {
    let live = value.to_value();
    if crate::starlark::go::is_callable(live) {
        let data: Arc<dyn std::any::Any + Send + Sync> = Arc::new(key);
        let call = native!(call_exported);
        return frozen.alloc_simple(FrozenNative::with(
            "library.export",
            call,
            vec![value],
            Some(data),
        ));
    }
    if depth >= 10 {
        return value;
    }
    let mut changed = false;
    let mut inner = |item: FrozenValue| {
        let wrapped = in_library(heap, frozen, item, key, depth + 1);
        changed |= wrapped != item;
        wrapped
    };
    let items = |values: &[Value<'v>]| -> Option<Vec<FrozenValue>> {
        values.iter().map(|v| v.unpack_frozen()).collect()
    };
    let rebuilt = if let Some(list) = ListRef::from_value(live) {
        let Some(list) = items(list.content()) else {
            return value;
        };
        let list: Vec<FrozenValue> = list.into_iter().map(&mut inner).collect();
        frozen.alloc(AllocList(list))
    } else if let Some(tuple) = TupleRef::from_value(live) {
        let Some(tuple) = items(tuple.content()) else {
            return value;
        };
        let tuple: Vec<FrozenValue> = tuple.into_iter().map(&mut inner).collect();
        frozen.alloc(AllocTuple(tuple))
    } else if let Some(dict) = DictRef::from_value(live) {
        let mut entries = Vec::new();
        for (k, v) in dict.iter() {
            let (Some(k), Some(v)) = (k.unpack_frozen(), v.unpack_frozen()) else {
                return value;
            };
            entries.push((k, inner(v)));
        }
        frozen.alloc(AllocDict(entries))
    } else if live.get_type() == "struct" {
        let mut fields = Vec::new();
        for name in live.dir_attr() {
            match live
                .get_attr(&name, heap)
                .map(|m| m.and_then(|m| m.unpack_frozen()))
            {
                Ok(Some(member)) => fields.push((name, inner(member))),
                _ => return value,
            }
        }
        frozen.alloc_simple(FrozenYttStruct::new(fields))
    } else {
        return value;
    };
    if changed { rebuilt } else { value }
}

/// The symbol `export(name, path=)` names, with the session of its library.
fn exported(
    call: &Call<'_, '_>,
) -> Result<(OwnedFrozenValue, crate::template::runtime::SharedSession), Failure> {
    call.one()?;
    let symbol = call.str_arg(0)?;
    let mut location = "";
    for (kwarg, value) in &call.kwargs {
        match *kwarg {
            "path" => location = as_str(*value)?,
            other => return Err(format!("Unexpected keyword argument '{other}'").into()),
        }
    }
    if symbol.starts_with('_') {
        return Err("Symbols starting with '_' are private, and cannot be exported".into());
    }
    let evaluated = evaluate(call, false)?;
    let dir = &call.data::<Library>()?.dir;
    let found: Vec<(&String, OwnedFrozenValue)> = evaluated
        .exports
        .iter()
        .filter(|(path, _)| location.is_empty() || location == path.as_str())
        .filter(|(path, _)| !loaded_names(&dir.join(path.as_str())).contains(&symbol.to_string()))
        .filter_map(|(path, module)| Some((path, module.get_option(symbol).ok()??)))
        .collect();
    match &found[..] {
        [] => Err(format!("Expected to find exported symbol '{symbol}', but did not").into()),
        [(_, value)] => {
            let session = evaluated
                .session
                .ok_or(Failure::Message(NOT_RENDERED.into()))?;
            Ok((value.clone(), session))
        }
        many => {
            let paths: Vec<&str> = many.iter().map(|(p, _)| p.as_str()).collect();
            Err(format!(
                "Expected to find exactly one exported symbol '{symbol}', but found multiple across files: {}",
                paths.join(", ")
            )
            .into())
        }
    }
}

/// The session of exported function `key`: among those of the running
/// session's libraries, or of theirs (a library re-exporting what it got).
fn find_session(
    sessions: &[(u64, crate::template::runtime::SharedSession)],
    key: u64,
    depth: usize,
) -> Option<crate::template::runtime::SharedSession> {
    if let Some((_, session)) = sessions.iter().find(|(k, _)| *k == key) {
        return Some(session.clone());
    }
    if depth >= 10 {
        return None;
    }
    sessions.iter().find_map(|(_, session)| {
        let inner = session.try_borrow().ok()?;
        let sessions = inner
            .state_ref::<LibraryState>()
            .map_or(&[][..], |l| &l.sessions);
        find_session(sessions, key, depth + 1)
    })
}

/// An exported function called: it runs in its library's session.
fn call_exported<'v>(call: &Call<'v, '_>, eval: &mut Evaluator<'v, '_, '_>) -> Outcome<'v> {
    let key = *call.data::<u64>()?;
    let session = with_current(|s| find_session(&s.state::<LibraryState>().sessions, key, 0))?;
    // Not exported to this session nor through its libraries: confvet
    // does not know which session to run it in.
    let Some(session) = session else {
        return Err(NOT_RENDERED.into());
    };
    let _guard = SessionGuard::install(&session);
    let function = call.captured[0];
    let named: Vec<(&str, Value<'v>)> = call.kwargs.clone();
    let result = eval
        .eval_function(function, &call.args, &named)
        .map_err(Failure::Raw)?;
    // What it gives back runs in the library too (a function of the
    // library's, or a global holding some).
    Ok(match result.unpack_frozen() {
        Some(frozen) => in_library(call.heap, eval.frozen_heap(), frozen, key, 0).to_value(),
        None => result,
    })
}

/// The names a file binds by `load(...)`: not its globals in ytt, so not
/// exported (one load statement a line, as ytt's files write them).
fn loaded_names(path: &std::path::Path) -> Vec<String> {
    let read = with_current(|s| s.files.read(path));
    let Ok(Ok(bytes)) = read else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut names = Vec::new();
    for line in text.lines() {
        let code = line.trim_start();
        let code = code.strip_prefix("#@").unwrap_or(code).trim();
        if !code.starts_with("load(") {
            continue;
        }
        let dialect = starlark::syntax::Dialect::Extended;
        let Ok(ast) = starlark::syntax::AstModule::parse("load", code.to_string(), &dialect) else {
            continue;
        };
        for load in ast.loads() {
            names.extend(load.symbols.keys().map(|k| k.to_string()));
        }
    }
    names
}
