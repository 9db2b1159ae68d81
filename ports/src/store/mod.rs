//! The DynamoDB single-table repository. The same code talks to AWS and, locally and
//! in tests, to dynoxide through `AWS_ENDPOINT_URL_DYNAMODB`.
//!
//! Keys (pk = `USER#<user>`):
//! - `PROFILE`: the profile document (see `profile`);
//! - `WORKOUT#ACTIVE`: the active workout document and its `version`;
//! - `WORKOUT#<started_at>#<id>`: completed workouts, newest last;
//! - `TEMPLATE#<id>`, `ROUTINE#<id>`: plans;
//! - `IDEM#<corr>`: the first answer to a request, replayed for 24 h (`expires_at` TTL);
//! - `CONTEXT`: the coaching context (phase, goals, check-ins);
//! - `EVENT#<ts>#<id>`: the app-event log (90 days);
//! - `NOTIFY#<ts>#<id>`: notifications sent, and `NOTIFYSTATE`: when the last one went out
//!   (the conditional lock behind the 4-hour limit);
//! - `ARTIFACT#<id>`: proposals the lifter confirms (see `artifacts`);
//! - `CONV#<conversation>#MSG#<seq>` and `CONV#<conversation>#SUMMARY`: the coach's conversations;
//! - `MEMORY#<id>`: what the coach keeps about the lifter;
//! - `MONITOR#<workout>#<rule>#<exercise>`: a monitor nudge already sent (7 days);
//! - `LAST#<exercise>`: the key of the newest completed workout that trained it;
//! - `BEST#<exercise>#rated|unrated`: its best e1RM ever, only raised (see `records`);
//! - `CONVERSATION#<conversation>`: the conversation's listing (see `conversation`);
//! - `DEVICE#<id>`: the phones pushes go to (see `devices`); `HSAMPLE#<metric>#<observed_at>#<id>`:
//!   health samples (see `health`);
//! - `EXERCISE#<id>`: the lifter's own exercises; `INSIGHT#`, `REVIEW#`, `HEALTH#`, `JOB#`:
//!   the worker's outputs and claims (see `jobs`), and the weekly roster outside the partition.
//!
//! `account` reads or deletes all of it.
//!
//! The active workout item stays after completion without its `doc`, so its `version` keeps
//! counting up and a command racing a completion can never overwrite the next workout.

pub mod account;
pub mod activity;
pub(crate) mod admin;
pub mod artifacts;
pub mod conversation;
pub mod devices;
pub mod health;
pub(crate) mod history;
pub mod jobs;
pub(crate) mod last_session;
pub mod leases;
pub(crate) mod profile;
pub(crate) mod records;
mod state;
mod timing;

use timing::Timed;
pub(crate) mod usage;
pub use usage::{Caps, Grant, STAGE_SHARDS};
pub mod workouts;

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::{DisplayErrorContext, SdkError};
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::domain::coaching::CoachingContext;
use crate::domain::plan::{Routine, Template};
use crate::domain::profile::Profile;
use crate::domain::workout::Workout;

/// Rounds of retrying the items or keys a batch left unprocessed before giving up.
const UNPROCESSED_ROUNDS: u32 = 8;

/// How long a request's first answer is replayed for a retry with the same `corr`.
pub const IDEMPOTENCY_TTL_SECS: i64 = 24 * 60 * 60;

pub(crate) const SK_PROFILE: &str = "PROFILE";
pub(crate) const SK_ACTIVE: &str = "WORKOUT#ACTIVE";
const SK_CONTEXT: &str = "CONTEXT";
const SK_NOTIFY_STATE: &str = "NOTIFYSTATE";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("store request failed: {0}")]
    Backend(String),
    #[error("stored item {0} is not readable: {1}")]
    Corrupt(String, String),
    #[error("could not build a store request: {0}")]
    Request(String),
}

impl<E: std::error::Error + 'static, R: std::fmt::Debug> From<SdkError<E, R>> for StoreError {
    fn from(e: SdkError<E, R>) -> Self {
        StoreError::Backend(DisplayErrorContext(&e).to_string())
    }
}

