//! A seeded random-edit differential of the cache: a tree of real material
//! (the bundled examples, corpus packages and Tekton files, conformance
//! cases) is edited step by step the ways CI caches, checkouts and editors
//! edit files (same-size edits with the old modification time put back,
//! touches, copies, deletions and restores, ignore files and their
//! patterns, `--extend-exclude`, the configuration), and after each step a
//! warm run (with the cache) must report exactly what a cold run
//! (`--no-cache`) reports.
//!
//! CI runs a short differential on a fixed seed; run it long by hand:
//! `CONFVET_DIFF_STEPS=1000 CONFVET_DIFF_SEED=7 cargo test --release
//! --test cli cache_differential -- --nocapture`.

use crate::common;

use common::{TempDir, copy_tree, run_env, skipped_without_shared};
use std::path::{Path, PathBuf};

/// A small deterministic generator (xorshift64*): the same seed, the same
/// edits, so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Every file below `dir`, relative to it, in a stable order.
fn files_below(dir: &Path, prefix: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name == ".confvet-cache" || name == ".git" {
            continue;
        }
        let rel = prefix.join(&name);
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            files_below(&entry.path(), &rel, out);
        } else {
            out.push(rel);
        }
    }
}

/// The tree the differential edits: the examples, and from ../shared a few
/// corpus ytt packages, Tekton files and conformance cases of each system.
fn material(dir: &Path) -> bool {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_tree(&root.join("examples"), &dir.join("examples"));
    let shared = root.join("../shared");
    let picks = [
        "corpus/ytt/kadras-io__cert-manager-issuers",
        "corpus/ytt/carvel-dev__secretgen-controller",
        "corpus/tekton/tektoncd-catalog/task/git-clone",
        "corpus/tekton/tektoncd-catalog/pipeline",
        "conformance/ytt/any-false-keeps-type-checking",
        "conformance/ytt/any-heterogeneous-array",
    ];
    let mut found = true;
    for pick in picks {
        let from = shared.join(pick);
        if from.is_dir() {
            common::copy_case(&from, &dir.join("shared").join(pick)).unwrap();
        } else {
            found = false;
        }
    }
    for system in ["kubevirt", "tekton"] {
        let cases = shared.join("conformance").join(system);
        let Ok(entries) = std::fs::read_dir(&cases) else {
            found = false;
            continue;
        };
        let mut names: Vec<_> = entries.flatten().map(|e| e.file_name()).collect();
        names.sort();
        for name in names.iter().take(4) {
            let from = cases.join(name);
            if from.is_dir() {
                common::copy_case(&from, &dir.join("cases").join(system).join(name)).unwrap();
            }
        }
    }
    found
}

/// The edits a step may make.
struct Editor<'a> {
    dir: &'a Path,
    rng: Rng,
    /// Files taken away, to put back later.
    removed: Vec<(PathBuf, Vec<u8>)>,
    /// Patterns of `--extend-exclude` this step's runs pass.
    exclude: Vec<String>,
}

