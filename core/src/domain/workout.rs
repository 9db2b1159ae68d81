//! Workouts, exercise instances and sets. The active workout is one document with a version;
//! every command reads it, changes it in memory and writes it back on that version.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::limits::{self, LimitError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkoutStatus {
    Active,
    Completed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SetType {
    Warmup,
    #[default]
    Working,
    Dropset,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SetStatus {
    #[default]
    Planned,
    Done,
    Skipped,
}

/// What the plan asks for. Weight is absent for bodyweight work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SetTarget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reps: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_kg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rir: Option<u32>,
}

/// What the lifter did. Effort is RIR or RPE, whichever the lifter gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SetResult {
    pub reps: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_kg: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rir: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpe: Option<f64>,
    #[serde(default)]
    pub failure: bool,
    /// Time under load of a timed set (a plank, a carry, a cardio row from an import).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<u32>,
    /// Distance covered, in metres (carries, sled pushes, cardio rows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_m: Option<f64>,
    /// The lifter's note on this set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

impl SetResult {
    /// A timed or distance set: no reps, but time or distance. It is kept in the history and
    /// left out of strength volume, hard sets and e1RM.
    pub fn is_timed(&self) -> bool {
        self.reps == 0
            && !self.failure
            && (self.seconds.is_some_and(|s| s > 0) || self.distance_m.is_some_and(|d| d > 0.0))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkoutSet {
    pub id: String,
    #[serde(default)]
    pub set_type: SetType,
    #[serde(default)]
    pub status: SetStatus,
    #[serde(default)]
    pub target: SetTarget,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<SetResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<DateTime<Utc>>,
}

impl WorkoutSet {
    pub fn planned(id: impl Into<String>, set_type: SetType, target: SetTarget) -> Self {
        Self {
            id: id.into(),
            set_type,
            status: SetStatus::Planned,
            target,
            actual: None,
            completed_at: None,
        }
    }

    /// Working and drop sets count towards "set n of N"; warm-ups do not.
    pub fn is_counted(&self) -> bool {
        matches!(self.set_type, SetType::Working | SetType::Dropset)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExerciseInstance {
    pub instance_id: String,
    pub exercise_id: String,
    pub name: String,
    pub sets: Vec<WorkoutSet>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The rep range of the plan this came from (the template's), which the next prescription
    /// progresses through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rep_range: Option<(u32, u32)>,
    /// For one of the lifter's own exercises (the catalog knows the rest): the muscles its
    /// definition names, so its sets count for their groups.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub primary_muscles: Vec<super::catalog::Muscle>,
    /// A superset or circuit: the exercises sharing a group ("A") are done in rounds, one set
    /// of each in turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The rest after a set, decided when the exercise was planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<RestPlan>,
}

/// A planned rest and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestPlan {
    pub seconds: u32,
    pub source: RestSource,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RestSource {
    /// The template says so.
    Template,
    /// The lifter's own median rest on the exercise.
    YourMedian,
    /// Neither is known: a default by the kind of set.
    Default,
    /// Between the exercises of a superset's round: none.
    Superset,
}

/// One change the copilot made to a set, newest last; UNDO walks this back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetChange {
    pub set_id: String,
    pub action: SetAction,
    pub at: DateTime<Utc>,
    /// Part of the same command as the change before it ("3x8 @ 100"): undone together.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub joined: bool,
    /// What the command created, which undo removes rather than plans again.
    #[serde(default, skip_serializing_if = "Created::is_nothing")]
    pub created: Created,
}

/// What a logging command added to the workout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Created {
    #[default]
    Nothing,
    /// An extra set beyond the plan.
    Set,
    /// The exercise itself (named, and not in the workout); its set is the change's.
    Exercise,
}

impl Created {
    fn is_nothing(&self) -> bool {
        *self == Created::Nothing
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetAction {
    Logged,
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workout {
    pub id: String,
    pub name: String,
    pub status: WorkoutStatus,
    pub started_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routine_id: Option<String>,
    pub exercises: Vec<ExerciseInstance>,
    #[serde(default)]
    pub changes: Vec<SetChange>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The lifter's bodyweight when the workout was built or imported (from the profile), so
    /// that pull-ups, dips and push-ups are read at the load they moved then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bodyweight_kg: Option<f64>,
    /// The exercise the lifter is on (its instance id), when they chose one out of plan order;
    /// "next" continues from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_exercise: Option<String>,
}

/// Longest superset group label ("A", "B2", "core").
pub(crate) const MAX_GROUP_CHARS: usize = 8;
/// Longest planned rest.
pub(crate) const MAX_REST_SECONDS: u32 = 3600;

/// A superset group label: 1 to [`MAX_GROUP_CHARS`] letters or digits.
pub fn check_group(field: &'static str, group: &str) -> Result<(), LimitError> {
    if group.is_empty()
        || group.chars().count() > MAX_GROUP_CHARS
        || !group.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return Err(LimitError::invalid(
            field,
            format!("a group is 1 to {MAX_GROUP_CHARS} letters or digits, like 'A'"),
        ));
    }
    Ok(())
}

/// Where a set sits: indexes into the workout plus its "n of N" among counted sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SetPosition {
    pub exercise: usize,
    pub set: usize,
    pub number: usize,
    pub total: usize,
}

/// How many changes the undo history keeps; older ones can no longer be undone.
pub(crate) const MAX_CHANGE_HISTORY: usize = 50;

impl Workout {
    /// The set the lifter is on: the next planned working or drop set, from the current
    /// exercise (the first, unless the lifter chose one) on in plan order, wrapping round to
    /// any left behind. In a superset the group's exercises take turns, round by round.
    pub fn current_set(&self) -> Option<SetPosition> {
        let n = self.exercises.len();
        let start = self.current_index().unwrap_or(0);
        (0..n).find_map(|k| self.next_in_group((start + k) % n))
    }

    /// The index of [`Workout::current_exercise`], if it names one of the exercises.
    pub fn current_index(&self) -> Option<usize> {
        let id = self.current_exercise.as_deref()?;
        self.exercises.iter().position(|e| e.instance_id == id)
    }

    /// The indexes of the exercises in `ei`'s group, in plan order (just `ei` outside one).
    pub fn group_of(&self, ei: usize) -> Vec<usize> {
        match &self.exercises[ei].group {
            Some(g) => (0..self.exercises.len())
                .filter(|&i| self.exercises[i].group.as_ref() == Some(g))
                .collect(),
            None => vec![ei],
        }
    }

    /// The index of exercise `ei`'s next planned working or drop set.
    pub fn next_planned(&self, ei: usize) -> Option<usize> {
        self.exercises[ei]
            .sets
            .iter()
            .position(|s| s.status == SetStatus::Planned && s.is_counted())
    }

    /// How many of exercise `ei`'s working and drop sets are behind the lifter (done or skipped):
    /// its place in a superset's rounds.
    pub fn sets_behind(&self, ei: usize) -> usize {
        self.exercises[ei]
            .sets
            .iter()
            .filter(|s| s.is_counted() && s.status != SetStatus::Planned)
            .count()
    }

    /// The next set of `ei`'s group: the exercise with the fewest sets behind it in this round,
    /// turns taken in group order after the one logged last.
    fn next_in_group(&self, ei: usize) -> Option<SetPosition> {
        let members = self.group_of(ei);
        if members.len() == 1 {
            return self.next_planned(ei).map(|si| self.position(ei, si));
        }
        let last = self
            .changes
            .iter()
            .rev()
            .find_map(|c| self.find_set(&c.set_id))
            .and_then(|p| members.iter().position(|&m| m == p.exercise));
        let turn = |k: usize| match last {
            Some(l) => (k + members.len() - l - 1) % members.len(),
            None => k,
        };
        members
            .iter()
            .enumerate()
            .filter(|&(_, &m)| self.next_planned(m).is_some())
            .min_by_key(|&(k, &m)| (self.sets_behind(m), turn(k)))
            .and_then(|(_, &m)| self.next_planned(m).map(|si| self.position(m, si)))
    }

    pub fn position(&self, exercise: usize, set: usize) -> SetPosition {
        let sets = &self.exercises[exercise].sets;
        let total = sets.iter().filter(|s| s.is_counted()).count();
        let number = sets[..=set].iter().filter(|s| s.is_counted()).count();
        SetPosition {
            exercise,
            set,
            number,
            total,
        }
    }

    pub fn find_set(&self, set_id: &str) -> Option<SetPosition> {
        self.exercises.iter().enumerate().find_map(|(ei, ex)| {
            ex.sets
                .iter()
                .position(|s| s.id == set_id)
                .map(|si| self.position(ei, si))
        })
    }

    pub fn set_at(&self, p: SetPosition) -> &WorkoutSet {
        &self.exercises[p.exercise].sets[p.set]
    }

    pub fn set_at_mut(&mut self, p: SetPosition) -> &mut WorkoutSet {
        &mut self.exercises[p.exercise].sets[p.set]
    }

    pub fn record_change(&mut self, set_id: String, action: SetAction, at: DateTime<Utc>) {
        self.push_change(SetChange {
            set_id,
            action,
            at,
            joined: false,
            created: Created::Nothing,
        });
    }

    /// Records a change with its undo details; the history keeps the last
    /// [`MAX_CHANGE_HISTORY`].
    pub fn push_change(&mut self, change: SetChange) {
        self.changes.push(change);
        if self.changes.len() > MAX_CHANGE_HISTORY {
            let excess = self.changes.len() - MAX_CHANGE_HISTORY;
            self.changes.drain(..excess);
        }
    }

    /// Checks the API's limits (`limits`), and those that keep the stored document within
    /// [`limits::MAX_WORKOUT_DOC_BYTES`]: ids the store can key, no control characters, at
    /// most [`limits::MAX_SETS_PER_WORKOUT`] sets and [`limits::MAX_WORKOUT_NOTES_CHARS`] of
    /// notes in all (those two are `too_large`).
    pub fn validate(&self) -> Result<(), LimitError> {
        limits::check_name("name", &self.name)?;
        let ids = [
            Some(&self.id),
            self.template_id.as_ref(),
            self.routine_id.as_ref(),
        ];
        for id in ids.into_iter().flatten() {
            limits::check_id("id", id)?;
        }
        let sets = self.exercises.iter().flat_map(|e| &e.sets);
        let notes = self
            .notes
            .iter()
            .map(|n| ("notes", n))
            .chain(
                self.exercises
                    .iter()
                    .filter_map(|e| Some(("exercises.notes", e.notes.as_ref()?))),
            )
            .chain(
                sets.clone()
                    .filter_map(|s| Some(("sets.notes", s.actual.as_ref()?.notes.as_ref()?))),
            );
        let mut notes_chars = 0;
        for (field, text) in notes {
            limits::check_notes(field, text)?;
            notes_chars += text.chars().count();
        }
        for e in &self.exercises {
            limits::check_id("exercises.instance_id", &e.instance_id)?;
            limits::check_id("exercises.exercise_id", &e.exercise_id)?;
            if let Some(g) = &e.group {
                check_group("exercises.group", g)?;
            }
            if let Some(r) = e.rest {
                limits::check_count(
                    "exercises.rest_seconds",
                    r.seconds as usize,
                    MAX_REST_SECONDS as usize,
                )?;
            }
        }
        if let Some(id) = &self.current_exercise {
            limits::check_id("current_exercise", id)?;
        }
        for s in sets.clone() {
            limits::check_id("sets.id", &s.id)?;
        }
        for c in &self.changes {
            limits::check_id("changes.set_id", &c.set_id)?;
        }
        limits::check_exercises(
            self.exercises
                .iter()
                .map(|e| (e.name.as_str(), e.sets.iter().map(|s| &s.target))),
        )?;
        limits::check_workout_size("sets", "sets", sets.count(), limits::MAX_SETS_PER_WORKOUT)?;
        limits::check_workout_size(
            "notes",
            "characters of notes",
            notes_chars,
            limits::MAX_WORKOUT_NOTES_CHARS,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(id: &str, t: SetType, status: SetStatus) -> WorkoutSet {
        let mut s = WorkoutSet::planned(
            id,
            t,
            SetTarget {
                reps: Some(8),
                weight_kg: Some(100.0),
                rir: Some(2),
            },
        );
        s.status = status;
        s
    }

    fn workout() -> Workout {
        Workout {
            current_exercise: None,
            bodyweight_kg: None,
            id: "w1".into(),
            name: "Push".into(),
            status: WorkoutStatus::Active,
            started_at: Utc::now(),
            completed_at: None,
            template_id: None,
            routine_id: None,
            exercises: vec![
                ExerciseInstance {
                    group: None,
                    rest: None,
                    instance_id: "e1".into(),
                    exercise_id: "barbell-bench-press".into(),
                    name: "Bench Press".into(),
                    sets: vec![
                        set("s0", SetType::Warmup, SetStatus::Planned),
                        set("s1", SetType::Working, SetStatus::Done),
                        set("s2", SetType::Working, SetStatus::Planned),
                    ],
                    notes: None,
                    rep_range: None,
                    primary_muscles: Vec::new(),
                },
                ExerciseInstance {
                    group: None,
                    rest: None,
                    instance_id: "e2".into(),
                    exercise_id: "dips".into(),
                    name: "Dip".into(),
                    sets: vec![set("s3", SetType::Dropset, SetStatus::Planned)],
                    notes: None,
                    rep_range: None,
                    primary_muscles: Vec::new(),
                },
            ],
            changes: vec![],
            notes: None,
        }
    }

    #[test]
    fn current_set_skips_warmups_and_done_sets() {
        let w = workout();
        let p = w.current_set().unwrap();
        assert_eq!((p.exercise, p.set, p.number, p.total), (0, 2, 2, 2));
    }

    #[test]
    fn dropsets_count_and_nothing_left_is_none() {
        let mut w = workout();
        w.exercises[0].sets[2].status = SetStatus::Skipped;
        let p = w.current_set().unwrap();
        assert_eq!((p.exercise, p.number, p.total), (1, 1, 1));
        w.exercises[1].sets[0].status = SetStatus::Done;
        assert!(w.current_set().is_none());
    }

    #[test]
    fn a_chosen_exercise_is_current_and_next_wraps_round() {
        let mut w = workout();
        w.current_exercise = Some("e2".into());
        assert_eq!(w.current_set().unwrap().exercise, 1);
        w.exercises[1].sets[0].status = SetStatus::Done;
        let p = w.current_set().unwrap();
        assert_eq!((p.exercise, p.set), (0, 2), "back to the bench left behind");
    }

    #[test]
    fn a_superset_goes_in_rounds() {
        let mut w = workout();
        for e in &mut w.exercises {
            e.group = Some("A".into());
            e.sets.retain(|s| s.set_type != SetType::Warmup);
            for s in &mut e.sets {
                s.status = SetStatus::Planned;
            }
        }
        w.exercises[1]
            .sets
            .push(set("s4", SetType::Working, SetStatus::Planned));
        let fresh = w.clone();
        let mut order = Vec::new();
        while let Some(p) = w.current_set() {
            let id = w.set_at(p).id.clone();
            w.set_at_mut(p).status = SetStatus::Done;
            w.record_change(id.clone(), SetAction::Logged, Utc::now());
            order.push(id);
        }
        assert_eq!(order, ["s1", "s3", "s2", "s4"]);
        // Starting on the second exercise: the first follows in the round.
        let mut w = fresh;
        w.exercises[1].sets[0].status = SetStatus::Done;
        w.record_change("s3".into(), SetAction::Logged, Utc::now());
        assert_eq!(w.set_at(w.current_set().unwrap()).id, "s1");
    }

    #[test]
    fn change_history_is_bounded() {
        let mut w = workout();
        for i in 0..(MAX_CHANGE_HISTORY + 5) {
            w.record_change(format!("s{i}"), SetAction::Logged, Utc::now());
        }
        assert_eq!(w.changes.len(), MAX_CHANGE_HISTORY);
        assert_eq!(w.changes[0].set_id, "s5");
    }

    /// The largest workout the limits allow, every string and number at its longest (4-byte
    /// characters, the longest f64, every optional field): its stored document still fits.
    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "builds the one largest workout the limits allow, field by field"
    )]
    fn the_largest_valid_workout_fits_one_item() {
        use limits::*;
        let id = |prefix: &str, i: usize| format!("{prefix}{i}-{}", "x".repeat(MAX_ID_LEN));
        let id = |prefix: &str, i: usize| id(prefix, i)[..MAX_ID_LEN].to_string();
        let wide = |n: usize| "😀".repeat(n);
        let t = DateTime::parse_from_rfc3339("2026-11-22T10:15:00.123456789Z")
            .unwrap()
            .with_timezone(&Utc);
        let heavy = 1_499.999_999_999_999_8;
        let per_exercise = MAX_SETS_PER_WORKOUT / MAX_EXERCISES_PER_WORKOUT;
        // The notes budget spread over the workout's and its exercises' notes, the rest on sets.
        let mut notes_left = MAX_WORKOUT_NOTES_CHARS;
        let mut take = |n: usize| {
            let n = n.min(notes_left);
            notes_left -= n;
            (n > 0).then(|| wide(n))
        };
        let workout_notes = take(MAX_NOTES_CHARS);
        let exercises: Vec<ExerciseInstance> = (0..MAX_EXERCISES_PER_WORKOUT)
            .map(|e| ExerciseInstance {
                instance_id: id("e", e),
                exercise_id: id("own-", e),
                name: wide(MAX_NAME_CHARS),
                notes: take(MAX_NOTES_CHARS),
                sets: (0..per_exercise)
                    .map(|s| WorkoutSet {
                        id: id("s", e * 1000 + s),
                        set_type: SetType::Dropset,
                        status: SetStatus::Skipped,
                        target: SetTarget {
                            reps: Some(MAX_REPS),
                            weight_kg: Some(heavy),
                            rir: Some(MAX_RIR),
                        },
                        actual: Some(SetResult {
                            reps: MAX_REPS,
                            weight_kg: Some(heavy),
                            rir: Some(MAX_RIR),
                            rpe: Some(9.5),
                            failure: false,
                            seconds: Some(u32::MAX),
                            distance_m: Some(-1.234_567_890_123_456_7e-300),
                            notes: take(MAX_NOTES_CHARS),
                        }),
                        completed_at: Some(t),
                    })
                    .collect(),
                rep_range: None,
                primary_muscles: Vec::new(),
                group: Some("W".repeat(MAX_GROUP_CHARS)),
                rest: Some(RestPlan {
                    seconds: MAX_REST_SECONDS,
                    source: RestSource::YourMedian,
                }),
            })
            .collect();
        let w = Workout {
            current_exercise: Some(id("e", 0)),
            bodyweight_kg: None,
            id: id("w", 0),
            name: wide(MAX_NAME_CHARS),
            status: WorkoutStatus::Completed,
            started_at: t,
            completed_at: Some(t),
            template_id: Some(id("t", 0)),
            routine_id: Some(id("r", 0)),
            exercises,
            changes: (0..MAX_CHANGE_HISTORY)
                .map(|i| SetChange {
                    set_id: id("s", i),
                    action: SetAction::Skipped,
                    at: t,
                    joined: true,
                    created: Created::Exercise,
                })
                .collect(),
            notes: workout_notes,
        };
        w.validate().expect("the largest workout is valid");
        let bytes = serde_json::to_string(&w).unwrap().len();
        assert!(
            bytes <= MAX_WORKOUT_DOC_BYTES,
            "the largest valid workout takes {bytes} bytes"
        );
        // One more set, or one more character of notes: too large, naming the limit.
        let mut more = w.clone();
        let extra = more.exercises[0].sets[0].clone();
        more.exercises[0].sets.push(extra);
        let e = more.validate().unwrap_err();
        assert!(e.too_large && e.field == "sets", "{e}");
        assert!(e.message.contains("at most 500"), "{e}");
        let mut more = w;
        let last = more
            .exercises
            .last_mut()
            .and_then(|e| e.sets.last_mut())
            .unwrap();
        assert_eq!(
            last.actual.as_ref().unwrap().notes,
            None,
            "the budget is spent"
        );
        last.actual.as_mut().unwrap().notes = Some("n".into());
        let e = more.validate().unwrap_err();
        assert!(e.too_large && e.field == "notes", "{e}");
    }

    #[test]
    fn validate_names_the_field() {
        let mut w = workout();
        w.exercises[0].sets[1].target.weight_kg = Some(1600.0);
        assert_eq!(w.validate().unwrap_err().field, "sets.weight_kg");
    }
}
