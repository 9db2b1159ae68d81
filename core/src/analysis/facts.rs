//! Per-set facts: how hard a set was, how much load it moved, and which muscle groups it
//! trained. Everything else in the analysis is a sum of these.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::domain::catalog::{Exercise, MovementPattern, Muscle, catalog};
use crate::domain::strength::{Lift, effective_rir};
use crate::domain::workout::{ExerciseInstance, SetType, WorkoutSet};

/// A set with this many reps in reserve or fewer (or taken to failure) is a hard set.
pub(crate) const HARD_SET_MAX_RIR: u32 = 2;
/// Up to this reserve a set still counts half.
pub(crate) const MODERATE_SET_MAX_RIR: u32 = 4;
/// Credit of a set at RIR 3–4.
pub(crate) const MODERATE_SET_CREDIT: f64 = 0.5;
/// Credit of a set whose effort nobody recorded: most logged working sets are fairly hard, but
/// not all, so less than a full set.
pub(crate) const UNKNOWN_EFFORT_CREDIT: f64 = 0.75;
/// The weekly sets compared with the volume landmarks are counted as fractional sets (Pelland
/// et al., "The resistance training dose response", SportRxiv preprint 2024, whose
/// meta-regressions found this count the best predictor of growth): a working set within this many reps of failure (effort not
/// recorded counts: most logged working sets are) is one set for each group its exercise
/// trains as a primary mover and half a set for each it trains as a secondary one.
pub(crate) const LANDMARK_SET_MAX_RIR: u32 = 4;
/// What a secondary mover's group gets from a set.
pub(crate) const SECONDARY_SHARE: f64 = 0.5;
/// An unlogged set this much lighter than the exercise's top working set that day is technique
/// or back-off work, far from failure: no hypertrophy credit (Robinson et al. 2024, Sports Med,
/// on proximity to failure and growth).
pub(crate) const TECHNIQUE_SHARE: f64 = 0.6;

/// A set the lifter did (has a result) that is not a warm-up and has reps (timed and distance
/// sets are kept in the history but are not strength work).
fn done_working(s: &WorkoutSet) -> bool {
    s.actual.as_ref().is_some_and(|r| !r.is_timed()) && s.set_type != SetType::Warmup
}

/// How much a set counts towards "hard sets" (the reference's table): warm-ups 0, RIR ≤ 2 or
/// failure 1, RIR 3–4 0.5, unknown effort 0.75, anything easier 0.
pub fn hard_set_credit(s: &WorkoutSet) -> f64 {
    let Some(r) = s.actual.as_ref().filter(|_| done_working(s)) else {
        return 0.0;
    };
    match effective_rir(r) {
        Some(rir) if rir <= HARD_SET_MAX_RIR => 1.0,
        Some(rir) if rir <= MODERATE_SET_MAX_RIR => MODERATE_SET_CREDIT,
        Some(_) => 0.0,
        None => UNKNOWN_EFFORT_CREDIT,
    }
}

/// Strength volume of a set (load moved × reps) for done working sets of `lift`. Timed and
/// carry sets (0 reps) move no counted volume, nor do bodyweight sets when the bodyweight is
/// not known.
pub fn volume_kg(s: &WorkoutSet, lift: Lift) -> f64 {
    match s.actual.as_ref().filter(|_| done_working(s)) {
        Some(r) => lift.moved_kg(r.weight_kg).unwrap_or(0.0) * f64::from(r.reps),
        None => 0.0,
    }
}

/// The groups weekly volume is counted in and judged against volume landmarks. Finer than the
/// catalog's six body regions (arms and legs hide too much), coarser than its 22 muscles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VolumeGroup {
    Chest,
    Back,
    Traps,
    Shoulders,
    Biceps,
    Triceps,
    Forearms,
    Quads,
    Hamstrings,
    Glutes,
    Calves,
    Abs,
}

