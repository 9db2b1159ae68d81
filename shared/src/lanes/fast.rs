//! FAST lane: `POST /v1/copilot`. Quick workout commands answered with no model: one batched
//! read (workout, profile, idempotency record) and, for commands that change the workout, one
//! transactional write conditioned on the workout's version and the request's `corr`.

use std::time::Instant;

use chrono::Utc;
use lambda_http::{Body, Request, Response};
use serde_json::json;

use super::store_error;
use crate::api::{self, ApiError};
use crate::context::AuthMode;
use crate::domain::units::Unit;
use crate::router::{self, Intent, Lane};
use crate::skills::copilot::{self, CopilotError};
use crate::store::{CommitOutcome, IDEMPOTENCY_TTL_SECS, IdempotencyRecord, Store};
use crate::telemetry::RequestLog;

pub const ROUTE: &str = "/v1/copilot";

/// Attempts at read-apply-write before answering 409; each loser of a race re-reads and
/// applies its command to the new state (two "done" log two sets).
const MAX_ATTEMPTS: u32 = 6;

pub struct FastLane {
    store: Store,
    auth: AuthMode,
}

/// What the lane needs from the environment, read once at start-up.
#[derive(Debug, Clone)]
pub struct Config {
    pub table: String,
    pub auth: AuthMode,
}

impl Config {
    pub fn from_env() -> Result<Config, String> {
        let table = std::env::var("TABLE_NAME").map_err(|_| "TABLE_NAME is not set".to_string())?;
        if table.trim().is_empty() {
            return Err("TABLE_NAME is empty".into());
        }
        let auth = AuthMode::from_setting(std::env::var("AUTH_MODE").ok().as_deref())?;
        Ok(Config { table, auth })
    }
}

impl FastLane {
    pub fn new(store: Store, auth: AuthMode) -> Self {
        Self { store, auth }
    }

    pub async fn from_env() -> Result<Self, String> {
        let cfg = Config::from_env()?;
        Ok(Self::new(
            Store::from_env("fast", cfg.table).await,
            cfg.auth,
        ))
    }

    /// Handles one request; never fails (errors are responses) and logs one line.
    pub async fn handle(&self, req: Request) -> Response<Body> {
        let started = Instant::now();
        let mut log = RequestLog::for_request("fast", &req);
        let result = self.serve(&req, &mut log).await;
        super::finish(log, started, result)
    }

    async fn serve(&self, req: &Request, log: &mut RequestLog) -> Result<Response<Body>, ApiError> {
        if api::path(req) != ROUTE {
            return Err(ApiError::new(
                404,
                "NOT_FOUND",
                format!(
                    "no route {}; the fast lane serves POST {ROUTE}",
                    api::path(req)
                ),
            ));
        }
        if req.method() != "POST" {
            return Err(ApiError::method_not_allowed("POST", ROUTE));
        }
        self.command(req, log).await
    }

