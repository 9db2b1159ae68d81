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
use crate::llm::{Event, Provider, StreamDecoder, retry};
use crate::router::{self, Lane, command};
use crate::skills::copilot;

/// Every fuzz target, by the name of its folder under `fuzz/corpus/`.
/// A property check over one fuzz input.
pub type Check = fn(&[u8]);

pub const TARGETS: [(&str, Check); 6] = [
    ("prefix", prefix),
    ("route", route),
    ("strong_csv", strong_csv),
    ("gemini_stream", gemini_stream),
    ("openai_stream", openai_stream),
    ("model_error", model_error),
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
        Err(e) => assert!(!e.0.is_empty(), "a near-miss says how to fix it"),
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
    use command::{Command, Effort};
    let effort = match c {
        Command::LogShorthand {
            reps,
            weight,
            unit,
            effort,
        } => {
            let kg = unit.unwrap_or(default_unit).to_kg(*weight);
            assert!(*reps <= limits::MAX_REPS, "reps {reps} over the limit");
            assert!(weight.is_finite() && *weight >= 0.0 && kg <= limits::MAX_WEIGHT_KG);
            effort
        }
        Command::LogReps { reps, effort } => {
            assert!(*reps <= limits::MAX_REPS, "reps {reps} over the limit");
            effort
        }
        _ => &None,
    };
    match effort {
        Some(Effort::Rir(r)) => assert!(*r <= limits::MAX_RIR),
        Some(Effort::Rpe(r)) => assert!((limits::MIN_RPE..=limits::MAX_RPE).contains(r)),
        None => {}
    }
}

/// The CSV reader and the Strong importer: never panic; what is imported respects the limits,
/// and the summary counts what the workouts hold.
pub fn strong_csv(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(records) = csv::records(text, csv::detect_delimiter(text)) {
        assert!(records.windows(2).all(|w| w[0].line < w[1].line));
    }
    let now = DateTime::parse_from_rfc3339("2026-11-22T12:00:00Z")
        .map(|t| t.with_timezone(&Utc))
        .expect("a fixed date");
    let opts = strong::Options {
        tz: chrono_tz::Europe::Berlin,
        unit: Unit::Kg,
        now,
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

/// A model server's error answer (status, one wait header, body): never panics, whatever the
/// hint says (`inf`, `1e300`, negative); a hint is at most just over the longest wait we take,
/// and the wait chosen always fits in the time left.
pub fn model_error(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(rest) = std::str::from_utf8(rest) else {
        return;
    };
    let status = [400, 408, 429, 500, 503][usize::from(selector % 5)];
    let name = ["retry-after", "retry-after-ms"][usize::from(selector / 5 % 2)];
    let (value, body) = rest.split_once('\n').unwrap_or((rest, ""));
    let mut headers = reqwest::header::HeaderMap::new();
    if let Ok(v) = reqwest::header::HeaderValue::from_str(value) {
        headers.insert(name, v);
    }
    let err = retry::from_status(status, &headers, body);
    if let Some(hint) = err.retry_after {
        assert!(hint <= retry::MAX_HINT + std::time::Duration::from_secs(1));
    }
    for remaining in [0, 1_000, 60_000, 900_000] {
        let remaining = std::time::Duration::from_millis(remaining);
        for attempt in 0..=retry::MAX_ATTEMPTS {
            if let Some(wait) = retry::delay_before_retry(&err, attempt, remaining) {
                assert!(wait < remaining, "a wait past the deadline");
            }
        }
    }
}

pub fn gemini_stream(data: &[u8]) {
    model_stream(Provider::Gemini, data);
}

pub fn openai_stream(data: &[u8]) {
    model_stream(Provider::OpenAi, data);
}

/// A model's response body: never panics; tool-call arguments are objects; and the events do
/// not depend on how the network split the body. The first byte picks the split points.
fn model_stream(provider: Provider, data: &[u8]) {
    let Some((&seed, body)) = data.split_first() else {
        return;
    };
    let whole = decode(provider, &[body]);
    let step = usize::from(seed % 7) + 1;
    let chunks: Vec<&[u8]> = body.chunks(step).collect();
    let split = decode(provider, &chunks);
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
fn decode(provider: Provider, chunks: &[&[u8]]) -> (Vec<Event>, Option<String>, String) {
    let mut d = StreamDecoder::new(provider);
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
}
