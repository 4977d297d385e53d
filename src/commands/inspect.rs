//! `confvet values` and `confvet schema`: one ytt package checked as far
//! as its data values, then its values or its schema written out.

use super::shared::{fail, limits, print_findings, print_stdout, ytt_settings};
use confvet::cli::{SchemaArgs, SchemaFormat, ValuesArgs, ValuesFormat, YttFlags};
use confvet::error::{Doing, Error};
use confvet::finding::Severity;
use confvet::run::{LintRequest, lint};
use confvet::source::Sources;
use std::path::Path;
/// Check the one ytt package in `dir` as far as its data values (templates
/// are not rendered): the run's result, or the exit code after saying why
/// there is none (I/O errors; no package or several).
fn inspect_package(
    dir: &Path,
    flags: &YttFlags,
    cwd: &Path,
    sources: &Sources,
) -> Result<confvet::run::LintResult, u8> {
    let request = LintRequest {
        paths: vec![dir.to_path_buf()],
        // As `--data-values-inspect` and `--data-values-schema-inspect`:
        // a link not allowed stops it, as it stops ytt.
        ytt: {
            let mut settings = ytt_settings(flags, cwd);
            settings.skip_templates = true;
            settings.values_only = true;
            settings.symlinks.refuses = true;
            settings
        },
        keep_outputs: true,
        // `DIR` is one package, as `ytt -f DIR` reads it.
        package_roots: vec![dir.to_path_buf()],
        limits: limits(),
        ..LintRequest::default()
    };
    let result = lint(&request, sources, cwd);
    for error in &result.errors {
        say!("confvet: {error}");
    }
    if !result.errors.is_empty() {
        return Err(2);
    }
    // A folder of no ytt file is data values that are empty, as ytt has it.
    let is_empty = result.values.is_empty() && result.findings.is_empty();
    if result.values.len() != 1 && !is_empty {
        print_findings(&result, sources);
        return Err(fail(Error::Usage(format!(
            "{} holds {} ytt packages; name one",
            dir.display(),
            result.values.len()
        ))));
    }
    Ok(result)
}

pub fn run_values(args: ValuesArgs, cwd: &Path) -> u8 {
    let sources = Sources::new();
    let result = match inspect_package(&args.dir, &args.ytt, cwd, &sources) {
        Ok(result) => result,
        Err(code) => return code,
    };
    if result
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error)
    {
        print_findings(&result, &sources);
        return 1;
    }
    let Some((_, values)) = result.values.first() else {
        // `--data-values-inspect` of no data values prints nothing.
        return 0;
    };
    let Some(values) = values else {
        return 1;
    };
    let text = match args.format {
        // As `--data-values-inspect`: empty data values print nothing.
        ValuesFormat::Yaml => confvet::yaml::emit::document_set_to_yaml(&[Some(values)]),
        ValuesFormat::Json => {
            let mut text = serde_json::to_string_pretty(&confvet::yaml::emit::to_json(values))
                .unwrap_or_default();
            text.push('\n');
            text
        }
    };
    print_stdout(&text)
}

pub fn run_schema(args: SchemaArgs, cwd: &Path) -> u8 {
    use confvet::check::ytt::schema::export;
    let sources = Sources::new();
    let result = match inspect_package(&args.dir, &args.ytt, cwd, &sources) {
        Ok(result) => result,
        Err(code) => return code,
    };
    // As `--data-values-schema-inspect`, only the schema must be sound:
    // ytt exports it before it looks at any data value.
    if result.schemas.is_empty() {
        return fail(Error::Usage(format!(
            "{} holds 0 ytt packages; name one",
            args.dir.display()
        )));
    }
    let Some((root, Some(schema))) = result.schemas.first() else {
        print_findings(&result, &sources);
        return 1;
    };
    // The package as the user named it; the current directory by its own
    // name (a heading of `.` says nothing, an absolute path differs per machine).
    let title = match confvet::source::display_dir(root, cwd).as_str() {
        "." => root
            .file_name()
            .map_or(".".into(), |n| n.to_string_lossy().into_owned()),
        shown => shown.to_string(),
    };
    let schema = schema.as_ref();
    let text = match args.format {
        SchemaFormat::OpenapiV3 => export::openapi::to_yaml(schema, &sources, args.ytt_compatible),
        SchemaFormat::JsonSchema => {
            let document = export::json_schema::document(schema, &sources, &title);
            let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
            text.push('\n');
            text
        }
        SchemaFormat::Markdown => export::markdown::document(schema, &sources, &title),
    };
    let Some(output) = &args.output else {
        return print_stdout(&text);
    };
    if args.check {
        return match std::fs::read_to_string(output) {
            Ok(current) if current == text => 0,
            Ok(_) => {
                say!(
                    "confvet: {} is out of date; run the same `confvet schema` without --check to rewrite it",
                    output.display()
                );
                1
            }
            // Not up to date either way: exit 1, as a check that failed.
            Err(err) => {
                let shown = output.display().to_string();
                say!(
                    "confvet: {}",
                    Error::io_unlocated(Doing::Naming, shown, err)
                );
                1
            }
        };
    }
    match std::fs::write(output, text) {
        Ok(()) => 0,
        Err(err) => fail(Error::io_unlocated(
            Doing::Writing,
            output.display().to_string(),
            err,
        )),
    }
}
