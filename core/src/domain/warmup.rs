//! Warm-up ramps: one implementation for every lane (the original had three that disagreed).
//!
//! The ramp starts with the empty bar, climbs through 40, 55, 70, 80 and 90 % of the working
//! load (jumps of at most 15 % of it once off the bar), and tapers the reps as the load nears
//! the work, so the warm-up rehearses the working
//! load without tiring the lifter for it: the last warm-up sits near the working load for heavy
//! low-rep work (90 % before a triple) and lower before high-rep work, where the first working
//! set is itself part of the warm-up. This is the shape of the ramps strength coaches write
//! (e.g. Rippetoe's Starting Strength and the NSCA's Essentials, ch. 14: general then specific
//! warm-up, progressively heavier, few reps near the top), not a published table.

use super::strength::round_half_up;
use super::units::Unit;

/// Shares of the working load after the empty bar, and the reps each is done for (never more
/// than the working reps; the bar's set is the exception).
pub(crate) const STEPS: [(f64, u32); 5] = [(0.4, 5), (0.55, 3), (0.7, 2), (0.8, 1), (0.9, 1)];

/// No warm-up ramp below this working weight: the working sets are their own warm-up.
pub(crate) const MIN_WORKING_KG: f64 = 30.0;

/// Heavy compounds get a ramp when starting a workout: compound lifts at or above this weight.
pub(crate) const HEAVY_COMPOUND_KG: f64 = 40.0;

/// The highest share of the working load a warm-up reaches, by working reps: near the load
/// before a triple, lower before sets of eight or more.
pub(crate) fn top_share(working_reps: u32) -> f64 {
    match working_reps {
        0..=5 => 0.9,
        6..=8 => 0.8,
        _ => 0.7,
    }
}

/// Reps with the empty bar: enough to groove the movement, more before high-rep work.
fn bar_reps(working_reps: u32) -> u32 {
    working_reps.clamp(5, 10)
}

/// The ramp to `working_reps` at `working_kg` as (kg, reps): the empty bar (20 kg, 45 lb), then
/// the [`STEPS`] up to [`top_share`], each rounded half-up to the plate step in the lifter's
/// unit and kept only when it is a real jump (at least a step over the set before); empty
/// under [`MIN_WORKING_KG`].
pub fn ramp(working_kg: f64, working_reps: u32, step_kg: f64, unit: Unit) -> Vec<(f64, u32)> {
    if working_kg < MIN_WORKING_KG {
        return Vec::new();
    }
    let bar = unit.to_kg(match unit {
        Unit::Kg => 20.0,
        Unit::Lb => 45.0,
    });
    let reps = working_reps.max(1);
    let mut sets = vec![(bar, bar_reps(reps))];
    let top = top_share(reps);
    for &(share, step_reps) in STEPS.iter().filter(|(s, _)| *s <= top + 1e-9) {
        let kg = round_half_up(working_kg * share, step_kg, unit);
        let last = sets.last().map_or(bar, |s| s.0);
        if kg >= last + step_kg - 1e-9 && kg < working_kg - 1e-9 {
            sets.push((kg, step_reps.min(reps)));
        }
    }
    sets
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kgs(w: f64, reps: u32) -> Vec<(f64, u32)> {
        ramp(w, reps, 2.5, Unit::Kg)
    }

    #[test]
    fn a_heavy_triple_climbs_in_small_jumps_with_few_reps() {
        // The reported ramp: 200 × 3 got 50 % × 10, 65 % × 8, 80 % × 5 (23 reps), then a
        // 40 kg jump. Now: the bar, then up to 90 %, 16 reps, the last jump 20 kg.
        let r = kgs(200.0, 3);
        assert_eq!(
            r,
            vec![
                (20.0, 5),
                (80.0, 3),
                (110.0, 3),
                (140.0, 2),
                (160.0, 1),
                (180.0, 1)
            ]
        );
        let reps: u32 = r.iter().map(|s| s.1).sum();
        assert!(reps <= 16, "{reps}");
        let jumps: Vec<f64> = r
            .windows(2)
            .map(|w| w[1].0 - w[0].0)
            .chain([200.0 - r.last().unwrap().0])
            .collect();
        assert!(jumps[1..].iter().all(|j| *j <= 40.0 + 1e-9), "{jumps:?}");
        assert!(*jumps.last().unwrap() <= 20.0 + 1e-9, "{jumps:?}");
        // Reps taper towards the work, never above it after the bar.
        assert!(r[1..].windows(2).all(|w| w[1].1 <= w[0].1));
    }

    #[test]
    fn high_rep_work_warms_up_less_and_lighter_loads_skip_what_is_no_jump() {
        // 60 × 10: the bar for 10, then up to 70 % only, a few reps each.
        assert_eq!(
            kgs(60.0, 10),
            vec![(20.0, 10), (25.0, 5), (32.5, 3), (42.5, 2)]
        );
        // Under 30 kg there is no ramp.
        assert!(kgs(29.9, 5).is_empty());
        // 30 × 5: the bar, then 55 % and above: 17.5 → no jump over the bar: just what climbs.
        assert!(kgs(30.0, 5).iter().all(|(kg, _)| *kg < 30.0));
    }

    #[test]
    fn pounds_start_at_the_pound_bar_and_round_to_pound_plates() {
        let w = ramp(Unit::Lb.to_kg(225.0), 5, Unit::Lb.to_kg(5.0), Unit::Lb);
        let lbs: Vec<f64> = w
            .iter()
            .map(|(k, _)| Unit::Lb.from_kg(*k).round())
            .collect();
        assert_eq!(lbs, vec![45.0, 90.0, 125.0, 160.0, 180.0, 205.0]);
    }
}
