//! What a lifter can do on an exercise now, learned from their own history: how many reps a
//! load will give them, and where their estimated max is heading, each with its uncertainty.
//!
//! The inputs are the sessions of the exercise, each read as its top load: the first set there
//! (later sets are tired), the fewest reps any set there reached, the reserve logged, and the
//! session's best estimated max (Epley on reps plus logged reserve, unlogged reserve read as
//! none: [`crate::domain::strength::e1rm`], the one definition the product uses).
//!
//! - **Reps at a load.** Each recent session is an anchor: the reps it gave at its load, moved to
//!   the asked load by the lifter's own load response (reps per unit of log load, learned from
//!   how their reps changed when their load changed from one session of a lift to the next,
//!   shrunk towards the population's) and by the difference in logged reserve; anchors are
//!   averaged with weights for recency and for a load close to the asked one. Lifters respond
//!   far less steeply than a 1RM equation says (Epley's curve implies about 38 reps per unit of
//!   log load at 8 reps; the development lifters' own changes say 3 to 10): a set is stopped
//!   by a plan and a habit of effort, not at failure. Rep-max equations drift with load
//!   (Reynolds, Gordon & Robergs 2006, J Strength Cond Res 20(3) 584–92), so a set near the
//!   asked load says the most.
//! - **Every set.** The fewest reps of a session's sets at the load, the same way: what a
//!   prescription for every working set can ask.
//! - **The estimated max ahead.** An exponentially smoothed level of the recent sessions' maxima
//!   blended with their recent best (a session below the best is mostly a submaximal day, not
//!   lost strength), moved forward at the lift's rate of progress over the weeks of training
//!   between now and the day forecast (none across a break before now, none a session on).
//!   The rate is the robust slope
//!   (Theil–Sen) of the log max over the last weeks, shrunk towards the lifter's rate over all
//!   their lifts, which is shrunk towards a population prior. The 80 % interval is the lifter's
//!   own: the 10th and 90th percentiles of this forecaster's past errors on their lifts.

use chrono::{DateTime, Duration, Utc};

use crate::analysis::history::{LoggedSet, sessions_with, working_sets};
use crate::domain::strength::e1rm;
use crate::domain::workout::Workout;

/// Sessions within this many weeks inform today's estimate.
pub(crate) const WINDOW_WEEKS: i64 = 16;
/// At most this many recent sessions of a lift inform it.
pub(crate) const MAX_SESSIONS: usize = 8;
/// Recency: an anchor's weight halves every this many sessions back.
pub(crate) const HALF_LIFE_SESSIONS: f64 = 1.5;
/// Load proximity: an anchor at `x` times the asked load weighs `exp(-|ln x| / LOAD_SCALE)`.
pub(crate) const LOAD_SCALE: f64 = 0.05;
/// The population's load response, in reps per unit of log load (a load 10 % heavier: about
/// half a rep fewer), and how many of the lifter's own load changes weigh as much as it.
/// Chosen on the development lifters (`docs/coaching.md`).
pub(crate) const PRIOR_RESPONSE: f64 = -5.0;
pub(crate) const PRIOR_CHANGES: f64 = 30.0;
/// The population's reps gained from one session to the next at one load, and how many of the
/// lifter's own repeats weigh as much as it.
pub(crate) const PRIOR_PACE: f64 = 0.2;
pub(crate) const PRIOR_REPEATS: f64 = 20.0;
/// A load response is never read as flatter than none or steeper than Epley's at 12 reps.
const STEEPEST_RESPONSE: f64 = -42.0;
/// The smoothing of the level of the estimated max, and the weight of the recent best in the
/// forecast a session on and weeks on (the rest is the smoothed level): the further ahead,
/// the more the lifter's recent best says. Chosen on the development lifters.
pub(crate) const LEVEL_ALPHA: f64 = 0.8;
pub(crate) const RECENT_BEST_WEIGHT_NEXT: f64 = 0.2;
pub(crate) const RECENT_BEST_WEIGHT_LATER: f64 = 0.6;
/// The recent best is the best of this many sessions.
pub(crate) const RECENT_BEST_SESSIONS: usize = 3;
/// The population prior of the rate of progress (fraction of the max per week) and how many
/// weeks of evidence weigh as much as it.
pub(crate) const PRIOR_RATE: f64 = 0.002;
pub(crate) const PRIOR_WEEKS: f64 = 416.0;
/// The rate is never read as more than this or less than its negative.
pub(crate) const MAX_RATE: f64 = 0.015;
/// Reps lifters leave in reserve on a working set whose effort they did not log: about two, the
/// reserve most programs ask of working sets and about what the development lifter who rates
/// every set reported on average (1.7 reps over 1,638 top sets).
pub(crate) const UNLOGGED_RESERVE: f64 = 2.0;
/// How much wider than the lifter's past errors a forecast weeks ahead is drawn.
pub(crate) const LATER_WIDENING: f64 = 1.3;
/// Forecast errors the lifter's own interval needs; fewer, and the population's is used.
pub(crate) const MIN_ERRORS: usize = 12;
/// The population's 80 % interval of a forecast, as log errors (10th and 90th percentile), a
/// session on and four weeks on; from the development lifters.
const PRIOR_INTERVAL_NEXT: (f64, f64) = (-0.10, 0.07);
const PRIOR_INTERVAL_LATER: (f64, f64) = (-0.14, 0.10);

