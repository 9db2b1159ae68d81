//! SUGGEST_WEIGHT: the load for a rep target and effort, from what the lifter actually did.
//!
//! 1. The latest session of the exercise in the last 8 weeks: its best set's e1RM (Epley with
//!    the reps in reserve counted, see [`strength::e1rm`]).
//! 2. The load = e1RM × %1RM for the target reps and RIR (RPE table), rounded to the lifter's
//!    step for the equipment, in their unit.
//! 3. Never more than [`MAX_JUMP_KG`] (or [`MAX_JUMP_FRACTION`], whichever is smaller) above
//!    the best weight achieved for at least those reps in the window.
//! 4. Without history of the exercise: a related lift (same movement pattern) scaled by the
//!    equipment's load ratio, else a default for the lifter's level; both low confidence.

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use serde_json::{Value, json};

use super::history::{
    LOOKBACK_WEEKS, LoggedSet, all_working_sets, best_by_e1rm, sessions_with, working_sets,
};
use crate::domain::catalog::{Equipment, Exercise, MovementPattern, catalog};
use crate::domain::profile::{Experience, Profile};
use crate::domain::strength::{self, e1rm_confidence, load_ratio, pct_1rm, round_load, round1};
use crate::domain::units::format_weight;
use crate::domain::workout::Workout;

/// A suggestion never jumps more than this above the best weight done for the target reps...
pub const MAX_JUMP_KG: f64 = 5.0;
/// ...nor more than this fraction of it, whichever is smaller.
pub const MAX_JUMP_FRACTION: f64 = 0.10;
/// RIR assumed when the request gives none.
pub const DEFAULT_TARGET_RIR: u32 = 2;
/// A session older than this makes a history-based suggestion medium confidence at best.
pub const FRESH_DAYS: i64 = 21;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    High,
    Medium,
    Low,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    History,
    RelatedLift,
    Level,
    Bodyweight,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    pub weight_kg: f64,
    pub confidence: Confidence,
    pub source: Source,
    pub rationale: String,
    pub basis: Vec<Value>,
}

impl Suggestion {
    /// The SUGGEST envelope's `data`.
    pub fn to_data(&self, exercise_id: &str, reps: u32, rir: u32, profile: &Profile) -> Value {
        json!({
            "exercise_id": exercise_id,
            "target_reps": reps,
            "target_rir": rir,
            "weight_kg": self.weight_kg,
            "weight": profile.unit.from_kg(self.weight_kg),
            "unit": profile.unit.label(),
            "display": format_weight(self.weight_kg, profile.unit),
            "confidence": self.confidence,
            "source": self.source,
            "rationale": self.rationale,
            "basis": self.basis,
        })
    }
}

/// The lifter's plate step for this exercise's equipment.
pub fn step_for(exercise: Option<&Exercise>, profile: &Profile) -> f64 {
    profile
        .increments()
        .for_equipment(exercise.map_or(Equipment::Barbell, |e| e.equipment))
}

