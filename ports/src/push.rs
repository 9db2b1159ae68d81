//! Push delivery of notifications through SNS.
//!
//! - **Devices**: the app registers each phone's APNs or FCM token (`POST /v1/devices`); the
//!   token becomes an SNS platform endpoint of the platform application configured for it
//!   (`PUSH_APNS_ARN`, `PUSH_APNS_SANDBOX_ARN`, `PUSH_FCM_ARN`), tagged with the lifter's id
//!   (`CustomUserData`). Every notification the gate lets through is published to each of the
//!   lifter's endpoints; one the platform has disabled (the app was removed), or that another
//!   lifter has since registered on the same phone, is reported `Gone` so its device is removed.
//! - **Topic**: with `NOTIFY_TOPIC_ARN` set, the notification is also published to that topic,
//!   for a relay that delivers pushes itself.
//!
//! The stored notification (`NOTIFY#`, listed by `GET /v1/notifications`) is the record and is
//! written first, in the job's transaction; the publishes follow. A job therefore publishes at
//! most once, even when redelivered: a failed publish is logged with the notification's id and
//! not retried, and the notification stays in the app's list.

use std::collections::HashMap;

use aws_sdk_sns::error::{DisplayErrorContext, ProvideErrorMetadata};
use aws_sdk_sns::types::MessageAttributeValue;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::domain::notification::{Notification, Priority};

/// The push services a phone registers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Platform {
    /// Apple's production push service.
    Apns,
    /// Apple's sandbox (development builds of the app).
    ApnsSandbox,
    /// Firebase Cloud Messaging (Android).
    Fcm,
}

impl Platform {
    pub const ALL: [Platform; 3] = [Platform::Apns, Platform::ApnsSandbox, Platform::Fcm];

    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Apns => "apns",
            Platform::ApnsSandbox => "apns_sandbox",
            Platform::Fcm => "fcm",
        }
    }

    pub fn parse(s: &str) -> Option<Platform> {
        Platform::ALL.into_iter().find(|p| p.as_str() == s)
    }

    /// The key of this platform's payload in an SNS message of structure `json`.
    fn sns_key(self) -> &'static str {
        match self {
            Platform::Apns => "APNS",
            Platform::ApnsSandbox => "APNS_SANDBOX",
            Platform::Fcm => "GCM",
        }
    }
}

/// Where pushes go: the SNS platform applications by platform, and the relay topic.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushTargets {
    pub topic: Option<String>,
    pub apps: HashMap<&'static str, String>,
}

#[derive(Debug, Clone)]
pub struct Push {
    client: Option<aws_sdk_sns::Client>,
    targets: PushTargets,
}

#[derive(Debug, thiserror::Error)]
pub enum PushError {
    #[error("push to {0} devices is not configured on this deployment")]
    NotConfigured(&'static str),
    #[error("the push service refused the device token: {0}")]
    BadToken(String),
    #[error("the push service failed: {0}")]
    Failed(String),
}

/// What became of a publish to one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivered {
    /// Handed to the platform, with SNS's message id.
    Sent(String),
    /// The endpoint is gone, disabled, or now another lifter's: forget the device.
    Gone,
}

fn failed<E: std::error::Error + 'static>(e: &aws_sdk_sns::error::SdkError<E>) -> PushError {
    PushError::Failed(DisplayErrorContext(e).to_string())
}

impl Push {
    /// SNS when anything is configured, else disabled.
    pub fn new(aws: &aws_config::SdkConfig, targets: PushTargets) -> Push {
        let client = (targets.topic.is_some() || !targets.apps.is_empty())
            .then(|| aws_sdk_sns::Client::new(aws));
        Push { client, targets }
    }

    pub fn disabled() -> Push {
        Push {
            client: None,
            targets: PushTargets::default(),
        }
    }

    /// The phone's `token` as an endpoint of `platform`'s application, tagged with `user`:
    /// the endpoint's ARN. SNS answers the same endpoint for the same token, so registering
    /// again (or on another lifter's account) moves it rather than adding one.
    pub async fn register(
        &self,
        platform: Platform,
        token: &str,
        user: &str,
    ) -> Result<String, PushError> {
        let (Some(client), Some(app)) = (&self.client, self.targets.apps.get(platform.as_str()))
        else {
            return Err(PushError::NotConfigured(platform.as_str()));
        };
        let out = client
            .create_platform_endpoint()
            .platform_application_arn(app)
            .token(token)
            .send()
            .await
            .map_err(|e| match e.code() {
                Some("InvalidParameter" | "InvalidParameterException") => {
                    // SNS's text may name another endpoint's ARN: logged, not answered.
                    tracing::warn!(
                        error = e.message().unwrap_or_default(),
                        "a device token was refused"
                    );
                    PushError::BadToken("the platform does not accept this token".into())
                }
                _ => failed(&e),
            })?;
        let arn = out
            .endpoint_arn
            .ok_or_else(|| PushError::Failed("no endpoint ARN in the answer".into()))?;
        // Re-enabled (a token the platform disabled may be valid again once re-registered)
        // and tagged with its current lifter.
        client
            .set_endpoint_attributes()
            .endpoint_arn(&arn)
            .attributes("CustomUserData", user)
            .attributes("Enabled", "true")
            .attributes("Token", token)
            .send()
            .await
            .map_err(|e| failed(&e))?;
        Ok(arn)
    }

