//! The server's transport: reads the language server protocol's frames
//! (`Content-Length` headers, a blank line, a JSON body) from standard
//! input and writes its messages to standard output, on a thread each, for
//! the same `lsp_server::Connection` the message loop reads.
//!
//! It exists because lsp-server's own stdio transport stops on the first
//! frame it cannot read (a body that is not JSON ended the server) and
//! allocates a body at the size its header declares before reading it (a
//! `Content-Length` of 99999999999 aborted the process). Here a frame that
//! cannot be read is answered with a JSON-RPC error and the reader goes on
//! with the next one: a body above `MAX_CONTENT_LENGTH` is discarded as it
//! arrives, never held, and a body is held only as its bytes arrive.

use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{Connection, ErrorCode, Message, ResponseError};
use serde_json::Value;
use std::io::{self, BufRead, Write};
use std::thread::JoinHandle;

/// The largest body read (64 MiB): a frame that declares more is refused
/// and its body discarded unread. A whole workspace's worth of open
/// documents fits; an editor never sends one message this big.
pub const MAX_CONTENT_LENGTH: u64 = 64 * 1024 * 1024;

/// The longest header line kept (8 KiB): a longer one is malformed, and
/// only its last bytes are kept, where a header glued after stray bytes
/// would be.
pub const MAX_HEADER_LINE: usize = 8 * 1024;

/// The least a growing body reserves at once.
const BODY_CHUNK: usize = 8 * 1024;

/// The most of a malformed header quoted back in its error.
const QUOTED_BYTES: usize = 80;

/// Why a frame gave no message. Each is answered (`refusal`) except the
/// input's own errors and its end in the middle of a body.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// A header line that is not `Name: value`, or is too long to be one.
    #[error("malformed header {0}")]
    MalformedHeader(String),
    /// A header block without `Content-Length`: its body's length is not known.
    #[error("the header block has no Content-Length")]
    MissingLength,
    /// A `Content-Length` that is not a number of 64 bits, or two that differ.
    #[error("invalid Content-Length: {0}")]
    InvalidLength(String),
    /// A `Content-Length` above the limit: the body is discarded unread.
    #[error(
        "the message's Content-Length, {declared} bytes, is above the limit of {MAX_CONTENT_LENGTH} bytes (64 MiB): it is discarded unread"
    )]
    TooLarge { declared: u64 },
    /// The input ended before the body did.
    #[error("the input ended {received} bytes into a body of {declared}")]
    Truncated { declared: u64, received: u64 },
    /// The body is not JSON (or not UTF-8).
    #[error("the body is not JSON: {0}")]
    NotJson(String),
    /// The body is JSON but no request, response or notification; `id` is
    /// the message's own id when it has one that can be read, else null.
    #[error("not a JSON-RPC message: {reason}")]
    NotAMessage { id: Value, reason: String },
    /// Reading the input failed: the reader stops.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl FrameError {
    /// The error response the client is sent, if any: parse errors
    /// (-32700) for what is not a frame of JSON, invalid request (-32600)
    /// for a frame too large or JSON that is no message.
    pub fn refusal(&self) -> Option<Refusal> {
        let code = match self {
            FrameError::Io(_) | FrameError::Truncated { .. } => return None,
            FrameError::TooLarge { .. } | FrameError::NotAMessage { .. } => {
                ErrorCode::InvalidRequest
            }
            FrameError::MalformedHeader(_)
            | FrameError::MissingLength
            | FrameError::InvalidLength(_)
            | FrameError::NotJson(_) => ErrorCode::ParseError,
        };
        let id = match self {
            FrameError::NotAMessage { id, .. } => id.clone(),
            _ => Value::Null,
        };
        Some(Refusal {
            id,
            error: ResponseError {
                code: code as i32,
                message: self.to_string(),
                data: None,
            },
        })
    }
}

/// A JSON-RPC error response to a frame that gave no message. Its id may be
/// null, which `lsp_server::Response` cannot say.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub id: Value,
    pub error: ResponseError,
}

impl Refusal {
    /// Write it framed, as `lsp_server::Message::write` writes a message.
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": self.id, "error": self.error});
        let body = body.to_string();
        write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        out.flush()
    }
}

/// One line of input, its line ending included.
struct Line {
    bytes: Vec<u8>,
    /// It was longer than `MAX_HEADER_LINE`: `bytes` are its end.
    overlong: bool,
}

/// A header line read.
enum Header {
    Length(u64),
    /// A `Content-Length` whose value is no length.
    BadLength(String),
    /// Any other header (`Content-Type` included): ignored.
    Other,
}

