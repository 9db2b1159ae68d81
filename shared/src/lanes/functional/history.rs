//! `GET /v1/workouts` (the history, newest first, a page at a time) and `GET /v1/workouts/{id}`
//! (`app::history`); `GET /v1/reviews/{week_ending}`.

use super::*;
use crate::store::workouts::is_completed_key;

impl FunctionalLane {
    pub(super) async fn history(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let (limit, cursor) = page_params(req, is_completed_key)?;
        let page = self.app.history(&ctx, limit, cursor.as_deref()).await?;
        let body = json!({
            "items": page.items,
            "unit": page.unit,
            "next_cursor": page.next.map(|n| encode_cursor(&n)),
        });
        Ok(api::json_response(200, &body.to_string()))
    }

    pub(super) async fn workout(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.workout(&ctx, id).await?))
    }

    pub(super) async fn review(
        &self,
        req: &Request,
        day: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let day = chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d")
            .ok()
            .filter(|_| day.len() == 10)
            .ok_or_else(|| {
                invalid(
                    "week_ending is a date, YYYY-MM-DD (the Sunday a week ends on, or any day of it)",
                    "week_ending",
                )
            })?;
        Ok(json_body(200, &self.app.review(&ctx, day).await?))
    }
}
