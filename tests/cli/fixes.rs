//! `lint --fix`, `--unsafe-fixes` and `--diff` end to end, on every folder
//! of `tests/fixes/` (one per fix, named `<system>-<rule>[-variant]`): the
//! diff and the fixed files are snapshots; the files change exactly where
//! the report's edits say and nowhere else; the fixed findings are gone; a
//! second `--fix` changes nothing.

use crate::common::{TempDir, copy_case, run_in};
use confvet::fix::{Change, unified_diff};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixes");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/fixes")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Every file below `dir` by its relative name, the cache left out.
fn texts(dir: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".confvet-cache") {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let name = path.strip_prefix(root).unwrap().to_string_lossy();
                out.insert(name.into_owned(), std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The byte offset of a 1-based line and character column.
fn offset(text: &str, line: u64, column: u64) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line as usize - 1)
        .map(str::len)
        .sum();
    let rest = &text[start..];
    rest.char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(rest.len()))
        .nth(column as usize - 1)
        .map_or(text.len(), |i| start + i)
}

fn is_applied(fix: &Value) -> bool {
    matches!(fix["applicability"].as_str(), Some("safe" | "unsafe"))
}

/// Each file's text with the edits of the report's fixes made, taken in
/// report order and each kept only if it touches nothing a kept one
/// touches: what one pass of `--fix --unsafe-fixes` must write.
fn expected_after_one_pass(
    before: &BTreeMap<String, String>,
    findings: &[Value],
) -> BTreeMap<String, String> {
    let mut kept: Vec<(String, usize, usize, String)> = Vec::new();
    for fix in findings.iter().map(|f| &f["fix"]).filter(|f| is_applied(f)) {
        let edits: Vec<(String, usize, usize, String)> = fix["edits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let file = e["file"].as_str().unwrap().to_string();
                let text = &before[&file];
                let at =
                    |l: &str, c: &str| offset(text, e[l].as_u64().unwrap(), e[c].as_u64().unwrap());
                let (start, end) = (at("line", "column"), at("end_line", "end_column"));
                (file, start, end, e["content"].as_str().unwrap().to_string())
            })
            .collect();
        let overlaps = edits.iter().any(|(f, s, e, _)| {
            kept.iter()
                .any(|(kf, ks, ke, _)| kf == f && s < &(*ke).max(ks + 1) && ks < &(*e).max(s + 1))
        });
        if !overlaps {
            kept.extend(edits);
        }
    }
    kept.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)).reverse());
    let mut after = before.clone();
    for (file, start, end, content) in kept {
        after
            .get_mut(&file)
            .unwrap()
            .replace_range(start..end, &content);
    }
    after
}

fn lint_json(dir: &Path) -> Vec<Value> {
    let run = run_in(dir, &["lint", "--no-cache", "--format", "json", "."]);
    assert!(run.code < 2, "{}", run.stderr);
    run.json()["findings"].as_array().unwrap().clone()
}

