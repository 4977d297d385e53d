//! The rules' documentation: the table itself (ids, kinds, severities,
//! fixes) is the crate `confvet-findings`, re-exported here under the name
//! the code has always used; this module adds each rule's page,
//! `docs/rules/<system>/<name>.md`, compiled into the binary. `confvet
//! explain` prints a page, `confvet rules` and SARIF's `tool.driver.rules`
//! read its summary and docs, and the index of the pages is generated from
//! the table.

pub use confvet_findings::rules::*;

// `PAGES`: (rule id, page text) for every file under `docs/rules/`, written
// by build.rs from the folder, so the pages are the folder's files and a
// test (below) holds the table and the folder to each other.
include!(concat!(env!("OUT_DIR"), "/rule_pages.rs"));

/// A rule's documentation page and the parts read from it.
pub trait Documented {
    /// What `confvet explain` prints: the page as `docs/rules/<id>.md`
    /// holds it: a title, the one-line summary, the kind and severity line,
    /// then the sections "What it does", "Why", "Example" (a case of
    /// tests/cases, which tests/cases/rule_pages.rs runs) and "Fix" for a
    /// rule with a fix. Empty for a rule without a page, which a test
    /// refuses.
    fn page(&self) -> &'static str;

    /// One line, no trailing period: the page's second paragraph.
    fn summary(&self) -> &'static str {
        self.page().split("\n\n").nth(1).unwrap_or("")
    }

    /// The page's line giving the kind and default severity (a test keeps
    /// it the same as the table's fields).
    fn kind_line(&self) -> &'static str {
        self.page().split("\n\n").nth(2).unwrap_or("")
    }

    /// The Markdown after the kind line: "What it does", "Why", "Example".
    fn docs(&self) -> &'static str {
        self.page()
            .splitn(4, "\n\n")
            .nth(3)
            .unwrap_or("")
            .trim_end_matches('\n')
    }
}

impl Documented for Rule {
    fn page(&self) -> &'static str {
        PAGES
            .iter()
            .find(|(id, _)| *id == self.id)
            .map_or("", |(_, page)| page)
    }
}

/// The index of the documentation pages, `docs/rules/README.md`.
pub fn index_page() -> String {
    let mut page = String::from(
        "# Rules\n\nEvery rule confvet reports, by system. Each page is what `confvet explain <rule>` prints, and the source of the rule's summary and docs; this index is generated from the rule table in `crates/findings/src/rules/` (`CONFVET_UPDATE_DOCS=1 cargo test --test cli rule_docs`). The Fix column says which rules' findings may carry a fix, and the most it is applied by: `safe` by `confvet lint --fix`, `unsafe` with `--unsafe-fixes`; each such page's Fix section says what it does and why it is that safe.\n",
    );
    let mut system = "";
    for rule in RULES {
        let this = rule.id.split('/').next().unwrap_or(rule.id);
        if this != system {
            system = this;
            page.push_str(&format!(
                "\n## {system}\n\n| Rule | Severity | Fix | Summary |\n|---|---|---|---|\n"
            ));
        }
        page.push_str(&format!(
            "| [`{}`]({}.md) | {} | {} | {} |\n",
            rule.id,
            rule.id,
            rule.severity.as_str(),
            rule.fix.map_or("", |fix| fix.as_str()),
            rule.summary().replace('|', "\\|")
        ));
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_id_used_in_the_code_is_in_the_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let pattern = regex::Regex::new(
            r#""((?:yaml|ytt|kubevirt|tekton|kubernetes|config|confvet)/[a-z-]+)""#,
        )
        .unwrap();
        let mut stack = vec![root.join("src"), root.join("crates")];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "rs")
                    && path.parent().is_none_or(|dir| !dir.ends_with("rules"))
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for capture in pattern.captures_iter(&text) {
                        let id = &capture[1];
                        // Test fixtures may name rules of later systems.
                        if ["ytt/", "yaml/", "config/", "confvet/"]
                            .iter()
                            .any(|s| id.starts_with(s))
                        {
                            assert!(
                                find(id).is_some(),
                                "{} uses undocumented rule {id}",
                                path.display()
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_rule_has_one_page_and_every_page_a_rule() {
        for (id, _) in PAGES {
            assert!(find(id).is_some(), "docs/rules/{id}.md names no rule");
        }
        for rule in RULES {
            assert_eq!(
                PAGES.iter().filter(|(id, _)| *id == rule.id).count(),
                1,
                "{} has no page docs/rules/{}.md",
                rule.id,
                rule.id
            );
        }
    }

    #[test]
    fn every_rule_is_documented_and_named_by_system() {
        let mut seen = std::collections::HashSet::new();
        for rule in RULES {
            assert!(seen.insert(rule.id), "duplicate rule id {}", rule.id);
            let (system, name) = rule.id.split_once('/').expect("ids are system/name");
            assert!(GROUPS.contains(&system));
            assert!(name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            assert_eq!(rule.page().lines().next(), Some(&*format!("# {}", rule.id)));
            assert!(!rule.summary().is_empty(), "{} has no summary", rule.id);
            assert!(!rule.summary().contains('\n'), "{}", rule.id);
            assert!(!rule.summary().ends_with('.'), "{}", rule.id);
            assert_eq!(
                rule.kind_line(),
                format!(
                    "Kind: {}. Default severity: {}.",
                    rule.kind.as_str(),
                    rule.severity.as_str()
                ),
                "docs/rules/{}.md disagrees with the table",
                rule.id
            );
            for section in ["## What it does", "## Why", "## Example"] {
                assert!(rule.docs().contains(section), "{} lacks {section}", rule.id);
            }
        }
    }
}
