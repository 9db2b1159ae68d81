//! The whole account: every item of a user read for the export, and deleted for good.
//!
//! A user's items are the `USER#<user>` partition, plus one roster entry (`ROSTER#<week>`,
//! sort key the user) for each week the user trained recently, found through the insight cards'
//! keys. Deletion removes the roster entries first, then the partition, a page of keys at a
//! time, so it can stop anywhere and be run again to finish: it is idempotent.
//!
//! Before any of that, the deletion leaves a marker outside the partition (`DELETED#<user>`:
//! the time, nothing else, expiring after [`DELETION_MARKER_DAYS`]), so that jobs queued before
//! the deletion and delivered after it write nothing ([`Store::deleted_at`], and the condition
//! [`Store::not_deleted_since`] that each job's completion carries).

use std::collections::{BTreeSet, HashMap};

use aws_sdk_dynamodb::types::{
    AttributeValue, ConditionCheck, DeleteRequest, TransactWriteItem, WriteRequest,
};
use chrono::{DateTime, Utc};
use futures_util::future::join_all;
use serde_json::{Map, Value};

use super::history::{BATCH_ITEMS, BATCHES_IN_FLIGHT};
use super::timing::Timed;
use super::{Store, StoreError, s, user_pk};

/// How long the deletion marker is kept: longer than SQS keeps a message (14 days at most), so
/// every job queued before the deletion meets it.
pub(crate) const DELETION_MARKER_DAYS: i64 = 15;

/// An item of the lifter's partition as the export shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountItem {
    /// The item's sort key (`PROFILE`, `WORKOUT#…`): what kind of item it is.
    pub key: String,
    /// The stored document, or the item's other attributes as JSON.
    pub data: Value,
}

/// The deletion marker's key: its own partition, which the deletion does not sweep.
fn marker_key(user: &str) -> HashMap<String, AttributeValue> {
    HashMap::from([
        ("pk".to_string(), s(format!("DELETED#{user}"))),
        ("sk".to_string(), s("ACCOUNT")),
    ])
}

/// Keys read (and deleted) per round of a deletion.
const KEYS_PER_ROUND: i32 = BATCH_ITEMS as i32 * BATCHES_IN_FLIGHT as i32;

/// How far a deletion got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deletion {
    /// Items deleted by this call.
    pub deleted: usize,
    /// Nothing of the user is left.
    pub finished: bool,
}

impl Store {
    /// Marks the account deleted at `at` (before its items go): jobs sent until then are void.
    pub async fn mark_deleted(&self, user: &str, at: DateTime<Utc>) -> Result<(), StoreError> {
        let mut item = marker_key(user);
        item.insert(
            "deleted_at".into(),
            AttributeValue::N(at.timestamp_millis().to_string()),
        );
        item.insert(
            "expires_at".into(),
            AttributeValue::N((at.timestamp() + DELETION_MARKER_DAYS * 86_400).to_string()),
        );
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .send()
            .timed()
            .await?;
        Ok(())
    }

