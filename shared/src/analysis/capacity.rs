//! What a lifter can do on an exercise now, learned from their own history: how many reps a
//! load allows, and where their estimated max is heading, each with its uncertainty.
//!
//! The inputs are the sessions of the exercise, each read as its top set (the first working set
//! at the session's hardest load: later sets are tired) and its best estimated max (Epley on
//! reps plus logged reserve, unlogged reserve read as none: [`crate::domain::strength::e1rm`],
//! the one definition the product uses).
//!
//! - **Reps at a load**: every recent top set says how many reps (plus reserve) it left at its
//!   load; carried to the asked load along the lifter's reps–%1RM curve (Epley's shape,
//!   `%1RM = 1 / (1 + n / k)`, with the lifter's own `k` when their sets tell it) and forward by
//!   their rate of progress, and averaged with weights that favour recent sessions and loads
//!   close to the one asked (a set near the load says the most about it: Reynolds, Gordon &
//!   Robergs 2006, J Strength Cond Res 20(3) 584–92, on how rep-max equations drift with load).
//! - **The estimated max ahead**: the recent sessions' maxima, each moved to the date by the
//!   rate of progress, averaged with recency weights (exponential smoothing); its 80 % interval
//!   from the lifter's own session-to-session noise and the uncertainty of the rate.
//! - **The rate of progress**: the robust slope (Theil–Sen) of the log estimated max over the
//!   last weeks, shrunk towards the lifter's rate over all their lifts, which is shrunk towards a
//!   population prior: one lift's slope over a few sessions is mostly noise.

use chrono::{DateTime, Duration, Utc};

use crate::analysis::history::{LoggedSet, sessions_with, working_sets};
use crate::domain::strength::{MAX_E1RM_REPS, e1rm};
use crate::domain::workout::Workout;

/// Epley's curve constant: `%1RM = 1 / (1 + n / 30)`.
pub const EPLEY_K: f64 = 30.0;
/// Sessions within this many weeks inform today's estimate.
pub const WINDOW_WEEKS: i64 = 16;
/// At most this many recent sessions inform it.
pub const MAX_SESSIONS: usize = 8;
/// Recency: a session's weight halves every this many sessions back.
pub const HALF_LIFE_SESSIONS: f64 = 2.0;
/// Load proximity: a set at `x` times the asked load weighs `exp(-|ln x| / LOAD_SCALE)`.
pub const LOAD_SCALE: f64 = 0.10;
/// The population prior of the rate of progress (fraction of the max per week) and how many
/// weeks of evidence weigh as much as it.
pub const PRIOR_RATE: f64 = 0.002;
pub const PRIOR_WEEKS: f64 = 12.0;
/// The rate is never read as more than this (a beginner's first weeks) or less than its
/// negative: extrapolation beyond is not trusted.
pub const MAX_RATE: f64 = 0.02;
/// The noise assumed before the lifter's own sessions say (relative, one session).
pub const PRIOR_NOISE: f64 = 0.05;
/// z for a central 80 % interval.
const Z80: f64 = 1.2816;

/// One session of the exercise as the model reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SessionTop {
    pub at: DateTime<Utc>,
    /// The top set: load moved (bodyweight included), reps, reserve when logged.
    pub load_kg: f64,
    pub reps: u32,
    pub rir: Option<u32>,
    /// The session's best estimated max (one definition), when a set allows one.
    pub e1rm_kg: Option<f64>,
}

/// The sessions of `exercise_id` before `now`, newest first.
pub fn session_tops(history: &[Workout], exercise_id: &str, now: DateTime<Utc>) -> Vec<SessionTop> {
    sessions_with(history, exercise_id, DateTime::<Utc>::MIN_UTC)
        .into_iter()
        .filter(|(w, _)| w.started_at < now)
        .filter_map(|(w, inst)| top_of(w.started_at, &working_sets(w, &inst)))
        .collect()
}

/// The top set and best estimated max of one session's working sets.
pub fn top_of(at: DateTime<Utc>, sets: &[LoggedSet<'_>]) -> Option<SessionTop> {
    let loaded: Vec<(&LoggedSet<'_>, f64)> = sets
        .iter()
        .filter(|s| s.reps() > 0)
        .filter_map(|s| Some((s, s.moved_kg()?)))
        .collect();
    let heaviest = loaded.iter().map(|(_, kg)| *kg).fold(f64::NAN, f64::max);
    let (top, load_kg) = loaded
        .iter()
        .find(|(_, kg)| (*kg - heaviest).abs() < 1e-6)
        .copied()?;
    let best = loaded
        .iter()
        .filter_map(|(s, kg)| e1rm(*kg, s.reps(), s.rir()))
        .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))));
    Some(SessionTop {
        at,
        load_kg,
        reps: top.reps(),
        rir: top.rir(),
        e1rm_kg: best,
    })
}

