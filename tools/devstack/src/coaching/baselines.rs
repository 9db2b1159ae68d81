//! What the coach is measured against: what a lifter gets without it.
//!
//! - **Same as last time**: the last session's top set again; its reps at another load from the
//!   last top set's Epley max.
//! - **Liftosaur `dp`** (double progression, `dp(step, min, max)`): the last top load; one more
//!   rep than last time until the top of the range, then one step more and the bottom of it.
//! - **Liftosaur `lp`** (linear progression, `lp(step, 1, 0, 10%, 3, 0)`): one step more after a
//!   session that made the target reps; after three sessions running that did not, 10 % less.
//! - **e1RM trend × RPE chart**: the least-squares trend of the last sessions' estimated maxima,
//!   read through the RTS chart (Tuchscherer's table of %1RM by reps and RPE) at the target.
//!
//! Each reads the same history the coach does and rounds to the same plates.

use chrono::{DateTime, Utc};
use coach::analysis::capacity::{SessionTop, session_tops};
use coach::analysis::progression::RepTarget;
use coach::domain::strength::round_load;
use coach::domain::units::Unit;
use coach::domain::workout::Workout;

/// A prescription: the weight as logged and the reps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub kg: f64,
    pub reps: u32,
}

/// The RTS chart's %1RM by reps plus reserve (RPE 10 at n reps is RPE 9 at n − 1): 1 to 12,
/// then 2.7 points a rep.
const RTS: [f64; 12] = [
    1.0, 0.955, 0.922, 0.892, 0.863, 0.837, 0.811, 0.786, 0.762, 0.739, 0.707, 0.680,
];

pub fn chart_pct(total_reps: f64) -> f64 {
    let t = total_reps.max(1.0);
    if t >= 12.0 {
        return (RTS[11] - 0.027 * (t - 12.0)).max(0.2);
    }
    let i = t.floor() as usize;
    let f = t - t.floor();
    RTS[i - 1] + (RTS[i.min(11)] - RTS[i - 1]) * f
}

/// Reps plus reserve the chart allows at `pct` of the max.
pub fn chart_reps(pct: f64) -> f64 {
    if pct >= 1.0 {
        return 1.0;
    }
    if pct <= RTS[11] {
        return 12.0 + (RTS[11] - pct) / 0.027;
    }
    let i = RTS.iter().position(|p| *p < pct).unwrap_or(11);
    let (hi, lo) = (RTS[i - 1], RTS[i]);
    i as f64 + (hi - pct) / (hi - lo)
}

/// The logged weight of a session top (the model reads loads moved; these exercises are all
/// external loads, where the two are the same).
fn last(history: &[Workout], id: &str, now: DateTime<Utc>) -> Option<SessionTop> {
    session_tops(history, id, now).into_iter().next()
}

pub fn same_as_last_time(history: &[Workout], id: &str, now: DateTime<Utc>) -> Option<Plan> {
    let t = last(history, id, now)?;
    Some(Plan {
        kg: t.load_kg,
        reps: t.reps,
    })
}

/// Reps at `load_kg` leaving `rir` (unlogged: none) from the last top set's Epley max.
pub fn last_time_reps(
    history: &[Workout],
    id: &str,
    now: DateTime<Utc>,
    load_kg: f64,
    rir: Option<u32>,
) -> Option<f64> {
    let t = last(history, id, now)?;
    let n = f64::from(t.reps + t.rir.unwrap_or(0));
    let max = t.load_kg * (1.0 + n / 30.0);
    Some((30.0 * (max / load_kg - 1.0) - f64::from(rir.unwrap_or(0))).max(0.0))
}

/// Liftosaur's `dp`: the range the history implies (at least three reps wide).
pub fn dp(
    history: &[Workout],
    id: &str,
    now: DateTime<Utc>,
    target: RepTarget,
    step_kg: f64,
    unit: Unit,
) -> Option<Plan> {
    let t = last(history, id, now)?;
    let high = target.high.max(target.low + 2);
    Some(if t.reps >= high {
        Plan {
            kg: round_load(t.load_kg + step_kg, step_kg, unit),
            reps: target.low,
        }
    } else {
        Plan {
            kg: t.load_kg,
            reps: (t.reps + 1).max(target.low).min(high),
        }
    })
}

