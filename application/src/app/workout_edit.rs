//! Fixing the history after the fact: `PATCH /v1/workouts/{id}` (a logged set's weight, reps,
//! effort, type or notes; sets added or removed; the workout's name, notes or start time) and
//! `DELETE /v1/workouts/{id}`, for completed workouts (the active one changes through the
//! workout commands).
//!
//! The whole request is checked before anything is written. The write is conditioned on the
//! workout's version (the `version` the app read, when it sends one: a 409 if another device
//! changed it meanwhile) and carries the request's idempotency record, so a retry with the same
//! `corr` gets the first answer. Then what depends on the workout follows it: each exercise's
//! best e1RM and last session are set from the whole history again (an edit can lower them),
//! the insight card is written again (a `workout_completed` job for the new version) and the
//! stored weekly reviews of the weeks it left or joined are written again (`weekly_review`
//! jobs).

use std::collections::BTreeSet;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::params::read;
use super::{App, MAX_ATTEMPTS, conflict, fingerprint, invalid, reused};
use crate::app::active::replay_record;
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::calendar::iso_week_id;
use crate::domain::limits;
use crate::domain::units::Unit;
use crate::domain::workout::{SetResult, SetStatus, SetTarget, SetType, Workout, WorkoutSet};
use crate::import::strong::{EARLIEST_YEAR, FUTURE_TOLERANCE_HOURS};
use crate::queue::Job;
use crate::skills::notify::timezone;
use crate::store::{CommitOutcome, IdempotencyRecord, Parts};

/// `PATCH /v1/workouts/{id}`: what to change; absent fields stay as they are.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkoutEdit {
    /// The version the app read (`GET /v1/workouts/{id}`); a different stored one is a 409.
    #[serde(default)]
    pub version: Option<u64>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub notes: Option<Option<String>>,
    /// Moves the workout; its end moves with it.
    #[serde(default)]
    pub started_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub sets: Vec<SetEdit>,
    #[serde(default)]
    pub add_sets: Vec<NewSet>,
    #[serde(default)]
    pub remove_sets: Vec<String>,
}

/// A change to one set, by its id: the fields given replace the logged ones.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetEdit {
    pub id: String,
    #[serde(default)]
    pub reps: Option<u32>,
    /// `null`: a bodyweight set.
    #[serde(default, deserialize_with = "present")]
    pub weight_kg: Option<Option<f64>>,
    #[serde(default, deserialize_with = "present")]
    pub rir: Option<Option<u32>>,
    #[serde(default, deserialize_with = "present")]
    pub rpe: Option<Option<f64>>,
    #[serde(default)]
    pub failure: Option<bool>,
    #[serde(default, rename = "type")]
    pub set_type: Option<SetType>,
    #[serde(default, deserialize_with = "present")]
    pub notes: Option<Option<String>>,
}

/// A set the lifter forgot to log, added to one of the workout's exercises.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSet {
    pub exercise_instance_id: String,
    pub reps: u32,
    #[serde(default)]
    pub weight_kg: Option<f64>,
    #[serde(default)]
    pub rir: Option<u32>,
    #[serde(default)]
    pub rpe: Option<f64>,
    #[serde(default)]
    pub failure: bool,
    #[serde(default, rename = "type")]
    pub set_type: SetType,
    #[serde(default)]
    pub notes: Option<String>,
}

fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// What an edit or a deletion set going again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reruns {
    /// The insight card is written again (false after a deletion: the card is gone).
    pub insight_card: bool,
    /// The Sundays ending the weeks whose stored reviews are written again.
    pub review_weeks: Vec<NaiveDate>,
}

/// The answer to an edit or a deletion.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum EditAnswer {
    Edited {
        workout: Box<Workout>,
        version: u64,
        unit: Unit,
        reruns: Reruns,
    },
    Deleted {
        deleted: String,
        reruns: Reruns,
    },
    /// The answer this request's `corr` already got, as it was stored.
    Replayed(Value),
}

impl EditAnswer {
    fn edited(w: &Workout, version: u64, unit: Unit, reruns: &Reruns) -> EditAnswer {
        EditAnswer::Edited {
            workout: Box::new(w.clone()),
            version,
            unit,
            reruns: reruns.clone(),
        }
    }
}

/// A version given with the edit that is no longer the workout's.
fn changed_since_read(version: u64) -> AppError {
    AppError::new(
        ErrorCode::Conflict,
        format!(
            "the workout changed since you read it (it is at version {version}); read it again and re-apply your change"
        ),
    )
    .field("version")
}

