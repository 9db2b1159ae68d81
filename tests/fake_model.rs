//! A scripted fake model server on 127.0.0.1 that speaks the three real wire formats: Gemini
//! `:streamGenerateContent?alt=sse` (CRLF-framed chunks, no end marker, thought signatures),
//! OpenAI-compatible `/chat/completions` (fragmented tool-call arguments, usage chunk, `[DONE]`),
//! and Bedrock's `/model/{id}/converse-stream` (AWS event-stream frames written by the SDK's own
//! encoder, `aws-smithy-eventstream`: message start, content blocks, stop, metadata; exceptions as
//! exception frames; errors before the stream with `x-amzn-errortype`).
//!
//! Tests queue replies (text chunks, tool calls, delays, error statuses, in-stream error tails,
//! streams cut mid-way), optionally only for requests whose body contains a marker, and read back
//! every request received. Each reply is used once; a request with no reply left gets a 400 that
//! names the problem, so a missing script fails the test loudly.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

#[derive(Debug, Clone)]
pub enum Step {
    /// A text delta.
    Text(String),
    /// A whole tool call (name, arguments object).
    Call(String, Value),
    /// A tool call whose arguments are this text as the model wrote it (not JSON, say); on
    /// Gemini, whose arguments are JSON values, the text as a JSON string.
    RawCall(String, String),
    /// The finish reason the stream ends with, in the format's own words (`MALFORMED_FUNCTION_CALL`
    /// or `MAX_TOKENS` on Gemini, `length` on chat completions, `max_tokens` on Bedrock); on
    /// Gemini its last chunk then has no content, as Gemini sends it.
    Finish(String),
    /// Wait before the next step (the connection stays open).
    Delay(Duration),
    /// Close the connection here, without the end of the stream.
    Cut,
    /// Gemini: a raw multi-line JSON error after the last event; OpenAI: `data: {"error": …}`;
    /// Bedrock: an exception frame whose type is the value's `type` (its `message` the payload).
    ErrorTail(Value),
}

#[derive(Debug, Clone)]
pub enum Reply {
    /// A 200 event stream; a normal end (finish reason, usage, `[DONE]`) is added unless the
    /// steps cut the stream or end it with an error tail.
    Stream(Vec<Step>),
    /// An HTTP error before any stream.
    Status {
        status: u16,
        body: Value,
        headers: Vec<(String, String)>,
    },
    /// What llama-cpp-python's function-calling formats send for a streamed request with
    /// automatic tool choice: 200 and event-stream headers, then the connection closed without
    /// a byte.
    EmptyStream,
    /// A non-streamed answer (`stream: false`): 200 with this JSON body.
    Json(Value),
}

impl Reply {
    pub fn text(chunks: &[&str]) -> Reply {
        Reply::Stream(chunks.iter().map(|c| Step::Text(c.to_string())).collect())
    }

    pub fn calls(calls: &[(&str, Value)]) -> Reply {
        Reply::Stream(
            calls
                .iter()
                .map(|(n, a)| Step::Call(n.to_string(), a.clone()))
                .collect(),
        )
    }

