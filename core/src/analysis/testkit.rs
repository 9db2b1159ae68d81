//! Histories for tests, shared with the crates above (feature `testkit`).

use chrono::{DateTime, Duration, Utc};

use crate::domain::workout::{
    ExerciseInstance, SetResult, SetStatus, SetTarget, SetType, Workout, WorkoutSet, WorkoutStatus,
};

/// Midnight UTC of day `d` counted from Monday 2026-01-05 (day 0 is a Monday).
pub fn at_day(d: i64) -> DateTime<Utc> {
    let monday: DateTime<Utc> = "2026-01-05T00:00:00Z".parse().unwrap_or_default();
    monday + Duration::days(d)
}

/// A done working set: `kg` × `reps`, planned for `target` reps, at `rir` in reserve.
pub fn working(kg: f64, reps: u32, target: Option<u32>, rir: Option<u32>) -> WorkoutSet {
    WorkoutSet {
        id: "s".into(),
        set_type: SetType::Working,
        status: SetStatus::Done,
        target: SetTarget {
            reps: target,
            weight_kg: Some(kg),
            rir: None,
        },
        actual: Some(SetResult {
            reps,
            weight_kg: Some(kg),
            rir,
            rpe: None,
            failure: false,
            ..Default::default()
        }),
        completed_at: None,
    }
}

/// A completed workout at 18:00 UTC on day `d` with one exercise.
pub fn session(d: i64, exercise_id: &str, sets: &[WorkoutSet]) -> Workout {
    Workout {
        current_exercise: None,
        bodyweight_kg: None,
        id: format!("w{d}-{exercise_id}"),
        name: "Session".into(),
        status: WorkoutStatus::Completed,
        started_at: at_day(d) + Duration::hours(18),
        completed_at: None,
        template_id: None,
        routine_id: None,
        exercises: vec![ExerciseInstance {
            group: None,
            rest: None,
            instance_id: "i1".into(),
            exercise_id: exercise_id.into(),
            name: exercise_id.into(),
            sets: sets.to_vec(),
            notes: None,
            rep_range: None,
            primary_muscles: Vec::new(),
        }],
        changes: Vec::new(),
        notes: None,
    }
}
