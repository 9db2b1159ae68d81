//! The exercise picker (`GET /v1/exercises`): the catalog and the lifter's own exercises,
//! filtered by equipment, muscle and movement pattern, ranked by how well they match the search
//! box's text (typos, plurals, word order, word starts, "Name (Equipment)"); and an own
//! exercise merged into the catalog one it is (`POST /v1/exercises/{id}/merge`).

use serde::Serialize;

use super::{App, MAX_ATTEMPTS, conflict, invalid};
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::catalog::{
    Equipment, Exercise, MovementPattern, Muscle, OwnExercise, catalog, search_score_of,
};
use crate::domain::workout::{ExerciseInstance, Workout};
use crate::skills::swap::MuscleFilter;
use crate::store::Versioned;

/// A parameter given with a value (an empty one is as good as absent).
fn given(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|v| !v.is_empty())
}

/// The longest search text.
const MAX_QUERY_CHARS: usize = 100;

/// Own exercises match a query from this score on (the catalog's own floor for candidates).
const OWN_MATCH_SCORE: f64 = 0.45;

/// What the picker asks: all optional; with none, every exercise by name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ExerciseQuery {
    pub text: Option<String>,
    pub equipment: Option<Equipment>,
    pub muscle: Option<MuscleFilter>,
    pub pattern: Option<MovementPattern>,
}

impl ExerciseQuery {
    /// Reads the query parameters `q`, `equipment`, `muscle` (a muscle or a group) and
    /// `pattern`; an unknown value is a 400 naming the parameter and the values it takes.
    pub fn parse(
        q: Option<&str>,
        equipment: Option<&str>,
        muscle: Option<&str>,
        pattern: Option<&str>,
    ) -> Result<ExerciseQuery, AppError> {
        let equipment = match given(equipment) {
            Some(e) => Some(Equipment::parse(e).ok_or_else(|| {
                invalid(
                    &format!(
                        "equipment is one of {}",
                        Equipment::ALL.map(Equipment::id).join(", ")
                    ),
                    "equipment",
                )
            })?),
            None => None,
        };
        let muscle = match given(muscle) {
            Some(m) => Some(MuscleFilter::parse(m).ok_or_else(|| {
                invalid(
                    "muscle is a muscle (upper_chest, lats, quads, ...) or a group (chest, back, legs, ...)",
                    "muscle",
                )
            })?),
            None => None,
        };
        let pattern = match given(pattern) {
            Some(p) => Some(MovementPattern::parse(p).ok_or_else(|| {
                invalid(
                    "pattern is a movement pattern (horizontal_push, squat, hinge, ...)",
                    "pattern",
                )
            })?),
            None => None,
        };
        if q.is_some_and(|t| t.chars().count() > MAX_QUERY_CHARS) {
            return Err(invalid(
                &format!("q is at most {MAX_QUERY_CHARS} characters"),
                "q",
            ));
        }
        let text = given(q).map(str::to_string);
        Ok(ExerciseQuery {
            text,
            equipment,
            muscle,
            pattern,
        })
    }

    fn admits(&self, e: &Exercise) -> bool {
        self.equipment.is_none_or(|q| e.equipment == q)
            && self.muscle.is_none_or(|m| m.matches(e))
            && self.pattern.is_none_or(|p| e.movement_pattern == p)
    }

    /// An own exercise passes a filter only with what its definition says.
    fn admits_own(&self, o: &OwnExercise) -> bool {
        self.equipment.is_none_or(|q| o.equipment == Some(q))
            && self
                .muscle
                .is_none_or(|m| m.matches_muscles(&o.primary_muscles))
            && self.pattern.is_none_or(|p| o.movement_pattern == Some(p))
    }
}

/// One exercise the picker shows: a catalog one, or the lifter's own (`own`, which the catalog
/// knows nothing about: no equipment or muscles, perhaps the catalog exercise it resembles).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExerciseItem {
    pub exercise_id: String,
    pub name: String,
    pub own: bool,
    pub equipment: Option<Equipment>,
    pub primary_muscles: Vec<Muscle>,
    pub secondary_muscles: Vec<Muscle>,
    pub movement_pattern: Option<MovementPattern>,
    /// For an own exercise: the catalog exercise it is probably the same as.
    pub similar_to: Option<String>,
}

