//! Pipelines-as-Code templates. PaC reads the files of a repository's
//! `.tekton/` folder (and any file whose PipelineRun carries
//! `pipelinesascode.tekton.dev/` annotations) as text and replaces each
//! `{{ name }}` placeholder it defines before the YAML is parsed
//! (pkg/templates/templating.go, pattern `{{([^}]{2,})}}`), so an unquoted
//! `{{revision}}` is valid there. Discovery parses such a file with each
//! placeholder blanked out to text of the same length (lines and columns
//! stay) and then puts the placeholders back into the scalars;
//! [`check`] warns about a placeholder PaC does not define.

use super::model::{items, repositories};
use crate::discover::DiscoveredFile;
use crate::discover::pac_text::{in_span, placeholders, reads};
use crate::finding::{Finding, Severity};
use crate::rules;
use crate::source::{Sources, Span};
use crate::yaml::node::{child, text};
use crate::yaml::{Node, Value};
use std::collections::HashSet;

/// The variables PaC defines for every event (pkg/customparams/standard.go,
/// pkg/templates/templating.go; docs/content/docs/guide/authoringprs.md).
const DYNAMIC: [&str; 14] = [
    "event_type",
    "git_auth_secret",
    "pull_request_labels",
    "pull_request_number",
    "repo_name",
    "repo_owner",
    "repo_url",
    "revision",
    "sender",
    "source_branch",
    "source_url",
    "target_branch",
    "target_namespace",
    "trigger_comment",
];

/// Prefixes PaC evaluates against the event: the payload, its headers and
/// the files it changes.
const EVENT_FIELDS: [&str; 3] = ["body", "headers", "files"];

/// Whether PaC defines the placeholder `name`, given the params of the
/// Repository CRs in view.
fn defined(name: &str, repo_params: &HashSet<String>) -> bool {
    DYNAMIC.contains(&name)
        || repo_params.contains(name)
        || EVENT_FIELDS.iter().any(|f| {
            name.strip_prefix(f)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        })
}

/// The params a PaC `Repository` resource gives its PipelineRuns:
/// `spec.params` and the params its incoming webhooks accept.
fn repository_params(doc: &Node) -> Option<Vec<String>> {
    let api = text(doc, "apiVersion")?;
    if !api.starts_with("pipelinesascode.tekton.dev/") || text(doc, "kind") != Some("Repository") {
        return None;
    }
    let spec = child(doc, "spec");
    let mut names: Vec<String> = items(spec.and_then(|s| child(s, "params")))
        .into_iter()
        .filter_map(|p| text(p, "name").map(str::to_string))
        .collect();
    for incoming in items(spec.and_then(|s| child(s, "incoming"))) {
        for p in items(child(incoming, "params")) {
            names.extend(p.as_scalar().map(|s| s.text.clone()));
        }
    }
    Some(names)
}

/// Words that stand alone in Go template actions (`{{end}}`, `{{else}}`):
/// text for another tool (kubectl, docker, helm), not PaC variables.
const GO_TEMPLATE_WORDS: [&str; 4] = ["end", "else", "break", "continue"];

/// Whether a scalar as written holds Go template code (`{{.Name}}`,
/// `{{- x }}`, `{{ .Name }}`): its `{{ }}` are for the program it is
/// passed to.
fn holds_template_code(written: &str) -> bool {
    written.match_indices("{{").any(|(i, _)| {
        let after = written[i + 2..].trim_start_matches(['-', ' ']);
        after.starts_with(['.', '$']) || after.starts_with("range ") || after.starts_with("if ")
    })
}

/// Whether a document is a PaC `Repository` (its file is then linked with
/// every file PaC templates, whose placeholders its params define).
pub fn is_repository(doc: &Node) -> bool {
    repository_params(doc).is_some()
}

