//! The rule table: every rule id confvet can report, with its kind, default
//! severity and fix. `confvet rules`, `confvet explain`, SARIF
//! `tool.driver.rules` and the JSON output all read this one table (with
//! each rule's page, which the `confvet` crate holds).
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
    pub fn parse(text: &str) -> Result<Selector, UnknownRule> {
        let group = text.strip_suffix("/*").unwrap_or(text);
        if let Some(system) = GROUPS.iter().find(|system| **system == group) {
            return Ok(Selector::System(system));
        }
        if let Some(rule) = find(text) {
            return Ok(Selector::Rule(rule.id));
        }
        let ids: Vec<String> = RULES.iter().map(|r| r.id.to_string()).collect();
        Err(UnknownRule {
            text: text.to_string(),
            near: confvet_syntax::suggest::did_you_mean(text, &ids),
        })
    }

    pub fn matches(&self, id: &str) -> bool {
        match self {
            Selector::Rule(rule) => *rule == id,
            Selector::System(system) => id.split('/').next() == Some(system),
        }
    }
}

/// A selector that names no rule and no system.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule \"{text}\"; {}", self.advice())]
pub struct UnknownRule {
    pub text: String,
    /// The rule id nearest to the text, if one is near enough.
    pub near: Option<String>,
}

impl UnknownRule {
    /// What would be right: the nearest id, or where the ids are listed.
    pub fn advice(&self) -> String {
        match &self.near {
            Some(near) => format!("did you mean \"{near}\"?"),
            None => format!(
                "`confvet rules` lists them, and `ytt/*` names a whole system ({})",
                GROUPS.join(", ")
            ),
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
        let error = Selector::parse("ytt/validaton").unwrap_err().to_string();
        assert!(error.contains("did you mean \"ytt/validation\""), "{error}");
        let error = Selector::parse("nothing/like-it").unwrap_err().to_string();
        assert!(error.contains("`confvet rules` lists them"), "{error}");
        assert!(Selector::parse("ytt/").is_err());
    }
}
