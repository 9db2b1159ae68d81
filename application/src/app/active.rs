//! The one way the active workout is changed. A FAST command, the swap button, an offline batch
//! and the coach's workout tools all go through [`edit_active`], which owns what they share: one
//! strongly consistent batch read (the workout at its version, the profile, the earlier answers
//! of the request's idempotency keys; with the recent history queried alongside when asked),
//! the check that the request is for the active workout, the whole-workout validation, the
//! commit conditioned on the version read (together with the answers to replay), and the
//! re-read and re-apply when another write got there first. What a caller decides (the
//! command's text, the swap's pick, the tool's answer) stays with the caller, as a closure over
//! what was read: it looks for its earlier answer first (a retry replays even when the workout
//! has since finished or another started), then takes the workout through [`EditRead::workout`].

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};

use super::MAX_ATTEMPTS;
use crate::analysis::history::LOOKBACK_WEEKS;
use crate::app::error::{AppError, ErrorCode};
use crate::domain::limits::LimitError;
use crate::domain::profile::Profile;
use crate::domain::workout::Workout;
use crate::retry::Attempts;
use crate::skills::workouts;
use crate::store::{
    CommitOutcome, IDEMPOTENCY_TTL_SECS, IdempotencyRecord, Store, StoreError, Versioned,
};

/// What an edit is for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EditRequest<'a> {
    pub user: &'a str,
    /// The workout the request names (the message prefix, the path): a different active
    /// workout is refused.
    pub workout_id: Option<&'a str>,
    /// Whether there must be an active workout (a command answers without one). Both checks
    /// are made by [`EditRead::workout`], after the caller's replay, and again before a commit.
    pub needs_active: bool,
    /// Idempotency keys whose earlier answers the edit may replay.
    pub keys: &'a [&'a str],
    /// Read the completed workouts of the recent window alongside the state.
    pub recent_history: bool,
}

/// What one attempt read.
#[derive(Debug)]
pub(crate) struct EditRead {
    /// The active workout at its version, as stored (unchecked: see [`EditRead::workout`]).
    active: Option<Versioned<Workout>>,
    workout_id: Option<String>,
    needs_active: bool,
    pub profile: Profile,
    /// The earlier answers of the request's keys that are still kept, by key.
    pub replays: HashMap<String, IdempotencyRecord>,
    /// The recent window's completed workouts (empty unless asked for).
    pub history: Vec<Workout>,
    pub now: DateTime<Utc>,
}

impl EditRead {
    /// The active workout, when it is the one the request is for: another active workout is
    /// `WorkoutMismatch`, and none at all is `NoActiveWorkout` when the request needs one.
    pub fn workout(&self) -> Result<Option<&Versioned<Workout>>, EditFailed> {
        match (&self.active, self.workout_id.as_deref()) {
            (Some(a), Some(wanted)) if a.value.id != wanted => Err(EditFailed::WorkoutMismatch {
                wanted: wanted.to_string(),
            }),
            (None, _) if self.needs_active => Err(EditFailed::NoActiveWorkout),
            (active, _) => Ok(active.as_ref()),
        }
    }

    /// The earlier answer kept for `key`, if the request ran before.
    pub fn replay(&self, key: Option<&str>) -> Option<&IdempotencyRecord> {
        key.and_then(|k| self.replays.get(k))
    }
}

/// The answer to keep for the idempotency key `key`, so that a retry of the request replays it.
pub(crate) fn replay_record(
    key: &str,
    fingerprint: &str,
    body: String,
    now: DateTime<Utc>,
) -> IdempotencyRecord {
    IdempotencyRecord {
        corr: key.to_string(),
        fingerprint: fingerprint.to_string(),
        status: 200,
        body,
        expires_at: now.timestamp() + IDEMPOTENCY_TTL_SECS,
    }
}

/// What the caller decided on what was read.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one per attempt, moved once
pub(crate) enum Edit<T> {
    /// Nothing to write: a replay, an answer that only shows something, a question.
    Answer(T),
    /// Commit `workout` on the version read, with the answers to keep, then answer.
    Write {
        workout: Workout,
        records: Vec<IdempotencyRecord>,
        answer: T,
    },
}