impl From<&Exercise> for ExerciseItem {
    fn from(e: &Exercise) -> ExerciseItem {
        ExerciseItem {
            exercise_id: e.id.clone(),
            name: e.name.clone(),
            own: false,
            equipment: Some(e.equipment),
            primary_muscles: e.primary_muscles.clone(),
            secondary_muscles: e.secondary_muscles.clone(),
            movement_pattern: Some(e.movement_pattern),
            similar_to: None,
        }
    }
}

impl From<OwnExercise> for ExerciseItem {
    fn from(o: OwnExercise) -> ExerciseItem {
        ExerciseItem {
            exercise_id: o.id,
            name: o.name,
            own: true,
            equipment: o.equipment,
            primary_muscles: o.primary_muscles,
            secondary_muscles: o.secondary_muscles,
            movement_pattern: o.movement_pattern,
            similar_to: o.similar_to,
        }
    }
}

impl App {
    /// Every exercise `query` admits, best match first (by name without a search text).
    pub async fn exercises(
        &self,
        ctx: &SessionContext,
        query: &ExerciseQuery,
    ) -> Result<Vec<ExerciseItem>, AppError> {
        let own = self.store.own_exercises(&ctx.user_id).await;
        let own = own?;
        let mut scored: Vec<(f64, ExerciseItem)> = match &query.text {
            Some(text) => catalog()
                .search(text)
                .into_iter()
                .filter(|(_, e)| query.admits(e))
                .map(|(s, e)| (s, ExerciseItem::from(e)))
                .collect(),
            None => catalog()
                .all()
                .iter()
                .filter(|e| query.admits(e))
                .map(|e| (0.0, ExerciseItem::from(e)))
                .collect(),
        };
        // Merged ones are gone; a filter admits only those whose definition says what it asks.
        for o in own
            .into_iter()
            .filter(|o| o.merged_into.is_none() && query.admits_own(o))
        {
            let score = query
                .text
                .as_deref()
                .map_or(0.0, |t| search_score_of(t, &o.name));
            if query.text.is_none() || score >= OWN_MATCH_SCORE {
                scored.push((score, ExerciseItem::from(o)));
            }
        }
        scored.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| a.1.name.cmp(&b.1.name))
                .then_with(|| a.1.exercise_id.cmp(&b.1.exercise_id))
        });
        Ok(scored.into_iter().map(|(_, item)| item).collect())
    }
}

/// Muscles an own exercise may name, primary and secondary each.
const MAX_OWN_MUSCLES: usize = 8;

/// `POST /v1/exercises`: an exercise of the lifter's own, with what it trains.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewExercise {
    pub name: String,
    pub equipment: String,
    pub primary_muscles: Vec<String>,
    #[serde(default)]
    pub secondary_muscles: Vec<String>,
    #[serde(default)]
    pub movement_pattern: Option<String>,
}

/// What `POST /v1/exercises` did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Defined {
    pub exercise: ExerciseItem,
    /// False when it defined an own exercise already stored (an import's, say).
    pub created: bool,
    /// Completed workouts whose sets of it now count for its muscles.
    pub workouts_changed: usize,
    pub review_weeks: Vec<chrono::NaiveDate>,
}

fn muscles(names: &[String], field: &'static str) -> Result<Vec<Muscle>, AppError> {
    if names.len() > MAX_OWN_MUSCLES {
        return Err(invalid(
            &format!("at most {MAX_OWN_MUSCLES} muscles"),
            field,
        ));
    }
    let mut out = Vec::new();
    for n in names {
        let m = Muscle::parse(n).ok_or_else(|| {
            invalid(
                &format!("'{n}' is not a muscle (upper_chest, lats, quads, glutes, ...)"),
                field,
            )
        })?;
        if !out.contains(&m) {
            out.push(m);
        }
    }
    Ok(out)
}

