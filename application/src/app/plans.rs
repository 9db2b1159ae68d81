//! The lifter's plans as the app shows them: the routine "start my next workout" follows, with
//! its days' templates (`GET /v1/routines/active`), and the templates (`GET /v1/templates`,
//! `GET /v1/templates/{id}`); and the lifter's own edits of them (`PUT /v1/templates/{id}`,
//! `PUT /v1/routines/{id}`), checked by the same rules as the coach's proposals
//! (`skills::proposals`): exercises resolved against the catalog, counts within the limits.
//! The lifter also lists their routines, makes one the one they follow, and deletes a routine
//! or a template (one a routine still uses is refused, naming the routine).

use chrono::Utc;
use serde::Serialize;
use serde_json::Value;

use super::workout::Followed;
use super::{App, invalid};
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::artifact::Proposal;
use crate::domain::plan::{Routine, Template};
use crate::skills::proposals::{self, ProposalError};

/// A routine written by `PUT /v1/routines/{id}`, and the templates it created for its days.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoutineWritten {
    pub routine: Routine,
    /// New templates for the days given as exercises (days naming a template keep it).
    pub templates: Vec<Template>,
    pub created: bool,
}

/// A template written by `PUT /v1/templates/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TemplateWritten {
    pub template: Template,
    pub created: bool,
}

fn refused(e: ProposalError) -> AppError {
    AppError::new(ErrorCode::ValidationError, e.message).field(e.field)
}

/// Refuses fields a plan body does not take, naming the first (as every JSON route does).
fn only(body: &Value, allowed: &[&str], at: &str) -> Result<(), AppError> {
    let Some(o) = body.as_object() else {
        return Err(AppError::new(
            ErrorCode::InvalidBody,
            format!("{at} must be a JSON object"),
        ));
    };
    match o.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(AppError::new(
            ErrorCode::UnknownField,
            format!("unknown field '{k}' (known: {})", allowed.join(", ")),
        )
        .field(if at == "body" {
            k.clone()
        } else {
            format!("{at}.{k}")
        })),
        None => Ok(()),
    }
}

const EXERCISE_FIELDS: [&str; 8] = [
    "exercise_id",
    "exercise",
    "sets",
    "reps",
    "rir",
    "rep_range",
    "group",
    "rest_seconds",
];

/// A `name`, when given, is a non-blank string (absent keeps the current one).
fn named(body: &Value) -> Result<(), AppError> {
    match body.get("name") {
        None => Ok(()),
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(()),
        Some(_) => Err(invalid("name is a non-blank string", "name")),
    }
}

fn known_exercise_fields(list: Option<&Value>, at: &str) -> Result<(), AppError> {
    for (i, e) in list
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        only(e, &EXERCISE_FIELDS, &format!("{at}[{i}]"))?;
    }
    Ok(())
}

/// The active routine, the day that comes next, and the templates its days use (`routine`
/// and `next_day` are null when there is no routine to follow).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActiveRoutine {
    pub routine: Option<Routine>,
    /// The label of the day "start my next workout" starts.
    pub next_day: Option<String>,
    pub templates: Vec<Template>,
}

/// Every template, by name.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Templates {
    pub items: Vec<Template>,
}

impl App {
    /// The routine the lifter follows: the one set active, else their only one.
    pub async fn active_routine(&self, ctx: &SessionContext) -> Result<ActiveRoutine, AppError> {
        let profile = self.profile(ctx).await?;
        let Followed::One(routine) = self.followed_routine(&ctx.user_id, &profile).await? else {
            // None, one that is gone, or several and none set active: nothing to follow.
            return Ok(ActiveRoutine {
                routine: None,
                next_day: None,
                templates: Vec::new(),
            });
        };
        let all = self.store.templates(&ctx.user_id).await;
        let templates = all?
            .into_iter()
            .filter(|t| routine.days.iter().any(|d| d.template_id == t.id))
            .collect();
        Ok(ActiveRoutine {
            next_day: routine
                .days
                .get(routine.next_day % routine.days.len().max(1))
                .map(|d| d.label.clone()),
            routine: Some(routine),
            templates,
        })
    }

    pub async fn templates(&self, ctx: &SessionContext) -> Result<Templates, AppError> {
        let all = self.store.templates(&ctx.user_id).await;
        let mut items = all?;
        items.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
        Ok(Templates { items })
    }

    /// The template `id`; another lifter's id is not found.
    pub async fn template(&self, ctx: &SessionContext, id: &str) -> Result<Template, AppError> {
        let t = self.store.get_template(&ctx.user_id, id).await;
        t?.ok_or_else(|| {
            AppError::new(
                ErrorCode::TemplateNotFound,
                format!("you have no template '{id}'"),
            )
            .field("id")
        })
    }