impl VolumeGroup {
    pub const ALL: [VolumeGroup; 12] = [
        VolumeGroup::Chest,
        VolumeGroup::Back,
        VolumeGroup::Traps,
        VolumeGroup::Shoulders,
        VolumeGroup::Biceps,
        VolumeGroup::Triceps,
        VolumeGroup::Forearms,
        VolumeGroup::Quads,
        VolumeGroup::Hamstrings,
        VolumeGroup::Glutes,
        VolumeGroup::Calves,
        VolumeGroup::Abs,
    ];

    pub fn id(self) -> &'static str {
        match self {
            VolumeGroup::Chest => "chest",
            VolumeGroup::Back => "back",
            VolumeGroup::Traps => "traps",
            VolumeGroup::Shoulders => "shoulders",
            VolumeGroup::Biceps => "biceps",
            VolumeGroup::Triceps => "triceps",
            VolumeGroup::Forearms => "forearms",
            VolumeGroup::Quads => "quads",
            VolumeGroup::Hamstrings => "hamstrings",
            VolumeGroup::Glutes => "glutes",
            VolumeGroup::Calves => "calves",
            VolumeGroup::Abs => "abs",
        }
    }

    /// The group a muscle's sets count for. Lower back, hip flexors, adductors and abductors are
    /// trained by compound lifts but have no landmark of their own, so they count for none.
    pub fn of(m: Muscle) -> Option<VolumeGroup> {
        use Muscle::*;
        Some(match m {
            Chest | UpperChest => VolumeGroup::Chest,
            Lats | UpperBack => VolumeGroup::Back,
            Traps => VolumeGroup::Traps,
            FrontDelts | SideDelts | RearDelts => VolumeGroup::Shoulders,
            Biceps | Brachialis => VolumeGroup::Biceps,
            Triceps => VolumeGroup::Triceps,
            Forearms => VolumeGroup::Forearms,
            Quads => VolumeGroup::Quads,
            Hamstrings => VolumeGroup::Hamstrings,
            Glutes => VolumeGroup::Glutes,
            Calves => VolumeGroup::Calves,
            Abs | Obliques => VolumeGroup::Abs,
            LowerBack | HipFlexors | Adductors | Abductors => return None,
        })
    }

    /// A group by id, or a body region ("legs", "arms", "core") as the groups it covers.
    pub fn parse_many(text: &str) -> Vec<VolumeGroup> {
        let t = text.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        use VolumeGroup::*;
        match t.as_str() {
            "legs" | "lower_body" => vec![Quads, Hamstrings, Glutes, Calves],
            "arms" => vec![Biceps, Triceps, Forearms],
            "core" => vec![Abs],
            "delts" | "shoulder" => vec![Shoulders],
            "lats" | "upper_back" => vec![Back],
            _ => VolumeGroup::ALL
                .into_iter()
                .filter(|g| g.id() == t || g.id().trim_end_matches('s') == t)
                .collect(),
        }
    }
}

/// Weekly landmarks of one group in direct sets (see [`LANDMARK_SET_MAX_RIR`]): below `mev` a
/// lifter is unlikely to grow, above `mrv` unlikely to recover. `source` says where the pair
/// comes from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Landmarks {
    pub mev: f64,
    pub mrv: f64,
    pub source: &'static str,
}

/// The pairs below are the original system's table, after the volume landmarks of Israetel,
/// Hoffmann & Smith, "Scientific Principles of Hypertrophy Training" (Renaissance
/// Periodization, 2021). RP's own maximum recoverable volumes are higher for several groups
/// (back, biceps, side delts, calves, abs), so "above MRV" here errs early; individual lifters
/// differ, and these are starting points, not limits.
macro_rules! rp {
    ($muscle:literal) => {
        concat!("Israetel, Hoffmann & Smith 2021 (RP), ", $muscle)
    };
}

