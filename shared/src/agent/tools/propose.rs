//! Proposal tools: the coach drafts a routine, a routine or template update, or a workout; the
//! draft is validated, stored as a pending artifact and shown to the lifter, who confirms it
//! (by button or by saying so). Nothing in the lifter's plans changes until then.

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use super::{Effect, Env, Output, ToolError, spec, store_failed, str_arg};
use crate::analysis::history::LOOKBACK_WEEKS;
use crate::app::proposals as artifacts;
use crate::domain::artifact::{Artifact, Proposal};
use crate::llm::ToolSpec;
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

pub(super) fn specs() -> Vec<ToolSpec> {
    let days = json!({"type": "array", "description": "1 to 14 days in training order",
        "items": {"type": "object", "properties": {
            "label": {"type": "string", "description": "e.g. 'Push'"},
            "exercises": exercises_schema()
        }, "required": ["label", "exercises"]}});
    vec![
        spec(
            "propose_routine",
            "Draft a new routine (days of exercises). The lifter sees it and confirms; confirming stores it and makes it their active routine.",
            Some(json!({"type": "object", "properties": {
                "name": {"type": "string"}, "days": days
            }, "required": ["name", "days"]})),
        ),
        spec(
            "propose_routine_update",
            "Draft a rewrite of one of the lifter's routines (all its days, in order). Applied only when the lifter confirms.",
            Some(json!({"type": "object", "properties": {
                "routine_id": {"type": "string"}, "name": {"type": "string"}, "days": days
            }, "required": ["routine_id", "days"]})),
        ),
        spec(
            "propose_template_update",
            "Draft a rewrite of one workout template's exercises. Applied only when the lifter confirms.",
            Some(json!({"type": "object", "properties": {
                "template_id": {"type": "string"}, "name": {"type": "string"}, "exercises": exercises_schema()
            }, "required": ["template_id", "exercises"]})),
        ),
        spec(
            "propose_workout",
            "Draft a workout to do now or next (loads from the lifter's history, warm-ups for heavy compounds). Confirming starts it.",
            Some(json!({"type": "object", "properties": {
                "name": {"type": "string"}, "exercises": exercises_schema()
            }, "required": ["name", "exercises"]})),
        ),
    ]
}

fn invalid(e: ProposalError) -> ToolError {
    ToolError::new("INVALID_PROPOSAL", format!("{}: {}", e.field, e.message))
}

pub(super) async fn run(
    env: &Env<'_>,
    name: &str,
    args: &Value,
) -> Option<Result<Output, ToolError>> {
    if !name.starts_with("propose_") {
        return None;
    }
    Some(propose(env, name, args).await)
}

async fn propose(env: &Env<'_>, name: &str, args: &Value) -> Result<Output, ToolError> {
    let (store, user) = (env.store, env.ctx.user_id.as_str());
    let now = Utc::now();
    let proposal = match name {
        "propose_routine" => proposals::routine(args, now).map_err(invalid)?,
        "propose_routine_update" => {
            let id = str_arg(args, "routine_id")?;
            let existing = store
                .get_routine(user, id)
                .await
                .map_err(|e| store_failed(&e))?
                .ok_or_else(|| {
                    ToolError::new(
                        "NOT_FOUND",
                        format!("the lifter has no routine '{id}'; use the routine tool"),
                    )
                })?;
            proposals::routine_update(args, &existing, None, now).map_err(invalid)?
        }
        "propose_template_update" => {
            let id = str_arg(args, "template_id")?;
            let existing = store
                .get_template(user, id)
                .await
                .map_err(|e| store_failed(&e))?
                .ok_or_else(|| {
                    ToolError::new(
                        "NOT_FOUND",
                        format!("the lifter has no template '{id}'; use the routine tool"),
                    )
                })?;
            proposals::template_update(args, &existing).map_err(invalid)?
        }
        "propose_workout" => {
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
            let planned =
                proposals::exercises(args.get("exercises"), "exercises").unwrap_or_default();
            let ids: Vec<&str> = planned.iter().map(|e| e.exercise_id.as_str()).collect();
            let history = store
                .with_last_sessions(user, history.map_err(|e| store_failed(&e))?, &ids)
                .await
                .map_err(|e| store_failed(&e))?;
            proposals::workout(args, &history, &profile, now).map_err(invalid)?
        }
        other => {
            return Err(ToolError::new(
                "UNKNOWN_TOOL",
                format!("there is no tool '{other}'"),
            ));
        }
    };
    offer(env, proposal).await
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