    /// `PUT /v1/templates/{id}`: `{name?, exercises: [{exercise_id | exercise, sets?, reps?,
    /// rir?, rep_range?}]}` replaces the template (or creates it, name required).
    pub async fn put_template(
        &self,
        ctx: &SessionContext,
        id: &str,
        body: &Value,
    ) -> Result<TemplateWritten, AppError> {
        only(body, &["name", "exercises"], "body")?;
        named(body)?;
        known_exercise_fields(body.get("exercises"), "exercises")?;
        let existing = self.store.get_template(&ctx.user_id, id).await;
        let existing = existing?;
        let created = existing.is_none();
        if created && body.get("name").and_then(Value::as_str).is_none() {
            return Err(invalid("a new template needs a name", "name"));
        }
        let base = existing.unwrap_or_else(|| Template {
            id: id.to_string(),
            name: String::new(),
            exercises: Vec::new(),
        });
        let Proposal::TemplateUpdate { template } =
            proposals::template_update(body, &base).map_err(refused)?
        else {
            return Err(AppError::internal());
        };
        let put = self.store.put_template(&ctx.user_id, &template).await;
        put?;
        Ok(TemplateWritten { template, created })
    }

    /// `PUT /v1/routines/{id}`: `{name?, days: [{label, exercises: [...]} | {label,
    /// template_id}]}` replaces the routine's days (or creates it, name required); the day it
    /// is on stays, within the new days.
    pub async fn put_routine(
        &self,
        ctx: &SessionContext,
        id: &str,
        body: &Value,
    ) -> Result<RoutineWritten, AppError> {
        only(body, &["name", "days"], "body")?;
        named(body)?;
        for (i, d) in body
            .get("days")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            only(
                d,
                &["label", "exercises", "template_id"],
                &format!("days[{i}]"),
            )?;
            known_exercise_fields(d.get("exercises"), &format!("days[{i}].exercises"))?;
        }
        let (existing, known) = tokio::join!(
            self.store.get_routine(&ctx.user_id, id),
            self.store.templates(&ctx.user_id)
        );
        let existing = existing?;
        let known = known?;
        let created = existing.is_none();
        if created && body.get("name").and_then(Value::as_str).is_none() {
            return Err(invalid("a new routine needs a name", "name"));
        }
        let base = existing.unwrap_or_else(|| Routine {
            id: id.to_string(),
            name: String::new(),
            days: Vec::new(),
            next_day: 0,
        });
        let Proposal::RoutineUpdate { routine, templates } =
            proposals::routine_update(body, &base, Some(&known), Utc::now()).map_err(refused)?
        else {
            return Err(AppError::internal());
        };
        // The days' new templates first: the routine never names one that is not stored.
        for t in &templates {
            let put = self.store.put_template(&ctx.user_id, t).await;
            put?;
        }
        let put = self.store.put_routine(&ctx.user_id, &routine).await;
        put?;
        Ok(RoutineWritten {
            routine,
            templates,
            created,
        })
    }
}

/// Every routine, by name, and which one the lifter follows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Routines {
    pub items: Vec<Routine>,
    /// The routine "start my next workout" follows (the one set active, else the only one).
    pub active_routine_id: Option<String>,
}

/// What a deletion did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanDeleted {
    pub deleted: String,
    /// A routine deleted while the lifter followed it: they now follow none (or their only
    /// other one), and say so.
    pub was_active: bool,
}

impl App {
    pub async fn routines(&self, ctx: &SessionContext) -> Result<Routines, AppError> {
        let profile = self.profile(ctx).await?;
        let all = self.store.routines(&ctx.user_id).await;
        let mut items = all?;
        items.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
        let active_routine_id = match self.followed_routine(&ctx.user_id, &profile).await? {
            Followed::One(r) => Some(r.id),
            _ => None,
        };
        Ok(Routines {
            items,
            active_routine_id,
        })
    }

    /// `POST /v1/routines/{id}/activate`: the routine "start my next workout" follows.
    pub async fn activate_routine(
        &self,
        ctx: &SessionContext,
        id: &str,
    ) -> Result<ActiveRoutine, AppError> {
        let r = self.store.get_routine(&ctx.user_id, id).await?;
        if r.is_none_or(|r| r.days.is_empty()) {
            return Err(AppError::new(
                ErrorCode::RoutineNotFound,
                format!("you have no routine '{id}' with days to follow"),
            )
            .field("id"));
        }
        self.set_active_routine(ctx, Some(id), None).await?;
        self.active_routine(ctx).await
    }

