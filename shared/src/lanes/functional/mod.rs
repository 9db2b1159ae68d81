//! FUNCTIONAL lane: the HTTP adapter of the use cases the app's buttons and events call. Each
//! route reads its request, calls its use case in `app` and writes the answer:
//!
//! - `POST /v1/functional`: smart buttons and the workout monitor (`app::buttons`), envelope
//!   `{success, action, data, intent}`;
//! - `POST /v1/events`: app events, with the notification gate (`app::events`);
//! - `GET`/`PATCH /v1/me`: the profile and preferences (`app::profile`); `DELETE /v1/me` and
//!   `GET /v1/me/export`: the whole account, deleted or exported (`app::account`);
//! - `GET /v1/workouts` (the history, newest first) and `GET /v1/workouts/{id}` (`app::history`);
//!   `PATCH`/`DELETE /v1/workouts/{id}`: fix or delete a completed workout (`app::workout_edit`);
//! - `GET /v1/exercises`: the exercise picker; `POST /v1/exercises`: an own exercise with what
//!   it trains; `POST /v1/exercises/{id}/merge`: an own exercise merged into the catalog one it
//!   is (`app::exercises`);
//! - `GET /v1/progress/exercises/{id}`, `GET /v1/progress/muscles` (`app::progress`);
//! - `GET /v1/routines/active`, `GET /v1/routines`, `GET /v1/templates`, `GET
//!   /v1/templates/{id}`, and the lifter's edits `PUT`/`DELETE /v1/templates/{id}`,
//!   `PUT`/`DELETE /v1/routines/{id}`, `POST /v1/routines/{id}/activate` (`app::plans`);
//! - `POST /v1/workouts`, `GET /v1/workouts/active`, `POST /v1/workouts/{id}/complete`
//!   (`app::workout`); `POST /v1/workouts/{id}/template`: a workout saved as a template
//!   (`app::plans`);
//! - `POST /v1/artifacts/{id}/confirm|dismiss` (`app::proposals`, shared with the coach's chat),
//!   `GET /v1/artifacts/{id}` and `GET /v1/artifacts` (the pending ones, for another device);
//! - `GET /v1/notifications`, `GET /v1/insights` (cards the worker wrote), `GET /v1/reviews`
//!   (weekly reviews), newest first, and `GET /v1/reviews/{week_ending}`;
//! - `GET /v1/conversations`, `GET /v1/conversations/{id}/messages`: the coach's chats, for a
//!   second device (`app::conversations`);
//! - `POST /v1/import/strong`: a Strong app export into the history (`import`);
//! - `POST /v1/health/samples`: health readings (`app::health`); `POST`/`GET /v1/devices`,
//!   `DELETE /v1/devices/{id}`: the phones pushes go to (`app::devices`).
//!
//! One file per group of routes: `buttons`, `app_events`, `lifecycle`, `history`, `import`,
//! `plans` (with progress), `profile`, `exercises`, `conversations`, `health` (with devices).

use std::time::Instant;

use chrono::Utc;
use lambda_http::{Body, Request, RequestExt, Response};
use serde_json::json;

mod app_events;
mod buttons;
mod conversations;
mod exercises;
mod health;
mod history;
mod import;
mod lifecycle;
mod plans;
mod profile;

use crate::app::params::*;

use super::bind;
use crate::api::{self, ApiError, ErrorCode};
use crate::app::assist::Assist;
use crate::app::progress::weeks_param;
use crate::app::{App, checked_id, invalid};
use crate::config::Config;
use crate::context::AuthMode;
use crate::queue::JobQueue;
use crate::router::{self, Intent, Lane};
use crate::store::Store;
use crate::store::activity::Feed;

/// Notifications per page: default and maximum.
const PAGE_DEFAULT: i32 = 20;
const PAGE_MAX: i32 = 100;

pub struct FunctionalLane {
    app: App,
    auth: AuthMode,
}

impl FunctionalLane {
    pub fn new(app: App, auth: AuthMode) -> Self {
        Self { app, auth }
    }

