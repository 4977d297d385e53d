//! `confvet server` as an editor starts it: the language server protocol on
//! standard input and output, framed with `Content-Length` headers.

use crate::common::{BIN, TempDir};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

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

/// `confvet server` started in `dir`, its input and output piped.
fn start(dir: &TempDir) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut server = Command::new(BIN)
        .arg("server")
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = server.stdin.take().unwrap();
    let output = BufReader::new(server.stdout.take().unwrap());
    (server, input, output)
}

/// The `initialize` request with `dir` as the workspace folder, then the
/// `initialized` notification; the request's answer.
fn initialize_at(dir: &TempDir, input: &mut impl Write, output: &mut impl BufRead) -> Value {
    let root = format!("file://{}", dir.path().canonicalize().unwrap().display());
    send(
        input,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"capabilities": {}, "processId": null, "rootUri": root}}),
    );
    let answer = receive(output);
    send(
        input,
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
    answer
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
    let (mut server, mut input, mut output) = start(&dir);
    let uri = format!("file://{}", values.display());
    let initialized = initialize_at(&dir, &mut input, &mut output);
    assert_eq!(initialized["result"]["capabilities"]["textDocumentSync"], 1);
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
    // Notifications may come first (the log line that the folder is
    // indexed, once the first diagnostics are out).
    let answer = loop {
        let message = receive(&mut output);
        if message.get("id").is_some() {
            break message;
        }
        assert!(message["method"].is_string(), "{message:#}");
    };
    assert_eq!(answer["id"], 2);
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "exit", "params": null}),
    );
    assert!(server.wait().unwrap().success());
}

/// `confvet server` in `dir` under a 1 GiB address-space cap (a body
/// allocated at its declared size fails there at once), its input and
/// output piped.
fn start_capped(dir: &TempDir) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut server = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576; exec \"$0\" server")
        .arg(BIN)
        .current_dir(dir.path())
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = server.stdin.take().unwrap();
    let output = BufReader::new(server.stdout.take().unwrap());
    (server, input, output)
}

fn initialize(input: &mut impl Write, output: &mut impl BufRead) {
    send(
        input,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"capabilities": {}, "processId": null}}),
    );
    assert!(receive(output)["result"]["capabilities"].is_object());
    send(
        input,
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
    );
}

/// The next message is the error response `code` to the message `id`.
fn assert_refused(output: &mut impl BufRead, code: i64, id: Value) -> Value {
    let answer = receive(output);
    assert_eq!(answer["error"]["code"], code, "{answer}");
    assert_eq!(answer["id"], id, "{answer}");
    answer
}

/// The exit status of `server` once it ends by itself; its stderr must show
/// no panic.
fn exit_status(mut server: Child) -> Option<i32> {
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = server.kill();
            panic!("the server did not end");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stderr = String::new();
    let _ = std::io::Read::read_to_string(&mut server.stderr.take().unwrap(), &mut stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    status.code()
}

#[test]
fn frames_that_hold_no_message_are_answered_with_errors_and_the_server_goes_on() {
    let dir = TempDir::new("server-malformed");
    let (server, mut input, mut output) = start_capped(&dir);
    initialize(&mut input, &mut output);
    // A body that is not JSON: a parse error, id null.
    input
        .write_all(b"Content-Length: 9\r\n\r\n{not json")
        .unwrap();
    assert_refused(&mut output, -32700, Value::Null);
    // JSON that is no message: an invalid request, with its id.
    send(&mut input, json!({"jsonrpc": "2.0", "id": 5, "method": 7}));
    assert_refused(&mut output, -32600, json!(5));
    // No Content-Length: a parse error; the body runs into the next frame.
    input
        .write_all(b"Content-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"m\"}")
        .unwrap();
    assert_refused(&mut output, -32700, Value::Null);
    // A body above the limit, sent whole: refused before it is read, then
    // discarded as it comes.
    let huge = 70 * 1024 * 1024;
    write!(input, "Content-Length: {huge}\r\n\r\n").unwrap();
    input.flush().unwrap();
    let refused = assert_refused(&mut output, -32600, Value::Null);
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("67108864")),
        "{refused}"
    );
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..70 {
        input.write_all(&chunk).unwrap();
    }
    // Still serving: a request is answered.
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "id": 7, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": "file:///nowhere.yaml"}, "position": {"line": 0, "character": 0}}}),
    );
    let answer = receive(&mut output);
    assert_eq!(answer["id"], 7, "{answer}");
    assert!(answer.get("error").is_none(), "{answer}");
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "id": 8, "method": "shutdown", "params": null}),
    );
    assert_eq!(receive(&mut output)["id"], 8);
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "exit", "params": null}),
    );
    assert_eq!(exit_status(server), Some(0));
}

