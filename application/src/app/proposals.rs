//! Confirming and dismissing proposals: one implementation for the app's buttons
//! (`POST /v1/artifacts/{id}/confirm|dismiss` on the functional lane) and the coach's chat
//! ("yes, save it" right after a proposal, on the slow lane).
//!
//! Read back from any device (`GET /v1/artifacts/{id}`, `GET /v1/artifacts` for the pending
//! ones), so a proposal made on one phone, or in a stream that dropped, is confirmed on another
//! with its hash.
//!
//! Confirming applies exactly the stored content in one transaction with the status change, so
//! a proposal is applied whole or not at all, and applying it again changes nothing (the answer
//! says `already_applied`).

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::app::error::{AppError, ErrorCode};
use crate::domain::artifact::{Artifact, ArtifactStatus, Proposal};
use crate::store::Store;
use crate::store::artifacts::ApplyOutcome;

/// The buttons the app shows under a pending proposal.
pub(crate) const ACTIONS: [&str; 2] = ["confirm", "dismiss"];

/// The artifact as the app sees it (the stream's `artifact` event has the same fields).
pub fn view(a: &Artifact, now: DateTime<Utc>) -> Value {
    let status = if a.is_expired(now) {
        "expired"
    } else {
        a.status.as_str()
    };
    let content = serde_json::to_value(&a.proposal).unwrap_or(Value::Null);
    json!({
        "artifact_id": a.id,
        "artifact_type": a.proposal.artifact_type(),
        "artifact_content": content,
        "actions": if status == "proposed" { json!(ACTIONS) } else { json!([]) },
        "status": status,
        "content_hash": a.content_hash,
        "created_at": a.created_at,
        "expires_at": a.expires_at,
    })
}

fn not_found(id: &str) -> AppError {
    // The same answer for an unknown id and another user's.
    AppError::new(
        ErrorCode::ArtifactNotFound,
        format!("you have no proposal '{id}'"),
    )
}

/// Applies proposal `id` if `hash` (when given) is its content hash. Answers what was applied.
pub async fn confirm(
    store: &Store,
    user: &str,
    id: &str,
    hash: Option<&str>,
    now: DateTime<Utc>,
) -> Result<Value, AppError> {
    // Two rounds: a concurrent confirm may win the first; the second then reports it.
    for _ in 0..2 {
        let a = store
            .get_artifact(user, id)
            .await?
            .ok_or_else(|| not_found(id))?;
        if let Some(h) = hash
            && h != a.content_hash
        {
            return Err(AppError::new(ErrorCode::StaleContentHash, "this proposal is not the version you confirmed; show it again and confirm the current one",
            )
            .with("artifact", view(&a, now)));
        }
        match a.status {
            ArtifactStatus::Accepted => {
                return Ok(json!({
                    "artifact": view(&a, now), "already_applied": true, "applied": a.applied,
                }));
            }
            ArtifactStatus::Dismissed => {
                return Err(AppError::new(
                    ErrorCode::ArtifactDismissed,
                    "this proposal was dismissed; ask the coach for a new one",
                ));
            }
            ArtifactStatus::Proposed if a.is_expired(now) => {
                return Err(AppError::new(
                    ErrorCode::ArtifactExpired,
                    "this proposal expired (proposals wait 7 days); ask the coach for a new one",
                ));
            }
            ArtifactStatus::Proposed => {}
        }
        let (profile, applied) = plan_writes(store, user, &a).await?;
        match store
            .apply_artifact(user, &a, profile.as_ref(), &applied, now)
            .await?
        {
            ApplyOutcome::Applied => {
                let mut done = a;
                done.status = ArtifactStatus::Accepted;
                return Ok(json!({
                    "artifact": view(&done, now), "already_applied": false, "applied": applied,
                }));
            }
            ApplyOutcome::WorkoutActive => {
                return Err(AppError::new(
                    ErrorCode::WorkoutActive,
                    "a workout is already active; complete it before starting this one",
                ));
            }
            ApplyOutcome::ArtifactChanged => {}
        }
    }
    Err(AppError::new(
        ErrorCode::Conflict,
        "the proposal or what it changes was modified meanwhile (a routine or template it updates may have been deleted); nothing was applied",
    ))
}

/// What applying writes besides the proposal's own items (the profile, for a new routine made
/// active) and the record of what it wrote.
async fn plan_writes(
    store: &Store,
    user: &str,
    a: &Artifact,
) -> Result<(Option<crate::domain::profile::Profile>, Value), AppError> {
    Ok(match &a.proposal {
        Proposal::Routine { routine, templates } => {
            let parts = crate::store::Parts {
                profile: true,
                ..Default::default()
            };
            let state = store.user_state(user, parts, None, Utc::now()).await?;
            let mut profile = state.profile.unwrap_or_default();
            profile.active_routine_id = Some(routine.id.clone());
            let ids: Vec<&str> = templates.iter().map(|t| t.id.as_str()).collect();
            (
                Some(profile),
                json!({ "routine_id": routine.id, "template_ids": ids, "active_routine": true }),
            )
        }
        Proposal::RoutineUpdate { routine, templates } => {
            let ids: Vec<&str> = templates.iter().map(|t| t.id.as_str()).collect();
            (
                None,
                json!({ "routine_id": routine.id, "template_ids": ids }),
            )
        }
        Proposal::TemplateUpdate { template } => (None, json!({ "template_id": template.id })),
        Proposal::Workout { workout } => (None, json!({ "workout_id": workout.id })),
        Proposal::MemoryRetirement { memory } => {
            (None, json!({ "memory_id": memory.id, "retired": true }))
        }
    })
}

/// Dismisses proposal `id`; dismissing twice answers the same.
pub async fn dismiss(
    store: &Store,
    user: &str,
    id: &str,
    now: DateTime<Utc>,
) -> Result<Value, AppError> {
    let a = store
        .get_artifact(user, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    match a.status {
        ArtifactStatus::Accepted => Err(AppError::new(
            ErrorCode::ArtifactAlreadyApplied,
            "this proposal was already applied; ask the coach to change it back",
        )),
        ArtifactStatus::Dismissed => {
            Ok(json!({ "artifact": view(&a, now), "already_dismissed": true }))
        }
        ArtifactStatus::Proposed => {
            let dismissed = store.dismiss_artifact(user, id, now).await?;
            if !dismissed {
                // Confirmed or dismissed meanwhile: answer from what is stored now.
                return Box::pin(dismiss(store, user, id, now)).await;
            }
            let mut d = a;
            d.status = ArtifactStatus::Dismissed;
            Ok(json!({ "artifact": view(&d, now), "already_dismissed": false }))
        }
    }
}

/// Pending proposals listed at most (they expire after a few days; a lifter has a handful).
pub const PENDING_MAX: i32 = 50;

/// One proposal as the app shows it, whatever its status (expired ones say so).
pub async fn get(
    store: &Store,
    user: &str,
    id: &str,
    now: DateTime<Utc>,
) -> Result<Value, AppError> {
    let a = store
        .get_artifact(user, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    Ok(view(&a, now))
}

/// The proposals still waiting for the lifter (proposed and not expired), newest first.
pub async fn pending(
    store: &Store,
    user: &str,
    now: DateTime<Utc>,
) -> Result<Vec<Value>, AppError> {
    let recent = store.recent_artifacts(user, PENDING_MAX).await?;
    Ok(recent
        .iter()
        .filter(|a| a.status == ArtifactStatus::Proposed && !a.is_expired(now))
        .map(|a| view(a, now))
        .collect())
}
