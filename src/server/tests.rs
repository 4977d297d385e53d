//! The server driven in-process over a memory connection, as an editor
//! drives it: initialize, open, code actions, change, shutdown.

use super::*;
use lsp_server::Connection;
use lsp_types::{
    CodeActionContext, CodeActionParams, Diagnostic, NumberOrString, PartialResultParams, Position,
    Range, TextDocumentIdentifier, WorkDoneProgressParams,
};
use serde_json::json;

const TEMPLATE: &str = "apiVersion: triggers.tekton.dev/v1beta1
kind: TriggerTemplate
metadata:
  name: release-on-tag
spec:
  params:
    - name: revision
  resourcetemplates:
    - apiVersion: tekton.dev/v1
      kind: PipelineRun
      metadata:
        generateName: release-
      spec:
        pipelineSpec:
          params:
            - name: tag
          tasks: []
        params:
          - name: tag
            value: $(params.revision)   # a comment
";

/// The client's end, with the server answering on a thread.
struct Client {
    connection: Connection,
    server: Option<std::thread::JoinHandle<Result<Ending, super::ServerError>>>,
    next_id: i32,
}

impl Client {
    fn start(root: &Path) -> Client {
        Client::start_with(&[root], json!({}))
    }

    /// A client of these workspace folders with these capabilities.
    fn start_with(folders: &[&Path], capabilities: serde_json::Value) -> Client {
        let (server, connection) = Connection::memory();
        let server = std::thread::spawn(move || serve(&server));
        let mut client = Client {
            connection,
            server: Some(server),
            next_id: 0,
        };
        let folders: Vec<serde_json::Value> = folders
            .iter()
            .map(|f| json!({"uri": convert::uri_of(f).unwrap(), "name": "folder"}))
            .collect();
        let result = client.request(
            "initialize",
            json!({"capabilities": capabilities, "workspaceFolders": folders, "processId": null}),
        );
        assert!(
            result["capabilities"]["codeActionProvider"].is_object(),
            "{result}"
        );
        client.notify("initialized", json!({}));
        client
    }

    fn notify(&self, method: &str, params: serde_json::Value) {
        let notification = Notification::new(method.to_string(), params);
        self.connection.sender.send(notification.into()).unwrap();
    }

    fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let request = Request::new(id.clone(), method.to_string(), params);
        self.connection.sender.send(request.into()).unwrap();
        loop {
            match self.receive() {
                Message::Response(response) if response.id == id => {
                    assert!(response.error.is_none(), "{:?}", response.error);
                    return response.result.unwrap_or_default();
                }
                _ => continue,
            }
        }
    }

    fn receive(&self) -> Message {
        self.connection
            .receiver
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the server answers")
    }

    /// The next diagnostics published.
    fn diagnostics(&self) -> (Uri, Vec<Diagnostic>) {
        let params = self.published();
        (params.uri, params.diagnostics)
    }

    fn published(&self) -> PublishDiagnosticsParams {
        loop {
            if let Message::Notification(n) = self.receive()
                && n.method == PublishDiagnostics::METHOD
            {
                return serde_json::from_value(n.params).unwrap();
            }
        }
    }

    /// The diagnostics published next for `uri`.
    fn diagnostics_of(&self, uri: &Uri) -> PublishDiagnosticsParams {
        loop {
            let params = self.published();
            if params.uri == *uri {
                return params;
            }
        }
    }

    fn open(&self, uri: &Uri, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        );
    }

    fn change(&self, uri: &Uri, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
        );
    }

    /// A request about a place in a document.
    fn ask(&mut self, method: &str, uri: &Uri, line: u32, character: u32) -> serde_json::Value {
        self.request(
            method,
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
    }

    fn stop(mut self) {
        self.request("shutdown", serde_json::Value::Null);
        self.notify("exit", serde_json::Value::Null);
        let ended = self.server.take().unwrap().join().unwrap();
        assert_eq!(ended.ok(), Some(Ending::ShutDown));
    }
}

