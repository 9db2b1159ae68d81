//! Training analysis: pure functions over the lifter's completed workouts. The worker's insight
//! cards and weekly reviews and the coach's analytics tools and context flags all call these,
//! so the lifter hears the same numbers from both.
//!
//! - `facts`: per set (hard-set credit, volume, muscle-group shares, landmarks, weeks);
//! - `session`: per workout (totals, per-exercise tops, personal records);
//! - `series`: per exercise per week (e1RM, sets, volume, loads, reserve), plateau, trend;
//! - `load`: group volume against MEV/MRV, ACWR, consistency;
//! - `fatigue`: fatigue signals and the load advice (deload, ramp back, steady);
//! - `progression`: double-progression candidates;
//! - `card` and `review`: the worker's post-workout insight card and weekly review.

/// The one deload prescription, in words (a macro so that the stall advice can be built from it
/// at compile time).
macro_rules! deload_week {
    () => {
        "a deload week: the same loads, about half the sets, every set stopped well short of failure"
    };
}
pub(crate) use deload_week;

pub mod capacity;
pub mod card;
pub mod facts;
pub mod fatigue;
pub mod history;
pub mod load;
pub mod progression;
pub mod review;
pub mod series;
pub mod session;
/// Histories for tests, here and in the crates above (feature `testkit`).
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use self::facts::VolumeGroup;
use self::fatigue::{LoadAdvice, Readiness};
use self::load::{GroupVolume, VolumeStatus};
use self::series::{StallAction, plateau, weekly_series};
use crate::domain::catalog::catalog;
use crate::domain::units::{Unit, format_estimate};
use crate::domain::workout::Workout;

/// An exercise is checked for a plateau only if trained within this many days: an old stall
/// of a lift the lifter dropped is history, not a flag.
pub const RECENT_DAYS: i64 = 14;
/// Weekly series look back this far.
pub const ANALYSIS_WEEKS: i64 = 12;
/// A group must have been trained within this many days to be flagged below MEV: a group the
/// lifter never trains is a choice of program, reported in the review but not flagged.
pub(crate) const TRAINED_WITHIN_DAYS: i64 = 28;

/// A recently trained exercise at a plateau.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stall {
    pub exercise_id: String,
    pub exercise_name: String,
    pub weeks: usize,
    pub last_e1rm_kg: f64,
    pub avg_rir: Option<f64>,
    pub action: StallAction,
    pub advice: &'static str,
}

/// The name of an exercise id: the catalog's, else the newest name the lifter used.
pub fn name_of(history: &[Workout], exercise_id: &str) -> String {
    catalog().get(exercise_id).map_or_else(
        || {
            history
                .iter()
                .rev()
                .flat_map(|w| w.exercises.iter())
                .find(|e| e.exercise_id == exercise_id)
                .map_or_else(|| exercise_id.to_string(), |e| e.name.clone())
        },
        |e| e.name.clone(),
    )
}

