//! Strength arithmetic shared by every lane and the worker: estimated one-rep max, the %1RM a
//! rep target and effort call for, effort conversions, equipment load ratios and rounding a load
//! to what the lifter can actually put on the bar.

use super::catalog::{Equipment, Loading, catalog};
use super::units::{Unit, format_weight, round_to_step};
use super::workout::{SetResult, SetType, Workout, WorkoutSet};

/// Epley is only trusted up to this many reps; above it a set gives no e1RM.
pub(crate) const MAX_E1RM_REPS: u32 = 12;

/// An external load lighter than this is no load: apps that need a weight on every set have
/// lifters log "1 lb" (0.45 kg) for dips, sit-ups and push-ups, and a 0.45 kg "max" would
/// anchor every figure of the exercise. The lightest loads lifters really move (0.5 kg wrist
/// weights, 1 and 2 lb dumbbells for rotator-cuff work) are at or above it.
pub const MIN_EXTERNAL_KG: f64 = 0.5;

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
pub(crate) fn e1rm_confidence(reps: u32) -> Option<f64> {
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
pub(crate) fn pct_1rm(reps: u32, rir: u32) -> f64 {
    let n = (reps + rir).max(1);
    if n == 1 {
        1.0
    } else {
        1.0 / (1.0 + f64::from(n) / 30.0)
    }
}

/// The reps `moved_kg` allows with `rir` left from an estimated max `e1rm_kg`: [`pct_1rm`] read
/// backwards (whole reps, rounded down), 0 when even the reserve is out of reach.
pub fn reps_at(e1rm_kg: f64, moved_kg: f64, rir: u32) -> u32 {
    if moved_kg <= 0.0 || e1rm_kg <= 0.0 {
        return 0;
    }
    let capable = if moved_kg > e1rm_kg + 1e-9 {
        0
    } else {
        // Epley's n with a little float slack: 100 × 8 at RIR 2 read back gives its 10.
        ((30.0 * (e1rm_kg / moved_kg - 1.0) + 1e-6).floor() as u32).max(1)
    };
    capable.saturating_sub(rir)
}

/// Effort of a logged set as reps in reserve: the RIR given, else 10 − RPE, else a failed set's 0.
pub(crate) fn effective_rir(r: &SetResult) -> Option<u32> {
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
pub(crate) fn is_rated(r: &SetResult) -> bool {
    effective_rir(r).is_some()
}

/// A set that was done, is not a warm-up, and says something about strength (a timed or
/// distance set does not).
pub fn is_working_result(s: &WorkoutSet) -> bool {
    s.set_type != SetType::Warmup && s.actual.as_ref().is_some_and(|r| !r.is_timed())
}

/// A bodyweight that can be used: finite and positive.
fn known_bodyweight(kg: Option<f64>) -> Option<f64> {
    kg.filter(|b| b.is_finite() && *b > 0.0)
}

/// An exercise as done on a day: how its logged weight relates to the load moved, and the
/// lifter's bodyweight then (from the workout, stamped from the profile when it was built or
/// imported).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lift {
    pub loading: Loading,
    pub bodyweight_kg: Option<f64>,
}

impl Lift {
    /// A lift whose logged weight is the load.
    pub const EXTERNAL: Lift = Lift {
        loading: Loading::External,
        bodyweight_kg: None,
    };

    /// `exercise_id` at `bodyweight_kg`; the lifter's own exercises count their logged weight.
    pub fn of(exercise_id: &str, bodyweight_kg: Option<f64>) -> Lift {
        Lift {
            loading: catalog()
                .get(exercise_id)
                .map_or(Loading::External, |e| e.loading),
            bodyweight_kg: known_bodyweight(bodyweight_kg),
        }
    }

    /// `exercise_id` in `workout`, at the bodyweight stamped on it.
    pub fn in_workout(workout: &Workout, exercise_id: &str) -> Lift {
        Lift::of(exercise_id, workout.bodyweight_kg)
    }

    /// The load moved by a set logged at `logged_kg`: the weight itself for external loads
    /// (None when there is none, or a placeholder under [`MIN_EXTERNAL_KG`]), the bodyweight's
    /// share plus it or minus the assistance for bodyweight work (None without a bodyweight, or
    /// when the assistance is all of it).
    pub fn moved_kg(&self, logged_kg: Option<f64>) -> Option<f64> {
        let logged = logged_kg.filter(|w| w.is_finite());
        let moved = match self.loading {
            Loading::External => logged.filter(|w| *w >= MIN_EXTERNAL_KG - 1e-9)?,
            Loading::Bodyweight { share } => self.bodyweight_kg? * share + logged.unwrap_or(0.0),
            Loading::Assisted { share } => self.bodyweight_kg? * share - logged.unwrap_or(0.0),
        };
        (moved > 0.0).then_some(moved)
    }

    /// The weight to log to move `moved_kg`: added plates or assistance for bodyweight work
    /// (never below none), the load itself otherwise; None without a bodyweight to read from.
    pub fn logged_for(&self, moved_kg: f64) -> Option<f64> {
        match self.loading {
            Loading::External => Some(moved_kg),
            Loading::Bodyweight { share } => {
                Some((moved_kg - self.bodyweight_kg? * share).max(0.0))
            }
            Loading::Assisted { share } => Some((self.bodyweight_kg? * share - moved_kg).max(0.0)),
        }
    }

    /// Orders logged weights from easiest to hardest without needing the bodyweight: more
    /// assistance is easier, more added weight is harder.
    pub fn difficulty(&self, logged_kg: f64) -> f64 {
        match self.loading {
            Loading::Assisted { .. } => -logged_kg,
            _ => logged_kg,
        }
    }

    /// The logged weight `step_kg` harder than `logged_kg` (less assistance), or easier for a
    /// negative step; never below none.
    pub fn harder(&self, logged_kg: f64, step_kg: f64) -> f64 {
        match self.loading {
            Loading::Assisted { .. } => (logged_kg - step_kg).max(0.0),
            _ => (logged_kg + step_kg).max(0.0),
        }
    }

    /// The same lift at another bodyweight (the one known now), keeping this one's when none is.
    pub fn at_bodyweight(self, bodyweight_kg: Option<f64>) -> Lift {
        Lift {
            bodyweight_kg: known_bodyweight(bodyweight_kg).or(self.bodyweight_kg),
            ..self
        }
    }

    /// The logged weight on `now` (this lift at today's bodyweight) that moves `factor` of what
    /// `logged_kg` moved on this one. Without a bodyweight, bodyweight work scales the added
    /// weight and assisted work adds one `step_kg` of assistance per 5 % taken off.
    pub fn scaled(&self, now: Lift, logged_kg: f64, factor: f64, step_kg: f64) -> f64 {
        if let Some(kg) = self
            .moved_kg(Some(logged_kg))
            .and_then(|m| now.logged_for(m * factor))
        {
            return kg;
        }
        match self.loading {
            Loading::Assisted { .. } => {
                logged_kg + step_kg * ((1.0 - factor) / 0.05 - 1e-9).ceil().max(0.0)
            }
            _ => (logged_kg * factor).max(0.0),
        }
    }

    /// A logged weight as the lifter reads it: "100 kg", "bodyweight + 10 kg", "25 kg
    /// assistance".
    pub fn describe(&self, logged_kg: f64, unit: Unit) -> String {
        let w = format_weight(logged_kg, unit);
        match self.loading {
            Loading::External => w,
            Loading::Bodyweight { .. } if logged_kg <= 0.0 => "bodyweight".into(),
            Loading::Bodyweight { .. } => format!("bodyweight + {w}"),
            Loading::Assisted { .. } if logged_kg <= 0.0 => "no assistance".into(),
            Loading::Assisted { .. } => format!("{w} assistance"),
        }
    }
}

/// An exercise's best e1RM, kept apart for sets with and without effort logged (records
/// compare like with like, so starting to log RPE is no record).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct BestE1rm {
    pub unrated: Option<f64>,
    pub rated: Option<f64>,
}

