//! The state of one unit's KubeVirt check: the findings so far and each
//! validations annotation parsed once (its problems reported the first time).

use super::annotation::{self, Parsed};
use super::placement::{Annot, json_span, source_offset};
use super::repair::{self, Comma};
use crate::edit::{Edit, Fix};
use crate::finding::Finding;
use crate::source::{FileId, SourceFile, Sources, Span};
use std::collections::HashMap;
use std::sync::Arc;

/// One unit's check in progress.
pub(super) struct Ctx<'s> {
    sources: &'s Sources,
    files: HashMap<u32, Arc<SourceFile>>,
    pub(super) parsed: HashMap<(u32, u32), Parsed>,
    /// Annotations that are JSON once their commas are repaired: the rules
    /// the repair would make apply, and what they would do.
    pub(super) repaired: HashMap<(u32, u32), Repaired>,
    pub(super) out: Vec<Finding>,
}

/// What repairing an annotation's commas would change: its rules start to
/// apply. The comma fix is therefore unsafe, and says which
/// VirtualMachines the rules would reject.
pub(super) struct Repaired {
    pub(super) rules: Vec<annotation::Rule>,
    /// The VirtualMachines (by name, or file and line) the rules would
    /// reject, in the order met.
    pub(super) rejects: Vec<String>,
    /// The findings (indices into `out`) that carry the comma fix.
    fixed_by: Vec<usize>,
}

impl<'s> Ctx<'s> {
    pub(super) fn new(sources: &'s Sources) -> Ctx<'s> {
        Ctx {
            sources,
            files: HashMap::new(),
            parsed: HashMap::new(),
            repaired: HashMap::new(),
            out: Vec::new(),
        }
    }

    pub(super) fn src(&mut self, id: FileId) -> Arc<SourceFile> {
        let sources = self.sources;
        self.files
            .entry(id.0)
            .or_insert_with(|| sources.get(id))
            .clone()
    }

    /// Parse an annotation once, reporting its problems the first time.
    pub(super) fn parse(&mut self, a: &Annot) {
        if self.parsed.contains_key(&a.id()) {
            return;
        }
        let parsed = annotation::parse(a.text);
        let src = self.src(a.file);
        for p in &parsed.problems {
            let span = json_span(&src, a, p.off);
            let rule = if p.warning {
                &crate::rules::kubevirt::RULE_WITHOUT_ARGUMENTS
            } else if parsed.rules.is_none() {
                &crate::rules::kubevirt::ANNOTATION
            } else {
                &crate::rules::kubevirt::RULE
            };
            let fix = if p.syntax { comma_fix(&src, a) } else { None };
            if fix.is_some()
                && let Some(rules) = repaired_rules(a.text)
            {
                self.repaired
                    .entry(a.id())
                    .or_insert_with(|| Repaired {
                        rules,
                        rejects: Vec::new(),
                        fixed_by: Vec::new(),
                    })
                    .fixed_by
                    .push(self.out.len());
            }
            self.out.push(
                Finding::new(rule, span, p.message.clone())
                    .with_related(a.key_span, "in this validations annotation")
                    .with_fix(fix),
            );
        }
        self.parsed.insert(a.id(), parsed);
    }
}

impl Ctx<'_> {
    /// Say in each comma fix what it changes: the repaired rules start to
    /// apply, and reject the VirtualMachines named. A fix that makes rules
    /// apply changes what the Template does, so it is never safe.
    pub(super) fn finish_repairs(&mut self) {
        for repaired in self.repaired.values() {
            let count = repaired.rules.len();
            let rules = if count == 1 { "rule" } else { "rules" };
            let effect = match repaired.rejects.as_slice() {
                [] => format!(
                    "then its {count} {rules} apply; no VirtualMachine of the linted files breaks them"
                ),
                names => {
                    let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
                    let more = names.len().saturating_sub(shown.len());
                    format!(
                        "then its {count} {rules} apply, and reject {} VirtualMachine{} of the linted files: {}{}",
                        names.len(),
                        if names.len() == 1 { "" } else { "s" },
                        shown.join(", "),
                        if more > 0 {
                            format!(" and {more} more")
                        } else {
                            String::new()
                        }
                    )
                }
            };
            for &index in &repaired.fixed_by {
                let Some(fix) = self.out.get_mut(index).and_then(|f| f.fix.as_mut()) else {
                    continue;
                };
                fix.applicability = crate::edit::Applicability::Unsafe;
                fix.message = format!("{}: {effect}", fix.message);
            }
        }
    }
}

/// The rules of an annotation once its commas are repaired; None when the
/// repaired text still gives no rules.
fn repaired_rules(text: &str) -> Option<Vec<annotation::Rule>> {
    let mut repaired = text.to_string();
    let mut commas = repair::commas(text)?;
    // From the end, so each offset still points where it did.
    commas.sort_by_key(|c| std::cmp::Reverse(comma_offset(*c)));
    for comma in commas {
        match comma {
            Comma::Trailing(off) if repaired.is_char_boundary(off) => {
                repaired.remove(off);
            }
            Comma::Missing(off) if repaired.is_char_boundary(off) => repaired.insert(off, ','),
            _ => return None,
        }
    }
    annotation::parse(&repaired).rules
}