/// Suggests a load for `target_reps` at `target_rir` of `exercise_id` (`exercise` is its catalog
/// entry when it has one).
pub fn suggest_weight(
    exercise_id: &str,
    exercise: Option<&Exercise>,
    target_reps: u32,
    target_rir: u32,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
) -> Suggestion {
    let unit = profile.unit;
    let step = step_for(exercise, profile);
    let since = now - Duration::weeks(LOOKBACK_WEEKS);
    let pct = pct_1rm(target_reps, target_rir);
    let sessions = sessions_with(history, exercise_id, since);
    if let Some((latest, instances)) = sessions.first() {
        let sets = working_sets(latest, instances);
        if let Some(best) = best_by_e1rm(&sets) {
            let e1rm = best.e1rm().unwrap_or_default();
            let raw = e1rm * pct;
            let mut weight = round_load(raw, step, unit);
            let all = all_working_sets(history, exercise_id, since);
            let cap = all
                .iter()
                .filter(|s| s.reps() >= target_reps)
                .filter_map(|s| s.weight_kg())
                .fold(None, |m: Option<f64>, w| Some(m.map_or(w, |m| m.max(w))))
                .map(|best| best + (best * MAX_JUMP_FRACTION).min(MAX_JUMP_KG));
            let mut capped = false;
            if let Some(cap) = cap
                && weight > cap + 1e-9
            {
                // Round down to a loadable weight under the cap.
                weight = round_load(cap - step / 2.0 + 1e-9, step, unit).min(cap);
                capped = true;
            }
            let fresh = now - latest.started_at <= Duration::days(FRESH_DAYS);
            let trusted = e1rm_confidence(best.reps()).unwrap_or(0.0) >= 0.8;
            let confidence = if fresh && trusted && sessions.len() >= 2 {
                Confidence::High
            } else {
                Confidence::Medium
            };
            let mut rationale = format!(
                "Your best set last session ({}) was {} × {}{}, an estimated max of {}. {} reps at RIR {} is about {:.0} % of that: {}.",
                latest.started_at.format("%-d %b"),
                format_weight(best.weight_kg().unwrap_or_default(), unit),
                best.reps(),
                best.rir()
                    .map(|r| format!(" at RIR {r}"))
                    .unwrap_or_default(),
                format_weight(round1(e1rm), unit),
                target_reps,
                target_rir,
                pct * 100.0,
                format_weight(weight, unit),
            );
            if capped {
                rationale.push_str(&format!(
                    " Capped at {} above your best for {target_reps}+ reps.",
                    format_weight(MAX_JUMP_KG, unit)
                ));
            }
            return Suggestion {
                weight_kg: weight,
                confidence,
                source: Source::History,
                rationale,
                basis: sets.iter().map(LoggedSet::basis).collect(),
            };
        }
    }
    if exercise.and_then(|e| load_ratio(e.equipment)).is_none() && exercise.is_some() {
        return Suggestion {
            weight_kg: 0.0,
            confidence: Confidence::Low,
            source: Source::Bodyweight,
            rationale: "A bodyweight or band exercise: no load to suggest; add weight once the top of the rep range feels easy.".into(),
            basis: Vec::new(),
        };
    }
    if let Some(ex) = exercise
        && let Some(s) = from_related_lift(ex, target_reps, target_rir, history, profile, since)
    {
        return s;
    }
    from_level(exercise, target_reps, target_rir, profile)
}

/// A lift with the same movement pattern the lifter has history for, scaled by equipment.
fn from_related_lift(
    ex: &Exercise,
    target_reps: u32,
    target_rir: u32,
    history: &[Workout],
    profile: &Profile,
    since: DateTime<Utc>,
) -> Option<Suggestion> {
    let target_ratio = load_ratio(ex.equipment)?;
    let cat = catalog();
    // The related exercise with the most recent history wins.
    let mut seen = std::collections::HashSet::new();
    let mut ordered: Vec<&Workout> = history.iter().filter(|w| w.started_at >= since).collect();
    ordered.sort_by_key(|w| std::cmp::Reverse(w.started_at));
    for w in ordered {
        for inst in &w.exercises {
            if inst.exercise_id == ex.id || !seen.insert(inst.exercise_id.as_str()) {
                continue;
            }
            let Some(related) = cat.get(&inst.exercise_id) else {
                continue;
            };
            if related.movement_pattern != ex.movement_pattern || related.compound != ex.compound {
                continue;
            }
            let Some(their_ratio) = load_ratio(related.equipment) else {
                continue;
            };
            let sets = working_sets(w, &[inst]);
            let Some(best) = best_by_e1rm(&sets) else {
                continue;
            };
            let e1rm = best.e1rm().unwrap_or_default() * target_ratio / their_ratio;
            let weight = round_load(
                e1rm * pct_1rm(target_reps, target_rir),
                step_for(Some(ex), profile),
                profile.unit,
            );
            return Some(Suggestion {
                weight_kg: weight,
                confidence: Confidence::Low,
                source: Source::RelatedLift,
                rationale: format!(
                    "No {} in your last {LOOKBACK_WEEKS} weeks; estimated from your {} ({} × {}), scaled for {}. Start here and adjust by feel.",
                    ex.name,
                    related.name,
                    format_weight(best.weight_kg().unwrap_or_default(), profile.unit),
                    best.reps(),
                    ex.equipment.label().to_lowercase(),
                ),
                basis: vec![best.basis()],
            });
        }
    }
    None
}

