//! Building proposals from what the coach asked for: every exercise resolved against the
//! catalog, every count within the contract's limits, ids fixed now. A proposal that fails here
//! is never stored; the coach gets an error that says which field to fix.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::suggest::DEFAULT_TARGET_RIR;
use super::workouts;
use crate::domain::artifact::{MAX_ARTIFACT_BYTES, Proposal, time_id};
use crate::domain::catalog::catalog;
use crate::domain::limits::{self, LimitError, MAX_REPS, MAX_RIR};
use crate::domain::plan::{Routine, RoutineDay, Template, TemplateExercise, TemplateSet};
use crate::domain::profile::Profile;
use crate::domain::workout::{MAX_REST_SECONDS, SetTarget, SetType, Workout, check_group};

/// Working sets per exercise a proposal may plan (a day, not a marathon).
pub(crate) const MAX_PROPOSED_SETS: u64 = 10;

#[derive(Debug, Clone, PartialEq)]
pub struct ProposalError {
    pub field: String,
    pub message: String,
}

impl From<LimitError> for ProposalError {
    fn from(e: LimitError) -> Self {
        err(e.field, e.message)
    }
}

fn err(field: impl Into<String>, message: impl Into<String>) -> ProposalError {
    ProposalError {
        field: field.into(),
        message: message.into(),
    }
}

fn object<'a>(v: &'a Value, field: &str) -> Result<&'a Map<String, Value>, ProposalError> {
    v.as_object()
        .ok_or_else(|| err(field, format!("'{field}' must be an object")))
}

fn text<'a>(o: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    o.get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn required_text<'a>(
    o: &'a Map<String, Value>,
    name: &str,
    field: &str,
) -> Result<&'a str, ProposalError> {
    let t = text(o, name)
        .ok_or_else(|| err(field, format!("'{field}' (a non-empty string) is required")))?;
    limits::check_entered_name("name", t).map_err(|e| err(field, e.message))?;
    Ok(t)
}

fn uint(
    o: &Map<String, Value>,
    name: &str,
    field: &str,
    max: u64,
) -> Result<Option<u64>, ProposalError> {
    match o.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().filter(|n| *n <= max).map(Some).ok_or_else(|| {
            err(
                field,
                format!("'{field}' must be a whole number from 0 to {max}"),
            )
        }),
    }
}

/// `[{"exercise": "bench press", "sets": 3, "reps": 8, "rir": 2, "rep_range": [6, 10],
/// "group": "A", "rest_seconds": 90}, ...]`; exercises sharing a `group` are a superset.
pub fn exercises(v: Option<&Value>, field: &str) -> Result<Vec<TemplateExercise>, ProposalError> {
    let items = v
        .and_then(Value::as_array)
        .ok_or_else(|| err(field, format!("'{field}' must be a list of exercises")))?;
    if items.is_empty() {
        return Err(err(field, format!("'{field}' needs at least one exercise")));
    }
    limits::check_count("exercises", items.len(), limits::MAX_EXERCISES_PER_WORKOUT)
        .map_err(|e| err(field, e.message))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| exercise(item, &format!("{field}[{i}]")))
        .collect()
}

/// One proposed exercise (`f` names it in errors): a catalog exercise, its sets at one target.
fn exercise(item: &Value, f: &str) -> Result<TemplateExercise, ProposalError> {
    let o = object(item, f)?;
    let name = text(o, "exercise_id")
        .or_else(|| text(o, "exercise"))
        .ok_or_else(|| {
            err(
                f,
                "each exercise needs 'exercise_id' (from exercise_search)",
            )
        })?;
    let ex = catalog().resolve(name).exercise().ok_or_else(|| {
        let close: Vec<String> = catalog()
            .closest(name, 3)
            .iter()
            .map(|e| format!("{} ({})", e.name, e.id))
            .collect();
        err(
            f,
            format!(
                "no exercise '{name}' in the catalog; close: {}",
                close.join(", ")
            ),
        )
    })?;
    let sets = uint(o, "sets", &format!("{f}.sets"), MAX_PROPOSED_SETS)?
        .unwrap_or(u64::from(workouts::DEFAULT_SETS));
    let reps = uint(o, "reps", &format!("{f}.reps"), u64::from(MAX_REPS))?
        .unwrap_or(u64::from(workouts::DEFAULT_REPS)) as u32;
    let rir = uint(o, "rir", &format!("{f}.rir"), u64::from(MAX_RIR))?
        .unwrap_or(u64::from(DEFAULT_TARGET_RIR)) as u32;
    if sets == 0 || reps == 0 {
        return Err(err(f, "sets and reps must be at least 1"));
    }
    let rep_range = rep_range(o.get("rep_range"), f)?;
    let group = match o.get("group") {
        None | Some(Value::Null) => None,
        Some(Value::String(g)) => {
            check_group("group", g).map_err(|e| err(format!("{f}.group"), e.message))?;
            Some(g.clone())
        }
        Some(_) => return Err(err(format!("{f}.group"), "a group is a label like 'A'")),
    };
    let rest_seconds = uint(
        o,
        "rest_seconds",
        &format!("{f}.rest_seconds"),
        u64::from(MAX_REST_SECONDS),
    )?
    .map(|r| r as u32);
    Ok(TemplateExercise {
        group,
        rest_seconds,
        exercise_id: ex.id.clone(),
        name: ex.name.clone(),
        sets: (0..sets)
            .map(|_| TemplateSet {
                set_type: SetType::Working,
                target: SetTarget {
                    reps: Some(reps),
                    weight_kg: None,
                    rir: Some(rir),
                },
            })
            .collect(),
        rep_range,
    })
}

