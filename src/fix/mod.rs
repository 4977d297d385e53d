//! `lint --fix` and `--diff`: apply the fixes findings propose, lint again,
//! and repeat until nothing is left to fix.
//!
//! Each pass takes the fixes of the run's findings in report order and keeps
//! those that touch no byte another kept fix touches (the rest wait for the
//! next pass, when their findings are made again against the new text). A
//! file whose fixed text no longer parses as YAML, when it did before, gets
//! its fixes undone one by one until it parses; those fixes are reported and
//! not tried again. `--fix` writes each file aside and renames it over the
//! old one, only when the file still holds the text the fixes were made
//! against; `--diff` keeps the fixed texts in memory, in the [`Files`] each
//! later pass reads through, and writes nothing.

mod diff;

pub use self::diff::{Change, unified_diff};

use crate::edit::{Edit, Fix, apply_edits};
use crate::finding::Finding;
use crate::replace::Mode;
use crate::run::LintResult;
use crate::source::{FileId, Files, Sources, normalize_path};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Passes at most: a fix whose finding comes back after it was applied
/// would otherwise loop for ever.
pub const MAX_PASSES: usize = 10;

/// How fixes are applied.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Apply unsafe fixes too (`--unsafe-fixes`).
    pub unsafe_fixes: bool,
    /// Write the fixed files (`--fix`), else keep them in memory (`--diff`).
    pub write: bool,
}

/// One pass's lint: its sources and result.
pub struct Pass {
    pub sources: Sources,
    pub result: LintResult,
}

/// What the fixing did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The changed files, by name.
    pub changes: Vec<Change>,
    /// Fixes applied, over all passes.
    pub fixed: usize,
    /// Passes that applied fixes.
    pub passes: usize,
    /// False when fixes still applied after [`MAX_PASSES`] passes.
    pub converged: bool,
    /// Why a fix was not applied: it broke its file's YAML, or the file
    /// changed on disk meanwhile.
    pub notes: Vec<String>,
}

/// Lint (`lint(pass, files)`, pass 0 first), apply the fixes, and again,
/// until no fix is left to apply or [`MAX_PASSES`] passes applied some.
/// Each pass reads its files through `files`: the disk, with `--diff`'s
/// fixed texts standing in. Returns what was done and the last pass, whose
/// findings are the ones to report.
pub fn run(options: Options, mut lint: impl FnMut(usize, &Files) -> Pass) -> (Outcome, Pass) {
    let mut files = Files::disk();
    let mut outcome = Outcome::default();
    let mut firsts: BTreeMap<PathBuf, (String, String)> = BTreeMap::new();
    let mut lasts: HashMap<PathBuf, String> = HashMap::new();
    let mut refused: HashSet<RefusedEdit> = HashSet::new();
    let mut pass = lint(0, &files);
    loop {
        let planned = plan(
            &pass,
            options.unsafe_fixes,
            &mut refused,
            &mut outcome.notes,
        );
        if planned.files.is_empty() {
            outcome.converged = true;
            break;
        }
        if outcome.passes == MAX_PASSES {
            break;
        }
        let mut applied = false;
        for file in planned.files {
            if options.write {
                if let Err(why) = write_fixed(&file.path, &file.before, &file.after) {
                    outcome
                        .notes
                        .push(format!("{} was not fixed: {why}", file.name));
                    continue;
                }
            } else {
                files.overlay(&file.path, file.after.clone().into_bytes());
            }
            applied = true;
            firsts
                .entry(file.path.clone())
                .or_insert_with(|| (file.name.clone(), file.before.clone()));
            lasts.insert(file.path, file.after);
        }
        if !applied {
            outcome.converged = true;
            break;
        }
        outcome.fixed += planned.fixes;
        outcome.passes += 1;
        pass = lint(outcome.passes, &files);
    }
    outcome.changes = firsts
        .into_iter()
        .filter_map(|(path, (name, before))| {
            let after = lasts.remove(&path)?;
            (after != before).then_some(Change {
                name,
                path,
                before,
                after,
            })
        })
        .collect();
    outcome.changes.sort_by(|a, b| a.name.cmp(&b.name));
    (outcome, pass)
}

