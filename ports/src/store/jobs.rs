//! The worker's storage: job claims (`JOB#<type>#<subject>`), and the job outputs written in the
//! same transaction as the claim's completion, so a job is either done with all its output or
//! not done at all: insight cards (`INSIGHT#<workout start>#<id>`), weekly reviews
//! (`REVIEW#<YYYY-Www>`), health decisions (`HEALTH#<observed_at>#<metric>`, with the
//! notification when one is sent), and the weekly roster of active users (`ROSTER#<YYYY-Www>`
//! partitions, one item per user) that the weekly fan-out reads.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem, Update};
use chrono::{DateTime, Duration, Utc};
use serde_json::Value;

use super::timing::Timed;
use super::{Store, StoreError, from_item, key, s, string, to_doc};
use crate::domain::calendar::iso_week_id;
use crate::domain::notification::Notification;

/// Roster entries outlive the 30-day activity window comfortably.
pub(crate) const ROSTER_TTL_DAYS: i64 = 60;
/// Health decisions are kept as long as events and notifications.
pub(crate) const HEALTH_TTL_DAYS: i64 = super::activity::ACTIVITY_TTL_DAYS;

/// What claiming a job found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// This run owns the job until its lease ends.
    Claimed { run: String },
    /// The job finished before (a redelivered or duplicated message).
    Done,
    /// Another run holds a live lease: leave the message for later.
    Busy,
}

/// One output item of a job, written with the job's completion.
/// Cards and reviews come as their JSON: the store files documents, the analysis owns their
/// shape.
pub enum Output<'a> {
    /// A post-workout card, filed under the workout's start.
    Insight {
        id: &'a str,
        card: &'a Value,
        at: DateTime<Utc>,
    },
    /// A weekly review, filed under its ISO week.
    Review { id: &'a str, review: &'a Value },
    Health {
        sk: String,
        decision: &'a Value,
        notification: Option<&'a Notification>,
    },
}

/// The rosters of the weeks the last `days` touch.
fn roster_weeks(now: DateTime<Utc>, days: i64) -> Vec<String> {
    let mut weeks = Vec::new();
    let mut at = now - Duration::days(days);
    while at <= now + Duration::days(7) {
        let pk = roster_pk(at);
        if !weeks.contains(&pk) {
            weeks.push(pk);
        }
        at += Duration::days(7);
    }
    weeks
}

pub(crate) fn roster_pk(at: DateTime<Utc>) -> String {
    format!("ROSTER#{}", iso_week_id(at.date_naive()))
}

/// The claim of a job: `JOB#<kind>#<subject>` (one per workout, ISO week or observation).
pub fn claim_sk(kind: &str, subject: &str) -> String {
    format!("JOB#{kind}#{subject}")
}

/// `INSIGHT#<workout start>#<card id>`: a workout's insight card.
pub(crate) fn insight_sk(started_at: DateTime<Utc>, card_id: &str) -> String {
    format!(
        "INSIGHT#{}#{card_id}",
        started_at.format("%Y-%m-%dT%H:%M:%SZ")
    )
}

pub fn health_sk(observed_at: DateTime<Utc>, metric: &str) -> String {
    format!(
        "HEALTH#{}#{metric}",
        observed_at.format("%Y-%m-%dT%H:%M:%SZ")
    )
}

