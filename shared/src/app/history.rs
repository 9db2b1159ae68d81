//! The lifter's history as the app's history screen reads it: completed workouts newest first,
//! a page at a time, each with its numbers (`GET /v1/workouts`), and one workout whole
//! (`GET /v1/workouts/{id}`).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{App, store_error};
use crate::analysis::session::{SessionSummary, summarise};
use crate::api::{ApiError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::units::Unit;
use crate::domain::workout::Workout;
use crate::skills::notify::timezone;

/// One completed workout in the history list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryItem {
    pub id: String,
    pub name: String,
    pub started_at: DateTime<Utc>,
    pub completed_at: Option<DateTime<Utc>>,
    /// Its numbers: sets, hard sets, volume, per exercise and per muscle group (local date in
    /// the lifter's timezone).
    pub summary: SessionSummary,
}

/// A page of the history; `next` continues it (the store's key, encoded by the adapter).
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryPage {
    pub items: Vec<HistoryItem>,
    pub next: Option<String>,
    pub unit: Unit,
}

/// One workout, whole, and the unit the lifter reads weights in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkoutAnswer {
    pub workout: Workout,
    pub unit: Unit,
}

impl App {
    /// Completed workouts, newest first, `limit` at a time after the key `after`.
    pub async fn history(
        &self,
        ctx: &SessionContext,
        limit: i32,
        after: Option<&str>,
    ) -> Result<HistoryPage, ApiError> {
        let (page, profile) = tokio::join!(
            self.store.completed_page(&ctx.user_id, limit, after),
            self.profile(ctx)
        );
        let (workouts, next) = page.map_err(|e| store_error(&e))?;
        let profile = profile?;
        let tz = timezone(&profile);
        let items = workouts
            .into_iter()
            .map(|w| HistoryItem {
                summary: summarise(&w, tz),
                id: w.id,
                name: w.name,
                started_at: w.started_at,
                completed_at: w.completed_at,
            })
            .collect();
        Ok(HistoryPage {
            items,
            next,
            unit: profile.unit,
        })
    }

    /// The workout `id`: a completed one, or the active one. Another lifter's id is not found.
    pub async fn workout(&self, ctx: &SessionContext, id: &str) -> Result<WorkoutAnswer, ApiError> {
        let (completed, active, profile) = tokio::join!(
            self.store.find_completed_workout(&ctx.user_id, id),
            self.store.get_active_workout(&ctx.user_id),
            self.profile(ctx)
        );
        let active = active
            .map_err(|e| store_error(&e))?
            .map(|v| v.value)
            .filter(|w| w.id == id);
        let workout = completed.map_err(|e| store_error(&e))?.or(active);
        let workout = workout.ok_or_else(|| {
            ApiError::new(ErrorCode::WorkoutNotFound, format!("no workout {id}")).field("id")
        })?;
        Ok(WorkoutAnswer {
            workout,
            unit: profile?.unit,
        })
    }
}