/// Minimum effective and maximum recoverable volume in direct sets per week, per group, with
/// the muscle of the source each pair is read from.
pub fn landmarks(g: VolumeGroup) -> Landmarks {
    let (mev, mrv, source) = match g {
        VolumeGroup::Chest => (10.0, 20.0, rp!("chest")),
        VolumeGroup::Back => (10.0, 22.0, rp!("back")),
        VolumeGroup::Traps => (4.0, 16.0, rp!("traps")),
        // Front delts have an MEV of 0 in RP (pressing covers them) and rear delts are trained
        // by rows: the side delts' pair stands for the group.
        VolumeGroup::Shoulders => (8.0, 20.0, rp!("side delts")),
        VolumeGroup::Biceps => (6.0, 18.0, rp!("biceps")),
        VolumeGroup::Triceps => (6.0, 18.0, rp!("triceps")),
        VolumeGroup::Forearms => (4.0, 14.0, rp!("forearms")),
        VolumeGroup::Quads => (8.0, 18.0, rp!("quads")),
        VolumeGroup::Hamstrings => (6.0, 16.0, rp!("hamstrings")),
        VolumeGroup::Glutes => (4.0, 16.0, rp!("glutes")),
        VolumeGroup::Calves => (6.0, 16.0, rp!("calves")),
        VolumeGroup::Abs => (4.0, 16.0, rp!("abs")),
    };
    Landmarks { mev, mrv, source }
}

/// The groups a set of an exercise counts for and how much: 1 for each group of its primary
/// movers, [`SECONDARY_SHARE`] for each of its secondary ones (chest and upper chest are one
/// group; a group that is both counts once, whole). The Olympic lifts count for none: fast
/// pulls and catches of a few reps are skill and power work, and counting every snatch as a
/// quad and glute set put an Olympic lifter "above MRV" in 32 weeks of 34.
pub(crate) fn group_shares(exercise: &Exercise) -> Vec<(VolumeGroup, f64)> {
    if exercise.movement_pattern == MovementPattern::Olympic {
        return Vec::new();
    }
    groups_of(&exercise.primary_muscles, &exercise.secondary_muscles)
}

/// The groups of primary movers (1) and secondary movers (a half), once each.
fn groups_of(primary: &[Muscle], secondary: &[Muscle]) -> Vec<(VolumeGroup, f64)> {
    let mut out: Vec<(VolumeGroup, f64)> = Vec::new();
    for g in primary.iter().filter_map(|m| VolumeGroup::of(*m)) {
        if !out.iter().any(|(og, _)| *og == g) {
            out.push((g, 1.0));
        }
    }
    // Front delts as a secondary mover (every press) give the shoulders nothing: RP's MEV for
    // them is 0 because pressing covers them, and the group's pair is the side delts'.
    for g in secondary
        .iter()
        .filter(|m| **m != Muscle::FrontDelts)
        .filter_map(|m| VolumeGroup::of(*m))
    {
        if !out.iter().any(|(og, _)| *og == g) {
            out.push((g, SECONDARY_SHARE));
        }
    }
    out
}

/// Whether a set counts for the landmarks: a done working set within [`LANDMARK_SET_MAX_RIR`]
/// of failure, or of unrecorded effort.
pub(crate) fn landmark_set(s: &WorkoutSet) -> bool {
    s.actual
        .as_ref()
        .filter(|_| done_working(s))
        .is_some_and(|r| effective_rir(r).is_none_or(|rir| rir <= LANDMARK_SET_MAX_RIR))
}

/// Whether an unlogged set is technique or back-off work: under [`TECHNIQUE_SHARE`] of the
/// instance's top working load. Only for external loads: a belt's or an assistance's kilograms
/// are not the load moved (10 kg on a pull-up is no lighter a set than 20 kg by half).
fn technique(s: &WorkoutSet, top_kg: f64, external: bool) -> bool {
    external
        && s.actual.as_ref().is_some_and(|r| {
            effective_rir(r).is_none()
                && r.weight_kg
                    .is_some_and(|kg| kg > 0.0 && kg < top_kg * TECHNIQUE_SHARE)
        })
}

