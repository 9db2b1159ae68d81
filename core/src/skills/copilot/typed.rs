//! Typed sets: "8 @ 100", "bench 100x5", "3x8 @ 100", "plank 60s", "now squats". A named
//! exercise becomes the current one (added to the workout when it is not in it); a set typed when
//! no planned set is left is an extra set; an "AxB" that could be read two ways is settled by
//! the planned set, or asked about.

use chrono::{DateTime, Utc};

use super::{
    Clarification, CommandData, CopilotError, Inputs, Outcome, SetView, Shown, describe, label,
    mmss, next_view, validate_reading, values, view,
};
use crate::domain::catalog::{self, Exercise, catalog};
use crate::domain::limits::LimitError;
use crate::domain::units::{Unit, format_number};
use crate::domain::workout::{
    Created, RestPlan, RestSource, SetAction, SetChange, SetPosition, SetResult, SetStatus,
    SetTarget, SetType, Workout, WorkoutSet,
};
use crate::router::{Effort, Load, Reading, SetEntry};
use crate::skills::suggest::DEFAULT_TARGET_RIR;
use crate::skills::workouts;

/// How far ahead the best reading of an "AxB" must be (in summed log-distance from the planned
/// reps and weight) to be taken without asking.
const CLEAR_MARGIN: f64 = 0.5;
/// A reading of several sets is a little less likely than one set, all else equal.
const SEVERAL_SETS_COST: f64 = 0.3;
/// A weight compared with a loaded exercise that has none planned: no evidence either way.
const UNKNOWN_WEIGHT_COST: f64 = std::f64::consts::LN_2 / 2.0;
/// With nothing planned to compare against, more reps than this reads as a weight.
const PLAUSIBLE_REPS: u32 = 30;
/// A name matching one of the workout's exercises at least this well is that exercise.
const WORKOUT_NAME_SCORE: f64 = crate::skills::workouts::FAMILIAR_NAME_SCORE;

/// Where a name points.
enum Named<'w> {
    /// An exercise of the workout (its index).
    InWorkout(usize),
    /// A catalog exercise the workout does not have yet.
    Catalog(&'w Exercise),
}

/// The exercise `name` means for this workout: one of its own (by catalog identity or by name),
/// else a catalog exercise to add.
fn resolve(w: &Workout, name: &str) -> Result<Named<'static>, CopilotError> {
    let resolved = catalog().resolve(name);
    if let Some(ex) = resolved.exercise() {
        let mine: Vec<usize> = (0..w.exercises.len())
            .filter(|&i| w.exercises[i].exercise_id == ex.id)
            .collect();
        // Of two instances of one exercise, the one with sets still planned.
        let open = mine.iter().copied().find(|&i| w.next_planned(i).is_some());
        if let Some(i) = open.or(mine.first().copied()) {
            return Ok(Named::InWorkout(i));
        }
    }
    // "bench" for the workout's "Dumbbell Bench Press", or one of the lifter's own exercises.
    let best = w
        .exercises
        .iter()
        .enumerate()
        .map(|(i, e)| (catalog::search_score_of(name, &e.name), i))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((score, i)) = best
        && score >= WORKOUT_NAME_SCORE
    {
        return Ok(Named::InWorkout(i));
    }
    if let Some(ex) = resolved.exercise() {
        return Ok(Named::Catalog(ex));
    }
    let mut suggestions: Vec<String> = w
        .exercises
        .iter()
        .filter(|e| catalog::search_score_of(name, &e.name) >= 0.3)
        .map(|e| e.name.clone())
        .collect();
    for e in catalog().closest(name, 3) {
        if !suggestions.contains(&e.name) {
            suggestions.push(e.name.clone());
        }
    }
    suggestions.truncate(4);
    Err(CopilotError::UnknownExercise {
        name: name.to_string(),
        suggestions,
    })
}

