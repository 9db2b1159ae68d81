//! The workout copilot: applies a FAST command to the active workout and says, in one or two
//! short lines in the lifter's unit, exactly what was stored and what comes next.
//! Pure: the caller reads the workout, calls [`apply`], and commits `changed` if present.
//! Typed sets (any order, extra sets, exercises added by name) are in `typed`.

mod typed;

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use crate::domain::catalog::Exercise;
use crate::domain::limits::{self, LimitError};
use crate::domain::profile::Profile;
use crate::domain::units::{Unit, format_number, format_weight};
use crate::domain::workout::{Created, RestSource, SetAction, SetPosition, SetStatus, Workout};
use crate::router::{Command, Effort, Load};

pub use typed::exercise_to_add;

/// How far back UNDO reaches.
pub(crate) const UNDO_WINDOW_MINUTES: i64 = 15;

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
        /// Whose clock the set's time is: `client` (the command's `at=`) or `server`; absent
        /// when the command carried no time.
        #[serde(skip_serializing_if = "Option::is_none")]
        time_source: Option<&'static str>,
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
            time_source: None,
        }
    }

    /// Says whose clock timed the command (see [`CommandData::Workout`]).
    pub fn set_time_source(&mut self, source: &'static str) {
        if let CommandData::Workout { time_source, .. } = self {
            *time_source = Some(source);
        }
    }
}

/// The sets an answer shows, by what the command did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Shown {
    /// The sets logged (the last as `logged`), the rest to take before the next planned set
    /// (`null` when none is left), and the exercise added to the workout, if any.
    Logged {
        logged: SetView,
        logged_sets: Vec<SetView>,
        next: Option<SetView>,
        rest_seconds: Option<u32>,
        rest_source: Option<RestSource>,
        added_exercise: Option<String>,
    },
    Skipped {
        skipped: SetView,
        next: Option<SetView>,
    },
    /// The set undone (planned again, or removed when the command had added it), and the next
    /// planned one.
    Undone {
        undone: SetView,
        next: Option<SetView>,
    },
    /// Nothing in the undo window: `undone` is `null`.
    NothingToUndo { undone: () },
    /// The current set has no planned reps: the lifter must type them.
    NeedsReps { needs: &'static str, next: SetView },
    /// The message could mean more than one set: the commands that say each unambiguously.
    Clarification { clarification: Clarification },
    /// The next planned set (`null` when none is left), and the exercise added to the workout
    /// by "now curls", if any.
    Next {
        next: Option<SetView>,
        #[serde(skip_serializing_if = "Option::is_none")]
        added_exercise: Option<String>,
    },
}

/// The question an ambiguous set raises, and the commands that answer it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Clarification {
    pub question: String,
    pub options: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CopilotError {
    #[error(transparent)]
    Invalid(#[from] LimitError),
    /// The prefix names a workout that is not the lifter's active one.
    #[error("workout {requested} is not your active workout")]
    WorkoutMismatch { requested: String },
    /// An exercise name that is neither in the workout nor in the catalog.
    #[error(
        "no exercise '{name}' in this workout or the catalog{}",
        did_you_mean(suggestions)
    )]
    UnknownExercise {
        name: String,
        suggestions: Vec<String>,
    },
}

fn did_you_mean(names: &[String]) -> String {
    if names.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", names.join(", "))
    }
}

/// What a command needs besides the workout: the lifter's unit and profile, the command's time,
/// and (only when it adds an exercise, see [`exercise_to_add`]) the history to plan it from.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    pub unit: Unit,
    /// The prefix's `workout_id`, which must name the active workout when given.
    pub requested_workout: Option<&'a str>,
    pub now: DateTime<Utc>,
    pub profile: &'a Profile,
    pub history: &'a [crate::domain::workout::Workout],
    /// The catalog entry of an exercise the command adds, resolved by the caller.
    pub adding: Option<&'a Exercise>,
}