/// One session of the exercise as the model reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SessionTop {
    pub at: DateTime<Utc>,
    /// The top load moved (bodyweight included), the first set's reps there, the fewest reps of
    /// its sets there, and the least reserve logged there (none: not logged).
    pub load_kg: f64,
    pub reps: u32,
    pub min_reps: u32,
    pub rir: Option<u32>,
    /// Working sets at the top load.
    pub sets: u32,
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

/// The top load and best estimated max of one session's working sets.
pub fn top_of(at: DateTime<Utc>, sets: &[LoggedSet<'_>]) -> Option<SessionTop> {
    let loaded: Vec<(&LoggedSet<'_>, f64)> = sets
        .iter()
        .filter(|s| s.reps() > 0)
        .filter_map(|s| Some((s, s.moved_kg()?)))
        .collect();
    let heaviest = loaded.iter().map(|(_, kg)| *kg).fold(f64::NAN, f64::max);
    let at_top: Vec<&LoggedSet<'_>> = loaded
        .iter()
        .filter(|(_, kg)| (*kg - heaviest).abs() < 1e-6)
        .map(|(s, _)| *s)
        .collect();
    let first = at_top.first()?;
    let best = loaded
        .iter()
        .filter_map(|(s, kg)| e1rm(*kg, s.reps(), s.rir()))
        .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))));
    Some(SessionTop {
        at,
        load_kg: heaviest,
        reps: first.reps(),
        min_reps: at_top.iter().map(|s| s.reps()).min().unwrap_or(0),
        rir: at_top.iter().filter_map(|s| s.rir()).min(),
        sets: at_top.len() as u32,
        e1rm_kg: best,
    })
}

/// What the lifter's whole history says about them, each figure shrunk towards the
/// population's when their data is thin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lifter {
    /// Reps gained per unit of log load (negative: heavier gives fewer).
    pub response: f64,
    /// Reps gained from one session of a lift to the next at the same load (their pace of
    /// progress at a load), on the first set and on the weakest.
    pub pace: f64,
    pub pace_every_set: f64,
    /// The load changes it was learned from.
    pub changes: usize,
    /// Rate of progress over all their lifts, a fraction of the max per week.
    pub rate: f64,
    /// Weeks of evidence behind the rate.
    pub rate_weeks: f64,
    /// Their forecasts' past log errors (10th and 90th percentile), a session on and later.
    pub interval_next: (f64, f64),
    pub interval_later: (f64, f64),
    /// How far below the predicted weakest set a prescription must stay for them to complete
    /// it about [`EVERY_SET_CONFIDENCE`] of the time: their own past misses of it.
    pub every_set_margin: f64,
}

