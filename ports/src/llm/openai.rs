//! OpenAI-compatible chat completions: `POST {base}/chat/completions` with `stream: true`.
//!
//! Tool calls stream as fragments keyed by `index`; id and name come with the first fragment of
//! an index and are never overwritten by later empty values; arguments are appended and parsed
//! once the stream is over (missing or empty arguments are `{}`). A tool turn is recognised by
//! the calls it holds, not by `finish_reason`. The stream ends at `data: [DONE]`; EOF before it
//! is a truncated stream.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Value, json};

use super::{
    CachePrice, ErrorKind, Event, Finish, ModelConfig, ModelError, Part, PromptCache, Request,
    Role, ToolCall, Turn, Usage, made_up_call_id, streamed_arguments, streamed_turn,
};

pub(super) fn request(cfg: &ModelConfig, req: &Request) -> (String, Value) {
    let url = format!("{}/chat/completions", cfg.base_url);
    let messages = messages(req);
    let mut body = json!({
        "model": cfg.model,
        "stream": true,
        "stream_options": { "include_usage": true },
        "temperature": cfg.temperature,
        "messages": messages,
    });
    body[cfg.max_tokens_field.as_str()] = json!(cfg.max_output_tokens);
    if !req.tools.is_empty() {
        body["tools"] = Value::Array(tools(req));
        body["tool_choice"] = json!(if req.no_calls { "none" } else { "auto" });
    }
    if req.json_output {
        body["response_format"] = json!({ "type": "json_object" });
    }
    match cfg.prompt_cache {
        PromptCache::Key => {
            if let Some(key) = &req.cache_key {
                body["prompt_cache_key"] = json!(key);
            }
        }
        PromptCache::LlamaCpp => body["cache_prompt"] = json!(true),
        PromptCache::Off | PromptCache::CachePoints => {}
    }
    (url, body)
}

/// The conversation as chat messages: the system text, then each turn (a user turn's tool
/// results as `tool` messages before its text; a model turn's calls as `tool_calls`).
fn messages(req: &Request) -> Vec<Value> {
    let mut messages = Vec::new();
    if !req.system.is_empty() {
        messages.push(json!({ "role": "system", "content": req.system }));
    }
    for turn in &req.turns {
        match turn.role {
            Role::User => {
                // Results first (they answer the previous assistant message), then any text.
                for p in &turn.parts {
                    if let Part::Result(r) = p {
                        let content = match &r.content {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        };
                        messages.push(
                            json!({ "role": "tool", "tool_call_id": r.call_id, "content": content }),
                        );
                    }
                }
                let text = turn.text();
                if !text.is_empty() || turn.parts.iter().all(|p| matches!(p, Part::Text { .. })) {
                    messages.push(json!({ "role": "user", "content": text }));
                }
            }
            Role::Model => {
                // Content "" rather than null: llama-server and Ollama reject null.
                let mut m = json!({ "role": "assistant", "content": turn.text() });
                let calls: Vec<Value> = turn
                    .calls()
                    .map(|c| {
                        json!({
                            "id": c.id,
                            "type": "function",
                            "function": { "name": c.name, "arguments": c.args.to_string() },
                        })
                    })
                    .collect();
                if !calls.is_empty() {
                    m["tool_calls"] = Value::Array(calls);
                }
                messages.push(m);
            }
        }
    }
    messages
}

/// The offered tools as functions (an empty object schema for a tool without parameters).
fn tools(req: &Request) -> Vec<Value> {
    req.tools
        .iter()
        .map(|t| {
            json!({
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters.clone()
                        .unwrap_or_else(|| json!({ "type": "object", "properties": {} })),
                }
            })
        })
        .collect()
}

