//! Starting and completing workouts. A started workout gets its planned weights from the
//! SUGGEST_WEIGHT logic (so it progresses on what the lifter actually did last time, not on the
//! old plan) and a warm-up ramp for heavy compounds.

use chrono::{DateTime, Utc};

use super::suggest::{DEFAULT_TARGET_RIR, step_for, suggest_weight};
use crate::analysis::progression::{RepTarget, prescribe};
use crate::domain::catalog::{Exercise, catalog};
use crate::domain::limits::{self, LimitError};
use crate::domain::plan::{Routine, Template, TemplateExercise, TemplateSet};
use crate::domain::profile::Profile;
use crate::domain::warmup;
use crate::domain::workout::{
    ExerciseInstance, MAX_REST_SECONDS, RestPlan, RestSource, SetTarget, SetType, Workout,
    WorkoutSet, WorkoutStatus,
};
use crate::skills::monitor::median_rest;

/// Sets and reps of an ad hoc exercise given without them.
pub const DEFAULT_SETS: u32 = 3;
pub const DEFAULT_REPS: u32 = 8;

/// An exercise of an ad hoc start: catalog id or name, with optional sets, reps and RIR.
#[derive(Debug, Clone, PartialEq)]
pub struct AdhocExercise {
    pub exercise: &'static Exercise,
    pub sets: u32,
    pub reps: u32,
    pub rir: u32,
    /// Exercises sharing a group are a superset.
    pub group: Option<String>,
}

/// A workout id that sorts by time and does not collide between two starts in one second.
pub(crate) fn new_workout_id(now: DateTime<Utc>) -> String {
    format!(
        "w-{}-{:04x}",
        now.format("%Y%m%d%H%M%S"),
        now.timestamp_subsec_micros() & 0xffff
    )
}

/// Builds the workout for a template: planned weights from history, ramps for heavy compounds.
pub fn from_template(
    template: &Template,
    routine: Option<&Routine>,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
) -> Workout {
    let exercises = template
        .exercises
        .iter()
        .enumerate()
        .map(|(i, te)| plan_exercise(i, te, history, profile, now))
        .collect();
    Workout {
        current_exercise: None,
        id: new_workout_id(now),
        name: template.name.clone(),
        status: WorkoutStatus::Active,
        started_at: now,
        completed_at: None,
        template_id: Some(template.id.clone()),
        routine_id: routine.map(|r| r.id.clone()),
        exercises,
        changes: Vec::new(),
        notes: None,
        bodyweight_kg: profile.bodyweight_kg,
    }
}

/// An ad hoc workout, empty or with the exercises given.
pub fn adhoc(
    name: &str,
    exercises: &[AdhocExercise],
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
) -> Workout {
    let template = Template {
        id: String::new(),
        name: name.to_string(),
        exercises: exercises
            .iter()
            .map(|a| TemplateExercise {
                group: a.group.clone(),
                rest_seconds: None,
                exercise_id: a.exercise.id.clone(),
                name: a.exercise.name.clone(),
                sets: (0..a.sets)
                    .map(|_| TemplateSet {
                        set_type: SetType::Working,
                        target: SetTarget {
                            reps: Some(a.reps),
                            weight_kg: None,
                            rir: Some(a.rir),
                        },
                    })
                    .collect(),
                rep_range: None,
            })
            .collect(),
    };
    let mut w = from_template(&template, None, history, profile, now);
    w.template_id = None;
    w
}