/// The catalog exercise `cmd` would add to the workout (a named set or "now curls" for an
/// exercise it does not have): the caller reads the history to plan it, then calls `apply`.
pub fn exercise_to_add(cmd: &crate::router::Command, w: &Workout) -> Option<&'static Exercise> {
    let name = match cmd {
        crate::router::Command::Log(SetEntry {
            exercise: Some(n), ..
        }) => n,
        crate::router::Command::Switch { exercise } => exercise,
        _ => return None,
    };
    match resolve(w, name) {
        Ok(Named::Catalog(ex)) => Some(ex),
        _ => None,
    }
}

/// The workout with `ex` appended, planned from the history like a started workout (its
/// index too), or an error when the workout has no room.
fn add(
    w: &Workout,
    ex: &Exercise,
    inputs: &Inputs<'_>,
    typed: Option<(u32, f64)>,
) -> Result<(Workout, usize), CopilotError> {
    let add = workouts::Addition {
        exercise: ex,
        sets: workouts::DEFAULT_SETS,
        reps: typed.map_or(workouts::DEFAULT_REPS, |t| t.0),
        rir: DEFAULT_TARGET_RIR,
        weight_kg: typed.map(|t| t.1),
        warmup: Some(false),
    };
    let (changed, idx) =
        workouts::add_exercise(w, &add, inputs.history, inputs.profile, inputs.now);
    workouts::validate(&changed)?;
    Ok((changed, idx))
}

/// "now squats": the named exercise becomes the current one (added when new); nothing logged.
pub(super) fn switch(
    name: &str,
    w: &Workout,
    inputs: &Inputs<'_>,
) -> Result<Outcome, CopilotError> {
    let unit = inputs.unit;
    let (mut changed, ei, added) = match resolve(w, name)? {
        Named::InWorkout(i) => (w.clone(), i, false),
        Named::Catalog(ex) => {
            let (c, i) = add(w, inputs.adding.unwrap_or(ex), inputs, None)?;
            (c, i, true)
        }
    };
    changed.current_exercise = Some(changed.exercises[ei].instance_id.clone());
    let next = next_view(&changed, unit);
    let ex_name = changed.exercises[ei].name.clone();
    let lead = if added {
        format!("Added {ex_name} to the workout. ")
    } else {
        String::new()
    };
    let text = match &next {
        Some(n) if n.exercise_instance_id == changed.exercises[ei].instance_id => {
            format!("{lead}Now {ex_name}: next is {}.", describe(n, false))
        }
        Some(n) => format!(
            "{lead}{ex_name} has no planned sets left: type one to add it. Next planned: {}.",
            describe(n, false)
        ),
        None => format!("{lead}{ex_name} has no planned sets left: type one to add it."),
    };
    let added_exercise = added.then(|| changed.exercises[ei].instance_id.clone());
    Ok(Outcome {
        text,
        data: CommandData::of(
            &changed,
            unit,
            Shown::Next {
                next,
                added_exercise,
            },
        ),
        changed: Some(changed),
    })
}

