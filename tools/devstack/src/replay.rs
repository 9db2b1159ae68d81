//! `devstack replay FILE...`: the planner against what real lifters did. Each Strong export is
//! walked session by session; before each session the progression model is asked what it would
//! prescribe for every loaded exercise the lifter then did (at the rep target the history so far
//! implies, as a started workout is planned), and the prescription is compared with the top
//! working set the lifter actually did. The baseline is "the same weight as last time".
//! Every week with training is also reviewed as the worker would (deload advice), and records
//! are counted as the insight card counts them.

use std::collections::HashSet;

use chrono::{DateTime, Duration, Utc};
use coach::analysis::fatigue::LoadAdvice;
use coach::analysis::progression::{RepTarget, Step, prescribe};
use coach::analysis::{flags, session};
use coach::domain::catalog::catalog;
use coach::domain::profile::Profile;
use coach::domain::strength::{Lift, is_working_result};
use coach::domain::units::Unit;
use coach::domain::workout::Workout;
use coach::import::read_export;
use coach::skills::suggest::{DEFAULT_TARGET_RIR, step_for};

/// One file's figures.
#[derive(Debug, Default)]
pub struct Report {
    /// The unit heuristic's scores on the file (pounds, kilograms).
    pub unit_evidence: (u32, u32),
    pub workouts: usize,
    /// Exercise sessions compared (the exercise had loaded history before).
    pub compared: usize,
    pub plan_abs_err: Vec<f64>,
    pub plan_within_step: usize,
    pub base_abs_err: Vec<f64>,
    pub base_within_step: usize,
    /// The plan went down from last time while the lifter went up.
    pub plan_down_lifter_up: usize,
    /// Prescriptions after a break of more than three weeks.
    pub returns: usize,
    pub weeks_reviewed: usize,
    pub deload_weeks: usize,
    /// Deload weeks with a fatigue signal (all, by the rule; counted to show it).
    pub deloads_with_fatigue: usize,
    /// Weeks advised to ramp back after a light stretch.
    pub ramp_back_weeks: usize,
    /// Deload weeks whose previous week had under half the sessions of the four before it.
    pub deloads_after_a_break: usize,
    pub e1rm_prs: usize,
    pub all_prs: usize,
    /// Per rule: how often it fired, its summed absolute error and the baseline's on the same sets.
    pub by_step: std::collections::BTreeMap<String, (usize, f64, f64)>,
}

/// The hardest logged load of a session, as the progression model reads it: the heaviest, the
/// most added to bodyweight work (none is bodyweight alone), or the least assistance.
fn top_kg(w: &Workout, exercise_id: &str) -> Option<f64> {
    let lift = Lift::of(exercise_id, None);
    let bodyweight = lift.loading.uses_bodyweight();
    w.exercises
        .iter()
        .filter(|e| e.exercise_id == exercise_id)
        .flat_map(|e| e.sets.iter())
        .filter(|s| is_working_result(s))
        .filter_map(|s| {
            let kg = s.actual.as_ref()?.weight_kg.unwrap_or(0.0);
            (kg > 0.0 || bodyweight).then_some(kg)
        })
        .max_by(|a, b| lift.difficulty(*a).total_cmp(&lift.difficulty(*b)))
}

fn last_top(history: &[Workout], exercise_id: &str) -> Option<f64> {
    history.iter().rev().find_map(|w| top_kg(w, exercise_id))
}

/// Replays one export, read in `unit` or, without one, as the import reads a file (its unit
/// column, else the weights); returns the unit it was read in with the figures.
pub fn replay(text: &str, unit: Option<Unit>) -> Result<(Unit, Report), String> {
    let tz = chrono_tz::UTC;
    let (parsed, unit, _, _) = read_export(
        text,
        tz,
        unit,
        None,
        Utc::now(),
        &HashSet::new(),
        coach::import::strong::ALL_APPS,
    )
    .map_err(|e| e.to_string())?;
    let workouts = parsed.workouts;
    let evidence = coach::import::units::evidence(&workouts, unit);
    let profile = Profile {
        unit,
        increments: None,
        ..Profile::default()
    };
    let mut r = Report {
        workouts: workouts.len(),
        unit_evidence: (evidence.pounds, evidence.kilograms),
        ..Report::default()
    };
    for (i, w) in workouts.iter().enumerate() {
        let before = &workouts[..i];
        let mut seen = HashSet::new();
        for inst in &w.exercises {
            let id = inst.exercise_id.as_str();
            if !seen.insert(id) {
                continue;
            }
            let (Some(actual), Some(last)) = (top_kg(w, id), last_top(before, id)) else {
                continue;
            };
            let ex = catalog().get(id);
            let Some(target) = RepTarget::from_history(before, id, DEFAULT_TARGET_RIR) else {
                continue;
            };
            let Some(p) = prescribe(before, id, ex, target, &profile, w.started_at) else {
                continue;
            };
            // One plate step, in the lifter's unit, with a little float slack.
            let step = step_for(ex, &profile) + 1e-6;
            r.compared += 1;
            let err = (p.weight_kg - actual).abs();
            r.plan_abs_err.push(err);
            r.plan_within_step += usize::from(err <= step);
            let base = (last - actual).abs();
            r.base_abs_err.push(base);
            r.base_within_step += usize::from(base <= step);
            // "Down" and "up" in difficulty: less assistance is up.
            let d = |kg: f64| Lift::of(id, None).difficulty(kg);
            r.plan_down_lifter_up +=
                usize::from(d(p.weight_kg) < d(last) - 1e-6 && d(actual) > d(last) + 1e-6);
            r.returns += usize::from(p.step == Step::Return);
            let e = r.by_step.entry(format!("{:?}", p.step)).or_default();
            e.0 += 1;
            e.1 += err;
            e.2 += base;
        }
        let prs = session::personal_records(w, before);
        r.all_prs += prs.len();
        r.e1rm_prs += prs
            .iter()
            .filter(|p| matches!(p.kind, session::PrKind::E1rm))
            .count();
    }
    review_weeks(&workouts, tz, &mut r);
    Ok((unit, r))
}

