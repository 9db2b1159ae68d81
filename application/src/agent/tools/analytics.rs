//! Analytics reads: exercise progress, muscle-group progress and the training analysis. They
//! call the same `analysis` functions as the worker's insight cards and weekly reviews, so the
//! coach and the cards never disagree about a number.

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use super::read::{history, resolve, top_set_json};
use super::{Does, Env, Offered, Output, Tool, ToolError, int_arg, str_arg};
use crate::analysis::history::{LOOKBACK_WEEKS, best_by_e1rm, sessions_with, working_sets};
use crate::analysis::{self, facts::VolumeGroup, load, progression, series};
use crate::domain::strength::round1;

/// How far back a progress query may look.
const MAX_PROGRESS_WEEKS: i64 = 26;
/// Exercises listed per muscle group, and trends in the analysis.
const TOP_EXERCISES: usize = 5;
const MAX_TRENDS: usize = 10;
/// The worker's newest insight cards shown with the analysis.
const STORED_CARDS: i32 = 3;

/// The analysis tools.
pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "exercise_progress",
        description: "One exercise over recent weeks: sessions (top set, e1RM), weekly points, e1RM change, trend, plateau, next load.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "exercise_id": {"type": "string", "description": "catalog id or name"},
                "weeks": {"type": "integer", "minimum": 1, "maximum": MAX_PROGRESS_WEEKS}
            }, "required": ["exercise_id"]}))
        },
        run: runs!(|env, _, args| exercise_progress(env, args).await),
        offered: Offered::Always,
        for_progress: true,
        for_plans: true,
        does: Does::Reads,
        shown_as: "your progress",
    },
    Tool {
        name: "muscle_group_progress",
        description: "A muscle group's weekly hard sets against its MEV/MRV landmarks, its main exercises and their plateaus. Groups: chest, back, traps, shoulders, biceps, triceps, forearms, quads, hamstrings, glutes, calves, abs; legs, arms, core.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "muscle_group": {"type": "string"},
                "weeks": {"type": "integer", "minimum": 1, "maximum": MAX_PROGRESS_WEEKS}
            }, "required": ["muscle_group"]}))
        },
        run: runs!(|env, _, args| muscle_group_progress(env, args).await),
        offered: Offered::Always,
        for_progress: true,
        for_plans: true,
        does: Does::Reads,
        shown_as: "your data",
    },
    Tool {
        name: "training_analysis",
        description: "The last 12 weeks: plateaus and what to do, muscle groups below MEV or above MRV, training load and deload need, consistency, trends, what to progress, the newest insight cards and weekly review.",
        parameters: || None,
        run: runs!(|env, _, _| training_analysis(env).await.map(Output::read)),
        offered: Offered::OutsideWorkout {
            light: "exercise_progress for the current exercise",
        },
        for_progress: true,
        for_plans: true,
        does: Does::Reads,
        shown_as: "your data",
    },
];

