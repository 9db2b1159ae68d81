//! The smart buttons (swap an exercise, autofill a set, suggest a weight, adjust a planned
//! load) and the silent workout
//! monitor: `POST /v1/functional` and the same JSON sent to the stream. Deterministic rules
//! decide; the optional small model (`assist`) may only reorder the top swap candidates and
//! rephrase a nudge.

use std::collections::HashMap;

use chrono::Utc;
use serde_json::{Map, Value};

mod adjust_load;
mod answers;
mod monitor_state;
mod requests;
mod swap_exercise;

pub use answers::*;

use super::params::*;
use super::{
    App, active_in_prefix, assist, fingerprint, invalid, not_in_workout, reused, unknown_exercise,
};
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::catalog::{Equipment, Exercise, catalog};
use crate::domain::limits::{MAX_REPS, MAX_RIR, MAX_SETS_PER_EXERCISE};
use crate::domain::profile::Profile;
use crate::domain::workout::Workout;
use crate::router::{self, Intent};
use crate::skills::{autofill, monitor, suggest, swap};
use crate::store::{IdempotencyRecord, Parts};

/// How long a monitor nudge stays claimed (longer than any workout).
const MONITOR_CLAIM_DAYS: i64 = 7;

/// A button press or monitor event, read from its JSON object.
#[derive(Debug, Clone)]
pub enum Button {
    Swap(SwapRequest),
    Autofill(AutofillRequest),
    Suggest(SuggestRequest),
    Adjust(AdjustRequest),
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

/// `ADJUST_LOAD`: a planned set's load (and by default the exercise's planned sets after it)
/// moved by steps or a percentage: the named set, else the exercise's next planned set, else
/// the workout's current set.
#[derive(Debug, Clone)]
pub struct AdjustRequest {
    pub exercise_instance_id: Option<String>,
    pub set_id: Option<String>,
    pub change: crate::skills::adjust::Change,
    pub scope: crate::skills::adjust::Scope,
    /// The request as sent, which a retry with the same `corr` must repeat.
    payload: String,
}

/// `MONITOR_STATE`: an event of the workout the app reports silently.
#[derive(Debug, Clone)]
pub struct MonitorRequest {
    pub event_type: String,
    /// The set the event is about (`state_diff.set_id`).
    pub set_id: Option<String>,
}

/// The exercise `id` of the active workout, which must have a set `set_index`.
fn instance_set<'w>(
    active: Option<&'w Workout>,
    id: &str,
    set_index: usize,
) -> Result<&'w crate::domain::workout::ExerciseInstance, AppError> {
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
    Ok(inst)
}

impl App {
    /// Answers a button press or monitor event for the lifter of `ctx`.
    pub async fn press(
        &self,
        ctx: &SessionContext,
        button: &Button,
    ) -> Result<ButtonAnswer, AppError> {
        match button {
            Button::Swap(r) => self.swap(ctx, r).await,
            Button::Autofill(r) => self.autofill(ctx, r).await,
            Button::Suggest(r) => self.suggest(ctx, r).await,
            Button::Adjust(r) => self.adjust_load(ctx, r).await,
            Button::Monitor(r) => self.monitor(ctx, r).await,
        }
    }

    async fn autofill(
        &self,
        ctx: &SessionContext,
        req: &AutofillRequest,
    ) -> Result<ButtonAnswer, AppError> {
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
                let inst = instance_set(active, id, set_index)?;
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
        Ok(ButtonAnswer::Autofill(AutofillAnswer::new(
            &prediction,
            &exercise_id,
            today.map(|t| t.instance_id.as_str()),
            set_index,
            &profile,
        )))
    }

    async fn suggest(
        &self,
        ctx: &SessionContext,
        req: &SuggestRequest,
    ) -> Result<ButtonAnswer, AppError> {
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
        Ok(ButtonAnswer::Suggest(SuggestAnswer::new(
            s, &id, reps, rir, &profile,
        )))
    }
}

/// A replayed answer for this request's corr, if it already ran (`done`: its kept answer).
fn replay(
    done: Option<&IdempotencyRecord>,
    fingerprint: &str,
) -> Result<Option<ButtonAnswer>, AppError> {
    let Some(rec) = done else {
        return Ok(None);
    };
    if rec.fingerprint != fingerprint {
        return Err(reused());
    }
    let v: Value = serde_json::from_str(&rec.body).unwrap_or(Value::Null);
    let action = match v["action"].as_str() {
        Some("REPLACE_EXERCISE") => "REPLACE_EXERCISE",
        Some("ADJUST_LOAD") => "ADJUST_LOAD",
        _ => "NULL",
    };
    Ok(Some(ButtonAnswer::Replayed {
        action,
        data: v["data"].clone(),
    }))
}