impl NewExercise {
    /// The own exercise this asks for, checked whole: a name the catalog does not already have,
    /// known equipment, one primary muscle at least.
    pub fn checked(&self) -> Result<OwnExercise, AppError> {
        crate::domain::limits::check_entered_name("name", &self.name)?;
        let name = self.name.trim();
        if let crate::domain::catalog::Resolution::Exact(e) = catalog().resolve(name) {
            return Err(AppError::new(
                ErrorCode::Conflict,
                format!("the catalog has it: {} ({}); use that one", e.name, e.id),
            )
            .field("name")
            .with("exercise_id", serde_json::Value::from(e.id.clone())));
        }
        let equipment = Equipment::parse(&self.equipment).ok_or_else(|| {
            invalid(
                &format!(
                    "equipment is one of {}",
                    Equipment::ALL.map(Equipment::id).join(", ")
                ),
                "equipment",
            )
        })?;
        let primary = muscles(&self.primary_muscles, "primary_muscles")?;
        if primary.is_empty() {
            return Err(invalid(
                "name at least one primary muscle: the sets count for its group",
                "primary_muscles",
            ));
        }
        let pattern = match self.movement_pattern.as_deref() {
            Some(p) => Some(MovementPattern::parse(p).ok_or_else(|| {
                invalid(
                    "movement_pattern is a movement pattern (horizontal_push, squat, hinge, ...)",
                    "movement_pattern",
                )
            })?),
            None => None,
        };
        Ok(OwnExercise {
            id: crate::import::strong::own_id(name),
            name: name.to_string(),
            similar_to: catalog().resolve(name).exercise().map(|e| e.id.clone()),
            merged_into: None,
            equipment: Some(equipment),
            primary_muscles: primary,
            secondary_muscles: muscles(&self.secondary_muscles, "secondary_muscles")?,
            movement_pattern: pattern,
        })
    }
}

/// The Sundays ending the weeks of `workouts` that have a stored review.
async fn reviewed_weeks(
    app: &App,
    ctx: &SessionContext,
    workouts: &[crate::domain::workout::Workout],
) -> Result<Vec<chrono::NaiveDate>, AppError> {
    let profile = app.profile(ctx).await?;
    let tz = crate::skills::notify::timezone(&profile);
    let weeks: std::collections::BTreeSet<chrono::NaiveDate> = workouts
        .iter()
        .map(|w| crate::analysis::facts::week_ending(w.started_at, tz))
        .collect();
    let Some(first) = weeks.first() else {
        return Ok(Vec::new());
    };
    let reviewed = app
        .store
        .review_weeks_from(&ctx.user_id, &crate::domain::calendar::iso_week_id(*first))
        .await?;
    Ok(weeks
        .into_iter()
        .filter(|d| reviewed.contains(&crate::domain::calendar::iso_week_id(*d)))
        .collect())
}

/// The stored reviews of `weeks`, written again through the queue.
async fn review_again(
    app: &App,
    ctx: &SessionContext,
    weeks: &[chrono::NaiveDate],
    done: &str,
) -> Result<(), AppError> {
    let jobs: Vec<crate::queue::Job> = weeks
        .iter()
        .map(|d| crate::queue::Job::WeeklyReview {
            user_id: ctx.user_id.clone(),
            week_ending: *d,
        })
        .collect();
    app.queue.send_all(&jobs).await.map(|_| ()).map_err(|e| {
        tracing::error!(error = %e, "{done}, but the reviews could not be queued");
        AppError::new(
            ErrorCode::QueueUnavailable,
            format!("{done}, but its weeks' reviews could not be queued; asking again queues them"),
        )
    })
}

impl App {
    /// `POST /v1/exercises`: defines an own exercise (or one an import kept as it found it):
    /// its completed sets count for its primary muscles' groups from now on, in every chart,
    /// card and review, and the stored reviews of the weeks it was trained are written again.
    pub async fn define_exercise(
        &self,
        ctx: &SessionContext,
        new: &NewExercise,
    ) -> Result<Defined, AppError> {
        let mut exercise = new.checked()?;
        let (own, history) = tokio::join!(
            self.store.own_exercises(&ctx.user_id),
            self.store.versioned_workouts(&ctx.user_id)
        );
        let stored = own?.into_iter().find(|o| o.id == exercise.id);
        if let Some(s) = &stored {
            if let Some(into) = &s.merged_into {
                return Err(AppError::new(
                    ErrorCode::Conflict,
                    format!("'{}' was merged into {into}; use that one", s.name),
                )
                .field("name"));
            }
            exercise.similar_to = s.similar_to.clone().or(exercise.similar_to);
        }
        let mut history = history?;
        let muscles = exercise.primary_muscles.clone();
        let set_muscles = |e: &mut ExerciseInstance| {
            let touched = e.primary_muscles != muscles;
            e.primary_muscles = muscles.clone();
            touched
        };
        let changed = edit_instances(&mut history, &exercise.id, set_muscles);
        let plain: Vec<Workout> = changed.iter().map(|w| w.value.clone()).collect();
        let review_weeks = reviewed_weeks(self, ctx, &plain).await?;
        // The definition first: a workout never counts muscles its exercise does not name.
        self.store.put_own_exercise(&ctx.user_id, &exercise).await?;
        let written = self
            .write_edited(ctx, changed, &exercise.id, set_muscles)
            .await?;
        review_again(self, ctx, &review_weeks, "the exercise is saved").await?;
        Ok(Defined {
            exercise: ExerciseItem::from(exercise),
            created: stored.is_none(),
            workouts_changed: written.len(),
            review_weeks,
        })
    }
}

