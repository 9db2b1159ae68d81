//! The WORKER's work without I/O, over two years of push / pull / legs (the 5,000-row sample
//! export of `devstack strong-sample`: 313 workouts, 4,896 sets): the weekly review of the last
//! week, the post-workout card of the last workout, and reading the export itself. Baseline in
//! the same run: deserialising that history from its stored JSON, which every job does before
//! any analysis.
//!
//!     cargo bench -p coach --bench worker

#[path = "../../tools/devstack/src/strong.rs"]
#[allow(dead_code)]
mod sample;

use std::collections::HashSet;
use std::hint::black_box;

use chrono::{NaiveDate, Utc};
use coach::analysis::{card, review};
use coach::domain::profile::Profile;
use coach::domain::units::Unit;
use coach::domain::workout::Workout;
use coach::import::strong;
use criterion::{Criterion, criterion_group, criterion_main};

fn bench(c: &mut Criterion) {
    let last_day = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap_or_default();
    let csv = sample::sample(5000, last_day);
    let tz: chrono_tz::Tz = "Europe/Berlin".parse().unwrap_or(chrono_tz::UTC);
    let opts = strong::Options {
        tz,
        unit: Unit::Kg,
        now: Utc::now(),
        apps: &[strong::App::Strong],
    };
    let parsed = strong::parse(&csv, opts, &HashSet::new()).expect("the sample parses");
    let history = parsed.workouts;
    let sets: usize = history
        .iter()
        .flat_map(|w| &w.exercises)
        .map(|e| e.sets.len())
        .sum();
    assert_eq!((history.len(), sets), (313, 4896));
    let docs: Vec<String> = history
        .iter()
        .map(|w| serde_json::to_string(w).unwrap_or_default())
        .collect();
    let profile = Profile::default();
    let last = history.last().cloned().expect("a last workout");
    let week = review::iso_week_id(last.started_at.date_naive());

    let mut g = c.benchmark_group("worker");
    g.bench_function("weekly_review_2y", |b| {
        b.iter(|| {
            let r = review::weekly_review(
                black_box(&history),
                black_box(last_day),
                &profile,
                tz,
                Utc::now(),
            );
            assert_eq!(r.id, week);
            r
        })
    });
    g.bench_function("post_workout_card_2y", |b| {
        b.iter(|| {
            card::post_workout_card(
                black_box(&last),
                black_box(&history),
                &profile,
                tz,
                Utc::now(),
            )
        })
    });
    g.bench_function("import_parse_5000_rows", |b| {
        b.iter(|| strong::parse(black_box(&csv), opts, &HashSet::new()).map(|p| p.workouts.len()))
    });
    g.finish();

    c.bench_function("baseline/deserialise_history_2y", |b| {
        b.iter(|| {
            docs.iter()
                .map(|d| serde_json::from_str::<Workout>(black_box(d)).map(|w| w.exercises.len()))
                .collect::<Result<Vec<_>, _>>()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
