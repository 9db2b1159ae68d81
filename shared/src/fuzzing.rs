//! The properties the fuzz targets check (`fuzz/`, run with cargo-fuzz), kept here so that the
//! corpus committed under `fuzz/corpus/` is replayed by `cargo test` on stable Rust: every input
//! the fuzzer found interesting, and every past finding, stays a regression test.
//!
//! Each check panics when a property breaks; a panic anywhere below is a finding.

use std::collections::{HashSet, VecDeque};

use chrono::{DateTime, Datelike, Utc};

use crate::context::{MAX_ID_CHARS, split_prefix};
use crate::domain::limits;
use crate::domain::units::Unit;
use crate::import::{csv, strong};
use crate::llm::{Event, SseFormat, StreamDecoder};
use crate::router::{self, Lane, command};
use crate::skills::copilot;

/// Every fuzz target, by the name of its folder under `fuzz/corpus/`.
/// A property check over one fuzz input.
pub type Check = fn(&[u8]);

pub(crate) const TARGETS: [(&str, Check); 7] = [
    ("prefix", prefix),
    ("route", route),
    ("strong_csv", strong_csv),
    ("gemini_stream", gemini_stream),
    ("openai_stream", openai_stream),
    ("model_error", model_error),
    ("analysis", analysis),
];

/// The context prefix: never panics; the rest is a part of the message; ids are bounded.
pub fn prefix(data: &[u8]) {
    let Ok(message) = std::str::from_utf8(data) else {
        return;
    };
    match split_prefix(message) {
        Ok((p, rest)) => {
            assert!(
                message.contains(rest),
                "the rest must be a part of the message"
            );
            assert_eq!(rest, rest.trim(), "the rest is trimmed");
            if p.present {
                assert!(message.trim_start().starts_with("(context:"));
            } else {
                assert_eq!(rest, message.trim());
            }
            for id in [p.conversation_id, p.user_id, p.corr, p.workout_id]
                .into_iter()
                .flatten()
            {
                assert!(!id.is_empty() && id.chars().count() <= MAX_ID_CHARS);
                assert!(!id.chars().any(char::is_whitespace));
            }
        }
        Err(e) => assert!(!e.0.is_empty(), "an error says what is wrong"),
    }
}

/// The router and the FAST command grammar: never panic; a command the copilot accepts carries
/// only values inside the limits; a FAST route is exactly a parsed command.
pub fn route(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = command::parse(text);
    match &parsed {
        Ok(Some((c, rule))) => {
            assert!(!rule.is_empty());
            for unit in [Unit::Kg, Unit::Lb] {
                if copilot::validate(c, unit).is_ok() {
                    check_command(c, unit);
                }
            }
        }
        Ok(None) => {}
        Err(e) => assert!(!e.message.is_empty(), "a near-miss says how to fix it"),
    }
    if let Ok(r) = router::route(text) {
        assert!(!r.matched_rule.is_empty());
        if r.lane == Lane::Fast && r.intent.is_some() && !text.trim_start().starts_with('{') {
            let c = r
                .command
                .as_ref()
                .expect("a FAST text route carries its command");
            assert_eq!(
                parsed.clone().ok().flatten().map(|(c, _)| c).as_ref(),
                Some(c)
            );
        }
    }
}

fn check_command(c: &command::Command, default_unit: Unit) {
    use command::{Command, Effort, Load};
    let Command::Log(entry) = c else {
        return;
    };
    // A valid command has at least one reading inside the limits; those are what is applied.
    let valid = entry
        .readings
        .iter()
        .filter(|r| copilot::validate_reading(r, default_unit).is_ok());
    for r in valid {
        assert!(r.sets >= 1 && r.sets <= command::MAX_SETS_AT_ONCE);
        if let Some(reps) = r.reps {
            assert!(reps <= limits::MAX_REPS, "reps {reps} over the limit");
        }
        if let Load::Weight { value, unit } | Load::Added { value, unit } = r.load {
            let kg = unit.unwrap_or(default_unit).to_kg(value);
            assert!(value.is_finite() && value >= 0.0 && kg <= limits::MAX_WEIGHT_KG);
        }
        match r.effort {
            Some(Effort::Rir(x)) => assert!(x <= limits::MAX_RIR),
            Some(Effort::Rpe(x)) => assert!((limits::MIN_RPE..=limits::MAX_RPE).contains(&x)),
            None => {}
        }
    }
}

