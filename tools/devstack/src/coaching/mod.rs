//! `devstack coaching [--split development|held-out|all] [FILE...]`: the coaching benchmark
//! (method and results in `docs/coaching.md`). Every real export in `tests/data/exports` (their
//! split, development or held-out, is the table of its README) and any file given (measured as
//! held-out, never committed) is walked session by session: before each session the coach and
//! the baselines see only the sessions before it (rolling origin), and what they would have said
//! is compared with what the lifter then did. The coach sees what the app reads for a
//! prescription: the last [`LOOKBACK_WEEKS`] of workouts and the lift's last session when none
//! is among them; the baselines see the whole past.
//!
//! Metrics, each per predictor, pooled over a split's lifters with bootstrap 95 % intervals
//! (lifters resampled):
//! - **reps at the chosen load**: the reps predicted for the session's top set (its first set at
//!   the heaviest load) at the load the lifter chose and the effort they logged (unlogged: their
//!   usual effort), against the reps they did: mean absolute error, bias, share within ±1;
//! - **hit rate**: in sessions at the prescribed load (within half a plate step), the share whose
//!   every set there reached the prescribed reps, and the share that beat it by two or more on
//!   every set (too easy);
//! - **e1RM forecast**, next session and four weeks ahead (the first session 28–42 days on):
//!   mean absolute error in %, MASE against the last value, 80 % interval coverage;
//! - **deload advice as a classifier** of a coming drop: the week counts as positive when at
//!   least two lifts' like-for-like estimated max (sessions within two reps of the reference's)
//!   in the next two weeks is 5 % or more below their best of the three weeks before;
//! - **safety counts**: prescriptions more than 5 % (and more than one step) above the best ever
//!   done for those reps; first loads above what the lifter showed they could do in their first
//!   four weeks of the exercise; first loads from a related lift among them.

mod baselines;
mod stats;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Datelike, Duration, Utc};
use coach::analysis::capacity::{Capacity, Lifter, SessionTop, session_tops, top_of};
use coach::analysis::flags;
use coach::analysis::history::{LOOKBACK_WEEKS, working_sets};
use coach::analysis::progression::{DEFAULT_TARGET_RIR, RepTarget, prescribe_for};
use coach::domain::catalog::{Loading, catalog};
use coach::domain::profile::{Profile, step_for};
use coach::domain::strength::{Lift, is_working_result};
use coach::domain::units::Unit;
use coach::domain::workout::Workout;
use coach::import::units::UnitSource;
use coach::import::{read_export, strong};
use coach::skills::suggest::{Source, suggest_weight};

use baselines::Plan;
use stats::{Estimate, Ratio};

/// Where a lifter's file belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Split {
    Development,
    HeldOut,
    /// Files given on the command line: measured, never tuned on.
    Given,
}

impl Split {
    fn label(self) -> &'static str {
        match self {
            Split::Development => "development",
            Split::HeldOut => "held-out",
            Split::Given => "given (held-out, not committed)",
        }
    }
}

pub struct LifterFile {
    pub name: String,
    pub split: Split,
    pub unit: Unit,
    pub workouts: Vec<Workout>,
}

/// The committed exports with their split, and the given files.
pub fn load(root: &Path, given: &[PathBuf]) -> Result<Vec<LifterFile>, String> {
    let dir = root.join("tests/data/exports");
    let readme = std::fs::read_to_string(dir.join("README.md"))
        .map_err(|e| format!("tests/data/exports/README.md: {e}"))?;
    let mut files: Vec<(PathBuf, Split)> = readme
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let split = match *cells.get(cells.len().checked_sub(2)?)? {
                "development" => Split::Development,
                "held-out" => Split::HeldOut,
                _ => return None,
            };
            Some((dir.join(cells.get(1)?), split))
        })
        .collect();
    files.extend(given.iter().map(|p| (p.clone(), Split::Given)));
    let mut out = Vec::new();
    for (path, split) in files {
        let read = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                read_export(
                    &text,
                    chrono_tz::UTC,
                    None,
                    None,
                    Utc::now(),
                    &HashSet::new(),
                    strong::ALL_APPS,
                )
                .map_err(|e| e.to_string())
            });
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        match (read, split) {
            // A given file that cannot be read, or whose unit its weights do not tell (the
            // import would ask), is left out, saying so; a committed one must read.
            (Err(e), Split::Given) => eprintln!("left out {name}: {e}"),
            (Ok((_, _, UnitSource::Default, _)), Split::Given) => {
                eprintln!("left out {name}: its weights do not tell kilograms from pounds")
            }
            (Err(e), _) => return Err(format!("{}: {e}", path.display())),
            (Ok((parsed, unit, _, _)), _) => out.push(LifterFile {
                name,
                split,
                unit,
                workouts: parsed.workouts,
            }),
        }
    }
    Ok(out)
}

/// The predictors, in the tables' order.
pub const COACH: &str = "coach";
const LAST: &str = "same as last time";
const DP: &str = "Liftosaur dp";
const LP: &str = "Liftosaur lp";
const TREND: &str = "e1RM trend × RPE chart";
const PRESCRIBERS: [&str; 5] = [COACH, LAST, DP, LP, TREND];
const FORECASTERS: [&str; 3] = [COACH, LAST, TREND];
const EVERY_FIFTH: &str = "every fifth week";
const ACWR: &str = "ACWR > 1.3";
const DELOADERS: [&str; 3] = [COACH, EVERY_FIFTH, ACWR];

