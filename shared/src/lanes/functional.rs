//! FUNCTIONAL lane: structured JSON from the app, answered deterministically.
//!
//! - `POST /v1/functional`: smart buttons and the workout monitor, envelope
//!   `{success, action, data, intent}`;
//! - `POST /v1/events`: app events, with the notification gate;
//! - `POST /v1/workouts`, `GET /v1/workouts/active`, `POST /v1/workouts/{id}/complete`;
//! - `GET /v1/notifications`.
//!
//! Every route validates the whole request before it reads or writes; writes that race use the
//! store's conditions and are re-applied on the new state.

use std::collections::HashMap;
use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use lambda_http::{Body, Request, RequestExt, Response};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::{backoff, bind, store_error};
use crate::api::{self, ApiError};
use crate::context::{AuthMode, SessionContext};
use crate::domain::catalog::catalog;
use crate::domain::limits::{self, MAX_REPS, MAX_RIR, MAX_SETS_PER_EXERCISE};
use crate::domain::profile::Profile;
use crate::domain::workout::Workout;
use crate::queue::{Delivery, JobQueue};
use crate::router::{self, Intent, Lane};
use crate::skills::history::LOOKBACK_WEEKS;
use crate::skills::{autofill, events, monitor, notify, suggest, swap, workouts};
use crate::store::activity::{EventOutcome, EventRecord};
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

/// Routes served by other issues' work: answered 501 until they land.
const NOT_YET: [&str; 3] = ["/v1/artifacts/", "/v1/insights", "/v1/import/strong"];

pub struct FunctionalLane {
    store: Store,
    queue: JobQueue,
    auth: AuthMode,
}

impl FunctionalLane {
    pub fn new(store: Store, queue: JobQueue, auth: AuthMode) -> Self {
        Self { store, queue, auth }
    }

    pub async fn from_env() -> Result<Self, String> {
        let cfg = super::fast::Config::from_env()?;
        let aws = crate::store::aws_config_from_env().await;
        Ok(Self::new(
            Store::from_config(&aws, cfg.table),
            JobQueue::from_env(&aws),
            cfg.auth,
        ))
    }

    /// Handles one request; never fails (errors are responses) and logs one line.
    pub async fn handle(&self, req: Request) -> Response<Body> {
        let started = Instant::now();
        let mut log = RequestLog::for_request("functional", &req);
        let result = self.serve(&req, &mut log).await;
        super::finish(log, started, result)
    }

    async fn serve(&self, req: &Request, log: &mut RequestLog) -> Result<Response<Body>, ApiError> {
        let path = api::path(req);
        let method = req.method().as_str();
        let complete_id = path
            .strip_prefix("/v1/workouts/")
            .and_then(|rest| rest.strip_suffix("/complete"))
            .filter(|id| !id.is_empty() && !id.contains('/'));
        let expect = |m: &str| -> Result<(), ApiError> {
            if method == m {
                Ok(())
            } else {
                Err(ApiError::new(
                    405,
                    "METHOD_NOT_ALLOWED",
                    format!("use {m} {path}"),
                ))
            }
        };
        match path.as_str() {
            "/v1/functional" => {
                expect("POST")?;
                self.functional(req, log).await
            }
            "/v1/events" => {
                expect("POST")?;
                self.event(req, log).await
            }
            "/v1/workouts" => {
                expect("POST")?;
                self.start_workout(req, log).await
            }
            "/v1/workouts/active" => {
                expect("GET")?;
                self.active_workout(req, log).await
            }
            "/v1/notifications" => {
                expect("GET")?;
                self.notifications(req, log).await
            }
            _ if complete_id.is_some() => {
                expect("POST")?;
                let id = complete_id.unwrap_or_default().to_string();
                self.complete(req, &id, log).await
            }
            p if NOT_YET.iter().any(|n| p.starts_with(n)) => {
                Err(ApiError::not_implemented(&format!("{method} {p}")))
            }
            p => Err(ApiError::new(
                404,
                "NOT_FOUND",
                format!("no route {p} on the functional lane"),
            )),
        }
    }

    // ---------------------------------------------------------------- /v1/functional