async fn exercise_progress(env: &Env<'_>, args: &Value) -> Result<Output, ToolError> {
    let text = str_arg(args, "exercise_id")?;
    let weeks = int_arg(args, "weeks", 1..=MAX_PROGRESS_WEEKS)?.unwrap_or(LOOKBACK_WEEKS);
    let (history, profile) = tokio::join!(history(env.store, env.ctx, weeks), profile(env));
    let (history, profile) = (history?, profile?);
    let (id, ex) = resolve(text, &history)?;
    let since = Utc::now() - Duration::weeks(weeks);
    let sessions: Vec<Value> = sessions_with(&history, &id, since)
        .into_iter()
        .map(|(w, inst)| {
            let sets = working_sets(w, &inst);
            let top = best_by_e1rm(&sets);
            json!({
                "date": w.started_at.with_timezone(&env.ctx.tz).date_naive().to_string(),
                "working_sets": sets.len(),
                "top_set": top_set_json(top),
                "e1rm_kg": top.and_then(|t| t.e1rm()).map(round1),
            })
        })
        .collect();
    let e1rms: Vec<f64> = sessions
        .iter()
        .filter_map(|s| s["e1rm_kg"].as_f64())
        .collect();
    let change = match (e1rms.last(), e1rms.first()) {
        (Some(oldest), Some(newest)) if e1rms.len() >= 2 => Some(json!({
            "from_kg": oldest, "to_kg": newest, "change_kg": round1(newest - oldest),
            "change_percent": round1((newest - oldest) / oldest * 100.0),
        })),
        _ => None,
    };
    let points = series::weekly_series(&history, env.ctx.tz)
        .remove(&id)
        .unwrap_or_default();
    let compound = ex.is_none_or(|e| e.compound);
    // The weeks as the model needs them (the sessions give the loads): the API's weekly
    // points also carry volume and the lightest load.
    let weekly: Vec<Value> = points
        .iter()
        .map(|p| {
            json!({
                "week_start": p.week_start,
                "sets": p.sets,
                "hard_sets": p.hard_sets,
                "e1rm_max_kg": p.e1rm_max_kg,
                "load_max_kg": p.load_max_kg,
                "avg_rir": p.avg_rir,
            })
        })
        .collect();
    let mut next = json!(progression::candidate(&history, &id, &profile, Utc::now()));
    if let Some(n) = next.as_object_mut() {
        // Said once, at the top.
        n.remove("exercise_id");
        n.remove("exercise_name");
    }
    let name = analysis::name_of(&history, &id);
    let trend = series::trend(&points, compound);
    let chart = super::chart::progress_chart(&id, &name, weeks, &points, &trend, profile.unit);
    Ok(Output {
        value: json!({
            "exercise_id": id,
            "name": name,
            "weeks": weeks,
            "sessions": sessions,
            "e1rm_change": change,
            "weekly": weekly,
            "trend": trend,
            "plateau": series::plateau(&points),
            "progression": next,
        }),
        effect: super::Effect::Shown(chart),
    })
}

async fn profile(env: &Env<'_>) -> Result<crate::domain::profile::Profile, ToolError> {
    let parts = crate::store::Parts {
        profile: true,
        ..Default::default()
    };
    Ok(env
        .store
        .user_state(&env.ctx.user_id, parts, None, Utc::now())
        .await
        .map_err(|e| super::store_failed(&e))?
        .profile
        .unwrap_or_default())
}

async fn muscle_group_progress(env: &Env<'_>, args: &Value) -> Result<Output, ToolError> {
    let text = str_arg(args, "muscle_group")?;
    let groups = VolumeGroup::parse_many(text);
    if groups.is_empty() {
        return Err(ToolError::new(
            "UNKNOWN_MUSCLE_GROUP",
            format!(
                "no muscle group '{text}'; use one of: {}, or legs, arms, core",
                VolumeGroup::ALL.map(|g| g.id()).join(", ")
            ),
        ));
    }
    let weeks = int_arg(args, "weeks", 1..=MAX_PROGRESS_WEEKS)?.unwrap_or(LOOKBACK_WEEKS);
    let history = history(env.store, env.ctx, weeks).await?;
    let now = Utc::now();
    let weekly: Vec<Value> = load::weekly_group_series(&history, env.ctx.tz)
        .into_iter()
        .map(|(week, by_group)| {
            let sets: Vec<Value> = groups
                .iter()
                .map(|g| {
                    let h = round1(by_group.get(g).copied().unwrap_or(0.0));
                    json!({"muscle_group": g, "hard_sets": h,
                           "status": load::VolumeStatus::of(h, analysis::facts::landmarks(*g))})
                })
                .collect();
            json!({"week_start": week.to_string(), "groups": sets})
        })
        .collect();
    let last_7_days: Vec<Value> = load::weekly_group_volume(&history, now)
        .into_iter()
        .filter(|v| groups.contains(&v.muscle_group))
        .map(|v| json!(v))
        .collect();
    let top = top_exercises(&history, &groups, now, env.ctx.tz);
    let landmarks: Vec<Value> = groups
        .iter()
        .map(|g| json!({"muscle_group": g, "landmarks": analysis::facts::landmarks(*g)}))
        .collect();
    // Beside the words, the table the app draws (the same weeks as the progress route's).
    let table = super::chart::volume_table(
        &groups.iter().map(|g| json!(g)).collect::<Vec<_>>(),
        &landmarks,
        &weekly,
    );
    Ok(Output {
        value: json!({
            "muscle_groups": groups,
            "landmarks": landmarks,
            "weeks": weeks,
            "weekly": weekly,
            "last_7_days": last_7_days,
            "top_exercises": top,
        }),
        effect: super::Effect::Shown(table),
    })
}