/// The CSV reader and the Strong importer: never panic; what is imported respects the limits,
/// and the summary counts what the workouts hold.
pub fn strong_csv(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(records) = csv::records(text, csv::detect_delimiter(text), usize::MAX) {
        assert!(records.windows(2).all(|w| w[0].line < w[1].line));
        // A cap keeps the first records as they were and reads no further.
        let cap = records.len() / 2;
        let capped = csv::records(text, csv::detect_delimiter(text), cap);
        assert_eq!(capped.ok().as_deref(), Some(&records[..cap]));
    }
    let now = DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z")
        .map(|t| t.with_timezone(&Utc))
        .expect("a fixed date");
    let opts = strong::Options {
        tz: chrono_tz::Europe::Berlin,
        unit: Unit::Kg,
        now,
        apps: strong::ALL_APPS,
    };
    let Ok(parsed) = strong::parse(text, opts, &HashSet::new()) else {
        return;
    };
    let mut sets = 0;
    for w in &parsed.workouts {
        assert!(w.started_at <= now + chrono::Duration::hours(36));
        assert!(
            w.started_at.with_timezone(&opts.tz).year() >= strong::EARLIEST_YEAR,
            "a workout before {} was imported",
            strong::EARLIEST_YEAR
        );
        assert!(w.exercises.len() <= limits::MAX_EXERCISES_PER_WORKOUT);
        assert!(
            w.exercises.iter().map(|e| e.sets.len()).sum::<usize>() <= limits::MAX_SETS_PER_WORKOUT
        );
        assert!(
            serde_json::to_string(w).map_or(0, |d| d.len()) <= limits::MAX_WORKOUT_DOC_BYTES,
            "an imported workout must fit its item"
        );
        for e in &w.exercises {
            assert!(e.sets.len() <= limits::MAX_SETS_PER_EXERCISE);
            for s in &e.sets {
                sets += 1;
                let r = s.actual.as_ref().expect("an imported set has its result");
                assert!(r.reps > 0 || r.is_timed() || r.failure);
                assert!(r.reps <= limits::MAX_REPS);
                if let Some(kg) = r.weight_kg {
                    assert!(kg.is_finite() && (0.0..=limits::MAX_WEIGHT_KG).contains(&kg));
                }
            }
        }
    }
    assert_eq!(parsed.summary.sets, sets, "the summary counts the sets");
    assert_eq!(parsed.summary.workouts, parsed.workouts.len());
    assert!(parsed.weeks.windows(2).all(|w| w[0] < w[1]));
    assert!(
        parsed
            .workouts
            .windows(2)
            .all(|w| w[0].started_at <= w[1].started_at)
    );
}

/// The model-error property lives beside what it checks, in the ports.
pub use coach_ports::fuzzing::model_error;

/// A history built from the bytes (5 per set: day, exercise, load, reps, effort and kind;
/// loads of 0 and none, reps of 0, failure flags, warm-ups, bodyweight and unknown exercises
/// included).
#[expect(
    clippy::too_many_lines,
    reason = "a decoder of the fuzzer's bytes: each byte's meaning, in the order it is read"
)]
pub(crate) fn history_from(data: &[u8]) -> Vec<crate::domain::workout::Workout> {
    use crate::domain::workout::{
        ExerciseInstance, SetResult, SetStatus, SetTarget, SetType, Workout, WorkoutSet,
        WorkoutStatus,
    };
    const EXERCISES: [&str; 8] = [
        "barbell-bench-press",
        "back-squat",
        "deadlift",
        "pull-up",
        "push-up",
        "own-odd-thing",
        "weighted-dip",
        "assisted-pull-up",
    ];
    let start = DateTime::parse_from_rfc3339("2026-01-05T18:00:00Z")
        .map(|t| t.with_timezone(&Utc))
        .expect("a fixed date");
    let mut out: Vec<Workout> = Vec::new();
    let mut day = 0i64;
    for c in data.chunks_exact(5) {
        day += i64::from(c[0] % 8);
        let at = start + chrono::Duration::days(day);
        let exercise = EXERCISES[usize::from(c[1] % 8)];
        let weight = match c[2] {
            0 => None,
            w => Some(f64::from(w - 1) * 2.5),
        };
        let effort = c[4] % 16;
        let set = WorkoutSet {
            id: format!("s{}", out.len()),
            set_type: if c[1] >= 224 {
                SetType::Warmup
            } else {
                SetType::Working
            },
            status: SetStatus::Done,
            target: SetTarget {
                reps: (c[3] >= 128).then_some(u32::from(c[3] % 16)),
                weight_kg: weight,
                rir: None,
            },
            actual: Some(SetResult {
                reps: u32::from(c[3] % 32),
                weight_kg: weight,
                rir: (effort < 6).then_some(u32::from(effort)),
                rpe: (6..11).contains(&effort).then_some(f64::from(effort)),
                failure: effort == 15,
                ..Default::default()
            }),
            completed_at: Some(at),
        };
        let same_day = out.last_mut().filter(|w| w.started_at == at);
        let w = match same_day {
            Some(w) => w,
            None => {
                out.push(Workout {
                    current_exercise: None,
                    id: format!("w{day}"),
                    name: "Fuzz".into(),
                    status: WorkoutStatus::Completed,
                    started_at: at,
                    completed_at: Some(at + chrono::Duration::hours(1)),
                    template_id: None,
                    routine_id: None,
                    exercises: Vec::new(),
                    changes: Vec::new(),
                    notes: None,
                    // Sometimes known, sometimes not, sometimes a light lifter that the
                    // assistance outweighs.
                    bodyweight_kg: match c[0] % 3 {
                        0 => None,
                        1 => Some(40.0 + f64::from(c[3] % 64)),
                        _ => Some(f64::from(c[4] % 8) + 1.0),
                    },
                });
                let Some(w) = out.last_mut() else { return out };
                w
            }
        };
        match w.exercises.iter_mut().find(|e| e.exercise_id == exercise) {
            Some(e) => e.sets.push(set),
            None => w.exercises.push(ExerciseInstance {
                group: None,
                rest: None,
                instance_id: format!("i{}", w.exercises.len()),
                exercise_id: exercise.into(),
                name: exercise.into(),
                sets: vec![set],
                notes: None,
                rep_range: None,
                primary_muscles: Vec::new(),
            }),
        }
    }
    out
}