fn comma_offset(comma: Comma) -> usize {
    match comma {
        Comma::Trailing(off) | Comma::Missing(off) => off,
    }
}

/// The fix of an annotation that is not JSON for commas only, each edit
/// made on the file's bytes where they are the JSON text's (safe here; see
/// [`Ctx::finish_repairs`] for why it ends unsafe).
fn comma_fix(src: &SourceFile, a: &Annot) -> Option<Fix> {
    let commas = repair::commas(a.text)?;
    let bytes = src.text.as_bytes();
    let mut edits = Vec::new();
    for comma in &commas {
        let edit = match *comma {
            Comma::Trailing(off) => {
                let at = source_offset(src, a, off)?;
                (bytes.get(at) == Some(&b',')).then(|| Edit::delete(Span::new(a.file, at, at + 1)))
            }
            Comma::Missing(off) => {
                let at = source_offset(src, a, off)?;
                (at > 0 && bytes.get(at - 1) == Some(&b'}'))
                    .then(|| Edit::replace(Span::new(a.file, at, at), ","))
            }
        };
        edits.push(edit?);
    }
    let trailing = commas
        .iter()
        .filter(|c| matches!(c, Comma::Trailing(_)))
        .count();
    let missing = commas.len() - trailing;
    let message = match (trailing, missing) {
        (1, 0) => "delete the trailing comma".to_string(),
        (0, 1) => "insert the missing comma between the rules".to_string(),
        (t, 0) => format!("delete the {t} trailing commas"),
        (0, m) => format!("insert the {m} missing commas between the rules"),
        (t, m) => format!(
            "delete {t} trailing comma{} and insert {m} missing comma{}",
            if t == 1 { "" } else { "s" },
            if m == 1 { "" } else { "s" }
        ),
    };
    Fix::safe(message, edits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::node::{child, item};
    use crate::yaml::{ParseOptions, parse_file};

    /// `yaml` with the comma fix of its validations annotation made.
    fn fixed(yaml: &str) -> Option<String> {
        let sources = Sources::new();
        let id = sources.add(SourceFile::new("t.yaml".into(), None, yaml.into()));
        let set = parse_file(id, yaml, &ParseOptions::default()).expect("parses");
        let doc = &set.docs[0].value;
        let annotations = child(doc, "metadata").and_then(|m| child(m, "annotations"));
        let it = annotations.and_then(|a| item(a, "validations")).unwrap();
        let a = Annot::from_item(id, it).unwrap();
        let fix = comma_fix(&sources.get(id), &a)?;
        assert_eq!(fix.applicability, crate::edit::Applicability::Safe);
        let edits: Vec<&Edit> = fix.edits.iter().collect();
        Some(crate::edit::apply_edits(yaml, &edits))
    }

    const BLOCK: &str = "\
metadata:
  annotations:
    # rules the template validator applies
    validations: |
      [
        {\"name\": \"a\", \"path\": \"jsonpath::.spec.x\", \"rule\": \"integer\", \"min\": 1,}
        {\"name\": \"b\", \"path\": \"jsonpath::.spec.y\", \"rule\": \"integer\", \"max\": 2},
      ]
    other: keep # as is
";

    #[test]
    fn commas_are_repaired_in_a_literal_block() {
        let expected = BLOCK
            .replace("\"min\": 1,}", "\"min\": 1},")
            .replace("2},\n      ]", "2}\n      ]");
        assert_eq!(fixed(BLOCK), Some(expected));
    }

    #[test]
    fn commas_are_repaired_in_a_one_line_scalar_without_escapes() {
        let quoted = "metadata:\n  annotations:\n    validations: '[{\"name\": \"a\"},]'\n";
        let expected = quoted.replace("},]", "}]");
        assert_eq!(fixed(quoted), Some(expected));
        let rules =
            "metadata:\n  annotations:\n    validations: '[{\"name\": \"a\"} {\"name\": \"b\"}]'\n";
        let expected = rules.replace("} {", "}, {");
        assert_eq!(fixed(rules), Some(expected));
    }

    #[test]
    fn text_written_in_another_form_gets_no_fix() {
        let escaped =
            "metadata:\n  annotations:\n    validations: \"[{\\\"name\\\": \\\"a\\\"},]\"\n";
        assert_eq!(fixed(escaped), None);
        let folded = BLOCK.replace("validations: |", "validations: >");
        assert_eq!(fixed(&folded), None);
        let other_error = BLOCK.replace("\"max\": 2}", "\"max\": 2,,}");
        assert_eq!(fixed(&other_error), None);
    }
}
