//! SWAP_EXERCISE: alternatives to an exercise from the catalog, ranked, and the swap applied to
//! the active workout in place.
//!
//! Eligible: not the target or an excluded exercise; the same compound/isolation class; at least
//! one primary muscle in common with the target, or the same movement pattern with any muscle in
//! common (a hinge for a hinge across equipment: Romanian deadlift → cable pull-through) (or, with
//! `muscle_group`, training that muscle or group as a primary); equipment allowed by the
//! constraint and by the lifter's equipment.
//!
//! Score (higher first):
//! - 3.0 × primary-muscle overlap (Jaccard: shared / all primary muscles of the two);
//! - 2.0 for the same movement pattern;
//! - 1.0 × secondary-muscle overlap (Jaccard);
//! - 1.0 when the lifter has trained it in the last 8 weeks (their own exercises first);
//! - 0.5 when it can be loaded in small steps (barbells, dumbbells, machines, cables,
//!   kettlebells, sleds), or the target cannot either: a band or bodyweight copy of a loaded
//!   exercise is not the first offer in a full gym;
//! - 0.25 for the same laterality (bilateral for bilateral).
//!
//! Ties break by other equipment before the target's own (a swap is mostly asked because the
//! station is taken), then by [`EQUIPMENT_ORDER`] (the common, loadable kinds first), then by
//! how often the lifter trained it recently, then by name.

use std::collections::HashMap;

use serde_json::Value;

use super::suggest::{Source, known_exercise, step_for, suggest_weight};
use crate::domain::catalog::{Equipment, Exercise, Muscle, MuscleGroup, catalog};
use crate::domain::profile::Profile;
use crate::domain::strength::{load_ratio, round_load, transfer_ratio};
use crate::domain::workout::{ExerciseInstance, SetStatus, Workout, WorkoutSet};

pub(crate) const W_PRIMARY: f64 = 3.0;
pub(crate) const W_PATTERN: f64 = 2.0;
pub(crate) const W_SECONDARY: f64 = 1.0;
pub(crate) const W_FAMILIAR: f64 = 1.0;
pub(crate) const W_LATERALITY: f64 = 0.25;
pub(crate) const W_LOADABLE: f64 = 0.5;

/// Tie order of equipment: what most gyms have and what loads in small steps first.
pub(crate) const EQUIPMENT_ORDER: [Equipment; 13] = [
    Equipment::Barbell,
    Equipment::Dumbbell,
    Equipment::Machine,
    Equipment::Cable,
    Equipment::Plate,
    Equipment::Smith,
    Equipment::EzBar,
    Equipment::TrapBar,
    Equipment::Kettlebell,
    Equipment::Sled,
    Equipment::Bodyweight,
    Equipment::Band,
    Equipment::MedicineBall,
];

fn equipment_rank(e: Equipment) -> usize {
    EQUIPMENT_ORDER
        .iter()
        .position(|x| *x == e)
        .unwrap_or(EQUIPMENT_ORDER.len())
}
/// Alternatives returned besides the chosen one.
pub const MAX_ALTERNATIVES: usize = 5;

/// The constraints the app's swap sheet offers, and the equipment each allows.
pub(crate) const CONSTRAINTS: [(&str, &[Equipment]); 8] = [
    (
        "machine",
        &[Equipment::Machine, Equipment::Plate, Equipment::Sled],
    ),
    ("cable", &[Equipment::Cable]),
    ("dumbbell", &[Equipment::Dumbbell]),
    (
        "barbell",
        &[Equipment::Barbell, Equipment::EzBar, Equipment::TrapBar],
    ),
    ("smith", &[Equipment::Smith]),
    ("kettlebell", &[Equipment::Kettlebell]),
    ("band", &[Equipment::Band]),
    ("bodyweight", &[Equipment::Bodyweight]),
];

pub fn parse_constraint(s: &str) -> Option<&'static [Equipment]> {
    let s = s.trim().to_ascii_lowercase();
    CONSTRAINTS
        .iter()
        .find(|(name, _)| *name == s || s.strip_suffix('s') == Some(name))
        .map(|(_, eq)| *eq)
}