/// The share of sessions a prescription for every set should be completed in.
pub(crate) const EVERY_SET_CONFIDENCE: f64 = 0.95;
/// The margin before the lifter's own sessions say (reps), and how many of their predictions
/// weigh as much as it.
pub(crate) const PRIOR_MARGIN: f64 = 1.5;
pub(crate) const PRIOR_MARGIN_SESSIONS: f64 = 20.0;

impl Default for Lifter {
    fn default() -> Self {
        Lifter {
            response: PRIOR_RESPONSE,
            pace: PRIOR_PACE,
            pace_every_set: PRIOR_PACE,
            changes: 0,
            rate: PRIOR_RATE,
            rate_weeks: 0.0,
            interval_next: PRIOR_INTERVAL_NEXT,
            interval_later: PRIOR_INTERVAL_LATER,
            every_set_margin: PRIOR_MARGIN,
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
        let mut e = Evidence::default();
        for id in ids {
            let tops = session_tops(history, id, now);
            if let Some((slope, weeks)) = log_slope(&tops, now) {
                e.slopes.push((slope, weeks));
            }
            e.add_load_changes(&tops);
            e.add_forecast_errors(&tops, now);
        }
        let mut lifter = e.lifter();
        lifter.every_set_margin = lifter.own_margin(history, now);
        lifter
    }

    /// The margin their own history calls for: each past session's weakest set against what
    /// the sessions before it predicted, over the last year; the shortfall that
    /// [`EVERY_SET_CONFIDENCE`] of them stayed within, shrunk towards the prior.
    fn own_margin(&self, history: &[Workout], now: DateTime<Utc>) -> f64 {
        let mut ids: Vec<&str> = history
            .iter()
            .filter(|w| w.started_at < now && now - w.started_at <= Duration::weeks(52))
            .flat_map(|w| w.exercises.iter().map(|e| e.exercise_id.as_str()))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let mut misses: Vec<f64> = ids
            .into_iter()
            .flat_map(|id| self.misses(&session_tops(history, id, now), now))
            .collect();
        shrunk_quantile(&mut misses, PRIOR_MARGIN, PRIOR_MARGIN_SESSIONS)
    }

    /// How far each session of the last year fell short of (positive) or beat (negative) the
    /// weakest set the sessions before it predicted.
    fn misses(&self, tops: &[SessionTop], now: DateTime<Utc>) -> Vec<f64> {
        tops.iter()
            .enumerate()
            .take_while(|(_, t)| now - t.at <= Duration::weeks(52))
            .filter_map(|(i, t)| {
                let c = Capacity::from_tops(tops[i + 1..].to_vec(), *self, t.at)?;
                Some(c.every_set_reps_at(t.load_kg, None)? - f64::from(t.min_reps))
            })
            .collect()
    }
}

/// The [`EVERY_SET_CONFIDENCE`] quantile of `misses` (none below zero), shrunk towards `prior`
/// with the weight of `prior_n` observations.
fn shrunk_quantile(misses: &mut [f64], prior: f64, prior_n: f64) -> f64 {
    if misses.is_empty() {
        return prior;
    }
    misses.sort_by(f64::total_cmp);
    let q = misses[((misses.len() - 1) as f64 * EVERY_SET_CONFIDENCE).round() as usize];
    let n = misses.len() as f64;
    ((q.max(0.0) * n + prior * prior_n) / (n + prior_n)).clamp(0.0, 4.0)
}

/// Lift-level margins weigh the lifter's margin as this many of the lift's own sessions.
pub(crate) const LIFTER_MARGIN_SESSIONS: f64 = 8.0;

/// The 10th and 90th percentile of `errors` when there are enough, else `prior`.
fn own_interval(errors: &mut [f64], prior: (f64, f64)) -> (f64, f64) {
    if errors.len() < MIN_ERRORS {
        return prior;
    }
    errors.sort_by(f64::total_cmp);
    let q = |p: f64| errors[((errors.len() - 1) as f64 * p).round() as usize];
    // Never narrower than half the population's: a few calm sessions are no guarantee.
    (q(0.1).min(prior.0 / 2.0), q(0.9).max(prior.1 / 2.0))
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

/// The forecast of the estimated max at `at` from `tops` (newest first): the smoothed level
/// blended with the recent best, moved forward at `rate` over the `weeks_ahead` of training
/// between the forecast and `at`.
fn level(tops: &[SessionTop], rate: f64, weeks_ahead: f64, at: DateTime<Utc>) -> Option<f64> {
    let maxima: Vec<f64> = tops
        .iter()
        .take(MAX_SESSIONS)
        .filter_map(|t| t.e1rm_kg)
        .collect();
    let oldest = *maxima.last()?;
    let smoothed = maxima
        .iter()
        .rev()
        .skip(1)
        .fold(oldest, |l, m| LEVEL_ALPHA * m + (1.0 - LEVEL_ALPHA) * l);
    let best = maxima
        .iter()
        .take(RECENT_BEST_SESSIONS)
        .fold(f64::NAN, |a, b| a.max(*b));
    let weeks = weeks_between(tops.first()?.at, at).clamp(0.0, 8.0);
    let b = if weeks >= 3.0 {
        RECENT_BEST_WEIGHT_LATER
    } else {
        RECENT_BEST_WEIGHT_NEXT
    };
    let blended = ((1.0 - b) * smoothed.ln() + b * best.ln()).exp();
    // Progress is made by training: none across the gap before the forecast (a break keeps
    // strength for weeks, it does not add to it; moving across it erred more on the
    // development lifters, 7.29 % against 7.19 % a session on).
    Some(blended * (rate * weeks_ahead.clamp(0.0, 8.0)).exp())
}

/// One exercise's capacity for a lifter at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct Capacity {
    pub lifter: Lifter,
    /// The rate of progress on this lift (shrunk towards the lifter's).
    pub rate: f64,
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
        Self::from_tops(session_tops(history, exercise_id, now), lifter, now)
    }

