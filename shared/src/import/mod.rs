//! History import: another app's export read into completed workouts, written in batches, with
//! weekly reviews enqueued for the weeks it covers. Used by `POST /v1/import/strong` and the
//! operator command `devstack import-strong`.
//!
//! Order of work: read what the user has (profile for the timezone, own exercises, workout
//! ids), parse the whole file (a malformed file stops here, before any write), write, enqueue.
//! Writing is idempotent (deterministic keys), so a retried or repeated import changes nothing;
//! a queue failure after the write is reported, and importing again enqueues again.

pub mod csv;
pub mod strong;

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::domain::units::Unit;
use crate::lanes::worker::Job;
use crate::queue::JobQueue;
use crate::skills::notify;
use crate::store::{Parts, Store, StoreError};

/// The largest export accepted: about 50,000 rows, and under Lambda's 6 MB request limit.
pub const MAX_IMPORT_BYTES: usize = 5 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Malformed(#[from] strong::Malformed),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where the weekly reviews of the imported weeks went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reviews {
    pub weeks: usize,
    pub enqueued: usize,
    pub queue: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The answer to an import.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    #[serde(flatten)]
    pub summary: strong::Summary,
    pub timezone: String,
    pub weight_unit: Unit,
    /// Imported workouts the history did not have before.
    pub new_workouts: usize,
    /// Imported workouts already in the history (from an earlier import), rewritten unchanged.
    pub already_imported: usize,
    pub reviews: Reviews,
    /// The weeks the reviews were asked for, oldest first (Sundays in the lifter's timezone).
    pub review_weeks: Vec<NaiveDate>,
}

/// Imports a Strong export for `user`. `tz` defaults to the profile's timezone, `unit` is the
/// unit of weights in a file that does not say.
pub async fn strong_export(
    store: &Store,
    queue: &JobQueue,
    user: &str,
    text: &str,
    tz: Option<Tz>,
    unit: Unit,
    now: DateTime<Utc>,
) -> Result<Outcome, ImportError> {
    let parts = Parts {
        profile: true,
        ..Parts::default()
    };
    let (state, own, existing) = tokio::join!(
        store.user_state(user, parts, None, now),
        store.own_exercise_ids(user),
        store.completed_workout_ids(user)
    );
    let (state, own, existing) = (state?, own?, existing?);
    let tz = tz.unwrap_or_else(|| notify::timezone(&state.profile.unwrap_or_default()));
    let parsed = strong::parse(text, strong::Options { tz, unit, now }, &own)?;
    let already = parsed
        .workouts
        .iter()
        .filter(|w| existing.contains(&w.id))
        .count();
    store
        .put_history(user, &parsed.workouts, &parsed.own_exercises)
        .await?;
    let jobs: Vec<serde_json::Value> = parsed
        .weeks
        .iter()
        .map(|d| {
            Job::WeeklyReview {
                user_id: user.to_string(),
                week_ending: *d,
            }
            .to_message()
        })
        .collect();
    let reviews = match queue.send_all(&jobs).await {
        Ok(n) => Reviews {
            weeks: jobs.len(),
            enqueued: n,
            queue: queue.kind(),
            error: None,
        },
        Err(e) => {
            tracing::warn!(error = %e, "imported, but the weekly reviews were not enqueued");
            Reviews {
                weeks: jobs.len(),
                enqueued: 0,
                queue: queue.kind(),
                error: Some(format!("{e}; importing the file again enqueues them again")),
            }
        }
    };
    Ok(Outcome {
        new_workouts: parsed.workouts.len() - already,
        already_imported: already,
        timezone: tz.to_string(),
        weight_unit: unit,
        reviews,
        review_weeks: parsed.weeks,
        summary: parsed.summary,
    })
}
