//! The DynamoDB single-table repository. The same code talks to AWS and, locally and
//! in tests, to dynoxide through `AWS_ENDPOINT_URL_DYNAMODB`.
//!
//! Keys (pk = `USER#<user>`):
//! - `PROFILE`: the profile document;
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
//! - `BEST#<exercise>#rated|unrated`: its best e1RM ever, only raised (see `records`).
//!
//! The active workout item stays after completion without its `doc`, so its `version` keeps
//! counting up and a command racing a completion can never overwrite the next workout.

pub mod activity;
pub mod admin;
pub mod artifacts;
pub mod conversation;
pub mod history;
pub mod jobs;
pub mod last_session;
pub mod records;
mod timing;

use timing::Timed;
pub mod usage;
pub mod workouts;

use std::collections::HashMap;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::{DisplayErrorContext, SdkError};
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, Put, TransactWriteItem};
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
    /// When the last notification went out.
    pub last_notified: Option<DateTime<Utc>>,
    pub replay: Option<IdempotencyRecord>,
    /// Model tokens the user's coach answers spent today (UTC).
    pub tokens_today: u64,
}

/// The copilot's read: workout, profile and replay.
pub type CopilotState = UserState;

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
                Some(SK_ACTIVE) => {
                    let version = number(&item, "version").unwrap_or(0).max(0) as u64;
                    state.active_version = version;
                    // A completed workout leaves the item without a doc: nothing is active.
                    if item.contains_key("doc") {
                        state.workout = Some(Versioned {
                            value: from_item(&item)?,
                            version,
                        });
                    }
                }
                Some(SK_PROFILE) => state.profile = Some(from_item(&item)?),
                Some(SK_CONTEXT) => state.coaching = Some(from_item(&item)?),
                Some(SK_NOTIFY_STATE) => {
                    state.last_notified = number(&item, "sent_at")
                        .and_then(|t| DateTime::<Utc>::from_timestamp(t, 0));
                }
                Some(sk) if sk == usage_key => {
                    state.tokens_today = number(&item, "tokens").unwrap_or(0).max(0) as u64;
                }
                Some(_) => {
                    let expires_at = number(&item, "expires_at").unwrap_or(0);
                    // TTL deletion is lazy (up to days on AWS): expired records are ignored.
                    if expires_at > now.timestamp() {
                        state.replay = Some(IdempotencyRecord {
                            corr: corr.unwrap_or_default().to_string(),
                            fingerprint: string(&item, "fingerprint").unwrap_or_default(),
                            status: number(&item, "status").unwrap_or(200) as u16,
                            body: string(&item, "body").unwrap_or_default(),
                            expires_at,
                        });
                    }
                }
                None => {}
            }
        }
        Ok(state)
    }

    /// BatchGetItem of the user's items by sort key, consistent, retrying unprocessed keys.
    async fn batch_read(
        &self,
        user: &str,
        sks: &[String],
    ) -> Result<Vec<HashMap<String, AttributeValue>>, StoreError> {
        let keys = sks.iter().map(|sk| key(user, sk.as_str())).collect();
        let request = KeysAndAttributes::builder()
            .set_keys(Some(keys))
            .consistent_read(true)
            .build()
            .map_err(|e| StoreError::Request(e.to_string()))?;
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
            .build()
            .map_err(|e| StoreError::Request(e.to_string()))?;
        let mut items = Vec::with_capacity(2);
        if let Some(r) = record {
            items.push(
                TransactWriteItem::builder()
                    .put(self.idempotency_put(user, r, now)?)
                    .build(),
            );
        }
        items.push(TransactWriteItem::builder().put(put_workout).build());
        let has_record = record.is_some();
        Ok(match self.transact(items).await? {
            None => CommitOutcome::Committed,
            Some(failed) if has_record && failed[0] => CommitOutcome::DuplicateRequest,
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
            .map_err(|e| StoreError::Request(e.to_string()))
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

    pub async fn put_coaching(
        &self,
        user: &str,
        context: &CoachingContext,
    ) -> Result<(), StoreError> {
        self.put_doc(user, SK_CONTEXT.to_string(), &to_doc("context", context)?)
            .await
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
        let mut item = key(user, sk);
        item.insert("doc".into(), s(doc));
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
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":p", s(sk_prefix));
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

    /// Runs a query to the end, page by page.
    pub(crate) async fn query_all(
        &self,
        query: aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder,
    ) -> Result<Vec<HashMap<String, AttributeValue>>, StoreError> {
        let mut items = Vec::new();
        let mut start: Option<HashMap<String, AttributeValue>> = None;
        loop {
            let page = query
                .clone()
                .set_exclusive_start_key(start)
                .send()
                .timed()
                .await?;
            items.extend(page.items.unwrap_or_default());
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return Ok(items),
            }
        }
    }
}
