//! Workout-mode tools: changes to the active workout while the lifter trains. Each one is an
//! edit of the active workout through the same use case as the app's commands, buttons and
//! offline sync (`app::active::edit_active`: the read, the checks, the versioned commit, the
//! retry and the replay), applying the change with the same skills.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::read::workout_brief;
use super::{
    Does, Env, Offered, Output, Tool, ToolError, agrees, asked_about, int_arg, names_count,
    numbers_in, store_failed, str_arg,
};
use crate::app::active::{Edit, EditFailed, EditRead, EditRequest, edit_active, replay_record};
use crate::domain::catalog::Loading;
use crate::domain::catalog::catalog;
use crate::domain::limits::{self, MAX_REPS, MAX_RIR};
use crate::domain::profile::Profile;
use crate::domain::units::Unit;
use crate::domain::units::format_weight;
use crate::domain::workout::{SetAction, SetResult, SetStatus, Workout};
use crate::skills::suggest::{DEFAULT_TARGET_RIR, step_for, suggest_weight};
use crate::skills::{swap, workouts};

fn set_values(required: &[&str]) -> Value {
    json!({"type": "object", "properties": {
        "set_id": {"type": "string", "description": "from workout_state; default: the current set"},
        "reps": {"type": "integer", "minimum": 0, "maximum": 500},
        "weight_kg": {"type": "number", "minimum": 0, "maximum": 1500},
        "weight_lb": {"type": "number", "minimum": 0, "maximum": 3300, "description": "instead of weight_kg, for a lifter in pounds"},
        "rir": {"type": "integer", "minimum": 0, "maximum": 5}
    }, "required": required})
}

/// The workout-mode tools, each an edit of the active workout. Those whose change depends on
/// the lifter's past are planned from the history (`edit`'s `history_for`).
pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "log_set",
        description: "Log a set the lifter did (reps, weight in kg or lb, optional RIR): the current set, or set_id.",
        parameters: || Some(set_values(&["reps"])),
        run: runs!(|env, name, args| {
            edit(env, name, args, None, |w, _, p, now| {
                log_set(w, args, now, env.said, p.unit)
            })
            .await
            .map(Output::wrote)
        }),
        offered: Offered::InWorkout,
        for_progress: false,
        for_plans: false,
        does: Does::Writes,
        shown_as: "your workout",
    },
    Tool {
        name: "add_exercise",
        description: "Add an exercise to the end of the active workout. Weight from the lifter's history unless given (a weight above what their history supports is refused unless the lifter named it); warmup=true adds a ramp of 50/65/80% x 10/8/5 reps (none under 30 kg).",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "exercise_id": {"type": "string"},
                "sets": {"type": "integer", "minimum": 1, "maximum": 10},
                "reps": {"type": "integer", "minimum": 1, "maximum": 50},
                "rir": {"type": "integer", "minimum": 0, "maximum": 5},
                "weight_kg": {"type": "number", "minimum": 0, "maximum": 1500},
                "weight_lb": {"type": "number", "minimum": 0, "maximum": 3300, "description": "instead of weight_kg, for a lifter in pounds"},
                "warmup": {"type": "boolean"}
            }, "required": ["exercise_id"]}))
        },
        run: runs!(|env, name, args| {
            edit(env, name, args, Some(args), |w, h, p, now| {
                add_exercise(w, args, h, p, now, env.said)
            })
            .await
            .map(Output::wrote)
        }),
        offered: Offered::InWorkout,
        for_progress: false,
        for_plans: false,
        does: Does::Writes,
        shown_as: "your workout",
    },
    Tool {
        name: "prescribe_set",
        description: "Change the plan of a set not yet done: reps, weight in kg or lb, RIR. A heavier load than the lifter's history supports (suggest_weight) is refused unless the lifter named it.",
        parameters: || Some(set_values(&["set_id"])),
        run: runs!(|env, name, args| {
            edit(env, name, args, Some(args), |w, h, p, now| {
                prescribe_set(w, args, h, p, now, env.said)
            })
            .await
            .map(Output::wrote)
        }),
        offered: Offered::InWorkout,
        for_progress: false,
        for_plans: false,
        does: Does::Writes,
        shown_as: "your workout",
    },
    Tool {
        name: "swap_exercise",
        description: "Replace an exercise of the active workout (by exercise_instance_id) with another; planned weights are re-derived. If sets are logged, confirm=true keeps them and moves the rest.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "exercise_instance_id": {"type": "string"},
                "exercise_id": {"type": "string"},
                "confirm": {"type": "boolean"}
            }, "required": ["exercise_instance_id", "exercise_id"]}))
        },
        run: runs!(|env, name, args| {
            edit(env, name, args, Some(args), |w, h, p, now| {
                swap_exercise(w, args, h, p, now, (env.said, env.asked))
            })
            .await
            .map(Output::wrote)
        }),
        offered: Offered::InWorkout,
        for_progress: false,
        for_plans: false,
        does: Does::Writes,
        shown_as: "your workout",
    },
    Tool {
        name: "remove_set",
        description: "Remove a planned set that was not done (logged sets stay; the lifter can say 'undo').",
        parameters: || {
            Some(
                json!({"type": "object", "properties": {"set_id": {"type": "string"}}, "required": ["set_id"]}),
            )
        },
        run: runs!(|env, name, args| {
            edit(env, name, args, None, |w, _, _, _| remove_set(w, args))
                .await
                .map(Output::wrote)
        }),
        offered: Offered::InWorkout,
        for_progress: false,
        for_plans: false,
        does: Does::Writes,
        shown_as: "your workout",
    },
    Tool {
        name: "complete_workout",
        description: "Finish the active workout when the lifter's message asks to finish (refused otherwise). Its analysis is queued.",
        parameters: || None,
        run: runs!(|env, _, _| complete(env).await.map(Output::wrote)),
        offered: Offered::InWorkout,
        for_progress: false,
        for_plans: false,
        does: Does::Writes,
        shown_as: "your workout",
    },
];

