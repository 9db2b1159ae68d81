//! The workout copilot: applies a FAST command to the active workout and says, in one or two
//! short lines in the lifter's unit, exactly what was stored and what comes next.
//! Pure: the caller reads the workout, calls [`apply`], and commits `changed` if present.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::domain::limits::{self, LimitError};
use crate::domain::units::{Unit, format_number, format_weight};
use crate::domain::workout::{SetAction, SetPosition, SetResult, SetStatus, Workout};
use crate::router::{Command, Effort};

/// How far back UNDO reaches.
pub const UNDO_WINDOW_MINUTES: i64 = 15;

/// What a command did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub text: String,
    pub data: CommandData,
    /// The workout to commit; `None` when nothing changed.
    pub changed: Option<Workout>,
}

/// The state a command's answer shows (the FAST answer's `data`).
// One per request, moved not copied in bulk: boxing the large variant would only add an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CommandData {
    /// No active workout: `{"active_workout": null}`.
    NoActiveWorkout { active_workout: () },
    /// The active workout after the command: its id, the lifter's unit, and the sets it touched.
    Workout {
        workout_id: String,
        unit: &'static str,
        #[serde(flatten)]
        sets: Shown,
    },
    /// Nothing to show (an unremarkable monitor event): `{}`.
    Nothing {},
}

impl CommandData {
    fn of(w: &Workout, unit: Unit, sets: Shown) -> CommandData {
        CommandData::Workout {
            workout_id: w.id.clone(),
            unit: unit.label(),
            sets,
        }
    }
}

