//! Double progression: when the lifter has hit the top of the rep range with reserve in two
//! sessions running, the load goes up.

use serde::Serialize;

use crate::domain::catalog::catalog;
use crate::domain::profile::Profile;
use crate::domain::strength::{effective_rir, round_load};
use crate::domain::units::Unit;
use crate::domain::workout::{SetType, Workout, WorkoutSet};
use crate::skills::history::sessions_with;
use crate::skills::suggest::step_for;

/// Sets at the top load must have at least this much reserve to earn more load.
pub const PROGRESSION_MIN_RIR: u32 = 2;
/// This many sessions running must qualify.
pub const PROGRESSION_SESSIONS: usize = 2;
/// Sessions looked back at to grade confidence.
pub const PROGRESSION_MAX_SESSIONS: usize = 3;
/// Above this load the increment is [`HEAVY_INCREMENT`] in [`HEAVY_STEP_KG`] steps, at or
/// below it [`LIGHT_INCREMENT`] in [`LIGHT_STEP_KG`] steps.
pub const LIGHT_LOAD_KG: f64 = 40.0;
pub const HEAVY_INCREMENT: f64 = 0.025;
pub const LIGHT_INCREMENT: f64 = 0.05;
pub const HEAVY_STEP_KG: f64 = 2.5;
pub const LIGHT_STEP_KG: f64 = 1.25;
/// No single progression adds more than this.
pub const MAX_INCREMENT_KG: f64 = 5.0;
/// Confidence of a candidate from two sessions; each further session adds
/// [`CONFIDENCE_PER_SESSION`].
pub const BASE_CONFIDENCE: f64 = 0.75;
pub const CONFIDENCE_PER_SESSION: f64 = 0.1;

/// The load increment for a top set of `top_kg`: 2.5 % above 40 kg (in 2.5 kg steps), 5 % at
/// or below (in 1.25 kg steps), at least one step, at most 5 kg.
pub fn progression_increment(top_kg: f64) -> f64 {
    let (pct, step) = if top_kg > LIGHT_LOAD_KG {
        (HEAVY_INCREMENT, HEAVY_STEP_KG)
    } else {
        (LIGHT_INCREMENT, LIGHT_STEP_KG)
    };
    ((top_kg * pct / step).round() * step).clamp(step, MAX_INCREMENT_KG)
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub exercise_id: String,
    pub exercise_name: String,
    pub current_kg: f64,
    pub suggested_kg: f64,
    pub target_reps: u32,
    pub sessions: usize,
    pub confidence: f64,
    pub reason: String,
}

/// How one session went at its top load.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TopLoad {
    kg: f64,
    /// The planned reps at that load, if the session had a plan; else the fewest reps done.
    target_reps: u32,
    planned: bool,
    qualifies: bool,
}

fn top_load(sets: &[&WorkoutSet]) -> Option<TopLoad> {
    let kg = sets
        .iter()
        .filter_map(|s| s.actual.as_ref()?.weight_kg)
        .fold(None, |m: Option<f64>, w| Some(m.map_or(w, |m| m.max(w))))
        .filter(|w| *w > 0.0)?;
    let at_top: Vec<&&WorkoutSet> = sets
        .iter()
        .filter(|s| s.actual.as_ref().and_then(|r| r.weight_kg) == Some(kg))
        .collect();
    let planned = at_top.iter().filter_map(|s| s.target.reps).max();
    let done_min = at_top
        .iter()
        .filter_map(|s| s.actual.as_ref().map(|r| r.reps))
        .min()?;
    let target_reps = planned.unwrap_or(done_min);
    let qualifies = done_min > 0
        && done_min >= target_reps
        && at_top.iter().all(|s| {
            s.actual
                .as_ref()
                .and_then(effective_rir)
                .is_some_and(|rir| rir >= PROGRESSION_MIN_RIR)
        });
    Some(TopLoad {
        kg,
        target_reps,
        planned: planned.is_some(),
        qualifies,
    })
}