/// Reads messages from framed input, one frame at a time, and goes on
/// after a frame it cannot read.
pub struct MessageReader<R> {
    input: R,
    /// Bytes of a refused frame's body still to discard.
    skipping: u64,
    /// A frame whose body's length is unknown, or a stray line, was
    /// refused: until a header comes, lines are taken as its body (or more
    /// of the same) and skipped unanswered.
    resyncing: bool,
    /// A header found glued after stray bytes, to read as the next line.
    carried: Option<Vec<u8>>,
}

impl<R: BufRead> MessageReader<R> {
    pub fn new(input: R) -> Self {
        MessageReader {
            input,
            skipping: 0,
            resyncing: false,
            carried: None,
        }
    }

    /// The next message; None at the end of input. An error is one frame
    /// (or one stray line) refused: the next call reads on after it, except
    /// after `FrameError::Io`.
    pub fn read_message(&mut self) -> Result<Option<Message>, FrameError> {
        if !self.discard_skipped()? {
            return Ok(None);
        }
        let Some(length) = self.read_header_block()? else {
            return Ok(None);
        };
        if length > MAX_CONTENT_LENGTH {
            self.skipping = length;
            return Err(FrameError::TooLarge { declared: length });
        }
        let body = self.read_body(length)?;
        message_of(&body).map(Some)
    }

