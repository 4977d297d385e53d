//! The progress bar: drawn on a terminal once a run takes over a second,
//! never in CI and never when standard error is not a terminal. The
//! terminal is a pseudo-terminal made by util-linux `script`; without it the
//! test says so and passes.

use crate::common;

use common::{BIN, TempDir};
use std::process::Command;

/// A package whose one rule runs until the statement budget stops it: a run
/// of several seconds in a debug build.
const SLOW_SCHEMA: &str = "#@ def spin(v):
#@   for i in range(1000000000):
#@     v = v + 1
#@   end
#@   return True
#@ end
#@data/values-schema
---
#@schema/validation (\"terminates\", spin)
count: 2
";

/// What a terminal shows for `command`, run by a shell under `script`.
fn on_a_terminal(dir: &TempDir, command: &str, ci: Option<&str>) -> String {
    let mut script = Command::new("script");
    script
        .args(["-qec", command, "/dev/null"])
        .current_dir(dir.path())
        .env_remove("CI");
    if let Some(value) = ci {
        script.env("CI", value);
    }
    let output = script.output().expect("run script");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_bar_on_a_terminal_only() {
    if Command::new("script").arg("--version").output().is_err() {
        println!("skipped: util-linux `script` is not installed");
        return;
    }
    let dir = TempDir::new("progress");
    dir.write("pkg/schema.yml", SLOW_SCHEMA);
    let lint = format!("'{BIN}' lint pkg --color never");
    let stderr_to_file = format!("{lint} 2>stderr.txt");
    let (terminal, in_ci, redirected) = std::thread::scope(|s| {
        let terminal = s.spawn(|| on_a_terminal(&dir, &lint, None));
        let in_ci = s.spawn(|| on_a_terminal(&dir, &lint, Some("true")));
        let redirected = s.spawn(|| on_a_terminal(&dir, &stderr_to_file, None));
        (
            terminal.join().unwrap(),
            in_ci.join().unwrap(),
            redirected.join().unwrap(),
        )
    });
    let report = "1 error, 0 warnings in 1 file";
    for (name, shown) in [
        ("terminal", &terminal),
        ("CI", &in_ci),
        ("redirected", &redirected),
    ] {
        assert!(shown.contains(report), "{name}:\n{shown}");
    }
    assert!(terminal.contains("checking"), "{terminal}");
    assert!(terminal.contains("0/1 units"), "{terminal}");
    // The bar is cleared before the report is printed.
    let report_at = terminal.find("error[ytt/validation]").unwrap();
    assert!(!terminal[report_at..].contains("units"), "{terminal}");
    assert!(!in_ci.contains("units"), "{in_ci}");
    assert!(!redirected.contains("units"), "{redirected}");
    assert_eq!(dir.read("stderr.txt"), "");
}