/// Why an edit changed nothing, before the caller's own refusals.
#[derive(Debug)]
pub(crate) enum EditFailed {
    Store(StoreError),
    /// `needs_active` and the lifter has no active workout.
    NoActiveWorkout,
    /// The request names another workout than the active one.
    WorkoutMismatch {
        wanted: String,
    },
    /// The changed workout breaks a limit (too many exercises or sets, a value out of range).
    Invalid(LimitError),
    /// Every attempt lost a race with another write.
    Conflict,
}

impl From<EditFailed> for AppError {
    fn from(e: EditFailed) -> AppError {
        match e {
            EditFailed::Store(e) => AppError::from(e),
            EditFailed::NoActiveWorkout => AppError::new(
                ErrorCode::WorkoutNotFound,
                "you have no active workout; start one first",
            ),
            EditFailed::WorkoutMismatch { wanted } => AppError::new(
                ErrorCode::WorkoutMismatch,
                format!("workout {wanted} is not your active workout"),
            ),
            EditFailed::Invalid(l) => AppError::from(l),
            EditFailed::Conflict => super::conflict(),
        }
    }
}

/// Reads the lifter's state, lets `decide` turn it into an answer and perhaps a changed
/// workout, and commits that on the version read; when another write came first, reads and
/// decides again (so `decide` may run more than once and must not write itself).
///
/// `decide` is a closure returning a future (not an async closure: the coach's stream runs on
/// a spawned task, and the compiler cannot yet prove an async closure's future `Send`).
pub(crate) async fn edit_active<T, E, F, Fut>(
    store: &Store,
    req: EditRequest<'_>,
    mut decide: F,
) -> Result<T, E>
where
    E: From<EditFailed>,
    F: FnMut(EditRead) -> Fut,
    Fut: Future<Output = Result<Edit<T>, E>>,
{
    let mut attempts = Attempts::new(MAX_ATTEMPTS);
    while attempts.next().await {
        let read = read(store, req).await.map_err(EditFailed::Store)?;
        let now = read.now;
        // Checked again here: a caller that did not look cannot write to the wrong workout.
        let version = read.workout().map(|a| a.map(|a| a.version));
        let (workout, records, answer) = match decide(read).await? {
            Edit::Answer(answer) => return Ok(answer),
            Edit::Write {
                workout,
                records,
                answer,
            } => (workout, records, answer),
        };
        // Starting a workout is not an edit: a write needs one active.
        let version = version?.ok_or(EditFailed::NoActiveWorkout)?;
        workouts::validate(&workout).map_err(EditFailed::Invalid)?;
        let committed = store
            .commit_workout_records(req.user, &workout, version, &records, now)
            .await
            .map_err(EditFailed::Store)?;
        match committed {
            CommitOutcome::Committed => return Ok(answer),
            // Another write came first, or the same request did: the next read re-applies to
            // what it wrote, or finds the answer to replay.
            CommitOutcome::VersionConflict | CommitOutcome::DuplicateRequest => {}
        }
    }
    Err(EditFailed::Conflict.into())
}

/// One attempt's read: the state in one batch, the recent history alongside it when asked.
async fn read(store: &Store, req: EditRequest<'_>) -> Result<EditRead, StoreError> {
    let now = Utc::now();
    let history = async {
        match req.recent_history {
            true => {
                let since = now - Duration::weeks(LOOKBACK_WEEKS);
                store.completed_workouts_since(req.user, since).await
            }
            false => Ok(Vec::new()),
        }
    };
    let (state, history) = tokio::join!(store.edit_state(req.user, req.keys, now), history);
    let (state, replays) = state?;
    Ok(EditRead {
        active: state.workout,
        workout_id: req.workout_id.map(str::to_string),
        needs_active: req.needs_active,
        profile: state.profile.unwrap_or_default(),
        replays,
        history: history?,
        now,
    })
}
