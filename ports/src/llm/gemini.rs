//! Gemini REST (`v1beta`): `POST {base}/models/{model}:streamGenerateContent?alt=sse`.
//!
//! Requests are camelCase. Function results go back in one `user` content, one
//! `functionResponse` per call in call order. The model's turn is sent back part by part as it
//! was streamed, every `thoughtSignature` on the part it came on (adjacent unsigned text deltas
//! are joined; a signed part is never merged). The stream has no end marker: a chunk with
//! `finishReason` then EOF; EOF without one is a truncated stream.

use std::collections::VecDeque;

use serde_json::{Map, Value, json};

use super::{
    CachePrice, ErrorKind, Event, Finish, ModelConfig, ModelError, Part, Request, Role, ToolCall,
    Turn, Usage, made_up_call_id,
};

/// The documented dummy for calls the model did not make itself (history written by us).
const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

pub(super) fn request(cfg: &ModelConfig, req: &Request) -> (String, Value) {
    let url = format!(
        "{}/models/{}:streamGenerateContent?alt=sse",
        cfg.base_url, cfg.model
    );
    let contents: Vec<Value> = req.turns.iter().map(content).collect();
    let mut body = json!({ "contents": contents });
    if !req.system.is_empty() {
        body["systemInstruction"] = json!({ "parts": [{ "text": req.system }] });
    }
    if !req.tools.is_empty() {
        let decls: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                let mut d = json!({ "name": t.name, "description": t.description });
                if let Some(p) = &t.parameters {
                    d["parameters"] = p.clone();
                }
                d
            })
            .collect();
        body["tools"] = json!([{ "functionDeclarations": decls }]);
        let mode = if req.no_calls { "NONE" } else { "AUTO" };
        body["toolConfig"] = json!({ "functionCallingConfig": { "mode": mode } });
    }
    let mut generation = json!({
        "temperature": cfg.temperature,
        "maxOutputTokens": cfg.max_output_tokens,
    });
    if req.no_thinking {
        generation["thinkingConfig"] = json!({ "thinkingBudget": 0 });
    } else if let Some(budget) = cfg.thinking_budget {
        generation["thinkingConfig"] = json!({ "thinkingBudget": budget });
    }
    if req.json_output {
        generation["responseMimeType"] = json!("application/json");
    }
    body["generationConfig"] = generation;
    (url, body)
}

fn content(turn: &Turn) -> Value {
    let role = match turn.role {
        Role::User => "user",
        Role::Model => "model",
    };
    let mut first_call = true;
    let parts: Vec<Value> = turn
        .parts
        .iter()
        .map(|p| match p {
            Part::Text { text, signature } => {
                let mut v = json!({ "text": text });
                if let Some(s) = signature {
                    v["thoughtSignature"] = json!(s);
                }
                v
            }
            Part::Call(c) => {
                let mut call = json!({ "name": c.name, "args": c.args });
                if c.provider_id {
                    call["id"] = json!(c.id);
                }
                let mut v = json!({ "functionCall": call });
                // Gemini 3 rejects a step whose first call is unsigned; a call we wrote
                // ourselves gets the documented dummy.
                match (&c.signature, first_call) {
                    (Some(s), _) => v["thoughtSignature"] = json!(s),
                    (None, true) => v["thoughtSignature"] = json!(SKIP_SIGNATURE),
                    (None, false) => {}
                }
                first_call = false;
                v
            }
            Part::Result(r) => {
                let response = match &r.content {
                    Value::Object(_) => r.content.clone(),
                    other => json!({ "result": other }),
                };
                let mut f = json!({ "name": r.name, "response": response });
                if r.provider_id {
                    f["id"] = json!(r.call_id);
                }
                json!({ "functionResponse": f })
            }
        })
        .collect();
    json!({ "role": role, "parts": parts })
}

#[derive(Debug, Default)]
pub(super) struct Decoder {
    parts: Vec<Part>,
    calls: usize,
    finish: Option<String>,
    usage: Option<Usage>,
    blocked: Option<String>,
}

