//! FUNCTIONAL lane: structured JSON from the app, answered deterministically.
//!
//! - `POST /v1/functional`: smart buttons and the workout monitor, envelope
//!   `{success, action, data, intent}`;
//! - `POST /v1/events`: app events, with the notification gate;
//! - `POST /v1/workouts`, `GET /v1/workouts/active`, `POST /v1/workouts/{id}/complete`;
//! - `POST /v1/artifacts/{id}/confirm|dismiss` (shared with the coach's chat, `lanes::artifacts`);
//! - `GET /v1/notifications`, `GET /v1/insights` (cards the worker wrote), newest first;
//! - `POST /v1/import/strong`: a Strong app export into the history.
//!
//! One file per group of routes: `buttons`, `app_events`, `lifecycle`, `import`; `params`
//! reads fields.
//! Every route validates the whole request before it reads or writes; writes that race use the
//! store's conditions and are re-applied on the new state.

use std::collections::HashMap;
use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use lambda_http::{Body, Request, RequestExt, Response};
use serde_json::{Map, Value, json};

mod app_events;
pub mod assist;
mod buttons;
mod import;
mod lifecycle;
mod params;

use params::*;

use super::{bind, fingerprint, store_error};
use crate::analysis::history::LOOKBACK_WEEKS;
use crate::api::{self, ApiError};
use crate::context::{AuthMode, SessionContext};
use crate::domain::catalog::catalog;
use crate::domain::limits::{self, MAX_REPS, MAX_RIR, MAX_SETS_PER_EXERCISE};
use crate::domain::profile::Profile;
use crate::domain::workout::Workout;
use crate::queue::{Delivery, JobQueue};
use crate::router::{self, Intent, Lane};
use crate::skills::{autofill, events, monitor, notify, suggest, swap, workouts};
use crate::store::activity::{EventOutcome, EventRecord, Feed};
use crate::store::{
    CommitOutcome, IDEMPOTENCY_TTL_SECS, IdempotencyRecord, Parts, Store, UserState,
};
use crate::telemetry::RequestLog;

/// Read-apply-write attempts before a 409.
const MAX_ATTEMPTS: u32 = 6;
/// How long a monitor nudge stays claimed (longer than any workout).
const MONITOR_CLAIM_DAYS: i64 = 7;
/// Notifications per page: default and maximum.
const PAGE_DEFAULT: i32 = 20;
const PAGE_MAX: i32 = 100;

pub struct FunctionalLane {
    store: Store,
    queue: JobQueue,
    auth: AuthMode,
    assist: assist::Assist,
}

impl FunctionalLane {
    pub fn new(store: Store, queue: JobQueue, auth: AuthMode, assist: assist::Assist) -> Self {
        Self {
            store,
            queue,
            auth,
            assist,
        }
    }

    /// `http` is the process's one model client; it is used only when `FUNCTIONAL_MODEL` is set.
    pub async fn from_env(http: &reqwest::Client) -> Result<Self, String> {
        let cfg = super::fast::Config::from_env()?;
        let aws = crate::store::aws_config_from_env("functional").await;
        let lane = crate::llm::ModelLane::Functional;
        let key = crate::secrets::model_api_key(&aws, &[lane]).await?;
        let model = crate::llm::Model::from_env(lane, http, key.as_deref())?;
        Ok(Self::new(
            Store::from_config(&aws, cfg.table),
            JobQueue::from_env(&aws),
            cfg.auth,
            assist::Assist::new(model),
        ))
    }

    /// Handles one request; never fails (errors are responses) and logs one line.
    pub async fn handle(&self, req: Request) -> Response<Body> {
        let started = Instant::now();
        let log = RequestLog::for_request("functional", &req);
        let (result, log) = crate::telemetry::scope(log, self.serve(&req)).await;
        super::finish(log, started, result)
    }

