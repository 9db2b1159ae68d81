//! The coach's conversations as a second device reads them: the list, the most recently active
//! first (`GET /v1/conversations`), and one conversation's messages, newest first
//! (`GET /v1/conversations/{id}/messages`).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::App;
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::store::conversation::{Exchange, Listed};

/// One exchange as the chat shows it: what the lifter wrote and what the coach answered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    pub seq: u64,
    pub message: String,
    pub answer: String,
    /// "coach", "confirm" (a proposal applied from chat) or "clarification" (the coach waits
    /// for an explicit yes).
    pub kind: String,
    /// Ids of the proposals it showed or applied (`POST /v1/artifacts/{id}/confirm`).
    pub artifacts: Vec<String>,
    pub at: DateTime<Utc>,
}

impl From<Exchange> for Message {
    fn from(e: Exchange) -> Self {
        Self {
            seq: e.seq,
            message: e.message,
            answer: e.answer,
            kind: e.kind,
            artifacts: e.artifacts,
            at: e.at,
        }
    }
}

/// A page of messages; `next` continues it (the store's key, encoded by the adapter).
#[derive(Debug, Clone, PartialEq)]
pub struct MessagePage {
    pub items: Vec<Message>,
    pub next: Option<String>,
}

impl App {
    /// The lifter's conversations, the most recently active first.
    pub async fn conversations(&self, ctx: &SessionContext) -> Result<Vec<Listed>, AppError> {
        let listed = self.store.conversations(&ctx.user_id, Utc::now()).await;
        listed.map_err(AppError::from)
    }

    /// The messages of `conversation`, newest first, `limit` at a time after the key `after`.
    /// A conversation with no message (unknown, expired or another lifter's) is not found.
    pub async fn messages(
        &self,
        ctx: &SessionContext,
        conversation: &str,
        limit: i32,
        after: Option<&str>,
    ) -> Result<MessagePage, AppError> {
        let page = self
            .store
            .exchanges_page(&ctx.user_id, conversation, limit, after, Utc::now())
            .await;
        let (exchanges, next) = page?;
        // The default conversation always exists (the chat screen's first open reads it
        // before the first message): empty, not unknown.
        let always = conversation == crate::agent::briefing::DEFAULT_CONVERSATION;
        if exchanges.is_empty() && after.is_none() && !always {
            return Err(AppError::new(
                ErrorCode::ConversationNotFound,
                format!(
                    "no conversation {conversation} (conversations are kept 30 days after their last message)"
                ),
            )
            .field("id"));
        }
        Ok(MessagePage {
            items: exchanges.into_iter().map(Message::from).collect(),
            next,
        })
    }
}
