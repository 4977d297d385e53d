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

/// The settings a lint request keys its units with: each setting changes
/// the key, the environment does not (only the variables a flag reads are
/// keyed, by the run), and paths below the current directory key alike in
/// any checkout.
#[test]
fn every_ytt_setting_changes_the_key_and_paths_key_relative_to_the_checkout() {
    use crate::check::ytt::YttSettings;
    use crate::check::ytt::marks::{FileMark, SymlinkPolicy};
    use confvet_key::KeyHasher;
    use std::path::{Path, PathBuf};

    let key =
        |cwd: &Path, settings: &YttSettings| KeyHasher::relative_to(cwd).key(settings).finish();
    let cwd = Path::new("/work/checkout");
    let base = YttSettings::default();
    type Change = (&'static str, fn(&mut YttSettings));
    let changes: Vec<Change> = vec![
        ("data_value", |s| s.flags.data_value.push("a=1".into())),
        ("data_value_yaml", |s| {
            s.flags.data_value_yaml.push("a=1".into())
        }),
        ("data_value_file", |s| {
            s.flags.data_value_file.push("a=f".into())
        }),
        ("data_values_file", |s| {
            s.flags.data_values_file.push("v.yml".into())
        }),
        ("data_values_env", |s| {
            s.flags.data_values_env.push("APP".into())
        }),
        ("data_values_env_yaml", |s| {
            s.flags.data_values_env_yaml.push("APP".into())
        }),
        ("disable_validation", |s| s.disable_validation = true),
        ("strict", |s| s.strict = true),
        ("ignore_unknown_comments", |s| {
            s.ignore_unknown_comments = true
        }),
        ("skip_templates", |s| s.skip_templates = true),
        ("values_only", |s| s.values_only = true),
        ("implicit_map_key_overrides", |s| {
            s.implicit_map_key_overrides = true
        }),
        ("flat_files", |s| {
            s.flat_files = Some(vec![PathBuf::from("a.yml")])
        }),
        ("library_files", |s| s.library_files = Some(Vec::new())),
        ("marks", |s| {
            s.marks.push(FileMark::parse("x.yml:exclude=true").unwrap())
        }),
        ("symlinks", |s| {
            s.symlinks = SymlinkPolicy::new(true, &[], Path::new("/work/checkout"))
        }),
        ("plain_manifests", |s| s.plain_manifests = true),
    ];
    let mut seen = std::collections::HashSet::from([key(cwd, &base)]);
    for (name, change) in changes {
        let mut settings = base.clone();
        change(&mut settings);
        assert!(
            seen.insert(key(cwd, &settings)),
            "{name} does not change the key"
        );
    }
    let mut with_env = base.clone();
    with_env.flags.env.push(("HOME".into(), "/root".into()));
    assert_eq!(key(cwd, &with_env), key(cwd, &base));

    let in_checkout = |cwd: &Path| {
        let mut settings = base.clone();
        settings
            .flags
            .data_values_file
            .push(cwd.join("values/prod.yml"));
        settings.flags.cwd = cwd.to_path_buf();
        key(cwd, &settings)
    };
    assert_eq!(in_checkout(cwd), in_checkout(Path::new("/tmp/fresh-copy")));
}
