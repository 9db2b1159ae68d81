//! Reading the lifter's history: which sessions trained an exercise, newest first, and the
//! logged working sets in them.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::domain::strength::{Lift, effective_rir, is_working_result, set_e1rm};
use crate::domain::workout::{ExerciseInstance, Workout, WorkoutSet};

/// How far back strength estimates look.
pub const LOOKBACK_WEEKS: i64 = 8;

/// A logged working set with where it came from.
#[derive(Debug, Clone, Copy)]
pub struct LoggedSet<'a> {
    pub workout: &'a Workout,
    pub set: &'a WorkoutSet,
    pub lift: Lift,
}

impl LoggedSet<'_> {
    pub fn weight_kg(&self) -> Option<f64> {
        self.set.actual.as_ref()?.weight_kg
    }
    pub fn reps(&self) -> u32 {
        self.set.actual.as_ref().map_or(0, |a| a.reps)
    }
    pub fn rir(&self) -> Option<u32> {
        self.set.actual.as_ref().and_then(effective_rir)
    }
    /// The load moved (bodyweight work counts the bodyweight), when known.
    pub fn moved_kg(&self) -> Option<f64> {
        self.lift.moved_kg(self.weight_kg())
    }
    pub fn e1rm(&self) -> Option<f64> {
        set_e1rm(self.set, self.lift)
    }

    /// The basis entry the app shows ("where this number comes from").
    pub fn basis(&self) -> Basis {
        Basis {
            workout_id: self.workout.id.clone(),
            date: self.workout.started_at.date_naive().to_string(),
            weight_kg: self.weight_kg(),
            reps: self.reps(),
            rir: self.rir(),
            e1rm_kg: self.e1rm().map(crate::domain::strength::round1),
            bodyweight_kg: self
                .lift
                .bodyweight_kg
                .filter(|_| self.lift.loading.uses_bodyweight()),
        }
    }
}

/// A logged set a suggestion rests on, as the app shows it ("where this number comes from").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Basis {
    pub workout_id: String,
    /// The session's day, `YYYY-MM-DD`.
    pub date: String,
    pub weight_kg: Option<f64>,
    pub reps: u32,
    pub rir: Option<u32>,
    pub e1rm_kg: Option<f64>,
    /// The lifter's bodyweight, for exercises that move it.
    pub bodyweight_kg: Option<f64>,
}

/// The set with the highest estimated 1RM.
pub fn best_by_e1rm<'a>(sets: &[LoggedSet<'a>]) -> Option<LoggedSet<'a>> {
    sets.iter()
        .filter(|s| s.e1rm().is_some())
        .max_by(|a, b| a.e1rm().unwrap_or(0.0).total_cmp(&b.e1rm().unwrap_or(0.0)))
        .copied()
}

/// Sessions (newest first) since `since` in which `exercise_id` has at least one logged working
/// set, with that exercise's instances.
pub fn sessions_with<'a>(
    history: &'a [Workout],
    exercise_id: &'a str,
    since: DateTime<Utc>,
) -> Vec<(&'a Workout, Vec<&'a ExerciseInstance>)> {
    let mut out: Vec<(&Workout, Vec<&ExerciseInstance>)> = history
        .iter()
        .filter(|w| w.started_at >= since)
        .filter_map(|w| {
            let instances: Vec<&ExerciseInstance> = w
                .exercises
                .iter()
                .filter(|e| e.exercise_id == exercise_id && e.sets.iter().any(is_working_result))
                .collect();
            (!instances.is_empty()).then_some((w, instances))
        })
        .collect();
    out.sort_by_key(|(w, _)| std::cmp::Reverse(w.started_at));
    out
}

/// The logged working sets of one session's instances, in order.
pub fn working_sets<'a>(
    workout: &'a Workout,
    instances: &[&'a ExerciseInstance],
) -> Vec<LoggedSet<'a>> {
    instances
        .iter()
        .flat_map(|e| {
            let lift = Lift::in_workout(workout, &e.exercise_id);
            e.sets
                .iter()
                .filter(|s| is_working_result(s))
                .map(move |set| LoggedSet { workout, set, lift })
        })
        .collect()
}
