//! The corpus outputs: for each real package of `../shared/corpus/ytt`,
//! `../shared/corpus/ytt-render` holds what the reference ytt printed, with
//! `--data-values-inspect` and as a full render, as the package ships and,
//! for some, with the values a consumer passes. `confvet values` and
//! `confvet render` run with the same arguments must end in the same exit
//! class (0, or an error) and, when ytt exits 0, print the same bytes.
//!
//! A ratchet: every run is tried and counted; the test fails when a run
//! listed in `tests/corpus-outputs-passing.txt` fails.

use crate::common;

use common::{BIN, run_in};
use std::path::{Path, PathBuf};

/// One recorded ytt run.
struct Recorded {
    /// The arguments after `ytt`.
    args: Vec<String>,
    exit: i32,
    stdout: String,
}

/// The runs of one record file (format: its README).
fn recorded_runs(text: &str) -> Vec<Recorded> {
    let mut runs = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("===== $ ytt ") {
        rest = &rest[at + "===== $ ytt ".len()..];
        let (command, after) = rest.split_once('\n').unwrap_or((rest, ""));
        let exit = after
            .strip_prefix("===== exit: ")
            .and_then(|e| e.split_once('\n'))
            .and_then(|(code, _)| code.trim().parse().ok())
            .unwrap_or(-1);
        let stdout = after
            .split_once("===== stdout:\n")
            .and_then(|(_, out)| out.split_once("===== stderr:\n"))
            .map(|(out, _)| out.to_string())
            .unwrap_or_default();
        runs.push(Recorded {
            args: shell_words(command),
            exit,
            stdout,
        });
        rest = after;
    }
    runs
}

/// Words of a command line as a POSIX shell splits them; the records quote
/// with single quotes only.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut in_word, mut quoted) = (false, false);
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                in_word = true;
            }
            ' ' if !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            _ => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// confvet's command for a recorded ytt run in the package's folder:
/// `values .` for `--data-values-inspect`, else `render .`; ytt's `-f .`
/// becomes the folder argument, every other flag is the same.
fn confvet_args(ytt: &[String]) -> Vec<String> {
    let inspect = ytt.iter().any(|a| a == "--data-values-inspect");
    let mut args = vec![if inspect { "values" } else { "render" }.to_string()];
    let mut words = ytt.iter().peekable();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-f" => {
                words.next();
            }
            "--data-values-inspect" => {}
            _ => args.push(word.clone()),
        }
    }
    args.push(".".to_string());
    args
}

/// The package folder a record file is about: its first `__` separates the
/// repository from the path, whose `/` are `-` (ambiguous, so matched
/// against the corpus's package folders).
fn package_of(record: &str, packages: &[PathBuf], corpus: &Path) -> Option<PathBuf> {
    packages
        .iter()
        .find(|dir| {
            let relative = dir.strip_prefix(corpus).unwrap_or(dir);
            let text = relative.to_string_lossy();
            let (repo, path) = text.split_once('/').unwrap_or((&text, ""));
            format!("{repo}__{}", path.replace('/', "-")) == record
        })
        .cloned()
}

fn package_dirs(corpus: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut stack = vec![corpus.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "expect.yml") {
                dirs.push(dir.clone());
            }
        }
    }
    dirs
}

#[test]
fn corpus_outputs_match_the_reference_ytt() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let records = shared.join("ytt-render");
    if !records.is_dir() {
        common::skipped_without_shared(
            "../shared/corpus/ytt-render not found; corpus outputs not compared",
        );
        return;
    }
    let corpus = shared.join("ytt");
    let packages = package_dirs(&corpus);
    let must_pass = common::passing_list("corpus-outputs-passing.txt");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&records)
        .expect("records")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let (mut passed, mut failed) = (Vec::new(), Vec::new());
    let mut broken = Vec::new();
    for file in &files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        let Some(dir) = package_of(&name, &packages, &corpus) else {
            failed.push((format!("{name}#0"), "no package folder".to_string()));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("record");
        for (k, run) in recorded_runs(&text).iter().enumerate() {
            let id = format!("{name}#{k}");
            let args = confvet_args(&run.args);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let got = run_in(&dir, &args);
            let why = if (got.code == 0) != (run.exit == 0) {
                Some(format!(
                    "ytt exited {}, confvet {}: {}",
                    run.exit,
                    got.code,
                    got.stderr.lines().next().unwrap_or_default()
                ))
            } else if run.exit == 0 && got.stdout != run.stdout {
                let line = got
                    .stdout
                    .lines()
                    .zip(run.stdout.lines())
                    .position(|(a, b)| a != b)
                    .map_or_else(|| "the length".to_string(), |i| format!("line {}", i + 1));
                Some(format!("output differs at {line}"))
            } else {
                None
            };
            match why {
                None => passed.push(id),
                Some(why) => {
                    if must_pass.contains(&id) {
                        broken.push(format!("{id}: {why}"));
                    }
                    failed.push((id, why));
                }
            }
        }
    }
    println!(
        "corpus-outputs: {} passed, {} failed ({BIN})",
        passed.len(),
        failed.len()
    );
    for (id, why) in &failed {
        println!("  failing {id}: {why}");
    }
    assert!(
        broken.is_empty(),
        "runs on the passing list fail:\n{}",
        broken.join("\n")
    );
    // The ratchet holds what passes: a new pass must be added to the list.
    let unlisted: Vec<&String> = passed
        .iter()
        .filter(|id| !must_pass.contains(*id))
        .collect();
    assert!(
        unlisted.is_empty(),
        "these runs pass; add them to tests/corpus-outputs-passing.txt:\n{}",
        unlisted
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn record_commands_split_as_a_shell_splits_them() {
    assert_eq!(
        shell_words("-f . --data-value-yaml 'a={\"b\": [1, 2]}' -v x=1"),
        [
            "-f",
            ".",
            "--data-value-yaml",
            "a={\"b\": [1, 2]}",
            "-v",
            "x=1"
        ]
    );
    assert_eq!(
        confvet_args(&shell_words(
            "-f . --file-mark expect.yml:exclude=true -v v=1 --data-values-inspect"
        )),
        [
            "values",
            "--file-mark",
            "expect.yml:exclude=true",
            "-v",
            "v=1",
            "."
        ]
    );
}