    /// The buffered input, filled if empty; empty at the end of input.
    fn fill(&mut self) -> io::Result<&[u8]> {
        loop {
            match self.input.fill_buf() {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
        self.input.fill_buf()
    }

    /// Discard what is left of a refused body, in the input's own buffer's
    /// chunks; false when the input ends first.
    fn discard_skipped(&mut self) -> io::Result<bool> {
        while self.skipping > 0 {
            let available = self.fill()?.len() as u64;
            if available == 0 {
                self.skipping = 0;
                return Ok(false);
            }
            let n = available.min(self.skipping);
            // n <= available, a buffer's length.
            self.input.consume(n as usize);
            self.skipping -= n;
        }
        Ok(true)
    }

    /// The next line, at most `MAX_HEADER_LINE` bytes of it kept; None at
    /// the end of input.
    fn read_line(&mut self) -> io::Result<Option<Line>> {
        let mut bytes = Vec::new();
        let mut overlong = false;
        loop {
            let available = self.fill()?;
            if available.is_empty() {
                return Ok((!bytes.is_empty() || overlong).then_some(Line { bytes, overlong }));
            }
            let end = available.iter().position(|&b| b == b'\n');
            let taken = end.map_or(available.len(), |at| at + 1);
            // Only a line's last bytes are kept, whatever the size of the
            // input's buffer.
            let chunk = &available[..taken];
            let skipped = chunk.len().saturating_sub(MAX_HEADER_LINE);
            if skipped > 0 {
                bytes.clear();
                overlong = true;
            }
            bytes.extend_from_slice(&chunk[skipped..]);
            self.input.consume(taken);
            // Trimmed once it is twice the limit, so that trimming costs
            // little per byte read.
            if bytes.len() > 2 * MAX_HEADER_LINE || (end.is_some() && bytes.len() > MAX_HEADER_LINE)
            {
                bytes.drain(..bytes.len() - MAX_HEADER_LINE);
                overlong = true;
            }
            if end.is_some() {
                return Ok(Some(Line { bytes, overlong }));
            }
        }
    }

    /// Read a header block up to its blank line: the body's length, None
    /// at the end of input, or the block refused.
    fn read_header_block(&mut self) -> Result<Option<u64>, FrameError> {
        let mut length: Option<u64> = None;
        let mut problem: Option<FrameError> = None;
        let mut started = false;
        loop {
            let line = match self.carried.take() {
                Some(bytes) => Line {
                    bytes,
                    overlong: false,
                },
                None => match self.read_line()? {
                    Some(line) => line,
                    None => return Ok(None),
                },
            };
            let text = without_line_end(&line.bytes);
            if text.is_empty() && !line.overlong {
                if started {
                    break;
                }
                // Blank lines between frames.
                continue;
            }
            let header = if line.overlong {
                None
            } else {
                parse_header(text)
            };
            match header {
                Some(header) => {
                    started = true;
                    self.resyncing = false;
                    match header {
                        Header::Length(n) => match length {
                            Some(before) if before != n => {
                                problem.get_or_insert(FrameError::InvalidLength(format!(
                                    "two headers say {before} and {n}"
                                )));
                            }
                            _ => length = Some(n),
                        },
                        Header::BadLength(value) => {
                            problem.get_or_insert(FrameError::InvalidLength(value));
                        }
                        Header::Other => {}
                    }
                }
                None => {
                    let error = malformed(text, line.overlong);
                    if let Some(at) = glued_header(text) {
                        // A frame's header after stray bytes on one line
                        // (most often the body of a frame refused for its
                        // length, which ends with no line break): the next
                        // block starts there.
                        self.carried = Some(text[at..].to_vec());
                        if started {
                            return Err(problem.unwrap_or(error));
                        }
                        if self.resyncing {
                            continue;
                        }
                        return Err(error);
                    }
                    if !started {
                        if self.resyncing {
                            continue;
                        }
                        // A stray line before any header is refused on its
                        // own (a frame may follow it), and the lines after
                        // it with it: a run of them is answered once.
                        self.resyncing = true;
                        return Err(error);
                    }
                    problem.get_or_insert(error);
                }
            }
        }
        match (problem, length) {
            (None, Some(length)) => Ok(Some(length)),
            (Some(problem), Some(length)) => {
                // Its length is known: the stream stays in step.
                self.skipping = length;
                Err(problem)
            }
            (problem, None) => {
                self.resyncing = true;
                Err(problem.unwrap_or(FrameError::MissingLength))
            }
        }
    }

    /// A body of `length` bytes (at most `MAX_CONTENT_LENGTH`), held as its
    /// bytes arrive: a length declared and never sent is never allocated.
    fn read_body(&mut self, length: u64) -> Result<Vec<u8>, FrameError> {
        let Ok(wanted) = usize::try_from(length) else {
            return Err(FrameError::TooLarge { declared: length });
        };
        let mut body: Vec<u8> = Vec::new();
        while body.len() < wanted {
            let available = self.fill()?;
            if available.is_empty() {
                return Err(FrameError::Truncated {
                    declared: length,
                    received: body.len() as u64,
                });
            }
            let n = available.len().min(wanted - body.len());
            if body.len() + n > body.capacity() {
                let grown = (body.len() + n)
                    .max(body.capacity().saturating_mul(2))
                    .max(BODY_CHUNK)
                    .min(wanted);
                body.reserve_exact(grown - body.len());
            }
            body.extend_from_slice(&available[..n]);
            self.input.consume(n);
        }
        Ok(body)
    }
}

/// A line without its `\n` or `\r\n`.
fn without_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `Name: value`, the name an HTTP token; None when the line is not one.
fn parse_header(line: &[u8]) -> Option<Header> {
    let colon = line.iter().position(|&b| b == b':')?;
    let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
    if name.is_empty() || !name.iter().all(|&b| is_token_byte(b)) {
        return None;
    }
    if !name.eq_ignore_ascii_case(b"content-length") {
        return Some(Header::Other);
    }
    let length = std::str::from_utf8(value)
        .ok()
        .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|v| v.parse::<u64>().ok());
    Some(match length {
        Some(n) => Header::Length(n),
        None => Header::BadLength(quoted(value)),
    })
}

/// A byte of an HTTP token (RFC 9110's `tchar`).
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Where a valid `Content-Length` header ends the line, if one does.
fn glued_header(line: &[u8]) -> Option<usize> {
    const NAME: &[u8] = b"content-length:";
    let at = line
        .windows(NAME.len())
        .rposition(|w| w.eq_ignore_ascii_case(NAME))?;
    matches!(parse_header(&line[at..]), Some(Header::Length(_))).then_some(at)
}

fn malformed(line: &[u8], overlong: bool) -> FrameError {
    FrameError::MalformedHeader(if overlong {
        format!("line longer than {MAX_HEADER_LINE} bytes")
    } else {
        quoted(line)
    })
}

/// The start of `bytes`, quoted for an error message.
fn quoted(bytes: &[u8]) -> String {
    let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(QUOTED_BYTES)]);
    let more = if bytes.len() > QUOTED_BYTES {
        "…"
    } else {
        ""
    };
    format!("{shown:?}{more}")
}