#[test]
fn an_open_document_gets_its_diagnostics_and_quick_fixes_and_loses_them_when_fixed() {
    let dir = scratch("fixes");
    let path = dir.join("trigger-template.yaml");
    std::fs::write(&path, "kind: TriggerTemplate\n").unwrap();
    let uri = convert::uri_of(&path).unwrap();
    let mut client = Client::start(&dir);

    // The unsaved buffer is linted, not the file on disk.
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": TEMPLATE}}),
    );
    let (published, diagnostics) = client.diagnostics();
    assert_eq!(published, uri);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let diagnostic = &diagnostics[0];
    assert_eq!(
        diagnostic.code,
        Some(NumberOrString::String("tekton/trigger-legacy-param".into()))
    );
    assert_eq!(diagnostic.range.start, Position::new(19, 19));
    assert!(
        diagnostic
            .code_description
            .as_ref()
            .unwrap()
            .href
            .as_str()
            .ends_with("tekton/trigger-legacy-param.md")
    );

    let params = CodeActionParams {
        text_document: TextDocumentIdentifier::new(uri.clone()),
        range: Range::new(Position::new(19, 20), Position::new(19, 20)),
        context: CodeActionContext::default(),
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    let actions = client.request(
        "textDocument/codeAction",
        serde_json::to_value(&params).unwrap(),
    );
    let actions = actions.as_array().unwrap();
    assert_eq!(
        actions.len(),
        3,
        "a quick fix, a suppression and fix-all: {actions:#?}"
    );
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(actions[0]["title"], "write $(tt.params.revision)");
    let edit = &actions[0]["edit"]["changes"][uri.as_str()][0];
    assert_eq!(edit["newText"], "$(tt.params.revision)");
    assert_eq!(edit["range"]["start"], json!({"line": 19, "character": 19}));
    assert_eq!(edit["range"]["end"], json!({"line": 19, "character": 37}));
    assert_eq!(
        actions[1]["title"],
        "Suppress tekton/trigger-legacy-param on this line"
    );
    let edit = &actions[1]["edit"]["changes"][uri.as_str()][0];
    assert_eq!(
        edit["newText"],
        "            # confvet: ignore[tekton/trigger-legacy-param] TODO: say why\n"
    );
    assert_eq!(edit["range"]["start"], json!({"line": 19, "character": 0}));
    assert_eq!(actions[2]["kind"], FIX_ALL);

    // The fixed buffer: its diagnostics are cleared.
    let fixed = TEMPLATE.replace("$(params.revision)", "$(tt.params.revision)");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    let (_, diagnostics) = client.diagnostics();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "kind: TriggerTemplate\n",
        "the server writes nothing"
    );
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rule code of each published diagnostic, in order.
fn codes(published: &PublishDiagnosticsParams) -> Vec<Option<NumberOrString>> {
    published
        .diagnostics
        .iter()
        .map(|d| d.code.clone())
        .collect()
}

/// A fresh folder of this test's own, with its path as the server sees it.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("confvet-server-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> Uri {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    convert::uri_of(&path).unwrap()
}

const SCHEMA: &str = "#@data/values-schema\n---\n#@schema/validation min=1, max=10\nreplicas: 2\n";
const VALUES: &str = "#@data/values\n---\nreplicas: 3\n";

