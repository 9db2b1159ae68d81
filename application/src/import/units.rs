//! Which unit a Strong export without a `Weight Unit` column is in, and why. The import asks,
//! in order: the request (`?unit=`), the weights themselves when they are decisive, then the
//! lifter's stored profile (a display preference today, not proof of the unit an old export
//! was logged in); when neither tells, the import asks the lifter rather than guess.
//!
//! The weights are read for what only one unit's equipment and lifters produce:
//! - plate arithmetic on the barbell: a pound bar (45) loaded with the usual pound plates (45,
//!   35, 25, 10, 5) ends in 5 (95, 135, 185, 225, 275, 315, 365, 405); kilogram loads are 20
//!   plus pairs of plates and end in 0 as often as in 5. When at least
//!   [`MIN_ROUND_LOADS`] barbell loads are whole multiples of 5, a share ending in 5 of at least
//!   [`POUND_SHARE`] votes pounds (one point a load), at most [`KILOGRAM_SHARE`] kilograms;
//! - the empty kilogram bar: a barbell set at 20 (3 points; 45 says nothing, 45 kg being a
//!   common working load);
//! - small kilogram plates: barbell loads ending in 2.5 or 7.5 (1.25 kg a side; pound gyms
//!   step in 5s), and whole dumbbell or kettlebell weights of 14 or more that are not multiples
//!   of 2.5 (kilogram dumbbells and kettlebells step by 2) (1 point each); machine stacks are
//!   numbered any way and say nothing;
//! - plausibility: a barbell lift whose loads, read as kilograms, only elite lifters reach (a
//!   365 kg deadlift, a 225 kg bench) is a pound lift (5 points a lift).
//!
//! The larger score wins when it is at least twice the other and at least [`ENOUGH`];
//! otherwise the weights do not tell.

use serde::Serialize;

use crate::domain::catalog::{Equipment, catalog};
use crate::domain::units::Unit;
use crate::domain::workout::Workout;

/// The empty bar says the most: a set at exactly the bar's weight.
pub(crate) const EMPTY_BAR_WEIGHT: u32 = 3;
/// Whole multiples of 5 on the barbell needed before their endings vote.
pub(crate) const MIN_ROUND_LOADS: usize = 20;
/// Share of them ending in 5 that says pounds, and the share at or under which it says
/// kilograms (from the exports in `tests/data/exports` and the public ones measured beside
/// them: pound files 0.70–1.0, kilogram files 0.08–0.58).
pub(crate) const POUND_SHARE: f64 = 0.7;
pub(crate) const KILOGRAM_SHARE: f64 = 0.45;
/// Kettlebells sold in pounds whose numbers are whole but not multiples of 2.5 (the US
/// poods and half-poods, 18 to 106 lb): no kilogram evidence.
pub(crate) const POUND_KETTLEBELLS: [f64; 8] = [18.0, 26.0, 44.0, 53.0, 62.0, 88.0, 97.0, 106.0];
/// A load implausible in kilograms weighs this much.
pub(crate) const IMPLAUSIBLE_WEIGHT: u32 = 5;
/// The winner needs this many times the other's score, and at least this much evidence.
pub(crate) const DECISIVE: u32 = 2;
pub(crate) const ENOUGH: u32 = 8;

/// Barbell loads, as kilograms, of elite lifters only (a 320 kg deadlift, a 200 kg bench): in
/// a personal log they are far more likely pounds. Counted once a lift, so that an elite
/// kilogram lifter's many heavy sets cannot outvote their plates.
fn implausible_kg(exercise_id: &str, load: f64) -> bool {
    let limit = match exercise_id {
        "back-squat" | "low-bar-squat" | "box-squat" => 280.0,
        "front-squat" => 220.0,
        "barbell-bench-press" | "close-grip-bench-press" | "incline-barbell-bench-press" => 200.0,
        "deadlift" | "sumo-deadlift" | "trap-bar-deadlift" => 320.0,
        "romanian-deadlift" => 250.0,
        "overhead-press" | "seated-overhead-press" | "push-press" => 130.0,
        "barbell-row" | "pendlay-row" => 180.0,
        "barbell-curl" => 90.0,
        _ => return false,
    };
    load > limit
}

