//! SLOW lane: `POST /v1/stream`, the multiplexed endpoint (DESIGN §5), answered as server-sent
//! events. The first event is `route`; FAST and FUNCTIONAL routes are answered in-process by the
//! same code as their binaries (`message` or `result`, then `done`), with no model call; anything
//! else goes to the coach (`agent`). `done` is always the last event, also after an `error`.
//!
//! A request that cannot be streamed at all (wrong route or method, bad body, bad prefix, no
//! identity) gets an ordinary JSON error with its HTTP status, like every other endpoint.

pub mod agent;
pub mod instruction;
pub mod sse;
pub mod tools;

use std::sync::Arc;
use std::time::{Duration, Instant};

use lambda_http::lambda_runtime::streaming::Body as StreamBody;
use lambda_http::{Body, Request, RequestExt, Response};
use serde_json::{Value, json};

use super::fast::FastLane;
use super::functional::FunctionalLane;
use super::functional::assist::Assist;
use crate::api::{self, ApiError};
use crate::context::AuthMode;
use crate::llm::{Model, ModelLane};
use crate::queue::JobQueue;
use crate::router::{self, Intent, Lane};
use crate::store::Store;
use crate::telemetry::RequestLog;

const ROUTE: &str = "/v1/stream";
/// Time kept back from the invocation's deadline to close the stream cleanly.
const DEADLINE_MARGIN: Duration = Duration::from_secs(2);
/// Without a Lambda deadline (tests, local runs).
const DEFAULT_BUDGET: Duration = Duration::from_secs(120);

pub struct SlowLane {
    store: Store,
    auth: AuthMode,
    model: Option<Model>,
    fast: FastLane,
    functional: FunctionalLane,
    heartbeat: Duration,
}

