//! `GET /v1/conversations` and `GET /v1/conversations/{id}/messages` (`app::conversations`).

use super::*;
use crate::store::conversation::messages_prefix;

/// The cursor of a conversations page stands for the offset of its first item.
const OFFSET: &str = "CONVERSATIONS#";

impl FunctionalLane {
    pub(super) async fn conversations(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let (limit, cursor) = page_params(req, |c| offset_of(c).is_some())?;
        let from = cursor.as_deref().and_then(offset_of).unwrap_or(0);
        let all = self.app.conversations(&ctx).await?;
        let end = (from + limit as usize).min(all.len());
        let page = all.get(from..end).unwrap_or_default();
        let next = (end < all.len()).then(|| encode_cursor(&format!("{OFFSET}{end}")));
        let body = json!({ "items": page, "next_cursor": next });
        Ok(api::json_response(200, &body.to_string()))
    }

    pub(super) async fn messages(
        &self,
        req: &Request,
        conversation: &str,
    ) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let prefix = messages_prefix(conversation);
        let (limit, cursor) = page_params(req, |c| c.starts_with(&prefix))?;
        let page = self
            .app
            .messages(&ctx, conversation, limit, cursor.as_deref())
            .await?;
        let body = json!({
            "items": page.items,
            "next_cursor": page.next.map(|n| encode_cursor(&n)),
        });
        Ok(api::json_response(200, &body.to_string()))
    }
}

fn offset_of(cursor: &str) -> Option<usize> {
    cursor.strip_prefix(OFFSET)?.parse().ok()
}
