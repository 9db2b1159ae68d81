//! SLOW lane: `POST /v1/stream`, the multiplexed endpoint, answered as server-sent events: the
//! HTTP and SSE adapter of the coach (`agent`). The first event is `route`; commands and buttons
//! are answered in-process by the same use cases as their own routes (`app::command`,
//! `app::buttons`: `message` or `result`, then `done`), with no model call; anything else goes
//! to the coach. `done` is always the last event, also after an `error`.
//!
//! A request that cannot be streamed at all (wrong route or method, bad body, bad prefix, no
//! identity) gets an ordinary JSON error with its HTTP status, like every other endpoint.

pub(crate) mod sse;

use std::sync::Arc;
use std::time::{Duration, Instant};

use lambda_http::lambda_runtime::streaming::Body as StreamBody;
use lambda_http::{Body, Request, RequestExt, Response};
use serde_json::{Value, json};

use crate::agent::{Coach, StreamEvent, model_loop};
use crate::api::{self, ApiError, ErrorCode};
use crate::app::App;
use crate::app::assist::Assist;
use crate::app::buttons::Button;
use crate::app::command;
use crate::config::Config;
use crate::context::{AuthMode, SessionContext};
use crate::llm::{Model, ModelLane};
use crate::queue::JobQueue;
use crate::router::{self, Intent, Lane, Route};
use crate::skills::copilot::{CommandData, Shown};
use crate::store::Store;

const ROUTE: &str = "/v1/stream";
/// `x-coach-trace: 1` on the local stack (`AUTH_MODE=dev`): tool results and the turn's trace in
/// the stream, for `devstack eval`. Ignored with real authentication.
const TRACE_HEADER: &str = "x-coach-trace";
/// Time kept back from the invocation's deadline to close the stream cleanly.
const DEADLINE_MARGIN: Duration = Duration::from_secs(2);
/// Without a Lambda deadline (tests, local runs).
const DEFAULT_BUDGET: Duration = Duration::from_secs(120);

pub struct SlowLane {
    auth: AuthMode,
    /// The use cases a command or a button runs in-process.
    app: App,
    coach: Coach,
    heartbeat: Duration,
}

impl SlowLane {
    /// The lane `config` describes (read once in `main`); `http` is the process's one model
    /// client.
    pub async fn from_config(config: &Config, http: &reqwest::Client) -> Result<Self, String> {
        let aws = crate::store::aws_config_from_env("slow").await;
        let lanes = [ModelLane::Slow, ModelLane::Functional];
        let key = crate::secrets::model_api_key(&aws, config, &lanes).await?;
        let clients = crate::llm::ModelClients::new(&aws, Some(http.clone()));
        let model = |lane| -> Result<Option<Model>, String> {
            config
                .model(lane, key.as_deref())?
                .map(|c| clients.model(c))
                .transpose()
        };
        let store = Store::from_config(&aws, config.table.clone());
        let meter = config.meter(&store);
        let app = App::new(
            store,
            JobQueue::new(&aws, &config.queue),
            Assist::new(model(ModelLane::Functional)?, meter.clone()),
        );
        Ok(SlowLane {
            coach: Coach::new(app.clone(), model(ModelLane::Slow)?, meter),
            app,
            auth: config.auth,
            // Tests shorten the heartbeat; the contract is 10 s.
            heartbeat: config.heartbeat.unwrap_or(sse::HEARTBEAT),
        })
    }

    /// Handles one request: an event stream, or a JSON error when it cannot start one.
    pub async fn handle(self: Arc<Self>, req: Request) -> Response<StreamBody> {
        let started = Instant::now();
        let log = api::request_log("slow", &req);
        let deadline = invocation_deadline(&req);
        let serve = Box::pin(self.clone().serve(req, started, deadline));
        let (result, mut log) = crate::telemetry::scope(log, serve).await;
        let resp = match result {
            Ok(resp) => resp,
            Err(e) => {
                log.outcome = e.code();
                let (parts, body) = e.to_response().into_parts();
                Response::from_parts(parts, sse::body_of(vec![body_bytes(body)]))
            }
        };
        // The coach's stream emits its own line when it ends.
        if !log.is_handed_off() {
            log.status = resp.status().as_u16();
            log.latency_us = started.elapsed().as_micros() as u64;
            log.emit();
        }
        resp
    }

