//! Reading a button's request: each intent's body a serde struct, then checked into its typed
//! request (each error naming its field).

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::*;

impl Button {
    /// Reads the request of `intent` from the message `text` (a JSON object); unknown fields
    /// are refused and each error names its field.
    pub fn parse(intent: Intent, text: &str) -> Result<Button, AppError> {
        let v: Value = match serde_json::from_str(text.trim()) {
            Ok(v @ Value::Object(_)) => v,
            _ => return Err(invalid("the request must be a JSON object", "message")),
        };
        Ok(match intent {
            Intent::SwapExercise => Button::Swap(SwapRequest::from_body(read(&v)?, &v)?),
            Intent::AutofillSet => Button::Autofill(AutofillRequest::from_body(read(&v)?)?),
            Intent::SuggestWeight => Button::Suggest(SuggestRequest::from_body(read(&v)?)?),
            Intent::AdjustLoad => Button::Adjust(AdjustRequest::from_body(read(&v)?, &v)?),
            _ => Button::Monitor(MonitorRequest::from_body(read(&v)?)?),
        })
    }
}

/// The body of a `SWAP_EXERCISE` (`intent` is the envelope's; `target_id` is accepted and
/// ignored, as it always was: `target` names the exercise).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SwapBody {
    #[serde(default, rename = "intent")]
    _intent: Option<IgnoredAny>,
    target: Option<String>,
    #[serde(default, rename = "target_id")]
    _target_id: Option<IgnoredAny>,
    exercise_instance_id: Option<String>,
    constraint: Option<String>,
    muscle_group: Option<String>,
    exclude: Option<Vec<String>>,
    confirm: Option<bool>,
}

impl SwapRequest {
    fn from_body(b: SwapBody, sent: &Value) -> Result<SwapRequest, AppError> {
        let target = required(b.target, "target")?;
        let constraint = match text(b.constraint, "constraint")? {
            Some(c) => Some(swap::parse_constraint(&c).ok_or_else(|| {
                AppError::new(
                    ErrorCode::UnknownConstraint,
                    format!(
                        "unknown constraint '{c}'; valid constraints: {}",
                        swap::constraint_names()
                    ),
                )
                .field("constraint")
            })?),
            None => None,
        };
        let muscle = match text(b.muscle_group, "muscle_group")? {
            Some(m) => Some(swap::MuscleFilter::parse(&m).ok_or_else(|| {
                invalid(
                    &format!("unknown muscle_group '{m}'; use a muscle (chest, lats, quads, ...) or a group (chest, back, shoulders, arms, legs, core)"),
                    "muscle_group",
                )
            })?),
            None => None,
        };
        Ok(SwapRequest {
            target,
            exercise_instance_id: text(b.exercise_instance_id, "exercise_instance_id")?,
            constraint,
            muscle,
            exclude: b.exclude.unwrap_or_default(),
            confirm: b.confirm.unwrap_or(false),
            payload: sent.to_string(),
        })
    }
}

/// The body of an `AUTOFILL_SET` (`last_weight` is accepted and ignored: the history decides).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AutofillBody {
    #[serde(default, rename = "intent")]
    _intent: Option<IgnoredAny>,
    exercise_instance_id: Option<String>,
    exercise_id: Option<String>,
    set_index: Option<u32>,
    target_reps: Option<u32>,
    #[serde(default, rename = "last_weight")]
    _last_weight: Option<IgnoredAny>,
}

impl AutofillRequest {
    fn from_body(b: AutofillBody) -> Result<AutofillRequest, AppError> {
        let exercise_instance_id = text(b.exercise_instance_id, "exercise_instance_id")?;
        let exercise_id = text(b.exercise_id, "exercise_id")?;
        if exercise_instance_id.is_none() && exercise_id.is_none() {
            return Err(invalid(
                "send exercise_instance_id (a set of your active workout) or exercise_id",
                "exercise_instance_id",
            ));
        }
        let last_set = MAX_SETS_PER_EXERCISE as u32 - 1;
        let set_index = at_most(b.set_index, "set_index", last_set)?
            .ok_or_else(|| invalid("'set_index' is required", "set_index"))?;
        let target_reps = at_most(b.target_reps, "target_reps", MAX_REPS)?;
        if target_reps == Some(0) {
            return Err(invalid("target_reps must be at least 1", "target_reps"));
        }
        Ok(AutofillRequest {
            exercise_instance_id,
            exercise_id,
            set_index: set_index as usize,
            target_reps,
        })
    }
}

