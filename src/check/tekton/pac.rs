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
use crate::finding::{Finding, Kind, Severity};
use crate::source::{Sources, Span};
use crate::yaml::node::{child, text};
use crate::yaml::{DocumentSet, Node, ScalarStyle, Value};
use std::collections::HashSet;
use std::ops::Range;
use std::path::Path;

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

/// Whether PaC reads the file at `path` with text `text` as a template.
pub fn reads(path: &Path, text: &str) -> bool {
    path.components().any(|c| c.as_os_str() == ".tekton")
        || text.contains("pipelinesascode.tekton.dev/")
}

/// The byte ranges of the placeholders in `text` that name a variable:
/// what PaC's pattern matches, on one line, holding a name (`repo_url`,
/// `body.pull_request.number`, `headers['x-github-event']`), not template
/// code of another tool (`{{.Status}}`, `{{ range .items }}`), which PaC
/// leaves alone too.
pub fn placeholders(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    // The first `}` at or after some offset, found once and reused, so a
    // long run of `{` stays linear.
    let mut close: Option<usize> = None;
    while let Some(i) = text[from..].find("{{") {
        let start = from + i;
        let inner = start + 2;
        if close.is_none_or(|c| c < inner) {
            close = text[inner..].find('}').map(|j| inner + j);
        }
        let Some(end) = close else { break };
        if end - inner >= 2 && text[end..].starts_with("}}") && is_name(text[inner..end].trim()) {
            out.push(start..end + 2);
            from = end + 2;
        } else {
            from = start + 1;
        }
    }
    out
}

/// A variable name as PaC placeholders hold one.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || "_-.[]'\"".contains(c))
}

/// What stands in for a placeholder of `len` bytes while the YAML is
/// parsed: a plain word, distinct enough to be found again in the scalar.
fn filler(len: usize) -> String {
    format!("Q{}Q", "_".repeat(len.saturating_sub(2)))
}

/// `text` with each placeholder of `ranges` blanked out to its filler.
pub fn blank(text: &str, ranges: &[Range<usize>]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for r in ranges {
        out.push_str(&text[at..r.start]);
        out.push_str(&filler(r.len()));
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Put the placeholders of `ranges` (in `text`, the file as written) back
/// into the scalars and keys of `set`, parsed from the blanked text.
pub fn restore(set: &mut DocumentSet, text: &str, ranges: &[Range<usize>]) {
    for doc in &mut set.docs {
        restore_node(&mut doc.value, text, ranges, 0);
    }
}

fn restore_node(node: &mut Node, text: &str, ranges: &[Range<usize>], depth: usize) {
    // The parser bounds nesting; this keeps the walk's stack small anyway.
    if depth > 256 {
        return;
    }
    let span = node.span;
    match &mut node.value {
        Value::Scalar(s) => restore_text(&mut s.text, span, text, ranges),
        Value::Array(list) => {
            for it in list {
                restore_node(&mut it.value, text, ranges, depth + 1);
            }
        }
        Value::Map(entries) => {
            for it in entries {
                restore_text(&mut it.key.text, it.key_span, text, ranges);
                restore_node(&mut it.value, text, ranges, depth + 1);
            }
        }
    }
}

/// Replace, in order, the filler of each placeholder within `span` in
/// `value` by the placeholder as written.
fn restore_text(value: &mut String, span: Span, text: &str, ranges: &[Range<usize>]) {
    let within = in_span(ranges, span);
    if within.is_empty() || !value.contains('Q') {
        return;
    }
    let mut cursor = 0;
    for r in within {
        let fill = filler(r.len());
        let Some(i) = value[cursor..].find(&fill) else {
            return;
        };
        let at = cursor + i;
        value.replace_range(at..at + fill.len(), &text[r.clone()]);
        cursor = at + r.len();
    }
}

/// The ranges (sorted, disjoint) that lie within `span`.
fn in_span(ranges: &[Range<usize>], span: Span) -> &[Range<usize>] {
    let (start, end) = (span.start as usize, span.end as usize);
    let first = ranges.partition_point(|r| r.start < start);
    let last = ranges.partition_point(|r| r.end <= end);
    ranges.get(first..last.max(first)).unwrap_or(&[])
}

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
/// `files` that PaC reads. A placeholder inside a block scalar (a script,
/// where other tools' `{{ }}` are common) is reported only when it is
/// within two edits of a defined name.
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
        for (span, path, block) in scalars {
            let written = source.text.get(span.range()).unwrap_or("");
            if holds_template_code(written) {
                continue;
            }
            for r in in_span(&ranges, span) {
                let name = source.text[r.start + 2..r.end - 2].trim();
                if defined(name, &params) || GO_TEMPLATE_WORDS.contains(&name) {
                    continue;
                }
                let near = crate::suggest::within(name, &known, 2);
                if block && near.is_none() {
                    continue;
                }
                let why = if params.is_empty() {
                    "and no Repository in view declares it in spec.params"
                } else {
                    "and the Repository in view does not declare it in spec.params"
                };
                let span = Span::new(f.id, r.start, r.end);
                let finding = Finding::new(
                    "tekton/pac-placeholder",
                    Kind::Reference,
                    span,
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

/// Every scalar and key under `node`: its span, data path, and whether it
/// is a block scalar.
fn scalars_of(node: &Node, path: String, out: &mut Vec<(Span, String, bool)>, depth: usize) {
    if depth > 256 {
        return;
    }
    match &node.value {
        Value::Scalar(s) => {
            let block = matches!(s.style, ScalarStyle::Literal | ScalarStyle::Folded);
            out.push((node.span, path, block));
        }
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
                out.push((it.key_span, p.clone(), false));
                scalars_of(&it.value, p, out, depth + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
