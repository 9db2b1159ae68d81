//! `MONITOR_STATE`: the silent workout monitor. The app reports events; a rule that fires
//! sends one nudge per workout, rule and exercise (claimed in the store), else nothing.

use super::*;

impl App {
    pub(super) async fn monitor(
        &self,
        ctx: &SessionContext,
        req: &MonitorRequest,
    ) -> Result<ButtonAnswer, AppError> {
        let MonitorRequest { event_type, set_id } = req;
        let (event_type, set_id) = (event_type.as_str(), set_id.as_deref());
        if !router::SIGNIFICANT_EVENTS.contains(&event_type) {
            return Ok(no_change());
        }
        let parts = Parts {
            workout: true,
            profile: true,
            ..Parts::default()
        };
        let (state, history) = self.load(ctx, parts).await?;
        let profile = state.profile.clone().unwrap_or_default();
        let Some((workout, _)) = active_in_prefix(&state, ctx)? else {
            return Ok(no_change());
        };
        match event_type {
            "WORKOUT_COMPLETED" => {
                let id = workout.id.clone();
                self.complete_workout(ctx, &id).await?;
                Ok(ButtonAnswer::Null)
            }
            "SET_COMPLETED" => {
                if let Some(id) = set_id
                    && workout.find_set(id).is_none()
                {
                    return Err(AppError::new(
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
                        b?
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
                    if won? {
                        let mut nudge = Nudge::from(v);
                        if let Some(text) = self.assist.rephrase(&ctx.user_id, &nudge.message).await
                        {
                            nudge.message = text;
                            nudge.phrased_by = ChosenBy::Model;
                        }
                        return Ok(ButtonAnswer::Nudge(nudge));
                    }
                }
                Ok(no_change())
            }
            _ => Ok(no_change()),
        }
    }
}

/// Nothing to say (the monitor's usual answer).
fn no_change() -> ButtonAnswer {
    crate::telemetry::record(|log| log.outcome = "no_change");
    ButtonAnswer::Null
}
