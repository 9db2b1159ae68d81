//! Health samples (`HSAMPLE#<metric>#<observed_at>#<id>`): the readings the app sends, kept
//! [`HEALTH_SAMPLE_TTL_DAYS`] (the baseline reads the last 28) and read back by metric and time.
//! The key holds the sample's own id, so a sample sent twice is stored once.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
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
    /// The samples of `metric` observed in `[from, to]`, oldest first.
    pub async fn health_samples(
        &self,
        user: &str,
        metric: Metric,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Vec<(String, Sample)>, StoreError> {
        let at = |t: DateTime<Utc>| t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
        let lo = format!("HSAMPLE#{}#{}", metric.as_str(), at(from));
        // '$' sorts after '#' and every id character: the whole of `to`'s microsecond.
        let hi = format!("HSAMPLE#{}#{}$", metric.as_str(), at(to));
        let items = self.query_all(self.sk_range(user, &lo, &hi)).await?;
        items
            .iter()
            .map(|i| {
                let sk = super::string(i, "sk").unwrap_or_default();
                from_item::<Sample>(i).map(|s| (sk, s))
            })
            .collect()
    }

    /// Stores `samples` (each under its own key: writing one again changes nothing), kept
    /// [`HEALTH_SAMPLE_TTL_DAYS`] from when they were observed.
    pub async fn put_health_samples(
        &self,
        user: &str,
        samples: &[&Sample],
    ) -> Result<(), StoreError> {
        for chunk in samples.chunks(25) {
            let requests = chunk
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
                    PutRequest::builder()
                        .set_item(Some(item))
                        .build()
                        .map(|p| WriteRequest::builder().put_request(p).build())
                        .map_err(StoreError::from)
                })
                .collect::<Result<Vec<_>, _>>()?;
            self.batch_write(requests).await?;
        }
        Ok(())
    }
}