/// Fixed margins below the every-set reps the capacity model predicts, each with its hit rate
/// and too-easy figure: the trade-off any floor drawn from that prediction makes.
const FRONTIER: [(f64, &str, &str); 5] = [
    (1.0, "margin 1.0: hit rate", "margin 1.0: too easy"),
    (1.25, "margin 1.25: hit rate", "margin 1.25: too easy"),
    (1.5, "margin 1.5: hit rate", "margin 1.5: too easy"),
    (1.75, "margin 1.75: hit rate", "margin 1.75: too easy"),
    (2.0, "margin 2.0: hit rate", "margin 2.0: too easy"),
];

/// The lifter's own repeat, as a reference for any floor: in a session at the load of a recent
/// one (within half a step), every set held to that session's weakest set, and one rep fewer.
const REPEAT: [(u32, &str, &str); 2] = [
    (0, "repeat: hit rate", "repeat: too easy"),
    (1, "repeat less one: hit rate", "repeat less one: too easy"),
];

/// One figure of every predictor.
#[derive(Default)]
struct Figure {
    by: BTreeMap<&'static str, Ratio>,
}

impl Figure {
    fn add(&mut self, lifters: usize, who: &'static str, lifter: usize, num: f64, den: f64) {
        self.by
            .entry(who)
            .or_insert_with(|| Ratio::new(lifters))
            .add(lifter, num, den);
    }
}

