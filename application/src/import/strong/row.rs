//! One CSV record read as a set: each field checked and converted in the order the reasons
//! are given (the first field at fault names the row's rejection), warnings for what is dropped
//! and kept going.

use super::*;

/// One readable data row.
pub(super) struct Row {
    pub(super) line: usize,
    pub(super) started_at: DateTime<Utc>,
    pub(super) workout_name: String,
    pub(super) duration: Option<Duration>,
    pub(super) workout_notes: Option<String>,
    pub(super) exercise: String,
    /// Hevy's notes on the exercise (on every one of its rows).
    pub(super) exercise_notes: Option<String>,
    pub(super) set_type: SetType,
    pub(super) result: SetResult,
}

/// A record and the header that names its fields.
struct Fields<'a> {
    h: &'a Header,
    r: &'a Record,
}

impl Fields<'_> {
    fn get(&self, c: Col) -> &str {
        self.h.get(self.r, c)
    }
}

/// A row as a set, `None` for a rest-timer row, or why it cannot be imported.
pub(super) fn read_row(
    h: &Header,
    r: &Record,
    opts: Options,
    summary: &mut Summary,
) -> Result<Option<Row>, String> {
    if r.fields.len() > h.width {
        return Err(format!(
            "{} fields where the header has {} (an unquoted delimiter in a note?)",
            r.fields.len(),
            h.width
        ));
    }
    let f = Fields { h, r };
    let Some((set_type, failure)) = set_kind(h, r)? else {
        summary.rest_timer_rows += 1;
        return Ok(None);
    };
    let started_at = started_at(&f, opts)?;
    let (exercise, workout_name) = names(&f)?;
    let (weight_kg, unit) = weight(&f, opts, summary)?;
    let reps = reps(&f)?;
    let seconds = match f.get(Col::Time) {
        "" => non_negative(f.get(Col::Seconds), "Seconds")?,
        t => Some(clock_seconds(t).ok_or_else(|| format!("Time '{t}' is not like 0:01:30"))?),
    }
    .filter(|s| *s > 0.0)
    .map(|s| s.round().min(f64::from(u32::MAX)) as u32);
    let result = SetResult {
        reps,
        weight_kg,
        rir: None,
        seconds,
        distance_m: distance_m(&f, unit)?,
        rpe: rpe(&f, summary)?,
        failure,
        notes: text_field(f.get(Col::Notes), "Notes")?,
    };
    if reps == 0 && !failure && !result.is_timed() {
        return Err("0 reps and no time or distance: not a completed set".into());
    }
    Ok(Some(Row {
        line: r.line,
        started_at,
        workout_name,
        duration: duration(&f, opts, started_at, summary),
        workout_notes: text_field(f.get(Col::WorkoutNotes), "Workout Notes")?,
        exercise,
        exercise_notes: text_field(f.get(Col::ExerciseNotes), "Exercise Notes")?,
        set_type,
        result,
    }))
}

/// When the workout started: a local time in the lifter's timezone, neither in the future nor
/// before any phone app logged a workout.
fn started_at(f: &Fields<'_>, opts: Options) -> Result<DateTime<Utc>, String> {
    let date = f.get(Col::Date);
    let started_at = local_time(date, opts.tz)?;
    if started_at > opts.now + Duration::hours(FUTURE_TOLERANCE_HOURS) {
        return Err(format!("the date {date} is in the future"));
    }
    if started_at.with_timezone(&opts.tz).year() < EARLIEST_YEAR {
        return Err(format!(
            "the date {date} is before {EARLIEST_YEAR} (a date format mix-up?)"
        ));
    }
    Ok(started_at)
}

/// The exercise's name (required) and the workout's (`Workout` when empty).
fn names(f: &Fields<'_>) -> Result<(String, String), String> {
    let exercise = unformula(f.get(Col::ExerciseName)).to_string();
    if exercise.is_empty() {
        return Err("the exercise name is empty".into());
    }
    limits::check_entered_name("Exercise Name", &exercise).map_err(|e| e.to_string())?;
    let workout_name = match unformula(f.get(Col::WorkoutName)) {
        "" => "Workout".to_string(),
        n => n.to_string(),
    };
    limits::check_entered_name("Workout Name", &workout_name).map_err(|e| e.to_string())?;
    Ok((exercise, workout_name))
}

/// The weight in kilograms (none when empty or zero) and the row's unit: its own, else the one
/// the header names, else the file's. A loaded row counts towards the unit evidence.
fn weight(
    f: &Fields<'_>,
    opts: Options,
    summary: &mut Summary,
) -> Result<(Option<f64>, Unit), String> {
    let (weight, unit) = if f.h.has(Col::WeightKg) {
        (f.get(Col::WeightKg), Unit::Kg)
    } else if f.h.has(Col::WeightLb) {
        (f.get(Col::WeightLb), Unit::Lb)
    } else {
        (f.get(Col::Weight), opts.unit)
    };
    let unit = match f.get(Col::WeightUnit) {
        "" => unit,
        u => Unit::parse(&u.to_ascii_lowercase())
            .ok_or_else(|| format!("Weight Unit '{u}' is not kg or lbs"))?,
    };
    if weight.parse::<f64>().is_ok_and(|w| w > 0.0) {
        match unit {
            Unit::Kg => summary.rows_in.0 += 1,
            Unit::Lb => summary.rows_in.1 += 1,
        }
    }
    let weight_kg = match non_negative(weight, "Weight")? {
        Some(w) if w > 0.0 => {
            let kg = unit.to_kg(w);
            limits::check_weight_kg("Weight", kg).map_err(|e| e.to_string())?;
            Some(kg)
        }
        _ => None,
    };
    Ok((weight_kg, unit))
}

