//! What the end-to-end tests share: temporary directories and running the
//! real `confvet` binary in them.
#![allow(dead_code)] // each test file uses its own part

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

pub const BIN: &str = env!("CARGO_BIN_EXE_confvet");

/// Say that a test did not run because `../shared` (or a part of it) is
/// missing. Where `CONFVET_REQUIRE_SHARED` is set (CI sets it), the
/// material must be there: the test fails instead of passing on nothing.
pub fn skipped_without_shared(what: &str) {
    if std::env::var_os("CONFVET_REQUIRE_SHARED").is_some_and(|v| !v.is_empty()) {
        panic!("CONFVET_REQUIRE_SHARED is set, but {what}");
    }
    println!("skipped: {what}");
}

/// A temporary directory, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "confvet-test-{label}-{}-{n}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, contents).unwrap();
        path
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.0.join(rel)).unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The result of one run of the binary.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

pub fn run_in(dir: &Path, args: &[&str]) -> Run {
    run_env(dir, args, &[])
}

pub fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    run_full(dir, args, env, None)
}

/// Run with `input` on standard input.
pub fn run_stdin(dir: &Path, args: &[&str], input: &str) -> Run {
    run_full(dir, args, &[], Some(input))
}

/// A run whose current directory is in ../shared keeps its cache in a
/// directory of the test process: ../shared is read-only, and a cache left
/// there would serve later runs.
pub fn keep_cache_out_of_shared(command: &mut Command, cwd: &Path) {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let inside = cwd
        .canonicalize()
        .ok()
        .zip(shared.canonicalize().ok())
        .is_some_and(|(cwd, shared)| cwd.starts_with(shared));
    if inside {
        let dir = std::env::temp_dir().join(format!("confvet-test-cache-{}", std::process::id()));
        command.env("CONFVET_CACHE_DIR", dir);
    }
}

fn run_full(dir: &Path, args: &[&str], env: &[(&str, &str)], input: Option<&str>) -> Run {
    use std::io::Write;
    let mut command = Command::new(BIN);
    command
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("TF_BUILD");
    keep_cache_out_of_shared(&mut command, dir);
    for (key, value) in env {
        command.env(key, value);
    }
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().expect("run confvet");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // A run that never reads its input may close the pipe first.
    let _ = stdin.write_all(input.unwrap_or("").as_bytes());
    drop(stdin);
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().expect("run confvet");
    let run = Run {
        code: status.code().expect("confvet exited by a signal"),
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
    };
    assert!(
        !run.stderr.contains("panicked"),
        "confvet panicked on {args:?}:\n{}",
        run.stderr
    );
    run
}

/// A ratchet list under `tests/` (`render-passing.txt`...): one name a
/// line; blank lines and `#` comments left out. A missing list is empty.
pub fn passing_list(name: &str) -> std::collections::BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

pub fn findings(json: &Value) -> &Vec<Value> {
    json["findings"].as_array().expect("findings array")
}

/// Copy the regular files and folders below `from` into `to` (links left
/// out).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Copy a conformance case or corpus package, leaving out its `expect.yml`
/// (as ytt's `--file-mark expect.yml:exclude=true` does).
pub fn copy_case(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_case(&entry.path(), &target)?;
        } else if kind.is_symlink() {
            // A case may hold a link (git keeps it as one): made again as a
            // link, since what confvet does with it is what the case checks.
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if entry.file_name() != "expect.yml" {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}
pub mod suite;