    /// When the account was last deleted (within [`DELETION_MARKER_DAYS`]), read consistently.
    pub async fn deleted_at(&self, user: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(marker_key(user)))
            .consistent_read(true)
            .send()
            .timed()
            .await?;
        Ok(out
            .item
            .as_ref()
            .and_then(|i| i.get("deleted_at"))
            .and_then(|v| v.as_n().ok())
            .and_then(|n| n.parse::<i64>().ok())
            .and_then(DateTime::from_timestamp_millis))
    }

    /// A transaction's condition that the account was not deleted at or after `sent` (a job's
    /// send time): a job racing the deletion writes nothing.
    pub(crate) fn not_deleted_since(
        &self,
        user: &str,
        sent: DateTime<Utc>,
    ) -> Result<TransactWriteItem, StoreError> {
        let check = ConditionCheck::builder()
            .table_name(&self.table)
            .set_key(Some(marker_key(user)))
            .condition_expression("attribute_not_exists(pk) OR deleted_at < :sent")
            .expression_attribute_values(
                ":sent",
                AttributeValue::N(sent.timestamp_millis().to_string()),
            )
            .build()?;
        Ok(TransactWriteItem::builder().condition_check(check).build())
    }

    /// The user's items after the sort key `after` (`None`: from the first), in key order, as
    /// the export shows them, until their documents reach `max_bytes` of JSON (so a page is at
    /// most that plus one item, 400 KB at most); the last one's key when more may remain.
    pub async fn user_items_page(
        &self,
        user: &str,
        after: Option<&str>,
        max_bytes: usize,
    ) -> Result<(Vec<AccountItem>, Option<String>), StoreError> {
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .expression_attribute_values(":pk", s(super::user_pk(user)));
        let query = match after {
            None => query.key_condition_expression("pk = :pk"),
            Some(sk) => query
                .key_condition_expression("pk = :pk AND sk > :after")
                .expression_attribute_values(":after", s(sk)),
        };
        let mut out: Vec<AccountItem> = Vec::new();
        let mut bytes = 0;
        let more = self
            .query_until(query, |item| {
                let item = AccountItem {
                    key: super::string(&item, "sk").unwrap_or_default(),
                    data: data(&item),
                };
                bytes += item.key.len() + item.data.to_string().len();
                out.push(item);
                Ok(bytes < max_bytes)
            })
            .await?;
        let last = more.then(|| out.last().map(|i| i.key.clone())).flatten();
        Ok((out, last))
    }

    /// Every item of the user's partition, in key order, as the export shows it.
    pub async fn user_items(&self, user: &str) -> Result<Vec<AccountItem>, StoreError> {
        let items = self.items_under(user, "").await?;
        Ok(items
            .iter()
            .map(|item| AccountItem {
                key: super::string(item, "sk").unwrap_or_default(),
                data: data(item),
            })
            .collect())
    }

    /// Deletes the user's items, at most about `max_items` of them (rounds of 100), and says
    /// whether any is left.
    pub async fn delete_user(&self, user: &str, max_items: usize) -> Result<Deletion, StoreError> {
        let mut deleted = self.delete_roster_entries(user).await?;
        loop {
            if deleted >= max_items {
                let left = self.first_keys(user, 1).await?;
                return Ok(Deletion {
                    deleted,
                    finished: left.is_empty(),
                });
            }
            let keys = self.first_keys(user, KEYS_PER_ROUND).await?;
            if keys.is_empty() {
                return Ok(Deletion {
                    deleted,
                    finished: true,
                });
            }
            let n = keys.len();
            self.delete_keys(keys).await?;
            deleted += n;
        }
    }

    /// The roster entries of the weeks the user's insight cards were written for.
    async fn delete_roster_entries(&self, user: &str) -> Result<usize, StoreError> {
        let weeks: BTreeSet<String> = self
            .sort_keys(user, "INSIGHT#", "INSIGHT#~")
            .await?
            .iter()
            .filter_map(|sk| {
                let at = sk.strip_prefix("INSIGHT#")?.get(..20)?;
                let at = chrono::DateTime::parse_from_rfc3339(at).ok()?;
                Some(super::jobs::roster_pk(at.with_timezone(&chrono::Utc)))
            })
            .collect();
        let keys: Vec<HashMap<String, AttributeValue>> = weeks
            .into_iter()
            .map(|pk| HashMap::from([("pk".to_string(), s(pk)), ("sk".to_string(), s(user))]))
            .collect();
        let n = keys.len();
        self.delete_keys(keys).await?;
        Ok(n)
    }

    /// The first `limit` keys of the user's partition (strongly consistent: what a previous
    /// round deleted is gone).
    async fn first_keys(
        &self,
        user: &str,
        limit: i32,
    ) -> Result<Vec<HashMap<String, AttributeValue>>, StoreError> {
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .projection_expression("pk, sk")
            .consistent_read(true)
            .limit(limit)
            .send()
            .timed()
            .await?;
        Ok(out.items.unwrap_or_default())
    }

    /// Deletes `keys` in batches of 25, a few batches in flight.
    async fn delete_keys(
        &self,
        keys: Vec<HashMap<String, AttributeValue>>,
    ) -> Result<(), StoreError> {
        let requests = keys
            .into_iter()
            .map(|k| {
                DeleteRequest::builder()
                    .set_key(Some(k))
                    .build()
                    .map(|d| WriteRequest::builder().delete_request(d).build())
                    .map_err(StoreError::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let batches: Vec<Vec<WriteRequest>> =
            requests.chunks(BATCH_ITEMS).map(<[_]>::to_vec).collect();
        for group in batches.chunks(BATCHES_IN_FLIGHT) {
            for r in join_all(group.iter().cloned().map(|b| self.batch_write(b))).await {
                r?;
            }
        }
        Ok(())
    }
}

/// The stored document, or the item's attributes (other than its key) as JSON.
fn data(item: &HashMap<String, AttributeValue>) -> Value {
    if let Some(doc) = item.get("doc").and_then(|d| d.as_s().ok())
        && let Ok(v) = serde_json::from_str::<Value>(doc)
    {
        return v;
    }
    Value::Object(
        item.iter()
            .filter(|(k, _)| *k != "pk" && *k != "sk")
            .map(|(k, v)| (k.clone(), attribute(v)))
            .collect::<Map<String, Value>>(),
    )
}

fn attribute(v: &AttributeValue) -> Value {
    match v {
        AttributeValue::S(s) => Value::from(s.as_str()),
        AttributeValue::N(n) => n
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| n.parse::<f64>().map(Value::from))
            .unwrap_or_else(|_| Value::from(n.as_str())),
        AttributeValue::Bool(b) => Value::from(*b),
        AttributeValue::L(l) => Value::Array(l.iter().map(attribute).collect()),
        AttributeValue::M(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), attribute(v)))
                .collect::<Map<String, Value>>(),
        ),
        AttributeValue::Ss(ss) => Value::from(ss.clone()),
        AttributeValue::Ns(ns) => Value::from(ns.clone()),
        _ => Value::Null,
    }
}