    async fn functional(
        &self,
        req: &Request,
        log: &mut RequestLog,
    ) -> Result<Response<Body>, ApiError> {
        let message = api::extract_message(req)?;
        let (ctx, text) = bind(req, self.auth, &message, log)?;
        let route = router::route(text).map_err(|e| {
            envelope_error(ApiError::new(400, "UNKNOWN_INTENT", e.to_string()), None)
        })?;
        log.intent = route.intent.map(Intent::as_str);
        log.matched_rule = Some(route.matched_rule);
        if route.intent == Some(Intent::MonitorSkip) {
            // Not an event the monitor analyses: NULL, and no store access at all.
            log.outcome = "no_change";
            return Ok(envelope(Intent::MonitorState, "NULL", Value::Null));
        }
        let (Lane::Functional, Some(intent)) = (route.lane, route.intent) else {
            let mut e = ApiError::new(
                422,
                "NOT_A_FUNCTIONAL_REQUEST",
                format!(
                    "this endpoint takes a JSON object with an intent ({}) or a monitor event_type; send this message to the {} lane",
                    router::FUNCTIONAL_INTENTS.map(Intent::as_str).join(", "),
                    route.lane.as_str()
                ),
            );
            e.lane = Some(route.lane.as_str());
            return Err(e);
        };
        let payload: Map<String, Value> = match serde_json::from_str(text.trim()) {
            Ok(Value::Object(o)) => o,
            _ => {
                return Err(envelope_error(
                    invalid("the request must be a JSON object", "message"),
                    Some(intent),
                ));
            }
        };
        let result = match intent {
            Intent::SwapExercise => self.swap(&ctx, &payload, log).await,
            Intent::AutofillSet => self.autofill(&ctx, &payload, log).await,
            Intent::SuggestWeight => self.suggest(&ctx, &payload, log).await,
            _ => self.monitor(&ctx, &payload, log).await,
        };
        match result {
            Ok((action, data)) => Ok(envelope(intent, action, data)),
            Err(e) => Err(envelope_error(e, Some(intent))),
        }
    }

    /// The user's state and recent history, read concurrently.
    async fn load(
        &self,
        ctx: &SessionContext,
        parts: Parts,
        log: &mut RequestLog,
    ) -> Result<(UserState, Vec<Workout>), ApiError> {
        let t = Instant::now();
        let now = Utc::now();
        let (state, history) = tokio::join!(
            self.store
                .user_state(&ctx.user_id, parts, ctx.corr.as_deref(), now),
            self.store
                .completed_workouts_since(&ctx.user_id, now - Duration::weeks(LOOKBACK_WEEKS))
        );
        log.store_us += t.elapsed().as_micros() as u64;
        log.store_calls += 2;
        Ok((
            state.map_err(|e| store_error(&e))?,
            history.map_err(|e| store_error(&e))?,
        ))
    }