/// What a merge did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Merged {
    pub exercise_id: String,
    pub into: String,
    /// Completed workouts whose sets now name `into`.
    pub workouts_changed: usize,
    pub templates_changed: usize,
    /// The Sundays ending the weeks whose stored reviews are written again.
    pub review_weeks: Vec<chrono::NaiveDate>,
}

impl App {
    /// Merges the lifter's own exercise `own_id` into the catalog exercise `into`: every
    /// completed workout and template that names it names `into` instead (each workout at its
    /// next version), the own exercise is kept as merged (so a later import files its sets
    /// under `into` too), the records of both are set from the whole history, and the stored
    /// reviews of the weeks it touched are written again. Running it again changes nothing.
    pub async fn merge_exercise(
        &self,
        ctx: &SessionContext,
        own_id: &str,
        into: &str,
    ) -> Result<Merged, AppError> {
        let target = catalog().get(into).ok_or_else(|| {
            AppError::new(
                ErrorCode::UnknownExercise,
                format!("into names no catalog exercise: '{into}' (GET /v1/exercises lists them)"),
            )
            .field("into")
        })?;
        let (own, active, history, templates) = tokio::join!(
            self.store.own_exercises(&ctx.user_id),
            self.store.get_active_workout(&ctx.user_id),
            self.store.versioned_workouts(&ctx.user_id),
            self.store.templates(&ctx.user_id)
        );
        let own = own?;
        let mut exercise = own.into_iter().find(|o| o.id == own_id).ok_or_else(|| {
            AppError::new(
                ErrorCode::ExerciseNotFound,
                format!("you have no exercise of your own '{own_id}' (GET /v1/exercises lists them, with own: true)"),
            )
            .field("id")
        })?;
        if let Some(other) = exercise.merged_into.as_deref().filter(|m| *m != into) {
            return Err(AppError::new(
                ErrorCode::Conflict,
                format!("'{}' is already merged into {other}", exercise.name),
            )
            .field("into"));
        }
        if let Some(a) = active?
            && a.value.exercises.iter().any(|e| e.exercise_id == own_id)
        {
            return Err(AppError::new(
                ErrorCode::WorkoutActive,
                format!(
                    "'{}' is in your active workout: complete it first",
                    exercise.name
                ),
            ));
        }
        let mut history = history?;
        let rename = |e: &mut ExerciseInstance| {
            e.exercise_id = target.id.clone();
            e.name = target.name.clone();
            true
        };
        let changed = edit_instances(&mut history, own_id, rename);
        let mut templates = templates?;
        templates.retain_mut(|t| {
            let mut touched = false;
            for e in t.exercises.iter_mut().filter(|e| e.exercise_id == own_id) {
                (e.exercise_id, e.name) = (target.id.clone(), target.name.clone());
                touched = true;
            }
            touched
        });
        let plain: Vec<Workout> = changed.iter().map(|w| w.value.clone()).collect();
        let review_weeks = reviewed_weeks(self, ctx, &plain).await?;
        // History first, the mark last: an interrupted merge is finished by running it again.
        let written = self.write_edited(ctx, changed, own_id, rename).await?;
        for t in &templates {
            self.store.put_template(&ctx.user_id, t).await?;
        }
        exercise.merged_into = Some(target.id.clone());
        self.store.put_own_exercise(&ctx.user_id, &exercise).await?;
        let after = as_written(history, &written);
        self.store
            .rebuild_exercise_records(&ctx.user_id, &[own_id, target.id.as_str()], &after)
            .await?;
        review_again(self, ctx, &review_weeks, "the exercise is merged").await?;
        Ok(Merged {
            exercise_id: own_id.to_string(),
            into: target.id.clone(),
            workouts_changed: written.len(),
            templates_changed: templates.len(),
            review_weeks,
        })
    }
}