/// A non-streamed `chat.completion` as the one streamed chunk that says the same (its message as
/// the delta, with each tool call's index), for the stream decoder.
pub(super) fn completion_as_chunk(body: &str) -> Result<Value, ModelError> {
    let v: Value = serde_json::from_str(body).map_err(|e| {
        ModelError::new(
            ErrorKind::Malformed,
            format!("a completion that is not JSON: {e}"),
        )
    })?;
    let choice = &v["choices"][0];
    if !choice.is_object() {
        return Err(ModelError::new(
            ErrorKind::Malformed,
            "a completion without choices",
        ));
    }
    let mut delta = json!({ "role": "assistant" });
    if let Some(text) = choice["message"]["content"].as_str() {
        delta["content"] = json!(text);
    }
    if let Some(calls) = choice["message"]["tool_calls"].as_array() {
        let indexed: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut c = c.clone();
                c["index"] = json!(i);
                c
            })
            .collect();
        delta["tool_calls"] = Value::Array(indexed);
    }
    let mut chunk = json!({
        "choices": [{ "index": 0, "delta": delta, "finish_reason": choice["finish_reason"] }],
    });
    if v["usage"].is_object() {
        chunk["usage"] = v["usage"].clone();
    }
    Ok(chunk)
}

#[derive(Debug, Default)]
struct PendingCall {
    id: String,
    name: String,
    arguments: String,
}

#[derive(Debug, Default)]
pub(super) struct Decoder {
    text: String,
    calls: BTreeMap<u64, PendingCall>,
    /// Slot for entries without `index` (old Ollama): a new id starts a new call.
    last_index: Option<u64>,
    finish: Option<String>,
    usage: Option<Usage>,
    done: bool,
    finished_calls: Vec<ToolCall>,
}

impl Decoder {
    pub(super) fn data(&mut self, data: &str, out: &mut VecDeque<Event>) -> Result<(), ModelError> {
        if self.done {
            return Ok(());
        }
        if data.trim() == "[DONE]" {
            return self.end(out);
        }
        let v: Value = serde_json::from_str(data).map_err(|e| {
            ModelError::new(
                ErrorKind::Malformed,
                format!("unreadable chat-completions chunk: {e}"),
            )
        })?;
        if let Some(e) = v.get("error") {
            return Err(stream_error(e));
        }
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            // `prompt_tokens` counts the cached ones (OpenAI and llama-server alike).
            self.usage = Some(Usage::new(
                u["prompt_tokens"].as_u64().unwrap_or(0),
                u["completion_tokens"].as_u64().unwrap_or(0),
                u["prompt_tokens_details"]["cached_tokens"]
                    .as_u64()
                    .unwrap_or(0),
                0,
                CachePrice::WHOLE,
            ));
        }
        let Some(choice) = v["choices"].as_array().and_then(|c| c.first()) else {
            return Ok(());
        };
        let delta = &choice["delta"];
        // `reasoning` / `reasoning_content` are thinking, never answer text.
        if let Some(t) = delta["content"].as_str()
            && !t.is_empty()
        {
            self.text.push_str(t);
            out.push_back(Event::TextDelta(t.to_string()));
        }
        if let Some(entries) = delta["tool_calls"].as_array() {
            for e in entries {
                self.fragment(e);
            }
        }
        if let Some(f) = choice["finish_reason"].as_str() {
            self.finish = Some(f.to_string());
        }
        Ok(())
    }

    fn fragment(&mut self, e: &Value) {
        let id = e["id"].as_str().filter(|s| !s.is_empty());
        let index = match e["index"].as_u64() {
            Some(i) => i,
            None => match (id, self.last_index) {
                (None, Some(last)) => last,
                _ => self.calls.keys().next_back().map_or(0, |k| k + 1),
            },
        };
        self.last_index = Some(index);
        let call = self.calls.entry(index).or_default();
        if let Some(id) = id
            && call.id.is_empty()
        {
            call.id = id.to_string();
        }
        if let Some(name) = e["function"]["name"].as_str().filter(|s| !s.is_empty())
            && call.name.is_empty()
        {
            call.name = name.to_string();
        }
        if let Some(a) = e["function"]["arguments"].as_str() {
            call.arguments.push_str(a);
        }
    }

    fn end(&mut self, out: &mut VecDeque<Event>) -> Result<(), ModelError> {
        self.done = true;
        let mut n = 0;
        for (_, c) in std::mem::take(&mut self.calls) {
            n += 1;
            if c.name.is_empty() {
                return Err(ModelError::new(
                    ErrorKind::Malformed,
                    "a tool call without a name",
                ));
            }
            let (args, malformed) = streamed_arguments(&c.arguments);
            let (id, provider_id) = if c.id.is_empty() {
                (made_up_call_id(n), false)
            } else {
                (c.id, true)
            };
            self.finished_calls.push(ToolCall {
                id,
                provider_id,
                name: c.name,
                args,
                signature: None,
                malformed,
            });
        }
        for c in &self.finished_calls {
            out.push_back(Event::ToolCall(c.clone()));
        }
        let finish = match self.finish.as_deref() {
            _ if !self.finished_calls.is_empty() => Finish::ToolCalls,
            Some("length") => Finish::MaxTokens,
            Some("content_filter") if self.text.is_empty() => {
                return Err(ModelError::new(
                    ErrorKind::Blocked,
                    "the provider's content filter stopped the answer",
                ));
            }
            Some("stop") | None => Finish::Stop,
            Some(other) => Finish::Other(other.to_string()),
        };
        if let Some(u) = self.usage {
            out.push_back(Event::Usage(u));
        }
        out.push_back(Event::Done(finish));
        Ok(())
    }

    pub(super) fn eof(
        &mut self,
        stray: &str,
        _out: &mut VecDeque<Event>,
    ) -> Result<(), ModelError> {
        if self.done {
            return Ok(());
        }
        if let Ok(v) = serde_json::from_str::<Value>(stray.trim())
            && let Some(e) = v.get("error")
        {
            return Err(stream_error(e));
        }
        Err(ModelError::new(
            ErrorKind::Truncated,
            "the chat-completions stream ended before [DONE]",
        ))
    }

    pub(super) fn turn(&self) -> Turn {
        streamed_turn(&self.text, &self.finished_calls)
    }
}

