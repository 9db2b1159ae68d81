//! `llm::Model`, the port to a language model: one request in, a stream of
//! `TextDelta | ToolCall | Usage | Done` out, whatever the provider.
//!
//! - `gemini`: `streamGenerateContent?alt=sse` with function declarations and thought signatures;
//! - `openai`: OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp, Ollama, OpenRouter);
//! - `bedrock`: Amazon Bedrock's ConverseStream through the AWS SDK (the function's role signs);
//! - `sse`: the one event-stream parser the HTTP adapters use; `retry`: errors, retry hints and
//!   backoff, the same for every provider;
//! - `settings`: the model's settings and the HTTP client; `wire`: the conversation's types.
//!
//! The conversation is provider-neutral (`Turn`s of `Part`s); each adapter writes it in its own
//! wire format and rebuilds the model's turn exactly as it must be sent back (`ModelStream::turn`).
//! Wire-format facts: `../shared/reference/llm-wire-formats.md`.

mod bedrock;
mod gemini;
mod openai;
/// When and how long to wait before retrying a model call (the fuzz properties read it).
pub(crate) mod retry;
mod settings;
pub mod sse;
mod wire;

use std::collections::VecDeque;

use serde_json::Value;

use tokio::time::Instant;

pub use crate::domain::usage::{CachePrice, Usage};
pub use retry::{ErrorKind, MAX_ATTEMPTS, ModelError};
pub use settings::*;
pub use wire::*;

/// Bytes of text per token, for an estimate where a provider reports no usage (a server without
/// usage in its stream, a stream that broke off): about four for English.
const BYTES_PER_TOKEN: u64 = 4;

/// A model with its settings and the client that reaches it.
#[derive(Debug, Clone)]
pub struct Model {
    pub config: ModelConfig,
    client: Client,
}

#[derive(Debug, Clone)]
enum Client {
    /// The process's HTTP client (Gemini, OpenAI-compatible).
    Http(reqwest::Client),
    Bedrock(aws_sdk_bedrockruntime::Client),
}

impl Model {
    /// A model over HTTP (Gemini or OpenAI-compatible) with the process's client.
    pub fn new(config: ModelConfig, http: reqwest::Client) -> Model {
        Model {
            config,
            client: Client::Http(http),
        }
    }

    /// The most a call of `req` should cost, reserved against the allowances before it is
    /// made: its input (by size) at the whole price, and the whole output cap.
    pub fn estimate(&self, req: &Request) -> u64 {
        req.text_bytes().div_ceil(BYTES_PER_TOKEN) + u64::from(self.config.max_output_tokens)
    }

    /// What reading `req` costs, by its size: a call cut off before its answer is counted so.
    pub fn input_estimate(&self, req: &Request) -> Usage {
        Usage::new(
            req.text_bytes().div_ceil(BYTES_PER_TOKEN),
            0,
            0,
            0,
            self.config.cache_price,
        )
    }

