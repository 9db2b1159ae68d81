//! History import: another app's export read into completed workouts, written in batches, with
//! weekly reviews enqueued for the weeks it covers. Used by `POST /v1/import/strong` and the
//! operator command `devstack import-strong`.
//!
//! Order of work: read what the user has (profile for the timezone, own exercises, workout
//! ids), parse the whole file (a malformed file stops here, before any write), write, enqueue.
//! Writing is idempotent (deterministic keys), so a retried or repeated import changes nothing;
//! a queue failure after the write is reported, and importing again enqueues again.
//!
//! Reviews are asked only for the weeks a review is useful for: the last [`REVIEW_WEEKS`] up to
//! now (older weeks lie outside every window the coach and the reviews read), and only where
//! the week has no review yet or the import added a workout to it. A re-import queues nothing,
//! and an old history cannot queue a job per week since it began.

pub mod csv;
pub mod strong;
pub mod units;

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::analysis::facts::week_ending;
use crate::analysis::review::iso_week_id;
use crate::domain::catalog::{OwnExercise, catalog};
use crate::domain::units::Unit;
use crate::queue::Job;
use crate::queue::JobQueue;
use crate::skills::notify;
use crate::store::{Parts, Store, StoreError};

/// The largest export accepted: about 45,000 rows. Lambda's 6 MiB request limit holds the body
/// JSON-escaped (a quote or a line break is two bytes): real exports grow by 2–27 % so, and 4.5
/// MiB at 27 % is 5.7 MiB. A file that grows by more than a third never reaches the function
/// (the platform refuses it first): what the function can check is the size it is sent.
pub const MAX_IMPORT_BYTES: usize = 9 * 512 * 1024;

