//! The workout lifecycle: start one (ad hoc, from a template, or the routine's next day), read
//! the active one, complete it (which queues its analysis).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::params::*;
use super::{App, MAX_ATTEMPTS, active_conflict, checked_id, conflict, invalid, unknown_exercise};
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::catalog::catalog;
use crate::domain::limits::{self, MAX_REPS, MAX_RIR, MAX_SETS_PER_EXERCISE};
use crate::domain::plan::Routine;
use crate::domain::profile::Profile;
use crate::domain::units::Unit;
use crate::domain::workout::{Workout, check_group};
use crate::queue::Delivery;
use crate::retry::Attempts;
use crate::skills::{suggest, workouts};
use crate::store::Parts;

/// `POST /v1/workouts`: where the workout comes from (at most one of template, routine and
/// exercises; none is an empty ad hoc workout).
#[derive(Debug, Clone, Default)]
pub struct StartWorkout {
    pub name: Option<String>,
    pub template_id: Option<String>,
    /// The routine's next day (`next`, or a `routine_id`).
    pub next: bool,
    pub routine_id: Option<String>,
    pub exercises: Vec<workouts::AdhocExercise>,
}

/// The body of `POST /v1/workouts`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StartBody {
    name: Option<String>,
    template_id: Option<String>,
    routine_id: Option<String>,
    next: Option<bool>,
    exercises: Option<Vec<AdhocBody>>,
}

/// `{"exercise": "bench press", "sets": 3, "reps": 8, "rir": 2}` (or `exercise_id`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AdhocBody {
    exercise: Option<String>,
    exercise_id: Option<String>,
    sets: Option<u32>,
    reps: Option<u32>,
    rir: Option<u32>,
    /// Exercises sharing a group are a superset.
    group: Option<String>,
}

impl StartWorkout {
    /// Reads the request body (unknown fields refused, each error naming its field).
    pub fn from_body(body: &Value) -> Result<StartWorkout, AppError> {
        let b: StartBody = read(body)?;
        let template_id = text(b.template_id, "template_id")?;
        if let Some(id) = &template_id {
            checked_id(id, "template_id")?;
        }
        let routine_id = text(b.routine_id, "routine_id")?;
        if let Some(id) = &routine_id {
            checked_id(id, "routine_id")?;
        }
        let next = b.next.unwrap_or(false) || routine_id.is_some();
        let exercises = adhoc(b.exercises.unwrap_or_default())?;
        let sources = [template_id.is_some(), next, !exercises.is_empty()]
            .iter()
            .filter(|b| **b)
            .count();
        if sources > 1 {
            return Err(invalid(
                "choose one of template_id, next (or routine_id) and exercises",
                "template_id",
            ));
        }
        Ok(StartWorkout {
            name: text(b.name, "name")?,
            template_id,
            next,
            routine_id,
            exercises,
        })
    }
}

/// The exercises of an ad hoc workout, resolved through the catalog.
fn adhoc(items: Vec<AdhocBody>) -> Result<Vec<workouts::AdhocExercise>, AppError> {
    limits::check_count("exercises", items.len(), limits::MAX_EXERCISES_PER_WORKOUT)?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let at = |f: &str| format!("exercises[{i}].{f}");
            let text = match text(item.exercise_id, &at("exercise_id"))? {
                Some(t) => t,
                None => required(item.exercise, &at("exercise"))?,
            };
            let exercise = catalog()
                .resolve(&text)
                .exercise()
                .ok_or_else(|| unknown_exercise(&text).field(at("exercise")))?;
            let sets = at_most(item.sets, &at("sets"), MAX_SETS_PER_EXERCISE as u32)?
                .unwrap_or(workouts::DEFAULT_SETS);
            let reps = at_most(item.reps, &at("reps"), MAX_REPS)?.unwrap_or(workouts::DEFAULT_REPS);
            let rir =
                at_most(item.rir, &at("rir"), MAX_RIR)?.unwrap_or(suggest::DEFAULT_TARGET_RIR);
            if sets == 0 || reps == 0 {
                return Err(invalid(
                    "sets and reps must be at least 1",
                    at(if sets == 0 { "sets" } else { "reps" }),
                ));
            }
            let group = item.group;
            if let Some(g) = &group {
                check_group("group", g).map_err(|e| invalid(&e.message, at("group")))?;
            }
            Ok(workouts::AdhocExercise {
                exercise,
                sets,
                reps,
                rir,
                group,
            })
        })
        .collect()
}

/// A started workout, in the lifter's unit.
#[derive(Debug, Clone, Serialize)]
pub struct Started {
    pub workout: Workout,
    #[serde(serialize_with = "unit_label")]
    pub unit: Unit,
}

fn unit_label<S: serde::Serializer>(u: &Unit, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(u.label())
}

