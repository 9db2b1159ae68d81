//! Strength arithmetic shared by every lane and the worker: estimated one-rep max, the %1RM a
//! rep target and effort call for, effort conversions, equipment load ratios and rounding a load
//! to what the lifter can actually put on the bar.

use super::catalog::Equipment;
use super::units::{Unit, round_to_step};
use super::workout::{SetResult, SetType, WorkoutSet};

/// Epley is only trusted up to this many reps; above it a set gives no e1RM.
pub const MAX_E1RM_REPS: u32 = 12;

/// Estimated one-rep max (Epley, `w × (1 + reps / 30)`), from a set of `reps` with `rir` reps
/// left in reserve: the lifter could have done `reps + rir`, so that is the rep count Epley
/// sees. One all-out rep is the weight itself. None above [`MAX_E1RM_REPS`] effective reps
/// (done plus in reserve: Epley is not extrapolated) or for a set without weight or reps.
pub fn e1rm(weight_kg: f64, reps: u32, rir: Option<u32>) -> Option<f64> {
    let capable = reps.saturating_add(rir.unwrap_or(0));
    if weight_kg <= 0.0 || reps == 0 || capable > MAX_E1RM_REPS {
        return None;
    }
    if capable == 1 {
        return Some(weight_kg);
    }
    Some(weight_kg * (1.0 + f64::from(capable) / 30.0))
}

/// How far an e1RM from a set of `reps` can be trusted (the reference's table): a heavy single
/// says the most about a max, a set of twelve the least.
pub fn e1rm_confidence(reps: u32) -> Option<f64> {
    match reps {
        1 => Some(1.0),
        2..=3 => Some(0.95),
        4..=6 => Some(0.90),
        7..=10 => Some(0.80),
        11..=12 => Some(0.70),
        _ => None,
    }
}

/// The fraction of the one-rep max that allows `reps` with `rir` left in reserve: the RPE table
/// read at `reps + rir` (an 8 at RIR 2 is a 10-rep max). The table is the one Epley implies,
/// `1 / (1 + n/30)`, rather than a published RPE chart, so that a set's e1RM read back at its
/// own reps and RIR gives its own weight: a lifter who did 100 kg × 8 at RIR 2 is never told
/// that 8 at RIR 2 is 97.5 kg. It stays within 2.5 points of the reference's %1RM figures
/// (3 → 93, 5 → 87, 8 → 80, 10 → 75, 12 → 70).
pub fn pct_1rm(reps: u32, rir: u32) -> f64 {
    let n = (reps + rir).max(1);
    if n == 1 {
        1.0
    } else {
        1.0 / (1.0 + f64::from(n) / 30.0)
    }
}

/// Effort of a logged set as reps in reserve: the RIR given, else 10 − RPE, else a failed set's 0.
pub fn effective_rir(r: &SetResult) -> Option<u32> {
    if let Some(rir) = r.rir {
        return Some(rir);
    }
    if let Some(rpe) = r.rpe {
        return Some((10.0 - rpe).round().clamp(0.0, 5.0) as u32);
    }
    r.failure.then_some(0)
}

/// Whether a set's effort is known (RIR, RPE or failure). Estimated maxes are compared only
/// between sets alike in this: a rated set reads higher than the same set unrated.
pub fn is_rated(r: &SetResult) -> bool {
    effective_rir(r).is_some()
}

/// A set that was done, is not a warm-up, and says something about strength (a timed or
/// distance set does not).
pub fn is_working_result(s: &WorkoutSet) -> bool {
    s.set_type != SetType::Warmup && s.actual.as_ref().is_some_and(|r| !r.is_timed())
}

/// The e1RM of a logged set.
pub fn set_e1rm(s: &WorkoutSet) -> Option<f64> {
    let r = s.actual.as_ref()?;
    e1rm(r.weight_kg?, r.reps, effective_rir(r))
}

