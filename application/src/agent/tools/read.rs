//! Read tools: the training snapshot, exercise search, suggest-weight, the active
//! workout, routines and templates, and a bounded query of logged sets. Reads go to the store at
//! call time, so what the model is told is what is stored now.

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use super::{Does, Offered, Output, Tool, ToolError, int_arg, store_failed, str_arg};
use crate::analysis::history::{LOOKBACK_WEEKS, LoggedSet, best_by_e1rm, working_sets};
use crate::app::buttons::SuggestAnswer;
use crate::context::SessionContext;
use crate::domain::catalog::{Exercise, catalog};
use crate::domain::workout::{SetStatus, Workout};
use crate::skills::suggest;
use crate::store::{Parts, Store};

const RECENT_SESSIONS: usize = 5;
const MAX_SEARCH_RESULTS: usize = 10;

/// The read tools.
pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "training_snapshot",
        description: "The lifter's profile (unit, experience, goals, equipment), active routine and its next day, the last sessions with their top sets, and the active workout if any.",
        parameters: || None,
        run: runs!(|env, _, _| training_snapshot(env.store, env.ctx)
            .await
            .map(Output::read)),
        offered: Offered::OutsideWorkout {
            light: "workout_state",
        },
        for_progress: false,
        for_plans: true,
        does: Does::Reads,
        shown_as: "your training overview",
    },
    Tool {
        name: "exercise_search",
        description: "Catalog exercises matching name, alias, muscle or equipment words, with the ids the other tools take.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "query": {"type": "string", "description": "e.g. 'incline dumbbell press' or 'hamstrings machine'"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 10}
            }, "required": ["query"]}))
        },
        run: runs!(|_, _, args| exercise_search(args).map(Output::read)),
        offered: Offered::Always,
        for_progress: true,
        for_plans: true,
        does: Does::Reads,
        shown_as: "the exercise catalog",
    },
    Tool {
        name: "suggest_weight",
        description: "The load for target reps and reps in reserve, from recent sets (capped above their best), with its rationale.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "exercise_id": {"type": "string"},
                "target_reps": {"type": "integer", "minimum": 1, "maximum": 50},
                "target_rir": {"type": "integer", "minimum": 0, "maximum": 5}
            }, "required": ["exercise_id", "target_reps"]}))
        },
        run: runs!(|env, _, args| suggest_weight(env.store, env.ctx, args)
            .await
            .map(Output::read)),
        offered: Offered::Always,
        for_progress: true,
        for_plans: true,
        does: Does::Reads,
        shown_as: "your recent sets",
    },
    Tool {
        name: "workout_state",
        description: "The active workout: exercises with their instance ids, planned and logged sets with ids, and the current set.",
        parameters: || None,
        run: runs!(|env, _, _| workout_state(env.store, env.ctx).await.map(Output::read)),
        offered: Offered::Always,
        for_progress: false,
        for_plans: true,
        does: Does::Reads,
        shown_as: "your workout",
    },
    Tool {
        name: "routine",
        description: "A routine with its days and each day's template (exercises, planned sets and reps). Without routine_id: the active routine, or a list of the lifter's routines.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "routine_id": {"type": "string"}
            }}))
        },
        run: runs!(|env, _, args| routine(env.store, env.ctx, args).await.map(Output::read)),
        offered: Offered::Always,
        for_progress: false,
        for_plans: true,
        does: Does::Reads,
        shown_as: "your plan",
    },
    Tool {
        name: "template",
        description: "One workout template: its exercises with planned sets, reps and RIR.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "template_id": {"type": "string"}
            }, "required": ["template_id"]}))
        },
        run: runs!(|env, _, args| template(env.store, env.ctx, args).await.map(Output::read)),
        offered: Offered::Always,
        for_progress: false,
        for_plans: true,
        does: Does::Reads,
        shown_as: "your plan",
    },
    Tool {
        name: "training_set_query",
        description: "Logged working sets, newest first (date, exercise, reps, weight, RIR), optionally of one exercise; at most 100 from the last 180 days.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "exercise_id": {"type": "string"},
                "days": {"type": "integer", "minimum": 1, "maximum": 180},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100}
            }}))
        },
        run: runs!(|env, _, args| {
            training_set_query(env.store, env.ctx, args)
                .await
                .map(Output::read)
        }),
        offered: Offered::OutsideWorkout {
            light: "exercise_progress for the current exercise",
        },
        for_progress: true,
        // A plan is made from the analysis, not from the sets one by one.
        for_plans: false,
        does: Does::Reads,
        shown_as: "your progress",
    },
];

