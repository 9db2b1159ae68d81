//! An app's CSV export read into completed workouts: Strong's (the route `POST
//! /v1/import/strong`), and Hevy's and FitNotes' (the coaching benchmark reads every real export
//! it has). Pure: the caller reads what the user already has and writes the result.
//!
//! Layouts, found by their header (`header.rs`; column order does not matter):
//! - Strong, current: `Date, Workout Name, Duration, Exercise Name, Set Order, Weight, Reps,
//!   Distance, Seconds, Notes, Workout Notes, RPE`, weights in the unit the caller says (kg by
//!   default); in English, German, Spanish or Chinese;
//! - Strong, older: adds `Weight Unit` and `Distance Unit` per row and names the duration
//!   `Workout Duration`; often semicolon delimited with decimal commas; or the semicolon layout
//!   whose header names the unit (`Weight (kg)`);
//! - Hevy: `title, start_time, end_time, exercise_title, set_type, weight_kg` (or `weight_lbs`),
//!   `reps, duration_seconds, rpe`;
//! - FitNotes: `Date, Exercise, Category, Weight, Weight Unit, Reps, …, Time, Comment`, one
//!   workout a day.
//!
//! Rows: Strong's `Set Order` is a number (working set), `W` (warm-up), `D` (drop set) or `F` (a
//! working set to failure), Hevy's `set_type` says the same; "Rest Timer" rows are not sets and
//! are counted, not imported. A row with 0 reps and a time or distance is a timed set (kept, out
//! of strength volume and e1RM). An empty RPE stays empty: no RIR is invented. Dates are local
//! times in the lifter's timezone. A row that cannot be read is rejected with its line and
//! reason; the rest is imported.

use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, TimeZone, Utc};
use chrono_tz::Tz;
use serde::Serialize;
use sha2::{Digest, Sha256};

mod export;
mod grouping;
mod header;
mod row;
mod values;

pub use export::to_csv;

pub use grouping::own_id;
use grouping::*;
pub use header::{ALL_APPS, App};
use header::{Col, Header};
use row::{Row, read_row};
use values::*;
pub use values::{MAX_WORKOUT_HOURS, parse_duration};

use super::csv::{self, Record};
use crate::analysis::facts::{local_date, week_ending};
use crate::domain::catalog::{Resolution, catalog};
use crate::domain::limits::{
    self, MAX_EXERCISES_PER_WORKOUT, MAX_RPE, MAX_SETS_PER_EXERCISE, MAX_SETS_PER_WORKOUT, MIN_RPE,
};
use crate::domain::units::Unit;
use crate::domain::workout::{
    ExerciseInstance, SetResult, SetStatus, SetTarget, SetType, Workout, WorkoutSet, WorkoutStatus,
};

/// Rejected rows and warnings listed in the answer; beyond this only their count is given.
pub(crate) const MAX_LISTED: usize = 100;
/// A row dated more than this after the import is rejected (a clock or format mix-up).
pub(crate) const FUTURE_TOLERANCE_HOURS: i64 = 36;
/// A row dated before this year is rejected: no phone app logged workouts then, so it is a
/// format mix-up (and a year such as -262144 must not reach the week arithmetic).
pub const EARLIEST_YEAR: i32 = 2000;
/// Data rows an import may have: about 10 MB of a typical export, above the body limit. A file
/// with more is refused whole (413), to be split by date.
pub const MAX_IMPORT_ROWS: usize = 60_000;
/// Workouts an import may create: 20 years at five a week. More is refused whole (413).
pub(crate) const MAX_IMPORT_WORKOUTS: usize = 5_200;
const METRES_PER_MILE: f64 = 1_609.344;

/// The layout of a Strong file with a `Weight Unit` column, or a header naming the unit.
pub(crate) const LAYOUT_WITH_UNITS: &str = "strong_with_units";
/// The layout of a Strong file that does not say its unit.
pub(crate) const LAYOUT_WITHOUT_UNITS: &str = "strong";

/// How to read the file.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub tz: Tz,
    /// The unit of weights in a file without a `Weight Unit` column (and of distances without a
    /// `Distance Unit`: km with kg, miles with lb).
    pub unit: Unit,
    pub now: DateTime<Utc>,
    /// The apps whose exports are accepted (a Strong import takes only Strong's).
    pub apps: &'static [App],
}

pub use crate::domain::catalog::OwnExercise;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineNote {
    pub line: usize,
    pub reason: String,
}

