//! Proposal tools: the coach drafts a routine, a routine or template update, or a workout; the
//! draft is validated, stored as a pending artifact and shown to the lifter, who confirms it
//! (by button or by saying so). Nothing in the lifter's plans changes until then.

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use super::{Does, Effect, Env, Offered, Output, Tool, ToolError, store_failed, str_arg};
use crate::analysis::history::LOOKBACK_WEEKS;
use crate::app::proposals as artifacts;
use crate::domain::artifact::{Artifact, Proposal};
use crate::skills::proposals::{self, ProposalError};
use crate::store::Parts;

fn exercises_schema() -> Value {
    json!({"type": "array", "description": "exercise_id from exercise_search, with sets (1-10), reps and optional rir and rep_range [low, high]",
        "items": {"type": "object", "properties": {
            "exercise_id": {"type": "string"},
            "sets": {"type": "integer", "minimum": 1, "maximum": 10},
            "reps": {"type": "integer", "minimum": 1, "maximum": 50},
            "rir": {"type": "integer", "minimum": 0, "maximum": 5},
            "rep_range": {"type": "array", "items": {"type": "integer"}}
        }, "required": ["exercise_id"]}})
}

fn days_schema() -> Value {
    json!({"type": "array", "description": "1 to 14 days in training order",
        "items": {"type": "object", "properties": {
            "label": {"type": "string", "description": "e.g. 'Push'"},
            "exercises": exercises_schema()
        }, "required": ["label", "exercises"]}})
}

/// Mid-workout a plan change waits: noted now, proposed after.
const AFTER_THE_WORKOUT: Offered = Offered::OutsideWorkout {
    light: "note it and propose after the workout",
};

/// The proposal tools.
pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "propose_routine",
        description: "Draft a new routine (days of exercises). The lifter sees it and confirms; confirming stores it and makes it their active routine.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "name": {"type": "string"}, "days": days_schema()
            }, "required": ["name", "days"]}))
        },
        run: runs!(|env, _, args| {
            let draft = proposals::routine(args, Utc::now()).map_err(invalid)?;
            offer(env, draft).await
        }),
        offered: AFTER_THE_WORKOUT,
        for_progress: false,
        for_plans: true,
        does: Does::Proposes,
        shown_as: "a proposal",
    },
    Tool {
        name: "propose_routine_update",
        description: "Draft a rewrite of one of the lifter's routines (all its days, in order). Applied only when the lifter confirms.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "routine_id": {"type": "string"}, "name": {"type": "string"}, "days": days_schema()
            }, "required": ["routine_id", "days"]}))
        },
        run: runs!(|env, _, args| {
            let draft = routine_update(env, args).await?;
            offer(env, draft).await
        }),
        offered: AFTER_THE_WORKOUT,
        for_progress: false,
        for_plans: true,
        does: Does::Proposes,
        shown_as: "a proposal",
    },
    Tool {
        name: "propose_template_update",
        description: "Draft a rewrite of one workout template's exercises. Applied only when the lifter confirms.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "template_id": {"type": "string"}, "name": {"type": "string"}, "exercises": exercises_schema()
            }, "required": ["template_id", "exercises"]}))
        },
        run: runs!(|env, _, args| {
            let draft = template_update(env, args).await?;
            offer(env, draft).await
        }),
        offered: AFTER_THE_WORKOUT,
        for_progress: false,
        for_plans: true,
        does: Does::Proposes,
        shown_as: "a proposal",
    },
    Tool {
        name: "propose_workout",
        description: "Draft a workout to do now or next (loads from the lifter's history, warm-ups for heavy compounds). Confirming starts it.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "name": {"type": "string"}, "exercises": exercises_schema()
            }, "required": ["name", "exercises"]}))
        },
        run: runs!(|env, _, args| {
            let draft = workout(env, args).await?;
            offer(env, draft).await
        }),
        offered: Offered::Always,
        for_progress: false,
        for_plans: true,
        does: Does::Proposes,
        shown_as: "a proposal",
    },
];

fn invalid(e: ProposalError) -> ToolError {
    ToolError::new("INVALID_PROPOSAL", format!("{}: {}", e.field, e.message))
}

/// A rewrite of the lifter's routine `routine_id`.
async fn routine_update(env: &Env<'_>, args: &Value) -> Result<Proposal, ToolError> {
    let id = str_arg(args, "routine_id")?;
    let existing = env
        .store
        .get_routine(&env.ctx.user_id, id)
        .await
        .map_err(|e| store_failed(&e))?
        .ok_or_else(|| {
            ToolError::new(
                "NOT_FOUND",
                format!("the lifter has no routine '{id}'; use the routine tool"),
            )
        })?;
    proposals::routine_update(args, &existing, None, Utc::now()).map_err(invalid)
}

/// A rewrite of the lifter's template `template_id`.
async fn template_update(env: &Env<'_>, args: &Value) -> Result<Proposal, ToolError> {
    let id = str_arg(args, "template_id")?;
    let existing = env
        .store
        .get_template(&env.ctx.user_id, id)
        .await
        .map_err(|e| store_failed(&e))?
        .ok_or_else(|| {
            ToolError::new(
                "NOT_FOUND",
                format!("the lifter has no template '{id}'; use the routine tool"),
            )
        })?;
    proposals::template_update(args, &existing).map_err(invalid)
}

/// A workout planned from the lifter's history, as a started workout is.
async fn workout(env: &Env<'_>, args: &Value) -> Result<Proposal, ToolError> {
    let (store, user) = (env.store, env.ctx.user_id.as_str());
    let now = Utc::now();
    let parts = Parts {
        profile: true,
        ..Parts::default()
    };
    let (state, history) = tokio::join!(
        store.user_state(user, parts, None, now),
        store.completed_workouts_since(user, now - Duration::weeks(LOOKBACK_WEEKS))
    );
    let profile = state
        .map_err(|e| store_failed(&e))?
        .profile
        .unwrap_or_default();
    // The exercises' last sessions, however old, as a started workout is planned.
    let planned = proposals::exercises(args.get("exercises"), "exercises").unwrap_or_default();
    let ids: Vec<&str> = planned.iter().map(|e| e.exercise_id.as_str()).collect();
    let history = store
        .with_last_sessions(user, history.map_err(|e| store_failed(&e))?, &ids)
        .await
        .map_err(|e| store_failed(&e))?;
    proposals::workout(args, &history, &profile, now).map_err(invalid)
}

/// Stores `proposal` for the lifter to confirm or dismiss, and streams it to them.
pub(super) async fn offer(env: &Env<'_>, proposal: Proposal) -> Result<Output, ToolError> {
    let now = Utc::now();
    let artifact = Artifact::new(proposal, env.ctx.conversation_id.clone(), now);
    env.store
        .put_artifact(&env.ctx.user_id, &artifact)
        .await
        .map_err(|e| store_failed(&e))?;
    let view = artifacts::view(&artifact, now);
    Ok(Output {
        value: json!({
            "artifact_id": artifact.id,
            "status": "proposed",
            "content": view["artifact_content"],
            "note": "The lifter now sees this proposal with confirm and dismiss buttons. Nothing has changed yet: say what you propose and that it applies when they confirm.",
        }),
        effect: Effect::Proposed(view),
    })
}