/// Checks the typed values against the contract's limits before anything is read or written.
/// `unit` is the unit to assume when the lifter typed none. A message with several readings is
/// valid when one of them is.
pub fn validate(cmd: &Command, unit: Unit) -> Result<(), LimitError> {
    let Command::Log(entry) = cmd else {
        return Ok(());
    };
    let mut first_error = None;
    for r in &entry.readings {
        match validate_reading(r, unit) {
            Ok(()) => return Ok(()),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    first_error.map_or(Ok(()), Err)
}

pub fn validate_reading(r: &crate::router::Reading, unit: Unit) -> Result<(), LimitError> {
    if let Some(reps) = r.reps {
        limits::check_reps("reps", reps, reps == 0)?;
    }
    if let Some(s) = r.seconds {
        limits::check_count("seconds", s as usize, limits::MAX_SET_SECONDS as usize)?;
    }
    match r.load {
        Load::Weight { value, unit: typed } | Load::Added { value, unit: typed } => {
            limits::check_weight_kg("weight", typed.unwrap_or(unit).to_kg(value))?;
        }
        Load::Planned | Load::Bodyweight => {}
    }
    check_effort(r.effort)
}

fn check_effort(effort: Option<Effort>) -> Result<(), LimitError> {
    match effort {
        Some(Effort::Rir(r)) => limits::check_rir("rir", r),
        Some(Effort::Rpe(r)) => limits::check_rpe("rpe", r),
        None => Ok(()),
    }
}

/// How far a command's own time may run ahead of the server's and still be taken.
pub(crate) const CLOCK_SKEW: Duration = Duration::minutes(2);
/// A command's time this far ahead of the server's is refused (a broken clock).
pub(crate) const MAX_CLIENT_AHEAD: Duration = Duration::hours(24);
/// A command's time this far behind the server's is refused: an offline queue that old has no
/// workout left to apply to, and the idempotency records that keep a resent command from being
/// applied twice last a day (`store::IDEMPOTENCY_TTL_SECS`).
pub(crate) const MAX_CLIENT_BEHIND: Duration = Duration::hours(24);

/// The time a command's set gets, and whose clock it is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetClock {
    pub at: DateTime<Utc>,
    /// `client` or `server`; `None` when the command carried no time.
    pub source: Option<&'static str>,
    /// Why the client's time was not taken.
    pub note: Option<&'static str>,
}

impl SetClock {
    fn server(at: DateTime<Utc>, note: &'static str) -> Self {
        SetClock {
            at,
            source: Some("server"),
            note: Some(note),
        }
    }
}

/// The time a command's set gets: the client's (`at=`) when plausible, else the server's, with
/// the sentence that says so. A time far in the future or past is an error.
pub fn set_time(
    client: Option<DateTime<Utc>>,
    server: DateTime<Utc>,
    workout_started: Option<DateTime<Utc>>,
) -> Result<SetClock, LimitError> {
    let Some(at) = client else {
        return Ok(SetClock {
            at: server,
            source: None,
            note: None,
        });
    };
    if at > server + MAX_CLIENT_AHEAD || at < server - MAX_CLIENT_BEHIND {
        return Err(LimitError::invalid(
            "at",
            format!(
                "the command's time {} is more than a day ahead of or behind the server's ({}); check the device's clock",
                at.to_rfc3339(),
                server.to_rfc3339()
            ),
        ));
    }
    if at > server + CLOCK_SKEW {
        return Ok(SetClock::server(
            server,
            "Your device's clock is ahead of the server's, so the set is timed by the server.",
        ));
    }
    if workout_started.is_some_and(|s| at < s - CLOCK_SKEW) {
        return Ok(SetClock::server(
            server,
            "The command's time is before this workout started, so the set is timed by the server.",
        ));
    }
    Ok(SetClock {
        at: at.min(server),
        source: Some("client"),
        note: None,
    })
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
    /// A timed set's time.
    pub seconds: Option<u32>,
    pub failure: bool,
}

pub(crate) fn view(w: &Workout, p: SetPosition, unit: Unit) -> SetView {
    let ex = &w.exercises[p.exercise];
    let set = &ex.sets[p.set];
    let (reps, weight_kg, rir, rpe, seconds, failure) = match &set.actual {
        Some(a) if a.is_timed() => (None, a.weight_kg, a.rir, a.rpe, a.seconds, false),
        Some(a) => (
            Some(a.reps),
            a.weight_kg,
            a.rir,
            a.rpe,
            a.seconds,
            a.failure,
        ),
        None => (
            set.target.reps,
            set.target.weight_kg,
            set.target.rir,
            None,
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
        seconds,
        failure,
    }
}

pub(crate) fn label(v: &SetView) -> String {
    format!("{} set {} of {}", v.exercise, v.set_number, v.total_sets)
}

/// "8 × 100 kg", "8 reps", "100 kg"; with effort and failure when stored.
pub(crate) fn values(v: &SetView, with_effort: bool) -> String {
    let mut s = match (v.reps, &v.weight, v.seconds) {
        (None, Some(w), Some(secs)) => format!("{} at {w}", mmss(secs)),
        (None, None, Some(secs)) => mmss(secs),
        (Some(r), Some(w), _) => format!("{r} × {w}"),
        (Some(r), None, _) => format!("{r} reps"),
        (None, Some(w), None) => w.clone(),
        (None, None, None) => String::new(),
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

/// "45 s", "1:30".
pub(crate) fn mmss(seconds: u32) -> String {
    if seconds <= 60 {
        format!("{seconds} s")
    } else {
        format!("{}:{:02}", seconds / 60, seconds % 60)
    }
}

pub(crate) fn describe(v: &SetView, with_effort: bool) -> String {
    let vals = values(v, with_effort);
    if vals.is_empty() {
        label(v)
    } else {
        format!("{}: {vals}", label(v))
    }
}

pub(crate) fn next_view(w: &Workout, unit: Unit) -> Option<SetView> {
    w.current_set().map(|p| view(w, p, unit))
}

fn next_line(next: &Option<SetView>) -> String {
    match next {
        Some(n) => format!("Next: {}.", describe(n, false)),
        None => "That was the last planned set. Finish the workout when you're ready.".into(),
    }
}

pub const NO_ACTIVE_WORKOUT: &str = "No active workout. Start one in the app, then log sets here.";

/// Applies `cmd`. Call [`validate`] first.
pub fn apply(
    cmd: &Command,
    workout: Option<&Workout>,
    inputs: &Inputs<'_>,
) -> Result<Outcome, CopilotError> {
    let unit = inputs.unit;
    let Some(w) = workout else {
        return Ok(Outcome {
            text: NO_ACTIVE_WORKOUT.into(),
            data: CommandData::NoActiveWorkout { active_workout: () },
            changed: None,
        });
    };
    if let Some(req) = inputs.requested_workout
        && req != w.id
    {
        return Err(CopilotError::WorkoutMismatch {
            requested: req.to_string(),
        });
    }
    let now = inputs.now;
    match cmd {
        Command::NextSet => Ok(show_next(w, unit, "")),
        Command::RestAck => Ok(show_next(w, unit, "Ready. ")),
        Command::Undo => Ok(undo(w, unit, now)),
        Command::SkipSet => Ok(skip(w, unit, now)),
        Command::LogSet => Ok(log_planned(w, unit, now)),
        Command::Log(entry) => typed::log(entry, w, inputs),
        Command::Switch { exercise } => typed::switch(exercise, w, inputs),
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
        data: CommandData::of(
            w,
            unit,
            Shown::Next {
                next,
                added_exercise: None,
            },
        ),
        changed: None,
    }
}

fn nothing_left(w: &Workout, unit: Unit) -> Outcome {
    Outcome {
        text: format!(
            "No planned sets left in {}. Type an extra set to add it (like '8 @ 100' or 'curls 12 @ 15'), or finish the workout.",
            w.name
        ),
        data: CommandData::of(
            w,
            unit,
            Shown::Next {
                next: None,
                added_exercise: None,
            },
        ),
        changed: None,
    }
}

/// "done": the current set as planned.
fn log_planned(w: &Workout, unit: Unit, now: DateTime<Utc>) -> Outcome {
    let Some(pos) = w.current_set() else {
        return nothing_left(w, unit);
    };
    let target = w.set_at(pos).target.clone();
    let Some(reps) = target.reps else {
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
    let result = crate::domain::workout::SetResult {
        reps,
        weight_kg: target.weight_kg,
        rir: target.rir,
        failure: reps == 0,
        ..Default::default()
    };
    typed::store_set(&mut changed, pos, result, now, false, Created::Nothing);
    typed::logged_answer(&changed, &[pos], None, unit)
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
    changed.current_exercise = Some(changed.exercises[pos.exercise].instance_id.clone());
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
    // A command that logged several sets is undone whole.
    let mut undone = 0;
    while let Some(c) = changed.changes.pop() {
        undone += 1;
        revert(&mut changed, &c);
        if !c.joined {
            break;
        }
    }
    let next = next_view(&changed, unit);
    let what = if undone > 1 {
        format!("{undone} sets of {}", before.exercise)
    } else {
        label(&before)
    };
    let text = match (change.action, change.created) {
        (SetAction::Skipped, _) => format!(
            "Undid skipping {what}; it is planned again.\n{}",
            undo_next(&next)
        ),
        (SetAction::Logged, Created::Nothing) if undone == 1 => format!(
            "Undid {what} ({}); it is planned again.\n{}",
            values(&before, true),
            undo_next(&next)
        ),
        (SetAction::Logged, _) => format!("Undid {what}.\n{}", undo_next(&next)),
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

/// Takes one change back: a planned set is planned again, an extra set is removed, and so is
/// an exercise the command added once none of its sets is left done.
fn revert(w: &mut Workout, c: &crate::domain::workout::SetChange) {
    let Some(pos) = w.find_set(&c.set_id) else {
        return;
    };
    if c.created == Created::Nothing {
        let set = w.set_at_mut(pos);
        set.status = SetStatus::Planned;
        set.actual = None;
        set.completed_at = None;
        return;
    }
    w.exercises[pos.exercise].sets.remove(pos.set);
    let ex = &w.exercises[pos.exercise];
    let untouched = !ex.sets.iter().any(|s| s.status != SetStatus::Planned);
    if c.created == Created::Exercise && untouched {
        let removed = w.exercises.remove(pos.exercise);
        if w.current_exercise.as_deref() == Some(removed.instance_id.as_str()) {
            w.current_exercise = None;
        }
    }
}

fn undo_next(next: &Option<SetView>) -> String {
    match next {
        Some(n) => format!("Next: {}.", describe(n, false)),
        None => "No planned sets left.".into(),
    }
}

#[cfg(test)]
mod tests;