/// The body of a `SUGGEST_WEIGHT`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SuggestBody {
    #[serde(default, rename = "intent")]
    _intent: Option<IgnoredAny>,
    exercise_id: Option<String>,
    target_reps: Option<u32>,
    target_rir: Option<u32>,
}

impl SuggestRequest {
    fn from_body(b: SuggestBody) -> Result<SuggestRequest, AppError> {
        let exercise_id = required(b.exercise_id, "exercise_id")?;
        let target_reps = at_most(b.target_reps, "target_reps", MAX_REPS)?
            .ok_or_else(|| invalid("'target_reps' is required", "target_reps"))?;
        if target_reps == 0 {
            return Err(invalid("target_reps must be at least 1", "target_reps"));
        }
        let target_rir =
            at_most(b.target_rir, "target_rir", MAX_RIR)?.unwrap_or(suggest::DEFAULT_TARGET_RIR);
        Ok(SuggestRequest {
            exercise_id,
            target_reps,
            target_rir,
        })
    }
}

/// The body of an `ADJUST_LOAD`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AdjustBody {
    #[serde(default, rename = "intent")]
    _intent: Option<IgnoredAny>,
    exercise_instance_id: Option<String>,
    set_id: Option<String>,
    steps: Option<i32>,
    percent: Option<f64>,
    scope: Option<String>,
}

impl AdjustRequest {
    fn from_body(b: AdjustBody, sent: &Value) -> Result<AdjustRequest, AppError> {
        use crate::skills::adjust::{Change, MAX_PERCENT, MAX_STEPS, MIN_PERCENT, Scope};
        let change = match (b.steps, b.percent) {
            (Some(n), None) if n != 0 && n.abs() <= MAX_STEPS => Change::Steps(n),
            (Some(_), None) => {
                return Err(invalid(
                    &format!("steps is a whole number from -{MAX_STEPS} to {MAX_STEPS}, not 0"),
                    "steps",
                ));
            }
            (None, Some(p)) if p != 0.0 && (MIN_PERCENT..=MAX_PERCENT).contains(&p) => {
                Change::Percent(p)
            }
            (None, Some(_)) => {
                return Err(invalid(
                    &format!("percent is from {MIN_PERCENT} to {MAX_PERCENT}, not 0"),
                    "percent",
                ));
            }
            _ => return Err(invalid("send steps or percent (one of them)", "steps")),
        };
        let scope = match text(b.scope, "scope")?.as_deref() {
            None | Some("remaining") => Scope::Remaining,
            Some("set") => Scope::Set,
            Some(_) => return Err(invalid("scope is set or remaining", "scope")),
        };
        Ok(AdjustRequest {
            exercise_instance_id: text(b.exercise_instance_id, "exercise_instance_id")?,
            set_id: text(b.set_id, "set_id")?,
            change,
            scope,
            payload: sent.to_string(),
        })
    }
}

/// The body of a `MONITOR_STATE` (`workout_state` is the app's view, accepted and ignored: the
/// stored workout decides).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MonitorBody {
    #[serde(default, rename = "intent")]
    _intent: Option<IgnoredAny>,
    event_type: Option<String>,
    state_diff: Option<Map<String, Value>>,
    #[serde(default, rename = "workout_state")]
    _workout_state: Option<Map<String, Value>>,
}

impl MonitorRequest {
    fn from_body(b: MonitorBody) -> Result<MonitorRequest, AppError> {
        let set_id = b
            .state_diff
            .as_ref()
            .and_then(|d| d.get("set_id"))
            .and_then(Value::as_str);
        Ok(MonitorRequest {
            event_type: required(b.event_type, "event_type")?,
            set_id: set_id.map(str::to_string),
        })
    }
}
