//! Use cases: one function per thing the product does, called by every adapter that offers it
//! (the HTTP lanes, the stream, the coach's tools, the queue). A use case takes the request's
//! context, a typed request and the ports it needs, and returns a typed outcome; adapters turn
//! that outcome into their wire format. Nothing here parses HTTP or writes SSE.
//!
//! - `account`: the whole account, exported or deleted;
//! - `command`: the FAST commands ("done", "8 @ 100", "next", "undo");
//! - `buttons`: the smart buttons (swap, autofill, suggest a weight) and the workout monitor;
//! - `workout`: start, read and complete a workout; `workout_edit`: fix or delete a completed one;
//! - `conversations`: the coach's chats, listed and read back;
//! - `health`: the app's health samples, against the lifter's baselines; `devices`: the phones
//!   pushes go to, and the delivery of a notification to them;
//! - `events`: app events with the notification gate, and the feeds the app pages through;
//! - `exercises`: the exercise picker (catalog and own exercises, filtered and ranked);
//! - `history`: completed workouts, a page at a time, and one workout whole;
//! - `plans`: the routine the lifter follows and the templates, as the app shows them;
//! - `profile`: the lifter's profile and preferences (`GET`/`PATCH /v1/me`);
//! - `progress`: the progress charts (an exercise's weekly series, hard sets per muscle group);
//! - `proposals`: confirm or dismiss what the coach proposed;
//! - `jobs`: the worker's jobs (insight card, weekly review, health metric);
//! - `assist` and `card_summary`: the optional small models that may only rephrase or choose;
//! - `meter`: every model call's tokens, reserved against the daily allowances and settled.
//! - `error`: what a use case answers when it cannot do what was asked (`AppError`, its
//!   `ErrorCode`); the adapters give it a status and write the envelope.
//!
//! Every use case validates the whole request before it reads or writes; writes that race use
//! the store's conditions and are re-applied on the new state.

pub mod account;
pub(crate) mod active;
pub mod assist;
pub mod buttons;
pub(crate) mod card_summary;
pub mod command;
pub mod conversations;
pub mod devices;
pub mod error;
pub mod events;
pub mod exercises;
pub mod health;
pub mod history;
pub mod jobs;
pub mod meter;
pub mod params;
pub mod plans;
pub mod profile;
pub mod progress;
pub mod proposals;
pub mod sync;
pub mod workout;
pub mod workout_edit;

use std::borrow::Cow;

use chrono::{Duration, Utc};
use serde_json::Value;

use crate::analysis::history::LOOKBACK_WEEKS;
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::catalog::catalog;
use crate::domain::workout::Workout;
use crate::queue::JobQueue;
use crate::store::{Parts, Store, UserState};

/// Read-apply-write attempts before a 409.
pub(crate) const MAX_ATTEMPTS: u32 = 6;

/// The ports the use cases work through: the store, the job queue and the optional small
/// model. One per process, built in `main`; cheap to clone.
#[derive(Clone)]
pub struct App {
    pub store: Store,
    pub queue: JobQueue,
    pub assist: assist::Assist,
    /// Where phones are registered for pushes (`devices`).
    pub push: crate::push::Push,
}

impl App {
    pub fn new(store: Store, queue: JobQueue, assist: assist::Assist) -> Self {
        Self {
            store,
            queue,
            assist,
            push: crate::push::Push::disabled(),
        }
    }

    /// The use cases with a push service for the lifter's phones.
    pub fn with_push(mut self, push: crate::push::Push) -> Self {
        self.push = push;
        self
    }

    /// The user's state and recent history, read concurrently.
    pub(crate) async fn load(
        &self,
        ctx: &SessionContext,
        parts: Parts,
    ) -> Result<(UserState, Vec<Workout>), AppError> {
        let now = Utc::now();
        let (state, history) = tokio::join!(
            self.store
                .user_state(&ctx.user_id, parts, ctx.corr.as_deref(), now),
            self.store
                .completed_workouts_since(&ctx.user_id, now - Duration::weeks(LOOKBACK_WEEKS))
        );
        Ok((state?, history?))
    }

