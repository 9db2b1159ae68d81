//! Which app wrote an export, and where its columns are: Strong (in English, German, Spanish or
//! Chinese, the older layout with unit columns, and the semicolon layout whose header names the
//! unit, `Weight (kg)`), Hevy (`weight_kg` or `weight_lbs`) and FitNotes (`Weight` with a
//! `Weight Unit`, or `Weight (kgs)`). Column order never matters.

use std::collections::HashMap;

use serde::Serialize;

use super::Malformed;
use crate::import::csv::Record;

/// The app that wrote an export, known by its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum App {
    Strong,
    Hevy,
    FitNotes,
}

impl App {
    pub fn label(self) -> &'static str {
        match self {
            App::Strong => "Strong",
            App::Hevy => "Hevy",
            App::FitNotes => "FitNotes",
        }
    }
}

/// Every app whose export can be read.
pub const ALL_APPS: &[App] = &[App::Strong, App::Hevy, App::FitNotes];

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum Col {
    Date,
    /// Hevy's `end_time`: the workout's end.
    EndTime,
    WorkoutName,
    Duration,
    ExerciseName,
    /// Strong's set number, W, D or F.
    SetOrder,
    /// Hevy's normal, warmup, failure or dropset.
    SetType,
    /// FitNotes' muscle group: only tells the app.
    Category,
    /// A weight in the row's unit (its `Weight Unit`, else the file's).
    Weight,
    /// A weight the header says is in kilograms, or in pounds.
    WeightKg,
    WeightLb,
    WeightUnit,
    Reps,
    Distance,
    DistanceKm,
    DistanceMiles,
    DistanceMetres,
    DistanceUnit,
    Seconds,
    /// FitNotes' set duration, `h:mm:ss`.
    Time,
    Notes,
    ExerciseNotes,
    WorkoutNotes,
    Rpe,
}

/// Header names (lower case, trimmed) and what they hold.
const COLUMNS: &[(&str, Col)] = &[
    ("date", Col::Date),
    ("datum", Col::Date),
    ("fecha", Col::Date),
    ("日期", Col::Date),
    ("start_time", Col::Date),
    ("end_time", Col::EndTime),
    ("workout name", Col::WorkoutName),
    ("workout-name", Col::WorkoutName),
    ("nombre de entrenamiento", Col::WorkoutName),
    ("锻炼名称", Col::WorkoutName),
    ("title", Col::WorkoutName),
    ("duration", Col::Duration),
    ("workout duration", Col::Duration),
    ("duration (sec)", Col::Duration),
    ("dauer", Col::Duration),
    ("duración", Col::Duration),
    ("时长", Col::Duration),
    ("exercise name", Col::ExerciseName),
    ("name der übung", Col::ExerciseName),
    ("nombre del ejercicio", Col::ExerciseName),
    ("运动名称", Col::ExerciseName),
    ("exercise_title", Col::ExerciseName),
    ("exercise", Col::ExerciseName),
    ("set order", Col::SetOrder),
    ("reihenfolge festlegen", Col::SetOrder),
    ("orden de la serie", Col::SetOrder),
    ("设置顺序", Col::SetOrder),
    ("set_type", Col::SetType),
    ("category", Col::Category),
    ("weight", Col::Weight),
    ("gewicht", Col::Weight),
    ("peso", Col::Weight),
    ("重量", Col::Weight),
    ("weight (kg)", Col::WeightKg),
    ("weight (kgs)", Col::WeightKg),
    ("weight_kg", Col::WeightKg),
    ("kg", Col::WeightKg),
    ("weight (lbs)", Col::WeightLb),
    ("weight (lb)", Col::WeightLb),
    ("weight_lbs", Col::WeightLb),
    ("lb", Col::WeightLb),
    ("lbs", Col::WeightLb),
    ("weight unit", Col::WeightUnit),
    ("reps", Col::Reps),
    ("wiederh.", Col::Reps),
    ("rep.", Col::Reps),
    ("次", Col::Reps),
    ("distance", Col::Distance),
    ("entfernung", Col::Distance),
    ("distancia", Col::Distance),
    ("距离", Col::Distance),
    ("distance_km", Col::DistanceKm),
    ("km", Col::DistanceKm),
    ("distance_miles", Col::DistanceMiles),
    ("mi", Col::DistanceMiles),
    ("distance (meters)", Col::DistanceMetres),
    ("distance unit", Col::DistanceUnit),
    ("seconds", Col::Seconds),
    ("sekunden", Col::Seconds),
    ("segundos", Col::Seconds),
    ("秒", Col::Seconds),
    ("duration_seconds", Col::Seconds),
    ("time", Col::Time),
    ("notes", Col::Notes),
    ("notizen", Col::Notes),
    ("notas", Col::Notes),
    ("备注", Col::Notes),
    ("comment", Col::Notes),
    ("exercise_notes", Col::ExerciseNotes),
    ("workout notes", Col::WorkoutNotes),
    ("workout-notizen", Col::WorkoutNotes),
    ("notas del entrenamiento", Col::WorkoutNotes),
    ("锻炼备注", Col::WorkoutNotes),
    ("description", Col::WorkoutNotes),
    ("rpe", Col::Rpe),
];

