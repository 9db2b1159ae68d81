//! Training load over windows of time: hard sets per group against the volume landmarks, the
//! acute:chronic workload ratio, and how consistently the lifter shows up.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use super::facts::{
    Landmarks, VolumeGroup, group_credits, hard_set_credit, landmarks, local_date, week_start,
};
use crate::domain::strength::round1;
use crate::domain::workout::Workout;

/// Started in `[from, to)`.
pub(super) fn within(w: &Workout, from: DateTime<Utc>, to: DateTime<Utc>) -> bool {
    w.started_at >= from && w.started_at < to
}

/// Hard sets of the workouts started in `[from, to)`, all sets counted once.
pub fn hard_sets(history: &[Workout], from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
    history
        .iter()
        .filter(|w| within(w, from, to))
        .flat_map(|w| w.exercises.iter().flat_map(|e| e.sets.iter()))
        .map(hard_set_credit)
        .sum()
}

/// Sets per group in `[from, to)`, counted as the landmarks count them (`facts::group_credits`).
pub(crate) fn hard_sets_by_group(
    history: &[Workout],
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> BTreeMap<VolumeGroup, f64> {
    let mut out = BTreeMap::new();
    for w in history.iter().filter(|w| within(w, from, to)) {
        for (g, c) in w.exercises.iter().flat_map(group_credits) {
            *out.entry(g).or_default() += c;
        }
    }
    out
}

/// Hard sets per group per ISO week (Monday, in the lifter's timezone), oldest week first.
pub fn weekly_group_series(
    history: &[Workout],
    tz: Tz,
) -> BTreeMap<NaiveDate, BTreeMap<VolumeGroup, f64>> {
    let mut out: BTreeMap<NaiveDate, BTreeMap<VolumeGroup, f64>> = BTreeMap::new();
    for w in history {
        let week = out
            .entry(week_start(local_date(w.started_at, tz)))
            .or_default();
        for (g, c) in w.exercises.iter().flat_map(group_credits) {
            *week.entry(g).or_default() += c;
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VolumeStatus {
    BelowMev,
    Within,
    AboveMrv,
}

impl VolumeStatus {
    pub fn of(hard_sets: f64, l: Landmarks) -> VolumeStatus {
        if hard_sets < l.mev {
            VolumeStatus::BelowMev
        } else if hard_sets > l.mrv {
            VolumeStatus::AboveMrv
        } else {
            VolumeStatus::Within
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupVolume {
    pub muscle_group: VolumeGroup,
    pub hard_sets: f64,
    pub mev: f64,
    pub mrv: f64,
    pub status: VolumeStatus,
    /// Where the landmarks come from.
    pub source: &'static str,
}

/// Every group's hard sets in the week `[to − 7 days, to)` against its landmarks.
pub fn weekly_group_volume(history: &[Workout], to: DateTime<Utc>) -> Vec<GroupVolume> {
    against_landmarks(&hard_sets_by_group(history, to - Duration::days(7), to))
}

/// Every group (trained or not) with its hard sets from `sets` against its landmarks.
pub fn against_landmarks(sets: &BTreeMap<VolumeGroup, f64>) -> Vec<GroupVolume> {
    VolumeGroup::ALL
        .into_iter()
        .map(|g| {
            let l = landmarks(g);
            let h = round1(sets.get(&g).copied().unwrap_or(0.0));
            GroupVolume {
                muscle_group: g,
                hard_sets: h,
                mev: l.mev,
                mrv: l.mrv,
                status: VolumeStatus::of(h, l),
                source: l.source,
            }
        })
        .collect()
}

/// The load is read once four weeks of training exist: the first workout at least this long
/// ago.
pub(crate) const LOAD_MIN_HISTORY_DAYS: i64 = 21;
/// The chronic load smooths weekly hard sets over a span of this many weeks.
pub(crate) const CHRONIC_WEEKS: f64 = 4.0;
/// Weeks of history the chronic load reads (older ones weigh next to nothing).
const CHRONIC_HORIZON_WEEKS: i64 = 26;
/// The acute load this far under or over the chronic is "lower" or "higher than usual".
pub(crate) const LOWER_THAN_USUAL: f64 = 0.8;
pub(crate) const HIGHER_THAN_USUAL: f64 = 1.3;

/// This week's training against the lifter's usual, in words that claim nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadCompared {
    LowerThanUsual,
    Usual,
    HigherThanUsual,
}

impl LoadCompared {
    pub fn of(ratio: f64) -> LoadCompared {
        if ratio > HIGHER_THAN_USUAL {
            LoadCompared::HigherThanUsual
        } else if ratio < LOWER_THAN_USUAL {
            LoadCompared::LowerThanUsual
        } else {
            LoadCompared::Usual
        }
    }
}

/// Descriptive training load: the hard sets of the last 7 days (acute) against the lifter's
/// usual week, an exponentially weighted mean of the weeks before (chronic; Williams et al.
/// 2017, Br J Sports Med 51(3) 209–10, on EWMA loads). Uncoupled: the chronic load ends where
/// the acute week starts, so the ratio does not correlate with itself (Lolli et al. 2019, Br J
/// Sports Med 53(15) 921–2). Weeks, not days, are smoothed: a daily EWMA of two sessions a week
/// swings with the weekday. It describes; it predicts nothing about injury, and carries no risk
/// label (the thresholds behind "high risk" come from team sports and coupled ratios).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrainingLoad {
    pub acute: f64,
    pub chronic: f64,
    pub ratio: f64,
    pub compared: LoadCompared,
}

/// The training load at `now`. None with less than four weeks of history or no training in the
/// weeks before this one.
pub fn training_load(history: &[Workout], now: DateTime<Utc>) -> Option<TrainingLoad> {
    let first = history.iter().map(|w| w.started_at).min()?;
    if now - first < Duration::days(LOAD_MIN_HISTORY_DAYS) {
        return None;
    }
    let acute = hard_sets(history, now - Duration::days(7), now);
    // Rolling weeks before the acute one, oldest first, from the first week with training.
    let lambda = 2.0 / (CHRONIC_WEEKS + 1.0);
    let weeks: Vec<f64> = (1..=CHRONIC_HORIZON_WEEKS)
        .rev()
        .map(|k| now - Duration::days(7 * k))
        .filter(|to| *to > first)
        .map(|to| hard_sets(history, to - Duration::days(7), to))
        .collect();
    let chronic = weeks.split_first().map(|(first, rest)| {
        rest.iter()
            .fold(*first, |l, w| lambda * w + (1.0 - lambda) * l)
    })?;
    (chronic > 0.0).then(|| {
        let ratio = acute / chronic;
        TrainingLoad {
            acute: round1(acute),
            chronic: round1(chronic),
            ratio: (ratio * 100.0).round() / 100.0,
            compared: LoadCompared::of(ratio),
        }
    })
}

/// Sessions a week over the last 4 weeks against the last 8 must move by more than this to be
/// a trend.
pub(crate) const CONSISTENCY_CHANGE: f64 = 0.3;
/// The comparison needs eight weeks of history: the first workout in the oldest of them.
pub(crate) const CONSISTENCY_MIN_HISTORY_DAYS: i64 = 49;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsistencyTrend {
    Increasing,
    Stable,
    Declining,
    InsufficientData,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Consistency {
    pub sessions_per_week_4: f64,
    pub sessions_per_week_8: f64,
    pub trend: ConsistencyTrend,
}

pub fn consistency(history: &[Workout], now: DateTime<Utc>) -> Consistency {
    let count = |weeks: i64| {
        history
            .iter()
            .filter(|w| within(w, now - Duration::weeks(weeks), now))
            .count() as f64
            / weeks as f64
    };
    let (w4, w8) = (count(4), count(8));
    let enough = history
        .iter()
        .map(|w| w.started_at)
        .min()
        .is_some_and(|first| now - first >= Duration::days(CONSISTENCY_MIN_HISTORY_DAYS));
    let trend = if !enough {
        ConsistencyTrend::InsufficientData
    } else if w4 > w8 + CONSISTENCY_CHANGE {
        ConsistencyTrend::Increasing
    } else if w4 < w8 - CONSISTENCY_CHANGE {
        ConsistencyTrend::Declining
    } else {
        ConsistencyTrend::Stable
    };
    Consistency {
        sessions_per_week_4: round1(w4),
        sessions_per_week_8: round1(w8),
        trend,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testkit::{at_day, session, working};

    /// `per_week` sessions of `sets` hard sets each week for `weeks` weeks, ending before day
    /// `end` (sessions on days end−7k−1, end−7k−3, ...).
    fn block(end: i64, weeks: i64, per_week: i64, sets: usize) -> Vec<Workout> {
        let mut out = Vec::new();
        for k in 0..weeks {
            for j in 0..per_week {
                let day = end - 7 * k - 1 - 2 * j;
                out.push(session(
                    day,
                    "barbell-bench-press",
                    &vec![working(100.0, 8, None, Some(1)); sets],
                ));
            }
        }
        out
    }

    #[test]
    fn the_load_is_described_against_the_lifters_usual_and_uncoupled() {
        let now = at_day(120);
        // Twelve weeks of 2 × 5 hard sets: acute and chronic about 10 a week, usual.
        let steady = block(120, 12, 2, 5);
        let l = training_load(&steady, now).expect("a load");
        assert!(
            (l.acute - 10.0).abs() < 2.5 && (l.chronic - 10.0).abs() < 2.5,
            "{l:?}"
        );
        assert_eq!(l.compared, LoadCompared::Usual);
        // Three weeks of history: not enough.
        assert_eq!(training_load(&block(120, 3, 2, 5), now), None);
        // The last week doubled: higher than usual, and the chronic load does not move with it
        // (uncoupled: it is read up to the start of the acute week).
        let mut spike = steady.clone();
        spike.extend(block(120, 1, 2, 5));
        let s = training_load(&spike, now).expect("a load");
        assert_eq!(s.chronic, l.chronic);
        assert!(s.acute > l.acute * 1.6, "{s:?}");
        assert_eq!(s.compared, LoadCompared::HigherThanUsual);
        // No label claims a risk.
        let words = serde_json::to_string(&s).unwrap_or_default();
        assert!(
            !words.contains("risk") && !words.contains("overreach"),
            "{words}"
        );
    }

    #[test]
    fn load_comparisons_have_their_thresholds() {
        assert_eq!(LoadCompared::of(0.79), LoadCompared::LowerThanUsual);
        assert_eq!(LoadCompared::of(LOWER_THAN_USUAL), LoadCompared::Usual);
        assert_eq!(LoadCompared::of(HIGHER_THAN_USUAL), LoadCompared::Usual);
        assert_eq!(LoadCompared::of(1.31), LoadCompared::HigherThanUsual);
    }

    #[test]
    fn group_volume_is_judged_against_landmarks() {
        let now = at_day(100);
        // 2 sessions × 6 hard bench sets this week: chest 12 (within 10–20); triceps, a
        // secondary mover, half a set each, 6 (within 6–18); quads none (below).
        let h = block(100, 1, 2, 6);
        let v = weekly_group_volume(&h, now);
        let get = |g| {
            v.iter()
                .find(|x| x.muscle_group == g)
                .map(|x| (x.hard_sets, x.status))
        };
        assert_eq!(get(VolumeGroup::Chest), Some((12.0, VolumeStatus::Within)));
        assert_eq!(get(VolumeGroup::Triceps), Some((6.0, VolumeStatus::Within)));
        assert_eq!(get(VolumeGroup::Quads), Some((0.0, VolumeStatus::BelowMev)));
        let heavy = block(100, 1, 3, 8);
        let v = weekly_group_volume(&heavy, now);
        assert_eq!(v[0].hard_sets, 24.0);
        assert_eq!(v[0].status, VolumeStatus::AboveMrv);
    }

    #[test]
    fn consistency_compares_four_weeks_with_eight() {
        let now = at_day(100);
        // 3 a week for the last 4 weeks, 1 a week the 4 before: 3.0 vs (12 + 4) / 8 = 2.0.
        let mut h = block(100, 4, 3, 1);
        h.extend(block(72, 4, 1, 1));
        let c = consistency(&h, now);
        assert_eq!((c.sessions_per_week_4, c.sessions_per_week_8), (3.0, 2.0));
        assert_eq!(c.trend, ConsistencyTrend::Increasing);
        let steady = block(100, 8, 2, 1);
        assert_eq!(consistency(&steady, now).trend, ConsistencyTrend::Stable);
        let mut fading = block(100, 4, 1, 1);
        fading.extend(block(72, 4, 3, 1));
        assert_eq!(consistency(&fading, now).trend, ConsistencyTrend::Declining);
        assert_eq!(
            consistency(&block(100, 4, 3, 1), now).trend,
            ConsistencyTrend::InsufficientData
        );
    }
}