/// What the lifter's whole history says about them: their reps–%1RM curve and how fast they
/// progress, each shrunk towards the population's when their data is thin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lifter {
    /// The curve constant (Epley's 30 unless their sets say otherwise).
    pub k: f64,
    /// Reserve left on a set whose effort was not logged, in reps.
    pub unrated_reserve: f64,
    /// Rate of progress over all their lifts, a fraction of the max per week.
    pub rate: f64,
    /// Weeks of evidence behind the rate.
    pub rate_weeks: f64,
}

impl Default for Lifter {
    fn default() -> Self {
        Lifter {
            k: EPLEY_K,
            unrated_reserve: 0.0,
            rate: PRIOR_RATE,
            rate_weeks: 0.0,
        }
    }
}

impl Lifter {
    /// Learns the lifter from `history` before `now`.
    pub fn learn(history: &[Workout], now: DateTime<Utc>) -> Lifter {
        let mut ids: Vec<&str> = history
            .iter()
            .filter(|w| w.started_at < now)
            .flat_map(|w| w.exercises.iter().map(|e| e.exercise_id.as_str()))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        // Each lift's slope, weighted by the weeks it spans.
        let mut slopes: Vec<(f64, f64)> = Vec::new();
        for id in ids {
            let tops = session_tops(history, id, now);
            if let Some((slope, weeks)) = log_slope(&tops, now) {
                slopes.push((slope, weeks));
            }
        }
        let weeks: f64 = slopes.iter().map(|(_, w)| w).sum();
        let rate = weighted_median(&slopes).unwrap_or(PRIOR_RATE);
        let shrunk = (rate * weeks + PRIOR_RATE * PRIOR_WEEKS) / (weeks + PRIOR_WEEKS);
        Lifter {
            rate: shrunk.clamp(-MAX_RATE, MAX_RATE),
            rate_weeks: weeks,
            ..Lifter::default()
        }
    }
}

/// The Theil–Sen slope of the log estimated max per week over the sessions within
/// [`WINDOW_WEEKS`] of `now`, and the weeks they span; None with fewer than four sessions.
fn log_slope(tops: &[SessionTop], now: DateTime<Utc>) -> Option<(f64, f64)> {
    let since = now - Duration::weeks(WINDOW_WEEKS);
    let points: Vec<(f64, f64)> = tops
        .iter()
        .filter(|t| t.at >= since)
        .filter_map(|t| Some((weeks_between(t.at, now), t.e1rm_kg?.ln())))
        .collect();
    if points.len() < 4 {
        return None;
    }
    let mut slopes = Vec::new();
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            let dx = b.0 - a.0;
            if dx.abs() > 1.0 / 7.0 {
                // Weeks are counted back from now: later sessions have smaller x.
                slopes.push(-(b.1 - a.1) / dx);
            }
        }
    }
    let span = points.iter().map(|p| p.0).fold(0.0, f64::max)
        - points.iter().map(|p| p.0).fold(f64::INFINITY, f64::min);
    Some((median(&mut slopes)?, span))
}

fn weeks_between(a: DateTime<Utc>, b: DateTime<Utc>) -> f64 {
    (b - a).num_seconds() as f64 / (7.0 * 86_400.0)
}

fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn weighted_median(v: &[(f64, f64)]) -> Option<f64> {
    let mut v: Vec<(f64, f64)> = v.iter().copied().filter(|(_, w)| *w > 0.0).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|(_, w)| w).sum();
    let mut acc = 0.0;
    for (x, w) in &v {
        acc += w;
        if acc >= total / 2.0 {
            return Some(*x);
        }
    }
    v.last().map(|(x, _)| *x)
}

/// One exercise's capacity for a lifter at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct Capacity {
    pub lifter: Lifter,
    /// The rate of progress on this lift (shrunk towards the lifter's).
    pub rate: f64,
    /// Relative session-to-session noise of the estimated max.
    pub noise: f64,
    /// The recent sessions read, newest first.
    pub tops: Vec<SessionTop>,
    pub now: DateTime<Utc>,
}

/// A forecast with its central 80 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Forecast {
    pub kg: f64,
    pub low: f64,
    pub high: f64,
}