/// The message a body holds. Checked against JSON-RPC before it is taken
/// as lsp-server's `Message`, whose untagged variants would take `{"id": 1}`
/// or `{"id": 1, "method": 5}` for a response.
fn message_of(body: &[u8]) -> Result<Message, FrameError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| FrameError::NotJson(e.to_string()))?;
    let id = match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    let invalid = |reason: &str| FrameError::NotAMessage {
        id: id.clone(),
        reason: reason.to_string(),
    };
    let Value::Object(fields) = &value else {
        return Err(invalid(if value.is_array() {
            "an array (a batch), which the language server protocol does not use"
        } else {
            "not an object"
        }));
    };
    let is_request = match fields.get("method") {
        Some(Value::String(_)) => fields.get("id").is_some_and(|id| !id.is_null()),
        Some(_) => return Err(invalid("its method is not a string")),
        None if fields.contains_key("result") || fields.contains_key("error") => false,
        None => return Err(invalid("it has no method, result or error")),
    };
    if fields
        .get("id")
        .is_some_and(|id| !matches!(id, Value::String(_) | Value::Number(_) | Value::Null))
    {
        return Err(invalid("its id is neither a number nor a string"));
    }
    match serde_json::from_value::<Message>(value) {
        Ok(message @ Message::Request(_)) => Ok(message),
        // A request's id that lsp-server cannot hold (a fraction, or past
        // 32 bits) would make it a notification, never answered.
        Ok(_) if is_request => Err(invalid(
            "its id is neither a string nor an integer of 32 bits",
        )),
        Ok(message) => Ok(message),
        Err(e) => Err(invalid(&e.to_string())),
    }
}

/// The transport's threads.
pub struct IoThreads {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Wait for both threads: the reader ends at the end of input or after
    /// `exit`, the writer once the connection is dropped.
    pub fn join(self) -> io::Result<()> {
        let reader = self
            .reader
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the message reader panicked")));
        let writer = self
            .writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the message writer panicked")));
        reader.and(writer)
    }
}

/// A connection over standard input and output.
pub fn stdio() -> io::Result<(Connection, IoThreads)> {
    connect(io::BufReader::new(io::stdin()), io::stdout())
}

/// A connection reading frames from `input` and writing them to `output`,
/// each on a thread of its own. Frames that give no message are answered
/// by the writer with their `Refusal`.
pub fn connect(
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> io::Result<(Connection, IoThreads)> {
    // Rendezvous channels, as lsp-server's: the reader reads no further
    // than the loop and the writer can take, whatever the client sends.
    let (to_loop, from_reader) = crossbeam_channel::bounded::<Message>(0);
    let (to_writer, from_loop) = crossbeam_channel::bounded::<Message>(0);
    let (refused, refusals) = crossbeam_channel::bounded::<Refusal>(0);
    let writer = std::thread::Builder::new()
        .name("confvet-lsp-writer".into())
        .spawn(move || write_messages(output, &from_loop, refusals))?;
    let reader = std::thread::Builder::new()
        .name("confvet-lsp-reader".into())
        .spawn(move || read_messages(input, &to_loop, &refused))?;
    let connection = Connection {
        sender: to_writer,
        receiver: from_reader,
    };
    Ok((connection, IoThreads { reader, writer }))
}

/// The reader thread: each message to the loop, each refused frame's
/// answer to the writer, until the end of input or `exit`.
fn read_messages(
    input: impl BufRead,
    to_loop: &Sender<Message>,
    refused: &Sender<Refusal>,
) -> io::Result<()> {
    let mut reader = MessageReader::new(input);
    loop {
        match reader.read_message() {
            Ok(Some(message)) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                // The loop is gone: nothing reads what follows.
                if to_loop.send(message).is_err() || exit {
                    return Ok(());
                }
            }
            Ok(None) => return Ok(()),
            Err(FrameError::Io(error)) => return Err(error),
            Err(error) => {
                if let Some(refusal) = error.refusal()
                    && refused.send(refusal).is_err()
                {
                    return Ok(());
                }
            }
        }
    }
}

