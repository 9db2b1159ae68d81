//! The workout lifecycle: start (ad hoc, template, routine), read the active one, complete.

use super::*;

impl FunctionalLane {
    pub(super) async fn start_workout(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
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
        let template_id = opt_str(&obj, "template_id")?
            .map(|id| checked_id(id, "template_id"))
            .transpose()?;
        let routine_id = opt_str(&obj, "routine_id")?
            .map(|id| checked_id(id, "routine_id"))
            .transpose()?;
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
        let (state, mut history) = self.load(&ctx, parts).await?;
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
            let history = self.with_template_sessions(&ctx, history, &t).await?;
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
            let history = self.with_template_sessions(&ctx, history, &t).await?;
            let mut w = workouts::from_template(&t, Some(&routine), &history, &profile, now);
            w.name = format!("{} ({})", t.name, routine.name);
            w
        } else {
            let name = name
                .map(str::to_string)
                .unwrap_or_else(|| default_name(now, &ctx));
            let ids: Vec<&str> = adhoc.iter().map(|a| a.exercise.id.as_str()).collect();
            history = self.with_last_sessions(&ctx, history, &ids).await?;
            workouts::adhoc(&name, &adhoc, &history, &profile, now)
        };
        let mut workout = workout;
        if let Some(n) = name {
            workout.name = n.to_string();
        }
        workouts::validate(&workout)?;
        let started = self.store.start_workout(&ctx.user_id, &workout).await;
        if !started.map_err(|e| store_error(&e))? {
            let active = self
                .store
                .get_active_workout(&ctx.user_id)
                .await
                .map_err(|e| store_error(&e))?;
            return match active {
                // This very workout: the start was applied but its answer was lost, and the
                // SDK's retry met its own condition.
                Some(a) if a.value == workout => Ok(api::json_response(
                    201,
                    &json!({ "workout": workout, "unit": profile.unit.label() }).to_string(),
                )),
                // Another start won the race: answer with that one.
                Some(a) => Err(active_conflict(&a.value)),
                None => Err(conflict()),
            };
        }
        Ok(api::json_response(
            201,
            &json!({ "workout": workout, "unit": profile.unit.label() }).to_string(),
        ))
    }

    pub(super) async fn routine_for(
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

    pub(super) async fn active_workout(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let active = self.store.get_active_workout(&ctx.user_id).await;
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

    pub(super) async fn complete(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let message = optional_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        if !text.trim().is_empty() {
            only(&json_object(text)?, &[])?;
        }
        let body = self.complete_active(&ctx, id).await?;
        Ok(api::json_response(200, &body.to_string()))
    }

    /// Completes workout `id` (idempotent: an already completed one answers the same) and
    /// enqueues the `workout_completed` job. A failed enqueue is a 503; the workout stays
    /// completed, and retrying enqueues again (the worker is idempotent).
    pub(crate) async fn complete_active(
        &self,
        ctx: &SessionContext,
        id: &str,
    ) -> Result<Value, ApiError> {
        let mut result = None;
        for attempt in 0..MAX_ATTEMPTS {
            let active = self.store.get_active_workout(&ctx.user_id).await;
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
                    let ok = self
                        .store
                        .complete_workout(&ctx.user_id, &done, a.version, routine.as_ref())
                        .await;
                    if ok.map_err(|e| store_error(&e))? {
                        result = Some((done, false));
                        break;
                    }
                    crate::retry::pause(attempt).await;
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
        let job = crate::queue::Job::WorkoutCompleted {
            user_id: ctx.user_id.clone(),
            workout_id: workout.id.clone(),
        };
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
}

/// `POST /v1/artifacts/{id}/confirm` `{"content_hash": ..}` and `/dismiss` (empty body or `{}`).
impl FunctionalLane {
    pub(super) async fn artifact(
        &self,
        req: &Request,
        id: &str,
        confirm: bool,
    ) -> Result<Response<Body>, ApiError> {
        let message = optional_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let obj = if text.trim().is_empty() {
            Map::new()
        } else {
            json_object(text)?
        };
        let body = if confirm {
            only(&obj, &["content_hash"])?;
            let hash = opt_str(&obj, "content_hash")?.ok_or_else(|| {
                invalid(
                    "'content_hash' is required: the hash of the proposal the lifter saw",
                    "content_hash",
                )
            })?;
            super::super::artifacts::confirm(&self.store, &ctx.user_id, id, Some(hash), Utc::now())
                .await
        } else {
            only(&obj, &[])?;
            super::super::artifacts::dismiss(&self.store, &ctx.user_id, id, Utc::now()).await
        };
        Ok(api::json_response(200, &body?.to_string()))
    }
}

/// The payload of a POST whose body may be empty.
fn optional_payload(req: &Request) -> Result<String, ApiError> {
    api::extract_payload(req).or_else(|e| {
        if matches!(req.body(), Body::Empty) {
            Ok(String::new())
        } else {
            Err(e)
        }
    })
}

pub(super) fn default_name(now: DateTime<Utc>, ctx: &SessionContext) -> String {
    format!("Workout {}", now.with_timezone(&ctx.tz).format("%-d %b"))
}

/// `[{"exercise": "bench press", "sets": 3, "reps": 8, "rir": 2}, ...]`
pub(super) fn parse_adhoc(v: Option<&Value>) -> Result<Vec<workouts::AdhocExercise>, ApiError> {
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