#[test]
fn a_content_length_of_99999999999_is_refused_without_allocating_it() {
    let dir = TempDir::new("server-huge-length");
    let (server, mut input, mut output) = start_capped(&dir);
    initialize(&mut input, &mut output);
    input
        .write_all(b"Content-Length: 99999999999\r\n\r\n{}")
        .unwrap();
    input.flush().unwrap();
    let refused = assert_refused(&mut output, -32600, Value::Null);
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("99999999999") && m.contains("67108864")),
        "{refused}"
    );
    // The rest of its declared body never comes: the input closes, which
    // ends the server as a client gone without `shutdown`.
    drop(input);
    assert_eq!(exit_status(server), Some(1));
}

#[test]
fn exit_without_shutdown_ends_the_server_with_status_1() {
    let dir = TempDir::new("server-exit");
    let exit = json!({"jsonrpc": "2.0", "method": "exit", "params": null});
    // After initialize.
    let (server, mut input, mut output) = start_capped(&dir);
    initialize(&mut input, &mut output);
    send(&mut input, exit.clone());
    assert_eq!(exit_status(server), Some(1));
    // Before it.
    let (server, mut input, _output) = start_capped(&dir);
    send(&mut input, exit);
    assert_eq!(exit_status(server), Some(1));
    // The input closed without `exit`: the same.
    let (server, mut input, mut output) = start_capped(&dir);
    initialize(&mut input, &mut output);
    drop(input);
    assert_eq!(exit_status(server), Some(1));
}

/// The server's peak resident memory so far (`VmHWM`), in kB.
fn peak_kb(server: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap()
}

/// The next message that is `method`, skipping others.
fn receive_method(output: &mut impl BufRead, method: &str, containing: &str) -> Value {
    loop {
        let message = receive(output);
        if message["method"] == method && message.to_string().contains(containing) {
            return message;
        }
    }
}

/// A big ytt document holds one parsed tree at a time: editing it right
/// after its folder is indexed does not parse it twice at once (the
/// navigators' background index parsed and evaluated it beside the edit's
/// check: a 5 MB document took the server from 190 MB to 335 MB).
#[test]
#[cfg(target_os = "linux")]
fn editing_a_big_document_as_its_folder_is_indexed_holds_one_tree() {
    let dir = TempDir::new("server-big-document");
    dir.write("pkg/values.yml", "#@data/values\n---\nbase: 1\n");
    // 300,000 YAML nodes in 1 MB: past the node limit, so no check renders
    // it and parsing is most of what a check of it does.
    let mut text = String::from("#@ load(\"@ytt:data\", \"data\")\n---\nitems:\n");
    for i in 0..30_000 {
        text.push_str(&format!("- [{i}, 1, 2, 3, 4, 5, 6, 7, 8]\n"));
    }
    let template = dir.write("pkg/big.yml", &text);
    let uri = format!("file://{}", template.canonicalize().unwrap().display());
    let (mut server, mut input, mut output) = start(&dir);
    initialize_at(&dir, &mut input, &mut output);
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": text}}}),
    );
    let published = receive_method(&mut output, "textDocument/publishDiagnostics", "");
    assert!(
        published.to_string().contains("confvet/unit-limit"),
        "{published:#}"
    );
    // The open's check and the folder's index each parsed it, one after
    // the other: the peak of one tree.
    receive_method(&mut output, "window/logMessage", "indexed");
    let one_tree = peak_kb(&server);
    text.push_str("# edited\n");
    send(
        &mut input,
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": text}]}}),
    );
    receive_method(&mut output, "textDocument/publishDiagnostics", "");
    let after_edit = peak_kb(&server);
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        after_edit * 4 < one_tree * 5,
        "peak {one_tree} kB after opening, {after_edit} kB after an edit"
    );
}