/// What the file held and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Summary {
    pub layout: &'static str,
    pub delimiter: String,
    /// Data rows (records after the header).
    pub rows: usize,
    pub workouts: usize,
    pub sets: usize,
    pub warmup_sets: usize,
    pub drop_sets: usize,
    pub failure_sets: usize,
    pub timed_sets: usize,
    pub rest_timer_rows: usize,
    /// Distinct exercises the catalog resolved.
    pub exercises_resolved: usize,
    /// Exercises already among the user's own.
    pub exercises_own: usize,
    /// Exercises created as the user's own by this import.
    pub exercises_created: Vec<OwnExercise>,
    pub first_workout: Option<NaiveDate>,
    pub last_workout: Option<NaiveDate>,
    pub rejected_rows: usize,
    pub rejected: Vec<LineNote>,
    pub warning_count: usize,
    pub warnings: Vec<LineNote>,
    /// Rows whose weight was read in kilograms and in pounds (a file that states its units:
    /// its own unit is the one most of its rows use).
    #[serde(skip)]
    pub rows_in: (usize, usize),
}

impl Summary {
    /// Whether the file stated the unit of its weights (a unit column, or a header naming it).
    pub fn states_units(&self) -> bool {
        self.layout != LAYOUT_WITHOUT_UNITS
    }

    /// The unit most of the file's weighted rows were read in.
    pub fn main_unit(&self) -> Unit {
        if self.rows_in.1 > self.rows_in.0 {
            Unit::Lb
        } else {
            Unit::Kg
        }
    }
}

#[derive(Debug, Clone)]
pub struct Parsed {
    /// Oldest first.
    pub workouts: Vec<Workout>,
    /// Every own exercise the workouts use (created or not): writing them again is harmless.
    pub own_exercises: Vec<OwnExercise>,
    /// The Sunday ending each ISO week (in the lifter's timezone) with an imported workout.
    pub weeks: Vec<NaiveDate>,
    pub summary: Summary,
}

/// The file as a whole cannot be imported; nothing may be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Malformed(pub String);

/// Why a file is refused whole.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refused {
    #[error(transparent)]
    Malformed(#[from] Malformed),
    /// Over [`MAX_IMPORT_ROWS`] or [`MAX_IMPORT_WORKOUTS`]: the message names the limit.
    #[error("{0}")]
    TooLarge(String),
}

/// Reads an export of one of `opts.apps`. `own` holds the ids of the user's own exercises
/// already stored.
pub fn parse(text: &str, opts: Options, own: &HashSet<String>) -> Result<Parsed, Refused> {
    if text.trim().is_empty() {
        return Err(Malformed("the file is empty".into()).into());
    }
    let delimiter = csv::detect_delimiter(text);
    // The header, the most rows an import takes, and one more to know there are more.
    let records =
        csv::records(text, delimiter, MAX_IMPORT_ROWS + 2).map_err(|e| Malformed(e.to_string()))?;
    let Some((header, data)) = records.split_first() else {
        return Err(Malformed("the file is empty".into()).into());
    };
    let h = Header::read(header, opts.apps)?;
    let mut summary = Summary {
        layout: h.layout(),
        delimiter: delimiter.to_string(),
        rows: data.len(),
        ..Summary::default()
    };
    if data.is_empty() {
        return Err(Malformed("the file has a header but no rows".into()).into());
    }
    if data.len() > MAX_IMPORT_ROWS {
        return Err(Refused::TooLarge(format!(
            "the export has more than {MAX_IMPORT_ROWS} rows; an import takes at most {MAX_IMPORT_ROWS}: export a shorter date range and import each part"
        )));
    }
    let mut rows = Vec::with_capacity(data.len());
    for r in data {
        match read_row(&h, r, opts, &mut summary) {
            Ok(Some(row)) => rows.push(row),
            Ok(None) => {}
            Err(reason) => reject(&mut summary, r.line, reason),
        }
    }
    let mut parsed = assemble(rows, opts, own, summary);
    if parsed.workouts.is_empty() {
        let first = parsed
            .summary
            .rejected
            .first()
            .map(|n| format!(" (line {}: {})", n.line, n.reason))
            .unwrap_or_default();
        return Err(Malformed(format!("no row of the file could be imported{first}")).into());
    }
    if parsed.workouts.len() > MAX_IMPORT_WORKOUTS {
        return Err(Refused::TooLarge(format!(
            "the export has {} workouts; an import takes at most {MAX_IMPORT_WORKOUTS}: export a shorter date range and import each part",
            parsed.workouts.len()
        )));
    }
    parsed.summary.first_workout = parsed
        .workouts
        .first()
        .map(|w| local_date(w.started_at, opts.tz));
    parsed.summary.last_workout = parsed
        .workouts
        .last()
        .map(|w| local_date(w.started_at, opts.tz));
    Ok(parsed)
}

