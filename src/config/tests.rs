//! Unit tests of the configuration: its mistakes as findings, and the
//! JSON Schema and the documented examples kept in step with the parser.

use super::*;
use crate::discover::System;
use crate::finding::{Finding, Severity};
use crate::source::Span;
use crate::yaml;
use serde_json::Value as Json;

fn parse(text: &str) -> (Config, Sources) {
    parse_with(text, LoadOptions::default())
}

fn parse_with(text: &str, options: LoadOptions) -> (Config, Sources) {
    let sources = Sources::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let path = dir.join(".confvet.yaml");
    let id = sources.add(SourceFile::new(
        ".confvet.yaml".into(),
        Some(path.clone()),
        text.into(),
    ));
    let config = Config::parse(path, id, &dir, &sources, options);
    (config, sources)
}

/// Each finding as `rule line: message`.
fn mistakes(text: &str) -> Vec<String> {
    mistakes_with(text, LoadOptions::default())
}

fn mistakes_with(text: &str, options: LoadOptions) -> Vec<String> {
    let (config, sources) = parse_with(text, options);
    config
        .findings
        .iter()
        .map(|f| {
            let (_, start, _) = sources.resolve(f.span);
            format!("{} {}: {}", f.rule, start.line, f.message)
        })
        .collect()
}

fn schema() -> Json {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/schema/confvet.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The YAML file as the JSON an editor's schema check sees.
fn as_json(text: &str) -> Json {
    let sources = Sources::new();
    let id = sources.add(SourceFile::new("c".into(), None, text.into()));
    let set = yaml::parse_file(id, text, &yaml::ParseOptions::default()).unwrap();
    set.docs
        .first()
        .map_or(Json::Null, |d| yaml::emit::to_json(&d.value))
}

fn schema_errors(text: &str) -> Vec<String> {
    let schema = schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator
        .iter_errors(&as_json(text))
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// The `.confvet.yaml` block of the README's Configuration section.
fn readme_example() -> String {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/configuration.md"
    ))
    .unwrap();
    let start = readme
        .find("```yaml\n# .confvet.yaml")
        .expect("docs/configuration.md has a ```yaml block starting with `# .confvet.yaml`");
    let body = &readme[start + "```yaml\n".len()..];
    body[..body.find("```").unwrap()].to_string()
}

fn bundled_example() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/.confvet.yaml"
    ))
    .unwrap()
}

#[test]
fn the_readme_and_bundled_examples_are_valid() {
    let bundled = bundled_example();
    assert_eq!(schema_errors(&bundled), Vec::<String>::new());
    assert_eq!(mistakes(&bundled), Vec::<String>::new());
    // The README's paths name a reader's files: only they may be missing.
    let readme = readme_example();
    assert_eq!(schema_errors(&readme), Vec::<String>::new());
    // Its `data-values-env` is the operator's to allow.
    let allowed = LoadOptions { allow_env: true };
    let found = mistakes_with(&readme, allowed);
    assert!(!found.is_empty());
    for mistake in found {
        assert!(
            mistake.contains(": no file ") || mistake.contains(": no directory "),
            "{mistake}"
        );
    }
}