/// A request the SDK's builder refused (a required field left out): our bug, not the store's.
impl From<aws_sdk_dynamodb::error::BuildError> for StoreError {
    fn from(e: aws_sdk_dynamodb::error::BuildError) -> Self {
        StoreError::Request(e.to_string())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Versioned<T> {
    pub value: T,
    pub version: u64,
}

/// The first answer to a request, kept so that a retry gets the same answer and writes nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct IdempotencyRecord {
    pub corr: String,
    /// Hash of what was asked; the same `corr` with a different request is refused.
    pub fingerprint: String,
    pub status: u16,
    pub body: String,
    pub expires_at: i64,
}

/// What a request needs of the user's items, read in one strongly consistent round trip.
#[derive(Debug, Clone, Default)]
pub struct UserState {
    pub workout: Option<Versioned<Workout>>,
    /// The active item's version even when no workout is active (starting one writes on it).
    pub active_version: u64,
    pub profile: Option<Profile>,
    pub coaching: Option<CoachingContext>,
    /// The coaching context's version (0 before its first versioned write): a write of it is
    /// conditioned on the version it was read at.
    pub coaching_version: u64,
    /// When the last notification went out.
    pub last_notified: Option<DateTime<Utc>>,
    pub replay: Option<IdempotencyRecord>,
    /// Model tokens the user's coach answers spent today (UTC).
    pub tokens_today: u64,
}

/// The copilot's read: workout, profile and replay.
pub(crate) type CopilotState = UserState;

/// Which of the user's singleton items a read fetches (the idempotency record comes with a corr).
#[derive(Debug, Clone, Copy, Default)]
pub struct Parts {
    pub workout: bool,
    pub profile: bool,
    pub coaching: bool,
    pub notify_state: bool,
    /// Today's coach token counter.
    pub token_usage: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitOutcome {
    Committed,
    /// Someone changed the workout since it was read: read again and re-apply.
    VersionConflict,
    /// A request with the same `corr` committed first: read again and replay its answer.
    DuplicateRequest,
}

#[derive(Clone, Debug)]
pub struct Store {
    client: Client,
    table: String,
}

pub(crate) fn user_pk(user: &str) -> String {
    format!("USER#{user}")
}

pub(crate) fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

pub(crate) fn key(user: &str, sk: impl Into<String>) -> HashMap<String, AttributeValue> {
    HashMap::from([
        ("pk".to_string(), s(user_pk(user))),
        ("sk".to_string(), s(sk)),
    ])
}

/// `WORKOUT#<started_at>#<id>`: completed workouts sort by start time.
pub(crate) fn completed_sk(w: &Workout) -> String {
    format!(
        "WORKOUT#{}#{}",
        w.started_at.format("%Y-%m-%dT%H:%M:%SZ"),
        w.id
    )
}

pub(crate) fn to_doc<T: Serialize>(what: &str, value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Request(format!("{what}: {e}")))
}

pub(crate) fn from_item<T: DeserializeOwned>(
    item: &HashMap<String, AttributeValue>,
) -> Result<T, StoreError> {
    let sk = item
        .get("sk")
        .and_then(|v| v.as_s().ok())
        .cloned()
        .unwrap_or_default();
    let doc = item
        .get("doc")
        .and_then(|v| v.as_s().ok())
        .ok_or_else(|| StoreError::Corrupt(sk.clone(), "missing doc".into()))?;
    serde_json::from_str(doc).map_err(|e| StoreError::Corrupt(sk, e.to_string()))
}

pub(crate) fn number(item: &HashMap<String, AttributeValue>, name: &str) -> Option<i64> {
    item.get(name)?.as_n().ok()?.parse().ok()
}

pub(crate) fn string(item: &HashMap<String, AttributeValue>, name: &str) -> Option<String> {
    item.get(name)?.as_s().ok().cloned()
}

/// The AWS configuration from the environment, with timeouts that fit inside a Lambda
/// invocation; shared by every client a binary builds. Call once, in `main`. `app` names the
/// binary in the SDK's user agent (`app/coach-<app>`), so a request can be traced to its lane.
pub async fn aws_config_from_env(app: &str) -> aws_config::SdkConfig {
    let timeouts = aws_config::timeout::TimeoutConfig::builder()
        .connect_timeout(Duration::from_secs(2))
        .operation_attempt_timeout(Duration::from_secs(2))
        .operation_timeout(Duration::from_secs(5))
        .build();
    let mut loader =
        aws_config::defaults(aws_config::BehaviorVersion::latest()).timeout_config(timeouts);
    if let Ok(name) = aws_config::AppName::new(format!("coach-{app}")) {
        loader = loader.app_name(name);
    }
    if let Some(http) = crate::tls::sdk_http_client() {
        loader = loader.http_client(http);
    }
    loader.load().await
}

impl Store {
    /// A store over `client`'s table; it times its own calls for the request's log line.
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        Self {
            client,
            table: table.into(),
        }
    }

    /// Builds the client from the environment (region, credentials, `AWS_ENDPOINT_URL_DYNAMODB`)
    /// with timeouts that fit inside a Lambda invocation. Call once, in `main`.
    pub async fn from_env(app: &str, table: impl Into<String>) -> Self {
        Self::from_config(&aws_config_from_env(app).await, table)
    }

    pub fn from_config(config: &aws_config::SdkConfig, table: impl Into<String>) -> Self {
        Self::new(Client::new(config), table)
    }

    pub fn table(&self) -> &str {
        &self.table
    }