    /// Opens the stream, retrying 429 (with the server's hint), 5xx and connection errors with
    /// jittered backoff while `deadline` allows. Once the response has started, nothing is
    /// retried here: text may already have reached the lifter.
    pub async fn stream(
        &self,
        req: &Request,
        deadline: Instant,
    ) -> Result<ModelStream, ModelError> {
        let (http, format, (url, body)) = match (&self.client, self.config.provider) {
            (Client::Bedrock(client), _) => {
                return self.bedrock_stream(client, req, deadline).await;
            }
            (Client::Http(http), Provider::Gemini) => {
                (http, SseFormat::Gemini, gemini::request(&self.config, req))
            }
            (Client::Http(http), _) => {
                (http, SseFormat::OpenAi, openai::request(&self.config, req))
            }
        };
        let with_tools = format == SseFormat::OpenAi && !req.tools.is_empty();
        let body = body.to_string();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let err = match self.send(http, &url, &body, deadline).await {
                Ok(response) => {
                    let mut stream = ModelStream::new(
                        Source::Http(Some(response), StreamDecoder::new(format)),
                        deadline,
                        body.len() as u64,
                        self.config.cache_price,
                    );
                    if !with_tools || stream.starts().await? {
                        return Ok(stream);
                    }
                    // An empty 200 (llama-cpp-python's function-calling formats): the server
                    // cannot stream with tools, and asking again will not change that.
                    tracing::warn!(
                        "the model server sent an empty stream for a request with tools; asking once without streaming"
                    );
                    return self.unstreamed(http, &url, &body, deadline).await;
                }
                Err(e) if with_tools && retry::refuses_streamed_tools(&e) => {
                    tracing::warn!(
                        "the model server cannot stream with tools ({}); asking once without streaming",
                        e.message
                    );
                    return self.unstreamed(http, &url, &body, deadline).await;
                }
                Err(e) => e,
            };
            wait_before_retry(&err, attempt, deadline).await?;
        }
    }

    /// Bedrock's ConverseStream, with the same retries as the HTTP providers (the SDK's own are
    /// off): throttling like a 429, unavailable like a 5xx.
    async fn bedrock_stream(
        &self,
        client: &aws_sdk_bedrockruntime::Client,
        req: &Request,
        deadline: Instant,
    ) -> Result<ModelStream, ModelError> {
        let (call, request_bytes) = bedrock::request(client, &self.config, req)?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(ModelError::new(
                    ErrorKind::Timeout,
                    "no time left for the model call",
                ));
            }
            let err = match tokio::time::timeout(remaining, call.clone().send()).await {
                Err(_) => ModelError::new(ErrorKind::Timeout, "the model did not answer in time"),
                Ok(Ok(output)) => {
                    return Ok(ModelStream::new(
                        Source::Bedrock(output, bedrock::Decoder::default()),
                        deadline,
                        request_bytes,
                        self.config.cache_price,
                    ));
                }
                Ok(Err(e)) => bedrock::call_error(e),
            };
            wait_before_retry(&err, attempt, deadline).await?;
        }
    }

    /// The answer to an OpenAI-compatible request sent once with `stream: false`, as a finished
    /// stream (for servers that cannot stream tool calls): the completion's message is decoded
    /// as one streamed chunk would be.
    async fn unstreamed(
        &self,
        http: &reqwest::Client,
        url: &str,
        streamed_body: &str,
        deadline: Instant,
    ) -> Result<ModelStream, ModelError> {
        let mut body: Value = serde_json::from_str(streamed_body)
            .map_err(|e| ModelError::new(ErrorKind::Malformed, format!("request body: {e}")))?;
        body["stream"] = Value::Bool(false);
        if let Some(o) = body.as_object_mut() {
            o.remove("stream_options");
        }
        let body = body.to_string();
        // The refusing server may have closed the connection the pool would reuse (uvicorn does
        // after an unfinished stream): a connect error is retried once, at once.
        let response = match self.send(http, url, &body, deadline).await {
            Err(e) if e.kind == ErrorKind::Connect => self.send(http, url, &body, deadline).await?,
            other => other?,
        };
        let remaining = deadline.saturating_duration_since(Instant::now());
        let text = tokio::time::timeout(remaining, response.text())
            .await
            .map_err(|_| ModelError::new(ErrorKind::Timeout, "the model did not answer in time"))?
            .map_err(|e| ModelError::transport(&e))?;
        let chunk = openai::completion_as_chunk(&text)?;
        let mut decoder = StreamDecoder::new(SseFormat::OpenAi);
        let mut pending = VecDeque::new();
        let sse = format!("data: {chunk}\n\ndata: [DONE]\n\n");
        decoder.push(sse.as_bytes(), &mut pending)?;
        decoder.finish(&mut pending)?;
        let mut stream = ModelStream::new(
            Source::Http(None, decoder),
            deadline,
            body.len() as u64,
            self.config.cache_price,
        );
        stream.pending = pending;
        stream.ended = true;
        Ok(stream)
    }

    /// The whole answer at once: text and calls, for callers that do not stream to the lifter.
    pub async fn complete(
        &self,
        req: &Request,
        deadline: Instant,
    ) -> Result<Completion, ModelError> {
        let mut stream = self.stream(req, deadline).await?;
        while let Some(ev) = stream.next().await {
            ev?;
        }
        Ok(Completion {
            turn: stream.turn(),
            usage: stream.usage(),
        })
    }

    async fn send(
        &self,
        http: &reqwest::Client,
        url: &str,
        body: &str,
        deadline: Instant,
    ) -> Result<reqwest::Response, ModelError> {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(ModelError::new(
                ErrorKind::Timeout,
                "no time left for the model call",
            ));
        }
        let mut rb = http
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_string());
        rb = match self.config.provider {
            Provider::Gemini => rb.header(
                "x-goog-api-key",
                self.config.api_key.as_deref().unwrap_or(""),
            ),
            // Local servers ignore the key but some reject an empty bearer.
            Provider::OpenAi | Provider::Bedrock => rb.header(
                "authorization",
                format!(
                    "Bearer {}",
                    self.config.api_key.as_deref().unwrap_or("unused")
                ),
            ),
        };
        let response = tokio::time::timeout(remaining, rb.send())
            .await
            .map_err(|_| ModelError::new(ErrorKind::Timeout, "the model did not answer in time"))?
            .map_err(|e| ModelError::transport(&e))?;
        let status = response.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(response);
        }
        let headers = response.headers().clone();
        let remaining = deadline.saturating_duration_since(Instant::now());
        let text = tokio::time::timeout(remaining, response.text())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        Err(retry::from_status(status, &headers, &text))
    }
}

