//! Amazon Bedrock's ConverseStream (`aws-sdk-bedrockruntime`): one API for the Anthropic, Amazon
//! Nova, Meta and Mistral models on Bedrock, signed with the function's role (no key).
//!
//! The request is the neutral conversation in Converse's shapes (system blocks, alternating
//! user/assistant messages, `toolUse` / `toolResult` blocks, `toolConfig` with automatic choice).
//! The answer is an AWS event stream: `messageStart`, content blocks (text deltas; a `toolUse`
//! start with id and name, then its input as JSON fragments), `messageStop` with the stop
//! reason, then `metadata` with the usage. The turn is complete once the stream ends after a
//! `messageStop`; an end before it is a truncated stream.
//!
//! The SDK's own retries are off: throttling and 5xx go through the same policy as every other
//! provider's 429 and 5xx (`retry`), inside the invocation's deadline.

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use aws_sdk_bedrockruntime::config::StalledStreamProtectionConfig;
use aws_sdk_bedrockruntime::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_bedrockruntime::operation::converse_stream::ConverseStreamError;
use aws_sdk_bedrockruntime::operation::converse_stream::builders::ConverseStreamFluentBuilder;
use aws_sdk_bedrockruntime::types::error::ConverseStreamOutputError;
use aws_sdk_bedrockruntime::types::{
    AutoToolChoice, CachePointBlock, CachePointType, ContentBlock, ContentBlockDelta,
    ContentBlockStart, ConversationRole, ConverseStreamOutput, InferenceConfiguration, Message,
    StopReason, SystemContentBlock, Tool, ToolChoice, ToolConfiguration, ToolInputSchema,
    ToolResultBlock, ToolResultContentBlock, ToolSpecification, ToolUseBlock,
};
use aws_smithy_types::{Document, Number};
use serde_json::{Value, json};

use super::{
    CachePrice, ErrorKind, Event, Finish, ModelConfig, ModelError, Part, PromptCache, Request,
    Role, ToolCall, Turn, Usage, streamed_arguments, streamed_turn,
};

/// Time to open a connection to Bedrock; the answer itself is bounded by the caller's deadline.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The Bedrock client for a model lane, from the process's AWS configuration (region,
/// credentials, `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`). The store's short operation timeouts and
/// the SDK's retries do not apply: an answer streams for as long as the deadline allows, and a
/// throttled call is retried by `Model::stream`. Stalled-stream protection is off because a
/// model may think for seconds before its first byte; the deadline bounds a stalled stream.
pub(super) fn client(aws: &aws_config::SdkConfig) -> aws_sdk_bedrockruntime::Client {
    let config = aws_sdk_bedrockruntime::config::Builder::from(aws)
        .retry_config(aws_smithy_types::retry::RetryConfig::disabled())
        .timeout_config(
            aws_smithy_types::timeout::TimeoutConfig::builder()
                .connect_timeout(CONNECT_TIMEOUT)
                .build(),
        )
        .stalled_stream_protection(StalledStreamProtectionConfig::disabled())
        .build();
    aws_sdk_bedrockruntime::Client::from_conf(config)
}

fn built(what: &str, e: aws_smithy_types::error::operation::BuildError) -> ModelError {
    ModelError::new(ErrorKind::Malformed, format!("Bedrock {what}: {e}"))
}

