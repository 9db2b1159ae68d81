//! Weekly series per exercise (ISO weeks in the lifter's timezone), and what they say: a plateau,
//! a trend with its e1RM slope.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use chrono_tz::Tz;
use serde::Serialize;

use super::facts::{hard_set_credit, local_date, volume_kg, week_start};
use crate::domain::strength::{Lift, effective_rir, is_working_result, round1, set_e1rm};
use crate::domain::workout::Workout;

/// One week of one exercise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WeekPoint {
    pub week_start: NaiveDate,
    /// Done working sets (drop sets included, warm-ups not).
    pub sets: u32,
    pub hard_sets: f64,
    pub volume_kg: f64,
    pub e1rm_max_kg: Option<f64>,
    pub load_min_kg: Option<f64>,
    pub load_max_kg: Option<f64>,
    /// Mean reserve over the sets whose effort was recorded.
    pub avg_rir: Option<f64>,
}

#[derive(Default)]
struct Acc {
    sets: u32,
    hard: f64,
    volume: f64,
    e1rm: Option<f64>,
    load_min: Option<f64>,
    load_max: Option<f64>,
    rir_sum: u32,
    rir_n: u32,
}

fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

fn min_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// Weekly series of every exercise in `history`, oldest week first, in one pass.
pub fn weekly_series(history: &[Workout], tz: Tz) -> BTreeMap<String, Vec<WeekPoint>> {
    let mut acc: BTreeMap<String, BTreeMap<NaiveDate, Acc>> = BTreeMap::new();
    for w in history {
        let week = week_start(local_date(w.started_at, tz));
        for e in &w.exercises {
            let lift = Lift::in_workout(w, &e.exercise_id);
            for s in e.sets.iter().filter(|s| is_working_result(s)) {
                let Some(r) = s.actual.as_ref() else {
                    continue;
                };
                let a = acc
                    .entry(e.exercise_id.clone())
                    .or_default()
                    .entry(week)
                    .or_default();
                a.sets += 1;
                a.hard += hard_set_credit(s);
                a.volume += volume_kg(s, lift);
                a.e1rm = max_opt(a.e1rm, set_e1rm(s, lift));
                let load = r.weight_kg.filter(|w| *w > 0.0 && r.reps > 0);
                a.load_min = min_opt(a.load_min, load);
                a.load_max = max_opt(a.load_max, load);
                if let Some(rir) = effective_rir(r) {
                    a.rir_sum += rir;
                    a.rir_n += 1;
                }
            }
        }
    }
    acc.into_iter()
        .map(|(id, weeks)| {
            let points = weeks
                .into_iter()
                .map(|(week_start, a)| WeekPoint {
                    week_start,
                    sets: a.sets,
                    hard_sets: a.hard,
                    volume_kg: a.volume,
                    e1rm_max_kg: a.e1rm.map(round1),
                    load_min_kg: a.load_min,
                    load_max_kg: a.load_max,
                    avg_rir: (a.rir_n > 0)
                        .then(|| round1(f64::from(a.rir_sum) / f64::from(a.rir_n))),
                })
                .collect();
            (id, points)
        })
        .collect()
}

/// Every exercise's weekly series, the most trained (working sets over `history`) first, ties
/// by id.
pub fn most_trained(history: &[Workout], tz: Tz) -> Vec<(String, Vec<WeekPoint>)> {
    let mut all: Vec<(String, Vec<WeekPoint>)> = weekly_series(history, tz).into_iter().collect();
    all.sort_by_key(|(_, pts)| std::cmp::Reverse(pts.iter().map(|p| p.sets).sum::<u32>()));
    all
}

