//! The coach's tools. The user id is never a parameter: every tool runs for the authenticated
//! user of the request. A result is at most 15 KB (a longer one is cut and says so); a failing
//! tool returns `{"error": {code, message}}` to the model and the loop goes on.
//!
//! Each tool is one entry of a table ([`Tool`]): its name and declaration, the code that runs
//! it, where it is offered (in a workout, outside one, for which routed intents), what it does
//! (reads, proposes, writes) and what the lifter reads while it runs. One module per kind, each
//! with its table: `read` (training data), `analytics` (progress and analysis, by the worker's
//! analysis functions), `propose` (proposals the lifter confirms), `workout` (workout-mode
//! writes to the active workout), `memory` (memories, the coaching context and notifications).
//! Workout-mode writes are offered only in workout mode; heavy tools are not offered there. A
//! call to a tool that was not offered this turn is refused before anything runs
//! (OpenAI-compatible servers do emit names that were never declared), with the reason and, for
//! a heavy tool mid-workout, the light alternative named.

/// A table entry's `run`: `runs!(|env, name, args| …)`, the body an async block's (it may
/// `.await` and use `?`) whose value is the tool's `Result<Output, ToolError>`.
macro_rules! runs {
    (|$env:pat_param, $name:pat_param, $args:pat_param| $body:expr) => {{
        fn run<'a>(
            $env: &'a super::Env<'a>,
            $name: &'static str,
            $args: &'a serde_json::Value,
        ) -> super::Running<'a> {
            Box::pin(async move { $body })
        }
        run
    }};
}

mod analytics;
mod chart;
mod memory;
mod propose;
mod read;
mod workout;

use std::future::Future;
use std::pin::Pin;

use serde_json::{Value, json};

use crate::app::App;
use crate::context::SessionContext;
use crate::domain::units::Unit;
use crate::llm::ToolSpec;
use crate::store::Store;

pub(crate) use read::workout_brief;

/// Largest tool result handed to the model.
pub(crate) const MAX_RESULT_BYTES: usize = 15_000;

/// What a tool runs with: the request's user and the shared lane code.
pub struct Env<'a> {
    pub store: &'a Store,
    pub ctx: &'a SessionContext,
    /// The use cases a tool shares with the app's routes.
    pub app: &'a App,
    /// The lifter's unit: results are given to the model in it.
    pub unit: Unit,
    /// The lifter's message this turn: a load they named is theirs to ask for.
    pub said: &'a str,
    /// The coach's answer just before it (within minutes; empty when none): a "yes" agrees to
    /// what that answer asked, and to nothing else.
    pub asked: &'a str,
    /// Write calls made so far in this answer, by fingerprint (`Env::call_key`).
    pub calls_made: std::sync::Mutex<std::collections::HashMap<String, u32>>,
}

impl Env<'_> {
    /// A write call's idempotency key and fingerprint: the request's `corr`, the call's name and
    /// arguments, and how many identical calls came before it in this answer (two sets of 8 are
    /// two calls; on a retried stream the first of them is the first again). `None` without a
    /// `corr`. Keyed by the arguments, not by the call's place among the answer's calls: a
    /// refused or no-op call leaves no record, so places shift between attempts and a place
    /// would replay the wrong call or log one twice; a retry whose model gives other arguments
    /// writes again (needs an issue: a record per lifter request, not per call).
    pub(super) fn call_key(&self, name: &str, args: &Value) -> Option<(String, String)> {
        let corr = self.ctx.corr.as_deref()?;
        let fp = crate::app::fingerprint(&[name, &args.to_string()]);
        let mut made = self.calls_made.lock().unwrap_or_else(|p| p.into_inner());
        let n = made.entry(fp.clone()).or_insert(0);
        let key = format!("{corr}#call#{fp}#{n}");
        *n += 1;
        Some((key, fp))
    }
}

/// What a successful tool did besides answering the model.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    None,
    /// A stored proposal: the stream shows it as an `artifact` event.
    Proposed(Value),
    /// Something to show, not to confirm (a progress chart the app renders): an `artifact`
    /// event with no actions.
    Shown(Value),
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

/// A tool call in flight.
pub type Running<'a> = Pin<Box<dyn Future<Output = Result<Output, ToolError>> + Send + 'a>>;

/// Where a tool is offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// In a workout and outside one.
    Always,
    /// Only during a workout (a workout_id in the context): the workout writes.
    InWorkout,
    /// Only outside a workout: too heavy mid-workout, where the model is pointed to `light`.
    OutsideWorkout { light: &'static str },
}