    /// Stores the coaching context whatever it was (seeding a demo or a test); a change read
    /// from the stored one goes through [`Store::put_coaching_if`].
    pub async fn put_coaching(
        &self,
        user: &str,
        context: &CoachingContext,
    ) -> Result<(), StoreError> {
        self.put_doc(user, SK_CONTEXT.to_string(), &to_doc("context", context)?)
            .await
    }

    /// Stores the coaching context if it is still at `version` (as read); false when another
    /// write came first (read again and redo the change).
    pub async fn put_coaching_if(
        &self,
        user: &str,
        context: &CoachingContext,
        version: u64,
    ) -> Result<bool, StoreError> {
        let put = self.coaching_put(user, context, version)?;
        match self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(put.item))
            .condition_expression(put.condition_expression.unwrap_or_default())
            .set_expression_attribute_values(put.expression_attribute_values)
            .send()
            .timed()
            .await
        {
            Ok(_) => Ok(true),
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// The coaching context's item at the version after `version`, conditioned on `version`.
    pub(crate) fn coaching_put(
        &self,
        user: &str,
        context: &CoachingContext,
        version: u64,
    ) -> Result<aws_sdk_dynamodb::types::Put, StoreError> {
        let mut item = key(user, SK_CONTEXT);
        item.insert("doc".into(), s(to_doc("context", context)?));
        item.insert(
            "version".into(),
            AttributeValue::N((version + 1).to_string()),
        );
        let read_at = if version == 0 {
            // Stored before versions, or never: either has no version.
            "attribute_not_exists(version)"
        } else {
            "version = :v"
        };
        let mut put = aws_sdk_dynamodb::types::Put::builder()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression(read_at);
        if version > 0 {
            put = put.expression_attribute_values(":v", AttributeValue::N(version.to_string()));
        }
        Ok(put.build()?)
    }

    pub async fn put_profile(&self, user: &str, profile: &Profile) -> Result<(), StoreError> {
        self.put_doc(user, SK_PROFILE.to_string(), &to_doc("profile", profile)?)
            .await
    }

    pub async fn put_completed_workout(
        &self,
        user: &str,
        workout: &Workout,
    ) -> Result<(), StoreError> {
        self.put_doc(user, completed_sk(workout), &to_doc("workout", workout)?)
            .await
    }

    pub async fn put_template(&self, user: &str, template: &Template) -> Result<(), StoreError> {
        self.put_doc(
            user,
            format!("TEMPLATE#{}", template.id),
            &to_doc("template", template)?,
        )
        .await
    }

    pub async fn put_routine(&self, user: &str, routine: &Routine) -> Result<(), StoreError> {
        self.put_doc(
            user,
            format!("ROUTINE#{}", routine.id),
            &to_doc("routine", routine)?,
        )
        .await
    }

    pub(crate) async fn put_doc(
        &self,
        user: &str,
        sk: String,
        doc: &str,
    ) -> Result<(), StoreError> {
        self.put_doc_until(user, sk, doc, None).await
    }

    /// [`Self::put_doc`], gone after `expires_at` (epoch seconds; the TTL attribute) if given.
    pub(crate) async fn put_doc_until(
        &self,
        user: &str,
        sk: String,
        doc: &str,
        expires_at: Option<i64>,
    ) -> Result<(), StoreError> {
        let mut item = key(user, sk);
        item.insert("doc".into(), s(doc));
        if let Some(t) = expires_at {
            item.insert("expires_at".into(), AttributeValue::N(t.to_string()));
        }
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .send()
            .timed()
            .await?;
        Ok(())
    }

    /// Completed workouts, oldest first, paging through the whole history.
    pub async fn completed_workouts(&self, user: &str) -> Result<Vec<Workout>, StoreError> {
        let query = self.sk_range(user, workouts::WORKOUTS_LO, workouts::WORKOUTS_HI);
        self.query_all(query).await?.iter().map(from_item).collect()
    }

    /// [`Self::completed_workouts`], read strongly consistent (twice the read units): what is
    /// missing was never written or has been deleted.
    pub async fn completed_workouts_consistent(
        &self,
        user: &str,
    ) -> Result<Vec<Workout>, StoreError> {
        let query = self
            .sk_range(user, workouts::WORKOUTS_LO, workouts::WORKOUTS_HI)
            .consistent_read(true);
        self.query_all(query).await?.iter().map(from_item).collect()
    }

    /// The newest `max` completed workouts, oldest first, read strongly consistent, and whether
    /// older ones were left unread: a bounded read of a history of any length (the worker's
    /// card job), a page of the store at a time from the newest.
    pub async fn newest_completed_workouts_consistent(
        &self,
        user: &str,
        max: usize,
    ) -> Result<(Vec<Workout>, bool), StoreError> {
        let query = self
            .sk_range(user, workouts::WORKOUTS_LO, workouts::WORKOUTS_HI)
            .scan_index_forward(false)
            .consistent_read(true);
        let mut out = Vec::with_capacity(max.min(1_000));
        let more = self
            .query_until(query, |item| {
                out.push(from_item(&item)?);
                Ok(out.len() < max)
            })
            .await?;
        out.reverse();
        Ok((out, more))
    }

    /// Deletes every completed workout of a user (the demo loader uses this before reloading).
    pub async fn delete_completed_workouts(&self, user: &str) -> Result<usize, StoreError> {
        let workouts = self.completed_workouts(user).await?;
        let pointers = self
            .items_under(user, last_session::LAST_SESSION_PREFIX)
            .await?;
        let sks = workouts
            .iter()
            .map(completed_sk)
            .chain(pointers.iter().filter_map(|i| string(i, "sk")));
        for sk in sks {
            self.client
                .delete_item()
                .table_name(&self.table)
                .set_key(Some(key(user, sk)))
                .send()
                .timed()
                .await?;
        }
        Ok(workouts.len())
    }

    /// How many items a user has under a sort-key prefix (tests and the demo loader use this to
    /// prove that nothing was duplicated).
    pub async fn count_items(&self, user: &str, sk_prefix: &str) -> Result<usize, StoreError> {
        Ok(self.items_under(user, sk_prefix).await?.len())
    }

    /// Every item of a user under a sort-key prefix, page by page.
    pub(crate) async fn items_under(
        &self,
        user: &str,
        sk_prefix: &str,
    ) -> Result<Vec<HashMap<String, AttributeValue>>, StoreError> {
        let query = self
            .client
            .query()
            .table_name(&self.table)
            .expression_attribute_values(":pk", s(user_pk(user)));
        // DynamoDB refuses an empty key value, so no prefix means the whole partition.
        let query = if sk_prefix.is_empty() {
            query.key_condition_expression("pk = :pk")
        } else {
            query
                .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
                .expression_attribute_values(":p", s(sk_prefix))
        };
        self.query_all(query).await
    }

    /// The sort keys of the user's items in `[lo, hi]`, reading only the keys.
    pub(crate) async fn sort_keys(
        &self,
        user: &str,
        lo: &str,
        hi: &str,
    ) -> Result<Vec<String>, StoreError> {
        let query = self.sk_range(user, lo, hi).projection_expression("sk");
        Ok(self
            .query_all(query)
            .await?
            .iter()
            .filter_map(|i| string(i, "sk"))
            .collect())
    }

    /// Sends a conditional update; false when its condition did not hold (nothing written).
    pub(crate) async fn update_if(
        update: aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder,
    ) -> Result<bool, StoreError> {
        use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
        match update.send().timed().await {
            Ok(_) => Ok(true),
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), UpdateItemError::ConditionalCheckFailedException(_)) =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// One page of `query` continuing after the item `after` (a sort key of `user`): its items
    /// and the sort key the next page starts after, if there is more.
    pub(crate) async fn query_page(
        &self,
        user: &str,
        query: aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder,
        after: Option<&str>,
    ) -> Result<(Vec<HashMap<String, AttributeValue>>, Option<String>), StoreError> {
        let query = query.set_exclusive_start_key(after.map(|sk| key(user, sk)));
        let out = query.send().timed().await?;
        let next = out
            .last_evaluated_key
            .as_ref()
            .and_then(|k| k.get("sk"))
            .and_then(|v| v.as_s().ok())
            .cloned();
        Ok((out.items.unwrap_or_default(), next))
    }

    pub(crate) async fn query_all(
        &self,
        query: aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder,
    ) -> Result<Vec<HashMap<String, AttributeValue>>, StoreError> {
        let mut items = Vec::new();
        self.query_until(query, |item| {
            items.push(item);
            Ok(true)
        })
        .await?;
        Ok(items)
    }

    /// Walks a query's items in order, a page of the store at a time, handing each to `take`
    /// until it answers false (stop after this one); then whether items were left unread.
    pub(crate) async fn query_until(
        &self,
        query: aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder,
        mut take: impl FnMut(HashMap<String, AttributeValue>) -> Result<bool, StoreError>,
    ) -> Result<bool, StoreError> {
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let page = query
                .clone()
                .set_exclusive_start_key(start)
                .send()
                .timed()
                .await?;
            let left = page.last_evaluated_key.filter(|k| !k.is_empty());
            let mut items = page.items.unwrap_or_default().into_iter().peekable();
            while let Some(item) = items.next() {
                if !take(item)? {
                    return Ok(items.peek().is_some() || left.is_some());
                }
            }
            match left {
                Some(k) => start = Some(k),
                None => return Ok(false),
            }
        }
    }
}