    /// A copilot command, whatever the route it came on (`/v1/copilot`, or `/v1/stream`
    /// answering in-process).
    pub(crate) async fn command(
        &self,
        req: &Request,
        log: &mut RequestLog,
    ) -> Result<Response<Body>, ApiError> {
        let message = api::extract_message(req)?;
        let (ctx, text) = super::bind(req, self.auth, &message, log)?;
        if text.is_empty() {
            let why = if !message.trim().is_empty() {
                "the message has only a context prefix"
            } else {
                "the message is empty"
            };
            return Err(ApiError::new(
                400,
                "EMPTY_MESSAGE",
                format!("{why}; send a command like 'done' or '8 @ 100'"),
            )
            .field("message"));
        }
        let route =
            router::route(text).map_err(|e| ApiError::new(400, "UNKNOWN_INTENT", e.to_string()))?;
        log.intent = route.intent.map(Intent::as_str);
        log.matched_rule = Some(route.matched_rule);
        if route.intent == Some(Intent::MonitorSkip) {
            // Silent acknowledgement of an unremarkable monitor event: no store access at all.
            log.outcome = "no_change";
            return Ok(reply(Intent::MonitorSkip, "", json!({})));
        }
        let Some(cmd) = route.command.filter(|_| route.lane == Lane::Fast) else {
            if let Some(e) = route.near_miss {
                return Err(ApiError::new(400, "INVALID_COMMAND", e.0));
            }
            let mut e = ApiError::new(
                422,
                "NOT_A_COMMAND",
                format!(
                    "this is not a workout command; send it to the {} lane",
                    route.lane.as_str()
                ),
            );
            e.lane = Some(if route.lane == Lane::Functional {
                "functional"
            } else {
                "slow"
            });
            return Err(e);
        };
        let intent = Intent::of_command(&cmd);
        // Validate what needs no stored data before touching the store.
        copilot::validate(&cmd, Unit::Kg).or_else(|e| match (&cmd, e.field) {
            // A weight typed without a unit is checked again below in the lifter's own unit.
            (router::Command::LogShorthand { unit: None, .. }, "weight") => Ok(()),
            _ => Err(e),
        })?;
        let fingerprint = fingerprint(intent, text, ctx.workout_id.as_deref());
        for attempt in 0..MAX_ATTEMPTS {
            let t = Instant::now();
            let state = self
                .store
                .copilot_state(&ctx.user_id, ctx.corr.as_deref(), Utc::now())
                .await;
            log.store_us += t.elapsed().as_micros() as u64;
            log.store_calls += 1;
            let state = state.map_err(|e| store_error(&e))?;
            if let Some(rec) = state.replay {
                if rec.fingerprint != fingerprint {
                    return Err(ApiError::new(
                        409,
                        "IDEMPOTENCY_KEY_REUSED",
                        "this corr was already used for a different request",
                    ));
                }
                log.outcome = "replayed";
                let mut resp = api::json_response(rec.status, &rec.body);
                resp.headers_mut().insert(
                    "idempotent-replay",
                    lambda_http::http::HeaderValue::from_static("true"),
                );
                return Ok(resp);
            }
            let unit = state.profile.as_ref().map(|p| p.unit).unwrap_or_default();
            copilot::validate(&cmd, unit)?;
            let (workout, version) = match &state.workout {
                Some(v) => (Some(&v.value), v.version),
                None => (None, 0),
            };
            let now = Utc::now();
            let outcome = copilot::apply(&cmd, workout, unit, ctx.workout_id.as_deref(), now)
                .map_err(|e| match e {
                    CopilotError::Invalid(l) => ApiError::from(l),
                    CopilotError::WorkoutMismatch { .. } => {
                        ApiError::new(409, "WORKOUT_MISMATCH", e.to_string())
                    }
                })?;
            let body = json!({ "lane": "fast", "intent": intent.as_str(), "text": outcome.text, "data": outcome.data });
            let Some(changed) = outcome.changed else {
                log.outcome = "no_change";
                return Ok(api::json_response(200, &body.to_string()));
            };
            let body_text = body.to_string();
            let record = ctx.corr.as_ref().map(|corr| IdempotencyRecord {
                corr: corr.clone(),
                fingerprint: fingerprint.clone(),
                status: 200,
                body: body_text.clone(),
                expires_at: now.timestamp() + IDEMPOTENCY_TTL_SECS,
            });
            let t = Instant::now();
            let committed = self
                .store
                .commit_workout(&ctx.user_id, &changed, version, record.as_ref(), now)
                .await;
            log.store_us += t.elapsed().as_micros() as u64;
            log.store_calls += 1;
            match committed.map_err(|e| store_error(&e))? {
                CommitOutcome::Committed => return Ok(api::json_response(200, &body_text)),
                CommitOutcome::VersionConflict | CommitOutcome::DuplicateRequest => {
                    // Someone else wrote first; back off a little (jittered) and re-apply.
                    crate::retry::pause(attempt).await;
                }
            }
        }
        Err(ApiError::new(
            409,
            "CONFLICT",
            "the workout kept changing while this command was applied; nothing was logged, please retry",
        ))
    }
}

fn reply(intent: Intent, text: &str, data: serde_json::Value) -> Response<Body> {
    api::json_response(
        200,
        &json!({ "lane": "fast", "intent": intent.as_str(), "text": text, "data": data })
            .to_string(),
    )
}

/// The same `corr` must carry the same command (case and surrounding spaces aside).
fn fingerprint(intent: Intent, text: &str, workout_id: Option<&str>) -> String {
    super::fingerprint(&[
        intent.as_str(),
        &text.trim().to_lowercase(),
        workout_id.unwrap_or(""),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_ignores_case_but_not_the_command() {
        assert_eq!(
            fingerprint(Intent::LogSet, "Done", None),
            fingerprint(Intent::LogSet, "done ", None)
        );
        assert_ne!(
            fingerprint(Intent::LogSet, "done", None),
            fingerprint(Intent::SkipSet, "skip", None)
        );
        assert_ne!(
            fingerprint(Intent::LogSet, "done", Some("w1")),
            fingerprint(Intent::LogSet, "done", None)
        );
    }
}
