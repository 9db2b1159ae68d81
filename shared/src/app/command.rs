//! A workout command ("done", "8 @ 100", "next", "undo"): one batched read (workout, profile,
//! idempotency record) and, for a command that changes the workout, one transactional write
//! conditioned on the workout's version and the request's `corr`. The FAST lane's HTTP route and
//! the stream both call [`run`].

use chrono::Utc;
use serde::Serialize;

use super::{MAX_ATTEMPTS, store_error};
use crate::api::{ApiError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::units::Unit;
use crate::retry::Attempts;
use crate::router::{self, Intent, Lane, Route};
use crate::skills::copilot::{self, CommandData, CopilotError};
use crate::store::{CommitOutcome, IDEMPOTENCY_TTL_SECS, IdempotencyRecord, Store};

/// What a command came to.
#[allow(clippy::large_enum_variant)] // one per request, as `CommandData`
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The answer: what the copilot says and the state it shows.
    Answer {
        intent: Intent,
        text: String,
        data: CommandData,
    },
    /// A retried request (same `corr`): the first answer, exactly as it was sent.
    Replay { status: u16, body: String },
}

/// The FAST lane's answer body, `{lane, intent, text, data}`, borrowed: rendering it copies
/// nothing (the workout state in `data` can be large).
#[derive(Serialize)]
struct AnswerBody<'a> {
    lane: &'static str,
    intent: &'static str,
    text: &'a str,
    data: &'a CommandData,
}

impl Outcome {
    /// The FAST lane's answer as JSON text: what the route sends and what a `corr` replays.
    pub fn render_answer(intent: Intent, text: &str, data: &CommandData) -> String {
        let body = AnswerBody {
            lane: "fast",
            intent: intent.as_str(),
            text,
            data,
        };
        // Plain structs with string keys always serialise; the fallback is never reached.
        serde_json::to_string(&body).unwrap_or_else(|_| "{}".into())
    }
}

/// Runs the command `text` (routed as `route`) for the lifter of `ctx`.
pub async fn run(
    store: &Store,
    ctx: &SessionContext,
    text: &str,
    route: Route,
) -> Result<Outcome, ApiError> {
    if route.intent == Some(Intent::MonitorSkip) {
        // Silent acknowledgement of an unremarkable monitor event: no store access at all.
        crate::telemetry::record(|log| log.outcome = "no_change");
        return Ok(Outcome::Answer {
            intent: Intent::MonitorSkip,
            text: String::new(),
            data: CommandData::Nothing {},
        });
    }
    let Some(cmd) = route.command.filter(|_| route.lane == Lane::Fast) else {
        if let Some(e) = route.near_miss {
            return Err(ApiError::new(ErrorCode::InvalidCommand, e.0));
        }
        let mut e = ApiError::new(
            ErrorCode::NotACommand,
            format!(
                "this is not a workout command; send it to the {} lane",
                route.lane.as_str()
            ),
        );
        e.lane = Some(if route.lane == Lane::Functional {
            "functional"
        } else {
            "slow"
        });
        return Err(e);
    };
    let intent = Intent::of_command(&cmd);
    // Validate what needs no stored data before touching the store.
    copilot::validate(&cmd, Unit::Kg).or_else(|e| match (&cmd, e.field) {
        // A weight typed without a unit is checked again below in the lifter's own unit.
        (router::Command::LogShorthand { unit: None, .. }, "weight") => Ok(()),
        _ => Err(e),
    })?;
    let fingerprint = fingerprint(intent, text, ctx.workout_id.as_deref());
    // Each loser of a race re-reads and applies its command to the new state (two "done" log
    // two sets).
    let mut attempts = Attempts::new(MAX_ATTEMPTS);
    while attempts.next().await {
        let state = store
            .copilot_state(&ctx.user_id, ctx.corr.as_deref(), Utc::now())
            .await;
        let state = state.map_err(|e| store_error(&e))?;
        if let Some(rec) = state.replay {
            if rec.fingerprint != fingerprint {
                return Err(ApiError::new(
                    ErrorCode::IdempotencyKeyReused,
                    "this corr was already used for a different request",
                ));
            }
            crate::telemetry::record(|log| log.outcome = "replayed");
            return Ok(Outcome::Replay {
                status: rec.status,
                body: rec.body,
            });
        }
        let unit = state.profile.as_ref().map(|p| p.unit).unwrap_or_default();
        copilot::validate(&cmd, unit)?;
        let (workout, version) = match &state.workout {
            Some(v) => (Some(&v.value), v.version),
            None => (None, 0),
        };
        let now = Utc::now();
        let outcome = copilot::apply(&cmd, workout, unit, ctx.workout_id.as_deref(), now).map_err(
            |e| match e {
                CopilotError::Invalid(l) => ApiError::from(l),
                CopilotError::WorkoutMismatch { .. } => {
                    ApiError::new(ErrorCode::WorkoutMismatch, e.to_string())
                }
            },
        )?;
        let (text, data) = (outcome.text, outcome.data);
        let Some(changed) = outcome.changed else {
            crate::telemetry::record(|log| log.outcome = "no_change");
            return Ok(Outcome::Answer { intent, text, data });
        };
        // The record stores the answer exactly as the first request got it.
        let record = ctx.corr.as_ref().map(|corr| IdempotencyRecord {
            corr: corr.clone(),
            fingerprint: fingerprint.clone(),
            status: 200,
            body: Outcome::render_answer(intent, &text, &data),
            expires_at: now.timestamp() + IDEMPOTENCY_TTL_SECS,
        });
        let committed = store
            .commit_workout(&ctx.user_id, &changed, version, record.as_ref(), now)
            .await;
        match committed.map_err(|e| store_error(&e))? {
            CommitOutcome::Committed => return Ok(Outcome::Answer { intent, text, data }),
            // Someone else wrote first: the next attempt re-applies to what they wrote.
            CommitOutcome::VersionConflict | CommitOutcome::DuplicateRequest => {}
        }
    }
    Err(ApiError::new(
        ErrorCode::Conflict,
        "the workout kept changing while this command was applied; nothing was logged, please retry",
    ))
}

/// The same `corr` must carry the same command (case and surrounding spaces aside).
fn fingerprint(intent: Intent, text: &str, workout_id: Option<&str>) -> String {
    super::fingerprint(&[
        intent.as_str(),
        &text.trim().to_lowercase(),
        workout_id.unwrap_or(""),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_ignores_case_but_not_the_command() {
        assert_eq!(
            fingerprint(Intent::LogSet, "Done", None),
            fingerprint(Intent::LogSet, "done ", None)
        );
        assert_ne!(
            fingerprint(Intent::LogSet, "done", Some("w1")),
            fingerprint(Intent::LogSet, "done", None)
        );
    }
}