/// What each app's export must have: (the name its English header uses, the columns any of
/// which will do).
fn required(app: App) -> &'static [(&'static str, &'static [Col])] {
    const WEIGHT: &[Col] = &[Col::Weight, Col::WeightKg, Col::WeightLb];
    match app {
        App::Strong => &[
            ("Date", &[Col::Date]),
            ("Workout Name", &[Col::WorkoutName]),
            ("Exercise Name", &[Col::ExerciseName]),
            ("Set Order", &[Col::SetOrder]),
            ("Weight", WEIGHT),
            ("Reps", &[Col::Reps]),
        ],
        App::Hevy => &[
            ("start_time", &[Col::Date]),
            ("title", &[Col::WorkoutName]),
            ("exercise_title", &[Col::ExerciseName]),
            ("set_type", &[Col::SetType]),
            ("weight_kg", &[Col::WeightKg, Col::WeightLb]),
            ("reps", &[Col::Reps]),
        ],
        App::FitNotes => &[
            ("Date", &[Col::Date]),
            ("Exercise", &[Col::ExerciseName]),
            ("Weight", WEIGHT),
            ("Reps", &[Col::Reps]),
        ],
    }
}

/// Column positions from the header, and the app it names.
pub(super) struct Header {
    pub(super) app: App,
    at: HashMap<Col, usize>,
    pub(super) width: usize,
}

impl Header {
    /// The header of an export by one of `apps`.
    pub(super) fn read(r: &Record, apps: &[App]) -> Result<Header, Malformed> {
        let mut at = HashMap::new();
        for (i, name) in r.fields.iter().enumerate() {
            let norm = name.trim().trim_start_matches('\u{feff}').to_lowercase();
            if let Some((_, col)) = COLUMNS.iter().find(|(n, _)| *n == norm)
                && at.insert(*col, i).is_some()
            {
                return Err(Malformed(format!(
                    "line {}: the column '{}' appears twice",
                    r.line,
                    name.trim()
                )));
            }
        }
        let app = if at.contains_key(&Col::SetType) && !at.contains_key(&Col::SetOrder) {
            App::Hevy
        } else if !at.contains_key(&Col::SetOrder)
            && (at.contains_key(&Col::Category) || !at.contains_key(&Col::WorkoutName))
        {
            App::FitNotes
        } else {
            App::Strong
        };
        let names = |a: App| {
            required(a)
                .iter()
                .filter(|(_, cols)| !cols.iter().any(|c| at.contains_key(c)))
                .map(|(n, _)| *n)
                .collect::<Vec<&str>>()
        };
        // A header that is none of them is named against the first app asked for.
        let (app, missing) = match names(app) {
            m if m.is_empty() => (app, m),
            m if apps.contains(&app) => (app, m),
            _ => (apps[0], names(apps[0])),
        };
        let wanted = apps
            .iter()
            .map(|a| a.label())
            .collect::<Vec<_>>()
            .join(" or ");
        if !missing.is_empty() {
            return Err(Malformed(format!(
                "line {}: this is not a {wanted} export: the header lacks {}",
                r.line,
                missing.join(", ")
            )));
        }
        if !apps.contains(&app) {
            return Err(Malformed(format!(
                "line {}: this is a {} export, not a {wanted} one",
                r.line,
                app.label()
            )));
        }
        Ok(Header {
            app,
            at,
            width: r.fields.len(),
        })
    }