/// The exercises that gave `groups` the most hard sets over `history`, with their plateaus.
fn top_exercises(
    history: &[crate::domain::workout::Workout],
    groups: &[VolumeGroup],
    now: chrono::DateTime<Utc>,
    tz: chrono_tz::Tz,
) -> Vec<Value> {
    let mut by_exercise: Vec<(String, f64)> = Vec::new();
    for w in history {
        for e in &w.exercises {
            let share: f64 = analysis::facts::shares_of(e)
                .iter()
                .filter(|(g, _)| groups.contains(g))
                .map(|(_, s)| *s)
                .fold(0.0, f64::max);
            let credit: f64 = e
                .sets
                .iter()
                .map(analysis::facts::hard_set_credit)
                .sum::<f64>()
                * share;
            if credit > 0.0 {
                match by_exercise.iter_mut().find(|(id, _)| *id == e.exercise_id) {
                    Some((_, c)) => *c += credit,
                    None => by_exercise.push((e.exercise_id.clone(), credit)),
                }
            }
        }
    }
    by_exercise.sort_by(|a, b| b.1.total_cmp(&a.1));
    let stalls = analysis::stalls(history, now, tz);
    by_exercise
        .iter()
        .take(TOP_EXERCISES)
        .map(|(id, credit)| {
            json!({
                "exercise_id": id,
                "name": analysis::name_of(history, id),
                "hard_sets": round1(*credit),
                "plateau": stalls.iter().find(|s| &s.exercise_id == id),
            })
        })
        .collect()
}

async fn training_analysis(env: &Env<'_>) -> Result<Value, ToolError> {
    let now = Utc::now();
    let user = env.ctx.user_id.as_str();
    let (history, profile, cards, review) = tokio::join!(
        history(env.store, env.ctx, analysis::ANALYSIS_WEEKS),
        profile(env),
        env.store.feed(
            user,
            crate::store::activity::Feed::Insights,
            STORED_CARDS,
            None,
            now
        ),
        env.store.latest_review(user),
    );
    let (history, profile) = (history?, profile?);
    let cards = cards.map_err(|e| super::store_failed(&e))?;
    let review = review.map_err(|e| super::store_failed(&e))?;
    // What the worker stored: the newest cards and review, in brief.
    let cards: Vec<Value> = cards
        .items
        .iter()
        .map(|c| {
            json!({"workout_date": c["workout_date"], "summary": c["summary"],
                   "flags": c["flags"], "recommendations": c["recommendations"]})
        })
        .collect();
    let review = review.map(|r| {
        json!({"week": r["id"], "summary": r["summary"], "training_load": r["training_load"],
               "stalled_exercises": r["stalled_exercises"],
               "progression_candidates": r["progression_candidates"]})
    });
    let tz = env.ctx.tz;
    let flags = analysis::flags(&history, now, tz);
    let series = series::most_trained(&history, tz);
    let trends: Vec<Value> = series
        .iter()
        .take(MAX_TRENDS)
        .map(|(id, pts)| {
            let compound = crate::domain::catalog::catalog()
                .get(id)
                .is_none_or(|e| e.compound);
            json!({"exercise_id": id, "name": analysis::name_of(&history, id),
                   "trend": series::trend(pts, compound)})
        })
        .collect();
    let candidates: Vec<progression::Candidate> = series
        .iter()
        .filter_map(|(id, _)| progression::candidate(&history, id, &profile, now))
        .collect();
    Ok(json!({
        "weeks": analysis::ANALYSIS_WEEKS,
        "sessions": history.len(),
        "flags": flags,
        "consistency": load::consistency(&history, now),
        "exercise_trends": trends,
        "progression_candidates": candidates,
        "latest_insight_cards": cards,
        "latest_weekly_review": review,
    }))
}
