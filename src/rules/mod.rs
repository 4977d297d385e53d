//! The rule table: every rule id confvet can report, with its kind, default
//! severity and documentation page. `confvet rules`, `confvet explain`,
//! SARIF `tool.driver.rules` and the JSON output all read this one table.
//! Ids are stable: a retired id is never reused. A rule is a static of its
//! system's file (`rules::ytt::VALIDATION`), so a finding names its rule by
//! a path the compiler checks, and takes its kind and severity from it.

pub mod config;
pub mod confvet;
pub mod kubernetes;
pub mod kubevirt;
mod model;
mod table;
pub mod tekton;
pub mod yaml;
pub mod ytt;

pub use model::{Kind, Rule, Severity};
pub use table::RULES;

/// The index of the documentation pages, `docs/rules/README.md`.
pub fn index_page() -> String {
    let mut page = String::from(
        "# Rules\n\nEvery rule confvet reports, by system. Each page is what `confvet explain <rule>` prints, and the source of the rule's summary and docs; this index is generated from the rule table in `src/rules/` (`CONFVET_UPDATE_DOCS=1 cargo test --test cli rule_docs`). The Fix column says which rules' findings may carry a fix, and the most it is applied by: `safe` by `confvet lint --fix`, `unsafe` with `--unsafe-fixes`; each such page's Fix section says what it does and why it is that safe.\n",
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

/// The project's home page; SARIF's `informationUri` and the base of every
/// rule's documentation URL.
pub const HOMEPAGE: &str = "https://github.com/confvet/confvet";

/// Where a rule's documentation page lives: `docs/rules/<id>.md` in the
/// repository, generated from this table (`confvet explain` shows the same
/// text).
pub fn doc_url(id: &str) -> String {
    format!("{HOMEPAGE}/blob/main/docs/rules/{id}.md")
}

/// What `--select`, `--ignore` and the configuration's `rules` name: one
/// rule, or every rule of a system (`ytt/*`; on the command line also `ytt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Rule(&'static str),
    System(&'static str),
}

impl Selector {
    /// The selector `text` names; the error says what was wrong and what
    /// would be right (the nearest rule id, or where the ids are listed).
    pub fn parse(text: &str) -> Result<Selector, String> {
        let group = text.strip_suffix("/*").unwrap_or(text);
        if let Some(system) = GROUPS.iter().find(|system| **system == group) {
            return Ok(Selector::System(system));
        }
        if let Some(rule) = find(text) {
            return Ok(Selector::Rule(rule.id));
        }
        let ids: Vec<String> = RULES.iter().map(|r| r.id.to_string()).collect();
        Err(match crate::suggest::did_you_mean(text, &ids) {
            Some(near) => format!("unknown rule \"{text}\"; did you mean \"{near}\"?"),
            None => format!(
                "unknown rule \"{text}\"; `confvet rules` lists them, and `ytt/*` names a whole system ({})",
                GROUPS.join(", ")
            ),
        })
    }

    pub fn matches(&self, id: &str) -> bool {
        match self {
            Selector::Rule(rule) => *rule == id,
            Selector::System(system) => id.split('/').next() == Some(system),
        }
    }
}

/// The groups rule ids start with: the three systems, Kubernetes schemas,
/// the YAML parser, the configuration file and confvet itself.
pub const GROUPS: &[&str] = &[
    "yaml",
    "ytt",
    "kubevirt",
    "tekton",
    "kubernetes",
    "config",
    "confvet",
];

/// The rule with this id.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_id_used_in_the_code_is_in_the_table() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let pattern = regex::Regex::new(
            r#""((?:yaml|ytt|kubevirt|tekton|kubernetes|config|confvet)/[a-z-]+)""#,
        )
        .unwrap();
        let mut stack = vec![root];
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
    fn selectors_name_rules_and_systems_and_suggest_the_nearest_id() {
        assert_eq!(
            Selector::parse("ytt/validation"),
            Ok(Selector::Rule("ytt/validation"))
        );
        assert_eq!(Selector::parse("ytt/*"), Ok(Selector::System("ytt")));
        assert_eq!(Selector::parse("tekton"), Ok(Selector::System("tekton")));
        let system = Selector::parse("kubevirt").unwrap();
        assert!(system.matches("kubevirt/validation"));
        assert!(!system.matches("ytt/validation"));
        let error = Selector::parse("ytt/validaton").unwrap_err();
        assert!(error.contains("did you mean \"ytt/validation\""), "{error}");
        let error = Selector::parse("nothing/like-it").unwrap_err();
        assert!(error.contains("`confvet rules` lists them"), "{error}");
        assert!(Selector::parse("ytt/").is_err());
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