/// A change to the workout and what to tell the model; `None` workout: nothing to change.
type Change = (Option<Workout>, Value);

/// Applies the call `name(args)` to the active workout and commits it on the workout's version
/// together with the call's idempotency record (`Env::call_key`): a retried stream that makes
/// the same call again gets the first answer back, marked `replayed`, and changes nothing.
/// With `history_for` (the tool's arguments), the change is planned from the history: the
/// recent window plus the last session, however old, of the exercise the arguments name (its
/// `exercise_id`, or the exercise of its `set_id` in the active workout).
async fn edit<F>(
    env: &Env<'_>,
    name: &str,
    args: &Value,
    history_for: Option<&Value>,
    apply: F,
) -> Result<Value, ToolError>
where
    F: Fn(&Workout, &[Workout], &Profile, DateTime<Utc>) -> Result<Change, ToolError>,
{
    let user = env.ctx.user_id.as_str();
    let key = env.call_key(name, args);
    let keys: Vec<&str> = key.iter().map(|(k, _)| k.as_str()).collect();
    let req = EditRequest {
        user,
        workout_id: env.ctx.workout_id.as_deref(),
        needs_active: true,
        keys: &keys,
        recent_history: history_for.is_some(),
    };
    let (key, apply) = (&key, &apply);
    edit_active(env.store, req, move |read: EditRead| async move {
        if let Some(done) = read.replay(key.as_ref().map(|(k, _)| k.as_str())) {
            let mut answer: Value = serde_json::from_str(&done.body).unwrap_or_default();
            answer["replayed"] = json!(
                "this call was already made for this message (a retried request): nothing was changed again"
            );
            return Ok(Edit::Answer(answer));
        }
        // After the replay: a retried call answers as it did even when the workout has
        // since been finished.
        let Some(active) = read.workout()? else {
            return Err(EditFailed::NoActiveWorkout.into());
        };
        let history = match history_for {
            None => Vec::new(),
            Some(args) => with_last_session(env, user, &active.value, args, read.history.clone())
                .await
                .map_err(|e| store_failed(&e))?,
        };
        let (changed, mut answer) = apply(&active.value, &history, &read.profile, read.now)?;
        let Some(changed) = changed else {
            return Ok(Edit::Answer(answer));
        };
        answer["workout"] = workout_brief(&changed);
        let records = key
            .iter()
            .map(|(k, fp)| replay_record(k, fp, answer.to_string(), read.now))
            .collect();
        Ok(Edit::Write {
            workout: changed,
            records,
            answer,
        })
    })
    .await
}

