//! The lifter's phones: `POST /v1/devices` registers one (its APNs or FCM token becomes an SNS
//! platform endpoint), `GET /v1/devices` lists them, `DELETE /v1/devices/{id}` removes one; and
//! `deliver`, which sends a notification the gate let through to every one of them.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{App, invalid};
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::notification::Notification;
use crate::push::{Delivered, Platform, Push, PushError};
use crate::store::devices::Device;
use crate::store::{Store, StoreError};

/// Phones per lifter; registering another replaces the one registered longest ago (a phone
/// whose app was reinstalled gets a new token, and the old one is never heard of again).
pub const MAX_DEVICES: usize = 10;
/// Old phones one registration removes at most.
const MAX_EVICTIONS: usize = 3;
/// APNs tokens are 64 hex digits, FCM's about 160 characters; room for both, and no more.
const MAX_TOKEN_CHARS: usize = 4096;

/// A phone as the app sees it (not its endpoint).
#[derive(Debug, Clone, Serialize)]
pub struct DeviceView {
    pub id: String,
    pub platform: Platform,
    pub registered_at: DateTime<Utc>,
}

impl From<&Device> for DeviceView {
    fn from(d: &Device) -> Self {
        Self {
            id: d.id.clone(),
            platform: d.platform,
            registered_at: d.registered_at,
        }
    }
}

/// The platform and token of a `POST /v1/devices` body.
pub fn parse_device(body: &serde_json::Value) -> Result<(Platform, String), AppError> {
    let platform = body["platform"]
        .as_str()
        .and_then(Platform::parse)
        .ok_or_else(|| invalid("platform is apns, apns_sandbox or fcm", "platform"))?;
    let token = body["token"]
        .as_str()
        .map(str::trim)
        .filter(|t| {
            !t.is_empty()
                && t.len() <= MAX_TOKEN_CHARS
                && t.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_:.".contains(c))
        })
        .ok_or_else(|| {
            invalid(
                "token is the push token the platform gave the app (letters, digits, - _ : .)",
                "token",
            )
        })?;
    Ok((platform, token.to_string()))
}

fn push_failed(e: PushError) -> AppError {
    match e {
        PushError::NotConfigured(_) => AppError::new(ErrorCode::PushUnavailable, e.to_string()),
        PushError::BadToken(_) => invalid(&e.to_string(), "token"),
        PushError::Failed(_) => {
            tracing::error!(error = %e, "push service failed");
            AppError::new(
                ErrorCode::PushUnavailable,
                "the push service did not answer; nothing was registered, retry later",
            )
        }
    }
}

impl App {
    pub async fn register_device(
        &self,
        ctx: &SessionContext,
        platform: Platform,
        token: &str,
        now: DateTime<Utc>,
    ) -> Result<DeviceView, AppError> {
        let user = &ctx.user_id;
        let arn = self
            .push
            .register(platform, token, user)
            .await
            .map_err(push_failed)?;
        let id = arn.rsplit('/').next().unwrap_or_default().to_string();
        if !crate::context::is_valid_id(&id) {
            return Err(push_failed(PushError::Failed(format!(
                "an endpoint ARN without an id: {arn}"
            ))));
        }
        let mut devices = self.store.devices(user).await?;
        devices.retain(|d| d.id != id);
        devices.sort_by_key(|d| d.registered_at);
        // The oldest beyond the limit go (a few a request: concurrent registrations are put
        // back in line by the next one, never all at once).
        let excess = (devices.len() + 1)
            .saturating_sub(MAX_DEVICES)
            .min(MAX_EVICTIONS);
        for old in devices.iter().take(excess) {
            self.store.delete_device(user, &old.id).await?;
            if let Err(e) = self.push.forget(user, &old.endpoint_arn).await {
                tracing::warn!(error = %e, device = %old.id, "an old endpoint was not deleted");
            }
        }
        let device = Device {
            id,
            platform,
            endpoint_arn: arn,
            registered_at: now,
        };
        self.store.put_device(user, &device).await?;
        Ok(DeviceView::from(&device))
    }

    pub async fn devices(&self, ctx: &SessionContext) -> Result<Vec<DeviceView>, AppError> {
        let devices = self.store.devices(&ctx.user_id).await?;
        Ok(devices.iter().map(DeviceView::from).collect())
    }

    /// Removes a phone (its endpoint too); a 404 when the lifter has no such phone.
    pub async fn remove_device(&self, ctx: &SessionContext, id: &str) -> Result<(), AppError> {
        let Some(d) = self.store.delete_device(&ctx.user_id, id).await? else {
            return Err(AppError::new(
                ErrorCode::NotFound,
                format!("you have no device '{id}'"),
            ));
        };
        if let Err(e) = self.push.forget(&ctx.user_id, &d.endpoint_arn).await {
            // The device is forgotten here either way; SNS keeps an endpoint nobody sends to.
            tracing::warn!(error = %e, device = %d.id, "the endpoint was not deleted");
        }
        Ok(())
    }
}

/// What `deliver` did: phones reached, phones forgotten (gone from their platform, or now
/// another lifter's), phones that failed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Delivery {
    pub sent: usize,
    pub removed: usize,
    pub failed: usize,
}

/// Sends a notification the gate let through to every phone of `user` (and the relay topic):
/// after it is stored, at most once (a failure is logged, not retried).
pub async fn deliver(
    push: &Push,
    store: &Store,
    user: &str,
    n: &Notification,
) -> Result<Delivery, StoreError> {
    if let Err(e) = push.publish(user, n).await {
        tracing::warn!(error = %e, notification_id = %n.id, "relay topic not reached; the notification stays in the app's list");
    }
    let mut out = Delivery::default();
    // The newest phones only: however many items a race left, a push costs a bounded time.
    let mut devices = store.devices(user).await?;
    devices.sort_by_key(|d| std::cmp::Reverse(d.registered_at));
    for d in devices.into_iter().take(MAX_DEVICES) {
        match push
            .publish_to_device(user, d.platform, &d.endpoint_arn, n)
            .await
        {
            Ok(Delivered::Sent(_)) => out.sent += 1,
            Ok(Delivered::Gone) => {
                store.delete_device(user, &d.id).await?;
                out.removed += 1;
            }
            Err(e) => {
                tracing::warn!(error = %e, notification_id = %n.id, device = %d.id, "push not delivered; the notification stays in the app's list");
                out.failed += 1;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_device_needs_a_known_platform_and_a_token_shaped_like_one() {
        let hex = "a".repeat(64);
        assert!(parse_device(&json!({"platform": "apns", "token": hex})).is_ok());
        assert!(parse_device(&json!({"platform": "fcm", "token": "dKz:APA91b-x_y"})).is_ok());
        assert!(parse_device(&json!({"platform": "webpush", "token": hex})).is_err());
        assert!(parse_device(&json!({"platform": "apns", "token": "a b"})).is_err());
        assert!(parse_device(&json!({"platform": "apns"})).is_err());
    }
}
