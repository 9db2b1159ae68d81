//! The events a coach turn produces, in order: text deltas, tool starts and ends, proposals,
//! a clarification, an error. The turn sends them to an [`Emitter`]; the adapter that opened
//! it (the SLOW lane's event stream) writes them to the client and closes the channel when the
//! client has gone, which the turn notices to stop the model.

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::router::Confidence;

/// One event of `/v1/stream`, as `openapi.yaml`'s `StreamEvent` lists them (a test compares
/// the two): serialised as an object with its `type`, which is also the SSE `event:` name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// First: how the message was routed.
    Route {
        lane: &'static str,
        intent: Option<&'static str>,
        matched_rule: &'static str,
        confidence: Confidence,
        /// What the router saw in the text (a question, a pain word, ...).
        signals: Vec<&'static str>,
    },
    /// Text for the lifter; a command's answer also carries its `data`.
    Message {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    /// What the coach is doing ("Looking at your history...").
    Status {
        text: String,
    },
    ToolStart {
        tool: String,
        call_id: String,
    },
    /// Closes the `tool_start` with the same `call_id`; with `x-coach-trace` (local stack), the
    /// call's arguments and what the tool gave the model.
    ToolEnd {
        tool: String,
        call_id: String,
        elapsed_ms: u64,
        ok: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        args: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
    },
    /// A stored proposal, as the artifact routes show it.
    Artifact(Map<String, Value>),
    /// A question to answer with one of the options.
    Clarification {
        id: String,
        question: String,
        options: Vec<String>,
    },
    /// A button or monitor event answered in-process: the functional envelope.
    Result(Map<String, Value>),
    /// Every few seconds while nothing else is sent.
    Heartbeat,
    /// Something failed; `done` still follows.
    Error {
        code: Cow<'static, str>,
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        resets_at: Option<DateTime<Utc>>,
    },
    /// Last, exactly once.
    Done {
        lane: &'static str,
        intent: Option<&'static str>,
        latency_ms: u64,
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        trace: Option<Value>,
    },
}

impl StreamEvent {
    /// The event's `type`, also its SSE `event:` name.
    pub fn kind(&self) -> &'static str {
        match self {
            StreamEvent::Route { .. } => "route",
            StreamEvent::Message { .. } => "message",
            StreamEvent::Status { .. } => "status",
            StreamEvent::ToolStart { .. } => "tool_start",
            StreamEvent::ToolEnd { .. } => "tool_end",
            StreamEvent::Artifact(_) => "artifact",
            StreamEvent::Clarification { .. } => "clarification",
            StreamEvent::Result(_) => "result",
            StreamEvent::Heartbeat => "heartbeat",
            StreamEvent::Error { .. } => "error",
            StreamEvent::Done { .. } => "done",
        }
    }

    /// Text for the lifter.
    pub fn message(text: impl Into<String>) -> Self {
        StreamEvent::Message {
            text: text.into(),
            data: None,
        }
    }

    /// An error with its code and the lifter's message.
    pub fn error(code: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        StreamEvent::Error {
            code: code.into(),
            message: message.into(),
            resets_at: None,
        }
    }

    /// A JSON object's fields (an artifact's view, an envelope); an empty map for anything else,
    /// which the code never builds.
    pub fn fields(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// The event as its SSE data: one JSON object with its `type`.
    pub fn to_json(&self) -> String {
        // Strings, numbers and JSON values always serialise; the fallback is never reached.
        serde_json::to_string(self).unwrap_or_else(|_| format!("{{\"type\":\"{}\"}}", self.kind()))
    }
}

/// The sending side, cheap to clone. A closed channel is the disconnect signal.
#[derive(Clone)]
pub struct Emitter {
    tx: mpsc::Sender<StreamEvent>,
    trace: bool,
}

/// Events a turn may get ahead of the client before it waits.
const BUFFERED_EVENTS: usize = 64;

impl Emitter {
    /// An emitter and the receiving end its adapter drains.
    pub fn channel() -> (Emitter, mpsc::Receiver<StreamEvent>) {
        let (tx, rx) = mpsc::channel(BUFFERED_EVENTS);
        (Emitter { tx, trace: false }, rx)
    }

    /// This emitter, also sending what the turn saw (the local stack's `x-coach-trace`, for the
    /// coach evaluation): each tool's result in its `tool_end`, and a `trace` in `done`.
    pub fn traced(self) -> Emitter {
        Emitter {
            trace: true,
            ..self
        }
    }

    pub fn tracing(&self) -> bool {
        self.trace
    }

    /// Sends one event; `false` once the client has gone.
    pub async fn send(&self, event: StreamEvent) -> bool {
        self.tx.send(event).await.is_ok()
    }

    pub fn client_gone(&self) -> bool {
        self.tx.is_closed()
    }

