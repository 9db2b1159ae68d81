//! The workout lifecycle's routes: start, read the active one, complete; and the proposal
//! buttons. Each reads the request, calls its use case (`app::workout`, `app::proposals`) and
//! writes the answer.

use super::*;
use serde::Deserialize;

use crate::app::params::text as text_field;
use crate::app::workout::StartWorkout;

impl FunctionalLane {
    pub(super) async fn start_workout(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, body) = object_body(req, self.auth, true)?;
        let body = StartWorkout::from_body(&body)?;
        let started = self.app.start_workout(&ctx, &body).await?;
        Ok(json_body(201, &started))
    }

    pub(super) async fn active_workout(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.active_workout(&ctx).await?))
    }

    /// `POST /v1/workouts/{id}/sync`: an offline queue's commands, in order.
    pub(super) async fn sync(&self, req: &Request, id: &str) -> Result<Response<Body>, ApiError> {
        let (ctx, body) = object_body(req, self.auth, true)?;
        let commands = crate::app::sync::read_batch(&body, id)?;
        Ok(json_body(
            200,
            &self.app.sync_workout(&ctx, id, &commands).await?,
        ))
    }

    pub(super) async fn complete(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let message = optional_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let NoFields {} = read(&json_object(text, true)?)?;
        Ok(json_body(200, &self.app.complete_workout(&ctx, id).await?))
    }
}

/// `GET /v1/artifacts/{id}` and `GET /v1/artifacts` (the pending ones): a proposal read on
/// another device than the one it was made on.
impl FunctionalLane {
    pub(super) async fn get_artifact(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let a = crate::app::proposals::get(&self.app.store, &ctx.user_id, id, Utc::now()).await?;
        Ok(json_body(200, &a))
    }

    pub(super) async fn pending_artifacts(
        &self,
        req: &Request,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        match req.query_string_parameters().first("status") {
            None | Some("proposed") => {}
            Some(_) => {
                return Err(invalid("status is proposed (the pending ones)", "status").into());
            }
        }
        let items =
            crate::app::proposals::pending(&self.app.store, &ctx.user_id, Utc::now()).await?;
        Ok(json_body(200, &json!({ "items": items })))
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
        let sent = json_object(text, true)?;
        let body = if confirm {
            let ConfirmBody { content_hash } = read(&sent)?;
            let hash = text_field(content_hash, "content_hash")?.ok_or_else(|| {
                invalid(
                    "'content_hash' is required: the hash of the proposal the lifter saw",
                    "content_hash",
                )
            })?;
            crate::app::proposals::confirm(
                &self.app.store,
                &ctx.user_id,
                id,
                Some(&hash),
                Utc::now(),
            )
            .await
        } else {
            let NoFields {} = read(&sent)?;
            crate::app::proposals::dismiss(&self.app.store, &ctx.user_id, id, Utc::now()).await
        };
        Ok(api::json_response(200, &body?.to_string()))
    }
}

/// A body that takes no fields (empty, or `{}`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoFields {}

/// The body of a confirm: the hash of the proposal the lifter saw.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfirmBody {
    content_hash: Option<String>,
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
