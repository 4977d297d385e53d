//! Shared by the Tekton tests written in Rust: a scratch directory, and
//! linting a directory the way `confvet lint DIR` does (in-process, so
//! hundreds of runs stay fast), with each finding as a user reads it.
// Each test crate that includes this module uses a part of it.
#![allow(dead_code)]

use confvet::run::{LintRequest, lint};
use confvet::source::Sources;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A directory under the system temp directory, removed when dropped.
pub struct Scratch {
    pub root: PathBuf,
}

impl Scratch {
    pub fn new(label: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let root = std::env::temp_dir().join(format!(
            "confvet-tekton-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("scratch directory");
        Scratch { root }
    }

    /// Write `text` to `rel` below the root, creating directories.
    pub fn file(&self, rel: &str, text: &str) -> &Scratch {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("directories");
        std::fs::write(path, text).expect("a written file");
        self
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// One finding as the report shows it; `file` relative to the linted
/// directory, and its related locations as `file:line:column message`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Seen {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub rule: String,
    pub kind: String,
    pub severity: String,
    pub path: String,
    pub message: String,
    pub related: Vec<String>,
    pub help: Option<String>,
    /// How many findings this one counts (one, or those a unit left out).
    pub stands_for: usize,
}

/// Lint `dir` as `confvet lint DIR` run inside it does. Every finding must
/// carry the kind its rule id is registered with, which `confvet explain`
/// and SARIF show.
pub fn lint_dir(dir: &Path) -> Vec<Seen> {
    let sources = Sources::new();
    let request = LintRequest {
        paths: vec![dir.to_path_buf()],
        ..LintRequest::default()
    };
    let result = lint(&request, &sources, dir);
    assert!(result.errors.is_empty(), "{:?}", result.errors);
    result
        .findings
        .iter()
        .map(|f| {
            let registered = confvet::rules::find(f.rule).map(|r| r.kind);
            assert_eq!(registered, Some(f.kind), "kind of {}", f.rule);
            let (file, start, _) = sources.resolve(f.span);
            Seen {
                file: file.name.clone(),
                line: start.line,
                column: start.column,
                rule: f.rule.to_string(),
                kind: f.kind.as_str().to_string(),
                severity: f.severity.as_str().to_string(),
                path: f.path.clone().unwrap_or_default(),
                message: f.message.clone(),
                related: f
                    .related
                    .iter()
                    .map(|r| {
                        let (file, start, _) = sources.resolve(r.span);
                        format!(
                            "{}:{}:{} {}",
                            file.name, start.line, start.column, r.message
                        )
                    })
                    .collect(),
                help: f.help.clone(),
                stands_for: f.left_out.max(1),
            }
        })
        .collect()
}

/// The findings of `files` (name, text) linted together in a scratch
/// directory, sorted by file and position.
pub fn lint_files(files: &[(&str, &str)]) -> Vec<Seen> {
    let dir = Scratch::new("files");
    for (name, text) in files {
        dir.file(name, text);
    }
    let mut seen = lint_dir(&dir.root);
    seen.sort();
    seen
}