/// Whole reps within the rep limit; none is 0.
fn reps(f: &Fields<'_>) -> Result<u32, String> {
    let reps = non_negative(f.get(Col::Reps), "Reps")?.unwrap_or(0.0);
    if reps.fract() != 0.0 {
        return Err(format!("Reps '{}' is not a whole number", f.get(Col::Reps)));
    }
    if reps > f64::from(limits::MAX_REPS) {
        return Err(format!(
            "Reps {reps} is above the {} rep limit",
            limits::MAX_REPS
        ));
    }
    Ok(reps as u32)
}

/// The distance in metres: the header's unit, else the row's, else the weight unit's (km with
/// kg, miles with lb).
fn distance_m(f: &Fields<'_>, unit: Unit) -> Result<Option<f64>, String> {
    let (distance, per_metre) = if f.h.has(Col::DistanceKm) {
        (f.get(Col::DistanceKm), Some(1000.0))
    } else if f.h.has(Col::DistanceMiles) {
        (f.get(Col::DistanceMiles), Some(METRES_PER_MILE))
    } else if f.h.has(Col::DistanceMetres) {
        (f.get(Col::DistanceMetres), Some(1.0))
    } else {
        (f.get(Col::Distance), None)
    };
    Ok(match non_negative(distance, "Distance")? {
        Some(d) if d > 0.0 => {
            let per = match per_metre {
                Some(p) => p,
                None => metres_per(f.get(Col::DistanceUnit), unit)?,
            };
            Some(round1(d * per))
        }
        _ => None,
    })
}

/// The RPE when within the scale; out of it the set is kept without one (a warning).
fn rpe(f: &Fields<'_>, summary: &mut Summary) -> Result<Option<f64>, String> {
    Ok(match non_negative(f.get(Col::Rpe), "RPE")? {
        Some(x) if (MIN_RPE..=MAX_RPE).contains(&x) => Some(x),
        // Strong writes 0 for "no RPE" in some versions.
        Some(0.0) => None,
        Some(x) => {
            warn(
                summary,
                f.r.line,
                format!("RPE {x} is outside {MIN_RPE}–{MAX_RPE}; the set is kept without it"),
            );
            None
        }
        None => None,
    })
}

/// How long the workout took: Hevy's end time less its start, else Strong's duration; one that
/// cannot be read leaves the workout without an end (a warning), never the row rejected.
fn duration(
    f: &Fields<'_>,
    opts: Options,
    started_at: DateTime<Utc>,
    summary: &mut Summary,
) -> Option<Duration> {
    if f.h.has(Col::EndTime) {
        return local_time(f.get(Col::EndTime), opts.tz)
            .ok()
            .map(|end| end - started_at)
            .filter(|d| *d > Duration::zero() && *d <= Duration::hours(MAX_WORKOUT_HOURS));
    }
    match f.get(Col::Duration) {
        "" => None,
        d => parse_duration(d).or_else(|| {
            warn(
                summary,
                f.r.line,
                format!(
                    "Duration '{d}' is not like '1h 9m' (at most {MAX_WORKOUT_HOURS} hours); the workout has no end time"
                ),
            );
            None
        }),
    }
}

/// The kind of set a row is (and whether it went to failure), `None` for a row that is no
/// set (Strong's rest timer, by its Set Order or by its exercise name). FitNotes does not mark sets: every one is a working set.
fn set_kind(h: &Header, r: &Record) -> Result<Option<(SetType, bool)>, String> {
    Ok(Some(match h.app {
        App::Strong => {
            let order = h.get(r, Col::SetOrder);
            // The rest timer: marked in Set Order, or (other versions) an exercise of its own
            // name with a set number.
            let named = h.get(r, Col::ExerciseName).trim();
            if order.eq_ignore_ascii_case("rest timer") || named.eq_ignore_ascii_case("rest timer")
            {
                return Ok(None);
            }
            match order.to_ascii_uppercase().as_str() {
                "W" => (SetType::Warmup, false),
                "D" => (SetType::Dropset, false),
                "F" => (SetType::Working, true),
                n if number(n).is_some_and(|x| x >= 1.0 && x.fract() == 0.0) => {
                    (SetType::Working, false)
                }
                _ => {
                    return Err(format!(
                        "Set Order '{order}' is not a set number, W, D or F"
                    ));
                }
            }
        }
        App::Hevy => match h.get(r, Col::SetType).to_ascii_lowercase().as_str() {
            "normal" | "" => (SetType::Working, false),
            "warmup" => (SetType::Warmup, false),
            "failure" => (SetType::Working, true),
            "dropset" => (SetType::Dropset, false),
            other => {
                return Err(format!(
                    "set_type '{other}' is not normal, warmup, failure or dropset"
                ));
            }
        },
        App::FitNotes => (SetType::Working, false),
    }))
}
