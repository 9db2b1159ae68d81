//! FAST lane: `POST /v1/copilot`, the HTTP adapter of `app::command` (quick workout commands
//! answered with no model): the route, the body and the context prefix in, the use case's
//! outcome out as JSON.

use std::time::Instant;

use lambda_http::{Body, Request, Response};

use crate::api::{self, ApiError, ErrorCode};
use crate::app::command::{self, Reply};
use crate::config::Config;
use crate::context::AuthMode;
use crate::router;
use crate::store::Store;

pub(crate) const ROUTE: &str = "/v1/copilot";

pub struct FastLane {
    store: Store,
    auth: AuthMode,
}

impl FastLane {
    pub fn new(store: Store, auth: AuthMode) -> Self {
        Self { store, auth }
    }

    /// The lane `config` describes (read once in `main`).
    pub async fn from_config(config: &Config) -> Self {
        Self::new(
            Store::from_env("fast", config.table.clone()).await,
            config.auth,
        )
    }

    /// Handles one request; never fails (errors are responses) and logs one line.
    pub async fn handle(&self, req: Request) -> Response<Body> {
        let started = Instant::now();
        let log = api::request_log("fast", &req);
        let (result, log) = crate::telemetry::scope(log, self.serve(&req)).await;
        super::finish(log, started, result)
    }

    async fn serve(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        if api::path(req) != ROUTE {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!(
                    "no route {}; the fast lane serves POST {ROUTE}",
                    api::path(req)
                ),
            ));
        }
        if req.method() != "POST" {
            return Err(ApiError::method_not_allowed("POST", ROUTE));
        }
        self.command(req).await
    }

    /// A copilot command, whatever the route it came on (`/v1/copilot`, or `/v1/stream`
    /// answering in-process).
    pub(crate) async fn command(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let message = api::extract_message(req)?;
        let (ctx, text) = super::bind(req, self.auth, &message)?;
        if text.is_empty() {
            let why = if !message.trim().is_empty() {
                "the message has only a context prefix"
            } else {
                "the message is empty"
            };
            return Err(ApiError::new(
                ErrorCode::EmptyMessage,
                format!("{why}; send a command like 'done' or '8 @ 100'"),
            )
            .field("message"));
        }
        let route = router::route(text)
            .map_err(|e| ApiError::new(ErrorCode::UnknownIntent, e.to_string()))?;
        crate::telemetry::record_route(&route);
        Ok(match command::run(&self.store, &ctx, text, route).await? {
            command::Outcome::Answer { intent, text, data } => {
                api::json_response(200, &Reply::of(intent, &text, &data).to_json())
            }
            command::Outcome::Replay(first) => {
                let mut resp = api::json_response(200, &first.to_json());
                resp.headers_mut().insert(
                    "idempotent-replay",
                    lambda_http::http::HeaderValue::from_static("true"),
                );
                resp
            }
        })
    }
}
