//! `POST /v1/health/samples` (`app::health`), and the phones pushes go to: `POST`/`GET
//! /v1/devices`, `DELETE /v1/devices/{id}` (`app::devices`).

use super::*;
use crate::app::devices::parse_device;
use crate::app::health::parse_samples;

/// A batch's body at most: 500 samples of about 200 bytes, twice over.
pub(crate) const MAX_HEALTH_BODY_BYTES: usize = 256 * 1024;

impl FunctionalLane {
    pub(super) async fn health_samples(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        // A full batch (500 samples) is far more than a message's 10,000 characters.
        let message = api::extract_large_payload(req, MAX_HEALTH_BODY_BYTES)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let body = json_object(text, false)?;
        let now = Utc::now();
        let samples = parse_samples(&body, now)?;
        Ok(json_body(
            200,
            &self.app.record_health(&ctx, samples, now).await?,
        ))
    }

    pub(super) async fn register_device(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, body) = object_body(req, self.auth, false)?;
        let (platform, token) = parse_device(&body)?;
        let device = self
            .app
            .register_device(&ctx, platform, &token, Utc::now())
            .await?;
        Ok(json_body(201, &device))
    }

    pub(super) async fn devices(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(
            200,
            &json!({ "items": self.app.devices(&ctx).await? }),
        ))
    }

    pub(super) async fn remove_device(
        &self,
        req: &Request,
        id: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        self.app.remove_device(&ctx, id).await?;
        Ok(json_body(200, &json!({ "removed": id })))
    }
}
