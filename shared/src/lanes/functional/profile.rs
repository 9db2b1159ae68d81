//! `GET /v1/me` and `PATCH /v1/me`: the profile and preferences (`app::profile`).

use super::*;
use crate::app::profile::ProfilePatch;

impl FunctionalLane {
    pub(super) async fn me(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.me(&ctx).await?))
    }

    pub(super) async fn update_me(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let patch = ProfilePatch::from_body(&json_object(text, false)?)?;
        Ok(json_body(200, &self.app.update_me(&ctx, &patch).await?))
    }
}
