//! Model tokens a user spent on the coach, per UTC day: one counter item `USAGE#<YYYY-MM-DD>`,
//! added to atomically after each coach answer and gone two days later (`expires_at` TTL). The
//! slow lane reads it with the request's other singletons (`Parts::token_usage`). `tokens` is
//! what the allowance is charged (cached input at its price); `input_tokens` and
//! `output_tokens` are as the provider counted them, `cached_input_tokens` the input it read
//! from its cache.

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, NaiveDate, Utc};

use super::timing::Timed;
use super::{Store, StoreError, key, s};
use crate::domain::usage::Usage;

pub(crate) const USAGE_PREFIX: &str = "USAGE#";
/// Counters are kept this long after their day began.
const USAGE_TTL_DAYS: i64 = 2;

/// The counter of `day` (UTC).
pub(crate) fn usage_sk(day: NaiveDate) -> String {
    format!("{USAGE_PREFIX}{day}")
}

impl Store {
    /// Adds `usage` to the user's counter of the UTC day of `now`.
    pub async fn add_tokens(
        &self,
        user: &str,
        now: DateTime<Utc>,
        usage: Usage,
    ) -> Result<(), StoreError> {
        let n = |v: u64| AttributeValue::N(v.to_string());
        let expires = now.timestamp() + USAGE_TTL_DAYS * 86_400;
        self.client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user, usage_sk(now.date_naive()))))
            .update_expression(
                "ADD tokens :t, input_tokens :i, output_tokens :o, cached_input_tokens :c SET expires_at = if_not_exists(expires_at, :e), updated_at = :now",
            )
            .expression_attribute_values(":t", n(usage.charged_tokens))
            .expression_attribute_values(":c", n(usage.cached_input_tokens))
            .expression_attribute_values(":i", n(usage.input_tokens))
            .expression_attribute_values(":o", n(usage.output_tokens))
            .expression_attribute_values(":e", AttributeValue::N(expires.to_string()))
            .expression_attribute_values(":now", s(now.to_rfc3339()))
            .send().timed()
            .await?;
        Ok(())
    }
}