/// One turn as a Converse message (its size in bytes added to `bytes`): text, tool use, and
/// tool results as text.
fn message(turn: &Turn, bytes: &mut u64) -> Result<Message, ModelError> {
    let mut content = Vec::new();
    for part in &turn.parts {
        match part {
            // Converse rejects a blank text block.
            Part::Text { text, .. } if text.trim().is_empty() => {}
            Part::Text { text, .. } => {
                *bytes += text.len() as u64;
                content.push(ContentBlock::Text(text.clone()));
            }
            Part::Call(c) => {
                *bytes += (c.name.len() + c.args.to_string().len()) as u64;
                let block = ToolUseBlock::builder()
                    .tool_use_id(&c.id)
                    .name(&c.name)
                    .input(document(&c.args))
                    .build()
                    .map_err(|e| built("tool use", e))?;
                content.push(ContentBlock::ToolUse(block));
            }
            Part::Result(r) => {
                // As text: every model on Converse takes text results; not all take JSON.
                let text = match &r.content {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                *bytes += text.len() as u64;
                let block = ToolResultBlock::builder()
                    .tool_use_id(&r.call_id)
                    .content(ToolResultContentBlock::Text(text))
                    .build()
                    .map_err(|e| built("tool result", e))?;
                content.push(ContentBlock::ToolResult(block));
            }
        }
    }
    if content.is_empty() {
        // Messages must alternate and none may be empty.
        content.push(ContentBlock::Text("(no text)".into()));
    }
    let role = match turn.role {
        Role::User => ConversationRole::User,
        Role::Model => ConversationRole::Assistant,
    };
    Message::builder()
        .role(role)
        .set_content(Some(content))
        .build()
        .map_err(|e| built("message", e))
}

/// The ConverseStream call for `req`, and its size in bytes (for a usage estimate).
pub(super) fn request(
    client: &aws_sdk_bedrockruntime::Client,
    cfg: &ModelConfig,
    req: &Request,
) -> Result<(ConverseStreamFluentBuilder, u64), ModelError> {
    let mut bytes = req.system.len() as u64;
    let mut call = client
        .converse_stream()
        .model_id(&cfg.model)
        .inference_config(
            InferenceConfiguration::builder()
                .max_tokens(i32::try_from(cfg.max_output_tokens).unwrap_or(i32::MAX))
                .temperature(cfg.temperature)
                .build(),
        );
    // A cache point closes each part of the fixed prefix: the instruction, then the tools.
    let caching = cfg.prompt_cache == PromptCache::CachePoints;
    let cache_point = || {
        CachePointBlock::builder()
            .r#type(CachePointType::Default)
            .build()
            .map_err(|e| built("cache point", e))
    };
    if !req.system.is_empty() {
        call = call.system(SystemContentBlock::Text(req.system.clone()));
        if caching {
            call = call.system(SystemContentBlock::CachePoint(cache_point()?));
        }
    }
    for turn in &req.turns {
        call = call.messages(message(turn, &mut bytes)?);
    }
    // Converse has no "none" choice: on a turn that may call no tool (`no_calls`) the tools stay
    // declared, as Converse requires while the history holds tool use, and the caller ignores
    // a call.
    if !req.tools.is_empty() {
        let mut tools = ToolConfiguration::builder()
            .tool_choice(ToolChoice::Auto(AutoToolChoice::builder().build()));
        for t in &req.tools {
            let schema = t
                .parameters
                .clone()
                .unwrap_or_else(|| json!({ "type": "object", "properties": {} }));
            bytes += (t.name.len() + t.description.len() + schema.to_string().len()) as u64;
            let spec = ToolSpecification::builder()
                .name(&t.name)
                .description(&t.description)
                .input_schema(ToolInputSchema::Json(document(&schema)))
                .build()
                .map_err(|e| built("tool", e))?;
            tools = tools.tools(Tool::ToolSpec(spec));
        }
        if caching && super::bedrock_caches_tools(&cfg.model) {
            tools = tools.tools(Tool::CachePoint(cache_point()?));
        }
        call = call.tool_config(tools.build().map_err(|e| built("tool configuration", e))?);
    }
    // `json_output`: Converse has no JSON mode common to its models; the callers that ask for
    // JSON say so in their instruction and parse the answer.
    Ok((call, bytes))
}

/// A JSON value as the SDK's document type.
fn document(v: &Value) -> Document {
    match v {
        Value::Null => Document::Null,
        Value::Bool(b) => Document::Bool(*b),
        Value::Number(n) => Document::Number(if let Some(u) = n.as_u64() {
            Number::PosInt(u)
        } else if let Some(i) = n.as_i64() {
            Number::NegInt(i)
        } else {
            Number::Float(n.as_f64().unwrap_or(0.0))
        }),
        Value::String(s) => Document::String(s.clone()),
        Value::Array(a) => Document::Array(a.iter().map(document).collect()),
        Value::Object(o) => {
            Document::Object(o.iter().map(|(k, v)| (k.clone(), document(v))).collect())
        }
    }
}

#[derive(Debug, Default)]
struct PendingCall {
    id: String,
    name: String,
    input: String,
}

/// The events of one ConverseStream answer turned into the port's events.
#[derive(Debug, Default)]
pub(super) struct Decoder {
    text: String,
    /// Tool-use blocks by content-block index.
    calls: BTreeMap<i32, PendingCall>,
    stop: Option<StopReason>,
    usage: Option<Usage>,
    done: bool,
    finished_calls: Vec<ToolCall>,
}

impl Decoder {
    pub(super) fn event(
        &mut self,
        event: ConverseStreamOutput,
        out: &mut VecDeque<Event>,
    ) -> Result<(), ModelError> {
        match event {
            ConverseStreamOutput::ContentBlockStart(e) => {
                if let Some(ContentBlockStart::ToolUse(t)) = e.start {
                    let call = self.calls.entry(e.content_block_index).or_default();
                    call.id = t.tool_use_id;
                    call.name = t.name;
                }
            }
            ConverseStreamOutput::ContentBlockDelta(e) => match e.delta {
                Some(ContentBlockDelta::Text(t)) if !t.is_empty() => {
                    self.text.push_str(&t);
                    out.push_back(Event::TextDelta(t));
                }
                Some(ContentBlockDelta::ToolUse(d)) => {
                    self.calls
                        .entry(e.content_block_index)
                        .or_default()
                        .input
                        .push_str(&d.input);
                }
                // Reasoning is thinking, never answer text; citations and images are not asked for.
                _ => {}
            },
            ConverseStreamOutput::MessageStop(e) => self.stop = Some(e.stop_reason),
            ConverseStreamOutput::Metadata(e) => {
                if let Some(u) = e.usage {
                    let n = |v: i32| u64::try_from(v).unwrap_or(0);
                    // Converse's `inputTokens` leaves out what was read from or written to
                    // the cache; ours counts every input token.
                    let read = n(u.cache_read_input_tokens.unwrap_or(0));
                    let written = n(u.cache_write_input_tokens.unwrap_or(0));
                    self.usage = Some(Usage::new(
                        n(u.input_tokens) + read + written,
                        n(u.output_tokens),
                        read,
                        written,
                        CachePrice::WHOLE,
                    ));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The end of the stream: the calls, the usage and the finish, once `messageStop` came.
    pub(super) fn eof(&mut self, out: &mut VecDeque<Event>) -> Result<(), ModelError> {
        if self.done {
            return Ok(());
        }
        self.done = true;
        let Some(stop) = self.stop.take() else {
            return Err(ModelError::new(
                ErrorKind::Truncated,
                "the Bedrock stream ended before messageStop",
            ));
        };
        for (_, c) in std::mem::take(&mut self.calls) {
            if c.name.is_empty() || c.id.is_empty() {
                return Err(ModelError::new(
                    ErrorKind::Malformed,
                    "a Bedrock tool use without its start (id and name)",
                ));
            }
            let (args, malformed) = streamed_arguments(&c.input);
            self.finished_calls.push(ToolCall {
                id: c.id,
                provider_id: true,
                name: c.name,
                args,
                signature: None,
                malformed,
            });
        }
        for c in &self.finished_calls {
            out.push_back(Event::ToolCall(c.clone()));
        }
        let finish = match stop {
            _ if !self.finished_calls.is_empty() => Finish::ToolCalls,
            StopReason::EndTurn | StopReason::StopSequence | StopReason::ToolUse => Finish::Stop,
            StopReason::MaxTokens => Finish::MaxTokens,
            StopReason::ContentFiltered | StopReason::GuardrailIntervened
                if self.text.is_empty() =>
            {
                return Err(ModelError::new(
                    ErrorKind::Blocked,
                    format!("Bedrock stopped the answer: {}", stop.as_str()),
                ));
            }
            StopReason::MalformedToolUse | StopReason::MalformedModelOutput => {
                return Err(ModelError::new(
                    ErrorKind::Malformed,
                    format!(
                        "Bedrock: the model's output was not valid ({})",
                        stop.as_str()
                    ),
                ));
            }
            StopReason::ModelContextWindowExceeded => {
                return Err(ModelError::new(
                    ErrorKind::Rejected,
                    "Bedrock: the conversation is longer than the model's context window",
                ));
            }
            other => Finish::Other(other.as_str().to_string()),
        };
        if let Some(u) = self.usage {
            out.push_back(Event::Usage(u));
        }
        out.push_back(Event::Done(finish));
        Ok(())
    }

    pub(super) fn turn(&self) -> Turn {
        streamed_turn(&self.text, &self.finished_calls)
    }
}

/// A ConverseStream call that failed before its stream: throttling is a 429, unavailable and
/// internal errors are 5xx (both retried); validation, access and unknown models are ours to fix.
pub(super) fn call_error(
    e: SdkError<ConverseStreamError, aws_smithy_runtime_api::http::Response>,
) -> ModelError {
    use ConverseStreamError as E;
    let status = match &e {
        SdkError::ServiceError(s) => Some(s.raw().status().as_u16()),
        _ => None,
    };
    let mut err = sdk_error(&e, |service| match service {
        E::ThrottlingException(_) => ErrorKind::RateLimited,
        E::ServiceUnavailableException(_)
        | E::InternalServerException(_)
        | E::ModelNotReadyException(_)
        | E::ModelTimeoutException(_)
        | E::ModelStreamErrorException(_) => ErrorKind::Unavailable,
        E::ModelErrorException(_) => ErrorKind::Unavailable,
        E::AccessDeniedException(_)
        | E::ResourceNotFoundException(_)
        | E::ValidationException(_) => ErrorKind::Rejected,
        _ => match status {
            Some(429) => ErrorKind::RateLimited,
            Some(408 | 500..=599) => ErrorKind::Unavailable,
            _ => ErrorKind::Rejected,
        },
    });
    err.status = status;
    err
}

/// An exception inside the stream, after it started (never retried: text may have been shown).
pub(super) fn stream_error(
    e: SdkError<ConverseStreamOutputError, aws_smithy_types::event_stream::RawMessage>,
) -> ModelError {
    use ConverseStreamOutputError as E;
    if !matches!(e, SdkError::ServiceError(_)) {
        // The body broke off or could not be framed: the answer is cut short.
        return ModelError::new(
            ErrorKind::Truncated,
            format!(
                "the Bedrock stream broke off: {}",
                aws_sdk_bedrockruntime::error::DisplayErrorContext(&e)
            ),
        );
    }
    sdk_error(&e, |service| match service {
        E::ThrottlingException(_) => ErrorKind::RateLimited,
        E::ValidationException(_) => ErrorKind::Rejected,
        _ => ErrorKind::Unavailable,
    })
}

fn sdk_error<E, R>(e: &SdkError<E, R>, kind_of: impl Fn(&E) -> ErrorKind) -> ModelError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    // The SDK's top-level messages are generic ("dispatch failure"); the context names the cause.
    let context = || aws_sdk_bedrockruntime::error::DisplayErrorContext(e).to_string();
    match e {
        SdkError::ServiceError(s) => {
            let service = s.err();
            let mut kind = kind_of(service);
            let message = service.message().unwrap_or("no message");
            // "Too many tokens per day": not coming back within this request.
            if kind == ErrorKind::RateLimited && message.to_ascii_lowercase().contains("per day") {
                kind = ErrorKind::QuotaExhausted;
            }
            ModelError::new(
                kind,
                format!("Bedrock {}: {message}", service.code().unwrap_or("error")),
            )
        }
        SdkError::TimeoutError(_) => {
            ModelError::new(ErrorKind::Timeout, "Bedrock did not answer in time")
        }
        SdkError::DispatchFailure(d) if d.is_timeout() => {
            ModelError::new(ErrorKind::Timeout, "Bedrock did not answer in time")
        }
        SdkError::DispatchFailure(_) => ModelError::new(
            ErrorKind::Connect,
            format!("cannot reach Bedrock: {}", context()),
        ),
        SdkError::ResponseError(_) => ModelError::new(
            ErrorKind::Malformed,
            format!("an unreadable Bedrock answer: {}", context()),
        ),
        _ => ModelError::new(
            ErrorKind::Rejected,
            format!("the Bedrock request could not be made: {}", context()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_bedrockruntime::types::{
        ContentBlockDeltaEvent, ContentBlockStartEvent, ConverseStreamMetadataEvent,
        MessageStopEvent, TokenUsage, ToolUseBlockDelta, ToolUseBlockStart,
    };

    use super::*;

    fn start_tool(index: i32, id: &str, name: &str) -> ConverseStreamOutput {
        ConverseStreamOutput::ContentBlockStart(
            ContentBlockStartEvent::builder()
                .content_block_index(index)
                .start(ContentBlockStart::ToolUse(
                    ToolUseBlockStart::builder()
                        .tool_use_id(id)
                        .name(name)
                        .build()
                        .expect("tool start"),
                ))
                .build()
                .expect("start event"),
        )
    }

    fn delta(index: i32, delta: ContentBlockDelta) -> ConverseStreamOutput {
        ConverseStreamOutput::ContentBlockDelta(
            ContentBlockDeltaEvent::builder()
                .content_block_index(index)
                .delta(delta)
                .build()
                .expect("delta event"),
        )
    }

    fn input(s: &str) -> ContentBlockDelta {
        ContentBlockDelta::ToolUse(
            ToolUseBlockDelta::builder()
                .input(s)
                .build()
                .expect("input"),
        )
    }

    fn stop(reason: StopReason) -> ConverseStreamOutput {
        ConverseStreamOutput::MessageStop(
            MessageStopEvent::builder()
                .stop_reason(reason)
                .build()
                .expect("stop"),
        )
    }

    fn metadata(input: i32, output: i32) -> ConverseStreamOutput {
        ConverseStreamOutput::Metadata(
            ConverseStreamMetadataEvent::builder()
                .usage(
                    TokenUsage::builder()
                        .input_tokens(input)
                        .output_tokens(output)
                        .total_tokens(input + output)
                        .build()
                        .expect("usage"),
                )
                .build(),
        )
    }

    fn decode(events: Vec<ConverseStreamOutput>) -> (Vec<Event>, Result<(), ModelError>, Turn) {
        let mut d = Decoder::default();
        let mut out = VecDeque::new();
        for e in events {
            d.event(e, &mut out).expect("event");
        }
        let r = d.eof(&mut out);
        (out.into_iter().collect(), r, d.turn())
    }

    #[test]
    fn text_then_tool_uses_assembled_by_block_index_then_usage_and_finish() {
        let (events, r, turn) = decode(vec![
            delta(0, ContentBlockDelta::Text("Let me ".into())),
            delta(0, ContentBlockDelta::Text("look.".into())),
            start_tool(1, "tooluse_A", "get_progress"),
            start_tool(2, "tooluse_B", "now"),
            delta(1, input("{\"exercise\": \"Squat")),
            delta(2, input("")),
            delta(1, input(" (Barbell)\"}")),
            stop(StopReason::ToolUse),
            metadata(1200, 40),
        ]);
        r.expect("complete");
        assert_eq!(
            events,
            vec![
                Event::TextDelta("Let me ".into()),
                Event::TextDelta("look.".into()),
                Event::ToolCall(ToolCall {
                    id: "tooluse_A".into(),
                    provider_id: true,
                    name: "get_progress".into(),
                    args: json!({"exercise": "Squat (Barbell)"}),
                    signature: None,
                    malformed: None,
                }),
                Event::ToolCall(ToolCall {
                    id: "tooluse_B".into(),
                    provider_id: true,
                    name: "now".into(),
                    args: json!({}),
                    signature: None,
                    malformed: None,
                }),
                Event::Usage(Usage::new(1200, 40, 0, 0, CachePrice::WHOLE)),
                Event::Done(Finish::ToolCalls),
            ]
        );
        assert_eq!(turn.text(), "Let me look.");
        assert_eq!(turn.calls().count(), 2);
    }

    #[test]
    fn stop_reasons_map_onto_finishes_and_errors() {
        let (events, r, _) = decode(vec![
            delta(0, ContentBlockDelta::Text("a".into())),
            stop(StopReason::MaxTokens),
        ]);
        r.expect("complete");
        assert_eq!(events.last(), Some(&Event::Done(Finish::MaxTokens)));
        let (_, r, _) = decode(vec![stop(StopReason::GuardrailIntervened)]);
        assert_eq!(r.expect_err("blocked").kind, ErrorKind::Blocked);
        let (_, r, _) = decode(vec![stop(StopReason::ModelContextWindowExceeded)]);
        assert_eq!(r.expect_err("too long").kind, ErrorKind::Rejected);
        // Tool input that is not an object is the model's to correct: the call is kept, marked.
        let (events, r, _) = decode(vec![
            start_tool(0, "t", "log"),
            delta(0, input("[1, 2")),
            stop(StopReason::ToolUse),
        ]);
        r.expect("the answer goes on");
        let call = events.iter().find_map(|e| match e {
            Event::ToolCall(c) => Some(c),
            _ => None,
        });
        assert_eq!(
            call.and_then(|c| c.malformed.as_deref()),
            Some("[1, 2"),
            "{events:?}"
        );
    }

    #[test]
    fn a_stream_that_ends_before_message_stop_is_truncated() {
        let (events, r, _) = decode(vec![delta(0, ContentBlockDelta::Text("Half".into()))]);
        assert_eq!(r.expect_err("truncated").kind, ErrorKind::Truncated);
        assert!(!events.iter().any(|e| matches!(e, Event::Done(_))));
    }

    #[test]
    fn json_values_become_documents_with_their_number_kinds() {
        let d = document(&json!({"a": [1, -2, 2.5, null, true, "x"]}));
        let Document::Object(o) = d else {
            panic!("object expected")
        };
        assert_eq!(
            o.get("a"),
            Some(&Document::Array(vec![
                Document::Number(Number::PosInt(1)),
                Document::Number(Number::NegInt(-2)),
                Document::Number(Number::Float(2.5)),
                Document::Null,
                Document::Bool(true),
                Document::String("x".into()),
            ]))
        );
    }
}