    /// The lane `config` describes (read once in `main`); `http` is the process's one model
    /// client, used only when `FUNCTIONAL_MODEL` is set.
    pub async fn from_config(config: &Config, http: &reqwest::Client) -> Result<Self, String> {
        let aws = crate::store::aws_config_from_env("functional").await;
        let lane = crate::llm::ModelLane::Functional;
        let key = crate::secrets::model_api_key(&aws, config, &[lane]).await?;
        let model = config
            .model(lane, key.as_deref())?
            .map(|c| crate::llm::ModelClients::new(&aws, Some(http.clone())).model(c))
            .transpose()?;
        let store = Store::from_config(&aws, config.table.clone());
        let meter = config.meter(&store);
        let app = App::new(
            store,
            JobQueue::new(&aws, &config.queue),
            Assist::new(model, meter),
        )
        .with_push(crate::push::Push::new(&aws, config.push.clone()));
        Ok(Self::new(app, config.auth))
    }

    /// Handles one request; never fails (errors are responses) and logs one line.
    pub async fn handle(&self, req: Request) -> Response<Body> {
        let started = Instant::now();
        let log = api::request_log("functional", &req);
        let (result, log) = crate::telemetry::scope(log, self.serve(&req)).await;
        super::finish(log, started, result)
    }

