//! What apps draw as progress charts, computed by the same analysis as the cards and reviews:
//! one exercise's weekly series (`GET /v1/progress/exercises/{id}`) and the weekly hard sets per
//! muscle group against their volume landmarks (`GET /v1/progress/muscles`).

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Serialize;

use super::{App, invalid};
use crate::analysis::load::{GroupVolume, against_landmarks, weekly_group_series};
use crate::analysis::series::{ExerciseTrend, WeekPoint, trend, weekly_series};
use crate::app::error::AppError;
use crate::context::SessionContext;
use crate::domain::catalog::catalog;
use crate::domain::strength::round1;
use crate::domain::units::Unit;
use crate::domain::workout::Workout;
use crate::skills::notify::timezone;

/// Weeks a chart shows: default and most.
pub(crate) const WEEKS_DEFAULT: i64 = 12;
pub(crate) const WEEKS_MAX: i64 = 104;

/// Reads `weeks` (1 to 104, default 12).
pub fn weeks_param(text: Option<&str>) -> Result<i64, AppError> {
    match text {
        None => Ok(WEEKS_DEFAULT),
        Some(t) => t
            .parse::<i64>()
            .ok()
            .filter(|w| (1..=WEEKS_MAX).contains(w))
            .ok_or_else(|| invalid(&format!("weeks is a number from 1 to {WEEKS_MAX}"), "weeks")),
    }
}

/// One week of an exercise's chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExerciseWeek {
    #[serde(flatten)]
    pub point: WeekPoint,
    /// The week's best estimated 1RM beat every earlier week of the chart.
    pub pr: bool,
}

/// An exercise's weekly series: best e1RM, loads, volume, sets and effort per ISO week with
/// training (Monday, in the lifter's timezone), oldest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExerciseProgress {
    pub exercise_id: String,
    pub name: Option<String>,
    pub weeks: i64,
    /// The chart's weeks end here: the lifter's last workout (now without one).
    pub ends_at: DateTime<Utc>,
    pub unit: Unit,
    pub points: Vec<ExerciseWeek>,
    /// The e1RM trend over the chart's weeks.
    pub trend: ExerciseTrend,
    /// The best e1RM ever stored for it (rated or not), older than the chart too.
    pub best_ever_e1rm_kg: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MuscleWeek {
    pub week_start: NaiveDate,
    /// Every group, trained or not, against its landmarks.
    pub groups: Vec<GroupVolume>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MuscleProgress {
    pub weeks: i64,
    /// The chart's weeks end here: the lifter's last workout (now without one).
    pub ends_at: DateTime<Utc>,
    /// Weeks with training, oldest first.
    pub points: Vec<MuscleWeek>,
}

/// What a chart reads.
struct Chart {
    history: Vec<Workout>,
    ends_at: DateTime<Utc>,
    tz: chrono_tz::Tz,
    unit: Unit,
}

impl App {
    /// The workouts a chart of `weeks` shows: the weeks up to the lifter's last workout (up to
    /// now for a lifter training now; an imported history that ended years ago still charts),
    /// with the lifter's timezone and unit.
    async fn chart_history(&self, ctx: &SessionContext, weeks: i64) -> Result<Chart, AppError> {
        let (latest, profile) = tokio::join!(
            self.store.completed_page(&ctx.user_id, 1, None),
            self.profile(ctx)
        );
        let (latest, _) = latest?;
        let profile = profile?;
        let ends_at = latest.first().map_or_else(Utc::now, |w| w.started_at);
        let since = ends_at - Duration::weeks(weeks);
        let history = self
            .store
            .completed_workouts_since(&ctx.user_id, since)
            .await;
        Ok(Chart {
            history: history?,
            ends_at,
            tz: timezone(&profile),
            unit: profile.unit,
        })
    }

    pub async fn exercise_progress(
        &self,
        ctx: &SessionContext,
        exercise_id: &str,
        weeks: i64,
    ) -> Result<ExerciseProgress, AppError> {
        let (chart, bests) = tokio::join!(
            self.chart_history(ctx, weeks),
            self.store.bests(&ctx.user_id, exercise_id)
        );
        let Chart {
            history,
            ends_at,
            tz,
            unit,
        } = chart?;
        let bests = bests?;
        let known = catalog().get(exercise_id);
        // The catalog's name, else what the lifter called it.
        let name = known.map(|e| e.name.clone()).or_else(|| {
            history
                .iter()
                .flat_map(|w| &w.exercises)
                .find(|e| e.exercise_id == exercise_id)
                .map(|e| e.name.clone())
        });
        let series = weekly_series(&history, tz)
            .remove(exercise_id)
            .unwrap_or_default();
        let mut best: Option<f64> = None;
        let points = series
            .iter()
            .map(|p| {
                let pr = matches!((p.e1rm_max_kg, best), (Some(e), Some(b)) if e > b);
                if let Some(e) = p.e1rm_max_kg {
                    best = Some(best.map_or(e, |b| b.max(e)));
                }
                ExerciseWeek {
                    point: p.clone(),
                    pr,
                }
            })
            .collect();
        Ok(ExerciseProgress {
            exercise_id: exercise_id.to_string(),
            name,
            weeks,
            ends_at,
            unit,
            points,
            trend: trend(&series, known.is_none_or(|e| e.compound)),
            best_ever_e1rm_kg: [bests.rated, bests.unrated]
                .into_iter()
                .flatten()
                .reduce(f64::max)
                .map(round1),
        })
    }

    pub async fn muscle_progress(
        &self,
        ctx: &SessionContext,
        weeks: i64,
    ) -> Result<MuscleProgress, AppError> {
        let chart = self.chart_history(ctx, weeks).await?;
        let points = weekly_group_series(&chart.history, chart.tz)
            .into_iter()
            .map(|(week_start, sets)| MuscleWeek {
                week_start,
                groups: against_landmarks(&sets),
            })
            .collect();
        Ok(MuscleProgress {
            weeks,
            ends_at: chart.ends_at,
            points,
        })
    }
}
