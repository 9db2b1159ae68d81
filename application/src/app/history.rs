//! The lifter's history as the app's history screen reads it: completed workouts newest first,
//! a page at a time, each with its numbers (`GET /v1/workouts`), and one workout whole
//! (`GET /v1/workouts/{id}`); and the weekly reviews the worker wrote (`GET /v1/reviews/{week_ending}`).

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use serde_json::Value;

use super::App;
use crate::analysis::session::{SessionSummary, summarise};
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::calendar::iso_week_id;
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
    /// What `PATCH /v1/workouts/{id}` may send as `version` (0 until its first edit).
    pub version: u64,
    pub unit: Unit,
}

impl App {
    /// Completed workouts, newest first, `limit` at a time after the key `after`.
    pub async fn history(
        &self,
        ctx: &SessionContext,
        limit: i32,
        after: Option<&str>,
    ) -> Result<HistoryPage, AppError> {
        let (page, profile) = tokio::join!(
            self.store.completed_page(&ctx.user_id, limit, after),
            self.profile(ctx)
        );
        let (workouts, next) = page?;
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
    pub async fn workout(&self, ctx: &SessionContext, id: &str) -> Result<WorkoutAnswer, AppError> {
        let (completed, active, profile) = tokio::join!(
            self.store.find_completed(&ctx.user_id, id),
            self.store.get_active_workout(&ctx.user_id),
            self.profile(ctx)
        );
        let active = active?.filter(|v| v.value.id == id);
        let found = completed?.or(active);
        let found = found.ok_or_else(|| {
            AppError::new(ErrorCode::WorkoutNotFound, format!("no workout {id}")).field("id")
        })?;
        Ok(WorkoutAnswer {
            workout: found.value,
            version: found.version,
            unit: profile?.unit,
        })
    }
}

impl App {
    /// The weekly review of the ISO week (Monday to Sunday) holding `day`.
    pub async fn review(&self, ctx: &SessionContext, day: NaiveDate) -> Result<Value, AppError> {
        let week = iso_week_id(day);
        let review = self.store.review(&ctx.user_id, &week).await;
        review?.ok_or_else(|| {
            AppError::new(
                ErrorCode::ReviewNotFound,
                format!("no weekly review of {week} (the week holding {day}): reviews are written after each week with training"),
            )
            .field("week_ending")
        })
    }
}
