//! `.confvet-cache/` remembers every file's role and names, and each unit's
//! findings under the hash of everything the unit read: a warm run reads
//! and checks only what changed, and reports exactly what a cold run
//! (`--no-cache`) reports, after every kind of edit.

use crate::common;

use common::{TempDir, findings, run_in};

const TASK: &str = "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: build\nspec:\n  params:\n    - name: image\n  steps:\n    - name: s\n      image: alpine\n      script: echo $(params.image)\n";
const PIPELINE: &str = "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: p\nspec:\n  tasks:\n    - name: b\n      taskRef:\n        name: build\n";

fn repo() -> TempDir {
    let dir = TempDir::new("cache");
    dir.write("ci/task.yml", TASK);
    dir.write("ci/pipeline.yml", PIPELINE);
    for i in 0..20 {
        dir.write(
            &format!("other/t{i}.yml"),
            TASK.replace("build", &format!("t{i}")),
        );
    }
    dir
}

/// The files of the cache's index (its groupings and its shards of
/// entries), by name, with their bytes.
fn index_files(dir: &TempDir) -> std::collections::BTreeMap<String, Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir.path().join(".confvet-cache")) else {
        return Default::default();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("index") && name.ends_with(".json"))
        .map(|name| {
            let bytes = std::fs::read(dir.path().join(".confvet-cache").join(&name)).unwrap();
            (name, bytes)
        })
        .collect()
}

/// The rules and lines of a lint of `args`.
fn lint(dir: &TempDir, args: &[&str]) -> Vec<String> {
    let mut all = vec!["lint", "--format", "json"];
    all.extend_from_slice(args);
    let run = run_in(dir.path(), &all);
    assert!(run.code < 2, "{}", run.stderr);
    findings(&run.json())
        .iter()
        .map(|f| format!("{} {}:{} {}", f["rule"], f["file"], f["line"], f["message"]))
        .collect()
}

#[test]
fn a_warm_run_reports_what_a_cold_run_reports_and_sees_edits() {
    let dir = repo();
    let cold = lint(&dir, &["ci/pipeline.yml"]);
    // The Pipeline does not give the Task's required param.
    assert!(cold.iter().any(|f| f.contains("image")), "{cold:?}");
    assert!(
        index_files(&dir)
            .keys()
            .any(|name| name.starts_with("index-")),
        "{:?}",
        index_files(&dir).keys()
    );
    assert!(dir.read(".confvet-cache/.gitignore").contains('*'));
    let warm = lint(&dir, &["ci/pipeline.yml"]);
    assert_eq!(cold, warm);
    // The Task renamed: the Pipeline's reference no longer resolves.
    dir.write("ci/task.yml", TASK.replace("name: build", "name: gone"));
    assert_eq!(lint(&dir, &["ci/pipeline.yml"]), Vec::<String>::new());
    // Another file, remembered as declaring nothing the Pipeline names, now
    // declares its Task: the cache must not answer for the edited file.
    dir.write("other/t3.yml", TASK);
    assert_eq!(lint(&dir, &["ci/pipeline.yml"]), cold);
    // A cache that cannot be read is ignored, not trusted.
    for name in index_files(&dir).keys() {
        dir.write(&format!(".confvet-cache/{name}"), "{not json");
    }
    assert_eq!(lint(&dir, &["ci/pipeline.yml"]), cold);
}