/// A `[low, high]` rep range, 1 <= low <= high <= the rep limit; none when absent.
fn rep_range(v: Option<&Value>, f: &str) -> Result<Option<(u32, u32)>, ProposalError> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) if a.len() == 2 => {
            let lo = a[0].as_u64().unwrap_or(0) as u32;
            let hi = a[1].as_u64().unwrap_or(0) as u32;
            if lo == 0 || hi < lo || hi > MAX_REPS {
                return Err(err(
                    format!("{f}.rep_range"),
                    "rep_range is [low, high] with 1 <= low <= high",
                ));
            }
            Ok(Some((lo, hi)))
        }
        Some(_) => Err(err(format!("{f}.rep_range"), "rep_range is [low, high]")),
    }
}

/// The days of a routine: `[{"label": "Push", "exercises": [...]}, ...]`, as new templates;
/// with `known` (the lifter's templates), a day may instead name one (`{"label",
/// "template_id"}`), which it keeps.
fn days(
    v: &Map<String, Value>,
    now: DateTime<Utc>,
    known: Option<&[Template]>,
) -> Result<(Vec<RoutineDay>, Vec<Template>), ProposalError> {
    let items = v
        .get("days")
        .and_then(Value::as_array)
        .ok_or_else(|| err("days", "'days' must be a list of {label, exercises}"))?;
    if items.is_empty() {
        return Err(err("days", "a routine needs at least one day"));
    }
    limits::check_count("days", items.len(), limits::MAX_DAYS_PER_ROUTINE)
        .map_err(|e| err("days", e.message))?;
    let mut out_days = Vec::with_capacity(items.len());
    let mut templates = Vec::with_capacity(items.len());
    for (i, d) in items.iter().enumerate() {
        let f = format!("days[{i}]");
        let o = object(d, &f)?;
        let label = required_text(o, "label", &format!("{f}.label"))?;
        if let (Some(id), Some(known)) = (text(o, "template_id"), known) {
            if o.contains_key("exercises") {
                return Err(err(&f, "a day has exercises or a template_id, not both"));
            }
            let t = known.iter().find(|t| t.id == id).ok_or_else(|| {
                err(
                    format!("{f}.template_id"),
                    format!("you have no template '{id}'"),
                )
            })?;
            out_days.push(RoutineDay {
                label: label.to_string(),
                template_id: t.id.clone(),
            });
            continue;
        }
        let exercises = exercises(o.get("exercises"), &format!("{f}.exercises"))?;
        let t = Template {
            id: format!("{}-{}", time_id("t", now), i + 1),
            name: label.to_string(),
            exercises,
        };
        t.validate()?;
        out_days.push(RoutineDay {
            label: label.to_string(),
            template_id: t.id.clone(),
        });
        templates.push(t);
    }
    Ok((out_days, templates))
}

fn bounded(p: Proposal) -> Result<Proposal, ProposalError> {
    let n = p.content_json().len();
    if n > MAX_ARTIFACT_BYTES {
        return Err(err(
            "content",
            format!("the proposal is {n} bytes; the limit is {MAX_ARTIFACT_BYTES}"),
        ));
    }
    Ok(p)
}

/// `{"name": .., "days": [...]}` → a new routine with its templates.
pub fn routine(args: &Value, now: DateTime<Utc>) -> Result<Proposal, ProposalError> {
    let o = object(args, "arguments")?;
    let name = required_text(o, "name", "name")?;
    let (days, templates) = days(o, now, None)?;
    let routine = Routine {
        id: time_id("r", now),
        name: name.to_string(),
        days,
        next_day: 0,
    };
    routine.validate()?;
    bounded(Proposal::Routine { routine, templates })
}

