//! `SWAP_EXERCISE`: the rules rank the alternatives (the small model may reorder the top few),
//! and with `exercise_instance_id` the best one replaces the exercise in the active workout.

use super::*;
use crate::app::active::{Edit, EditRead, EditRequest, edit_active, replay_record};
use serde_json::json;

impl App {
    pub(super) async fn swap(
        &self,
        ctx: &SessionContext,
        req: &SwapRequest,
    ) -> Result<ButtonAnswer, AppError> {
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
        let model_pick = ModelPick::default();
        let (model_pick, fingerprint) = (&model_pick, &fingerprint);
        let keys: Vec<&str> = ctx.corr.as_deref().into_iter().collect();
        let req = EditRequest {
            user: &ctx.user_id,
            // Only a swap into the workout is about the prefix's workout; a list is not.
            workout_id: instance_id.and(ctx.workout_id.as_deref()),
            needs_active: false,
            keys: &keys,
            recent_history: true,
        };
        edit_active(&self.store, req, move |read: EditRead| async move {
            let done = read.replay(ctx.corr.as_deref());
            if let Some(r) = replay(done, fingerprint)? {
                crate::telemetry::record(|log| log.outcome = "replayed");
                return Ok(Edit::Answer(r));
            }
            let (profile, history) = (&read.profile, &read.history);
            let target = swap::resolve_target(target_text, history)
                .map_err(|m| AppError::new(ErrorCode::UnknownExercise, m).field("target"))?;
            let query = swap::SwapQuery {
                constraint: *constraint,
                muscle: *muscle,
                exclude: exclude.clone(),
            };
            let familiar = familiarity(history);
            let ranked = swap::rank(target, catalog().all(), &query, profile, &familiar);
            let pick = self.model_pick(ctx, target, &ranked, model_pick).await;
            let (ranked, chosen) = with_model_pick(ranked, pick);
            let (mut answer, best) = suggestion(target, &ranked, chosen)?;
            let Some(instance_id) = instance_id else {
                return Ok(Edit::Answer(ButtonAnswer::ReplaceExercise(answer)));
            };
            let Some(active) = read.workout()? else {
                return Err(not_in_workout(instance_id));
            };
            let applied = swap_in(
                &active.value,
                instance_id,
                target,
                best.exercise,
                confirm,
                history,
                profile,
                read.now,
            )?;
            answer.applied = true;
            answer.message = format!(
                "Swapped {} for {}; {}.",
                target.name, best.exercise.name, applied.weights
            );
            answer.exercise_instance_id = Some(applied.instance_id);
            answer.weights = Some(applied.weights);
            let answer = ButtonAnswer::ReplaceExercise(answer);
            // The record keeps the answer as the app received it.
            let body = json!({ "action": answer.action(), "data": answer.data() }).to_string();
            let records = ctx
                .corr
                .iter()
                .map(|c| replay_record(c, fingerprint, body.clone(), read.now))
                .collect();
            Ok(Edit::Write {
                workout: applied.workout,
                records,
                answer,
            })
        })
        .await
    }
}

/// The model's pick among the ranked (exercise id, reason), asked once per request however many
/// times the write is retried.
type ModelPick = std::sync::Mutex<Option<Option<(String, String)>>>;

impl App {
    async fn model_pick(
        &self,
        ctx: &SessionContext,
        target: &Exercise,
        ranked: &[swap::Candidate<'_>],
        asked: &ModelPick,
    ) -> Option<(String, String)> {
        if let Some(pick) = asked.lock().unwrap_or_else(|p| p.into_inner()).clone() {
            return pick;
        }
        let pick = self.assist.pick_swap(&ctx.user_id, target, ranked).await;
        let pick = pick.map(|(i, why)| (ranked[i].exercise.id.to_string(), why));
        *asked.lock().unwrap_or_else(|p| p.into_inner()) = Some(pick.clone());
        pick
    }
}

/// The suggested swap (the first of `ranked`, with the next few as alternatives), not yet
/// applied; `chosen` is the model's reason when it picked.
fn suggestion<'r, 'c>(
    target: &Exercise,
    ranked: &'r [swap::Candidate<'c>],
    chosen: Option<String>,
) -> Result<(SwapAnswer, &'r swap::Candidate<'c>), AppError> {
    let Some(best) = ranked.first() else {
        return Err(AppError::new(
            ErrorCode::NoAlternatives,
            format!(
                "no alternative to {} matches these filters and your equipment; try without the constraint or exclusions",
                target.name
            ),
        ));
    };
    let why = chosen
        .as_deref()
        .map(|w| w.trim_end_matches('.').to_string())
        .unwrap_or_else(|| best.reason.clone());
    let answer = SwapAnswer {
        old_exercise: ExerciseRef::from(target),
        new_exercise: SwapChoice::from(best),
        alternatives: ranked
            .iter()
            .skip(1)
            .take(swap::MAX_ALTERNATIVES)
            .map(SwapChoice::from)
            .collect(),
        applied: false,
        chosen_by: if chosen.is_some() {
            ChosenBy::Model
        } else {
            ChosenBy::Rules
        },
        message: format!("Swap {} for {}: {why}.", target.name, best.exercise.name),
        exercise_instance_id: None,
        weights: None,
    };
    Ok((answer, best))
}

/// Swaps `new` in for the exercise `instance_id` of the active workout (which must be `target`),
/// checked and ready to commit.
#[allow(clippy::too_many_arguments)]
fn swap_in(
    workout: &Workout,
    instance_id: &str,
    target: &Exercise,
    new: &Exercise,
    confirm: bool,
    history: &[Workout],
    profile: &Profile,
    now: chrono::DateTime<Utc>,
) -> Result<swap::Applied, AppError> {
    let inst = workout
        .exercises
        .iter()
        .find(|e| e.instance_id == instance_id)
        .ok_or_else(|| not_in_workout(instance_id))?;
    if inst.exercise_id != target.id {
        return Err(AppError::new(
            ErrorCode::ExerciseMismatch,
            format!(
                "exercise_instance_id {instance_id} is {}, not {}",
                inst.name, target.name
            ),
        )
        .field("target"));
    }
    let applied = match swap::apply(workout, instance_id, new, confirm, history, profile, now) {
        Ok(a) => a,
        Err(swap::ApplyError::InstanceNotFound) => return Err(not_in_workout(instance_id)),
        Err(swap::ApplyError::SetsLogged { logged, name }) => {
            return Err(AppError::new(ErrorCode::ConfirmRequired, format!("{logged} set{} of {name} already logged; send \"confirm\": true to swap the remaining sets (the logged ones stay as {name})", if logged == 1 { " is" } else { "s are" }),
            )
            .field("confirm"));
        }
    };
    // The whole workout is validated by `edit_active` before it is committed.
    Ok(applied)
}

/// The rules' ranking with the model's pick (exercise id, why) moved to the front, and the why,
/// when the pick is among the top candidates: the model may only reorder those.
fn with_model_pick(
    mut ranked: Vec<swap::Candidate<'_>>,
    pick: Option<(String, String)>,
) -> (Vec<swap::Candidate<'_>>, Option<String>) {
    let Some((id, why)) = pick else {
        return (ranked, None);
    };
    let in_top = ranked
        .iter()
        .take(assist::SWAP_CHOICES)
        .position(|c| c.exercise.id == id);
    match in_top {
        Some(i) => {
            let c = ranked.remove(i);
            ranked.insert(0, c);
            (ranked, Some(why))
        }
        None => (ranked, None),
    }
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
