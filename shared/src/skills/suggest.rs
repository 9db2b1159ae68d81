//! SUGGEST_WEIGHT: the load for a rep target and effort, from what the lifter actually did.
//!
//! 1. With history of the exercise, of any age: the progression model's prescription
//!    ([`progression::prescribe`]) at the target, so the answer is the one the next planned
//!    workout, AUTOFILL and the insight card give (a long break is allowed for there).
//! 2. Without: a related lift (same movement pattern) scaled by the equipment's load ratio,
//!    else a default for the lifter's level; both low confidence. Bodyweight work reads related
//!    bodyweight lifts through the load moved, else starts at bodyweight alone (assisted work:
//!    a typical share of the bodyweight as help).

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::analysis::history::{Basis, best_by_e1rm, working_sets};
use crate::analysis::progression::{self, FRESH_DAYS, RepTarget, Step};
use crate::domain::catalog::{Equipment, Exercise, Loading, MovementPattern, catalog};
use crate::domain::profile::{Experience, Profile};
use crate::domain::strength::{self, Lift, load_ratio, pct_1rm, relative_load, round_load};
use crate::domain::units::format_weight;
use crate::domain::workout::Workout;

pub use crate::analysis::progression::DEFAULT_TARGET_RIR;
pub use crate::domain::profile::step_for;

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
    pub basis: Vec<Basis>,
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
    let target = RepTarget::fixed(target_reps, target_rir);
    if let Some(p) = progression::prescribe(history, exercise_id, exercise, target, profile, now) {
        let confidence = if p.step != Step::Return && p.days_since <= FRESH_DAYS && p.sessions >= 2
        {
            Confidence::High
        } else {
            Confidence::Medium
        };
        return Suggestion {
            weight_kg: p.weight_kg,
            confidence,
            source: Source::History,
            rationale: p.rationale,
            basis: p.basis,
        };
    }
    if let Some(ex) = exercise.filter(|e| e.loading.uses_bodyweight()) {
        return bodyweight_start(ex, target_reps, target_rir, history, profile);
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
        && let Some(s) = from_related_lift(ex, target_reps, target_rir, history, profile)
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
) -> Option<Suggestion> {
    let target_ratio = relative_load(ex)?;
    let cat = catalog();
    // The related exercise with the most recent history wins.
    let mut seen = std::collections::HashSet::new();
    let mut ordered: Vec<&Workout> = history.iter().collect();
    ordered.sort_by_key(|w| std::cmp::Reverse(w.started_at));
    for w in ordered {
        for inst in &w.exercises {
            if inst.exercise_id == ex.id || !seen.insert(inst.exercise_id.as_str()) {
                continue;
            }
            let Some(related) = cat.get(&inst.exercise_id) else {
                continue;
            };
            if related.movement_pattern != ex.movement_pattern
                || related.compound != ex.compound
                || related.loading.uses_bodyweight()
            {
                continue;
            }
            let Some(their_ratio) = relative_load(related) else {
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
                    "No {} in your history; estimated from your {} ({} × {} on {}), scaled ×{:.2} for the {}. Start here and adjust by feel.",
                    ex.name,
                    related.name,
                    format_weight(best.weight_kg().unwrap_or_default(), profile.unit),
                    best.reps(),
                    w.started_at.format("%-d %b %Y"),
                    target_ratio / their_ratio,
                    if ex.equipment == related.equipment {
                        "variant".to_string()
                    } else {
                        ex.equipment.label().to_lowercase()
                    },
                ),
                basis: vec![best.basis()],
            });
        }
    }
    None
}

/// Assistance that is a typical start on an assisted exercise, as a share of the bodyweight it
/// lifts: half for a beginner, less with experience (our coaching defaults, not a published
/// table).
fn typical_assistance(experience: Experience) -> f64 {
    match experience {
        Experience::Beginner => 0.5,
        Experience::Intermediate => 0.3,
        Experience::Advanced => 0.15,
    }
}

