//! A workout command ("done", "8 @ 100", "next", "undo"): one batched read (workout, profile,
//! idempotency record) and, for a command that changes the workout, one transactional write
//! conditioned on the workout's version and the request's `corr`. The FAST lane's HTTP route and
//! the stream both call [`run`].

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::active::{Edit, EditRead, EditRequest, edit_active, replay_record};
use crate::analysis::history::LOOKBACK_WEEKS;
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::profile::Profile;
use crate::domain::units::Unit;
use crate::domain::workout::Workout;
use crate::router::{Command, Intent, Lane, Route};
use crate::skills::copilot::{self, CommandData, CopilotError};
use crate::store::Store;

/// What a command came to.
#[allow(clippy::large_enum_variant)] // one per request, as `CommandData`
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The answer: what the copilot says and the state it shows.
    Answer {
        intent: Intent,
        text: String,
        data: CommandData,
    },
    /// A retried request (same `corr`): the first answer, as it was stored.
    Replay(Reply),
}

/// A command's answer in the shape the app reads (`CopilotReply`): what `/v1/copilot` sends, what
/// a sync result holds, and what a `corr` record keeps. A replay reads the record back into this
/// type, its `data` untouched (the state the first answer showed, byte for byte), so the
/// adapters render a replay as they render a first answer. Records are this type's JSON.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Reply<D = Box<RawValue>> {
    /// Always `fast`: the lane that answers commands.
    pub lane: Lane,
    pub intent: Intent,
    pub text: String,
    pub data: D,
}

impl<'a> Reply<&'a CommandData> {
    /// A first answer, borrowed: rendering it copies nothing (the workout state in `data` can be
    /// large).
    pub fn of(intent: Intent, text: &str, data: &'a CommandData) -> Self {
        Reply {
            lane: Lane::Fast,
            intent,
            text: text.to_string(),
            data,
        }
    }

    /// The answer as JSON text.
    pub fn to_json(&self) -> String {
        // Plain structs with string keys always serialise; the fallback is never reached.
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }

    /// The answer with its data rendered, as a sync result holds it.
    pub fn owned(&self) -> Reply {
        Reply {
            lane: self.lane,
            intent: self.intent,
            text: self.text.clone(),
            // As above: a plain struct always serialises.
            data: serde_json::value::to_raw_value(self.data)
                .unwrap_or_else(|_| RawValue::NULL.to_owned()),
        }
    }
}

impl Reply {
    /// The answer a `corr` record keeps (records written before this type held the same JSON).
    pub fn from_record(corr: &str, body: &str) -> Result<Reply, AppError> {
        serde_json::from_str(body).map_err(|e| {
            AppError::new(
                ErrorCode::Internal,
                format!("the answer stored for corr '{corr}' could not be read: {e}"),
            )
        })
    }