/// Every figure, by name, in the order they are reported.
#[derive(Default)]
pub struct Results {
    lifters: usize,
    figures: BTreeMap<&'static str, Figure>,
    /// Relative forecast errors seen so far, per lifter and forecaster and horizon, for the
    /// baselines' empirical intervals.
    errors: BTreeMap<(usize, &'static str, u8), Vec<f64>>,
}

impl Results {
    fn add(&mut self, figure: &'static str, who: &'static str, lifter: usize, num: f64, den: f64) {
        let n = self.lifters;
        self.figures
            .entry(figure)
            .or_default()
            .add(n, who, lifter, num, den);
    }
}

/// Whether the exercise's logged weight is the load moved (the metrics read external loads).
fn external(id: &str) -> bool {
    catalog()
        .get(id)
        .is_none_or(|e| matches!(e.loading, Loading::External))
}

/// The reps each working set at `kg` (within half a step) reached, in order.
fn reps_at_load(w: &Workout, id: &str, kg: f64, step: f64) -> Vec<u32> {
    w.exercises
        .iter()
        .filter(|e| e.exercise_id == id)
        .flat_map(|e| e.sets.iter())
        .filter(|s| is_working_result(s))
        .filter_map(|s| {
            let a = s.actual.as_ref()?;
            let logged = a.weight_kg.unwrap_or(0.0);
            ((logged - kg).abs() <= step / 2.0 + 1e-6 && a.reps > 0).then_some(a.reps)
        })
        .collect()
}

/// The heaviest load done for at least `reps` before `now`, or from the best max read at those
/// reps when none was.
fn best_for_reps(tops: &[SessionTop], history: &[Workout], id: &str, reps: u32) -> Option<f64> {
    let done = history
        .iter()
        .flat_map(|w| w.exercises.iter())
        .filter(|e| e.exercise_id == id)
        .flat_map(|e| e.sets.iter())
        .filter(|s| is_working_result(s))
        .filter_map(|s| {
            let a = s.actual.as_ref()?;
            (a.reps >= reps).then_some(a.weight_kg?)
        })
        .fold(None, |m: Option<f64>, w| Some(m.map_or(w, |m| m.max(w))));
    done.or_else(|| {
        let max = tops
            .iter()
            .filter_map(|t| t.e1rm_kg)
            .fold(f64::NAN, f64::max);
        max.is_finite()
            .then(|| max / (1.0 + f64::from(reps) / 30.0))
    })
}

/// What the app reads to prescribe `id` at `now`: the completed workouts of the last
/// [`LOOKBACK_WEEKS`], and the last session of `id` when none is among them
/// (`Store::with_last_sessions`).
fn app_view(past: &[Workout], id: &str, now: DateTime<Utc>) -> Vec<Workout> {
    let since = now - Duration::weeks(LOOKBACK_WEEKS);
    let mut view: Vec<Workout> = past
        .iter()
        .filter(|w| w.started_at >= since)
        .cloned()
        .collect();
    let has = |w: &Workout| {
        w.exercises
            .iter()
            .any(|e| e.exercise_id == id && e.sets.iter().any(is_working_result))
    };
    if !view.iter().any(has)
        && let Some(last) = past.iter().rev().find(|w| has(w))
    {
        view.insert(0, last.clone());
    }
    view
}

/// The baselines' interval: the q10 and q90 of their own relative errors so far (at least ten),
/// else ±5 % widened with the horizon.
fn empirical_interval(errors: Option<&Vec<f64>>, mid: f64, weeks: f64) -> (f64, f64) {
    match errors.filter(|e| e.len() >= 10) {
        Some(e) => {
            let mut v = e.clone();
            v.sort_by(f64::total_cmp);
            let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
            (mid * (1.0 + q(0.1)), mid * (1.0 + q(0.9)))
        }
        None => {
            let h = 0.05 * (1.0 + weeks / 4.0).sqrt();
            (mid * (1.0 - h), mid * (1.0 + h))
        }
    }
}

/// Walks one lifter's history.
pub fn walk(results: &mut Results, li: usize, file: &LifterFile) {
    let profile = Profile {
        unit: file.unit,
        ..Profile::default()
    };
    let ws = &file.workouts;
    let mut learned: Option<(i64, Lifter)> = None;
    for (i, w) in ws.iter().enumerate() {
        let past = &ws[..i];
        let now = w.started_at;
        // The estimated max ahead is no answer of the app's (nothing it shows forecasts): it is
        // the model's given the whole past, the lifter learned again each week.
        let week = now.timestamp() / (7 * 86_400);
        let whole_past = match learned {
            Some((k, l)) if k == week => l,
            _ => {
                let l = Lifter::learn(past, now);
                learned = Some((week, l));
                l
            }
        };
        let mut seen = HashSet::new();
        for inst in &w.exercises {
            let id = inst.exercise_id.as_str();
            if !seen.insert(id) || !external(id) {
                continue;
            }
            let sets = working_sets(
                w,
                &w.exercises
                    .iter()
                    .filter(|e| e.exercise_id == id)
                    .collect::<Vec<_>>(),
            );
            let Some(actual) = top_of(now, &sets) else {
                continue;
            };
            // The coach reads what the app reads (and learns the lifter from it, as the app
            // does on every call); the baselines read the whole past.
            let view = app_view(past, id, now);
            let tops = session_tops(past, id, now);
            if tops.is_empty() {
                first_load(results, li, &view, w, &ws[i..], id, &actual, &profile);
                continue;
            }
            let lifter = Lifter::learn(&view, now);
            let exercise = catalog().get(id);
            let m = Moment {
                li,
                past,
                w,
                id,
                now,
                actual,
                step: step_for(exercise, &profile),
                profile: &profile,
                target: RepTarget::from_history(&view, id, DEFAULT_TARGET_RIR)
                    .unwrap_or(RepTarget::fixed(actual.reps, DEFAULT_TARGET_RIR)),
                capacity: Capacity::of(&view, id, lifter, now),
                tops,
                lifter,
                exercise,
                view,
            };
            if actual.reps > 0 {
                score_reps(results, &m);
            }
            let coach_full =
                prescribe_for(&m.lifter, &m.view, id, m.exercise, m.target, &profile, now);
            if let Some(p) = &coach_full {
                score_aim(results, &m, p);
            }
            score_plans(results, &m, coach_full.as_ref());
            score_forecasts(results, &m, &ws[i + 1..], whole_past);
        }
    }
    deload_events(results, li, ws);
}

/// One lift in one session of the walk, as the predictors see it before it happened.
struct Moment<'a> {
    /// The lifter's index, the sessions before this one, and this one.
    li: usize,
    past: &'a [Workout],
    w: &'a Workout,
    id: &'a str,
    now: DateTime<Utc>,
    /// What the lifter then did: the session's top.
    actual: SessionTop,
    step: f64,
    profile: &'a Profile,
    exercise: Option<&'static coach::domain::catalog::Exercise>,
    /// What the app reads, and the coach's reading of it.
    view: Vec<Workout>,
    tops: Vec<SessionTop>,
    lifter: Lifter,
    target: RepTarget,
    capacity: Option<Capacity>,
}