impl From<EditFailed> for ToolError {
    fn from(e: EditFailed) -> ToolError {
        match e {
            EditFailed::Store(e) => store_failed(&e),
            EditFailed::NoActiveWorkout => {
                ToolError::new("NO_ACTIVE_WORKOUT", "the lifter has no active workout")
            }
            EditFailed::WorkoutMismatch { wanted } => ToolError::new(
                "WORKOUT_MISMATCH",
                format!("workout {wanted} is not the active workout"),
            ),
            EditFailed::Invalid(l) => {
                ToolError::new("INVALID_ARGUMENT", format!("{}: {}", l.field, l.message))
            }
            EditFailed::Conflict => ToolError::new(
                "CONFLICT",
                "the workout kept changing; nothing was changed, try again",
            ),
        }
    }
}

/// The history a change is planned from: the recent window plus the last session of the
/// exercise `args` names, directly or through a set of `active`.
async fn with_last_session(
    env: &Env<'_>,
    user: &str,
    active: &Workout,
    args: &Value,
    recent: Vec<Workout>,
) -> Result<Vec<Workout>, crate::store::StoreError> {
    let named = args["exercise_id"]
        .as_str()
        .and_then(|t| catalog().resolve(t).exercise())
        .map(|e| e.id.clone());
    let of_set = args["set_id"]
        .as_str()
        .and_then(|id| active.find_set(id))
        .map(|pos| active.exercises[pos.exercise].exercise_id.clone());
    let ids: Vec<&str> = named
        .iter()
        .chain(of_set.iter())
        .map(String::as_str)
        .collect();
    env.store.with_last_sessions(user, recent, &ids).await
}

/// A load the model chose for `reps` at `rir` of `exercise_id`, held to what the lifter's
/// history supports: at most SUGGEST_WEIGHT's answer for those reps and reserve plus one step
/// (rounding), unless the lifter's own message this turn named it. A model never raises a load
/// past the progression model on its own; a lighter load, and more assistance, always pass.
#[allow(clippy::too_many_arguments)]
fn check_model_load(
    kg: f64,
    exercise_id: &str,
    reps: u32,
    rir: u32,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
    said: &str,
) -> Result<(), ToolError> {
    let exercise = catalog().get(exercise_id);
    if exercise.is_some_and(|e| matches!(e.loading, Loading::Assisted { .. }))
        || named_by_lifter(said, kg)
    {
        return Ok(());
    }
    let s = suggest_weight(exercise_id, exercise, reps, rir, history, profile, now);
    let bound = s.weight_kg.max(0.0) + step_for(exercise, profile);
    if kg <= bound + 1e-6 {
        return Ok(());
    }
    Err(ToolError::new(
        "LOAD_ABOVE_HISTORY",
        format!(
            "{} for {reps} reps at RIR {rir} is more than the lifter's history supports (suggest_weight: {}); prescribe at most that, or ask the lifter: a load they name themselves is used as given",
            format_weight(kg, profile.unit),
            format_weight(s.weight_kg.max(0.0), profile.unit),
        ),
    ))
}