    async fn swap(
        &self,
        ctx: &SessionContext,
        p: &Map<String, Value>,
        log: &mut RequestLog,
    ) -> Result<(&'static str, Value), ApiError> {
        only(
            p,
            &[
                "intent",
                "target",
                "target_id",
                "exercise_instance_id",
                "constraint",
                "muscle_group",
                "exclude",
                "confirm",
            ],
        )?;
        let target_text = req_str(p, "target")?;
        let instance_id = opt_str(p, "exercise_instance_id")?;
        let constraint = match opt_str(p, "constraint")? {
            Some(c) => Some(swap::parse_constraint(c).ok_or_else(|| {
                ApiError::new(
                    400,
                    "UNKNOWN_CONSTRAINT",
                    format!(
                        "unknown constraint '{c}'; valid constraints: {}",
                        swap::constraint_names()
                    ),
                )
                .field("constraint")
            })?),
            None => None,
        };
        let muscle = match opt_str(p, "muscle_group")? {
            Some(m) => Some(swap::MuscleFilter::parse(m).ok_or_else(|| {
                invalid(
                    &format!("unknown muscle_group '{m}'; use a muscle (chest, lats, quads, ...) or a group (chest, back, shoulders, arms, legs, core)"),
                    "muscle_group",
                )
            })?),
            None => None,
        };
        let exclude: Vec<String> = match p.get("exclude") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    invalid(
                        "'exclude' must be a list of exercise ids or names",
                        "exclude",
                    )
                })?,
            Some(_) => {
                return Err(invalid(
                    "'exclude' must be a list of exercise ids or names",
                    "exclude",
                ));
            }
        };
        let confirm = opt_bool(p, "confirm")?.unwrap_or(false);
        let fingerprint = fingerprint(&[
            &Value::Object(p.clone()).to_string(),
            ctx.workout_id.as_deref().unwrap_or(""),
        ]);
        for attempt in 0..MAX_ATTEMPTS {
            let parts = Parts {
                workout: true,
                profile: true,
                ..Parts::default()
            };
            let (state, history) = self.load(ctx, parts, log).await?;
            if let Some(r) = replay(&state, &fingerprint)? {
                log.outcome = "replayed";
                return Ok(r);
            }
            let profile = state.profile.clone().unwrap_or_default();
            let target = swap::resolve_target(target_text, &history)
                .map_err(|m| ApiError::new(400, "UNKNOWN_EXERCISE", m).field("target"))?;
            let query = swap::SwapQuery {
                constraint,
                muscle,
                exclude: exclude.clone(),
            };
            let familiar = familiarity(&history);
            let ranked = swap::rank(target, catalog().all(), &query, &profile, &familiar);
            let Some(best) = ranked.first() else {
                return Err(ApiError::new(
                    422,
                    "NO_ALTERNATIVES",
                    format!(
                        "no alternative to {} matches these filters and your equipment; try without the constraint or exclusions",
                        target.name
                    ),
                ));
            };
            let alternatives: Vec<Value> = ranked
                .iter()
                .skip(1)
                .take(swap::MAX_ALTERNATIVES)
                .map(|c| c.to_json())
                .collect();
            let mut data = json!({
                "old_exercise": { "exercise_id": target.id, "name": target.name, "equipment": target.equipment },
                "new_exercise": best.to_json(),
                "alternatives": alternatives,
                "applied": false,
            });
            let Some(instance_id) = instance_id else {
                data["message"] = json!(format!(
                    "Swap {} for {}: {}.",
                    target.name, best.exercise.name, best.reason
                ));
                return Ok(("REPLACE_EXERCISE", data));
            };
            let active = active_in_prefix(&state, ctx)?;
            let Some((workout, version)) = active else {
                return Err(not_in_workout(instance_id));
            };
            let inst = workout
                .exercises
                .iter()
                .find(|e| e.instance_id == instance_id)
                .ok_or_else(|| not_in_workout(instance_id))?;
            if inst.exercise_id != target.id {
                return Err(ApiError::new(
                    400,
                    "EXERCISE_MISMATCH",
                    format!(
                        "exercise_instance_id {instance_id} is {}, not {}",
                        inst.name, target.name
                    ),
                )
                .field("target"));
            }
            let now = Utc::now();
            let applied = match swap::apply(
                workout,
                instance_id,
                best.exercise,
                confirm,
                &history,
                &profile,
                now,
            ) {
                Ok(a) => a,
                Err(swap::ApplyError::InstanceNotFound) => return Err(not_in_workout(instance_id)),
                Err(swap::ApplyError::SetsLogged { logged, name }) => {
                    return Err(ApiError::new(
                        409,
                        "CONFIRM_REQUIRED",
                        format!("{logged} set{} of {name} already logged; send \"confirm\": true to swap the remaining sets (the logged ones stay as {name})", if logged == 1 { " is" } else { "s are" }),
                    )
                    .field("confirm"));
                }
            };
            workouts::validate(&applied.workout)?;
            data["applied"] = json!(true);
            data["exercise_instance_id"] = json!(applied.instance_id);
            data["weights"] = json!(applied.weights);
            data["message"] = json!(format!(
                "Swapped {} for {}; {}.",
                target.name, best.exercise.name, applied.weights
            ));
            match self
                .commit(
                    ctx,
                    &applied.workout,
                    version,
                    &fingerprint,
                    "REPLACE_EXERCISE",
                    &data,
                    now,
                    log,
                )
                .await?
            {
                CommitOutcome::Committed => return Ok(("REPLACE_EXERCISE", data)),
                _ => tokio::time::sleep(backoff(attempt)).await,
            }
        }
        Err(conflict())
    }

    async fn autofill(
        &self,
        ctx: &SessionContext,
        p: &Map<String, Value>,
        log: &mut RequestLog,
    ) -> Result<(&'static str, Value), ApiError> {
        only(
            p,
            &[
                "intent",
                "exercise_instance_id",
                "exercise_id",
                "set_index",
                "target_reps",
                "last_weight",
            ],
        )?;
        let instance_id = opt_str(p, "exercise_instance_id")?;
        let exercise_text = opt_str(p, "exercise_id")?;
        if instance_id.is_none() && exercise_text.is_none() {
            return Err(invalid(
                "send exercise_instance_id (a set of your active workout) or exercise_id",
                "exercise_instance_id",
            ));
        }
        let set_index = req_uint(p, "set_index", MAX_SETS_PER_EXERCISE as u64 - 1)? as usize;
        let target_reps = opt_uint(p, "target_reps", u64::from(MAX_REPS))?.map(|r| r as u32);
        if target_reps == Some(0) {
            return Err(invalid("target_reps must be at least 1", "target_reps"));
        }
        let parts = Parts {
            workout: true,
            profile: true,
            ..Parts::default()
        };
        let (state, history) = self.load(ctx, parts, log).await?;
        let profile = state.profile.clone().unwrap_or_default();
        let active = active_in_prefix(&state, ctx)?.map(|(w, _)| w);
        let (exercise_id, today) = match instance_id {
            Some(id) => {
                let inst = active
                    .and_then(|w| w.exercises.iter().find(|e| e.instance_id == id))
                    .ok_or_else(|| not_in_workout(id))?;
                if set_index >= inst.sets.len() {
                    return Err(invalid(
                        &format!(
                            "set_index {set_index} is out of range: {} has {} sets (0 to {})",
                            inst.name,
                            inst.sets.len(),
                            inst.sets.len().saturating_sub(1)
                        ),
                        "set_index",
                    ));
                }
                (inst.exercise_id.clone(), Some(inst))
            }
            None => {
                let text = exercise_text.unwrap_or_default();
                let (id, _) = suggest::known_exercise(text, &history)
                    .ok_or_else(|| unknown_exercise(text))?;
                let today = active.and_then(|w| w.exercises.iter().find(|e| e.exercise_id == id));
                if let Some(t) = today
                    && set_index >= t.sets.len()
                {
                    return Err(invalid(
                        &format!(
                            "set_index {set_index} is out of range: {} has {} sets today",
                            t.name,
                            t.sets.len()
                        ),
                        "set_index",
                    ));
                }
                (id, today)
            }
        };
        let ex = catalog().get(&exercise_id);
        let prediction = autofill::predict(
            &exercise_id,
            ex,
            today,
            set_index,
            target_reps,
            &history,
            &profile,
            Utc::now(),
        );
        Ok((
            "AUTOFILL",
            prediction.to_data(
                &exercise_id,
                today.map(|t| t.instance_id.as_str()),
                set_index,
                &profile,
            ),
        ))
    }

    async fn suggest(
        &self,
        ctx: &SessionContext,
        p: &Map<String, Value>,
        log: &mut RequestLog,
    ) -> Result<(&'static str, Value), ApiError> {
        only(p, &["intent", "exercise_id", "target_reps", "target_rir"])?;
        let text = req_str(p, "exercise_id")?;
        let reps = req_uint(p, "target_reps", u64::from(MAX_REPS))? as u32;
        if reps == 0 {
            return Err(invalid("target_reps must be at least 1", "target_reps"));
        }
        let rir = opt_uint(p, "target_rir", u64::from(MAX_RIR))?
            .map_or(suggest::DEFAULT_TARGET_RIR, |r| r as u32);
        let parts = Parts {
            profile: true,
            ..Parts::default()
        };
        let (state, history) = self.load(ctx, parts, log).await?;
        let profile = state.profile.unwrap_or_default();
        let (id, ex) =
            suggest::known_exercise(text, &history).ok_or_else(|| unknown_exercise(text))?;
        let s = suggest::suggest_weight(&id, ex, reps, rir, &history, &profile, Utc::now());
        Ok(("SUGGEST", s.to_data(&id, reps, rir, &profile)))
    }

    async fn monitor(
        &self,
        ctx: &SessionContext,
        p: &Map<String, Value>,
        log: &mut RequestLog,
    ) -> Result<(&'static str, Value), ApiError> {
        only(p, &["intent", "event_type", "state_diff", "workout_state"])?;
        let event_type = req_str(p, "event_type")?;
        for f in ["state_diff", "workout_state"] {
            if !matches!(p.get(f), None | Some(Value::Null) | Some(Value::Object(_))) {
                return Err(invalid(&format!("'{f}' must be an object"), f));
            }
        }
        let diff = p.get("state_diff").and_then(Value::as_object);
        let set_id = diff.and_then(|d| d.get("set_id")).and_then(Value::as_str);
        if !router::SIGNIFICANT_EVENTS.contains(&event_type) {
            log.outcome = "no_change";
            return Ok(("NULL", Value::Null));
        }
        let parts = Parts {
            workout: true,
            profile: true,
            ..Parts::default()
        };
        let (state, history) = self.load(ctx, parts, log).await?;
        let profile = state.profile.clone().unwrap_or_default();
        let Some((workout, _)) = active_in_prefix(&state, ctx)? else {
            log.outcome = "no_change";
            return Ok(("NULL", Value::Null));
        };
        match event_type {
            "WORKOUT_COMPLETED" => {
                let id = workout.id.clone();
                self.complete_active(ctx, &id, log).await?;
                Ok(("NULL", Value::Null))
            }
            "SET_COMPLETED" => {
                if let Some(id) = set_id
                    && workout.find_set(id).is_none()
                {
                    return Err(ApiError::new(
                        404,
                        "SET_NOT_FOUND",
                        format!("no set {id} in your active workout"),
                    )
                    .field("state_diff"));
                }
                let increments = profile.increments();
                let verdicts = monitor::evaluate(workout, set_id, &history, profile.unit, |id| {
                    increments.for_equipment(
                        catalog()
                            .get(id)
                            .map_or(crate::domain::catalog::Equipment::Barbell, |e| e.equipment),
                    )
                });
                let now = Utc::now();
                for v in verdicts {
                    let sk = format!("MONITOR#{}#{}#{}", workout.id, v.rule, v.exercise_id);
                    let t = Instant::now();
                    let won = self
                        .store
                        .claim(
                            &ctx.user_id,
                            &sk,
                            now.timestamp() + MONITOR_CLAIM_DAYS * 86_400,
                            now,
                        )
                        .await;
                    log.store_us += t.elapsed().as_micros() as u64;
                    log.store_calls += 1;
                    if won.map_err(|e| store_error(&e))? {
                        let action = match v.action {
                            monitor::Action::Nudge => "NUDGE",
                            monitor::Action::Alert => "ALERT",
                        };
                        return Ok((action, v.data()));
                    }
                }
                log.outcome = "no_change";
                Ok(("NULL", Value::Null))
            }
            _ => {
                log.outcome = "no_change";
                Ok(("NULL", Value::Null))
            }
        }
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
        log: &mut RequestLog,
    ) -> Result<CommitOutcome, ApiError> {
        let record = ctx.corr.as_ref().map(|corr| IdempotencyRecord {
            corr: corr.clone(),
            fingerprint: fingerprint.to_string(),
            status: 200,
            body: json!({ "action": action, "data": data }).to_string(),
            expires_at: now.timestamp() + IDEMPOTENCY_TTL_SECS,
        });
        let t = Instant::now();
        let out = self
            .store
            .commit_workout(&ctx.user_id, workout, version, record.as_ref(), now)
            .await;
        log.store_us += t.elapsed().as_micros() as u64;
        log.store_calls += 1;
        out.map_err(|e| store_error(&e))
    }

    // ---------------------------------------------------------------- /v1/events

    async fn event(&self, req: &Request, log: &mut RequestLog) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message, log)?;
        let obj = json_object(text)?;
        only(
            &obj,
            &[
                "id",
                "type",
                "intervention_key",
                "suggested_action",
                "context",
                "timestamp",
                "value",
                "scale",
                "flow_id",
            ],
        )?;
        let event = events::parse(&obj).map_err(|e| invalid(&e.message, e.field))?;
        log.intent = Some(event.kind());
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
        for attempt in 0..MAX_ATTEMPTS {
            let parts = Parts {
                profile: true,
                coaching: true,
                notify_state: true,
                ..Parts::default()
            };
            let t = Instant::now();
            let now = Utc::now();
            let state = self
                .store
                .user_state(&ctx.user_id, parts, ctx.corr.as_deref(), now)
                .await;
            log.store_us += t.elapsed().as_micros() as u64;
            log.store_calls += 1;
            let state = state.map_err(|e| store_error(&e))?;
            if let Some(rec) = &state.replay {
                if rec.fingerprint != fingerprint {
                    return Err(reused());
                }
                log.outcome = "replayed";
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
            let t = Instant::now();
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
            log.store_us += t.elapsed().as_micros() as u64;
            log.store_calls += 1;
            match out.map_err(|e| store_error(&e))? {
                EventOutcome::Committed => return Ok(api::json_response(200, &body_text)),
                EventOutcome::RateLimited => rate_limited = true,
                EventOutcome::DuplicateRequest | EventOutcome::Conflict => {
                    tokio::time::sleep(backoff(attempt)).await
                }
            }
        }
        Err(conflict())
    }

    // ---------------------------------------------------------------- workouts

    async fn start_workout(
        &self,
        req: &Request,
        log: &mut RequestLog,
    ) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message, log)?;
        let obj = if text.trim().is_empty() {
            Map::new()
        } else {
            json_object(text)?
        };
        only(
            &obj,
            &["name", "template_id", "routine_id", "next", "exercises"],
        )?;
        let name = opt_str(&obj, "name")?;
        if let Some(n) = name {
            limits::check_name("name", n)?;
        }
        let template_id = opt_str(&obj, "template_id")?;
        let routine_id = opt_str(&obj, "routine_id")?;
        let next = opt_bool(&obj, "next")?.unwrap_or(false) || routine_id.is_some();
        let adhoc = parse_adhoc(obj.get("exercises"))?;
        let sources = [template_id.is_some(), next, !adhoc.is_empty()]
            .iter()
            .filter(|b| **b)
            .count();
        if sources > 1 {
            return Err(invalid(
                "choose one of template_id, next (or routine_id) and exercises",
                "template_id",
            ));
        }
        let parts = Parts {
            workout: true,
            profile: true,
            ..Parts::default()
        };
        let (state, history) = self.load(&ctx, parts, log).await?;
        if let Some(active) = &state.workout {
            return Err(active_conflict(&active.value));
        }
        let profile = state.profile.clone().unwrap_or_default();
        let now = Utc::now();
        let workout = if let Some(tid) = template_id {
            let t = self
                .store
                .get_template(&ctx.user_id, tid)
                .await
                .map_err(|e| store_error(&e))?;
            let t = t.ok_or_else(|| {
                ApiError::new(
                    404,
                    "TEMPLATE_NOT_FOUND",
                    format!("you have no template '{tid}'"),
                )
                .field("template_id")
            })?;
            workouts::from_template(&t, None, &history, &profile, now)
        } else if next {
            let routine = self.routine_for(&ctx.user_id, routine_id, &profile).await?;
            let day = &routine.days[routine.next_day % routine.days.len()];
            let t = self
                .store
                .get_template(&ctx.user_id, &day.template_id)
                .await
                .map_err(|e| store_error(&e))?;
            let t = t.ok_or_else(|| {
                ApiError::new(
                    409,
                    "ROUTINE_BROKEN",
                    format!(
                        "routine day '{}' points at a template that no longer exists",
                        day.label
                    ),
                )
            })?;
            let mut w = workouts::from_template(&t, Some(&routine), &history, &profile, now);
            w.name = format!("{} ({})", t.name, routine.name);
            w
        } else {
            let name = name
                .map(str::to_string)
                .unwrap_or_else(|| default_name(now, &ctx));
            workouts::adhoc(&name, &adhoc, &history, &profile, now)
        };
        let mut workout = workout;
        if let Some(n) = name {
            workout.name = n.to_string();
        }
        workouts::validate(&workout)?;
        let t = Instant::now();
        let started = self.store.start_workout(&ctx.user_id, &workout).await;
        log.store_us += t.elapsed().as_micros() as u64;
        log.store_calls += 1;
        if !started.map_err(|e| store_error(&e))? {
            // Another start won the race: answer with that one.
            let active = self
                .store
                .get_active_workout(&ctx.user_id)
                .await
                .map_err(|e| store_error(&e))?;
            return Err(match active {
                Some(a) => active_conflict(&a.value),
                None => conflict(),
            });
        }
        Ok(api::json_response(
            201,
            &json!({ "workout": workout, "unit": profile.unit.label() }).to_string(),
        ))
    }

    async fn routine_for(
        &self,
        user: &str,
        routine_id: Option<&str>,
        profile: &Profile,
    ) -> Result<crate::domain::plan::Routine, ApiError> {
        let wanted = routine_id
            .map(str::to_string)
            .or_else(|| profile.active_routine_id.clone());
        if let Some(id) = wanted {
            let r = self
                .store
                .get_routine(user, &id)
                .await
                .map_err(|e| store_error(&e))?;
            return r.filter(|r| !r.days.is_empty()).ok_or_else(|| {
                ApiError::new(
                    404,
                    "ROUTINE_NOT_FOUND",
                    format!("you have no routine '{id}'"),
                )
                .field("routine_id")
            });
        }
        let mut all = self
            .store
            .routines(user)
            .await
            .map_err(|e| store_error(&e))?;
        all.retain(|r| !r.days.is_empty());
        match all.len() {
            0 => Err(ApiError::new(
                404,
                "NO_ROUTINE",
                "you have no routine yet; start a template or an ad hoc workout, or ask the coach for a routine",
            )),
            1 => Ok(all.remove(0)),
            _ => Err(invalid(
                &format!(
                    "you have several routines ({}); say which with routine_id",
                    all.iter()
                        .map(|r| r.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                "routine_id",
            )),
        }
    }

    async fn active_workout(
        &self,
        req: &Request,
        log: &mut RequestLog,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "", log)?;
        let t = Instant::now();
        let active = self.store.get_active_workout(&ctx.user_id).await;
        log.store_us += t.elapsed().as_micros() as u64;
        log.store_calls += 1;
        let body = match active.map_err(|e| store_error(&e))? {
            Some(a) => {
                let current = a.value.current_set().map(|p| {
                    let inst = &a.value.exercises[p.exercise];
                    json!({
                        "exercise_instance_id": inst.instance_id,
                        "exercise": inst.name,
                        "set_id": inst.sets[p.set].id,
                        "number": p.number,
                        "total": p.total,
                    })
                });
                json!({ "workout": a.value, "version": a.version, "current": current })
            }
            None => json!({ "workout": null, "version": null, "current": null }),
        };
        Ok(api::json_response(200, &body.to_string()))
    }

    async fn complete(
        &self,
        req: &Request,
        id: &str,
        log: &mut RequestLog,
    ) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req).or_else(|e| {
            if matches!(req.body(), Body::Empty) {
                Ok(String::new())
            } else {
                Err(e)
            }
        })?;
        let (ctx, text) = bind(req, self.auth, &message, log)?;
        if !text.trim().is_empty() {
            only(&json_object(text)?, &[])?;
        }
        let body = self.complete_active(&ctx, id, log).await?;
        Ok(api::json_response(200, &body.to_string()))
    }

    /// Completes workout `id` (idempotent: an already completed one answers the same) and
    /// enqueues the `workout_completed` job. A failed enqueue is a 503; the workout stays
    /// completed, and retrying enqueues again (the worker is idempotent).
    async fn complete_active(
        &self,
        ctx: &SessionContext,
        id: &str,
        log: &mut RequestLog,
    ) -> Result<Value, ApiError> {
        let mut result = None;
        for attempt in 0..MAX_ATTEMPTS {
            let t = Instant::now();
            let active = self.store.get_active_workout(&ctx.user_id).await;
            log.store_us += t.elapsed().as_micros() as u64;
            log.store_calls += 1;
            match active.map_err(|e| store_error(&e))? {
                Some(a) if a.value.id == id => {
                    let now = Utc::now();
                    let done = workouts::completed(&a.value, now);
                    let routine = match (&a.value.routine_id, &a.value.template_id) {
                        (Some(rid), Some(tid)) => self
                            .store
                            .get_routine(&ctx.user_id, rid)
                            .await
                            .map_err(|e| store_error(&e))?
                            .map(|r| workouts::advance_routine(&r, tid)),
                        _ => None,
                    };
                    let t = Instant::now();
                    let ok = self
                        .store
                        .complete_workout(&ctx.user_id, &done, a.version, routine.as_ref())
                        .await;
                    log.store_us += t.elapsed().as_micros() as u64;
                    log.store_calls += 1;
                    if ok.map_err(|e| store_error(&e))? {
                        result = Some((done, false));
                        break;
                    }
                    tokio::time::sleep(backoff(attempt)).await;
                }
                _ => {
                    let found = self
                        .store
                        .find_completed_workout(&ctx.user_id, id)
                        .await
                        .map_err(|e| store_error(&e))?;
                    match found {
                        Some(w) => {
                            result = Some((w, true));
                            break;
                        }
                        None => {
                            return Err(ApiError::new(
                                404,
                                "WORKOUT_NOT_FOUND",
                                format!("you have no workout '{id}'"),
                            ));
                        }
                    }
                }
            }
        }
        let Some((workout, already)) = result else {
            return Err(conflict());
        };
        let job = json!({ "type": "workout_completed", "user_id": ctx.user_id, "workout_id": workout.id });
        let delivery = self.queue.send(&job).await.map_err(|e| {
            tracing::error!(error = %e, "enqueue failed");
            ApiError::new(503, "QUEUE_UNAVAILABLE", "the workout is saved as completed, but its analysis could not be queued; retry to queue it again")
        })?;
        let job_status = match &delivery {
            Delivery::InvokedLocally { status } => {
                json!({ "status": delivery.as_str(), "http_status": status })
            }
            _ => json!({ "status": delivery.as_str() }),
        };
        Ok(json!({ "workout": workout, "already_completed": already, "job": job_status }))
    }

    // ---------------------------------------------------------------- /v1/notifications

    async fn notifications(
        &self,
        req: &Request,
        log: &mut RequestLog,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "", log)?;
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
        let cursor = match params.first("cursor") {
            Some(c) => Some(
                decode_cursor(c)
                    .filter(|sk| sk.starts_with("NOTIFY#"))
                    .ok_or_else(|| invalid("cursor is not one this endpoint returned", "cursor"))?,
            ),
            None => None,
        };
        let t = Instant::now();
        let page = self
            .store
            .page(
                &ctx.user_id,
                "NOTIFY#",
                limit,
                cursor.as_deref(),
                Utc::now(),
            )
            .await;
        log.store_us += t.elapsed().as_micros() as u64;
        log.store_calls += 1;
        let page = page.map_err(|e| store_error(&e))?;
        let body =
            json!({ "items": page.items, "next_cursor": page.next.map(|n| encode_cursor(&n)) });
        Ok(api::json_response(200, &body.to_string()))
    }
}

