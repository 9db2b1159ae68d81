//! The lifter's plans as the app shows them: the routine "start my next workout" follows, with
//! its days' templates (`GET /v1/routines/active`), and the templates (`GET /v1/templates`,
//! `GET /v1/templates/{id}`).

use serde::Serialize;

use super::workout::Followed;
use super::{App, store_error};
use crate::api::{ApiError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::plan::{Routine, Template};

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
    pub async fn active_routine(&self, ctx: &SessionContext) -> Result<ActiveRoutine, ApiError> {
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
        let templates = all
            .map_err(|e| store_error(&e))?
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

    pub async fn templates(&self, ctx: &SessionContext) -> Result<Templates, ApiError> {
        let all = self.store.templates(&ctx.user_id).await;
        let mut items = all.map_err(|e| store_error(&e))?;
        items.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
        Ok(Templates { items })
    }

    /// The template `id`; another lifter's id is not found.
    pub async fn template(&self, ctx: &SessionContext, id: &str) -> Result<Template, ApiError> {
        let t = self.store.get_template(&ctx.user_id, id).await;
        t.map_err(|e| store_error(&e))?.ok_or_else(|| {
            ApiError::new(
                ErrorCode::TemplateNotFound,
                format!("you have no template '{id}'"),
            )
            .field("id")
        })
    }
}