pub fn constraint_names() -> String {
    CONSTRAINTS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A muscle ("upper_chest", "lats") or a muscle group ("back", "legs").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MuscleFilter {
    Muscle(Muscle),
    Group(MuscleGroup),
}

impl MuscleFilter {
    pub fn parse(s: &str) -> Option<MuscleFilter> {
        let key = s.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        if let Some(m) = Muscle::parse(&key) {
            return Some(MuscleFilter::Muscle(m));
        }
        serde_json::from_value(Value::String(key))
            .ok()
            .map(MuscleFilter::Group)
    }

    pub fn matches(self, ex: &Exercise) -> bool {
        self.matches_muscles(&ex.primary_muscles)
    }

    /// Whether an exercise with these primary movers is one the filter asks for.
    pub fn matches_muscles(self, primary: &[Muscle]) -> bool {
        match self {
            MuscleFilter::Muscle(m) => primary.contains(&m),
            MuscleFilter::Group(g) => primary.iter().any(|m| m.group() == g),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct SwapQuery<'a> {
    pub constraint: Option<&'a [Equipment]>,
    pub muscle: Option<MuscleFilter>,
    pub exclude: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Candidate<'a> {
    pub exercise: &'a Exercise,
    pub score: f64,
    pub reason: String,
}

fn jaccard(a: &[Muscle], b: &[Muscle]) -> f64 {
    let shared = a.iter().filter(|m| b.contains(m)).count();
    let all = a.len() + b.len() - shared;
    if all == 0 {
        0.0
    } else {
        shared as f64 / all as f64
    }
}

fn words(id: &str) -> String {
    id.replace('_', " ")
}

/// Ranks every eligible catalog exercise as an alternative to `target`. `familiar` counts the
/// lifter's recent sessions per exercise id.
pub fn rank<'a>(
    target: &Exercise,
    exercises: &'a [Exercise],
    query: &SwapQuery<'_>,
    profile: &Profile,
    familiar: &HashMap<String, usize>,
) -> Vec<Candidate<'a>> {
    let mut out: Vec<Candidate<'a>> = exercises
        .iter()
        .filter(|ex| eligible(ex, target, query, profile))
        .map(|ex| {
            let sessions = familiar.get(&ex.id).copied().unwrap_or(0);
            Candidate {
                exercise: ex,
                score: score(ex, target, sessions),
                reason: reason(ex, target, sessions),
            }
        })
        .collect();
    let seen = |c: &Candidate<'_>| familiar.get(&c.exercise.id).copied().unwrap_or(0);
    let same_kit = |c: &Candidate<'_>| c.exercise.equipment == target.equipment;
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| same_kit(a).cmp(&same_kit(b)))
            .then_with(|| {
                equipment_rank(a.exercise.equipment).cmp(&equipment_rank(b.exercise.equipment))
            })
            .then_with(|| seen(b).cmp(&seen(a)))
            .then_with(|| a.exercise.name.cmp(&b.exercise.name))
    });
    out
}

/// Whether `ex` may replace `target`: another exercise of the same kind (compound or not), with
/// equipment the query allows and the lifter has, working the muscle asked for (else a primary
/// muscle of the target, or the same movement on a muscle they share), and not excluded.
fn eligible(ex: &Exercise, target: &Exercise, query: &SwapQuery<'_>, profile: &Profile) -> bool {
    let all = |e: &Exercise| {
        e.primary_muscles
            .iter()
            .chain(e.secondary_muscles.iter())
            .copied()
            .collect::<Vec<Muscle>>()
    };
    let works = match query.muscle {
        Some(f) => f.matches(ex),
        None => {
            ex.primary_muscles
                .iter()
                .any(|m| target.primary_muscles.contains(m))
                || (ex.movement_pattern == target.movement_pattern
                    && all(ex).iter().any(|m| all(target).contains(m)))
        }
    };
    let excluded = query.exclude.iter().any(|x| {
        x == &ex.id
            || catalog()
                .resolve(x)
                .exercise()
                .is_some_and(|r| r.id == ex.id)
    });
    ex.id != target.id
        && ex.compound == target.compound
        && query.constraint.is_none_or(|c| c.contains(&ex.equipment))
        && profile.has_equipment(ex.equipment)
        && works
        && !excluded
}