impl SlowLane {
    pub async fn from_env(http: &reqwest::Client) -> Result<Self, String> {
        let cfg = super::fast::Config::from_env()?;
        let model = Model::from_env(ModelLane::Slow, http)?;
        let functional_model = Model::from_env(ModelLane::Functional, http)?;
        let aws = crate::store::aws_config_from_env().await;
        let store = Store::from_config(&aws, cfg.table);
        // Tests shorten the heartbeat; the contract is 10 s.
        let heartbeat = std::env::var("STREAM_HEARTBEAT_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|ms| *ms >= 100)
            .map_or(sse::HEARTBEAT, Duration::from_millis);
        Ok(SlowLane {
            fast: FastLane::new(store.clone(), cfg.auth),
            functional: FunctionalLane::new(
                store.clone(),
                JobQueue::from_env(&aws),
                cfg.auth,
                Assist::new(functional_model),
            ),
            store,
            auth: cfg.auth,
            model,
            heartbeat,
        })
    }

    /// Handles one request: an event stream, or a JSON error when it cannot start one.
    pub async fn handle(self: Arc<Self>, req: Request) -> Response<StreamBody> {
        let started = Instant::now();
        let mut log = RequestLog::for_request("slow", &req);
        let deadline = invocation_deadline(&req);
        match Box::pin(self.clone().serve(req, &mut log, started, deadline)).await {
            Ok(resp) => resp,
            Err(e) => {
                log.outcome = e.code;
                log.status = e.status;
                log.latency_us = started.elapsed().as_micros() as u64;
                log.emit();
                let (parts, body) = e.to_response().into_parts();
                Response::from_parts(parts, sse::body_of(vec![body_bytes(body)]))
            }
        }
    }

    async fn serve(
        self: Arc<Self>,
        req: Request,
        log: &mut RequestLog,
        started: Instant,
        deadline: tokio::time::Instant,
    ) -> Result<Response<StreamBody>, ApiError> {
        if api::path(&req) != ROUTE {
            return Err(ApiError::new(
                404,
                "NOT_FOUND",
                format!(
                    "no route {}; the slow lane serves POST {ROUTE}",
                    api::path(&req)
                ),
            ));
        }
        if req.method() != "POST" {
            return Err(ApiError::new(
                405,
                "METHOD_NOT_ALLOWED",
                format!("use POST {ROUTE}"),
            ));
        }
        let message = api::extract_payload(&req)?;
        let (ctx, text) = super::bind(&req, self.auth, &message, log)?;
        if text.trim().is_empty() {
            return Err(
                ApiError::new(400, "EMPTY_MESSAGE", "the message is empty").field("message")
            );
        }
        let route =
            router::route(text).map_err(|e| ApiError::new(400, "UNKNOWN_INTENT", e.to_string()))?;
        log.intent = route.intent.map(Intent::as_str);
        log.matched_rule = Some(route.matched_rule);
        let route_event = sse::frame(
            "route",
            json!({
                "lane": route.lane.as_str(),
                "intent": route.intent.map(Intent::as_str),
                "matched_rule": route.matched_rule,
                "confidence": route.confidence,
            }),
        );
        let intent = route.intent;
        // FAST and FUNCTIONAL: the same code as their binaries, in-process, no model.
        if route.lane != Lane::Slow {
            let mut inner = RequestLog::new("slow", None);
            // Boxed: the other lanes' futures are large and deep.
            let answer = match route.lane {
                Lane::Fast => Box::pin(self.fast.command(&req, &mut inner)).await,
                _ => Box::pin(self.functional.functional(&req, &mut inner)).await,
            };
            log.store_us = inner.store_us;
            log.store_calls = inner.store_calls;
            let mut frames = vec![route_event];
            let (status, body) = match answer {
                Ok(r) => {
                    let status = r.status().as_u16();
                    (status, body_json(r.into_body()))
                }
                Err(e) => {
                    log.outcome = e.code;
                    (e.status, e.body())
                }
            };
            if status >= 400 {
                frames.push(sse::frame(
                    "error",
                    json!({
                        "code": body["error"]["code"], "message": body["error"]["message"],
                    }),
                ));
            } else if route.lane == Lane::Fast {
                frames.push(sse::frame(
                    "message",
                    json!({ "text": body["text"], "data": body["data"] }),
                ));
            } else {
                frames.push(sse::frame("result", body));
            }
            frames.push(sse::frame(
                "done",
                json!({
                    "lane": route.lane.as_str(),
                    "intent": intent.map(Intent::as_str),
                    "latency_ms": started.elapsed().as_millis() as u64,
                }),
            ));
            log.status = 200;
            log.latency_us = started.elapsed().as_micros() as u64;
            log.emit();
            return Ok(event_stream(sse::body_of(frames)));
        }
        let (emit, body) = sse::open(self.heartbeat);
        let text = text.to_string();
        let mut log = std::mem::take(log);
        tokio::spawn(async move {
            emit.send_frame(route_event).await;
            let outcome = match &self.model {
                Some(model) => {
                    agent::run(model, &self.store, &ctx, &text, intent, &emit, deadline).await
                }
                None => {
                    emit.send("error", json!({
                        "code": "MODEL_NOT_CONFIGURED",
                        "message": "No coach model is configured on this server. Set SLOW_MODEL (and MODEL_PROVIDER with GEMINI_API_KEY, or OPENAI_BASE_URL) to enable the coach; workout commands and buttons work without it.",
                    }))
                    .await;
                    agent::Outcome {
                        error: Some("MODEL_NOT_CONFIGURED"),
                        ..agent::Outcome::default()
                    }
                }
            };
            emit.send("done", agent::done_data(intent, started, &outcome))
                .await;
            log.status = 200;
            log.outcome = outcome.error.unwrap_or(if emit.client_gone() {
                "client_gone"
            } else {
                "ok"
            });
            log.latency_us = started.elapsed().as_micros() as u64;
            log.emit();
        });
        Ok(event_stream(body))
    }
}

fn event_stream(body: StreamBody) -> Response<StreamBody> {
    let mut resp = Response::new(body);
    let h = resp.headers_mut();
    h.insert(
        "content-type",
        lambda_http::http::HeaderValue::from_static("text/event-stream"),
    );
    h.insert(
        "cache-control",
        lambda_http::http::HeaderValue::from_static("no-cache"),
    );
    resp
}

fn body_bytes(body: Body) -> bytes::Bytes {
    match body {
        Body::Text(t) => t.into(),
        Body::Binary(b) => b.into(),
        _ => bytes::Bytes::new(),
    }
}

fn body_json(body: Body) -> Value {
    serde_json::from_slice(&body_bytes(body)).unwrap_or(Value::Null)
}

/// The invocation's deadline less a margin, as a tokio instant.
fn invocation_deadline(req: &Request) -> tokio::time::Instant {
    let now = tokio::time::Instant::now();
    let budget = req
        .lambda_context_ref()
        .map(|c| c.deadline)
        .filter(|d| *d > 0)
        .and_then(|d| {
            let now_ms = chrono::Utc::now().timestamp_millis().max(0) as u64;
            d.checked_sub(now_ms).map(Duration::from_millis)
        })
        .map_or(DEFAULT_BUDGET, |b| b.saturating_sub(DEADLINE_MARGIN));
    now + budget
}