/// Plateaus of exercises trained in the last [`RECENT_DAYS`], longest first.
pub fn stalls(history: &[Workout], now: DateTime<Utc>, tz: Tz) -> Vec<Stall> {
    let since = now - Duration::weeks(ANALYSIS_WEEKS);
    let recent_from = facts::week_start(facts::local_date(now - Duration::days(RECENT_DAYS), tz));
    let window: Vec<Workout> = history
        .iter()
        .filter(|w| w.started_at >= since && w.started_at <= now)
        .cloned()
        .collect();
    let mut out: Vec<Stall> = weekly_series(&window, tz)
        .into_iter()
        .filter(|(_, pts)| pts.last().is_some_and(|p| p.week_start >= recent_from))
        .filter_map(|(id, pts)| {
            let p = plateau(&pts)?;
            Some(Stall {
                exercise_name: name_of(history, &id),
                exercise_id: id,
                weeks: p.weeks,
                last_e1rm_kg: p.last_e1rm_kg,
                avg_rir: p.avg_rir,
                action: p.action,
                advice: p.action.advice(),
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.weeks
            .cmp(&a.weeks)
            .then(a.exercise_id.cmp(&b.exercise_id))
    });
    out
}

/// What the coach should know before answering anything about training: active flags.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flags {
    pub plateaus: Vec<Stall>,
    pub below_mev: Vec<GroupVolume>,
    pub above_mrv: Vec<GroupVolume>,
    /// ACWR, fatigue signals, a return from a break, and the advice they add up to.
    pub readiness: Readiness,
}

pub fn flags(history: &[Workout], now: DateTime<Utc>, tz: Tz) -> Flags {
    let plateaus = stalls(history, now, tz);
    let trained = load::hard_sets_by_group(history, now - Duration::days(TRAINED_WITHIN_DAYS), now);
    let volume = load::weekly_group_volume(history, now);
    let is_trained = |g: &VolumeGroup| trained.get(g).is_some_and(|h| *h > 0.0);
    let below_mev = volume
        .iter()
        .filter(|v| v.status == VolumeStatus::BelowMev && is_trained(&v.muscle_group))
        .cloned()
        .collect();
    let above_mrv = volume
        .into_iter()
        .filter(|v| v.status == VolumeStatus::AboveMrv)
        .collect();
    let readiness = fatigue::readiness(history, now, &plateaus);
    Flags {
        plateaus,
        below_mev,
        above_mrv,
        readiness,
    }
}

impl Flags {
    pub fn deload_recommended(&self) -> bool {
        self.readiness.advice == LoadAdvice::Deload
    }

    /// One short line per flag, for the coach's context.
    pub fn lines(&self, history: &[Workout], unit: Unit) -> Vec<String> {
        let mut out: Vec<String> = self
            .plateaus
            .iter()
            .take(3)
            .map(|s| {
                format!(
                    "Plateau: {} ({} weeks at e1RM ~{}; suggested: {})",
                    s.exercise_name,
                    s.weeks,
                    format_estimate(s.last_e1rm_kg, unit),
                    s.advice
                )
            })
            .collect();
        let groups = |v: &[GroupVolume]| {
            v.iter()
                .map(|g| format!("{} {}", g.muscle_group.id(), g.hard_sets))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !self.below_mev.is_empty() {
            out.push(format!(
                "Below MEV this week (hard sets): {}",
                groups(&self.below_mev)
            ));
        }
        if !self.above_mrv.is_empty() {
            out.push(format!(
                "Above MRV this week (hard sets): {}",
                groups(&self.above_mrv)
            ));
        }
        if let Some(a) = &self.readiness.training_load {
            let compared = serde_json::to_value(a.compared).unwrap_or_default();
            out.push(format!(
                "Training load: {} hard sets a week lately against a usual {} ({})",
                a.acute,
                a.chronic,
                compared.as_str().unwrap_or_default().replace('_', " ")
            ));
        }
        out.extend(self.readiness.advice_text(history));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::testkit::{at_day, session, working};
    use super::*;

    /// Golden numbers on five weeks of a two-lift program, derived by hand in the comments.
    #[test]
    fn golden_five_weeks() {
        let mut h = Vec::new();
        for week in 0..5 {
            let monday = 7 * week;
            // Squat climbs 5 kg a week: 3 × 5 at RIR 2, 100, 105, ... 120 kg.
            let squat = 100.0 + 5.0 * week as f64;
            h.push(session(
                monday,
                "back-squat",
                &vec![working(squat, 5, Some(5), Some(2)); 3],
            ));
            // Bench is stuck at 3 × 8 × 80 kg at RIR 1 (twice a week).
            for day in [monday + 1, monday + 3] {
                h.push(session(
                    day,
                    "barbell-bench-press",
                    &vec![working(80.0, 8, Some(8), Some(1)); 3],
                ));
            }
        }
        let now = at_day(35); // the Monday after week 4
        let f = flags(&h, now, chrono_tz::UTC);
        // Bench e1RM every week: 80 × (1 + 9/30) = 104 → five flat weeks, RIR 1 < 2: deload.
        assert_eq!(f.plateaus.len(), 1);
        let bench = &f.plateaus[0];
        assert_eq!(
            (bench.exercise_id.as_str(), bench.weeks),
            ("barbell-bench-press", 5)
        );
        assert_eq!(
            (bench.last_e1rm_kg, bench.action),
            (104.0, StallAction::Deload)
        );
        // Squat e1RM 100 × (1 + 7/30) = 123.3, then 129.5, ...: +5 % a week, no plateau.
        // Direct sets in the last 7 days (days 28–34): squat 3, bench 6. Chest 6 < MEV 10, and
        // quads 3 < 8, glutes 3 < 4 (squat primaries): flagged; so are the bench's secondary
        // triceps, half a set each: 3 < 6 (its secondary front delts are no shoulder work).
        let below: Vec<&str> = f.below_mev.iter().map(|g| g.muscle_group.id()).collect();
        assert_eq!(below, ["chest", "triceps", "quads", "glutes"]);
        assert!(f.above_mrv.is_empty());
        // The load: about 9 hard sets a week throughout, the usual.
        let a = f.readiness.training_load.as_ref().expect("a load");
        assert_eq!(a.compared, load::LoadCompared::Usual, "{a:?}");
        // One lift stalled near failure is not a fatigue signal (two are), performance is not
        // falling, and the load is the usual: no deload.
        assert!(f.readiness.signals.is_empty());
        assert!(!f.readiness.high_load);
        assert!(!f.deload_recommended());
        // The progression model reads the newest session: squat 120 × 5 of 5 planned at RIR 2,
        // the top of a fixed target → 2.5 % of 120 is one 2.5 kg step: 122.5. Bench 80 × 8 of 8
        // at RIR 1, harder than the RIR 2 target: held, as the plateau's deload advice says.
        let now = at_day(35);
        let squat = progression::candidate(&h, "back-squat", &Default::default(), now);
        assert_eq!(
            squat.map(|c| (c.current_kg, c.suggested_kg)),
            Some((120.0, 122.5))
        );
        let bench = progression::candidate(&h, "barbell-bench-press", &Default::default(), now);
        assert_eq!(bench, None);
        let lines = f.lines(&h, Unit::Kg);
        assert!(
            lines[0].starts_with("Plateau: Bench Press (5 weeks"),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l
                .starts_with("Training load: 9 hard sets a week lately against a usual 9 (usual)")),
            "{lines:?}"
        );
        // No injury-risk label reaches the coach.
        assert!(
            !lines
                .iter()
                .any(|l| l.contains("risk") || l.contains("ACWR"))
        );
    }

    #[test]
    fn dropped_lifts_are_not_flagged() {
        // Bench flat for 4 weeks, then not trained for 3 weeks.
        let h: Vec<Workout> = (0..4)
            .map(|w| {
                session(
                    7 * w,
                    "barbell-bench-press",
                    &vec![working(80.0, 8, None, Some(1)); 3],
                )
            })
            .collect();
        assert_eq!(stalls(&h, at_day(24), chrono_tz::UTC).len(), 1);
        assert!(stalls(&h, at_day(49), chrono_tz::UTC).is_empty());
    }
}