impl Capacity {
    /// The capacity on `exercise_id` at `now` from the sessions before it; None without one.
    pub fn of(
        history: &[Workout],
        exercise_id: &str,
        lifter: Lifter,
        now: DateTime<Utc>,
    ) -> Option<Capacity> {
        let all = session_tops(history, exercise_id, now);
        let since = now - Duration::weeks(WINDOW_WEEKS);
        let mut tops: Vec<SessionTop> = all
            .iter()
            .copied()
            .filter(|t| t.at >= since)
            .take(MAX_SESSIONS)
            .collect();
        if tops.is_empty() {
            // An old lift: its last session, however old (a break is the caller's to judge).
            tops.push(*all.first()?);
        }
        let rate = match log_slope(&all, now) {
            Some((slope, weeks)) => {
                let prior = lifter.rate;
                let shrunk = (slope * weeks + prior * PRIOR_WEEKS) / (weeks + PRIOR_WEEKS);
                shrunk.clamp(-MAX_RATE, MAX_RATE)
            }
            None => lifter.rate,
        };
        let noise = relative_noise(&tops);
        Some(Capacity {
            lifter,
            rate,
            noise,
            tops,
            now,
        })
    }

    /// Weight of the session `i` back (0 = newest).
    fn recency(i: usize) -> f64 {
        0.5f64.powf(i as f64 / HALF_LIFE_SESSIONS)
    }