/// Bodyweight work without its own history: a related bodyweight lift of the same pattern read
/// through the load moved (a pull-up's estimated max gives a weighted pull-up's belt, an
/// assisted one's help), else bodyweight alone, or for assisted work a typical share of the
/// bodyweight as help.
fn bodyweight_start(
    ex: &Exercise,
    target_reps: u32,
    target_rir: u32,
    history: &[Workout],
    profile: &Profile,
) -> Suggestion {
    let step = step_for(Some(ex), profile);
    let unit = profile.unit;
    let mut ordered: Vec<&Workout> = history.iter().collect();
    ordered.sort_by_key(|w| std::cmp::Reverse(w.started_at));
    for w in ordered {
        for inst in w.exercises.iter().filter(|i| i.exercise_id != ex.id) {
            let Some(related) = catalog().get(&inst.exercise_id) else {
                continue;
            };
            if related.movement_pattern != ex.movement_pattern || !related.loading.uses_bodyweight()
            {
                continue;
            }
            let sets = working_sets(w, &[inst]);
            let Some((best, e1rm)) = best_by_e1rm(&sets).and_then(|b| Some((b, b.e1rm()?))) else {
                continue;
            };
            let lift = Lift::of(&ex.id, profile.bodyweight_kg.or(w.bodyweight_kg));
            let Some(logged) = lift.logged_for(e1rm * pct_1rm(target_reps, target_rir)) else {
                continue;
            };
            let weight = round_load(logged, step, unit);
            return Suggestion {
                weight_kg: weight,
                confidence: Confidence::Low,
                source: Source::RelatedLift,
                rationale: format!(
                    "No {} in your history; estimated from your {} ({} × {} on {}, an estimated max of {} with your bodyweight): {} × {target_reps}. Start here and adjust by feel.",
                    ex.name,
                    related.name,
                    best.lift
                        .describe(best.weight_kg().unwrap_or_default(), unit),
                    best.reps(),
                    w.started_at.format("%-d %b %Y"),
                    format_weight(strength::round1(e1rm), unit),
                    lift.describe(weight, unit),
                ),
                basis: vec![best.basis()],
            };
        }
    }
    let lift = Lift::of(&ex.id, profile.bodyweight_kg);
    let (weight, rationale) = match (ex.loading, lift.bodyweight_kg) {
        (Loading::Assisted { share }, Some(bw)) => {
            let fraction = typical_assistance(profile.experience);
            let help = round_load(bw * share * fraction, step, unit);
            (
                help,
                format!(
                    "No history of {} or a related lift yet; help of about {:.0} % of your bodyweight, {}, is a typical start. Less assistance is progress.",
                    ex.name,
                    fraction * 100.0,
                    format_weight(help, unit)
                ),
            )
        }
        (Loading::Assisted { .. }, None) => (
            0.0,
            format!(
                "No history of {} yet and no bodyweight in your profile: pick the assistance that leaves {target_rir} reps in reserve at {target_reps}, and less assistance is progress. Add your bodyweight for a suggested start.",
                ex.name
            ),
        ),
        _ => (
            0.0,
            format!(
                "No history of {} yet: start with bodyweight alone for {target_reps} reps, and add {} once the top of your range is easy.",
                ex.name,
                format_weight(step, unit)
            ),
        ),
    };
    Suggestion {
        weight_kg: weight,
        confidence: Confidence::Low,
        source: if weight > 0.0 {
            Source::Level
        } else {
            Source::Bodyweight
        },
        rationale,
        basis: Vec::new(),
    }
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
    use chrono::Duration;

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
            current_exercise: None,
            bodyweight_kg: None,
            id: format!("w{days_ago}"),
            name: "Push".into(),
            status: WorkoutStatus::Completed,
            started_at: Utc::now() - Duration::days(days_ago),
            completed_at: None,
            template_id: None,
            routine_id: None,
            exercises: vec![ExerciseInstance {
                group: None,
                rest: None,
                instance_id: "i".into(),
                exercise_id: exercise.into(),
                name: exercise.into(),
                sets,
                notes: None,
                rep_range: None,
                primary_muscles: Vec::new(),
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
    fn old_history_counts_after_a_break_and_related_lifts_are_low_confidence() {
        // The reported defect: history months old was "no history". Bench 70 days ago, but the
        // lifter trained 3 days ago: no detraining, and no step up on a rested lift: 100 kg.
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
            (s.source, s.confidence, s.weight_kg),
            (Source::History, Confidence::Medium, 100.0)
        );
        assert!(s.rationale.contains("10 weeks ago"), "{}", s.rationale);
        // Only the related lift: low confidence.
        let s = suggest_weight(
            "barbell-bench-press",
            Some(bench()),
            8,
            2,
            &h[1..],
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
    fn bodyweight_work_starts_from_the_bodyweight() {
        // The reported defect: a weighted pull-up without history was 55 kg × 8.
        let mut p = Profile::default();
        let weighted = catalog().get("weighted-pull-up");
        let s = suggest_weight("weighted-pull-up", weighted, 8, 2, &[], &p, Utc::now());
        assert_eq!((s.source, s.weight_kg), (Source::Bodyweight, 0.0));
        assert!(s.rationale.contains("bodyweight alone"), "{}", s.rationale);
        // Ten pull-ups at RIR 2 and 80 kg: e1RM 80 × (1 + 12/30) = 112 kg moved; 5 at RIR 2
        // is 112 / (1 + 7/30) ≈ 90.8 kg: 10 kg on the belt (rounded to the 2.5 kg plates).
        p.bodyweight_kg = Some(80.0);
        let mut pull_ups = session(2, "pull-up", vec![done(0.0, 10, 2)]);
        pull_ups.bodyweight_kg = Some(80.0);
        let h = vec![pull_ups];
        let s = suggest_weight("weighted-pull-up", weighted, 5, 2, &h, &p, Utc::now());
        assert_eq!(
            (s.source, s.weight_kg),
            (Source::RelatedLift, 10.0),
            "{}",
            s.rationale
        );
        assert!(
            s.rationale.contains("bodyweight + 10 kg × 5"),
            "{}",
            s.rationale
        );
        // The same history gives an assisted pull-up no help at 10 reps' worth, and a lat
        // pulldown nothing from it (a bodyweight lift is no cable load).
        let pulldown = catalog().get("lat-pulldown");
        let s = suggest_weight("lat-pulldown", pulldown, 10, 2, &h, &p, Utc::now());
        assert_eq!(s.source, Source::Level);
        // An assisted exercise without history: a typical share of the bodyweight as help.
        let assisted = catalog().get("assisted-pull-up");
        let s = suggest_weight("assisted-pull-up", assisted, 8, 2, &[], &p, Utc::now());
        assert_eq!(
            (s.source, s.weight_kg),
            (Source::Level, 25.0),
            "{}",
            s.rationale
        );
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