fn reject(s: &mut Summary, line: usize, reason: String) {
    s.rejected_rows += 1;
    if s.rejected.len() < MAX_LISTED {
        s.rejected.push(LineNote { line, reason });
    }
}

fn warn(s: &mut Summary, line: usize, reason: String) {
    s.warning_count += 1;
    if s.warnings.len() < MAX_LISTED {
        s.warnings.push(LineNote { line, reason });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> Options {
        Options {
            tz: "Europe/Berlin".parse().unwrap(),
            unit: Unit::Kg,
            now: "2026-11-22T12:00:00Z".parse().unwrap(),
            apps: &[App::Strong],
        }
    }

    const CURRENT: &str = "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",W,40,10,0,0,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",1,80,8,0,0,\"felt heavy, \"\"grindy\"\"
second line\",\"Workout, noted\",8.5
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",F,80,6,0,0,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",D,60,10,0,0,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Plank\",1,0,0,0,60,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Farmer's Walk\",1,32,0,40,0,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Rest Timer\",Rest Timer,0,0,0,90,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Rest Timer\",1,0,0,0,120,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Zercher Hack Thing (Machine)\",1,50,12,0,0,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",X,80,6,0,0,\"\",\"\",
2026-03-04 07:00:00,\"Legs\",45m,\"Squat (Barbell)\",1,100,5,0,0,\"\",\"\",
2026-03-04 07:00:00,\"Legs\",45m,\"Squat (Barbell)\",2,100,0,0,0,\"\",\"\",
";

    #[test]
    fn every_quirk_of_the_current_layout() {
        let p = parse(CURRENT, opts(), &HashSet::new()).unwrap();
        let s = &p.summary;
        assert_eq!((s.layout, s.delimiter.as_str()), ("strong", ","));
        assert_eq!(s.rows, 12);
        assert_eq!((s.workouts, s.sets), (2, 8));
        assert_eq!((s.warmup_sets, s.drop_sets, s.failure_sets), (1, 1, 1));
        // Both rest timers (by Set Order, and by name with a set number) are no sets.
        assert_eq!((s.timed_sets, s.rest_timer_rows), (2, 2));
        assert_eq!(s.rejected_rows, 2);
        assert_eq!(s.rejected[0].line, 12);
        assert!(s.rejected[0].reason.contains("Set Order 'X'"));
        assert_eq!(s.rejected[1].line, 14);
        assert!(s.rejected[1].reason.contains("0 reps"));
        // Bench, plank, farmer's walk and squat resolve; the unknown machine becomes own.
        assert_eq!(s.exercises_resolved, 4);
        let created: Vec<&str> = s.exercises_created.iter().map(|e| e.id.as_str()).collect();
        assert!(
            created.contains(&"own-zercher-hack-thing-machine"),
            "{created:?}"
        );

        let push = &p.workouts[0];
        // 18:05 in Berlin (CET) is 17:05 UTC; 1h 9m later it ended.
        assert_eq!(push.started_at.to_rfc3339(), "2026-03-02T17:05:00+00:00");
        assert_eq!(
            push.completed_at.map(|c| c.to_rfc3339()).as_deref(),
            Some("2026-03-02T18:14:00+00:00")
        );
        assert_eq!(push.notes.as_deref(), Some("Workout, noted"));
        let bench = &push.exercises[0];
        assert_eq!(
            (bench.exercise_id.as_str(), bench.name.as_str()),
            ("barbell-bench-press", "Bench Press")
        );
        let kinds: Vec<(SetType, bool)> = bench
            .sets
            .iter()
            .map(|x| (x.set_type, x.actual.as_ref().unwrap().failure))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (SetType::Warmup, false),
                (SetType::Working, false),
                (SetType::Working, true),
                (SetType::Dropset, false)
            ]
        );
        let top = bench.sets[1].actual.as_ref().unwrap();
        assert_eq!(
            (top.reps, top.weight_kg, top.rpe, top.rir),
            (8, Some(80.0), Some(8.5), None)
        );
        assert_eq!(
            top.notes.as_deref(),
            Some("felt heavy, \"grindy\"\nsecond line")
        );
        // Empty RPE stays empty.
        assert_eq!(bench.sets[0].actual.as_ref().unwrap().rpe, None);
        let plank = push.exercises[1].sets[0].actual.as_ref().unwrap();
        assert_eq!(
            (plank.reps, plank.seconds, plank.weight_kg),
            (0, Some(60), None)
        );
        let carry = push.exercises[2].sets[0].actual.as_ref().unwrap();
        assert_eq!(
            (carry.distance_m, carry.weight_kg),
            (Some(40_000.0), Some(32.0))
        );
        // Set ids are unique in the workout.
        let ids: HashSet<&str> = push
            .exercises
            .iter()
            .flat_map(|e| e.sets.iter().map(|x| x.id.as_str()))
            .collect();
        assert_eq!(ids.len(), 7);
        // Both workouts are in ISO week 10 of 2026, which ends on Sunday 8 March.
        assert_eq!(p.weeks, vec![NaiveDate::from_ymd_opt(2026, 3, 8).unwrap()]);
    }

    const OLDER: &str = "Date;Workout Name;Exercise Name;Set Order;Weight;Weight Unit;Reps;RPE;Distance;Distance Unit;Seconds;Notes;Workout Notes;Workout Duration
