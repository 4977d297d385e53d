//! `--diff`: what the fixes change, as a unified diff per file (`git apply`
//! and `patch -p1` read it).

/// A file the fixes changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Its display name.
    pub name: String,
    pub path: std::path::PathBuf,
    /// The text before the first pass, and after the last.
    pub before: String,
    pub after: String,
}

/// The unified diff of every change, three lines of context, files named
/// `a/NAME` and `b/NAME` as git names them.
pub fn unified_diff(changes: &[Change]) -> String {
    let mut out = String::new();
    for change in changes {
        let diff = similar::TextDiff::from_lines(&change.before, &change.after);
        let text = diff
            .unified_diff()
            .context_radius(3)
            .missing_newline_hint(true)
            .header(&format!("a/{}", change.name), &format!("b/{}", change.name))
            .to_string();
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_names_each_file_and_only_its_changed_lines() {
        let change = Change {
            name: "tasks/build.yaml".into(),
            path: "tasks/build.yaml".into(),
            before: "a: 1\nb: $(params.x)\nc: 3\n".into(),
            after: "a: 1\nb: $(tt.params.x)\nc: 3\n".into(),
        };
        let diff = unified_diff(&[change]);
        assert_eq!(
            diff,
            "--- a/tasks/build.yaml\n+++ b/tasks/build.yaml\n@@ -1,3 +1,3 @@\n a: 1\n-b: $(params.x)\n+b: $(tt.params.x)\n c: 3\n"
        );
    }
}
