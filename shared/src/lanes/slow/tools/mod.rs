//! The coach's tools. The user id is never a parameter: every tool runs for the authenticated
//! user of the request. A result is at most 15 KB (a longer one is cut and says so); a failing
//! tool returns `{"error": {code, message}}` to the model and the loop goes on.
//!
//! One module per kind: `read` (training data), `analytics` (progress and analysis, by the
//! worker's analysis functions), `propose` (proposals the lifter confirms),
//! `workout` (workout-mode writes to the active workout), `memory` (memories, the coaching
//! context and notifications). Workout-mode writes are offered only in workout mode; heavy tools
//! are refused there with the light alternative named.

mod analytics;
mod memory;
mod propose;
mod read;
mod workout;

use serde_json::{Value, json};

use super::super::functional::FunctionalLane;
use crate::context::SessionContext;
use crate::llm::ToolSpec;
use crate::store::Store;

pub(crate) use read::workout_brief;

/// Largest tool result handed to the model.
pub const MAX_RESULT_BYTES: usize = 15_000;

/// What a tool runs with: the request's user and the shared lane code.
pub struct Env<'a> {
    pub store: &'a Store,
    pub ctx: &'a SessionContext,
    pub functional: &'a FunctionalLane,
}

/// What a successful tool did besides answering the model.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    None,
    /// A stored proposal: the stream shows it as an `artifact` event.
    Proposed(Value),
    /// Stored data changed (the critic lets the coach claim a change only after one of these).
    Wrote,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    pub value: Value,
    pub effect: Effect,
}

impl Output {
    fn read(value: Value) -> Output {
        Output {
            value,
            effect: Effect::None,
        }
    }
    fn wrote(value: Value) -> Output {
        Output {
            value,
            effect: Effect::Wrote,
        }
    }
}

/// Heavy tools and the light alternative to use mid-workout.
const HEAVY_IN_WORKOUT: [(&str, &str); 6] = [
    ("training_snapshot", "workout_state"),
    (
        "training_analysis",
        "exercise_progress for the current exercise",
    ),
    (
        "training_set_query",
        "exercise_progress for the current exercise",
    ),
    ("propose_routine", "note it and propose after the workout"),
    (
        "propose_routine_update",
        "note it and propose after the workout",
    ),
    (
        "propose_template_update",
        "note it and propose after the workout",
    ),
];

fn spec(name: &str, description: &str, parameters: Option<Value>) -> ToolSpec {
    ToolSpec {
        name: name.to_string(),
        description: description.to_string(),
        parameters,
    }
}

/// The tools offered for this request.
pub fn specs(workout_mode: bool) -> Vec<ToolSpec> {
    let mut all = read::specs();
    all.extend(analytics::specs());
    all.extend(propose::specs());
    if workout_mode {
        all.extend(workout::specs());
    }
    all.extend(memory::specs());
    all
}

