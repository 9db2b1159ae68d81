//! AUTOFILL_SET: what to pre-fill for a set, from, in order: the previous set of this exercise
//! today, today's plan (made by the progression model when the workout started), the progression
//! model's next set from the last session (`last_session`), an estimate without history.
//! `source` says which.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::suggest::{DEFAULT_TARGET_RIR, step_for, suggest_weight};
use crate::analysis::progression::{RepTarget, prescribe};
use crate::domain::catalog::Exercise;
use crate::domain::profile::Profile;
use crate::domain::strength::{effective_rir, pct_1rm, round_load};
use crate::domain::workout::{ExerciseInstance, SetStatus, Workout};

/// Reps assumed when neither the request, the plan nor the history gives any.
pub const DEFAULT_REPS: u32 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AutofillSource {
    PreviousSetToday,
    LastSession,
    Plan,
    Estimate,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    pub weight_kg: Option<f64>,
    pub reps: u32,
    pub rir: Option<u32>,
    pub source: AutofillSource,
}

/// Predicts set `set_index` (an index into `today.sets` when the exercise is in the active
/// workout, else the working-set ordinal) of `exercise_id`.
#[allow(clippy::too_many_arguments)]
pub fn predict(
    exercise_id: &str,
    exercise: Option<&Exercise>,
    today: Option<&ExerciseInstance>,
    set_index: usize,
    target_reps: Option<u32>,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
) -> Prediction {
    let base = from_today(today, set_index)
        .or_else(|| from_plan(today, set_index).filter(|p| p.weight_kg.is_some()))
        .map(|p| retarget(p, target_reps, exercise, profile))
        .or_else(|| from_last_session(exercise_id, exercise, target_reps, history, profile, now))
        .or_else(|| {
            from_plan(today, set_index).map(|p| retarget(p, target_reps, exercise, profile))
        });
    match base {
        Some(p) => p,
        None => {
            let reps = target_reps.unwrap_or(DEFAULT_REPS);
            let s = suggest_weight(
                exercise_id,
                exercise,
                reps,
                DEFAULT_TARGET_RIR,
                history,
                profile,
                now,
            );
            Prediction {
                weight_kg: (s.weight_kg > 0.0).then_some(s.weight_kg),
                reps,
                rir: Some(DEFAULT_TARGET_RIR),
                source: AutofillSource::Estimate,
            }
        }
    }
}

fn from_today(today: Option<&ExerciseInstance>, set_index: usize) -> Option<Prediction> {
    let inst = today?;
    inst.sets
        .iter()
        .take(set_index)
        .rev()
        .filter(|s| s.status == SetStatus::Done && s.is_counted())
        .find_map(|s| s.actual.as_ref())
        .map(|a| Prediction {
            weight_kg: a.weight_kg,
            reps: a.reps,
            rir: effective_rir(a),
            source: AutofillSource::PreviousSetToday,
        })
}

/// The progression model's next set, at the rep target asked for or the one the lifter's
/// history implies.
fn from_last_session(
    exercise_id: &str,
    exercise: Option<&Exercise>,
    target_reps: Option<u32>,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
) -> Option<Prediction> {
    let target = match target_reps.filter(|r| *r > 0) {
        Some(reps) => RepTarget::fixed(reps, DEFAULT_TARGET_RIR),
        None => RepTarget::from_history(history, exercise_id, DEFAULT_TARGET_RIR)?,
    };
    let p = prescribe(history, exercise_id, exercise, target, profile, now)?;
    Some(Prediction {
        weight_kg: Some(p.weight_kg),
        reps: p.reps,
        rir: Some(p.rir),
        source: AutofillSource::LastSession,
    })
}

fn from_plan(today: Option<&ExerciseInstance>, set_index: usize) -> Option<Prediction> {
    let t = &today?.sets.get(set_index)?.target;
    if t.reps.is_none() && t.weight_kg.is_none() {
        return None;
    }
    Some(Prediction {
        weight_kg: t.weight_kg,
        reps: t.reps.unwrap_or(DEFAULT_REPS),
        rir: t.rir,
        source: AutofillSource::Plan,
    })
}

