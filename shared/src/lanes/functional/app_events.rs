//! `/v1/events` (app events through the notification gate) and `GET /v1/notifications`.

use super::*;
use crate::app::events::EventRequest;

impl FunctionalLane {
    pub(super) async fn event(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let message = api::extract_payload(req)?;
        let (ctx, text) = bind(req, self.auth, &message)?;
        let event = EventRequest::from_text(text, &ctx)?;
        let reply = self.app.app_event(&ctx, &event).await?;
        Ok(api::json_response(reply.status, &reply.body))
    }

    /// A newest-first page of the items under `prefix` (`NOTIFY#` for GET /v1/notifications,
    /// `INSIGHT#` for GET /v1/insights), with an opaque cursor for the next page.
    pub(super) async fn feed(&self, req: &Request, feed: Feed) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        let (limit, cursor) = page_params(req, |sk| feed.holds(sk))?;
        let page = self.app.feed(&ctx, feed, limit, cursor.as_deref()).await?;
        let body =
            json!({ "items": page.items, "next_cursor": page.next.map(|n| encode_cursor(&n)) });
        Ok(api::json_response(200, &body.to_string()))
    }
}