/// Words that report a failed set: it is logged as 0 reps.
static FAILED: std::sync::LazyLock<regex_lite::Regex> = std::sync::LazyLock::new(|| {
    regex_lite::Regex::new(
        r"(?i)\b(fail(ed)?|missed|miss|couldn'?t|could not|didn'?t get|no reps?|bailed)\b",
    )
    .unwrap_or_else(|e| panic!("failed pattern: {e}"))
});

/// What a log the lifter did not report is answered with.
fn not_stated(what: String) -> ToolError {
    ToolError::new(
        "NOT_STATED",
        format!(
            "the lifter's message does not say {what}: log only what they reported (the set's target when they just say done), or ask them"
        ),
    )
}

/// Whether the lifter's message names `kg`, in kilograms or pounds (to the rounding of a plate).
fn named_by_lifter(said: &str, kg: f64) -> bool {
    numbers_in(said)
        .into_iter()
        .any(|n| (n - kg).abs() <= 0.25 || (Unit::Lb.to_kg(n) - kg).abs() <= 0.25)
}

fn invalid(e: limits::LimitError) -> ToolError {
    ToolError::new("INVALID_ARGUMENT", format!("{}: {}", e.field, e.message))
}

/// The weight argument in kilograms: `weight_kg`, or `weight_lb` (a pound lifter's results are
/// in pounds, so the model answers in pounds), never both.
pub(super) fn weight_arg(args: &Value) -> Result<Option<f64>, ToolError> {
    let (name, unit) = match (&args["weight_kg"], &args["weight_lb"]) {
        (Value::Null, Value::Null) => return Ok(None),
        (_, Value::Null) => ("weight_kg", Unit::Kg),
        (Value::Null, _) => ("weight_lb", Unit::Lb),
        _ => {
            return Err(ToolError::new(
                "INVALID_ARGUMENT",
                "give weight_kg or weight_lb, not both",
            ));
        }
    };
    let value = args[name]
        .as_f64()
        .ok_or_else(|| ToolError::new("INVALID_ARGUMENT", format!("'{name}' must be a number")))?;
    let kg = unit.to_kg(value);
    limits::check_weight_kg(name, kg).map_err(invalid)?;
    Ok(Some(kg))
}

fn set_arg<'a>(w: &Workout, args: &'a Value) -> Result<Option<&'a str>, ToolError> {
    Ok(match &args["set_id"] {
        Value::Null => None,
        _ => {
            let id = str_arg(args, "set_id")?;
            if w.find_set(id).is_none() {
                return Err(ToolError::new(
                    "NOT_FOUND",
                    format!("no set '{id}' in the active workout; use workout_state"),
                ));
            }
            Some(id)
        }
    })
}

