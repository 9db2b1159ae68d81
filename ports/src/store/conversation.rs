//! Conversations: one item per exchange (the lifter's message and what the coach answered),
//! `CONV#<conversation>#MSG#<seq>`, and the summary of older exchanges folded out of the
//! history budget, `CONV#<conversation>#SUMMARY`. An exchange is written with a condition on its
//! sequence number, and a retry with the same `corr` finds the first one and writes nothing.
//! `CONVERSATION#<conversation>` lists the conversation (its title, first and last exchange) so a
//! second device can show the lifter's chats without reading every message.

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::AttributeValue;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::timing::Timed;
use super::{Store, StoreError, from_item, key, s, to_doc, user_pk};

/// Conversation turns are kept this long (`expires_at` TTL).
pub(crate) const CONVERSATION_TTL_DAYS: i64 = 30;

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

const LISTED_PREFIX: &str = "CONVERSATION#";

/// The prefix of a conversation's exchanges' keys (a page cursor must start with it).
pub fn messages_prefix(conversation: &str) -> String {
    format!("CONV#{conversation}#MSG#")
}

/// Characters of the first message a conversation's title keeps.
const TITLE_CHARS: usize = 80;

/// A conversation as the list shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Listed {
    pub id: String,
    /// The start of its first message.
    pub title: String,
    pub started_at: DateTime<Utc>,
    pub last_at: DateTime<Utc>,
    /// Exchanges so far (sequence numbers start at 1).
    pub exchanges: u64,
}

fn title_of(message: &str) -> String {
    let line = message.lines().next().unwrap_or("").trim();
    match line.char_indices().nth(TITLE_CHARS) {
        Some((cut, _)) => format!("{}…", line[..cut].trim_end()),
        None => line.to_string(),
    }
}

/// A conversation as the coach reads it.
#[derive(Debug, Clone, Default)]
pub struct Conversation {
    /// The newest exchanges still kept, newest first.
    pub exchanges: Vec<Exchange>,
    /// The older exchanges folded into a summary, while it is kept.
    pub summary: Option<Summary>,
    /// The sequence number the next exchange takes: after the newest stored, expired or not.
    /// Expired exchanges stay in the table until DynamoDB's TTL sweep removes them (up to days
    /// later); numbering from the kept ones would start again at 1 on a number still taken.
    pub next_seq: u64,
}

