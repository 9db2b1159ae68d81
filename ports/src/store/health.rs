//! Health samples (`HSAMPLE#<metric>#<observed_at>#<id>`): the readings the app sends, kept
//! [`HEALTH_SAMPLE_TTL_DAYS`] (the baseline reads the last 28) and read back by metric and time.
//! The key holds the sample's own id, so a sample sent twice is stored once.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Utc};

use super::{Store, StoreError, from_item, key, s, to_doc};
use crate::domain::health::{Metric, Sample};

/// Samples are kept this long, as the app's events are.
pub const HEALTH_SAMPLE_TTL_DAYS: i64 = super::activity::ACTIVITY_TTL_DAYS;

/// The sort key of a sample.
pub fn sample_sk(sample: &Sample) -> String {
    format!(
        "HSAMPLE#{}#{}#{}",
        sample.metric.as_str(),
        sample.observed_at.format("%Y-%m-%dT%H:%M:%S%.6fZ"),
        sample.id
    )
}

impl Store {
    /// Which of `sks` (sample keys) are stored: a batch's duplicates, read by key (100 at a
    /// time), whatever else the lifter has stored.
    pub async fn stored_sample_keys(
        &self,
        user: &str,
        sks: &[String],
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        let mut found = std::collections::HashSet::new();
        for chunk in sks.chunks(100) {
            for item in self.batch_read(user, chunk).await? {
                found.extend(super::string(&item, "sk"));
            }
        }
        Ok(found)
    }

    /// The samples of `metric` observed in `[from, to]`, oldest first, at most `limit` (the
    /// newest kept when there are more: a baseline reads the days before its day).
    pub async fn health_samples(
        &self,
        user: &str,
        metric: Metric,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Sample>, StoreError> {
        let at = |t: DateTime<Utc>| t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
        let lo = format!("HSAMPLE#{}#{}", metric.as_str(), at(from));
        // '$' sorts after '#' and every id character: the whole of `to`'s microsecond.
        let hi = format!("HSAMPLE#{}#{}$", metric.as_str(), at(to));
        // Newest first, so that a cap keeps the days nearest the reading.
        let query = self.sk_range(user, &lo, &hi).scan_index_forward(false);
        let mut out = Vec::new();
        self.query_until(query, |item| {
            out.push(from_item::<Sample>(&item)?);
            Ok(out.len() < limit)
        })
        .await?;
        out.reverse();
        Ok(out)
    }

    /// Stores `samples` (each under its own key: writing one again changes nothing), kept
    /// [`HEALTH_SAMPLE_TTL_DAYS`] from when they were observed.
    pub async fn put_health_samples(
        &self,
        user: &str,
        samples: &[&Sample],
    ) -> Result<(), StoreError> {
        let items = samples
            .iter()
            .map(|sample| {
                let mut item: HashMap<String, AttributeValue> = key(user, sample_sk(sample));
                item.insert("doc".into(), s(to_doc("health sample", sample)?));
                item.insert(
                    "expires_at".into(),
                    AttributeValue::N(
                        (sample.observed_at.timestamp() + HEALTH_SAMPLE_TTL_DAYS * 86_400)
                            .to_string(),
                    ),
                );
                Ok(item)
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        for chunk in items.chunks(super::history::BATCH_ITEMS) {
            self.write_batch(chunk).await?;
        }
        Ok(())
    }
}