fn default_name(now: DateTime<Utc>, ctx: &SessionContext) -> String {
    format!("Workout {}", now.with_timezone(&ctx.tz).format("%-d %b"))
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

/// A replayed answer for this request's corr, if it already ran.
fn replay(state: &UserState, fingerprint: &str) -> Result<Option<(&'static str, Value)>, ApiError> {
    let Some(rec) = &state.replay else {
        return Ok(None);
    };
    if rec.fingerprint != fingerprint {
        return Err(reused());
    }
    let v: Value = serde_json::from_str(&rec.body).unwrap_or(Value::Null);
    let action = match v["action"].as_str() {
        Some("REPLACE_EXERCISE") => "REPLACE_EXERCISE",
        _ => "NULL",
    };
    Ok(Some((action, v["data"].clone())))
}

/// Sessions per exercise in the history (familiar exercises rank higher in swaps).
fn familiarity(history: &[Workout]) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for w in history {
        let mut seen = std::collections::HashSet::new();
        for e in &w.exercises {
            if seen.insert(e.exercise_id.as_str()) {
                *m.entry(e.exercise_id.clone()).or_insert(0) += 1;
            }
        }
    }
    m
}

fn fingerprint(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn json_object(text: &str) -> Result<Map<String, Value>, ApiError> {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(ApiError::new(
            400,
            "INVALID_BODY",
            "the request must be a JSON object",
        )),
        Err(e) => Err(ApiError::new(
            400,
            "INVALID_JSON",
            format!("the request is not valid JSON: {e}"),
        )),
    }
}

