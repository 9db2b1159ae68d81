//! Deload, ramp back, or carry on.
//!
//! - a **deload** answers performance falling: the best estimated max of the last two weeks
//!   under the two weeks before (equal windows) on at least two lifts, by more than a fixed
//!   5 % and more than the lift's own session-to-session noise. Effort drifting up at the same
//!   loads, repeated failure and lifts stalled near failure are reported with it, but a tired
//!   feeling without lost performance is not one (on the development lifters, advice on load
//!   and such signals was right less often than deloading every fifth week);
//! - a load spike right after a light week is a **return** to training: ramp back up, never
//!   deload (strength measured across a break is detraining, not fatigue).
//!
//! One deload prescription, here and for a single stalled lift: [`DELOAD`].

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::Stall;
use super::load::{self, LoadCompared, TrainingLoad, VolumeStatus, within};
use super::series::StallAction;
use crate::domain::strength::{Lift, effective_rir, is_rated, is_working_result, round1, set_e1rm};
use crate::domain::workout::Workout;

/// Fatigue shows in the last this many days, against as many days before them: equal windows,
/// so that neither best has more sessions to be drawn from (a 14-day best against a 42-day
/// best reads noise as a fall).
pub const RECENT_DAYS: i64 = 14;
pub(crate) const REFERENCE_DAYS: i64 = 14;
/// Best e1RM at least this far below the reference best is a fall...
pub(crate) const PERFORMANCE_DROP: f64 = 0.05;
/// ...and at least this many times the lift's own session-to-session noise (a lifter whose
/// estimated max swings 6 % from session to session has not fallen at 5 %).
pub(crate) const NOISE_MULTIPLE: f64 = 1.5;
/// The noise is read from the lift's sessions over this many weeks before the windows.
pub(crate) const NOISE_WEEKS: i64 = 12;
/// Falling or drifting needs at least this many exercises (one lift is a bad day, not fatigue).
pub(crate) const MIN_EXERCISES: usize = 2;
/// Reserve this much lower at the same load and reps is drift.
pub(crate) const EFFORT_DRIFT_RIR: f64 = 1.0;
/// Failure sets (RIR 0, or reps short of the target) repeated: this many in the recent
/// window, in at least two sessions, and at least this share of the sets that say.
pub(crate) const FAILURE_SETS: usize = 4;
pub(crate) const FAILURE_SHARE: f64 = 0.25;
/// This many lifts stalled close to failure is a signal.
pub(crate) const DELOAD_STALLS: usize = 2;
/// A week under this share of the lifter's usual weekly hard sets is a break.
pub(crate) const LIGHT_WEEK: f64 = 0.5;
/// "Usual" is the median of up to this many weeks before the current one.
pub(crate) const USUAL_WEEKS: i64 = 8;
/// A light stretch with this many days or more without training is a break to ramp back from;
/// a light week trained through (a deload) is not.
pub(crate) const BREAK_GAP_DAYS: i64 = 7;

/// A sign of fatigue, with the exercises (ids) that show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Signal {
    /// Best e1RM of the last two weeks at least [`PERFORMANCE_DROP`] (and the lift's own noise)
    /// under the two weeks before, like for like.
    PerformanceFalling {
        exercises: Vec<String>,
    },
    /// Lower reserve than before at the same load and reps.
    EffortDrifting {
        exercises: Vec<String>,
    },
    RepeatedFailure {
        sets: usize,
        sessions: usize,
    },
    StalledNearFailure {
        exercises: Vec<String>,
    },
}

impl Signal {
    /// The signal in words, with exercise names from `history`.
    pub fn describe(&self, history: &[Workout]) -> String {
        let names = |ids: &[String]| {
            ids.iter()
                .map(|id| super::name_of(history, id))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            Signal::PerformanceFalling { exercises } => {
                format!("estimated strength down on {}", names(exercises))
            }
            Signal::EffortDrifting { exercises } => {
                format!("the same loads feel harder on {}", names(exercises))
            }
            Signal::RepeatedFailure { sets, sessions } => {
                format!("{sets} sets to failure or short of target in {sessions} sessions")
            }
            Signal::StalledNearFailure { exercises } => {
                format!("stalled close to failure on {}", names(exercises))
            }
        }
    }
}