/// Reps at the chosen load: each predictor's reps at the load the lifter chose and the effort
/// they logged, against the reps they did.
fn score_reps(results: &mut Results, m: &Moment<'_>) {
    let (li, past, id, now, actual, step, target, profile, capacity) = (
        m.li,
        m.past,
        m.id,
        m.now,
        &m.actual,
        m.step,
        m.target,
        m.profile,
        &m.capacity,
    );
    let rated = actual.rir.is_some();
    let load = actual.load_kg;
    let plans: BTreeMap<&str, Option<Plan>> = [
        (DP, baselines::dp(past, id, now, target, step, profile.unit)),
        (LP, baselines::lp(past, id, now, target, step, profile.unit)),
    ]
    .into_iter()
    .collect();
    let last = baselines::last_time_reps(past, id, now, load, actual.rir);
    let scheme = |p: Option<Plan>| match p {
        Some(p) if (p.kg - load).abs() <= step / 2.0 + 1e-6 => Some(f64::from(p.reps)),
        _ => last,
    };
    let predictions: [(&'static str, Option<f64>); 5] = [
        (
            COACH,
            capacity.as_ref().and_then(|c| c.reps_at(load, actual.rir)),
        ),
        (LAST, last),
        (DP, scheme(plans[DP])),
        (LP, scheme(plans[LP])),
        (
            TREND,
            baselines::trend_chart_reps(past, id, now, load, actual.rir),
        ),
    ];
    if predictions.iter().all(|(_, p)| p.is_some()) {
        for (who, p) in predictions {
            let err = p.unwrap_or_default() - f64::from(actual.reps);
            let kind = if rated { "rated" } else { "unrated" };
            results.add("reps: MAE", who, li, err.abs(), 1.0);
            results.add("reps: bias (predicted − done)", who, li, err, 1.0);
            results.add(
                "reps: share within ±1",
                who,
                li,
                f64::from(u8::from(err.abs() <= 1.0 + 1e-9)),
                1.0,
            );
            results.add(
                if kind == "rated" {
                    "reps: MAE, effort logged"
                } else {
                    "reps: MAE, effort not logged"
                },
                who,
                li,
                err.abs(),
                1.0,
            );
        }
        // An unlogged set's reps are a floor of the lifter's capacity there.
        if !rated {
            score_unlogged(results, m);
        }
    }
}

/// An unlogged set's reps are a floor of the lifter's capacity there: how often each predictor
/// says the lifter could not have done them even to failure.
fn score_unlogged(results: &mut Results, m: &Moment<'_>) {
    let (li, past, id, now, capacity) = (m.li, m.past, m.id, m.now, &m.capacity);
    let (load, done) = (m.actual.load_kg, m.actual.reps);
    let to_failure: [(&'static str, Option<f64>); 2] = [
        (
            COACH,
            capacity.as_ref().and_then(|c| c.reps_at(load, Some(0))),
        ),
        (
            LAST,
            baselines::last_time_reps(past, id, now, load, Some(0)),
        ),
    ];
    for (who, p) in to_failure {
        if let Some(p) = p {
            let beyond = p + 0.5 < f64::from(done);
            results.add(
                "reps: unlogged sets beyond the predicted capacity",
                who,
                li,
                f64::from(u8::from(beyond)),
                1.0,
            );
        }
    }
}

/// The reps the coach writes are an aim: how often the first set, and every set, reached them
/// (the figure comparable with a baseline's hit rate is every set); and the floor's frontier.
fn score_aim(
    results: &mut Results,
    m: &Moment<'_>,
    p: &coach::analysis::progression::Prescription,
) {
    let (li, w, id, now, step, capacity, view) =
        (m.li, m.w, m.id, m.now, m.step, &m.capacity, &m.view);
    let done = reps_at_load(w, id, p.weight_kg, step);
    // The floor's trade-off: every set held to the capacity model's every-set reps
    // at the load less a fixed margin, whatever the lifter's own margin.
    let every = capacity.as_ref().and_then(|c| {
        let moved = Lift::in_workout(w, id).moved_kg(Some(p.weight_kg))?;
        c.every_set_reps_at(moved, None)
    });
    if let (Some(every), Some(min)) = (every, done.iter().min()) {
        for (margin, hit, easy) in FRONTIER {
            let floor = (every - margin - 1e-9).ceil().max(1.0) as u32;
            results.add(hit, COACH, li, f64::from(u8::from(*min >= floor)), 1.0);
            results.add(easy, COACH, li, f64::from(u8::from(*min >= floor + 2)), 1.0);
        }
    }
    // The same sessions' reference: the most recent session of the app's view at
    // this load, repeated.
    let moved = Lift::in_workout(w, id).moved_kg(Some(p.weight_kg));
    let repeat = session_tops(view, id, now)
        .into_iter()
        .find(|t| moved.is_some_and(|m| (t.load_kg - m).abs() <= step / 2.0 + 1e-6));
    if let (Some(last), Some(min)) = (repeat, done.iter().min()) {
        for (less, hit, easy) in REPEAT {
            let floor = last.min_reps.saturating_sub(less).max(1);
            results.add(hit, COACH, li, f64::from(u8::from(*min >= floor)), 1.0);
            results.add(easy, COACH, li, f64::from(u8::from(*min >= floor + 2)), 1.0);
        }
    }
    if let (Some(first), Some(min)) = (done.first(), done.iter().min()) {
        results.add(
            "aim: hit rate, first set",
            COACH,
            li,
            f64::from(u8::from(*first >= p.reps)),
            1.0,
        );
        results.add(
            "aim: hit rate, every set",
            COACH,
            li,
            f64::from(u8::from(*min >= p.reps)),
            1.0,
        );
    }
}

/// Each predictor's prescription against what the lifter then did: hit rate, too easy, and
/// above the best done for those reps.
fn score_plans(
    results: &mut Results,
    m: &Moment<'_>,
    coach_full: Option<&coach::analysis::progression::Prescription>,
) {
    let (li, past, w, id, now, step, target, profile, tops) = (
        m.li, m.past, m.w, m.id, m.now, m.step, m.target, m.profile, &m.tops,
    );
    // The coach is held to what it says every set reaches (its floor; what it asks beyond
    // is an aim, as a hold's "beat it"), a baseline to the reps it writes.
    let coach_plan = coach_full.map(|p| Plan {
        kg: p.weight_kg,
        reps: p.floor_reps,
    });
    let plans: [(&'static str, Option<Plan>); 5] = [
        (COACH, coach_plan),
        (LAST, baselines::same_as_last_time(past, id, now)),
        (DP, baselines::dp(past, id, now, target, step, profile.unit)),
        (LP, baselines::lp(past, id, now, target, step, profile.unit)),
        (
            TREND,
            baselines::trend_chart(past, id, now, target, step, profile.unit),
        ),
    ];
    for (who, plan) in plans {
        let Some(plan) = plan else { continue };
        let done = reps_at_load(w, id, plan.kg, step);
        if let Some(min) = done.iter().min() {
            results.add(
                "hit rate",
                who,
                li,
                f64::from(u8::from(*min >= plan.reps)),
                1.0,
            );
            results.add(
                "too easy (beat by 2+)",
                who,
                li,
                f64::from(u8::from(*min >= plan.reps + 2)),
                1.0,
            );
        }
        if let Some(best) = best_for_reps(tops, past, id, plan.reps) {
            let over = plan.kg > (best * 1.05).max(best + step) + 1e-6;
            results.add(
                "safety: above the best for those reps",
                who,
                li,
                f64::from(u8::from(over)),
                1.0,
            );
        }
    }
}

/// The estimated max: next session and four weeks on (the first session 28–42 days on).
fn score_forecasts(results: &mut Results, m: &Moment<'_>, later: &[Workout], whole_past: Lifter) {
    let (li, past, id, now, actual) = (m.li, m.past, m.id, m.now, &m.actual);
    let forecaster = Capacity::of(past, id, whole_past, now);
    if let Some(y) = actual.e1rm_kg {
        forecast_events(results, li, past, id, now, now, y, forecaster.as_ref(), 0);
    }
    if let Some(later) = later.iter().find(|l| {
        l.started_at >= now + Duration::days(28)
            && l.started_at <= now + Duration::days(42)
            && l.exercises.iter().any(|e| e.exercise_id == id)
    }) {
        let later_sets = working_sets(
            later,
            &later
                .exercises
                .iter()
                .filter(|e| e.exercise_id == id)
                .collect::<Vec<_>>(),
        );
        if let Some(y) = top_of(later.started_at, &later_sets).and_then(|t| t.e1rm_kg) {
            // Made before this session, as the next-session forecast is.
            forecast_events(
                results,
                li,
                past,
                id,
                now,
                later.started_at,
                y,
                forecaster.as_ref(),
                4,
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn forecast_events(
    results: &mut Results,
    li: usize,
    past: &[Workout],
    id: &str,
    now: DateTime<Utc>,
    at: DateTime<Utc>,
    y: f64,
    capacity: Option<&Capacity>,
    horizon: u8,
) {
    let last = session_tops(past, id, now).first().and_then(|t| t.e1rm_kg);
    let trend = baselines::trend_e1rm(past, id, now, at);
    let coach = capacity.and_then(|c| c.forecast(at));
    let (Some(last), Some(trend), Some(coach)) = (last, trend, coach) else {
        return;
    };
    let weeks = (at - now).num_days() as f64 / 7.0;
    let (mae, mase, cover) = if horizon == 0 {
        (
            "e1RM next session: MAE %",
            "e1RM next session: MASE",
            "e1RM next session: 80 % coverage",
        )
    } else {
        (
            "e1RM 4 weeks on: MAE %",
            "e1RM 4 weeks on: MASE",
            "e1RM 4 weeks on: 80 % coverage",
        )
    };
    let naive = (last - y).abs() / y;
    for (who, mid, interval) in [
        (COACH, coach.kg, Some((coach.low, coach.high))),
        (LAST, last, None),
        (TREND, trend, None),
    ] {
        let (low, high) = interval.unwrap_or_else(|| {
            empirical_interval(results.errors.get(&(li, who, horizon)), mid, weeks)
        });
        let err = (mid - y).abs() / y;
        results.add(mae, who, li, 100.0 * err, 1.0);
        results.add(mase, who, li, err, naive);
        results.add(
            cover,
            who,
            li,
            f64::from(u8::from(low <= y && y <= high)),
            1.0,
        );
        results
            .errors
            .entry((li, who, horizon))
            .or_default()
            .push(y / mid - 1.0);
    }
}

/// A first session of an exercise: the load the coach would have suggested for the reps the
/// lifter did (from `seen`, what the app reads then), against what they showed they could do in
/// their first four weeks of it.
#[allow(clippy::too_many_arguments)]
fn first_load(
    results: &mut Results,
    li: usize,
    seen: &[Workout],
    w: &Workout,
    later: &[Workout],
    id: &str,
    actual: &SessionTop,
    profile: &Profile,
) {
    let Some(exercise) = catalog().get(id) else {
        return;
    };
    if actual.reps == 0 {
        return;
    }
    let s = suggest_weight(
        id,
        Some(exercise),
        actual.reps,
        DEFAULT_TARGET_RIR,
        seen,
        profile,
        w.started_at,
    );
    if s.weight_kg <= 0.0 {
        return;
    }
    let step = step_for(Some(exercise), profile);
    // Harder is heavier, or less assistance on assisted work.
    let lift = Lift::of(id, None);
    // The hardest load the lifter did for at least those reps in their first four weeks of
    // the exercise (a first session is often a light look at it).
    let shown = later
        .iter()
        .filter(|l| l.started_at < w.started_at + Duration::days(28))
        .flat_map(|l| l.exercises.iter())
        .filter(|e| e.exercise_id == id)
        .flat_map(|e| e.sets.iter())
        .filter(|s| is_working_result(s))
        .filter_map(|s| {
            let a = s.actual.as_ref()?;
            (a.reps >= actual.reps).then_some(lift.difficulty(a.weight_kg.unwrap_or(0.0)))
        })
        .fold(f64::MIN, f64::max);
    let over = lift.difficulty(s.weight_kg) > shown + step / 2.0 + 1e-6;
    results.add(
        "safety: first load above what was shown",
        COACH,
        li,
        f64::from(u8::from(over)),
        1.0,
    );
    if s.source == Source::RelatedLift {
        results.add(
            "safety: related-lift first load above what was shown",
            COACH,
            li,
            f64::from(u8::from(over)),
            1.0,
        );
    }
}

/// The Monday 00:00 UTC starting the week of `t`.
fn monday(t: DateTime<Utc>) -> DateTime<Utc> {
    let d = t.date_naive() - Duration::days(i64::from(t.weekday().num_days_from_monday()));
    d.and_hms_opt(0, 0, 0).map_or(t, |d| d.and_utc())
}

/// Each week: would a deload have been advised, and did two lifts drop like for like?
fn deload_events(results: &mut Results, li: usize, ws: &[Workout]) {
    let (Some(first), Some(last)) = (ws.first(), ws.last()) else {
        return;
    };
    let start = monday(first.started_at) + Duration::weeks(4);
    let mut week = start;
    while week + Duration::weeks(2) <= last.started_at {
        let past: Vec<Workout> = ws.iter().filter(|w| w.started_at < week).cloned().collect();
        if let Some(dropped) = drop_ahead(ws, week) {
            let coach = flags(&past, week, chrono_tz::UTC).deload_recommended();
            let fifth = ((week - start).num_weeks() + 4) % 5 == 4;
            let acwr = baselines::classic_acwr(&past, week).is_some_and(|r| r > 1.3);
            for (who, said) in [(COACH, coach), (EVERY_FIFTH, fifth), (ACWR, acwr)] {
                // Precision: of the weeks advised, how many dropped; recall: of the drops, how
                // many were advised.
                if said {
                    results.add(
                        "deload: precision",
                        who,
                        li,
                        f64::from(u8::from(dropped)),
                        1.0,
                    );
                }
                if dropped {
                    results.add("deload: recall", who, li, f64::from(u8::from(said)), 1.0);
                }
                results.add(
                    "deload: weeks advised",
                    who,
                    li,
                    f64::from(u8::from(said)),
                    1.0,
                );
            }
            results.add(
                "deload: base rate of drops",
                COACH,
                li,
                f64::from(u8::from(dropped)),
                1.0,
            );
        }
        week += Duration::weeks(1);
    }
}

/// Whether two or more lifts drop 5 % like for like in the two weeks from `week` (None when
/// fewer than two lifts can be compared).
fn drop_ahead(ws: &[Workout], week: DateTime<Utc>) -> Option<bool> {
    let mut ids: Vec<&str> = ws
        .iter()
        .filter(|w| {
            w.started_at >= week - Duration::days(21) && w.started_at < week + Duration::days(14)
        })
        .flat_map(|w| w.exercises.iter().map(|e| e.exercise_id.as_str()))
        .filter(|id| external(id))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let (mut compared, mut dropped) = (0, 0);
    for id in ids {
        let tops = session_tops(ws, id, week + Duration::days(14));
        let before: Vec<&SessionTop> = tops
            .iter()
            .filter(|t| t.at >= week - Duration::days(21) && t.at < week && t.e1rm_kg.is_some())
            .collect();
        let Some(reference) = before.iter().max_by(|a, b| {
            a.e1rm_kg
                .partial_cmp(&b.e1rm_kg)
                .unwrap_or(std::cmp::Ordering::Equal)
        }) else {
            continue;
        };
        let after = tops
            .iter()
            .filter(|t| t.at >= week && reference.reps.abs_diff(t.reps) <= 2)
            .filter_map(|t| t.e1rm_kg)
            .fold(None, |m: Option<f64>, e| Some(m.map_or(e, |m| m.max(e))));
        let (Some(after), Some(best)) = (after, reference.e1rm_kg) else {
            continue;
        };
        compared += 1;
        dropped += usize::from(after < best * 0.95);
    }
    (compared >= 2).then_some(dropped >= 2)
}

/// The figures of `split` (lifters `members`), as markdown.
fn table(
    results: &Results,
    members: &[usize],
    names: &[&'static str],
    figures: &[&'static str],
) -> String {
    let mut out = format!(
        "| figure | {} |\n|---|{}\n",
        names.join(" | "),
        "---|".repeat(names.len())
    );
    for f in figures {
        let Some(fig) = results.figures.get(f) else {
            continue;
        };
        let cells: Vec<String> = names
            .iter()
            .map(|n| {
                fig.by
                    .get(n)
                    .and_then(|r| Some((stats::interval(r, members)?, r.count(members))))
                    .map_or("–".to_string(), |(e, count)| cell(f, e, count))
            })
            .collect();
        out.push_str(&format!("| {f} | {} |\n", cells.join(" | ")));
    }
    out
}

fn cell(figure: &str, e: Estimate, count: f64) -> String {
    // A MASE's denominator is the naive errors, not a count.
    if figure.contains("MASE") {
        return format!("{:.2} [{:.2}, {:.2}]", e.value, e.low, e.high);
    }
    let pct = figure.contains("beyond")
        || figure.contains("rate")
        || figure.contains("share")
        || figure.contains("coverage")
        || figure.contains("too easy")
        || figure.contains("precision")
        || figure.contains("recall")
        || figure.contains("safety")
        || figure.contains("advised");
    if pct {
        format!(
            "{:.1} % [{:.1}, {:.1}] (n {count:.0})",
            100.0 * e.value,
            100.0 * e.low,
            100.0 * e.high
        )
    } else {
        format!(
            "{:.2} [{:.2}, {:.2}] (n {count:.0})",
            e.value, e.low, e.high
        )
    }
}

/// The coach against the best baseline on one figure (lower is better unless `higher`).
fn versus(
    results: &Results,
    members: &[usize],
    figure: &'static str,
    baselines: &[&'static str],
    higher: bool,
) -> Option<String> {
    let fig = results.figures.get(figure)?;
    let coach = fig.by.get(COACH)?;
    let best = baselines
        .iter()
        .filter_map(|b| Some((*b, fig.by.get(b)?.value(members)?)))
        .min_by(|a, b| {
            if higher {
                b.1.total_cmp(&a.1)
            } else {
                a.1.total_cmp(&b.1)
            }
        })?;
    let d = stats::difference(coach, fig.by.get(best.0)?, members)?;
    let scale = if figure.contains('%') || figure.contains("rate") || figure.contains("precision") {
        if figure.contains("MAE %") { 1.0 } else { 100.0 }
    } else {
        1.0
    };
    Some(format!(
        "| {figure} | {} | {:+.2} [{:+.2}, {:+.2}] | {} |",
        best.0,
        d.value * scale,
        d.low * scale,
        d.high * scale,
        if (higher && d.low > 0.0) || (!higher && d.high < 0.0) {
            "coach better"
        } else if (higher && d.high < 0.0) || (!higher && d.low > 0.0) {
            "baseline better"
        } else {
            "not distinguishable"
        }
    ))
}

/// Point figures per lifter, for looking at where the errors are (not a result: no interval).
fn by_lifter(files: &[LifterFile], results: &Results, members: &[usize]) -> String {
    let columns: [(&str, &str); 10] = [
        ("reps: MAE", COACH),
        ("reps: MAE", LAST),
        ("reps: bias (predicted − done)", COACH),
        ("e1RM next session: MAE %", COACH),
        ("e1RM next session: MAE %", LAST),
        ("e1RM 4 weeks on: MAE %", COACH),
        ("e1RM 4 weeks on: MAE %", LAST),
        ("hit rate", COACH),
        ("too easy (beat by 2+)", COACH),
        ("safety: above the best for those reps", COACH),
    ];
    let mut out = format!(
        "| lifter | {} |\n|---|{}\n",
        columns
            .iter()
            .map(|(f, who)| format!("{f} ({who})"))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(columns.len())
    );
    for &i in members {
        let cells: Vec<String> = columns
            .iter()
            .map(|(f, who)| {
                results
                    .figures
                    .get(f)
                    .and_then(|fig| fig.by.get(who))
                    .and_then(|r| r.value(&[i]))
                    .map_or("–".into(), |v| format!("{v:.2}"))
            })
            .collect();
        out.push_str(&format!("| {} | {} |\n", files[i].name, cells.join(" | ")));
    }
    out
}

#[expect(
    clippy::too_many_lines,
    reason = "the report's tables in the order docs/coaching.md reads them"
)]
pub fn report(files: &[LifterFile], results: &Results, split: Option<Split>) -> String {
    let mut out = String::new();
    let mut splits: Vec<Split> = files.iter().map(|f| f.split).collect();
    splits.sort();
    splits.dedup();
    for s in splits.into_iter().filter(|s| split.is_none_or(|x| x == *s)) {
        let members: Vec<usize> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.split == s)
            .map(|(i, _)| i)
            .collect();
        let names: Vec<&str> = members.iter().map(|&i| files[i].name.as_str()).collect();
        let sessions: usize = members.iter().map(|&i| files[i].workouts.len()).sum();
        out.push_str(&format!(
            "\n### {} lifters ({}, {sessions} workouts)\n\n{}\n",
            s.label(),
            members.len(),
            names.join(", ")
        ));
        out.push_str("\nReps at the chosen load and prescriptions:\n\n");
        out.push_str(&table(
            results,
            &members,
            &PRESCRIBERS,
            &[
                "reps: MAE",
                "reps: bias (predicted − done)",
                "reps: share within ±1",
                "reps: MAE, effort logged",
                "reps: MAE, effort not logged",
                "reps: unlogged sets beyond the predicted capacity",
                "hit rate",
                "too easy (beat by 2+)",
                "safety: above the best for those reps",
            ],
        ));
        out.push_str("\nThe estimated max ahead:\n\n");
        out.push_str(&table(
            results,
            &members,
            &FORECASTERS,
            &[
                "e1RM next session: MAE %",
                "e1RM next session: MASE",
                "e1RM next session: 80 % coverage",
                "e1RM 4 weeks on: MAE %",
                "e1RM 4 weeks on: MASE",
                "e1RM 4 weeks on: 80 % coverage",
            ],
        ));
        out.push_str("\nDeload advice:\n\n");
        out.push_str(&table(
            results,
            &members,
            &DELOADERS,
            &[
                "deload: precision",
                "deload: recall",
                "deload: weeks advised",
                "deload: base rate of drops",
            ],
        ));
        out.push_str("\nThe reps the coach writes, an aim above the floor its hit rate is read at (the coach only):\n\n");
        out.push_str(&table(
            results,
            &members,
            &[COACH],
            &["aim: hit rate, first set", "aim: hit rate, every set"],
        ));
        out.push_str("\nThe floor's trade-off: every set held to the capacity model's every-set reps at the load less a fixed margin; and, in the sessions at the load of a recent one, to that session's weakest set (repeat) and one rep fewer (the coach only):\n\n");
        let frontier: Vec<&'static str> = FRONTIER
            .iter()
            .map(|(_, h, e)| [*h, *e])
            .chain(REPEAT.iter().map(|(_, h, e)| [*h, *e]))
            .flatten()
            .collect();
        out.push_str(&table(results, &members, &[COACH], &frontier));
        out.push_str("\nFirst loads (the coach only):\n\n");
        out.push_str(&table(
            results,
            &members,
            &[COACH],
            &[
                "safety: first load above what was shown",
                "safety: related-lift first load above what was shown",
            ],
        ));
        out.push_str("\nThe coach against the best baseline on each figure (difference, 95 % interval over lifters):\n\n| figure | best baseline | coach − baseline | verdict |\n|---|---|---|---|\n");
        let rows = [
            versus(
                results,
                &members,
                "reps: MAE",
                &[LAST, DP, LP, TREND],
                false,
            ),
            versus(
                results,
                &members,
                "e1RM next session: MAE %",
                &[LAST, TREND],
                false,
            ),
            versus(
                results,
                &members,
                "e1RM 4 weeks on: MAE %",
                &[LAST, TREND],
                false,
            ),
            versus(
                results,
                &members,
                "deload: precision",
                &[EVERY_FIFTH, ACWR],
                true,
            ),
        ];
        for r in rows.into_iter().flatten() {
            out.push_str(&r);
            out.push('\n');
        }
        if std::env::var("COACHING_BY_LIFTER").is_ok() {
            out.push_str("\nBy lifter (points):\n\n");
            out.push_str(&by_lifter(files, results, &members));
        }
    }
    out
}

/// Runs the benchmark over every lifter.
pub fn run(root: &Path, given: &[PathBuf], split: Option<Split>) -> Result<String, String> {
    let files = load(root, given)?;
    let mut results = Results {
        lifters: files.len(),
        ..Results::default()
    };
    for (i, f) in files.iter().enumerate() {
        if split.is_none_or(|s| s == f.split) {
            walk(&mut results, i, f);
        }
    }
    Ok(report(&files, &results, split))
}

/// The unit a split's name on the command line means.
pub fn parse_split(s: &str) -> Result<Option<Split>, String> {
    match s {
        "development" => Ok(Some(Split::Development)),
        "held-out" => Ok(Some(Split::HeldOut)),
        "given" => Ok(Some(Split::Given)),
        "all" => Ok(None),
        other => Err(format!(
            "--split {other}: development, held-out, given or all"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The coach reads what the app reads: eight weeks, and a lift's last session when older.
    #[test]
    fn the_coach_sees_the_apps_window_and_the_lifts_last_session() {
        let csv = "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
2025-01-06 18:00:00,\"A\",1h,\"Bench Press (Barbell)\",1,80,5,0,0,\"\",\"\",
2025-02-03 18:00:00,\"B\",1h,\"Bench Press (Barbell)\",1,85,5,0,0,\"\",\"\",
2025-04-07 18:00:00,\"C\",1h,\"Squat (Barbell)\",1,100,5,0,0,\"\",\"\",
";
        let (read, ..) = read_export(
            csv,
            chrono_tz::UTC,
            Some(Unit::Kg),
            None,
            Utc::now(),
            &HashSet::new(),
            strong::ALL_APPS,
        )
        .expect("reads");
        let mut ws = read.workouts;
        ws.sort_by_key(|w| w.started_at);
        let now: DateTime<Utc> = "2025-04-14T18:00:00Z".parse().unwrap();
        let names = |v: Vec<Workout>| v.into_iter().map(|w| w.name).collect::<Vec<_>>();
        // The bench's last session (ten weeks back) joins the window; the one before does not.
        assert_eq!(names(app_view(&ws, "barbell-bench-press", now)), ["B", "C"]);
        assert_eq!(names(app_view(&ws, "back-squat", now)), ["C"]);
    }
}