impl Decoder {
    pub(super) fn data(&mut self, data: &str, out: &mut VecDeque<Event>) -> Result<(), ModelError> {
        let v: Value = serde_json::from_str(data).map_err(|e| {
            ModelError::new(
                ErrorKind::Malformed,
                format!("unreadable Gemini chunk: {e}"),
            )
        })?;
        if v.get("error").is_some() {
            return Err(stream_error(&v["error"]));
        }
        if let Some(reason) = v["promptFeedback"]["blockReason"].as_str() {
            self.blocked = Some(format!("prompt blocked: {reason}"));
        }
        if let Some(u) = v.get("usageMetadata") {
            // `promptTokenCount` counts the cached ones; thinking is billed as output.
            self.usage = Some(Usage::new(
                u["promptTokenCount"].as_u64().unwrap_or(0),
                u["candidatesTokenCount"].as_u64().unwrap_or(0)
                    + u["thoughtsTokenCount"].as_u64().unwrap_or(0),
                u["cachedContentTokenCount"].as_u64().unwrap_or(0),
                0,
                CachePrice::WHOLE,
            ));
        }
        let candidate = &v["candidates"][0];
        if let Some(parts) = candidate["content"]["parts"].as_array() {
            for p in parts {
                self.part(p, out)?;
            }
        }
        if let Some(reason) = candidate["finishReason"].as_str() {
            self.finish = Some(reason.to_string());
        }
        Ok(())
    }

    fn part(&mut self, p: &Value, out: &mut VecDeque<Event>) -> Result<(), ModelError> {
        if p["thought"] == true {
            // A thought summary: never answer text. Its signature (if any) still goes back.
            if let Some(sig) = p["thoughtSignature"].as_str() {
                self.parts.push(Part::Text {
                    text: String::new(),
                    signature: Some(sig.to_string()),
                });
            }
            return Ok(());
        }
        let signature = p["thoughtSignature"].as_str().map(str::to_string);
        if let Some(call) = p.get("functionCall") {
            if call["willContinue"] == true || p["willContinue"] == true {
                return Err(ModelError::new(
                    ErrorKind::Malformed,
                    "partial function-call arguments are not supported",
                ));
            }
            let name = call["name"].as_str().unwrap_or_default().to_string();
            if name.is_empty() {
                return Err(ModelError::new(
                    ErrorKind::Malformed,
                    "a function call without a name",
                ));
            }
            let (args, malformed) = match &call["args"] {
                Value::Null => (Value::Object(Map::new()), None),
                a @ Value::Object(_) => (a.clone(), None),
                other => (Value::Object(Map::new()), Some(other.to_string())),
            };
            self.calls += 1;
            let (id, provider_id) = match call["id"].as_str().filter(|s| !s.is_empty()) {
                Some(id) => (id.to_string(), true),
                None => (made_up_call_id(self.calls), false),
            };
            let c = ToolCall {
                id,
                provider_id,
                name,
                args,
                signature,
                malformed,
            };
            self.parts.push(Part::Call(c.clone()));
            out.push_back(Event::ToolCall(c));
            return Ok(());
        }
        if let Some(text) = p["text"].as_str() {
            if !text.is_empty() {
                out.push_back(Event::TextDelta(text.to_string()));
            }
            match (self.parts.last_mut(), &signature) {
                // Join unsigned deltas; a signed part stays a part of its own.
                (
                    Some(Part::Text {
                        text: prev,
                        signature: None,
                    }),
                    None,
                ) => prev.push_str(text),
                _ if text.is_empty() && signature.is_none() => {}
                _ => self.parts.push(Part::Text {
                    text: text.to_string(),
                    signature,
                }),
            }
        }
        Ok(())
    }

    pub(super) fn eof(&mut self, stray: &str, out: &mut VecDeque<Event>) -> Result<(), ModelError> {
        // Gemini may append a raw JSON error after the last event, even after STOP.
        if let Ok(v) = serde_json::from_str::<Value>(stray.trim())
            && v.get("error").is_some()
        {
            return Err(stream_error(&v["error"]));
        }
        if let Some(b) = &self.blocked {
            return Err(ModelError::new(ErrorKind::Blocked, b.clone()));
        }
        let Some(reason) = self.finish.clone() else {
            return Err(ModelError::new(
                ErrorKind::Truncated,
                "the Gemini stream ended without a finish reason",
            ));
        };
        let has_content = self.calls > 0
            || self
                .parts
                .iter()
                .any(|p| matches!(p, Part::Text { text, .. } if !text.is_empty()));
        let finish = match reason.as_str() {
            _ if self.calls > 0 => Finish::ToolCalls,
            "STOP" => Finish::Stop,
            "MAX_TOKENS" => Finish::MaxTokens,
            // With text already shown, the text is the answer; without, the caller may try again.
            "MALFORMED_FUNCTION_CALL" if !has_content => {
                return Err(ModelError::new(
                    ErrorKind::MalformedCall,
                    "the model produced a malformed function call",
                ));
            }
            other => Finish::Other(other.to_ascii_lowercase()),
        };
        if !has_content && finish == Finish::MaxTokens {
            // Thinking spent the whole output cap: nothing to show, and nothing wrong with the
            // question.
            return Err(ModelError::new(
                ErrorKind::Truncated,
                "the output cap was spent before any text (thinking)",
            ));
        }
        if !has_content && !matches!(finish, Finish::Stop) {
            return Err(ModelError::new(
                ErrorKind::Blocked,
                format!("no answer (finish reason {reason})"),
            ));
        }
        if let Some(u) = self.usage {
            out.push_back(Event::Usage(u));
        }
        out.push_back(Event::Done(finish));
        Ok(())
    }

