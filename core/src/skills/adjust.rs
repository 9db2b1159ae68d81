//! `ADJUST_LOAD`: the lifter's "heavier" or "lighter" on a planned set. A press moves the load
//! of the set (and, by default, of the exercise's planned sets after it) by whole steps of the
//! lifter's smallest jump on that equipment, or by a percentage rounded to that step. Up is held
//! to what the lifter's history supports for the set's reps and reserve (the progression's
//! suggestion plus one step, as the coach's loads are); down is never held. A load the lifter
//! types when logging is theirs, whatever this allows.

use serde::Serialize;

use crate::domain::units::round_to_step;
use crate::domain::workout::{SetStatus, Workout};

/// Steps one press may move.
pub const MAX_STEPS: i32 = 5;
/// The percentages one press may move: a deload's 30 % down, a tenth up.
pub const MIN_PERCENT: f64 = -30.0;
pub const MAX_PERCENT: f64 = 10.0;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Change {
    Steps(i32),
    Percent(f64),
}

/// Which sets a press changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The set alone.
    Set,
    /// The set and the planned sets of its kind after it in the exercise.
    Remaining,
}

/// What a press did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Adjusted {
    pub exercise_instance_id: String,
    pub exercise_name: String,
    pub from_kg: f64,
    pub to_kg: f64,
    /// The planned sets whose load changed.
    pub set_ids: Vec<String>,
    /// The history's bound, when it held the load back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_at_kg: Option<f64>,
}

/// The load `base` moved by `change` on `step`-kg plates: at least one step in the change's
/// direction, and never below one step (a "lighter" press does not empty the bar).
pub fn moved(base: f64, change: Change, step: f64) -> f64 {
    let step = if step > 0.0 { step } else { 1.0 };
    let raw = match change {
        Change::Steps(n) => base + f64::from(n) * step,
        Change::Percent(p) => round_to_step(base * (1.0 + p / 100.0), step),
    };
    let moved = if up(change) {
        raw.max(base + step)
    } else {
        raw.min(base - step).max(step.min(base))
    };
    (moved * 1000.0).round() / 1000.0
}

fn up(change: Change) -> bool {
    match change {
        Change::Steps(n) => n > 0,
        Change::Percent(p) => p > 0.0,
    }
}

/// One set's new load: `base` moved, held (up only) to `bound` on the plates, never below
/// where it was when held; `None` when the bound leaves it where it is.
fn one(base: f64, change: Change, step: f64, bound: Option<f64>) -> (f64, Option<f64>) {
    let wanted = moved(base, change, step);
    match bound {
        Some(b) if up(change) && wanted > b + 1e-6 => {
            let allowed = ((b / step.max(1e-9) + 1e-9).floor() * step).max(base);
            (allowed, Some(b))
        }
        _ => (wanted, None),
    }
}

