//! The FUNCTIONAL skills without I/O: swap ranking over the whole catalog, suggest-weight over
//! 8 weeks of history, and the monitor's rules after a set. Baseline in the same run: the
//! original's swap search, a plain filter of the catalog by muscle group and equipment with no
//! ranking (`original-behaviour.md` §3.2).
//!
//!     cargo bench -p coach --bench functional

use std::collections::HashMap;
use std::hint::black_box;

use chrono::{Duration, Utc};
use coach::domain::catalog::{Equipment, MuscleGroup, catalog};
use coach::domain::profile::Profile;
use coach::domain::units::Unit;
use coach::domain::workout::{
    ExerciseInstance, SetResult, SetStatus, SetTarget, SetType, Workout, WorkoutSet, WorkoutStatus,
};
use coach::skills::{monitor, suggest, swap};
use criterion::{Criterion, criterion_group, criterion_main};

const EXERCISES: [&str; 5] = [
    "barbell-bench-press",
    "overhead-press",
    "incline-dumbbell-press",
    "lateral-raise",
    "triceps-pushdown",
];

fn set(kg: f64, reps: u32, rir: u32, at: chrono::DateTime<Utc>) -> WorkoutSet {
    let mut s = WorkoutSet::planned(
        "s",
        SetType::Working,
        SetTarget {
            reps: Some(8),
            weight_kg: Some(kg),
            rir: Some(2),
        },
    );
    s.status = SetStatus::Done;
    s.actual = Some(SetResult {
        reps,
        weight_kg: Some(kg),
        rir: Some(rir),
        rpe: None,
        failure: false,
        ..Default::default()
    });
    s.completed_at = Some(at);
    s
}

/// 8 weeks × 3 sessions × 5 exercises × 3 sets, like the demo user.
fn history() -> Vec<Workout> {
    let now = Utc::now();
    (0..24)
        .map(|i| {
            let start = now - Duration::days(56 - i * 2);
            Workout {
                current_exercise: None,
                bodyweight_kg: None,
                id: format!("h{i}"),
                name: "Push".into(),
                status: WorkoutStatus::Completed,
                started_at: start,
                completed_at: Some(start + Duration::hours(1)),
                template_id: None,
                routine_id: None,
                exercises: EXERCISES
                    .iter()
                    .enumerate()
                    .map(|(e, id)| ExerciseInstance {
                        group: None,
                        rest: None,
                        instance_id: format!("e{e}"),
                        exercise_id: id.to_string(),
                        name: id.to_string(),
                        sets: (0..3)
                            .map(|k| {
                                set(
                                    80.0 + i as f64,
                                    8,
                                    2,
                                    start + Duration::minutes(e as i64 * 10 + k * 3),
                                )
                            })
                            .collect(),
                        notes: None,
                        rep_range: None,
                        primary_muscles: Vec::new(),
                    })
                    .collect(),
                changes: vec![],
                notes: None,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let cat = catalog();
    let bench_press = cat.get("barbell-bench-press").expect("in the catalog");
    let profile = Profile::default();
    let history = history();
    let familiar: HashMap<String, usize> = EXERCISES.iter().map(|e| (e.to_string(), 24)).collect();
    let now = Utc::now();

    let machine = swap::parse_constraint("machine");
    c.bench_function("functional/swap_rank_catalog", |b| {
        b.iter(|| {
            let q = swap::SwapQuery {
                constraint: black_box(machine),
                ..swap::SwapQuery::default()
            };
            swap::rank(black_box(bench_press), cat.all(), &q, &profile, &familiar).len()
        })
    });
    c.bench_function("baseline/swap_catalog_filter", |b| {
        b.iter(|| {
            cat.all()
                .iter()
                .filter(|e| e.muscle_group == black_box(MuscleGroup::Chest))
                .filter(|e| e.equipment == black_box(Equipment::Machine))
                .take(10)
                .count()
        })
    });
    c.bench_function("functional/suggest_weight_8_weeks", |b| {
        b.iter(|| {
            suggest::suggest_weight(
                black_box("barbell-bench-press"),
                Some(bench_press),
                8,
                2,
                &history,
                &profile,
                now,
            )
            .weight_kg
        })
    });
    let mut active = history[23].clone();
    active.status = WorkoutStatus::Active;
    active.exercises[0].sets[2] = set(120.0, 8, 2, now);
    c.bench_function("functional/monitor_rules", |b| {
        b.iter(|| {
            monitor::evaluate(
                black_box(&active),
                None,
                &history,
                Default::default(),
                Unit::Kg,
                |_| 2.5,
            )
            .len()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