    /// Growth factor of the max from `from` to `to` at this lift's rate (no growth is assumed
    /// across a break: strength is kept for weeks, not gained).
    fn growth(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> f64 {
        let weeks = weeks_between(from, to).clamp(-52.0, 8.0);
        (self.rate * weeks).exp()
    }

    /// The estimated max at `at`, with its 80 % interval.
    pub fn forecast(&self, at: DateTime<Utc>) -> Option<Forecast> {
        let mut sum = 0.0;
        let mut weights = 0.0;
        for (i, t) in self.tops.iter().enumerate() {
            let Some(e) = t.e1rm_kg else { continue };
            let w = Self::recency(i);
            sum += w * (e * self.growth(t.at, at)).ln();
            weights += w;
        }
        if weights <= 0.0 {
            return None;
        }
        let mid = (sum / weights).exp();
        let newest = self.tops.first()?.at;
        let weeks = weeks_between(newest, at).max(0.0);
        // The level's own uncertainty, the next session's noise, and the rate's over the gap.
        let rate_sd = 0.004 / (1.0 + self.lifter.rate_weeks / PRIOR_WEEKS).sqrt();
        let sd = (self.noise.powi(2) * (1.0 + 1.0 / weights.max(1.0)) + (weeks * rate_sd).powi(2))
            .sqrt();
        Some(Forecast {
            kg: mid,
            low: mid * (-Z80 * sd).exp(),
            high: mid * (Z80 * sd).exp(),
        })
    }

    /// Reps plus reserve the lifter has at `load_kg` (moved) now: each recent top set carried
    /// to that load along the lifter's curve and forward by their progress, weighted by recency
    /// and by how close its load was.
    pub fn capacity_reps(&self, load_kg: f64) -> Option<f64> {
        if load_kg <= 0.0 {
            return None;
        }
        let k = self.lifter.k;
        let mut sum = 0.0;
        let mut weights = 0.0;
        for (i, t) in self.tops.iter().enumerate() {
            let n = f64::from(t.reps) + t.rir.map_or(self.lifter.unrated_reserve, f64::from);
            if n > f64::from(MAX_E1RM_REPS) + 8.0 || t.load_kg <= 0.0 {
                continue;
            }
            let max = t.load_kg * (1.0 + n / k) * self.growth(t.at, self.now);
            let at_load = k * (max / load_kg - 1.0);
            let w = Self::recency(i) * (-(t.load_kg / load_kg).ln().abs() / LOAD_SCALE).exp();
            sum += w * at_load;
            weights += w;
        }
        (weights > 1e-9).then(|| (sum / weights).max(0.0))
    }

    /// The reps the lifter can do at `load_kg` leaving `rir` in reserve, or, for `None`, at the
    /// effort they usually leave unlogged.
    pub fn reps_at(&self, load_kg: f64, rir: Option<u32>) -> Option<f64> {
        let reserve = rir.map_or(self.lifter.unrated_reserve, f64::from);
        Some((self.capacity_reps(load_kg)? - reserve).max(0.0))
    }
}

/// The relative spread of the recent sessions' maxima around their smoothed level (at least a
/// floor: two sessions alike say little about the next).
fn relative_noise(tops: &[SessionTop]) -> f64 {
    let logs: Vec<f64> = tops.iter().filter_map(|t| Some(t.e1rm_kg?.ln())).collect();
    if logs.len() < 3 {
        return PRIOR_NOISE;
    }
    let diffs: Vec<f64> = logs.windows(2).map(|w| w[0] - w[1]).collect();
    // Successive differences hold twice a session's variance.
    let var = diffs.iter().map(|d| d * d).sum::<f64>() / diffs.len() as f64 / 2.0;
    let n = diffs.len() as f64;
    let own = var.sqrt();
    ((own * n + PRIOR_NOISE * 3.0) / (n + 3.0)).max(0.01)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::workout::{
        ExerciseInstance, SetResult, SetStatus, SetTarget, SetType, WorkoutSet, WorkoutStatus,
    };

    fn session(days_ago: i64, sets: &[(f64, u32, Option<u32>)]) -> Workout {
        let now = "2026-06-01T12:00:00Z".parse::<DateTime<Utc>>().unwrap();
        Workout {
            current_exercise: None,
            bodyweight_kg: None,
            id: format!("w{days_ago}"),
            name: "A".into(),
            status: WorkoutStatus::Completed,
            started_at: now - Duration::days(days_ago),
            completed_at: None,
            template_id: None,
            routine_id: None,
            exercises: vec![ExerciseInstance {
                group: None,
                rest: None,
                instance_id: "i".into(),
                exercise_id: "barbell-bench-press".into(),
                name: "Bench Press".into(),
                sets: sets
                    .iter()
                    .map(|&(kg, reps, rir)| WorkoutSet {
                        id: "s".into(),
                        set_type: SetType::Working,
                        status: SetStatus::Done,
                        target: SetTarget::default(),
                        actual: Some(SetResult {
                            reps,
                            weight_kg: Some(kg),
                            rir,
                            ..Default::default()
                        }),
                        completed_at: None,
                    })
                    .collect(),
                notes: None,
                rep_range: None,
                primary_muscles: Vec::new(),
            }],
            changes: vec![],
            notes: None,
        }
    }

    fn now() -> DateTime<Utc> {
        "2026-06-01T12:00:00Z".parse().unwrap()
    }

    #[test]
    fn the_top_set_is_the_first_at_the_heaviest_load() {
        let h = vec![session(
            2,
            &[(80.0, 10, None), (100.0, 6, None), (100.0, 4, None)],
        )];
        let tops = session_tops(&h, "barbell-bench-press", now());
        assert_eq!((tops[0].load_kg, tops[0].reps), (100.0, 6));
        // The best max of the session is the 10 at 80 (106.7) against 6 at 100 (120): 120.
        assert!((tops[0].e1rm_kg.unwrap() - 120.0).abs() < 1e-9);
    }

    #[test]
    fn reps_at_the_same_load_and_effort_are_what_was_done() {
        let h = vec![session(3, &[(100.0, 8, None)])];
        let c = Capacity::of(&h, "barbell-bench-press", Lifter::default(), now()).unwrap();
        // Three days of progress at the prior rate is a fraction of a rep.
        let r = c.reps_at(100.0, None).unwrap();
        assert!((8.0..8.2).contains(&r), "{r}");
        // Logged reserve: 8 at RIR 2 is ten reps of capacity, so 6 at RIR 4.
        let h = vec![session(3, &[(100.0, 8, Some(2))])];
        let c = Capacity::of(&h, "barbell-bench-press", Lifter::default(), now()).unwrap();
        let r = c.reps_at(100.0, Some(4)).unwrap();
        assert!((6.0..6.2).contains(&r), "{r}");
    }

    #[test]
    fn the_forecast_follows_the_lifters_progress_and_says_how_sure_it_is() {
        // Ten weekly sessions, each 1 % up: the forecast a week on is above the last.
        let h: Vec<Workout> = (0..10)
            .map(|i| session(7 * (10 - i), &[(100.0 * 1.01f64.powi(i as i32), 5, None)]))
            .collect();
        let lifter = Lifter::learn(&h, now());
        assert!(lifter.rate > 0.004, "{lifter:?}");
        let c = Capacity::of(&h, "barbell-bench-press", lifter, now()).unwrap();
        let last = c.tops[0].e1rm_kg.unwrap();
        let f = c.forecast(now() + Duration::days(7)).unwrap();
        assert!(f.kg > last, "{f:?} vs {last}");
        assert!(f.low < f.kg && f.kg < f.high);
        let later = c.forecast(now() + Duration::days(35)).unwrap();
        assert!(later.high - later.low > f.high - f.low);
    }
}