fn plan_exercise(
    index: usize,
    te: &TemplateExercise,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
) -> ExerciseInstance {
    let ex = catalog().get(&te.exercise_id);
    let instance_id = format!("e{}-{}", index + 1, te.exercise_id);
    let mut sets: Vec<WorkoutSet> = Vec::new();
    let has_warmups = te.sets.iter().any(|s| s.set_type == SetType::Warmup);
    let mut first_working: Option<(f64, u32)> = None;
    for ts in &te.sets {
        let mut target = ts.target.clone();
        if ts.set_type != SetType::Warmup {
            let reps = target.reps.unwrap_or(DEFAULT_REPS);
            let rir = target.rir.unwrap_or(DEFAULT_TARGET_RIR);
            let rep_target = te
                .rep_range
                .map_or(RepTarget::fixed(reps, rir), |(low, high)| {
                    RepTarget::range(low, high, rir)
                });
            // History beats the old plan: the progression model's next load and reps. Without
            // history the plan's own weight stays, and only an empty plan gets an estimate.
            if let Some(p) = prescribe(history, &te.exercise_id, ex, rep_target, profile, now) {
                // Bodyweight alone (or no assistance) is no weight to load.
                let bodyweight_only =
                    p.weight_kg <= 0.0 && ex.is_some_and(|e| e.loading.uses_bodyweight());
                target.weight_kg = (!bodyweight_only).then_some(p.weight_kg);
                target.reps = Some(p.reps);
            } else if target.weight_kg.is_none() {
                let s = suggest_weight(
                    &te.exercise_id,
                    ex,
                    rep_target.low,
                    rir,
                    history,
                    profile,
                    now,
                );
                if s.weight_kg > 0.0 {
                    target.weight_kg = Some(s.weight_kg);
                }
            }
            if first_working.is_none() {
                first_working = target
                    .weight_kg
                    .map(|kg| (kg, target.reps.unwrap_or(DEFAULT_REPS)));
            }
        }
        sets.push(WorkoutSet::planned(String::new(), ts.set_type, target));
    }
    if !has_warmups
        && let (Some(ex), Some((kg, reps))) = (ex, first_working)
        && ex.compound
        && kg >= warmup::HEAVY_COMPOUND_KG
    {
        sets.splice(0..0, warmup_sets(kg, reps, ex, profile));
    }
    for (n, s) in sets.iter_mut().enumerate() {
        s.id = format!("{instance_id}-s{}", n + 1);
    }
    // The rest the template gives, else the lifter's own median on the exercise.
    let rest = te
        .rest_seconds
        .map(|seconds| RestPlan {
            seconds,
            source: RestSource::Template,
        })
        .or_else(|| {
            median_rest(history, &te.exercise_id).map(|d| RestPlan {
                seconds: d.num_seconds().clamp(0, i64::from(MAX_REST_SECONDS)) as u32,
                source: RestSource::YourMedian,
            })
        });
    ExerciseInstance {
        group: te.group.clone(),
        rest,
        instance_id,
        exercise_id: te.exercise_id.clone(),
        name: te.name.clone(),
        sets,
        notes: None,
        rep_range: te.rep_range,
        primary_muscles: Vec::new(),
    }
}

/// An exercise added to a running workout.
#[derive(Debug, Clone, PartialEq)]
pub struct Addition<'a> {
    pub exercise: &'a Exercise,
    pub sets: u32,
    pub reps: u32,
    pub rir: u32,
    /// The lifter's or coach's weight; otherwise planned from history like a started workout.
    pub weight_kg: Option<f64>,
    /// `Some(true)`: a warm-up ramp (none under 30 kg); `Some(false)`: none; `None`: the
    /// start-of-workout rule (heavy compounds only).
    pub warmup: Option<bool>,
}

/// The workout with `add` appended after the last exercise. Returns the new instance's index.
pub fn add_exercise(
    w: &Workout,
    add: &Addition<'_>,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
) -> (Workout, usize) {
    let te = TemplateExercise {
        group: None,
        rest_seconds: None,
        exercise_id: add.exercise.id.clone(),
        name: add.exercise.name.clone(),
        sets: (0..add.sets)
            .map(|_| TemplateSet {
                set_type: SetType::Working,
                target: SetTarget {
                    reps: Some(add.reps),
                    weight_kg: add.weight_kg,
                    rir: Some(add.rir),
                },
            })
            .collect(),
        rep_range: None,
    };
    let mut inst = plan_exercise(w.exercises.len(), &te, history, profile, now);
    if let Some(kg) = add.weight_kg {
        // A weight that was asked for beats the history's.
        for s in inst
            .sets
            .iter_mut()
            .filter(|s| s.set_type == SetType::Working)
        {
            s.target.weight_kg = Some(kg);
        }
    }
    let working = inst
        .sets
        .iter()
        .find(|s| s.set_type == SetType::Working)
        .and_then(|s| Some((s.target.weight_kg?, s.target.reps.unwrap_or(DEFAULT_REPS))));
    inst.sets.retain(|s| s.set_type != SetType::Warmup);
    let wants_ramp = add.warmup.unwrap_or(
        add.exercise.compound && working.is_some_and(|(kg, _)| kg >= warmup::HEAVY_COMPOUND_KG),
    );
    if let (true, Some((kg, reps))) = (wants_ramp, working) {
        inst.sets
            .splice(0..0, warmup_sets(kg, reps, add.exercise, profile));
    }
    // Instance ids stay unique even after exercises were removed or swapped.
    let mut n = w.exercises.len() + 1;
    while w
        .exercises
        .iter()
        .any(|e| e.instance_id == format!("e{n}-{}", add.exercise.id))
    {
        n += 1;
    }
    inst.instance_id = format!("e{n}-{}", add.exercise.id);
    for (i, s) in inst.sets.iter_mut().enumerate() {
        s.id = format!("{}-s{}", inst.instance_id, i + 1);
    }
    let mut out = w.clone();
    out.exercises.push(inst);
    let idx = out.exercises.len() - 1;
    (out, idx)
}