/// What a tool does besides answering the model. The reads of one turn run together; any other
/// call runs alone, in the model's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Does {
    Reads,
    /// Stores a proposal the lifter confirms or dismisses (it changes nothing else).
    Proposes,
    /// Changes the lifter's data (a notification the gate holds back changes nothing).
    Writes,
}

/// One tool: its declaration, the code that runs it, where it is offered and what it does.
pub struct Tool {
    pub name: &'static str,
    description: &'static str,
    /// Its arguments' JSON schema (`None`: it takes none).
    parameters: fn() -> Option<Value>,
    run: for<'a> fn(&'a Env<'a>, &'static str, &'a Value) -> Running<'a>,
    pub offered: Offered,
    /// Offered for a progress question, which gets only these.
    pub for_progress: bool,
    /// Offered for a planning request (a routine, a plan, the next workout), which gets only these.
    pub for_plans: bool,
    pub does: Does,
    /// What the lifter reads while it runs: "Checking *your progress*…".
    pub shown_as: &'static str,
}

impl Tool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.to_string(),
            description: self.description.to_string(),
            parameters: (self.parameters)(),
        }
    }

    fn offered_in(&self, workout_mode: bool) -> bool {
        match self.offered {
            Offered::Always => true,
            Offered::InWorkout => workout_mode,
            Offered::OutsideWorkout { .. } => !workout_mode,
        }
    }
}

/// Every tool, in the order they are declared to the model (a stable order keeps the prompt's
/// cacheable prefix byte-identical).
fn all() -> impl Iterator<Item = &'static Tool> {
    read::TOOLS
        .iter()
        .chain(analytics::TOOLS)
        .chain(propose::TOOLS)
        .chain(workout::TOOLS)
        .chain(memory::TOOLS)
}

/// The tool called `name`, if there is one.
pub fn tool(name: &str) -> Option<&'static Tool> {
    all().find(|t| t.name == name)
}

/// The tools offered for a routed intent (seed 003's permission boundaries): a progress question
/// reads and analyses, a planning request reads and proposes, the rest (a general question, a
/// workout in progress) gets them all as `specs` gives them. Fewer declarations are most of a
/// call's input saved, and a call outside the set is refused as any tool not offered is.
pub(crate) fn specs_for(
    workout_mode: bool,
    intent: Option<crate::router::Intent>,
) -> Vec<ToolSpec> {
    use crate::router::Intent;
    let all = specs(workout_mode);
    if workout_mode {
        return all;
    }
    let keep: fn(&Tool) -> bool = match intent {
        // What a progress question reads: the lift, the muscle group, the whole picture, the
        // sets themselves and a load for next time (the routine, templates, the active workout,
        // the snapshot and memories are other questions' tools; the context block has the
        // profile and the memories).
        Some(Intent::AnalyzeProgress) => |t| t.for_progress,
        Some(
            Intent::PlanRoutine
            | Intent::EditPlan
            | Intent::PlanWorkout
            | Intent::StartWorkout
            | Intent::NextWorkout,
        ) => |t| t.for_plans,
        _ => return all,
    };
    all.into_iter()
        .filter(|s| tool(&s.name).is_some_and(keep))
        .collect()
}

/// The tools offered for this request: in workout mode the workout writes and no heavy tool.
pub(crate) fn specs(workout_mode: bool) -> Vec<ToolSpec> {
    all()
        .filter(|t| t.offered_in(workout_mode))
        .map(Tool::spec)
        .collect()
}

/// The light alternative of a heavy tool, or `None` for a tool that is not heavy.
fn heavy_alternative(name: &str) -> Option<&'static str> {
    match tool(name)?.offered {
        Offered::OutsideWorkout { light } => Some(light),
        _ => None,
    }
}

/// Runs one tool for the request's user, if it is among the tools `offered` this turn (a call
/// to any other name is refused before anything runs). The result is bounded (see `bounded`).
pub async fn run(
    env: &Env<'_>,
    offered: &[ToolSpec],
    name: &str,
    args: &Value,
) -> Result<Output, ToolError> {
    let Some(tool) = tool(name).filter(|_| offered.iter().any(|s| s.name == name)) else {
        return Err(not_offered(env.ctx.workout_mode, name, offered));
    };
    let out = (tool.run)(env, tool.name, args).await?;
    Ok(Output {
        value: bounded(in_unit(without_nulls(out.value), env.unit)),
        effect: out.effect,
    })
}