/// The history as stored after a revision: a workout read again after a PATCH is its written
/// copy.
fn as_written(history: Vec<Versioned<Workout>>, written: &[Workout]) -> Vec<Workout> {
    history
        .into_iter()
        .map(|w| {
            written
                .iter()
                .find(|x| x.id == w.value.id)
                .cloned()
                .unwrap_or(w.value)
        })
        .collect()
}

impl App {
    /// Writes the edited workouts on the versions they were read at. One changed meanwhile (a
    /// PATCH) is read again and `edit` applied to what it now holds, a few times before the
    /// request gives up with a conflict. Answers the workouts as written.
    async fn write_edited(
        &self,
        ctx: &SessionContext,
        mut changed: Vec<Versioned<Workout>>,
        id: &str,
        edit: impl Fn(&mut ExerciseInstance) -> bool,
    ) -> Result<Vec<Workout>, AppError> {
        let mut written = Vec::new();
        for _ in 0..MAX_ATTEMPTS {
            let conflicted = self.store.put_revised(&ctx.user_id, &changed).await?;
            let (again, done): (Vec<_>, Vec<_>) = changed
                .into_iter()
                .partition(|w| conflicted.contains(&w.value.id));
            written.extend(done.into_iter().map(|w| w.value));
            if again.is_empty() {
                return Ok(written);
            }
            let mut fresh = Vec::new();
            for w in &again {
                // Deleted meanwhile: nothing left to edit.
                if let Some(f) = self.store.find_completed(&ctx.user_id, &w.value.id).await? {
                    fresh.push(f);
                }
            }
            changed = edit_instances(&mut fresh, id, &edit);
        }
        Err(conflict())
    }
}

/// Applies `edit` to every instance of exercise `id` in the history (it answers whether it
/// changed the instance); the workouts it changed, at the versions read.
fn edit_instances(
    history: &mut [Versioned<Workout>],
    id: &str,
    mut edit: impl FnMut(&mut ExerciseInstance) -> bool,
) -> Vec<Versioned<Workout>> {
    let mut changed = Vec::new();
    for w in history {
        let mut touched = false;
        for e in w.value.exercises.iter_mut().filter(|e| e.exercise_id == id) {
            touched |= edit(e);
        }
        if touched {
            changed.push(w.clone());
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<String> {
        catalog()
            .search(text)
            .into_iter()
            .take(3)
            .map(|(_, e)| e.id.clone())
            .collect()
    }

    #[test]
    fn search_tolerates_how_lifters_type() {
        for (typed, expected) in [
            ("bench press", "barbell-bench-press"),
            ("Bench Press (Barbell)", "barbell-bench-press"),
            ("bech pres", "barbell-bench-press"),
            ("romanian deadlifts", "romanian-deadlift"),
            // Words run together, as typed on a phone.
            ("benchpress", "barbell-bench-press"),
            ("Benchpress", "barbell-bench-press"),
        ] {
            let found = ids(typed);
            assert!(found.contains(&expected.to_string()), "{typed}: {found:?}");
        }
        // As the lifter types: word starts.
        assert!(!ids("ben").is_empty());
        assert!(
            ids("squ").iter().any(|id| id.contains("squat")),
            "{:?}",
            ids("squ")
        );
    }

    #[test]
    fn unknown_filters_name_the_parameter() {
        let e = ExerciseQuery::parse(None, Some("jetpack"), None, None).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("equipment"));
        let e = ExerciseQuery::parse(None, None, Some("wings"), None).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("muscle"));
        let e = ExerciseQuery::parse(None, None, None, Some("dance")).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("pattern"));
        let q = ExerciseQuery::parse(Some(" "), Some("dumbbell"), Some("chest"), None).unwrap();
        assert_eq!(q.text, None);
        assert_eq!(q.equipment, Some(Equipment::Dumbbell));
    }
}
