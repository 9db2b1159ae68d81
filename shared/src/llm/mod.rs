//! `llm::Model`, the port to a language model: one request in, a stream of
//! `TextDelta | ToolCall | Usage | Done` out, whatever the provider.
//!
//! - `gemini`: `streamGenerateContent?alt=sse` with function declarations and thought signatures;
//! - `openai`: OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp, Ollama, OpenRouter);
//! - `sse`: the one event-stream parser both use; `retry`: errors, retry hints and backoff.
//!
//! The conversation is provider-neutral (`Turn`s of `Part`s); each adapter writes it in its own
//! wire format and rebuilds the model's turn exactly as it must be sent back (`ModelStream::turn`).
//! Wire-format facts: `../shared/reference/llm-wire-formats.md`.

mod gemini;
mod openai;
pub(crate) mod retry;
pub mod sse;

use std::collections::VecDeque;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use tokio::time::Instant;

pub use retry::{ErrorKind, MAX_ATTEMPTS, ModelError};

/// Which wire format a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Gemini,
    OpenAi,
}

impl Provider {
    pub fn parse(s: &str) -> Option<Provider> {
        match s.trim().to_ascii_lowercase().as_str() {
            "gemini" | "google" => Some(Provider::Gemini),
            "openai" | "openai-compatible" => Some(Provider::OpenAi),
            _ => None,
        }
    }
}

pub const GEMINI_DEFAULT_BASE: &str = "https://generativelanguage.googleapis.com/v1beta";
pub const OPENAI_DEFAULT_BASE: &str = "https://api.openai.com/v1";

/// One lane's model settings, from the environment (README "Configuration").
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    pub provider: Provider,
    pub model: String,
    pub base_url: String,
    pub api_key: Option<String>,
    pub temperature: f32,
    pub max_output_tokens: u32,
    /// Gemini `thinkingBudget` (0 = off); `None` leaves the model's default.
    pub thinking_budget: Option<i32>,
    /// OpenAI-style token-limit field: `max_tokens`, or `max_completion_tokens` for reasoning models.
    pub max_tokens_field: String,
}

/// The lanes that may call a model, with their default temperature and thinking budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelLane {
    Slow,
    Functional,
    Worker,
}

impl ModelLane {
    pub(crate) fn prefix(self) -> &'static str {
        match self {
            ModelLane::Slow => "SLOW",
            ModelLane::Functional => "FUNCTIONAL",
            ModelLane::Worker => "WORKER",
        }
    }

    fn default_temperature(self) -> f32 {
        match self {
            ModelLane::Slow => 0.3,
            ModelLane::Functional => 0.0,
            ModelLane::Worker => 0.2,
        }
    }

    fn default_max_output_tokens(self) -> u32 {
        match self {
            ModelLane::Slow => 2048,
            ModelLane::Functional => 256,
            ModelLane::Worker => 1024,
        }
    }

    /// Thinking is off on the functional lane's fast path (an 800 ms budget leaves no room).
    fn default_thinking_budget(self) -> Option<i32> {
        match self {
            ModelLane::Functional => Some(0),
            _ => None,
        }
    }
}