impl BestE1rm {
    pub fn get(&self, rated: bool) -> Option<f64> {
        if rated { self.rated } else { self.unrated }
    }

    pub fn raise(&mut self, rated: bool, e1rm: f64) {
        let slot = if rated {
            &mut self.rated
        } else {
            &mut self.unrated
        };
        *slot = Some(slot.map_or(e1rm, |b| b.max(e1rm)));
    }

    /// The better of two sets of bests, kind by kind.
    pub fn max(self, other: BestE1rm) -> BestE1rm {
        let mut out = self;
        for (rated, v) in [(false, other.unrated), (true, other.rated)] {
            if let Some(v) = v {
                out.raise(rated, v);
            }
        }
        out
    }

    /// Each exercise's bests over the working sets of `workouts`.
    pub fn of_workouts<'a>(
        workouts: impl IntoIterator<Item = &'a Workout>,
    ) -> std::collections::BTreeMap<String, BestE1rm> {
        let mut out: std::collections::BTreeMap<String, BestE1rm> = Default::default();
        for w in workouts {
            for e in &w.exercises {
                out.entry(e.exercise_id.clone())
                    .or_default()
                    .raise_sets(&e.sets, Lift::in_workout(w, &e.exercise_id));
            }
        }
        out
    }

    /// One exercise's bests over the working sets of `workouts`.
    pub fn of_exercise<'a>(
        workouts: impl IntoIterator<Item = &'a Workout>,
        exercise_id: &str,
    ) -> BestE1rm {
        let mut out = BestE1rm::default();
        for w in workouts {
            let lift = Lift::in_workout(w, exercise_id);
            for e in w.exercises.iter().filter(|e| e.exercise_id == exercise_id) {
                out.raise_sets(&e.sets, lift);
            }
        }
        out
    }

    /// Raised by the working sets of one exercise of `lift`.
    fn raise_sets(&mut self, sets: &[WorkoutSet], lift: Lift) {
        for s in sets.iter().filter(|s| is_working_result(s)) {
            if let (Some(r), Some(v)) = (s.actual.as_ref(), set_e1rm(s, lift)) {
                self.raise(is_rated(r), v);
            }
        }
    }
}

