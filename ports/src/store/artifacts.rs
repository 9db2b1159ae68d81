//! Proposals: `ARTIFACT#<id>` (ids sort by creation time). The content is the item's `doc`;
//! `status`, `content_hash` and `expires_at` are attributes so that applying can be one
//! transaction conditioned on them. A pending proposal carries the `expires_at` TTL; accepting
//! removes it (the record of what was applied stays), dismissing keeps it.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, Put, TransactWriteItem, Update};
use chrono::{DateTime, Utc};

use super::timing::Timed;
use super::{SK_ACTIVE, SK_PROFILE, Store, StoreError, from_item, key, s, string, to_doc, user_pk};
use crate::domain::artifact::{Artifact, ArtifactStatus, PROPOSAL_TTL_DAYS, Proposal};
use crate::domain::coaching::Memory;
use crate::domain::profile::Profile;

fn sk(id: &str) -> String {
    format!("ARTIFACT#{id}")
}

/// How applying a proposal ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ApplyOutcome {
    Applied,
    /// The proposal is no longer pending with this hash (read it again to say why).
    ArtifactChanged,
    /// A workout proposal, but a workout is already active.
    WorkoutActive,
}

fn artifact_from(item: &HashMap<String, AttributeValue>) -> Result<Artifact, StoreError> {
    let id = string(item, "sk")
        .and_then(|k| k.strip_prefix("ARTIFACT#").map(str::to_string))
        .unwrap_or_default();
    let proposal: Proposal = from_item(item)?;
    let corrupt = |what: &str| StoreError::Corrupt(sk(&id), format!("bad {what}"));
    let status = string(item, "status")
        .and_then(|v| ArtifactStatus::parse(&v))
        .ok_or_else(|| corrupt("status"))?;
    let created_at = string(item, "created_at")
        .and_then(|v| DateTime::parse_from_rfc3339(&v).ok())
        .map(|t| t.with_timezone(&Utc))
        .ok_or_else(|| corrupt("created_at"))?;
    Ok(Artifact {
        content_hash: string(item, "content_hash").ok_or_else(|| corrupt("content_hash"))?,
        id,
        proposal,
        status,
        conversation_id: string(item, "conversation_id"),
        created_at,
        expires_at: created_at + chrono::Duration::days(PROPOSAL_TTL_DAYS),
        applied: string(item, "applied").and_then(|a| serde_json::from_str(&a).ok()),
    })
}

impl Store {
    /// Stores a new proposal (never overwrites one).
    pub async fn put_artifact(&self, user: &str, a: &Artifact) -> Result<(), StoreError> {
        let mut item = key(user, sk(&a.id));
        item.insert("doc".into(), s(a.proposal.content_json()));
        item.insert("artifact_type".into(), s(a.proposal.artifact_type()));
        item.insert("status".into(), s(a.status.as_str()));
        item.insert("content_hash".into(), s(&a.content_hash));
        item.insert("created_at".into(), s(a.created_at.to_rfc3339()));
        item.insert(
            "expires_at".into(),
            AttributeValue::N(a.expires_at.timestamp().to_string()),
        );
        if let Some(c) = &a.conversation_id {
            item.insert("conversation_id".into(), s(c));
        }
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .timed()
            .await?;
        Ok(())
    }

    pub async fn get_artifact(&self, user: &str, id: &str) -> Result<Option<Artifact>, StoreError> {
        self.get_item(user, &sk(id))
            .await?
            .map(|i| artifact_from(&i))
            .transpose()
    }

