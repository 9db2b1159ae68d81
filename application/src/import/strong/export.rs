//! The history written back as a Strong export (the current layout), which `parse` reads back
//! to the same workouts: start times to the second (local times in the lifter's timezone),
//! durations to the second, names, set types, reps, weights, RPE, times, distances and notes.
//!
//! What the layout cannot carry is said here: weights are written in `unit` (kilograms exactly;
//! pounds to within a rounding of a millionth of a kilogram); a set logged with RIR only is
//! written with RPE 10 − RIR; sets not done (planned or skipped) are left out, and so is a
//! workout with none done; two entries of the same exercise in one workout read back as one;
//! ids are new on import (Strong has none). A text that would start a spreadsheet formula is
//! written behind a `'` (CSV injection) and read back without it.

use super::*;

/// The header, as Strong writes it.
pub const HEADER: &str = "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE";

/// The name a catalog exercise is written under: a Strong-style name ("Bench Press (Barbell)")
/// or its own name when that reads back to it, else its id (which always does).
fn exercise_name(id: &str, name: &str) -> String {
    let Some(e) = catalog().get(id) else {
        // The lifter's own: its name reads back to its id when the import created it.
        return name.to_string();
    };
    let reads_back = |n: &str| matches!(catalog().resolve(n), Resolution::Exact(x) if x.id == e.id);
    e.aliases
        .iter()
        .filter(|a| a.contains('('))
        .chain(std::iter::once(&e.name))
        .find(|n| reads_back(n))
        .cloned()
        .unwrap_or_else(|| e.id.clone())
}

/// A text cell, quoted. One that a spreadsheet would read as a formula (it starts with `=`,
/// `+`, `-`, `@`, a tab or a carriage return), or that starts with `'`, is written with a
/// leading `'`, which spreadsheets show as text and [`super::values::unformula`] takes off again
/// on import.
fn quoted(text: &str) -> String {
    // A text that starts with the guard itself gets one too, so the importer's taking one off
    // gives it back whole.
    let guard = if text.starts_with(FORMULA_STARTS) || text.starts_with('\'') {
        "'"
    } else {
        ""
    };
    format!("\"{guard}{}\"", text.replace('"', "\"\""))
}

/// "1h 2m 3s", zero parts left out.
fn duration(d: Duration) -> String {
    let total = d.num_seconds().max(0);
    let (h, m, s) = (total / 3600, total % 3600 / 60, total % 60);
    let mut parts = Vec::new();
    if h > 0 {
        parts.push(format!("{h}h"));
    }
    if m > 0 {
        parts.push(format!("{m}m"));
    }
    if s > 0 || parts.is_empty() {
        parts.push(format!("{s}s"));
    }
    parts.join(" ")
}