    async fn serve(
        self: Arc<Self>,
        req: Request,
        started: Instant,
        deadline: tokio::time::Instant,
    ) -> Result<Response<StreamBody>, ApiError> {
        if api::path(&req) != ROUTE {
            return Err(ApiError::new(
                ErrorCode::NotFound,
                format!(
                    "no route {}; the slow lane serves POST {ROUTE}",
                    api::path(&req)
                ),
            ));
        }
        if req.method() != "POST" {
            return Err(ApiError::method_not_allowed("POST", ROUTE));
        }
        let message = api::extract_payload(&req)?;
        let (ctx, text) = super::bind(&req, self.auth, &message)?;
        if text.trim().is_empty() {
            return Err(
                ApiError::new(ErrorCode::EmptyMessage, "the message is empty").field("message"),
            );
        }
        let mut route = router::route(text)
            .map_err(|e| ApiError::new(ErrorCode::UnknownIntent, e.to_string()))?;
        // Rules first; text they cannot place goes to the small model, when there is one.
        if route.lane == Lane::Slow
            && route.intent.is_none()
            && self.app.assist.enabled()
            && let Some(intent) = self.app.assist.classify(&ctx.user_id, text).await
        {
            route.intent = Some(intent);
            route.matched_rule = "model:classifier";
            route.confidence = router::Confidence::Medium;
        }
        crate::telemetry::record_route(&route);
        let route_event = StreamEvent::Route {
            lane: route.lane.as_str(),
            intent: route.intent.map(Intent::as_str),
            matched_rule: route.matched_rule,
            confidence: route.confidence,
            signals: route.signals.clone(),
        };
        // FAST and FUNCTIONAL: the same code as their binaries, in-process, no model.
        if route.lane != Lane::Slow {
            let frames = self
                .in_process(&ctx, text, route, route_event, started)
                .await;
            return Ok(event_stream(sse::body_of(frames)));
        }
        let trace = wants_trace(self.auth, &req);
        let text = text.to_string();
        // A few coach answers of a lifter's at a time: each may run 120 s and call a model.
        let now = chrono::Utc::now();
        let until = now + chrono::Duration::seconds(STREAM_LEASE_SECS);
        let lease = match self
            .app
            .store
            .take_lease(&ctx.user_id, "stream", STREAMS_PER_LIFTER, until, now)
            .await?
        {
            Ok(lease) => lease,
            Err(free_in) => {
                let mut e = ApiError::new(
                    ErrorCode::TooManyStreams,
                    format!(
                        "{STREAMS_PER_LIFTER} answers of the coach are already on their way; try again when one has finished"
                    ),
                );
                e.retry_after = Some(free_in);
                return Err(e);
            }
        };
        let turn = Turn {
            ctx,
            text,
            intent: route.intent,
            route_event,
            trace,
            lease,
        };
        Ok(self.coach_stream(turn, started, deadline))
    }

    /// A command or a button answered in-process, framed as a stream. A command runs the FAST
    /// use case and its answer is framed as it is (a retried request's first answer as it was
    /// stored); a button is still the FUNCTIONAL lane's response.
    async fn in_process(
        &self,
        ctx: &SessionContext,
        text: &str,
        route: Route,
        route_event: StreamEvent,
        started: Instant,
    ) -> Vec<bytes::Bytes> {
        let (lane, intent) = (route.lane, route.intent);
        // Boxed: these futures are large and deep.
        let answer: Result<Vec<StreamEvent>, ApiError> = if lane == Lane::Fast {
            Box::pin(command::run(&self.app.store, ctx, text, route))
                .await
                .map(command_events)
                .map_err(ApiError::from)
        } else {
            let intent = intent.unwrap_or(Intent::MonitorState);
            match Button::parse(intent, text) {
                Ok(button) => Box::pin(self.app.press(ctx, &button))
                    .await
                    .map(|a| {
                        vec![StreamEvent::Result(StreamEvent::fields(
                            a.to_envelope(intent),
                        ))]
                    })
                    .map_err(ApiError::from),
                Err(e) => Err(ApiError::from(e)),
            }
        };
        let mut frames = vec![sse::frame(&route_event)];
        match answer {
            Ok(events) => frames.extend(events.iter().map(sse::frame)),
            Err(e) => {
                crate::telemetry::record(|log| log.outcome = e.code());
                frames.push(sse::frame(&StreamEvent::error(e.code(), e.error.message)));
            }
        }
        frames.push(sse::frame(&StreamEvent::Done {
            lane: lane.as_str(),
            intent: intent.map(Intent::as_str),
            latency_ms: started.elapsed().as_millis() as u64,
            usage: None,
            trace: None,
        }));
        frames
    }