/// Logs what the lifter did: a weight or reps the model gives must be the set's target or
/// named in the lifter's message ("ten and then six reps"), or it is refused (`NOT_STATED`) and
/// the model asks; a model must not fill in a set the lifter never reported.
fn log_set(
    w: &Workout,
    args: &Value,
    now: DateTime<Utc>,
    said: &str,
    unit: Unit,
) -> Result<Change, ToolError> {
    let reps = int_arg(args, "reps", 0..=i64::from(MAX_REPS))?
        .ok_or_else(|| ToolError::new("INVALID_ARGUMENT", "'reps' is required"))?
        as u32;
    let rir = int_arg(args, "rir", 0..=i64::from(MAX_RIR))?.map(|r| r as u32);
    let weight = weight_arg(args)?;
    let pos = match set_arg(w, args)? {
        Some(id) => w.find_set(id),
        None => w.current_set(),
    }
    .ok_or_else(|| {
        ToolError::new(
            "NO_SET",
            "no planned set is left; add one with add_exercise or prescribe more",
        )
    })?;
    let set = w.set_at(pos);
    let failed = reps == 0 && FAILED.is_match(said);
    if set.target.reps != Some(reps) && !failed && !names_count(said, reps) {
        return Err(not_stated(format!(
            "{reps} reps (the set's target is {})",
            set.target.reps.map_or("not set".into(), |r| r.to_string())
        )));
    }
    if let Some(kg) = weight
        // A pound lifter's 220.5 lb is the plan's 100 kg (100.02 kg).
        && set.target.weight_kg.is_none_or(|t| (t - kg).abs() > 0.25)
        && !named_by_lifter(said, kg)
    {
        return Err(not_stated(format!(
            "a weight of {}",
            format_weight(kg, unit)
        )));
    }
    let result = SetResult {
        reps,
        weight_kg: weight.or(set.target.weight_kg),
        rir,
        rpe: None,
        failure: reps == 0,
        ..Default::default()
    };
    if set.status == SetStatus::Done && set.actual.as_ref() == Some(&result) {
        // Logged already with these values (a retried call): nothing to change.
        return Ok((None, json!({ "logged": set.id, "already_logged": true })));
    }
    let mut changed = w.clone();
    let s = changed.set_at_mut(pos);
    s.actual = Some(result);
    s.status = SetStatus::Done;
    s.completed_at = Some(now);
    let id = s.id.clone();
    changed.record_change(id.clone(), SetAction::Logged, now);
    Ok((Some(changed), json!({ "logged": id })))
}

fn add_exercise(
    w: &Workout,
    args: &Value,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
    said: &str,
) -> Result<Change, ToolError> {
    let text = str_arg(args, "exercise_id")?;
    // "curls": the lifter's usual curl, else the candidates to choose from.
    let exercise =
        workouts::resolve_for(text, history).map_err(|m| ToolError::new("UNKNOWN_EXERCISE", m))?;
    let add = workouts::Addition {
        exercise,
        sets: int_arg(args, "sets", 1..=10)?.map_or(workouts::DEFAULT_SETS, |n| n as u32),
        reps: int_arg(args, "reps", 1..=50)?.map_or(workouts::DEFAULT_REPS, |n| n as u32),
        rir: int_arg(args, "rir", 0..=5)?.map_or(DEFAULT_TARGET_RIR, |n| n as u32),
        weight_kg: weight_arg(args)?,
        warmup: match &args["warmup"] {
            Value::Null => None,
            v => Some(v.as_bool().ok_or_else(|| {
                ToolError::new("INVALID_ARGUMENT", "'warmup' must be true or false")
            })?),
        },
    };
    if let Some(kg) = add.weight_kg {
        check_model_load(
            kg,
            &exercise.id,
            add.reps,
            add.rir,
            history,
            profile,
            now,
            said,
        )?;
    }
    let (changed, idx) = workouts::add_exercise(w, &add, history, profile, now);
    let inst = &changed.exercises[idx];
    let answer = json!({ "added": inst.instance_id, "sets": inst.sets.iter().map(|s| json!({
        "set_id": s.id, "type": s.set_type, "reps": s.target.reps, "weight_kg": s.target.weight_kg,
    })).collect::<Vec<_>>() });
    Ok((Some(changed), answer))
}