/// A run that learnt of one edited file rewrites the shard of the index
/// that holds it, not an entry for every file of the tree; a run that
/// learnt nothing writes nothing.
#[test]
fn an_edit_rewrites_one_shard_of_the_index() {
    let dir = repo();
    for i in 0..200 {
        dir.write(&format!("plain/f{i}.yml"), format!("a: {i}\n"));
    }
    // Files changed in the last two seconds are read again by the next
    // run (they may still change unseen within their time's tick).
    std::thread::sleep(std::time::Duration::from_secs(3));
    lint(&dir, &["."]);
    let before = index_files(&dir);
    let shards = before.keys().filter(|n| n.starts_with("index-")).count();
    assert!(shards > 32, "{shards} shards for 222 files");
    lint(&dir, &["."]);
    assert_eq!(index_files(&dir), before, "a run that learnt nothing");
    dir.write("plain/f7.yml", "a: edited\n");
    lint(&dir, &["."]);
    let after = index_files(&dir);
    let rewritten: Vec<&String> = after
        .iter()
        .filter(|(name, bytes)| before.get(*name) != Some(*bytes))
        .map(|(name, _)| name)
        .collect();
    assert_eq!(rewritten.len(), 1, "{rewritten:?}");
    assert!(rewritten[0].starts_with("index-"), "{rewritten:?}");
}

#[test]
fn no_cache_writes_nothing() {
    let dir = repo();
    lint(&dir, &[".", "--no-cache"]);
    lint(&dir, &["ci/pipeline.yml", "--no-cache"]);
    assert!(!dir.path().join(".confvet-cache").exists());
}

