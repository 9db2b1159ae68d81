//! `/v1/events` (app events through the notification gate) and `GET /v1/notifications`.

use super::*;

impl FunctionalLane {
    pub(super) async fn event(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let obj = json_object(text)?;
        only(&obj, &events::EVENT_FIELDS)?;
        let event = events::parse(&obj).map_err(|e| invalid(&e.message, e.field))?;
        crate::telemetry::record(|log| log.intent = Some(event.kind()));
        let event_id = match opt_str(&obj, "id")? {
            Some(id) => {
                limits::check_name("id", id)?;
                id.to_string()
            }
            None => ctx.corr.clone().unwrap_or_else(|| {
                format!(
                    "ev-{}",
                    Utc::now().timestamp_nanos_opt().unwrap_or_default()
                )
            }),
        };
        let fingerprint = fingerprint(&[text.trim()]);
        let mut rate_limited = false;
        // (template text, the model's rephrasing): asked once even if the write is retried.
        let mut phrased: Option<(String, Option<String>)> = None;
        for attempt in 0..MAX_ATTEMPTS {
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
            let state = state.map_err(|e| store_error(&e))?;
            if let Some(rec) = &state.replay {
                if rec.fingerprint != fingerprint {
                    return Err(reused());
                }
                crate::telemetry::record(|log| log.outcome = "replayed");
                return Ok(api::json_response(rec.status, &rec.body));
            }
            let profile = state.profile.clone().unwrap_or_default();
            let coaching = state.coaching.clone().unwrap_or_default();
            let mut reply = events::respond(&event, &profile, &coaching, now)
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
                payload: Value::Object(obj.clone()),
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
            match out.map_err(|e| store_error(&e))? {
                EventOutcome::Committed => return Ok(api::json_response(200, &body_text)),
                EventOutcome::RateLimited => rate_limited = true,
                EventOutcome::DuplicateRequest | EventOutcome::Conflict => {
                    crate::retry::pause(attempt).await
                }
            }
        }
        Err(conflict())
    }

    /// A newest-first page of the items under `prefix` (`NOTIFY#` for GET /v1/notifications,
    /// `INSIGHT#` for GET /v1/insights), with an opaque cursor for the next page.
    pub(super) async fn feed(&self, req: &Request, feed: Feed) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
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
        // An empty cursor is the first page, as no cursor is.
        let cursor = match params.first("cursor").filter(|c| !c.is_empty()) {
            Some(c) => Some(
                decode_cursor(c)
                    .filter(|sk| feed.holds(sk))
                    .ok_or_else(|| invalid("cursor is not one this endpoint returned", "cursor"))?,
            ),
            None => None,
        };
        let page = self
            .store
            .feed(&ctx.user_id, feed, limit, cursor.as_deref(), Utc::now())
            .await;
        let page = page.map_err(|e| store_error(&e))?;
        let body =
            json!({ "items": page.items, "next_cursor": page.next.map(|n| encode_cursor(&n)) });
        Ok(api::json_response(200, &body.to_string()))
    }
}