/// The completed `workouts` (oldest first) as a Strong export, weights in `unit` and
/// distances in km (kg) or miles (lb), times local to `tz`.
pub fn to_csv(workouts: &[Workout], unit: Unit, tz: Tz) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str(HEADER);
    out.push('\n');
    let per_distance = if unit == Unit::Lb {
        METRES_PER_MILE
    } else {
        1000.0
    };
    for w in workouts {
        let date = w
            .started_at
            .with_timezone(&tz)
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        let length = w
            .completed_at
            .map(|c| duration(c - w.started_at))
            .unwrap_or_default();
        let workout_notes = quoted(w.notes.as_deref().unwrap_or(""));
        for e in &w.exercises {
            let name = quoted(&exercise_name(&e.exercise_id, &e.name));
            let mut working = 0;
            for set in &e.sets {
                let Some(r) = set
                    .actual
                    .as_ref()
                    .filter(|_| set.status == SetStatus::Done)
                else {
                    continue;
                };
                let order = match set.set_type {
                    SetType::Warmup => "W".to_string(),
                    SetType::Dropset => "D".to_string(),
                    SetType::Working => {
                        working += 1;
                        if r.failure {
                            "F".to_string()
                        } else {
                            working.to_string()
                        }
                    }
                };
                let weight = r.weight_kg.map_or(0.0, |kg| unit.from_kg(kg));
                let distance = r.distance_m.map_or(0.0, |m| m / per_distance);
                let rpe = r
                    .rpe
                    .or_else(|| r.rir.map(|rir| 10.0 - f64::from(rir)))
                    .filter(|x| (MIN_RPE..=MAX_RPE).contains(x))
                    .map(|x| x.to_string())
                    .unwrap_or_default();
                out.push_str(&format!(
                    "{date},{},{length},{name},{order},{weight},{},{distance},{},{},{workout_notes},{rpe}\n",
                    quoted(&w.name),
                    r.reps,
                    r.seconds.unwrap_or(0),
                    quoted(r.notes.as_deref().unwrap_or("")),
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(unit: Unit) -> Options {
        Options {
            tz: "Europe/Berlin".parse().unwrap(),
            unit,
            now: "2026-11-22T12:00:00Z".parse().unwrap(),
            apps: &[App::Strong],
        }
    }

    #[test]
    fn every_catalog_exercise_is_written_under_a_name_that_reads_back_to_it() {
        for e in catalog().all() {
            let name = exercise_name(&e.id, &e.name);
            assert!(
                matches!(catalog().resolve(&name), Resolution::Exact(x) if x.id == e.id),
                "{} is written as '{name}'",
                e.id
            );
        }
    }

    #[test]
    fn durations_are_written_as_strong_does_and_read_back() {
        for secs in [0, 59, 60, 3600, 3723, 4140] {
            let d = Duration::seconds(secs);
            assert_eq!(parse_duration(&duration(d)), Some(d), "{}", duration(d));
        }
        assert_eq!(duration(Duration::seconds(4140)), "1h 9m");
    }

    #[test]
    fn a_formula_is_written_as_text_and_read_back() {
        let text = "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n\
            2026-01-05 18:00:00,\"=HYPERLINK(\"\"http://x\"\",\"\"win\"\")\",1h,@Garage Contraption 3000,1,50,10,0,0,+2 next time,-felt heavy,\n\
            2026-01-06 18:00:00,'=cell,1h,Squat (Barbell),1,50,10,0,0,,,\n";
        let first = parse(text, opts(Unit::Kg), &HashSet::new()).unwrap();
        let csv = to_csv(&first.workouts, Unit::Kg, opts(Unit::Kg).tz);
        for cell in [
            "\"'=HYPERLINK(",
            "\"'@Garage Contraption 3000\"",
            "\"'+2 next time\"",
            "\"'-felt heavy\"",
        ] {
            assert!(csv.contains(cell), "{cell} in {csv}");
        }
        let again = parse(&csv, opts(Unit::Kg), &HashSet::new()).unwrap();
        assert_eq!(again.workouts, first.workouts);
        assert_eq!(first.workouts[0].name, "=HYPERLINK(\"http://x\",\"win\")");
        // A name that starts with an apostrophe keeps it through the round trip.
        assert_eq!(first.workouts[1].name, "=cell");
        let named = |name: &str| {
            let mut w = first.workouts[1].clone();
            w.name = name.into();
            w
        };
        let csv = to_csv(&[named("'=kept")], Unit::Kg, opts(Unit::Kg).tz);
        let back = parse(&csv, opts(Unit::Kg), &HashSet::new()).unwrap();
        assert_eq!(back.workouts[0].name, "'=kept");
    }

    #[test]
    fn an_import_written_back_reads_back_the_same() {
        let here = env!("CARGO_MANIFEST_DIR");
        let text = std::fs::read_to_string(format!(
            "{here}/../tests/data/exports/strong-export-olympic.csv"
        ))
        .unwrap();
        for unit in [Unit::Kg, Unit::Lb] {
            let first = parse(&text, opts(Unit::Kg), &HashSet::new()).unwrap();
            let csv = to_csv(&first.workouts, unit, opts(unit).tz);
            let again = parse(&csv, opts(unit), &HashSet::new()).unwrap();
            assert_eq!(
                again.summary.rejected_rows, 0,
                "{:?}",
                again.summary.rejected
            );
            assert_eq!(again.workouts.len(), first.workouts.len());
            if unit == Unit::Kg {
                assert_eq!(again.workouts, first.workouts);
            }
            for (a, b) in again.workouts.iter().zip(&first.workouts) {
                let sets = |w: &Workout| -> Vec<SetResult> {
                    w.exercises
                        .iter()
                        .flat_map(|e| e.sets.iter().filter_map(|s| s.actual.clone()))
                        .collect()
                };
                for (x, y) in sets(a).iter().zip(&sets(b)) {
                    let close = |p: Option<f64>, q: Option<f64>| match (p, q) {
                        (Some(p), Some(q)) => (p - q).abs() < 1e-6,
                        (p, q) => p == q,
                    };
                    assert!(close(x.weight_kg, y.weight_kg), "{x:?} {y:?}");
                    assert!(close(x.distance_m, y.distance_m), "{x:?} {y:?}");
                    assert_eq!((x.reps, x.rpe, &x.notes), (y.reps, y.rpe, &y.notes));
                }
                assert_eq!(
                    (a.id.as_str(), a.started_at, a.completed_at),
                    (b.id.as_str(), b.started_at, b.completed_at)
                );
            }
        }
    }
}