    /// Finds the route by path segments, then checks the method (a known path with another
    /// method is a 405 naming the allowed ones).
    #[expect(
        clippy::too_many_lines,
        reason = "the route table: one arm per path and method, the lane's index of its API"
    )]
    async fn serve(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let path = api::path(req);
        let method = req.method().as_str();
        let segments: Vec<&str> = path.split('/').skip(1).collect();
        let not_allowed = |allowed: &'static str| ApiError::method_not_allowed(allowed, &path);
        let no_route = || {
            ApiError::new(
                ErrorCode::NotFound,
                format!("no route {path} on the functional lane"),
            )
        };
        if segments.iter().any(|s| s.is_empty()) {
            return Err(no_route());
        }
        match (segments.as_slice(), method) {
            (["v1", "functional"], "POST") => self.functional(req).await,
            (["v1", "functional"], _) => Err(not_allowed("POST")),
            (["v1", "events"], "POST") => self.event(req).await,
            (["v1", "events"], _) => Err(not_allowed("POST")),
            (["v1", "me"], "GET") => self.me(req).await,
            (["v1", "me"], "PATCH") => self.update_me(req).await,
            (["v1", "me"], "DELETE") => self.delete_me(req).await,
            (["v1", "me"], _) => Err(not_allowed("DELETE, GET, PATCH")),
            (["v1", "me", "export"], "GET") => self.export(req).await,
            (["v1", "me", "export"], _) => Err(not_allowed("GET")),
            (["v1", "workouts"], "POST") => self.start_workout(req).await,
            (["v1", "workouts"], "GET") => self.history(req).await,
            (["v1", "workouts"], _) => Err(not_allowed("GET, POST")),
            (["v1", "workouts", "active"], "GET") => self.active_workout(req).await,
            (["v1", "workouts", "active"], _) => Err(not_allowed("GET")),
            (["v1", "workouts", id], "GET") => self.workout(req, checked_id(id, "id")?).await,
            (["v1", "workouts", id], "PATCH") => {
                self.edit_workout(req, checked_id(id, "id")?).await
            }
            (["v1", "workouts", id], "DELETE") => {
                self.delete_workout(req, checked_id(id, "id")?).await
            }
            (["v1", "workouts", _], _) => Err(not_allowed("DELETE, GET, PATCH")),
            (["v1", "workouts", id, "complete"], "POST") => {
                self.complete(req, checked_id(id, "id")?).await
            }
            (["v1", "workouts", _, "complete"], _) => Err(not_allowed("POST")),
            (["v1", "workouts", id, "template"], "POST") => {
                self.save_as_template(req, checked_id(id, "id")?).await
            }
            (["v1", "workouts", _, "template"], _) => Err(not_allowed("POST")),
            (["v1", "workouts", id, "sync"], "POST") => self.sync(req, checked_id(id, "id")?).await,
            (["v1", "workouts", _, "sync"], _) => Err(not_allowed("POST")),
            (["v1", "progress", "exercises", id], "GET") => {
                self.exercise_progress(req, checked_id(id, "id")?).await
            }
            (["v1", "progress", "exercises", _], _) => Err(not_allowed("GET")),
            (["v1", "progress", "muscles"], "GET") => self.muscle_progress(req).await,
            (["v1", "progress", "muscles"], _) => Err(not_allowed("GET")),
            (["v1", "exercises"], "GET") => self.exercises(req).await,
            (["v1", "exercises"], "POST") => self.define_exercise(req).await,
            (["v1", "exercises"], _) => Err(not_allowed("GET, POST")),
            (["v1", "exercises", id, "merge"], "POST") => {
                self.merge_exercise(req, checked_id(id, "id")?).await
            }
            (["v1", "exercises", _, "merge"], _) => Err(not_allowed("POST")),
            (["v1", "routines", "active"], "GET") => self.active_routine(req).await,
            (["v1", "routines", "active"], _) => Err(not_allowed("GET")),
            (["v1", "templates"], "GET") => self.templates(req).await,
            (["v1", "templates"], _) => Err(not_allowed("GET")),
            (["v1", "templates", id], "GET") => self.template(req, checked_id(id, "id")?).await,
            (["v1", "templates", id], "PUT") => self.put_template(req, checked_id(id, "id")?).await,
            (["v1", "templates", id], "DELETE") => {
                self.delete_template(req, checked_id(id, "id")?).await
            }
            (["v1", "templates", _], _) => Err(not_allowed("DELETE, GET, PUT")),
            (["v1", "routines"], "GET") => self.routines(req).await,
            (["v1", "routines"], _) => Err(not_allowed("GET")),
            (["v1", "routines", id], "PUT") if *id != "active" => {
                self.put_routine(req, checked_id(id, "id")?).await
            }
            (["v1", "routines", id], "DELETE") if *id != "active" => {
                self.delete_routine(req, checked_id(id, "id")?).await
            }
            (["v1", "routines", _], _) => Err(not_allowed("DELETE, PUT")),
            (["v1", "routines", id, "activate"], "POST") => {
                self.activate_routine(req, checked_id(id, "id")?).await
            }
            (["v1", "routines", _, "activate"], _) => Err(not_allowed("POST")),
            (["v1", "notifications"], "GET") => self.feed(req, Feed::Notifications).await,
            (["v1", "notifications"], _) => Err(not_allowed("GET")),
            (["v1", "insights"], "GET") => self.feed(req, Feed::Insights).await,
            (["v1", "insights"], _) => Err(not_allowed("GET")),
            (["v1", "reviews"], "GET") => self.feed(req, Feed::Reviews).await,
            (["v1", "reviews"], _) => Err(not_allowed("GET")),
            (["v1", "reviews", day], "GET") => self.review(req, day).await,
            (["v1", "reviews", _], _) => Err(not_allowed("GET")),
            (["v1", "conversations"], "GET") => self.conversations(req).await,
            (["v1", "conversations"], _) => Err(not_allowed("GET")),
            (["v1", "conversations", id, "messages"], "GET") => {
                self.messages(req, checked_id(id, "id")?).await
            }
            (["v1", "conversations", _, "messages"], _) => Err(not_allowed("GET")),
            (["v1", "health", "samples"], "POST") => self.health_samples(req).await,
            (["v1", "health", "samples"], _) => Err(not_allowed("POST")),
            (["v1", "devices"], "POST") => self.register_device(req).await,
            (["v1", "devices"], "GET") => self.devices(req).await,
            (["v1", "devices"], _) => Err(not_allowed("GET, POST")),
            (["v1", "devices", id], "DELETE") => {
                self.remove_device(req, checked_id(id, "id")?).await
            }
            (["v1", "devices", _], _) => Err(not_allowed("DELETE")),
            (["v1", "import", "strong"], "POST") => self.import_strong(req).await,
            (["v1", "import", "strong"], _) => Err(not_allowed("POST")),
            (["v1", "artifacts"], "GET") => self.pending_artifacts(req).await,
            (["v1", "artifacts"], _) => Err(not_allowed("GET")),
            (["v1", "artifacts", id], "GET") => self.get_artifact(req, checked_id(id, "id")?).await,
            (["v1", "artifacts", _], _) => Err(not_allowed("GET")),
            (["v1", "artifacts", id, action @ ("confirm" | "dismiss")], "POST") => {
                self.artifact(req, checked_id(id, "id")?, *action == "confirm")
                    .await
            }
            (["v1", "artifacts", _, "confirm" | "dismiss"], _) => Err(not_allowed("POST")),
            _ => Err(no_route()),
        }
    }
}

