//! The demo user: a 3-day push/pull/legs routine with its templates, 8 weeks of plausible history
//! (three sessions a week, steady progression, a bad day now and then) and an active Push workout.
//! Deterministic ids; re-running replaces the demo's data instead of adding to it.

use chrono::{DateTime, Datelike, Duration, NaiveTime, Utc};
use coach::domain::coaching::{CoachingContext, Goals, Phase};
use coach::domain::plan::{Routine, RoutineDay, Template, TemplateExercise, TemplateSet};
use coach::domain::profile::{Experience, Profile, QuietHours};
use coach::domain::units::{Unit, round_to_step};
use coach::domain::workout::{
    ExerciseInstance, SetResult, SetStatus, SetTarget, SetType, Workout, WorkoutSet, WorkoutStatus,
};
use coach::store::{Store, StoreError};

pub const DEMO_USER: &str = "demo";
const WEEKS: i64 = 8;

/// (exercise id, name, sets, rep range, starting kg 8 weeks ago, weekly increase kg)
type Slot = (&'static str, &'static str, u32, (u32, u32), f64, f64);

const DAYS: [(&str, &str, [Slot; 5]); 3] = [
    (
        "push",
        "Push",
        [
            ("barbell-bench-press", "Bench Press", 3, (5, 8), 85.0, 1.25),
            ("overhead-press", "Overhead Press", 3, (6, 10), 50.0, 0.625),
            (
                "incline-dumbbell-press",
                "Incline Dumbbell Press",
                3,
                (8, 12),
                28.0,
                0.5,
            ),
            ("lateral-raise", "Lateral Raise", 3, (12, 15), 10.0, 0.25),
            (
                "triceps-pushdown",
                "Triceps Pushdown",
                3,
                (10, 15),
                30.0,
                0.625,
            ),
        ],
    ),
    (
        "pull",
        "Pull",
        [
            ("deadlift", "Deadlift", 3, (3, 5), 150.0, 2.5),
            ("pull-up", "Pull-Up", 3, (6, 10), 0.0, 0.0),
            ("barbell-row", "Barbell Row", 3, (6, 10), 75.0, 1.25),
            ("face-pull", "Face Pull", 3, (12, 15), 20.0, 0.625),
            ("dumbbell-curl", "Dumbbell Curl", 3, (10, 12), 14.0, 0.25),
        ],
    ),
    (
        "legs",
        "Legs",
        [
            ("back-squat", "Squat", 3, (5, 8), 115.0, 2.5),
            (
                "romanian-deadlift",
                "Romanian Deadlift",
                3,
                (8, 10),
                100.0,
                1.25,
            ),
            ("leg-press", "Leg Press", 3, (10, 12), 180.0, 5.0),
            ("lying-leg-curl", "Lying Leg Curl", 3, (10, 12), 45.0, 0.625),
            (
                "standing-calf-raise",
                "Standing Calf Raise",
                3,
                (10, 15),
                80.0,
                1.25,
            ),
        ],
    ),
];

fn step_for(id: &str) -> f64 {
    match id {
        "incline-dumbbell-press" | "lateral-raise" | "dumbbell-curl" => 2.0,
        "triceps-pushdown"
        | "face-pull"
        | "leg-press"
        | "lying-leg-curl"
        | "standing-calf-raise" => 5.0,
        _ => 2.5,
    }
}

fn weight_at(slot: &Slot, week: i64) -> Option<f64> {
    (slot.4 > 0.0).then(|| round_to_step(slot.4 + slot.5 * week as f64, step_for(slot.0)))
}

pub fn templates() -> Vec<Template> {
    DAYS.iter()
        .map(|(id, name, slots)| Template {
            id: format!("demo-{id}"),
            name: (*name).to_string(),
            exercises: slots
                .iter()
                .map(|s| TemplateExercise {
                    group: None,
                    rest_seconds: None,
                    exercise_id: s.0.into(),
                    name: s.1.into(),
                    sets: (0..s.2)
                        .map(|_| TemplateSet {
                            set_type: SetType::Working,
                            target: SetTarget {
                                reps: Some(s.3.0),
                                weight_kg: weight_at(s, WEEKS),
                                rir: Some(2),
                            },
                        })
                        .collect(),
                    rep_range: Some(s.3),
                })
                .collect(),
        })
        .collect()
}