/// A week needs this many working sets to say anything about a plateau.
pub(crate) const PLATEAU_MIN_SETS: u32 = 2;
/// An e1RM within this fraction above the baseline is no progress.
pub(crate) const PLATEAU_TOLERANCE: f64 = 0.02;
/// This many such weeks in a row (the baseline week included) make a plateau.
pub(crate) const PLATEAU_MIN_WEEKS: usize = 3;
/// Stalled longer than this, a new variation does more than more of the same.
pub(crate) const STALL_SWAP_WEEKS: usize = 6;
/// A run still rising by this fraction of its baseline a week or more is progress, not a
/// plateau (1 % a week stays inside the 2 % band for two weeks, and is a lifter gaining).
pub(crate) const PLATEAU_MAX_SLOPE: f64 = 0.005;
/// A stall with at least this much average reserve has room for more load.
pub(crate) const STALL_RESERVE_RIR: f64 = 2.0;

/// What to do about a stall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StallAction {
    /// Reserve left in the sets: the load has not been pushed.
    IncreaseLoad,
    /// Grinding close to failure without progress: fatigue is masking strength.
    Deload,
    /// Stalled for longer than [`STALL_SWAP_WEEKS`]: change the variation.
    Swap,
    /// Effort not recorded: change the stimulus (a different rep range).
    VaryRepRange,
}

