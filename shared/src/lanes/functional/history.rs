//! `GET /v1/workouts` (the history, newest first, a page at a time) and `GET /v1/workouts/{id}`
//! (`app::history`); `GET /v1/reviews/{week_ending}`.

use super::*;
use crate::app::workout_edit::WorkoutEdit;
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

    /// `PATCH /v1/workouts/{id}`: the edit as a JSON object (or a message with a context
    /// prefix, for its `corr`).
    pub(super) async fn edit_workout(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        // The text as sent is what the request's corr is bound to.
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let edit = WorkoutEdit::from_body(&json_object(text, false)?)?;
        let answer = self
            .app
            .change_completed(&ctx, id, Some(&edit), text)
            .await?;
        Ok(json_body(200, &answer))
    }

    /// `DELETE /v1/workouts/{id}` (no body, or a message holding only a context prefix).
    pub(super) async fn delete_workout(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let message = match req.body() {
            Body::Empty => String::new(),
            _ => api::extract_payload(req)?,
        };
        let (ctx, text) = bind(req, self.auth, &message)?;
        json_object(text, true)?
            .as_object()
            .filter(|o| o.is_empty())
            .ok_or_else(|| invalid("a deletion takes no fields", "body"))?;
        let answer = self.app.change_completed(&ctx, id, None, "").await?;
        Ok(json_body(200, &answer))
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
