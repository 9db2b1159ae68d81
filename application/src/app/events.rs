//! App events (`POST /v1/events`): the app reports what happened (opened, a set, a card seen,
//! an intake answer), the rules answer, and a proactive prompt goes through the notification
//! gate. Also the feeds the app pages through (notifications, insight cards).

use chrono::Utc;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

use super::params::{json_object, read, text as text_field};
use super::{App, MAX_ATTEMPTS, conflict, fingerprint, invalid, reused};
use crate::app::active::replay_record;
use crate::app::error::AppError;
use crate::context::SessionContext;
use crate::retry::Attempts;
use crate::skills::{events, notify};
use crate::store::activity::{EventOutcome, EventRecord, Feed, Page};
use crate::store::{Parts, UserState};

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
                .await?;
            if let Some(rec) = &state.replay {
                if rec.fingerprint != req.fingerprint {
                    return Err(reused());
                }
                crate::telemetry::record(|log| log.outcome = "replayed");
                return Ok(EventReply {
                    status: rec.status,
                    body: rec.body.clone(),
                });
            }
            // Another notification won the gate's slot meanwhile: the gate sees it as just sent.
            let last = if rate_limited {
                Some(now)
            } else {
                state.last_notified
            };
            let mut answer = Answer::of(req, &state, last, now)?;
            self.phrase(&ctx.user_id, &mut answer, &mut phrased).await;
            match self.commit(ctx, req, &answer, now).await? {
                Ok(reply) => return Ok(reply),
                Err(EventOutcome::RateLimited) => rate_limited = true,
                // A race (the same request, or another write): read again.
                Err(_) => {}
            }
        }
        Err(conflict())
    }

    /// The answer's message in the model's words when it has better ones (asked once per
    /// template, however many attempts the write takes).
    async fn phrase(
        &self,
        user: &str,
        answer: &mut Answer,
        phrased: &mut Option<(String, Option<String>)>,
    ) {
        let Some(template) = answer.reply.message.clone() else {
            return;
        };
        let better = match phrased {
            Some((t, p)) if *t == template => p.clone(),
            _ => {
                let p = self.assist.rephrase(user, &template).await;
                *phrased = Some((template, p.clone()));
                p
            }
        };
        if let Some(text) = better {
            if let Some(n) = answer.notification.as_mut() {
                n.message = text.clone();
            }
            answer.reply.message = Some(text);
        }
    }

    /// Stores the event with what it changes, and its answer for a retry; the reply when
    /// committed, else why not (a race to retry).
    async fn commit(
        &self,
        ctx: &SessionContext,
        req: &EventRequest,
        answer: &Answer,
        now: chrono::DateTime<Utc>,
    ) -> Result<Result<EventReply, EventOutcome>, AppError> {
        let body = answer.body(ctx, &req.id);
        let body_text = body.to_string();
        let record = ctx
            .corr
            .as_ref()
            .map(|corr| replay_record(corr, &req.fingerprint, body_text.clone(), now));
        let logged = EventRecord {
            id: req.id.clone(),
            at: now,
            kind: req.event.kind().to_string(),
            payload: req.payload.clone(),
            reply: body,
        };
        let out = self
            .store
            .record_event(
                &ctx.user_id,
                &logged,
                answer
                    .reply
                    .context
                    .as_ref()
                    .map(|c| (c, answer.coaching_version)),
                answer.notification.as_ref(),
                record.as_ref(),
                now,
            )
            .await?;
        Ok(match out {
            EventOutcome::Committed => Ok(EventReply {
                status: 200,
                body: body_text,
            }),
            other => Err(other),
        })
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

/// What the rules answer to an event, through the notification gate.
struct Answer {
    reply: events::Reply,
    /// Why a proactive prompt was not shown (the gate's reason).
    suppressed: Option<&'static str>,
    /// The in-app notification a shown proactive prompt becomes.
    notification: Option<notify::Notification>,
    /// The coaching context's version as read: a changed context is written only on it.
    coaching_version: u64,
}

impl Answer {
    /// The rules' reply to `req` on the state read; a proactive prompt is shown only when the
    /// gate (preference, quiet hours, the spacing since `last`) lets it through.
    fn of(
        req: &EventRequest,
        state: &UserState,
        last: Option<chrono::DateTime<Utc>>,
        now: chrono::DateTime<Utc>,
    ) -> Result<Answer, AppError> {
        let profile = state.profile.clone().unwrap_or_default();
        let coaching = state.coaching.clone().unwrap_or_default();
        let reply = events::respond(&req.event, &profile, &coaching, now)
            .map_err(|e| invalid(&e.message, e.field))?;
        let mut answer = Answer {
            reply,
            suppressed: None,
            notification: None,
            coaching_version: state.coaching_version,
        };
        if !answer.reply.proactive {
            return Ok(answer);
        }
        let Some(message) = answer.reply.message.clone() else {
            return Ok(answer);
        };
        match notify::gate(&profile, notify::Priority::Normal, last, now) {
            Err(why) => {
                answer.suppressed = Some(why.as_str());
                let r = &mut answer.reply;
                r.message = None;
                r.ui_hint = None;
                r.requires_response = false;
                r.options = None;
                // The prompt was not shown: the check-in stays due.
                r.context = None;
            }
            Ok(()) => {
                answer.notification = Some(notify::Notification {
                    id: req.id.clone(),
                    message,
                    priority: notify::Priority::Normal,
                    source: "checkin_prompt".into(),
                    channel: "in_app".into(),
                    created_at: now,
                });
            }
        }
        Ok(answer)
    }

    /// The answer as the app reads it (and a retry gets it back).
    fn body(&self, ctx: &SessionContext, event_id: &str) -> Value {
        let reply = &self.reply;
        json!({
            "message": reply.message,
            "ui_hint": reply.ui_hint,
            "options": reply.options,
            "metadata": {
                "conversation_id": ctx.conversation_id,
                "requires_response": reply.requires_response,
                "event_id": event_id,
            },
            "suppressed": self.suppressed,
        })
    }
}
