//! The smart buttons (swap an exercise, autofill a set, suggest a weight) and the silent workout
//! monitor: `POST /v1/functional` and the same JSON sent to the stream. Deterministic rules
//! decide; the optional small model (`assist`) may only reorder the top swap candidates and
//! rephrase a nudge.

use std::collections::HashMap;

use chrono::Utc;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value, json};

use super::params::*;
use super::{
    App, MAX_ATTEMPTS, active_in_prefix, assist, conflict, fingerprint, invalid, not_in_workout,
    reused, store_error, unknown_exercise,
};
use crate::api::{ApiError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::catalog::{Equipment, catalog};
use crate::domain::limits::{MAX_REPS, MAX_RIR, MAX_SETS_PER_EXERCISE};
use crate::domain::workout::Workout;
use crate::retry::Attempts;
use crate::router::{self, Intent};
use crate::skills::{autofill, monitor, suggest, swap, workouts};
use crate::store::{CommitOutcome, Parts, UserState};

/// How long a monitor nudge stays claimed (longer than any workout).
const MONITOR_CLAIM_DAYS: i64 = 7;

/// A button press or monitor event, read from its JSON object.
#[derive(Debug, Clone)]
pub enum Button {
    Swap(SwapRequest),
    Autofill(AutofillRequest),
    Suggest(SuggestRequest),
    Monitor(MonitorRequest),
}

/// `SWAP_EXERCISE`: an alternative to `target`, applied to the active workout when
/// `exercise_instance_id` names where.
#[derive(Debug, Clone)]
pub struct SwapRequest {
    pub target: String,
    pub exercise_instance_id: Option<String>,
    pub constraint: Option<&'static [Equipment]>,
    pub muscle: Option<swap::MuscleFilter>,
    pub exclude: Vec<String>,
    /// Swap the remaining sets even though some are logged.
    pub confirm: bool,
    /// The request as sent, which a retry with the same `corr` must repeat.
    payload: String,
}

/// `AUTOFILL_SET`: the weight and reps for one set.
#[derive(Debug, Clone)]
pub struct AutofillRequest {
    pub exercise_instance_id: Option<String>,
    pub exercise_id: Option<String>,
    pub set_index: usize,
    pub target_reps: Option<u32>,
}

/// `SUGGEST_WEIGHT`: a weight for reps at an effort.
#[derive(Debug, Clone)]
pub struct SuggestRequest {
    pub exercise_id: String,
    pub target_reps: u32,
    pub target_rir: u32,
}

/// `MONITOR_STATE`: an event of the workout the app reports silently.
#[derive(Debug, Clone)]
pub struct MonitorRequest {
    pub event_type: String,
    /// The set the event is about (`state_diff.set_id`).
    pub set_id: Option<String>,
}

/// What a button answers: the envelope's `action` and `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct ButtonAnswer {
    pub action: &'static str,
    pub data: Value,
}

impl ButtonAnswer {
    fn new(action: &'static str, data: Value) -> ButtonAnswer {
        ButtonAnswer { action, data }
    }

    /// The answer as the app receives it, on `/v1/functional` and in the stream's `result`
    /// event: `{success, action, data, intent}`.
    pub fn to_envelope(&self, intent: Intent) -> Value {
        json!({ "success": true, "action": self.action, "data": self.data, "intent": intent.as_str() })
    }

    /// Nothing to say (the monitor's usual answer).
    fn null() -> ButtonAnswer {
        crate::telemetry::record(|log| log.outcome = "no_change");
        ButtonAnswer::new("NULL", Value::Null)
    }
}

