//! The user's activity: the app-event log, notifications (with the 4-hour lock), one-time
//! claims (a monitor nudge already sent) and newest-first pages of any of them.

use std::collections::HashMap;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem};
use chrono::{DateTime, Utc};
use serde_json::Value;

use super::timing::Timed;
use super::{
    IdempotencyRecord, SK_NOTIFY_STATE, Store, StoreError, from_item, key, s, to_doc, user_pk,
};
use crate::domain::coaching::{CoachingContext, Memory};
use crate::domain::notification::{Notification, RATE_LIMIT};

/// Events and notifications are kept this long.
pub(crate) const ACTIVITY_TTL_DAYS: i64 = 90;

/// One app event as logged.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRecord {
    pub id: String,
    pub at: DateTime<Utc>,
    pub kind: String,
    pub payload: Value,
    pub reply: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventOutcome {
    Committed,
    /// A request with the same `corr` was recorded first: replay its answer.
    DuplicateRequest,
    /// Another notification went out inside the rate-limit window meanwhile.
    RateLimited,
    /// A concurrent transaction touched the same items: read again and retry.
    Conflict,
}

fn ts_key(prefix: &str, at: DateTime<Utc>, id: &str) -> String {
    format!("{prefix}#{}#{id}", at.format("%Y-%m-%dT%H:%M:%S%.6fZ"))
}

fn expires(at: DateTime<Utc>) -> AttributeValue {
    AttributeValue::N((at.timestamp() + ACTIVITY_TTL_DAYS * 86_400).to_string())
}

/// A page of items, newest first, and the cursor of the next page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub items: Vec<Value>,
    pub next: Option<String>,
}

/// The user's time-ordered documents an app or the coach pages through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// Notifications sent (`NOTIFY#<ts>#<id>`).
    Notifications,
    /// Insight cards the worker wrote (`INSIGHT#<ts>#<id>`).
    Insights,
    /// The app-event log (`EVENT#<ts>#<id>`).
    Events,
    /// Weekly reviews (`REVIEW#<YYYY-Www>`).
    Reviews,
}

impl Feed {
    fn prefix(self) -> &'static str {
        match self {
            Feed::Notifications => "NOTIFY#",
            Feed::Insights => "INSIGHT#",
            Feed::Events => "EVENT#",
            Feed::Reviews => "REVIEW#",
        }
    }

    /// Whether a page's `next` key belongs to this feed (a cursor from another is refused).
    pub fn holds(self, sk: &str) -> bool {
        sk.starts_with(self.prefix())
    }
}

impl Store {
    /// Logs an app event and, atomically with it, the changed coaching context, a notification
    /// (taking the 4-hour lock) and the request's idempotency record.
    pub async fn record_event(
        &self,
        user: &str,
        event: &EventRecord,
        context: Option<(&CoachingContext, u64)>,
        notification: Option<&Notification>,
        record: Option<&IdempotencyRecord>,
        now: DateTime<Utc>,
    ) -> Result<EventOutcome, StoreError> {
        let put = |item: HashMap<String, AttributeValue>| {
            Put::builder()
                .table_name(&self.table)
                .set_item(Some(item))
                .build()
                .map_err(StoreError::from)
        };
        let mut items = Vec::with_capacity(5);
        if let Some(r) = record {
            items.push(self.idempotency_put(user, r, now)?);
        }
        let mut ev = key(user, ts_key("EVENT", event.at, &event.id));
        ev.insert("doc".into(), s(serde_json::json!({
            "id": event.id, "type": event.kind, "at": event.at, "payload": event.payload, "reply": event.reply,
        }).to_string()));
        ev.insert("expires_at".into(), expires(event.at));
        items.push(put(ev)?);
        if let Some((c, version)) = context {
            // On the version read: a coach turn or another event that changed it meanwhile
            // makes this a conflict, and the event is answered again from what is stored.
            items.push(self.coaching_put(user, c, version)?);
        }
        let lock_index = items.len();
        if let Some(n) = notification {
            items.extend(self.notification_puts(user, n)?);
        }
        let has_record = record.is_some();
        let tx: Vec<TransactWriteItem> = items
            .into_iter()
            .map(|p| TransactWriteItem::builder().put(p).build())
            .collect();
        Ok(match self.transact(tx).await? {
            None => EventOutcome::Committed,
            Some(failed) if has_record && failed[0] => EventOutcome::DuplicateRequest,
            Some(failed) if notification.is_some() && failed[lock_index] => {
                EventOutcome::RateLimited
            }
            Some(_) => EventOutcome::Conflict,
        })
    }