fn exercise_json(e: &Exercise) -> Value {
    json!({
        "exercise_id": e.id,
        "name": e.name,
        "equipment": e.equipment,
        "primary_muscles": e.primary_muscles,
        "movement_pattern": e.movement_pattern,
        "compound": e.compound,
    })
}

fn exercise_search(args: &Value) -> Result<Value, ToolError> {
    let query = str_arg(args, "query")?;
    let limit = int_arg(args, "limit", 1..=MAX_SEARCH_RESULTS as i64)?.unwrap_or(5) as usize;
    let mut found: Vec<&Exercise> = Vec::new();
    if let Some(e) = catalog().resolve(query).exercise() {
        found.push(e);
    }
    for e in catalog().closest(query, limit) {
        if found.len() < limit && !found.iter().any(|f| f.id == e.id) {
            found.push(e);
        }
    }
    Ok(
        json!({ "query": query, "results": found.iter().map(|e| exercise_json(e)).collect::<Vec<_>>() }),
    )
}

pub(super) async fn history(
    store: &Store,
    ctx: &SessionContext,
    weeks: i64,
) -> Result<Vec<Workout>, ToolError> {
    store
        .completed_workouts_since(&ctx.user_id, Utc::now() - Duration::weeks(weeks))
        .await
        .map_err(|e| store_failed(&e))
}

pub(super) fn resolve(
    text: &str,
    history: &[Workout],
) -> Result<(String, Option<&'static Exercise>), ToolError> {
    suggest::known_exercise(text, history).ok_or_else(|| {
        let close: Vec<String> = catalog()
            .closest(text, 3)
            .iter()
            .map(|e| format!("{} ({})", e.name, e.id))
            .collect();
        ToolError::new(
            "UNKNOWN_EXERCISE",
            format!(
                "no exercise '{text}'; close names: {}; use exercise_search",
                close.join(", ")
            ),
        )
    })
}

/// The session's top set (highest estimated 1RM), as the model sees it.
pub(super) fn top_set_json(top: Option<LoggedSet<'_>>) -> Value {
    json!(top.map(|t| json!({"weight_kg": t.weight_kg(), "reps": t.reps(), "rir": t.rir()})))
}

async fn suggest_weight(
    store: &Store,
    ctx: &SessionContext,
    args: &Value,
) -> Result<Value, ToolError> {
    let text = str_arg(args, "exercise_id")?;
    let reps = int_arg(args, "target_reps", 1..=50)?
        .ok_or_else(|| ToolError::new("INVALID_ARGUMENT", "'target_reps' is required"))?
        as u32;
    let rir = int_arg(args, "target_rir", 0..=5)?.map_or(suggest::DEFAULT_TARGET_RIR, |r| r as u32);
    let now = Utc::now();
    let parts = Parts {
        profile: true,
        ..Parts::default()
    };
    let (state, history) = tokio::join!(
        store.user_state(&ctx.user_id, parts, None, now),
        history(store, ctx, LOOKBACK_WEEKS)
    );
    let profile = state
        .map_err(|e| store_failed(&e))?
        .profile
        .unwrap_or_default();
    // A lift last done before the window still has a history: its last session, however old.
    let wanted = catalog()
        .resolve(text)
        .exercise()
        .map_or(text, |e| e.id.as_str());
    let history = store
        .with_last_sessions(&ctx.user_id, history?, &[wanted])
        .await
        .map_err(|e| store_failed(&e))?;
    let (id, ex) = resolve(text, &history)?;
    let s = suggest::suggest_weight(&id, ex, reps, rir, &history, &profile, now);
    Ok(json!(SuggestAnswer::new(s, &id, reps, rir, &profile)))
}