/// Each week with training, reviewed at its end as the worker does: how often it advises a
/// deload, with fatigue signals or after a break, and how often a ramp back.
fn review_weeks(workouts: &[Workout], tz: chrono_tz::Tz, r: &mut Report) {
    let mut weeks: Vec<DateTime<Utc>> = workouts.iter().map(|w| week_end(w.started_at)).collect();
    weeks.dedup();
    for end in weeks {
        let upto: Vec<Workout> = workouts
            .iter()
            .filter(|w| w.started_at < end)
            .cloned()
            .collect();
        r.weeks_reviewed += 1;
        let f = flags(&upto, end, tz);
        r.ramp_back_weeks += usize::from(f.readiness.advice == LoadAdvice::RampBack);
        if !f.deload_recommended() {
            continue;
        }
        r.deload_weeks += 1;
        r.deloads_with_fatigue += usize::from(!f.readiness.signals.is_empty());
        let sessions_in = |from: DateTime<Utc>, to: DateTime<Utc>| {
            upto.iter()
                .filter(|w| w.started_at >= from && w.started_at < to)
                .count() as f64
        };
        let last_week = sessions_in(end - Duration::days(14), end - Duration::days(7));
        let before = sessions_in(end - Duration::days(42), end - Duration::days(14)) / 4.0;
        r.deloads_after_a_break += usize::from(last_week < before / 2.0);
    }
}

/// The Monday after the week of `t` (UTC), where a weekly review looks back from.
fn week_end(t: DateTime<Utc>) -> DateTime<Utc> {
    use chrono::Datelike;
    let day = t.date_naive();
    let monday = day - Duration::days(i64::from(day.weekday().num_days_from_monday()));
    (monday + Duration::days(7))
        .and_hms_opt(0, 0, 0)
        .map_or(t, |d| d.and_utc())
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The README table: one row per file.
pub fn print(rows: &[(String, Unit, Report)]) {
    println!(
        "| file | unit (evidence lb : kg) | workouts | compared | plan MAE | plan ≤ 1 step | last-time MAE | last-time ≤ 1 step | plan ↓ lifter ↑ | returns | weeks | deload weeks (with fatigue, after a break) | ramp-back weeks | PRs (e1RM) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, unit, r) in rows {
        let pct = |n: usize| 100.0 * n as f64 / r.compared.max(1) as f64;
        let shown = |kg: f64| unit.from_kg(kg);
        println!(
            "| {name} | {} ({} : {}) | {} | {} | {:.2} (median {:.1}) | {:.0} % | {:.2} (median {:.1}) | {:.0} % | {} | {} | {} | {} ({}, {}) | {} | {} ({}) |",
            unit.label(),
            r.unit_evidence.0,
            r.unit_evidence.1,
            r.workouts,
            r.compared,
            shown(mean(&r.plan_abs_err)),
            shown(median(&r.plan_abs_err)),
            pct(r.plan_within_step),
            shown(mean(&r.base_abs_err)),
            shown(median(&r.base_abs_err)),
            pct(r.base_within_step),
            r.plan_down_lifter_up,
            r.returns,
            r.weeks_reviewed,
            r.deload_weeks,
            r.deloads_with_fatigue,
            r.deloads_after_a_break,
            r.ramp_back_weeks,
            r.all_prs,
            r.e1rm_prs,
        );
    }
    for (name, unit, r) in rows {
        let steps: Vec<String> = r
            .by_step
            .iter()
            .map(|(k, (n, e, b))| {
                let per = |x: f64| unit.from_kg(x / (*n).max(1) as f64);
                format!("{k} {n}: {:.2} vs {:.2}", per(*e), per(*b))
            })
            .collect();
        eprintln!(
            "{name}: mean error by rule, plan vs last time: {}",
            steps.join("; ")
        );
    }
}
