use super::{LintRequest, lint};
use crate::source::{Files, Sources};

/// Two runs at once in one process, each with its own text standing in for
/// the same file: each sees its own (a process-wide overlay could not).
#[test]
fn runs_with_different_overlays_do_not_see_each_others_text() {
    let dir = std::env::temp_dir().join(format!("confvet-run-overlays-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    let dir = dir.canonicalize().unwrap();
    let file = dir.join("pkg/config.yml");
    std::fs::write(&file, "a: 1\n").unwrap();
    let run = |text: &'static str| {
        let (dir, file) = (dir.clone(), file.clone());
        std::thread::spawn(move || {
            let mut files = Files::disk();
            files.overlay(&file, text.as_bytes().to_vec());
            let sources = Sources::with_files(files);
            let request = LintRequest {
                paths: vec![dir.join("pkg")],
                ..LintRequest::default()
            };
            let result = lint(&request, &sources, &dir);
            let messages: Vec<String> = result.findings.iter().map(|f| f.message.clone()).collect();
            (result.summary.files, messages)
        })
    };
    let broken = run("#@ x = 1\na: #@ undefined_here\n");
    let fine = run("#@ x = 1\na: #@ x\n");
    let (broken, fine) = (broken.join().unwrap(), fine.join().unwrap());
    assert_eq!(broken.0, 1);
    assert!(
        broken.1.iter().any(|m| m.contains("undefined_here")),
        "{broken:?}"
    );
    assert_eq!(fine, (1, Vec::new()));
    // Nothing was written, and nothing stands in after the runs.
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a: 1\n");
    let _ = std::fs::remove_dir_all(&dir);
}
