//! `devstack strong-sample`: a synthetic Strong export (current layout) of a given number of
//! rows, deterministic, for the import benchmark and tests: push / pull / legs three times a
//! week, 16 rows a session, with warm-ups, drop and failure sets, a timed plank, a carry,
//! rest-timer rows, empty and filled RPE, and quoted multi-line notes. Loads rise 2.5 kg every
//! four weeks with a lighter week every eighth.
//!
//! `devstack import-strong`: the operator's import, the same code as `POST /v1/import/strong`.

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime};

const HEADER: &str = "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE";
pub const ROWS_PER_SESSION: usize = 16;

/// (exercise, set order, weight as a share of the lift's working weight, reps, distance km,
/// seconds)
type Line = (&'static str, &'static str, f64, u32, f64, u32);

const PUSH: [Line; ROWS_PER_SESSION] = [
    ("Bench Press (Barbell)", "W", 0.5, 10, 0.0, 0),
    ("Bench Press (Barbell)", "W", 0.75, 5, 0.0, 0),
    ("Bench Press (Barbell)", "1", 1.0, 8, 0.0, 0),
    ("Bench Press (Barbell)", "2", 1.0, 8, 0.0, 0),
    ("Bench Press (Barbell)", "3", 1.0, 7, 0.0, 0),
    ("Bench Press (Barbell)", "F", 0.9, 6, 0.0, 0),
    ("Overhead Press (Barbell)", "1", 0.65, 8, 0.0, 0),
    ("Overhead Press (Barbell)", "2", 0.65, 8, 0.0, 0),
    ("Overhead Press (Barbell)", "3", 0.65, 7, 0.0, 0),
    ("Incline Bench Press (Dumbbell)", "1", 0.3, 10, 0.0, 0),
    ("Incline Bench Press (Dumbbell)", "2", 0.3, 10, 0.0, 0),
    (
        "Triceps Pushdown (Cable - Straight Bar)",
        "1",
        0.35,
        12,
        0.0,
        0,
    ),
    (
        "Triceps Pushdown (Cable - Straight Bar)",
        "D",
        0.25,
        12,
        0.0,
        0,
    ),
    ("Lateral Raise (Dumbbell)", "1", 0.1, 15, 0.0, 0),
    ("Plank", "1", 0.0, 0, 0.0, 60),
    ("Rest Timer", "Rest Timer", 0.0, 0, 0.0, 90),
];
const PULL: [Line; ROWS_PER_SESSION] = [
    ("Deadlift (Barbell)", "W", 0.6, 5, 0.0, 0),
    ("Deadlift (Barbell)", "1", 1.4, 5, 0.0, 0),
    ("Deadlift (Barbell)", "2", 1.4, 5, 0.0, 0),
    ("Deadlift (Barbell)", "3", 1.4, 5, 0.0, 0),
    ("Pull Up", "1", 0.0, 8, 0.0, 0),
    ("Pull Up", "2", 0.0, 8, 0.0, 0),
    ("Pull Up", "3", 0.0, 6, 0.0, 0),
    ("Bent Over Row (Barbell)", "1", 0.8, 8, 0.0, 0),
    ("Bent Over Row (Barbell)", "2", 0.8, 8, 0.0, 0),
    ("Bent Over Row (Barbell)", "3", 0.8, 8, 0.0, 0),
    ("Bicep Curl (Dumbbell)", "1", 0.15, 10, 0.0, 0),
    ("Bicep Curl (Dumbbell)", "2", 0.15, 10, 0.0, 0),
    ("Bicep Curl (Dumbbell)", "D", 0.1, 12, 0.0, 0),
    ("Face Pull (Cable)", "1", 0.25, 15, 0.0, 0),
    ("Face Pull (Cable)", "2", 0.25, 15, 0.0, 0),
    ("Farmer's Walk", "1", 0.4, 0, 0.04, 0),
];
const LEGS: [Line; ROWS_PER_SESSION] = [
    ("Squat (Barbell)", "W", 0.5, 8, 0.0, 0),
    ("Squat (Barbell)", "W", 0.75, 4, 0.0, 0),
    ("Squat (Barbell)", "1", 1.25, 5, 0.0, 0),
    ("Squat (Barbell)", "2", 1.25, 5, 0.0, 0),
    ("Squat (Barbell)", "3", 1.25, 5, 0.0, 0),
    ("Squat (Barbell)", "4", 1.25, 5, 0.0, 0),
    ("Romanian Deadlift (Barbell)", "1", 1.0, 8, 0.0, 0),
    ("Romanian Deadlift (Barbell)", "2", 1.0, 8, 0.0, 0),
    ("Romanian Deadlift (Barbell)", "3", 1.0, 8, 0.0, 0),
    ("Leg Press", "1", 2.0, 10, 0.0, 0),
    ("Leg Press", "2", 2.0, 10, 0.0, 0),
    ("Leg Press", "3", 2.0, 10, 0.0, 0),
    ("Lying Leg Curl (Machine)", "1", 0.4, 12, 0.0, 0),
    ("Lying Leg Curl (Machine)", "2", 0.4, 12, 0.0, 0),
    ("Standing Calf Raise (Machine)", "1", 0.8, 15, 0.0, 0),
    ("Standing Calf Raise (Machine)", "2", 0.8, 15, 0.0, 0),
];

fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

/// `rows` rows of export whose last session is on or before `last_day`.
pub fn sample(rows: usize, last_day: NaiveDate) -> String {
    let sessions = rows.div_ceil(ROWS_PER_SESSION);
    // Sessions on Monday (push), Wednesday (pull) and Friday (legs), counted back from the
    // last Friday on or before `last_day`.
    let back = (last_day.weekday().num_days_from_monday() + 7 - 4) % 7;
    let friday = last_day - Duration::days(i64::from(back));
    let weeks = sessions.div_ceil(3) as i64;
    let first_monday = friday - Duration::days(4) - Duration::weeks(weeks - 1);
    let mut out = String::with_capacity(rows * 110);
    out.push_str(HEADER);
    out.push('\n');
    let mut written = 0;
    for i in 0..sessions {
        let week = (i / 3) as i64;
        let (name, lines, day, hour) = match i % 3 {
            0 => ("Push", &PUSH, 0, 18),
            1 => ("Pull", &PULL, 2, 18),
            _ => ("Legs", &LEGS, 4, 10),
        };
        let date = first_monday + Duration::weeks(week) + Duration::days(day);
        let start = NaiveDateTime::new(
            date,
            chrono::NaiveTime::from_hms_opt(hour, (i % 4) as u32 * 5, 0).unwrap_or_default(),
        );
        // 2.5 kg every four weeks from 60 kg, a lighter week every eighth.
        let mut base = 60.0 + 2.5 * (week / 4) as f64;
        if week % 8 == 7 {
            base *= 0.9;
        }
        let minutes = 50 + (i % 25);
        let duration = if minutes >= 60 {
            format!("{}h {}m", minutes / 60, minutes % 60)
        } else {
            format!("{minutes}m")
        };
        let workout_notes = if i % 7 == 0 {
            "Slept well, good session"
        } else {
            ""
        };
        for (k, (exercise, order, share, reps, km, secs)) in lines.iter().enumerate() {
            if written == rows {
                break;
            }
            let weight = (base * share / 2.5).round() * 2.5;
            let rpe = if order.parse::<u32>().is_ok() && (i + k) % 2 == 0 {
                "8"
            } else {
                ""
            };
            let notes = if k == 2 && i % 10 == 0 {
                "Felt heavy, \"grindy\" lockout\nbelt on"
            } else {
                ""
            };
            out.push_str(&format!(
                "{},{},{duration},{},{order},{weight},{reps},{km},{secs},{},{},{rpe}\n",
                start.format("%Y-%m-%d %H:%M:%S"),
                quoted(name),
                quoted(exercise),
                quoted(notes),
                quoted(workout_notes),
            ));
            written += 1;
        }
    }
    out
}
