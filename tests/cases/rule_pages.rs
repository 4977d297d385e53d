//! Each rule page's example is a case that runs. The `## Example` section
//! of `docs/rules/<system>/<name>.md` starts with a marker naming a case of
//! this folder, `<!-- case: <system>/<case> -->`, then shows one of its
//! input files as the case holds it (a line `` `<file>`: `` and a fenced
//! block), then what `confvet lint . --format concise` (with the case's
//! `args`, which the line before it names) prints for that file, run in a
//! copy of the case folder as the case runner runs it: a line ending in
//! `reports:` and a `text` block. A rule no data case can produce says
//! `<!-- case: none (why) -->` instead, and is on `NO_CASE`
//! (conformance.rs).
//!
//! `CONFVET_UPDATE_DOCS=1 cargo test --test cases rule_pages` writes each
//! page's shown file and report anew from its case.

use crate::common::suite::{expect_args, read_yaml};
use crate::common::{TempDir, copy_case, run_in};
use crate::conformance::NO_CASE;
use rayon::prelude::*;
use serde_json::Value as J;
use std::path::{Path, PathBuf};

fn cases_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

fn page_path(id: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/rules/{id}.md"))
}

const FENCE: &str = "```";

/// The lines of a fenced block: `open` is the index of its opening fence,
/// `close` that of its closing one.
struct Block {
    open: usize,
    close: usize,
}

/// A page's example: what its marker names, and for a case, the shown file
/// and the report.
struct Example {
    /// The case, or why no case can produce the rule.
    case: Result<String, String>,
    /// The shown file's name and block; the line before the report; the
    /// report's block. None when the section shows no file.
    shown: Option<(String, Block, usize, Block)>,
}

/// The fenced block opening at `lines[open]`.
fn block(lines: &[&str], open: usize, what: &str) -> Result<Block, String> {
    if !lines.get(open).is_some_and(|l| l.starts_with(FENCE)) {
        return Err(format!("{what} is not followed by a fenced block"));
    }
    let close = (open + 1..lines.len())
        .find(|&i| lines[i] == FENCE)
        .ok_or_else(|| format!("the block of {what} is not closed"))?;
    Ok(Block { open, close })
}

/// The lines of the `## Example` section, as indexes: from the line after
/// its heading to the next heading (outside fenced blocks) or the end.
fn example_section(lines: &[&str]) -> Option<(usize, usize)> {
    let heading = lines.iter().position(|l| *l == "## Example")?;
    let mut fenced = false;
    for (i, line) in lines.iter().enumerate().skip(heading + 1) {
        if line.starts_with(FENCE) {
            fenced = !fenced;
        } else if !fenced && line.starts_with("## ") {
            return Some((heading + 1, i));
        }
    }
    Some((heading + 1, lines.len()))
}

fn parse(lines: &[&str]) -> Result<Example, String> {
    let (start, end) = example_section(lines).ok_or("no `## Example` section")?;
    let first = (start..end)
        .find(|&i| !lines[i].trim().is_empty())
        .ok_or("the Example section is empty")?;
    let marker = lines[first]
        .strip_prefix("<!-- case: ")
        .and_then(|rest| rest.strip_suffix(" -->"))
        .ok_or("the Example section does not start with `<!-- case: <system>/<case> -->` or `<!-- case: none (why) -->`")?;
    if let Some(why) = marker.strip_prefix("none") {
        let why = why
            .trim()
            .strip_prefix('(')
            .and_then(|w| w.strip_suffix(')'))
            .filter(|w| !w.trim().is_empty())
            .ok_or("`case: none` without a reason in parentheses")?;
        return Ok(Example {
            case: Err(why.to_string()),
            shown: None,
        });
    }
    let case = marker.trim().to_string();
    let mut fenced = false;
    let mut label = None;
    for (i, line) in lines.iter().enumerate().take(end).skip(first + 1) {
        if line.starts_with(FENCE) {
            fenced = !fenced;
        } else if !fenced && line.len() > 3 && line.starts_with('`') && line.ends_with("`:") {
            label = Some((i, line[1..line.len() - 2].to_string()));
            break;
        }
    }
    let Some((at, file)) = label else {
        return Ok(Example {
            case: Ok(case),
            shown: None,
        });
    };
    let content = block(lines, at + 1, &format!("`{file}`:"))?;
    let intro = (content.close + 1..end)
        .find(|&i| lines[i].ends_with("reports:"))
        .ok_or("no line ending in `reports:` after the shown file")?;
    if lines.get(intro + 1) != Some(&"```text") {
        return Err("the `reports:` line is not followed by a ```text block".into());
    }
    let report = block(lines, intro + 1, "the `reports:` line")?;
    if report.close >= end {
        return Err("the report's block runs past the Example section".into());
    }
    Ok(Example {
        case: Ok(case),
        shown: Some((file, content, intro, report)),
    })
}

/// The rules of the findings and warnings a case's `expect.yml` expects.
fn expected_rules(expect: &J) -> Vec<&str> {
    ["findings", "warnings"]
        .iter()
        .filter_map(|key| expect.get(key).and_then(J::as_array))
        .flatten()
        .filter_map(|f| f.get("rule").and_then(J::as_str))
        .collect()
}

/// What confvet prints for `file` with `--format concise`, run in a copy of
/// the case folder (without its expect.yml) with the case's arguments.
fn report_lines(dir: &Path, file: &str, args: &[String]) -> Vec<String> {
    let scratch = TempDir::new("rule-page");
    copy_case(dir, scratch.path()).unwrap();
    let mut argv = vec!["lint", ".", "--format", "concise"];
    argv.extend(args.iter().map(String::as_str));
    let run = run_in(scratch.path(), &argv);
    let prefix = format!("{file}:");
    run.stdout
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .map(str::to_string)
        .collect()
}