/// Typical working weights (kg, about 8 reps at RIR 2) for an intermediate lifter, from the
/// reference's defaults; beginners start at the reference's 40 kg bench (40/75 of it),
/// advanced lifters at 125 %.
fn level_default_kg(exercise: Option<&Exercise>) -> f64 {
    let Some(ex) = exercise else { return 40.0 };
    if !ex.compound {
        return match ex.equipment {
            Equipment::Dumbbell | Equipment::Kettlebell => 12.0,
            _ => 16.0,
        };
    }
    let barbell = match ex.movement_pattern {
        MovementPattern::HorizontalPush => 75.0,
        MovementPattern::VerticalPush => 47.5,
        MovementPattern::Squat | MovementPattern::Lunge => 90.0,
        MovementPattern::Hinge | MovementPattern::HipExtension => 110.0,
        MovementPattern::HorizontalPull | MovementPattern::VerticalPull => 60.0,
        _ => 50.0,
    };
    barbell * load_ratio(ex.equipment).unwrap_or(1.0)
}

fn from_level(
    exercise: Option<&Exercise>,
    target_reps: u32,
    target_rir: u32,
    profile: &Profile,
) -> Suggestion {
    let level = match profile.experience {
        Experience::Beginner => 40.0 / 75.0,
        Experience::Intermediate => 1.0,
        Experience::Advanced => 1.25,
    };
    let working = level_default_kg(exercise) * level;
    let e1rm = working / pct_1rm(8, 2);
    let weight = round_load(
        e1rm * pct_1rm(target_reps, target_rir),
        step_for(exercise, profile),
        profile.unit,
    );
    let name = exercise.map_or("this exercise", |e| e.name.as_str());
    Suggestion {
        weight_kg: weight,
        confidence: Confidence::Low,
        source: Source::Level,
        rationale: format!(
            "No history of {name} or a related lift yet; {} is a typical start for an {:?} lifter. Treat the first set as a test and adjust.",
            format_weight(weight, profile.unit),
            profile.experience
        )
        .replace("an Beginner", "a beginner")
        .replace("an Intermediate", "an intermediate")
        .replace("an Advanced", "an advanced"),
        basis: Vec::new(),
    }
}

/// Resolves the exercise a smart button names: a catalog id or name, or an id from the lifter's
/// own history. None when neither knows it.
pub fn known_exercise(
    id: &str,
    history: &[Workout],
) -> Option<(String, Option<&'static Exercise>)> {
    if let Some(ex) = catalog().resolve(id).exercise() {
        return Some((ex.id.clone(), Some(ex)));
    }
    history
        .iter()
        .flat_map(|w| w.exercises.iter())
        .find(|e| e.exercise_id == id)
        .map(|e| (e.exercise_id.clone(), None))
}

