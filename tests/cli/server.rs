//! `confvet server` as an editor starts it: the language server protocol on
//! standard input and output, framed with `Content-Length` headers.

use crate::common::{BIN, TempDir};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn send(to: &mut impl Write, message: Value) {
    let body = message.to_string();
    write!(to, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
    to.flush().unwrap();
}

fn receive(from: &mut impl BufRead) -> Value {
    let mut length = 0;
    loop {
        let mut line = String::new();
        assert!(
            from.read_line(&mut line).unwrap() > 0,
            "the server closed its output"
        );
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    from.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

#[test]
fn the_server_pushes_a_values_files_findings_and_exits_when_asked() {
    let dir = TempDir::new("server");
    dir.write(
        "pkg/schema.yml",
        "#@data/values-schema\n---\n#@schema/validation min=1, max=10\nreplicas: 2\n",
    );
    let values = dir.write("pkg/values.yml", "#@data/values\n---\nreplicas: 3\n");
    let values = values.canonicalize().unwrap();
    let mut server = Command::new(BIN)
        .arg("server")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = server.stdin.take().unwrap();
    let mut output = BufReader::new(server.stdout.take().unwrap());
    let root = format!("file://{}", dir.path().canonicalize().unwrap().display());
    let uri = format!("file://{}", values.display());
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"capabilities": {}, "processId": null, "rootUri": root}}),
    );
    let initialized = receive(&mut output);
    assert_eq!(initialized["result"]["capabilities"]["textDocumentSync"], 1);
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
    // The buffer breaks the schema's rule; the file on disk does not.
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1,
            "text": "#@data/values\n---\nreplicas: 50\n"}}}),
    );
    let published = receive(&mut output);
    assert_eq!(published["method"], "textDocument/publishDiagnostics");
    let diagnostics = published["params"]["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{published:#}");
    assert_eq!(diagnostics[0]["code"], "ytt/validation");
    assert_eq!(diagnostics[0]["severity"], 1);
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({"line": 2, "character": 10})
    );
    let related = &diagnostics[0]["relatedInformation"][0];
    assert!(
        related["location"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("pkg/schema.yml"),
        "{related}"
    );
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": null}),
    );
    assert_eq!(receive(&mut output)["id"], 2);
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "exit", "params": null}),
    );
    assert!(server.wait().unwrap().success());
}