    /// `history` with the last session of each of `ids` that it does not hold, however old
    /// (a lift last done before the window still has a history).
    pub(crate) async fn with_last_sessions(
        &self,
        ctx: &SessionContext,
        history: Vec<Workout>,
        ids: &[&str],
    ) -> Result<Vec<Workout>, AppError> {
        let out = self
            .store
            .with_last_sessions(&ctx.user_id, history, ids)
            .await;
        // Usually no call at all (the window holds the exercise): time is counted, calls not.
        out.map_err(AppError::from)
    }

    /// [`Self::with_last_sessions`] for the exercises of a template.
    pub(crate) async fn with_template_sessions(
        &self,
        ctx: &SessionContext,
        history: Vec<Workout>,
        template: &crate::domain::plan::Template,
    ) -> Result<Vec<Workout>, AppError> {
        let ids: Vec<&str> = template
            .exercises
            .iter()
            .map(|e| e.exercise_id.as_str())
            .collect();
        self.with_last_sessions(ctx, history, &ids).await
    }
}

/// An id from the path or the body, checked before it becomes part of a store key.
pub fn checked_id<'a>(id: &'a str, field: &'static str) -> Result<&'a str, AppError> {
    if crate::context::is_valid_id(id) {
        Ok(id)
    } else {
        Err(invalid(
            &format!(
                "not an id: ids are 1 to {} letters, digits or - _ . : @ |",
                crate::context::MAX_ID_CHARS
            ),
            field,
        ))
    }
}

pub fn invalid(message: &str, field: impl Into<Cow<'static, str>>) -> AppError {
    AppError::new(ErrorCode::ValidationError, message).field(field)
}

pub(crate) fn conflict() -> AppError {
    AppError::new(
        ErrorCode::Conflict,
        "the workout kept changing while this request was applied; nothing was changed, please retry",
    )
}

pub(crate) fn reused() -> AppError {
    AppError::new(
        ErrorCode::IdempotencyKeyReused,
        "this corr was already used for a different request",
    )
}

pub(crate) fn not_in_workout(instance_id: &str) -> AppError {
    // The same answer whether the id is unknown or another user's: nothing leaks.
    AppError::new(
        ErrorCode::ExerciseNotInWorkout,
        format!("no exercise {instance_id} in your active workout"),
    )
    .field("exercise_instance_id")
}

pub(crate) fn unknown_exercise(text: &str) -> AppError {
    let close = catalog().closest(text, 3);
    let hint = if close.is_empty() {
        String::new()
    } else {
        format!(
            "; did you mean {}?",
            close
                .iter()
                .map(|e| format!("{} ({})", e.name, e.id))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    AppError::new(
        ErrorCode::UnknownExercise,
        format!("no exercise '{text}' in the catalog or your history{hint}"),
    )
    .field("exercise_id")
}

pub(crate) fn active_conflict(active: &Workout) -> AppError {
    AppError::new(
        ErrorCode::WorkoutActive,
        format!(
            "'{}' is still active; complete it before starting another",
            active.name
        ),
    )
    .with(
        "workout",
        serde_json::to_value(active).unwrap_or(Value::Null),
    )
}

/// The active workout, checked against the prefix's `workout_id` when one is given.
pub(crate) fn active_in_prefix<'a>(
    state: &'a UserState,
    ctx: &SessionContext,
) -> Result<Option<(&'a Workout, u64)>, AppError> {
    let active = state.workout.as_ref().map(|v| (&v.value, v.version));
    if let (Some(wanted), Some((w, _))) = (ctx.workout_id.as_deref(), active)
        && w.id != wanted
    {
        return Err(AppError::new(
            ErrorCode::WorkoutMismatch,
            format!("workout {wanted} is not your active workout"),
        ));
    }
    Ok(active)
}

/// Identifies a request for idempotency (the same `corr` must carry the same request): a short
/// hash of its parts.
pub(crate) fn fingerprint(parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}