/// The clients a process's model lanes share, each built on first use: the HTTP one (Gemini,
/// OpenAI-compatible; or the one `main` already built) and Bedrock's SDK client from the
/// process's AWS configuration. A lane without a model builds neither; two lanes on Bedrock
/// (the slow binary runs the functional model too) share one.
pub struct ModelClients<'a> {
    aws: &'a aws_config::SdkConfig,
    http: std::cell::OnceCell<reqwest::Client>,
    bedrock: std::cell::OnceCell<aws_sdk_bedrockruntime::Client>,
}

impl<'a> ModelClients<'a> {
    pub fn new(aws: &'a aws_config::SdkConfig, http: Option<reqwest::Client>) -> Self {
        ModelClients {
            aws,
            http: http.map(std::cell::OnceCell::from).unwrap_or_default(),
            bedrock: std::cell::OnceCell::new(),
        }
    }

    /// The model `config` names, with the client its provider needs.
    pub fn model(&self, config: ModelConfig) -> Result<Model, String> {
        let client = match config.provider {
            Provider::Bedrock => Client::Bedrock(
                self.bedrock
                    .get_or_init(|| bedrock::client(self.aws))
                    .clone(),
            ),
            Provider::Gemini | Provider::OpenAi => Client::Http(match self.http.get() {
                Some(h) => h.clone(),
                None => {
                    let h = http_client()?;
                    self.http.get_or_init(|| h).clone()
                }
            }),
        };
        Ok(Model { config, client })
    }
}

/// Waits before attempt `attempt + 1` as the retry policy says, or hands the error back.
async fn wait_before_retry(
    err: &ModelError,
    attempt: u32,
    deadline: Instant,
) -> Result<(), ModelError> {
    let remaining = deadline.saturating_duration_since(Instant::now());
    match retry::delay_before_retry(err, attempt, remaining) {
        Some(delay) => {
            tracing::warn!(attempt, status = ?err.status, delay_ms = delay.as_millis() as u64, "model call failed, retrying: {}", err.message);
            tokio::time::sleep(delay).await;
            Ok(())
        }
        None => Err(err.clone()),
    }
}