/// Warnings about placeholders PaC does not define, in the files of
/// `files` that PaC reads: only a placeholder within two edits of a
/// defined name (a typo) is reported.
pub(super) fn check(files: &[&DiscoveredFile], sources: &Sources) -> Vec<Finding> {
    let repos = repositories(files.iter().map(|f| (f.id, f.path.as_path())));
    // Repository CRs by the git repository they are in.
    let mut declared: Vec<(Option<&std::path::PathBuf>, String)> = Vec::new();
    for f in files {
        let Ok(set) = &f.parsed else { continue };
        for d in &set.docs {
            for name in repository_params(&d.value).unwrap_or_default() {
                declared.push((repos.get(&f.id).and_then(Option::as_ref), name));
            }
        }
    }
    let mut out = Vec::new();
    for f in files {
        let Ok(set) = &f.parsed else { continue };
        // Most files hold no placeholder: their text is not read again.
        if !set.docs.iter().any(|d| has_braces(&d.value, 0)) {
            continue;
        }
        let source = sources.get(f.id);
        if !reads(&f.path, &source.text) {
            continue;
        }
        let ranges = placeholders(&source.text);
        if ranges.is_empty() {
            continue;
        }
        let repo = repos.get(&f.id).and_then(Option::as_ref);
        let params: HashSet<String> = declared
            .iter()
            .filter(|(r, _)| *r == repo)
            .map(|(_, n)| n.clone())
            .collect();
        let mut known: Vec<String> = DYNAMIC.iter().map(|s| s.to_string()).collect();
        known.extend(params.iter().cloned());
        known.sort();
        let mut scalars = Vec::new();
        for d in &set.docs {
            scalars_of(&d.value, String::new(), &mut scalars, 0);
        }
        for (span, path) in scalars {
            let written = source.text.get(span.range()).unwrap_or("");
            if holds_template_code(written) {
                continue;
            }
            for r in in_span(&ranges, span) {
                let name = source.text[r.start + 2..r.end - 2].trim();
                if defined(name, &params) || GO_TEMPLATE_WORDS.contains(&name) {
                    continue;
                }
                // Only a near miss of a defined name is a typo: other names
                // are often meant for a later tool (`{{hash}}` for a cache
                // Task) or for params of a Repository on the cluster, which
                // the repository does not hold.
                let near = crate::suggest::within(name, &known, 2);
                if near.is_none() {
                    continue;
                }
                let why = if params.is_empty() {
                    "and no Repository in view declares it in spec.params"
                } else {
                    "and the Repository in view does not declare it in spec.params"
                };
                let span = Span::new(f.id, r.start, r.end);
                let finding = Finding::new(&rules::tekton::PAC_PLACEHOLDER, span,
                    format!(
                        "{{{{{name}}}}} is not a Pipelines-as-Code variable {why}: PaC leaves it as written"
                    ),
                )
                .with_path(path.clone())
                .with_severity(Severity::Warning);
                out.push(Finding {
                    help: near.map(|n| format!("did you mean \"{{{{{n}}}}}\"?")),
                    ..finding
                });
            }
        }
    }
    out
}

/// Whether a scalar or key under `node` holds `{{`.
fn has_braces(node: &Node, depth: usize) -> bool {
    match &node.value {
        _ if depth > 256 => false,
        Value::Scalar(s) => s.text.contains("{{"),
        Value::Array(list) => list.iter().any(|it| has_braces(&it.value, depth + 1)),
        Value::Map(entries) => entries
            .iter()
            .any(|it| it.key.text.contains("{{") || has_braces(&it.value, depth + 1)),
    }
}

/// Every scalar and key under `node`: its span and data path.
fn scalars_of(node: &Node, path: String, out: &mut Vec<(Span, String)>, depth: usize) {
    if depth > 256 {
        return;
    }
    match &node.value {
        Value::Scalar(_) => out.push((node.span, path)),
        Value::Array(list) => {
            for (i, it) in list.iter().enumerate() {
                scalars_of(&it.value, format!("{path}[{i}]"), out, depth + 1);
            }
        }
        Value::Map(entries) => {
            for it in entries {
                let p = if path.is_empty() {
                    it.key.text.clone()
                } else {
                    format!("{path}.{}", it.key.text)
                };
                out.push((it.key_span, p.clone()));
                scalars_of(&it.value, p, out, depth + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discover::pac_text::{blank, restore};

    #[test]
    fn placeholders_are_names_in_double_braces() {
        let text = "a: {{repo_url}}\nb: '{{ body.pull_request.number }}'\nc: {{.Status}}\nd: {{x}}\ne: {{{y}}}";
        let found: Vec<&str> = placeholders(text).into_iter().map(|r| &text[r]).collect();
        // `{{x}}` is too short for PaC's pattern; `{{{y}}}` holds no name.
        assert_eq!(found, ["{{repo_url}}", "{{ body.pull_request.number }}"]);
        assert_eq!(
            blank("v: {{revision}}", &placeholders("v: {{revision}}")),
            "v: Q__________Q"
        );
        // A long run of braces stays linear and finds nothing.
        assert!(placeholders(&"{".repeat(100_000)).is_empty());
    }

    #[test]
    fn placeholders_are_put_back_into_the_parsed_scalars() {
        let written = "name: {{repo_name}}-on-push\nargs: [a_{{ revision }}, \"{{sender}}\"]\n";
        let ranges = placeholders(written);
        let blanked = blank(written, &ranges);
        assert_eq!(blanked.len(), written.len());
        let options = crate::yaml::ParseOptions::default();
        let mut set = crate::yaml::parse_file(crate::source::FileId(0), &blanked, &options)
            .expect("blanked text parses");
        restore(&mut set, written, &ranges);
        let doc = &set.docs[0].value;
        assert_eq!(text(doc, "name"), Some("{{repo_name}}-on-push"));
        let args = super::items(child(doc, "args"));
        let args: Vec<&str> = args
            .iter()
            .filter_map(|a| a.as_scalar())
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(args, ["a_{{ revision }}", "{{sender}}"]);
    }

    #[test]
    fn go_template_code_is_not_pac_placeholders() {
        assert!(holds_template_code(
            "'{{range .items}}{{.metadata.name}}{{end}}'"
        ));
        assert!(holds_template_code("{{- $x := 1 }}"));
        assert!(!holds_template_code("quay.io/app:{{revision}}"));
    }

    #[test]
    fn event_fields_and_repository_params_are_defined() {
        let params: HashSet<String> = ["custom".to_string()].into();
        for name in [
            "revision",
            "body.head_commit.id",
            "headers['x-event']",
            "custom",
            "files.all",
        ] {
            assert!(defined(name, &params), "{name}");
        }
        for name in ["revison", "bodyx", "other"] {
            assert!(!defined(name, &params), "{name}");
        }
    }
}