/// How close `ex` is to `target`: shared muscles, the same movement, the lifter's own
/// experience of it, a load that carries over, the same laterality.
fn score(ex: &Exercise, target: &Exercise, sessions: usize) -> f64 {
    let weight = |yes: bool, w: f64| if yes { w } else { 0.0 };
    W_PRIMARY * jaccard(&ex.primary_muscles, &target.primary_muscles)
        + weight(ex.movement_pattern == target.movement_pattern, W_PATTERN)
        + W_SECONDARY * jaccard(&ex.secondary_muscles, &target.secondary_muscles)
        + weight(sessions > 0, W_FAMILIAR)
        + weight(
            load_ratio(ex.equipment).is_some() || load_ratio(target.equipment).is_none(),
            W_LOADABLE,
        )
        + weight(ex.unilateral == target.unilateral, W_LATERALITY)
}

/// The candidate's reason, as the lifter reads it.
fn reason(ex: &Exercise, target: &Exercise, sessions: usize) -> String {
    let muscles: Vec<String> = ex.primary_muscles.iter().map(|m| words(m.id())).collect();
    let movement = if ex.movement_pattern == target.movement_pattern {
        "with the same movement"
    } else {
        "with a different movement"
    };
    let mut reason = format!(
        "{} {movement}, {}",
        ex.equipment.label(),
        muscles.join(" and ")
    );
    if sessions > 0 {
        reason.push_str(&format!(
            "; you trained it {sessions} time{} recently",
            if sessions == 1 { "" } else { "s" }
        ));
    }
    reason
}

/// Why a swap could not be applied to the workout.
#[derive(Debug, Clone, PartialEq)]
pub enum ApplyError {
    /// No exercise with that instance id in the active workout.
    InstanceNotFound,
    /// Sets of it are logged; the lifter must confirm.
    SetsLogged { logged: usize, name: String },
}

/// What the swap did to the workout.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub workout: Workout,
    pub instance_id: String,
    /// How planned weights were set ("from your history", "scaled ×0.37", ...).
    pub weights: String,
}

/// Replaces the exercise `instance_id` with `new` in place: same position and planned sets,
/// planned weights re-derived for the new exercise. With sets already logged (and `confirm`),
/// the logged sets stay recorded under the old exercise and the remaining sets move to the new
/// one, inserted right after.
pub fn apply(
    workout: &Workout,
    instance_id: &str,
    new: &Exercise,
    confirm: bool,
    history: &[Workout],
    profile: &Profile,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Applied, ApplyError> {
    let idx = workout
        .exercises
        .iter()
        .position(|e| e.instance_id == instance_id)
        .ok_or(ApplyError::InstanceNotFound)?;
    let old = &workout.exercises[idx];
    let logged = old
        .sets
        .iter()
        .filter(|s| s.status != SetStatus::Planned)
        .count();
    if logged > 0 && !confirm {
        return Err(ApplyError::SetsLogged {
            logged,
            name: old.name.clone(),
        });
    }
    let old_ex = catalog().get(&old.exercise_id);
    let mut sets: Vec<WorkoutSet> = old
        .sets
        .iter()
        .filter(|s| s.status == SetStatus::Planned)
        .cloned()
        .collect();
    let loads = Loads::choose(old_ex, new, history, now);
    loads.plan(&mut sets, new, history, profile, now);
    let weights = loads.describe(old_ex, new);
    let mut w = workout.clone();
    let new_instance = |id: String, sets| ExerciseInstance {
        instance_id: id,
        exercise_id: new.id.clone(),
        name: new.name.clone(),
        sets,
        notes: old.notes.clone(),
        // The replacement is planned through the same rep range.
        rep_range: old.rep_range,
        primary_muscles: Vec::new(),
        group: old.group.clone(),
        rest: old.rest,
    };
    let instance_id = if logged == 0 {
        w.exercises[idx] = new_instance(old.instance_id.clone(), sets);
        old.instance_id.clone()
    } else {
        let id = format!("{}~{}", old.instance_id, new.id);
        w.exercises[idx]
            .sets
            .retain(|s| s.status != SetStatus::Planned);
        w.exercises.insert(idx + 1, new_instance(id.clone(), sets));
        id
    };
    Ok(Applied {
        workout: w,
        instance_id,
        weights,
    })
}

/// Where the moved sets' planned loads come from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Loads {
    /// Bodyweight work is planned like a new exercise: its own history, a related bodyweight
    /// lift through the load moved, else bodyweight alone (a belt or help is no scaled load).
    Bodyweight,
    /// Equipment whose load says nothing of another's (bodyweight, bands, medicine balls): none
    /// planned.
    Unloadable,
    /// The lifter's own recent sessions of the new exercise.
    History,
    /// The old loads scaled by a known ratio between the two (a 180 kg deadlift is no 180 kg
    /// good morning, and a machine's stack says nothing of a barbell).
    Scaled(f64),
    /// No known ratio: planned as a new exercise (a lift it can be read from, else a
    /// calibration set), never the old exercise's loads.
    Fresh,
}

