//! What a rule is: its id, kind, default severity and whether its findings
//! may carry a fix. Its documentation page, `docs/rules/<system>/<name>.md`,
//! is the binary's: the `confvet` crate compiles the pages in and reads the
//! summary and docs from them.

use confvet_syntax::edit::Applicability;
use serde::{Deserialize, Serialize};

/// The class of a problem, as in the conformance README.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A file is not well-formed YAML or JSON, or its template code does not parse.
    Syntax,
    /// A schema, rule set or declaration is itself invalid.
    Schema,
    /// A value has a type its schema does not allow.
    Type,
    /// A key the schema does not declare.
    UnknownKey,
    /// A value breaks a validation rule.
    Validation,
    /// A reference points at nothing.
    Reference,
    /// A value was given for a data value marked deprecated.
    Deprecated,
    /// A construct ytt itself rejects or ignores, which confvet implements.
    Compat,
    /// Input confvet did not check as a whole: a unit past its time or
    /// memory limit.
    Limit,
    /// confvet itself failed (a bug): the run exits 2.
    Internal,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Syntax => "syntax",
            Kind::Schema => "schema",
            Kind::Type => "type",
            Kind::UnknownKey => "unknown-key",
            Kind::Validation => "validation",
            Kind::Reference => "reference",
            Kind::Deprecated => "deprecated",
            Kind::Compat => "compat",
            Kind::Limit => "limit",
            Kind::Internal => "internal",
        }
    }
}

/// How bad a finding is. Order matters: `Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl confvet_key::Key for Severity {
    fn key(&self, out: &mut confvet_key::KeyHasher) {
        out.text(self.as_str());
    }
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One rule: what the table owns about it. Findings take their kind and
/// default severity from here (`Finding::new(&rules::ytt::VALIDATION, ...)`).
#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub kind: Kind,
    pub severity: Severity,
    /// Whether its findings may carry a fix, and the most that fix may be
    /// applied by (`Safe`: `--fix`); the page's "Fix" section says what it
    /// does and why it is that safe.
    pub fix: Option<Applicability>,
}

impl Rule {
    /// Used by [`rule!`].
    pub(crate) const fn new(
        id: &'static str,
        kind: Kind,
        severity: Severity,
        fix: Option<Applicability>,
    ) -> Rule {
        Rule {
            id,
            kind,
            severity,
            fix,
        }
    }
}

impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        self.id == other.id
    }
}

impl Eq for Rule {}

/// `rule!(NAME, "system/name", Kind, Severity)`: a static rule (its page,
/// `docs/rules/system/name.md`, is the binary's, whose tests fail on a rule
/// without one); `rule!(NAME, "system/name", Kind, Severity, fix = Safe)`
/// for a rule whose findings may carry a fix.
macro_rules! rule {
    ($name:ident, $id:literal, $kind:ident, $severity:ident) => {
        $crate::rules::model::rule!(@make $name, $id, $kind, $severity, None);
    };
    ($name:ident, $id:literal, $kind:ident, $severity:ident, fix = $fix:ident) => {
        $crate::rules::model::rule!(
            @make $name, $id, $kind, $severity,
            Some(confvet_syntax::edit::Applicability::$fix)
        );
    };
    (@make $name:ident, $id:literal, $kind:ident, $severity:ident, $fix:expr) => {
        pub static $name: Rule = Rule::new($id, Kind::$kind, Severity::$severity, $fix);
    };
}
pub(crate) use rule;