/// A result without its null fields: an absent field says as much to the model, in fewer
/// tokens (a progress result's sessions and weeks carry `rir: null` on every unrated set).
pub(crate) fn without_nulls(v: Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.into_iter().map(without_nulls).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(_, x)| !x.is_null())
                .map(|(k, x)| (k, without_nulls(x)))
                .collect(),
        ),
        other => other,
    }
}

/// A result as the model should read it for a lifter in `unit`: for pounds, every `…_kg`
/// number becomes `…_lb` in pounds (one decimal), so the coach never quotes kilograms to a
/// pound lifter or converts by itself. Texts are already written in the lifter's unit.
pub fn in_unit(v: Value, unit: Unit) -> Value {
    if unit == Unit::Kg {
        return v;
    }
    match v {
        Value::Array(a) => Value::Array(a.into_iter().map(|x| in_unit(x, unit)).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| match (k.strip_suffix("_kg"), x.as_f64()) {
                    (Some(stem), Some(kg)) => (
                        format!("{stem}_{}", unit.label()),
                        json!(crate::domain::strength::round1(unit.from_kg(kg))),
                    ),
                    _ => (k, in_unit(x, unit)),
                })
                .collect(),
        ),
        x => x,
    }
}

/// Why `name` cannot be called this turn, in words the model can act on.
fn not_offered(workout_mode: bool, name: &str, offered: &[ToolSpec]) -> ToolError {
    if workout_mode && let Some(light) = heavy_alternative(name) {
        return ToolError::new(
            "HEAVY_TOOL_IN_WORKOUT",
            format!("{name} is too heavy mid-workout and is not offered; use {light}"),
        );
    }
    if !workout_mode && is_workout_tool(name) {
        return ToolError::new(
            "WORKOUT_MODE_ONLY",
            format!(
                "{name} works only during a workout (a workout_id in the context); nothing was changed"
            ),
        );
    }
    let names: Vec<&str> = offered.iter().map(|s| s.name.as_str()).collect();
    let shown: String = name.chars().take(64).collect();
    ToolError::new(
        "UNKNOWN_TOOL",
        if names.is_empty() {
            format!("no tools are offered now (tool '{shown}' was not run); answer in text")
        } else {
            format!(
                "there is no tool '{shown}' this turn; available: {}",
                names.join(", ")
            )
        },
    )
}

/// Whether `name` only reads (the training data and its analysis): such calls of one turn may
/// run together; any other call changes something and runs alone, in the model's order.
pub fn is_read_only(name: &str) -> bool {
    tool(name).is_some_and(|t| t.does == Does::Reads)
}

/// The order a turn's calls run in: each group runs together, the groups one after another.
/// Consecutive reads form one group; every other call is a group of its own, so two writes
/// (two `log_set` without a set id, a swap then a prescription) land in the order asked.
pub(crate) fn run_groups(names: &[&str]) -> Vec<std::ops::Range<usize>> {
    let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        match groups.last_mut() {
            Some(g)
                if is_read_only(name) && names[g.start..g.end].iter().all(|n| is_read_only(n)) =>
            {
                g.end = i + 1;
            }
            _ => groups.push(i..i + 1),
        }
    }
    groups
}

/// The names of the workout-mode write tools.
pub(crate) fn is_workout_tool(name: &str) -> bool {
    tool(name).is_some_and(|t| t.offered == Offered::InWorkout)
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

/// The numbers written in `text` ("140", "82.5"), for checking what the lifter stated.
pub(super) fn numbers_in(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|n| n.trim_matches('.').parse().ok())
        .collect()
}

/// Whether the lifter's message is a yes to what the coach asked: it starts with one ("yes,
/// keep them", "ok go ahead") and says no "no", "not" or "wait" ("no, keep going" and "I'm
/// fine, one more" are no yes to "shall I finish?").
pub(super) fn agrees(said: &str) -> bool {
    let lower = said.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let refuses = words.iter().any(|w| {
        matches!(
            *w,
            "no" | "nope" | "not" | "don't" | "dont" | "wait" | "cancel" | "stop" | "nah"
        )
    });
    let first = words.first().copied().unwrap_or_default();
    let opens = matches!(
        first,
        "yes"
            | "yeah"
            | "yep"
            | "yup"
            | "ok"
            | "okay"
            | "sure"
            | "confirm"
            | "confirmed"
            | "alright"
    ) || ["go ahead", "do it", "please do", "sounds good"]
        .iter()
        .any(|p| lower.trim_start().starts_with(p));
    opens && !refuses
}

/// Whether the last question of the coach's answer `asked` is about one of `topics` ("Shall I
/// finish your workout here?"): a "yes" then answers that, and nothing else.
pub(super) fn asked_about(asked: &str, topics: &[&str]) -> bool {
    last_question(asked).is_some_and(|q| {
        let q = q.to_lowercase();
        topics.iter().any(|t| q.contains(t))
    })
}