/// The server-sent-event formats of the HTTP providers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SseFormat {
    Gemini,
    OpenAi,
}

enum Decoder {
    Gemini(gemini::Decoder),
    OpenAi(openai::Decoder),
}

/// A provider's response body turned into events: the SSE framing, then the provider's JSON.
/// Bytes may arrive split anywhere (a line, an event or a UTF-8 character across reads); the
/// events do not depend on where.
pub struct StreamDecoder {
    sse: sse::SseParser,
    decoder: Decoder,
}

impl StreamDecoder {
    pub fn new(format: SseFormat) -> StreamDecoder {
        StreamDecoder {
            sse: sse::SseParser::default(),
            decoder: match format {
                SseFormat::Gemini => Decoder::Gemini(gemini::Decoder::default()),
                SseFormat::OpenAi => Decoder::OpenAi(openai::Decoder::default()),
            },
        }
    }

    /// Feeds the next bytes of the body; the events they complete go to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut VecDeque<Event>) -> Result<(), ModelError> {
        for data in self.sse.push(bytes) {
            self.data(&data, out)?;
        }
        Ok(())
    }

    /// The end of the body: a stream that ends without its finish is an error.
    pub fn finish(&mut self, out: &mut VecDeque<Event>) -> Result<(), ModelError> {
        for data in self.sse.finish() {
            self.data(&data, out)?;
        }
        let stray = self.sse.stray();
        match &mut self.decoder {
            Decoder::Gemini(d) => d.eof(stray, out),
            Decoder::OpenAi(d) => d.eof(stray, out),
        }
    }

    /// The model's turn so far.
    pub fn turn(&self) -> Turn {
        match &self.decoder {
            Decoder::Gemini(d) => d.turn(),
            Decoder::OpenAi(d) => d.turn(),
        }
    }

    fn data(&mut self, data: &str, out: &mut VecDeque<Event>) -> Result<(), ModelError> {
        match &mut self.decoder {
            Decoder::Gemini(d) => d.data(data, out),
            Decoder::OpenAi(d) => d.data(data, out),
        }
    }
}

/// Where an answer's events come from. One per answer, never in a collection: the size of the
/// larger variant does not matter.
#[allow(clippy::large_enum_variant)]
enum Source {
    /// An HTTP body and its decoder; no body for an answer that came whole (`Model::unstreamed`).
    Http(Option<reqwest::Response>, StreamDecoder),
    /// Bedrock's event stream, decoded by the SDK into typed events.
    Bedrock(
        aws_sdk_bedrockruntime::operation::converse_stream::ConverseStreamOutput,
        bedrock::Decoder,
    ),
}

/// An answer being streamed. Dropping it closes the connection, which stops the model.
pub struct ModelStream {
    source: Source,
    pending: VecDeque<Event>,
    ended: bool,
    deadline: Instant,
    /// The request's size, for the usage estimate.
    request_bytes: u64,
    /// The usage the provider reported, once it has.
    reported: Option<Usage>,
    /// What cached input costs against the allowance.
    price: CachePrice,
}

impl ModelStream {
    fn new(
        source: Source,
        deadline: Instant,
        request_bytes: u64,
        price: CachePrice,
    ) -> ModelStream {
        ModelStream {
            source,
            pending: VecDeque::new(),
            ended: false,
            deadline,
            request_bytes,
            reported: None,
            price,
        }
    }

    /// Reads the first bytes: `false` when the body is empty (the server closed the stream
    /// without a byte). What was read is decoded, for `next` to hand out.
    async fn starts(&mut self) -> Result<bool, ModelError> {
        let Source::Http(Some(response), decoder) = &mut self.source else {
            return Ok(true);
        };
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(remaining, response.chunk()).await {
            Err(_) => Err(ModelError::new(
                ErrorKind::Timeout,
                "the model stream did not start in time",
            )),
            Ok(Err(e)) => Err(ModelError::new(
                ErrorKind::Truncated,
                format!("the model stream broke off: {e}"),
            )),
            Ok(Ok(None)) => Ok(false),
            Ok(Ok(Some(bytes))) => {
                decoder.push(&bytes, &mut self.pending)?;
                Ok(true)
            }
        }
    }