impl Editor<'_> {
    fn files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        files_below(self.dir, Path::new(""), &mut out);
        out
    }

    fn text_files(&self) -> Vec<PathBuf> {
        self.files()
            .into_iter()
            .filter(|p| {
                matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("yml" | "yaml" | "star" | "txt")
                )
            })
            .collect()
    }

    /// One edit, described.
    fn edit(&mut self) -> String {
        let files = self.text_files();
        let Some(rel) = self.rng.pick(&files).cloned() else {
            return "nothing to edit".into();
        };
        let path = self.dir.join(&rel);
        let shown = rel.display().to_string();
        match self.rng.below(11) {
            // The same size, the old modification time put back (`cp -p`,
            // `touch -r`, `tar -x`, `rsync -a`).
            0..=2 => {
                let Ok(mut bytes) = std::fs::read(&path) else {
                    return "unreadable".into();
                };
                let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
                let places: Vec<usize> = bytes
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.is_ascii_alphanumeric())
                    .map(|(i, _)| i)
                    .collect();
                let Some(&at) = self.rng.pick(&places) else {
                    return "no letter".into();
                };
                let replacement = if bytes[at].is_ascii_digit() {
                    b"0123456789"[self.rng.below(10)]
                } else {
                    b"abcdefghijklmnopqrstuvwxyz"[self.rng.below(26)]
                };
                bytes[at] = replacement;
                std::fs::write(&path, &bytes).unwrap();
                if let Some(modified) = modified {
                    let file = std::fs::File::options().write(true).open(&path).unwrap();
                    file.set_modified(modified).unwrap();
                }
                format!("same-size edit of {shown} at {at}, old time put back")
            }
            // A line duplicated or dropped.
            3 => {
                let Ok(text) = std::fs::read_to_string(&path) else {
                    return "not text".into();
                };
                let mut lines: Vec<&str> = text.lines().collect();
                if lines.is_empty() {
                    return "empty".into();
                }
                let at = self.rng.below(lines.len());
                let drop = self.rng.below(2) == 0;
                if drop {
                    lines.remove(at);
                } else {
                    lines.insert(at, lines[at]);
                }
                std::fs::write(&path, lines.join("\n") + "\n").unwrap();
                format!(
                    "line {at} of {shown} {}",
                    if drop { "dropped" } else { "doubled" }
                )
            }
            // Removed, to come back later.
            4 => {
                let bytes = std::fs::read(&path).unwrap_or_default();
                std::fs::remove_file(&path).unwrap();
                self.removed.push((rel, bytes));
                format!("{shown} removed")
            }
            5 => match self.removed.pop() {
                Some((rel, bytes)) => {
                    let path = self.dir.join(&rel);
                    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                    std::fs::write(&path, bytes).unwrap();
                    format!("{} restored", rel.display())
                }
                None => "nothing to restore".into(),
            },
            // Touched: a new time, the same content.
            6 => {
                let file = std::fs::File::options().write(true).open(&path).unwrap();
                let later = std::time::SystemTime::now()
                    + std::time::Duration::from_secs(self.rng.below(1000) as u64);
                file.set_modified(later).unwrap();
                format!("{shown} touched")
            }
            // Copied beside itself.
            7 => {
                let copy = path.with_file_name(format!(
                    "copy{}-{}",
                    self.rng.below(3),
                    rel.file_name().unwrap().to_string_lossy()
                ));
                std::fs::copy(&path, &copy).unwrap();
                format!("{shown} copied")
            }
            // An ignore file (.confvetignore or .gitignore) in some folder
            // of the tree names the file, or is emptied.
            8 => {
                let name = if self.rng.below(2) == 0 {
                    ".confvetignore"
                } else {
                    ".gitignore"
                };
                let folders: Vec<&Path> = rel.ancestors().skip(1).collect();
                let folder = *self.rng.pick(&folders).unwrap();
                let ignore = self.dir.join(folder).join(name);
                let pattern = rel.strip_prefix(folder).unwrap().display().to_string();
                if ignore.exists() && self.rng.below(3) == 0 {
                    std::fs::write(&ignore, "").unwrap();
                    format!("{} emptied", folder.join(name).display())
                } else {
                    let mut text = std::fs::read_to_string(&ignore).unwrap_or_default();
                    text.push_str(&format!("/{pattern}\n"));
                    std::fs::write(&ignore, text).unwrap();
                    format!("{} ignores {pattern}", folder.join(name).display())
                }
            }
            // `--extend-exclude` of a file or folder, or none.
            9 => {
                if self.rng.below(2) == 0 {
                    self.exclude.clear();
                    "no --extend-exclude".into()
                } else {
                    let folders: Vec<&Path> = rel.ancestors().collect();
                    let pattern = self.rng.pick(&folders[..folders.len() - 1]).unwrap();
                    self.exclude.push(pattern.display().to_string());
                    format!("--extend-exclude {}", pattern.display())
                }
            }
            // The configuration turns a rule off, or is removed.
            _ => {
                let config = self.dir.join(".confvet.yaml");
                if config.exists() {
                    std::fs::remove_file(&config).unwrap();
                    ".confvet.yaml removed".into()
                } else {
                    let rules = [
                        "tekton/missing-param",
                        "ytt/validation",
                        "kubernetes/required",
                    ];
                    let rule = self.rng.pick(&rules).unwrap();
                    std::fs::write(&config, format!("rules:\n  {rule}: off\n")).unwrap();
                    format!(".confvet.yaml turns {rule} off")
                }
            }
        }
    }
}