    pub(super) fn has(&self, c: Col) -> bool {
        self.at.contains_key(&c)
    }

    pub(super) fn get<'r>(&self, r: &'r Record, c: Col) -> &'r str {
        self.at
            .get(&c)
            .and_then(|&i| r.fields.get(i))
            .map_or("", |s| s.trim())
    }

    /// Whether the file itself says the unit of its weights (a unit column, or a header that
    /// names it): then no guess is needed.
    pub(super) fn states_units(&self) -> bool {
        self.has(Col::WeightUnit) || self.has(Col::WeightKg) || self.has(Col::WeightLb)
    }

    /// The summary's name for the layout.
    pub(super) fn layout(&self) -> &'static str {
        match (self.app, self.states_units()) {
            (App::Strong, false) => super::LAYOUT_WITHOUT_UNITS,
            (App::Strong, true) => super::LAYOUT_WITH_UNITS,
            (App::Hevy, _) => "hevy",
            (App::FitNotes, _) => "fitnotes",
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::super::{Options, parse};
    use super::*;
    use crate::domain::units::Unit;
    use crate::domain::workout::SetType;

    fn opts(apps: &'static [App]) -> Options {
        Options {
            tz: "Europe/Berlin".parse().unwrap(),
            unit: Unit::Kg,
            now: "2026-11-22T12:00:00Z".parse().unwrap(),
            apps,
        }
    }

    const HEVY: &str = r#""title","start_time","end_time","description","exercise_title","superset_id","exercise_notes","set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"
"Lower // Strength","15 Sep 2025, 07:48","15 Sep 2025, 09:13","legs","Squat (Barbell)",,"belt",0,"warmup",60,5,,0,
"Lower // Strength","15 Sep 2025, 07:48","15 Sep 2025, 09:13","legs","Squat (Barbell)",,"belt",1,"normal",120,5,,0,8.5
"Lower // Strength","15 Sep 2025, 07:48","15 Sep 2025, 09:13","legs","Squat (Barbell)",,"belt",2,"failure",120,4,,0,10
"Lower // Strength","15 Sep 2025, 07:48","15 Sep 2025, 09:13","legs","Plank",,"",0,"normal",,0,,60,
"#;

    const FITNOTES: &str =
        "Date,Exercise,Category,Weight,Weight Unit,Reps,Distance,Distance Unit,Time,Comment
2022-09-14,Flat Barbell Bench Press,Chest,135.0,lbs,5,,,,\"\"
2022-09-14,Flat Barbell Bench Press,Chest,135.0,lbs,5,,,,\"paused\"
2022-09-14,Plank,Abs,,,,,,0:01:30,
2022-09-16,Barbell Squat,Legs,185.0,lbs,5,,,,
";

    #[test]
    fn a_hevy_export_with_its_set_types_times_and_units() {
        let p = parse(HEVY, opts(ALL_APPS), &HashSet::new()).unwrap();
        assert_eq!(p.summary.layout, "hevy");
        assert!(p.summary.states_units());
        let w = &p.workouts[0];
        // 07:48 in Berlin (CEST) is 05:48 UTC; it ended at 09:13 local.
        assert_eq!(w.started_at.to_rfc3339(), "2025-09-15T05:48:00+00:00");
        assert_eq!(
            w.completed_at.map(|c| (c - w.started_at).num_minutes()),
            Some(85)
        );
        assert_eq!(
            (w.name.as_str(), w.notes.as_deref()),
            ("Lower // Strength", Some("legs"))
        );
        let squat = &w.exercises[0];
        assert_eq!(squat.exercise_id, "back-squat");
        assert_eq!(squat.notes.as_deref(), Some("belt"));
        let kinds: Vec<(SetType, bool, Option<f64>)> = squat
            .sets
            .iter()
            .map(|s| {
                let a = s.actual.as_ref().unwrap();
                (s.set_type, a.failure, a.rpe)
            })
            .collect();
        assert_eq!(
            kinds,
            vec![
                (SetType::Warmup, false, None),
                (SetType::Working, false, Some(8.5)),
                (SetType::Working, true, Some(10.0))
            ]
        );
        let plank = w.exercises[1].sets[0].actual.as_ref().unwrap();
        assert_eq!((plank.seconds, plank.weight_kg), (Some(60), None));
    }

    #[test]
    fn a_fitnotes_export_in_pounds_one_workout_a_day() {
        let p = parse(FITNOTES, opts(ALL_APPS), &HashSet::new()).unwrap();
        assert_eq!(p.summary.layout, "fitnotes");
        assert_eq!(p.workouts.len(), 2);
        let bench = &p.workouts[0].exercises[0];
        assert_eq!(bench.exercise_id, "barbell-bench-press");
        let first = bench.sets[0].actual.as_ref().unwrap();
        // 135 lb, whatever the file's default unit.
        assert!((first.weight_kg.unwrap() - Unit::Lb.to_kg(135.0)).abs() < 1e-9);
        assert_eq!(
            bench.sets[1].actual.as_ref().unwrap().notes.as_deref(),
            Some("paused")
        );
        let plank = p.workouts[0].exercises[1].sets[0].actual.as_ref().unwrap();
        assert_eq!(plank.seconds, Some(90));
        assert_eq!(p.workouts[1].exercises[0].exercise_id, "back-squat");
    }

    #[test]
    fn strong_in_other_languages_and_its_semicolon_layout() {
        let chinese = "日期,锻炼名称,时长,运动名称,设置顺序,重量,次,距离,秒,备注,锻炼备注,RPE
2020-09-29 07:10:22,\"4.Pull\",1小时13分钟,\"Deadlift (Barbell)\",1,100,5,0,0,\"\",\"\",
";
        let p = parse(chinese, opts(&[App::Strong]), &HashSet::new()).unwrap();
        let w = &p.workouts[0];
        assert_eq!(w.exercises[0].exercise_id, "deadlift");
        assert_eq!(
            w.completed_at.map(|c| (c - w.started_at).num_minutes()),
            Some(73)
        );
        assert!(!p.summary.states_units());
        let german = "Datum,Workout-Name,Dauer,Name der Übung,Reihenfolge festlegen,Gewicht,Wiederh.,Entfernung,Sekunden,Notizen,Workout-Notizen,RPE
2021-02-10 16:46:13,\"Mittwoch\",2h 18m,\"Bench Press (Barbell)\",1,75.0,8,0,0,\"\",\"\",
";
        let p = parse(german, opts(&[App::Strong]), &HashSet::new()).unwrap();
        assert_eq!(
            p.workouts[0].exercises[0].exercise_id,
            "barbell-bench-press"
        );
        let semicolons = "\"Workout #\";\"Date\";\"Workout Name\";\"Duration (sec)\";\"Exercise Name\";\"Set Order\";\"Weight (kg)\";\"Reps\";\"RPE\";\"Distance (meters)\";\"Seconds\";\"Notes\";\"Workout Notes\"
\"1\";\"2025-03-09 14:08:49\";\"Push\";\"4543\";\"Bench Press (Barbell)\";\"1\";\"61.23492\";\"5\";\"\";\"\";\"\";\"\";\"\"
";
        // Read as pounds by default, the header's kilograms still win.
        let o = Options {
            unit: Unit::Lb,
            ..opts(&[App::Strong])
        };
        let p = parse(semicolons, o, &HashSet::new()).unwrap();
        assert_eq!(p.summary.layout, super::super::LAYOUT_WITH_UNITS);
        let w = &p.workouts[0];
        assert_eq!(
            w.exercises[0].sets[0].actual.as_ref().unwrap().weight_kg,
            Some(61.23492)
        );
        assert_eq!(
            w.completed_at.map(|c| (c - w.started_at).num_seconds()),
            Some(4543)
        );
    }

    #[test]
    fn an_import_of_one_app_names_the_app_a_file_is_from() {
        let e = parse(HEVY, opts(&[App::Strong]), &HashSet::new()).unwrap_err();
        assert!(
            e.to_string()
                .contains("this is a Hevy export, not a Strong one"),
            "{e}"
        );
        let e = parse("a,b,c\n1,2,3\n", opts(&[App::Strong]), &HashSet::new()).unwrap_err();
        assert!(
            e.to_string()
                .contains("not a Strong export: the header lacks Date"),
            "{e}"
        );
        let e = parse("a,b,c\n1,2,3\n", opts(ALL_APPS), &HashSet::new()).unwrap_err();
        assert!(
            e.to_string()
                .contains("not a Strong or Hevy or FitNotes export"),
            "{e}"
        );
    }
}