    /// Deletes `user`'s endpoint (a device the lifter removed, or one the platform disabled);
    /// one already gone, or registered since by another lifter on the same phone, is left as it
    /// is: never another lifter's.
    pub async fn forget(&self, user: &str, endpoint_arn: &str) -> Result<(), PushError> {
        let Some(client) = &self.client else {
            return Ok(());
        };
        let owner = match client
            .get_endpoint_attributes()
            .endpoint_arn(endpoint_arn)
            .send()
            .await
        {
            Ok(out) => out
                .attributes
                .unwrap_or_default()
                .get("CustomUserData")
                .cloned(),
            Err(e) if e.code() == Some("NotFound") => return Ok(()),
            Err(e) => return Err(failed(&e)),
        };
        if owner.as_deref() != Some(user) {
            return Ok(());
        }
        self.delete(endpoint_arn).await
    }

    /// Deletes an endpoint whose owner was just read to be the lifter; one already gone is not
    /// an error.
    async fn delete(&self, endpoint_arn: &str) -> Result<(), PushError> {
        let Some(client) = &self.client else {
            return Ok(());
        };
        match client
            .delete_endpoint()
            .endpoint_arn(endpoint_arn)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) if e.code() == Some("NotFound") => Ok(()),
            Err(e) => Err(failed(&e)),
        }
    }

    /// Publishes `n` to one of `user`'s devices (`platform`, `endpoint_arn`).
    pub async fn publish_to_device(
        &self,
        user: &str,
        platform: Platform,
        endpoint_arn: &str,
        n: &Notification,
    ) -> Result<Delivered, PushError> {
        let Some(client) = &self.client else {
            return Err(PushError::NotConfigured(platform.as_str()));
        };
        // Whose phone it is now, and whether the platform still delivers to it.
        let attrs = match client
            .get_endpoint_attributes()
            .endpoint_arn(endpoint_arn)
            .send()
            .await
        {
            Ok(out) => out.attributes.unwrap_or_default(),
            Err(e) if e.code() == Some("NotFound") => return Ok(Delivered::Gone),
            Err(e) => return Err(failed(&e)),
        };
        // Another lifter's now: forgotten here, and nothing of theirs touched.
        if attrs.get("CustomUserData").map(String::as_str) != Some(user) {
            return Ok(Delivered::Gone);
        }
        if attrs.get("Enabled").map(String::as_str) == Some("false") {
            self.delete(endpoint_arn).await?;
            return Ok(Delivered::Gone);
        }
        match client
            .publish()
            .target_arn(endpoint_arn)
            .message_structure("json")
            .message(device_message(platform, n))
            .send()
            .await
        {
            Ok(out) => Ok(Delivered::Sent(out.message_id.unwrap_or_default())),
            Err(e) if e.code() == Some("EndpointDisabled") => {
                self.delete(endpoint_arn).await?;
                Ok(Delivered::Gone)
            }
            Err(e) => Err(failed(&e)),
        }
    }

    /// Publishes `n` for `user` to the relay topic; Ok(None) without one, else the message id.
    pub async fn publish(&self, user: &str, n: &Notification) -> Result<Option<String>, PushError> {
        let (Some(client), Some(topic_arn)) = (&self.client, &self.targets.topic) else {
            return Ok(None);
        };
        let attr = |v: &str| {
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value(v)
                .build()
                .map_err(|e| PushError::Failed(e.to_string()))
        };
        let body = json!({
            "user_id": user,
            "notification_id": n.id,
            "message": n.message,
            "priority": n.priority,
            "source": n.source,
            "created_at": n.created_at,
        });
        let out = client
            .publish()
            .topic_arn(topic_arn)
            .message(body.to_string())
            // Subscribers can filter on these, and drop a repeat by its id.
            .message_attributes("user_id", attr(user)?)
            .message_attributes("notification_id", attr(&n.id)?)
            .message_attributes("priority", attr(n.priority.as_str())?)
            .send()
            .await
            .map_err(|e| failed(&e))?;
        Ok(out.message_id)
    }
}

/// The SNS message (structure `json`) for one device: the platform's own payload (APNs' `aps`
/// alert, FCM's notification) with the notification's id for the app to open it.
pub fn device_message(platform: Platform, n: &Notification) -> String {
    let payload = match platform {
        Platform::Apns | Platform::ApnsSandbox => json!({
            "aps": {"alert": {"title": "Coach", "body": n.message}, "sound": "default"},
            "notification_id": n.id, "source": n.source,
        }),
        // FCM's HTTP v1 message, as SNS takes it under `fcmV1Message`.
        Platform::Fcm => json!({"fcmV1Message": {"message": {
            "notification": {"title": "Coach", "body": n.message},
            "data": {"notification_id": n.id, "source": n.source},
            "android": {"priority": if n.priority >= Priority::High { "high" } else { "normal" }},
        }}}),
    };
    json!({
        "default": n.message,
        platform.sns_key(): payload.to_string(),
    })
    .to_string()
}