    async fn serve(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let path = api::path(req);
        let method = req.method().as_str();
        let complete_id = path
            .strip_prefix("/v1/workouts/")
            .and_then(|rest| rest.strip_suffix("/complete"))
            .filter(|id| !id.is_empty() && !id.contains('/'));
        let artifact = path.strip_prefix("/v1/artifacts/").and_then(|rest| {
            let (id, action) = rest.split_once('/')?;
            (!id.is_empty() && !id.contains('/') && matches!(action, "confirm" | "dismiss"))
                .then(|| (id.to_string(), action == "confirm"))
        });
        let expect = |m: &'static str| -> Result<(), ApiError> {
            if method == m {
                Ok(())
            } else {
                Err(ApiError::method_not_allowed(m, &path))
            }
        };
        match path.as_str() {
            "/v1/functional" => {
                expect("POST")?;
                self.functional(req).await
            }
            "/v1/events" => {
                expect("POST")?;
                self.event(req).await
            }
            "/v1/workouts" => {
                expect("POST")?;
                self.start_workout(req).await
            }
            "/v1/workouts/active" => {
                expect("GET")?;
                self.active_workout(req).await
            }
            "/v1/notifications" => {
                expect("GET")?;
                self.feed(req, Feed::Notifications).await
            }
            "/v1/insights" => {
                expect("GET")?;
                self.feed(req, Feed::Insights).await
            }
            "/v1/import/strong" => {
                expect("POST")?;
                self.import_strong(req).await
            }
            _ if complete_id.is_some() => {
                expect("POST")?;
                let id = checked_id(complete_id.unwrap_or_default(), "id")?;
                self.complete(req, id).await
            }
            _ if artifact.is_some() => {
                expect("POST")?;
                let (id, confirm) = artifact.unwrap_or_default();
                self.artifact(req, checked_id(&id, "id")?, confirm).await
            }
            p => Err(ApiError::new(
                404,
                "NOT_FOUND",
                format!("no route {p} on the functional lane"),
            )),
        }
    }

    /// The user's state and recent history, read concurrently.
    async fn load(
        &self,
        ctx: &SessionContext,
        parts: Parts,
    ) -> Result<(UserState, Vec<Workout>), ApiError> {
        let now = Utc::now();
        let (state, history) = tokio::join!(
            self.store
                .user_state(&ctx.user_id, parts, ctx.corr.as_deref(), now),
            self.store
                .completed_workouts_since(&ctx.user_id, now - Duration::weeks(LOOKBACK_WEEKS))
        );
        Ok((
            state.map_err(|e| store_error(&e))?,
            history.map_err(|e| store_error(&e))?,
        ))
    }

    /// `history` with the last session of each of `ids` that it does not hold, however old
    /// (a lift last done before the window still has a history).
    async fn with_last_sessions(
        &self,
        ctx: &SessionContext,
        history: Vec<Workout>,
        ids: &[&str],
    ) -> Result<Vec<Workout>, ApiError> {
        let out = self
            .store
            .with_last_sessions(&ctx.user_id, history, ids)
            .await;
        // Usually no call at all (the window holds the exercise): time is counted, calls not.
        out.map_err(|e| store_error(&e))
    }

    /// [`Self::with_last_sessions`] for the exercises of a template.
    async fn with_template_sessions(
        &self,
        ctx: &SessionContext,
        history: Vec<Workout>,
        template: &crate::domain::plan::Template,
    ) -> Result<Vec<Workout>, ApiError> {
        let ids: Vec<&str> = template
            .exercises
            .iter()
            .map(|e| e.exercise_id.as_str())
            .collect();
        self.with_last_sessions(ctx, history, &ids).await
    }

    /// Commits a changed active workout with the request's idempotency record.
    #[allow(clippy::too_many_arguments)]
    async fn commit(
        &self,
        ctx: &SessionContext,
        workout: &Workout,
        version: u64,
        fingerprint: &str,
        action: &str,
        data: &Value,
        now: DateTime<Utc>,
    ) -> Result<CommitOutcome, ApiError> {
        let record = ctx.corr.as_ref().map(|corr| IdempotencyRecord {
            corr: corr.clone(),
            fingerprint: fingerprint.to_string(),
            status: 200,
            body: json!({ "action": action, "data": data }).to_string(),
            expires_at: now.timestamp() + IDEMPOTENCY_TTL_SECS,
        });
        let out = self
            .store
            .commit_workout(&ctx.user_id, workout, version, record.as_ref(), now)
            .await;
        out.map_err(|e| store_error(&e))
    }
}

// -------------------------------------------------------------------- helpers

