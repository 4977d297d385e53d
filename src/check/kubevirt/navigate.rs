//! Hover and definition in KubeVirt files (see `crate::navigate`): the
//! Template a VirtualMachine's `vm.kubevirt.io/template` label (or
//! annotation) names, found by name and namespace among the workspace's
//! Templates as the check finds it, and the validations it applies.

use super::annotation::{self, RuleType};
use super::documents::{TEMPLATE_KEY, is_template, is_vm, template_key};
use crate::navigate::{Completion, Context, Hover, Navigator};
use crate::source::{FileId, SourceFile, Sources, Span};
use crate::yaml::Node;
use crate::yaml::node::{child, item, text};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const MEMO_KEY: &str = "kubevirt-navigate-templates";

/// One Template of the workspace.
#[derive(Debug)]
struct Template {
    name: String,
    namespace: Option<String>,
    path: Arc<PathBuf>,
    /// The byte range of its `metadata.name` value, and its line.
    start: usize,
    end: usize,
    line: usize,
    /// Its `validations` annotation, as written.
    validations: Option<String>,
}

/// The Templates of a workspace, in path order.
#[derive(Debug, Default)]
struct Templates(Vec<Template>);

impl Templates {
    fn build(root: &Path, config: Option<&crate::config::Config>) -> Templates {
        let files = crate::navigate::workspace_yaml_files(root, config);
        let mut list: Vec<Template> = files
            .par_iter()
            .flat_map_iter(|path| {
                let text = crate::navigate::read_small(path);
                templates_of(&text, &Arc::new(path.clone()))
            })
            .collect();
        list.sort_by(|a, b| a.path.cmp(&b.path).then(a.start.cmp(&b.start)));
        Templates(list)
    }
}

fn templates_of(text: &str, path: &Arc<PathBuf>) -> Vec<Template> {
    if !text.contains("Template") {
        return Vec::new();
    }
    crate::navigate::of_documents(text, |docs, lines| templates_in(docs, lines, path))
}

fn templates_in(docs: &[&Node], lines: &SourceFile, path: &Arc<PathBuf>) -> Vec<Template> {
    let mut out = Vec::new();
    for doc in docs.iter().filter(|d| is_template(d)) {
        let meta = child(doc, "metadata");
        let Some(name_item) = meta.and_then(|m| item(m, "name")) else {
            continue;
        };
        let Some(name) = name_item.value.as_scalar() else {
            continue;
        };
        let span = name_item.value.span;
        out.push(Template {
            name: name.text.clone(),
            namespace: meta
                .and_then(|m| text(m, "namespace"))
                .filter(|n| !n.is_empty())
                .map(str::to_string),
            path: Arc::clone(path),
            start: span.start as usize,
            end: span.end as usize,
            line: lines.line_col(span.start as usize).line,
            validations: meta
                .and_then(|m| child(m, "annotations"))
                .and_then(|a| child(a, "validations"))
                .and_then(|v| v.as_scalar())
                .map(|s| s.text.clone()),
        });
    }
    out
}

/// Keep the workspace's Templates in the memo when the document may hold
/// VirtualMachines or Templates (it names their kinds), without parsing
/// it.
pub fn warm(cx: &Context) {
    let text = &cx.sources.get(cx.file).text;
    if text.contains("VirtualMachine") || text.contains("Template") {
        cx.memo
            .get_or_insert_with(MEMO_KEY, || Templates::build(cx.root, cx.config));
    }
}

/// The navigator of the document, when it holds VirtualMachines or
/// Templates.
pub fn navigator(cx: &Context) -> Option<Box<dyn Navigator>> {
    let source = cx.sources.get(cx.file);
    if !source.text.contains("kind:") {
        return None;
    }
    let options = crate::yaml::parse::ParseOptions::default();
    let set = crate::yaml::parse::parse_file(cx.file, &source.text, &options).ok()?;
    let docs: Vec<&Node> = set.docs.iter().map(|d| &d.value).collect();
    if !docs.iter().any(|d| is_template(d) || is_vm(d)) {
        return None;
    }
    let mut names = Vec::new();
    for vm in docs.iter().filter(|d| is_vm(d)) {
        let meta = child(vm, "metadata");
        let labels = meta.and_then(|m| child(m, "labels"));
        let annotations = meta.and_then(|m| child(m, "annotations"));
        // As `links` reads it: the labels, else the annotations.
        let (map, key) = match template_key(labels) {
            Some(key) => (labels, key),
            None => match template_key(annotations) {
                Some(key) => (annotations, key),
                None => continue,
            },
        };
        let Some(value) = map.and_then(|m| item(m, TEMPLATE_KEY)) else {
            continue;
        };
        let span = value.value.span;
        names.push(TemplateName {
            start: span.start as usize,
            end: span.end as usize,
            name: key.0.to_string(),
            namespace: key.1.to_string(),
        });
    }
    let index = cx
        .memo
        .get_or_insert_with(MEMO_KEY, || Templates::build(cx.root, cx.config))?;
    let own = templates_in(&docs, &source, &Arc::new(cx.path.to_path_buf()));
    Some(Box::new(KubevirtNavigator {
        names,
        index,
        own,
        path: cx.path.to_path_buf(),
        root: cx.root.to_path_buf(),
        sources: cx.sources.clone(),
        file: cx.file,
        files: Mutex::new(HashMap::new()),
    }))
}