pub fn routine() -> Routine {
    Routine {
        id: "demo-ppl".into(),
        name: "Push Pull Legs (3 days)".into(),
        days: DAYS
            .iter()
            .map(|(id, name, _)| RoutineDay {
                label: (*name).into(),
                template_id: format!("demo-{id}"),
            })
            .collect(),
        next_day: 0,
    }
}

/// Small deterministic noise so the history is not a straight line.
fn wobble(week: i64, day: usize, ex: usize, set: u32) -> i64 {
    ((week * 7 + day as i64 * 3 + ex as i64 * 5 + set as i64 * 11) % 5) - 2
}

pub fn history(now: DateTime<Utc>) -> Vec<Workout> {
    let monday = (now - Duration::days(now.weekday().num_days_from_monday() as i64)).date_naive();
    let mut out = Vec::new();
    for week in 0..WEEKS {
        for (d, (day_id, day_name, slots)) in DAYS.iter().enumerate() {
            let date = monday - Duration::weeks(WEEKS - week) + Duration::days(d as i64 * 2);
            let Some(started) = date.and_hms_opt(17, 30, 0).map(|t| t.and_utc()) else {
                continue;
            };
            let exercises = slots
                .iter()
                .enumerate()
                .map(|(e, s)| ExerciseInstance {
                    group: None,
                    rest: None,
                    instance_id: format!("h{week}-{day_id}-{e}"),
                    exercise_id: s.0.into(),
                    name: s.1.into(),
                    sets: (0..s.2)
                        .map(|n| {
                            let w = wobble(week, d, e, n);
                            let reps = (s.3.1 as i64 - 1 + w.min(1) - i64::from(n))
                                .clamp(s.3.0 as i64 - 1, s.3.1 as i64)
                                as u32;
                            let weight = weight_at(s, week);
                            WorkoutSet {
                                id: format!("h{week}-{day_id}-{e}-{n}"),
                                set_type: SetType::Working,
                                status: SetStatus::Done,
                                target: SetTarget {
                                    reps: Some(s.3.0),
                                    weight_kg: weight,
                                    rir: Some(2),
                                },
                                actual: Some(SetResult {
                                    reps,
                                    weight_kg: weight,
                                    rir: Some((2 + w.signum()).max(0) as u32),
                                    rpe: None,
                                    failure: false,
                                    ..Default::default()
                                }),
                                completed_at: Some(
                                    started + Duration::minutes(5 + 4 * (e as i64 * 3 + n as i64)),
                                ),
                            }
                        })
                        .collect(),
                    notes: None,
                    rep_range: None,
                    primary_muscles: Vec::new(),
                })
                .collect();
            out.push(Workout {
                current_exercise: None,
                bodyweight_kg: profile().bodyweight_kg,
                id: format!("demo-h{week}-{day_id}"),
                name: (*day_name).into(),
                status: WorkoutStatus::Completed,
                started_at: started,
                completed_at: Some(started + Duration::minutes(70)),
                template_id: Some(format!("demo-{day_id}")),
                routine_id: Some("demo-ppl".into()),
                exercises,
                changes: Vec::new(),
                notes: None,
            });
        }
    }
    out
}