fn envelope(intent: Intent, action: &str, data: Value) -> Response<Body> {
    api::json_response(
        200,
        &json!({ "success": true, "action": action, "data": data, "intent": intent.as_str() })
            .to_string(),
    )
}

/// An error on /v1/functional also carries the envelope (`success: false`, action ERROR).
fn envelope_error(e: ApiError, intent: Option<Intent>) -> ApiError {
    let message = e.message.clone();
    e.with("success", json!(false))
        .with("action", json!("ERROR"))
        .with("data", json!({ "message": message }))
        .with("intent", json!(intent.map(Intent::as_str)))
}

/// An id from the path or the body, checked before it becomes part of a store key.
fn checked_id<'a>(id: &'a str, field: &'static str) -> Result<&'a str, ApiError> {
    if crate::context::is_valid_id(id) {
        Ok(id)
    } else {
        Err(invalid(
            &format!(
                "not an id: ids are 1 to {} letters, digits or - _ . : @ |",
                crate::context::MAX_ID_CHARS
            ),
            field,
        ))
    }
}

fn invalid(message: &str, field: &'static str) -> ApiError {
    ApiError::new(400, "VALIDATION_ERROR", message).field(field)
}

fn conflict() -> ApiError {
    ApiError::new(
        409,
        "CONFLICT",
        "the workout kept changing while this request was applied; nothing was changed, please retry",
    )
}

fn reused() -> ApiError {
    ApiError::new(
        409,
        "IDEMPOTENCY_KEY_REUSED",
        "this corr was already used for a different request",
    )
}

fn not_in_workout(instance_id: &str) -> ApiError {
    // The same answer whether the id is unknown or another user's: nothing leaks.
    ApiError::new(
        404,
        "EXERCISE_NOT_IN_WORKOUT",
        format!("no exercise {instance_id} in your active workout"),
    )
    .field("exercise_instance_id")
}

fn unknown_exercise(text: &str) -> ApiError {
    let close = catalog().closest(text, 3);
    let hint = if close.is_empty() {
        String::new()
    } else {
        format!(
            "; did you mean {}?",
            close
                .iter()
                .map(|e| format!("{} ({})", e.name, e.id))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    ApiError::new(
        400,
        "UNKNOWN_EXERCISE",
        format!("no exercise '{text}' in the catalog or your history{hint}"),
    )
    .field("exercise_id")
}

fn active_conflict(active: &Workout) -> ApiError {
    ApiError::new(
        409,
        "WORKOUT_ACTIVE",
        format!(
            "'{}' is still active; complete it before starting another",
            active.name
        ),
    )
    .with(
        "workout",
        serde_json::to_value(active).unwrap_or(Value::Null),
    )
}

/// The active workout, checked against the prefix's `workout_id` when one is given.
fn active_in_prefix<'a>(
    state: &'a UserState,
    ctx: &SessionContext,
) -> Result<Option<(&'a Workout, u64)>, ApiError> {
    let active = state.workout.as_ref().map(|v| (&v.value, v.version));
    if let (Some(wanted), Some((w, _))) = (ctx.workout_id.as_deref(), active)
        && w.id != wanted
    {
        return Err(ApiError::new(
            409,
            "WORKOUT_MISMATCH",
            format!("workout {wanted} is not your active workout"),
        ));
    }
    Ok(active)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let sk = "NOTIFY#2026-11-20T10:00:00.000000Z#ev-1";
        assert_eq!(decode_cursor(&encode_cursor(sk)).as_deref(), Some(sk));
        assert_eq!(decode_cursor("zz"), None);
        assert_eq!(decode_cursor("abc"), None);
    }

    #[test]
    fn unknown_fields_are_named() {
        let p = json!({"intent": "SUGGEST_WEIGHT", "exercise": "bench"});
        let e = only(p.as_object().unwrap(), &["intent", "exercise_id"]).unwrap_err();
        assert!(e.message.contains("'exercise'"));
    }

    #[test]
    fn functional_errors_carry_the_envelope() {
        let e = envelope_error(invalid("bad", "target"), Some(Intent::SwapExercise));
        let b = e.body();
        assert_eq!(b["success"], false);
        assert_eq!(b["action"], "ERROR");
        assert_eq!(b["intent"], "SWAP_EXERCISE");
        assert_eq!(b["error"]["field"], "target");
    }
}