/// `GET /v1/workouts/active`: the active workout (all `null` without one), its version, and the
/// set that is next.
#[derive(Debug, Clone, Serialize)]
pub struct ActiveWorkout {
    pub workout: Option<Workout>,
    /// For conditional writes.
    pub version: Option<u64>,
    pub current: Option<CurrentSet>,
}

/// The next planned set: which exercise, which set, and its place ("set 2 of 4").
#[derive(Debug, Clone, Serialize)]
pub struct CurrentSet {
    pub exercise_instance_id: String,
    pub exercise: String,
    pub set_id: String,
    pub number: usize,
    pub total: usize,
}

/// A completed workout and what became of its analysis job.
#[derive(Debug, Clone, Serialize)]
pub struct Completed {
    pub workout: Workout,
    /// It was completed by an earlier request (the answer is the same).
    pub already_completed: bool,
    pub job: JobStatus,
}

/// Where the `workout_completed` job went: `queued`, `invoked_locally` (with the local
/// worker's HTTP status) or `not_configured`.
#[derive(Debug, Clone, Serialize)]
pub struct JobStatus {
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
}

impl JobStatus {
    fn of(d: &Delivery) -> JobStatus {
        JobStatus {
            status: d.as_str(),
            http_status: match d {
                Delivery::InvokedLocally { status } => Some(*status),
                _ => None,
            },
        }
    }
}

impl App {
    /// Starts a workout; 409 when one is active (the answer carries it).
    pub async fn start_workout(
        &self,
        ctx: &SessionContext,
        req: &StartWorkout,
    ) -> Result<Started, AppError> {
        let parts = Parts {
            workout: true,
            profile: true,
            ..Parts::default()
        };
        let (state, mut history) = self.load(ctx, parts).await?;
        if let Some(active) = &state.workout {
            return Err(active_conflict(&active.value));
        }
        let profile = state.profile.clone().unwrap_or_default();
        let now = Utc::now();
        let workout = if let Some(tid) = req.template_id.as_deref() {
            let t = self.store.get_template(&ctx.user_id, tid).await?;
            let t = t.ok_or_else(|| {
                AppError::new(
                    ErrorCode::TemplateNotFound,
                    format!("you have no template '{tid}'"),
                )
                .field("template_id")
            })?;
            let history = self.with_template_sessions(ctx, history, &t).await?;
            workouts::from_template(&t, None, &history, &profile, now)
        } else if req.next {
            let routine = self
                .routine_for(&ctx.user_id, req.routine_id.as_deref(), &profile)
                .await?;
            let day = &routine.days[routine.next_day % routine.days.len()];
            let t = self
                .store
                .get_template(&ctx.user_id, &day.template_id)
                .await?;
            let t = t.ok_or_else(|| {
                AppError::new(
                    ErrorCode::RoutineBroken,
                    format!(
                        "routine day '{}' points at a template that no longer exists",
                        day.label
                    ),
                )
            })?;
            let history = self.with_template_sessions(ctx, history, &t).await?;
            let mut w = workouts::from_template(&t, Some(&routine), &history, &profile, now);
            w.name = format!("{} ({})", t.name, routine.name);
            w
        } else {
            let name = req.name.clone().unwrap_or_else(|| default_name(now, ctx));
            let ids: Vec<&str> = req
                .exercises
                .iter()
                .map(|a| a.exercise.id.as_str())
                .collect();
            history = self.with_last_sessions(ctx, history, &ids).await?;
            workouts::adhoc(&name, &req.exercises, &history, &profile, now)
        };
        let mut workout = workout;
        if let Some(n) = &req.name {
            workout.name = n.clone();
        }
        workouts::validate(&workout)?;
        let started = self.store.start_workout(&ctx.user_id, &workout).await;
        if !started? {
            let active = self.store.get_active_workout(&ctx.user_id).await?;
            return match active {
                // This very workout: the start was applied but its answer was lost, and the
                // SDK's retry met its own condition.
                Some(a) if a.value == workout => Ok(Started {
                    workout,
                    unit: profile.unit,
                }),
                // Another start won the race: answer with that one.
                Some(a) => Err(active_conflict(&a.value)),
                None => Err(conflict()),
            };
        }
        Ok(Started {
            workout,
            unit: profile.unit,
        })
    }

    /// The routine to start the next day of: `routine_id`, else the one the lifter follows.
    async fn routine_for(
        &self,
        user: &str,
        routine_id: Option<&str>,
        profile: &Profile,
    ) -> Result<Routine, AppError> {
        let not_found = |id: &str| {
            AppError::new(
                ErrorCode::RoutineNotFound,
                format!("you have no routine '{id}'"),
            )
            .field("routine_id")
        };
        if let Some(id) = routine_id {
            let r = self.store.get_routine(user, id).await;
            let r = r?;
            return r
                .filter(|r| !r.days.is_empty())
                .ok_or_else(|| not_found(id));
        }
        match self.followed_routine(user, profile).await? {
            Followed::One(r) => Ok(r),
            Followed::Missing(id) => Err(not_found(&id)),
            Followed::NoRoutine => Err(AppError::new(
                ErrorCode::NoRoutine,
                "you have no routine yet; start a template or an ad hoc workout, or ask the coach for a routine",
            )),
            Followed::Several(ids) => Err(invalid(
                &format!(
                    "you have several routines ({}); say which with routine_id",
                    ids.join(", ")
                ),
                "routine_id",
            )),
        }
    }