/// Where the unit came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitSource {
    /// The file's `Weight Unit` column, row by row.
    File,
    /// `?unit=` on the request.
    Request,
    Profile,
    /// The heuristic on the weights.
    Weights,
    /// Nothing told: kilograms.
    Default,
}

/// The evidence the weights give, counted over sets as logged (numbers as typed).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Evidence {
    pub pounds: u32,
    pub kilograms: u32,
}

impl Evidence {
    /// The unit the weights point to, if they point anywhere.
    pub fn unit(self) -> Option<Unit> {
        if self.pounds.max(self.kilograms) < ENOUGH {
            return None;
        }
        if self.pounds >= DECISIVE * self.kilograms.max(1) {
            Some(Unit::Lb)
        } else if self.kilograms >= DECISIVE * self.pounds.max(1) {
            Some(Unit::Kg)
        } else {
            None
        }
    }
}

fn is(x: f64, y: f64) -> bool {
    (x - y).abs() < 1e-6
}

/// Scores the weights of `workouts`, parsed as `read_as` (the numbers are taken back to what
/// was typed).
pub fn evidence(workouts: &[Workout], read_as: Unit) -> Evidence {
    let mut e = Evidence::default();
    let (mut round, mut ending_in_5) = (0usize, 0usize);
    let mut implausible = std::collections::BTreeSet::new();
    for inst in workouts.iter().flat_map(|w| w.exercises.iter()) {
        let equipment = catalog().get(&inst.exercise_id).map(|x| x.equipment);
        let barbell = equipment == Some(Equipment::Barbell);
        // Machines and cables have stacks of any numbering: only free weights tell.
        let bells = matches!(equipment, Some(Equipment::Dumbbell | Equipment::Kettlebell));
        let kettlebell = equipment == Some(Equipment::Kettlebell);
        for w in inst
            .sets
            .iter()
            .filter_map(|s| s.actual.as_ref()?.weight_kg)
            .filter(|w| *w > 0.0)
            // Typed numbers have at most two decimals; undo the conversion's float noise.
            .map(|kg| (read_as.from_kg(kg) * 100.0).round() / 100.0)
        {
            // The empty kilogram bar: 20 on a barbell is no pound load (a 45 lb bar). The
            // empty pound bar says less: 45 kg is a common working load.
            if barbell && is(w, 20.0) {
                e.kilograms += EMPTY_BAR_WEIGHT;
            }
            if barbell && is(w, w.round()) && is(w % 5.0, 0.0) && w >= 45.0 {
                round += 1;
                ending_in_5 += usize::from(is(w % 10.0, 5.0));
            }
            if barbell && implausible_kg(&inst.exercise_id, w) {
                implausible.insert(inst.exercise_id.as_str());
            }
            let small_plates = barbell && is(w % 5.0, 2.5);
            let kilo_bells = bells
                && w >= 14.0
                && is(w, w.round())
                && !is(w % 2.5, 0.0)
                && !(kettlebell && POUND_KETTLEBELLS.iter().any(|p| is(w, *p)));
            if small_plates || kilo_bells {
                e.kilograms += 1;
            }
        }
    }
    e.pounds += IMPLAUSIBLE_WEIGHT * implausible.len() as u32;
    if round >= MIN_ROUND_LOADS {
        let share = ending_in_5 as f64 / round as f64;
        if share >= POUND_SHARE {
            e.pounds += round as u32;
        } else if share <= KILOGRAM_SHARE {
            e.kilograms += round as u32;
        }
    }
    e
}