/// A typed set.
pub(super) fn log(
    entry: &SetEntry,
    w: &Workout,
    inputs: &Inputs<'_>,
) -> Result<Outcome, CopilotError> {
    let unit = inputs.unit;
    // The exercise: the one named, else the current set's, else the one the lifter was on.
    let (mut changed, ei, start, added) = match &entry.exercise {
        Some(name) => match resolve(w, name) {
            Ok(Named::InWorkout(i)) => (w.clone(), i, None, false),
            Ok(Named::Catalog(ex)) => {
                // The set typed plans the others when the lift has no history (`typed_set`).
                let typed = typed_set(entry, ex, inputs);
                let (mut c, i) = add(w, inputs.adding.unwrap_or(ex), inputs, typed)?;
                if entry.readings.iter().all(|r| r.seconds.is_some()) {
                    // A timed exercise (a plank, a carry) is not planned in reps.
                    for s in &mut c.exercises[i].sets {
                        s.target.reps = None;
                    }
                }
                (c, i, None, true)
            }
            // A word several exercises share is a question, not an error.
            Err(e) => return which_exercise(w, name, entry, unit).ok_or(e),
        },
        None => match w.current_set() {
            Some(p) => match more_of_current(w, p, &entry.readings, inputs.unit) {
                Some(ei) => (w.clone(), ei, None, false),
                None => (w.clone(), p.exercise, Some(p.set), false),
            },
            None => match last_exercise(w) {
                Some(i) => (w.clone(), i, None, false),
                None => {
                    return Ok(Outcome {
                        text: "This workout has no exercises yet: name one with the set, like 'bench 8 @ 100'.".into(),
                        data: CommandData::of(w, unit, Shown::Next { next: None, added_exercise: None }),
                        changed: None,
                    });
                }
            },
        },
    };
    let first = start.or_else(|| changed.next_planned(ei));
    let reference = reference(&changed, ei, first);
    let bodyweight = uses_bodyweight(&changed, ei);
    let valid: Vec<&Reading> = entry
        .readings
        .iter()
        .filter(|r| validate_reading(r, unit).is_ok())
        .collect();
    let reading = match choose(&valid, reference, bodyweight) {
        Choice::One(r) => r,
        Choice::Ask(options) => {
            let name = entry.exercise.as_deref();
            return Ok(ask(w, &options, name, &changed.exercises[ei].name, unit));
        }
        Choice::None => {
            // validate() passed on some reading, so this is not reached; keep an error anyway.
            return Err(
                LimitError::invalid("reps", "no reading of this set is within the limits").into(),
            );
        }
    };
    check_load(reading.load, &changed, ei)?;
    let mut positions = Vec::with_capacity(reading.sets as usize);
    for n in 0..reading.sets {
        let (pos, created) = match (n, first) {
            (0, Some(si)) => (changed.position(ei, si), Created::Nothing),
            _ => match changed.next_planned(ei) {
                Some(si) => (changed.position(ei, si), Created::Nothing),
                None => (append_set(&mut changed, ei), Created::Set),
            },
        };
        let created = if added && n == 0 {
            Created::Exercise
        } else {
            created
        };
        let result = result_of(reading, &changed, pos, unit);
        store_set(&mut changed, pos, result, inputs.now, n > 0, created);
        positions.push(pos);
    }
    crate::skills::workouts::validate(&changed)?;
    let added_exercise = added.then(|| changed.exercises[ei].instance_id.clone());
    Ok(logged_answer(&changed, &positions, added_exercise, unit))
}

/// An unnamed set typed after the current exercise's planned sets are done: one more set of
/// it, or the first of the next planned set (`p`, in another exercise)? The values decide: the
/// exercise whose last or planned set they are closer to; when that is not clear, the lifter is
/// still on the exercise they were doing. `None`: the next planned set.
fn more_of_current(w: &Workout, p: SetPosition, readings: &[Reading], unit: Unit) -> Option<usize> {
    let current = last_exercise(w)?;
    if current == p.exercise || w.group_of(current).contains(&p.exercise) {
        return None;
    }
    if !w.exercises[current]
        .sets
        .iter()
        .any(|s| s.status == SetStatus::Done)
    {
        return None;
    }
    // Only a typed load says which exercise a set was ("10" alone follows the plan).
    let valid: Vec<&Reading> = readings
        .iter()
        .filter(|r| r.load != Load::Planned && validate_reading(r, unit).is_ok())
        .collect();
    if valid.is_empty() {
        return None;
    }
    let best = |ei: usize, planned: Option<usize>| {
        let reference = reference(w, ei, planned);
        let bodyweight = uses_bodyweight(w, ei);
        valid
            .iter()
            .map(|r| cost(r, reference, bodyweight))
            .fold(f64::INFINITY, f64::min)
    };
    let next = best(p.exercise, Some(p.set));
    let more = best(current, None);
    (next - more > -CLEAR_MARGIN).then_some(current)
}

/// The exercise the lifter was on when nothing planned is left: the chosen one, else the one
/// logged last, else the last.
fn last_exercise(w: &Workout) -> Option<usize> {
    w.current_index()
        .or_else(|| {
            w.changes
                .iter()
                .rev()
                .find_map(|c| w.find_set(&c.set_id))
                .map(|p| p.exercise)
        })
        .or_else(|| w.exercises.len().checked_sub(1))
}