    /// The next event; `None` after `Done` or after an error.
    pub async fn next(&mut self) -> Option<Result<Event, ModelError>> {
        loop {
            if let Some(mut ev) = self.pending.pop_front() {
                if let Event::Usage(u) = &mut ev {
                    u.charged_tokens = u.charge(self.price);
                    self.reported = Some(*u);
                }
                return Some(Ok(ev));
            }
            if self.ended {
                return None;
            }
            let remaining = self.deadline.saturating_duration_since(Instant::now());
            let late = || {
                ModelError::new(
                    ErrorKind::Timeout,
                    "the model stream did not finish in time",
                )
            };
            let result = match &mut self.source {
                Source::Http(None, _) => {
                    self.ended = true;
                    return None;
                }
                Source::Http(Some(response), decoder) => {
                    match tokio::time::timeout(remaining, response.chunk()).await {
                        Err(_) => Err(late()),
                        Ok(Err(e)) => Err(ModelError::new(
                            ErrorKind::Truncated,
                            format!("the model stream broke off: {e}"),
                        )),
                        Ok(Ok(Some(bytes))) => decoder.push(&bytes, &mut self.pending),
                        Ok(Ok(None)) => {
                            self.ended = true;
                            decoder.finish(&mut self.pending)
                        }
                    }
                }
                Source::Bedrock(output, decoder) => {
                    match tokio::time::timeout(remaining, output.stream.recv()).await {
                        Err(_) => Err(late()),
                        Ok(Err(e)) => Err(bedrock::stream_error(e)),
                        Ok(Ok(Some(event))) => decoder.event(event, &mut self.pending),
                        Ok(Ok(None)) => {
                            self.ended = true;
                            decoder.eof(&mut self.pending)
                        }
                    }
                }
            };
            if let Err(e) = result {
                self.ended = true;
                self.pending.clear();
                return Some(Err(e));
            }
            if self.pending.iter().any(|e| matches!(e, Event::Done(_))) {
                self.ended = true;
            }
        }
    }

    /// The model's turn so far, as it must be sent back in the next request.
    pub fn turn(&self) -> Turn {
        match &self.source {
            Source::Http(_, decoder) => decoder.turn(),
            Source::Bedrock(_, decoder) => decoder.turn(),
        }
    }

    /// What the call cost: the provider's figures, or, when it reported none (yet), an estimate
    /// from the request's size and the answer so far, so that no answer goes uncounted.
    pub fn usage(&self) -> Usage {
        if let Some(u) = self.reported {
            return u;
        }
        let turn = self.turn();
        let answer_bytes: u64 = turn
            .parts
            .iter()
            .map(|p| match p {
                Part::Text { text, .. } => text.len() as u64,
                Part::Call(c) => (c.name.len() + c.args.to_string().len()) as u64,
                Part::Result(r) => r.content.to_string().len() as u64,
            })
            .sum();
        Usage::new(
            self.request_bytes.div_ceil(BYTES_PER_TOKEN),
            answer_bytes.div_ceil(BYTES_PER_TOKEN),
            0,
            0,
            self.price,
        )
    }
}

/// The prompt-cache key of a lifter's requests: a hash of their id (the provider learns which
/// requests share a prefix, never who sent them).
pub fn cache_key(user_id: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("coach prompt cache\n{user_id}").as_bytes());
    let hex: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    format!("coach-{hex}")
}

/// A call id of our own, for providers that send none.
fn made_up_call_id(n: usize) -> String {
    format!("call_{n}")
}