/// The e1RM of a logged set of `lift`, on the load moved.
pub(crate) fn set_e1rm(s: &WorkoutSet, lift: Lift) -> Option<f64> {
    let r = s.actual.as_ref()?;
    e1rm(lift.moved_kg(r.weight_kg)?, r.reps, effective_rir(r))
}

/// Load of an exercise on `equipment` relative to the barbell version of the same movement
/// (the reference's heuristics: dumbbells are per hand). None where load is not comparable.
pub(crate) fn load_ratio(equipment: Equipment) -> Option<f64> {
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

/// Known strength ratios between a free-weight variant and its family's main lift: the
/// variant's 1RM over the main lift's, as the range reported in coaching and sport-science
/// sources (front squat 70–85 % of the back squat; a trap-bar deadlift about 4 % above the
/// straight bar, Swinton et al. 2011, J Strength Cond Res 25(7) 2000–9; a dumbbell bench press
/// pair about 83 % of the barbell's, Saeterbakken, van den Tillaar & Fimland 2011, J Sports Sci
/// 29(5) 533–8, so about 0.41 a hand; a snatch 75–85 % of a clean and jerk; a push press
/// 10–40 % above the strict press). Dumbbells are per hand.
///
/// Going from the main lift to a variant uses the low end of its range, coming back the high
/// end: an estimate from another lift is never the generous one. A pair not listed has no
/// ratio at all (a good morning is not a deadlift at any ratio), and nothing guided or
/// stabilised (machines, Smith, cables, the leg press) is here: their loads say nothing about
/// a barbell's.
const TRANSFERS: [(&str, &str, f64, f64); 26] = [
    (
        "incline-barbell-bench-press",
        "barbell-bench-press",
        0.75,
        0.90,
    ),
    ("close-grip-bench-press", "barbell-bench-press", 0.85, 0.95),
    ("paused-bench-press", "barbell-bench-press", 0.90, 0.97),
    ("floor-press", "barbell-bench-press", 0.80, 0.95),
    ("dumbbell-bench-press", "barbell-bench-press", 0.33, 0.42),
    ("incline-dumbbell-press", "barbell-bench-press", 0.28, 0.37),
    ("front-squat", "back-squat", 0.70, 0.85),
    ("paused-squat", "back-squat", 0.80, 0.92),
    ("low-bar-squat", "back-squat", 0.95, 1.10),
    ("safety-bar-squat", "back-squat", 0.85, 0.95),
    ("box-squat", "back-squat", 0.85, 1.00),
    ("sumo-deadlift", "deadlift", 0.90, 1.10),
    ("trap-bar-deadlift", "deadlift", 0.95, 1.10),
    ("deficit-deadlift", "deadlift", 0.85, 0.95),
    ("paused-deadlift", "deadlift", 0.80, 0.92),
    ("romanian-deadlift", "deadlift", 0.55, 0.75),
    ("stiff-leg-deadlift", "deadlift", 0.55, 0.75),
    ("seated-overhead-press", "overhead-press", 0.85, 1.00),
    ("push-press", "overhead-press", 1.10, 1.40),
    ("z-press", "overhead-press", 0.75, 0.90),
    ("dumbbell-shoulder-press", "overhead-press", 0.30, 0.40),
    ("snatch", "clean-and-jerk", 0.75, 0.85),
    ("power-snatch", "clean-and-jerk", 0.60, 0.72),
    ("power-clean", "clean-and-jerk", 0.80, 0.92),
    ("hang-clean", "clean-and-jerk", 0.75, 0.90),
    ("push-jerk", "clean-and-jerk", 0.85, 1.00),
];

/// A lift's ratio to its family's main lift, as (main, low, high); the main lift itself is
/// (itself, 1, 1).
fn family(id: &str) -> Option<(&'static str, f64, f64)> {
    TRANSFERS
        .iter()
        .find(|(v, ..)| *v == id)
        .map(|(_, main, low, high)| (*main, *low, *high))
        .or_else(|| {
            TRANSFERS
                .iter()
                .find(|(_, main, ..)| *main == id)
                .map(|(_, main, ..)| (*main, 1.0, 1.0))
        })
}

/// The load of `to` as a share of the load of `from` for the same reps and effort, when the two
/// are of one family in [`TRANSFERS`]: the conservative end of each range (down to a variant at
/// its low end, up from one at its high end). None for any other pair, and none from a
/// dumbbell or kettlebell lift to one that is not: lifters log those loads a hand or the pair
/// as their app lets them, and read up through a ratio of 2.5 to 3.5 the pair taken for a hand
/// doubles a barbell load (an 80 lb dumbbell press, 40s in each hand, read as a 200 lb strict
/// press). The other way errs light: a hand read as the pair halves the dumbbells.
pub(crate) fn transfer_ratio(from: &str, to: &str) -> Option<f64> {
    if from == to {
        return Some(1.0);
    }
    if per_hand(from) && !per_hand(to) {
        return None;
    }
    let (main_from, _, high_from) = family(from)?;
    let (main_to, low_to, _) = family(to)?;
    (main_from == main_to).then(|| low_to / high_from)
}

/// Whether `from` and `to` are of one family of [`TRANSFERS`] (whether or not a load carries
/// from one to the other): training one keeps the other's pattern trained.
pub(crate) fn same_family(from: &str, to: &str) -> bool {
    from == to || matches!((family(from), family(to)), (Some((a, ..)), Some((b, ..))) if a == b)
}

/// A lift whose logged load may be one hand's or both hands'.
fn per_hand(id: &str) -> bool {
    catalog()
        .get(id)
        .is_some_and(|e| matches!(e.equipment, Equipment::Dumbbell | Equipment::Kettlebell))
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

pub(crate) fn round_half_up(kg: f64, step_kg: f64, unit: Unit) -> f64 {
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
    fn reps_at_reads_the_table_backwards() {
        // 100 × 8 at RIR 2 is an e1RM of 133.3; read back at 100 and RIR 2 it gives its 8.
        let e = e1rm(100.0, 8, Some(2)).expect("estimable");
        assert_eq!(reps_at(e, 100.0, 2), 8);
        // A tenth more load: 4 fewer reps; at the max itself one rep, none in reserve.
        assert_eq!(reps_at(e, 110.0, 2), 4);
        assert_eq!(reps_at(e, e, 0), 1);
        assert_eq!(reps_at(e, e, 1), 0);
        assert_eq!(reps_at(e, e + 1.0, 0), 0);
    }

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
    fn transfers_only_between_known_pairs_and_always_the_cautious_way() {
        // Down to a variant at the low end of its range, back up at the high end.
        assert_eq!(transfer_ratio("back-squat", "front-squat"), Some(0.70));
        let up = transfer_ratio("front-squat", "back-squat").unwrap();
        assert!((up - 1.0 / 0.85).abs() < 1e-12);
        // A round trip loses load, never gains it.
        assert!(up * 0.70 < 1.0);
        // Two variants of one family go through the main lift.
        let r = transfer_ratio("romanian-deadlift", "trap-bar-deadlift").unwrap();
        assert!((r - 0.95 / 0.75).abs() < 1e-12);
        // Dumbbells feed barbells no load (a hand or the pair?), barbells feed dumbbells one.
        assert_eq!(
            transfer_ratio("dumbbell-shoulder-press", "overhead-press"),
            None
        );
        assert_eq!(
            transfer_ratio("overhead-press", "dumbbell-shoulder-press"),
            Some(0.30)
        );
        let r = transfer_ratio("dumbbell-bench-press", "incline-dumbbell-press").unwrap();
        assert!((r - 0.28 / 0.42).abs() < 1e-12);
        assert!(same_family("dumbbell-shoulder-press", "overhead-press"));
        assert!(!same_family("deadlift", "good-morning"));
        // No ratio: other families, unrelated lifts, machines and the leg press.
        for (from, to) in [
            ("deadlift", "good-morning"),
            ("leg-press", "back-squat"),
            ("back-squat", "leg-press"),
            ("smith-bench-press", "barbell-bench-press"),
            ("barbell-bench-press", "overhead-press"),
            ("clean-pull", "power-clean"),
        ] {
            assert_eq!(transfer_ratio(from, to), None, "{from} to {to}");
        }
        // Every listed variant is in the catalog, as is its main lift.
        for (variant, main, low, high) in TRANSFERS {
            assert!(
                super::super::catalog::catalog().get(variant).is_some(),
                "{variant}"
            );
            assert!(
                super::super::catalog::catalog().get(main).is_some(),
                "{main}"
            );
            assert!(0.0 < low && low <= high, "{variant}");
        }
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
    fn bodyweight_work_is_read_at_the_load_moved() {
        let weighted = Lift::of("weighted-pull-up", Some(80.0));
        assert_eq!(weighted.moved_kg(Some(20.0)), Some(100.0));
        assert_eq!(weighted.logged_for(100.0), Some(20.0));
        // Lighter than the bodyweight is bodyweight alone, not a negative plate.
        assert_eq!(weighted.logged_for(70.0), Some(0.0));
        let assisted = Lift::of("assisted-pull-up", Some(80.0));
        assert_eq!(assisted.moved_kg(Some(30.0)), Some(50.0));
        assert_eq!(assisted.logged_for(60.0), Some(20.0));
        // Less assistance is harder.
        assert!(assisted.difficulty(20.0) > assisted.difficulty(30.0));
        assert_eq!(assisted.harder(30.0, 2.5), 27.5);
        assert_eq!(assisted.moved_kg(Some(90.0)), None);
        // A "1 lb" on a dip the app would not log without a weight is no load; a 0.5 kg wrist
        // weight and a 2 lb dumbbell are loads.
        let own = Lift::of("own-parallel-bar-triceps-dip", None);
        assert_eq!(own.moved_kg(Some(0.4536)), None);
        assert_eq!(own.moved_kg(Some(0.5)), Some(0.5));
        assert_eq!(own.moved_kg(Some(0.9072)), Some(0.9072));
        // Ten pull-ups at 80 kg are an e1RM of about 106.7 kg, never one of the belt alone.
        let pull_up = Lift::of("pull-up", Some(80.0));
        let set = WorkoutSet {
            id: "s".into(),
            set_type: SetType::Working,
            status: crate::domain::workout::SetStatus::Done,
            target: Default::default(),
            actual: Some(SetResult {
                reps: 10,
                ..Default::default()
            }),
            completed_at: None,
        };
        let e = set_e1rm(&set, pull_up).unwrap_or_default();
        assert!((e - 106.666).abs() < 0.01, "{e}");
        // Without a bodyweight there is no estimate rather than a wrong one.
        assert_eq!(set_e1rm(&set, Lift::of("pull-up", None)), None);
        assert_eq!(set_e1rm(&set, Lift::EXTERNAL), None);
        assert_eq!(pull_up.describe(0.0, Unit::Kg), "bodyweight");
        assert_eq!(weighted.describe(20.0, Unit::Kg), "bodyweight + 20 kg");
        assert_eq!(assisted.describe(25.0, Unit::Kg), "25 kg assistance");
        assert_eq!(
            weighted.describe(Unit::Lb.to_kg(45.0), Unit::Lb),
            "bodyweight + 45 lb"
        );
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