impl ModelConfig {
    /// Reads `<LANE>_MODEL`, `<LANE>_MODEL_PROVIDER` (else `MODEL_PROVIDER`, default gemini),
    /// `<LANE>_TEMPERATURE`, `<LANE>_MAX_OUTPUT_TOKENS`, `<LANE>_THINKING_BUDGET`, and the
    /// provider's `*_BASE_URL` / `*_API_KEY`.
    pub fn from_vars(
        lane: ModelLane,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<ModelConfig>, String> {
        let p = lane.prefix();
        let get = |k: &str| {
            var(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let Some(model) = get(&format!("{p}_MODEL")) else {
            return Ok(None);
        };
        let provider_var = format!("{p}_MODEL_PROVIDER");
        let provider = match get(&provider_var).or_else(|| get("MODEL_PROVIDER")) {
            None => Provider::Gemini,
            Some(s) => Provider::parse(&s).ok_or_else(|| {
                format!("{provider_var} / MODEL_PROVIDER is '{s}'; use gemini or openai")
            })?,
        };
        let number =
            |name: String, default: f64, range: std::ops::RangeInclusive<f64>| match get(&name) {
                None => Ok(default),
                Some(s) => s
                    .parse::<f64>()
                    .ok()
                    .filter(|v| range.contains(v))
                    .ok_or_else(|| {
                        format!(
                            "{name} is '{s}'; use a number from {} to {}",
                            range.start(),
                            range.end()
                        )
                    }),
            };
        let temperature = number(
            format!("{p}_TEMPERATURE"),
            f64::from(lane.default_temperature()),
            0.0..=2.0,
        )? as f32;
        let max_output_tokens = number(
            format!("{p}_MAX_OUTPUT_TOKENS"),
            f64::from(lane.default_max_output_tokens()),
            1.0..=65_536.0,
        )? as u32;
        let thinking_budget = match get(&format!("{p}_THINKING_BUDGET")) {
            None => lane.default_thinking_budget(),
            Some(s) => Some(s.parse::<i32>().ok().filter(|b| *b >= -1).ok_or_else(|| {
                format!("{p}_THINKING_BUDGET is '{s}'; use -1 (dynamic), 0 (off) or a token cap")
            })?),
        };
        let (base_url, api_key) = match provider {
            Provider::Gemini => {
                let key = get("GEMINI_API_KEY").ok_or_else(|| {
                    format!("{p}_MODEL is set but GEMINI_API_KEY is not; set the key (deployed: the secret in MODEL_API_KEY_SECRET_ARN)")
                })?;
                (
                    get("GEMINI_BASE_URL").unwrap_or_else(|| GEMINI_DEFAULT_BASE.into()),
                    Some(key),
                )
            }
            Provider::OpenAi => (
                get("OPENAI_BASE_URL").unwrap_or_else(|| OPENAI_DEFAULT_BASE.into()),
                get("OPENAI_API_KEY"),
            ),
        };
        let max_tokens_field =
            get("OPENAI_MAX_TOKENS_FIELD").unwrap_or_else(|| "max_tokens".to_string());
        if !matches!(
            max_tokens_field.as_str(),
            "max_tokens" | "max_completion_tokens"
        ) {
            return Err(format!(
                "OPENAI_MAX_TOKENS_FIELD is '{max_tokens_field}'; use max_tokens or max_completion_tokens"
            ));
        }
        Ok(Some(ModelConfig {
            provider,
            model,
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            temperature,
            max_output_tokens,
            thinking_budget,
            max_tokens_field,
        }))
    }
}

/// The process's one HTTP client for model calls (rustls, connection pooling), built in main.
pub fn http_client() -> Result<reqwest::Client, String> {
    crate::tls::reqwest_builder()
        .connect_timeout(Duration::from_secs(5))
        .pool_idle_timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| format!("cannot build the model HTTP client: {e}"))
}

/// A tool the model may call; `parameters` is a JSON Schema subset both providers accept
/// (lower-case types, no `additionalProperties`, `const` or type arrays).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Role {
    User,
    Model,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub role: Role,
    pub parts: Vec<Part>,
}

impl Turn {
    pub fn user(text: impl Into<String>) -> Turn {
        Turn {
            role: Role::User,
            parts: vec![Part::text(text)],
        }
    }

    pub fn model(text: impl Into<String>) -> Turn {
        Turn {
            role: Role::Model,
            parts: vec![Part::text(text)],
        }
    }