/// Today's Push workout, planned from the templates, with warm-ups on the bench press.
pub fn active_workout(now: DateTime<Utc>) -> Workout {
    let push = &templates()[0];
    let exercises = push
        .exercises
        .iter()
        .enumerate()
        .map(|(e, ex)| {
            let mut sets = Vec::new();
            if e == 0 {
                for (i, (pct, reps)) in [(0.5, 10), (0.7, 5)].into_iter().enumerate() {
                    let kg = ex.sets[0]
                        .target
                        .weight_kg
                        .map(|w| round_to_step(w * pct, 2.5));
                    sets.push(WorkoutSet::planned(
                        format!("demo-a{e}-w{i}"),
                        SetType::Warmup,
                        SetTarget {
                            reps: Some(reps),
                            weight_kg: kg,
                            rir: Some(5),
                        },
                    ));
                }
            }
            for (n, s) in ex.sets.iter().enumerate() {
                sets.push(WorkoutSet::planned(
                    format!("demo-a{e}-s{n}"),
                    SetType::Working,
                    s.target.clone(),
                ));
            }
            ExerciseInstance {
                group: None,
                rest: None,
                instance_id: format!("demo-a{e}"),
                exercise_id: ex.exercise_id.clone(),
                name: ex.name.clone(),
                sets,
                notes: None,
                rep_range: None,
                primary_muscles: Vec::new(),
            }
        })
        .collect();
    Workout {
        current_exercise: None,
        bodyweight_kg: None,
        id: "demo-active".into(),
        name: "Push".into(),
        status: WorkoutStatus::Active,
        started_at: now,
        completed_at: None,
        template_id: Some(push.id.clone()),
        routine_id: Some("demo-ppl".into()),
        exercises,
        changes: Vec::new(),
        notes: None,
    }
}

pub fn profile() -> Profile {
    Profile {
        display_name: Some("Demo Lifter".into()),
        unit: Unit::Kg,
        timezone: "Europe/Stockholm".into(),
        experience: Experience::Intermediate,
        bodyweight_kg: Some(82.0),
        goals: vec!["strength".into(), "hypertrophy".into()],
        active_routine_id: Some("demo-ppl".into()),
        quiet_hours: Some(QuietHours {
            start: NaiveTime::from_hms_opt(22, 0, 0).unwrap_or_default(),
            end: NaiveTime::from_hms_opt(7, 0, 0).unwrap_or_default(),
        }),
        ..Profile::default()
    }
}

/// Past intake and goals, in the check-in phase, with no check-in yet: opening the app asks one.
pub fn coaching() -> CoachingContext {
    CoachingContext {
        phase: Phase::Checkins,
        goals: Goals {
            objectives: vec!["bench 100 kg for 5".into(), "squat twice bodyweight".into()],
            timeline: Some("6 months".into()),
            current_cycle: Some("lean bulk".into()),
            active_focus: Some("upper-body strength".into()),
        },
        ..CoachingContext::default()
    }
}

/// Loads (or reloads) the demo user. Returns the number of history workouts stored.
pub async fn load(store: &Store, now: DateTime<Utc>) -> Result<usize, StoreError> {
    load_for(store, DEMO_USER, now).await
}

/// Loads the demo data for any user id (latency runs use a fresh one each time).
pub async fn load_for(store: &Store, user: &str, now: DateTime<Utc>) -> Result<usize, StoreError> {
    store.put_profile(user, &profile()).await?;
    store.put_coaching(user, &coaching()).await?;
    for t in templates() {
        store.put_template(user, &t).await?;
    }
    store.put_routine(user, &routine()).await?;
    // History keys carry the date, which moves with `now`: clear the old demo history first.
    store.delete_completed_workouts(user).await?;
    let history = history(now);
    for w in &history {
        store.put_completed_workout(user, w).await?;
    }
    store
        .replace_active_workout(user, &active_workout(now))
        .await?;
    Ok(history.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_data_is_valid_and_plausible() {
        let now = Utc::now();
        let h = history(now);
        assert_eq!(h.len(), 24);
        for w in &h {
            w.validate().unwrap();
            assert!(w.started_at < now);
        }
        for t in templates() {
            t.validate().unwrap();
            for ex in &t.exercises {
                assert!(
                    coach::domain::catalog::catalog()
                        .get(&ex.exercise_id)
                        .is_some(),
                    "{}",
                    ex.exercise_id
                );
            }
        }
        routine().validate().unwrap();
        let a = active_workout(now);
        a.validate().unwrap();
        let first = a.current_set().unwrap();
        assert_eq!((first.exercise, first.number, first.total), (0, 1, 3));
    }
}