    /// The coach's answer, streamed as it is made: the stream's task owns the request's log
    /// line and writes it, and gives the lease back, when the answer ends.
    fn coach_stream(
        self: Arc<Self>,
        turn: Turn,
        started: Instant,
        deadline: tokio::time::Instant,
    ) -> Response<StreamBody> {
        let Turn {
            ctx,
            text,
            intent,
            route_event,
            trace,
            lease,
        } = turn;
        let (emit, body) = sse::open(self.heartbeat);
        let emit = if trace { emit.traced() } else { emit };
        let log = crate::telemetry::hand_off();
        tokio::spawn(async move {
            let stream = async {
                emit.send(route_event).await;
                let answer = self.coach.answer(&ctx, &text, intent, &emit, deadline);
                let outcome = Box::pin(answer).await;
                emit.send(model_loop::done_event(intent, started, &outcome))
                    .await;
                let store = &self.app.store;
                if let Err(e) = store
                    .give_back(&ctx.user_id, &lease, chrono::Utc::now())
                    .await
                {
                    // It expires by itself when the stream's time is up.
                    tracing::warn!(error = %e, "could not give the stream's lease back");
                }
                outcome
            };
            let (outcome, mut log) = crate::telemetry::scope(log, stream).await;
            log.status = 200;
            log.record_tokens(outcome.usage);
            log.failed_in_stream = outcome.error.is_some();
            log.outcome = outcome.error.unwrap_or(if emit.client_gone() {
                "client_gone"
            } else {
                "ok"
            });
            log.latency_us = started.elapsed().as_micros() as u64;
            log.emit();
        });
        event_stream(body)
    }
}

/// Coach answers one lifter may have streaming at once.
const STREAMS_PER_LIFTER: u32 = 3;
/// How long a stream holds its lease: the function's 120 s and a margin.
const STREAM_LEASE_SECS: i64 = 125;

/// A coach turn about to stream: the request's parts and the lease it holds.
struct Turn {
    ctx: SessionContext,
    text: String,
    intent: Option<Intent>,
    route_event: StreamEvent,
    trace: bool,
    lease: crate::store::leases::Lease,
}

/// A command's answer as the stream shows it: its `message`, and when the plan could not settle
/// which set the lifter meant, the `clarification` whose options are commands to send as they
/// are. A retried request (same `corr`) gets its first answer as it was stored; only answers
/// that changed the workout are stored, never a question.
fn command_events(outcome: command::Outcome) -> Vec<StreamEvent> {
    match outcome {
        command::Outcome::Answer { text, data, .. } => {
            let asked = match &data {
                CommandData::Workout {
                    sets: Shown::Clarification { clarification },
                    ..
                } => Some(StreamEvent::Clarification {
                    id: "set_reading".into(),
                    question: clarification.question.clone(),
                    options: clarification.options.clone(),
                }),
                _ => None,
            };
            let message = StreamEvent::Message {
                text,
                data: Some(json!(data)),
            };
            std::iter::once(message).chain(asked).collect()
        }
        command::Outcome::Replay(first) => {
            let data = serde_json::from_str(first.data.get()).unwrap_or(Value::Null);
            vec![StreamEvent::Message {
                text: first.text,
                data: Some(data),
            }]
        }
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

/// The evaluation's view of a turn (`x-coach-trace: 1`): on the local stack only, never for a
/// request authenticated by the user pool.
fn wants_trace(auth: AuthMode, req: &Request) -> bool {
    auth == AuthMode::Dev && api::header_str(req, TRACE_HEADER) == Some("1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_is_for_the_local_stack_only() {
        let req = |trace: Option<&str>| {
            let mut b = lambda_http::http::Request::builder().uri("/v1/stream");
            if let Some(v) = trace {
                b = b.header(TRACE_HEADER, v);
            }
            b.body(Body::Empty).expect("request")
        };
        assert!(wants_trace(AuthMode::Dev, &req(Some("1"))));
        assert!(!wants_trace(AuthMode::Jwt, &req(Some("1"))));
        assert!(!wants_trace(AuthMode::Dev, &req(None)));
        assert!(!wants_trace(AuthMode::Dev, &req(Some("yes"))));
    }
}