/// Group shares of an exercise by id; the lifter's own exercises (not in the catalog) have none.
#[cfg(test)]
fn shares_for(exercise_id: &str) -> Vec<(VolumeGroup, f64)> {
    catalog()
        .get(exercise_id)
        .map(group_shares)
        .unwrap_or_default()
}

/// Group shares of an exercise as a workout holds it: the catalog's, or for the lifter's own
/// exercise the primary muscles its definition gave it (none if it has no definition).
pub fn shares_of(e: &ExerciseInstance) -> Vec<(VolumeGroup, f64)> {
    match catalog().get(&e.exercise_id) {
        Some(known) => group_shares(known),
        None => groups_of(&e.primary_muscles, &[]),
    }
}

/// Sets an exercise instance gave each group, counted as the landmarks count them.
pub(crate) fn group_credits(e: &ExerciseInstance) -> Vec<(VolumeGroup, f64)> {
    let external = catalog()
        .get(&e.exercise_id)
        .is_none_or(|x| !x.loading.uses_bodyweight());
    let top = e
        .sets
        .iter()
        .filter(|s| done_working(s))
        .filter_map(|s| s.actual.as_ref()?.weight_kg)
        .fold(0.0, f64::max);
    let credit = e
        .sets
        .iter()
        .filter(|s| landmark_set(s) && !technique(s, top, external))
        .count() as f64;
    if credit == 0.0 {
        return Vec::new();
    }
    shares_of(e)
        .into_iter()
        .map(|(g, share)| (g, credit * share))
        .collect()
}

/// The lifter's calendar day of an instant.
pub fn local_date(at: DateTime<Utc>, tz: Tz) -> NaiveDate {
    at.with_timezone(&tz).date_naive()
}

/// The Monday of the ISO week containing `d`.
/// The Sunday ending the ISO week of the instant `t` in `tz` (how jobs name a week).
pub fn week_ending(t: DateTime<Utc>, tz: Tz) -> NaiveDate {
    let start = week_start(local_date(t, tz));
    start
        .checked_add_days(chrono::Days::new(6))
        .unwrap_or(start)
}