/// With a rep target different from the source's reps, moves the weight along the same effort
/// curve (fewer reps, more weight) and rounds it to the lifter's step.
fn retarget(
    p: Prediction,
    target_reps: Option<u32>,
    exercise: Option<&Exercise>,
    profile: &Profile,
) -> Prediction {
    let Some(reps) = target_reps.filter(|r| *r != p.reps && *r > 0) else {
        return p;
    };
    let rir = p.rir.unwrap_or(DEFAULT_TARGET_RIR);
    let weight_kg = p.weight_kg.map(|w| {
        round_load(
            w * pct_1rm(reps, rir) / pct_1rm(p.reps.max(1), rir),
            step_for(exercise, profile),
            profile.unit,
        )
    });
    Prediction {
        weight_kg,
        reps,
        ..p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::catalog::catalog;
    use crate::domain::workout::{SetResult, SetTarget, SetType, WorkoutSet, WorkoutStatus};
    use chrono::Duration;

    fn set(kg: f64, reps: u32, done: Option<(f64, u32, u32)>) -> WorkoutSet {
        let mut s = WorkoutSet::planned(
            "s",
            SetType::Working,
            SetTarget {
                reps: Some(reps),
                weight_kg: Some(kg),
                rir: Some(2),
            },
        );
        if let Some((w, r, rir)) = done {
            s.status = SetStatus::Done;
            s.actual = Some(SetResult {
                reps: r,
                weight_kg: Some(w),
                rir: Some(rir),
                rpe: None,
                failure: false,
                ..Default::default()
            });
        }
        s
    }

    fn instance(sets: Vec<WorkoutSet>) -> ExerciseInstance {
        ExerciseInstance {
            group: None,
            rest: None,
            instance_id: "i".into(),
            exercise_id: "barbell-bench-press".into(),
            name: "Bench Press".into(),
            sets,
            notes: None,
            rep_range: None,
            primary_muscles: Vec::new(),
        }
    }

    fn last_session() -> Vec<Workout> {
        vec![Workout {
            current_exercise: None,
            bodyweight_kg: None,
            id: "w".into(),
            name: "Push".into(),
            status: WorkoutStatus::Completed,
            started_at: Utc::now() - Duration::days(3),
            completed_at: None,
            template_id: None,
            routine_id: None,
            exercises: vec![instance(vec![
                set(95.0, 8, Some((95.0, 8, 2))),
                set(95.0, 8, Some((95.0, 7, 1))),
            ])],
            changes: vec![],
            notes: None,
        }]
    }

    fn bench() -> Option<&'static Exercise> {
        catalog().get("barbell-bench-press")
    }

    #[test]
    fn sources_in_order() {
        let p = Profile::default();
        let now = Utc::now();
        let today = instance(vec![
            set(100.0, 8, Some((100.0, 8, 2))),
            set(100.0, 8, None),
        ]);
        let r = predict(
            "barbell-bench-press",
            bench(),
            Some(&today),
            1,
            None,
            &last_session(),
            &p,
            now,
        );
        assert_eq!(
            (r.source, r.weight_kg, r.reps),
            (AutofillSource::PreviousSetToday, Some(100.0), 8)
        );
        // Nothing done today: today's plan, whatever the history says.
        let fresh = instance(vec![set(100.0, 8, None), set(100.0, 8, None)]);
        let r = predict(
            "barbell-bench-press",
            bench(),
            Some(&fresh),
            1,
            None,
            &last_session(),
            &p,
            now,
        );
        assert_eq!((r.source, r.weight_kg), (AutofillSource::Plan, Some(100.0)));
        // Not in today's workout: the progression model on the last session. 95 × 7 of the 8
        // planned is a miss: hold 95 kg and aim for the 8 again (autofill writes the aim: a
        // plan of 7 would be read next time as the 7 asked for, and the lifter held there).
        let r = predict(
            "barbell-bench-press",
            bench(),
            None,
            1,
            None,
            &last_session(),
            &p,
            now,
        );
        assert_eq!(
            (r.source, r.weight_kg, r.reps),
            (AutofillSource::LastSession, Some(95.0), 8)
        );
        // The same, with a planned set that has no weight.
        let unweighted = instance(vec![WorkoutSet::planned(
            "s",
            SetType::Working,
            SetTarget::default(),
        )]);
        let r = predict(
            "barbell-bench-press",
            bench(),
            Some(&unweighted),
            0,
            None,
            &last_session(),
            &p,
            now,
        );
        assert_eq!(r.source, AutofillSource::LastSession);
        // Nothing at all: an estimate.
        let r = predict("barbell-bench-press", bench(), None, 0, None, &[], &p, now);
        assert_eq!(r.source, AutofillSource::Estimate);
        assert!(r.weight_kg.is_some());
    }

    #[test]
    fn a_different_rep_target_moves_the_weight() {
        let p = Profile::default();
        let today = instance(vec![
            set(100.0, 8, Some((100.0, 8, 2))),
            set(100.0, 8, None),
        ]);
        let r = predict(
            "barbell-bench-press",
            bench(),
            Some(&today),
            1,
            Some(5),
            &[],
            &p,
            Utc::now(),
        );
        assert_eq!(r.reps, 5);
        assert!(r.weight_kg.unwrap() > 100.0);
        assert_eq!(r.weight_kg.unwrap() % 2.5, 0.0);
    }
}
