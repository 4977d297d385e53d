//! `confvet schema --format openapi-v3 --ytt-compatible` against what the
//! reference ytt prints for every corpus package
//! (../shared/corpus/ytt-schema). A ratchet: prints `N passed, M failed`
//! and fails when a package on tests/schema-export-passing.txt fails.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// One stored export: the package directory, ytt's extra arguments and
/// its standard output.
struct Stored {
    name: String,
    package: PathBuf,
    args: Vec<String>,
    stdout: String,
    exit: String,
}

fn parse(path: &Path) -> Result<Stored, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let package = text
        .lines()
        .find_map(|l| l.strip_prefix("# package: "))
        .ok_or("no package line")?;
    let command = text
        .lines()
        .find_map(|l| l.strip_prefix("===== $ "))
        .ok_or("no command line")?;
    let args = command
        .strip_prefix("ytt -f . --file-mark expect.yml:exclude=true")
        .and_then(|rest| rest.strip_suffix("--data-values-schema-inspect -o openapi-v3"))
        .ok_or_else(|| format!("unexpected command: {command}"))?
        .split_whitespace()
        .map(String::from)
        .collect();
    let exit = text
        .lines()
        .find_map(|l| l.strip_prefix("===== exit: "))
        .ok_or("no exit line")?
        .to_string();
    let start = text.find("===== stdout:\n").ok_or("no stdout")? + "===== stdout:\n".len();
    let end = text[start..]
        .find("===== stderr:")
        .map_or(text.len(), |i| start + i);
    Ok(Stored {
        name: path.file_stem().unwrap().to_string_lossy().into_owned(),
        package: corpus().join("ytt").join(package),
        args,
        stdout: text[start..end].to_string(),
        exit,
    })
}

fn first_difference(got: &str, want: &str) -> String {
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        if g != w {
            return format!("line {}: got {g:?}, want {w:?}", i + 1);
        }
    }
    format!(
        "lengths differ: got {} lines, want {}",
        got.lines().count(),
        want.lines().count()
    )
}

fn check(stored: &Stored, scratch: &Path) -> Result<(), String> {
    if stored.exit != "0" {
        return Err(format!("ytt exited {}; not compared", stored.exit));
    }
    let dir = scratch.join(&stored.name);
    common::copy_case(&stored.package, &dir).map_err(|e| e.to_string())?;
    let output = Command::new(env!("CARGO_BIN_EXE_confvet"))
        .current_dir(&dir)
        .args(["schema", ".", "--format", "openapi-v3", "--ytt-compatible"])
        .args(&stored.args)
        .output()
        .map_err(|e| e.to_string())?;
    let got = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "exit {:?}: {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
                .lines()
                .next()
                .unwrap_or_default()
        ));
    }
    if got != stored.stdout {
        return Err(first_difference(&got, &stored.stdout));
    }
    Ok(())
}

#[test]
fn corpus_schema_exports_equal_ytts() {
    let dir = corpus().join("ytt-schema");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        common::skipped_without_shared(
            "../shared/corpus/ytt-schema not found; schema exports not compared",
        );
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let passing = common::passing_list("schema-export-passing.txt");
    let scratch = common::TempDir::new("schema-export");
    let (mut passed, mut failed, mut regressions) = (0, 0, Vec::new());
    for file in &files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        match parse(file).and_then(|stored| check(&stored, scratch.path())) {
            Ok(()) => passed += 1,
            Err(why) => {
                failed += 1;
                println!("FAIL {name}: {why}");
                if passing.contains(&name) {
                    regressions.push(name);
                }
            }
        }
    }
    println!("schema-export: {passed} passed, {failed} failed");
    assert!(
        regressions.is_empty(),
        "packages on schema-export-passing.txt fail: {regressions:?}"
    );
}

/// A description built from code lines continued with `\` reads as ytt
/// reads it: the code after `#@ `, so one blank where the string breaks.
#[test]
fn a_description_continued_with_a_backslash_exports_as_ytt_reads_it() {
    let dir = common::TempDir::new("schema-export-continued");
    dir.write(
        "pkg/schema.yml",
        "#@ desc = \"Where the agent watches: one namespace. \\\n#@ If both are empty, every namespace.\"\n#@data/values-schema\n---\n#@schema/desc desc\nnamespace: \"\"\n",
    );
    let run = common::run_in(
        dir.path(),
        &[
            "schema",
            "pkg",
            "--format",
            "openapi-v3",
            "--ytt-compatible",
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    // What the reference ytt prints for this package.
    let ytt = "openapi: 3.0.0
info:
  version: 0.1.0
  title: Schema for data values, generated by ytt
paths: {}
components:
  schemas:
    dataValues:
      type: object
      additionalProperties: false
      properties:
        namespace:
          type: string
          description: 'Where the agent watches: one namespace. If both are empty, every namespace.'
          default: \"\"
";
    assert_eq!(run.stdout, ytt);
}