    /// The routine the lifter follows: the one set active, else their only one (with days).
    pub(crate) async fn followed_routine(
        &self,
        user: &str,
        profile: &Profile,
    ) -> Result<Followed, AppError> {
        if let Some(id) = &profile.active_routine_id {
            let r = self.store.get_routine(user, id).await;
            let r = r?;
            return Ok(match r.filter(|r| !r.days.is_empty()) {
                Some(r) => Followed::One(r),
                None => Followed::Missing(id.clone()),
            });
        }
        let all = self.store.routines(user).await;
        let mut all = all?;
        all.retain(|r| !r.days.is_empty());
        Ok(match all.len() {
            0 => Followed::NoRoutine,
            1 => Followed::One(all.remove(0)),
            _ => Followed::Several(all.into_iter().map(|r| r.id).collect()),
        })
    }

    /// The active workout with its version and the set to do now (all null without one).
    pub async fn active_workout(&self, ctx: &SessionContext) -> Result<ActiveWorkout, AppError> {
        let active = self.store.get_active_workout(&ctx.user_id).await;
        Ok(match active? {
            Some(a) => ActiveWorkout {
                current: a.value.current_set().map(|p| {
                    let inst = &a.value.exercises[p.exercise];
                    CurrentSet {
                        exercise_instance_id: inst.instance_id.clone(),
                        exercise: inst.name.clone(),
                        set_id: inst.sets[p.set].id.clone(),
                        number: p.number,
                        total: p.total,
                    }
                }),
                workout: Some(a.value),
                version: Some(a.version),
            },
            None => ActiveWorkout {
                workout: None,
                version: None,
                current: None,
            },
        })
    }

    /// Completes workout `id` (idempotent: an already completed one answers the same) and
    /// enqueues the `workout_completed` job. A failed enqueue is a 503; the workout stays
    /// completed, and retrying enqueues again (the worker is idempotent).
    pub async fn complete_workout(
        &self,
        ctx: &SessionContext,
        id: &str,
    ) -> Result<Completed, AppError> {
        let mut result = None;
        let mut attempts = Attempts::new(MAX_ATTEMPTS);
        while attempts.next().await {
            let active = self.store.get_active_workout(&ctx.user_id).await;
            match active? {
                Some(a) if a.value.id == id => {
                    let now = Utc::now();
                    let done = workouts::completed(&a.value, now);
                    let routine = match (&a.value.routine_id, &a.value.template_id) {
                        (Some(rid), Some(tid)) => self
                            .store
                            .get_routine(&ctx.user_id, rid)
                            .await?
                            .map(|r| workouts::advance_routine(&r, tid)),
                        _ => None,
                    };
                    let ok = self
                        .store
                        .complete_workout(&ctx.user_id, &done, a.version, routine.as_ref())
                        .await;
                    if ok? {
                        result = Some((done, false));
                        break;
                    }
                }
                _ => {
                    let found = self.store.find_completed_workout(&ctx.user_id, id).await?;
                    match found {
                        Some(w) => {
                            result = Some((w, true));
                            break;
                        }
                        None => {
                            return Err(AppError::new(
                                ErrorCode::WorkoutNotFound,
                                format!("you have no workout '{id}'"),
                            ));
                        }
                    }
                }
            }
        }
        let Some((workout, already)) = result else {
            return Err(conflict());
        };
        let job = crate::queue::Job::WorkoutCompleted {
            user_id: ctx.user_id.clone(),
            workout_id: workout.id.clone(),
            revision: 0,
        };
        let delivery = self.queue.send(&job).await.map_err(|e| {
            tracing::error!(error = %e, "enqueue failed");
            AppError::new(ErrorCode::QueueUnavailable, "the workout is saved as completed, but its analysis could not be queued; retry to queue it again")
        })?;
        Ok(Completed {
            workout,
            already_completed: already,
            job: JobStatus::of(&delivery),
        })
    }
}

fn default_name(now: DateTime<Utc>, ctx: &SessionContext) -> String {
    format!("Workout {}", now.with_timezone(&ctx.tz).format("%-d %b"))
}

/// Which routine the lifter follows, if one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Followed {
    One(Routine),
    /// The profile names a routine that is gone (or has no days).
    Missing(String),
    NoRoutine,
    /// Several routines and none set active (their ids).
    Several(Vec<String>),
}