/// A VirtualMachine's label naming its template.
struct TemplateName {
    start: usize,
    end: usize,
    name: String,
    namespace: String,
}

struct KubevirtNavigator {
    names: Vec<TemplateName>,
    index: Arc<Templates>,
    /// The document's own Templates, standing in for its file's.
    own: Vec<Template>,
    path: PathBuf,
    root: PathBuf,
    sources: Sources,
    file: FileId,
    files: Mutex<HashMap<PathBuf, FileId>>,
}

impl KubevirtNavigator {
    fn name_at(&self, offset: usize) -> Option<&TemplateName> {
        self.names
            .iter()
            .find(|n| n.start <= offset && offset <= n.end)
    }

    /// The Templates the name means, as `check_vm` looks: of that name in
    /// that namespace, else of that name with no namespace.
    fn templates(&self, n: &TemplateName) -> Vec<&Template> {
        let all: Vec<&Template> = self
            .index
            .0
            .iter()
            .filter(|t| t.path.as_path() != self.path)
            .chain(&self.own)
            .filter(|t| t.name == n.name)
            .collect();
        let in_namespace: Vec<&Template> = all
            .iter()
            .copied()
            .filter(|t| t.namespace.as_deref() == Some(n.namespace.as_str()))
            .collect();
        if !in_namespace.is_empty() {
            return in_namespace;
        }
        all.into_iter().filter(|t| t.namespace.is_none()).collect()
    }

    fn span(&self, t: &Template) -> Span {
        let file = if t.path.as_path() == self.path {
            self.file
        } else {
            let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
            *files.entry(t.path.to_path_buf()).or_insert_with(|| {
                let name = crate::source::display_name(&t.path, &self.root);
                self.sources.add_unread(name, t.path.to_path_buf())
            })
        };
        Span::new(file, t.start, t.end)
    }

    fn markdown(&self, t: &Template) -> String {
        let rel = t.path.strip_prefix(&self.root).unwrap_or(&t.path);
        let mut out = format!("**Template** `{}`", t.name);
        if let Some(ns) = &t.namespace {
            out.push_str(&format!(" in namespace `{ns}`"));
        }
        out.push_str(&format!(" ({}:{})\n\n", rel.display(), t.line));
        out.push_str(&rules_markdown(t));
        out
    }
}

/// The validations a Template applies, one line each.
fn rules_markdown(t: &Template) -> String {
    let Some(text) = &t.validations else {
        return "No validations.".to_string();
    };
    let Some(rules) = annotation::parse(text).rules else {
        return "Its validations annotation does not parse.".to_string();
    };
    if rules.is_empty() {
        return "No validations.".to_string();
    }
    let mut out = "Validations:\n".to_string();
    for r in &rules {
        let kind = match r.rule {
            RuleType::Integer => "integer",
            RuleType::String => "string",
            RuleType::Enum => "enum",
            RuleType::Regex => "regex",
        };
        let warning = if r.just_warning { ", warning only" } else { "" };
        out.push_str(&format!(
            "- `{}` ({kind} `{}`{warning}): {}\n",
            r.name, r.path.text, r.message
        ));
    }
    out
}

impl Navigator for KubevirtNavigator {
    fn hover(&self, offset: usize) -> Option<Hover> {
        let n = self.name_at(offset)?;
        let found = self.templates(n);
        let first = *found.first()?;
        // Several Templates of that name: shown only when they validate alike.
        let rules = rules_markdown(first);
        if found.iter().any(|t| rules_markdown(t) != rules) {
            return None;
        }
        Some(Hover {
            span: Span::new(self.file, n.start, n.end),
            markdown: self.markdown(first),
        })
    }

    fn definition(&self, offset: usize) -> Vec<Span> {
        let Some(n) = self.name_at(offset) else {
            return Vec::new();
        };
        self.templates(n)
            .into_iter()
            .map(|t| self.span(t))
            .collect()
    }

    fn completions(&self, _offset: usize) -> Vec<Completion> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::navigator;
    use crate::check::tekton::navigate::tests::open_as_server;
    use crate::navigate::{Navigator, WorkspaceMemo};
    use std::path::Path;