#[test]
fn every_fixture_is_fixed_as_its_snapshot_shows() {
    let fixtures = fixture_dirs();
    assert!(!fixtures.is_empty(), "tests/fixes holds the fix fixtures");
    for fixture in fixtures {
        let name = fixture.file_name().unwrap().to_string_lossy().into_owned();
        let dir = TempDir::new("fix");
        copy_case(&fixture, dir.path()).unwrap();
        let before = texts(dir.path());

        let findings = lint_json(dir.path());
        let fixable: Vec<&Value> = findings.iter().filter(|f| is_applied(&f["fix"])).collect();
        assert!(!fixable.is_empty(), "{name}: no finding has a fix");
        let expected = expected_after_one_pass(&before, &findings);

        let lint = |flags: &[&str]| {
            run_in(
                dir.path(),
                &[&["lint", "--no-cache"], flags, &["."]].concat(),
            )
        };
        let shown = lint(&["--diff", "--unsafe-fixes"]);
        assert!(
            shown.code == 1,
            "{name}: --diff exits 1 when there is something to fix\n{}",
            shown.stderr
        );
        assert_eq!(texts(dir.path()), before, "{name}: --diff writes nothing");

        let fixed = lint(&["--fix", "--unsafe-fixes"]);
        assert!(fixed.code < 2, "{name}: {}", fixed.stderr);
        assert!(
            fixed.stderr.contains("confvet: fixed"),
            "{name}: {}",
            fixed.stderr
        );
        let after = texts(dir.path());
        assert_eq!(
            after, expected,
            "{name}: the files changed exactly where the report's edits say"
        );
        let changes: Vec<Change> = after
            .iter()
            .filter(|(file, text)| before[*file] != **text)
            .map(|(file, text)| Change {
                name: file.clone(),
                path: PathBuf::from(file),
                before: before[file].clone(),
                after: text.clone(),
            })
            .collect();
        assert_eq!(
            shown.stdout,
            unified_diff(&changes),
            "{name}: --diff showed what --fix did"
        );

        let left = lint_json(dir.path());
        let still: Vec<&Value> = left.iter().filter(|f| is_applied(&f["fix"])).collect();
        assert!(
            still.is_empty(),
            "{name}: fixable findings are left: {still:?}"
        );
        let count = |list: &[Value], rule: &str| list.iter().filter(|f| f["rule"] == rule).count();
        for finding in &fixable {
            let rule = finding["rule"].as_str().unwrap();
            assert!(
                count(&left, rule) < count(&findings, rule),
                "{name}: {rule} is still reported as often after the fix"
            );
        }

        let again = lint(&["--fix", "--unsafe-fixes"]);
        assert!(
            !again.stderr.contains("confvet: fixed"),
            "{name}: {}",
            again.stderr
        );
        assert_eq!(
            texts(dir.path()),
            after,
            "{name}: a second --fix changes nothing"
        );

        let mut snapshot = shown.stdout.clone();
        for change in &changes {
            snapshot.push_str(&format!(
                "\n=== {} after --fix --unsafe-fixes ===\n",
                change.name
            ));
            snapshot.push_str(&change.after);
        }
        insta::assert_snapshot!(format!("fix_{name}"), snapshot);
    }
}

/// A copy of the fixture folder `name` of tests/fixes.
fn fixture(name: &str) -> TempDir {
    let dir = TempDir::new(name);
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixes")
        .join(name);
    copy_case(&from, dir.path()).unwrap();
    dir
}

#[test]
fn fix_applies_safe_fixes_only_and_says_how_many_more_unsafe_ones_would() {
    let dir = fixture("confvet-unused-suppression");
    let before = texts(dir.path());
    let fixed = run_in(dir.path(), &["lint", "--fix", "."]);
    assert_eq!(fixed.code, 0, "only warnings are left: {}", fixed.stderr);
    assert!(
        fixed.stderr.contains("confvet: fixed 2 findings in 1 file"),
        "{}",
        fixed.stderr
    );
    assert!(
        fixed.stdout.ends_with(
            "0 errors, 2 warnings in 1 file (1 suppressed)\n2 fixable with --unsafe-fixes\n"
        ),
        "{}",
        fixed.stdout
    );
    let after = texts(dir.path());
    assert_ne!(after, before);
    assert!(
        after["task.yaml"].contains("# confvet: ignore[tekton/param-reference] a shell comment")
    );
    // What the cache kept of the fixed files is what a cold run sees.
    let warm = run_in(dir.path(), &["lint", "--format", "json", "."]);
    let cold = run_in(dir.path(), &["lint", "--no-cache", "--format", "json", "."]);
    assert_eq!(warm.stdout, cold.stdout);
    let unsafe_too = run_in(dir.path(), &["lint", "--fix", "--unsafe-fixes", "."]);
    assert!(
        unsafe_too.stdout.starts_with("no problems in 1 file"),
        "{}",
        unsafe_too.stdout
    );
}

#[test]
fn diff_with_nothing_to_fix_prints_nothing_and_exits_zero() {
    let dir = TempDir::new("nothing-to-fix");
    dir.write("task.yaml", "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: t\nspec:\n  steps:\n  - image: bash\n");
    let run = run_in(dir.path(), &["lint", "--diff", "."]);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""), "{}", run.stderr);
    assert_eq!(run.stderr, "confvet: nothing to fix\n");
}