/// A done working set appended to the exercise, with an id no other set has.
fn append_set(w: &mut Workout, ei: usize) -> SetPosition {
    let ex = &w.exercises[ei];
    let mut n = ex.sets.len() + 1;
    while w.find_set(&format!("{}-s{n}", ex.instance_id)).is_some() {
        n += 1;
    }
    let id = format!("{}-s{n}", ex.instance_id);
    let ex = &mut w.exercises[ei];
    ex.sets.push(WorkoutSet::planned(
        id,
        SetType::Working,
        Default::default(),
    ));
    w.position(ei, w.exercises[ei].sets.len() - 1)
}

/// Marks the set at `pos` done with `result` at `now`, records the change, and makes its
/// exercise the current one.
pub(super) fn store_set(
    w: &mut Workout,
    pos: SetPosition,
    result: SetResult,
    now: DateTime<Utc>,
    joined: bool,
    created: Created,
) {
    let set = w.set_at_mut(pos);
    set.actual = Some(result);
    set.status = SetStatus::Done;
    set.completed_at = Some(now);
    let set_id = set.id.clone();
    w.push_change(SetChange {
        set_id,
        action: SetAction::Logged,
        at: now,
        joined,
        created,
    });
    w.current_exercise = Some(w.exercises[pos.exercise].instance_id.clone());
}

/// The planned reps and weight a reading is compared with: the set about to be filled, else the
/// exercise's last done set.
#[derive(Debug, Clone, Copy, Default)]
struct Reference {
    reps: Option<u32>,
    weight_kg: Option<f64>,
}

fn reference(w: &Workout, ei: usize, planned: Option<usize>) -> Reference {
    let sets = &w.exercises[ei].sets;
    if let Some(si) = planned {
        let t = &sets[si].target;
        return Reference {
            reps: t.reps,
            weight_kg: t.weight_kg,
        };
    }
    sets.iter()
        .rev()
        .find_map(|s| s.actual.as_ref().filter(|_| s.status == SetStatus::Done))
        .map(|a| Reference {
            reps: Some(a.reps).filter(|r| *r > 0),
            weight_kg: a.weight_kg,
        })
        .unwrap_or_default()
}

fn uses_bodyweight(w: &Workout, ei: usize) -> Option<bool> {
    catalog()
        .get(&w.exercises[ei].exercise_id)
        .map(|e| e.loading.uses_bodyweight())
}