pub fn week_start(d: NaiveDate) -> NaiveDate {
    // Checked: the first days chrono can represent have no Monday before them.
    d.checked_sub_days(chrono::Days::new(u64::from(
        d.weekday().num_days_from_monday(),
    )))
    .unwrap_or(d)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::domain::workout::{SetResult, SetTarget};

    pub(crate) fn set(kg: f64, reps: u32, rir: Option<u32>) -> WorkoutSet {
        let mut s = WorkoutSet::planned("s", SetType::Working, SetTarget::default());
        s.actual = Some(SetResult {
            reps,
            weight_kg: Some(kg),
            rir,
            rpe: None,
            failure: false,
            ..Default::default()
        });
        s
    }

    #[test]
    fn hard_set_credit_follows_the_table() {
        assert_eq!(hard_set_credit(&set(100.0, 8, Some(0))), 1.0);
        assert_eq!(hard_set_credit(&set(100.0, 8, Some(HARD_SET_MAX_RIR))), 1.0);
        assert_eq!(hard_set_credit(&set(100.0, 8, Some(3))), 0.5);
        assert_eq!(
            hard_set_credit(&set(100.0, 8, Some(MODERATE_SET_MAX_RIR))),
            0.5
        );
        assert_eq!(hard_set_credit(&set(100.0, 8, Some(5))), 0.0);
        assert_eq!(hard_set_credit(&set(100.0, 8, None)), 0.75);
        let mut failed = set(100.0, 6, None);
        if let Some(r) = failed.actual.as_mut() {
            r.failure = true;
        }
        assert_eq!(hard_set_credit(&failed), 1.0);
        let mut warm = set(60.0, 8, Some(0));
        warm.set_type = SetType::Warmup;
        assert_eq!(hard_set_credit(&warm), 0.0);
        let planned = WorkoutSet::planned("p", SetType::Working, SetTarget::default());
        assert_eq!(hard_set_credit(&planned), 0.0);
    }

    #[test]
    fn volume_leaves_out_warmups_and_timed_sets() {
        assert_eq!(volume_kg(&set(100.0, 8, None), Lift::EXTERNAL), 800.0);
        let mut warm = set(60.0, 8, None);
        warm.set_type = SetType::Warmup;
        assert_eq!(volume_kg(&warm, Lift::EXTERNAL), 0.0);
        assert_eq!(volume_kg(&set(20.0, 0, None), Lift::EXTERNAL), 0.0);
        let mut drop = set(80.0, 10, Some(0));
        drop.set_type = SetType::Dropset;
        assert_eq!(volume_kg(&drop, Lift::EXTERNAL), 800.0);
        // Ten pull-ups at 80 kg bodyweight with 10 kg on the belt move 900 kg; without a
        // bodyweight nothing is counted rather than the belt alone.
        let belt = set(10.0, 10, None);
        assert_eq!(volume_kg(&belt, Lift::of("pull-up", Some(80.0))), 900.0);
        assert_eq!(volume_kg(&belt, Lift::of("pull-up", None)), 0.0);
        // 25 kg of assistance at 80 kg moves 55 kg a rep.
        let assisted = set(25.0, 10, None);
        assert_eq!(
            volume_kg(&assisted, Lift::of("assisted-pull-up", Some(80.0))),
            550.0
        );
    }

    #[test]
    fn timed_and_distance_sets_are_not_strength_work() {
        // A 60 s plank and a 40 m farmer's carry with 32 kg: kept, but no credit and no volume.
        let mut plank = set(0.0, 0, None);
        let mut carry = set(32.0, 0, None);
        if let (Some(p), Some(c)) = (plank.actual.as_mut(), carry.actual.as_mut()) {
            p.seconds = Some(60);
            c.distance_m = Some(40.0);
        }
        for s in [&plank, &carry] {
            assert!(s.actual.as_ref().is_some_and(SetResult::is_timed));
            assert_eq!(hard_set_credit(s), 0.0);
            assert_eq!(volume_kg(s, Lift::EXTERNAL), 0.0);
            assert!(!crate::domain::strength::is_working_result(s));
        }
        // A failed set with no reps is still a hard set.
        let mut failed = set(100.0, 0, None);
        if let Some(r) = failed.actual.as_mut() {
            r.failure = true;
            r.seconds = Some(20);
        }
        assert_eq!(hard_set_credit(&failed), 1.0);
    }

    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "a table of exercises and the volume they count for"
    )]
    fn landmark_sets_are_fractional_and_skip_olympic_and_technique_work() {
        // A bench set is a chest set and half a triceps set (Pelland 2024); its front delts
        // give the shoulders nothing (pressing is why RP's front-delt MEV is 0). An overhead
        // press, front delts primary, is a shoulder set.
        assert_eq!(
            shares_for("barbell-bench-press"),
            vec![(VolumeGroup::Chest, 1.0), (VolumeGroup::Triceps, 0.5)]
        );
        assert!(
            shares_for("overhead-press").contains(&(VolumeGroup::Shoulders, 1.0)),
            "{:?}",
            shares_for("overhead-press")
        );
        assert!(shares_for("my-own-exercise").is_empty());
        // A snatch is no quad or glute set.
        assert!(shares_for("snatch").is_empty());
        assert!(shares_for("power-clean").is_empty());
        // Within 4 reps of failure, or effort not logged, is a whole set; easier is none (the
        // hard-set credit elsewhere gives 0.5 and 0.75).
        assert!(landmark_set(&set(100.0, 8, Some(LANDMARK_SET_MAX_RIR))));
        assert!(landmark_set(&set(100.0, 8, None)));
        assert!(!landmark_set(&set(100.0, 8, Some(5))));
        let mut warm = set(60.0, 8, Some(0));
        warm.set_type = SetType::Warmup;
        assert!(!landmark_set(&warm));
        let e = ExerciseInstance {
            group: None,
            rest: None,
            instance_id: "i".into(),
            exercise_id: "barbell-bench-press".into(),
            name: "Bench Press".into(),
            sets: vec![
                set(100.0, 8, Some(3)),
                set(100.0, 8, None),
                set(60.0, 8, Some(6)),
            ],
            notes: None,
            rep_range: None,
            primary_muscles: Vec::new(),
        };
        assert_eq!(
            group_credits(&e),
            vec![(VolumeGroup::Chest, 2.0), (VolumeGroup::Triceps, 1.0)]
        );
        // An unlogged set at half the top load is technique work: no credit. At two thirds
        // it counts.
        let light = ExerciseInstance {
            sets: vec![set(100.0, 5, None), set(50.0, 5, None), set(70.0, 8, None)],
            ..e.clone()
        };
        assert_eq!(group_credits(&light)[0], (VolumeGroup::Chest, 2.0));
        // A belt's kilograms are not the load moved: 10 kg on a weighted pull-up after 20 kg
        // is a whole set, not technique work.
        let belt = ExerciseInstance {
            exercise_id: "weighted-pull-up".into(),
            sets: vec![set(20.0, 5, None), set(10.0, 8, None)],
            ..e.clone()
        };
        assert_eq!(
            group_credits(&belt).first().map(|c| c.1),
            Some(2.0),
            "{:?}",
            group_credits(&belt)
        );
        // An own exercise counts only with the muscles its definition gave it; a catalog one
        // keeps the catalog's whatever the instance says.
        let own = ExerciseInstance {
            group: None,
            rest: None,
            exercise_id: "own-zercher-hack".into(),
            ..e.clone()
        };
        assert!(group_credits(&own).is_empty());
        let defined = ExerciseInstance {
            group: None,
            rest: None,
            primary_muscles: vec![Muscle::Quads, Muscle::Glutes, Muscle::Quads],
            ..own
        };
        assert_eq!(
            group_credits(&defined),
            vec![(VolumeGroup::Quads, 2.0), (VolumeGroup::Glutes, 2.0)]
        );
        let claimed = ExerciseInstance {
            group: None,
            rest: None,
            primary_muscles: vec![Muscle::Quads],
            ..e.clone()
        };
        assert_eq!(group_credits(&claimed), group_credits(&e));
        // Each group says which of the source's muscles its pair is read from.
        assert!(
            landmarks(VolumeGroup::Shoulders)
                .source
                .ends_with("side delts")
        );
        assert!(
            VolumeGroup::ALL
                .iter()
                .all(|g| landmarks(*g).source.contains("(RP)"))
        );
    }

    #[test]
    fn every_group_has_landmarks_in_order_and_parses() {
        for g in VolumeGroup::ALL {
            let l = landmarks(g);
            assert!(0.0 < l.mev && l.mev < l.mrv, "{g:?}");
            assert_eq!(VolumeGroup::parse_many(g.id()), vec![g]);
        }
        assert_eq!(VolumeGroup::parse_many("Quad"), vec![VolumeGroup::Quads]);
        assert_eq!(VolumeGroup::parse_many("legs").len(), 4);
        assert!(VolumeGroup::parse_many("elbows").is_empty());
    }

    #[test]
    fn weeks_start_on_monday_in_the_lifters_zone() {
        let d = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap_or_default(); // a Sunday
        assert_eq!(week_start(d).to_string(), "2026-11-16");
        // 23:30 UTC on Sunday is already Monday in Stockholm.
        let t = "2026-11-22T23:30:00Z".parse().unwrap_or_default();
        assert_eq!(
            week_start(local_date(t, chrono_tz::Europe::Stockholm)).to_string(),
            "2026-11-23"
        );
    }
}
