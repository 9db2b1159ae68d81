//! Table administration for the local stack and tests: create the single table (pk/sk, TTL on
//! `expires_at`) if it does not exist yet. Deployed, the SAM template owns the table.

use std::time::Duration;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType, TableStatus,
    TimeToLiveSpecification,
};

use super::{Store, StoreError};

fn build_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Request(e.to_string())
}

impl Store {
    /// Creates the table unless it exists, waits until it is active, and enables TTL.
    /// Returns whether it created the table.
    pub async fn ensure_table(&self) -> Result<bool, StoreError> {
        let existing = self.client.list_tables().send().await?;
        let created = if existing.table_names().iter().any(|t| t == self.table()) {
            false
        } else {
            self.client
                .create_table()
                .table_name(self.table())
                .billing_mode(BillingMode::PayPerRequest)
                .attribute_definitions(
                    AttributeDefinition::builder()
                        .attribute_name("pk")
                        .attribute_type(ScalarAttributeType::S)
                        .build()
                        .map_err(build_err)?,
                )
                .attribute_definitions(
                    AttributeDefinition::builder()
                        .attribute_name("sk")
                        .attribute_type(ScalarAttributeType::S)
                        .build()
                        .map_err(build_err)?,
                )
                .key_schema(
                    KeySchemaElement::builder()
                        .attribute_name("pk")
                        .key_type(KeyType::Hash)
                        .build()
                        .map_err(build_err)?,
                )
                .key_schema(
                    KeySchemaElement::builder()
                        .attribute_name("sk")
                        .key_type(KeyType::Range)
                        .build()
                        .map_err(build_err)?,
                )
                .send()
                .await?;
            true
        };
        for _ in 0..100 {
            let d = self
                .client
                .describe_table()
                .table_name(self.table())
                .send()
                .await?;
            if d.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if created {
            self.client
                .update_time_to_live()
                .table_name(self.table())
                .time_to_live_specification(
                    TimeToLiveSpecification::builder()
                        .attribute_name("expires_at")
                        .enabled(true)
                        .build()
                        .map_err(build_err)?,
                )
                .send()
                .await?;
        }
        Ok(created)
    }
}
