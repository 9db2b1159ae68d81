//! The workout lifecycle's routes: start, read the active one, complete; and the proposal
//! buttons. Each reads the request, calls its use case (`app::workout`, `app::proposals`) and
//! writes the answer.

use super::*;
use crate::app::workout::StartWorkout;

impl FunctionalLane {
    pub(super) async fn start_workout(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let obj = if text.trim().is_empty() {
            Map::new()
        } else {
            json_object(text)?
        };
        let started = self
            .app
            .start_workout(&ctx, &StartWorkout::from_payload(&obj)?)
            .await?;
        Ok(json_body(201, &started))
    }

    pub(super) async fn active_workout(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.active_workout(&ctx).await?))
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
        Ok(json_body(200, &self.app.complete_workout(&ctx, id).await?))
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
            crate::app::proposals::confirm(
                &self.app.store,
                &ctx.user_id,
                id,
                Some(hash),
                Utc::now(),
            )
            .await
        } else {
            only(&obj, &[])?;
            crate::app::proposals::dismiss(&self.app.store, &ctx.user_id, id, Utc::now()).await
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
