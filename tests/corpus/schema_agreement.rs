//! Agreement between the exported JSON Schema and confvet's own checks: for
//! corpus packages with a schema, values files are generated from the
//! export (valid ones, and mutated ones: wrong types, unknown keys, numbers
//! out of range, values outside an enum, strings too long), and a real
//! JSON Schema validator (the `jsonschema` crate) must accept a file exactly
//! when `confvet` (as `lint --no-render --data-values-file FILE`) reports no
//! type, unknown-key or exported-rule finding for it. A mismatch is a bug in
//! the export or in a check.
//!
//! Generated files leave out what a schema cannot say for a single file (a
//! value with a rule only documented under `x-ytt-validations`, a string
//! with a `format`): the package's own values, which are clean, stay there.

use crate::common;

use confvet::check::ytt::YttSettings;
use confvet::check::ytt::flags::DataValueFlags;
use confvet::check::ytt::schema::export;
use confvet::run::{LintRequest, lint};
use confvet::source::Sources;
use rayon::prelude::*;
use serde_json::{Map, Value as J, json};
use std::path::{Path, PathBuf};

/// How many packages, and files per package.
const PACKAGES: usize = 20;
const FILES: usize = 200;

/// A small deterministic generator (xorshift64*), seeded per package.
struct Rng(u64);

