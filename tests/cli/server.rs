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
