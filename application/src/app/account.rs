//! The lifter's account as a whole: everything stored for them, exported (`GET /v1/me/export`,
//! JSON, or the workouts as a Strong CSV our importer reads back), and deleted for good
//! (`DELETE /v1/me`).
//!
//! Deletion removes up to [`INLINE_DELETE_ITEMS`] items in the request and hands the rest to the
//! worker (`delete_account` jobs, each continuing where the last stopped), so a large account
//! is deleted without a request outliving its timeout. It is idempotent: deleting again deletes
//! what is left, or nothing. Afterwards the same identity finds an empty account, as a new
//! lifter would (the identity provider's account is the app's to delete). Jobs queued before
//! the deletion (a card, a review, a health reading) write nothing when they arrive after it
//! (`store::account`'s deletion marker).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use super::App;
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::workout::Workout;
use crate::queue::{Job, JobQueue};
use crate::skills::notify::timezone;

/// Items a `DELETE /v1/me` removes itself before handing the rest to the worker: a year or two
/// of history at a few hundred items per second round, well inside the request's timeout.
pub(crate) const INLINE_DELETE_ITEMS: usize = 2_000;

/// Singletons: one item each, exported as its document (or null).
const SINGLE: [(&str, &str); 4] = [
    ("PROFILE", "profile"),
    ("CONTEXT", "coaching_context"),
    ("WORKOUT#ACTIVE", "active_workout"),
    ("NOTIFYSTATE", "notification_state"),
];

/// Lists: the items under each sort-key prefix, in key order (most are time-ordered).
const LISTS: [(&str, &str); 19] = [
    ("WORKOUT#", "workouts"),
    ("EXERCISE#", "own_exercises"),
    ("TEMPLATE#", "templates"),
    ("ROUTINE#", "routines"),
    ("CONVERSATION#", "conversations"),
    ("CONV#", "conversation_messages"),
    ("MEMORY#", "coach_memories"),
    ("ARTIFACT#", "proposals"),
    ("INSIGHT#", "insight_cards"),
    ("REVIEW#", "weekly_reviews"),
    ("NOTIFY#", "notifications"),
    ("EVENT#", "app_events"),
    ("HEALTH#", "health_decisions"),
    ("BEST#", "records"),
    ("LAST#", "last_sessions"),
    ("MONITOR#", "monitor_nudges"),
    ("USAGE#", "coach_token_usage"),
    ("JOB#", "worker_jobs"),
    ("IDEM#", "request_replays"),
];

/// Item JSON a page of the export holds at most, plus one item (400 KB at most): escaped into
/// Lambda's response (a quote becomes two bytes), a page stays under its 6 MB limit.
pub const EXPORT_PAGE_BYTES: usize = 2_500_000;

/// Everything stored for the lifter, a page at a time.
#[derive(Debug, Clone, Serialize)]
pub struct Export {
    pub user_id: String,
    pub exported_at: DateTime<Utc>,
    /// Items exported (every one stored under the lifter's key).
    pub items: usize,
    /// One document per singleton (`profile`, `coaching_context`, `active_workout`,
    /// `notification_state`; null when absent) and one list per kind of item, each entry
    /// `{key, data}` (`data` is the stored document, or the item's attributes); `other` holds
    /// any kind this version does not name.
    #[serde(flatten)]
    pub sections: BTreeMap<&'static str, Value>,
    /// The last sort key of this page when more may follow (the lane sends it as a cursor).
    #[serde(skip)]
    pub next: Option<String>,
}

/// How far a deletion got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Deleted {
    /// "deleted" (nothing of the lifter is left) or "deleting" (the worker finishes it).
    pub status: &'static str,
    /// Items this request removed.
    pub items_deleted: usize,
}