impl Loads {
    fn choose(
        old: Option<&Exercise>,
        new: &Exercise,
        history: &[Workout],
        now: chrono::DateTime<chrono::Utc>,
    ) -> Loads {
        let since = now - chrono::Duration::weeks(crate::analysis::history::LOOKBACK_WEEKS);
        let has_history =
            !crate::analysis::history::sessions_with(history, &new.id, since).is_empty();
        if new.loading.uses_bodyweight() {
            Loads::Bodyweight
        } else if load_ratio(new.equipment).is_none() {
            Loads::Unloadable
        } else if has_history {
            Loads::History
        } else if let Some(r) = old.and_then(|o| transfer_ratio(&o.id, &new.id)) {
            Loads::Scaled(r)
        } else {
            Loads::Fresh
        }
    }

    /// Sets the planned loads of `sets` for `new`.
    fn plan(
        self,
        sets: &mut [WorkoutSet],
        new: &Exercise,
        history: &[Workout],
        profile: &Profile,
        now: chrono::DateTime<chrono::Utc>,
    ) {
        let suggested = |s: &WorkoutSet| {
            let reps = s.target.reps.unwrap_or(8);
            let rir = s.target.rir.unwrap_or(super::suggest::DEFAULT_TARGET_RIR);
            suggest_weight(&new.id, Some(new), reps, rir, history, profile, now)
        };
        for s in sets {
            match self {
                Loads::Bodyweight | Loads::Fresh => {
                    let sug = suggested(s);
                    s.target.weight_kg = (sug.weight_kg > 0.0).then_some(sug.weight_kg);
                }
                Loads::Unloadable => s.target.weight_kg = None,
                Loads::History => {
                    let sug = suggested(s);
                    if sug.source == Source::History {
                        s.target.weight_kg = Some(sug.weight_kg);
                    }
                }
                Loads::Scaled(r) => {
                    let step = step_for(Some(new), profile);
                    s.target.weight_kg = s
                        .target
                        .weight_kg
                        .map(|w| round_load(w * r - step / 2.0 + 1e-9, step, profile.unit));
                }
            }
        }
    }