    const TEMPLATE: &str = r#"apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: fedora-small
  annotations:
    validations: |
      [
        {
          "name": "EnoughMemory",
          "path": "jsonpath::.spec.domain.resources.requests.memory",
          "message": "Memory size not within range",
          "rule": "integer",
          "min": 67108864
        }
      ]
objects: []
"#;

    const VM: &str = r#"apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm1
  labels:
    vm.kubevirt.io/template: fedora-small
    vm.kubevirt.io/template.namespace: default
spec:
  template:
    spec: {}
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm2
  labels:
    vm.kubevirt.io/template: elsewhere
    vm.kubevirt.io/template.namespace: default
"#;

    /// Open `rel` below `root` as the server does: (its text, spans as
    /// (file name, line, text) of each definition at `needle`, hover).
    fn ask(
        root: &Path,
        rel: &str,
        needle: &str,
        memo: &WorkspaceMemo,
    ) -> (Vec<(String, usize, String)>, Option<String>) {
        let text = std::fs::read_to_string(root.join(rel)).unwrap();
        let (sources, nav) = open_as_server(root, rel, &text, memo, navigator);
        let nav: Box<dyn Navigator> = nav.expect("a KubeVirt navigator");
        let offset = text.find(needle).unwrap() + 2;
        let defs = nav
            .definition(offset)
            .into_iter()
            .map(|s| {
                let f = sources.get(s.file);
                let line = f.line_col(s.start as usize).line;
                (f.name.clone(), line, f.text[s.range()].to_string())
            })
            .collect();
        (defs, nav.hover(offset).map(|h| h.markdown))
    }

    #[test]
    fn a_vm_label_names_its_template() {
        let root =
            std::env::temp_dir().join(format!("confvet-nav-kubevirt-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("templates")).unwrap();
        std::fs::create_dir_all(root.join("vms")).unwrap();
        std::fs::write(root.join("templates/fedora.yaml"), TEMPLATE).unwrap();
        std::fs::write(root.join("vms/vm.yaml"), VM).unwrap();
        let memo = WorkspaceMemo::default();
        let (defs, hover) = ask(&root, "vms/vm.yaml", "fedora-small", &memo);
        assert_eq!(
            defs,
            vec![(
                "templates/fedora.yaml".to_string(),
                4,
                "fedora-small".to_string()
            )]
        );
        let md = hover.unwrap();
        assert!(
            md.starts_with("**Template** `fedora-small` (templates/fedora.yaml:4)"),
            "{md}"
        );
        assert!(
            md.contains("- `EnoughMemory` (integer `.spec.domain.resources.requests.memory`): Memory size not within range"),
            "{md}"
        );
        // A template not in the workspace, or a place that names none.
        assert_eq!(
            ask(&root, "vms/vm.yaml", "elsewhere", &memo),
            (vec![], None)
        );
        assert_eq!(
            ask(&root, "vms/vm.yaml", "name: vm1", &memo),
            (vec![], None)
        );
    }

    #[test]
    fn corpus_vm_names_a_template_of_the_functests() {
        if std::env::var_os("CONFVET_REQUIRE_SHARED").is_none()
            && !Path::new("../shared/corpus/kubevirt").exists()
        {
            return;
        }
        let root = std::fs::canonicalize("../shared/corpus/kubevirt").unwrap();
        let memo = WorkspaceMemo::default();
        let rel = "template-validator-functests/03-vm-from-template-with-rules-satisfied.yaml";
        let (defs, hover) = ask(&root, rel, "fedora-desktop-small-with-rules", &memo);
        // Three Templates of that name, one without validations: every
        // one is a definition, and the hover would have to pick: none.
        let files: Vec<&str> = defs.iter().map(|d| d.0.as_str()).collect();
        assert_eq!(files.len(), 3, "{defs:?}");
        assert!(
            files.contains(&"template-validator-functests/template-with-rules.yaml"),
            "{defs:?}"
        );
        assert!(
            defs.iter()
                .all(|d| d.1 == 4 && d.2 == "fedora-desktop-small-with-rules")
        );
        assert_eq!(hover, None);
        // A workspace of one test case: one Template.
        let case = root
            .join("template-validator-functests/16-template-with-validations-vm-with-validations");
        let (defs, hover) = ask(
            &case,
            "vm-with-validation-rules-passing.yaml",
            "fedora-desktop-small-with-rules",
            &WorkspaceMemo::default(),
        );
        assert_eq!(defs.len(), 1, "{defs:?}");
        assert_eq!(defs[0].0, "template-with-rules.yaml");
        let md = hover.unwrap();
        assert!(md.contains("- `EnoughMemory` (integer"), "{md}");
        assert!(
            md.contains("- `SupportedChipset` (enum `.spec.domain.machine.type`)"),
            "{md}"
        );
    }
}
