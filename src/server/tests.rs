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
    server: Option<std::thread::JoinHandle<Result<(), String>>>,
    next_id: i32,
}

impl Client {
    fn start(root: &Path) -> Client {
        let (server, connection) = Connection::memory();
        let server = std::thread::spawn(move || serve(&server));
        let mut client = Client {
            connection,
            server: Some(server),
            next_id: 0,
        };
        let root = convert::uri_of(root).unwrap();
        let result = client.request(
            "initialize",
            json!({"capabilities": {}, "rootUri": root, "processId": null}),
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
        loop {
            if let Message::Notification(n) = self.receive()
                && n.method == PublishDiagnostics::METHOD
            {
                let params: PublishDiagnosticsParams = serde_json::from_value(n.params).unwrap();
                return (params.uri, params.diagnostics);
            }
        }
    }

    fn stop(mut self) {
        self.request("shutdown", serde_json::Value::Null);
        self.notify("exit", serde_json::Value::Null);
        let ended = self.server.take().unwrap().join().unwrap();
        assert_eq!(ended, Ok(()));
    }
}

#[test]
fn an_open_document_gets_its_diagnostics_and_quick_fixes_and_loses_them_when_fixed() {
    let dir = std::env::temp_dir().join(format!("confvet-server-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir = dir.canonicalize().unwrap();
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