/// The last question of the coach's answer `asked`: what a "yes" answers.
pub(super) fn last_question(asked: &str) -> Option<&str> {
    asked
        .split_inclusive(['.', '!', '?', '\n'])
        .rfind(|q| q.trim_end().ends_with('?'))
}

/// Whether `text` names the count `n`, in digits or in words ("ten and then six reps").
pub(super) fn names_count(text: &str, n: u32) -> bool {
    numbers_in(text).contains(&f64::from(n))
        || text
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| crate::router::command::number_word(&w.to_ascii_lowercase()) == Some(n))
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

    #[test]
    fn a_pound_lifter_reads_pounds() {
        let v = json!({"top_set": {"weight_kg": 102.058_283_25, "reps": 5}, "e1rm_kg": 119.07,
            "sessions": [{"suggested_kg": 100.0}], "note": "225 lb × 5"});
        let lb = in_unit(v.clone(), Unit::Lb);
        assert_eq!(
            lb,
            json!({"top_set": {"weight_lb": 225.0, "reps": 5}, "e1rm_lb": 262.5,
                "sessions": [{"suggested_lb": 220.5}], "note": "225 lb × 5"})
        );
        assert_eq!(in_unit(v.clone(), Unit::Kg), v);
        // And writes in pounds: weight_lb, or weight_kg, never both.
        let kg = workout::weight_arg(&json!({"weight_lb": 225}))
            .ok()
            .flatten();
        assert!(kg.is_some_and(|k| (k - 102.058_283_25).abs() < 1e-6));
        assert!(workout::weight_arg(&json!({"weight_lb": 225, "weight_kg": 100})).is_err());
    }

    use super::*;

    #[test]
    fn reads_run_together_and_writes_one_after_another() {
        assert_eq!(
            run_groups(&[
                "exercise_progress",
                "workout_state",
                "log_set",
                "log_set",
                "suggest_weight",
                "prescribe_set",
                "training_snapshot",
                "routine",
            ]),
            vec![0..2, 2..3, 3..4, 4..5, 5..6, 6..8]
        );
        assert_eq!(run_groups(&[]), Vec::<std::ops::Range<usize>>::new());
        assert!(!is_read_only("save_memory") && !is_read_only("propose_routine"));
        // Listing memories only reads: it runs with the other reads.
        assert_eq!(
            run_groups(&["list_memories", "exercise_progress", "retire_memory"]),
            vec![0..2, 2..3]
        );
    }

    #[test]
    fn big_results_are_cut_and_say_so() {
        let big = json!({"rows": (0..5000).map(|i| json!({"i": i, "pad": "xxxxxxxx"})).collect::<Vec<_>>()});
        let out = bounded(big);
        assert_eq!(out["truncated"], true);
        assert!(out.to_string().len() <= MAX_RESULT_BYTES);
        let small = json!({"ok": true});
        assert_eq!(bounded(small.clone()), small);
    }

    /// The table's promises: a progress question only reads; mid-workout, only the workout
    /// tools write; a heavy tool's light alternative is a tool offered mid-workout (or a note to
    /// propose later).
    #[test]
    fn the_table_keeps_its_promises() {
        let mid_workout = specs(true);
        for t in super::all() {
            if t.for_progress {
                assert_eq!(t.does, Does::Reads, "{} for a progress question", t.name);
            }
            if t.offered == Offered::InWorkout {
                assert_eq!(t.does, Does::Writes, "{}", t.name);
                assert!(!t.for_progress && !t.for_plans, "{}", t.name);
            }
            if let Offered::OutsideWorkout { light } = t.offered {
                let first = light.split_whitespace().next().unwrap_or_default();
                assert!(
                    first == "note" || mid_workout.iter().any(|s| s.name == first),
                    "{}: {light}",
                    t.name
                );
            }
            assert!(
                !t.shown_as.is_empty() && !t.description.is_empty(),
                "{}",
                t.name
            );
        }
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
        // Workout writes are offered only in workout mode, heavy tools only outside it.
        assert!(specs(false).iter().all(|s| !is_workout_tool(&s.name)));
        for heavy in super::all().filter(|t| heavy_alternative(t.name).is_some()) {
            let heavy = heavy.name;
            assert!(specs(false).iter().any(|s| s.name == heavy), "{heavy}");
            assert!(all.iter().all(|s| s.name != heavy), "{heavy} mid-workout");
        }
    }
}
