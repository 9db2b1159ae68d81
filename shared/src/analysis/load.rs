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
pub fn hard_sets_by_group(
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

/// ACWR needs four weeks of training: the first workout at least this long ago, so that it
/// falls in the oldest of the chronic window's four weeks.
pub const ACWR_MIN_HISTORY_DAYS: i64 = 21;
/// Below this ratio the lifter is doing less than they are used to.
pub const ACWR_DETRAINING: f64 = 0.8;
/// Above these, load is rising faster than the body has adapted to (Gabbett 2016).
pub const ACWR_ELEVATED: f64 = 1.2;
pub const ACWR_HIGH_RISK: f64 = 1.3;
pub const ACWR_OVERREACHED: f64 = 1.5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AcwrStatus {
    Detraining,
    Optimal,
    Elevated,
    HighRisk,
    Overreached,
}

impl AcwrStatus {
    pub fn of(ratio: f64) -> AcwrStatus {
        if ratio > ACWR_OVERREACHED {
            AcwrStatus::Overreached
        } else if ratio > ACWR_HIGH_RISK {
            AcwrStatus::HighRisk
        } else if ratio > ACWR_ELEVATED {
            AcwrStatus::Elevated
        } else if ratio < ACWR_DETRAINING {
            AcwrStatus::Detraining
        } else {
            AcwrStatus::Optimal
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Acwr {
    /// Hard sets in the last 7 days.
    pub acute: f64,
    /// Mean weekly hard sets over the last 28 days (the acute week included).
    pub chronic: f64,
    pub ratio: f64,
    pub status: AcwrStatus,
}

fn ratio_at(history: &[Workout], now: DateTime<Utc>) -> Option<(f64, f64, f64)> {
    let acute = hard_sets(history, now - Duration::days(7), now);
    let chronic = hard_sets(history, now - Duration::days(28), now) / 4.0;
    (chronic > 0.0).then(|| (acute, chronic, acute / chronic))
}

/// The acute:chronic workload ratio on weekly hard sets at `now` (rolling 7 and 28 days, so a
/// half-finished calendar week does not read as detraining). None with less than four weeks of
/// history or no training in the last four weeks.
pub fn acwr(history: &[Workout], now: DateTime<Utc>) -> Option<Acwr> {
    let first = history.iter().map(|w| w.started_at).min()?;
    if now - first < Duration::days(ACWR_MIN_HISTORY_DAYS) {
        return None;
    }
    let (acute, chronic, ratio) = ratio_at(history, now)?;
    Some(Acwr {
        acute: round1(acute),
        chronic: round1(chronic),
        ratio: (ratio * 100.0).round() / 100.0,
        status: AcwrStatus::of(ratio),
    })
}

/// Sessions a week over the last 4 weeks against the last 8 must move by more than this to be
/// a trend.
pub const CONSISTENCY_CHANGE: f64 = 0.3;
/// The comparison needs eight weeks of history: the first workout in the oldest of them.
pub const CONSISTENCY_MIN_HISTORY_DAYS: i64 = 49;

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
    use crate::analysis::tests::{at_day, session, working};

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
    fn acwr_needs_four_weeks_and_reads_the_ratio() {
        let now = at_day(100);
        // Four weeks of 2 × 5 hard sets: acute 10, chronic 10, ratio 1.0.
        let steady = block(100, 4, 2, 5);
        let a = acwr(&steady, now).expect("acwr");
        assert_eq!((a.acute, a.chronic, a.ratio), (10.0, 10.0, 1.0));
        assert_eq!(a.status, AcwrStatus::Optimal);
        // Three weeks of history: not enough.
        assert_eq!(acwr(&block(100, 3, 2, 5), now), None);
        // The last week doubled: acute 20, chronic (20 + 3 × 10) / 4 = 12.5, ratio 1.6.
        let mut spike = block(100, 4, 2, 5);
        spike.extend(block(100, 1, 2, 5));
        let a = acwr(&spike, now).expect("acwr");
        assert_eq!((a.acute, a.chronic, a.ratio), (20.0, 12.5, 1.6));
        assert_eq!(a.status, AcwrStatus::Overreached);
    }

    #[test]
    fn acwr_statuses_have_their_thresholds() {
        assert_eq!(AcwrStatus::of(0.79), AcwrStatus::Detraining);
        assert_eq!(AcwrStatus::of(ACWR_DETRAINING), AcwrStatus::Optimal);
        assert_eq!(AcwrStatus::of(ACWR_ELEVATED), AcwrStatus::Optimal);
        assert_eq!(AcwrStatus::of(1.21), AcwrStatus::Elevated);
        assert_eq!(AcwrStatus::of(1.31), AcwrStatus::HighRisk);
        assert_eq!(AcwrStatus::of(1.51), AcwrStatus::Overreached);
    }

    #[test]
    fn group_volume_is_judged_against_landmarks() {
        let now = at_day(100);
        // 2 sessions × 6 hard bench sets this week: chest 12 (within 10–20); triceps, a
        // secondary mover, none (RP's ranges hold pressing already); quads none (below).
        let h = block(100, 1, 2, 6);
        let v = weekly_group_volume(&h, now);
        let get = |g| {
            v.iter()
                .find(|x| x.muscle_group == g)
                .map(|x| (x.hard_sets, x.status))
        };
        assert_eq!(get(VolumeGroup::Chest), Some((12.0, VolumeStatus::Within)));
        assert_eq!(
            get(VolumeGroup::Triceps),
            Some((0.0, VolumeStatus::BelowMev))
        );
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