/// `{"routine_id": .., "name"?: .., "days": [...]}` → the existing routine rewritten. Days may
/// name one of `known` templates instead of listing exercises.
pub fn routine_update(
    args: &Value,
    existing: &Routine,
    known: Option<&[Template]>,
    now: DateTime<Utc>,
) -> Result<Proposal, ProposalError> {
    let o = object(args, "arguments")?;
    let name = match text(o, "name") {
        Some(_) => required_text(o, "name", "name")?.to_string(),
        None => existing.name.clone(),
    };
    let (days, templates) = days(o, now, known)?;
    let routine = Routine {
        id: existing.id.clone(),
        name,
        next_day: existing.next_day.min(days.len().saturating_sub(1)),
        days,
    };
    routine.validate()?;
    bounded(Proposal::RoutineUpdate { routine, templates })
}

/// `{"template_id": .., "name"?: .., "exercises": [...]}` → the existing template rewritten.
pub fn template_update(args: &Value, existing: &Template) -> Result<Proposal, ProposalError> {
    let o = object(args, "arguments")?;
    let name = match text(o, "name") {
        Some(_) => required_text(o, "name", "name")?.to_string(),
        None => existing.name.clone(),
    };
    let template = Template {
        id: existing.id.clone(),
        name,
        exercises: exercises(o.get("exercises"), "exercises")?,
    };
    template.validate()?;
    bounded(Proposal::TemplateUpdate { template })
}

/// `{"name": .., "exercises": [...]}` → a planned workout: loads from the lifter's history (the
/// same rules as starting one in the app), warm-ups for heavy compounds.
pub fn workout(
    args: &Value,
    history: &[Workout],
    profile: &Profile,
    now: DateTime<Utc>,
) -> Result<Proposal, ProposalError> {
    let o = object(args, "arguments")?;
    let name = required_text(o, "name", "name")?;
    let template = Template {
        id: String::new(),
        name: name.to_string(),
        exercises: exercises(o.get("exercises"), "exercises")?,
    };
    template.validate()?;
    let mut w = workouts::from_template(&template, None, history, profile, now);
    w.template_id = None;
    workouts::validate(&w)?;
    bounded(Proposal::Workout { workout: w })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        chrono::DateTime::parse_from_rfc3339("2026-11-20T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    #[test]
    fn a_routine_resolves_names_and_fixes_ids() {
        let args = json!({"name": "PPL", "days": [
            {"label": "Push", "exercises": [{"exercise": "bench press", "sets": 3, "reps": 8, "rep_range": [6, 10]}]},
            {"label": "Pull", "exercises": [{"exercise_id": "barbell-row"}]},
        ]});
        let Proposal::Routine { routine, templates } = routine(&args, now()).expect("valid") else {
            panic!("a routine");
        };
        assert_eq!(routine.days.len(), 2);
        assert_eq!(templates.len(), 2);
        assert_eq!(routine.days[1].template_id, templates[1].id);
        assert_eq!(templates[0].exercises[0].exercise_id, "barbell-bench-press");
        assert_eq!(templates[0].exercises[0].sets.len(), 3);
        assert_eq!(templates[0].exercises[0].rep_range, Some((6, 10)));
        assert_eq!(templates[1].exercises[0].sets.len(), 3, "default sets");
        // The same request at the same instant gives the same ids (and hash).
        assert_eq!(super::routine(&args, now()), super::routine(&args, now()));
    }

    #[test]
    fn bad_proposals_name_the_field() {
        let cases = [
            (json!({"days": []}), "name"),
            (json!({"name": "R", "days": []}), "days"),
            (
                json!({"name": "R", "days": [{"label": "A", "exercises": [{"exercise": "zzzz"}]}]}),
                "days[0].exercises[0]",
            ),
            (
                json!({"name": "R", "days": [{"label": "A", "exercises": [{"exercise": "squat", "sets": 40}]}]}),
                "days[0].exercises[0].sets",
            ),
            (
                json!({"name": "R", "days": [{"label": "A", "exercises": [{"exercise": "squat", "rep_range": [10, 6]}]}]}),
                "days[0].exercises[0].rep_range",
            ),
            (
                json!({"name": "R", "days": [{"exercises": []}]}),
                "days[0].label",
            ),
        ];
        for (args, field) in cases {
            let e = routine(&args, now()).expect_err("invalid");
            assert_eq!(e.field, field, "{args}: {}", e.message);
        }
        let days: Vec<Value> = (0..15)
            .map(|i| json!({"label": format!("D{i}"), "exercises": [{"exercise": "squat"}]}))
            .collect();
        let e = routine(&json!({"name": "R", "days": days}), now()).expect_err("15 days");
        assert_eq!(e.field, "days");
    }
}