#[test]
fn the_schema_lists_the_keys_the_parser_takes() {
    let schema = schema();
    let keys = |pointer: &str| -> Vec<String> {
        let mut keys: Vec<String> = schema
            .pointer(pointer)
            .and_then(Json::as_object)
            .unwrap_or_else(|| panic!("schema has no {pointer}"))
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    };
    let sorted = |list: &[&str]| {
        let mut list: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        list.sort();
        list
    };
    assert_eq!(keys("/properties"), sorted(TOP_KEYS));
    assert_eq!(keys("/properties/ytt/properties"), sorted(YTT_KEYS));
    assert_eq!(
        keys("/properties/kubernetes/anyOf/2/properties"),
        sorted(KUBERNETES_KEYS)
    );
    assert_eq!(keys("/$defs/package/properties"), sorted(PACKAGE_KEYS));
    assert_eq!(keys("/$defs/scenario/properties"), sorted(SCENARIO_KEYS));
    let systems: Vec<&str> = System::ALL.iter().map(|s| s.name()).collect();
    assert_eq!(keys("/properties/systems/properties"), sorted(&systems));
    let settings = schema
        .pointer("/$defs/severity/enum")
        .and_then(Json::as_array)
        .unwrap();
    for setting in RULE_SETTINGS {
        assert!(settings.contains(&Json::from(setting)), "{setting}");
    }
    // The schema names exactly the rule ids and groups the parser takes,
    // so an editor lists them and rejects any other.
    let names: Vec<&str> = schema
        .pointer("/properties/rules/propertyNames/enum")
        .and_then(Json::as_array)
        .unwrap()
        .iter()
        .filter_map(Json::as_str)
        .collect();
    let mut expected: Vec<String> = crate::rules::RULES
        .iter()
        .map(|r| r.id.to_string())
        .collect();
    for rule in crate::rules::RULES {
        let group = format!("{}/*", rule.id.split('/').next().unwrap());
        if !expected.contains(&group) {
            expected.push(group);
        }
    }
    let mut sorted_names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    sorted_names.sort();
    expected.sort();
    assert_eq!(
        sorted_names, expected,
        "schema/confvet.schema.json rules names"
    );
    for name in names {
        let text = format!("rules: {{{name}: off}}\n");
        assert!(mistakes(&text).is_empty(), "the parser rejects {name}");
    }
}

#[test]
fn the_schema_and_the_parser_reject_the_same_mistakes() {
    for text in [
        "exlude: [vendor/]\n",
        "systems: {helm: false}\n",
        "systems: {ytt: maybe}\n",
        "rules: {ytt/validation: fatal}\n",
        "rules: {ytt/validaton: off}\n",
        "rules: {ytt: off}\n",
        "ytt: {packages: [{scenarios: []}]}\n",
        "ytt: {packages: [{path: shop/config, scenarios: [{data-value: [a=1]}]}]}\n",
        "ytt: {packages: [{path: shop/config, scenarios: [{name: a, data-values: x}]}]}\n",
    ] {
        assert!(!schema_errors(text).is_empty(), "schema accepts {text}");
        assert!(!mistakes(text).is_empty(), "parser accepts {text}");
    }
}