enum Choice<'r> {
    One(&'r Reading),
    Ask(Vec<&'r Reading>),
    None,
}

/// The reading closest to the plan, when it is clearly closest; else the ones to ask about.
fn choose<'r>(
    readings: &[&'r Reading],
    reference: Reference,
    bodyweight: Option<bool>,
) -> Choice<'r> {
    match readings {
        [] => return Choice::None,
        [only] => return Choice::One(only),
        _ => {}
    }
    let mut scored: Vec<(f64, &'r Reading)> = readings
        .iter()
        .map(|r| (cost(r, reference, bodyweight), *r))
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    if scored[1].0 - scored[0].0 >= CLEAR_MARGIN {
        Choice::One(scored[0].1)
    } else {
        Choice::Ask(
            scored
                .iter()
                .take_while(|(c, _)| c - scored[0].0 < CLEAR_MARGIN)
                .map(|(_, r)| *r)
                .collect(),
        )
    }
}

/// How far a reading is from the reference set: summed log-distance of reps and weight (a
/// weight on a loaded exercise with no weight to compare counts as half a doubling), plus a
/// little for several sets at once.
fn cost(r: &Reading, reference: Reference, bodyweight: Option<bool>) -> f64 {
    let log_distance = |a: f64, b: f64| (a.max(0.5) / b.max(0.5)).ln().abs();
    let reps = match (r.reps, reference.reps) {
        (Some(got), Some(planned)) => log_distance(f64::from(got), f64::from(planned)),
        (Some(got), None) if got > PLAUSIBLE_REPS => 2.0,
        _ => 0.0,
    };
    let weight = match (r.load, reference.weight_kg) {
        (Load::Weight { value, .. }, Some(planned)) => log_distance(value, planned),
        // A plain weight on a bodyweight exercise planned without one.
        (Load::Weight { .. }, None) if bodyweight == Some(true) => 1.0,
        (Load::Weight { .. }, None) => UNKNOWN_WEIGHT_COST,
        // Bodyweight work typed for a loaded exercise: not this one.
        (Load::Bodyweight | Load::Added { .. }, _) if bodyweight == Some(false) => 3.0,
        _ => 0.0,
    };
    let several = if r.sets > 1 { SEVERAL_SETS_COST } else { 0.0 };
    reps + weight + several
}

/// A clarification: the question, and each reading as a command that cannot be misread.
fn ask(
    w: &Workout,
    options: &[&Reading],
    named: Option<&str>,
    exercise: &str,
    unit: Unit,
) -> Outcome {
    let commands: Vec<String> = options
        .iter()
        .map(|r| {
            let cmd = command_text(r, unit);
            match named {
                Some(n) => format!("{n} {cmd}"),
                None => cmd,
            }
        })
        .collect();
    let meanings: Vec<String> = options.iter().map(|r| meaning(r, unit)).collect();
    let question = format!(
        "Did you mean {} on {exercise}? Nothing was logged: send '{}'.",
        meanings.join(" or "),
        commands.join("' or '")
    );
    Outcome {
        text: question.clone(),
        data: CommandData::of(
            w,
            unit,
            Shown::Clarification {
                clarification: Clarification {
                    question,
                    options: commands,
                },
            },
        ),
        changed: None,
    }
}

/// With no history of its own, an exercise added by a typed set plans its other sets at that
/// set ("row 8 @ 60": three of 8 at 60 kg), less a plate step a rep of reserve the set left
/// short of the plan's; with one, the progression plans them as ever (a warm-up typed first
/// does not set the working load).
fn typed_set(entry: &SetEntry, ex: &Exercise, inputs: &Inputs<'_>) -> Option<(u32, f64)> {
    let (unit, profile) = (inputs.unit, inputs.profile);
    let own =
        crate::analysis::history::sessions_with(inputs.history, &ex.id, DateTime::<Utc>::MIN_UTC);
    if !own.is_empty() {
        return None;
    }
    let mut valid = entry
        .readings
        .iter()
        .filter(|r| validate_reading(r, unit).is_ok());
    let r = valid.next()?;
    if valid.next().is_some() {
        return None;
    }
    let (Some(reps), Load::Weight { value, unit: u }) = (r.reps, r.load) else {
        return None;
    };
    if reps == 0 {
        return None;
    }
    let kg = u.unwrap_or(unit).to_kg(value);
    // A set taken closer to failure than the plan's reserve: a step off per rep short.
    let reserve = match r.effort {
        Some(Effort::Rir(x)) => Some(x),
        Some(Effort::Rpe(x)) => Some((10.0 - x).max(0.0).round() as u32),
        None => None,
    };
    let short = reserve.map_or(0, |x| DEFAULT_TARGET_RIR.saturating_sub(x));
    let step = crate::domain::profile::step_for(Some(ex), profile);
    let planned = (kg - f64::from(short) * step).max(step.min(kg));
    Some((reps, planned))
}

/// A set named by a word several catalog exercises share ("row 8 @ 60": the barbell, dumbbell,
/// cable row...): the question which, with the command that logs each, and nothing logged.
fn which_exercise(w: &Workout, name: &str, entry: &SetEntry, unit: Unit) -> Option<Outcome> {
    let catalog::Resolution::Unsure { candidates } = catalog().resolve(name) else {
        return None;
    };
    let reading = entry
        .readings
        .iter()
        .find(|r| validate_reading(r, unit).is_ok())?;
    if candidates.len() < 2 {
        return None;
    }
    let set = command_text(reading, unit);
    let options: Vec<String> = candidates
        .iter()
        .map(|e| format!("{} {set}", e.name.to_lowercase()))
        .collect();
    let names: Vec<&str> = candidates.iter().map(|e| e.name.as_str()).collect();
    let question = format!(
        "Which exercise is '{name}': {}? Nothing was logged: send '{}'.",
        names.join(", "),
        options.join("' or '")
    );
    Some(Outcome {
        text: question.clone(),
        data: CommandData::of(
            w,
            unit,
            Shown::Clarification {
                clarification: Clarification { question, options },
            },
        ),
        changed: None,
    })
}

fn weight_text(load: Load, unit: Unit) -> Option<String> {
    match load {
        Load::Weight { value, unit: u } => Some(format!(
            "{} {}",
            format_number(value, Unit::Lb),
            u.unwrap_or(unit).label()
        )),
        Load::Added { value, unit: u } => Some(format!(
            "+{} {}",
            format_number(value, Unit::Lb),
            u.unwrap_or(unit).label()
        )),
        Load::Bodyweight => Some("bw".into()),
        Load::Planned => None,
    }
}

/// "8 @ 100 kg", "3 sets of 8 @ 8 kg", "100 kg × 8 @9" as a command.
fn command_text(r: &Reading, unit: Unit) -> String {
    let reps = r.reps.unwrap_or(0);
    let mut s = if r.sets > 1 {
        format!("{} sets of {reps}", r.sets)
    } else {
        reps.to_string()
    };
    if let Some(w) = weight_text(r.load, unit) {
        s.push_str(&format!(" @ {w}"));
    }
    match r.effort {
        Some(Effort::Rpe(x)) => s.push_str(&format!(" rpe {}", format_number(x, Unit::Lb))),
        Some(Effort::Rir(x)) => s.push_str(&format!(" rir {x}")),
        None => {}
    }
    s
}

/// "8 reps at 100 kg", "3 sets of 8 at the planned weight".
fn meaning(r: &Reading, unit: Unit) -> String {
    let reps = r.reps.unwrap_or(0);
    let sets = if r.sets > 1 {
        format!("{} sets of {reps} reps", r.sets)
    } else {
        format!("{reps} reps")
    };
    match weight_text(r.load, unit) {
        Some(w) => format!("{sets} at {w}"),
        None => format!("{sets} at the planned weight"),
    }
}

/// Added weight and bodyweight only on exercises that move the body.
fn check_load(load: Load, w: &Workout, ei: usize) -> Result<(), CopilotError> {
    let name = &w.exercises[ei].name;
    match (load, uses_bodyweight(w, ei)) {
        (Load::Added { .. }, Some(false)) => Err(LimitError::invalid(
            "weight",
            format!("'+' adds weight to bodyweight, and {name} is not a bodyweight exercise: type its whole weight, like '8 @ 100'"),
        )
        .into()),
        (Load::Bodyweight, Some(false)) => Err(LimitError::invalid(
            "weight",
            format!("{name} is not a bodyweight exercise: type its weight, like '8 @ 100'"),
        )
        .into()),
        _ => Ok(()),
    }
}

/// What is stored for a reading at `pos`: typed values, the plan's weight when none was typed
/// (for an extra set, the weight of the set before it).
fn result_of(r: &Reading, w: &Workout, pos: SetPosition, unit: Unit) -> SetResult {
    let planned_weight = || {
        let sets = &w.exercises[pos.exercise].sets;
        let target = &sets[pos.set].target;
        if *target != SetTarget::default() {
            return target.weight_kg;
        }
        // An extra set, planned by nothing: the weight of the set before it.
        sets[..pos.set].iter().rev().find_map(|s| {
            s.actual
                .as_ref()
                .and_then(|a| a.weight_kg)
                .or(s.target.weight_kg)
        })
    };
    let weight_kg = match r.load {
        Load::Planned => planned_weight(),
        Load::Weight { value, unit: u } | Load::Added { value, unit: u } => {
            Some(u.unwrap_or(unit).to_kg(value))
        }
        Load::Bodyweight => None,
    };
    let reps = r.reps.unwrap_or(0);
    SetResult {
        reps,
        weight_kg,
        rir: match r.effort {
            Some(Effort::Rir(x)) => Some(x),
            Some(Effort::Rpe(rpe)) => Some((10.0 - rpe).floor().max(0.0) as u32),
            None => None,
        },
        rpe: match r.effort {
            Some(Effort::Rpe(x)) => Some(x),
            _ => None,
        },
        failure: r.reps == Some(0),
        seconds: r.seconds,
        ..Default::default()
    }
}

/// The answer to a logging command: what was stored, the rest to take, what is next.
pub(super) fn logged_answer(
    w: &Workout,
    positions: &[SetPosition],
    added_exercise: Option<String>,
    unit: Unit,
) -> Outcome {
    let logged_sets: Vec<SetView> = positions.iter().map(|p| view(w, *p, unit)).collect();
    let Some(last) = logged_sets.last().cloned() else {
        return super::show_next(w, unit, "");
    };
    let next = next_view(w, unit);
    let rest = next
        .as_ref()
        .map(|_| rest_after(w, positions[positions.len() - 1]));
    let mut text = String::new();
    if added_exercise.is_some() {
        text.push_str(&format!("Added {} to the workout. ", last.exercise));
    }
    let extra = w.changes.last().is_some_and(|c| c.created == Created::Set);
    let what = match logged_sets.as_slice() {
        [one] if extra => format!("an extra set of {} (set {})", one.exercise, one.set_number),
        [one] => label(one),
        [a, .., b] => format!(
            "{} sets of {} (sets {}–{} of {})",
            logged_sets.len(),
            a.exercise,
            a.set_number,
            b.set_number,
            b.total_sets
        ),
        [] => String::new(),
    };
    let each = if logged_sets.len() > 1 { " each" } else { "" };
    text.push_str(&format!("Logged {what}: {}{each}.\n", values(&last, true)));
    text.push_str(&match (&next, rest) {
        (Some(n), Some((0, _))) => {
            format!("Next: {} (superset: go straight on).", describe(n, false))
        }
        (Some(n), Some((secs, _))) => format!("Rest {}. Next: {}.", mmss(secs), describe(n, false)),
        _ => "That was the last planned set. Finish the workout when you're ready.".into(),
    });
    Outcome {
        data: CommandData::of(
            w,
            unit,
            Shown::Logged {
                logged: last,
                logged_sets,
                next,
                rest_seconds: rest.map(|r| r.0),
                rest_source: rest.map(|r| r.1),
                added_exercise,
            },
        ),
        text,
        changed: Some(w.clone()),
    }
}

/// The rest after the set at `pos`: none between the exercises of a superset's round, else the
/// exercise's (or, after a round, the superset's longest) planned rest (the template's or the lifter's own median), else a default by the
/// set's reps.
pub(crate) fn rest_after(w: &Workout, pos: SetPosition) -> (u32, RestSource) {
    let members = w.group_of(pos.exercise);
    if members.len() > 1 {
        let this = w.sets_behind(pos.exercise);
        let round_open = members
            .iter()
            .any(|&m| m != pos.exercise && w.sets_behind(m) < this && w.next_planned(m).is_some());
        if round_open {
            return (0, RestSource::Superset);
        }
    }
    // After a superset's round, the longest rest any of its exercises plans.
    let planned = members
        .iter()
        .filter_map(|&m| w.exercises[m].rest)
        .max_by_key(|r| r.seconds);
    if let Some(RestPlan { seconds, source }) = planned {
        return (seconds, source);
    }
    let set = w.set_at(pos);
    let reps = set
        .actual
        .as_ref()
        .map(|a| a.reps)
        .or(set.target.reps)
        .unwrap_or(8);
    let timed = set.actual.as_ref().is_some_and(SetResult::is_timed);
    let seconds = match reps {
        _ if timed => 60,
        0..=5 => 180,
        6..=12 => 120,
        _ => 90,
    };
    (seconds, RestSource::Default)
}