impl Store {
    /// Claims `JOB#<kind>#<subject>` for a run leased until `lease_until`: free, or its lease
    /// ended (a run that crashed), or (`rerun_done`) finished before and worth redoing.
    pub async fn claim_job(
        &self,
        user: &str,
        job_sk: &str,
        lease_until: DateTime<Utc>,
        rerun_done: bool,
        now: DateTime<Utc>,
    ) -> Result<Claim, StoreError> {
        let run = format!("r{}", now.timestamp_nanos_opt().unwrap_or_default());
        let mut item = key(user, job_sk);
        item.insert("status".into(), s("running"));
        item.insert("run".into(), s(&run));
        item.insert(
            "lease_until".into(),
            AttributeValue::N(lease_until.timestamp_millis().to_string()),
        );
        item.insert("claimed_at".into(), s(now.to_rfc3339()));
        let mut condition =
            "attribute_not_exists(pk) OR (#st = :running AND lease_until < :now)".to_string();
        let mut put = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .expression_attribute_names("#st", "status")
            .expression_attribute_values(":running", s("running"))
            .expression_attribute_values(
                ":now",
                AttributeValue::N(now.timestamp_millis().to_string()),
            );
        if rerun_done {
            condition.push_str(" OR #st = :done");
            put = put.expression_attribute_values(":done", s("done"));
        }
        let out = put.condition_expression(condition).send().timed().await;
        match out {
            Ok(_) => Ok(Claim::Claimed { run }),
            Err(aws_sdk_dynamodb::error::SdkError::ServiceError(e))
                if e.err().is_conditional_check_failed_exception() =>
            {
                let existing = self.get_item(user, job_sk).await?;
                Ok(
                    match existing.and_then(|i| string(&i, "status")).as_deref() {
                        Some("done") => Claim::Done,
                        _ => Claim::Busy,
                    },
                )
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Gives a claim back (the run failed), so the redelivered message can run at once.
    pub async fn release_job(&self, user: &str, job_sk: &str, run: &str) -> Result<(), StoreError> {
        let out = self
            .client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key(user, job_sk)))
            .condition_expression("#run = :run")
            .expression_attribute_names("#run", "run")
            .expression_attribute_values(":run", s(run))
            .send()
            .timed()
            .await;
        match out {
            Ok(_) => Ok(()),
            // Someone else owns it now: nothing to give back.
            Err(aws_sdk_dynamodb::error::SdkError::ServiceError(e))
                if e.err().is_conditional_check_failed_exception() =>
            {
                Ok(())
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Writes the job's outputs and marks it done, in one transaction, only while this run
    /// still owns the claim and the account was not deleted since the job was `sent`. False
    /// when it does not (the lease passed to another run, which writes the same outputs), a
    /// health decision exists already, or the account was deleted meanwhile.
    pub async fn finish_job(
        &self,
        user: &str,
        job_sk: &str,
        run: &str,
        outputs: &[Output<'_>],
        sent: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let put = |item: HashMap<String, AttributeValue>| {
            Put::builder()
                .table_name(&self.table)
                .set_item(Some(item))
                .build()
                .map_err(StoreError::from)
        };
        let mut items = Vec::new();
        for o in outputs {
            match o {
                Output::Insight { id, card, at } => {
                    let mut item = key(user, insight_sk(*at, id));
                    item.insert("doc".into(), s(to_doc("insight", card)?));
                    items.push(TransactWriteItem::builder().put(put(item)?).build());
                    // The user trained this week: the weekly fan-out reviews them.
                    let mut roster = HashMap::from([
                        ("pk".to_string(), s(roster_pk(*at))),
                        ("sk".to_string(), s(user)),
                    ]);
                    roster.insert(
                        "expires_at".into(),
                        AttributeValue::N((at.timestamp() + ROSTER_TTL_DAYS * 86_400).to_string()),
                    );
                    items.push(TransactWriteItem::builder().put(put(roster)?).build());
                }
                Output::Review { id, review } => {
                    let mut item = key(user, format!("REVIEW#{id}"));
                    item.insert("doc".into(), s(to_doc("review", review)?));
                    items.push(TransactWriteItem::builder().put(put(item)?).build());
                }
                Output::Health {
                    sk,
                    decision,
                    notification,
                } => {
                    let mut item = key(user, sk.clone());
                    item.insert("doc".into(), s(decision.to_string()));
                    item.insert(
                        "expires_at".into(),
                        AttributeValue::N((now.timestamp() + HEALTH_TTL_DAYS * 86_400).to_string()),
                    );
                    let p = Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(item))
                        .condition_expression("attribute_not_exists(pk)")
                        .build()?;
                    items.push(TransactWriteItem::builder().put(p).build());
                    if let Some(n) = notification {
                        for p in self.notification_puts(user, n)? {
                            items.push(TransactWriteItem::builder().put(p).build());
                        }
                    }
                }
            }
        }
        let done = Update::builder()
            .table_name(&self.table)
            .set_key(Some(key(user, job_sk)))
            .update_expression("SET #st = :done, done_at = :now")
            .condition_expression("#run = :run")
            .expression_attribute_names("#st", "status")
            .expression_attribute_names("#run", "run")
            .expression_attribute_values(":done", s("done"))
            .expression_attribute_values(":now", s(now.to_rfc3339()))
            .expression_attribute_values(":run", s(run))
            .build()?;
        items.push(TransactWriteItem::builder().update(done).build());
        items.push(self.not_deleted_since(user, sent)?);
        Ok(self.transact(items).await?.is_none())
    }

    /// Deletes an insight card (of a workout deleted, or moved to another start).
    pub async fn delete_insight(
        &self,
        user: &str,
        started_at: DateTime<Utc>,
        card_id: &str,
    ) -> Result<(), StoreError> {
        self.client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(key(user, insight_sk(started_at, card_id))))
            .send()
            .timed()
            .await?;
        Ok(())
    }

    /// A stored health decision, if the job decided before.
    pub async fn health_decision(&self, user: &str, sk: &str) -> Result<Option<Value>, StoreError> {
        self.get_item(user, sk)
            .await?
            .map(|i| from_item(&i))
            .transpose()
    }

    /// The ISO weeks (`2026-W47`) of the stored weekly reviews from week `from` on, keys only.
    pub async fn review_weeks_from(
        &self,
        user: &str,
        from: &str,
    ) -> Result<std::collections::HashSet<String>, StoreError> {
        Ok(self
            .sort_keys(user, &format!("REVIEW#{from}"), "REVIEW#~")
            .await?
            .iter()
            .filter_map(|sk| sk.strip_prefix("REVIEW#").map(str::to_string))
            .collect())
    }

    /// The weekly review of the ISO week `week` (`2026-W47`).
    pub async fn review(&self, user: &str, week: &str) -> Result<Option<Value>, StoreError> {
        self.get_item(user, &format!("REVIEW#{week}"))
            .await?
            .map(|i| from_item(&i))
            .transpose()
    }

    /// The newest weekly review.
    pub async fn latest_review(&self, user: &str) -> Result<Option<Value>, StoreError> {
        let page = self.page(user, "REVIEW#", 1, None, Utc::now()).await?;
        Ok(page.items.into_iter().next())
    }

    /// Users who completed a workout in the weeks overlapping `[now − days, now]`, sorted.
    /// Puts `users` on the roster of the week of `at`, as their first card of that week does
    /// (an operator's tool: `scripts/bench.sh fanout` seeds a roster of 100,000 so).
    pub async fn enrol_in_roster(
        &self,
        users: &[String],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        use aws_sdk_dynamodb::types::{PutRequest, WriteRequest};
        let expires = AttributeValue::N((at.timestamp() + ROSTER_TTL_DAYS * 86_400).to_string());
        let requests = users
            .iter()
            .map(|u| {
                let item = HashMap::from([
                    ("pk".to_string(), s(roster_pk(at))),
                    ("sk".to_string(), s(u)),
                    ("expires_at".to_string(), expires.clone()),
                ]);
                PutRequest::builder()
                    .set_item(Some(item))
                    .build()
                    .map(|p| WriteRequest::builder().put_request(p).build())
                    .map_err(StoreError::from)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let batches: Vec<Vec<WriteRequest>> = requests
            .chunks(super::history::BATCH_ITEMS)
            .map(<[_]>::to_vec)
            .collect();
        for group in batches.chunks(super::history::BATCHES_IN_FLIGHT) {
            for r in
                futures_util::future::join_all(group.iter().cloned().map(|b| self.batch_write(b)))
                    .await
            {
                r?;
            }
        }
        Ok(())
    }

    /// Up to `limit` lifters active in the last `days` (on the roster of a week those days
    /// touch), in id order after `after`: a page of the fan-out, read without holding the
    /// whole roster (each week's roster is sorted by id: its first `limit` after `after` hold
    /// the page).
    pub async fn active_users_after(
        &self,
        now: DateTime<Utc>,
        days: i64,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StoreError> {
        let mut users = std::collections::BTreeSet::new();
        for pk in roster_weeks(now, days) {
            let q = self
                .client
                .query()
                .table_name(&self.table)
                .expression_attribute_values(":pk", s(pk))
                .projection_expression("sk")
                .limit(i32::try_from(limit).unwrap_or(i32::MAX));
            let q = match after {
                None => q.key_condition_expression("pk = :pk"),
                Some(a) => q
                    .key_condition_expression("pk = :pk AND sk > :after")
                    .expression_attribute_values(":after", s(a)),
            };
            let page = q.send().timed().await?;
            users.extend(page.items().iter().filter_map(|i| string(i, "sk")));
        }
        Ok(users.into_iter().take(limit).collect())
    }

    /// Every lifter active in the last `days`, in id order (an operator's dry run of the
    /// fan-out): the pages of [`Store::active_users_after`], one after another.
    pub async fn active_users(
        &self,
        now: DateTime<Utc>,
        days: i64,
    ) -> Result<Vec<String>, StoreError> {
        const PAGE: usize = 1_000;
        let mut users: Vec<String> = Vec::new();
        loop {
            let page = self
                .active_users_after(now, days, users.last().map(String::as_str), PAGE)
                .await?;
            let last_page = page.len() < PAGE;
            users.extend(page);
            if last_page {
                return Ok(users);
            }
        }
    }
}