#[test]
fn fix_and_diff_refuse_standard_input_and_a_baseline_update() {
    let dir = fixture("tekton-trigger-legacy-param");
    for flag in ["--fix", "--diff"] {
        let run = crate::common::run_stdin(
            dir.path(),
            &[
                "lint",
                flag,
                "-",
                "--stdin-filename",
                "trigger-template.yaml",
            ],
            "kind: Task\n",
        );
        assert_eq!(run.code, 2, "{flag}: {}", run.stderr);
        assert!(
            run.stderr.contains("do not read standard input"),
            "{}",
            run.stderr
        );
        let run = run_in(
            dir.path(),
            &[
                "lint",
                flag,
                "--baseline",
                "b.json",
                "--update-baseline",
                ".",
            ],
        );
        assert_eq!(run.code, 2, "{flag}: {}", run.stderr);
    }
    assert_eq!(
        texts(dir.path()).len(),
        1,
        "nothing was written: {:?}",
        texts(dir.path()).keys()
    );
}

/// The fix of the findings that repairs a validations annotation's commas.
fn comma_fix(findings: &[Value]) -> &Value {
    findings
        .iter()
        .map(|f| &f["fix"])
        .find(|f| {
            f["message"]
                .as_str()
                .is_some_and(|m| m.contains("trailing comma"))
        })
        .expect("the comma fix")
}

/// A fix that makes rules apply changes what the Template does: the comma
/// repair of a validations annotation is unsafe, and says which
/// VirtualMachines the rules it makes apply would reject.
#[test]
fn a_repair_that_makes_rules_apply_is_unsafe_and_says_what_will_fail() {
    let dir = TempDir::new("fix-kubevirt-rules");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixes");
    copy_case(
        &fixtures.join("kubevirt-annotation-rules-reject"),
        dir.path(),
    )
    .unwrap();
    let findings = lint_json(dir.path());
    let fix = comma_fix(&findings);
    assert_eq!(fix["applicability"], "unsafe", "{fix}");
    let message = fix["message"].as_str().unwrap();
    assert!(
        message.contains("reject 1 VirtualMachine of the linted files: `small-vm`"),
        "{message}"
    );
    // `--fix` alone leaves it; `--unsafe-fixes` makes it, and the rule then
    // rejects the VM, as the message said.
    let before = texts(dir.path());
    run_in(dir.path(), &["lint", "--no-cache", "--fix", "."]);
    assert_eq!(texts(dir.path()), before);
    run_in(
        dir.path(),
        &["lint", "--no-cache", "--fix", "--unsafe-fixes", "."],
    );
    let after = lint_json(dir.path());
    assert!(
        after.iter().any(|f| f["rule"] == "kubevirt/validation"
            || f["message"]
                .as_str()
                .is_some_and(|m| m.contains("requires more memory"))),
        "{after:?}"
    );

    // Where no VM breaks the rules, the fix says so, and is still unsafe.
    let clean = TempDir::new("fix-kubevirt-rules-clean");
    copy_case(&fixtures.join("kubevirt-annotation"), clean.path()).unwrap();
    let findings = lint_json(clean.path());
    let fix = comma_fix(&findings);
    assert_eq!(fix["applicability"], "unsafe", "{fix}");
    assert!(
        fix["message"]
            .as_str()
            .unwrap()
            .contains("no VirtualMachine of the linted files breaks them"),
        "{fix}"
    );
}

/// `--diff` shows only what `--fix` would write: a fix of a file named
/// through a symbolic link (which `--fix` never writes through) is left
/// out of both, with a note.
#[cfg(unix)]
#[test]
fn a_linked_file_is_neither_diffed_nor_fixed() {
    let dir = TempDir::new("fix-link");
    let task = "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: t\nspec:\n  steps:\n    - name: s\n      image: alpine # confvet: ignore[tekton/param-reference] why\n";
    dir.write("real/task.yaml", task);
    std::fs::create_dir_all(dir.path().join("ci")).unwrap();
    std::os::unix::fs::symlink("../real/task.yaml", dir.path().join("ci/task.yaml")).unwrap();
    let args = ["lint", "--no-cache", "ci/task.yaml"];
    let json = run_in(dir.path(), &[&args[..], &["--format", "json"]].concat());
    assert!(
        json.stdout.contains("confvet/unused-suppression"),
        "the linked file is linted, with a fix: {}",
        json.stdout
    );
    let diff = run_in(dir.path(), &[&args[..], &["--diff"]].concat());
    assert!(!diff.stdout.contains("+++"), "{}", diff.stdout);
    assert!(
        diff.stderr.contains("not a regular file"),
        "{}",
        diff.stderr
    );
    let fix = run_in(dir.path(), &[&args[..], &["--fix"]].concat());
    assert!(fix.stderr.contains("not a regular file"), "{}", fix.stderr);
    assert_eq!(dir.read("real/task.yaml"), task);
}
