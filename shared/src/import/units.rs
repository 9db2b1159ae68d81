//! Which unit a Strong export without a `Weight Unit` column is in, and why. The import asks,
//! in order: the request (`?unit=`), the lifter's stored profile, then the weights themselves.
//!
//! The weights are read for what only one unit's equipment produces:
//! - pounds: a barbell set at 45 (the empty pound bar; weighs 3), and barbell loads of 135,
//!   225, 315 and 405 (one to four 45 lb plates a side);
//! - kilograms: a barbell set at 20 (the empty kilogram bar; weighs 3), loads ending in 2.5
//!   or 7.5 (1.25 kg plates a side; pound gyms step in 5s), and whole loads of 14 or more that
//!   are not multiples of 2.5 (22, 24, 26, 28, 32: kilogram dumbbells and kettlebells step by 2).
//!
//! The larger score wins; with no evidence either way, or a tie, the file is read as kilograms
//! and the answer says the weights did not tell.

use serde::Serialize;

use crate::domain::catalog::{Equipment, catalog};
use crate::domain::units::Unit;
use crate::domain::workout::Workout;

/// The empty bar says the most: a set at exactly the bar's weight.
pub const EMPTY_BAR_WEIGHT: u32 = 3;
const LB_PLATE_TOTALS: [f64; 4] = [135.0, 225.0, 315.0, 405.0];

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
        match self.pounds.cmp(&self.kilograms) {
            std::cmp::Ordering::Greater => Some(Unit::Lb),
            std::cmp::Ordering::Less => Some(Unit::Kg),
            std::cmp::Ordering::Equal => None,
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
    for inst in workouts.iter().flat_map(|w| w.exercises.iter()) {
        let barbell = catalog()
            .get(&inst.exercise_id)
            .is_some_and(|x| x.equipment == Equipment::Barbell);
        for w in inst
            .sets
            .iter()
            .filter_map(|s| s.actual.as_ref()?.weight_kg)
            .filter(|w| *w > 0.0)
            // Typed numbers have at most two decimals; undo the conversion's float noise.
            .map(|kg| (read_as.from_kg(kg) * 100.0).round() / 100.0)
        {
            if barbell && is(w, 45.0) {
                e.pounds += EMPTY_BAR_WEIGHT;
            } else if barbell && LB_PLATE_TOTALS.iter().any(|t| is(w, *t)) {
                e.pounds += 1;
            } else if barbell && is(w, 20.0) {
                e.kilograms += EMPTY_BAR_WEIGHT;
            }
            let fifths = w % 5.0;
            let small_plates = is(fifths, 2.5);
            let kilo_bells = w >= 14.0 && is(w, w.round()) && !is(w % 2.5, 0.0);
            if small_plates || kilo_bells {
                e.kilograms += 1;
            }
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
    let (unit, source, mut why) = match (requested, profile, weights.unit()) {
        (Some(u), _, _) => (
            u,
            UnitSource::Request,
            "the request's unit parameter".into(),
        ),
        (None, Some(u), _) => (u, UnitSource::Profile, "your profile's unit".into()),
        (None, None, Some(u)) => (
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
        (None, None, None) => (
            Unit::Kg,
            UnitSource::Default,
            format!("the weights do not tell {seen}, so kilograms"),
        ),
    };
    if matches!(source, UnitSource::Request | UnitSource::Profile)
        && let Some(other) = weights.unit().filter(|u| *u != unit)
    {
        why = format!(
            "{why}; note that the weights look like {} {seen}: if they are, import again with unit={}",
            other.label(),
            other.label()
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
    use crate::analysis::tests::{session, working};

    fn squat(loads: &[f64]) -> Vec<Workout> {
        let sets: Vec<_> = loads.iter().map(|w| working(*w, 5, None, None)).collect();
        vec![session(0, "back-squat", &sets)]
    }

    #[test]
    fn the_weights_tell_pounds_from_kilograms() {
        // Empty pound bar (3) and one to four plates a side (1 each).
        let lb = evidence(&squat(&[45.0, 135.0, 225.0, 230.0]), Unit::Kg);
        assert_eq!((lb.pounds, lb.kilograms, lb.unit()), (5, 0, Some(Unit::Lb)));
        // Empty kilogram bar (3), a 1.25 kg plate step (1); 100 says nothing.
        let kg = evidence(&squat(&[20.0, 62.5, 100.0]), Unit::Kg);
        assert_eq!((kg.pounds, kg.kilograms, kg.unit()), (0, 4, Some(Unit::Kg)));
        // Kilogram kettlebells step by 4 and 2: 24 and 28 are not pound weights.
        let bells: Vec<_> = [24.0, 28.0, 30.0]
            .iter()
            .map(|w| working(*w, 10, None, None))
            .collect();
        let kb = evidence(&[session(0, "kettlebell-swing", &bells)], Unit::Kg);
        assert_eq!((kb.pounds, kb.kilograms), (0, 2));
        // Read back from pounds: the numbers as typed.
        let as_lb: Vec<_> = [45.0, 225.0]
            .iter()
            .map(|w| working(Unit::Lb.to_kg(*w), 5, None, None))
            .collect();
        let e = evidence(&[session(0, "back-squat", &as_lb)], Unit::Lb);
        assert_eq!(e.pounds, 4);
        assert_eq!(evidence(&squat(&[100.0, 105.0]), Unit::Kg).unit(), None);
    }

    #[test]
    fn the_request_then_the_profile_then_the_weights_decide() {
        let lb = Evidence {
            pounds: 5,
            kilograms: 0,
        };
        let (u, s, why) = decide(None, None, lb);
        assert_eq!((u, s), (Unit::Lb, UnitSource::Weights));
        assert!(why.contains("weights read as lb"), "{why}");
        let (u, s, why) = decide(None, Some(Unit::Kg), lb);
        assert_eq!((u, s), (Unit::Kg, UnitSource::Profile));
        assert!(why.contains("import again with unit=lb"), "{why}");
        let (u, s, _) = decide(Some(Unit::Lb), Some(Unit::Kg), Evidence::default());
        assert_eq!((u, s), (Unit::Lb, UnitSource::Request));
        let (u, s, why) = decide(None, None, Evidence::default());
        assert_eq!((u, s), (Unit::Kg, UnitSource::Default));
        assert!(why.contains("do not tell"), "{why}");
    }
}