/// An edit that broke its file: (file, the text it replaces, its text).
type RefusedEdit = (PathBuf, String, String);

/// One file's text before and after a pass's fixes.
struct FixedFile {
    name: String,
    path: PathBuf,
    before: String,
    after: String,
}

struct Planned {
    files: Vec<FixedFile>,
    /// How many fixes the files hold.
    fixes: usize,
}

/// The fixes of one pass, and the files they make.
fn plan(
    pass: &Pass,
    unsafe_fixes: bool,
    refused: &mut HashSet<RefusedEdit>,
    notes: &mut Vec<String>,
) -> Planned {
    let sources = &pass.sources;
    // An undone edit is known by its file, the text it replaces and the
    // text it writes (not by offsets, which other fixes move).
    let edit_key = |edit: &Edit| -> Option<RefusedEdit> {
        let path = normalize_path(&sources.path(edit.span.file)?);
        let replaced = sources
            .get(edit.span.file)
            .text
            .get(edit.span.range())?
            .to_string();
        Some((path, replaced, edit.content.clone()))
    };
    let mut kept: Vec<(&Finding, &Fix)> = Vec::new();
    // Files `--fix` would refuse to write (a link, not a regular file):
    // `--diff` shows no change to them either, and says so once.
    let mut unwritable: HashSet<FileId> = HashSet::new();
    for finding in &pass.result.findings {
        let Some(fix) = finding.applicable_fix(unsafe_fixes) else {
            continue;
        };
        // A fix of a source with no file (a command-line value) cannot be
        // written; one undone before is not tried again.
        let keys: Option<Vec<_>> = fix.edits.iter().map(edit_key).collect();
        let Some(keys) = keys else { continue };
        if let Some(edit) = fix
            .edits
            .iter()
            .find(|edit| !is_regular_file(sources, edit.span.file))
        {
            if unwritable.insert(edit.span.file) {
                notes.push(format!(
                    "the fixes of {} were not applied: it is not a regular file (a symbolic link), which --fix never writes through",
                    sources.name(edit.span.file)
                ));
            }
            continue;
        }
        if keys.iter().any(|key| refused.contains(key)) {
            continue;
        }
        if kept.iter().any(|(_, other)| other.overlaps(fix)) {
            continue;
        }
        kept.push((finding, fix));
    }
    loop {
        let files = fixed_files(sources, &kept);
        let broken = files.iter().find(|(_, file)| {
            crate::yaml::parses(&file.before) && !crate::yaml::parses(&file.after)
        });
        let Some((id, _)) = broken else {
            let fixes = kept.len();
            return Planned {
                files: files.into_values().collect(),
                fixes,
            };
        };
        // Add this file's fixes back one by one: the first that breaks it
        // is dropped, with every edit it makes.
        let id = *id;
        let text = sources.get(id).text.clone();
        let mut edits: Vec<&Edit> = Vec::new();
        let culprit = kept.iter().position(|(_, fix)| {
            let mine: Vec<&Edit> = fix.edits.iter().filter(|e| e.span.file == id).collect();
            if mine.is_empty() {
                return false;
            }
            edits.extend(mine);
            !crate::yaml::parses(&apply_edits(&text, &edits))
        });
        let culprit = culprit.unwrap_or(0);
        let (finding, fix) = kept.remove(culprit);
        for edit in &fix.edits {
            if let Some(key) = edit_key(edit) {
                refused.insert(key);
            }
        }
        let at = sources.get(finding.span.file);
        let place = at.line_col(finding.span.start as usize);
        notes.push(format!(
            "the fix of {} at {}:{}:{} was not applied: {} would no longer parse",
            finding.rule,
            at.name,
            place.line,
            place.column,
            sources.name(id)
        ));
    }
}