    /// `DELETE /v1/templates/{id}`: refused while a routine's day uses it (409
    /// `TEMPLATE_IN_USE`, naming them); workouts started from it keep their own copy.
    pub async fn delete_template(
        &self,
        ctx: &SessionContext,
        id: &str,
    ) -> Result<PlanDeleted, AppError> {
        let routines = self.store.routines(&ctx.user_id).await?;
        let users: Vec<String> = routines
            .iter()
            .filter_map(|r| {
                let days: Vec<&str> = r
                    .days
                    .iter()
                    .filter(|d| d.template_id == id)
                    .map(|d| d.label.as_str())
                    .collect();
                (!days.is_empty()).then(|| format!("'{}' ({})", r.name, days.join(", ")))
            })
            .collect();
        if !users.is_empty() {
            return Err(AppError::new(
                ErrorCode::TemplateInUse,
                format!(
                    "template '{id}' is a day of the routine {}: change or delete the routine first",
                    users.join(" and the routine ")
                ),
            )
            .field("id"));
        }
        if !self.store.delete_plan(&ctx.user_id, "TEMPLATE", id).await? {
            return Err(AppError::new(
                ErrorCode::TemplateNotFound,
                format!("you have no template '{id}'"),
            )
            .field("id"));
        }
        Ok(PlanDeleted {
            deleted: id.to_string(),
            was_active: false,
        })
    }

    /// `DELETE /v1/routines/{id}`: its templates stay (they are the lifter's); the routine the
    /// lifter followed is no longer followed.
    pub async fn delete_routine(
        &self,
        ctx: &SessionContext,
        id: &str,
    ) -> Result<PlanDeleted, AppError> {
        let profile = self.profile(ctx).await?;
        if !self.store.delete_plan(&ctx.user_id, "ROUTINE", id).await? {
            return Err(AppError::new(
                ErrorCode::RoutineNotFound,
                format!("you have no routine '{id}'"),
            )
            .field("id"));
        }
        let was_active = profile.active_routine_id.as_deref() == Some(id);
        if was_active {
            self.set_active_routine(ctx, None, Some(id)).await?;
        }
        Ok(PlanDeleted {
            deleted: id.to_string(),
            was_active,
        })
    }

    /// Sets (or clears) the profile's active routine, re-applied on the stored profile when it
    /// changed meanwhile; with `only_if`, only while the active one is still that (a deletion
    /// does not undo an activation made meanwhile).
    async fn set_active_routine(
        &self,
        ctx: &SessionContext,
        id: Option<&str>,
        only_if: Option<&str>,
    ) -> Result<(), AppError> {
        let mut attempts = crate::retry::Attempts::new(super::MAX_ATTEMPTS);
        while attempts.next().await {
            let stored = self.store.stored_profile(&ctx.user_id).await?;
            let mut profile = stored
                .as_ref()
                .map(|s| s.profile.clone())
                .unwrap_or_default();
            if profile.active_routine_id.as_deref() == id && stored.is_some() {
                return Ok(());
            }
            if only_if.is_some() && profile.active_routine_id.as_deref() != only_if {
                return Ok(());
            }
            profile.active_routine_id = id.map(str::to_string);
            if self
                .store
                .replace_profile(&ctx.user_id, &profile, stored.as_ref())
                .await?
            {
                return Ok(());
            }
        }
        Err(super::conflict())
    }
}

impl App {
    /// `POST /v1/workouts/{id}/template` `{name?}`: the completed or active workout `id` as a
    /// template (`skills::workouts::template_of`), id `t-<workout id>`: saving the same
    /// workout again rewrites it (201 the first time, then 200).
    pub async fn save_as_template(
        &self,
        ctx: &SessionContext,
        workout_id: &str,
        body: &Value,
    ) -> Result<TemplateWritten, AppError> {
        only(body, &["name"], "body")?;
        let name = match body.get("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(n)) => Some(n.trim().to_string()),
            Some(_) => return Err(invalid("name is text", "name")),
        };
        let id = format!("t-{workout_id}");
        if !crate::context::is_valid_id(&id) {
            return Err(invalid(
                "the workout id is too long to name a template after",
                "id",
            ));
        }
        let found = self.workout(ctx, workout_id).await?;
        let name = name.unwrap_or_else(|| found.workout.name.clone());
        let template = crate::skills::workouts::template_of(&found.workout, &id, &name);
        if template.exercises.is_empty() {
            return Err(invalid(
                "this workout has no working sets to make a template of",
                "id",
            ));
        }
        template
            .validate()
            .map_err(|e| invalid(&e.message, e.field))?;
        let created = self.store.get_template(&ctx.user_id, &id).await?.is_none();
        self.store.put_template(&ctx.user_id, &template).await?;
        Ok(TemplateWritten { template, created })
    }
}