/// The warm-up ramp before working sets at `working_kg` (ids are given by the caller). None for
/// bodyweight work: its logged weight is a belt's plates or the assistance, not a load to ramp
/// up to, and the first easy reps are its warm-up.
fn warmup_sets(
    working_kg: f64,
    working_reps: u32,
    ex: &Exercise,
    profile: &Profile,
) -> Vec<WorkoutSet> {
    if ex.loading.uses_bodyweight() {
        return Vec::new();
    }
    warmup::ramp(
        working_kg,
        working_reps,
        step_for(Some(ex), profile),
        profile.unit,
    )
    .into_iter()
    .map(|(kg, reps)| {
        WorkoutSet::planned(
            String::new(),
            SetType::Warmup,
            SetTarget {
                reps: Some(reps),
                weight_kg: Some(kg),
                rir: None,
            },
        )
    })
    .collect()
}

/// How well a name must match one of the lifter's exercises to mean it ("curls" for their
/// "Hammer Curl"); the copilot holds the workout's exercises to it too.
pub(crate) const FAMILIAR_NAME_SCORE: f64 = 0.72;

/// The exercise `text` names for a lifter whose history is `history`: the catalog's match, or,
/// where the name fits several ("curls"), the one the lifter has done that it matches, in the
/// most sessions. Otherwise a message that lists candidates by name and id, to choose from.
pub fn resolve_for(text: &str, history: &[Workout]) -> Result<&'static Exercise, String> {
    use crate::domain::catalog::{Resolution, search_score_of};
    let listed = |c: &[&Exercise]| {
        c.iter()
            .map(|e| format!("{} ({})", e.name, e.id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let resolved = catalog().resolve(text);
    if let Some(e) = resolved.exercise() {
        return Ok(e);
    }
    let mut done: Vec<(&str, usize)> = Vec::new();
    for w in history {
        let mut seen = std::collections::HashSet::new();
        for x in &w.exercises {
            if seen.insert(x.exercise_id.as_str())
                && search_score_of(text, &x.name) >= FAMILIAR_NAME_SCORE
            {
                match done.iter_mut().find(|(id, _)| *id == x.exercise_id) {
                    Some((_, n)) => *n += 1,
                    None => done.push((x.exercise_id.as_str(), 1)),
                }
            }
        }
    }
    let familiar = done
        .iter()
        .filter_map(|(id, n)| catalog().get(id).map(|e| (*n, e)))
        .max_by_key(|(n, _)| *n);
    if let Some((_, e)) = familiar {
        return Ok(e);
    }
    Err(match resolved {
        Resolution::Unsure { candidates } => format!(
            "'{text}' could be {}; call again with one of these ids",
            listed(&candidates)
        ),
        _ => {
            let close = catalog().closest(text, 3);
            if close.is_empty() {
                format!("no exercise '{text}'; use exercise_search")
            } else {
                format!("no exercise '{text}'; did you mean {}?", listed(&close))
            }
        }
    })
}

/// Checks a workout about to be stored against the contract's limits.
pub fn validate(w: &Workout) -> Result<(), LimitError> {
    limits::check_count(
        "exercises",
        w.exercises.len(),
        limits::MAX_EXERCISES_PER_WORKOUT,
    )?;
    w.validate()
}

/// The workout as completed now.
pub fn completed(w: &Workout, now: DateTime<Utc>) -> Workout {
    let mut done = w.clone();
    done.status = WorkoutStatus::Completed;
    done.completed_at = Some(now);
    done
}

/// A template of `w` (`POST /v1/workouts/{id}/template`): each exercise with its working sets
/// as they were prescribed (a set added with no target: as it was done); skipped sets and
/// warm-ups are left out
/// (starting the template adds its own warm-ups), and so are loads (the progression plans them
/// from the history when it starts). An exercise with no working set left is dropped.
pub fn template_of(w: &Workout, id: &str, name: &str) -> crate::domain::plan::Template {
    use crate::domain::plan::{Template, TemplateExercise, TemplateSet};
    use crate::domain::workout::{SetStatus, SetTarget, SetType};
    let exercises = w
        .exercises
        .iter()
        .filter_map(|e| {
            let sets: Vec<TemplateSet> = e
                .sets
                .iter()
                .filter(|s| s.set_type != SetType::Warmup && s.status != SetStatus::Skipped)
                .map(|s| {
                    // What was prescribed, not what happened (a failed last set must not
                    // become the plan); a set added without a target keeps what was done.
                    let done = s.actual.as_ref().filter(|_| s.status == SetStatus::Done);
                    TemplateSet {
                        set_type: s.set_type,
                        target: SetTarget {
                            reps: s.target.reps.or(done.map(|a| a.reps).filter(|r| *r > 0)),
                            weight_kg: None,
                            rir: s.target.rir.or(done.and_then(|a| a.rir)),
                        },
                    }
                })
                .collect();
            (!sets.is_empty()).then(|| TemplateExercise {
                exercise_id: e.exercise_id.clone(),
                name: e.name.clone(),
                sets,
                rep_range: e.rep_range,
                group: e.group.clone(),
                rest_seconds: e.rest.as_ref().map(|r| r.seconds),
            })
        })
        .collect();
    Template {
        id: id.to_string(),
        name: name.to_string(),
        exercises,
    }
}

/// The routine with its next day moved past the day `template_id` trained.
pub fn advance_routine(routine: &Routine, template_id: &str) -> Routine {
    let mut r = routine.clone();
    if r.days.is_empty() {
        return r;
    }
    let len = r.days.len();
    // The completed day is the first one at or after next_day with this template.
    let done = (0..len)
        .map(|k| (r.next_day + k) % len)
        .find(|&i| r.days[i].template_id == template_id);
    if let Some(i) = done {
        r.next_day = (i + 1) % len;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::plan::RoutineDay;
    use crate::domain::workout::{SetResult, SetStatus};
    use chrono::Duration;

    fn template() -> Template {
        let set = |reps| TemplateSet {
            set_type: SetType::Working,
            target: SetTarget {
                reps: Some(reps),
                weight_kg: Some(80.0),
                rir: Some(2),
            },
        };
        Template {
            id: "t-push".into(),
            name: "Push".into(),
            exercises: vec![
                TemplateExercise {
                    group: None,
                    rest_seconds: None,
                    exercise_id: "barbell-bench-press".into(),
                    name: "Bench Press".into(),
                    sets: vec![set(8), set(8)],
                    rep_range: Some((6, 8)),
                },
                TemplateExercise {
                    group: None,
                    rest_seconds: None,
                    exercise_id: "lateral-raise".into(),
                    name: "Lateral Raise".into(),
                    sets: vec![set(12)],
                    rep_range: None,
                },
            ],
        }
    }

    fn last_time(kg: f64, reps: u32, rir: u32) -> Workout {
        let mut s = WorkoutSet::planned("x", SetType::Working, SetTarget::default());
        s.status = SetStatus::Done;
        s.actual = Some(SetResult {
            reps,
            weight_kg: Some(kg),
            rir: Some(rir),
            rpe: None,
            failure: false,
            ..Default::default()
        });
        Workout {
            current_exercise: None,
            bodyweight_kg: None,
            id: "old".into(),
            name: "Push".into(),
            status: WorkoutStatus::Completed,
            started_at: Utc::now() - Duration::days(4),
            completed_at: None,
            template_id: Some("t-push".into()),
            routine_id: None,
            exercises: vec![ExerciseInstance {
                group: None,
                rest: None,
                instance_id: "i".into(),
                exercise_id: "barbell-bench-press".into(),
                name: "Bench Press".into(),
                sets: vec![s],
                notes: None,
                rep_range: None,
                primary_muscles: Vec::new(),
            }],
            changes: vec![],
            notes: None,
        }
    }

    #[test]
    fn curls_are_the_lifters_usual_curl_or_a_choice_to_make() {
        // What a model asked in a workout to "add curls" sends (Qwen2.5-Coder-1.5B did).
        let err = resolve_for("curls", &[]).unwrap_err();
        // The common curls first (it listed EZ bar, lying leg, rope hammer, band and cable
        // curls, and Qwen 1.5B gave up on the list).
        assert!(
            err.contains("could be Barbell Curl (barbell-curl), EZ Bar Curl (ez-bar-curl), Dumbbell Curl (dumbbell-curl)"),
            "{err}"
        );
        assert!(!err.contains("Leg Curl"), "{err}");
        let mut hammer = last_time(14.0, 12, 2);
        hammer.exercises[0].exercise_id = "hammer-curl".into();
        hammer.exercises[0].name = "Hammer Curl".into();
        assert_eq!(
            resolve_for("curls", &[hammer]).map(|e| e.id.as_str()),
            Ok("hammer-curl")
        );
        assert_eq!(
            resolve_for("bench press", &[]).map(|e| e.id.as_str()),
            Ok("barbell-bench-press")
        );
        assert!(resolve_for("zzzz", &[]).is_err());
    }

    #[test]
    fn planned_weights_follow_what_was_achieved_not_the_old_plan() {
        // Last time 100 × 8 with 4 in reserve, while the plan still says 80.
        let h = vec![last_time(100.0, 8, 4)];
        let w = from_template(&template(), None, &h, &Profile::default(), Utc::now());
        let bench = &w.exercises[0];
        let working: Vec<f64> = bench
            .sets
            .iter()
            .filter(|s| s.set_type == SetType::Working)
            .map(|s| s.target.weight_kg.unwrap())
            .collect();
        // e1RM 100 × (1 + 12/30) = 140; 8 at RIR 2 = 105, within +5 kg of the best 8.
        assert_eq!(working, vec![105.0, 105.0]);
        // Heavy compound: a ramp first, from the empty bar up to 80 % for sets of 7 (the reps
        // every set is planned at), the reps tapering.
        let warm: Vec<(f64, u32)> = bench
            .sets
            .iter()
            .filter(|s| s.set_type == SetType::Warmup)
            .map(|s| (s.target.weight_kg.unwrap(), s.target.reps.unwrap()))
            .collect();
        assert_eq!(
            warm,
            vec![(20.0, 7), (42.5, 5), (57.5, 3), (72.5, 2), (85.0, 1)]
        );
        // Isolation without history keeps the plan's weight and gets no ramp.
        let raise = &w.exercises[1];
        assert_eq!(raise.sets.len(), 1);
        assert_eq!(raise.sets[0].target.weight_kg, Some(80.0));
        // Ids are unique and stable in shape.
        assert_eq!(bench.sets[0].id, "e1-barbell-bench-press-s1");
    }

    #[test]
    fn bodyweight_work_gets_no_warm_up_ramp() {
        // 40 kg on the belt is heavy, but a ramp of 20/26/32 kg belts is no warm-up.
        let mut last = last_time(40.0, 5, 2);
        last.exercises[0].exercise_id = "weighted-pull-up".into();
        last.bodyweight_kg = Some(80.0);
        let mut t = template();
        t.exercises[0].exercise_id = "weighted-pull-up".into();
        let profile = Profile {
            bodyweight_kg: Some(80.0),
            ..Profile::default()
        };
        let w = from_template(&t, None, &[last], &profile, Utc::now());
        assert_eq!(w.bodyweight_kg, Some(80.0));
        let sets = &w.exercises[0].sets;
        assert!(
            sets.iter().all(|s| s.set_type == SetType::Working),
            "{sets:?}"
        );
        assert!(sets[0].target.weight_kg.is_some_and(|kg| kg > 0.0));
    }

    #[test]
    fn routine_advances_past_the_completed_day() {
        let day = |t: &str| RoutineDay {
            label: t.into(),
            template_id: t.into(),
        };
        let r = Routine {
            id: "r".into(),
            name: "PPL".into(),
            days: vec![day("push"), day("pull"), day("legs")],
            next_day: 2,
        };
        assert_eq!(advance_routine(&r, "legs").next_day, 0);
        assert_eq!(advance_routine(&r, "push").next_day, 1);
        assert_eq!(advance_routine(&r, "other").next_day, 2);
    }
}