/// Rounds a suggested load the same way everywhere (re-exported for the workout builder).
pub fn loadable(kg: f64, exercise: Option<&Exercise>, profile: &Profile) -> f64 {
    strength::round_load(kg, step_for(exercise, profile), profile.unit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::workout::{
        ExerciseInstance, SetResult, SetStatus, SetTarget, SetType, WorkoutSet, WorkoutStatus,
    };

    pub(crate) fn done(kg: f64, reps: u32, rir: u32) -> WorkoutSet {
        let mut s = WorkoutSet::planned("s", SetType::Working, SetTarget::default());
        s.status = SetStatus::Done;
        s.actual = Some(SetResult {
            reps,
            weight_kg: Some(kg),
            rir: Some(rir),
            rpe: None,
            failure: false,
            ..Default::default()
        });
        s
    }

    fn session(days_ago: i64, exercise: &str, sets: Vec<WorkoutSet>) -> Workout {
        Workout {
            id: format!("w{days_ago}"),
            name: "Push".into(),
            status: WorkoutStatus::Completed,
            started_at: Utc::now() - Duration::days(days_ago),
            completed_at: None,
            template_id: None,
            routine_id: None,
            exercises: vec![ExerciseInstance {
                instance_id: "i".into(),
                exercise_id: exercise.into(),
                name: exercise.into(),
                sets,
                notes: None,
            }],
            changes: vec![],
            notes: None,
        }
    }

    fn bench() -> &'static Exercise {
        catalog().get("barbell-bench-press").unwrap()
    }

    #[test]
    fn from_the_latest_session_rounded_to_the_plate_step() {
        let h = vec![
            session(9, "barbell-bench-press", vec![done(95.0, 8, 2)]),
            session(
                2,
                "barbell-bench-press",
                vec![done(100.0, 8, 2), done(100.0, 7, 1)],
            ),
        ];
        let s = suggest_weight(
            "barbell-bench-press",
            Some(bench()),
            8,
            2,
            &h,
            &Profile::default(),
            Utc::now(),
        );
        // 100 × 8 at RIR 2 is what was done: the same target gives the same weight back.
        assert_eq!(s.weight_kg, 100.0);
        let s = suggest_weight(
            "barbell-bench-press",
            Some(bench()),
            5,
            2,
            &h,
            &Profile::default(),
            Utc::now(),
        );
        // e1RM 133.3 × 81.1 % (7-rep max) = 108.1, but 5+ reps were never done above 100 kg.
        assert_eq!(s.weight_kg, 105.0);
        assert_eq!(
            (s.source, s.confidence),
            (Source::History, Confidence::High)
        );
        assert_eq!(s.basis.len(), 2);
        assert!(
            s.rationale.contains("100 kg × 8 at RIR 2"),
            "{}",
            s.rationale
        );
    }

    #[test]
    fn never_jumps_more_than_the_cap_above_the_best_for_those_reps() {
        // A heavy triple says the max is high, but 8 reps were only ever done with 80 kg.
        let h = vec![
            session(10, "barbell-bench-press", vec![done(80.0, 8, 2)]),
            session(1, "barbell-bench-press", vec![done(110.0, 3, 3)]),
        ];
        let s = suggest_weight(
            "barbell-bench-press",
            Some(bench()),
            8,
            2,
            &h,
            &Profile::default(),
            Utc::now(),
        );
        assert_eq!(s.weight_kg, 85.0);
        assert!(s.rationale.contains("Capped"));
        // Light lifts: 10 % is smaller than 5 kg.
        let curl = catalog().get("dumbbell-curl").unwrap();
        let h = vec![
            session(10, "dumbbell-curl", vec![done(12.0, 10, 2)]),
            session(1, "dumbbell-curl", vec![done(18.0, 4, 2)]),
        ];
        let s = suggest_weight(
            "dumbbell-curl",
            Some(curl),
            10,
            2,
            &h,
            &Profile::default(),
            Utc::now(),
        );
        assert!(s.weight_kg <= 13.2, "{}", s.weight_kg);
    }

    #[test]
    fn old_history_is_ignored_and_related_lifts_are_low_confidence() {
        let h = vec![
            session(70, "barbell-bench-press", vec![done(100.0, 8, 2)]),
            session(3, "dumbbell-bench-press", vec![done(36.0, 8, 2)]),
        ];
        let s = suggest_weight(
            "barbell-bench-press",
            Some(bench()),
            8,
            2,
            &h,
            &Profile::default(),
            Utc::now(),
        );
        assert_eq!(
            (s.source, s.confidence),
            (Source::RelatedLift, Confidence::Low)
        );
        // 36 kg dumbbells per hand ≈ 97 kg on a barbell at the same effort.
        assert!((95.0..=100.0).contains(&s.weight_kg), "{}", s.weight_kg);
    }

    #[test]
    fn without_any_history_the_level_default() {
        let beginner = Profile {
            experience: Experience::Beginner,
            ..Profile::default()
        };
        let s = suggest_weight(
            "barbell-bench-press",
            Some(bench()),
            8,
            2,
            &[],
            &beginner,
            Utc::now(),
        );
        assert_eq!((s.source, s.confidence), (Source::Level, Confidence::Low));
        assert_eq!(s.weight_kg, 40.0);
        assert!(s.rationale.contains("a beginner"));
        let pullup = catalog().get("pull-up").unwrap();
        let s = suggest_weight("pull-up", Some(pullup), 8, 2, &[], &beginner, Utc::now());
        assert_eq!((s.source, s.weight_kg), (Source::Bodyweight, 0.0));
    }

    #[test]
    fn pound_users_get_pound_plates() {
        let lb = Profile {
            unit: crate::domain::units::Unit::Lb,
            ..Profile::default()
        };
        let h = vec![session(2, "barbell-bench-press", vec![done(100.0, 8, 2)])];
        let s = suggest_weight(
            "barbell-bench-press",
            Some(bench()),
            8,
            2,
            &h,
            &lb,
            Utc::now(),
        );
        let lbs = lb.unit.from_kg(s.weight_kg);
        assert!((lbs / 5.0 - (lbs / 5.0).round()).abs() < 1e-6, "{lbs}");
    }
}