/// The problems of the page of rule `id` (none: its example runs as
/// shown), and the page with its shown file and report taken from the case
/// (what `CONFVET_UPDATE_DOCS` writes).
fn check_page(id: &str, page: &str) -> (Vec<String>, String) {
    let lines: Vec<&str> = page.lines().collect();
    let example = match parse(&lines) {
        Ok(example) => example,
        Err(problem) => return (vec![problem], page.to_string()),
    };
    let case = match example.case {
        Ok(case) => case,
        Err(_) if NO_CASE.iter().any(|(rule, _)| *rule == id) => {
            return (Vec::new(), page.to_string());
        }
        Err(_) => {
            let problem = format!(
                "says `case: none`, but {id} is not on NO_CASE (conformance.rs): name a case that holds it"
            );
            return (vec![problem], page.to_string());
        }
    };
    let dir = cases_root().join(&case);
    let expect = match read_yaml(&dir.join("expect.yml")) {
        Ok(expect) => expect,
        Err(e) => {
            let problem = format!("names case {case}, which is no case of tests/cases ({e})");
            return (vec![problem], page.to_string());
        }
    };
    let mut problems = Vec::new();
    if !expected_rules(&expect).contains(&id) {
        problems.push(format!("case {case} expects no finding of {id}"));
    }
    let Some((file, content, intro, report)) = example.shown else {
        problems
            .push("shows no file of its case: a line `` `<file>`: `` and a fenced block".into());
        return (problems, page.to_string());
    };
    let Ok(text) = std::fs::read_to_string(dir.join(&file)) else {
        problems.push(format!("shows `{file}`, which case {case} does not hold"));
        return (problems, page.to_string());
    };
    let shown: String = lines[content.open + 1..content.close]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    if shown != text {
        problems.push(format!(
            "the block of `{file}` is not tests/cases/{case}/{file} byte for byte"
        ));
    }
    let args = expect_args(&expect);
    if !args.is_empty() && !lines[intro].contains(&format!("`{}`", args.join(" "))) {
        problems.push(format!(
            "the line before the report does not say the case's arguments, `{}`",
            args.join(" ")
        ));
    }
    let printed = report_lines(&dir, &file, &args);
    let written = &lines[report.open + 1..report.close];
    if written != printed.as_slice() {
        problems.push(format!(
            "the report is not what confvet prints for `{file}` in case {case}:\n    page:\n      {}\n    confvet:\n      {}",
            written.join("\n      "),
            printed.join("\n      ")
        ));
    }
    if !written.iter().any(|l| l.contains(&format!("[{id}]"))) {
        problems.push(format!("the report has no finding of {id}"));
    }
    let mut updated: Vec<String> = Vec::new();
    updated.extend(lines[..=content.open].iter().map(|l| l.to_string()));
    updated.extend(text.lines().map(str::to_string));
    updated.extend(
        lines[content.close..=report.open]
            .iter()
            .map(|l| l.to_string()),
    );
    updated.extend(printed);
    updated.extend(lines[report.close..].iter().map(|l| l.to_string()));
    (problems, updated.join("\n") + "\n")
}

/// Every rule's page names a case whose file it shows as the case holds it
/// and whose findings for that file it shows as confvet prints them, or
/// says why no case can produce the rule.
#[test]
fn rule_pages_show_a_case_as_it_runs() {
    let update = std::env::var_os("CONFVET_UPDATE_DOCS").is_some();
    let problems: Vec<String> = confvet::rules::RULES
        .par_iter()
        .flat_map(|rule| {
            let path = page_path(rule.id);
            let page = std::fs::read_to_string(&path).unwrap();
            let (mut problems, updated) = check_page(rule.id, &page);
            if update && updated != page {
                std::fs::write(&path, &updated).unwrap();
                problems = check_page(rule.id, &updated).0;
            }
            problems
                .into_iter()
                .map(|p| format!("docs/rules/{}.md: {p}", rule.id))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        problems.is_empty(),
        "{}\n(`CONFVET_UPDATE_DOCS=1 cargo test --test cases rule_pages` writes the shown files and reports anew)",
        problems.join("\n")
    );
}

/// The check finds what is wrong with a page: these pages are a real one,
/// each broken in one way.
#[test]
fn rule_pages_a_broken_example_is_reported() {
    let id = "tekton/duplicate";
    let page = std::fs::read_to_string(page_path(id)).unwrap();
    assert_eq!(check_page(id, &page).0, Vec::<String>::new());
    let broken = |from: &str, to: &str| {
        assert!(page.contains(from), "{from:?} is not on the page of {id}");
        check_page(id, &page.replacen(from, to, 1)).0.join("\n")
    };
    let file = broken("    - name: mode\n  steps:", "    - name: mood\n  steps:");
    assert!(file.contains("is not tests/cases/"), "{file}");
    let report = broken(
        "parameter mode appears more than once\n",
        "parameter mode is twice\n",
    );
    assert!(
        report.contains("the report is not what confvet prints"),
        "{report}"
    );
    let case = broken("<!-- case: tekton/", "<!-- case: tekton/no-such-");
    assert!(case.contains("which is no case of tests/cases"), "{case}");
    let none = broken(
        "<!-- case: tekton/",
        "<!-- case: none (no reason) -->\n<!-- ",
    );
    assert!(none.contains("is not on NO_CASE"), "{none}");
    let marker = broken("<!-- case: ", "<!-- example: ");
    assert!(marker.contains("does not start with"), "{marker}");
    let other = check_page("tekton/cycle", &page).0.join("\n");
    assert!(
        other.contains("expects no finding of tekton/cycle"),
        "{other}"
    );
}