2021-05-10 07:30:00;\"Full body\";\"Deadlift (Barbell)\";1;225;lbs;5;;;;0;\"Felt strong; \"\"really\"\"\";\"Good day\";1h 5m
2021-05-10 07:30:00;\"Full body\";\"Deadlift (Barbell)\";2;102,5;kg;5;9;;;0;;;1h 5m
2021-05-10 07:30:00;\"Full body\";\"Running\";1;0;;0;;1,5;mi;600;;;1h 5m
2021-05-10 07:30:00;\"Full body\";\"Deadlift (Barbell)\";3;100;stone;5;;;;0;;;1h 5m
";

    #[test]
    fn the_older_layout_with_units_semicolons_and_decimal_commas() {
        let p = parse(OLDER, opts(), &HashSet::new()).unwrap();
        let s = &p.summary;
        assert_eq!((s.layout, s.delimiter.as_str()), ("strong_with_units", ";"));
        assert_eq!((s.workouts, s.sets, s.rejected_rows), (1, 3, 1));
        assert_eq!(s.rejected[0].line, 5);
        assert!(s.rejected[0].reason.contains("'stone'"));
        let w = &p.workouts[0];
        assert_eq!(
            w.completed_at.map(|c| (c - w.started_at).num_minutes()),
            Some(65)
        );
        let dl = &w.exercises[0];
        assert_eq!(dl.exercise_id, "deadlift");
        let first = dl.sets[0].actual.as_ref().unwrap();
        // 225 lb is 102.058 kg.
        assert!((first.weight_kg.unwrap() - 102.058_283_25).abs() < 1e-6);
        assert_eq!(first.notes.as_deref(), Some("Felt strong; \"really\""));
        let second = dl.sets[1].actual.as_ref().unwrap();
        assert_eq!((second.weight_kg, second.rpe), (Some(102.5), Some(9.0)));
        let run = w.exercises[1].sets[0].actual.as_ref().unwrap();
        assert_eq!((run.distance_m, run.seconds), (Some(2414.0), Some(600)));
    }

    #[test]
    fn a_file_without_unit_column_can_be_in_pounds() {
        let o = Options {
            unit: Unit::Lb,
            ..opts()
        };
        let p = parse(CURRENT, o, &HashSet::new()).unwrap();
        let set = p.workouts[1].exercises[0].sets[0].actual.as_ref().unwrap();
        assert!((set.weight_kg.unwrap() - 45.359_237).abs() < 1e-9);
    }

    #[test]
    fn parsing_is_deterministic_and_knows_existing_own_exercises() {
        let a = parse(CURRENT, opts(), &HashSet::new()).unwrap();
        let own: HashSet<String> = a.own_exercises.iter().map(|o| o.id.clone()).collect();
        let b = parse(CURRENT, opts(), &own).unwrap();
        assert_eq!(a.workouts, b.workouts);
        assert!(b.summary.exercises_created.is_empty());
        assert_eq!(b.summary.exercises_own, a.summary.exercises_created.len());
    }

    #[test]
    fn malformed_files_are_refused_whole() {
        let e = |t: &str| parse(t, opts(), &HashSet::new()).unwrap_err().to_string();
        assert_eq!(e(""), "the file is empty");
        assert!(e("Date,Workout Name,Exercise Name\n").contains("lacks Set Order, Weight, Reps"));
        assert!(e("Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n").contains("no rows"));
        assert!(
            e("Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n2026-01-01,\"A,B,1,1,1\n")
                .contains("never closed")
        );
        assert!(
            e("Date,Workout Name,Exercise Name,Set Order,Weight,Reps\nyesterday,A,Squat,1,100,5\n")
                .contains("no row of the file could be imported (line 2: Date 'yesterday'")
        );
    }

    #[test]
    fn row_problems_name_their_line() {
        let head = "Date,Workout Name,Exercise Name,Set Order,Weight,Reps,RPE\n";
        let rows = [
            "2026-01-05 10:00,A,Squat (Barbell),1,100,5,",
            "2026-01-05 10:00,A,Squat (Barbell),2,1600,5,",
            "2026-01-05 10:00,A,Squat (Barbell),3,100,7.5,",
            "2026-01-05 10:00,A,Squat (Barbell),4,-3,5,",
            "2027-01-05 10:00,A,Squat (Barbell),1,100,5,",
            "2026-01-05 10:00,A,Squat (Barbell),5,100,5,3",
            "2026-01-05 10:00,A,Squat (Barbell),6,100,5,,extra",
        ];
        let p = parse(
            &format!("{head}{}", rows.join("\n")),
            opts(),
            &HashSet::new(),
        )
        .unwrap();
        let lines: Vec<usize> = p.summary.rejected.iter().map(|r| r.line).collect();
        assert_eq!(lines, vec![3, 4, 5, 6, 8]);
        assert!(p.summary.rejected[0].reason.contains("1500 kg limit"));
        assert!(p.summary.rejected[1].reason.contains("whole number"));
        assert!(p.summary.rejected[3].reason.contains("future"));
        assert!(p.summary.rejected[4].reason.contains("8 fields"));
        // RPE 3 keeps the set and warns.
        assert_eq!(p.summary.sets, 2);
        assert_eq!(p.summary.warnings[0].line, 7);
    }

    #[test]
    fn dates_before_2000_are_rejected_with_their_line_never_a_panic() {
        let head = "Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n";
        let rows = [
            "2026-01-05 10:00,A,Squat (Barbell),1,100,5",
            "1999-12-31 23:00,A,Squat (Barbell),1,100,5",
            "1900-01-01 10:00,A,Squat (Barbell),1,100,5",
            "-262143-01-01 10:00,A,Squat (Barbell),1,100,5",
            "2000-01-01 00:00,A,Squat (Barbell),1,100,5",
            "-262144-01-01,A,Squat (Barbell),1,100,5",
        ];
        let p = parse(
            &format!("{head}{}", rows.join("\n")),
            opts(),
            &HashSet::new(),
        )
        .expect("the rest imports");
        let lines: Vec<usize> = p.summary.rejected.iter().map(|r| r.line).collect();
        assert_eq!(lines, vec![3, 4, 5, 7]);
        assert!(p.summary.rejected[0].reason.contains("before 2000"));
        assert_eq!(p.workouts.len(), 2);
        // Only dates outside the range: the whole file is refused, and says why.
        let e = parse(&format!("{head}{}", rows[2]), opts(), &HashSet::new())
            .expect_err("nothing to import");
        assert!(e.to_string().contains("before 2000"), "{e}");
    }

    #[test]
    fn a_file_naming_too_many_exercises_imports_the_first_ones() {
        let head = "Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n";
        // Each made-up name a workout of its own (a day apart), one more than the cap.
        let start = NaiveDate::from_ymd_opt(2020, 1, 1).expect("a date");
        let rows: String = (0..=grouping::MAX_DISTINCT_EXERCISES)
            .map(|i| {
                let t = start.and_time(chrono::NaiveTime::MIN) + Duration::days(i as i64);
                format!("{},A,Made Up Lift {i},1,50,5\n", t.format("%Y-%m-%d %H:%M"))
            })
            .collect();
        let p = parse(&format!("{head}{rows}"), opts(), &HashSet::new()).expect("the rest imports");
        assert_eq!(p.workouts.len(), grouping::MAX_DISTINCT_EXERCISES);
        assert_eq!(p.summary.rejected_rows, 1);
        assert!(
            p.summary.rejected[0].reason.contains("different exercises"),
            "{:?}",
            p.summary.rejected
        );
    }

    #[test]
    fn too_many_rows_or_workouts_are_refused_whole_naming_the_limit() {
        let head = "Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n";
        let row = "2026-01-05 10:00,A,Squat (Barbell),1,100,5\n";
        let e = parse(
            &format!("{head}{}", row.repeat(MAX_IMPORT_ROWS + 1)),
            opts(),
            &HashSet::new(),
        )
        .expect_err("too many rows");
        assert!(matches!(e, Refused::TooLarge(_)));
        assert!(e.to_string().contains(&MAX_IMPORT_ROWS.to_string()), "{e}");
        // One workout a day from 2005, one more than the cap.
        let start = NaiveDate::from_ymd_opt(2005, 1, 1).expect("a date");
        let rows: String = (0..=MAX_IMPORT_WORKOUTS)
            .map(|i| {
                let t = start.and_time(chrono::NaiveTime::MIN) + Duration::hours(i as i64 * 24);
                format!("{},A,Squat (Barbell),1,100,5\n", t.format("%Y-%m-%d %H:%M"))
            })
            .collect();
        let e = parse(&format!("{head}{rows}"), opts(), &HashSet::new())
            .expect_err("too many workouts");
        assert!(matches!(e, Refused::TooLarge(_)));
        assert!(
            e.to_string().contains(&MAX_IMPORT_WORKOUTS.to_string()),
            "{e}"
        );
    }

    #[test]
    fn durations_and_own_ids() {
        let m = |s| parse_duration(s).map(|d| d.num_seconds());
        assert_eq!(m("1h 9m"), Some(4140));
        assert_eq!(m("45m"), Some(2700));
        assert_eq!(m("2h"), Some(7200));
        assert_eq!(m("1h 2m 3s"), Some(3723));
        assert_eq!(m("3600"), Some(3600));
        assert_eq!(m("soon"), None);
        // Found by the fuzzer: an hour count that overflows was a panic; now it is no duration.
        assert_eq!(m("9999999999999999h"), None);
        assert_eq!(m("99999999999h"), None);
        assert_eq!(m("25h"), None, "longer than MAX_WORKOUT_HOURS");
        assert_eq!(m("-5m"), None);
        assert_eq!(m("24h"), Some(86_400));
        assert_eq!(own_id("Cable Fly (Cable - Low)"), "own-cable-fly-cable-low");
        assert!(own_id("Жим лёжа").starts_with("own-"));
        assert_ne!(own_id("Жим лёжа"), own_id("Жим стоя"));
    }

    #[test]
    fn the_names_strong_exports_resolve_to_the_catalog() {
        let cases = [
            ("Bench Press (Barbell)", "barbell-bench-press"),
            ("Incline Bench Press (Dumbbell)", "incline-dumbbell-press"),
            ("Overhead Press (Barbell)", "overhead-press"),
            ("Squat (Barbell)", "back-squat"),
            ("Deadlift (Barbell)", "deadlift"),
            ("Bent Over Row (Barbell)", "barbell-row"),
            ("Bent Over One Arm Row (Dumbbell)", "dumbbell-row"),
            ("Pull Up (Assisted)", "assisted-pull-up"),
            ("Lat Pulldown (Cable)", "lat-pulldown"),
            (
                "Triceps Pushdown (Cable - Straight Bar)",
                "triceps-pushdown",
            ),
            ("Skullcrusher (Barbell)", "skull-crusher"),
            ("Preacher Curl (Barbell)", "preacher-curl"),
            (
                "Seated Overhead Press (Dumbbell)",
                "dumbbell-shoulder-press",
            ),
            ("Lying Leg Curl (Machine)", "lying-leg-curl"),
            ("Reverse Fly (Dumbbell)", "rear-delt-fly"),
        ];
        for (name, id) in cases {
            assert_eq!(resolve(name).id, id, "{name}");
        }
        // Cardio and the rowing erg are not strength exercises in the catalog: they become the
        // lifter's own rather than a wrong guess (the erg is not a machine row).
        for name in ["Running", "Cycling", "Rowing (Machine)"] {
            let r = resolve(name);
            assert!(r.own.is_some(), "{name} -> {}", r.id);
        }
    }
}