    /// The same from sessions already read (newest first).
    pub fn from_tops(all: Vec<SessionTop>, lifter: Lifter, now: DateTime<Utc>) -> Option<Capacity> {
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
        Some(Capacity {
            lifter,
            rate,
            tops,
            now,
        })
    }

    /// The estimated max at `at`, with its 80 % interval.
    pub fn forecast(&self, at: DateTime<Utc>) -> Option<Forecast> {
        let mid = level(&self.tops, self.rate, weeks_between(self.now, at), at)?;
        let later = at - self.tops.first()?.at >= Duration::days(21);
        let (low, high) = if later {
            // Weeks ahead, the past errors understate the future's (a lifter's pace changes):
            // widened, as measured on the development lifters.
            let (low, high) = self.lifter.interval_later;
            (low * LATER_WIDENING, high * LATER_WIDENING)
        } else {
            self.lifter.interval_next
        };
        Some(Forecast {
            kg: mid,
            low: mid * low.exp(),
            high: mid * high.exp(),
        })
    }

    /// The anchors' estimate of reps at `load_kg` (moved) leaving `rir` (None: the lifter's
    /// usual unlogged effort), from each session's `reps`.
    fn estimate(
        &self,
        load_kg: f64,
        rir: Option<u32>,
        pace: f64,
        reps: impl Fn(&SessionTop) -> u32,
    ) -> Option<f64> {
        if load_kg <= 0.0 {
            return None;
        }
        let mut sum = 0.0;
        let mut weights = 0.0;
        for (i, t) in self.tops.iter().enumerate() {
            if t.load_kg <= 0.0 {
                continue;
            }
            let x = (load_kg / t.load_kg).ln();
            // A set whose effort was not logged is read at the reserve lifters usually leave
            // when asked for a number of reps; asked for none, the lifter's usual effort.
            let effort = match (t.rir, rir) {
                (Some(then), Some(now)) => f64::from(then) - f64::from(now),
                (None, Some(now)) => UNLOGGED_RESERVE - f64::from(now),
                _ => 0.0,
            };
            // An anchor `i` sessions back has `i + 1` sessions of progress to make up.
            let at_load =
                f64::from(reps(t)) + self.lifter.response * x + effort + pace * (i + 1) as f64;
            let w = 0.5f64.powf(i as f64 / HALF_LIFE_SESSIONS) * (-x.abs() / LOAD_SCALE).exp();
            sum += w * at_load;
            weights += w;
        }
        (weights > 1e-12).then(|| (sum / weights).max(0.0))
    }