/// The progression candidate for one exercise, from its newest sessions in `history`: the last
/// [`PROGRESSION_SESSIONS`] sessions at the same top load all reached the target reps (the plan's,
/// or without a plan at least the previous session's) on every set at that load with ≥ 2 RIR.
/// Effort that was not recorded never qualifies: no reserve is invented.
pub fn candidate(history: &[Workout], exercise_id: &str, profile: &Profile) -> Option<Candidate> {
    let since = chrono::DateTime::<chrono::Utc>::MIN_UTC;
    let sessions: Vec<TopLoad> = sessions_with(history, exercise_id, since)
        .into_iter()
        .take(PROGRESSION_MAX_SESSIONS)
        .map_while(|(_, instances)| {
            let sets: Vec<&WorkoutSet> = instances
                .iter()
                .flat_map(|e| e.sets.iter())
                .filter(|s| s.actual.is_some() && s.set_type == SetType::Working)
                .collect();
            top_load(&sets)
        })
        .collect();
    let newest = *sessions.first()?;
    let mut run = 0;
    for (i, s) in sessions.iter().enumerate() {
        // Without a plan, the reps must hold or grow from the older session to the newer.
        let holds = i == 0 || newest.planned || sessions[i - 1].target_reps >= s.target_reps;
        if !(s.qualifies && s.kg == newest.kg && holds) {
            break;
        }
        run += 1;
    }
    if run < PROGRESSION_SESSIONS {
        return None;
    }
    let exercise = catalog().get(exercise_id);
    let mut suggested = newest.kg + progression_increment(newest.kg);
    if profile.unit == Unit::Lb {
        // A pound user loads pounds: round to their step, and never to no change.
        let step = step_for(exercise, profile);
        suggested = round_load(suggested, step, Unit::Lb).max(newest.kg + step);
    }
    let name = super::name_of(history, exercise_id);
    let confidence =
        (BASE_CONFIDENCE + CONFIDENCE_PER_SESSION * (run - PROGRESSION_SESSIONS) as f64).min(0.95);
    Some(Candidate {
        exercise_id: exercise_id.to_string(),
        reason: format!(
            "{} reps at {} kg with {}+ reps in reserve in {run} sessions running",
            newest.target_reps, newest.kg, PROGRESSION_MIN_RIR
        ),
        exercise_name: name,
        current_kg: newest.kg,
        suggested_kg: (suggested * 100.0).round() / 100.0,
        target_reps: newest.target_reps,
        sessions: run,
        confidence: (confidence * 100.0).round() / 100.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::tests::{session, working};

    #[test]
    fn increments_follow_the_rule() {
        // 2.5 % of 100 = 2.5; 5 % of 30 = 1.5 → 1.25; 2.5 % of 200 = 5; of 300 = 7.5 → capped at
        // 5; 2.5 % of 41 = 1.03 → at least one 2.5 step.
        for (top, inc) in [
            (100.0, 2.5),
            (30.0, 1.25),
            (200.0, 5.0),
            (300.0, MAX_INCREMENT_KG),
            (41.0, HEAVY_STEP_KG),
            (LIGHT_LOAD_KG, 2.5),
        ] {
            assert_eq!(progression_increment(top), inc, "{top}");
        }
    }

    #[test]
    fn two_sessions_at_the_top_with_reserve_earn_more_load() {
        let p = Profile::default();
        // Planned 3 × 8 at 100 kg; both sessions all 8s at RIR 2.
        let s = |day, rir| {
            session(
                day,
                "barbell-bench-press",
                &vec![working(100.0, 8, Some(8), rir); 3],
            )
        };
        let history = [s(1, Some(2)), s(4, Some(2))];
        let c = candidate(&history, "barbell-bench-press", &p).expect("candidate");
        assert_eq!(
            (c.current_kg, c.suggested_kg, c.target_reps),
            (100.0, 102.5, 8)
        );
        assert_eq!((c.sessions, c.confidence), (2, BASE_CONFIDENCE));
        // Three sessions: more confidence.
        let three = [s(1, Some(3)), s(4, Some(2)), s(8, Some(2))];
        let c = candidate(&three, "barbell-bench-press", &p).expect("candidate");
        assert_eq!((c.sessions, c.confidence), (3, 0.85));
        // One session only, a grinder (RIR 1), or effort not recorded: no candidate.
        assert_eq!(candidate(&history[..1], "barbell-bench-press", &p), None);
        assert_eq!(
            candidate(&[s(1, Some(2)), s(4, Some(1))], "barbell-bench-press", &p),
            None
        );
        assert_eq!(
            candidate(&[s(1, None), s(4, None)], "barbell-bench-press", &p),
            None
        );
    }

    #[test]
    fn missing_the_planned_reps_or_a_new_load_resets_the_count() {
        let p = Profile::default();
        let short = session(
            4,
            "barbell-row",
            &vec![working(60.0, 7, Some(8), Some(2)); 3],
        );
        let full = |d| {
            session(
                d,
                "barbell-row",
                &vec![working(60.0, 8, Some(8), Some(3)); 3],
            )
        };
        assert_eq!(candidate(&[full(1), short], "barbell-row", &p), None);
        let heavier = session(
            8,
            "barbell-row",
            &vec![working(62.5, 8, Some(8), Some(3)); 3],
        );
        assert_eq!(
            candidate(&[full(1), full(4), heavier], "barbell-row", &p),
            None
        );
        // Unplanned: 10 reps then 10 reps at 30 kg with reserve → 31.25 kg.
        let free = |d| {
            session(
                d,
                "barbell-curl",
                &vec![working(30.0, 10, None, Some(2)); 2],
            )
        };
        let c = candidate(&[free(1), free(4)], "barbell-curl", &p).expect("candidate");
        assert_eq!((c.suggested_kg, c.target_reps), (31.25, 10));
    }

    #[test]
    fn pound_users_get_a_load_they_can_put_on_the_bar() {
        let p = Profile {
            unit: Unit::Lb,
            ..Profile::default()
        };
        let kg = Unit::Lb.to_kg(225.0);
        let s = |d| session(d, "back-squat", &vec![working(kg, 5, Some(5), Some(2)); 3]);
        let c = candidate(&[s(1), s(4)], "back-squat", &p).expect("candidate");
        let lb = Unit::Lb.from_kg(c.suggested_kg);
        // 102.06 kg + 2.5 = 104.56 kg = 230.5 lb → 230 lb on a 5 lb step.
        assert!((lb - 230.0).abs() < 0.01, "{lb}");
    }
}