/// `data: {"error": …}` after the 200 (`code` is a string on OpenAI, a number on vLLM).
fn stream_error(e: &Value) -> ModelError {
    let message = e["message"].as_str().unwrap_or("error in the stream");
    let code = e["code"].as_u64().map(|c| c as u16);
    let kind = match (code, e["code"].as_str(), e["type"].as_str()) {
        (Some(429), _, _) | (_, Some("rate_limit_exceeded"), _) => ErrorKind::RateLimited,
        (Some(500..=599), _, _) | (_, _, Some("server_error")) => ErrorKind::Unavailable,
        _ => ErrorKind::Rejected,
    };
    let mut err = ModelError::new(kind, format!("in-stream error: {message}"));
    err.status = code;
    err
}

#[cfg(test)]
mod tests {
    use super::super::{ModelLane, ToolResult};
    use super::*;

    fn decode(lines: &[&str]) -> (Vec<Event>, Result<(), ModelError>, Turn) {
        let mut d = Decoder::default();
        let mut out = VecDeque::new();
        let mut r = Ok(());
        for l in lines {
            r = d.data(l, &mut out);
            if r.is_err() {
                break;
            }
        }
        if r.is_ok() {
            r = d.eof("", &mut out);
        }
        (out.into_iter().collect(), r, d.turn())
    }