/// Weeks back from now (this one included) whose reviews an import asks for: the review's own
/// trend window.
pub(crate) const REVIEW_WEEKS: u64 = crate::analysis::ANALYSIS_WEEKS as u64 + 1;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error(transparent)]
    Refused(#[from] strong::Refused),
    /// The file does not say its unit, nor do the request, the profile or the weights: asked
    /// rather than guessed (a 365 lb deadlift read as 365 kg sets every prescription after it).
    #[error("{0}")]
    UnitUnknown(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Where the weekly reviews of the imported weeks went.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reviews {
    /// ISO weeks with an imported workout.
    pub weeks: usize,
    /// Reviews queued now (listed in `review_weeks`).
    pub enqueued: usize,
    /// Weeks before the last [`REVIEW_WEEKS`]: not reviewed.
    pub older_weeks: usize,
    /// Recent weeks that already have a review and got no new workout.
    pub already_reviewed: usize,
    pub queue: &'static str,
    /// `QUEUE_UNAVAILABLE` when the reviews could not be queued (importing again queues them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'static str>,
}

/// The answer to an import.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    #[serde(flatten)]
    pub summary: strong::Summary,
    pub timezone: String,
    pub weight_unit: Unit,
    /// Where `weight_unit` came from: file (its Weight Unit column), request, profile,
    /// weights (the heuristic in [`units`]) or default.
    pub weight_unit_source: units::UnitSource,
    /// Why, in a sentence, for a file without a unit column.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight_unit_note: Option<String>,
    /// Imported workouts the history did not have before.
    pub new_workouts: usize,
    /// Imported workouts already in the history (from an earlier import), rewritten unchanged.
    pub already_imported: usize,
    pub reviews: Reviews,
    /// The weeks reviews were asked for, oldest first (Sundays in the lifter's timezone).
    pub review_weeks: Vec<NaiveDate>,
}

/// Parses an export of one of `apps` in the unit [`units::decide`] picks for a file that does
/// not state its unit (a file that does is read row by row): parsed once as the request or
/// profile says, or as kilograms, and again only when the weights turn out to be pounds.
pub fn read_export(
    text: &str,
    tz: Tz,
    requested: Option<Unit>,
    profile: Option<Unit>,
    now: DateTime<Utc>,
    own: &HashSet<String>,
    apps: &'static [strong::App],
) -> Result<(strong::Parsed, Unit, units::UnitSource, Option<String>), strong::Refused> {
    let first = requested.or(profile).unwrap_or(Unit::Kg);
    let opts = |unit| strong::Options {
        tz,
        unit,
        now,
        apps,
    };
    let parsed = strong::parse(text, opts(first), own)?;
    if parsed.summary.states_units() {
        let unit = parsed.summary.main_unit();
        return Ok((parsed, unit, units::UnitSource::File, None));
    }
    let seen = units::evidence(&parsed.workouts, first);
    let (unit, source, why) = units::decide(requested, profile, seen);
    let parsed = if unit == first {
        parsed
    } else {
        strong::parse(text, opts(unit), own)?
    };
    Ok((parsed, unit, source, Some(why)))
}

/// What the lifter said of their own exercises, applied to the parsed workouts: one merged
/// into a catalog exercise files its sets there, one with a definition gives its sets its
/// muscles. Stored own exercises are not written again (that would drop what they say).
fn apply_own_exercises(parsed: &mut strong::Parsed, own: &[OwnExercise]) {
    let stored: HashMap<&str, &OwnExercise> = own.iter().map(|o| (o.id.as_str(), o)).collect();
    for e in parsed
        .workouts
        .iter_mut()
        .flat_map(|w| w.exercises.iter_mut())
    {
        let Some(o) = stored.get(e.exercise_id.as_str()) else {
            continue;
        };
        match o.merged_into.as_deref().and_then(|id| catalog().get(id)) {
            Some(target) => {
                e.exercise_id = target.id.clone();
                e.name = target.name.clone();
            }
            None => e.primary_muscles = o.primary_muscles.clone(),
        }
    }
    parsed
        .own_exercises
        .retain(|o| !stored.contains_key(o.id.as_str()));
}

/// The imported weeks recent enough to review (from `first_week`), and of them those due: a
/// week with a newly imported workout, or with no review yet.
fn weeks_to_review(
    parsed: &strong::Parsed,
    existing: &HashSet<String>,
    reviewed: &HashSet<String>,
    first_week: NaiveDate,
    tz: Tz,
) -> (Vec<NaiveDate>, Vec<NaiveDate>) {
    let changed: HashSet<NaiveDate> = parsed
        .workouts
        .iter()
        .filter(|w| !existing.contains(&w.id))
        .map(|w| week_ending(w.started_at, tz))
        .collect();
    let recent: Vec<NaiveDate> = parsed
        .weeks
        .iter()
        .copied()
        .filter(|d| *d >= first_week)
        .collect();
    let due = recent
        .iter()
        .copied()
        .filter(|d| changed.contains(d) || !reviewed.contains(&iso_week_id(*d)))
        .collect();
    (recent, due)
}

/// Queues a weekly review per week due: how many were queued, and the error code when the
/// queue was unavailable (the import stands).
async fn enqueue_reviews(
    queue: &JobQueue,
    user: &str,
    due: &[NaiveDate],
) -> (usize, Option<&'static str>) {
    let jobs: Vec<Job> = due
        .iter()
        .map(|d| Job::WeeklyReview {
            user_id: user.to_string(),
            week_ending: *d,
        })
        .collect();
    match queue.send_all(&jobs).await {
        Ok(n) => (n, None),
        Err(e) => {
            // The queue's words (its URL, the account, a role) go to the log only.
            tracing::warn!(error = %e, "imported, but the weekly reviews were not enqueued");
            (0, Some("QUEUE_UNAVAILABLE"))
        }
    }
}

/// Imports a Strong export for `user`. `tz` defaults to the profile's timezone; `unit` is the
/// unit of weights in a file that does not say, else the profile's, else what the weights
/// look like ([`units`]).
pub async fn strong_export(
    store: &Store,
    queue: &JobQueue,
    user: &str,
    text: &str,
    tz: Option<Tz>,
    unit: Option<Unit>,
    now: DateTime<Utc>,
) -> Result<Outcome, ImportError> {
    let parts = Parts {
        profile: true,
        ..Parts::default()
    };
    let (state, own_exercises, existing) = tokio::join!(
        store.user_state(user, parts, None, now),
        store.own_exercises(user),
        store.completed_workout_ids(user)
    );
    let (state, own_exercises, existing) = (state?, own_exercises?, existing?);
    let own: HashSet<String> = own_exercises.iter().map(|o| o.id.clone()).collect();
    let profile_unit = state.profile.as_ref().map(|p| p.unit);
    let profile = state.profile.unwrap_or_default();
    let tz = tz.unwrap_or_else(|| notify::timezone(&profile));
    let (mut parsed, unit, source, note) = read_export(
        text,
        tz,
        unit,
        profile_unit,
        now,
        &own,
        &[strong::App::Strong],
    )?;
    if source == units::UnitSource::Default {
        let seen = units::evidence(&parsed.workouts, unit);
        return Err(ImportError::UnitUnknown(format!(
            "The file has no Weight Unit column and its weights do not tell kilograms from pounds (pound evidence {}, kilogram evidence {}): import again with unit=kg or unit=lb, or set the unit in your profile. Nothing was imported.",
            seen.pounds, seen.kilograms
        )));
    }
    // Exports do not record bodyweight: the profile's is the best known for pull-ups and dips.
    for w in &mut parsed.workouts {
        w.bodyweight_kg = profile.bodyweight_kg;
    }
    apply_own_exercises(&mut parsed, &own_exercises);
    let already = parsed
        .workouts
        .iter()
        .filter(|w| existing.contains(&w.id))
        .count();
    // The recent weeks and which of them have a review, read before anything is written.
    let first_week = week_ending(now, tz) - chrono::Days::new(7 * (REVIEW_WEEKS - 1));
    let reviewed = store
        .review_weeks_from(user, &iso_week_id(first_week))
        .await?;
    // Only what is new: a workout imported before may have been fixed since (PATCH, a merge),
    // and writing the file's version over it would undo that and its version.
    let new: Vec<crate::domain::workout::Workout> = parsed
        .workouts
        .iter()
        .filter(|w| !existing.contains(&w.id))
        .cloned()
        .collect();
    store.put_history(user, &new, &parsed.own_exercises).await?;
    let (recent, due) = weeks_to_review(&parsed, &existing, &reviewed, first_week, tz);
    let (enqueued, error) = enqueue_reviews(queue, user, &due).await;
    let reviews = Reviews {
        weeks: parsed.weeks.len(),
        enqueued,
        older_weeks: parsed.weeks.len() - recent.len(),
        already_reviewed: recent.len() - due.len(),
        queue: queue.kind(),
        error,
    };
    Ok(Outcome {
        new_workouts: parsed.workouts.len() - already,
        already_imported: already,
        timezone: tz.to_string(),
        weight_unit: unit,
        weight_unit_source: source,
        weight_unit_note: note,
        reviews,
        review_weeks: due,
        summary: parsed.summary,
    })
}
