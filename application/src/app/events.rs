//! App events (`POST /v1/events`): the app reports what happened (opened, a set, a card seen,
//! an intake answer), the rules answer, and a proactive prompt goes through the notification
//! gate. Also the feeds the app pages through (notifications, insight cards).

use chrono::Utc;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use super::params::{json_object, read, text as text_field};
use super::{App, MAX_ATTEMPTS, conflict, fingerprint, invalid, reused};
use crate::app::error::AppError;
use crate::context::SessionContext;
use crate::retry::Attempts;
use crate::skills::{events, notify};
use crate::store::activity::{EventOutcome, EventRecord, Feed, Page};
use crate::store::{IDEMPOTENCY_TTL_SECS, IdempotencyRecord, Parts};

/// An app event, read from its JSON object.
#[derive(Debug, Clone)]
pub struct EventRequest {
    pub event: events::AppEvent,
    /// The event's id (the app's, else the request's `corr`, else a fresh one).
    pub id: String,
    /// The object as sent, logged with the event.
    pub payload: Value,
    /// Identifies the request as sent: a retry with the same `corr` must repeat it.
    fingerprint: String,
}

/// The fields an event may carry (which of them a type takes, `events::parse` checks).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EventBody {
    id: Option<String>,
    #[serde(rename = "type")]
    _type: Option<IgnoredAny>,
    #[serde(rename = "intervention_key")]
    _intervention_key: Option<IgnoredAny>,
    #[serde(rename = "suggested_action")]
    _suggested_action: Option<IgnoredAny>,
    #[serde(rename = "context")]
    _context: Option<IgnoredAny>,
    #[serde(rename = "timestamp")]
    _timestamp: Option<IgnoredAny>,
    #[serde(rename = "value")]
    _value: Option<IgnoredAny>,
    #[serde(rename = "scale")]
    _scale: Option<IgnoredAny>,
    #[serde(rename = "flow_id")]
    _flow_id: Option<IgnoredAny>,
}

impl EventRequest {
    /// Reads the event from the message `text`.
    pub fn from_text(text: &str, ctx: &SessionContext) -> Result<EventRequest, AppError> {
        let sent = json_object(text, false)?;
        let body: EventBody = read(&sent)?;
        let Value::Object(obj) = &sent else {
            return Err(invalid("the request must be a JSON object", "message"));
        };
        let event = events::parse(obj).map_err(|e| invalid(&e.message, e.field))?;
        let id = text_field(body.id, "id")?.unwrap_or_else(|| {
            ctx.corr.clone().unwrap_or_else(|| {
                format!(
                    "ev-{}",
                    Utc::now().timestamp_nanos_opt().unwrap_or_default()
                )
            })
        });
        Ok(EventRequest {
            event,
            id,
            payload: sent,
            fingerprint: fingerprint(&[text.trim()]),
        })
    }
}

/// The answer to an event as it was stored: a retry with the same `corr` gets these exact
/// bytes back.
#[derive(Debug, Clone, PartialEq)]
pub struct EventReply {
    pub status: u16,
    pub body: String,
}

impl App {
    /// Answers an app event, records it (with the coaching context it changes and the
    /// notification it sends) in one transaction.
    pub async fn app_event(
        &self,
        ctx: &SessionContext,
        req: &EventRequest,
    ) -> Result<EventReply, AppError> {
        crate::telemetry::record(|log| log.intent = Some(req.event.kind()));
        let EventRequest {
            event,
            id: event_id,
            payload: obj,
            fingerprint,
        } = req;
        let mut rate_limited = false;
        // (template text, the model's rephrasing): asked once even if the write is retried.
        let mut phrased: Option<(String, Option<String>)> = None;
        let mut attempts = Attempts::new(MAX_ATTEMPTS);
        while attempts.next().await {
            let parts = Parts {
                profile: true,
                coaching: true,
                notify_state: true,
                ..Parts::default()
            };
            let now = Utc::now();
            let state = self
                .store
                .user_state(&ctx.user_id, parts, ctx.corr.as_deref(), now)
                .await;
            let state = state?;
            if let Some(rec) = &state.replay {
                if rec.fingerprint != *fingerprint {
                    return Err(reused());
                }
                crate::telemetry::record(|log| log.outcome = "replayed");
                return Ok(EventReply {
                    status: rec.status,
                    body: rec.body.clone(),
                });
            }
            let profile = state.profile.clone().unwrap_or_default();
            let coaching = state.coaching.clone().unwrap_or_default();
            let mut reply = events::respond(event, &profile, &coaching, now)
                .map_err(|e| invalid(&e.message, e.field))?;
            let mut suppressed = None;
            let mut notification = None;
            if reply.proactive && reply.message.is_some() {
                let last = if rate_limited {
                    Some(now)
                } else {
                    state.last_notified
                };
                match notify::gate(&profile, notify::Priority::Normal, last, now) {
                    Err(why) => {
                        suppressed = Some(why.as_str());
                        reply.message = None;
                        reply.ui_hint = None;
                        reply.requires_response = false;
                        reply.options = None;
                        // The prompt was not shown: the check-in stays due.
                        reply.context = None;
                    }
                    Ok(()) => {
                        notification = Some(notify::Notification {
                            id: event_id.clone(),
                            message: reply.message.clone().unwrap_or_default(),
                            priority: notify::Priority::Normal,
                            source: "checkin_prompt".into(),
                            channel: "in_app".into(),
                            created_at: now,
                        });
                    }
                }
            }
            if let Some(template) = reply.message.clone() {
                let better = match &phrased {
                    Some((t, p)) if *t == template => p.clone(),
                    _ => {
                        let p = self.assist.rephrase(&template).await;
                        phrased = Some((template, p.clone()));
                        p
                    }
                };
                if let Some(text) = better {
                    if let Some(n) = notification.as_mut() {
                        n.message = text.clone();
                    }
                    reply.message = Some(text);
                }
            }
            let body = json!({
                "message": reply.message,
                "ui_hint": reply.ui_hint,
                "options": reply.options,
                "metadata": {
                    "conversation_id": ctx.conversation_id,
                    "requires_response": reply.requires_response,
                    "event_id": event_id,
                },
                "suppressed": suppressed,
            });
            let body_text = body.to_string();
            let record = ctx.corr.as_ref().map(|corr| IdempotencyRecord {
                corr: corr.clone(),
                fingerprint: fingerprint.clone(),
                status: 200,
                body: body_text.clone(),
                expires_at: now.timestamp() + IDEMPOTENCY_TTL_SECS,
            });
            let logged = EventRecord {
                id: event_id.clone(),
                at: now,
                kind: event.kind().to_string(),
                payload: obj.clone(),
                reply: body.clone(),
            };
            let out = self
                .store
                .record_event(
                    &ctx.user_id,
                    &logged,
                    reply.context.as_ref(),
                    notification.as_ref(),
                    record.as_ref(),
                    now,
                )
                .await;
            match out? {
                EventOutcome::Committed => {
                    return Ok(EventReply {
                        status: 200,
                        body: body_text,
                    });
                }
                EventOutcome::RateLimited => rate_limited = true,
                EventOutcome::DuplicateRequest | EventOutcome::Conflict => {}
            }
        }
        Err(conflict())
    }

    /// One page of a feed, newest first; `cursor` is a page's `next`.
    pub async fn feed(
        &self,
        ctx: &SessionContext,
        feed: Feed,
        limit: i32,
        cursor: Option<&str>,
    ) -> Result<Page, AppError> {
        let page = self
            .store
            .feed(&ctx.user_id, feed, limit, cursor, Utc::now())
            .await;
        page.map_err(AppError::from)
    }
}
