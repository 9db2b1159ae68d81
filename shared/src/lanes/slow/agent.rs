//! The agent loop: stream the model's answer to the lifter; when it calls tools, say so
//! (`status`, then `tool_start`/`tool_end` pairs), run the calls concurrently, hand the results
//! back and let it continue. At most `MAX_TOOL_TURNS` model turns with tools, then one closing
//! turn without them. A failing tool is a structured error for the model, not the end of the
//! answer; a failing model is an `error` event. `done` always ends the stream.

use std::time::Instant;

use serde_json::{Value, json};

use super::sse::Emitter;
use super::{instruction, tools};
use crate::context::SessionContext;
use crate::llm::{Event, Model, ModelError, Part, Request, Role, ToolResult, Turn, Usage};
use crate::router::Intent;
use crate::store::Store;

/// Model turns that may call tools before the closing turn.
pub const MAX_TOOL_TURNS: usize = 12;

const CLOSING_NOTE: &str = "You have used all your tool calls for this message. Answer now \
with what the tool results above show, and say what you could not check.";

/// What one run produced, for the `done` event and the log.
#[derive(Debug, Default)]
pub struct Outcome {
    pub usage: Usage,
    pub model_turns: usize,
    pub tool_calls: usize,
    pub error: Option<&'static str>,
}

pub async fn run(
    model: &Model,
    store: &Store,
    ctx: &SessionContext,
    text: &str,
    intent: Option<Intent>,
    emit: &Emitter,
    deadline: tokio::time::Instant,
) -> Outcome {
    let mut out = Outcome::default();
    let mut req = Request {
        system: instruction::system(ctx, intent),
        turns: vec![Turn::user(text)],
        tools: tools::specs(),
        json_output: false,
    };
    loop {
        let closing = out.model_turns == MAX_TOOL_TURNS;
        if closing {
            req.tools.clear();
            req.turns.push(Turn::user(CLOSING_NOTE));
        }
        out.model_turns += 1;
        let turn = match model_turn(model, &req, emit, deadline, &mut out.usage).await {
            Ok(Some(t)) => t,
            // The client went away: stop here, the model call is already closed.
            Ok(None) => return out,
            Err(e) => {
                tracing::warn!(code = e.code(), "model call failed: {e}");
                out.error = Some(e.code());
                emit.send(
                    "error",
                    json!({ "code": e.code(), "message": lifter_message(&e) }),
                )
                .await;
                return out;
            }
        };
        let calls: Vec<_> = turn.calls().cloned().collect();
        if calls.is_empty() || closing {
            return out;
        }
        req.turns.push(turn);
        out.tool_calls += calls.len();
        if !emit
            .send("status", json!({ "text": status_text(&calls) }))
            .await
        {
            return out;
        }
        for c in &calls {
            emit.send("tool_start", json!({ "tool": c.name, "call_id": c.id }))
                .await;
        }
        // Independent reads in one turn run concurrently.
        let results = futures_util::future::join_all(calls.iter().map(|c| async move {
            let started = Instant::now();
            let r = tools::run(store, ctx, &c.name, &c.args).await;
            (r, started.elapsed())
        }))
        .await;
        let mut parts = Vec::with_capacity(calls.len());
        for (c, (r, took)) in calls.iter().zip(results) {
            let ok = r.is_ok();
            let content = r.unwrap_or_else(|e| e.to_json());
            emit.send(
                "tool_end",
                json!({ "tool": c.name, "call_id": c.id, "elapsed_ms": took.as_millis() as u64, "ok": ok }),
            )
            .await;
            parts.push(Part::Result(ToolResult::for_call(c, content)));
        }
        if emit.client_gone() {
            return out;
        }
        req.turns.push(Turn {
            role: Role::User,
            parts,
        });
    }
}

/// Streams one model turn's text to the lifter and returns the whole turn; `None` when the
/// client disconnected (dropping the stream closes the model call).
async fn model_turn(
    model: &Model,
    req: &Request,
    emit: &Emitter,
    deadline: tokio::time::Instant,
    usage: &mut Usage,
) -> Result<Option<Turn>, ModelError> {
    let mut stream = model.stream(req, deadline).await?;
    loop {
        if emit.client_gone() {
            return Ok(None);
        }
        // Poll the model and the client together, so a disconnect stops a silent model too.
        let next = tokio::select! {
            ev = stream.next() => ev,
            () = emit.gone() => return Ok(None),
        };
        match next {
            None => return Ok(Some(stream.turn())),
            Some(Err(e)) => return Err(e),
            Some(Ok(Event::TextDelta(t))) => {
                if !emit.send("message", json!({ "text": t })).await {
                    return Ok(None);
                }
            }
            Some(Ok(Event::Usage(u))) => {
                usage.input_tokens += u.input_tokens;
                usage.output_tokens += u.output_tokens;
                usage.total_tokens += u.total_tokens;
            }
            Some(Ok(Event::ToolCall(_) | Event::Done(_))) => {}
        }
    }
}

fn status_text(calls: &[crate::llm::ToolCall]) -> String {
    let what: Vec<&str> = calls
        .iter()
        .map(|c| match c.name.as_str() {
            "training_snapshot" => "your training overview",
            "exercise_search" => "the exercise catalog",
            "exercise_progress" => "your progress",
            "suggest_weight" => "your recent sets",
            "workout_state" => "your workout",
            _ => "your data",
        })
        .collect();
    let mut unique: Vec<&str> = Vec::new();
    for w in what {
        if !unique.contains(&w) {
            unique.push(w);
        }
    }
    format!("Checking {}…", unique.join(" and "))
}

/// What the lifter reads when the model fails (the provider's words stay in the log).
fn lifter_message(e: &ModelError) -> String {
    match e.code() {
        "MODEL_RATE_LIMITED" => "The coach is busy right now; try again in a minute.",
        "MODEL_TIMEOUT" => "The coach took too long to answer; try again.",
        "MODEL_REFUSED" => "The coach could not answer that one; try rephrasing.",
        _ => "The coach is unavailable right now; your training data is safe. Try again shortly.",
    }
    .to_string()
}

/// The `done` event's payload.
pub fn done_data(intent: Option<Intent>, started: Instant, out: &Outcome) -> Value {
    let mut d = json!({
        "lane": "slow",
        "intent": intent.map(Intent::as_str),
        "latency_ms": started.elapsed().as_millis() as u64,
    });
    if out.usage.total_tokens > 0 {
        d["usage"] = json!(out.usage);
    }
    d
}