async fn routine(store: &Store, ctx: &SessionContext, args: &Value) -> Result<Value, ToolError> {
    let wanted = match &args["routine_id"] {
        Value::Null => None,
        _ => Some(str_arg(args, "routine_id")?.to_string()),
    };
    let (routines, state) = tokio::join!(
        store.routines(&ctx.user_id),
        store.user_state(
            &ctx.user_id,
            Parts {
                profile: true,
                ..Parts::default()
            },
            None,
            Utc::now()
        )
    );
    let routines = routines.map_err(|e| store_failed(&e))?;
    let profile = state
        .map_err(|e| store_failed(&e))?
        .profile
        .unwrap_or_default();
    let id = wanted.or(profile.active_routine_id.clone());
    let chosen = match &id {
        Some(id) => routines.iter().find(|r| &r.id == id),
        None if routines.len() == 1 => routines.first(),
        None => None,
    };
    let Some(r) = chosen else {
        if let Some(id) = &id {
            return Err(ToolError::new(
                "NOT_FOUND",
                format!("the lifter has no routine '{id}'"),
            ));
        }
        return Ok(json!({
            "active_routine": null,
            "routines": routines.iter().map(|r| json!({"routine_id": r.id, "name": r.name, "days": r.days.len()})).collect::<Vec<_>>(),
        }));
    };
    let templates = futures_util::future::join_all(
        r.days
            .iter()
            .map(|d| store.get_template(&ctx.user_id, &d.template_id)),
    )
    .await;
    let mut days = Vec::with_capacity(r.days.len());
    for (d, t) in r.days.iter().zip(templates) {
        let t = t.map_err(|e| store_failed(&e))?;
        days.push(json!({ "label": d.label, "template": t.as_ref().map(template_json) }));
    }
    Ok(json!({
        "routine_id": r.id,
        "name": r.name,
        "active": profile.active_routine_id.as_deref() == Some(r.id.as_str()),
        "next_day": r.days.get(r.next_day).map(|d| d.label.as_str()),
        "days": days,
    }))
}

fn template_json(t: &crate::domain::plan::Template) -> Value {
    json!({
        "template_id": t.id,
        "name": t.name,
        "exercises": t.exercises.iter().map(|e| json!({
            "exercise_id": e.exercise_id,
            "name": e.name,
            "sets": e.sets.len(),
            "reps": e.sets.first().and_then(|s| s.target.reps),
            "rir": e.sets.first().and_then(|s| s.target.rir),
            "rep_range": e.rep_range,
        })).collect::<Vec<_>>(),
    })
}

async fn template(store: &Store, ctx: &SessionContext, args: &Value) -> Result<Value, ToolError> {
    let id = str_arg(args, "template_id")?;
    match store
        .get_template(&ctx.user_id, id)
        .await
        .map_err(|e| store_failed(&e))?
    {
        Some(t) => Ok(template_json(&t)),
        None => Err(ToolError::new(
            "NOT_FOUND",
            format!("the lifter has no template '{id}'"),
        )),
    }
}

async fn training_set_query(
    store: &Store,
    ctx: &SessionContext,
    args: &Value,
) -> Result<Value, ToolError> {
    let days = int_arg(args, "days", 1..=180)?.unwrap_or(28);
    let limit = int_arg(args, "limit", 1..=100)?.unwrap_or(50) as usize;
    let history = store
        .completed_workouts_since(&ctx.user_id, Utc::now() - Duration::days(days))
        .await
        .map_err(|e| store_failed(&e))?;
    let only = match &args["exercise_id"] {
        Value::Null => None,
        _ => Some(resolve(str_arg(args, "exercise_id")?, &history)?.0),
    };
    let mut sets = Vec::new();
    let mut total = 0;
    for w in history.iter().rev() {
        for e in w
            .exercises
            .iter()
            .filter(|e| only.as_ref().is_none_or(|id| &e.exercise_id == id))
        {
            for s in working_sets(w, &[e]) {
                total += 1;
                if sets.len() < limit {
                    sets.push(json!({
                        "date": w.started_at.date_naive().to_string(),
                        "exercise_id": e.exercise_id,
                        "reps": s.reps(), "weight_kg": s.weight_kg(), "rir": s.rir(),
                    }));
                }
            }
        }
    }
    Ok(
        json!({ "days": days, "sets": sets, "total_matching": total, "truncated": total > sets.len() }),
    )
}

