//! Conversations: one item per exchange (the lifter's message and what the coach answered),
//! `CONV#<conversation>#MSG#<seq>`, and the summary of older exchanges folded out of the
//! history budget, `CONV#<conversation>#SUMMARY`. An exchange is written with a condition on its
//! sequence number, and a retry with the same `corr` finds the first one and writes nothing.

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::timing::Timed;
use super::{Store, StoreError, from_item, key, s, to_doc, user_pk};

/// Conversation turns are kept this long (`expires_at` TTL).
pub const CONVERSATION_TTL_DAYS: i64 = 30;

/// One exchange of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corr: Option<String>,
    pub message: String,
    pub answer: String,
    /// "coach", "confirm" (a proposal applied from chat) or "clarification".
    pub kind: String,
    /// For a clarification: the request waiting for the lifter's explicit yes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_request: Option<String>,
    /// Ids of the proposals this exchange showed or applied.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<String>,
    /// The proposals this coach turn produced, with the content hash the lifter was shown: the
    /// only ones a chat "yes" in the next turn may apply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposed: Vec<Proposed>,
    pub at: DateTime<Utc>,
}

/// A proposal as a coach turn showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposed {
    pub id: String,
    pub content_hash: String,
}

/// Older exchanges, folded into short lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Summary {
    /// The last exchange folded in.
    pub upto_seq: u64,
    pub text: String,
}

fn msg_sk(conversation: &str, seq: u64) -> String {
    format!("CONV#{conversation}#MSG#{seq:010}")
}

fn summary_sk(conversation: &str) -> String {
    format!("CONV#{conversation}#SUMMARY")
}

impl Store {
    /// The newest `limit` exchanges (newest first) and the summary.
    pub async fn conversation(
        &self,
        user: &str,
        conversation: &str,
        limit: i32,
        now: DateTime<Utc>,
    ) -> Result<(Vec<Exchange>, Option<Summary>), StoreError> {
        let recent = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":p", s(format!("CONV#{conversation}#MSG#")))
            .scan_index_forward(false)
            .limit(limit)
            .consistent_read(true)
            .send()
            .timed();
        let summary_key = summary_sk(conversation);
        let (recent, summary) = tokio::join!(recent, self.get_item(user, &summary_key));
        let exchanges = recent?
            .items()
            .iter()
            .filter(|i| super::number(i, "expires_at").is_none_or(|e| e > now.timestamp()))
            .map(from_item)
            .collect::<Result<Vec<Exchange>, _>>()?;
        let summary = summary?.map(|i| from_item(&i)).transpose()?;
        Ok((exchanges, summary))
    }

    /// Stores an exchange at its sequence number. False when that number is taken (a concurrent
    /// turn): read again and retry with the next one.
    pub async fn append_exchange(
        &self,
        user: &str,
        conversation: &str,
        e: &Exchange,
    ) -> Result<bool, StoreError> {
        let mut item = key(user, msg_sk(conversation, e.seq));
        item.insert("doc".into(), s(to_doc("exchange", e)?));
        item.insert(
            "expires_at".into(),
            AttributeValue::N((e.at.timestamp() + CONVERSATION_TTL_DAYS * 86_400).to_string()),
        );
        let out = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(pk)")
            .send()
            .timed()
            .await;
        match out {
            Ok(_) => Ok(true),
            Err(SdkError::ServiceError(err))
                if err.err().is_conditional_check_failed_exception() =>
            {
                Ok(false)
            }
            Err(err) => Err(err.into()),
        }
    }

    pub async fn put_summary(
        &self,
        user: &str,
        conversation: &str,
        summary: &Summary,
    ) -> Result<(), StoreError> {
        self.put_doc(user, summary_sk(conversation), &to_doc("summary", summary)?)
            .await
    }
}