/// A run's report with what differs between runs taken out.
fn report(dir: &Path, warm: bool, exclude: &[String], home: &str) -> (i32, String) {
    let mut args = vec!["lint", "--format", "json", "--no-progress"];
    for pattern in exclude {
        args.extend(["--extend-exclude", pattern.as_str()]);
    }
    if !warm {
        args.push("--no-cache");
    }
    args.push(".");
    let run = run_env(dir, &args, &[("XDG_CACHE_HOME", home)]);
    (run.code, run.stdout)
}

#[test]
fn a_warm_run_equals_a_cold_run_after_random_edits() {
    let steps = env_number("CONFVET_DIFF_STEPS", 150);
    let seed = env_number("CONFVET_DIFF_SEED", 20261128);
    let tree = TempDir::new("cache-diff");
    let home = TempDir::new("cache-diff-home");
    let home = home.path().to_string_lossy().into_owned();
    if !material(tree.path()) {
        skipped_without_shared("../shared/corpus and ../shared/conformance for the differential");
    }
    let mut editor = Editor {
        dir: tree.path(),
        rng: Rng(seed | 1),
        removed: Vec::new(),
        exclude: Vec::new(),
    };
    let mut history = Vec::new();
    let mut hits = 0;
    for step in 0..steps {
        let edits = 1 + editor.rng.below(3);
        for _ in 0..edits {
            history.push(format!("step {step}: {}", editor.edit()));
        }
        let warm = report(tree.path(), true, &editor.exclude, &home);
        let cold = report(tree.path(), false, &editor.exclude, &home);
        if warm != cold {
            let from = history.len().saturating_sub(12);
            panic!(
                "seed {seed}, step {step}: the warm run differs from the cold one after\n{}\nwarm exit {}, cold exit {}; {}",
                history[from..].join("\n"),
                warm.0,
                cold.0,
                differences(&warm.1, &cold.1)
            );
        }
        // A second warm run, unchanged, reuses and still agrees.
        if step % 5 == 4 {
            assert_eq!(report(tree.path(), true, &editor.exclude, &home), cold);
            hits += 1;
        }
    }
    println!(
        "{steps} steps ({} edits) on seed {seed}: warm equals cold; {hits} repeated warm runs",
        history.len()
    );
}

/// The findings one report has and the other has not, one a line.
fn differences(warm: &str, cold: &str) -> String {
    let lines = |report: &str| -> Vec<String> {
        let Ok(json) = serde_json::from_str::<serde_json::Value>(report) else {
            return vec![format!("not JSON: {report}")];
        };
        let mut out: Vec<String> = common::findings(&json)
            .iter()
            .map(|f| format!("{} {}:{} {}", f["rule"], f["file"], f["line"], f["message"]))
            .collect();
        out.push(format!("summary {}", json["summary"]));
        out
    };
    let (warm, cold) = (lines(warm), lines(cold));
    let only = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter().filter(|l| !b.contains(l)).cloned().collect()
    };
    format!(
        "only warm:\n  {}\nonly cold:\n  {}",
        only(&warm, &cold).join("\n  "),
        only(&cold, &warm).join("\n  ")
    )
}