    /// How the planned weights were set, as the lifter reads it.
    fn describe(self, old: Option<&Exercise>, new: &Exercise) -> String {
        let old_name = old.map_or("the old exercise", |e| e.name.as_str());
        match self {
            Loads::Bodyweight => format!(
                "{} is bodyweight work: planned from your bodyweight and history",
                new.name
            ),
            Loads::Unloadable => format!(
                "{} is a {} exercise: planned weights removed",
                new.name,
                new.equipment.label().to_lowercase()
            ),
            Loads::History => format!("planned weights from your recent {} sessions", new.name),
            Loads::Scaled(r) => {
                let per = match (
                    old.map(|e| e.equipment),
                    matches!(new.equipment, Equipment::Dumbbell | Equipment::Kettlebell),
                ) {
                    // From dumbbells to dumbbells the load keeps the lifter's own way of
                    // logging it (a hand or the pair).
                    (Some(Equipment::Dumbbell | Equipment::Kettlebell), true) => {
                        " (as you log them)"
                    }
                    (_, true) => " (per hand)",
                    _ => "",
                };
                format!(
                    "planned weights scaled ×{r:.2} from {old_name} to {}{per}, the cautious end of the usual ratio",
                    new.name
                )
            }
            Loads::Fresh => format!(
                "no known ratio between {old_name} and {}: planned as a first session, adjust after the first set",
                new.name
            ),
        }
    }
}