/// Refuses fields the endpoint does not know (a typo must not be silently ignored).
fn only(p: &Map<String, Value>, allowed: &[&str]) -> Result<(), ApiError> {
    match p.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(ApiError::new(
            400,
            "UNKNOWN_FIELD",
            if allowed.is_empty() {
                format!("unknown field '{k}': this request takes no fields")
            } else {
                format!("unknown field '{k}'; allowed: {}", allowed.join(", "))
            },
        )),
        None => Ok(()),
    }
}

fn req_str<'a>(p: &'a Map<String, Value>, f: &'static str) -> Result<&'a str, ApiError> {
    opt_str(p, f)?.ok_or_else(|| invalid(&format!("'{f}' is required"), f))
}

fn opt_str<'a>(p: &'a Map<String, Value>, f: &'static str) -> Result<Option<&'a str>, ApiError> {
    match p.get(f) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => {
            limits::check_name(f, s)?;
            Ok(Some(s.trim()))
        }
        Some(_) => Err(invalid(&format!("'{f}' must be a non-empty string"), f)),
    }
}

fn opt_bool(p: &Map<String, Value>, f: &'static str) -> Result<Option<bool>, ApiError> {
    match p.get(f) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(invalid(&format!("'{f}' must be true or false"), f)),
    }
}