/// Runs one tool for the request's user. The result is bounded (see `bounded`).
pub async fn run(env: &Env<'_>, name: &str, args: &Value) -> Result<Output, ToolError> {
    if env.ctx.workout_mode
        && let Some((_, light)) = HEAVY_IN_WORKOUT.iter().find(|(h, _)| *h == name)
    {
        return Err(ToolError::new(
            "HEAVY_TOOL_IN_WORKOUT",
            format!("{name} is too heavy mid-workout; use {light}"),
        ));
    }
    let out = if let Some(r) = read::run(env, name, args).await {
        r.map(Output::read)
    } else if let Some(r) = analytics::run(env, name, args).await {
        r.map(Output::read)
    } else if let Some(r) = propose::run(env, name, args).await {
        r
    } else if let Some(r) = workout::run(env, name, args).await {
        if !env.ctx.workout_mode {
            return Err(ToolError::new(
                "WORKOUT_MODE_ONLY",
                format!("{name} works only during a workout (a workout_id in the context)"),
            ));
        }
        r.map(Output::wrote)
    } else if let Some(r) = memory::run(env, name, args).await {
        r
    } else {
        return Err(ToolError::new(
            "UNKNOWN_TOOL",
            format!(
                "there is no tool '{name}'; available: {}",
                specs(env.ctx.workout_mode)
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }?;
    Ok(Output {
        value: bounded(out.value),
        effect: out.effect,
    })
}

/// The names of the workout-mode write tools.
pub fn is_workout_tool(name: &str) -> bool {
    workout::specs().iter().any(|s| s.name == name)
}

/// A tool failure the model can read and act on.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
}

impl ToolError {
    pub(super) fn new(code: &'static str, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
        }
    }

    pub fn to_json(&self) -> Value {
        json!({ "error": { "code": self.code, "message": self.message } })
    }
}

/// Cuts a result over `MAX_RESULT_BYTES`, marking the cut.
pub fn bounded(v: Value) -> Value {
    let text = v.to_string();
    if text.len() <= MAX_RESULT_BYTES {
        return v;
    }
    // Escaping inside the string makes the cut JSON longer than its source: shrink until it fits.
    let mut end = MAX_RESULT_BYTES - 300;
    loop {
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let out = json!({
            "truncated": true,
            "note": format!("the result was {} bytes; only its first {end} are given; ask for less (fewer weeks, a narrower query)", text.len()),
            "partial_json": &text[..end],
        });
        let len = out.to_string().len();
        if len <= MAX_RESULT_BYTES || end == 0 {
            return out;
        }
        end = end.saturating_sub(len - MAX_RESULT_BYTES + 16);
    }
}

pub(super) fn str_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str, ToolError> {
    args[name]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            ToolError::new(
                "INVALID_ARGUMENT",
                format!("'{name}' (a string) is required"),
            )
        })
}

pub(super) fn int_arg(
    args: &Value,
    name: &str,
    range: std::ops::RangeInclusive<i64>,
) -> Result<Option<i64>, ToolError> {
    match &args[name] {
        Value::Null => Ok(None),
        v => v
            .as_f64()
            .filter(|f| f.fract() == 0.0)
            .map(|f| f as i64)
            .filter(|i| range.contains(i))
            .map(Some)
            .ok_or_else(|| {
                ToolError::new(
                    "INVALID_ARGUMENT",
                    format!(
                        "'{name}' must be a whole number from {} to {}",
                        range.start(),
                        range.end()
                    ),
                )
            }),
    }
}

pub(super) fn store_failed(e: &crate::store::StoreError) -> ToolError {
    tracing::error!(error = %e, "store call failed in a tool");
    ToolError::new(
        "STORE_UNAVAILABLE",
        "the training data could not be read just now; try again",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_results_are_cut_and_say_so() {
        let big = json!({"rows": (0..5000).map(|i| json!({"i": i, "pad": "xxxxxxxx"})).collect::<Vec<_>>()});
        let out = bounded(big);
        assert_eq!(out["truncated"], true);
        assert!(out.to_string().len() <= MAX_RESULT_BYTES);
        let small = json!({"ok": true});
        assert_eq!(bounded(small.clone()), small);
    }

    #[test]
    fn every_tool_has_a_schema_both_providers_accept() {
        let all = specs(true);
        for s in &all {
            assert!(
                s.name.len() <= 64
                    && s.name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_')
            );
            if let Some(p) = &s.parameters {
                let text = p.to_string();
                for banned in ["additionalProperties", "$schema", "const"] {
                    assert!(!text.contains(banned), "{}: {banned}", s.name);
                }
                assert_eq!(p["type"], "object");
            }
        }
        let mut names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "tool names are unique");
        // Workout writes are offered only in workout mode; heavy tools name a real tool or advice.
        assert!(specs(false).iter().all(|s| !is_workout_tool(&s.name)));
        for (heavy, _) in HEAVY_IN_WORKOUT {
            assert!(all.iter().any(|s| s.name == heavy), "{heavy}");
        }
    }
}