impl Store {
    /// The newest `limit` exchanges (newest first), the summary, and the next sequence number.
    pub async fn conversation(
        &self,
        user: &str,
        conversation: &str,
        limit: i32,
        now: DateTime<Utc>,
    ) -> Result<Conversation, StoreError> {
        let recent = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":p", s(messages_prefix(conversation)))
            .scan_index_forward(false)
            .limit(limit)
            .consistent_read(true)
            .send()
            .timed();
        let summary_key = summary_sk(conversation);
        let (recent, summary) = tokio::join!(recent, self.get_item(user, &summary_key));
        let recent = recent?;
        let kept = |i: &&std::collections::HashMap<String, AttributeValue>| {
            super::number(i, "expires_at").is_none_or(|e| e > now.timestamp())
        };
        let newest = recent
            .items()
            .first()
            .map(from_item::<Exchange>)
            .transpose()?;
        let exchanges = recent
            .items()
            .iter()
            .filter(kept)
            .map(from_item)
            .collect::<Result<Vec<Exchange>, _>>()?;
        let summary = summary?
            .filter(|i| kept(&i))
            .map(|i| from_item(&i))
            .transpose()?;
        Ok(Conversation {
            exchanges,
            summary,
            next_seq: newest.map_or(1, |e| e.seq + 1),
        })
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
            Ok(_) => {}
            Err(SdkError::ServiceError(err))
                if err.err().is_conditional_check_failed_exception() =>
            {
                return Ok(false);
            }
            Err(err) => return Err(err.into()),
        }
        self.list_conversation(user, conversation, e).await?;
        Ok(true)
    }

    /// Moves the conversation's listing to the exchange `e` (never back: a late retry of an
    /// older exchange leaves it as it is).
    async fn list_conversation(
        &self,
        user: &str,
        conversation: &str,
        e: &Exchange,
    ) -> Result<(), StoreError> {
        let at = e.at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        let expires = e.at.timestamp() + CONVERSATION_TTL_DAYS * 86_400;
        let update = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key(user, format!("{LISTED_PREFIX}{conversation}"))))
            .update_expression(
                "SET title = if_not_exists(title, :t), started_at = if_not_exists(started_at, :at), \
                 last_at = :at, last_seq = :seq, expires_at = :exp",
            )
            .condition_expression("attribute_not_exists(last_seq) OR last_seq < :seq")
            .expression_attribute_values(":t", s(title_of(&e.message)))
            .expression_attribute_values(":at", s(at))
            .expression_attribute_values(":seq", AttributeValue::N(e.seq.to_string()))
            .expression_attribute_values(":exp", AttributeValue::N(expires.to_string()));
        Self::update_if(update).await.map(|_| ())
    }

    /// The lifter's conversations, the most recently active first (each lives 30 days after its
    /// last exchange, so the list stays short).
    pub async fn conversations(
        &self,
        user: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<Listed>, StoreError> {
        let items = self.items_under(user, LISTED_PREFIX).await?;
        let mut listed: Vec<Listed> = items
            .iter()
            .filter(|i| super::number(i, "expires_at").is_none_or(|e| e > now.timestamp()))
            .filter_map(|i| {
                let sk = super::string(i, "sk")?;
                let time = |name| {
                    super::string(i, name)
                        .and_then(|t| DateTime::parse_from_rfc3339(&t).ok())
                        .map(|t| t.with_timezone(&Utc))
                };
                Some(Listed {
                    id: sk.strip_prefix(LISTED_PREFIX)?.to_string(),
                    title: super::string(i, "title").unwrap_or_default(),
                    started_at: time("started_at")?,
                    last_at: time("last_at")?,
                    exchanges: super::number(i, "last_seq")?.max(0) as u64,
                })
            })
            .collect();
        listed.sort_by(|a, b| b.last_at.cmp(&a.last_at).then_with(|| a.id.cmp(&b.id)));
        Ok(listed)
    }

    /// One page of a conversation's exchanges, newest first, continuing after the key `after`.
    pub async fn exchanges_page(
        &self,
        user: &str,
        conversation: &str,
        limit: i32,
        after: Option<&str>,
        now: DateTime<Utc>,
    ) -> Result<(Vec<Exchange>, Option<String>), StoreError> {
        let q = self
            .client
            .query()
            .table_name(&self.table)
            .key_condition_expression("pk = :pk AND begins_with(sk, :p)")
            .expression_attribute_values(":pk", s(user_pk(user)))
            .expression_attribute_values(":p", s(messages_prefix(conversation)))
            .scan_index_forward(false)
            .limit(limit);
        let (items, next) = self.query_page(user, q, after).await?;
        let exchanges = items
            .iter()
            .filter(|i| super::number(i, "expires_at").is_none_or(|e| e > now.timestamp()))
            .map(from_item)
            .collect::<Result<Vec<Exchange>, _>>()?;
        Ok((exchanges, next))
    }

    /// Stores the summary of the folded exchanges, kept as long as an exchange written `now`
    /// (the chat text it holds is kept no longer than the exchanges were).
    pub async fn put_summary(
        &self,
        user: &str,
        conversation: &str,
        summary: &Summary,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let expires = now.timestamp() + CONVERSATION_TTL_DAYS * 86_400;
        let doc = to_doc("summary", summary)?;
        self.put_doc_until(user, summary_sk(conversation), &doc, Some(expires))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_is_the_first_line_cut_at_a_character() {
        assert_eq!(title_of("  How's my squat?\nmore"), "How's my squat?");
        let long = "é".repeat(100);
        let t = title_of(&long);
        assert_eq!(t.chars().count(), TITLE_CHARS + 1);
        assert!(t.ends_with('…'));
    }
}
