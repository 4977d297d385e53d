//! One rule of a validations annotation evaluated against one
//! VirtualMachine, as the SSP template validator does: its arguments
//! resolved, each value the path finds checked, and the findings placed.

use super::annotation::{self, IntArg, Rule, RuleType, StrArg};
use super::convert::{Conv, to_int, to_str};
use super::jsonpath::{self, V};
use crate::finding::{Finding, Severity};
use crate::source::{FileId, SourceFile, Span};
use std::sync::Arc;

/// One rule being evaluated against one VirtualMachine, and its findings.
pub(super) struct RuleEval<'r> {
    pub(super) rule: &'r Rule,
    pub(super) rule_span: Span,
    /// The VirtualMachine's file, to place findings on values.
    pub(super) vm_file: FileId,
    pub(super) vm_src: Arc<SourceFile>,
    pub(super) out: Vec<Finding>,
}

/// A rule argument resolved: its value, or why the rule is not evaluated
/// (unknown until templating; a finding already made).
enum Arg<X> {
    Ok(X),
    Skip,
    Fail,
}

impl RuleEval<'_> {
    /// The rejected scalar itself when it stands on its key's (or item's)
    /// line, so that the report underlines the value; else the anchor.
    fn value_span(&self, v: &V) -> Span {
        let line = |offset: u32| self.vm_src.line_col(offset as usize).line;
        match v.node {
            Some(n)
                if n.as_scalar().is_some()
                    && n.span.file == self.vm_file
                    && v.anchor.file == self.vm_file
                    && line(n.span.start) == line(v.anchor.start) =>
            {
                n.span
            }
            _ => v.anchor,
        }
    }

    /// Report a finding of this rule; the caller may adjust it (severity).
    fn finding(
        &mut self,
        rule: &'static crate::rules::Rule,
        span: Span,
        detail: String,
    ) -> &mut Finding {
        let f = Finding::new(rule, span, format!("{}: {detail}", self.rule.message)).with_related(
            self.rule_span,
            format!("rule `{}` declared here", self.rule.name),
        );
        self.out.push(f);
        self.out.last_mut().expect("a finding was just pushed")
    }

    fn resolve<X>(
        &mut self,
        root: &V,
        path: &annotation::Path,
        convert: fn(&V) -> Conv<X>,
    ) -> Arg<X> {
        let o = jsonpath::eval_with_ref(root, &path.steps);
        let Some(values) = o.values else {
            self.finding(
                &crate::rules::kubevirt::PATH_NOT_FOUND,
                o.last,
                format!("invalid JSONPath: argument `{}` is not found", path.text),
            );
            return Arg::Fail;
        };
        if values.len() != 1 {
            let span = values.first().map_or(o.last, |v| v.anchor);
            self.finding(
                &crate::rules::kubevirt::PATH_NOT_FOUND,
                span,
                format!(
                    "argument `{}`: expected one value, found {}",
                    path.text,
                    values.len()
                ),
            );
            return Arg::Fail;
        }
        match convert(&values[0]) {
            Conv::Ok(x) => Arg::Ok(x),
            Conv::Unknown => Arg::Skip,
            Conv::Type(m) => {
                self.finding(
                    &crate::rules::kubevirt::VALUE_TYPE,
                    values[0].anchor,
                    format!("argument `{}`: {m}", path.text),
                );
                Arg::Fail
            }
            Conv::Reference(m) => {
                self.finding(
                    &crate::rules::kubevirt::PATH_NOT_FOUND,
                    values[0].anchor,
                    format!("argument `{}`: {m}", path.text),
                );
                Arg::Fail
            }
        }
    }

    fn int_arg(&mut self, root: &V, arg: &Option<IntArg>) -> Arg<Option<i64>> {
        match arg {
            None => Arg::Ok(None),
            Some(IntArg::Lit(n)) => Arg::Ok(Some(*n)),
            Some(IntArg::Path(p)) => match self.resolve(root, p, to_int) {
                Arg::Ok(n) => Arg::Ok(Some(n)),
                Arg::Skip => Arg::Skip,
                Arg::Fail => Arg::Fail,
            },
        }
    }

    pub(super) fn run(&mut self, root: &V) {
        let rule = self.rule;
        if let Some(valid) = &rule.valid {
            let o = jsonpath::eval(root.clone(), &valid.steps);
            if o.values.is_none_or(|v| v.is_empty()) {
                return;
            }
        }
        let (min, max) = match (self.int_arg(root, &rule.min), self.int_arg(root, &rule.max)) {
            (Arg::Ok(a), Arg::Ok(b)) => (a, b),
            _ => return,
        };
        let mut allowed = Vec::new();
        if rule.rule == RuleType::Enum {
            for v in &rule.values {
                match v {
                    StrArg::Lit(s) => allowed.push(s.clone()),
                    StrArg::Path(p) => match self.resolve(root, p, to_str) {
                        Arg::Ok(s) => allowed.push(s),
                        _ => return,
                    },
                }
            }
        }
        let o = jsonpath::eval_with_ref(root, &rule.path.steps);
        let Some(values) = o.values else {
            self.finding(
                &crate::rules::kubevirt::PATH_NOT_FOUND,
                o.last,
                format!("invalid JSONPath: `{}` is not found", rule.path.text),
            );
            return;
        };
        if values.is_empty() {
            self.finding(
                &crate::rules::kubevirt::PATH_NOT_FOUND,
                o.last,
                format!("no values were found for `{}`", rule.path.text),
            );
            return;
        }
        let severity = if rule.just_warning {
            Severity::Warning
        } else {
            Severity::Error
        };
        let range = |min: Option<i64>, max: Option<i64>| {
            format!(
                "[{}, {}]",
                min.map_or("N/A".into(), |m| m.to_string()),
                max.map_or("N/A".into(), |m| m.to_string())
            )
        };
        for v in &values {
            let detail = match rule.rule {
                RuleType::Integer => match to_int(v) {
                    Conv::Ok(n) => {
                        if min.is_some_and(|m| n < m) {
                            Some(format!(
                                "value {n} is lower than minimum [{}]",
                                min.unwrap_or(0)
                            ))
                        } else if max.is_some_and(|m| n > m) {
                            Some(format!(
                                "value {n} is higher than maximum [{}]",
                                max.unwrap_or(0)
                            ))
                        } else {
                            None
                        }
                    }
                    Conv::Unknown => None,
                    Conv::Type(m) => {
                        self.finding(&crate::rules::kubevirt::VALUE_TYPE, v.anchor, m);
                        return;
                    }
                    Conv::Reference(m) => {
                        self.finding(&crate::rules::kubevirt::PATH_NOT_FOUND, v.anchor, m);
                        return;
                    }
                },
                _ => match to_str(v) {
                    Conv::Ok(s) => match rule.rule {
                        RuleType::String => {
                            let n = s.len() as i64;
                            (min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m)).then(|| {
                                format!(
                                    "the length of \"{s}\" ({n} bytes) is not in interval {}",
                                    range(min, max)
                                )
                            })
                        }
                        RuleType::Enum => (!allowed.contains(&s))
                            .then(|| format!("\"{s}\" is not in [{}]", allowed.join(", "))),
                        _ => rule
                            .regex
                            .as_ref()
                            .is_some_and(|re| !re.is_match(&s))
                            .then(|| format!("\"{s}\" does not match {}", rule.regex_text)),
                    },
                    Conv::Unknown => None,
                    Conv::Type(m) | Conv::Reference(m) => {
                        self.finding(&crate::rules::kubevirt::VALUE_TYPE, v.anchor, m);
                        return;
                    }
                },
            };
            if let Some(detail) = detail {
                let span = self.value_span(v);
                self.finding(
                    &crate::rules::kubevirt::VALIDATION,
                    span,
                    format!("{detail} (rule `{}`, path `{}`)", rule.name, rule.path.text),
                )
                .severity = severity;
            }
        }
    }
}
