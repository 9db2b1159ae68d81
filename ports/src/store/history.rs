//! Bulk history writes for imports: completed workouts and the user's own exercises in batches
//! of 25 (DynamoDB's BatchWriteItem limit), a few batches in flight, unprocessed items retried.
//! Every item has a deterministic key, so writing the same import twice changes nothing.

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::{AttributeValue, PutRequest, WriteRequest};
use futures_util::future::join_all;

use super::timing::Timed;
use super::workouts::{WORKOUTS_HI, WORKOUTS_LO};
use super::{Store, StoreError, UNPROCESSED_ROUNDS, Versioned, completed_sk, key, s, to_doc};

/// Conditional workout writes of one revision in flight at once.
const REVISED_IN_FLIGHT: usize = 16;
use crate::domain::catalog::OwnExercise;
use crate::domain::workout::Workout;

/// BatchWriteItem takes at most this many items.
pub(crate) const BATCH_ITEMS: usize = 25;
/// Batches sent at once: enough to hide the round trip, few enough not to be throttled.
pub(crate) const BATCHES_IN_FLIGHT: usize = 4;

pub(crate) const OWN_EXERCISE_PREFIX: &str = "EXERCISE#";

impl Store {
    /// Ids of the user's own exercises.
    pub async fn own_exercise_ids(&self, user: &str) -> Result<HashSet<String>, StoreError> {
        Ok(self
            .items_under(user, OWN_EXERCISE_PREFIX)
            .await?
            .iter()
            .filter_map(|i| super::string(i, "sk"))
            .filter_map(|sk| sk.strip_prefix(OWN_EXERCISE_PREFIX).map(str::to_string))
            .collect())
    }

    /// The user's own exercises.
    pub async fn own_exercises(&self, user: &str) -> Result<Vec<OwnExercise>, StoreError> {
        self.items_under(user, OWN_EXERCISE_PREFIX)
            .await?
            .iter()
            .map(super::from_item)
            .collect()
    }

    /// The completed workouts with their versions, oldest first.
    pub async fn versioned_workouts(
        &self,
        user: &str,
    ) -> Result<Vec<Versioned<Workout>>, StoreError> {
        let query = self.sk_range(user, WORKOUTS_LO, WORKOUTS_HI);
        self.query_all(query)
            .await?
            .iter()
            .map(|item| {
                Ok(Versioned {
                    value: super::from_item(item)?,
                    version: super::number(item, "version").unwrap_or(0).max(0) as u64,
                })
            })
            .collect()
    }

    /// Writes revised completed workouts (same keys), each at its next version and only on
    /// the version it was read at; answers the ids of those changed meanwhile (a PATCH), which
    /// are left as they are for the caller to read again.
    pub async fn put_revised(
        &self,
        user: &str,
        workouts: &[Versioned<Workout>],
    ) -> Result<Vec<String>, StoreError> {
        let mut conflicted = Vec::new();
        for group in workouts.chunks(REVISED_IN_FLIGHT) {
            let writes = group.iter().map(|w| async move {
                let read_at = if w.version == 0 {
                    // Imported workouts carry no version until their first edit.
                    "attribute_not_exists(version) OR version = :v"
                } else {
                    "version = :v"
                };
                let update = self
                    .client
                    .update_item()
                    .table_name(&self.table)
                    .set_key(Some(key(user, completed_sk(&w.value))))
                    .update_expression("SET doc = :d, version = :next")
                    .condition_expression(format!("attribute_exists(pk) AND ({read_at})"))
                    .expression_attribute_values(":d", s(to_doc("workout", &w.value)?))
                    .expression_attribute_values(":v", AttributeValue::N(w.version.to_string()))
                    .expression_attribute_values(
                        ":next",
                        AttributeValue::N((w.version + 1).to_string()),
                    );
                Ok::<_, StoreError>((w.value.id.clone(), Self::update_if(update).await?))
            });
            for r in join_all(writes).await {
                let (id, written) = r?;
                if !written {
                    conflicted.push(id);
                }
            }
        }
        Ok(conflicted)
    }

    /// Stores one own exercise (created, or marked merged).
    pub async fn put_own_exercise(&self, user: &str, e: &OwnExercise) -> Result<(), StoreError> {
        self.put_doc(
            user,
            format!("{OWN_EXERCISE_PREFIX}{}", e.id),
            &to_doc("exercise", e)?,
        )
        .await
    }

    /// Ids of the user's completed workouts, reading only the keys.
    pub async fn completed_workout_ids(&self, user: &str) -> Result<HashSet<String>, StoreError> {
        Ok(self
            .sort_keys(user, WORKOUTS_LO, WORKOUTS_HI)
            .await?
            .iter()
            .filter_map(|sk| sk.rsplit('#').next().map(str::to_string))
            .collect())
    }

    /// Writes completed workouts and own exercises (puts: a re-import rewrites the same items).
    pub async fn put_history(
        &self,
        user: &str,
        workouts: &[Workout],
        own: &[OwnExercise],
    ) -> Result<(), StoreError> {
        let mut items = Vec::with_capacity(workouts.len() + own.len());
        for e in own {
            let mut item = key(user, format!("{OWN_EXERCISE_PREFIX}{}", e.id));
            item.insert("doc".into(), s(to_doc("exercise", e)?));
            items.push(item);
        }
        for w in workouts {
            let mut item = key(user, completed_sk(w));
            item.insert("doc".into(), s(to_doc("workout", w)?));
            items.push(item);
        }
        let batches: Vec<&[HashMap<String, AttributeValue>]> = items.chunks(BATCH_ITEMS).collect();
        for group in batches.chunks(BATCHES_IN_FLIGHT) {
            for r in join_all(group.iter().map(|b| self.write_batch(b))).await {
                r?;
            }
        }
        // After the workouts, so a pointer never names a workout that is not stored.
        self.advance_last_sessions(user, workouts).await?;
        self.raise_bests(user, workouts).await
    }

    /// Puts `items` (at most [`BATCH_ITEMS`]) in one BatchWriteItem.
    pub(super) async fn write_batch(
        &self,
        items: &[HashMap<String, AttributeValue>],
    ) -> Result<(), StoreError> {
        let requests = items
            .iter()
            .map(|item| {
                PutRequest::builder()
                    .set_item(Some(item.clone()))
                    .build()
                    .map(|p| WriteRequest::builder().put_request(p).build())
                    .map_err(StoreError::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        self.batch_write(requests).await
    }

    /// One BatchWriteItem of up to 25 requests, retrying what it leaves unprocessed.
    pub(crate) async fn batch_write(
        &self,
        mut requests: Vec<WriteRequest>,
    ) -> Result<(), StoreError> {
        for round in 0..UNPROCESSED_ROUNDS {
            let out = self
                .client
                .batch_write_item()
                .request_items(&self.table, requests)
                .send()
                .timed()
                .await?;
            requests = out
                .unprocessed_items
                .and_then(|mut m| m.remove(&self.table))
                .unwrap_or_default();
            if requests.is_empty() {
                return Ok(());
            }
            crate::retry::pause(round).await;
        }
        Err(StoreError::Backend(format!(
            "{} items stayed unprocessed after {UNPROCESSED_ROUNDS} rounds",
            requests.len()
        )))
    }
}