    pub fn status(status: u16, body: Value) -> Reply {
        Reply::Status {
            status,
            body,
            headers: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// When the request was read.
    pub at: std::time::Instant,
    /// When the scripted stream started to be written (its first text, if it starts with one).
    pub replied_at: Option<std::time::Instant>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The usage a stream reports: fixed (120 in, 12 out), or estimated from the sizes.
#[derive(Clone, Copy)]
struct Usage {
    /// Input not read from or written to a cache.
    input: u64,
    output: u64,
    /// Bedrock's cache: input read from it and written to it (four bytes a token).
    cache_read: u64,
    cache_write: u64,
}

impl Usage {
    const FIXED: Usage = Usage {
        input: 120,
        output: 12,
        cache_read: 0,
        cache_write: 0,
    };

    fn total(self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

#[derive(Default)]
struct State {
    /// Report usage estimated from the request's and the reply's sizes (four bytes a token)
    /// instead of the fixed figures.
    usage_by_size: bool,
    replies: Vec<(Option<String>, Reply)>,
    requests: Vec<Recorded>,
    /// Streams the client closed before the server finished writing them.
    client_disconnects: usize,
    /// Bedrock prefixes cached so far (up to a request's last cache point).
    cached_prefixes: std::collections::HashSet<String>,
}

/// A Converse request's prefix up to its last cache point (the system blocks, then the tools),
/// as Bedrock caches it; None without a cache point.
fn bedrock_cached_prefix(body: &Value) -> Option<String> {
    let system = body["system"].as_array().cloned().unwrap_or_default();
    let tools = body["toolConfig"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let blocks: Vec<&Value> = system.iter().chain(tools.iter()).collect();
    let last = blocks.iter().rposition(|b| b.get("cachePoint").is_some())?;
    let prefix: Vec<&Value> = blocks[..last]
        .iter()
        .copied()
        .filter(|b| b.get("cachePoint").is_none())
        .collect();
    Some(serde_json::to_string(&prefix).unwrap_or_default())
}

pub struct FakeModel {
    pub base: String,
    state: Arc<Mutex<State>>,
    _server: crate::LoopbackServer,
}

impl FakeModel {
    pub fn start() -> FakeModel {
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        let server = crate::LoopbackServer::start("fake model server", move |sock| {
            serve(sock, shared.clone())
        });
        FakeModel {
            base: server.base.clone(),
            state,
            _server: server,
        }
    }

    /// `GEMINI_BASE_URL` for this server.
    pub fn gemini_base(&self) -> String {
        format!("{}/v1beta", self.base)
    }

    /// `OPENAI_BASE_URL` for this server.
    pub fn openai_base(&self) -> String {
        format!("{}/v1", self.base)
    }

    /// `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` for this server.
    pub fn bedrock_endpoint(&self) -> String {
        self.base.clone()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Queues a reply for the next request.
    pub fn reply(&self, r: Reply) {
        self.lock().replies.push((None, r));
    }

    /// Queues a reply for the next request whose body contains `marker`.
    pub fn reply_for(&self, marker: &str, r: Reply) {
        self.lock().replies.push((Some(marker.to_string()), r));
    }

    /// Forgets the replies still queued for `marker` (before scripting a retry afresh).
    pub fn forget(&self, marker: &str) {
        self.lock()
            .replies
            .retain(|(m, _)| m.as_deref() != Some(marker));
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.lock().requests.clone()
    }

    pub fn client_disconnects(&self) -> usize {
        self.lock().client_disconnects
    }

    /// From now on each stream reports usage estimated at four bytes a token of the request
    /// body and of the reply's text and calls (the coach evaluation's token figures), instead
    /// of the fixed 120 in and 12 out.
    pub fn usage_by_size(&self) {
        self.lock().usage_by_size = true;
    }

    /// Forgets queued replies and recorded requests.
    pub fn reset(&self) {
        let mut s = self.lock();
        s.replies.clear();
        s.requests.clear();
        s.client_disconnects = 0;
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Gemini,
    OpenAi,
    Bedrock,
}

async fn serve(mut sock: TcpStream, state: Arc<Mutex<State>>) {
    let Some((path, headers, body)) = read_request(&mut sock).await else {
        return;
    };
    let body_bytes = body.len() as u64;
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let text = body.to_string();
    let bedrock_prefix = bedrock_cached_prefix(&body);
    // Bedrock's own check: a conversation holding tool use needs its tool configuration.
    if path.ends_with("/converse-stream")
        && (text.contains("\"toolUse\"") || text.contains("\"toolResult\""))
        && body.get("toolConfig").is_none()
    {
        state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .requests
            .push(Recorded {
                path: path.clone(),
                headers,
                body,
                at: std::time::Instant::now(),
                replied_at: None,
            });
        let _ = write_status(
            &mut sock,
            400,
            &json!({"message": "The toolConfig field must be defined when using toolUse and toolResult content blocks."}),
            &[("x-amzn-errortype".into(), "ValidationException".into())],
        )
        .await;
        return;
    }
    let (reply, index) = {
        let mut s = state.lock().unwrap_or_else(|p| p.into_inner());
        let index = s.requests.len();
        s.requests.push(Recorded {
            path: path.clone(),
            headers,
            body,
            at: std::time::Instant::now(),
            replied_at: None,
        });
        let pos = s
            .replies
            .iter()
            .position(|(m, _)| m.as_ref().is_none_or(|m| text.contains(m.as_str())));
        (pos.map(|i| s.replies.remove(i).1), index)
    };
    let format = if path.contains(":streamGenerateContent") {
        Format::Gemini
    } else if path.ends_with("/chat/completions") {
        Format::OpenAi
    } else if path.starts_with("/model/") && path.ends_with("/converse-stream") {
        Format::Bedrock
    } else {
        let _ = write_status(
            &mut sock,
            404,
            &json!({"error": {"code": 404, "message": format!("fake model: no route {path}")}}),
            &[],
        )
        .await;
        return;
    };
    let Some(reply) = reply else {
        let _ = write_status(&mut sock, 400, &json!({"error": {"code": 400, "message": "fake model: no scripted reply for this request"}}), &[]).await;
        return;
    };
    match reply {
        Reply::Status {
            status,
            body,
            headers,
        } => {
            let _ = write_status(&mut sock, status, &body, &headers).await;
        }
        Reply::EmptyStream => {
            let _ = sock
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n0\r\n\r\n")
                .await;
        }
        Reply::Json(body) => {
            let _ = write_status(&mut sock, 200, &body, &[]).await;
        }
        Reply::Stream(steps) => {
            let by_size = state
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .usage_by_size;
            let usage = if by_size {
                let reply_bytes: usize = steps
                    .iter()
                    .map(|s| match s {
                        Step::Text(t) => t.len(),
                        Step::Call(n, a) => n.len() + a.to_string().len(),
                        _ => 0,
                    })
                    .sum();
                Usage {
                    input: body_bytes.div_ceil(4),
                    output: (reply_bytes as u64).div_ceil(4),
                    ..Usage::FIXED
                }
            } else {
                Usage::FIXED
            };
            // Bedrock reads a prefix it has seen up to a cache point, and writes a new one.
            let usage = match (format, bedrock_prefix) {
                (Format::Bedrock, Some(prefix)) => {
                    let tokens = (prefix.len() as u64).div_ceil(4);
                    let seen = !state
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .cached_prefixes
                        .insert(prefix);
                    if seen {
                        Usage {
                            cache_read: tokens,
                            ..usage
                        }
                    } else {
                        Usage {
                            cache_write: tokens,
                            ..usage
                        }
                    }
                }
                _ => usage,
            };
            if let Some(r) = state
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .requests
                .get_mut(index)
            {
                r.replied_at = Some(std::time::Instant::now());
            }
            if stream(&mut sock, format, &steps, usage).await.is_err() {
                state
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .client_disconnects += 1;
            }
        }
    }
}

pub(crate) async fn read_request(
    sock: &mut TcpStream,
) -> Option<(String, Vec<(String, String)>, Vec<u8>)> {
    let r = crate::read_http_request(sock, &mut Vec::new()).await?;
    Some((r.path, r.headers, r.body))
}

async fn write_status(
    sock: &mut TcpStream,
    status: u16,
    body: &Value,
    headers: &[(String, String)],
) -> std::io::Result<()> {
    let body = body.to_string();
    let mut head = format!(
        "HTTP/1.1 {status} Error\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(body.as_bytes()).await?;
    sock.shutdown().await
}

async fn chunk(sock: &mut TcpStream, data: &str) -> std::io::Result<()> {
    chunk_bytes(sock, data.as_bytes()).await
}

async fn chunk_bytes(sock: &mut TcpStream, data: &[u8]) -> std::io::Result<()> {
    sock.write_all(format!("{:x}\r\n", data.len()).as_bytes())
        .await?;
    sock.write_all(data).await?;
    sock.write_all(b"\r\n").await?;
    sock.flush().await
}

/// One AWS event-stream frame, written by the SDK's own encoder: an `event` of `event_type`, or
/// with `exception` an `exception` frame of that type.
fn bedrock_frame(kind: &str, event_type: &str, payload: &Value) -> Vec<u8> {
    use aws_smithy_types::event_stream::{Header, HeaderValue, Message};
    let type_header = if kind == "exception" {
        ":exception-type"
    } else {
        ":event-type"
    };
    let message = Message::new(payload.to_string().into_bytes())
        .add_header(Header::new(
            ":message-type",
            HeaderValue::String(kind.to_string().into()),
        ))
        .add_header(Header::new(
            type_header,
            HeaderValue::String(event_type.to_string().into()),
        ))
        .add_header(Header::new(
            ":content-type",
            HeaderValue::String("application/json".into()),
        ));
    let mut out = Vec::new();
    if let Err(e) = aws_smithy_eventstream::frame::write_message_to(&message, &mut out) {
        panic!("fake model: cannot encode an event-stream frame: {e}");
    }
    out
}

async fn bedrock_event(
    sock: &mut TcpStream,
    event_type: &str,
    payload: Value,
) -> std::io::Result<()> {
    chunk_bytes(sock, &bedrock_frame("event", event_type, &payload)).await
}

fn gemini_chunk(parts: Value, finish: bool, usage: Usage) -> String {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if finish {
        candidate["finishReason"] = json!("STOP");
    }
    let v = json!({
        "candidates": [candidate],
        "usageMetadata": {"promptTokenCount": usage.input, "candidatesTokenCount": usage.output, "totalTokenCount": usage.total()},
        "modelVersion": "fake-gemini",
        "responseId": "fake-response",
    });
    format!("data: {v}\r\n\r\n")
}

fn openai_chunk(delta: Value, finish: Option<&str>) -> String {
    let v = json!({
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1_727_346_178, "model": "fake-openai",
        "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
    });
    format!("data: {v}\n\n")
}

/// Streams `steps` in the format; an `Err` means the client went away.
async fn stream(
    sock: &mut TcpStream,
    format: Format,
    steps: &[Step],
    usage: Usage,
) -> std::io::Result<()> {
    let content_type = match format {
        Format::Bedrock => "application/vnd.amazon.eventstream",
        _ => "text/event-stream",
    };
    sock.write_all(
        format!("HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n").as_bytes(),
    )
    .await?;
    let mut calls = 0usize;
    let mut finish: Option<String> = None;
    match format {
        Format::OpenAi => {
            chunk(
                sock,
                &openai_chunk(json!({"role": "assistant", "content": ""}), None),
            )
            .await?
        }
        Format::Bedrock => {
            bedrock_event(sock, "messageStart", json!({"role": "assistant"})).await?
        }
        Format::Gemini => {}
    }
    for step in steps {
        match step {
            // Bedrock: text is content block 0, tool uses the blocks after it.
            Step::Text(t) if format == Format::Bedrock => {
                let delta = json!({"contentBlockIndex": 0, "delta": {"text": t}});
                bedrock_event(sock, "contentBlockDelta", delta).await?;
            }
            Step::Text(t) => {
                let data = match format {
                    Format::Gemini => gemini_chunk(json!([{ "text": t }]), false, usage),
                    _ => openai_chunk(json!({ "content": t }), None),
                };
                chunk(sock, &data).await?;
            }
            Step::Finish(reason) => finish = Some(reason.clone()),
            Step::RawCall(name, raw) if format == Format::Gemini => {
                calls += 1;
                let part = json!({"functionCall": {"name": name, "args": raw}});
                chunk(sock, &gemini_chunk(json!([part]), false, usage)).await?;
            }
            Step::RawCall(name, raw) => {
                calls += 1;
                streamed_call(sock, format, calls, name, raw).await?;
            }
            Step::Call(name, args) => {
                calls += 1;
                match format {
                    Format::Gemini => {
                        let mut part = json!({"functionCall": {"name": name, "args": args}});
                        // Parallel calls: only the first of the turn is signed.
                        if calls == 1 {
                            part["thoughtSignature"] = json!("ZmFrZS1zaWduYXR1cmU=");
                        }
                        chunk(sock, &gemini_chunk(json!([part]), false, usage)).await?;
                    }
                    _ => streamed_call(sock, format, calls, name, &args.to_string()).await?,
                }
            }
            Step::Delay(d) => tokio::time::sleep(*d).await,
            Step::Cut => {
                // No terminating chunk: the client sees the body break off.
                sock.shutdown().await?;
                return Ok(());
            }
            Step::ErrorTail(e) => {
                match format {
                    Format::Gemini => {
                        chunk(
                            sock,
                            &(serde_json::to_string_pretty(e).unwrap_or_default() + "\n"),
                        )
                        .await?
                    }
                    Format::OpenAi => {
                        chunk(sock, &format!("data: {e}\n\ndata: [DONE]\n\n")).await?
                    }
                    Format::Bedrock => {
                        let kind = e["type"].as_str().unwrap_or("modelStreamErrorException");
                        let frame =
                            bedrock_frame("exception", kind, &json!({"message": e["message"]}));
                        chunk_bytes(sock, &frame).await?;
                    }
                }
                sock.write_all(b"0\r\n\r\n").await?;
                return sock.shutdown().await;
            }
        }
    }
    match format {
        Format::Gemini => match &finish {
            None => chunk(sock, &gemini_chunk(json!([{ "text": "" }]), true, usage)).await?,
            Some(reason) => {
                let v = json!({
                    "candidates": [{"finishReason": reason, "index": 0}],
                    "usageMetadata": {"promptTokenCount": usage.input, "candidatesTokenCount": usage.output, "totalTokenCount": usage.total()},
                    "modelVersion": "fake-gemini",
                });
                chunk(sock, &format!("data: {v}\r\n\r\n")).await?
            }
        },
        Format::Bedrock => {
            let reason =
                finish
                    .as_deref()
                    .unwrap_or(if calls > 0 { "tool_use" } else { "end_turn" });
            bedrock_event(sock, "messageStop", json!({"stopReason": reason})).await?;
            let usage = json!({"usage": {"inputTokens": usage.input, "outputTokens": usage.output, "totalTokens": usage.total(), "cacheReadInputTokens": usage.cache_read, "cacheWriteInputTokens": usage.cache_write}, "metrics": {"latencyMs": 5}});
            bedrock_event(sock, "metadata", usage).await?;
        }
        Format::OpenAi => {
            let reason = finish
                .as_deref()
                .unwrap_or(if calls > 0 { "tool_calls" } else { "stop" });
            chunk(sock, &openai_chunk(json!({}), Some(reason))).await?;
            let usage = json!({"id": "chatcmpl-fake", "object": "chat.completion.chunk", "choices": [], "usage": {"prompt_tokens": usage.input, "completion_tokens": usage.output, "total_tokens": usage.total()}});
            chunk(sock, &format!("data: {usage}\n\n")).await?;
            chunk(sock, "data: [DONE]\n\n").await?;
        }
    }
    sock.write_all(b"0\r\n\r\n").await?;
    sock.shutdown().await
}

/// The `n`th tool call of a turn with its arguments as `raw` text, streamed in two pieces in
/// Bedrock's or chat completions' shape (Gemini sends whole JSON arguments).
async fn streamed_call(
    sock: &mut TcpStream,
    format: Format,
    n: usize,
    name: &str,
    raw: &str,
) -> std::io::Result<()> {
    if format == Format::Bedrock {
        let start = json!({"contentBlockIndex": n, "start": {"toolUse": {"toolUseId": format!("tooluse_fake{n}"), "name": name}}});
        bedrock_event(sock, "contentBlockStart", start).await?;
        for piece in halves(raw) {
            let d = json!({"contentBlockIndex": n, "delta": {"toolUse": {"input": piece}}});
            bedrock_event(sock, "contentBlockDelta", d).await?;
        }
        return bedrock_event(sock, "contentBlockStop", json!({"contentBlockIndex": n})).await;
    }
    let index = n - 1;
    let first = json!({"tool_calls": [{"index": index, "id": format!("call_fake{n}"), "type": "function", "function": {"name": name, "arguments": ""}}]});
    chunk(sock, &openai_chunk(first, None)).await?;
    for piece in halves(raw) {
        let d = json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]});
        chunk(sock, &openai_chunk(d, None)).await?;
    }
    Ok(())
}

/// A string in two pieces, split at a character boundary (streamed arguments arrive in pieces).
fn halves(s: &str) -> [&str; 2] {
    let mid = s
        .char_indices()
        .nth(s.chars().count() / 2)
        .map_or(0, |(i, _)| i);
    [&s[..mid], &s[mid..]]
}
