//! Model tokens spent, per UTC day: each lifter's counter `USAGE#<YYYY-MM-DD>` in their own
//! partition, and the stage's, split over `STAGE_SHARDS` items (`STAGE#USAGE#<n>`, one per
//! lifter by a hash of their id) so that no one item takes every model call's writes. Counters
//! are gone two days later (`expires_at` TTL). The slow lane reads the lifter's with the
//! request's other singletons (`Parts::token_usage`).
//!
//! A model call is paid for in two steps. `reserve_tokens` adds the call's estimate to both
//! counters, each update conditioned on its counter being under its cap, so that however many
//! calls race, a counter passes its cap by at most one estimate (and what calls cost beyond
//! their estimates). `settle_tokens`
//! then replaces the estimate with what the call cost. `tokens` is what the allowance is
//! charged (cached input at its price); `input_tokens`, `output_tokens` and
//! `cached_input_tokens` are as the provider counted them.

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, NaiveDate, Utc};
use std::collections::HashMap;

use super::timing::Timed;
use super::{Store, StoreError, key, s};
use crate::domain::usage::Usage;

pub(crate) const USAGE_PREFIX: &str = "USAGE#";
/// Counters are kept this long after their day began.
const USAGE_TTL_DAYS: i64 = 2;
/// Items the stage-wide counter is split over; each takes `1 / STAGE_SHARDS` of the cap.
pub const STAGE_SHARDS: u64 = 8;

/// The counter of `day` (UTC).
pub(crate) fn usage_sk(day: NaiveDate) -> String {
    format!("{USAGE_PREFIX}{day}")
}

/// The daily caps a reservation is checked against; `None` is no cap.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Caps {
    /// One lifter's tokens a day.
    pub lifter: Option<u64>,
    /// Every lifter's tokens a day, together.
    pub stage: Option<u64>,
}

/// What a reservation found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    Granted,
    /// The lifter's own allowance is spent.
    LifterSpent,
    /// The stage's daily ceiling is reached.
    StageSpent,
}

/// The stage counter's item for `user` on `day`: its shard by a stable hash of the id.
fn stage_key(user: &str, day: NaiveDate) -> HashMap<String, AttributeValue> {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(user.as_bytes());
    let shard = u64::from(digest[0]) % STAGE_SHARDS;
    HashMap::from([
        ("pk".to_string(), s(format!("STAGE#USAGE#{shard}"))),
        ("sk".to_string(), s(usage_sk(day))),
    ])
}

/// A shard's part of the stage's cap (rounded up: the shards together allow at least it).
fn shard_cap(cap: u64) -> u64 {
    cap.div_ceil(STAGE_SHARDS)
}

fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

impl Store {
    /// Adds `estimate` to the lifter's counter and the stage's for the UTC day of `now`, each
    /// only while it is under its cap; nothing stays added when either is not. Two conditional
    /// updates, not a transaction: a transaction on these hot items would be cancelled by any
    /// other writing them at the same moment (`TransactionConflict`), which an update is not.
    pub async fn reserve_tokens(
        &self,
        user: &str,
        now: DateTime<Utc>,
        estimate: u64,
        caps: Caps,
    ) -> Result<Grant, StoreError> {
        let day = now.date_naive();
        let add = |key: HashMap<String, AttributeValue>, cap: Option<u64>, tokens: i128| {
            let u = self
                .client
                .update_item()
                .table_name(&self.table)
                .set_key(Some(key))
                .update_expression(
                    "ADD tokens :t SET expires_at = if_not_exists(expires_at, :e), updated_at = :now",
                )
                .expression_attribute_values(":t", n(tokens))
                .expression_attribute_values(":e", n(now.timestamp() + USAGE_TTL_DAYS * 86_400))
                .expression_attribute_values(":now", s(now.to_rfc3339()));
            match cap {
                Some(cap) => u
                    .condition_expression("attribute_not_exists(tokens) OR tokens < :cap")
                    .expression_attribute_values(":cap", n(cap)),
                None => u,
            }
        };
        let estimate = i128::from(estimate);
        if !Store::update_if(add(key(user, usage_sk(day)), caps.lifter, estimate)).await? {
            return Ok(Grant::LifterSpent);
        }
        if let Some(cap) = caps.stage
            && !Store::update_if(add(stage_key(user, day), Some(shard_cap(cap)), estimate)).await?
        {
            // Refused for everyone: the lifter's part is given back.
            add(key(user, usage_sk(day)), None, -estimate)
                .send()
                .timed()
                .await?;
            return Ok(Grant::StageSpent);
        }
        Ok(Grant::Granted)
    }