/// Liftosaur's `lp`: one step after a success, 10 % off after three failures running at a load.
pub fn lp(
    history: &[Workout],
    id: &str,
    now: DateTime<Utc>,
    target: RepTarget,
    step_kg: f64,
    unit: Unit,
) -> Option<Plan> {
    let tops = session_tops(history, id, now);
    let t = tops.first()?;
    let reps = target.low;
    if t.reps >= reps {
        return Some(Plan {
            kg: round_load(t.load_kg + step_kg, step_kg, unit),
            reps,
        });
    }
    let failures = tops
        .iter()
        .take_while(|s| (s.load_kg - t.load_kg).abs() < 1e-6 && s.reps < reps)
        .count();
    Some(Plan {
        kg: if failures >= 3 {
            round_load(t.load_kg * 0.9, step_kg, unit)
        } else {
            t.load_kg
        },
        reps,
    })
}

/// The least-squares trend of the log estimated max over the last six sessions within twelve
/// weeks, at `at`; the last value when they are fewer than three or span under two weeks (a
/// slope over a few days extrapolates noise).
pub fn trend_e1rm(
    history: &[Workout],
    id: &str,
    now: DateTime<Utc>,
    at: DateTime<Utc>,
) -> Option<f64> {
    let tops = session_tops(history, id, now);
    let last = tops.iter().find_map(|t| t.e1rm_kg)?;
    let points: Vec<(f64, f64)> = tops
        .iter()
        .filter(|t| t.at >= now - chrono::Duration::weeks(12))
        .take(6)
        .filter_map(|t| {
            Some((
                (t.at - at).num_seconds() as f64 / 604_800.0,
                t.e1rm_kg?.ln(),
            ))
        })
        .collect();
    let span = points.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max)
        - points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    if points.len() < 3 || span < 2.0 {
        return Some(last);
    }
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let slope = if sxx > 1e-9 { sxy / sxx } else { 0.0 };
    // At x = 0 (the date asked).
    Some((my - slope * mx).exp())
}

/// The trend's max read through the chart at the target reps and RPE 8 (two in reserve).
pub fn trend_chart(
    history: &[Workout],
    id: &str,
    now: DateTime<Utc>,
    target: RepTarget,
    step_kg: f64,
    unit: Unit,
) -> Option<Plan> {
    let max = trend_e1rm(history, id, now, now)?;
    let pct = chart_pct(f64::from(target.low + target.rir));
    Some(Plan {
        kg: round_load(max * pct, step_kg, unit),
        reps: target.low,
    })
}

pub fn trend_chart_reps(
    history: &[Workout],
    id: &str,
    now: DateTime<Utc>,
    load_kg: f64,
    rir: Option<u32>,
) -> Option<f64> {
    let max = trend_e1rm(history, id, now, now)?;
    Some((chart_reps(load_kg / max) - f64::from(rir.unwrap_or(0))).max(0.0))
}

/// The classic acute:chronic workload ratio, the baseline deload rule's: hard sets of the last
/// 7 days over the weekly mean of the last 28 (coupled: the acute week is in both), None with
/// under four weeks of history.
pub fn classic_acwr(history: &[Workout], now: DateTime<Utc>) -> Option<f64> {
    let first = history.iter().map(|w| w.started_at).min()?;
    if now - first < chrono::Duration::days(21) {
        return None;
    }
    let acute = coach::analysis::load::hard_sets(history, now - chrono::Duration::days(7), now);
    let chronic =
        coach::analysis::load::hard_sets(history, now - chrono::Duration::days(28), now) / 4.0;
    (chronic > 0.0).then(|| acute / chronic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rts_chart_reads_both_ways() {
        assert!((chart_pct(5.0) - 0.863).abs() < 1e-9);
        assert!((chart_pct(7.0) - 0.811).abs() < 1e-9);
        assert!((chart_reps(0.811) - 7.0).abs() < 1e-9);
        assert!((chart_reps(chart_pct(9.5)) - 9.5).abs() < 1e-9);
        assert!((chart_reps(chart_pct(14.0)) - 14.0).abs() < 1e-9);
    }
}
