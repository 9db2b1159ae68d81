//! A request's state: the one batched, strongly consistent read of the items a request needs
//! (the active workout, the profile, the coaching context, the notification state, the
//! idempotency record), and the active workout's conditional write with that record.

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, Put, TransactWriteItem};
use chrono::{DateTime, Utc};

use super::timing::Timed;
use super::*;
use crate::domain::workout::Workout;

impl Store {
    /// Reads the active workout, the profile and (with a `corr`) the request's idempotency record
    /// in one strongly consistent batch.
    pub async fn copilot_state(
        &self,
        user: &str,
        corr: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<CopilotState, StoreError> {
        let parts = Parts {
            workout: true,
            profile: true,
            ..Parts::default()
        };
        self.user_state(user, parts, corr, now).await
    }

    /// Reads the chosen singleton items (and, with a `corr`, the idempotency record) in one
    /// strongly consistent batch.
    pub async fn user_state(
        &self,
        user: &str,
        parts: Parts,
        corr: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<UserState, StoreError> {
        let mut sks: Vec<String> = Vec::with_capacity(5);
        for (on, sk) in [
            (parts.workout, SK_ACTIVE),
            (parts.profile, SK_PROFILE),
            (parts.coaching, SK_CONTEXT),
            (parts.notify_state, SK_NOTIFY_STATE),
        ] {
            if on {
                sks.push(sk.to_string());
            }
        }
        let usage_key = usage::usage_sk(now.date_naive());
        if parts.token_usage {
            sks.push(usage_key.clone());
        }
        if let Some(c) = corr {
            sks.push(format!("IDEM#{c}"));
        }
        let mut state = UserState::default();
        for item in self.batch_read(user, &sks).await? {
            match string(&item, "sk").as_deref() {
                Some(SK_ACTIVE) => (state.active_version, state.workout) = active_of(&item)?,
                Some(SK_PROFILE) => state.profile = Some(from_item(&item)?),
                Some(SK_CONTEXT) => {
                    state.coaching = Some(from_item(&item)?);
                    state.coaching_version = number(&item, "version").unwrap_or(0).max(0) as u64;
                }
                Some(SK_NOTIFY_STATE) => {
                    state.last_notified = number(&item, "sent_at")
                        .and_then(|t| DateTime::<Utc>::from_timestamp(t, 0));
                }
                Some(sk) if sk == usage_key => {
                    state.tokens_today = number(&item, "tokens").unwrap_or(0).max(0) as u64;
                }
                Some(_) => state.replay = live_record(&item, corr.unwrap_or_default(), now),
                None => {}
            }
        }
        Ok(state)
    }

    /// The read of an edit of the active workout (`app::active`): the active workout, the
    /// profile, and the idempotency record of each key already used (by key), in one
    /// consistent batch. A command has one key, an offline batch one per command.
    pub async fn edit_state(
        &self,
        user: &str,
        corrs: &[&str],
        now: DateTime<Utc>,
    ) -> Result<(UserState, HashMap<String, IdempotencyRecord>), StoreError> {
        let mut sks = vec![SK_ACTIVE.to_string(), SK_PROFILE.to_string()];
        sks.extend(corrs.iter().map(|c| format!("IDEM#{c}")));
        let mut state = UserState::default();
        let mut records = HashMap::new();
        for item in self.batch_read(user, &sks).await? {
            match string(&item, "sk").as_deref() {
                Some(SK_ACTIVE) => (state.active_version, state.workout) = active_of(&item)?,
                Some(SK_PROFILE) => state.profile = Some(from_item(&item)?),
                Some(sk) => {
                    let corr = sk.strip_prefix("IDEM#").unwrap_or_default();
                    if let Some(r) = live_record(&item, corr, now) {
                        records.insert(corr.to_string(), r);
                    }
                }
                None => {}
            }
        }
        Ok((state, records))
    }

    /// BatchGetItem of the user's items by sort key, consistent, retrying unprocessed keys.
    pub(super) async fn batch_read(
        &self,
        user: &str,
        sks: &[String],
    ) -> Result<Vec<HashMap<String, AttributeValue>>, StoreError> {
        let keys = sks.iter().map(|sk| key(user, sk.as_str())).collect();
        let request = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(true)
            .build()?;
        let mut pending = HashMap::from([(self.table.clone(), request)]);
        let mut items = Vec::new();
        // BatchGetItem may return some keys as unprocessed under throttling; ask again for those.
        for round in 0..UNPROCESSED_ROUNDS {
            let out = self
                .client
                .batch_get_item()
                .set_request_items(Some(pending))
                .send()
                .timed()
                .await?;
            if let Some(mut responses) = out.responses {
                items.extend(responses.remove(&self.table).unwrap_or_default());
            }
            match out.unprocessed_keys.filter(|u| !u.is_empty()) {
                Some(rest) => pending = rest,
                None => return Ok(items),
            }
            crate::retry::pause(round).await;
        }
        Err(StoreError::Backend(
            "batch read left keys unprocessed".into(),
        ))
    }

    /// Writes the active workout if it is still at `expected_version`, together with the
    /// request's idempotency record if any, atomically.
    pub async fn commit_workout(
        &self,
        user: &str,
        workout: &Workout,
        expected_version: u64,
        record: Option<&IdempotencyRecord>,
        now: DateTime<Utc>,
    ) -> Result<CommitOutcome, StoreError> {
        let records = record.map(std::slice::from_ref).unwrap_or_default();
        self.commit_workout_records(user, workout, expected_version, records, now)
            .await
    }

    /// [`Store::commit_workout`] with the records of several commands (an offline batch); a
    /// record another request wrote first is a `DuplicateRequest`.
    pub async fn commit_workout_records(
        &self,
        user: &str,
        workout: &Workout,
        expected_version: u64,
        records: &[IdempotencyRecord],
        now: DateTime<Utc>,
    ) -> Result<CommitOutcome, StoreError> {
        let mut item = key(user, SK_ACTIVE);
        item.insert("doc".into(), s(to_doc("workout", workout)?));
        item.insert(
            "version".into(),
            AttributeValue::N((expected_version + 1).to_string()),
        );
        item.insert("updated_at".into(), s(now.to_rfc3339()));
        let put_workout = Put::builder()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression("#v = :v")
            .expression_attribute_names("#v", "version")
            .expression_attribute_values(":v", AttributeValue::N(expected_version.to_string()))
            .build()?;
        let mut items = Vec::with_capacity(records.len() + 1);
        for r in records {
            items.push(
                TransactWriteItem::builder()
                    .put(self.idempotency_put(user, r, now)?)
                    .build(),
            );
        }
        items.push(TransactWriteItem::builder().put(put_workout).build());
        let n = records.len();
        Ok(match self.transact(items).await? {
            None => CommitOutcome::Committed,
            Some(failed) if failed[..n].iter().any(|f| *f) => CommitOutcome::DuplicateRequest,
            Some(_) => CommitOutcome::VersionConflict,
        })
    }

    /// Runs a transaction. `None`: committed. `Some(failed)`: cancelled, with, per item, whether
    /// its condition failed (the caller knows which condition means what).
    ///
    /// The SDK gives every call a fresh `ClientRequestToken` (the field's idempotency-token
    /// trait: `aws-sdk-dynamodb`'s IdempotencyTokenInterceptor fills it once, before the retry
    /// loop) and resends it when an answer was lost (a dropped connection, an attempt timeout).
    /// DynamoDB answers that retry with the first call's success for ten minutes instead of
    /// running it again; without the token the retry would fail its own version condition and
    /// the lane would apply the command a second time (`tests/faults.rs` drops such an answer).
    pub(crate) async fn transact(
        &self,
        items: Vec<TransactWriteItem>,
    ) -> Result<Option<Vec<bool>>, StoreError> {
        let n = items.len();
        match self
            .client
            .transact_write_items()
            .set_transact_items(Some(items))
            .send()
            .timed()
            .await
        {
            Ok(_) => Ok(None),
            Err(SdkError::ServiceError(e)) => match e.err() {
                TransactWriteItemsError::TransactionCanceledException(tc) => {
                    let reasons = tc.cancellation_reasons();
                    Ok(Some(
                        (0..n)
                            .map(|i| {
                                reasons.get(i).and_then(|r| r.code())
                                    == Some("ConditionalCheckFailed")
                            })
                            .collect(),
                    ))
                }
                other => Err(StoreError::Backend(DisplayErrorContext(other).to_string())),
            },
            Err(other) => Err(other.into()),
        }
    }

    pub(crate) fn idempotency_put(
        &self,
        user: &str,
        r: &IdempotencyRecord,
        now: DateTime<Utc>,
    ) -> Result<Put, StoreError> {
        let mut item = key(user, format!("IDEM#{}", r.corr));
        item.insert("fingerprint".into(), s(&r.fingerprint));
        item.insert("status".into(), AttributeValue::N(r.status.to_string()));
        item.insert("body".into(), s(&r.body));
        item.insert(
            "expires_at".into(),
            AttributeValue::N(r.expires_at.to_string()),
        );
        // An expired record that TTL has not deleted yet may be overwritten.
        Put::builder()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk) OR expires_at < :now")
            .expression_attribute_values(":now", AttributeValue::N(now.timestamp().to_string()))
            .build()
            .map_err(StoreError::from)
    }

    pub async fn get_active_workout(
        &self,
        user: &str,
    ) -> Result<Option<Versioned<Workout>>, StoreError> {
        match self
            .get_item(user, SK_ACTIVE)
            .await?
            .filter(|i| i.contains_key("doc"))
        {
            Some(item) => {
                let version = number(&item, "version").unwrap_or(0).max(0) as u64;
                Ok(Some(Versioned {
                    value: from_item(&item)?,
                    version,
                }))
            }
            None => Ok(None),
        }
    }

    /// One item by sort key, strongly consistent.
    pub(crate) async fn get_item(
        &self,
        user: &str,
        sk: &str,
    ) -> Result<Option<HashMap<String, AttributeValue>>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(user, sk)))
            .consistent_read(true)
            .send()
            .timed()
            .await?;
        Ok(out.item)
    }

    /// Makes `workout` the active workout whatever was there (demo seeding and tests), keeping
    /// the version counter moving forward so that in-flight commands on the old one conflict.
    pub async fn replace_active_workout(
        &self,
        user: &str,
        workout: &Workout,
    ) -> Result<(), StoreError> {
        self.client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user, SK_ACTIVE)))
            .update_expression("SET #d = :d ADD #v :one")
            .expression_attribute_names("#d", "doc")
            .expression_attribute_names("#v", "version")
            .expression_attribute_values(":d", s(to_doc("workout", workout)?))
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .send()
            .timed()
            .await?;
        Ok(())
    }
}

/// The idempotency record in `item`, unless it has expired (TTL deletion is lazy: up to days on
/// AWS).
fn live_record(
    item: &HashMap<String, AttributeValue>,
    corr: &str,
    now: DateTime<Utc>,
) -> Option<IdempotencyRecord> {
    let expires_at = number(item, "expires_at").unwrap_or(0);
    (expires_at > now.timestamp()).then(|| IdempotencyRecord {
        corr: corr.to_string(),
        fingerprint: string(item, "fingerprint").unwrap_or_default(),
        status: number(item, "status").unwrap_or(200) as u16,
        body: string(item, "body").unwrap_or_default(),
        expires_at,
    })
}

/// The active item's version and workout (a completed workout leaves the item without a doc:
/// nothing is active).
fn active_of(
    item: &HashMap<String, AttributeValue>,
) -> Result<(u64, Option<Versioned<Workout>>), StoreError> {
    let version = number(item, "version").unwrap_or(0).max(0) as u64;
    let workout = match item.contains_key("doc") {
        true => Some(Versioned {
            value: from_item(item)?,
            version,
        }),
        false => None,
    };
    Ok((version, workout))
}
