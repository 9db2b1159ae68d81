//! Push delivery of notifications: with `NOTIFY_TOPIC_ARN` set, a notification on the "push"
//! channel is also published to that SNS topic (whatever subscribes, a mobile push platform
//! or a relay, delivers it to the phone). The stored notification (`NOTIFY#`, listed by
//! `GET /v1/notifications`) is the record and is written first, in the job's transaction; the
//! publish follows it. A job therefore publishes at most once, even when redelivered: a failed
//! publish is logged with the notification's id and not retried, and the notification stays
//! in the app's list.

use aws_sdk_sns::types::MessageAttributeValue;
use serde_json::json;

use crate::domain::notification::Notification;

#[derive(Debug, Clone)]
pub enum Push {
    Sns {
        client: aws_sdk_sns::Client,
        topic_arn: String,
    },
    Disabled,
}

#[derive(Debug, thiserror::Error)]
#[error("could not publish the notification: {0}")]
pub struct PushError(String);

impl Push {
    /// SNS when there is a topic (`NOTIFY_TOPIC_ARN`), else disabled.
    pub fn new(aws: &aws_config::SdkConfig, topic: Option<&str>) -> Push {
        match topic {
            Some(arn) => Push::Sns {
                client: aws_sdk_sns::Client::new(aws),
                topic_arn: arn.to_string(),
            },
            None => Push::Disabled,
        }
    }

    /// Publishes `n` for `user`; Ok(None) when push is not configured, else the message id.
    pub async fn publish(&self, user: &str, n: &Notification) -> Result<Option<String>, PushError> {
        let Push::Sns { client, topic_arn } = self else {
            return Ok(None);
        };
        let attr = |v: &str| {
            MessageAttributeValue::builder()
                .data_type("String")
                .string_value(v)
                .build()
                .map_err(|e| PushError(e.to_string()))
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
            .map_err(|e| PushError(aws_sdk_sns::error::DisplayErrorContext(&e).to_string()))?;
        Ok(out.message_id)
    }
}