/// Resolves the swap target, or explains what the lifter might have meant.
pub fn resolve_target(text: &str, history: &[Workout]) -> Result<&'static Exercise, String> {
    use crate::domain::catalog::Resolution;
    match catalog().resolve(text) {
        Resolution::Exact(e) | Resolution::Likely { exercise: e, .. } => Ok(e),
        Resolution::Unsure { candidates } => Err(format!(
            "'{text}' could be several exercises: {}",
            candidates
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Resolution::NotFound => {
            let close = catalog().closest(text, 3);
            let own = known_exercise(text, history).is_some();
            Err(if own {
                format!(
                    "'{text}' is one of your own exercises; swaps need a catalog exercise to compare muscles"
                )
            } else if close.is_empty() {
                format!("no exercise called '{text}' in the catalog")
            } else {
                format!(
                    "no exercise called '{text}'; did you mean {}?",
                    close
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(c: &[Candidate<'_>]) -> Vec<String> {
        c.iter().map(|c| c.exercise.id.clone()).collect()
    }

    /// An active workout with `id` planned for three sets of 8 at `kg`.
    fn planned(id: &str, kg: Option<f64>) -> Workout {
        use crate::domain::workout::{ExerciseInstance, SetTarget, SetType, WorkoutSet};
        let mut w = crate::analysis::testkit::session(0, id, &[]);
        w.exercises = vec![ExerciseInstance {
            group: None,
            rest: None,
            instance_id: "e1".into(),
            exercise_id: id.into(),
            name: id.into(),
            sets: (1..=3)
                .map(|n| {
                    WorkoutSet::planned(
                        format!("s{n}"),
                        SetType::Working,
                        SetTarget {
                            reps: Some(8),
                            weight_kg: kg,
                            rir: Some(2),
                        },
                    )
                })
                .collect(),
            notes: None,
            rep_range: None,
            primary_muscles: Vec::new(),
        }];
        w
    }

    #[test]
    fn weights_scale_by_variant_as_well_as_equipment() {
        let p = Profile::default();
        let now = chrono::Utc::now();
        let swap = |from: &str, kg, to: &str, history: &[Workout], p: &Profile| {
            let new = catalog().get(to).expect("in the catalog");
            let a = apply(&planned(from, kg), "e1", new, false, history, p, now).expect("applies");
            let kgs: Vec<Option<f64>> = a.workout.exercises[0]
                .sets
                .iter()
                .map(|s| s.target.weight_kg)
                .collect();
            (kgs[0], a.weights)
        };
        // Same barbell, another variant: the cautious end of the incline's 75–90 %.
        let (kg, why) = swap(
            "barbell-bench-press",
            Some(100.0),
            "incline-barbell-bench-press",
            &[],
            &p,
        );
        assert_eq!(kg, Some(75.0));
        assert!(
            why.contains("×0.75 from Bench Press to Incline Bench Press"),
            "{why}"
        );
        // Dumbbells, per hand: a pair is about 80 % of the barbell, the cautious end a third a
        // hand.
        let (kg, why) = swap(
            "barbell-bench-press",
            Some(100.0),
            "dumbbell-bench-press",
            &[],
            &p,
        );
        assert_eq!(kg, Some(32.0));
        assert!(why.contains("(per hand)"), "{why}");
        // The reported defect: a 180 kg deadlift swapped to a good morning on the same bar kept
        // 180 kg. No known ratio: planned as a first session, a light calibration set.
        let (kg, why) = swap("deadlift", Some(180.0), "good-morning", &[], &p);
        assert!(kg.is_some_and(|kg| kg <= 40.0), "{kg:?} {why}");
        assert!(why.contains("no known ratio"), "{why}");
        // A push press is heavier than a strict press: never carried over one to one.
        let (kg, _) = swap("push-press", Some(80.0), "overhead-press", &[], &p);
        assert!(kg.is_some_and(|kg| kg <= 57.5), "{kg:?}");
        // A lat pulldown's cable load says nothing about a weighted pull-up's belt: bodyweight
        // alone, not 60 × 0.9 / 0.55 = 98 kg on a belt.
        let (kg, why) = swap("lat-pulldown", Some(60.0), "weighted-pull-up", &[], &p);
        assert_eq!(kg, None, "{why}");
        assert!(why.contains("bodyweight work"), "{why}");
        // With pull-ups in the history and a bodyweight, the belt follows from them.
        let with_bw = Profile {
            bodyweight_kg: Some(80.0),
            ..Profile::default()
        };
        let mut pull_ups = crate::analysis::testkit::session(
            -2,
            "pull-up",
            &[crate::analysis::testkit::working(0.0, 12, None, Some(0))],
        );
        pull_ups.bodyweight_kg = Some(80.0);
        // e1RM 80 × 1.4 = 112; 8 at RIR 2: 112 × 0.75 = 84 kg moved, a 5 kg belt (rounded).
        let (kg, _) = swap(
            "lat-pulldown",
            Some(60.0),
            "weighted-pull-up",
            &[pull_ups],
            &with_bw,
        );
        assert_eq!(kg, Some(5.0));
    }

    #[test]
    fn machine_alternatives_to_bench_press_train_the_chest() {
        let bench = catalog().get("barbell-bench-press").unwrap();
        let q = SwapQuery {
            constraint: parse_constraint("machine"),
            ..SwapQuery::default()
        };
        let r = rank(
            bench,
            catalog().all(),
            &q,
            &Profile::default(),
            &HashMap::new(),
        );
        assert!(!r.is_empty());
        assert!(r.iter().all(|c| c.exercise.equipment == Equipment::Machine
            || c.exercise.equipment == Equipment::Plate
            || c.exercise.equipment == Equipment::Sled));
        assert!(r.iter().all(|c| c.exercise.compound));
        assert_eq!(r[0].exercise.id, "machine-chest-press");
        assert!(r[0].reason.contains("same movement"), "{}", r[0].reason);
        // Sorted by score.
        assert!(r.windows(2).all(|w| w[0].score >= w[1].score));
    }

    #[test]
    fn familiarity_exclusions_and_equipment_matter() {
        let bench = catalog().get("barbell-bench-press").unwrap();
        let plain = rank(
            bench,
            catalog().all(),
            &SwapQuery::default(),
            &Profile::default(),
            &HashMap::new(),
        );
        let top = plain[0].exercise.id.clone();
        // Excluding the favourite by name removes it.
        let q = SwapQuery {
            exclude: vec![plain[0].exercise.name.clone()],
            ..SwapQuery::default()
        };
        let r = rank(
            bench,
            catalog().all(),
            &q,
            &Profile::default(),
            &HashMap::new(),
        );
        assert!(!names(&r).contains(&top));
        // An exercise the lifter trains gets a lift in the ranking.
        let last = plain.last().unwrap().exercise.id.clone();
        let familiar = HashMap::from([(last.clone(), 3)]);
        let r = rank(
            bench,
            catalog().all(),
            &SwapQuery::default(),
            &Profile::default(),
            &familiar,
        );
        let before = names(&plain).iter().position(|n| n == &last).unwrap();
        let after = names(&r).iter().position(|n| n == &last).unwrap();
        assert!(after < before);
        // A home gym with dumbbells only gets dumbbell and bodyweight alternatives.
        let home = Profile {
            equipment: vec![Equipment::Dumbbell],
            ..Profile::default()
        };
        let r = rank(
            bench,
            catalog().all(),
            &SwapQuery::default(),
            &home,
            &HashMap::new(),
        );
        assert!(r.iter().all(|c| matches!(
            c.exercise.equipment,
            Equipment::Dumbbell | Equipment::Bodyweight
        )));
    }

    #[test]
    fn a_full_gym_offers_loadable_variants_first() {
        // Before: 52 of the catalog's exercises got a band exercise as the top swap (ties broke
        // by name, and "Band …" sorts first). Now none with a loadable alternative of the same
        // movement does (cable external rotation still gets the band one: the other loadable
        // rear-delt work is another movement).
        let all = catalog().all();
        let banded: Vec<&str> = all
            .iter()
            .filter(|t| load_ratio(t.equipment).is_some())
            .filter(|t| {
                let r = rank(
                    t,
                    all,
                    &SwapQuery::default(),
                    &Profile::default(),
                    &HashMap::new(),
                );
                r.first().is_some_and(|c| {
                    c.exercise.equipment == Equipment::Band
                        && r.iter().any(|o| {
                            load_ratio(o.exercise.equipment).is_some()
                                && o.exercise.movement_pattern == t.movement_pattern
                        })
                })
            })
            .map(|t| t.id.as_str())
            .collect();
        assert!(banded.is_empty(), "{banded:?}");
        let t = catalog().get("triceps-pushdown").unwrap();
        let r = rank(
            t,
            all,
            &SwapQuery::default(),
            &Profile::default(),
            &HashMap::new(),
        );
        assert_ne!(r[0].exercise.equipment, Equipment::Band, "{:?}", names(&r));
    }

    #[test]
    fn a_hinge_finds_hinges_across_equipment() {
        let rdl = catalog().get("romanian-deadlift").unwrap();
        let q = SwapQuery {
            constraint: parse_constraint("cable"),
            ..SwapQuery::default()
        };
        let r = rank(
            rdl,
            catalog().all(),
            &q,
            &Profile::default(),
            &HashMap::new(),
        );
        assert_eq!(
            names(&r).first().map(String::as_str),
            Some("cable-pull-through")
        );
        // Without a constraint the barbell and dumbbell hinges come first, a good morning among
        // them.
        let r = rank(
            rdl,
            catalog().all(),
            &SwapQuery::default(),
            &Profile::default(),
            &HashMap::new(),
        );
        assert!(
            names(&r[..5]).contains(&"good-morning".to_string()),
            "{:?}",
            names(&r)
        );
    }

    #[test]
    fn muscle_filter_and_constraint_parsing() {
        assert_eq!(parse_constraint("Cables"), Some(&[Equipment::Cable][..]));
        assert_eq!(parse_constraint("trampoline"), None);
        assert_eq!(
            MuscleFilter::parse("back"),
            Some(MuscleFilter::Group(MuscleGroup::Back))
        );
        assert_eq!(
            MuscleFilter::parse("upper chest"),
            Some(MuscleFilter::Muscle(Muscle::UpperChest))
        );
        let row = catalog().get("barbell-row").unwrap();
        let q = SwapQuery {
            muscle: MuscleFilter::parse("lats"),
            ..SwapQuery::default()
        };
        let r = rank(
            row,
            catalog().all(),
            &q,
            &Profile::default(),
            &HashMap::new(),
        );
        assert!(
            r.iter()
                .all(|c| c.exercise.primary_muscles.contains(&Muscle::Lats))
        );
    }

    #[test]
    fn unknown_targets_suggest_close_names() {
        let e = resolve_target("bench pres machine thing", &[]).unwrap_err();
        assert!(e.contains("did you mean") || e.contains("could be"), "{e}");
        assert!(
            resolve_target("zzzz qqqq", &[])
                .unwrap_err()
                .contains("no exercise")
        );
    }
}
