//! One workout's numbers: volume, hard sets per group, per-exercise tops, and the personal
//! records it set against everything before it.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use chrono_tz::Tz;
use serde::Serialize;

use super::facts::{VolumeGroup, group_credits, hard_set_credit, local_date, volume_kg};
use crate::domain::catalog::{Loading, catalog};
use crate::domain::strength::{
    Lift, MAX_E1RM_REPS, e1rm_confidence, effective_rir, is_rated, is_working_result, round1,
    set_e1rm,
};
use crate::domain::workout::{ExerciseInstance, Workout, WorkoutSet};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExerciseSession {
    pub exercise_id: String,
    pub name: String,
    pub sets: u32,
    pub hard_sets: f64,
    pub volume_kg: f64,
    pub top_weight_kg: Option<f64>,
    pub best_e1rm_kg: Option<f64>,
    pub e1rm_confidence: Option<f64>,
    pub avg_rir: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionSummary {
    pub workout_id: String,
    pub date: NaiveDate,
    pub duration_min: Option<i64>,
    pub sets: u32,
    pub hard_sets: f64,
    pub volume_kg: f64,
    /// Hard sets per group (primary 1.0, secondary 0.5), largest first.
    pub hard_sets_by_group: Vec<(VolumeGroup, f64)>,
    pub exercises: Vec<ExerciseSession>,
}

/// The display name of an exercise: the catalog's, else what the lifter called it.
pub fn exercise_name(e: &ExerciseInstance) -> String {
    catalog()
        .get(&e.exercise_id)
        .map_or_else(|| e.name.clone(), |c| c.name.clone())
}

/// One exercise's working sets in a workout (all its instances together).
fn exercise_session(w: &Workout, exercise_id: &str) -> Option<ExerciseSession> {
    let instances: Vec<&ExerciseInstance> = w
        .exercises
        .iter()
        .filter(|e| e.exercise_id == exercise_id)
        .collect();
    let sets: Vec<_> = instances
        .iter()
        .flat_map(|e| e.sets.iter())
        .filter(|s| is_working_result(s))
        .collect();
    let first = instances.first()?;
    if sets.is_empty() {
        return None;
    }
    let lift = Lift::in_workout(w, exercise_id);
    // The best e1RM with the rep count Epley saw (reps plus reserve), which is what its
    // confidence depends on.
    let best = sets
        .iter()
        .filter_map(|s| {
            let r = s.actual.as_ref()?;
            let seen = (r.reps + effective_rir(r).unwrap_or(0)).min(MAX_E1RM_REPS);
            Some((set_e1rm(s, lift)?, seen))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let rirs: Vec<u32> = sets
        .iter()
        .filter_map(|s| s.actual.as_ref().and_then(effective_rir))
        .collect();
    Some(ExerciseSession {
        exercise_id: exercise_id.to_string(),
        name: exercise_name(first),
        sets: sets.len() as u32,
        hard_sets: sets.iter().map(|s| hard_set_credit(s)).sum(),
        volume_kg: sets.iter().map(|s| volume_kg(s, lift)).sum(),
        top_weight_kg: sets
            .iter()
            .filter_map(|s| s.actual.as_ref().filter(|r| r.reps > 0)?.weight_kg)
            .reduce(f64::max),
        best_e1rm_kg: best.map(|b| round1(b.0)),
        e1rm_confidence: best.and_then(|b| e1rm_confidence(b.1)),
        avg_rir: (!rirs.is_empty())
            .then(|| round1(f64::from(rirs.iter().sum::<u32>()) / rirs.len() as f64)),
    })
}

/// The distinct exercise ids of a workout in the order first done.
pub fn exercise_ids(w: &Workout) -> Vec<&str> {
    let mut ids: Vec<&str> = Vec::new();
    for e in &w.exercises {
        if !ids.contains(&e.exercise_id.as_str()) {
            ids.push(&e.exercise_id);
        }
    }
    ids
}

pub fn summarise(w: &Workout, tz: Tz) -> SessionSummary {
    let exercises: Vec<ExerciseSession> = exercise_ids(w)
        .into_iter()
        .filter_map(|id| exercise_session(w, id))
        .collect();
    // Per group, the sets the volume landmarks count (direct sets of primary movers).
    let mut groups: BTreeMap<VolumeGroup, f64> = BTreeMap::new();
    for (g, c) in w.exercises.iter().flat_map(group_credits) {
        *groups.entry(g).or_default() += c;
    }
    let mut by_group: Vec<(VolumeGroup, f64)> = groups.into_iter().collect();
    by_group.sort_by(|a, b| b.1.total_cmp(&a.1));
    SessionSummary {
        workout_id: w.id.clone(),
        date: local_date(w.started_at, tz),
        duration_min: w
            .completed_at
            .map(|c| (c - w.started_at).num_minutes())
            .filter(|m| *m > 0),
        sets: exercises.iter().map(|e| e.sets).sum(),
        hard_sets: exercises.iter().map(|e| e.hard_sets).sum(),
        volume_kg: exercises.iter().map(|e| e.volume_kg).sum(),
        hard_sets_by_group: by_group,
        exercises,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PrKind {
    /// The best estimated one-rep max, compared only between like sets: effort logged with
    /// effort logged, unlogged with unlogged (an RPE of 8 on a set makes its e1RM higher than
    /// the same set unrated, and starting to log RPE is not getting stronger).
    E1rm,
    /// The heaviest load ever lifted, at any reps.
    Heaviest,
    /// The heaviest load ever lifted for exactly this many reps.
    RepMax { reps: u32 },
    /// The most load × reps in one set.
    SetVolume,
    /// The most reps in one set without load (bodyweight work).
    MostReps,
    /// The least assistance on an assisted exercise (the value is the assistance: lower is
    /// better).
    LeastAssistance,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pr {
    pub exercise_id: String,
    pub name: String,
    #[serde(flatten)]
    pub kind: PrKind,
    /// Kilograms, or reps for [`PrKind::MostReps`]. Heaviest and rep records of bodyweight
    /// work are the added weight; its e1RM is on the load moved (bodyweight included).
    pub value: f64,
    pub previous: f64,
}

/// An exercise's bests over some sets.
#[derive(Debug, Default)]
struct Marks {
    any: bool,
    /// Best e1RM of sets without and with effort logged.
    e1rm: [Option<f64>; 2],
    heaviest: Option<f64>,
    rep_max: BTreeMap<u32, f64>,
    set_volume: Option<f64>,
    most_reps: Option<u32>,
    least_assistance: Option<f64>,
}

fn best(slot: &mut Option<f64>, v: f64) {
    *slot = Some(slot.map_or(v, |b| b.max(v)));
}

impl Marks {
    /// External loads: e1RM, heaviest, rep bests and set volume on the weight; sets without
    /// one count reps. Bodyweight work: e1RM on the load moved (when the bodyweight is known),
    /// heaviest and rep bests on the added weight, reps when nothing is added (set volume would
    /// grow with the bodyweight alone). Assisted work: e1RM on the load moved, and the least
    /// assistance.
    fn of<'a>(sets: impl Iterator<Item = (&'a WorkoutSet, Lift)>) -> Marks {
        let mut m = Marks::default();
        for (s, lift) in sets.filter(|(s, _)| is_working_result(s)) {
            let Some(r) = s.actual.as_ref().filter(|r| r.reps > 0) else {
                continue;
            };
            m.any = true;
            if let Some(e) = set_e1rm(s, lift) {
                best(&mut m.e1rm[usize::from(is_rated(r))], e);
            }
            let logged = r.weight_kg.filter(|w| *w > 0.0);
            match (lift.loading, logged) {
                (Loading::Assisted { .. }, Some(help)) => {
                    m.least_assistance = Some(m.least_assistance.map_or(help, |b| b.min(help)));
                }
                (Loading::Assisted { .. }, None) => {}
                (loading, Some(kg)) => {
                    best(&mut m.heaviest, kg);
                    let at = m.rep_max.entry(r.reps).or_insert(kg);
                    *at = at.max(kg);
                    if loading == Loading::External {
                        best(&mut m.set_volume, kg * f64::from(r.reps));
                    }
                }
                (_, None) => m.most_reps = Some(m.most_reps.map_or(r.reps, |b| b.max(r.reps))),
            }
        }
        m
    }
}

fn sets_of<'a>(w: &'a Workout, id: &'a str) -> impl Iterator<Item = (&'a WorkoutSet, Lift)> {
    let lift = Lift::in_workout(w, id);
    w.exercises
        .iter()
        .filter(move |e| e.exercise_id == id)
        .flat_map(move |e| e.sets.iter().map(move |s| (s, lift)))
}

/// The records `w` set against `prior` (the workouts before it). An exercise done for the first
/// time sets no records (a first session is a baseline, not a PR), and neither does a kind of
/// mark seen for the first time (the first rated set, the first set of 3).
pub fn personal_records(w: &Workout, prior: &[Workout]) -> Vec<Pr> {
    let mut out = Vec::new();
    let earlier: Vec<&Workout> = prior
        .iter()
        .filter(|p| p.id != w.id && p.started_at < w.started_at)
        .collect();
    for id in exercise_ids(w) {
        let now = Marks::of(sets_of(w, id));
        let then = Marks::of(earlier.iter().flat_map(|p| sets_of(p, id)));
        if !now.any || !then.any {
            continue;
        }
        let name = w
            .exercises
            .iter()
            .find(|e| e.exercise_id == id)
            .map(exercise_name)
            .unwrap_or_default();
        let mut push = |kind, value: Option<f64>, previous: Option<f64>| {
            if let (Some(v), Some(p)) = (value, previous)
                && v > p + 1e-9
            {
                out.push(Pr {
                    exercise_id: id.to_string(),
                    name: name.clone(),
                    kind,
                    value: round1(v),
                    previous: round1(p),
                });
            }
        };
        // The better of the two kinds of e1RM, each against its own kind.
        let e1rm = (0..2)
            .filter_map(|k| Some((now.e1rm[k]?, then.e1rm[k]?)))
            .filter(|(v, p)| v > p)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        push(PrKind::E1rm, e1rm.map(|x| x.0), e1rm.map(|x| x.1));
        push(PrKind::Heaviest, now.heaviest, then.heaviest);
        for (reps, kg) in &now.rep_max {
            // A heaviest-ever load is already its own rep record.
            if now.heaviest == Some(*kg) && then.heaviest.is_some_and(|h| *kg > h) {
                continue;
            }
            // By dominance: a record only when no earlier set moved as much for as many reps
            // (95 × 3 is no record after 100 × 5). Never done this many reps: a baseline.
            let beaten = then
                .rep_max
                .range(reps..)
                .map(|(_, kg)| *kg)
                .fold(None, |m: Option<f64>, kg| Some(m.map_or(kg, |m| m.max(kg))));
            push(PrKind::RepMax { reps: *reps }, Some(*kg), beaten);
        }
        push(PrKind::SetVolume, now.set_volume, then.set_volume);
        push(
            PrKind::MostReps,
            now.most_reps.map(f64::from),
            then.most_reps.map(f64::from),
        );
        // Lower is better: compared negated, reported as the assistance.
        if let (Some(v), Some(p)) = (now.least_assistance, then.least_assistance)
            && v < p - 1e-9
        {
            out.push(Pr {
                exercise_id: id.to_string(),
                name: name.clone(),
                kind: PrKind::LeastAssistance,
                value: round1(v),
                previous: round1(p),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::testkit::{session, working};
    use crate::domain::workout::SetType;

    #[test]
    fn a_session_adds_up_its_sets() {
        let mut w = session(
            1,
            "barbell-bench-press",
            &[
                working(100.0, 8, Some(8), Some(2)),
                working(100.0, 8, Some(8), Some(1)),
                working(100.0, 6, Some(8), Some(4)),
            ],
        );
        let mut warm = working(60.0, 8, None, None);
        warm.set_type = SetType::Warmup;
        w.exercises[0].sets.insert(0, warm);
        w.completed_at = Some(w.started_at + chrono::Duration::minutes(55));
        let s = summarise(&w, chrono_tz::UTC);
        // 800 + 800 + 600; hard sets 1 + 1 + 0.5; the warm-up counts for nothing.
        assert_eq!((s.sets, s.volume_kg, s.hard_sets), (3, 2200.0, 2.5));
        assert_eq!(s.duration_min, Some(55));
        // By group, as the landmarks count: three chest sets (all within 4 RIR), and half a set
        // each for the secondary triceps (the secondary front delts count for nothing).
        assert_eq!(
            s.hard_sets_by_group,
            vec![(VolumeGroup::Chest, 3.0), (VolumeGroup::Triceps, 1.5)]
        );
        let e = &s.exercises[0];
        // Best e1RM: 100 × 8 at RIR 2 is a 10-rep max: 100 × (1 + 10/30) = 133.3; the 6 at
        // RIR 4 is also 10 → 133.3; confidence of an 8-rep set 0.8.
        assert_eq!(
            (e.best_e1rm_kg, e.e1rm_confidence),
            (Some(133.3), Some(0.8))
        );
        assert_eq!((e.top_weight_kg, e.avg_rir), (Some(100.0), Some(2.3)));
    }

    #[test]
    fn records_beat_what_came_before() {
        let before = session(1, "back-squat", &vec![working(140.0, 5, None, Some(2)); 3]);
        // Today: 145 × 5 (new 5RM and e1RM), 140 × 3 (no 3RM before: not a record).
        let today = session(
            8,
            "back-squat",
            &[
                working(145.0, 5, None, Some(2)),
                working(145.0, 5, None, Some(2)),
                working(140.0, 3, None, Some(3)),
            ],
        );
        let prs = personal_records(&today, std::slice::from_ref(&before));
        let kinds: Vec<PrKind> = prs.iter().map(|p| p.kind).collect();
        // e1RM: 145 × (1 + 7/30) = 178.8 against 140 × 7/30 → 172.7; the heaviest set 145
        // over 140 (the 5-rep best at the same load is not listed twice); the best set volume
        // 725 over 700. No 3-rep best before: none now.
        assert_eq!(
            kinds,
            [PrKind::E1rm, PrKind::Heaviest, PrKind::SetVolume],
            "{prs:?}"
        );
        assert_eq!((prs[0].value, prs[0].previous), (178.8, 172.7));
        assert_eq!((prs[2].value, prs[2].previous), (725.0, 700.0));
        // 140 × 3: a first 3-rep set is no 3-rep record, and nothing else is beaten.
        let more = session(8, "back-squat", &[working(140.0, 3, None, Some(1))]);
        assert!(personal_records(&more, std::slice::from_ref(&before)).is_empty());
        // The first session of an exercise is a baseline.
        assert!(personal_records(&before, &[]).is_empty());
        // A workout is never compared with itself or later ones.
        assert!(personal_records(&before, &[before.clone(), today.clone()]).is_empty());
    }

    #[test]
    fn a_rep_record_beats_every_earlier_set_with_as_many_reps() {
        // The reported inflation: 95 × 3 was a 3-rep record after 100 × 5.
        let before = session(1, "back-squat", &[working(100.0, 5, None, None)]);
        let three = session(8, "back-squat", &[working(95.0, 3, None, None)]);
        assert!(personal_records(&three, std::slice::from_ref(&before)).is_empty());
        // 102.5 × 3 beats every earlier set of three or more (the 100 × 5): a record, and the
        // previous is that 100.
        let more = session(
            8,
            "back-squat",
            &[working(102.5, 3, None, None), working(90.0, 4, None, None)],
        );
        let prs = personal_records(&more, std::slice::from_ref(&before));
        let reps: Vec<(PrKind, f64, f64)> = prs
            .iter()
            .filter(|p| matches!(p.kind, PrKind::RepMax { .. }))
            .map(|p| (p.kind, p.value, p.previous))
            .collect();
        assert!(
            reps.is_empty(),
            "the heaviest-ever load is its own record: {reps:?}"
        );
        assert!(prs.iter().any(|p| p.kind == PrKind::Heaviest));
        // Six reps never done before: 90 × 6 after 100 × 5 is a baseline, not a record.
        let six = session(8, "back-squat", &[working(90.0, 6, None, None)]);
        assert!(
            !personal_records(&six, std::slice::from_ref(&before))
                .iter()
                .any(|p| matches!(p.kind, PrKind::RepMax { .. }))
        );
        // 95 × 4 after 90 × 4 and 100 × 5 (dominates it): no record; after only 90 × 4: one.
        let fours = session(2, "back-squat", &[working(90.0, 4, None, None)]);
        let today = session(9, "back-squat", &[working(95.0, 4, None, None)]);
        assert!(
            !personal_records(&today, &[before.clone(), fours.clone()])
                .iter()
                .any(|p| matches!(p.kind, PrKind::RepMax { .. }))
        );
        // After a heavy single and the 90 × 4: a 4-rep record over the 90.
        let single = session(3, "back-squat", &[working(120.0, 1, None, None)]);
        let prs = personal_records(&today, &[single, fours]);
        assert!(
            prs.iter()
                .any(|p| p.kind == PrKind::RepMax { reps: 4 } && p.previous == 90.0),
            "{prs:?}"
        );
    }

    #[test]
    fn logging_effort_for_the_first_time_is_no_record() {
        // 70 × 10 unrated for weeks (e1RM 93.3), then the same 70 × 10 rated RPE 8 (RIR 2:
        // e1RM 98): rated sets are compared with rated sets only, and there were none.
        let unrated = session(1, "back-squat", &vec![working(70.0, 10, None, None); 3]);
        let rated = session(8, "back-squat", &vec![working(70.0, 10, None, Some(2)); 3]);
        assert!(personal_records(&rated, std::slice::from_ref(&unrated)).is_empty());
        // The next rated session beats the rated one: 72.5 × 10 at RIR 2.
        let better = session(15, "back-squat", &vec![working(72.5, 10, None, Some(2)); 3]);
        let prs = personal_records(&better, &[unrated, rated]);
        assert_eq!(prs[0].kind, PrKind::E1rm);
        assert_eq!((prs[0].value, prs[0].previous), (101.5, 98.0));
        // 10 reps at RIR 3 is 13 effective reps: no e1RM at all.
        assert_eq!(crate::domain::strength::e1rm(70.0, 10, Some(3)), None);
    }

    #[test]
    fn bodyweight_work_counts_reps() {
        let mut bw = working(0.0, 12, None, None);
        if let Some(r) = bw.actual.as_mut() {
            r.weight_kg = None;
        }
        let mut more = bw.clone();
        if let Some(r) = more.actual.as_mut() {
            r.reps = 15;
        }
        let before = session(1, "push-up", &[bw.clone(), bw]);
        let today = session(8, "push-up", &[more]);
        let prs = personal_records(&today, std::slice::from_ref(&before));
        assert_eq!(prs.len(), 1);
        assert_eq!(
            (prs[0].kind, prs[0].value, prs[0].previous),
            (PrKind::MostReps, 15.0, 12.0)
        );
    }

    #[test]
    fn bodyweight_records_count_the_bodyweight_and_less_help() {
        let at = |d, id: &str, kg, reps, bw: Option<f64>| {
            let mut w = session(d, id, &[working(kg, reps, None, None)]);
            w.bodyweight_kg = bw;
            w
        };
        // The same 10 kg belt for one more rep: an e1RM record on the load moved (90 kg), no
        // heaviest record, and no set-volume record that would grow with the bodyweight.
        let before = at(1, "weighted-pull-up", 10.0, 5, Some(80.0));
        let today = at(8, "weighted-pull-up", 10.0, 6, Some(80.0));
        let prs = personal_records(&today, std::slice::from_ref(&before));
        let kinds: Vec<PrKind> = prs.iter().map(|p| p.kind).collect();
        assert_eq!(kinds, vec![PrKind::E1rm], "{prs:?}");
        assert_eq!(prs[0].value, round1(90.0 * (1.0 + 6.0 / 30.0)));
        // Less assistance is the record, more is not.
        let before = at(1, "assisted-pull-up", 30.0, 8, None);
        let less = at(8, "assisted-pull-up", 25.0, 8, None);
        let prs = personal_records(&less, std::slice::from_ref(&before));
        assert_eq!(
            prs.iter()
                .map(|p| (p.kind, p.value, p.previous))
                .collect::<Vec<_>>(),
            vec![(PrKind::LeastAssistance, 25.0, 30.0)]
        );
        let more = at(8, "assisted-pull-up", 35.0, 8, None);
        assert!(personal_records(&more, std::slice::from_ref(&before)).is_empty());
    }
}
