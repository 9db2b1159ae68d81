//! `SWAP_EXERCISE`: the rules rank the alternatives (the small model may reorder the top few),
//! and with `exercise_instance_id` the best one replaces the exercise in the active workout.

use super::*;

impl App {
    pub(super) async fn swap(
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
            let ranked = swap::rank(target, catalog().all(), &query, &profile, &familiar);
            if model_pick.is_none() {
                let pick = self.assist.pick_swap(target, &ranked).await;
                model_pick = Some(pick.map(|(i, why)| (ranked[i].exercise.id.to_string(), why)));
            }
            let (ranked, chosen) = with_model_pick(ranked, model_pick.clone().flatten());
            let Some(best) = ranked.first() else {
                return Err(ApiError::new(
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
            let mut answer = SwapAnswer {
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
            let Some(instance_id) = instance_id else {
                return Ok(ButtonAnswer::ReplaceExercise(answer));
            };
            let active = active_in_prefix(&state, ctx)?;
            let Some((workout, version)) = active else {
                return Err(not_in_workout(instance_id));
            };
            let now = Utc::now();
            let applied = swap_in(
                workout,
                instance_id,
                target,
                best.exercise,
                confirm,
                &history,
                &profile,
                now,
            )?;
            answer.applied = true;
            answer.message = format!(
                "Swapped {} for {}; {}.",
                target.name, best.exercise.name, applied.weights
            );
            answer.exercise_instance_id = Some(applied.instance_id);
            answer.weights = Some(applied.weights);
            let answer = ButtonAnswer::ReplaceExercise(answer);
            let committed = self
                .commit(
                    ctx,
                    &applied.workout,
                    version,
                    &fingerprint,
                    answer.action(),
                    &answer.data(),
                    now,
                )
                .await?;
            if committed == CommitOutcome::Committed {
                return Ok(answer);
            } // else raced: the next attempt re-applies
        }
        Err(conflict())
    }
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
) -> Result<swap::Applied, ApiError> {
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
    let applied = match swap::apply(workout, instance_id, new, confirm, history, profile, now) {
        Ok(a) => a,
        Err(swap::ApplyError::InstanceNotFound) => return Err(not_in_workout(instance_id)),
        Err(swap::ApplyError::SetsLogged { logged, name }) => {
            return Err(ApiError::new(ErrorCode::ConfirmRequired, format!("{logged} set{} of {name} already logged; send \"confirm\": true to swap the remaining sets (the logged ones stay as {name})", if logged == 1 { " is" } else { "s are" }),
            )
            .field("confirm"));
        }
    };
    workouts::validate(&applied.workout)?;
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