/// A version given with the edit, and another request changed the workout meanwhile.
fn changed_while_applied() -> AppError {
    AppError::new(
        ErrorCode::Conflict,
        "the workout changed while this request was applied; read it again and re-apply your change",
    )
    .field("version")
}

fn set_not_found(id: &str) -> AppError {
    AppError::new(
        ErrorCode::SetNotFound,
        format!("no set {id} in this workout"),
    )
    .field("sets.id")
}

/// Reps, weight and effort of a set, checked together (`field` names the list they came in).
fn checked_result(r: SetResult, field: &'static str) -> Result<SetResult, AppError> {
    limits::check_reps(field, r.reps, r.failure)?;
    if let Some(kg) = r.weight_kg {
        limits::check_weight_kg(field, kg)?;
    }
    if let Some(rir) = r.rir {
        limits::check_rir(field, rir)?;
    }
    if let Some(rpe) = r.rpe {
        limits::check_rpe(field, rpe)?;
    }
    if r.rir.is_some() && r.rpe.is_some() {
        return Err(invalid(
            "give a set's effort as rir or rpe, not both",
            field,
        ));
    }
    if let Some(n) = &r.notes {
        limits::check_notes(field, n)?;
    }
    Ok(r)
}

fn text(value: Option<String>) -> Option<String> {
    value
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

impl WorkoutEdit {
    /// Reads a body; every error names its field.
    pub fn from_body(body: &Value) -> Result<WorkoutEdit, AppError> {
        read(body)
    }

    /// `w` with the edit applied, checked whole; nothing is written here.
    pub fn apply(&self, w: &Workout, now: DateTime<Utc>) -> Result<Workout, AppError> {
        let mut out = w.clone();
        if let Some(name) = &self.name {
            limits::check_entered_name("name", name)?;
            out.name = name.trim().to_string();
        }
        if let Some(notes) = &self.notes {
            out.notes = text(notes.clone());
        }
        if let Some(start) = self.started_at {
            moved_start(&mut out, start, now)?;
        }
        for e in &self.sets {
            let p = out.find_set(&e.id).ok_or_else(|| set_not_found(&e.id))?;
            e.apply(out.set_at_mut(p))?;
        }
        for id in &self.remove_sets {
            let p = out.find_set(id).ok_or_else(|| set_not_found(id))?;
            out.exercises[p.exercise].sets.remove(p.set);
        }
        for (i, n) in self.add_sets.iter().enumerate() {
            let set = n.to_set(next_set_id(&out, i))?;
            out.exercises
                .iter_mut()
                .find(|e| e.instance_id == n.exercise_instance_id)
                .ok_or_else(|| {
                    AppError::new(
                        ErrorCode::ExerciseNotInWorkout,
                        format!("no exercise {} in this workout", n.exercise_instance_id),
                    )
                    .field("add_sets.exercise_instance_id")
                })?
                .sets
                .push(set);
        }
        out.exercises.retain(|e| !e.sets.is_empty());
        let removed: BTreeSet<&str> = self.remove_sets.iter().map(String::as_str).collect();
        out.changes.retain(|c| !removed.contains(c.set_id.as_str()));
        let done = out
            .exercises
            .iter()
            .flat_map(|e| &e.sets)
            .any(|s| s.status == SetStatus::Done);
        if !done {
            return Err(invalid(
                "the workout would have no set done; delete it instead (DELETE /v1/workouts/{id})",
                "remove_sets",
            ));
        }
        out.validate()?;
        Ok(out)
    }
}

/// The workout moved to start at `start` (its end moved with it), within the import's dates.
fn moved_start(
    out: &mut Workout,
    start: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    let earliest = chrono::NaiveDate::from_ymd_opt(EARLIEST_YEAR, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|d| d.and_utc());
    if start > now + Duration::hours(FUTURE_TOLERANCE_HOURS) || earliest.is_some_and(|e| start < e)
    {
        return Err(invalid(
            &format!("started_at must be from {EARLIEST_YEAR} to now"),
            "started_at",
        ));
    }
    out.completed_at = out.completed_at.map(|c| start + (c - out.started_at));
    out.started_at = start;
    Ok(())
}

impl SetEdit {
    /// The set with this edit's fields changed (a set not logged needs its reps), done.
    fn apply(&self, set: &mut WorkoutSet) -> Result<(), AppError> {
        let mut r = match set.actual.clone() {
            Some(r) => r,
            None => SetResult {
                reps: self.reps.ok_or_else(|| {
                    invalid(
                        &format!("set {} was not logged: give its reps", self.id),
                        "sets.reps",
                    )
                })?,
                weight_kg: set.target.weight_kg,
                ..SetResult::default()
            },
        };
        if let Some(reps) = self.reps {
            r.reps = reps;
        }
        if let Some(kg) = self.weight_kg {
            r.weight_kg = kg;
        }
        if let Some(failure) = self.failure {
            r.failure = failure;
        }
        // One effort measure: the one given replaces the other.
        match (self.rir, self.rpe) {
            (Some(rir), None) => {
                r.rir = rir;
                r.rpe = None;
            }
            (None, Some(rpe)) => {
                r.rpe = rpe;
                r.rir = None;
            }
            (Some(rir), Some(rpe)) => {
                r.rir = rir;
                r.rpe = rpe;
            }
            (None, None) => {}
        }
        if let Some(notes) = &self.notes {
            r.notes = text(notes.clone());
        }
        set.actual = Some(checked_result(r, "sets")?);
        set.status = SetStatus::Done;
        if let Some(t) = self.set_type {
            set.set_type = t;
        }
        Ok(())
    }
}

impl NewSet {
    /// The added set, checked, done.
    fn to_set(&self, id: String) -> Result<WorkoutSet, AppError> {
        let result = checked_result(
            SetResult {
                reps: self.reps,
                weight_kg: self.weight_kg,
                rir: self.rir,
                rpe: self.rpe,
                failure: self.failure,
                notes: text(self.notes.clone()),
                ..SetResult::default()
            },
            "add_sets",
        )?;
        Ok(WorkoutSet {
            id,
            set_type: self.set_type,
            status: SetStatus::Done,
            target: SetTarget::default(),
            actual: Some(result),
            completed_at: None,
        })
    }
}

/// A set id not used in `w` (the `nth` added by one request).
fn next_set_id(w: &Workout, nth: usize) -> String {
    let taken = |id: &str| w.exercises.iter().flat_map(|e| &e.sets).any(|s| s.id == id);
    (1..)
        .map(|k| format!("added-{}", k + nth))
        .find(|id| !taken(id))
        .unwrap_or_default()
}

impl App {
    /// `PATCH /v1/workouts/{id}` (`edit`) or `DELETE /v1/workouts/{id}` (`None`). `asked` is
    /// the request as sent, which a `corr` is bound to.
    pub async fn change_completed(
        &self,
        ctx: &SessionContext,
        id: &str,
        edit: Option<&WorkoutEdit>,
        asked: &str,
    ) -> Result<EditAnswer, AppError> {
        let method = if edit.is_some() { "PATCH" } else { "DELETE" };
        let print = fingerprint(&[method, "/v1/workouts", id, asked]);
        let wanted = edit.and_then(|e| e.version);
        for _ in 0..MAX_ATTEMPTS {
            let now = Utc::now();
            let (replay, found, profile) = tokio::join!(
                self.first_answer(ctx, now),
                self.store.find_completed(&ctx.user_id, id),
                self.profile(ctx)
            );
            if let Some(rec) = replay? {
                if rec.fingerprint != print {
                    return Err(reused());
                }
                return Ok(EditAnswer::Replayed(
                    serde_json::from_str(&rec.body).unwrap_or(Value::Null),
                ));
            }
            let profile = profile?;
            let Some(found) = found? else {
                return Err(self.not_completed(ctx, id).await);
            };
            if wanted.is_some_and(|v| v != found.version) {
                return Err(changed_since_read(found.version));
            }
            let before = found.value;
            let after = edit.map(|e| e.apply(&before, now)).transpose()?;
            let reruns = self
                .reruns(ctx, &before, after.as_ref(), timezone(&profile))
                .await?;
            if after.as_ref() == Some(&before) {
                // Nothing to change: nothing written, nothing run again.
                let none = Reruns {
                    insight_card: false,
                    review_weeks: Vec::new(),
                };
                return Ok(EditAnswer::edited(
                    &before,
                    found.version,
                    profile.unit,
                    &none,
                ));
            }
            let answer = match &after {
                Some(a) => EditAnswer::edited(a, found.version + 1, profile.unit, &reruns),
                None => EditAnswer::Deleted {
                    deleted: id.to_string(),
                    reruns: reruns.clone(),
                },
            };
            let record = ctx.corr.as_ref().map(|corr| {
                let body = serde_json::to_string(&answer).unwrap_or_default();
                replay_record(corr, &print, body, now)
            });
            let outcome = self
                .store
                .replace_completed(
                    &ctx.user_id,
                    &before,
                    found.version,
                    after.as_ref(),
                    record.as_ref(),
                    now,
                )
                .await?;
            match outcome {
                CommitOutcome::Committed => {
                    self.follow_edit(ctx, &before, after.as_ref(), found.version + 1, &reruns)
                        .await?;
                    return Ok(answer);
                }
                // Another request with this corr committed first: read its answer.
                CommitOutcome::DuplicateRequest => continue,
                CommitOutcome::VersionConflict if wanted.is_some() => {
                    return Err(changed_while_applied());
                }
                CommitOutcome::VersionConflict => continue,
            }
        }
        Err(conflict())
    }

    /// The first answer to this request's corr, if it already ran (nothing to read without
    /// one).
    async fn first_answer(
        &self,
        ctx: &SessionContext,
        now: DateTime<Utc>,
    ) -> Result<Option<IdempotencyRecord>, crate::store::StoreError> {
        let Some(corr) = ctx.corr.as_deref() else {
            return Ok(None);
        };
        let state = self
            .store
            .user_state(&ctx.user_id, Parts::default(), Some(corr), now)
            .await?;
        Ok(state.replay)
    }

    /// What the change sets going again: the insight card when the workout is still there, and
    /// the stored reviews of the weeks it was and is in.
    async fn reruns(
        &self,
        ctx: &SessionContext,
        before: &Workout,
        after: Option<&Workout>,
        tz: chrono_tz::Tz,
    ) -> Result<Reruns, AppError> {
        let weeks: BTreeSet<NaiveDate> = [Some(before), after]
            .into_iter()
            .flatten()
            .map(|w| crate::analysis::facts::week_ending(w.started_at, tz))
            .collect();
        let first = weeks.first().map(|d| iso_week_id(*d)).unwrap_or_default();
        let reviewed = self.store.review_weeks_from(&ctx.user_id, &first).await?;
        Ok(Reruns {
            insight_card: after.is_some(),
            review_weeks: weeks
                .into_iter()
                .filter(|d| reviewed.contains(&iso_week_id(*d)))
                .collect(),
        })
    }

    /// Why `id` is not a completed workout: the active one (409), or none (404).
    async fn not_completed(&self, ctx: &SessionContext, id: &str) -> AppError {
        let active = self.store.get_active_workout(&ctx.user_id).await;
        match active {
            Ok(Some(a)) if a.value.id == id => AppError::new(
                ErrorCode::WorkoutActive,
                format!(
                    "'{}' is still active: change it with the workout commands, or complete it first",
                    a.value.name
                ),
            )
            .with("workout", serde_json::to_value(&a.value).unwrap_or(Value::Null)),
            Ok(_) => {
                AppError::new(ErrorCode::WorkoutNotFound, format!("no workout {id}")).field("id")
            }
            Err(e) => AppError::from(e),
        }
    }

    /// What depends on the workout, after the edit is stored: records from the whole history,
    /// the card and the reviews through the queue.
    async fn follow_edit(
        &self,
        ctx: &SessionContext,
        before: &Workout,
        after: Option<&Workout>,
        version: u64,
        reruns: &Reruns,
    ) -> Result<(), AppError> {
        let mut ids: Vec<&str> = [Some(before), after]
            .into_iter()
            .flatten()
            .flat_map(|w| w.exercises.iter().map(|e| e.exercise_id.as_str()))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let saved = "the change is saved, but";
        // The card lives under the workout's start: deleted with the workout, or when it moved
        // (the job below writes the new one).
        if after.is_none_or(|a| a.started_at != before.started_at) {
            let card = crate::analysis::card::card_id(&before.id);
            self.store
                .delete_insight(&ctx.user_id, before.started_at, &card)
                .await?;
        }
        let history = self.store.completed_workouts(&ctx.user_id).await;
        let history = history?;
        self.store
            .rebuild_exercise_records(&ctx.user_id, &ids, &history)
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "{saved} the records could not be rebuilt");
                AppError::from(e)
            })?;
        let mut jobs: Vec<Job> = reruns
            .review_weeks
            .iter()
            .map(|d| Job::WeeklyReview {
                user_id: ctx.user_id.clone(),
                week_ending: *d,
            })
            .collect();
        if let Some(a) = after {
            jobs.push(Job::WorkoutCompleted {
                user_id: ctx.user_id.clone(),
                workout_id: a.id.clone(),
                revision: version,
            });
        }
        for job in &jobs {
            self.queue.send(job).await.map_err(|e| {
                tracing::error!(error = %e, "{saved} its card and reviews could not be queued");
                AppError::new(
                    ErrorCode::QueueUnavailable,
                    format!("{saved} its insight card and reviews could not be queued; they are written again with the next change"),
                )
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::workout::{ExerciseInstance, WorkoutStatus};
    use serde_json::json;

    fn workout() -> Workout {
        let done = |id: &str, reps, kg| WorkoutSet {
            id: id.into(),
            set_type: SetType::Working,
            status: SetStatus::Done,
            target: SetTarget::default(),
            actual: Some(SetResult {
                reps,
                weight_kg: Some(kg),
                rir: Some(2),
                ..SetResult::default()
            }),
            completed_at: None,
        };
        Workout {
            current_exercise: None,
            id: "w1".into(),
            name: "Push".into(),
            status: WorkoutStatus::Completed,
            started_at: "2026-11-20T17:00:00Z".parse().unwrap(),
            completed_at: Some("2026-11-20T18:00:00Z".parse().unwrap()),
            template_id: None,
            routine_id: None,
            exercises: vec![ExerciseInstance {
                group: None,
                rest: None,
                instance_id: "e1".into(),
                exercise_id: "barbell-bench-press".into(),
                name: "Bench Press".into(),
                sets: vec![done("s1", 8, 100.0), done("s2", 8, 100.0)],
                notes: None,
                rep_range: None,
                primary_muscles: Vec::new(),
            }],
            changes: Vec::new(),
            notes: None,
            bodyweight_kg: None,
        }
    }

    fn now() -> DateTime<Utc> {
        "2026-11-22T12:00:00Z".parse().unwrap()
    }

    fn edit(v: Value) -> Result<Workout, AppError> {
        WorkoutEdit::from_body(&v)?.apply(&workout(), now())
    }

    #[test]
    fn an_edit_changes_what_it_names_and_keeps_the_rest() {
        let w = edit(json!({
            "sets": [{"id": "s2", "weight_kg": 102.5, "rpe": 9, "type": "dropset"}],
            "add_sets": [{"exercise_instance_id": "e1", "reps": 6, "weight_kg": 90}],
            "started_at": "2026-11-20T16:00:00Z",
            "notes": "belt on"
        }))
        .unwrap();
        let s2 = &w.exercises[0].sets[1];
        let r = s2.actual.as_ref().unwrap();
        assert_eq!(
            (r.reps, r.weight_kg, r.rpe, r.rir),
            (8, Some(102.5), Some(9.0), None)
        );
        assert_eq!(s2.set_type, SetType::Dropset);
        assert_eq!(w.exercises[0].sets[2].id, "added-1");
        assert_eq!(
            w.completed_at,
            Some("2026-11-20T17:00:00Z".parse().unwrap())
        );
        assert_eq!(w.notes.as_deref(), Some("belt on"));
        assert_eq!(w.exercises[0].sets[0], workout().exercises[0].sets[0]);
    }

    #[test]
    fn a_bad_edit_names_its_field() {
        let field = |v: Value| edit(v).err().and_then(|e| e.field.map(|f| f.to_string()));
        assert_eq!(
            field(json!({"sets": [{"id": "s9", "reps": 5}]})).as_deref(),
            Some("sets.id")
        );
        assert_eq!(
            field(json!({"sets": [{"id": "s1", "weight_kg": 5000}]})).as_deref(),
            Some("sets")
        );
        assert_eq!(
            field(json!({"sets": [{"id": "s1", "rpe": 3}]})).as_deref(),
            Some("sets")
        );
        assert_eq!(
            field(json!({"started_at": "2031-01-01T00:00:00Z"})).as_deref(),
            Some("started_at")
        );
        assert_eq!(
            field(json!({"remove_sets": ["s1", "s2"]})).as_deref(),
            Some("remove_sets")
        );
        assert_eq!(
            field(json!({"add_sets": [{"exercise_instance_id": "e9", "reps": 5}]})).as_deref(),
            Some("add_sets.exercise_instance_id")
        );
        assert!(edit(json!({"colour": "red"})).is_err());
    }
}