    /// Replaces a reservation of `reserved` tokens made at `at` with what the call cost
    /// (`used`), on the lifter's counter and, when the reservation counted it, the stage's.
    pub async fn settle_tokens(
        &self,
        user: &str,
        at: DateTime<Utc>,
        reserved: u64,
        used: Usage,
        stage: bool,
    ) -> Result<(), StoreError> {
        let day = at.date_naive();
        let delta = i128::from(used.charged_tokens) - i128::from(reserved);
        let expires = n(at.timestamp() + USAGE_TTL_DAYS * 86_400);
        let now = s(Utc::now().to_rfc3339());
        let lifter = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user, usage_sk(day))))
            .update_expression(
                "ADD tokens :t, input_tokens :i, output_tokens :o, cached_input_tokens :c SET expires_at = if_not_exists(expires_at, :e), updated_at = :now",
            )
            .expression_attribute_values(":t", n(delta))
            .expression_attribute_values(":c", n(used.cached_input_tokens))
            .expression_attribute_values(":i", n(used.input_tokens))
            .expression_attribute_values(":o", n(used.output_tokens))
            .expression_attribute_values(":e", expires.clone())
            .expression_attribute_values(":now", now.clone())
            .send()
            .timed();
        let shared = async {
            if !stage || delta == 0 {
                return Ok(());
            }
            self.client
                .update_item()
                .table_name(&self.table)
                .set_key(Some(stage_key(user, day)))
                .update_expression(
                    "ADD tokens :t SET expires_at = if_not_exists(expires_at, :e), updated_at = :now",
                )
                .expression_attribute_values(":t", n(delta))
                .expression_attribute_values(":e", expires.clone())
                .expression_attribute_values(":now", now.clone())
                .send()
                .timed()
                .await
                .map(|_| ())
        };
        let (a, b) = tokio::join!(lifter, shared);
        a?;
        b?;
        Ok(())
    }

    /// Adds `usage` to the lifter's counter of the UTC day of `now`, unreserved (an operator's
    /// correction, a test's spent allowance).
    pub async fn add_tokens(
        &self,
        user: &str,
        now: DateTime<Utc>,
        usage: Usage,
    ) -> Result<(), StoreError> {
        self.settle_tokens(user, now, 0, usage, false).await
    }

    /// The stage's tokens of the UTC day of `now`, all shards together (an operator's view,
    /// and the test of the ceiling).
    pub async fn stage_tokens(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let mut total = 0;
        for shard in 0..STAGE_SHARDS {
            let item = self
                .client
                .get_item()
                .table_name(&self.table)
                .set_key(Some(HashMap::from([
                    ("pk".to_string(), s(format!("STAGE#USAGE#{shard}"))),
                    ("sk".to_string(), s(usage_sk(now.date_naive()))),
                ])))
                .consistent_read(true)
                .send()
                .timed()
                .await?;
            total += item
                .item()
                .and_then(|i| i.get("tokens"))
                .and_then(|v| v.as_n().ok())
                .and_then(|v| v.parse::<i64>().ok())
                .unwrap_or(0)
                .max(0) as u64;
        }
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lifter_always_lands_on_one_shard_and_the_shards_hold_the_cap() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 28).unwrap();
        assert_eq!(stage_key("u-1", day), stage_key("u-1", day));
        let shards: std::collections::BTreeSet<String> = (0..200)
            .map(|i| {
                stage_key(&format!("u-{i}"), day)["pk"]
                    .as_s()
                    .unwrap()
                    .clone()
            })
            .collect();
        assert_eq!(shards.len() as u64, STAGE_SHARDS, "{shards:?}");
        assert!(shard_cap(1_000_001) * STAGE_SHARDS >= 1_000_001);
    }
}