/// Whether the file of `id` is a regular file on disk (not a link), as
/// [`write_fixed`] requires.
fn is_regular_file(sources: &Sources, id: FileId) -> bool {
    sources
        .path(id)
        .and_then(|path| std::fs::symlink_metadata(path).ok())
        .is_some_and(|meta| meta.file_type().is_file())
}

/// Each file the kept fixes edit, with its text before and after them.
fn fixed_files(sources: &Sources, kept: &[(&Finding, &Fix)]) -> BTreeMap<FileId, FixedFile> {
    let mut by_file: BTreeMap<FileId, Vec<&Edit>> = BTreeMap::new();
    for (_, fix) in kept {
        for edit in &fix.edits {
            by_file.entry(edit.span.file).or_default().push(edit);
        }
    }
    by_file
        .into_iter()
        .filter_map(|(id, edits)| {
            let path = sources.path(id)?;
            let source = sources.get(id);
            let after = apply_edits(&source.text, &edits);
            (after != source.text).then(|| {
                (
                    id,
                    FixedFile {
                        name: source.name.clone(),
                        path,
                        before: source.text.clone(),
                        after,
                    },
                )
            })
        })
        .collect()
}

/// Why a fixed file was not written (each said after the file's name).
#[derive(Debug, thiserror::Error)]
enum NotWritten {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("it is not a regular file")]
    NotAFile,
    #[error("it changed on disk, or is not UTF-8 text as read")]
    Changed,
    #[error("it has no name")]
    NoName,
}