    /// The newest proposals first, at most `limit`.
    pub async fn recent_artifacts(
        &self,
        user: &str,
        limit: i32,
    ) -> Result<Vec<Artifact>, StoreError> {
        let out = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":p", s("ARTIFACT#"))
            .scan_index_forward(false)
            .limit(limit)
            .consistent_read(true)
            .send()
            .timed()
            .await?;
        out.items().iter().map(artifact_from).collect()
    }

    /// Applies a pending proposal and marks it accepted, in one transaction: either everything
    /// it writes is stored and it is accepted, or nothing changes. `profile` is the lifter's
    /// profile to store with a new routine made active.
    pub async fn apply_artifact(
        &self,
        user: &str,
        a: &Artifact,
        profile: Option<&Profile>,
        applied: &serde_json::Value,
        now: DateTime<Utc>,
    ) -> Result<ApplyOutcome, StoreError> {
        let accept = Update::builder()
            .table_name(&self.table)
            .set_key(Some(key(user, sk(&a.id))))
            .update_expression(
                "SET #st = :acc, applied = :applied, applied_at = :now REMOVE expires_at",
            )
            .condition_expression("#st = :prop AND content_hash = :h AND expires_at > :epoch")
            .expression_attribute_names("#st", "status")
            .expression_attribute_values(":acc", s(ArtifactStatus::Accepted.as_str()))
            .expression_attribute_values(":prop", s(ArtifactStatus::Proposed.as_str()))
            .expression_attribute_values(":h", s(&a.content_hash))
            .expression_attribute_values(":applied", s(applied.to_string()))
            .expression_attribute_values(":now", s(now.to_rfc3339()))
            .expression_attribute_values(":epoch", AttributeValue::N(now.timestamp().to_string()))
            .build()?;
        let mut items = vec![TransactWriteItem::builder().update(accept).build()];
        items.extend(self.proposal_writes(user, &a.proposal, profile, now)?);
        Ok(match self.transact(items).await? {
            None => ApplyOutcome::Applied,
            Some(failed) if failed[0] => ApplyOutcome::ArtifactChanged,
            Some(_) if matches!(a.proposal, Proposal::Workout { .. }) => {
                ApplyOutcome::WorkoutActive
            }
            // A routine or template that was deleted since the proposal.
            Some(_) => ApplyOutcome::ArtifactChanged,
        })
    }

    /// What applying `proposal` writes: its templates, routine (and the profile that makes it
    /// active), the started workout, or the retired memory.
    fn proposal_writes(
        &self,
        user: &str,
        proposal: &Proposal,
        profile: Option<&Profile>,
        now: DateTime<Utc>,
    ) -> Result<Vec<TransactWriteItem>, StoreError> {
        let mut items = Vec::new();
        let put =
            |sk: String, doc: String, must_exist: bool| -> Result<TransactWriteItem, StoreError> {
                let mut item = key(user, sk);
                item.insert("doc".into(), s(doc));
                let mut p = Put::builder().table_name(&self.table).set_item(Some(item));
                if must_exist {
                    p = p.condition_expression("attribute_exists(pk)");
                }
                Ok(TransactWriteItem::builder().put(p.build()?).build())
            };
        match proposal {
            Proposal::Routine { routine, templates }
            | Proposal::RoutineUpdate { routine, templates } => {
                for t in templates {
                    items.push(put(
                        format!("TEMPLATE#{}", t.id),
                        to_doc("template", t)?,
                        false,
                    )?);
                }
                let update = matches!(proposal, Proposal::RoutineUpdate { .. });
                items.push(put(
                    format!("ROUTINE#{}", routine.id),
                    to_doc("routine", routine)?,
                    update,
                )?);
                if let Some(p) = profile {
                    items.push(put(SK_PROFILE.to_string(), to_doc("profile", p)?, false)?);
                }
            }
            Proposal::TemplateUpdate { template } => {
                items.push(put(
                    format!("TEMPLATE#{}", template.id),
                    to_doc("template", template)?,
                    true,
                )?);
            }
            Proposal::Workout { workout } => {
                // The stored plan, stamped with the time it starts.
                let mut workout = workout.clone();
                workout.started_at = now;
                let started = Update::builder()
                    .table_name(&self.table)
                    .set_key(Some(key(user, SK_ACTIVE)))
                    .update_expression("SET #d = :d, updated_at = :now ADD #v :one")
                    .condition_expression("attribute_not_exists(#d)")
                    .expression_attribute_names("#d", "doc")
                    .expression_attribute_names("#v", "version")
                    .expression_attribute_values(":d", s(to_doc("workout", &workout)?))
                    .expression_attribute_values(":now", s(now.to_rfc3339()))
                    .expression_attribute_values(":one", AttributeValue::N("1".into()))
                    .build()?;
                items.push(TransactWriteItem::builder().update(started).build());
            }
            Proposal::MemoryRetirement { memory } => {
                let retired = Memory {
                    retired_at: Some(memory.retired_at.unwrap_or(now)),
                    ..memory.clone()
                };
                items.push(put(
                    format!("MEMORY#{}", memory.id),
                    to_doc("memory", &retired)?,
                    true,
                )?);
            }
        }
        Ok(items)
    }

    /// Dismisses a pending proposal. False when it is not pending.
    pub async fn dismiss_artifact(
        &self,
        user: &str,
        id: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let out = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user, sk(id))))
            .update_expression("SET #st = :dis, dismissed_at = :now")
            .condition_expression("#st = :prop")
            .expression_attribute_names("#st", "status")
            .expression_attribute_values(":dis", s(ArtifactStatus::Dismissed.as_str()))
            .expression_attribute_values(":prop", s(ArtifactStatus::Proposed.as_str()))
            .expression_attribute_values(":now", s(now.to_rfc3339()))
            .send()
            .timed()
            .await;
        match out {
            Ok(_) => Ok(true),
            Err(aws_sdk_dynamodb::error::SdkError::ServiceError(e))
                if e.err().is_conditional_check_failed_exception() =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }
}