fn opt_uint(p: &Map<String, Value>, f: &'static str, max: u64) -> Result<Option<u64>, ApiError> {
    match p.get(f) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|n| *n <= max)
            .map(Some)
            .ok_or_else(|| invalid(&format!("'{f}' must be a whole number from 0 to {max}"), f)),
    }
}

fn req_uint(p: &Map<String, Value>, f: &'static str, max: u64) -> Result<u64, ApiError> {
    opt_uint(p, f, max)?.ok_or_else(|| invalid(&format!("'{f}' is required"), f))
}

/// `[{"exercise": "bench press", "sets": 3, "reps": 8, "rir": 2}, ...]`
fn parse_adhoc(v: Option<&Value>) -> Result<Vec<workouts::AdhocExercise>, ApiError> {
    let items = match v {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(invalid("'exercises' must be a list", "exercises")),
    };
    limits::check_count("exercises", items.len(), limits::MAX_EXERCISES_PER_WORKOUT)?;
    items
        .iter()
        .map(|item| {
            let o = item.as_object().ok_or_else(|| {
                invalid(
                    "each exercise must be an object like {\"exercise\": \"bench press\"}",
                    "exercises",
                )
            })?;
            only(o, &["exercise", "exercise_id", "sets", "reps", "rir"])?;
            let text = opt_str(o, "exercise_id")?
                .or(opt_str(o, "exercise")?)
                .ok_or_else(|| {
                    invalid("each exercise needs 'exercise' (a name or id)", "exercises")
                })?;
            let exercise = catalog()
                .resolve(text)
                .exercise()
                .ok_or_else(|| unknown_exercise(text))?;
            let sets = opt_uint(o, "sets", MAX_SETS_PER_EXERCISE as u64)?
                .unwrap_or(u64::from(workouts::DEFAULT_SETS)) as u32;
            let reps = opt_uint(o, "reps", u64::from(MAX_REPS))?
                .unwrap_or(u64::from(workouts::DEFAULT_REPS)) as u32;
            let rir = opt_uint(o, "rir", u64::from(MAX_RIR))?
                .unwrap_or(u64::from(suggest::DEFAULT_TARGET_RIR)) as u32;
            if sets == 0 || reps == 0 {
                return Err(invalid("sets and reps must be at least 1", "exercises"));
            }
            Ok(workouts::AdhocExercise {
                exercise,
                sets,
                reps,
                rir,
            })
        })
        .collect()
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
