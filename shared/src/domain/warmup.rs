//! Warm-up ramps: one implementation for every lane (the original had three that disagreed).

use super::strength::round_half_up;
use super::units::Unit;

/// Percentages of the working weight and reps of each warm-up set.
pub const RAMP: [(f64, u32); 3] = [(0.50, 10), (0.65, 8), (0.80, 5)];

/// No warm-up ramp below this working weight: the working sets are their own warm-up.
pub const MIN_WORKING_KG: f64 = 30.0;

/// Heavy compounds get a ramp when starting a workout: compound lifts at or above this weight.
pub const HEAVY_COMPOUND_KG: f64 = 40.0;

/// The ramp for `working_kg`: 50/65/80 % × 10/8/5, each rounded half-up to the plate step in
/// the lifter's unit; empty under [`MIN_WORKING_KG`]. Returns (kg, reps).
pub fn ramp(working_kg: f64, step_kg: f64, unit: Unit) -> Vec<(f64, u32)> {
    if working_kg < MIN_WORKING_KG {
        return Vec::new();
    }
    RAMP.iter()
        .map(|&(pct, reps)| (round_half_up(working_kg * pct, step_kg, unit), reps))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kgs(w: f64) -> Vec<f64> {
        ramp(w, 2.5, Unit::Kg).into_iter().map(|(k, _)| k).collect()
    }

    #[test]
    fn reference_vectors_with_half_up_rounding() {
        assert_eq!(kgs(100.0), vec![50.0, 65.0, 80.0]);
        assert_eq!(kgs(130.0), vec![65.0, 85.0, 105.0]);
        // 81.25 is a half step: half-up gives 82.5 where the original's banker's rounding gave 80.
        assert_eq!(kgs(125.0), vec![62.5, 82.5, 100.0]);
        assert_eq!(kgs(105.0), vec![52.5, 67.5, 85.0]);
        assert_eq!(kgs(30.0), vec![15.0, 20.0, 25.0]);
        assert!(kgs(29.9).is_empty());
        let reps: Vec<u32> = ramp(100.0, 2.5, Unit::Kg).iter().map(|r| r.1).collect();
        assert_eq!(reps, vec![10, 8, 5]);
    }

    #[test]
    fn pounds_round_to_pound_plates() {
        let w = ramp(Unit::Lb.to_kg(225.0), Unit::Lb.to_kg(5.0), Unit::Lb);
        let lbs: Vec<f64> = w
            .iter()
            .map(|(k, _)| Unit::Lb.from_kg(*k).round())
            .collect();
        assert_eq!(lbs, vec![115.0, 145.0, 180.0]);
    }
}