/// The workout with the set at (`ei`, `si`) (and, with [`Scope::Remaining`], the planned sets
/// of its kind after it) moved by `change`: each set by the same steps or percentage from its
/// own load (a top set and its back-offs keep their gap; "lighter" lowers every one), each held
/// up to `bound(its reps, its reserve)`, what the history supports for that set. An error says
/// why nothing can change.
pub fn adjust(
    w: &Workout,
    (ei, si): (usize, usize),
    change: Change,
    scope: Scope,
    step: f64,
    bound: impl Fn(&crate::domain::workout::SetTarget) -> Option<f64>,
) -> Result<(Workout, Adjusted), String> {
    let ex = &w.exercises[ei];
    let set = &ex.sets[si];
    if set.status != SetStatus::Planned {
        return Err(format!(
            "set {} of {} is already {}: only a planned set's load changes",
            si + 1,
            ex.name,
            if set.status == SetStatus::Done {
                "logged"
            } else {
                "skipped"
            }
        ));
    }
    let Some(base) = set.target.weight_kg.filter(|kg| *kg > 0.0) else {
        return Err(format!(
            "this set of {} has no planned load to change (bodyweight, or none planned yet): ask SUGGEST_WEIGHT for one, or type the set with its load",
            ex.name
        ));
    };
    let mut changed = w.clone();
    let kind = set.set_type;
    let mut ids = Vec::new();
    let (mut to, mut held) = (base, None);
    for (i, s) in changed.exercises[ei].sets.iter_mut().enumerate() {
        let chosen = match scope {
            Scope::Set => i == si,
            Scope::Remaining => i >= si && s.set_type == kind && s.status == SetStatus::Planned,
        };
        let Some(kg) = s.target.weight_kg.filter(|kg| *kg > 0.0 && chosen) else {
            continue;
        };
        let (new, limit) = one(kg, change, step, bound(&s.target));
        if i == si {
            (to, held) = (new, limit);
        }
        if (new - kg).abs() > 1e-9 {
            s.target.weight_kg = Some(new);
            ids.push(s.id.clone());
        }
    }
    if ids.is_empty() {
        return Err(format!(
            "{} is already at the most your history supports for these reps ({}): log a heavier set yourself if you have it today",
            ex.name,
            crate::domain::units::format_weight(base, crate::domain::units::Unit::Kg)
        ));
    }
    let adjusted = Adjusted {
        exercise_instance_id: ex.instance_id.clone(),
        exercise_name: ex.name.clone(),
        from_kg: base,
        to_kg: to,
        set_ids: ids,
        held_at_kg: held,
    };
    Ok((changed, adjusted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_press_moves_by_whole_steps_and_a_percentage_rounds_to_the_plates() {
        assert_eq!(moved(100.0, Change::Steps(1), 2.5), 102.5);
        assert_eq!(moved(100.0, Change::Steps(-2), 2.5), 95.0);
        // 10 % off 100 on 2.5 kg plates: 90; 1 % up is still one step.
        assert_eq!(moved(100.0, Change::Percent(-10.0), 2.5), 90.0);
        assert_eq!(moved(100.0, Change::Percent(1.0), 2.5), 102.5);
        // Never below one step: "lighter" does not empty the bar.
        assert_eq!(moved(5.0, Change::Steps(-3), 2.5), 2.5);
    }

    #[test]
    fn a_top_set_and_its_back_offs_keep_their_gap_and_lighter_lowers_each() {
        use crate::domain::workout::{SetTarget, SetType, WorkoutSet};
        let set = |id: &str, reps: u32, kg: f64| {
            WorkoutSet::planned(
                id.to_string(),
                SetType::Working,
                SetTarget {
                    reps: Some(reps),
                    weight_kg: Some(kg),
                    rir: Some(2),
                },
            )
        };
        let mut w = crate::analysis::testkit::session(0, "back-squat", &[]);
        w.exercises[0].sets = vec![
            set("top", 3, 140.0),
            set("b1", 8, 110.0),
            set("b2", 8, 110.0),
        ];
        let loads = |w: &Workout| -> Vec<f64> {
            w.exercises[0]
                .sets
                .iter()
                .filter_map(|s| s.target.weight_kg)
                .collect()
        };
        // Ten percent lighter from the top set: every set lighter, none raised to the top's.
        let (lighter, _) = adjust(
            &w,
            (0, 0),
            Change::Percent(-10.0),
            Scope::Remaining,
            2.5,
            |_| None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loads(&lighter), vec![125.0, 100.0, 100.0]);
        // One step heavier, each set held by what the history supports for its own reps.
        let bound = |t: &crate::domain::workout::SetTarget| match t.reps {
            Some(3) => Some(150.0),
            _ => Some(111.0),
        };
        let (heavier, a) = adjust(&w, (0, 0), Change::Steps(1), Scope::Remaining, 2.5, bound)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(loads(&heavier), vec![142.5, 110.0, 110.0]);
        assert_eq!(
            a.set_ids,
            ["top"],
            "the back-offs were held where they were"
        );
    }
}