    /// The lock item (only if the last notification is older than the rate limit) and the
    /// notification itself.
    pub(super) fn notification_puts(
        &self,
        user: &str,
        n: &Notification,
    ) -> Result<[Put; 2], StoreError> {
        let mut lock = key(user, SK_NOTIFY_STATE);
        lock.insert(
            "sent_at".into(),
            AttributeValue::N(n.created_at.timestamp().to_string()),
        );
        let lock = Put::builder()
            .table_name(&self.table)
            .set_item(Some(lock))
            .condition_expression("attribute_not_exists(pk) OR sent_at <= :cutoff")
            .expression_attribute_values(
                ":cutoff",
                AttributeValue::N((n.created_at - RATE_LIMIT).timestamp().to_string()),
            )
            .build()?;
        let mut item = key(user, ts_key("NOTIFY", n.created_at, &n.id));
        item.insert("doc".into(), s(to_doc("notification", n)?));
        item.insert("expires_at".into(), expires(n.created_at));
        let item = Put::builder()
            .table_name(&self.table)
            .set_item(Some(item))
            .build()?;
        Ok([lock, item])
    }

    /// Claims `sk` once (until `expires_at`): true for the first caller, false afterwards.
    pub async fn claim(
        &self,
        user: &str,
        sk: &str,
        expires_at: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let mut item = key(user, sk);
        item.insert(
            "expires_at".into(),
            AttributeValue::N(expires_at.to_string()),
        );
        let out = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk) OR expires_at < :now")
            .expression_attribute_values(":now", AttributeValue::N(now.timestamp().to_string()))
            .send()
            .timed()
            .await;
        match out {
            Ok(_) => Ok(true),
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), PutItemError::ConditionalCheckFailedException(_)) =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// One page of a feed, newest first, `limit` at a time; `cursor` is the `next` of the
    /// previous page (check it with [`Feed::holds`]).
    pub async fn feed(
        &self,
        user: &str,
        feed: Feed,
        limit: i32,
        cursor: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Page, StoreError> {
        self.page(user, feed.prefix(), limit, cursor, now).await
    }

    /// Claims the monitor's nudge `rule` about `exercise` in `workout` (until `expires_at`):
    /// true for the first caller, so a nudge goes out once however often the app asks.
    pub async fn claim_monitor_nudge(
        &self,
        user: &str,
        workout: &str,
        rule: &str,
        exercise: &str,
        expires_at: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let sk = format!("MONITOR#{workout}#{rule}#{exercise}");
        self.claim(user, &sk, expires_at, now).await
    }

    /// Documents under `prefix` (e.g. "NOTIFY#"), newest first, `limit` at a time; `cursor` is
    /// the `next` of the previous page. Expired items are skipped.
    pub async fn page(
        &self,
        user: &str,
        prefix: &str,
        limit: i32,
        cursor: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<Page, StoreError> {
        let q = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":p", s(prefix))
            .scan_index_forward(false)
            .limit(limit);
        let (items, next) = self.query_page(user, q, cursor).await?;
        let items = items
            .iter()
            .filter(|i| super::number(i, "expires_at").is_none_or(|e| e > now.timestamp()))
            .map(from_item)
            .collect::<Result<Vec<Value>, _>>()?;
        Ok(Page { items, next })
    }

    /// Stores a notification the gate let through, taking the 4-hour lock. False when another
    /// notification took the lock first.
    pub async fn send_notification(
        &self,
        user: &str,
        n: &Notification,
    ) -> Result<bool, StoreError> {
        let tx = self
            .notification_puts(user, n)?
            .into_iter()
            .map(|p| TransactWriteItem::builder().put(p).build())
            .collect();
        Ok(self.transact(tx).await?.is_none())
    }

    /// Saves (or rewrites) a memory: `MEMORY#<id>`.
    pub async fn put_memory(&self, user: &str, m: &Memory) -> Result<(), StoreError> {
        self.put_doc(user, format!("MEMORY#{}", m.id), &to_doc("memory", m)?)
            .await
    }

    /// Every memory, retired ones included, oldest first.
    pub async fn memories(&self, user: &str) -> Result<Vec<Memory>, StoreError> {
        self.items_under(user, "MEMORY#")
            .await?
            .iter()
            .map(from_item)
            .collect()
    }
}