/// A number in the output that is not a number.
fn not_finite(debug: &str) -> bool {
    debug
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|t| t == "NaN" || t == "inf")
}

/// The analysis over any history: never panics, and no NaN or infinity in any figure or text of
/// the flags, the readiness, the card (pounds and kilograms), the review, the records, the
/// series and trends, or a prescription.
pub fn analysis(data: &[u8]) {
    use crate::analysis::{self, progression, series, session};
    use crate::domain::profile::Profile;
    let history = history_from(data);
    let Some(last) = history.last() else { return };
    let tz = chrono_tz::UTC;
    let now = last.started_at + chrono::Duration::hours(2);
    let mut seen = vec![format!("{:?}", analysis::flags(&history, now, tz))];
    seen.push(format!("{:?}", analysis::load::consistency(&history, now)));
    for (id, pts) in series::weekly_series(&history, tz) {
        seen.push(format!(
            "{:?} {:?}",
            series::plateau(&pts),
            series::trend(&pts, true)
        ));
        let p = Profile::default();
        let ex = crate::domain::catalog::catalog().get(&id);
        if let Some(t) = progression::RepTarget::from_history(&history, &id, 2) {
            seen.push(format!(
                "{:?}",
                progression::prescribe(&history, &id, ex, t, &p, now)
            ));
        }
    }
    for (i, w) in history.iter().enumerate() {
        seen.push(format!("{:?}", session::personal_records(w, &history[..i])));
    }
    for unit in [Unit::Kg, Unit::Lb] {
        let profile = Profile {
            unit,
            ..Profile::default()
        };
        let card = analysis::card::post_workout_card(last, &history, &profile, tz, now);
        seen.push(format!("{card:?}"));
        let day = last.started_at.date_naive();
        let review = analysis::review::weekly_review(&history, day, &profile, tz, now);
        seen.push(format!("{review:?}"));
    }
    for s in &seen {
        assert!(!not_finite(s), "a figure is not a number: {s}");
    }
}

pub fn gemini_stream(data: &[u8]) {
    model_stream(SseFormat::Gemini, data);
}

pub fn openai_stream(data: &[u8]) {
    model_stream(SseFormat::OpenAi, data);
}

/// A model's response body: never panics; tool-call arguments are objects; and the events do
/// not depend on how the network split the body. The first byte picks the split points.
fn model_stream(format: SseFormat, data: &[u8]) {
    let Some((&seed, body)) = data.split_first() else {
        return;
    };
    let whole = decode(format, &[body]);
    let step = usize::from(seed % 7) + 1;
    let chunks: Vec<&[u8]> = body.chunks(step).collect();
    let split = decode(format, &chunks);
    assert_eq!(
        whole, split,
        "events depend on the split (chunks of {step})"
    );
    for e in &whole.0 {
        if let Event::ToolCall(c) = e {
            assert!(c.args.is_object(), "tool arguments are always an object");
            assert!(!c.id.is_empty() && !c.name.is_empty());
        }
    }
}

/// The events (as text, to compare) and the error of decoding a body fed in these chunks.
fn decode(format: SseFormat, chunks: &[&[u8]]) -> (Vec<Event>, Option<String>, String) {
    let mut d = StreamDecoder::new(format);
    let mut out = VecDeque::new();
    let mut result = Ok(());
    for c in chunks {
        result = d.push(c, &mut out);
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() {
        result = d.finish(&mut out);
    }
    let error = result.err().map(|e| format!("{:?}: {}", e.kind, e.message));
    (out.into(), error, format!("{:?}", d.turn()))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// Every committed corpus input (and every past finding under `fuzz/regressions/`) still
    /// holds its target's properties.
    #[test]
    fn committed_corpus_replays_clean() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
        let mut replayed = 0;
        for (name, check) in TARGETS {
            for dir in ["corpus", "regressions"] {
                let Ok(entries) = std::fs::read_dir(root.join(dir).join(name)) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let data = std::fs::read(entry.path()).expect("a corpus file is readable");
                    let outcome = std::panic::catch_unwind(|| check(&data));
                    assert!(outcome.is_ok(), "{name}: {} fails", entry.path().display());
                    replayed += 1;
                }
            }
        }
        // The corpus is committed: an empty replay means it went missing.
        assert!(replayed >= 50, "only {replayed} corpus inputs found");
    }

    /// The analysis property over 300 random histories (a fixed seed: the same every run).
    #[test]
    fn analysis_never_gives_nan() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for n in 0..300 {
            let len = 5 * (1 + n % 120);
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    // xorshift64
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            analysis(&data);
        }
    }
}