impl Button {
    /// Reads the request of `intent` from the message `text` (a JSON object); unknown fields
    /// are refused and each error names its field.
    pub fn parse(intent: Intent, text: &str) -> Result<Button, ApiError> {
        let v: Value = match serde_json::from_str(text.trim()) {
            Ok(v @ Value::Object(_)) => v,
            _ => return Err(invalid("the request must be a JSON object", "message")),
        };
        Ok(match intent {
            Intent::SwapExercise => Button::Swap(SwapRequest::from_body(read(&v)?, &v)?),
            Intent::AutofillSet => Button::Autofill(AutofillRequest::from_body(read(&v)?)?),
            Intent::SuggestWeight => Button::Suggest(SuggestRequest::from_body(read(&v)?)?),
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
    fn from_body(b: SwapBody, sent: &Value) -> Result<SwapRequest, ApiError> {
        let target = required(b.target, "target")?;
        let constraint = match text(b.constraint, "constraint")? {
            Some(c) => Some(swap::parse_constraint(&c).ok_or_else(|| {
                ApiError::new(
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
    fn from_body(b: AutofillBody) -> Result<AutofillRequest, ApiError> {
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
    fn from_body(b: SuggestBody) -> Result<SuggestRequest, ApiError> {
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
    fn from_body(b: MonitorBody) -> Result<MonitorRequest, ApiError> {
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

impl App {
    /// Answers a button press or monitor event for the lifter of `ctx`.
    pub async fn press(
        &self,
        ctx: &SessionContext,
        button: &Button,
    ) -> Result<ButtonAnswer, ApiError> {
        match button {
            Button::Swap(r) => self.swap(ctx, r).await,
            Button::Autofill(r) => self.autofill(ctx, r).await,
            Button::Suggest(r) => self.suggest(ctx, r).await,
            Button::Monitor(r) => self.monitor(ctx, r).await,
        }
    }

    async fn swap(
        &self,
        ctx: &SessionContext,
        req: &SwapRequest,
    ) -> Result<ButtonAnswer, ApiError> {
        let SwapRequest {
            target: target_text,
            exercise_instance_id: instance_id,
            constraint,
            muscle,
            exclude,
            confirm,
            payload,
        } = req;
        let (target_text, instance_id, confirm) =
            (target_text.as_str(), instance_id.as_deref(), *confirm);
        let fingerprint = fingerprint(&[payload, ctx.workout_id.as_deref().unwrap_or("")]);
        // The model's pick (exercise id, reason), asked once even if the write is retried.
        let mut model_pick: Option<Option<(String, String)>> = None;
        let mut attempts = Attempts::new(MAX_ATTEMPTS);
        while attempts.next().await {
            let parts = Parts {
                workout: true,
                profile: true,
                ..Parts::default()
            };
            let (state, history) = self.load(ctx, parts).await?;
            if let Some(r) = replay(&state, &fingerprint)? {
                crate::telemetry::record(|log| log.outcome = "replayed");
                return Ok(r);
            }
            let profile = state.profile.clone().unwrap_or_default();
            let target = swap::resolve_target(target_text, &history)
                .map_err(|m| ApiError::new(ErrorCode::UnknownExercise, m).field("target"))?;
            let query = swap::SwapQuery {
                constraint: *constraint,
                muscle: *muscle,
                exclude: exclude.clone(),
            };
            let familiar = familiarity(&history);
            let mut ranked = swap::rank(target, catalog().all(), &query, &profile, &familiar);
            if model_pick.is_none() {
                let pick = self.assist.pick_swap(target, &ranked).await;
                model_pick = Some(pick.map(|(i, why)| (ranked[i].exercise.id.to_string(), why)));
            }
            // The model may only reorder the top candidates; the rules' order stays otherwise.
            let chosen = model_pick.clone().flatten().and_then(|(id, why)| {
                let i = ranked
                    .iter()
                    .take(assist::SWAP_CHOICES)
                    .position(|c| c.exercise.id == id)?;
                let c = ranked.remove(i);
                ranked.insert(0, c);
                Some(why)
            });
            let Some(best) = ranked.first() else {
                return Err(ApiError::new(
                    ErrorCode::NoAlternatives,
                    format!(
                        "no alternative to {} matches these filters and your equipment; try without the constraint or exclusions",
                        target.name
                    ),
                ));
            };
            let alternatives: Vec<Value> = ranked
                .iter()
                .skip(1)
                .take(swap::MAX_ALTERNATIVES)
                .map(|c| c.to_json())
                .collect();
            let mut data = json!({
                "old_exercise": { "exercise_id": target.id, "name": target.name, "equipment": target.equipment },
                "new_exercise": best.to_json(),
                "alternatives": alternatives,
                "applied": false,
                "chosen_by": if chosen.is_some() { "model" } else { "rules" },
            });
            let why = chosen
                .as_deref()
                .map(|w| w.trim_end_matches('.').to_string())
                .unwrap_or_else(|| best.reason.clone());
            let Some(instance_id) = instance_id else {
                data["message"] = json!(format!(
                    "Swap {} for {}: {why}.",
                    target.name, best.exercise.name
                ));
                return Ok(ButtonAnswer::new("REPLACE_EXERCISE", data));
            };
            let active = active_in_prefix(&state, ctx)?;
            let Some((workout, version)) = active else {
                return Err(not_in_workout(instance_id));
            };
            let inst = workout
                .exercises
                .iter()
                .find(|e| e.instance_id == instance_id)
                .ok_or_else(|| not_in_workout(instance_id))?;
            if inst.exercise_id != target.id {
                return Err(ApiError::new(
                    ErrorCode::ExerciseMismatch,
                    format!(
                        "exercise_instance_id {instance_id} is {}, not {}",
                        inst.name, target.name
                    ),
                )
                .field("target"));
            }
            let now = Utc::now();
            let applied = match swap::apply(
                workout,
                instance_id,
                best.exercise,
                confirm,
                &history,
                &profile,
                now,
            ) {
                Ok(a) => a,
                Err(swap::ApplyError::InstanceNotFound) => return Err(not_in_workout(instance_id)),
                Err(swap::ApplyError::SetsLogged { logged, name }) => {
                    return Err(ApiError::new(ErrorCode::ConfirmRequired, format!("{logged} set{} of {name} already logged; send \"confirm\": true to swap the remaining sets (the logged ones stay as {name})", if logged == 1 { " is" } else { "s are" }),
                    )
                    .field("confirm"));
                }
            };
            workouts::validate(&applied.workout)?;
            data["applied"] = json!(true);
            data["exercise_instance_id"] = json!(applied.instance_id);
            data["weights"] = json!(applied.weights);
            data["message"] = json!(format!(
                "Swapped {} for {}; {}.",
                target.name, best.exercise.name, applied.weights
            ));
            let committed = self
                .commit(
                    ctx,
                    &applied.workout,
                    version,
                    &fingerprint,
                    "REPLACE_EXERCISE",
                    &data,
                    now,
                )
                .await?;
            if committed == CommitOutcome::Committed {
                return Ok(ButtonAnswer::new("REPLACE_EXERCISE", data));
            } // else raced: the next attempt re-applies
        }
        Err(conflict())
    }

    async fn autofill(
        &self,
        ctx: &SessionContext,
        req: &AutofillRequest,
    ) -> Result<ButtonAnswer, ApiError> {
        let AutofillRequest {
            exercise_instance_id: instance_id,
            exercise_id: exercise_text,
            set_index,
            target_reps,
        } = req;
        let (instance_id, exercise_text, set_index, target_reps) = (
            instance_id.as_deref(),
            exercise_text.as_deref(),
            *set_index,
            *target_reps,
        );
        let parts = Parts {
            workout: true,
            profile: true,
            ..Parts::default()
        };
        let (state, mut history) = self.load(ctx, parts).await?;
        let profile = state.profile.clone().unwrap_or_default();
        let active = active_in_prefix(&state, ctx)?.map(|(w, _)| w);
        let (exercise_id, today) = match instance_id {
            Some(id) => {
                let inst = active
                    .and_then(|w| w.exercises.iter().find(|e| e.instance_id == id))
                    .ok_or_else(|| not_in_workout(id))?;
                if set_index >= inst.sets.len() {
                    return Err(invalid(
                        &format!(
                            "set_index {set_index} is out of range: {} has {} sets (0 to {})",
                            inst.name,
                            inst.sets.len(),
                            inst.sets.len().saturating_sub(1)
                        ),
                        "set_index",
                    ));
                }
                (inst.exercise_id.clone(), Some(inst))
            }
            None => {
                let text = exercise_text.unwrap_or_default();
                let wanted = catalog()
                    .resolve(text)
                    .exercise()
                    .map_or(text, |e| e.id.as_str());
                history = self.with_last_sessions(ctx, history, &[wanted]).await?;
                let (id, _) = suggest::known_exercise(text, &history)
                    .ok_or_else(|| unknown_exercise(text))?;
                let today = active.and_then(|w| w.exercises.iter().find(|e| e.exercise_id == id));
                if let Some(t) = today
                    && set_index >= t.sets.len()
                {
                    return Err(invalid(
                        &format!(
                            "set_index {set_index} is out of range: {} has {} sets today",
                            t.name,
                            t.sets.len()
                        ),
                        "set_index",
                    ));
                }
                (id, today)
            }
        };
        let history = self
            .with_last_sessions(ctx, history, &[exercise_id.as_str()])
            .await?;
        let ex = catalog().get(&exercise_id);
        let prediction = autofill::predict(
            &exercise_id,
            ex,
            today,
            set_index,
            target_reps,
            &history,
            &profile,
            Utc::now(),
        );
        Ok(ButtonAnswer::new(
            "AUTOFILL",
            prediction.to_data(
                &exercise_id,
                today.map(|t| t.instance_id.as_str()),
                set_index,
                &profile,
            ),
        ))
    }

    async fn suggest(
        &self,
        ctx: &SessionContext,
        req: &SuggestRequest,
    ) -> Result<ButtonAnswer, ApiError> {
        let SuggestRequest {
            exercise_id: text,
            target_reps: reps,
            target_rir: rir,
        } = req;
        let (text, reps, rir) = (text.as_str(), *reps, *rir);
        let parts = Parts {
            profile: true,
            ..Parts::default()
        };
        let (state, history) = self.load(ctx, parts).await?;
        let profile = state.profile.unwrap_or_default();
        let wanted = catalog()
            .resolve(text)
            .exercise()
            .map_or(text, |e| e.id.as_str());
        let history = self.with_last_sessions(ctx, history, &[wanted]).await?;
        let (id, ex) =
            suggest::known_exercise(text, &history).ok_or_else(|| unknown_exercise(text))?;
        let s = suggest::suggest_weight(&id, ex, reps, rir, &history, &profile, Utc::now());
        Ok(ButtonAnswer::new(
            "SUGGEST",
            s.to_data(&id, reps, rir, &profile),
        ))
    }

    async fn monitor(
        &self,
        ctx: &SessionContext,
        req: &MonitorRequest,
    ) -> Result<ButtonAnswer, ApiError> {
        let MonitorRequest { event_type, set_id } = req;
        let (event_type, set_id) = (event_type.as_str(), set_id.as_deref());
        if !router::SIGNIFICANT_EVENTS.contains(&event_type) {
            return Ok(ButtonAnswer::null());
        }
        let parts = Parts {
            workout: true,
            profile: true,
            ..Parts::default()
        };
        let (state, history) = self.load(ctx, parts).await?;
        let profile = state.profile.clone().unwrap_or_default();
        let Some((workout, _)) = active_in_prefix(&state, ctx)? else {
            return Ok(ButtonAnswer::null());
        };
        match event_type {
            "WORKOUT_COMPLETED" => {
                let id = workout.id.clone();
                self.complete_workout(ctx, &id).await?;
                Ok(ButtonAnswer::new("NULL", Value::Null))
            }
            "SET_COMPLETED" => {
                if let Some(id) = set_id
                    && workout.find_set(id).is_none()
                {
                    return Err(ApiError::new(
                        ErrorCode::SetNotFound,
                        format!("no set {id} in your active workout"),
                    )
                    .field("state_diff"));
                }
                let increments = profile.increments();
                // Records are against all history: the stored bests, not only the window.
                let best = match monitor::subject_exercise(workout, set_id) {
                    Some(id) => {
                        let b = self.store.bests(&ctx.user_id, id).await;
                        b.map_err(|e| store_error(&e))?
                    }
                    None => Default::default(),
                };
                let verdicts =
                    monitor::evaluate(workout, set_id, &history, best, profile.unit, |id| {
                        increments.for_equipment(
                            catalog()
                                .get(id)
                                .map_or(Equipment::Barbell, |e| e.equipment),
                        )
                    });
                let now = Utc::now();
                for v in verdicts {
                    let won = self
                        .store
                        .claim_monitor_nudge(
                            &ctx.user_id,
                            &workout.id,
                            v.rule,
                            &v.exercise_id,
                            now.timestamp() + MONITOR_CLAIM_DAYS * 86_400,
                            now,
                        )
                        .await;
                    if won.map_err(|e| store_error(&e))? {
                        let action = match v.action {
                            monitor::Action::Nudge => "NUDGE",
                            monitor::Action::Alert => "ALERT",
                        };
                        let mut data = v.data();
                        data["phrased_by"] = json!("rules");
                        if let Some(text) = self.assist.rephrase(&v.message).await {
                            data["message"] = json!(text);
                            data["phrased_by"] = json!("model");
                        }
                        return Ok(ButtonAnswer::new(action, data));
                    }
                }
                Ok(ButtonAnswer::null())
            }
            _ => Ok(ButtonAnswer::null()),
        }
    }
}

/// A replayed answer for this request's corr, if it already ran.
fn replay(state: &UserState, fingerprint: &str) -> Result<Option<ButtonAnswer>, ApiError> {
    let Some(rec) = &state.replay else {
        return Ok(None);
    };
    if rec.fingerprint != fingerprint {
        return Err(reused());
    }
    let v: Value = serde_json::from_str(&rec.body).unwrap_or(Value::Null);
    let action = match v["action"].as_str() {
        Some("REPLACE_EXERCISE") => "REPLACE_EXERCISE",
        _ => "NULL",
    };
    Ok(Some(ButtonAnswer::new(action, v["data"].clone())))
}

/// Sessions per exercise in the history (familiar exercises rank higher in swaps).
fn familiarity(history: &[Workout]) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for w in history {
        let mut seen = std::collections::HashSet::new();
        for e in &w.exercises {
            if seen.insert(e.exercise_id.as_str()) {
                *m.entry(e.exercise_id.clone()).or_insert(0) += 1;
            }
        }
    }
    m
}