#[test]
fn a_folder_merely_named_like_the_cache_is_linted_and_never_taken_over() {
    let dir = repo();
    dir.write(
        ".confvet-cache/bad.yml",
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata: [\n",
    );
    for _ in 0..2 {
        let all = lint(&dir, &["."]);
        assert!(
            all.iter().any(|f| f.contains(".confvet-cache/bad.yml")),
            "{all:?}"
        );
        // confvet does not write its cache (and its tag, which would hide
        // the folder from the next run) into a folder the checkout brought.
        assert!(!dir.path().join(".confvet-cache/CACHEDIR.TAG").exists());
        assert!(index_files(&dir).is_empty());
    }
}

#[test]
fn the_cache_folder_this_machine_made_is_known_by_its_tag_and_skipped() {
    let dir = TempDir::new("cache-tag");
    // A ytt package rooted at the current directory: its cache folder is
    // inside it, and `ytt -f .` would read every file there.
    dir.write("schema.yml", "#@data/values-schema\n---\nport: 0\n");
    dir.write("values.yml", "#@data/values\n---\nport: oops\n");
    let cold = lint(&dir, &["."]);
    assert!(!cold.is_empty());
    let tag = dir.read(".confvet-cache/CACHEDIR.TAG");
    assert!(
        tag.starts_with("Signature: 8a477f597d28d172789f06886806bc55"),
        "{tag}"
    );
    let run = run_in(
        dir.path(),
        &["lint", "--format", "json", ".", "--explain-cache"],
    );
    assert!(
        run.stderr.contains("cache: 1 of 1 units reused"),
        "the cache's own files became inputs of the package: {}",
        run.stderr
    );
    // The same tag copied into another folder does not verify there.
    dir.write("copy/CACHEDIR.TAG", &tag);
    dir.write("copy/values.yml", "#@data/values\n---\nport: worse\n");
    let all = lint(&dir, &["."]);
    assert!(all.iter().any(|f| f.contains("copy/values.yml")), "{all:?}");
    // The walk leaves this machine's cache folder out by its tag, not by
    // the `.gitignore` it holds: a file put there is not linted.
    std::fs::remove_file(dir.path().join(".confvet-cache/.gitignore")).unwrap();
    dir.write(
        ".confvet-cache/stray.yml",
        "apiVersion: tekton.dev/v1\nkind: Task\nmetadata: [\n",
    );
    let all = lint(&dir, &["."]);
    assert!(all.iter().any(|f| f.contains("copy/values.yml")), "{all:?}");
    assert!(!all.iter().any(|f| f.contains("stray.yml")), "{all:?}");
}

/// A lint as run on a machine whose user cache folder is `home`.
fn lint_on_machine(dir: &TempDir, home: &TempDir, extra: &[&str]) -> common::Run {
    let mut args = vec!["lint", "--format", "json", "."];
    args.extend_from_slice(extra);
    let home = home.path().to_string_lossy().into_owned();
    common::run_env(dir.path(), &args, &[("XDG_CACHE_HOME", home.as_str())])
}

/// `body` sealed as the cache file `name` with the key of the machine
/// whose user cache folder is `home` (the layout `cache::trust` writes).
fn reseal(home: &TempDir, name: &str, body: &str) -> String {
    let key: [u8; 32] = std::fs::read(home.path().join("confvet/machine-key"))
        .unwrap()
        .try_into()
        .unwrap();
    let mut hasher = blake3::Hasher::new_keyed(&key);
    hasher.update(&(name.len() as u64).to_le_bytes());
    hasher.update(name.as_bytes());
    hasher.update(body.as_bytes());
    format!("confvet-seal-1 {}\n{body}", hasher.finalize().to_hex())
}

/// The JSON body of a sealed cache file.
fn body_of(sealed: &str) -> &str {
    sealed.split_once('\n').unwrap().1
}

#[test]
fn a_cache_the_checkout_brought_is_never_believed() {
    let dir = repo();
    let (ours, theirs) = (TempDir::new("machine-a"), TempDir::new("machine-b"));
    let cold = lint(&dir, &[".", "--no-cache"]);
    assert!(cold.iter().any(|f| f.contains("missing-param")), "{cold:?}");
    // The attacker's machine checks the tree, empties the stored findings,
    // seals the store again with its own key, and commits the folder.
    let run = lint_on_machine(&dir, &theirs, &[]);
    assert_eq!(run.code, 1);
    let results = dir.path().join(".confvet-cache/results.json");
    let stored = std::fs::read_to_string(&results).unwrap();
    let mut store: serde_json::Value = serde_json::from_str(body_of(&stored)).unwrap();
    for entry in store["entries"].as_object_mut().unwrap().values_mut() {
        entry["findings"] = serde_json::json!([]);
    }
    let emptied = store.to_string();
    std::fs::write(&results, reseal(&theirs, "results.json", &emptied)).unwrap();
    // Where the key is the one that sealed it, the forgery works: the test
    // can fail.
    let run = lint_on_machine(&dir, &theirs, &[]);
    assert_eq!(
        (run.code, findings(&run.json()).len()),
        (0, 0),
        "{}",
        run.stderr
    );
    // This machine (another key) believes none of it, in CI and out.
    for ci in ["", "true"] {
        let home = ours.path().to_string_lossy().into_owned();
        let run = common::run_env(
            dir.path(),
            &["lint", "--format", "json", ".", "--explain-cache"],
            &[("XDG_CACHE_HOME", home.as_str()), ("CI", ci)],
        );
        assert_eq!(run.code, 1, "{}", run.stderr);
        let warm: Vec<String> = findings(&run.json())
            .iter()
            .map(|f| format!("{} {}:{} {}", f["rule"], f["file"], f["line"], f["message"]))
            .collect();
        assert_eq!(warm, cold);
        assert!(run.stderr.contains("could not be read"), "{}", run.stderr);
        // It was checked, and this machine's own cache replaced the forgery.
        std::fs::write(&results, reseal(&theirs, "results.json", &emptied)).unwrap();
    }
    // A store edited without a new seal is not believed by its own machine.
    std::fs::write(&results, format!("{}{}", &stored[..80], &emptied)).unwrap();
    let run = lint_on_machine(&dir, &theirs, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
}

#[test]
fn a_stored_finding_cannot_choose_the_file_that_is_shown() {
    let outside = TempDir::new("cache-outside");
    outside.write("outside-secret.txt", "SECRET-MARKER-LINE\n".repeat(20));
    let dir = TempDir::new("cache-entry-path");
    let repo_dir = dir.path().join("repo");
    std::fs::create_dir_all(repo_dir.join("ci")).unwrap();
    std::fs::write(repo_dir.join("ci/task.yml"), TASK).unwrap();
    std::fs::write(repo_dir.join("ci/pipeline.yml"), PIPELINE).unwrap();
    // The operator names the cache folder (believed as it is, as CI restores
    // it): even so an entry may only point into the files its unit read.
    let cache = outside.path().join("cache");
    let cache_dir = cache.to_string_lossy().into_owned();
    let env = [("CONFVET_CACHE_DIR", cache_dir.as_str())];
    let run = common::run_env(&repo_dir, &["lint", "."], &env);
    assert_eq!(run.code, 1);
    let results = cache.join("results.json");
    let stored = std::fs::read_to_string(&results).unwrap();
    let secret = outside.path().join("outside-secret.txt");
    let relative = format!(
        "../../{}/outside-secret.txt",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    for path in [relative.as_str(), secret.to_str().unwrap()] {
        let forged = stored.replace(
            "\"path\":\"ci/pipeline.yml\"",
            &format!("\"path\":{:?}", path),
        );
        assert_ne!(forged, stored);
        std::fs::write(&results, &forged).unwrap();
        let run = common::run_env(&repo_dir, &["lint", ".", "--explain-cache"], &env);
        assert_eq!(run.code, 1, "{}", run.stderr);
        assert!(!run.stdout.contains("SECRET-MARKER"), "{}", run.stdout);
        assert!(run.stdout.contains("ci/pipeline.yml"), "{}", run.stdout);
        assert!(run.stderr.contains("ignored as corrupt"), "{}", run.stderr);
    }
}

#[test]
fn an_edit_that_puts_the_old_modification_time_back_is_seen() {
    let dir = repo();
    let bad = lint(&dir, &["."]);
    assert!(bad.iter().any(|f| f.contains("missing-param")), "{bad:?}");
    // `cp -p`, `touch -r`, `rsync -a`: the same size, the old time.
    let task = dir.path().join("ci/task.yml");
    let modified = std::fs::metadata(&task).unwrap().modified().unwrap();
    // Renamed in as many bytes: the Pipeline's reference no longer resolves.
    let fixed = TASK.replace("name: build", "name: buile");
    assert_eq!(fixed.len(), TASK.len());
    std::fs::write(&task, &fixed).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&task)
        .unwrap()
        .set_modified(modified)
        .unwrap();
    let cold = lint(&dir, &[".", "--no-cache"]);
    assert_ne!(cold, bad, "the edit changes the findings");
    assert_eq!(lint(&dir, &["."]), cold);
    assert_eq!(
        lint(&dir, &["ci/pipeline.yml"]),
        lint(&dir, &["ci/pipeline.yml", "--no-cache"])
    );
}

const SCHEMA: &str = "#@data/values-schema\n---\nport: 0\nname: app\n";
const VALUES: &str = "#@data/values\n---\nport: 8080\n";
const HELPERS: &str = "def label(name):\n  return name + \"-svc\"\nend\n";
const OWNER: &str = "def owner():\n  return \"team\"\nend\n";
const TEMPLATE: &str = "#@ load(\"@ytt:data\", \"data\")\n#@ load(\"helpers.star\", \"label\")\n#@ load(\"@lib:owner.star\", \"owner\")\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: #@ label(data.values.name)\ndata:\n  port: #@ str(data.values.port)\n  owner: #@ owner()\n";
const CONFIG: &str = "ytt:\n  packages:\n    - path: pkg\n      scenarios:\n        - name: given\n          data-value-yaml: [\"port=9090\"]\n";

/// A repository with a ytt package (a template that loads a `.star` file
/// and a private library's, a schema and data values, a scenario in the
/// configuration) and a Tekton Pipeline whose Task lacks a param default.
fn project() -> TempDir {
    let dir = TempDir::new("results");
    dir.write("pkg/schema.yml", SCHEMA);
    dir.write("pkg/values.yml", VALUES);
    dir.write("pkg/helpers.star", HELPERS);
    dir.write("pkg/_ytt_lib/lib/owner.star", OWNER);
    dir.write("pkg/template.yml", TEMPLATE);
    dir.write("ci/task.yml", TASK);
    dir.write("ci/pipeline.yml", PIPELINE);
    dir.write(".confvet.yaml", CONFIG);
    dir
}

/// Each finding of a JSON report: rule, place, severity and message.
fn shown(run: &common::Run) -> Vec<String> {
    findings(&run.json())
        .iter()
        .map(|f| {
            format!(
                "{} {}:{}:{} {} {}",
                f["rule"], f["file"], f["line"], f["column"], f["severity"], f["message"]
            )
        })
        .collect()
}

/// A warm run (with the cache) and a cold one (`--no-cache`) of the whole
/// tree: the same findings, returned with what the warm run said of the
/// cache.
fn warm_equals_cold(dir: &TempDir) -> (Vec<String>, String) {
    let mut args = vec!["lint", "--format", "json", "."];
    let cold = run_in(dir.path(), &[&args[..], &["--no-cache"]].concat());
    args.push("--explain-cache");
    let warm = run_in(dir.path(), &args);
    assert!(warm.code < 2, "{}", warm.stderr);
    assert_eq!(shown(&warm), shown(&cold), "{}", warm.stderr);
    assert_eq!(warm.code, cold.code);
    assert_eq!(warm.stdout, cold.stdout, "the reports differ");
    (shown(&warm), warm.stderr)
}

/// Apply `edit`, then check that the warm run equals the cold one, that the
/// findings changed (so a cache that missed the edit would fail), and that
/// the unit `checked` was checked again, for the reason given, while the
/// other was reused.
fn after(
    dir: &TempDir,
    before: &[String],
    checked: &str,
    edit: impl FnOnce(&TempDir),
) -> Vec<String> {
    edit(dir);
    let (now, said) = warm_equals_cold(dir);
    eprintln!("STEP {checked}: {now:?}");
    assert_ne!(now, before, "the edit changed no finding: it tests nothing");
    let reused = if checked.contains("configuration") {
        0
    } else {
        1
    };
    assert!(
        said.contains(&format!("cache: {reused} of 2 units reused")),
        "{said}"
    );
    assert!(said.contains(checked), "{said}");
    now
}

#[test]
fn a_warm_run_equals_a_cold_run_after_every_kind_of_edit() {
    let dir = project();
    let (first, said) = warm_equals_cold(&dir);
    assert!(said.contains("cache: 0 of 2 units reused"), "{said}");
    let (again, said) = warm_equals_cold(&dir);
    assert_eq!(first, again);
    assert!(said.contains("cache: 2 of 2 units reused"), "{said}");
    // The Pipeline gives no value for the Task's required param.
    assert!(
        first.iter().any(|f| f.contains("missing-param")),
        "{first:?}"
    );

    let ytt = "ytt pkg: a file it reads changed";
    let now = after(&dir, &first, ytt, |d| {
        d.write(
            "pkg/template.yml",
            TEMPLATE.replace("label(data", "labl(data"),
        );
    });
    let now = after(&dir, &now, ytt, |d| {
        d.write("pkg/template.yml", TEMPLATE);
        d.write(
            "pkg/helpers.star",
            HELPERS.replace("name + \"-svc\"", "name + 1"),
        );
    });
    let now = after(&dir, &now, ytt, |d| {
        d.write("pkg/helpers.star", HELPERS);
        d.write(
            "pkg/_ytt_lib/lib/owner.star",
            OWNER.replace("\"team\"", "\"team\" + 1"),
        );
    });
    let now = after(&dir, &now, ytt, |d| {
        d.write("pkg/_ytt_lib/lib/owner.star", OWNER);
        d.write("pkg/values.yml", VALUES.replace("8080", "oops"));
    });
    let now = after(
        &dir,
        &now,
        "ytt pkg: a file it reads was added, removed or renamed",
        |d| {
            std::fs::remove_file(d.path().join("pkg/values.yml")).unwrap();
        },
    );
    let now = after(
        &dir,
        &now,
        "tekton ci/pipeline.yml: a file it reads changed",
        |d| {
            d.write(
                "ci/task.yml",
                TASK.replace("- name: image", "- name: image\n      default: alpine"),
            );
        },
    );
    let now = after(&dir, &now, ytt, |d| {
        d.write(
            "pkg/template.yml",
            TEMPLATE.replace("label(data", "labl(data"),
        );
    });
    let now = after(
        &dir,
        &now,
        "ytt pkg: a file it reads was added, removed or renamed",
        |d| {
            std::fs::rename(
                d.path().join("pkg/template.yml"),
                d.path().join("pkg/renamed.yml"),
            )
            .unwrap();
        },
    );
    // A configuration entry: every unit is checked again, then stored.
    after(&dir, &now, "ytt pkg: the configuration", |d| {
        d.write(".confvet.yaml", CONFIG.replace("port=9090", "port=oops"));
    });
    let (_, said) = warm_equals_cold(&dir);
    assert!(said.contains("cache: 2 of 2 units reused"), "{said}");
}

#[test]
fn a_corrupt_or_foreign_store_is_ignored_with_a_note() {
    let dir = project();
    let (cold, _) = warm_equals_cold(&dir);
    let store = dir.path().join(".confvet-cache/results.json");
    let stored = std::fs::read_to_string(&store).unwrap();
    for bad in [
        "{not json".to_string(),
        stored.replace("\"version\":\"", "\"version\":\"0.0.0-other-"),
        stored.replace(
            "\"rule\":\"tekton/missing-param\"",
            "\"rule\":\"tekton/no-such-rule\"",
        ),
    ] {
        std::fs::write(&store, &bad).unwrap();
        let run = run_in(
            dir.path(),
            &["lint", "--format", "json", ".", "--statistics"],
        );
        let shown = shown(&run);
        assert_eq!(shown, cold, "{}", run.stderr);
        if bad.starts_with('{') && !bad.contains("no-such-rule") {
            assert!(
                run.stderr.contains("could not be read and were ignored"),
                "{}",
                run.stderr
            );
        }
    }
}

#[test]
fn a_cache_restored_into_a_fresh_checkout_serves_it() {
    let dir = project();
    warm_equals_cold(&dir);
    // Another checkout: the same content, new modification times, another
    // directory (`cp` without `-p`).
    let clone = TempDir::new("results-clone");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(format!("{}/.", dir.path().display()))
        .arg(clone.path())
        .status()
        .unwrap();
    assert!(status.success());
    let (_, said) = warm_equals_cold(&clone);
    assert!(said.contains("cache: 2 of 2 units reused"), "{said}");
}

const WIDGET_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                size:
                  type: integer
";

#[test]
fn the_crds_of_the_tree_are_inputs_of_the_packages_checked_against_them() {
    let dir = TempDir::new("results-crd");
    dir.write("pkg/schema.yml", "#@data/values-schema\n---\nsize: 3\n");
    dir.write(
        "pkg/widget.yml",
        "#@ load(\"@ytt:data\", \"data\")\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: #@ data.values.size\n",
    );
    dir.write("crds/widget.yml", WIDGET_CRD);
    let (first, _) = warm_equals_cold(&dir);
    assert_eq!(first, Vec::<String>::new());
    dir.write(
        "crds/widget.yml",
        WIDGET_CRD.replace("type: integer", "type: string"),
    );
    let (now, said) = warm_equals_cold(&dir);
    assert!(now.iter().any(|f| f.contains("kubernetes/type")), "{now:?}");
    assert!(said.contains("a CRD or schema file"), "{said}");
}
