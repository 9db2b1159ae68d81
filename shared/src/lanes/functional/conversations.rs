//! `GET /v1/conversations` and `GET /v1/conversations/{id}/messages` (`app::conversations`).

use super::*;
use crate::store::conversation::messages_prefix;

/// The cursor of a conversations page stands for the offset of its first item.
const OFFSET: &str = "CONVERSATIONS#";

impl FunctionalLane {
    pub(super) async fn conversations(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let (limit, cursor) = page_params(req, |c| offset_of(c, OFFSET).is_some())?;
        let all = self.app.conversations(&ctx).await?;
        let (page, next) = offset_page(&all, cursor.as_deref(), OFFSET, limit);
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