impl App {
    /// Everything stored under the lifter's key, by kind.
    pub async fn export(
        &self,
        ctx: &SessionContext,
        after: Option<&str>,
    ) -> Result<Export, AppError> {
        let page = self
            .store
            .user_items_page(&ctx.user_id, after, EXPORT_PAGE_BYTES)
            .await;
        let (items, next) = page?;
        let mut sections: BTreeMap<&'static str, Value> = SINGLE
            .iter()
            .map(|(_, name)| (*name, Value::Null))
            .chain(
                LISTS
                    .iter()
                    .map(|(_, name)| (*name, Value::Array(Vec::new()))),
            )
            .chain(std::iter::once(("other", Value::Array(Vec::new()))))
            .collect();
        let count = items.len();
        for item in items {
            if let Some((_, name)) = SINGLE.iter().find(|(k, _)| *k == item.key) {
                sections.insert(name, item.data);
                continue;
            }
            let name = LISTS
                .iter()
                .find(|(p, _)| item.key.starts_with(p))
                .map_or("other", |(_, name)| name);
            if let Some(Value::Array(list)) = sections.get_mut(name) {
                list.push(serde_json::json!({ "key": item.key, "data": item.data }));
            }
        }
        Ok(Export {
            user_id: ctx.user_id.clone(),
            exported_at: Utc::now(),
            items: count,
            sections,
            next,
        })
    }

    /// The completed workouts as a Strong export (weights in the lifter's unit, times in their
    /// timezone), which `POST /v1/import/strong` reads back: a page of whole workouts after the
    /// sort key `after`, oldest first, each page a file of its own with the header, at most
    /// about `EXPORT_PAGE_BYTES`; the last workout's key while more may follow.
    pub async fn export_strong_csv(
        &self,
        ctx: &SessionContext,
        after: Option<&str>,
    ) -> Result<(String, Option<String>), AppError> {
        let profile = self.profile(ctx).await?;
        let (unit, tz) = (profile.unit, timezone(&profile));
        let mut page: Vec<Workout> = Vec::new();
        let (mut bytes, mut last) = (0, after.map(str::to_string));
        let more = 'read: loop {
            let batch = self
                .store
                .completed_workouts_after(&ctx.user_id, last.as_deref(), 50)
                .await?;
            if batch.is_empty() {
                break 'read false;
            }
            for (sk, w) in batch {
                if bytes >= EXPORT_PAGE_BYTES {
                    break 'read true;
                }
                bytes += crate::import::strong::to_csv(std::slice::from_ref(&w), unit, tz).len();
                page.push(w);
                last = Some(sk);
            }
        };
        let csv = crate::import::strong::to_csv(&page, unit, tz);
        Ok((csv, last.filter(|_| more)))
    }

    /// Deletes the lifter's account: up to [`INLINE_DELETE_ITEMS`] items now, the rest through
    /// the worker (or now, when no queue is configured).
    pub async fn delete_account(&self, ctx: &SessionContext) -> Result<Deleted, AppError> {
        let limit = match self.queue {
            JobQueue::Disabled => usize::MAX,
            _ => INLINE_DELETE_ITEMS,
        };
        // First the marker: a job queued before this moment writes nothing after it.
        self.store.mark_deleted(&ctx.user_id, Utc::now()).await?;
        let done = self.store.delete_user(&ctx.user_id, limit).await;
        let done = done?;
        if done.finished {
            return Ok(Deleted {
                status: "deleted",
                items_deleted: done.deleted,
            });
        }
        let job = Job::DeleteAccount {
            user_id: ctx.user_id.clone(),
        };
        self.queue.send(&job).await.map_err(|e| {
            tracing::error!(error = %e, "could not hand an account deletion to the worker");
            AppError::new(
                ErrorCode::QueueUnavailable,
                format!(
                    "{} items were deleted but the rest could not be handed on; send DELETE /v1/me again to continue",
                    done.deleted
                ),
            )
        })?;
        Ok(Deleted {
            status: "deleting",
            items_deleted: done.deleted,
        })
    }
}
