//! The fix of a reference to an undeclared name that is a typo of a declared
//! one: rename the reference. Unsafe, since the author may have meant to
//! declare the name instead; and offered only when one declared name is
//! near, the hint names it, and the name is written in the source as the
//! finding reads it.

use super::ctx::Ctx;
use super::hints::{Help, hint};
use super::model::{items, siblings};
use crate::edit::Fix;
use crate::source::{Sources, Span};
use crate::yaml::Node;
use crate::yaml::node::child;

/// How far a reference may be from the declared name it is renamed to.
const MAX_EDITS: usize = 2;

impl Ctx<'_> {
    /// The help of a finding about the undeclared `name` at `span`: the
    /// nearest declared name (None when hints ran out) and the fix renaming
    /// `name` to it, when it is the one of `rivals` it may mean.
    pub(super) fn rename_help(
        &self,
        span: Span,
        name: &str,
        near: Option<String>,
        rivals: &[String],
    ) -> Help {
        let fix = near
            .as_deref()
            .and_then(|near| rename_fix(self.sources, span, name, near, rivals));
        Help {
            text: near.as_deref().map(hint),
            fix,
        }
    }
}

/// The fix renaming `name` at `span` to `near`, the name the finding's
/// did-you-mean proposes, when `near` is the only one of `rivals` (every
/// name the reference could mean) within two edits of `name`.
///
/// `span` is a `$(…)` expression, or a scalar holding the name alone
/// (quoted or not); the name must stand in it exactly once, as written.
pub(super) fn rename_fix(
    sources: &Sources,
    span: Span,
    name: &str,
    near: &str,
    rivals: &[String],
) -> Option<Fix> {
    if !plain_name(near) || siblings(name, near) {
        return None;
    }
    if crate::suggest::sole_within(name, rivals, MAX_EDITS).as_deref() != Some(near) {
        return None;
    }
    let file = sources.get(span.file);
    let raw = file.text.get(span.range())?;
    let expression = raw.starts_with("$(") && raw.ends_with(')');
    let unquoted = ["\"", "'"]
        .iter()
        .find_map(|q| raw.strip_prefix(q)?.strip_suffix(q))
        .unwrap_or(raw);
    // A Pipelines-as-Code `{{ }}` template is rewritten before Tekton sees
    // it: the name there is not the reference's.
    if raw.contains("{{") || !(expression || unquoted == name) {
        return None;
    }
    let edit = crate::check::edits::rename_once(sources, span, name, near)?;
    Fix::unsafe_(format!("rename \"{name}\" to \"{near}\""), vec![edit])
}

/// Whether renaming the entry `name` of `list` to `near` could give a
/// name twice: another entry is `near`, or near enough to be renamed to it
/// too. An entry is a name, or names one in its `name:`.
pub(super) fn crowded(list: Option<&Node>, name: &str, near: &str) -> bool {
    let others: Vec<String> = items(list)
        .iter()
        .filter_map(|it| child(it, "name").unwrap_or(it).as_scalar())
        .map(|s| s.text.clone())
        .filter(|other| other != name)
        .collect();
    others.iter().any(|other| other == near)
        || crate::suggest::within(near, &others, MAX_EDITS).is_some()
}

/// A name that reads the same in any YAML scalar and in a `$(params.x)`
/// reference: no quote, escape, space, dot or bracket to get wrong.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::apply_edits;
    use crate::source::{FileId, SourceFile};

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// `text` with the fix renaming `name` in the span of `within` made.
    fn fixed(text: &str, within: &str, name: &str, near: &str, rivals: &[&str]) -> Option<String> {
        let sources = Sources::new();
        let id = sources.add(SourceFile::new("a.yaml".into(), None, text.into()));
        let at = text.find(within).unwrap();
        let span = Span::new(id, at, at + within.len());
        let fix = rename_fix(&sources, span, name, near, &names(rivals))?;
        let edits: Vec<_> = fix.edits.iter().collect();
        Some(apply_edits(text, &edits))
    }

    #[test]
    fn a_reference_is_renamed_in_its_expression_only() {
        let text = "script: echo $(params.gitrevison) # gitrevison\n";
        assert_eq!(
            fixed(
                text,
                "$(params.gitrevison)",
                "gitrevison",
                "gitrevision",
                &["gitrevision", "url"]
            )
            .as_deref(),
            Some("script: echo $(params.gitrevision) # gitrevison\n")
        );
        let text = "image: $(tasks.build.results.imageUrl)\n";
        let expr = "$(tasks.build.results.imageUrl)";
        assert_eq!(
            fixed(text, expr, "imageUrl", "image-url", &["image-url"]).as_deref(),
            Some("image: $(tasks.build.results.image-url)\n")
        );
    }

    #[test]
    fn an_entry_is_not_renamed_to_a_name_its_list_gives_or_may_give() {
        let list = |text: &str| {
            let options = crate::yaml::ParseOptions::default();
            let set = crate::yaml::parse_file(FileId(0), text, &options).unwrap();
            set.docs.into_iter().next().unwrap().value
        };
        let run_after = list("[buld, build]\n");
        assert!(crowded(Some(&run_after), "buld", "build"));
        let bindings = list("- name: sourc\n- name: sorce\n");
        assert!(crowded(Some(&bindings), "sourc", "source"));
        let bindings = list("- name: sourc\n- name: cache\n");
        assert!(!crowded(Some(&bindings), "sourc", "source"));
    }

    #[test]
    fn a_name_scalar_is_renamed_inside_its_quotes() {
        let text = "- name: \"sourc\"   # the checkout\n";
        assert_eq!(
            fixed(text, "\"sourc\"", "sourc", "source", &["source", "cache"]).as_deref(),
            Some("- name: \"source\"   # the checkout\n")
        );
        let text = "workspace: sourc\n";
        assert_eq!(
            fixed(text, "sourc", "sourc", "source", &["source"]).as_deref(),
            Some("workspace: source\n")
        );
    }

    #[test]
    fn no_rename_when_it_is_not_the_one_near_name_or_not_written_as_read() {
        let text = "v: $(params.image-ur)\n";
        let expr = "$(params.image-ur)";
        let two = ["image-url", "image-uri"];
        assert_eq!(fixed(text, expr, "image-ur", "image-url", &two), None);
        // A family of names, not a typo.
        let text = "v: $(params.image3)\n";
        let family = ["image1", "image2"];
        assert_eq!(
            fixed(text, "$(params.image3)", "image3", "image1", &family),
            None
        );
        // An escape in a double-quoted scalar: the source does not spell it.
        let text = "name: \"sour\\x63\"\n";
        assert_eq!(
            fixed(text, "\"sour\\x63\"", "sourc", "source", &["source"]),
            None
        );
        // Twice in one expression: which one is meant is not known.
        let text = "v: $(tasks.imag.results.imag)\n";
        let expr = "$(tasks.imag.results.imag)";
        assert_eq!(fixed(text, expr, "imag", "image", &["image"]), None);
        // A Pipelines-as-Code template.
        let text = "v: \"{{ revison }}\"\n";
        let quoted = "\"{{ revison }}\"";
        assert_eq!(
            fixed(text, quoted, "revison", "revision", &["revision"]),
            None
        );
        // A declared name that reads otherwise in a reference.
        let text = "v: $(params.a-b)\n";
        assert_eq!(fixed(text, "$(params.a-b)", "a-b", "a.b", &["a.b"]), None);
    }
}