impl StallAction {
    pub fn advice(self) -> &'static str {
        match self {
            StallAction::IncreaseLoad => "there is reserve left: add load",
            StallAction::Deload => concat!(
                "sets are close to failure and not moving: ",
                super::deload_week!(),
                " on it"
            ),
            StallAction::Swap => "stalled a long time: swap to a close variation",
            StallAction::VaryRepRange => "change the rep range for a few weeks",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plateau {
    pub weeks: usize,
    /// Least-squares slope of the run's weekly e1RM, kg per week (below
    /// [`PLATEAU_MAX_SLOPE`] of the baseline).
    pub slope_kg_per_week: f64,
    pub baseline_e1rm_kg: f64,
    pub last_e1rm_kg: f64,
    pub avg_rir: Option<f64>,
    pub action: StallAction,
}

/// A plateau at the end of the series: the latest [`PLATEAU_MIN_WEEKS`] or more weeks with at
/// least [`PLATEAU_MIN_SETS`] sets whose e1RM stays within +2 % of the run's first week, and
/// whose slope is under [`PLATEAU_MAX_SLOPE`] of it a week. Walking oldest to newest, a week
/// more than 2 % above the baseline becomes the new baseline.
pub fn plateau(points: &[WeekPoint]) -> Option<Plateau> {
    let weeks: Vec<(&WeekPoint, f64)> = points
        .iter()
        .filter(|p| p.sets >= PLATEAU_MIN_SETS)
        .filter_map(|p| p.e1rm_max_kg.map(|e| (p, e)))
        .collect();
    let (&(_, first), rest) = weeks.split_first()?;
    let mut baseline = first;
    let mut run_start = 0;
    for (i, (_, e)) in rest.iter().enumerate() {
        if *e > baseline * (1.0 + PLATEAU_TOLERANCE) {
            baseline = *e;
            run_start = i + 1;
        }
    }
    let run = &weeks[run_start..];
    if run.len() < PLATEAU_MIN_WEEKS {
        return None;
    }
    let start = run[0].0.week_start;
    let xy: Vec<(f64, f64)> = run
        .iter()
        .map(|(p, e)| ((p.week_start - start).num_days() as f64 / 7.0, *e))
        .collect();
    let rise = slope(&xy).unwrap_or(0.0);
    if rise >= baseline * PLATEAU_MAX_SLOPE {
        return None;
    }
    let rirs: Vec<f64> = run.iter().filter_map(|(p, _)| p.avg_rir).collect();
    let avg_rir = (!rirs.is_empty()).then(|| round1(rirs.iter().sum::<f64>() / rirs.len() as f64));
    let action = match avg_rir {
        _ if run.len() > STALL_SWAP_WEEKS => StallAction::Swap,
        Some(r) if r >= STALL_RESERVE_RIR => StallAction::IncreaseLoad,
        Some(_) => StallAction::Deload,
        None => StallAction::VaryRepRange,
    };
    Some(Plateau {
        weeks: run.len(),
        slope_kg_per_week: round1(rise),
        baseline_e1rm_kg: baseline,
        last_e1rm_kg: run.last().map_or(baseline, |(_, e)| *e),
        avg_rir,
        action,
    })
}

/// A trend needs this many weeks with an e1RM.
pub(crate) const TREND_MIN_WEEKS: usize = 4;
/// A compound lift improving slower than this (kg of e1RM a week) is not improving.
pub(crate) const COMPOUND_SLOPE_KG: f64 = 0.5;
/// The same for isolation work, whose loads are smaller.
pub(crate) const ISOLATION_SLOPE_KG: f64 = 0.25;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trend {
    Improving,
    Plateaued,
    Declining,
    InsufficientData,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExerciseTrend {
    pub trend: Trend,
    /// Least-squares slope of the weekly e1RM, kg per week.
    pub e1rm_slope_kg_per_week: Option<f64>,
    pub weeks_analyzed: usize,
}

/// Least-squares slope of (x, y) points; None for fewer than two distinct x.
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    Some(sxy / sxx)
}

/// The trend of a weekly series: declining when the e1RM falls by at least the threshold a
/// week, plateaued when the series ends in a plateau or moves less than the threshold, improving
/// otherwise. The slope is over calendar weeks, so gaps count as time.
pub fn trend(points: &[WeekPoint], compound: bool) -> ExerciseTrend {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter_map(|p| {
            let e = p.e1rm_max_kg?;
            let first = points.first()?.week_start;
            Some(((p.week_start - first).num_days() as f64 / 7.0, e))
        })
        .collect();
    if pts.len() < TREND_MIN_WEEKS {
        return ExerciseTrend {
            trend: Trend::InsufficientData,
            e1rm_slope_kg_per_week: None,
            weeks_analyzed: pts.len(),
        };
    }
    let threshold = if compound {
        COMPOUND_SLOPE_KG
    } else {
        ISOLATION_SLOPE_KG
    };
    let s = slope(&pts);
    let trend = match s {
        Some(s) if s <= -threshold => Trend::Declining,
        Some(s) if s >= threshold && plateau(points).is_none() => Trend::Improving,
        _ => Trend::Plateaued,
    };
    ExerciseTrend {
        trend,
        e1rm_slope_kg_per_week: s.map(|s| (s * 100.0).round() / 100.0),
        weeks_analyzed: pts.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn week(i: u64, e1rm: f64, sets: u32, rir: Option<f64>) -> WeekPoint {
        let start = NaiveDate::from_ymd_opt(2026, 1, 5).unwrap_or_default();
        WeekPoint {
            week_start: start + chrono::Days::new(7 * i),
            sets,
            hard_sets: f64::from(sets),
            volume_kg: 0.0,
            e1rm_max_kg: Some(e1rm),
            load_min_kg: None,
            load_max_kg: None,
            avg_rir: rir,
        }
    }

    #[test]
    fn three_flat_weeks_after_progress_are_a_plateau() {
        // 100 → 105 (> 102: new baseline) → 106 and 105.5 stay within 105 × 1.02 = 107.1,
        // rising 0.25 kg a week (0.24 %, under 0.5 %).
        let s = [
            week(0, 100.0, 3, Some(2.0)),
            week(1, 105.0, 3, Some(2.0)),
            week(2, 106.0, 3, Some(3.0)),
            week(3, 105.5, 3, Some(2.0)),
        ];
        let p = plateau(&s).expect("plateau");
        assert_eq!(p.weeks, PLATEAU_MIN_WEEKS);
        assert_eq!(p.baseline_e1rm_kg, 105.0);
        assert_eq!((p.last_e1rm_kg, p.slope_kg_per_week), (105.5, 0.3));
        // (2 + 3 + 2) / 3 = 2.33 → 2.3 ≥ 2: room to add load.
        assert_eq!(p.avg_rir, Some(2.3));
        assert_eq!(p.action, StallAction::IncreaseLoad);
        // Two flat weeks are not yet a plateau.
        assert_eq!(plateau(&s[..3]), None);
        // A week over 2 % resets it: 107.2 > 107.1.
        let mut up = s.clone();
        up[3].e1rm_max_kg = Some(107.2);
        assert_eq!(plateau(&up), None);
        // Gaining 1 % a week (105, 106.05, 107.1) stays inside the band but is progress.
        let mut gaining = s.clone();
        gaining[2].e1rm_max_kg = Some(106.05);
        gaining[3].e1rm_max_kg = Some(107.1);
        assert_eq!(plateau(&gaining), None);
    }

    #[test]
    fn weeks_with_one_set_do_not_count_and_effort_picks_the_action() {
        let s = [
            week(0, 100.0, 2, Some(1.0)),
            week(1, 130.0, 1, Some(1.0)), // one set: ignored
            week(2, 99.0, 2, Some(1.0)),
            week(3, 101.0, 2, Some(0.0)),
        ];
        let p = plateau(&s).expect("plateau");
        assert_eq!((p.weeks, p.action), (3, StallAction::Deload));
        let unknown: Vec<WeekPoint> = s
            .iter()
            .map(|w| WeekPoint {
                avg_rir: None,
                ..w.clone()
            })
            .collect();
        assert_eq!(
            plateau(&unknown).map(|p| p.action),
            Some(StallAction::VaryRepRange)
        );
        let long: Vec<WeekPoint> = (0..=STALL_SWAP_WEEKS as u64)
            .map(|i| week(i, 100.0, 3, Some(3.0)))
            .collect();
        assert_eq!(plateau(&long).map(|p| p.action), Some(StallAction::Swap));
    }

    #[test]
    fn trend_reads_the_slope() {
        // e1RM 100, 101, 102, 103 over weeks 0..3: slope exactly 1 kg/week.
        let rising: Vec<WeekPoint> = (0..4)
            .map(|i| week(i, 100.0 + i as f64 * COMPOUND_SLOPE_KG, 3, None))
            .collect();
        // A 0.5 kg/week climb stays within 2 % for all four weeks (100 → 101.5), but rises
        // 0.5 % of its baseline a week: progress, not a plateau, and the trend agrees.
        let t = trend(&rising, true);
        assert_eq!(t.e1rm_slope_kg_per_week, Some(COMPOUND_SLOPE_KG));
        assert_eq!(plateau(&rising), None);
        assert_eq!(t.trend, Trend::Improving);
        let fast: Vec<WeekPoint> = (0..4)
            .map(|i| week(i, 100.0 + i as f64 * 3.0, 3, None))
            .collect();
        assert_eq!(trend(&fast, true).trend, Trend::Improving);
        let falling: Vec<WeekPoint> = (0..4)
            .map(|i| week(i, 100.0 - i as f64 * COMPOUND_SLOPE_KG, 3, None))
            .collect();
        assert_eq!(trend(&falling, true).trend, Trend::Declining);
        assert_eq!(trend(&fast[..3], true).trend, Trend::InsufficientData);
        // 0.3 kg/week on a 20 kg curl is progress (no 3-week run within 2 %: 20.6 resets the
        // baseline), on a squat it is not.
        let curl: Vec<WeekPoint> = (0..4)
            .map(|i| week(i, 20.0 + i as f64 * 0.3, 3, None))
            .collect();
        assert_eq!(trend(&curl, false).trend, Trend::Improving);
        assert_eq!(trend(&curl, true).trend, Trend::Plateaued);
    }

    #[test]
    fn slope_is_least_squares() {
        assert_eq!(slope(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]), Some(2.0));
        assert_eq!(slope(&[(0.0, 1.0)]), None);
        assert_eq!(slope(&[(1.0, 1.0), (1.0, 2.0)]), None);
    }
}