pub(crate) fn workout_brief(w: &Workout) -> Value {
    json!({
        "workout_id": w.id,
        "name": w.name,
        "started_at": w.started_at,
        "exercises": w.exercises.iter().map(|e| json!({
            "exercise_instance_id": e.instance_id,
            "exercise_id": e.exercise_id,
            "name": e.name,
            "sets": e.sets.iter().map(|s| json!({
                "set_id": s.id,
                "type": s.set_type,
                "status": s.status,
                "planned": s.target,
                "logged": s.actual,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "sets_done": w.exercises.iter().flat_map(|e| e.sets.iter()).filter(|s| s.status == SetStatus::Done).count(),
    })
}

async fn workout_state(store: &Store, ctx: &SessionContext) -> Result<Value, ToolError> {
    let active = store
        .get_active_workout(&ctx.user_id)
        .await
        .map_err(|e| store_failed(&e))?;
    Ok(match active {
        Some(v) => json!({ "active": true, "workout": workout_brief(&v.value) }),
        None => json!({ "active": false }),
    })
}

async fn training_snapshot(store: &Store, ctx: &SessionContext) -> Result<Value, ToolError> {
    let now = Utc::now();
    let parts = Parts {
        profile: true,
        workout: true,
        coaching: true,
        ..Parts::default()
    };
    let (state, history, routines) = tokio::join!(
        store.user_state(&ctx.user_id, parts, None, now),
        history(store, ctx, LOOKBACK_WEEKS),
        store.routines(&ctx.user_id)
    );
    let state = state.map_err(|e| store_failed(&e))?;
    let history = history?;
    let routines = routines.map_err(|e| store_failed(&e))?;
    let profile = state.profile.clone().unwrap_or_default();
    let routine = profile
        .active_routine_id
        .as_ref()
        .and_then(|id| routines.iter().find(|r| &r.id == id))
        .or(routines.first());
    let mut recent: Vec<&Workout> = history.iter().collect();
    recent.sort_by_key(|w| std::cmp::Reverse(w.started_at));
    let recent: Vec<Value> = recent
        .iter()
        .take(RECENT_SESSIONS)
        .map(|w| {
            json!({
                "date": w.started_at.date_naive().to_string(),
                "name": w.name,
                "exercises": w.exercises.iter().map(|e| {
                    let sets = working_sets(w, &[e]);
                    let top = best_by_e1rm(&sets);
                    json!({
                        "exercise_id": e.exercise_id,
                        "name": e.name,
                        "working_sets": sets.len(),
                        "top_set": top_set_json(top),
                    })
                }).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(json!({
        "today": ctx.today.to_string(),
        "profile": {
            "name": profile.display_name,
            "unit": profile.unit.label(),
            "experience": profile.experience,
            "goals": profile.goals,
            "bodyweight_kg": profile.bodyweight_kg,
            "equipment": if profile.equipment.is_empty() { json!("full gym") } else { json!(profile.equipment) },
        },
        "coaching_goals": state.coaching.as_ref().map(|c| json!(c.goals)),
        "routine": routine.map(|r| json!({
            "routine_id": r.id,
            "name": r.name,
            "days": r.days.iter().map(|d| d.label.as_str()).collect::<Vec<_>>(),
            "next_day": r.days.get(r.next_day).map(|d| d.label.as_str()),
        })),
        "sessions_last_8_weeks": history.len(),
        "recent_sessions": recent,
        "active_workout": state.workout.as_ref().map(|v| workout_brief(&v.value)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_finds_by_alias_and_bounds_the_list() {
        let r = exercise_search(&json!({"query": "db bench", "limit": 3})).expect("results");
        let ids: Vec<&str> = r["results"]
            .as_array()
            .expect("list")
            .iter()
            .filter_map(|e| e["exercise_id"].as_str())
            .collect();
        assert_eq!(ids.first().copied(), Some("dumbbell-bench-press"));
        assert!(ids.len() <= 3);
        let e = exercise_search(&json!({"limit": 3})).expect_err("query required");
        assert_eq!(e.code, "INVALID_ARGUMENT");
        let e = exercise_search(&json!({"query": "curl", "limit": 50})).expect_err("limit bounded");
        assert!(e.message.contains("1 to 10"), "{}", e.message);
    }
}