/// The writer thread: the loop's messages and the reader's refusals, until
/// the loop drops its end.
fn write_messages(
    mut output: impl Write,
    from_loop: &Receiver<Message>,
    mut refusals: Receiver<Refusal>,
) -> io::Result<()> {
    loop {
        select! {
            recv(from_loop) -> message => match message {
                Ok(message) => message.write(&mut output)?,
                Err(_) => return Ok(()),
            },
            recv(refusals) -> refusal => match refusal {
                Ok(refusal) => refusal.write(&mut output)?,
                // The reader ended: only the loop's messages are left.
                Err(_) => refusals = crossbeam_channel::never(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::{Cursor, Read};
    use std::sync::{Arc, Mutex};

    const REQUEST: &str =
        r#"{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"x":1}}"#;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    fn reader(input: impl Into<Vec<u8>>) -> MessageReader<Cursor<Vec<u8>>> {
        MessageReader::new(Cursor::new(input.into()))
    }

    /// What the reader gives until the end of input: each message as JSON,
    /// each error as its refusal's code and id (or its text when it is not
    /// answered).
    fn read_all(mut reader: MessageReader<impl BufRead>) -> Vec<Value> {
        let mut read = Vec::new();
        // Far more than any input here holds: a reader that never ends
        // fails instead of hanging.
        for _ in 0..1000 {
            match reader.read_message() {
                Ok(Some(message)) => read.push(json!({"message": message})),
                Ok(None) => return read,
                Err(error) => read.push(match error.refusal() {
                    Some(r) => json!({"code": r.error.code, "id": r.id}),
                    None => json!({"unanswered": error.to_string()}),
                }),
            }
        }
        panic!("the reader never ended: {read:?}");
    }

    fn request() -> Value {
        json!({"message": {"id": 1, "method": "textDocument/hover", "params": {"x": 1}}})
    }

    fn parse_error() -> Value {
        json!({"code": -32700, "id": null})
    }

    #[test]
    fn well_formed_frames_give_their_messages() {
        let notification = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let response = r#"{"jsonrpc":"2.0","id":"confvet-register","result":null}"#;
        let input = format!(
            "{}Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length:{}\r\n\r\n{notification}{}",
            frame(REQUEST),
            notification.len(),
            frame(response),
        );
        assert_eq!(
            read_all(reader(input)),
            [
                request(),
                json!({"message": {"method": "initialized", "params": {}}}),
                // lsp-server reads a null result as none.
                json!({"message": {"id": "confvet-register"}}),
            ]
        );
    }

    #[test]
    fn headers_ended_by_a_newline_alone_are_read() {
        let input = format!(
            "Content-Length: {}\nContent-Type: application/vscode-jsonrpc\n\n{REQUEST}\n\r\n{}",
            REQUEST.len(),
            frame(REQUEST)
        );
        assert_eq!(read_all(reader(input)), [request(), request()]);
    }

    #[test]
    fn a_body_that_is_not_json_is_a_parse_error_and_the_next_frame_is_read() {
        let mut input = frame("not json{").into_bytes();
        input.extend(b"Content-Length: 3\r\n\r\n\xff\xfe\"");
        input.extend(frame(REQUEST).into_bytes());
        assert_eq!(
            read_all(reader(input)),
            [parse_error(), parse_error(), request()]
        );
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_answered_with_its_id() {
        for (body, id) in [
            (r#"{"jsonrpc":"2.0","id":7}"#, json!(7)),
            (r#"{"jsonrpc":"2.0","id":"a","method":5}"#, json!("a")),
            (r#"{"jsonrpc":"2.0","id":2.5,"method":"m"}"#, json!(2.5)),
            (
                r#"{"jsonrpc":"2.0","id":4294967296,"method":"m"}"#,
                json!(4294967296u64),
            ),
            (
                r#"{"jsonrpc":"2.0","id":{"x":1},"method":"m"}"#,
                json!(null),
            ),
            (r#"{"jsonrpc":"2.0","id":3,"error":"no"}"#, json!(3)),
            (r#"[{"jsonrpc":"2.0","method":"initialized"}]"#, json!(null)),
            ("42", json!(null)),
        ] {
            let input = format!("{}{}", frame(body), frame(REQUEST));
            assert_eq!(
                read_all(reader(input)),
                [json!({"code": -32600, "id": id}), request()],
                "{body}"
            );
        }
    }

    #[test]
    fn a_content_length_above_the_limit_is_refused_before_its_body_is_read() {
        for declared in [MAX_CONTENT_LENGTH + 1, 100 * 1024 * 1024, 99_999_999_999] {
            // Declared, a few bytes sent, then the end of input.
            let mut reader = reader(format!("Content-Length: {declared}\r\n\r\n{{}}"));
            let error = reader.read_message().expect_err("refused");
            assert!(
                matches!(error, FrameError::TooLarge { declared: d } if d == declared),
                "{error:?}"
            );
            let refusal = error.refusal().expect("answered");
            assert_eq!(refusal.error.code, -32600);
            assert!(refusal.error.message.contains("67108864"), "{refusal:?}");
            assert!(matches!(reader.read_message(), Ok(None)));
        }
    }

    #[test]
    fn a_body_above_the_limit_is_discarded_as_it_streams_and_the_next_frame_is_read() {
        let declared = 70 * 1024 * 1024;
        // Generated as it is read, never held whole.
        let input = Cursor::new(format!("Content-Length: {declared}\r\n\r\n"))
            .chain(io::repeat(b'x').take(declared))
            .chain(Cursor::new(frame(REQUEST)));
        let read = read_all(MessageReader::new(io::BufReader::new(input)));
        assert_eq!(read, [json!({"code": -32600, "id": null}), request()]);
    }

    #[test]
    fn malformed_headers_are_parse_errors_and_reading_finds_the_next_frame() {
        let overlong = format!("X-Long: {}\r\n\r\n", "a".repeat(100_000));
        for broken in [
            // Stray lines before a frame: answered once.
            "garbage\r\n",
            "garbage\r\nmore garbage\n\n{}\r\n",
            "\u{0}\u{1}:\r\n",
            &overlong,
            // No length: the body, with no line break, runs into the next
            // frame's header.
            "Content-Type: x\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"m\"}",
            "Content-Length: abc\r\n\r\n{}",
            "Content-Length: -3\r\n\r\n{}",
            "Content-Length: 99999999999999999999999\r\n\r\n{}",
            // No length, a body of several lines.
            "X: y\r\n\r\n{\n  \"id\": 9,\n  \"method\": \"m\"\n}\n",
            // The length known: the body is skipped.
            "Content-Length: 5\r\nno colon here\r\n\r\nhello",
            "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        ] {
            let input = format!("{broken}{}", frame(REQUEST));
            assert_eq!(
                read_all(reader(input)),
                [parse_error(), request()],
                "{broken:?}"
            );
        }
    }

    #[test]
    fn the_input_ending_in_a_body_ends_the_reader() {
        let mut reader = reader(format!("{}Content-Length: 100\r\n\r\nabc", frame(REQUEST)));
        assert!(matches!(reader.read_message(), Ok(Some(_))));
        let error = reader.read_message().expect_err("cut short");
        assert!(
            matches!(
                error,
                FrameError::Truncated {
                    declared: 100,
                    received: 3
                }
            ),
            "{error:?}"
        );
        assert!(error.refusal().is_none());
        assert!(matches!(reader.read_message(), Ok(None)));
        assert!(matches!(reader.read_message(), Ok(None)));
    }

    #[test]
    fn the_input_ending_anywhere_ends_the_reader() {
        let whole = format!("{}X: y\r\n{}", frame(REQUEST), frame(REQUEST));
        for end in 0..whole.len() {
            read_all(reader(&whole.as_bytes()[..end]));
        }
    }

    /// A `Write` whose bytes the test reads afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().expect("not poisoned").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The bodies of the frames written, as JSON.
    fn bodies(mut output: &[u8]) -> Vec<Value> {
        let mut bodies = Vec::new();
        while let Some(rest) = output.strip_prefix(b"Content-Length: ") {
            let digits = rest.iter().position(|&b| b == b'\r').expect("a header");
            let length: usize = std::str::from_utf8(&rest[..digits])
                .expect("digits")
                .parse()
                .expect("a length");
            let body = &rest[digits + 4..digits + 4 + length];
            bodies.push(serde_json::from_slice(body).expect("JSON"));
            output = &rest[digits + 4 + length..];
        }
        assert!(output.is_empty(), "{}", String::from_utf8_lossy(output));
        bodies
    }

    #[test]
    fn the_connection_answers_a_refused_frame_and_passes_the_next_message_on() {
        let input = format!(
            "{}{}{}",
            frame("not json{"),
            frame(REQUEST),
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#)
        );
        let output = Shared::default();
        let (connection, threads) =
            connect(Cursor::new(input.into_bytes()), output.clone()).expect("threads");
        let Ok(Message::Request(request)) = connection.receiver.recv() else {
            panic!("no request");
        };
        let answer = lsp_server::Response::new_ok(request.id, "answered");
        connection.sender.send(answer.into()).expect("the writer");
        assert!(matches!(
            connection.receiver.recv(),
            Ok(Message::Notification(n)) if n.method == "exit"
        ));
        drop(connection);
        threads.join().expect("no I/O error");
        let written = output.0.lock().expect("not poisoned").clone();
        let bodies = bodies(&written);
        assert_eq!(bodies.len(), 2, "{bodies:?}");
        assert_eq!(bodies[0]["id"], Value::Null);
        assert_eq!(bodies[0]["error"]["code"], -32700);
        assert_eq!(
            bodies[1],
            json!({"jsonrpc": "2.0", "id": 1, "result": "answered"})
        );
    }
}