    /// The answer as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

/// Runs the command `text` (routed as `route`) for the lifter of `ctx`.
pub async fn run(
    store: &Store,
    ctx: &SessionContext,
    text: &str,
    route: Route,
) -> Result<Outcome, AppError> {
    if route.intent == Some(Intent::MonitorSkip) {
        // Silent acknowledgement of an unremarkable monitor event: no store access at all.
        crate::telemetry::record(|log| log.outcome = "no_change");
        return Ok(Outcome::Answer {
            intent: Intent::MonitorSkip,
            text: String::new(),
            data: CommandData::Nothing {},
        });
    }
    let cmd = command_of(route)?;
    let intent = Intent::of_command(&cmd);
    // Validate what needs no stored data before touching the store.
    pre_validate(&cmd)?;
    copilot::set_time(ctx.client_time, Utc::now(), None)?;
    let fingerprint = fingerprint(intent, text, ctx.workout_id.as_deref());
    let keys: Vec<&str> = ctx.corr.as_deref().into_iter().collect();
    let req = EditRequest {
        user: &ctx.user_id,
        workout_id: ctx.workout_id.as_deref(),
        needs_active: false,
        keys: &keys,
        recent_history: false,
    };
    // Each loser of a race re-reads and applies its command to the new state (two "done" log
    // two sets).
    let (cmd, fingerprint) = (&cmd, &fingerprint);
    edit_active(store, req, move |read: EditRead| async move {
        if let Some(rec) = read.replay(ctx.corr.as_deref()) {
            if &rec.fingerprint != fingerprint {
                return Err(AppError::new(
                    ErrorCode::IdempotencyKeyReused,
                    "this corr was already used for a different request",
                ));
            }
            crate::telemetry::record(|log| log.outcome = "replayed");
            let first = Reply::from_record(&rec.corr, &rec.body)?;
            return Ok(Edit::Answer(Outcome::Replay(first)));
        }
        let workout = read.workout()?.map(|v| &v.value);
        let history = history_for(store, ctx, cmd, workout).await?;
        let step = Step {
            ctx,
            cmd,
            profile: &read.profile,
            history: &history,
            client_time: ctx.client_time,
            now: read.now,
        };
        let (text, data, changed) = apply_one(&step, workout)?;
        let Some(changed) = changed else {
            crate::telemetry::record(|log| log.outcome = "no_change");
            return Ok(Edit::Answer(Outcome::Answer { intent, text, data }));
        };
        // The record keeps the answer exactly as the first request got it.
        let records = ctx
            .corr
            .iter()
            .map(|corr| {
                replay_record(
                    corr,
                    fingerprint,
                    Reply::of(intent, &text, &data).to_json(),
                    read.now,
                )
            })
            .collect();
        Ok(Edit::Write {
            workout: changed,
            records,
            answer: Outcome::Answer { intent, text, data },
        })
    })
    .await
}

/// The FAST command of a route, or the error that says where the message belongs.
pub(crate) fn command_of(route: Route) -> Result<Command, AppError> {
    if let Some(cmd) = route.command.filter(|_| route.lane == Lane::Fast) {
        return Ok(cmd);
    }
    if let Some(e) = route.near_miss {
        let mut err = AppError::new(ErrorCode::InvalidCommand, e.message);
        if let Some(f) = e.field {
            err = err.field(f);
        }
        return Err(err);
    }
    let mut e = AppError::new(
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
    Err(e)
}

/// The limits a command's values must meet whatever the lifter's unit (a weight typed without
/// a unit is checked again in the lifter's own unit).
pub(crate) fn pre_validate(cmd: &Command) -> Result<(), AppError> {
    match copilot::validate(cmd, Unit::Kg) {
        Err(e) if e.field == "weight" && copilot::validate(cmd, Unit::Lb).is_ok() => Ok(()),
        other => other.map_err(AppError::from),
    }
}

/// The history to plan an exercise the command adds from (none for every other command).
pub(crate) async fn history_for(
    store: &Store,
    ctx: &SessionContext,
    cmd: &Command,
    workout: Option<&Workout>,
) -> Result<Vec<Workout>, AppError> {
    let Some(ex) = workout.and_then(|w| copilot::exercise_to_add(cmd, w)) else {
        return Ok(Vec::new());
    };
    let since = Utc::now() - Duration::weeks(LOOKBACK_WEEKS);
    let recent = store.completed_workouts_since(&ctx.user_id, since).await?;
    store
        .with_last_sessions(&ctx.user_id, recent, &[ex.id.as_str()])
        .await
        .map_err(AppError::from)
}

/// One command applied to the workout as it stands.
pub(crate) struct Step<'a> {
    pub ctx: &'a SessionContext,
    pub cmd: &'a Command,
    pub profile: &'a Profile,
    pub history: &'a [Workout],
    pub client_time: Option<DateTime<Utc>>,
    pub now: DateTime<Utc>,
}

/// Applies a step: its answer text and data, and the workout to commit if it changed.
pub(crate) fn apply_one(
    step: &Step<'_>,
    workout: Option<&Workout>,
) -> Result<(String, CommandData, Option<Workout>), AppError> {
    let unit = step.profile.unit;
    copilot::validate(step.cmd, unit)?;
    let clock = copilot::set_time(step.client_time, step.now, workout.map(|w| w.started_at))?;
    let inputs = copilot::Inputs {
        unit,
        requested_workout: step.ctx.workout_id.as_deref(),
        now: clock.at,
        profile: step.profile,
        history: step.history,
        adding: None,
    };
    let outcome = copilot::apply(step.cmd, workout, &inputs).map_err(|e| match e {
        CopilotError::Invalid(l) => AppError::from(l),
        CopilotError::WorkoutMismatch { .. } => {
            AppError::new(ErrorCode::WorkoutMismatch, e.to_string())
        }
        CopilotError::UnknownExercise { .. } => {
            AppError::new(ErrorCode::UnknownExercise, e.to_string()).field("message")
        }
    })?;
    let (mut text, mut data) = (outcome.text, outcome.data);
    if let Some(source) = clock.source {
        data.set_time_source(source);
    }
    if let Some(note) = clock.note {
        text.push('\n');
        text.push_str(note);
    }
    Ok((text, data, outcome.changed))
}

/// The same `corr` must carry the same command (case and surrounding spaces aside).
pub(crate) fn fingerprint(intent: Intent, text: &str, workout_id: Option<&str>) -> String {
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
    fn a_stored_answer_reads_back_as_it_was_sent() {
        // As the FAST lane wrote records before they were typed: keys out of order on purpose.
        let old = r#"{"lane":"fast","intent":"LOG_SET","text":"Bench 100 kg x 8 logged.","data":{"workout_id":"w1","unit":"kg","time_source":"client","logged":{"reps":8}}}"#;
        let first = Reply::from_record("c1", old).unwrap();
        assert_eq!((first.lane, first.intent), (Lane::Fast, Intent::LogSet));
        assert_eq!(first.to_json(), old);

        let fresh = Reply::of(Intent::MonitorSkip, "", &CommandData::Nothing {});
        assert_eq!(
            fresh.to_json(),
            r#"{"lane":"fast","intent":"MONITOR_SKIP","text":"","data":{}}"#
        );
        assert_eq!(fresh.owned().to_json(), fresh.to_json());

        let e = Reply::from_record("c2", r#"{"lane":"fast","intent":"LIFT"}"#).unwrap_err();
        assert_eq!(e.code, ErrorCode::Internal);
        assert!(e.message.contains("corr 'c2'"), "{}", e.message);
    }

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