fn prescribe_set(
    w: &Workout,
    args: &Value,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
    said: &str,
) -> Result<Change, ToolError> {
    let id = set_arg(w, args)?
        .ok_or_else(|| ToolError::new("INVALID_ARGUMENT", "'set_id' is required"))?;
    let pos = w
        .find_set(id)
        .ok_or_else(|| ToolError::new("NOT_FOUND", "no such set"))?;
    if w.set_at(pos).status != SetStatus::Planned {
        return Err(ToolError::new(
            "SET_DONE",
            format!("set {id} is already done; only planned sets can be changed"),
        ));
    }
    let before = w.set_at(pos).target.clone();
    let mut changed = w.clone();
    let t = &mut changed.set_at_mut(pos).target;
    if let Some(r) = int_arg(args, "reps", 1..=i64::from(MAX_REPS))? {
        t.reps = Some(r as u32);
    }
    if let Some(kg) = weight_arg(args)? {
        t.weight_kg = Some(kg);
    }
    if let Some(r) = int_arg(args, "rir", 0..=i64::from(MAX_RIR))? {
        t.rir = Some(r as u32);
    }
    // No heavier and no more reps than the plan already asked: nothing to check.
    let harder = t.weight_kg.unwrap_or(0.0) > before.weight_kg.unwrap_or(0.0) + 1e-6
        || t.reps.unwrap_or(0) > before.reps.unwrap_or(0);
    if harder && let Some(kg) = t.weight_kg {
        check_model_load(
            kg,
            &w.exercises[pos.exercise].exercise_id,
            t.reps.unwrap_or(workouts::DEFAULT_REPS),
            t.rir.unwrap_or(DEFAULT_TARGET_RIR),
            history,
            profile,
            now,
            said,
        )?;
    }
    let target = json!(t);
    Ok((Some(changed), json!({ "prescribed": id, "target": target })))
}

fn swap_exercise(
    w: &Workout,
    args: &Value,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
    (said, asked): (&str, &str),
) -> Result<Change, ToolError> {
    let instance = str_arg(args, "exercise_instance_id")?;
    let target = swap::resolve_target(str_arg(args, "exercise_id")?, history)
        .map_err(|m| ToolError::new("UNKNOWN_EXERCISE", m))?;
    // The model's confirm=true counts only as the lifter's answer to the coach's question: the
    // coach's last answer asked about the swap and the lifter's message agrees.
    let confirm = args["confirm"].as_bool().unwrap_or(false)
        && agrees(said)
        && asked_about(asked, SWAP_TOPICS);
    match swap::apply(w, instance, target, confirm, history, profile, now) {
        Ok(a) => Ok((
            Some(a.workout),
            json!({ "swapped_to": a.instance_id, "weights": a.weights }),
        )),
        Err(swap::ApplyError::InstanceNotFound) => Err(ToolError::new(
            "NOT_FOUND",
            format!("no exercise '{instance}' in the active workout; use workout_state"),
        )),
        Err(swap::ApplyError::SetsLogged { logged, name }) => Err(ToolError::new(
            "SETS_LOGGED",
            format!(
                "{logged} sets of {name} are logged; ask the lifter, then call again with confirm=true to keep them and move the rest"
            ),
        )),
    }
}

fn remove_set(w: &Workout, args: &Value) -> Result<Change, ToolError> {
    let id = set_arg(w, args)?
        .ok_or_else(|| ToolError::new("INVALID_ARGUMENT", "'set_id' is required"))?;
    let pos = w
        .find_set(id)
        .ok_or_else(|| ToolError::new("NOT_FOUND", "no such set"))?;
    if w.set_at(pos).status == SetStatus::Done {
        return Err(ToolError::new(
            "SET_DONE",
            format!(
                "set {id} is logged; logged sets are not removed here (the lifter can say 'undo' right after logging)"
            ),
        ));
    }
    let mut changed = w.clone();
    changed.exercises[pos.exercise].sets.remove(pos.set);
    if changed.exercises[pos.exercise].sets.is_empty() {
        changed.exercises.remove(pos.exercise);
    }
    Ok((Some(changed), json!({ "removed": id })))
}

/// What a question about a swap names.
const SWAP_TOPICS: &[&str] = &["swap", "replace", "switch", "change"];
/// What a question about finishing the workout names.
const FINISH_TOPICS: &[&str] = &[
    "finish your workout",
    "finish the workout",
    "finish the session",
    "finish for today",
    "finish up",
    "end your workout",
    "end the workout",
    "end the session",
    "complete your workout",
    "complete the workout",
    "wrap up",
    "wrap it up",
    "call it a day",
];