impl Rng {
    fn seeded(name: &str) -> Rng {
        let seed = name.bytes().fold(0x9E37_79B9_7F4A_7C15u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
        });
        Rng(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn types(schema: &J) -> Vec<&str> {
    match &schema["type"] {
        J::String(t) => vec![t.as_str()],
        J::Array(list) => list.iter().filter_map(J::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Nodes a single values file cannot be checked on alone.
fn is_opaque(schema: &J) -> bool {
    schema.get("x-ytt-validations").is_some() || schema.get("format").is_some()
}

/// A valid value of `schema`; None when there is none to make.
fn generate(schema: &J, rng: &mut Rng, depth: usize) -> Option<J> {
    if let Some(J::Array(options)) = schema.get("enum") {
        return (!options.is_empty())
            .then(|| options[rng.below(options.len() as u64) as usize].clone());
    }
    let types = types(schema);
    if types.contains(&"null") && rng.chance(10) {
        return Some(J::Null);
    }
    let number = |key: &str| schema.get(key).and_then(J::as_f64);
    let count = |key: &str| schema.get(key).and_then(J::as_u64);
    Some(match types.first().copied() {
        None => json!("anything"),
        Some("object") => {
            let mut map = Map::new();
            if depth < 8 {
                let properties = schema["properties"]
                    .as_object()
                    .cloned()
                    .unwrap_or_default();
                for (key, child) in properties {
                    if is_opaque(&child) || !rng.chance(60) {
                        continue;
                    }
                    if let Some(value) = generate(&child, rng, depth + 1) {
                        map.insert(key, value);
                    }
                }
            }
            J::Object(map)
        }
        Some("array") => {
            let min = count("minItems").unwrap_or(0);
            let max = count("maxItems").unwrap_or(min + 3).min(min + 3);
            let item = &schema["items"];
            if is_opaque(item) && min > 0 {
                return None;
            }
            let n = if is_opaque(item) {
                0
            } else {
                min + rng.below(max - min + 1)
            };
            let items: Option<Vec<J>> = (0..n).map(|_| generate(item, rng, depth + 1)).collect();
            J::Array(items?)
        }
        Some("string") => {
            let min = count("minLength").unwrap_or(0);
            let max = count("maxLength").unwrap_or(min + 8).min(min + 8);
            let n = min + rng.below(max - min + 1);
            let text: String = (0..n)
                .map(|_| char::from(b'a' + rng.below(26) as u8))
                .collect();
            J::String(text)
        }
        Some("integer") => {
            let low = number("minimum").unwrap_or(-50.0).ceil() as i64;
            let high = number("maximum").map_or(low + 100, |m| m.floor() as i64);
            if high < low {
                return None;
            }
            let step = number("multipleOf")
                .filter(|s| *s >= 1.0 && s.fract() == 0.0)
                .map(|s| s as i64);
            let mut value = low + rng.below((high - low) as u64 + 1) as i64;
            if let Some(step) = step {
                value = value.div_euclid(step) * step;
                if value < low {
                    value += step;
                }
                if value > high {
                    return None;
                }
            }
            json!(value)
        }
        Some("number") => {
            let low = number("minimum").unwrap_or(-50.0);
            let high = number("maximum").unwrap_or(low + 100.0);
            if high < low || schema.get("multipleOf").is_some() {
                return None;
            }
            // Never a float with no fraction: YAML would read 3.0 as a float,
            // JSON Schema as an integer.
            let value = low + (high - low) * (rng.below(1000) as f64 / 1000.0);
            let value = (value.floor() + 0.5).min(high);
            if value < low {
                json!(low)
            } else {
                json!(value)
            }
        }
        Some("boolean") => json!(rng.chance(50)),
        Some(_) => return None,
    })
}

/// Every place in `value` with its schema: (JSON pointer, schema).
fn places<'a>(value: &J, schema: &'a J, at: String, out: &mut Vec<(String, &'a J)>) {
    out.push((at.clone(), schema));
    match value {
        J::Object(map) => {
            for (key, child) in map {
                if let Some(child_schema) = schema["properties"].get(key) {
                    places(child, child_schema, format!("{at}/{key}"), out);
                }
            }
        }
        J::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                places(child, &schema["items"], format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// One mutation somewhere in `value`, of a kind that may make it invalid.
fn mutate(value: &mut J, schema: &J, rng: &mut Rng) {
    let mut found = Vec::new();
    places(value, schema, String::new(), &mut found);
    let (at, place) = found[rng.below(found.len() as u64) as usize].clone();
    let place = place.clone();
    let Some(target) = value.pointer_mut(&at) else {
        return;
    };
    let number = |key: &str| place.get(key).and_then(J::as_f64);
    match rng.below(5) {
        0 => {
            *target = match target {
                J::String(_) => json!(7),
                J::Number(_) => json!("seven"),
                J::Bool(_) => json!("yes please"),
                J::Object(_) => json!(["not", "a", "map"]),
                J::Array(_) => json!({"not": "a list"}),
                J::Null => json!({"was": "null"}),
            }
        }
        1 => {
            if let J::Object(map) = target {
                map.insert("zz_unknown_key".into(), json!(1));
            }
        }
        2 => {
            if let Some(min) = number("minimum") {
                *target = json!(min.floor() as i64 - 1);
            } else if let Some(max) = number("maximum") {
                *target = json!(max.ceil() as i64 + 1);
            }
        }
        3 => {
            if place.get("enum").is_some() {
                *target = json!("zz-not-an-option");
            }
        }
        _ => {
            if let Some(max) = place.get("maxLength").and_then(J::as_u64) {
                *target = J::String("x".repeat(max as usize + 1));
            }
        }
    }
}

/// A package of the corpus: its directory and confvet's checks of it.
fn lint_package(
    dir: &Path,
    values_file: Option<&Path>,
    sources: &Sources,
) -> confvet::run::LintResult {
    let request = LintRequest {
        paths: vec![dir.to_path_buf()],
        ytt: YttSettings {
            skip_templates: true,
            flags: DataValueFlags {
                data_values_file: values_file.map(Path::to_path_buf).into_iter().collect(),
                cwd: dir.to_path_buf(),
                ..DataValueFlags::default()
            },
            ..YttSettings::default()
        },
        keep_outputs: true,
        ..LintRequest::default()
    };
    lint(&request, sources, dir)
}

/// Whether confvet rejects the values for what the JSON Schema can say.
fn confvet_rejects(result: &confvet::run::LintResult, opaque_paths: &[String]) -> Vec<String> {
    result
        .findings
        .iter()
        .filter(|f| f.severity == confvet::finding::Severity::Error)
        .filter(|f| match f.rule {
            "ytt/type-mismatch" | "ytt/unknown-key" => true,
            "ytt/validation" => {
                let path = f.path.clone().unwrap_or_default();
                let bare = strip_indexes(&path);
                !opaque_paths.contains(&bare)
            }
            _ => false,
        })
        .map(|f| format!("{} {}", f.rule, f.message))
        .collect()
}

fn strip_indexes(path: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in path.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// The dotted paths of nodes whose rules are only documented.
fn opaque_paths(schema: &J, at: &str, out: &mut Vec<String>) {
    if schema.get("x-ytt-validations").is_some() {
        out.push(at.to_string());
    }
    if let Some(properties) = schema["properties"].as_object() {
        for (key, child) in properties {
            let path = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            opaque_paths(child, &path, out);
        }
    }
    if schema.get("items").is_some() {
        opaque_paths(&schema["items"], at, out);
    }
}

fn corpus_packages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            if dir.join("expect.yml").is_file() {
                out.push(dir);
            } else {
                walk(&dir, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ytt"),
        &mut out,
    );
    out
}

fn keyword_count(schema: &J) -> usize {
    match schema {
        J::Object(map) => map
            .iter()
            .map(|(key, value)| {
                let own = [
                    "minimum",
                    "maximum",
                    "minLength",
                    "maxLength",
                    "enum",
                    "minItems",
                    "maxItems",
                    "multipleOf",
                ]
                .contains(&key.as_str()) as usize;
                own + keyword_count(value)
            })
            .sum(),
        J::Array(items) => items.iter().map(keyword_count).sum(),
        _ => 0,
    }
}

#[test]
fn json_schema_accepts_exactly_what_confvet_accepts() {
    let packages = corpus_packages();
    if packages.is_empty() {
        common::skipped_without_shared(
            "../shared/corpus/ytt not found; schema agreement not tested",
        );
        return;
    }
    let scratch = std::env::temp_dir().join(format!("confvet-agreement-{}", std::process::id()));
    // Packages with a schema whose own values are clean, those with the most
    // exported rules first.
    let mut candidates: Vec<(usize, String, PathBuf, J)> = packages
        .par_iter()
        .filter_map(|package| {
            let name = package.to_string_lossy().replace('/', "_");
            let dir = scratch.join(&name);
            common::copy_case(package, &dir).unwrap();
            let sources = Sources::new();
            let result = lint_package(&dir, None, &sources);
            let clean = !result
                .findings
                .iter()
                .any(|f| f.severity == confvet::finding::Severity::Error);
            let schema = result.schemas.first()?.1.as_ref()?.as_ref()?.clone();
            let json = export::json_schema::document(Some(&schema), &sources, "package");
            (clean && result.schemas.len() == 1).then(|| (keyword_count(&json), name, dir, json))
        })
        .collect();
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    candidates.truncate(PACKAGES);
    assert!(
        candidates.len() >= PACKAGES.min(10),
        "only {} packages to test",
        candidates.len()
    );

    let mut mismatches = Vec::new();
    let mut checked = 0;
    let mut rejected = 0;
    for (_, name, dir, json) in &candidates {
        assert!(
            jsonschema::draft202012::meta::is_valid(json),
            "{name}: not a 2020-12 schema"
        );
        let validator = jsonschema::validator_for(json).unwrap();
        let mut opaque = Vec::new();
        opaque_paths(json, "", &mut opaque);
        let mut rng = Rng::seeded(name);
        let documents: Vec<J> = (0..FILES)
            .filter_map(|i| {
                let mut value = generate(json, &mut rng, 0)?;
                if i % 2 == 1 {
                    mutate(&mut value, json, &mut rng);
                }
                Some(value)
            })
            .collect();
        let outcomes: Vec<Option<String>> = documents
            .par_iter()
            .enumerate()
            .map(|(i, value)| {
                let file = dir.with_extension(format!("values-{i}.yml"));
                let node = export::openapi::json_node(value);
                std::fs::write(&file, confvet::yaml::emit::to_yaml(&node)).unwrap();
                let result = lint_package(dir, Some(&file), &Sources::new());
                let confvet_says = confvet_rejects(&result, &opaque);
                let schema_says = validator.is_valid(value);
                (schema_says != confvet_says.is_empty()).then(|| {
                    format!(
                        "{name} file {i}: JSON Schema {}, confvet {:?}\n{}",
                        if schema_says { "accepts" } else { "rejects" },
                        confvet_says,
                        serde_json::to_string(value).unwrap()
                    )
                })
            })
            .collect();
        checked += documents.len();
        rejected += documents.iter().filter(|v| !validator.is_valid(v)).count();
        mismatches.extend(outcomes.into_iter().flatten());
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "schema agreement: {} packages, {checked} files ({rejected} invalid), {} mismatches",
        candidates.len(),
        mismatches.len()
    );
    assert!(
        rejected > checked / 10,
        "the mutations must make invalid files: {rejected} of {checked}"
    );
    assert!(
        mismatches.is_empty(),
        "{}",
        mismatches
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