// -------------------------------------------------------------------- helpers

/// A request's identity and its body as a JSON object (a context prefix before it gives the
/// request's `corr`); `empty_ok` takes no body as `{}`.
fn object_body(
    req: &Request,
    auth: AuthMode,
    empty_ok: bool,
) -> Result<(crate::context::SessionContext, serde_json::Value), ApiError> {
    let message = api::extract_payload(req)?;
    let (ctx, text) = bind(req, auth, &message)?;
    Ok((ctx, json_object(text, empty_ok)?))
}

/// A JSON answer of a typed outcome.
fn json_body(status: u16, body: &impl serde::Serialize) -> Response<Body> {
    match serde_json::to_string(body) {
        Ok(text) => api::json_response(status, &text),
        Err(_) => ApiError::internal().to_response(),
    }
}

/// A page's `limit` (1 to 100, default 20) and `cursor` (the `next_cursor` of the previous
/// page, decoded to the store key it stands for, which `holds` must accept). An empty cursor is
/// the first page, as no cursor is.
fn page_params(
    req: &Request,
    holds: impl Fn(&str) -> bool,
) -> Result<(i32, Option<String>), ApiError> {
    let params = req.query_string_parameters();
    let limit = match params.first("limit") {
        Some(l) => l
            .parse::<i32>()
            .ok()
            .filter(|l| (1..=PAGE_MAX).contains(l))
            .ok_or_else(|| {
                invalid(
                    &format!("limit must be a number from 1 to {PAGE_MAX}"),
                    "limit",
                )
            })?,
        None => PAGE_DEFAULT,
    };
    let cursor = match params.first("cursor").filter(|c| !c.is_empty()) {
        Some(c) => Some(
            decode_cursor(c)
                .filter(|sk| holds(sk))
                .ok_or_else(|| invalid("cursor is not one this endpoint returned", "cursor"))?,
        ),
        None => None,
    };
    Ok((limit, cursor))
}

/// One page of a list held whole, by offset: at most `limit` items from the cursor's offset (none
/// past the end, however large the offset: a forged one is an empty page, not an overflow), and
/// the next page's cursor (`prefix` and the offset it starts at) while items remain.
fn offset_page<'a, T>(
    all: &'a [T],
    cursor: Option<&str>,
    prefix: &str,
    limit: i32,
) -> (&'a [T], Option<String>) {
    let from = cursor
        .and_then(|c| offset_of(c, prefix))
        .unwrap_or(0)
        .min(all.len());
    let end = from.saturating_add(limit.max(0) as usize).min(all.len());
    let next = (end < all.len()).then(|| encode_cursor(&format!("{prefix}{end}")));
    (&all[from..end], next)
}

/// The offset an offset cursor (`prefix` then a number) stands for.
fn offset_of(cursor: &str, prefix: &str) -> Option<usize> {
    cursor.strip_prefix(prefix)?.parse().ok()
}

/// Cursors are the last sort key, hex-encoded (opaque to the app, safe in a query string).
fn encode_cursor(sk: &str) -> String {
    sk.bytes().map(|b| format!("{b:02x}")).collect()
}

fn decode_cursor(c: &str) -> Option<String> {
    if !c.len().is_multiple_of(2) || c.len() > 400 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..c.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(c.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

/// An error on /v1/functional also carries the envelope (`success: false`, action ERROR).
fn envelope_error(e: impl Into<ApiError>, intent: Option<Intent>) -> ApiError {
    let e = e.into();
    let message = e.error.message.clone();
    e.with("success", json!(false))
        .with("action", json!("ERROR"))
        .with("data", json!({ "message": message }))
        .with("intent", json!(intent.map(Intent::as_str)))
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
    fn functional_errors_carry_the_envelope() {
        let e = envelope_error(invalid("bad", "target"), Some(Intent::SwapExercise));
        let b = e.body();
        assert_eq!(b["success"], false);
        assert_eq!(b["action"], "ERROR");
        assert_eq!(b["intent"], "SWAP_EXERCISE");
        assert_eq!(b["error"]["field"], "target");
    }
}