/// The unit decided for a file without a unit column, and the sentence that says why.
pub fn decide(
    requested: Option<Unit>,
    profile: Option<Unit>,
    weights: Evidence,
) -> (Unit, UnitSource, String) {
    let seen = format!(
        "(pound evidence {}, kilogram evidence {})",
        weights.pounds, weights.kilograms
    );
    let (unit, source, mut why) = match (requested, weights.unit(), profile) {
        (Some(u), _, _) => (
            u,
            UnitSource::Request,
            "the request's unit parameter".into(),
        ),
        (None, Some(u), _) => (
            u,
            UnitSource::Weights,
            format!(
                "the weights look like {} {seen}: {}",
                match u {
                    Unit::Lb => "pounds",
                    Unit::Kg => "kilograms",
                },
                "a 45 lb empty bar and 135/225/315/405 loads mean pounds; a 20 kg bar, 2.5 kg steps and 2 kg dumbbell steps mean kilograms"
            ),
        ),
        (None, None, Some(u)) => (
            u,
            UnitSource::Profile,
            format!("your profile's unit (the weights do not tell {seen})"),
        ),
        (None, None, None) => (
            Unit::Kg,
            UnitSource::Default,
            format!("the weights do not tell {seen}, so kilograms"),
        ),
    };
    if source == UnitSource::Request
        && let Some(other) = weights.unit().filter(|u| *u != unit)
    {
        why = format!(
            "{why}; note that the weights look like {} {seen}: if they are, import again with unit={}",
            other.label(),
            other.label()
        );
    }
    if source == UnitSource::Weights
        && let Some(own) = profile.filter(|u| *u != unit)
    {
        why = format!(
            "{why}; your profile says {}, so if the file was logged in {} after all, import again with unit={}",
            own.label(),
            own.label(),
            own.label()
        );
    }
    (
        unit,
        source,
        format!(
            "The file has no Weight Unit column; weights read as {} from {why}.",
            unit.label()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testkit::{session, working};

    fn squat(loads: &[f64]) -> Vec<Workout> {
        let sets: Vec<_> = loads.iter().map(|w| working(*w, 5, None, None)).collect();
        vec![session(0, "back-squat", &sets)]
    }

    #[test]
    fn the_weights_tell_pounds_from_kilograms() {
        // The reported defect: pound loads other than 135/225/315/405 were read as kilograms.
        // On a 45 lb bar with the usual plates, loads end in 5: a file of them is pounds.
        let lb: Vec<f64> = (0..25).map(|i| 95.0 + 10.0 * f64::from(i % 9)).collect();
        let e = evidence(&squat(&lb), Unit::Kg);
        assert_eq!((e.pounds, e.kilograms, e.unit()), (25, 0, Some(Unit::Lb)));
        // Kilogram loads end in 0 as often as in 5 (no vote), and step by 2.5 (small plates):
        // kilograms; so does the empty 20 kg bar.
        let kg: Vec<f64> = (0..25).map(|i| 60.0 + 2.5 * f64::from(i % 8)).collect();
        let e = evidence(&squat(&kg), Unit::Kg);
        assert_eq!(e.unit(), Some(Unit::Kg), "{e:?}");
        let e = evidence(&squat(&[20.0, 62.5, 67.5, 72.5, 77.5, 100.0]), Unit::Kg);
        assert_eq!((e.pounds, e.kilograms, e.unit()), (0, 7, None));
        let e = evidence(&squat(&[20.0, 20.0, 62.5, 67.5, 72.5, 77.5]), Unit::Kg);
        assert_eq!((e.pounds, e.kilograms, e.unit()), (0, 10, Some(Unit::Kg)));
        // A 365 deadlift is no kilogram load in a personal log.
        let dl: Vec<_> = [315.0, 365.0]
            .iter()
            .map(|w| working(*w, 3, None, None))
            .collect();
        let e = evidence(&[session(0, "deadlift", &dl)], Unit::Kg);
        assert_eq!(e.pounds, 5);
        // One such lift alone is thin evidence; with the pound bench beside it, it tells.
        assert_eq!(e.unit(), None);
        let bench: Vec<_> = [225.0, 245.0]
            .iter()
            .map(|w| working(*w, 3, None, None))
            .collect();
        let both = [
            session(0, "deadlift", &dl),
            session(1, "barbell-bench-press", &bench),
        ];
        assert_eq!(evidence(&both, Unit::Kg).unit(), Some(Unit::Lb));
        // Kilogram kettlebells step by 4 and 2: 24 and 28 are not pound weights; a machine's
        // stack says nothing.
        let bells: Vec<_> = [24.0, 28.0, 30.0]
            .iter()
            .map(|w| working(*w, 10, None, None))
            .collect();
        let kb = evidence(&[session(0, "kettlebell-swing", &bells)], Unit::Kg);
        assert_eq!((kb.pounds, kb.kilograms), (0, 2));
        // 26, 44 and 53 are kettlebells sold in pounds too: they say nothing.
        let poods: Vec<_> = [26.0, 44.0, 53.0]
            .iter()
            .map(|w| working(*w, 10, None, None))
            .collect();
        let kb = evidence(&[session(0, "kettlebell-swing", &poods)], Unit::Kg);
        assert_eq!((kb.pounds, kb.kilograms), (0, 0));
        let stack = evidence(&[session(0, "leg-press", &bells)], Unit::Kg);
        assert_eq!((stack.pounds, stack.kilograms), (0, 0));
        // Read back from pounds: the numbers as typed.
        let as_lb: Vec<_> = [315.0, 365.0]
            .iter()
            .map(|w| working(Unit::Lb.to_kg(*w), 5, None, None))
            .collect();
        let e = evidence(&[session(0, "deadlift", &as_lb)], Unit::Lb);
        assert_eq!(e.pounds, 5);
        // A few loads, or a close call, do not tell.
        assert_eq!(evidence(&squat(&[100.0, 105.0]), Unit::Kg).unit(), None);
        let close = Evidence {
            pounds: 30,
            kilograms: 20,
        };
        assert_eq!(close.unit(), None);
    }

    #[test]
    fn the_request_then_decisive_weights_then_the_profile_decide() {
        let lb = Evidence {
            pounds: 25,
            kilograms: 0,
        };
        let (u, s, why) = decide(None, None, lb);
        assert_eq!((u, s), (Unit::Lb, UnitSource::Weights));
        assert!(why.contains("weights read as lb"), "{why}");
        // Decisive weights beat the profile (an old pound log imported by a lifter who now
        // shows kilograms), and the answer says how to overrule them.
        let (u, s, why) = decide(None, Some(Unit::Kg), lb);
        assert_eq!((u, s), (Unit::Lb, UnitSource::Weights));
        assert!(why.contains("import again with unit=kg"), "{why}");
        // Weights that do not tell: the profile's unit.
        let (u, s, why) = decide(None, Some(Unit::Lb), Evidence::default());
        assert_eq!((u, s), (Unit::Lb, UnitSource::Profile));
        assert!(why.contains("do not tell"), "{why}");
        // The request beats both, with a warning when the weights disagree.
        let (u, s, why) = decide(Some(Unit::Kg), Some(Unit::Kg), lb);
        assert_eq!((u, s), (Unit::Kg, UnitSource::Request));
        assert!(why.contains("import again with unit=lb"), "{why}");
        let (u, s, _) = decide(Some(Unit::Lb), Some(Unit::Kg), Evidence::default());
        assert_eq!((u, s), (Unit::Lb, UnitSource::Request));
        let (u, s, why) = decide(None, None, Evidence::default());
        assert_eq!((u, s), (Unit::Kg, UnitSource::Default));
        assert!(why.contains("do not tell"), "{why}");
    }
}