#[test]
fn mistakes_are_findings_at_their_lines() {
    let text = "\
include:
  - \"[z-a]\"
systems:
  ytt: true
  kubvirt: false
rules:
  ytt/validaton: off
  tekton/*: sometimes
ytt:
  packages:
    - path: nowhere
    - path: shop/config
      scenarios:
        - name: prod
          data-values-file: [shop/missing.yml]
          data-value: [replicas]
        - name: prod
";
    let found = mistakes(text);
    let expected = [
        "config/invalid 2: include: bad pattern \"[z-a]\"",
        "config/unknown-key 5: unknown key \"kubvirt\" in systems",
        "config/invalid 7: unknown rule \"ytt/validaton\"",
        "config/invalid 8: rules.tekton/* must be off, warning or error, found \"sometimes\"",
        "config/invalid 11: ytt.packages[0].path: no directory nowhere",
        "config/invalid 15: ytt.packages[1].scenarios[0].data-values-file: no file shop/missing.yml",
        "config/invalid 16: ytt.packages[1].scenarios[0].data-value: expected KEY=VALUE, found replicas",
        "config/invalid 17: ytt.packages[1].scenarios[1].name: another scenario of this package is named \"prod\"",
    ];
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for (found, expected) in found.iter().zip(expected) {
        assert!(found.starts_with(expected), "{found} / {expected}");
    }
    let (config, _) = parse(text);
    assert_eq!(
        config.findings[1].help.as_deref(),
        Some("did you mean \"kubevirt\"?")
    );
    assert_eq!(
        config.findings[2].help.as_deref(),
        Some("did you mean \"ytt/validation\"?")
    );
}

#[test]
fn a_config_that_is_not_yaml_is_a_syntax_finding() {
    let found = mistakes("rules:\n  ytt/compat: [off\n");
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("yaml/syntax"), "{found:?}");
}

#[test]
fn rules_take_ids_before_groups_and_may_turn_config_findings_down() {
    let (config, sources) = parse(
        "rules:\n  ytt/*: warning\n  ytt/validation: off\n  config/unknown-key: warning\nextra: 1\n",
    );
    assert!(!config.has_errors());
    assert_eq!(config.findings[0].severity, Severity::Warning);
    let id = sources.add(SourceFile::new("v.yml".into(), None, String::new()));
    let at = Span::file_start(id);
    let mut findings = vec![
        Finding::new(&crate::rules::ytt::VALIDATION, at, "a"),
        Finding::new(&crate::rules::ytt::TYPE_MISMATCH, at, "b"),
        Finding::new(&crate::rules::yaml::SYNTAX, at, "c"),
    ];
    config.apply_rules(&mut findings);
    let left: Vec<(&str, Severity)> = findings.iter().map(|f| (f.rule, f.severity)).collect();
    assert_eq!(
        left,
        [
            ("ytt/type-mismatch", Severity::Warning),
            ("yaml/syntax", Severity::Error)
        ]
    );
}

#[test]
fn include_and_exclude_are_relative_to_the_config_directory() {
    let (config, _) = parse("include: [\"*.yml\"]\nexclude: [vendor/, \"!vendor/keep/\"]\n");
    let filter = config.discover_options().filter.unwrap();
    let dir = &config.dir;
    assert!(filter(&dir.join("a/b.yml"), false));
    assert!(!filter(&dir.join("a/b.txt"), false));
    assert!(filter(&dir.join("a"), true));
    assert!(!filter(&dir.join("vendor"), true));
    assert!(!filter(&dir.join("vendor/x/y.yml"), false));
    assert!(filter(&dir.join("vendor/keep/y.yml"), false));
    assert!(filter(Path::new("/elsewhere/b.txt"), false));
}

/// The digest of a configuration as cache keys take it.
fn key(config: &Config) -> confvet_key::Digest {
    confvet_key::KeyHasher::relative_to(&config.dir)
        .key(config)
        .finish()
}

#[test]
fn a_configuration_keys_alike_whichever_thread_matched_with_it_first() {
    let text = "exclude: [vendor/, \"*.tmp.yml\"]\n";
    let (config, _) = parse(text);
    let before = key(&config);
    // Matching on other threads once made the matcher's Debug text, and so
    // the key, differ from run to run.
    let filter = config.discover_options().filter.unwrap();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| filter(&config.dir.join("vendor/x.yml"), false));
        }
    });
    assert_eq!(key(&config), before);
    assert_eq!(key(&parse(text).0), before);
}

#[test]
fn every_setting_of_a_configuration_changes_its_key() {
    let base = key(&parse("exclude: [vendor/]\n").0);
    for changed in [
        "exclude: [vendor/, other/]\n",
        "include: [vendor/]\n",
        "exclude: [vendor/]\nsystems: {tekton: false}\n",
        "exclude: [vendor/]\nrules: {ytt/removed: off}\n",
        "exclude: [vendor/]\nrules: {ytt/removed: warning}\n",
        "exclude: [vendor/]\nytt: {strict: true}\n",
        "exclude: [vendor/]\nkubernetes: {manifests: true}\n",
        "exclude: [vendor/]\nkubernetes: false\n",
    ] {
        let (config, _) = parse(changed);
        assert!(
            config.findings.is_empty(),
            "{changed}: {:?}",
            config.findings
        );
        assert_ne!(key(&config), base, "{changed} keys as the base does");
    }
}