    pub(super) fn turn(&self) -> Turn {
        Turn {
            role: Role::Model,
            parts: self.parts.clone(),
        }
    }
}

/// An error that arrived inside a 200 stream.
fn stream_error(e: &Value) -> ModelError {
    let code = e["code"].as_u64().map(|c| c as u16);
    let message = e["message"].as_str().unwrap_or("error in the stream");
    let kind = match code {
        Some(429) => ErrorKind::RateLimited,
        Some(500..=599) => ErrorKind::Unavailable,
        _ => ErrorKind::Rejected,
    };
    let mut err = ModelError::new(kind, format!("in-stream error: {message}"));
    err.status = code;
    err
}

#[cfg(test)]
mod tests {
    use super::super::{ModelLane, ToolResult, ToolSpec};
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
    fn implicitly_cached_prompt_tokens_and_thinking_are_read_from_the_usage() {
        // Gemini 2.5 caches implicitly: `promptTokenCount` counts the cached tokens too.
        let (events, r, _) = decode(&[
            r#"{"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"},"finishReason": "STOP"}],"usageMetadata": {"promptTokenCount": 2400,"cachedContentTokenCount": 2048,"candidatesTokenCount": 5,"thoughtsTokenCount": 30,"totalTokenCount": 2435}}"#,
        ]);
        r.expect("complete stream");
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
                usage.output_tokens
            ),
            (2_400, 2_048, 35)
        );
    }

    #[test]
    fn text_deltas_then_usage_and_done() {
        // Example A-1 of the wire-format reference.
        let (events, r, turn) = decode(&[
            r#"{"candidates": [{"content": {"parts": [{"text": "The"}],"role": "model"}}],"usageMetadata": {"promptTokenCount": 7,"totalTokenCount": 7},"modelVersion": "gemini-2.0-flash"}"#,
            r#"{"candidates": [{"content": {"parts": [{"text": " capital of Wyoming"}],"role": "model"}}],"usageMetadata": {"promptTokenCount": 7,"totalTokenCount": 7},"modelVersion": "gemini-2.0-flash"}"#,
            r#"{"candidates": [{"content": {"parts": [{"text": " is **Cheyenne**.\n"}],"role": "model"},"finishReason": "STOP"}],"usageMetadata": {"promptTokenCount": 7,"candidatesTokenCount": 10,"totalTokenCount": 17},"modelVersion": "gemini-2.0-flash"}"#,
        ]);
        r.expect("complete stream");
        assert_eq!(
            events,
            vec![
                Event::TextDelta("The".into()),
                Event::TextDelta(" capital of Wyoming".into()),
                Event::TextDelta(" is **Cheyenne**.\n".into()),
                Event::Usage(Usage::new(7, 10, 0, 0, CachePrice::WHOLE)),
                Event::Done(Finish::Stop),
            ]
        );
        assert_eq!(turn.parts.len(), 1, "unsigned deltas are joined");
        assert_eq!(turn.text(), "The capital of Wyoming is **Cheyenne**.\n");
    }

    #[test]
    fn parallel_calls_keep_their_signature_and_thoughts_are_not_text() {
        let (events, r, turn) = decode(&[
            r#"{"candidates":[{"content":{"parts":[{"text":"**Planning**","thought":true}],"role":"model"}}]}"#,
            r#"{"candidates": [{"content": {"parts": [{"functionCall": {"name": "get_exercise_history","args": {"exercise": "bench_press","weeks": 8}},"thoughtSignature": "SIG1"},{"functionCall": {"name": "get_bodyweight","args": {}}}],"role": "model"},"index": 0}]}"#,
            r#"{"candidates": [{"content": {"parts": [{"text": ""}],"role": "model"},"finishReason": "STOP","index": 0}]}"#,
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
        assert_eq!(calls[0].signature.as_deref(), Some("SIG1"));
        assert_eq!(calls[1].signature, None);
        assert_ne!(calls[0].id, calls[1].id);
        assert!(!events.iter().any(|e| matches!(e, Event::TextDelta(_))));
        assert_eq!(events.last(), Some(&Event::Done(Finish::ToolCalls)));
        assert_eq!(turn.calls().count(), 2);
    }

    #[test]
    fn a_signed_empty_text_part_is_kept_for_the_next_request() {
        // Example A-2: Gemini 3 puts the signature on a final empty text part.
        let (_, r, turn) = decode(&[
            r#"{"candidates":[{"content":{"parts":[{"text":"There are **3**"}],"role":"model"},"index":0}]}"#,
            r#"{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"EqsF"}],"role":"model"},"finishReason":"STOP","index":0}]}"#,
        ]);
        r.expect("complete");
        assert_eq!(
            turn.parts,
            vec![
                Part::text("There are **3**"),
                Part::Text {
                    text: String::new(),
                    signature: Some("EqsF".into())
                }
            ]
        );
    }

    #[test]
    fn truncated_blocked_and_in_stream_errors_are_errors() {
        let (_, r, _) =
            decode(&[r#"{"candidates":[{"content":{"parts":[{"text":"Okay"}],"role":"model"}}]}"#]);
        assert_eq!(r.expect_err("no finish").kind, ErrorKind::Truncated);
        let (_, r, _) = decode(&[r#"{"promptFeedback": {"blockReason": "SAFETY"}}"#]);
        assert_eq!(r.expect_err("blocked").kind, ErrorKind::Blocked);
        let (_, r, _) = decode(&[r#"{"candidates": [{"finishReason": "RECITATION","index": 0}]}"#]);
        assert_eq!(r.expect_err("no content").kind, ErrorKind::Blocked);
        let mut d = Decoder::default();
        let mut out = VecDeque::new();
        d.data(
            r#"{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP"}]}"#,
            &mut out,
        )
        .expect("chunk");
        let e = d
            .eof("{\n  \"error\": {\n    \"code\": 503,\n    \"message\": \"The model is overloaded.\"\n  }\n}\n", &mut out)
            .expect_err("tail after STOP");
        assert_eq!(e.kind, ErrorKind::Unavailable);
    }

    #[test]
    fn request_body_carries_tools_signatures_and_results() {
        let cfg = ModelConfig::from_vars(ModelLane::Slow, |k| match k {
            "SLOW_MODEL" => Some("gemini-2.5-flash".into()),
            "GEMINI_API_KEY" => Some("k".into()),
            "GEMINI_BASE_URL" => Some("http://127.0.0.1:1/v1beta".into()),
            "SLOW_THINKING_BUDGET" => Some("0".into()),
            _ => None,
        })
        .expect("valid")
        .expect("configured");
        let call = ToolCall {
            id: "call_1".into(),
            provider_id: false,
            name: "exercise_search".into(),
            args: json!({"query": "curl"}),
            signature: Some("SIG".into()),
            malformed: None,
        };
        let req = Request {
            system: "You are a coach.".into(),
            turns: vec![
                Turn::user("Add curls"),
                Turn {
                    role: Role::Model,
                    parts: vec![Part::Call(call.clone())],
                },
                Turn {
                    role: Role::User,
                    parts: vec![Part::Result(ToolResult::for_call(&call, json!([1, 2])))],
                },
            ],
            tools: vec![ToolSpec {
                name: "exercise_search".into(),
                description: "Search".into(),
                parameters: Some(
                    json!({"type": "object", "properties": {"query": {"type": "string"}}}),
                ),
            }],
            no_calls: false,
            no_thinking: false,
            json_output: false,
            cache_key: None,
        };
        let (url, body) = request(&cfg, &req);
        assert_eq!(
            url,
            "http://127.0.0.1:1/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            body["systemInstruction"]["parts"][0]["text"],
            "You are a coach."
        );
        assert_eq!(body["contents"][1]["role"], "model");
        assert_eq!(body["contents"][1]["parts"][0]["thoughtSignature"], "SIG");
        assert!(
            body["contents"][1]["parts"][0]["functionCall"]
                .get("id")
                .is_none()
        );
        assert_eq!(body["contents"][2]["role"], "user");
        assert_eq!(
            body["contents"][2]["parts"][0]["functionResponse"]["response"],
            json!({"result": [1, 2]})
        );
        assert_eq!(
            body["tools"][0]["functionDeclarations"][0]["name"],
            "exercise_search"
        );
        assert_eq!(
            body["generationConfig"]["thinkingConfig"]["thinkingBudget"],
            0
        );
    }
}