/// The sets an answer shows, by what the command did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Shown {
    /// The set logged, and the next planned one (`null` when none is left).
    Logged {
        logged: SetView,
        next: Option<SetView>,
    },
    Skipped {
        skipped: SetView,
        next: Option<SetView>,
    },
    /// The set undone (planned again), and the next planned one.
    Undone {
        undone: SetView,
        next: Option<SetView>,
    },
    /// Nothing in the undo window: `undone` is `null`.
    NothingToUndo { undone: () },
    /// The current set has no planned reps: the lifter must type them.
    NeedsReps { needs: &'static str, next: SetView },
    /// The next planned set (`null` when none is left).
    Next { next: Option<SetView> },
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CopilotError {
    #[error(transparent)]
    Invalid(#[from] LimitError),
    /// The prefix names a workout that is not the lifter's active one.
    #[error("workout {requested} is not your active workout")]
    WorkoutMismatch { requested: String },
}

/// Checks the typed values against the contract's limits before anything is read or written.
/// `unit` is the unit to assume when the lifter typed none.
pub fn validate(cmd: &Command, unit: Unit) -> Result<(), LimitError> {
    match cmd {
        Command::LogShorthand {
            reps,
            weight,
            unit: typed,
            effort,
        } => {
            limits::check_reps("reps", *reps, *reps == 0)?;
            limits::check_weight_kg("weight", typed.unwrap_or(unit).to_kg(*weight))?;
            check_effort(*effort)
        }
        Command::LogReps { reps, effort } => {
            limits::check_reps("reps", *reps, *reps == 0)?;
            check_effort(*effort)
        }
        _ => Ok(()),
    }
}

fn check_effort(effort: Option<Effort>) -> Result<(), LimitError> {
    match effort {
        Some(Effort::Rir(r)) => limits::check_rir("rir", r),
        Some(Effort::Rpe(r)) => limits::check_rpe("rpe", r),
        None => Ok(()),
    }
}

/// A set as the app shows it: where it is, and its values (actual when done, planned otherwise).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetView {
    pub set_id: String,
    pub exercise_instance_id: String,
    pub exercise_id: String,
    pub exercise: String,
    pub set_number: usize,
    pub total_sets: usize,
    pub status: SetStatus,
    pub reps: Option<u32>,
    pub weight_kg: Option<f64>,
    pub weight: Option<String>,
    pub rir: Option<u32>,
    pub rpe: Option<f64>,
    pub failure: bool,
}

fn view(w: &Workout, p: SetPosition, unit: Unit) -> SetView {
    let ex = &w.exercises[p.exercise];
    let set = &ex.sets[p.set];
    let (reps, weight_kg, rir, rpe, failure) = match &set.actual {
        Some(a) => (Some(a.reps), a.weight_kg, a.rir, a.rpe, a.failure),
        None => (
            set.target.reps,
            set.target.weight_kg,
            set.target.rir,
            None,
            false,
        ),
    };
    SetView {
        set_id: set.id.clone(),
        exercise_instance_id: ex.instance_id.clone(),
        exercise_id: ex.exercise_id.clone(),
        exercise: ex.name.clone(),
        set_number: p.number,
        total_sets: p.total,
        status: set.status,
        reps,
        weight_kg,
        weight: weight_kg.map(|kg| format_weight(kg, unit)),
        rir,
        rpe,
        failure,
    }
}

fn label(v: &SetView) -> String {
    format!("{} set {} of {}", v.exercise, v.set_number, v.total_sets)
}

/// "8 × 100 kg", "8 reps", "100 kg"; with effort and failure when stored.
fn values(v: &SetView, with_effort: bool) -> String {
    let mut s = match (v.reps, &v.weight) {
        (Some(r), Some(w)) => format!("{r} × {w}"),
        (Some(r), None) => format!("{r} reps"),
        (None, Some(w)) => w.clone(),
        (None, None) => String::new(),
    };
    if with_effort {
        if let Some(rpe) = v.rpe {
            s.push_str(&format!(", RPE {}", format_number(rpe, Unit::Lb)));
        } else if let Some(rir) = v.rir {
            s.push_str(&format!(", RIR {rir}"));
        }
    }
    if v.failure {
        s.push_str(" (failed)");
    }
    s
}

fn describe(v: &SetView, with_effort: bool) -> String {
    let vals = values(v, with_effort);
    if vals.is_empty() {
        label(v)
    } else {
        format!("{}: {vals}", label(v))
    }
}

fn next_view(w: &Workout, unit: Unit) -> Option<SetView> {
    w.current_set().map(|p| view(w, p, unit))
}

fn next_line(next: &Option<SetView>) -> String {
    match next {
        Some(n) => format!("Next: {}.", describe(n, false)),
        None => "That was the last planned set. Finish the workout when you're ready.".into(),
    }
}

pub const NO_ACTIVE_WORKOUT: &str = "No active workout. Start one in the app, then log sets here.";

/// Applies `cmd`. `requested_workout` is the prefix's `workout_id`, which must name the active
/// workout when given. Call [`validate`] first.
pub fn apply(
    cmd: &Command,
    workout: Option<&Workout>,
    unit: Unit,
    requested_workout: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Outcome, CopilotError> {
    let Some(w) = workout else {
        return Ok(Outcome {
            text: NO_ACTIVE_WORKOUT.into(),
            data: CommandData::NoActiveWorkout { active_workout: () },
            changed: None,
        });
    };
    if let Some(req) = requested_workout
        && req != w.id
    {
        return Err(CopilotError::WorkoutMismatch {
            requested: req.to_string(),
        });
    }
    match cmd {
        Command::NextSet => Ok(show_next(w, unit, "")),
        Command::RestAck => Ok(show_next(w, unit, "Ready. ")),
        Command::Undo => Ok(undo(w, unit, now)),
        Command::SkipSet => Ok(skip(w, unit, now)),
        Command::LogSet | Command::LogShorthand { .. } | Command::LogReps { .. } => {
            Ok(log(cmd, w, unit, now))
        }
    }
}

fn show_next(w: &Workout, unit: Unit, lead: &str) -> Outcome {
    let next = next_view(w, unit);
    let text = match &next {
        Some(n) => format!("{lead}Next: {}.", describe(n, false)),
        None => format!("{lead}All planned sets are done. Finish the workout when you're ready."),
    };
    Outcome {
        text,
        data: CommandData::of(w, unit, Shown::Next { next }),
        changed: None,
    }
}

fn nothing_left(w: &Workout, unit: Unit) -> Outcome {
    Outcome {
        text: format!(
            "No planned sets left in {}. Finish the workout when you're ready.",
            w.name
        ),
        data: CommandData::of(w, unit, Shown::Next { next: None }),
        changed: None,
    }
}

fn log(cmd: &Command, w: &Workout, unit: Unit, now: DateTime<Utc>) -> Outcome {
    let Some(pos) = w.current_set() else {
        return nothing_left(w, unit);
    };
    let target = w.set_at(pos).target.clone();
    let (reps, weight_kg, effort) = match cmd {
        Command::LogShorthand {
            reps,
            weight,
            unit: typed,
            effort,
        } => (
            Some(*reps),
            Some(typed.unwrap_or(unit).to_kg(*weight)),
            *effort,
        ),
        Command::LogReps { reps, effort } => (Some(*reps), target.weight_kg, *effort),
        _ => (target.reps, target.weight_kg, target.rir.map(Effort::Rir)),
    };
    let Some(reps) = reps else {
        let v = view(w, pos, unit);
        return Outcome {
            text: format!(
                "{} has no planned reps: type what you did, like '8' or '8 @ 100'.",
                label(&v)
            ),
            data: CommandData::of(
                w,
                unit,
                Shown::NeedsReps {
                    needs: "reps",
                    next: v,
                },
            ),
            changed: None,
        };
    };
    let mut changed = w.clone();
    let set = changed.set_at_mut(pos);
    set.actual = Some(SetResult {
        reps,
        weight_kg,
        rir: match effort {
            Some(Effort::Rir(r)) => Some(r),
            Some(Effort::Rpe(rpe)) => Some((10.0 - rpe).floor().max(0.0) as u32),
            None => None,
        },
        rpe: match effort {
            Some(Effort::Rpe(r)) => Some(r),
            _ => None,
        },
        failure: reps == 0,
        ..Default::default()
    });
    set.status = SetStatus::Done;
    set.completed_at = Some(now);
    let set_id = set.id.clone();
    changed.record_change(set_id, SetAction::Logged, now);
    let logged = view(&changed, pos, unit);
    let next = next_view(&changed, unit);
    let text = format!("Logged {}.\n{}", describe(&logged, true), next_line(&next));
    Outcome {
        text,
        data: CommandData::of(&changed, unit, Shown::Logged { logged, next }),
        changed: Some(changed),
    }
}

fn skip(w: &Workout, unit: Unit, now: DateTime<Utc>) -> Outcome {
    let Some(pos) = w.current_set() else {
        return nothing_left(w, unit);
    };
    let mut changed = w.clone();
    let set = changed.set_at_mut(pos);
    set.status = SetStatus::Skipped;
    set.completed_at = Some(now);
    let set_id = set.id.clone();
    changed.record_change(set_id, SetAction::Skipped, now);
    let skipped = view(&changed, pos, unit);
    let next = next_view(&changed, unit);
    let text = format!("Skipped {}.\n{}", label(&skipped), next_line(&next));
    Outcome {
        text,
        data: CommandData::of(&changed, unit, Shown::Skipped { skipped, next }),
        changed: Some(changed),
    }
}

fn undo(w: &Workout, unit: Unit, now: DateTime<Utc>) -> Outcome {
    let window_start = now - Duration::minutes(UNDO_WINDOW_MINUTES);
    let last = w.changes.last().filter(|c| c.at >= window_start);
    let Some((change, pos)) = last.and_then(|c| w.find_set(&c.set_id).map(|p| (c.clone(), p)))
    else {
        return Outcome {
            text: format!(
                "Nothing to undo: no set was logged or skipped in the last {UNDO_WINDOW_MINUTES} minutes."
            ),
            data: CommandData::of(w, unit, Shown::NothingToUndo { undone: () }),
            changed: None,
        };
    };
    let before = view(w, pos, unit);
    let mut changed = w.clone();
    changed.changes.pop();
    let set = changed.set_at_mut(pos);
    set.status = SetStatus::Planned;
    set.actual = None;
    set.completed_at = None;
    let next = next_view(&changed, unit);
    let text = match change.action {
        SetAction::Logged => format!(
            "Undid {} ({}); it is planned again.\n{}",
            label(&before),
            values(&before, true),
            undo_next(&next)
        ),
        SetAction::Skipped => format!(
            "Undid skipping {}; it is planned again.\n{}",
            label(&before),
            undo_next(&next)
        ),
    };
    Outcome {
        text,
        data: CommandData::of(
            &changed,
            unit,
            Shown::Undone {
                undone: before,
                next,
            },
        ),
        changed: Some(changed),
    }
}

fn undo_next(next: &Option<SetView>) -> String {
    match next {
        Some(n) => format!("Next: {}.", describe(n, false)),
        None => "No planned sets left.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::workout::{ExerciseInstance, SetTarget, SetType, WorkoutSet, WorkoutStatus};

    fn target(reps: u32, kg: f64, rir: u32) -> SetTarget {
        SetTarget {
            reps: Some(reps),
            weight_kg: Some(kg),
            rir: Some(rir),
        }
    }

    fn workout() -> Workout {
        Workout {
            bodyweight_kg: None,
            id: "w1".into(),
            name: "Push A".into(),
            status: WorkoutStatus::Active,
            started_at: Utc::now(),
            completed_at: None,
            template_id: None,
            routine_id: None,
            exercises: vec![
                ExerciseInstance {
                    instance_id: "ex1".into(),
                    exercise_id: "barbell-bench-press".into(),
                    name: "Bench Press".into(),
                    sets: vec![
                        WorkoutSet::planned("wu", SetType::Warmup, target(10, 50.0, 5)),
                        WorkoutSet::planned("b1", SetType::Working, target(8, 100.0, 2)),
                        WorkoutSet::planned("b2", SetType::Working, target(8, 100.0, 2)),
                    ],
                    notes: None,
                    rep_range: None,
                    primary_muscles: Vec::new(),
                },
                ExerciseInstance {
                    instance_id: "ex2".into(),
                    exercise_id: "pull-up".into(),
                    name: "Pull-Up".into(),
                    sets: vec![WorkoutSet::planned(
                        "p1",
                        SetType::Working,
                        SetTarget {
                            reps: Some(8),
                            weight_kg: None,
                            rir: None,
                        },
                    )],
                    notes: None,
                    rep_range: None,
                    primary_muscles: Vec::new(),
                },
            ],
            changes: vec![],
            notes: None,
        }
    }

    fn run(cmd: Command, w: &Workout, unit: Unit) -> Outcome {
        validate(&cmd, unit).unwrap();
        apply(&cmd, Some(w), unit, None, Utc::now()).unwrap()
    }

    /// The keys of each answer's `data` (and which are `null`): the wire format the app reads.
    #[test]
    fn answer_data_has_the_documented_keys() {
        fn keys(data: &CommandData) -> Vec<String> {
            let v = serde_json::to_value(data).expect("serialises");
            let map = v.as_object().expect("an object");
            map.iter()
                .map(|(k, v)| format!("{k}{}", if v.is_null() { "=null" } else { "" }))
                .collect()
        }
        let w = workout();
        let none = apply(&Command::LogSet, None, Unit::Kg, None, Utc::now()).unwrap();
        assert_eq!(keys(&none.data), ["active_workout=null"]);
        let next = run(Command::NextSet, &w, Unit::Kg);
        assert_eq!(keys(&next.data), ["next", "unit", "workout_id"]);
        let done = run(Command::LogSet, &w, Unit::Kg);
        assert_eq!(keys(&done.data), ["logged", "next", "unit", "workout_id"]);
        let skip = run(Command::SkipSet, &w, Unit::Kg);
        assert_eq!(keys(&skip.data), ["next", "skipped", "unit", "workout_id"]);
        let done_w = done.changed.expect("logged");
        let undo = run(Command::Undo, &done_w, Unit::Kg);
        assert_eq!(keys(&undo.data), ["next", "undone", "unit", "workout_id"]);
        let nothing = run(Command::Undo, &w, Unit::Kg);
        assert_eq!(keys(&nothing.data), ["undone=null", "unit", "workout_id"]);
        let mut no_reps = workout();
        no_reps.exercises[0].sets[1].target.reps = None;
        let needs = run(Command::LogSet, &no_reps, Unit::Kg);
        assert_eq!(keys(&needs.data), ["needs", "next", "unit", "workout_id"]);
    }

    #[test]
    fn done_logs_the_current_set_as_planned() {
        let out = run(Command::LogSet, &workout(), Unit::Kg);
        assert_eq!(
            out.text,
            "Logged Bench Press set 1 of 2: 8 × 100 kg, RIR 2.\nNext: Bench Press set 2 of 2: 8 × 100 kg."
        );
        let w = out.changed.unwrap();
        let set = &w.exercises[0].sets[1];
        assert_eq!(set.status, SetStatus::Done);
        assert_eq!(set.actual.as_ref().unwrap().weight_kg, Some(100.0));
        assert_eq!(
            w.exercises[0].sets[0].status,
            SetStatus::Planned,
            "warm-ups are not the current set"
        );
        let data = serde_json::to_value(&out.data).expect("serialises");
        assert_eq!(data["logged"]["set_id"], "b1");
        assert_eq!(data["next"]["set_id"], "b2");
    }

    #[test]
    fn shorthand_stores_typed_values_converted_from_pounds() {
        let cmd = Command::LogShorthand {
            reps: 5,
            weight: 225.0,
            unit: Some(Unit::Lb),
            effort: Some(Effort::Rpe(9.0)),
        };
        let out = run(cmd, &workout(), Unit::Lb);
        let a = out.changed.unwrap().exercises[0].sets[1]
            .actual
            .clone()
            .unwrap();
        assert_eq!(a.reps, 5);
        assert!((a.weight_kg.unwrap() - 102.058_283_25).abs() < 1e-6);
        assert_eq!((a.rpe, a.rir), (Some(9.0), Some(1)));
        assert!(
            out.text
                .starts_with("Logged Bench Press set 1 of 2: 5 × 225 lb, RPE 9."),
            "{}",
            out.text
        );
        assert!(
            out.text
                .contains("Next: Bench Press set 2 of 2: 8 × 220.5 lb.")
        );
    }

    #[test]
    fn shorthand_without_unit_uses_the_users_unit() {
        let cmd = Command::LogShorthand {
            reps: 8,
            weight: 100.0,
            unit: None,
            effort: None,
        };
        let out = run(cmd, &workout(), Unit::Kg);
        assert!(
            out.text
                .starts_with("Logged Bench Press set 1 of 2: 8 × 100 kg.\n"),
            "{}",
            out.text
        );
        let a = out.changed.unwrap().exercises[0].sets[1]
            .actual
            .clone()
            .unwrap();
        assert_eq!(
            a.rir, None,
            "effort the lifter did not give is not invented"
        );
    }

    #[test]
    fn reps_only_keeps_the_planned_weight_and_zero_is_a_failed_set() {
        let out = run(
            Command::LogReps {
                reps: 6,
                effort: None,
            },
            &workout(),
            Unit::Kg,
        );
        assert!(
            out.text
                .starts_with("Logged Bench Press set 1 of 2: 6 × 100 kg.")
        );
        let out = run(
            Command::LogReps {
                reps: 0,
                effort: None,
            },
            &workout(),
            Unit::Kg,
        );
        assert!(
            out.text
                .starts_with("Logged Bench Press set 1 of 2: 0 × 100 kg (failed)."),
            "{}",
            out.text
        );
        assert!(
            out.changed.unwrap().exercises[0].sets[1]
                .actual
                .as_ref()
                .unwrap()
                .failure
        );
    }

    #[test]
    fn moves_to_the_next_exercise_and_handles_bodyweight() {
        let mut w = workout();
        for _ in 0..2 {
            w = run(Command::LogSet, &w, Unit::Kg).changed.unwrap();
        }
        let out = run(Command::NextSet, &w, Unit::Kg);
        assert_eq!(out.text, "Next: Pull-Up set 1 of 1: 8 reps.");
        assert!(out.changed.is_none());
        let out = run(Command::LogSet, &w, Unit::Kg);
        assert_eq!(
            out.text,
            "Logged Pull-Up set 1 of 1: 8 reps.\nThat was the last planned set. Finish the workout when you're ready."
        );
        let w = out.changed.unwrap();
        let out = run(Command::LogSet, &w, Unit::Kg);
        assert!(out.changed.is_none());
        assert!(out.text.starts_with("No planned sets left in Push A."));
        assert_eq!(
            run(Command::RestAck, &w, Unit::Kg).text,
            "Ready. All planned sets are done. Finish the workout when you're ready."
        );
    }

    #[test]
    fn rest_ack_names_the_next_set() {
        assert_eq!(
            run(Command::RestAck, &workout(), Unit::Kg).text,
            "Ready. Next: Bench Press set 1 of 2: 8 × 100 kg."
        );
    }

    #[test]
    fn skip_then_undo_restores_the_set() {
        let original = workout();
        let w = run(Command::SkipSet, &original, Unit::Kg).changed.unwrap();
        assert_eq!(w.exercises[0].sets[1].status, SetStatus::Skipped);
        let out = run(Command::Undo, &w, Unit::Kg);
        assert_eq!(
            out.text,
            "Undid skipping Bench Press set 1 of 2; it is planned again.\nNext: Bench Press set 1 of 2: 8 × 100 kg."
        );
        assert_eq!(out.changed.unwrap(), original);
    }

    #[test]
    fn undo_reverts_the_last_logged_set_within_the_window() {
        let w = run(
            Command::LogShorthand {
                reps: 7,
                weight: 95.0,
                unit: None,
                effort: None,
            },
            &workout(),
            Unit::Kg,
        )
        .changed
        .unwrap();
        let out = run(Command::Undo, &w, Unit::Kg);
        assert_eq!(
            out.text,
            "Undid Bench Press set 1 of 2 (7 × 95 kg); it is planned again.\nNext: Bench Press set 1 of 2: 8 × 100 kg."
        );
        let reverted = out.changed.unwrap();
        assert_eq!(reverted.exercises[0].sets[1].actual, None);
        // Nothing left to undo now.
        let out = run(Command::Undo, &reverted, Unit::Kg);
        assert!(out.changed.is_none());
        assert!(out.text.starts_with("Nothing to undo"));
    }

    #[test]
    fn undo_does_not_reach_past_fifteen_minutes() {
        let then = Utc::now() - Duration::minutes(UNDO_WINDOW_MINUTES + 1);
        let w = apply(&Command::LogSet, Some(&workout()), Unit::Kg, None, then)
            .unwrap()
            .changed
            .unwrap();
        let out = apply(&Command::Undo, Some(&w), Unit::Kg, None, Utc::now()).unwrap();
        assert!(out.changed.is_none());
        assert!(out.text.starts_with("Nothing to undo"));
    }

    #[test]
    fn no_active_workout_is_a_reply_not_a_write() {
        let out = apply(&Command::LogSet, None, Unit::Kg, None, Utc::now()).unwrap();
        assert_eq!(out.text, NO_ACTIVE_WORKOUT);
        assert!(out.changed.is_none());
    }

    #[test]
    fn a_different_workout_id_is_refused() {
        let e = apply(
            &Command::LogSet,
            Some(&workout()),
            Unit::Kg,
            Some("other"),
            Utc::now(),
        )
        .unwrap_err();
        assert_eq!(
            e,
            CopilotError::WorkoutMismatch {
                requested: "other".into()
            }
        );
        assert!(
            apply(
                &Command::LogSet,
                Some(&workout()),
                Unit::Kg,
                Some("w1"),
                Utc::now()
            )
            .is_ok()
        );
    }

    #[test]
    fn validation_names_the_field() {
        let heavy = Command::LogShorthand {
            reps: 8,
            weight: 2000.0,
            unit: Some(Unit::Kg),
            effort: None,
        };
        assert_eq!(validate(&heavy, Unit::Kg).unwrap_err().field, "weight");
        // 2000 lb is 907 kg: allowed.
        let lb = Command::LogShorthand {
            reps: 8,
            weight: 2000.0,
            unit: None,
            effort: None,
        };
        assert!(validate(&lb, Unit::Lb).is_ok());
        assert_eq!(
            validate(
                &Command::LogReps {
                    reps: 501,
                    effort: None
                },
                Unit::Kg
            )
            .unwrap_err()
            .field,
            "reps"
        );
        let rir = Command::LogReps {
            reps: 5,
            effort: Some(Effort::Rir(7)),
        };
        assert_eq!(validate(&rir, Unit::Kg).unwrap_err().field, "rir");
    }
}
