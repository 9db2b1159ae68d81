//! Leases: at most a few long requests of one kind per lifter at a time (one import, a few coach
//! streams), so one account cannot hold the lanes' concurrency. A slot is the item
//! `LEASE#<kind>#<n>`, held by one request until `expires_at` (also its TTL): a request that
//! crashes holds it no longer than its own time limit.

use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Utc};

use super::timing::Timed;
use super::{Store, StoreError, key, number, s};

/// A slot held by this request.
#[derive(Debug, Clone, PartialEq)]
pub struct Lease {
    sk: String,
    holder: String,
}

fn slot_sk(kind: &str, n: u32) -> String {
    format!("LEASE#{kind}#{n}")
}

/// A holder id unique to this request: the time and a count within the process.
fn holder(now: DateTime<Utc>) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!(
        "{}-{}-{n}",
        now.timestamp_nanos_opt().unwrap_or_default(),
        std::process::id()
    )
}

impl Store {
    /// Takes a free slot of `kind` (one of `slots`) until `until`; when every slot is held,
    /// `Err` with the seconds until the first is free again.
    pub async fn take_lease(
        &self,
        user: &str,
        kind: &str,
        slots: u32,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Result<Lease, i64>, StoreError> {
        let me = holder(now);
        for n in 0..slots {
            let sk = slot_sk(kind, n);
            let mut item = key(user, &sk);
            item.insert("holder".into(), s(&me));
            item.insert(
                "expires_at".into(),
                AttributeValue::N(until.timestamp().to_string()),
            );
            let out = self
                .client
                .put_item()
                .table_name(&self.table)
                .set_item(Some(item))
                .condition_expression("attribute_not_exists(pk) OR expires_at <= :now")
                .expression_attribute_values(":now", AttributeValue::N(now.timestamp().to_string()))
                .send()
                .timed()
                .await;
            match out {
                Ok(_) => return Ok(Ok(Lease { sk, holder: me })),
                Err(SdkError::ServiceError(e))
                    if e.err().is_conditional_check_failed_exception() => {}
                Err(e) => return Err(e.into()),
            }
        }
        let sks: Vec<String> = (0..slots).map(|n| slot_sk(kind, n)).collect();
        let held = self.batch_read(user, &sks).await?;
        let free_in = held
            .iter()
            .filter_map(|i| number(i, "expires_at"))
            .min()
            .map_or(1, |t| (t - now.timestamp()).max(1));
        Ok(Err(free_in))
    }

    /// Gives the slot back (it expires now), unless it has passed to another request since.
    pub async fn give_back(
        &self,
        user: &str,
        lease: &Lease,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let update = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user, &lease.sk)))
            .update_expression("SET expires_at = :now")
            .condition_expression("holder = :me")
            .expression_attribute_values(":now", AttributeValue::N(now.timestamp().to_string()))
            .expression_attribute_values(":me", s(&lease.holder));
        Self::update_if(update).await.map(|_| ())
    }
}
