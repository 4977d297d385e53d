//! `docs/rules/` holds one page per rule, the source the binary includes
//! (`src/rules/`), so `confvet explain` prints it as it is. This test fails
//! when the index or the site's navigation of the pages (`mkdocs.yml`) is
//! stale, or a page is left over from a retired id; run it with
//! `CONFVET_UPDATE_DOCS=1` to write them anew.

use confvet::rules::{self, Documented, RULES};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn docs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules")
}

/// Every page that should exist: relative path and content.
fn expected_pages() -> Vec<(PathBuf, String)> {
    let mut pages: Vec<(PathBuf, String)> = RULES
        .iter()
        .map(|rule| {
            (
                PathBuf::from(format!("{}.md", rule.id)),
                rule.page().to_string(),
            )
        })
        .collect();
    pages.push((PathBuf::from("README.md"), rules::index_page()));
    pages
}

fn markdown_files(dir: &Path, base: &Path, found: &mut BTreeSet<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            markdown_files(&path, base, found);
        } else if path.extension().is_some_and(|e| e == "md") {
            found.insert(path.strip_prefix(base).unwrap().to_path_buf());
        }
    }
}

#[test]
fn rule_pages_are_up_to_date() {
    let dir = docs_dir();
    let update = std::env::var_os("CONFVET_UPDATE_DOCS").is_some();
    let expected = expected_pages();
    let mut problems = Vec::new();
    for (relative, content) in &expected {
        let path = dir.join(relative);
        let current = std::fs::read_to_string(&path).ok();
        if current.as_deref() == Some(content.as_str()) {
            continue;
        }
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, content).unwrap();
        } else {
            let state = if current.is_some() {
                "stale"
            } else {
                "missing"
            };
            problems.push(format!("{state}: docs/rules/{}", relative.display()));
        }
    }
    let wanted: BTreeSet<PathBuf> = expected.into_iter().map(|(p, _)| p).collect();
    let mut present = BTreeSet::new();
    markdown_files(&dir, &dir, &mut present);
    for extra in present.difference(&wanted) {
        if update {
            std::fs::remove_file(dir.join(extra)).unwrap();
        } else {
            problems.push(format!("no such rule: docs/rules/{}", extra.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\nrun `CONFVET_UPDATE_DOCS=1 cargo test --test cli rule_docs` to regenerate",
        problems.join("\n")
    );
}

#[test]
fn explain_prints_the_page_and_the_url_names_it() {
    let rule = rules::find("ytt/validation").unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_confvet"))
        .args(["explain", "ytt/validation"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).unwrap(), rule.page());
    assert!(rules::doc_url(rule.id).ends_with("/docs/rules/ytt/validation.md"));
}

#[test]
fn the_index_lists_every_rule_once_under_its_system() {
    let index = rules::index_page();
    for rule in RULES {
        let link = format!("[`{}`]({}.md)", rule.id, rule.id);
        assert_eq!(index.matches(&link).count(), 1, "{}", rule.id);
    }
    let headings: Vec<&str> = index.lines().filter(|l| l.starts_with("## ")).collect();
    let unique: BTreeSet<&&str> = headings.iter().collect();
    assert_eq!(
        headings.len(),
        unique.len(),
        "a system split in two: {headings:?}"
    );
}

#[test]
fn a_rule_that_fixes_says_what_its_fix_does_and_how_safe_it_is() {
    for rule in RULES {
        let section = rule
            .page()
            .split("\n## ")
            .find(|part| part.starts_with("Fix\n"));
        match (rule.fix, section) {
            (Some(fix), Some(text)) => {
                let says = match fix {
                    confvet::edit::Applicability::Safe => "Safe",
                    confvet::edit::Applicability::Unsafe => "Unsafe",
                    confvet::edit::Applicability::DisplayOnly => "Display-only",
                };
                assert!(
                    text["Fix\n".len()..].starts_with(says),
                    "{}: the Fix section starts with how it is applied ({says})",
                    rule.id
                );
            }
            (Some(_), None) => panic!("{} fixes but its page has no Fix section", rule.id),
            (None, Some(_)) => panic!(
                "{} has a Fix section but the table says it does not fix",
                rule.id
            ),
            (None, None) => {}
        }
    }
}

/// The rules' part of the site's navigation: the index, then each
/// system's pages in the rule table's order.
fn rules_navigation() -> String {
    let mut systems: Vec<(&str, Vec<&str>)> = Vec::new();
    for rule in RULES {
        let system = rule.id.split('/').next().unwrap_or(rule.id);
        match systems.iter_mut().find(|(name, _)| *name == system) {
            Some((_, ids)) => ids.push(rule.id),
            None => systems.push((system, vec![rule.id])),
        }
    }
    let mut nav = String::from("  - Rules:\n      - Index: rules/README.md\n");
    for (system, ids) in systems {
        nav.push_str(&format!("      - {system}:\n"));
        for id in ids {
            nav.push_str(&format!("          - {id}: rules/{id}.md\n"));
        }
    }
    nav
}

#[test]
fn the_site_navigation_lists_every_rule_page() {
    const BEGIN: &str =
        "  # Rules: generated (CONFVET_UPDATE_DOCS=1 cargo test --test cli rule_docs)\n";
    const END: &str = "  # End of the generated rules\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("mkdocs.yml");
    let text = std::fs::read_to_string(&path).unwrap();
    let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        panic!("mkdocs.yml has no generated rules section between its markers");
    };
    let current = &text[start + BEGIN.len()..end];
    let wanted = rules_navigation();
    if current == wanted {
        return;
    }
    if std::env::var_os("CONFVET_UPDATE_DOCS").is_some() {
        let updated = format!("{}{BEGIN}{wanted}{}", &text[..start], &text[end..]);
        std::fs::write(&path, updated).unwrap();
    } else {
        panic!(
            "mkdocs.yml: the rules' navigation is stale\nrun `CONFVET_UPDATE_DOCS=1 cargo test --test cli rule_docs` to regenerate"
        );
    }
}