    /// The reps of the first set at `load_kg` (moved) leaving `rir` in reserve (None: at the
    /// effort the lifter usually leaves unlogged).
    pub fn reps_at(&self, load_kg: f64, rir: Option<u32>) -> Option<f64> {
        self.estimate(load_kg, rir, self.lifter.pace, |t| t.reps)
    }

    /// The reps every working set at `load_kg` will reach (the session's weakest set).
    pub fn every_set_reps_at(&self, load_kg: f64, rir: Option<u32>) -> Option<f64> {
        self.estimate(load_kg, rir, self.lifter.pace_every_set, |t| t.min_reps)
    }

    /// How far below [`Capacity::every_set_reps_at`] a prescription on this lift should stay:
    /// the lift's own past shortfalls, shrunk towards the lifter's margin (some lifts are done
    /// the same way every time, others swing).
    pub fn every_set_margin(&self, history_tops: &[SessionTop]) -> f64 {
        let mut misses = self.lifter.misses(history_tops, self.now);
        shrunk_quantile(
            &mut misses,
            self.lifter.every_set_margin,
            LIFTER_MARGIN_SESSIONS,
        )
    }
}

/// What the lifter's lifts say about them, gathered lift by lift before [`Lifter::learn`]
/// shrinks each towards its prior.
#[derive(Default)]
struct Evidence {
    /// Each lift's log e1RM slope per week and the weeks it spans.
    slopes: Vec<(f64, f64)>,
    /// Reps against the log of the load change between consecutive sessions (Σxy, Σxx, n).
    sxy: f64,
    sxx: f64,
    changes: usize,
    /// Reps gained (first set, and every set) between sessions repeated at one load.
    gained: f64,
    gained_every: f64,
    repeats: usize,
    /// The forecaster's own past log errors, next session and four weeks on.
    next_errors: Vec<f64>,
    later_errors: Vec<f64>,
}

impl Evidence {
    /// Consecutive sessions (newest first) within six weeks: at one load without effort logged,
    /// the reps gained; at different loads, how the reps answered.
    fn add_load_changes(&mut self, tops: &[SessionTop]) {
        for pair in tops.windows(2) {
            let (new, old) = (pair[0], pair[1]);
            let x = (new.load_kg / old.load_kg).ln();
            if new.at - old.at > Duration::weeks(6) {
                continue;
            }
            if x.abs() < 0.01 && new.rir.is_none() && old.rir.is_none() {
                self.gained += f64::from(new.reps) - f64::from(old.reps);
                self.gained_every += f64::from(new.min_reps) - f64::from(old.min_reps);
                self.repeats += 1;
            }
            if x.abs() < 0.01 || x.abs() > 0.5 {
                continue;
            }
            let effort = match (new.rir, old.rir) {
                (Some(a), Some(b)) => f64::from(a) - f64::from(b),
                _ => 0.0,
            };
            let y = f64::from(new.reps) - f64::from(old.reps) + effort;
            self.sxy += x * y;
            self.sxx += x * x;
            self.changes += 1;
        }
    }