/// Load of an exercise on `equipment` relative to the barbell version of the same movement
/// (the reference's heuristics: dumbbells are per hand). None where load is not comparable.
pub fn load_ratio(equipment: Equipment) -> Option<f64> {
    use Equipment::*;
    match equipment {
        Barbell | TrapBar => Some(1.0),
        EzBar => Some(0.9),
        Smith => Some(0.87),
        Machine | Plate | Sled => Some(0.9),
        Cable => Some(0.55),
        Dumbbell | Kettlebell => Some(0.37),
        Bodyweight | Band | MedicineBall => None,
    }
}

/// Rounds a kilogram load to the lifter's step for the equipment, in the lifter's unit (a pound
/// user gets multiples of 5 lb, not of 2.27 kg), and returns kilograms.
pub fn round_load(kg: f64, step_kg: f64, unit: Unit) -> f64 {
    let step = unit.from_kg(step_kg);
    let rounded = round_to_step(unit.from_kg(kg), step);
    unit.to_kg(rounded.max(0.0))
}

/// Rounds half-up to the step (a warm-up of 81.25 on a 2.5 step is 82.5, never banker's 80).
/// One decimal, for figures shown to the lifter or the model (e1RM, changes).
pub fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

pub fn round_half_up(kg: f64, step_kg: f64, unit: Unit) -> f64 {
    let step = unit.from_kg(step_kg);
    if step <= 0.0 {
        return kg;
    }
    let v = unit.from_kg(kg) / step;
    // A tiny epsilon keeps 32.4999999 (float noise on an exact half) from rounding down.
    unit.to_kg((v + 0.5 + 1e-9).floor() * step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epley_with_reserve_and_limits() {
        let e = e1rm(100.0, 8, None).unwrap();
        assert!((e - 126.666).abs() < 0.01);
        // 8 reps with 2 in reserve is a 10-rep max.
        assert!((e1rm(100.0, 8, Some(2)).unwrap() - 133.333).abs() < 0.01);
        assert_eq!(e1rm(140.0, 1, None), Some(140.0));
        assert_eq!(e1rm(100.0, 13, None), None);
        assert_eq!(e1rm(0.0, 5, None), None);
        assert_eq!(e1rm(100.0, 0, None), None);
    }

    #[test]
    fn confidence_falls_with_reps() {
        assert_eq!(e1rm_confidence(1), Some(1.0));
        assert_eq!(e1rm_confidence(5), Some(0.9));
        assert_eq!(e1rm_confidence(12), Some(0.7));
        assert_eq!(e1rm_confidence(13), None);
    }

    #[test]
    fn pct_reads_the_table_at_reps_plus_reserve() {
        assert_eq!(pct_1rm(1, 0), 1.0);
        assert_eq!(pct_1rm(8, 2), pct_1rm(10, 0));
        for (reps, reference) in [(3, 0.93), (5, 0.87), (8, 0.80), (10, 0.75), (12, 0.70)] {
            assert!((pct_1rm(reps, 0) - reference).abs() < 0.025, "{reps}");
        }
        assert!(pct_1rm(15, 0) < pct_1rm(12, 0));
        // Round trip: a set's e1RM at its own reps and reserve is its own weight.
        let e = e1rm(100.0, 8, Some(2)).unwrap();
        assert!((e * pct_1rm(8, 2) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn rpe_becomes_reserve() {
        let r = SetResult {
            reps: 5,
            weight_kg: Some(100.0),
            rir: None,
            rpe: Some(8.5),
            failure: false,
            ..Default::default()
        };
        assert_eq!(effective_rir(&r), Some(2));
        let failed = SetResult {
            rpe: None,
            failure: true,
            ..r
        };
        assert_eq!(effective_rir(&failed), Some(0));
    }

    #[test]
    fn rounding_in_the_lifters_unit() {
        assert_eq!(round_load(81.0, 2.5, Unit::Kg), 80.0);
        let lb = round_load(100.0, Unit::Lb.to_kg(5.0), Unit::Lb);
        assert!((Unit::Lb.from_kg(lb) - 220.0).abs() < 1e-9);
        assert_eq!(round_half_up(81.25, 2.5, Unit::Kg), 82.5);
        assert_eq!(round_half_up(80.0, 2.5, Unit::Kg), 80.0);
    }
}