    /// Resolves when the client has gone.
    pub async fn gone(&self) {
        self.tx.closed().await
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::app::buttons::ButtonAnswer;
    use crate::domain::artifact::{Artifact, Proposal};
    use crate::domain::coaching::Memory;

    /// Which variant an event is. A new variant does not compile until it has a number here,
    /// and the test below fails until `every_event` has one of it and `VARIANTS` counts it.
    fn variant(e: &StreamEvent) -> usize {
        match e {
            StreamEvent::Route { .. } => 0,
            StreamEvent::Message { .. } => 1,
            StreamEvent::Status { .. } => 2,
            StreamEvent::ToolStart { .. } => 3,
            StreamEvent::ToolEnd { .. } => 4,
            StreamEvent::Artifact(_) => 5,
            StreamEvent::Clarification { .. } => 6,
            StreamEvent::Result(_) => 7,
            StreamEvent::Heartbeat => 8,
            StreamEvent::Error { .. } => 9,
            StreamEvent::Done { .. } => 10,
        }
    }
    const VARIANTS: usize = 11;

    /// One of each event, as the code builds them.
    fn every_event() -> Vec<StreamEvent> {
        let now = Utc::now();
        let memory = Memory {
            id: "m1".into(),
            text: "Left knee: no deep lunges".into(),
            kind: Some("injury".into()),
            created_at: now,
            retired_at: None,
        };
        vec![
            StreamEvent::Route {
                lane: "slow",
                intent: Some("progress_question"),
                matched_rule: "slow_progress",
                confidence: Confidence::High,
                signals: vec!["is_question", "mentions_data"],
            },
            StreamEvent::message("Your squat is up."),
            StreamEvent::Status {
                text: "Looking at your history...".into(),
            },
            StreamEvent::ToolStart {
                tool: "exercise_progress".into(),
                call_id: "c1".into(),
            },
            StreamEvent::ToolEnd {
                tool: "exercise_progress".into(),
                call_id: "c1".into(),
                elapsed_ms: 12,
                ok: true,
                args: None,
                result: None,
            },
            // A proposal and a button's answer as the code builds them.
            StreamEvent::Artifact(StreamEvent::fields(crate::app::proposals::view(
                &Artifact::new(Proposal::MemoryRetirement { memory }, None, now),
                now,
            ))),
            StreamEvent::Clarification {
                id: "clarify-3".into(),
                question: "Delete the workout?".into(),
                options: vec!["Yes, delete it".into(), "No".into()],
            },
            StreamEvent::Result(StreamEvent::fields(
                ButtonAnswer::Null.to_envelope(crate::router::Intent::MonitorState),
            )),
            StreamEvent::Heartbeat,
            StreamEvent::error("QUOTA_EXCEEDED", "You've used today's coaching allowance."),
            StreamEvent::Done {
                lane: "slow",
                intent: None,
                latency_ms: 900,
                usage: None,
                trace: None,
            },
        ]
    }

    /// The lines of the schema `name` under `components.schemas` (indented four spaces).
    fn schema<'s>(spec: &'s str, name: &str) -> Vec<&'s str> {
        let head = format!("    {name}:");
        spec.lines()
            .skip_while(|l| *l != head)
            .skip(1)
            .take_while(|l| l.starts_with("      ") || l.trim().is_empty())
            .collect()
    }

    /// The fields a schema requires of an object: its own `required`, and those of the schemas
    /// its `allOf` names (an artifact event is an `Artifact` with a `type`).
    fn required<'s>(spec: &'s str, name: &str) -> Vec<&'s str> {
        let lines = schema(spec, name);
        let list = |l: &&'s str| {
            l.trim()
                .strip_prefix("required: [")
                .and_then(|r| r.split_once(']'))
                .map(|(inside, _)| inside.split(',').map(str::trim).collect::<Vec<_>>())
        };
        let mut out = lines.iter().find_map(list).unwrap_or_default();
        for l in &lines {
            if let Some(r) = l.trim().strip_prefix("- $ref: '#/components/schemas/") {
                let parent = r.trim_end_matches('\'');
                out.extend(
                    schema(spec, parent)
                        .iter()
                        .find_map(list)
                        .unwrap_or_default(),
                );
            }
        }
        out
    }

    /// The stream's events are the spec's `StreamEvent`s: the same types, each sent with the
    /// fields its schema requires. A new event, or a renamed one, fails here until both agree.
    #[test]
    fn the_events_are_the_specs_stream_events() {
        let spec = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi.yaml"));
        let mapping: BTreeMap<&str, &str> = schema(spec, "StreamEvent")
            .into_iter()
            .skip_while(|l| l.trim() != "mapping:")
            .skip(1)
            .filter_map(|l| {
                let (kind, target) = l.trim().split_once(": ")?;
                Some((kind, target.trim_matches('\'').rsplit('/').next()?))
            })
            .collect();
        let events = every_event();
        let mut seen: Vec<usize> = events.iter().map(variant).collect();
        seen.sort_unstable();
        assert_eq!(
            seen,
            (0..VARIANTS).collect::<Vec<_>>(),
            "one event of each variant"
        );
        let kinds: Vec<&str> = events.iter().map(StreamEvent::kind).collect();
        assert_eq!(
            kinds
                .iter()
                .copied()
                .collect::<std::collections::BTreeSet<_>>(),
            mapping.keys().copied().collect(),
            "the code's events against the spec's"
        );
        for e in &events {
            let json: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
            assert_eq!(json["type"], e.kind());
            let required = required(spec, mapping[e.kind()]);
            assert!(
                !required.is_empty(),
                "{}: no required fields read",
                e.kind()
            );
            for field in required {
                assert!(
                    json.get(field).is_some(),
                    "{}: the spec requires {field}: {json}",
                    e.kind()
                );
            }
        }
    }

    /// Optional fields are left out, not sent as null: `data` of a coach's text, a tool's
    /// arguments outside a trace, `resets_at` of most errors.
    #[test]
    fn optional_fields_are_left_out() {
        assert_eq!(
            StreamEvent::message("hi").to_json(),
            r#"{"type":"message","text":"hi"}"#
        );
        assert_eq!(StreamEvent::Heartbeat.to_json(), r#"{"type":"heartbeat"}"#);
        let e = StreamEvent::error("EMPTY_ANSWER", "try again").to_json();
        assert_eq!(
            e,
            r#"{"type":"error","code":"EMPTY_ANSWER","message":"try again"}"#
        );
    }
}