/// Whether the lifter's message asks to end the workout ("finish", "I'm done", "wrap up").
fn asks_to_finish(said: &str) -> bool {
    let lower = said.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().any(|w| {
        matches!(
            *w,
            "finish" | "finished" | "finishing" | "end" | "ending" | "complete" | "completed"
        )
    }) || lower.contains("wrap up")
        || lower.contains("wrap it up")
        || lower.contains("i'm done")
        || lower.contains("im done")
        || lower.contains("done for today")
        || lower.contains("that's it")
        || lower.contains("call it a day")
}

/// Finishing is the lifter's to ask for: a model that ends a workout unasked would close it on
/// them mid-session.
async fn complete(env: &Env<'_>) -> Result<Value, ToolError> {
    // Asked by the lifter, or their yes to the coach's question about finishing.
    let asked =
        asks_to_finish(env.said) || (agrees(env.said) && asked_about(env.asked, FINISH_TOPICS));
    if !asked {
        return Err(ToolError::new(
            "NOT_ASKED",
            "the lifter did not ask to finish the workout; ask them first (\"Shall I finish your workout?\"), and finish when they say so",
        ));
    }
    let active = env
        .store
        .get_active_workout(&env.ctx.user_id)
        .await
        .map_err(|e| store_failed(&e))?
        .ok_or_else(|| ToolError::new("NO_ACTIVE_WORKOUT", "the lifter has no active workout"))?;
    let done = env
        .app
        .complete_workout(env.ctx, &active.value.id)
        .await
        .map_err(|e| ToolError::new("COMPLETE_FAILED", e.message))?;
    Ok(json!({ "completed": active.value.id, "job": done.job }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workout_ends_when_the_lifter_asks() {
        for asked in [
            "finish my workout",
            "I'm done, wrap it up",
            "that's it for today",
            "end the session",
            "Log 8 at 100 and finish",
        ] {
            assert!(asks_to_finish(asked), "{asked}");
        }
        for not in [
            "how many sets are left?",
            "log 8 reps",
            "what's next?",
            "is my bench done improving?",
        ] {
            assert!(!asks_to_finish(not), "{not}");
        }
    }

    #[test]
    fn a_swap_over_logged_sets_needs_the_lifters_yes() {
        assert!(agrees("yes, keep them"));
        assert!(agrees("ok go ahead"));
        assert!(agrees("Go ahead."));
        assert!(!agrees("swap bench for dumbbell press"));
        assert!(!agrees("what would you swap it for?"));
        // No yes to "shall I finish?" (a review's examples).
        for no in [
            "no, keep going",
            "I'm fine, one more",
            "keep going",
            "yes wait, not yet",
        ] {
            assert!(!agrees(no), "{no}");
        }
    }

    #[test]
    fn a_yes_answers_only_the_question_the_coach_asked() {
        let asked = "You've logged two sets of bench. Swap it for dumbbell press anyway?";
        assert!(asked_about(asked, SWAP_TOPICS));
        assert!(!asked_about(asked, FINISH_TOPICS));
        // A statement is no question; a question about something else is not this one.
        assert!(!asked_about(
            "I can swap it for dumbbell press.",
            SWAP_TOPICS
        ));
        assert!(!asked_about(
            "Two sets left. Want to add curls?",
            FINISH_TOPICS
        ));
        assert!(asked_about(
            "Good work today.\nShall I finish your workout here?",
            FINISH_TOPICS
        ));
        assert!(!asked_about("", FINISH_TOPICS));
    }

    #[test]
    fn a_load_the_lifter_names_is_theirs() {
        assert!(named_by_lifter("put 140 kg on it", 140.0));
        assert!(named_by_lifter("make it 225", Unit::Lb.to_kg(225.0)));
        assert!(!named_by_lifter("make it heavier", 140.0));
        assert!(!named_by_lifter("set 2 please", 140.0));
    }
}
