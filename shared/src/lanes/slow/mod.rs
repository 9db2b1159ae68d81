//! SLOW lane: `POST /v1/stream`, the multiplexed endpoint (DESIGN §5), answered as server-sent
//! events. The first event is `route`; FAST and FUNCTIONAL routes are answered in-process by the
//! same code as their binaries (`message` or `result`, then `done`), with no model call; anything
//! else goes to the coach (`agent`). `done` is always the last event, also after an `error`.
//!
//! A request that cannot be streamed at all (wrong route or method, bad body, bad prefix, no
//! identity) gets an ordinary JSON error with its HTTP status, like every other endpoint.

pub mod agent;
pub mod briefing;
pub mod budget;
pub mod critic;
pub mod gate;
pub mod instruction;
pub mod sse;
pub mod tools;

use std::sync::Arc;
use std::time::{Duration, Instant};

use lambda_http::lambda_runtime::streaming::Body as StreamBody;
use lambda_http::{Body, Request, RequestExt, Response};
use serde_json::{Value, json};

use crate::app::App;
use crate::app::assist::Assist;
use crate::app::buttons::Button;
use crate::app::command;
use chrono::Utc;

use crate::api::{self, ApiError};
use crate::context::{AuthMode, SessionContext};
use crate::domain::artifact::{Artifact, ArtifactStatus, Proposal};
use crate::llm::{Model, ModelLane};
use crate::queue::JobQueue;
use crate::router::{self, Intent, Lane};
use crate::store::conversation::Exchange;
use crate::store::{Store, StoreError};
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
    /// The use cases a command, a button or a coach tool runs in-process.
    app: App,
    heartbeat: Duration,
    budget: budget::Budget,
}

