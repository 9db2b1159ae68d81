//! The lifter's phones (`DEVICE#<id>`): each an SNS platform endpoint that pushes go to
//! (see `push`). The id is the endpoint's own (the last part of its ARN), which SNS answers
//! the same for the same token: registering a phone again rewrites its item.

use aws_sdk_dynamodb::types::ReturnValue;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::timing::Timed;
use super::{Store, StoreError, from_item, key, to_doc};
use crate::push::Platform;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Device {
    pub id: String,
    pub platform: Platform,
    /// The SNS platform endpoint (not shown to the app).
    #[serde(default)]
    pub endpoint_arn: String,
    pub registered_at: DateTime<Utc>,
}

impl Store {
    /// The lifter's registered phones, in id order.
    pub async fn devices(&self, user: &str) -> Result<Vec<Device>, StoreError> {
        self.items_under(user, "DEVICE#")
            .await?
            .iter()
            .map(from_item)
            .collect()
    }

    pub async fn put_device(&self, user: &str, device: &Device) -> Result<(), StoreError> {
        self.put_doc(
            user,
            format!("DEVICE#{}", device.id),
            &to_doc("device", device)?,
        )
        .await
    }

    /// Removes a phone; the device it was, if there was one.
    pub async fn delete_device(&self, user: &str, id: &str) -> Result<Option<Device>, StoreError> {
        let out = self
            .client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key(user, format!("DEVICE#{id}"))))
            .return_values(ReturnValue::AllOld)
            .send()
            .timed()
            .await?;
        out.attributes.as_ref().map(from_item).transpose()
    }
}