/// What to do about training load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadAdvice {
    Deload,
    RampBack,
    Steady,
}

/// Back from a light stretch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Return {
    /// Hard sets of the lightest of the three weeks before this one...
    pub light_week_hard_sets: f64,
    /// ...against the usual week's.
    pub usual_hard_sets: f64,
    /// The longest run of days without training in the last four weeks.
    pub longest_gap_days: i64,
}

/// The one deload prescription the product gives.
pub(crate) const DELOAD: &str = super::deload_week!();

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Readiness {
    /// This week's training against the lifter's usual (descriptive).
    pub training_load: Option<TrainingLoad>,
    /// Load higher than usual, or a group above its MRV in the last 7 days (descriptive).
    pub high_load: bool,
    pub signals: Vec<Signal>,
    pub returning: Option<Return>,
    pub advice: LoadAdvice,
}

impl Readiness {
    /// The advice in one sentence for the lifter, None when there is nothing to do.
    pub fn advice_text(&self, history: &[Workout]) -> Option<String> {
        match self.advice {
            LoadAdvice::Steady => None,
            LoadAdvice::Deload => Some(format!(
                "Take {DELOAD}: {}.",
                self.signals
                    .iter()
                    .map(|s| s.describe(history))
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            LoadAdvice::RampBack => Some(format!(
                "Welcome back{}: ramp back up over a week or two (about two-thirds of your usual {} hard sets this week) rather than jumping straight to full volume.",
                self.returning
                    .as_ref()
                    .map(|r| format!(" after {} days off", r.longest_gap_days))
                    .unwrap_or_default(),
                self.returning
                    .as_ref()
                    .map_or(0.0, |r| r.usual_hard_sets.round()),
            )),
        }
    }
}

/// The readiness of the lifter at `now`, from the history and the stalls already computed.
pub fn readiness(history: &[Workout], now: DateTime<Utc>, stalls: &[Stall]) -> Readiness {
    let training_load = load::training_load(history, now);
    let elevated = training_load
        .as_ref()
        .is_some_and(|l| l.compared == LoadCompared::HigherThanUsual);
    let above_mrv = load::weekly_group_volume(history, now)
        .iter()
        .any(|g| g.status == VolumeStatus::AboveMrv);
    let high_load = elevated || above_mrv;
    let signals = signals(history, now, stalls);
    let returning = returning(history, now);
    let advice = match (&returning, elevated) {
        // Back from days off to more than the usual week: build up to it.
        (Some(r), true) if r.longest_gap_days >= BREAK_GAP_DAYS => LoadAdvice::RampBack,
        // Strength and effort compared across a break, or across a light week (a deload
        // already taken), read detraining or the lighter loads as fatigue.
        (Some(_), _) => LoadAdvice::Steady,
        // Performance falling beyond the lifter's own noise is what a deload answers; the
        // other signals say what it looks like.
        (None, _)
            if signals
                .iter()
                .any(|s| matches!(s, Signal::PerformanceFalling { .. })) =>
        {
            LoadAdvice::Deload
        }
        (None, _) => LoadAdvice::Steady,
    };
    Readiness {
        training_load,
        high_load,
        signals,
        returning,
        advice,
    }
}

/// The fatigue signals at `now`.
pub fn signals(history: &[Workout], now: DateTime<Utc>, stalls: &[Stall]) -> Vec<Signal> {
    let recent_from = now - Duration::days(RECENT_DAYS);
    let reference_from = recent_from - Duration::days(REFERENCE_DAYS);
    let recent: Vec<&Workout> = history
        .iter()
        .filter(|w| within(w, recent_from, now))
        .collect();
    let reference: Vec<&Workout> = history
        .iter()
        .filter(|w| within(w, reference_from, recent_from))
        .collect();
    let mut out = Vec::new();
    let falling = falling(history, &recent, &reference, reference_from);
    if falling.len() >= MIN_EXERCISES {
        out.push(Signal::PerformanceFalling { exercises: falling });
    }
    let drifting = drifting(&recent, &reference);
    if drifting.len() >= MIN_EXERCISES {
        out.push(Signal::EffortDrifting {
            exercises: drifting,
        });
    }
    if let Some(s) = repeated_failure(&recent) {
        out.push(s);
    }
    let stalled: Vec<String> = stalls
        .iter()
        .filter(|s| s.action == StallAction::Deload)
        .map(|s| s.exercise_id.clone())
        .collect();
    if stalled.len() >= DELOAD_STALLS {
        out.push(Signal::StalledNearFailure { exercises: stalled });
    }
    out
}

/// The relative session-to-session noise of a lift's estimated max over the [`NOISE_WEEKS`]
/// before `until`: successive differences of the log maxima hold twice a session's variance.
/// None with fewer than four sessions.
fn lift_noise(history: &[Workout], id: &str, until: DateTime<Utc>) -> Option<f64> {
    let logs: Vec<f64> = super::capacity::session_tops(history, id, until)
        .iter()
        .filter(|t| until - t.at <= Duration::weeks(NOISE_WEEKS))
        .filter_map(|t| Some(t.e1rm_kg?.ln()))
        .collect();
    if logs.len() < 4 {
        return None;
    }
    let diffs: Vec<f64> = logs.windows(2).map(|w| w[0] - w[1]).collect();
    Some((diffs.iter().map(|d| d * d).sum::<f64>() / diffs.len() as f64 / 2.0).sqrt())
}

/// Exercises whose recent best is under the reference best by [`PERFORMANCE_DROP`] and by
/// [`NOISE_MULTIPLE`] times their own noise. (Asking also that they be half of the lifts both
/// windows share made the signal all but silent on real histories: a lifter has many lifts.)
fn falling(
    history: &[Workout],
    recent: &[&Workout],
    reference: &[&Workout],
    reference_from: DateTime<Utc>,
) -> Vec<String> {
    // Like against like: rated sets against rated (starting to log RPE is no change), and
    // within a rep band (a switch from triples to tens moves Epley's estimate by itself).
    let before = like_bests(reference);
    let mut down = BTreeSet::new();
    let mut up = BTreeSet::new();
    for ((id, kind), now) in like_bests(recent) {
        let Some(then) = before.get(&(id.clone(), kind)) else {
            continue;
        };
        let drop = lift_noise(history, &id, reference_from).map_or(PERFORMANCE_DROP, |n| {
            PERFORMANCE_DROP.max(NOISE_MULTIPLE * n)
        });
        if now < then * (1.0 - drop) {
            down.insert(id);
        } else {
            up.insert(id);
        }
    }
    // A lift down in one band and holding in another has not fallen.
    down.difference(&up).cloned().collect()
}

/// Rep bands estimated maxima are compared within.
fn rep_band(reps: u32) -> u8 {
    match reps {
        0..=5 => 0,
        6..=12 => 1,
        _ => 2,
    }
}

/// The best estimated max of each (exercise, (rated, rep band)) over `workouts`.
fn like_bests(workouts: &[&Workout]) -> BTreeMap<(String, (bool, u8)), f64> {
    let mut out: BTreeMap<(String, (bool, u8)), f64> = BTreeMap::new();
    for w in workouts {
        for e in &w.exercises {
            let lift = Lift::in_workout(w, &e.exercise_id);
            for s in e.sets.iter().filter(|s| is_working_result(s)) {
                let (Some(r), Some(max)) = (s.actual.as_ref(), set_e1rm(s, lift)) else {
                    continue;
                };
                let key = (e.exercise_id.clone(), (is_rated(r), rep_band(r.reps)));
                let best = out.entry(key).or_insert(max);
                *best = best.max(max);
            }
        }
    }
    out
}

/// Reserve per (exercise, load, reps) of rated working sets.
fn efforts(workouts: &[&Workout]) -> BTreeMap<(String, i64, u32), Vec<u32>> {
    let mut out: BTreeMap<(String, i64, u32), Vec<u32>> = BTreeMap::new();
    for e in workouts.iter().flat_map(|w| w.exercises.iter()) {
        for s in e.sets.iter().filter(|s| is_working_result(s)) {
            let Some(r) = s.actual.as_ref() else { continue };
            let (Some(kg), Some(rir)) = (r.weight_kg, effective_rir(r)) else {
                continue;
            };
            // Loads compared to the gram: float noise aside, the same plates.
            let key = (e.exercise_id.clone(), (kg * 1000.0).round() as i64, r.reps);
            out.entry(key).or_default().push(rir);
        }
    }
    out
}

fn mean(v: &[u32]) -> f64 {
    v.iter().map(|x| f64::from(*x)).sum::<f64>() / v.len().max(1) as f64
}

/// Exercises whose reserve at the same load and reps fell by [`EFFORT_DRIFT_RIR`] or more on
/// average.
fn drifting(recent: &[&Workout], reference: &[&Workout]) -> Vec<String> {
    let before = efforts(reference);
    let mut drift: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (key, now) in efforts(recent) {
        if let Some(then) = before.get(&key) {
            drift
                .entry(key.0)
                .or_default()
                .push(mean(then) - mean(&now));
        }
    }
    drift
        .into_iter()
        .filter(|(_, d)| d.iter().sum::<f64>() / d.len() as f64 >= EFFORT_DRIFT_RIR)
        .map(|(id, _)| id)
        .collect()
}

fn repeated_failure(recent: &[&Workout]) -> Option<Signal> {
    let mut said = 0;
    let mut failed = 0;
    let mut sessions = 0;
    for w in recent {
        let before = failed;
        for s in w
            .exercises
            .iter()
            .flat_map(|e| e.sets.iter())
            .filter(|s| is_working_result(s))
        {
            let Some(r) = s.actual.as_ref() else { continue };
            let short = s.target.reps.map(|t| r.reps < t);
            let rir = effective_rir(r);
            if short.is_none() && rir.is_none() {
                continue;
            }
            said += 1;
            failed += usize::from(short == Some(true) || rir == Some(0));
        }
        sessions += usize::from(failed > before);
    }
    (failed >= FAILURE_SETS && sessions >= 2 && failed as f64 >= said as f64 * FAILURE_SHARE)
        .then_some(Signal::RepeatedFailure {
            sets: failed,
            sessions,
        })
}

/// Back from a light stretch: one of the three weeks before the current one (rolling 7-day
/// weeks, as ACWR's) had under [`LIGHT_WEEK`] of the usual week's hard sets, the usual being
/// the median of up to [`USUAL_WEEKS`] weeks before the current one since training began.
pub fn returning(history: &[Workout], now: DateTime<Utc>) -> Option<Return> {
    let first = history.iter().map(|w| w.started_at).min()?;
    let week = |k: i64| {
        let to = now - Duration::days(7 * k);
        load::hard_sets(history, to - Duration::days(7), to)
    };
    let mut usual: Vec<f64> = (1..=USUAL_WEEKS)
        .filter(|k| now - Duration::days(7 * k) > first)
        .map(week)
        .collect();
    usual.sort_by(f64::total_cmp);
    let usual = *usual.get(usual.len() / 2)?;
    let light = (1..=3)
        .filter(|k| now - Duration::days(7 * k) > first)
        .map(week)
        .min_by(f64::total_cmp)?;
    if usual <= 0.0 || light >= usual * LIGHT_WEEK {
        return None;
    }
    let mut days: Vec<DateTime<Utc>> = history
        .iter()
        .map(|w| w.started_at)
        .filter(|t| *t < now)
        .collect();
    days.sort();
    let since = now - Duration::days(28);
    let gap = days
        .windows(2)
        .filter(|p| p[1] >= since)
        .map(|p| (p[1] - p[0]).num_days())
        .chain(days.last().map(|t| (now - *t).num_days()))
        .max()
        .unwrap_or(0);
    Some(Return {
        light_week_hard_sets: round1(light),
        usual_hard_sets: round1(usual),
        longest_gap_days: gap,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testkit::{at_day, session, working};

    const BENCH: &str = "barbell-bench-press";
    const SQUAT: &str = "back-squat";

    /// Sessions on the given days: bench and squat, `sets` sets each of `kg` (bench) and
    /// `kg + 40` (squat) × 5 at `rir`.
    fn days(ds: &[i64], sets: usize, kg: f64, rir: Option<u32>) -> Vec<Workout> {
        ds.iter()
            .flat_map(|d| {
                [
                    session(*d, BENCH, &vec![working(kg, 5, None, rir); sets]),
                    session(*d, SQUAT, &vec![working(kg + 40.0, 5, None, rir); sets]),
                ]
            })
            .collect()
    }

    /// Two sessions a week (days 7k and 7k + 3) for weeks `from..to`.
    fn weeks(from: i64, to: i64) -> Vec<i64> {
        (from..to).flat_map(|k| [7 * k, 7 * k + 3]).collect()
    }

    #[test]
    fn a_spike_after_a_break_is_a_return_not_a_deload() {
        // Six weeks of 2 × (3 + 3) sets at RIR 2, two weeks off, then a week back at 10 %
        // lighter loads (detrained) and the same sets.
        let mut h = days(&weeks(0, 6), 3, 100.0, Some(2));
        h.extend(days(&[56, 59], 3, 90.0, Some(2)));
        let now = at_day(63);
        let r = readiness(&h, now, &[]);
        let load = r.training_load.as_ref().expect("a load");
        assert_eq!(load.compared, LoadCompared::HigherThanUsual, "{load:?}");
        assert!(r.high_load);
        let back = r.returning.as_ref().expect("a return");
        assert_eq!(
            (back.light_week_hard_sets, back.usual_hard_sets),
            (0.0, 12.0)
        );
        // Day 7 × 5 + 3 = 38 was the last session before day 56: 18 days off.
        assert_eq!(back.longest_gap_days, 18);
        assert_eq!(r.advice, LoadAdvice::RampBack);
        let text = r.advice_text(&h).unwrap_or_default();
        assert!(
            text.starts_with("Welcome back after 18 days off: ramp back"),
            "{text}"
        );
    }

    #[test]
    fn a_deload_week_trained_through_is_no_return_and_no_new_deload() {
        // Six weeks of 2 × (3 + 3) sets, a deload week of one lighter set per lift (trained
        // every three or four days), then a usual week again: no "welcome back", and the
        // lighter week is not read as strength falling.
        let mut h = days(&weeks(0, 6), 3, 100.0, None);
        h.extend(days(&[42, 45], 1, 80.0, None));
        h.extend(days(&[49, 52], 3, 100.0, None));
        let r = readiness(&h, at_day(56), &[]);
        assert!(r.returning.is_some(), "{r:?}");
        assert_eq!(r.advice, LoadAdvice::Steady, "{r:?}");
        assert_eq!(r.advice_text(&h), None);
    }

    #[test]
    fn a_deload_answers_performance_falling_on_two_lifts() {
        // Four steady weeks, then two weeks 10 % down on both lifts: beyond 5 % and beyond
        // the lifts' own noise (none: the same sets every time). The one deload prescription.
        let mut h = days(&weeks(0, 4), 3, 100.0, None);
        h.extend(days(&[28, 31, 35, 38], 3, 90.0, None));
        let r = readiness(&h, at_day(42), &[]);
        assert!(matches!(
            r.signals.as_slice(),
            [Signal::PerformanceFalling { exercises }] if exercises.len() == 2
        ));
        assert_eq!(r.advice, LoadAdvice::Deload);
        let text = r.advice_text(&h).unwrap_or_default();
        assert!(text.starts_with(&format!("Take {DELOAD}")), "{text}");
        // The same loads at RIR 0 where they were RIR 2: two reps of capacity lost, a fall,
        // with the sets feeling harder and failing reported alongside.
        let mut tired = days(&weeks(0, 4), 3, 100.0, Some(2));
        tired.extend(days(&[28, 31, 35, 38], 3, 100.0, Some(0)));
        let r = readiness(&tired, at_day(42), &[]);
        let kinds: Vec<String> = r
            .signals
            .iter()
            .map(|s| serde_json::to_value(s).unwrap_or_default()["kind"].to_string())
            .collect();
        assert_eq!(
            kinds,
            [
                "\"performance_falling\"",
                "\"effort_drifting\"",
                "\"repeated_failure\""
            ]
        );
        assert_eq!(r.advice, LoadAdvice::Deload);
        // Many more sets at the same loads and effort: the load is up, nothing was lost, and a
        // lot of training is no reason to deload.
        let mut busy = days(&weeks(0, 4), 3, 100.0, Some(2));
        busy.extend(days(&[28, 31, 35, 38], 6, 100.0, Some(2)));
        let r = readiness(&busy, at_day(42), &[]);
        assert!(r.high_load && r.signals.is_empty(), "{r:?}");
        assert_eq!(r.advice, LoadAdvice::Steady);
    }

    #[test]
    fn a_lift_that_swings_has_not_fallen_at_five_percent() {
        // Bench and squat swinging ±5 % session to session for twelve weeks, then two weeks
        // 6 % under the two before: inside their own noise, no fall.
        let mut h = Vec::new();
        for (i, d) in weeks(0, 12).into_iter().enumerate() {
            let kg = if i % 2 == 0 { 105.0 } else { 95.0 };
            h.extend(days(&[d], 3, kg, None));
        }
        for (i, d) in [84, 87, 91, 94].into_iter().enumerate() {
            let kg = if i % 2 == 0 { 99.0 } else { 93.0 };
            h.extend(days(&[d], 3, kg, None));
        }
        assert!(signals(&h, at_day(98), &[]).is_empty());
    }

    #[test]
    fn strength_is_compared_between_like_sets() {
        // Rated sets before (100 × 5 at RIR 3: e1RM 126.7), unrated since (e1RM 116.7, 8 %
        // lower on paper). Not comparable: no fall.
        let mut h = days(&weeks(0, 4), 3, 100.0, Some(3));
        h.extend(days(&[28, 31, 35, 38], 3, 100.0, None));
        assert!(signals(&h, at_day(42), &[]).is_empty());
        // The same unrated week after unrated weeks 10 % heavier is a fall.
        let mut h = days(&weeks(0, 4), 3, 110.0, None);
        h.extend(days(&[28, 31, 35, 38], 3, 100.0, None));
        assert!(matches!(
            signals(&h, at_day(42), &[]).as_slice(),
            [Signal::PerformanceFalling { .. }]
        ));
    }

    #[test]
    fn a_switch_of_rep_range_is_no_fall() {
        // Four weeks of fives, then two weeks of tens at a lighter load: Epley reads the bench
        // tens 14 % lower (75 × 10 is 100 against 100 × 5's 116.7) and the squat's 10 % lower,
        // but tens are only compared with tens.
        let mut h = days(&weeks(0, 4), 3, 100.0, None);
        for d in [28, 31, 35, 38] {
            h.push(session(d, BENCH, &vec![working(75.0, 10, None, None); 3]));
            h.push(session(d, SQUAT, &vec![working(110.0, 10, None, None); 3]));
        }
        assert!(signals(&h, at_day(42), &[]).is_empty());
    }

    #[test]
    fn one_lift_down_among_several_is_not_fatigue() {
        let mut h = days(&weeks(0, 4), 3, 100.0, None);
        // Bench down 10 %, squat as before.
        for d in [28, 31, 35, 38] {
            h.push(session(d, BENCH, &vec![working(90.0, 5, None, None); 3]));
            h.push(session(d, SQUAT, &vec![working(140.0, 5, None, None); 3]));
        }
        assert!(signals(&h, at_day(42), &[]).is_empty());
    }
}
