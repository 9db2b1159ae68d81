//! `ADJUST_LOAD`: "heavier" or "lighter" on a planned set of the active workout, by steps of the
//! lifter's plates or a percentage (`skills::adjust`), up to what the lift's own history supports
//! for the set's reps and reserve (the progression's suggestion plus one step).

use super::*;
use crate::app::active::{Edit, EditRead, EditRequest, edit_active, replay_record};
use crate::domain::profile::step_for;
use crate::domain::units::format_weight;
use crate::skills::adjust;
use serde_json::json;

impl App {
    pub(super) async fn adjust_load(
        &self,
        ctx: &SessionContext,
        req: &AdjustRequest,
    ) -> Result<ButtonAnswer, AppError> {
        let fingerprint = fingerprint(&[&req.payload, ctx.workout_id.as_deref().unwrap_or("")]);
        let fingerprint = &fingerprint;
        let keys: Vec<&str> = ctx.corr.as_deref().into_iter().collect();
        let edit = EditRequest {
            user: &ctx.user_id,
            workout_id: ctx.workout_id.as_deref(),
            needs_active: true,
            keys: &keys,
            recent_history: true,
        };
        edit_active(&self.store, edit, move |read: EditRead| async move {
            if let Some(r) = replay(read.replay(ctx.corr.as_deref()), fingerprint)? {
                crate::telemetry::record(|log| log.outcome = "replayed");
                return Ok(Edit::Answer(r));
            }
            let Some(active) = read.workout()? else {
                return Err(AppError::from(
                    crate::app::active::EditFailed::NoActiveWorkout,
                ));
            };
            let w = &active.value;
            let (ei, si) = target_set(w, req)?;
            let ex = &w.exercises[ei];
            let exercise = catalog().get(&ex.exercise_id);
            let profile = &read.profile;
            let step = step_for(exercise, profile);
            // The lift's own history bounds a press up (an estimate from other lifts does not:
            // it may be far below what the lifter moves), today's logged sets included.
            let mut history = self
                .store
                .with_last_sessions(
                    &ctx.user_id,
                    read.history.clone(),
                    &[ex.exercise_id.as_str()],
                )
                .await?;
            history.push(w.clone());
            let suggest_for = |t: &crate::domain::workout::SetTarget| {
                suggest::suggest_weight(
                    &ex.exercise_id,
                    exercise,
                    t.reps.unwrap_or(crate::skills::workouts::DEFAULT_REPS),
                    t.rir.unwrap_or(suggest::DEFAULT_TARGET_RIR),
                    &history,
                    profile,
                    read.now,
                )
            };
            let s = suggest_for(&ex.sets[si].target);
            let bound = |t: &crate::domain::workout::SetTarget| {
                let s = suggest_for(t);
                (s.source == suggest::Source::History).then_some(s.weight_kg + step)
            };
            let (workout, adjusted) =
                adjust::adjust(w, (ei, si), req.change, req.scope, step, bound)
                    .map_err(|m| invalid(&m, "steps"))?;
            let unit = profile.unit;
            let message = said(&adjusted, &s, unit);
            let answer = ButtonAnswer::Adjust(AdjustAnswer {
                adjusted,
                unit: unit.label(),
                message,
            });
            let body = json!({ "action": answer.action(), "data": answer.data() }).to_string();
            let records = ctx
                .corr
                .iter()
                .map(|c| replay_record(c, fingerprint, body.clone(), read.now))
                .collect();
            Ok(Edit::Write {
                workout,
                records,
                answer,
            })
        })
        .await
    }
}

/// What the lifter reads: the move, and why it stopped short when the history held it.
fn said(
    adjusted: &adjust::Adjusted,
    s: &suggest::Suggestion,
    unit: crate::domain::units::Unit,
) -> String {
    let n = adjusted.set_ids.len();
    let mut message = format!(
        "{}: {} → {} for {n} planned set{}.",
        adjusted.exercise_name,
        format_weight(adjusted.from_kg, unit),
        format_weight(adjusted.to_kg, unit),
        if n == 1 { "" } else { "s" }
    );
    if adjusted.held_at_kg.is_some() {
        message.push_str(&format!(
            " Held there: your history supports about {} for these reps ({}); a heavier set you log yourself is yours.",
            format_weight(s.weight_kg, unit),
            s.rationale
        ));
    }
    message
}

/// The set a press is about: `set_id`, else the next planned working set of
/// `exercise_instance_id`, else that of the workout's current exercise.
fn target_set(w: &Workout, req: &AdjustRequest) -> Result<(usize, usize), AppError> {
    if let Some(id) = req.set_id.as_deref() {
        let pos = w.find_set(id).ok_or_else(|| {
            AppError::new(
                ErrorCode::SetNotFound,
                format!("no set '{id}' in your active workout"),
            )
            .field("set_id")
        })?;
        if let Some(inst) = req.exercise_instance_id.as_deref()
            && w.exercises[pos.exercise].instance_id != inst
        {
            return Err(invalid(
                &format!("set '{id}' is not one of {inst}'s"),
                "set_id",
            ));
        }
        return Ok((pos.exercise, pos.set));
    }
    if let Some(inst) = req.exercise_instance_id.as_deref() {
        let ei = w
            .exercises
            .iter()
            .position(|e| e.instance_id == inst)
            .ok_or_else(|| not_in_workout(inst))?;
        let si = next_working(w, ei).ok_or_else(|| {
            invalid(
                &format!("{} has no planned set left to change", w.exercises[ei].name),
                "exercise_instance_id",
            )
        })?;
        return Ok((ei, si));
    }
    let p = w
        .current_set()
        .ok_or_else(|| invalid("no planned set is left in this workout", "set_id"))?;
    Ok((p.exercise, next_working(w, p.exercise).unwrap_or(p.set)))
}

/// The exercise's next planned working set (a press on an exercise is about its work, not its
/// warm-ups; a warm-up is named by its `set_id`), else its next planned set.
fn next_working(w: &Workout, ei: usize) -> Option<usize> {
    use crate::domain::workout::{SetStatus, SetType};
    let sets = &w.exercises[ei].sets;
    sets.iter()
        .position(|s| s.status == SetStatus::Planned && s.set_type != SetType::Warmup)
        .or_else(|| w.next_planned(ei))
}