    /// The visible text of the turn.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.parts.iter().filter_map(|p| match p {
            Part::Call(c) => Some(c),
            _ => None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// Text; on Gemini a part may carry a thought signature that must go back with it.
    Text {
        text: String,
        signature: Option<String>,
    },
    Call(ToolCall),
    Result(ToolResult),
}

impl Part {
    pub fn text(text: impl Into<String>) -> Part {
        Part::Text {
            text: text.into(),
            signature: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// Ours to match results with: the provider's id, or one we made when it sent none.
    pub id: String,
    /// Whether `id` came from the provider (Gemini echoes it only then).
    pub provider_id: bool,
    pub name: String,
    /// Always a JSON object.
    pub args: Value,
    pub signature: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub call_id: String,
    pub provider_id: bool,
    pub name: String,
    pub content: Value,
}

impl ToolResult {
    pub fn for_call(call: &ToolCall, content: Value) -> ToolResult {
        ToolResult {
            call_id: call.id.clone(),
            provider_id: call.provider_id,
            name: call.name.clone(),
            content,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    pub system: String,
    pub turns: Vec<Turn>,
    pub tools: Vec<ToolSpec>,
    /// Ask for a JSON object as the answer.
    pub json_output: bool,
}

pub use crate::domain::usage::Usage;

/// Bytes of text per token, for an estimate where a provider reports no usage (a server without
/// usage in its stream, a stream that broke off): about four for English.
const BYTES_PER_TOKEN: u64 = 4;

/// A whole answer and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub turn: Turn,
    pub usage: Usage,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    Stop,
    ToolCalls,
    MaxTokens,
    Other(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    TextDelta(String),
    ToolCall(ToolCall),
    Usage(Usage),
    Done(Finish),
}

/// A model with its settings and the process's HTTP client.
#[derive(Debug, Clone)]
pub struct Model {
    pub config: ModelConfig,
    http: reqwest::Client,
}

impl Model {
    pub fn new(config: ModelConfig, http: reqwest::Client) -> Model {
        Model { config, http }
    }

    /// Opens the stream, retrying 429 (with the server's hint), 5xx and connection errors with
    /// jittered backoff while `deadline` allows. Once the response has started, nothing is
    /// retried here: text may already have reached the lifter.
    pub async fn stream(
        &self,
        req: &Request,
        deadline: Instant,
    ) -> Result<ModelStream, ModelError> {
        let (url, body) = match self.config.provider {
            Provider::Gemini => gemini::request(&self.config, req),
            Provider::OpenAi => openai::request(&self.config, req),
        };
        let body = body.to_string();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let err = match self.send(&url, &body, deadline).await {
                Ok(response) => {
                    return Ok(ModelStream {
                        response,
                        decoder: StreamDecoder::new(self.config.provider),
                        pending: VecDeque::new(),
                        ended: false,
                        deadline,
                        request_bytes: body.len() as u64,
                        reported: None,
                    });
                }
                Err(e) => e,
            };
            let remaining = deadline.saturating_duration_since(Instant::now());
            match retry::delay_before_retry(&err, attempt, remaining) {
                Some(delay) => {
                    tracing::warn!(attempt, status = ?err.status, delay_ms = delay.as_millis() as u64, "model call failed, retrying: {}", err.message);
                    tokio::time::sleep(delay).await;
                }
                None => return Err(err),
            }
        }
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
        let mut rb = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_string());
        rb = match self.config.provider {
            Provider::Gemini => rb.header(
                "x-goog-api-key",
                self.config.api_key.as_deref().unwrap_or(""),
            ),
            // Local servers ignore the key but some reject an empty bearer.
            Provider::OpenAi => rb.header(
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
    pub fn new(provider: Provider) -> StreamDecoder {
        StreamDecoder {
            sse: sse::SseParser::default(),
            decoder: match provider {
                Provider::Gemini => Decoder::Gemini(gemini::Decoder::default()),
                Provider::OpenAi => Decoder::OpenAi(openai::Decoder::default()),
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

/// An answer being streamed. Dropping it closes the connection, which stops the model.
pub struct ModelStream {
    response: reqwest::Response,
    decoder: StreamDecoder,
    pending: VecDeque<Event>,
    ended: bool,
    deadline: Instant,
    /// The request's size, for the usage estimate.
    request_bytes: u64,
    /// The usage the provider reported, once it has.
    reported: Option<Usage>,
}

impl ModelStream {
    /// The next event; `None` after `Done` or after an error.
    pub async fn next(&mut self) -> Option<Result<Event, ModelError>> {
        loop {
            if let Some(ev) = self.pending.pop_front() {
                if let Event::Usage(u) = &ev {
                    self.reported = Some(*u);
                }
                return Some(Ok(ev));
            }
            if self.ended {
                return None;
            }
            let remaining = self.deadline.saturating_duration_since(Instant::now());
            let chunk = match tokio::time::timeout(remaining, self.response.chunk()).await {
                Err(_) => {
                    self.ended = true;
                    return Some(Err(ModelError::new(
                        ErrorKind::Timeout,
                        "the model stream did not finish in time",
                    )));
                }
                Ok(Err(e)) => {
                    self.ended = true;
                    return Some(Err(ModelError::new(
                        ErrorKind::Truncated,
                        format!("the model stream broke off: {e}"),
                    )));
                }
                Ok(Ok(c)) => c,
            };
            let result = match chunk {
                Some(bytes) => self.decoder.push(&bytes, &mut self.pending),
                None => {
                    self.ended = true;
                    self.decoder.finish(&mut self.pending)
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
        self.decoder.turn()
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
        let input_tokens = self.request_bytes.div_ceil(BYTES_PER_TOKEN);
        let output_tokens = answer_bytes.div_ceil(BYTES_PER_TOKEN);
        Usage {
            input_tokens,
            output_tokens,
            total_tokens: input_tokens + output_tokens,
        }
    }
}

/// A call id of our own, for providers that send none.
fn made_up_call_id(n: usize) -> String {
    format!("call_{n}")
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