/// Replace the file at `path` by `after`, when it still holds `before`:
/// written aside in its folder and renamed over it (never through a link),
/// with its permissions kept.
fn write_fixed(path: &Path, before: &str, after: &str) -> Result<(), NotWritten> {
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.file_type().is_file() {
        return Err(NotWritten::NotAFile);
    }
    let now = crate::source::read_limited(path)?;
    if now != before.as_bytes() {
        return Err(NotWritten::Changed);
    }
    let name = path.file_name().ok_or(NotWritten::NoName)?;
    let aside = format!(".{}.confvet-fix.", name.to_string_lossy());
    let mode = Mode::Kept(meta.permissions());
    Ok(crate::replace::replace(
        path,
        &aside,
        after.as_bytes(),
        mode,
        true,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::Edit;
    use crate::rules;
    use crate::source::{SourceFile, Span};

    /// A file in a folder of its own, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(label: &str, text: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!(
                "confvet-fix-{label}-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("a.yaml"), text).unwrap();
            Scratch(dir)
        }

        fn file(&self) -> PathBuf {
            self.0.join("a.yaml")
        }

        fn text(&self) -> String {
            std::fs::read_to_string(self.file()).unwrap()
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A lint of the file that `fixes` reads: one finding per fix it
    /// proposes on the text as it is now (read as a run reads it).
    fn lint_with(
        path: &Path,
        fixes: impl Fn(&str, FileId) -> Vec<Fix>,
    ) -> impl FnMut(usize, &Files) -> Pass {
        let path = path.to_path_buf();
        move |_, files| {
            let sources = Sources::with_files(files.clone());
            let bytes = sources.read(&path).unwrap();
            let text = String::from_utf8(bytes).unwrap();
            let id = sources.add(SourceFile::new(
                "a.yaml".into(),
                Some(path.clone()),
                text.clone(),
            ));
            let findings = fixes(&text, id)
                .into_iter()
                .map(|fix| {
                    let span = fix.edits[0].span;
                    Finding::new(&rules::tekton::TRIGGER_LEGACY_PARAM, span, "legacy")
                        .with_fix(Some(fix))
                })
                .collect();
            let result = LintResult {
                findings,
                ..LintResult::default()
            };
            Pass { sources, result }
        }
    }

    /// `$(params.` → `$(tt.params.` wherever it is.
    fn legacy(text: &str, id: FileId) -> Vec<Fix> {
        text.match_indices("$(params.")
            .filter_map(|(at, _)| {
                let edit = Edit::replace(Span::new(id, at + 2, at + 2), "tt.");
                Fix::safe("write tt.", vec![edit])
            })
            .collect()
    }

    const WRITE: Options = Options {
        unsafe_fixes: false,
        write: true,
    };

    #[test]
    fn fixes_are_written_and_the_loop_stops_when_none_is_left() {
        let scratch = Scratch::new("done", "a: $(params.x) # keep\nb: $(params.y)\n");
        let (outcome, last) = run(WRITE, lint_with(&scratch.file(), legacy));
        assert_eq!(
            scratch.text(),
            "a: $(tt.params.x) # keep\nb: $(tt.params.y)\n"
        );
        assert_eq!(
            (outcome.fixed, outcome.passes, outcome.converged),
            (2, 1, true)
        );
        assert!(last.result.findings.is_empty());
        assert_eq!(outcome.changes.len(), 1);
        assert_eq!(
            outcome.changes[0].before,
            "a: $(params.x) # keep\nb: $(params.y)\n"
        );
    }

    #[test]
    fn a_fix_that_breaks_the_yaml_is_undone_and_said() {
        let scratch = Scratch::new("broken", "a: $(params.x)\nb: [1]\n");
        let breaking = |text: &str, id: FileId| {
            let mut fixes = legacy(text, id);
            if let Some(at) = text.find("[1]") {
                fixes.extend(Fix::safe(
                    "open",
                    vec![Edit::replace(Span::new(id, at, at + 3), "[1")],
                ));
            }
            fixes
        };
        let (outcome, _) = run(WRITE, lint_with(&scratch.file(), breaking));
        assert_eq!(scratch.text(), "a: $(tt.params.x)\nb: [1]\n");
        assert!(outcome.converged, "an undone fix is not tried again");
        assert_eq!(outcome.notes.len(), 1, "{:?}", outcome.notes);
        assert!(
            outcome.notes[0].contains("a.yaml would no longer parse"),
            "{:?}",
            outcome.notes
        );
    }

    #[test]
    fn a_fix_that_comes_back_stops_after_the_last_pass() {
        let scratch = Scratch::new("loop", "a: 1\n");
        let again = |_: &str, id: FileId| {
            Fix::safe("one more", vec![Edit::replace(Span::new(id, 0, 0), "#\n")])
                .into_iter()
                .collect()
        };
        let (outcome, _) = run(WRITE, lint_with(&scratch.file(), again));
        assert!(!outcome.converged);
        assert_eq!(outcome.passes, MAX_PASSES);
        assert_eq!(
            scratch.text(),
            format!("{}a: 1\n", "#\n".repeat(MAX_PASSES))
        );
    }

    #[test]
    fn diff_mode_keeps_the_fixed_text_in_memory_only() {
        let scratch = Scratch::new("diff", "a: $(params.x)\n");
        let options = Options {
            write: false,
            ..WRITE
        };
        let (outcome, last) = run(options, lint_with(&scratch.file(), legacy));
        assert_eq!(scratch.text(), "a: $(params.x)\n", "nothing written");
        assert!(
            last.result.findings.is_empty(),
            "the next pass read the fixed text"
        );
        assert_eq!(outcome.changes[0].after, "a: $(tt.params.x)\n");
        assert_eq!(
            String::from_utf8(crate::source::read_limited(&scratch.file()).unwrap()).unwrap(),
            "a: $(params.x)\n",
            "reads see the disk again"
        );
    }

    #[test]
    fn a_file_changed_since_it_was_linted_is_not_written() {
        let scratch = Scratch::new("raced", "a: $(params.x)\n");
        let file = scratch.file();
        let mut lint = lint_with(&file, legacy);
        let mut first = true;
        let (outcome, _) = run(WRITE, |pass, files| {
            let linted = lint(pass, files);
            if std::mem::take(&mut first) {
                std::fs::write(&file, "a: $(params.x)\nb: 2\n").unwrap();
            }
            linted
        });
        assert_eq!(scratch.text(), "a: $(params.x)\nb: 2\n");
        assert_eq!(outcome.fixed, 0);
        assert!(
            outcome.notes[0].contains("changed on disk"),
            "{:?}",
            outcome.notes
        );
    }
}
