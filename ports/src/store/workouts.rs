//! Workout lifecycle writes (start, complete) and the reads that plan a workout (history,
//! templates, routines).

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, Delete, Put, TransactWriteItem, Update};
use chrono::{DateTime, Utc};

use super::timing::Timed;
use super::{
    CommitOutcome, IdempotencyRecord, SK_ACTIVE, Store, StoreError, Versioned, completed_sk,
    from_item, key, last_session, s, string, to_doc, user_pk,
};
use crate::domain::plan::{Routine, Template};
use crate::domain::workout::Workout;

/// The bounds of every completed workout's key.
pub(crate) const WORKOUTS_LO: &str = "WORKOUT#0";
pub(crate) const WORKOUTS_HI: &str = "WORKOUT#9~";

/// Whether `sk` is a completed workout's key (a history page's cursor must be one).
pub fn is_completed_key(sk: &str) -> bool {
    (WORKOUTS_LO..=WORKOUTS_HI).contains(&sk) && sk != SK_ACTIVE
}

/// The key prefix of a workout started at `t` (keys carry the start to the second).
fn workout_key_at(t: DateTime<Utc>) -> String {
    format!("WORKOUT#{}", t.format("%Y-%m-%dT%H:%M:%SZ"))
}

impl Store {
    /// Makes `workout` the active workout unless one is active. Returns false (and writes
    /// nothing) when one is.
    pub async fn start_workout(&self, user: &str, workout: &Workout) -> Result<bool, StoreError> {
        let out = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user, SK_ACTIVE)))
            .update_expression("SET #d = :d, updated_at = :now ADD #v :one")
            .condition_expression("attribute_not_exists(#d)")
            .expression_attribute_names("#d", "doc")
            .expression_attribute_names("#v", "version")
            .expression_attribute_values(":d", s(to_doc("workout", workout)?))
            .expression_attribute_values(":now", s(Utc::now().to_rfc3339()))
            .expression_attribute_values(":one", AttributeValue::N("1".into()))
            .send()
            .timed()
            .await;
        match out {
            Ok(_) => Ok(true),
            Err(SdkError::ServiceError(e))
                if matches!(e.err(), UpdateItemError::ConditionalCheckFailedException(_)) =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Atomically moves the active workout (still at `expected_version`) into history as
    /// `completed`, and stores the routine with its next day advanced. Returns false when the
    /// active workout changed meanwhile (read again).
    pub async fn complete_workout(
        &self,
        user: &str,
        completed: &Workout,
        expected_version: u64,
        routine: Option<&Routine>,
    ) -> Result<bool, StoreError> {
        let clear_active = Update::builder()
            .table_name(&self.table)
            .set_key(Some(key(user, SK_ACTIVE)))
            .update_expression("REMOVE #d SET #v = :next")
            .condition_expression("#v = :v AND attribute_exists(#d)")
            .expression_attribute_names("#d", "doc")
            .expression_attribute_names("#v", "version")
            .expression_attribute_values(":v", AttributeValue::N(expected_version.to_string()))
            .expression_attribute_values(
                ":next",
                AttributeValue::N((expected_version + 1).to_string()),
            )
            .build()?;
        let mut history = key(user, completed_sk(completed));
        history.insert("doc".into(), s(to_doc("workout", completed)?));
        let put_history = Put::builder()
            .table_name(&self.table)
            .set_item(Some(history))
            .build()?;
        let mut items = vec![
            TransactWriteItem::builder().update(clear_active).build(),
            TransactWriteItem::builder().put(put_history).build(),
        ];
        // Each exercise's pointer to its newest session: this one.
        for id in last_session::exercise_ids(completed) {
            let put = Put::builder()
                .table_name(&self.table)
                .set_item(Some(last_session::pointer_item(user, id, completed)))
                .build()?;
            items.push(TransactWriteItem::builder().put(put).build());
        }
        if let Some(r) = routine {
            let mut item = key(user, format!("ROUTINE#{}", r.id));
            item.insert("doc".into(), s(to_doc("routine", r)?));
            items.push(
                TransactWriteItem::builder()
                    .put(
                        Put::builder()
                            .table_name(&self.table)
                            .set_item(Some(item))
                            .build()?,
                    )
                    .build(),
            );
        }
        // Cancelled means the active workout changed (or was completed) since it was read.
        Ok(self.transact(items).await?.is_none())
    }

    /// A query for the completed workouts whose keys lie in `[lo, hi]` (oldest first).
    /// `WORKOUT#ACTIVE` sorts after every dated key, so the full range `WORKOUT#0`..`WORKOUT#9~`
    /// excludes it.
    pub(crate) fn sk_range(
        &self,
        user: &str,
        lo: &str,
        hi: &str,
    ) -> aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder {
        self.client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk AND sk BETWEEN :lo AND :hi")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":lo", s(lo))
            .expression_attribute_values(":hi", s(hi))
    }

    /// Up to `limit` completed workouts after the sort key `after` (`None`: from the first),
    /// oldest first, each with its key: a page of the Strong export, by key, so that a workout
    /// imported or deleted between pages moves no other. Fewer than `limit` when a page of the
    /// store is full (1 MB); none once there are no more.
    pub async fn completed_workouts_after(
        &self,
        user: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<(String, Workout)>, StoreError> {
        let query = self
            .sk_range(user, after.unwrap_or(WORKOUTS_LO), WORKOUTS_HI)
            .limit(i32::try_from(limit + 1).unwrap_or(i32::MAX));
        let page = query.send().timed().await?;
        page.items()
            .iter()
            .filter_map(|item| string(item, "sk").map(|sk| (sk, item)))
            .filter(|(sk, _)| Some(sk.as_str()) != after && sk != SK_ACTIVE)
            .take(limit)
            .map(|(sk, item)| Ok((sk, from_item(item)?)))
            .collect()
    }

    /// Completed workouts started at or after `since`, oldest first.
    pub async fn completed_workouts_since(
        &self,
        user: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<Workout>, StoreError> {
        let query = self.sk_range(user, &workout_key_at(since), WORKOUTS_HI);
        self.query_all(query).await?.iter().map(from_item).collect()
    }

    /// Completed workouts started in `[from, to)`, oldest first.
    pub async fn completed_workouts_between(
        &self,
        user: &str,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Vec<Workout>, StoreError> {
        // "WORKOUT#<to>" sorts before any key of a workout started at `to`.
        let query = self.sk_range(user, &workout_key_at(from), &workout_key_at(to));
        let items = self.query_all(query).await?;
        let workouts: Vec<Workout> = items.iter().map(from_item).collect::<Result<_, _>>()?;
        Ok(workouts
            .into_iter()
            .filter(|w| w.started_at >= from && w.started_at < to)
            .collect())
    }

    /// A completed workout by id: its key found among the history's keys (the query returns
    /// keys only), then the one item.
    pub async fn find_completed_workout(
        &self,
        user: &str,
        id: &str,
    ) -> Result<Option<Workout>, StoreError> {
        Ok(self.find_completed(user, id).await?.map(|v| v.value))
    }

    /// [`Self::find_completed_workout`] with its version (0 until it is first edited).
    pub async fn find_completed(
        &self,
        user: &str,
        id: &str,
    ) -> Result<Option<Versioned<Workout>>, StoreError> {
        let suffix = format!("#{id}");
        let query = self
            .sk_range(user, WORKOUTS_LO, WORKOUTS_HI)
            .scan_index_forward(false)
            .projection_expression("sk");
        let keys = self.query_all(query).await?;
        let Some(sk) = keys
            .iter()
            .filter_map(|i| super::string(i, "sk"))
            .find(|sk| sk.ends_with(&suffix))
        else {
            return Ok(None);
        };
        let Some(item) = self.get_item(user, &sk).await? else {
            return Ok(None);
        };
        Ok(Some(Versioned {
            value: from_item(&item)?,
            version: super::number(&item, "version").unwrap_or(0).max(0) as u64,
        }))
    }

    /// Replaces the completed workout `before` (still at `version`) with `after` (`None`
    /// deletes it), in one transaction with the request's idempotency record. A moved start
    /// time moves the item (its key holds the start).
    pub async fn replace_completed(
        &self,
        user: &str,
        before: &Workout,
        version: u64,
        after: Option<&Workout>,
        record: Option<&IdempotencyRecord>,
        now: DateTime<Utc>,
    ) -> Result<CommitOutcome, StoreError> {
        let before_sk = completed_sk(before);
        // Workouts stored before edits existed have no version: they are at 0.
        let condition = if version == 0 {
            "attribute_exists(pk) AND attribute_not_exists(#v)"
        } else {
            "#v = :v"
        };
        let mut items = Vec::with_capacity(4);
        if let Some(r) = record {
            let put = self.idempotency_put(user, r, now)?;
            items.push(TransactWriteItem::builder().put(put).build());
        }
        let moved = after.is_none_or(|a| completed_sk(a) != before_sk);
        let conditioned_on_before = |builder_put: Option<HashMap<String, AttributeValue>>| {
            let values = (version > 0).then(|| {
                HashMap::from([(":v".to_string(), AttributeValue::N(version.to_string()))])
            });
            match builder_put {
                Some(item) => Put::builder()
                    .table_name(&self.table)
                    .set_item(Some(item))
                    .condition_expression(condition)
                    .expression_attribute_names("#v", "version")
                    .set_expression_attribute_values(values)
                    .build()
                    .map(|p| TransactWriteItem::builder().put(p).build()),
                None => Delete::builder()
                    .table_name(&self.table)
                    .set_key(Some(key(user, before_sk.clone())))
                    .condition_expression(condition)
                    .expression_attribute_names("#v", "version")
                    .set_expression_attribute_values(values)
                    .build()
                    .map(|d| TransactWriteItem::builder().delete(d).build()),
            }
        };
        let new_item = |w: &Workout| -> Result<HashMap<String, AttributeValue>, StoreError> {
            let mut item = key(user, completed_sk(w));
            item.insert("doc".into(), s(to_doc("workout", w)?));
            item.insert(
                "version".into(),
                AttributeValue::N((version + 1).to_string()),
            );
            Ok(item)
        };
        match after {
            Some(a) if !moved => items.push(conditioned_on_before(Some(new_item(a)?))?),
            _ => {
                items.push(conditioned_on_before(None)?);
                if let Some(a) = after {
                    let put = Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(new_item(a)?))
                        .condition_expression("attribute_not_exists(pk)")
                        .build()?;
                    items.push(TransactWriteItem::builder().put(put).build());
                }
            }
        }
        let has_record = record.is_some();
        Ok(match self.transact(items).await? {
            None => CommitOutcome::Committed,
            Some(failed) if has_record && failed[0] => CommitOutcome::DuplicateRequest,
            Some(_) => CommitOutcome::VersionConflict,
        })
    }

    /// One page of completed workouts, newest first, and the key to continue after (`after`
    /// is the last page's; check it with [`is_completed_key`]).
    pub async fn completed_page(
        &self,
        user: &str,
        limit: i32,
        after: Option<&str>,
    ) -> Result<(Vec<Workout>, Option<String>), StoreError> {
        let query = self
            .sk_range(user, WORKOUTS_LO, WORKOUTS_HI)
            .scan_index_forward(false)
            .limit(limit);
        let (items, next) = self.query_page(user, query, after).await?;
        let workouts = items.iter().map(from_item).collect::<Result<_, _>>()?;
        Ok((workouts, next))
    }

    pub async fn get_template(&self, user: &str, id: &str) -> Result<Option<Template>, StoreError> {
        self.get_doc(user, &format!("TEMPLATE#{id}")).await
    }

    pub async fn get_routine(&self, user: &str, id: &str) -> Result<Option<Routine>, StoreError> {
        self.get_doc(user, &format!("ROUTINE#{id}")).await
    }

    /// Every template of the user.
    pub async fn templates(&self, user: &str) -> Result<Vec<Template>, StoreError> {
        self.items_under(user, "TEMPLATE#")
            .await?
            .iter()
            .map(from_item)
            .collect()
    }

    /// Deletes a template or a routine (`kind` TEMPLATE or ROUTINE); false when there was none.
    pub async fn delete_plan(&self, user: &str, kind: &str, id: &str) -> Result<bool, StoreError> {
        let out = self
            .client
            .delete_item()
            .table_name(&self.table)
            .set_key(Some(super::key(user, format!("{kind}#{id}"))))
            .return_values(aws_sdk_dynamodb::types::ReturnValue::AllOld)
            .send()
            .timed()
            .await?;
        Ok(out.attributes.is_some_and(|a| !a.is_empty()))
    }

    /// Every routine of the user.
    pub async fn routines(&self, user: &str) -> Result<Vec<Routine>, StoreError> {
        self.items_under(user, "ROUTINE#")
            .await?
            .iter()
            .map(from_item)
            .collect()
    }

    async fn get_doc<T: serde::de::DeserializeOwned>(
        &self,
        user: &str,
        sk: &str,
    ) -> Result<Option<T>, StoreError> {
        self.get_item(user, sk)
            .await?
            .as_ref()
            .map(from_item)
            .transpose()
    }
}