    /// The forecaster's own past errors on this lift, over the last year: each session's
    /// estimated max against the forecast from the sessions before it, and from those four
    /// weeks before.
    fn add_forecast_errors(&mut self, tops: &[SessionTop], now: DateTime<Utc>) {
        for (i, t) in tops.iter().enumerate() {
            let Some(y) = t.e1rm_kg else { continue };
            let before = &tops[i + 1..];
            if before.len() < 2 || now - t.at > Duration::weeks(52) {
                continue;
            }
            if let Some(f) = level(before, PRIOR_RATE, 0.0, t.at) {
                self.next_errors.push((y / f).ln());
            }
            if let Some(f) = before
                .iter()
                .position(|b| t.at - b.at >= Duration::days(28))
                .filter(|j| before.len() - j >= 2)
                .and_then(|j| {
                    let ahead = weeks_between(before[j].at, t.at);
                    level(&before[j..], PRIOR_RATE, ahead, t.at)
                })
            {
                self.later_errors.push((y / f).ln());
            }
        }
    }

    /// The lifter the evidence makes, each figure shrunk towards its prior (the margin is
    /// learned after, from the lifter).
    fn lifter(mut self) -> Lifter {
        // Least squares through the origin, shrunk: (Σxy + prior·n0·x̄²)/(Σxx + n0·x̄²) with
        // the prior counted as `PRIOR_CHANGES` changes of a typical size.
        let typical = if self.changes > 0 {
            self.sxx / self.changes as f64
        } else {
            0.01
        };
        let response = ((self.sxy + PRIOR_RESPONSE * PRIOR_CHANGES * typical)
            / (self.sxx + PRIOR_CHANGES * typical))
            .clamp(STEEPEST_RESPONSE, 0.0);
        let weeks: f64 = self.slopes.iter().map(|(_, w)| w).sum();
        let rate = weighted_median(&self.slopes).unwrap_or(PRIOR_RATE);
        let shrunk = (rate * weeks + PRIOR_RATE * PRIOR_WEEKS) / (weeks + PRIOR_WEEKS);
        let repeats = self.repeats as f64;
        let pace = |sum: f64| (sum + PRIOR_PACE * PRIOR_REPEATS) / (repeats + PRIOR_REPEATS);
        Lifter {
            response,
            pace: pace(self.gained).clamp(-1.0, 2.0),
            pace_every_set: pace(self.gained_every).clamp(-1.0, 2.0),
            changes: self.changes,
            rate: shrunk.clamp(-MAX_RATE, MAX_RATE),
            rate_weeks: weeks,
            interval_next: own_interval(&mut self.next_errors, PRIOR_INTERVAL_NEXT),
            interval_later: own_interval(&mut self.later_errors, PRIOR_INTERVAL_LATER),
            every_set_margin: PRIOR_MARGIN,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::workout::{
        ExerciseInstance, SetResult, SetStatus, SetTarget, SetType, WorkoutSet, WorkoutStatus,
    };

    fn now() -> DateTime<Utc> {
        "2026-06-01T12:00:00Z".parse().unwrap()
    }

    fn session(days_ago: i64, sets: &[(f64, u32, Option<u32>)]) -> Workout {
        Workout {
            current_exercise: None,
            bodyweight_kg: None,
            id: format!("w{days_ago}"),
            name: "A".into(),
            status: WorkoutStatus::Completed,
            started_at: now() - Duration::days(days_ago),
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

    #[test]
    fn a_session_is_read_at_its_top_load() {
        let h = vec![session(
            2,
            &[(80.0, 10, None), (100.0, 6, None), (100.0, 4, None)],
        )];
        let t = session_tops(&h, "barbell-bench-press", now())[0];
        assert_eq!((t.load_kg, t.reps, t.min_reps, t.sets), (100.0, 6, 4, 2));
        // The best max of the session: 10 at 80 is 106.7, 6 at 100 is 120.
        assert!((t.e1rm_kg.unwrap() - 120.0).abs() < 1e-9);
    }

    #[test]
    fn reps_at_the_same_load_are_what_was_done_and_heavier_gives_fewer() {
        let h = vec![session(3, &[(100.0, 8, None), (100.0, 7, None)])];
        let c = Capacity::of(&h, "barbell-bench-press", Lifter::default(), now()).unwrap();
        // What was done, and a session's pace of progress on top.
        assert!((c.reps_at(100.0, None).unwrap() - (8.0 + PRIOR_PACE)).abs() < 1e-9);
        assert!((c.every_set_reps_at(100.0, None).unwrap() - (7.0 + PRIOR_PACE)).abs() < 1e-9);
        // 10 % heavier: the population's response, half a rep fewer.
        let heavier = c.reps_at(110.0, None).unwrap();
        let expected = 8.0 + PRIOR_PACE + PRIOR_RESPONSE * 1.1f64.ln();
        assert!((heavier - expected).abs() < 1e-9, "{heavier}");
        // Logged reserve: 8 at RIR 2 is 6 at RIR 4.
        let h = vec![session(3, &[(100.0, 8, Some(2))])];
        let c = Capacity::of(&h, "barbell-bench-press", Lifter::default(), now()).unwrap();
        assert!((c.reps_at(100.0, Some(4)).unwrap() - (6.0 + PRIOR_PACE)).abs() < 1e-9);
    }

    #[test]
    fn the_lifters_own_response_is_learned_from_their_load_changes() {
        // This lifter loses two reps for every 5 % more load, session after session.
        let mut h = Vec::new();
        for i in 0..40 {
            let kg = if i % 2 == 0 { 100.0 } else { 105.0 };
            let reps = if i % 2 == 0 { 8 } else { 6 };
            h.push(session(80 - 2 * i, &[(kg, reps, None)]));
        }
        let l = Lifter::learn(&h, now());
        assert_eq!(l.changes, 39);
        // Their own −41 reps per unit of log load, pulled towards the prior (−5).
        assert!(l.response < -20.0 && l.response > -42.0, "{l:?}");
    }

    #[test]
    fn no_progress_is_forecast_across_a_break() {
        // Ten weeks of 1 % a week, then six weeks off the lift.
        let h: Vec<Workout> = (0..10)
            .map(|i| session(7 * (16 - i), &[(100.0 * 1.01f64.powi(i as i32), 5, None)]))
            .collect();
        let lifter = Lifter::learn(&h, now());
        let c = Capacity::of(&h, "barbell-bench-press", lifter, now()).unwrap();
        assert!(c.rate > 0.0, "{c:?}");
        let best = c.tops.iter().filter_map(|t| t.e1rm_kg).fold(0.0, f64::max);
        // Back today: no more than the best before the break.
        let today = c.forecast(now()).unwrap();
        assert!(today.kg <= best + 1e-9, "{today:?} vs {best}");
        // Four weeks of training on: progress again.
        let later = c.forecast(now() + Duration::days(28)).unwrap();
        assert!(later.kg > today.kg, "{later:?} vs {today:?}");
    }

    #[test]
    fn the_forecast_follows_the_lifters_progress_with_an_interval() {
        let h: Vec<Workout> = (0..10)
            .map(|i| session(7 * (10 - i), &[(100.0 * 1.01f64.powi(i as i32), 5, None)]))
            .collect();
        let lifter = Lifter::learn(&h, now());
        // Their own 1 % a week over nine weeks moves the rate off the prior only a little: on
        // the development lifters a lifter's own recent rate did not carry forward.
        assert!(lifter.rate > PRIOR_RATE && lifter.rate < 0.01, "{lifter:?}");
        let c = Capacity::of(&h, "barbell-bench-press", lifter, now()).unwrap();
        let last = c.tops[0].e1rm_kg.unwrap();
        let later = c.forecast(now() + Duration::days(28)).unwrap();
        assert!(later.kg > last, "{later:?} vs {last}");
        assert!(later.low < later.kg && later.kg < later.high);
    }
}