#[test]
fn editing_a_schema_updates_the_open_values_files_diagnostics_before_it_is_saved() {
    let dir = scratch("schema");
    let schema = write(&dir, "pkg/schema.yml", SCHEMA);
    let values = write(&dir, "pkg/values.yml", VALUES);
    let client = Client::start(&dir);
    client.open(&values, VALUES);
    assert!(client.diagnostics_of(&values).diagnostics.is_empty());
    client.open(&schema, SCHEMA);
    assert!(client.diagnostics_of(&schema).diagnostics.is_empty());
    // The schema's unsaved buffer now allows at most 2 replicas: the values
    // file, unchanged, breaks it.
    client.change(&schema, 2, &SCHEMA.replace("max=10", "max=2"));
    let published = client.diagnostics_of(&values);
    assert_eq!(published.diagnostics.len(), 1, "{published:?}");
    let diagnostic = &published.diagnostics[0];
    assert_eq!(diagnostic.range.start, Position::new(2, 10));
    let related = diagnostic.related_information.as_ref().unwrap();
    assert_eq!(related[0].location.uri, schema, "the rule is in the schema");
    // Back as it was: the values file's diagnostic is cleared.
    client.change(&schema, 3, SCHEMA);
    assert!(client.diagnostics_of(&values).diagnostics.is_empty());
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_client_that_pulls_diagnostics_gets_them_answered_and_none_pushed() {
    let dir = scratch("pull");
    write(&dir, "pkg/schema.yml", SCHEMA);
    let values = write(&dir, "pkg/values.yml", VALUES);
    let client = Client::start_with(&[&dir], json!({"textDocument": {"diagnostic": {}}}));
    client.open(&values, "#@data/values\n---\nreplicas: 30\n");
    let request = Request::new(
        RequestId::from(99),
        "textDocument/diagnostic".into(),
        json!({"textDocument": {"uri": values}}),
    );
    client.connection.sender.send(request.into()).unwrap();
    // Every message up to the answer: none pushes diagnostics.
    let report = loop {
        match client.receive() {
            Message::Response(response) if response.id == RequestId::from(99) => {
                break response.result.unwrap();
            }
            Message::Notification(n) => {
                assert_ne!(
                    n.method,
                    PublishDiagnostics::METHOD,
                    "pushed to a pulling client"
                );
            }
            _ => {}
        }
    };
    assert_eq!(report["kind"], "full");
    let items = report["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{report}");
    assert_eq!(items[0]["code"], "ytt/validation");
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn each_workspace_folder_reads_its_own_configuration_and_a_changed_one_applies_at_once() {
    let a = scratch("folder-a");
    let b = scratch("folder-b");
    let legacy = TEMPLATE;
    let in_a = write(&a, "trigger.yaml", legacy);
    let in_b = write(&b, "trigger.yaml", legacy);
    write(
        &b,
        ".confvet.yaml",
        "rules:\n  tekton/trigger-legacy-param: off\n",
    );
    let client = Client::start_with(&[&a, &b], json!({}));
    client.open(&in_a, legacy);
    assert_eq!(client.diagnostics_of(&in_a).diagnostics.len(), 1);
    client.open(&in_b, legacy);
    assert!(
        client.diagnostics_of(&in_b).diagnostics.is_empty(),
        "off in b"
    );
    // b's configuration changes on disk: the rule reports there again.
    write(&b, ".confvet.yaml", "rules: {}\n");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": convert::uri_of(&b.join(".confvet.yaml")).unwrap(), "type": 2}]}),
    );
    loop {
        let published = client.diagnostics_of(&in_b);
        if !published.diagnostics.is_empty() {
            assert_eq!(published.diagnostics.len(), 1);
            break;
        }
    }
    client.stop();
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn a_suppression_written_by_its_code_action_hides_the_finding() {
    let dir = scratch("suppress");
    let uri = write(&dir, "trigger.yaml", TEMPLATE);
    let mut client = Client::start(&dir);
    client.open(&uri, TEMPLATE);
    assert_eq!(client.diagnostics_of(&uri).diagnostics.len(), 1);
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": {"line": 19, "character": 20}, "end": {"line": 19, "character": 20}}, "context": {"diagnostics": [], "only": ["quickfix"]}}),
    );
    let suppress = actions
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Suppress"))
        .unwrap();
    let edit = &suppress["edit"]["changes"][uri.as_str()][0];
    let line = edit["range"]["start"]["line"].as_u64().unwrap() as usize;
    let mut lines: Vec<&str> = TEMPLATE.lines().collect();
    let comment = edit["newText"].as_str().unwrap().trim_end();
    lines.insert(line, comment);
    let suppressed = lines.join("\n") + "\n";
    client.change(&uri, 2, &suppressed);
    let published = client.diagnostics_of(&uri);
    assert_eq!(published.version, Some(2));
    assert!(published.diagnostics.is_empty(), "{published:?}");
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn diagnostics_of_an_older_version_are_never_published_after_a_newer_ones() {
    let dir = scratch("versions");
    let uri = write(&dir, "trigger.yaml", TEMPLATE);
    let client = Client::start(&dir);
    client.open(&uri, TEMPLATE);
    let fixed = TEMPLATE.replace("$(params.revision)", "$(tt.params.revision)");
    for version in 2..12 {
        let text = if version % 2 == 0 { &fixed } else { TEMPLATE };
        client.change(&uri, version, text);
    }
    // Whatever was published meanwhile, versions only grow, and the last
    // is version 11 (the legacy param again) with its finding.
    let mut last = 0;
    loop {
        let published = client.diagnostics_of(&uri);
        let version = published.version.unwrap();
        assert!(version >= last, "{version} after {last}");
        last = version;
        if version == 11 {
            assert_eq!(published.diagnostics.len(), 1);
            break;
        }
    }
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

const TASK: &str = "apiVersion: tekton.dev/v1
kind: Task
metadata:
  name: build
spec:
  params:
    - name: revision
      type: string
      description: the commit to build
  steps:
    - name: build
      image: alpine
      script: echo $(params.revision) $(params.
";

#[test]
fn hover_definition_and_completion_answer_from_the_documents_navigators() {
    let dir = scratch("navigate");
    let uri = write(&dir, "task.yaml", TASK);
    let mut client = Client::start(&dir);
    client.open(&uri, TASK);
    client.diagnostics_of(&uri);
    // `revision` in `$(params.revision)`, line 12.
    let column = TASK.lines().nth(12).unwrap().find("revision").unwrap() as u32;
    let hover = client.ask("textDocument/hover", &uri, 12, column + 2);
    let markdown = hover["contents"]["value"].as_str().unwrap();
    assert!(markdown.contains("the commit to build"), "{markdown}");
    assert_eq!(hover["range"]["start"]["line"], 12);
    let definition = client.ask("textDocument/definition", &uri, 12, column + 2);
    assert_eq!(definition["uri"], uri.as_str());
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 6, "character": 12}, "end": {"line": 6, "character": 20}})
    );
    // After the last `$(params.`: the one param, replacing nothing.
    let end = TASK.lines().nth(12).unwrap().len() as u32;
    let completion = client.ask("textDocument/completion", &uri, 12, end);
    let items = completion.as_array().unwrap();
    assert_eq!(items.len(), 1, "{completion}");
    assert_eq!(items[0]["label"], "revision");
    assert_eq!(items[0]["textEdit"]["newText"], "revision");
    // Nothing is answered on a place that names nothing.
    assert!(client.ask("textDocument/hover", &uri, 0, 2).is_null());
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cancelled_check_stops_its_ytt_evaluation() {
    let dir = scratch("cancel");
    // Some 300,000 statements: seconds in a debug build, unless stopped.
    let template = "#@ def slow():\n#@   n = 0\n#@   for i in range(300000):\n#@     n += i\n#@   end\n#@   return n\n#@ end\ntotal: #@ slow()\n";
    let uri = write(&dir, "pkg/template.yml", template);
    let path = dir.join("pkg/template.yml");
    let job = |cancelled: bool| worker::Job {
        uri: uri.clone(),
        version: 1,
        path: path.clone(),
        text: template.into(),
        root: dir.clone(),
        memo: Arc::default(),
        cancel: Arc::new(AtomicBool::new(cancelled)),
        files: Default::default(),
    };
    let messages = |done: &worker::Done| -> Vec<String> {
        done.findings
            .values()
            .flatten()
            .map(|f| f.message.clone())
            .collect()
    };
    let cancelled = worker::check(&job(true), &mut HashMap::new());
    let said = messages(&cancelled);
    assert!(said.iter().any(|m| m.contains("cancelled")), "{said:?}");
    let finished = worker::check(&job(false), &mut HashMap::new());
    assert!(messages(&finished).is_empty(), "{:?}", messages(&finished));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ytt_data_value_is_hovered_followed_to_its_schema_and_completed() {
    let dir = scratch("navigate-ytt");
    let schema = "#@data/values-schema\n---\n#@schema/desc \"How many pods run\"\nreplicas: 2\n";
    let values = "#@data/values\n---\nreplicas: 3\n";
    let template =
        "#@ load(\"@ytt:data\", \"data\")\n---\nspec:\n  replicas: #@ data.values.replicas\n";
    write(&dir, "pkg/schema.yml", schema);
    write(&dir, "pkg/values.yml", values);
    let uri = write(&dir, "pkg/template.yml", template);
    let mut client = Client::start(&dir);
    client.open(&uri, template);
    assert!(client.diagnostics_of(&uri).diagnostics.is_empty());
    // The `replicas` of `data.values.replicas`, not the key.
    let column = template.lines().nth(3).unwrap().rfind("replicas").unwrap() as u32;
    let hover = client.ask("textDocument/hover", &uri, 3, column + 2);
    let markdown = hover["contents"]["value"].as_str().unwrap();
    assert!(markdown.contains("How many pods run"), "{markdown}");
    assert!(markdown.contains("int"), "{markdown}");
    assert!(
        markdown.contains("values.yml:3"),
        "the final value's origin: {markdown}"
    );
    let definition = client.ask("textDocument/definition", &uri, 3, column + 2);
    let schema_uri = convert::uri_of(&dir.join("pkg/schema.yml")).unwrap();
    assert_eq!(definition["uri"], schema_uri.as_str());
    assert_eq!(
        definition["range"]["start"],
        json!({"line": 3, "character": 0})
    );
    // Typing a new line: the unfinished `data.values.` does not parse as
    // Starlark yet, and is completed all the same.
    let typing = format!("{template}  other: #@ data.values.\n");
    client.change(&uri, 2, &typing);
    let end = typing.lines().nth(4).unwrap().len() as u32;
    let completion = client.ask("textDocument/completion", &uri, 4, end);
    let labels: Vec<&str> = completion
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["replicas"]);
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_vms_template_label_leads_to_the_kubevirt_template() {
    let dir = scratch("navigate-kubevirt");
    let template = "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: fedora-small\n  annotations:\n    validations: |\n      [{\"name\": \"EnoughMemory\", \"path\": \"jsonpath::.spec.domain.resources.requests.memory\", \"message\": \"Memory size not within range\", \"rule\": \"integer\", \"min\": 67108864}]\nobjects: []\n";
    let vm = "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm1\n  labels:\n    vm.kubevirt.io/template: fedora-small\n    vm.kubevirt.io/template.namespace: default\nspec:\n  template:\n    spec: {}\n";
    let template_uri = write(&dir, "templates/fedora.yaml", template);
    let uri = write(&dir, "vms/vm.yaml", vm);
    let mut client = Client::start(&dir);
    client.open(&uri, vm);
    client.diagnostics_of(&uri);
    let column = vm.lines().nth(5).unwrap().find("fedora-small").unwrap() as u32;
    let definition = client.ask("textDocument/definition", &uri, 5, column + 1);
    assert_eq!(definition["uri"], template_uri.as_str());
    assert_eq!(
        definition["range"]["start"],
        json!({"line": 3, "character": 8})
    );
    let hover = client.ask("textDocument/hover", &uri, 5, column + 1);
    let markdown = hover["contents"]["value"].as_str().unwrap();
    assert!(markdown.contains("EnoughMemory"), "{markdown}");
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_created_after_the_first_check_is_checked_with_the_files_it_names() {
    let dir = scratch("new-file");
    let task = write(&dir, "task.yaml", TASK);
    let client = Client::start(&dir);
    client.open(&task, TASK);
    client.diagnostics_of(&task);
    // The folder's units are known now; a Pipeline appears that runs the
    // Task without its param, and a YAML file no system reads.
    let pipeline_text = "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: release\nspec:\n  tasks:\n    - name: build\n      taskRef:\n        name: build\n";
    let pipeline = write(&dir, "pipeline.yaml", pipeline_text);
    client.open(&pipeline, pipeline_text);
    let published = client.diagnostics_of(&pipeline);
    let codes = codes(&published);
    assert_eq!(
        codes,
        [Some(NumberOrString::String("tekton/missing-param".into()))],
        "the Task's file was checked with it"
    );
    let other = write(&dir, "workflow.yaml", "on: push\njobs: {}\n");
    client.open(&other, "on: push\njobs: {}\n");
    assert!(client.diagnostics_of(&other).diagnostics.is_empty());
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_task_in_an_excluded_folder_is_no_definition() {
    let dir = scratch("navigate-excluded");
    write(&dir, ".confvet.yaml", "exclude:\n  - vendor/\n");
    let task = "apiVersion: tekton.dev/v1\nkind: Task\nmetadata:\n  name: build\nspec:\n  steps:\n    - name: build\n      image: alpine\n";
    let kept = write(&dir, "tasks/build.yaml", task);
    write(&dir, "vendor/build.yaml", task);
    let pipeline_text = "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: release\nspec:\n  tasks:\n    - name: build\n      taskRef:\n        name: build\n";
    let pipeline = write(&dir, "pipeline.yaml", pipeline_text);
    let mut client = Client::start(&dir);
    client.open(&pipeline, pipeline_text);
    client.diagnostics_of(&pipeline);
    // `build` of `name: build` under taskRef, line 8.
    let definition = client.ask("textDocument/definition", &pipeline, 8, 15);
    assert_eq!(definition["uri"], kept.as_str(), "{definition}");
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn closing_an_unsaved_schema_rechecks_the_values_files_of_its_package() {
    let dir = scratch("close");
    let schema = write(&dir, "pkg/schema.yml", SCHEMA);
    let values = write(&dir, "pkg/values/values.yml", VALUES);
    let client = Client::start(&dir);
    client.open(&values, VALUES);
    assert!(client.diagnostics_of(&values).diagnostics.is_empty());
    client.open(&schema, SCHEMA);
    client.change(&schema, 2, &SCHEMA.replace("max=10", "max=2"));
    assert_eq!(client.diagnostics_of(&values).diagnostics.len(), 1);
    // Closed unsaved: the values file, in another folder of the package,
    // is checked against the schema on disk again.
    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": schema}}),
    );
    assert!(client.diagnostics_of(&values).diagnostics.is_empty());
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The server's end of a memory connection, serving on a thread, and the
/// client's end.
fn serving() -> (
    Connection,
    std::thread::JoinHandle<Result<Ending, super::ServerError>>,
) {
    let (server, client) = Connection::memory();
    (client, std::thread::spawn(move || serve(&server)))
}

fn error_code(connection: &Connection) -> Option<i32> {
    match connection
        .receiver
        .recv_timeout(std::time::Duration::from_secs(60))
    {
        Ok(Message::Response(response)) => response.error.map(|e| e.code),
        other => panic!("not a response: {other:?}"),
    }
}

#[test]
fn exit_without_shutdown_ends_the_session_with_status_1() {
    let dir = scratch("exit");
    let mut client = Client::start(&dir);
    client.notify("exit", serde_json::Value::Null);
    let ended = client.server.take().unwrap().join().unwrap();
    assert_eq!(ended.ok(), Some(Ending::ExitWithoutShutdown));
    assert_eq!(Ending::ExitWithoutShutdown.status(), 1);
    assert_eq!(Ending::ShutDown.status(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn before_initialize_requests_are_refused_and_exit_ends_the_session_with_status_1() {
    let (client, server) = serving();
    let hover = Request::new(RequestId::from(1), "textDocument/hover".into(), json!({}));
    client.sender.send(hover.into()).unwrap();
    assert_eq!(
        error_code(&client),
        Some(ErrorCode::ServerNotInitialized as i32)
    );
    // Initialize params that do not parse: refused, and it may be tried
    // again.
    let broken = Request::new(
        RequestId::from(2),
        "initialize".into(),
        json!({"capabilities": 5}),
    );
    client.sender.send(broken.into()).unwrap();
    assert_eq!(error_code(&client), Some(ErrorCode::InvalidParams as i32));
    let exit = Notification::new("exit".into(), serde_json::Value::Null);
    client.sender.send(exit.into()).unwrap();
    assert_eq!(
        server.join().unwrap().ok(),
        Some(Ending::ExitWithoutShutdown)
    );
}

#[test]
fn after_shutdown_requests_are_refused_and_the_end_of_input_is_a_clean_end() {
    let dir = scratch("shutdown");
    let mut client = Client::start(&dir);
    assert_eq!(
        client.request("shutdown", serde_json::Value::Null),
        serde_json::Value::Null
    );
    let hover = Request::new(RequestId::from(99), "textDocument/hover".into(), json!({}));
    client.connection.sender.send(hover.into()).unwrap();
    assert_eq!(
        error_code(&client.connection),
        Some(ErrorCode::InvalidRequest as i32)
    );
    let server = client.server.take().unwrap();
    drop(client);
    assert_eq!(server.join().unwrap().ok(), Some(Ending::ShutDown));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_end_of_input_before_shutdown_ends_the_session_with_status_1() {
    let (client, server) = serving();
    drop(client);
    assert_eq!(server.join().unwrap().ok(), Some(Ending::InputClosed));
    let dir = scratch("input-closed");
    let mut client = Client::start(&dir);
    let server = client.server.take().unwrap();
    drop(client);
    assert_eq!(server.join().unwrap().ok(), Some(Ending::InputClosed));
    assert_eq!(Ending::InputClosed.status(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_invalid_configuration_is_said_and_shown_on_its_file_then_cleared_when_fixed() {
    let dir = scratch("invalid-config");
    let legacy = TEMPLATE;
    let trigger = write(&dir, "trigger.yaml", legacy);
    let config = write(
        &dir,
        ".confvet.yaml",
        "rules:\n  tekton/no-such-rule: off\n",
    );
    let client = Client::start(&dir);
    client.open(&trigger, legacy);
    // Said once as a message, and the configuration's own findings are
    // published on it though it is not open.
    let mut message = None;
    let mut on_config = None;
    while message.is_none() || on_config.is_none() {
        match client.receive() {
            Message::Notification(n) if n.method == "window/showMessage" => {
                message = Some(n.params["message"].as_str().unwrap_or_default().to_string());
            }
            Message::Notification(n) if n.method == PublishDiagnostics::METHOD => {
                let params: PublishDiagnosticsParams = serde_json::from_value(n.params).unwrap();
                if params.uri == config {
                    on_config = Some(params.diagnostics);
                }
            }
            _ => {}
        }
    }
    let message = message.unwrap();
    assert!(message.contains(".confvet.yaml has 1 error"), "{message}");
    assert!(
        message.contains("no file is checked until it is fixed"),
        "{message}"
    );
    let on_config = on_config.unwrap();
    assert_eq!(on_config.len(), 1, "{on_config:?}");
    // Fixed on disk: the configuration's diagnostics go, the file's come.
    write(&dir, ".confvet.yaml", "rules: {}\n");
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": config.clone(), "type": 2}]}),
    );
    let (mut cleared, mut checked) = (false, false);
    while !(cleared && checked) {
        let params = client.published();
        if params.uri == config {
            cleared |= params.diagnostics.is_empty();
        } else if params.uri == trigger {
            checked |= params.diagnostics.len() == 1;
        }
    }
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_new_unsaved_values_file_is_checked_with_its_package() {
    let dir = scratch("new-values");
    write(
        &dir,
        "pkg/schema.yml",
        "#@data/values-schema\n---\nreplicas: 1\n",
    );
    write(
        &dir,
        "pkg/deployment.yml",
        "#@ load(\"@ytt:data\", \"data\")\n---\nreplicas: #@ data.values.replicas\n",
    );
    let client = Client::start(&dir);
    // Created in the editor, never saved: not on disk.
    let path = dir.join("pkg/values.yml");
    let uri = convert::uri_of(&path).unwrap();
    let text = "#@data/values\n---\nreplicas: many\n";
    client.open(&uri, text);
    let published = client.diagnostics_of(&uri);
    let codes = codes(&published);
    assert_eq!(
        codes,
        [Some(NumberOrString::String("ytt/type-mismatch".into()))],
        "{:?}",
        published.diagnostics
    );
    assert_eq!(published.diagnostics[0].range.start.line, 2);
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

const WIDGET_CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: string
                enum: [small, large]
";

const WIDGET_TEMPLATE: &str = "#@ load(\"@ytt:data\", \"data\")
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: first
spec:
  size: #@ data.values.size
  colour: blue
";

#[test]
fn what_a_package_renders_is_checked_against_a_crd_elsewhere_in_the_folder() {
    let dir = scratch("crd-elsewhere");
    // The CRD is in a folder of its own, outside the package: `confvet
    // lint DIR` checks the package's output against it, and so does the
    // server, which checks the package alone.
    let crd = write(&dir, "crds/widgets.yaml", WIDGET_CRD);
    write(
        &dir,
        "package/values.yml",
        "#@data/values-schema\n---\nsize: huge\n",
    );
    let template = write(&dir, "package/widget.yml", WIDGET_TEMPLATE);
    let client = Client::start(&dir);
    client.open(&template, WIDGET_TEMPLATE);
    let published = client.diagnostics_of(&template);
    let string = |code: &str| Some(NumberOrString::String(code.into()));
    assert_eq!(
        codes(&published),
        [
            string("kubernetes/enum"),
            string("kubernetes/unknown-field")
        ],
        "{:?}",
        published.diagnostics
    );
    // The CRD's unsaved buffer stands in for its file: `huge` is allowed,
    // and the group, renamed, no longer defines the package's Widget.
    client.open(&crd, &WIDGET_CRD.replace("[small, large]", "[small, huge]"));
    client.diagnostics_of(&crd);
    client.change(&template, 2, &format!("{WIDGET_TEMPLATE}#! edited\n"));
    let published = client.diagnostics_of(&template);
    assert_eq!(
        codes(&published),
        [string("kubernetes/unknown-field")],
        "{:?}",
        published.diagnostics
    );
    client.change(
        &crd,
        2,
        &WIDGET_CRD.replace("group: example.com", "group: example.org"),
    );
    client.diagnostics_of(&crd);
    client.change(&template, 3, WIDGET_TEMPLATE);
    let published = client.diagnostics_of(&template);
    assert!(
        published.diagnostics.is_empty(),
        "{:?}",
        published.diagnostics
    );
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_opened_files_unit_is_published_before_the_folder_is_indexed_whole() {
    let dir = scratch("unit-first");
    write(&dir, "pkg/schema.yml", SCHEMA);
    let values = write(&dir, "pkg/values.yml", VALUES);
    write(&dir, "tasks/task.yaml", TASK);
    let pipeline_text = "apiVersion: tekton.dev/v1\nkind: Pipeline\nmetadata:\n  name: release\nspec:\n  tasks:\n    - name: build\n      taskRef:\n        name: build\n";
    let pipeline = write(&dir, "pipelines/pipeline.yaml", pipeline_text);
    let client = Client::start(&dir);
    let broken = "#@data/values\n---\nreplicas: 30\n";
    client.open(&values, broken);
    // In the order the server sent them: the values file's diagnostics,
    // then the word that the folder is indexed whole (the Tekton files'
    // links, which the package does not need, read after).
    let mut order = Vec::new();
    loop {
        match client.receive() {
            Message::Notification(n) if n.method == PublishDiagnostics::METHOD => {
                let params: PublishDiagnosticsParams = serde_json::from_value(n.params).unwrap();
                if params.uri == values {
                    assert_eq!(params.diagnostics.len(), 1, "{params:?}");
                    order.push("diagnostics");
                }
            }
            Message::Notification(n) if n.method == "window/logMessage" => {
                let message = n.params["message"].as_str().unwrap_or_default();
                if message.contains("indexed") {
                    assert!(
                        message.contains("4 files of a system, 1 ytt package"),
                        "{message}"
                    );
                    order.push("indexed");
                    break;
                }
            }
            _ => {}
        }
    }
    assert_eq!(order, ["diagnostics", "indexed"]);
    // The Tekton files' links, read after, group the Pipeline with its
    // Task.
    client.open(&pipeline, pipeline_text);
    let published = client.diagnostics_of(&pipeline);
    assert_eq!(
        codes(&published),
        [Some(NumberOrString::String("tekton/missing-param".into()))],
        "{:?}",
        published.diagnostics
    );
    client.stop();
    let _ = std::fs::remove_dir_all(&dir);
}