    #[test]
    fn fragments_are_assembled_per_index_and_empty_ids_never_overwrite() {
        let (events, r, turn) = decode(&[
            r#"{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}"#,
            r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"GetWeatherArgs","arguments":""}}]},"finish_reason":null}]}"#,
            r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_B","type":"function","function":{"name":"get_stock_price","arguments":"{\"ti"}}]},"finish_reason":null}]}"#,
            r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"","function":{"name":"","arguments":"{\"city\": \"Edinb"}}]},"finish_reason":null}]}"#,
            r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"cker\": \"AAPL\"}"}}]},"finish_reason":null}]}"#,
            r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"urgh\"}"}}]},"finish_reason":null}]}"#,
            r#"{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
            r#"{"id":"c","choices":[],"usage":{"prompt_tokens":149,"completion_tokens":60,"total_tokens":209}}"#,
            "[DONE]",
        ]);
        r.expect("complete");
        let calls: Vec<&ToolCall> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCall(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 2);
        assert_eq!(
            (calls[0].id.as_str(), calls[0].name.as_str()),
            ("call_A", "GetWeatherArgs")
        );
        assert_eq!(calls[0].args, json!({"city": "Edinburgh"}));
        assert_eq!(calls[1].args, json!({"ticker": "AAPL"}));
        // "stop" after calls is still a tool turn.
        assert!(events.contains(&Event::Done(Finish::ToolCalls)));
        assert!(events.contains(&Event::Usage(Usage::new(149, 60, 0, 0, CachePrice::WHOLE))));
        assert_eq!(turn.calls().count(), 2);
    }

    #[test]
    fn text_reasoning_and_missing_index() {
        let (events, r, _) = decode(&[
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"reasoning_content":"thinking..."}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":"Hi"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_x1","type":"function","function":{"name":"now","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_x2","type":"function","function":{"name":"later"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            "[DONE]",
        ]);
        r.expect("complete");
        assert_eq!(events[0], Event::TextDelta("Hi".into()));
        let names: Vec<String> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCall(c) => Some(format!("{}:{}", c.id, c.args)),
                _ => None,
            })
            .collect();
        assert_eq!(names, vec!["call_x1:{}", "call_x2:{}"]);
    }

    #[test]
    fn eof_before_done_and_error_chunks_are_errors_and_bad_arguments_are_the_models_to_fix() {
        let (_, r, _) = decode(&[r#"{"choices":[{"index":0,"delta":{"content":"Hel"}}]}"#]);
        assert_eq!(r.expect_err("cut").kind, ErrorKind::Truncated);
        let (_, r, _) = decode(&[
            r#"{"error":{"message":"overloaded","type":"server_error","param":null,"code":503}}"#,
        ]);
        assert_eq!(r.expect_err("in-stream").kind, ErrorKind::Unavailable);
        let (events, r, _) = decode(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\": "}}]}}]}"#,
            "[DONE]",
        ]);
        assert!(r.is_ok(), "the answer goes on: {r:?}");
        let call = events
            .into_iter()
            .find_map(|e| match e {
                Event::ToolCall(c) => Some(c),
                _ => None,
            })
            .expect("the call is kept");
        assert_eq!(call.args, json!({}));
        assert_eq!(call.malformed.as_deref(), Some("{\"a\": "));
    }

    #[test]
    fn follow_up_request_repeats_calls_and_sends_one_tool_message_each() {
        let cfg = ModelConfig::from_vars(ModelLane::Slow, |k| match k {
            "SLOW_MODEL" => Some("gpt-4o-mini".into()),
            "MODEL_PROVIDER" => Some("openai".into()),
            _ => None,
        })
        .expect("valid")
        .expect("configured");
        let a = ToolCall {
            id: "call_A".into(),
            provider_id: true,
            name: "a".into(),
            args: json!({"x": 1}),
            signature: None,
            malformed: None,
        };
        let b = ToolCall {
            id: "call_B".into(),
            name: "b".into(),
            ..a.clone()
        };
        let req = Request {
            system: "sys".into(),
            turns: vec![
                Turn::user("hi"),
                Turn {
                    role: Role::Model,
                    parts: vec![Part::Call(a.clone()), Part::Call(b.clone())],
                },
                Turn {
                    role: Role::User,
                    parts: vec![
                        Part::Result(ToolResult::for_call(&a, json!({"ok": true}))),
                        Part::Result(ToolResult::for_call(&b, json!("plain"))),
                    ],
                },
            ],
            ..Request::default()
        };
        let (url, body) = request(&cfg, &req);
        assert_eq!(url, "https://api.openai.com/v1/chat/completions");
        let m = body["messages"].as_array().expect("messages");
        assert_eq!(m.len(), 5, "{m:?}");
        assert_eq!(m[2]["content"], "");
        assert_eq!(m[2]["tool_calls"][1]["function"]["arguments"], "{\"x\":1}");
        assert_eq!(m[3]["role"], "tool");
        assert_eq!(m[3]["tool_call_id"], "call_A");
        assert_eq!(m[3]["content"], "{\"ok\":true}");
        assert_eq!(m[4]["content"], "plain");
        assert_eq!(body["max_tokens"], 4096);
        assert!(body.get("tools").is_none());
    }

    #[test]
    fn the_prefix_is_cached_by_key_on_openai_and_by_cache_prompt_on_llama_cpp() {
        let with = |base: Option<&str>, var: &'static str, cache: Option<&str>| {
            let (base, cache) = (base.map(String::from), cache.map(String::from));
            ModelConfig::from_vars(ModelLane::Slow, move |k| match k {
                "SLOW_MODEL" => Some("m".into()),
                "MODEL_PROVIDER" => Some("openai".into()),
                "OPENAI_BASE_URL" => base.clone(),
                k if k == var => cache.clone(),
                _ => None,
            })
        };
        let cfg = |base: Option<&str>, cache: Option<&str>| with(base, "PROMPT_CACHE", cache);
        let req = Request {
            system: "sys".into(),
            turns: vec![Turn::user("hi")],
            cache_key: Some(super::super::cache_key("user-1")),
            ..Request::default()
        };
        // OpenAI itself: the lifter's hashed key, never their id.
        let openai = cfg(None, None).expect("valid").expect("configured");
        assert_eq!(openai.prompt_cache, PromptCache::Key);
        let (_, body) = request(&openai, &req);
        let key = body["prompt_cache_key"].as_str().expect("a key");
        assert!(
            key.starts_with("coach-") && !key.contains("user-1"),
            "{key}"
        );
        assert_eq!(
            key,
            super::super::cache_key("user-1"),
            "the same every time"
        );
        assert_ne!(key, super::super::cache_key("user-2"));
        assert!(body.get("cache_prompt").is_none());
        // Another server is asked nothing it may refuse, unless told what it takes.
        let other = cfg(Some("http://127.0.0.1:8080/v1"), None)
            .unwrap()
            .unwrap();
        let (_, body) = request(&other, &req);
        assert!(body.get("prompt_cache_key").is_none() && body.get("cache_prompt").is_none());
        let llama = cfg(Some("http://127.0.0.1:8080/v1"), Some("cache_prompt"))
            .unwrap()
            .unwrap();
        let (_, body) = request(&llama, &req);
        assert_eq!(body["cache_prompt"], true);
        assert!(body.get("prompt_cache_key").is_none());
        // A lane's setting its provider cannot take is an error that says what it can; the
        // shared one is off for such a lane (another lane may be on Bedrock).
        let e = with(None, "SLOW_PROMPT_CACHE", Some("cache_points")).expect_err("not OpenAI's");
        assert!(
            e.contains("SLOW_PROMPT_CACHE") && e.contains("prompt_cache_key or cache_prompt"),
            "{e}"
        );
        let shared = cfg(None, Some("cache_points")).unwrap().unwrap();
        assert_eq!(shared.prompt_cache, PromptCache::Off);
        assert!(cfg(None, Some("sometimes")).is_err());
        assert_eq!(
            cfg(None, Some("off")).unwrap().unwrap().prompt_cache,
            PromptCache::Off
        );
    }

    #[test]
    fn cached_prompt_tokens_are_read_from_the_usage() {
        // llama-server's usage (OpenAI's has the same shape): 2,120 prompt tokens, 2,048 cached.
        let (events, r, _) = decode(&[
            r#"{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"completion_tokens":5,"prompt_tokens":2120,"total_tokens":2125,"prompt_tokens_details":{"cached_tokens":2048}}}"#,
            "[DONE]",
        ]);
        r.expect("complete");
        let usage = events
            .iter()
            .find_map(|e| match e {
                Event::Usage(u) => Some(*u),
                _ => None,
            })
            .expect("usage");
        assert_eq!(
            (
                usage.input_tokens,
                usage.cached_input_tokens,
                usage.total_tokens
            ),
            (2_120, 2_048, 2_125)
        );
    }
}