/// A tool call's arguments streamed as JSON fragments, once whole: a JSON object (nothing at all
/// is `{}`), else `{}` with the fragments as written (`ToolCall::malformed`: small models write
/// Python dicts and cut JSON; the model is told, rather than the answer ended).
fn streamed_arguments(fragments: &str) -> (Value, Option<String>) {
    if fragments.trim().is_empty() {
        return (Value::Object(serde_json::Map::new()), None);
    }
    match serde_json::from_str::<Value>(fragments) {
        Ok(v @ Value::Object(_)) => (v, None),
        _ => (
            Value::Object(serde_json::Map::new()),
            Some(fragments.to_string()),
        ),
    }
}

/// The model's turn from its streamed text and its finished calls.
fn streamed_turn(text: &str, calls: &[ToolCall]) -> Turn {
    let mut parts = Vec::new();
    if !text.is_empty() {
        parts.push(Part::text(text));
    }
    parts.extend(calls.iter().cloned().map(Part::Call));
    Turn {
        role: Role::Model,
        parts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: std::collections::HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn no_model_variable_means_no_model() {
        assert_eq!(
            ModelConfig::from_vars(ModelLane::Slow, vars(&[("GEMINI_API_KEY", "k")])),
            Ok(None)
        );
    }

    #[test]
    fn lane_defaults_and_overrides() {
        let c = ModelConfig::from_vars(
            ModelLane::Functional,
            vars(&[
                ("FUNCTIONAL_MODEL", "gemini-2.5-flash"),
                ("GEMINI_API_KEY", "k"),
            ]),
        )
        .expect("valid")
        .expect("configured");
        assert_eq!(c.provider, Provider::Gemini);
        assert_eq!(c.temperature, 0.0);
        assert_eq!(c.thinking_budget, Some(0));
        assert_eq!(c.base_url, GEMINI_DEFAULT_BASE);
        let c = ModelConfig::from_vars(
            ModelLane::Slow,
            vars(&[
                ("SLOW_MODEL", "qwen"),
                ("MODEL_PROVIDER", "openai"),
                ("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1/"),
                ("SLOW_TEMPERATURE", "0.7"),
            ]),
        )
        .expect("valid")
        .expect("configured");
        assert_eq!(c.provider, Provider::OpenAi);
        assert_eq!(c.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(c.temperature, 0.7);
        assert_eq!(c.api_key, None);
    }

    #[test]
    fn bedrock_needs_no_key() {
        let c = ModelConfig::from_vars(
            ModelLane::Slow,
            vars(&[
                ("SLOW_MODEL", "amazon.nova-lite-v1:0"),
                ("MODEL_PROVIDER", "bedrock"),
            ]),
        )
        .expect("valid")
        .expect("configured");
        assert_eq!(c.provider, Provider::Bedrock);
        assert_eq!(
            (c.api_key, c.model.as_str()),
            (None, "amazon.nova-lite-v1:0")
        );
    }

    #[test]
    fn bad_settings_are_named() {
        let e = ModelConfig::from_vars(
            ModelLane::Slow,
            vars(&[("SLOW_MODEL", "m"), ("MODEL_PROVIDER", "claude")]),
        )
        .expect_err("unknown provider");
        assert!(e.contains("MODEL_PROVIDER"), "{e}");
        let e = ModelConfig::from_vars(ModelLane::Slow, vars(&[("SLOW_MODEL", "m")]))
            .expect_err("gemini needs a key");
        assert!(e.contains("GEMINI_API_KEY"), "{e}");
        let e = ModelConfig::from_vars(
            ModelLane::Worker,
            vars(&[
                ("WORKER_MODEL", "m"),
                ("GEMINI_API_KEY", "k"),
                ("WORKER_TEMPERATURE", "hot"),
            ]),
        )
        .expect_err("temperature must be a number");
        assert!(e.contains("WORKER_TEMPERATURE"), "{e}");
    }
}