impl SlowLane {
    pub async fn from_env(http: &reqwest::Client) -> Result<Self, String> {
        let cfg = super::fast::Config::from_env()?;
        let aws = crate::store::aws_config_from_env("slow").await;
        let key =
            crate::secrets::model_api_key(&aws, &[ModelLane::Slow, ModelLane::Functional]).await?;
        let model = Model::from_env(ModelLane::Slow, http, key.as_deref())?;
        let functional_model = Model::from_env(ModelLane::Functional, http, key.as_deref())?;
        let store = Store::from_config(&aws, cfg.table);
        // Tests shorten the heartbeat; the contract is 10 s.
        let heartbeat = std::env::var("STREAM_HEARTBEAT_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|ms| *ms >= 100)
            .map_or(sse::HEARTBEAT, Duration::from_millis);
        Ok(SlowLane {
            app: App::new(
                store.clone(),
                JobQueue::from_env(&aws),
                Assist::new(functional_model),
            ),
            store,
            auth: cfg.auth,
            model,
            heartbeat,
            budget: budget::Budget::from_env()?,
        })
    }

    /// Handles one request: an event stream, or a JSON error when it cannot start one.
    pub async fn handle(self: Arc<Self>, req: Request) -> Response<StreamBody> {
        let started = Instant::now();
        let log = RequestLog::for_request("slow", &req);
        let deadline = invocation_deadline(&req);
        let serve = Box::pin(self.clone().serve(req, started, deadline));
        let (result, mut log) = crate::telemetry::scope(log, serve).await;
        let resp = match result {
            Ok(resp) => resp,
            Err(e) => {
                log.outcome = e.code;
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
                404,
                "NOT_FOUND",
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
                ApiError::new(400, "EMPTY_MESSAGE", "the message is empty").field("message")
            );
        }
        let route =
            router::route(text).map_err(|e| ApiError::new(400, "UNKNOWN_INTENT", e.to_string()))?;
        crate::telemetry::record(|log| {
            log.intent = route.intent.map(Intent::as_str);
            log.matched_rule = Some(route.matched_rule);
        });
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
            let lane = route.lane;
            // A command runs the FAST use case in-process and its answer is framed as it is (a
            // retried request's first answer as it was stored); a button is still the
            // FUNCTIONAL lane's response. Boxed: these futures are large and deep.
            let answer = if lane == Lane::Fast {
                Box::pin(command::run(&self.store, &ctx, text, route))
                    .await
                    .map(|o| match o {
                        command::Outcome::Answer { text, data, .. } => {
                            (200, json!({ "text": text, "data": data }))
                        }
                        command::Outcome::Replay { status, body } => {
                            (status, serde_json::from_str(&body).unwrap_or(Value::Null))
                        }
                    })
            } else {
                let intent = intent.unwrap_or(Intent::MonitorState);
                match Button::parse(intent, text) {
                    Ok(button) => Box::pin(self.app.press(&ctx, &button))
                        .await
                        .map(|a| (200, a.to_envelope(intent))),
                    Err(e) => Err(e),
                }
            };
            let mut frames = vec![route_event];
            let (status, body) = answer.unwrap_or_else(|e| {
                crate::telemetry::record(|log| log.outcome = e.code);
                (e.status, e.body())
            });
            if status >= 400 {
                frames.push(sse::frame(
                    "error",
                    json!({
                        "code": body["error"]["code"], "message": body["error"]["message"],
                    }),
                ));
            } else if lane == Lane::Fast {
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
                    "lane": lane.as_str(),
                    "intent": intent.map(Intent::as_str),
                    "latency_ms": started.elapsed().as_millis() as u64,
                }),
            ));
            return Ok(event_stream(sse::body_of(frames)));
        }
        let (emit, body) = sse::open(self.heartbeat);
        let text = text.to_string();
        let log = crate::telemetry::hand_off();
        tokio::spawn(async move {
            let stream = async {
                emit.send_frame(route_event).await;
                let outcome = Box::pin(self.coach(&ctx, &text, intent, &emit, deadline)).await;
                emit.send("done", agent::done_data(intent, started, &outcome))
                    .await;
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
        Ok(event_stream(body))
    }
}

impl SlowLane {
    /// A coach message: replay a retried request, apply a confirmed proposal, ask before
    /// anything destructive, or run the agent; then store the exchange once.
    async fn coach(
        &self,
        ctx: &SessionContext,
        text: &str,
        intent: Option<Intent>,
        emit: &sse::Emitter,
        deadline: tokio::time::Instant,
    ) -> agent::Outcome {
        let now = Utc::now();
        let loaded = match briefing::load(&self.store, ctx, now).await {
            Ok(l) => l,
            Err(e) => return fail(emit, &e).await,
        };
        // A retry of a request that was answered: the same answer, nothing run or written again.
        if let Some(prev) = ctx.corr.as_deref().and_then(|c| {
            loaded
                .exchanges
                .iter()
                .find(|e| e.corr.as_deref() == Some(c))
        }) {
            emit.send("message", json!({ "text": prev.answer })).await;
            return agent::Outcome {
                answer: prev.answer.clone(),
                replayed: true,
                ..agent::Outcome::default()
            };
        }
        let mut exchange = Exchange {
            seq: loaded.exchanges.first().map_or(1, |e| e.seq + 1),
            corr: ctx.corr.clone(),
            message: text.to_string(),
            answer: String::new(),
            kind: "coach".into(),
            pending_request: None,
            artifacts: Vec::new(),
            proposed: Vec::new(),
            at: now,
        };
        let previous = loaded.exchanges.first();
        // A yes to the destructive request the previous turn asked about.
        let confirmed_request = previous
            .filter(|p| p.kind == "clarification" && now - p.at < CLARIFICATION_WINDOW)
            .and_then(|p| p.pending_request.clone())
            .filter(|_| gate::confirms_destructive(text));
        // A yes to the one proposal the previous turn made, as it was shown; anything else is
        // ordinary text for the coach.
        let offered = match previous {
            Some(p) if confirmed_request.is_none() && gate::is_confirmation(text) => {
                match offered_proposal(&self.store, ctx, p, now).await {
                    Ok(a) => a,
                    Err(e) => return fail(emit, &e).await,
                }
            }
            _ => None,
        };
        let mut outcome = if let Some(request) = confirmed_request {
            // The lifter said yes to a destructive request: the coach handles it, told so.
            let confirmed = format!("{request}\n\n(I confirm this explicitly: \"{text}\")");
            self.agent(ctx, &confirmed, intent, &loaded, emit, deadline)
                .await
        } else if let Some((a, shown_hash)) = &offered {
            exchange.kind = "confirm".into();
            exchange.artifacts.push(a.id.clone());
            apply_from_chat(&self.store, ctx, a, shown_hash, emit, now).await
        } else if let Some(verb) = gate::destructive_verb(text) {
            let (question, options) = gate::clarification(verb, text);
            exchange.kind = "clarification".into();
            exchange.pending_request = Some(text.to_string());
            emit.send(
                "clarification",
                json!({ "id": format!("clarify-{}", exchange.seq), "question": question, "options": options }),
            )
            .await;
            agent::Outcome {
                answer: question,
                ..agent::Outcome::default()
            }
        } else {
            self.agent(ctx, text, intent, &loaded, emit, deadline).await
        };
        if outcome.error.is_none() && !emit.client_gone() {
            exchange.answer = outcome.answer.clone();
            exchange
                .artifacts
                .extend(outcome.proposed.iter().map(|p| p.id.clone()));
            exchange.proposed = std::mem::take(&mut outcome.proposed);
            if let Err(e) = self.remember(ctx, exchange).await {
                tracing::error!(error = %e, "could not store the conversation turn");
                outcome.error = Some("STORE_UNAVAILABLE");
            }
        }
        outcome
    }

    async fn agent(
        &self,
        ctx: &SessionContext,
        text: &str,
        intent: Option<Intent>,
        loaded: &briefing::Loaded,
        emit: &sse::Emitter,
        deadline: tokio::time::Instant,
    ) -> agent::Outcome {
        let Some(model) = &self.model else {
            emit.send("error", json!({
                "code": "MODEL_NOT_CONFIGURED",
                "message": "No coach model is configured on this server. Set SLOW_MODEL (and MODEL_PROVIDER with GEMINI_API_KEY, or OPENAI_BASE_URL) to enable the coach; workout commands and buttons work without it.",
            }))
            .await;
            return agent::Outcome {
                error: Some("MODEL_NOT_CONFIGURED"),
                ..agent::Outcome::default()
            };
        };
        let tokens_left = self.budget.left(loaded.tokens_today);
        if tokens_left == Some(0) {
            emit.send("error", budget::exceeded(Utc::now())).await;
            return agent::Outcome {
                error: Some("QUOTA_EXCEEDED"),
                ..agent::Outcome::default()
            };
        }
        let (history, fold) = loaded.history();
        let summary = fold.as_ref().or(loaded.summary.as_ref());
        let env = tools::Env {
            store: &self.store,
            ctx,
            app: &self.app,
            unit: loaded.profile.unit,
        };
        let briefing = agent::Briefing {
            history,
            context: loaded.context(ctx, summary),
            tokens_left,
        };
        // The fold is stored alongside the answer, not before the first model call (the summary
        // is already in this request's context).
        let store_fold = async {
            if let Some(summary) = &fold
                && let Err(e) = self
                    .store
                    .put_summary(&ctx.user_id, briefing::conversation_id(ctx), summary)
                    .await
            {
                tracing::warn!(error = %e, "could not store the conversation summary");
            }
        };
        let (outcome, ()) = tokio::join!(
            agent::run(model, &env, text, intent, briefing, emit, deadline),
            store_fold
        );
        // Counted however the answer ended (a failed or abandoned one spent tokens too).
        if outcome.usage.total_tokens > 0
            && let Err(e) = self
                .store
                .add_tokens(&ctx.user_id, Utc::now(), outcome.usage)
                .await
        {
            tracing::error!(error = %e, "could not count the coach's tokens");
        }
        outcome
    }

    /// Stores the exchange once: at the next free sequence number, never twice for one corr.
    async fn remember(&self, ctx: &SessionContext, mut e: Exchange) -> Result<(), StoreError> {
        let conv = briefing::conversation_id(ctx);
        for _ in 0..3 {
            if self.store.append_exchange(&ctx.user_id, conv, &e).await? {
                return Ok(());
            }
            // A concurrent turn took the number: continue after the newest.
            let (latest, _) = self
                .store
                .conversation(&ctx.user_id, conv, 1, Utc::now())
                .await?;
            match latest.first() {
                // Ours: the same corr, or this very exchange (a write whose answer was lost and
                // that the SDK retried into its own condition).
                Some(l) if (e.corr.is_some() && l.corr == e.corr) || *l == e => return Ok(()),
                Some(l) => e.seq = l.seq + 1,
                None => e.seq += 1,
            }
        }
        Err(StoreError::Backend(
            "the conversation kept changing while this turn was stored".into(),
        ))
    }
}

/// How long a destructive request waits for its explicit yes.
const CLARIFICATION_WINDOW: chrono::Duration = chrono::Duration::minutes(10);

async fn fail(emit: &sse::Emitter, e: &StoreError) -> agent::Outcome {
    tracing::error!(error = %e, "store call failed before the coach could answer");
    let err = ApiError::store_unavailable();
    emit.send("error", json!({ "code": err.code, "message": err.message }))
        .await;
    agent::Outcome {
        error: Some(err.code),
        ..agent::Outcome::default()
    }
}

/// The proposal a chat "yes" applies, with the hash the lifter was shown: the one proposal the
/// coach's previous turn (`previous`) made, if it is still pending. `None`: the "yes" is text.
async fn offered_proposal(
    store: &Store,
    ctx: &SessionContext,
    previous: &Exchange,
    now: chrono::DateTime<Utc>,
) -> Result<Option<(Artifact, String)>, StoreError> {
    let [shown] = previous.proposed.as_slice() else {
        // None, or several: a bare "yes" does not say which.
        return Ok(None);
    };
    if previous.kind != "coach" {
        return Ok(None);
    }
    let a = store.get_artifact(&ctx.user_id, &shown.id).await?;
    Ok(
        a.filter(|a| a.status == ArtifactStatus::Proposed && !a.is_expired(now))
            .map(|a| (a, shown.content_hash.clone())),
    )
}

/// "Yes, save it" right after a proposal: apply exactly what the lifter was shown (`shown_hash`;
/// a proposal changed since is refused as stale), no model call.
async fn apply_from_chat(
    store: &Store,
    ctx: &SessionContext,
    a: &Artifact,
    shown_hash: &str,
    emit: &sse::Emitter,
    now: chrono::DateTime<Utc>,
) -> agent::Outcome {
    match crate::app::proposals::confirm(store, &ctx.user_id, &a.id, Some(shown_hash), now).await {
        Ok(done) => {
            emit.send("artifact", done["artifact"].clone()).await;
            let text = applied_text(a);
            emit.send("message", json!({ "text": text })).await;
            agent::Outcome {
                answer: text,
                writes: vec!["confirm".into()],
                ..agent::Outcome::default()
            }
        }
        Err(e) => {
            emit.send("error", json!({ "code": e.code, "message": e.message }))
                .await;
            agent::Outcome {
                error: Some(e.code),
                ..agent::Outcome::default()
            }
        }
    }
}

/// What the lifter reads after a proposal is applied from chat.
fn applied_text(a: &Artifact) -> String {
    match &a.proposal {
        Proposal::Routine { routine, .. } => format!(
            "Saved \"{}\" ({} days) as your active routine. Next up: {}.",
            routine.name,
            routine.days.len(),
            routine.days.first().map_or("day 1", |d| d.label.as_str())
        ),
        Proposal::RoutineUpdate { routine, .. } => {
            format!("Updated \"{}\": {} days.", routine.name, routine.days.len())
        }
        Proposal::TemplateUpdate { template } => {
            format!("Updated the template \"{}\".", template.name)
        }
        Proposal::Workout { workout } => format!(
            "Started \"{}\". First up: {}.",
            workout.name,
            workout
                .exercises
                .first()
                .map_or("your first exercise", |e| e.name.as_str())
        ),
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
