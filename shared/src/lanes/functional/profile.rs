//! `GET /v1/me` and `PATCH /v1/me`: the profile and preferences (`app::profile`).

use super::*;
use crate::app::profile::ProfilePatch;

impl FunctionalLane {
    pub(super) async fn me(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        Ok(json_body(200, &self.app.me(&ctx).await?))
    }

    pub(super) async fn update_me(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, body) = object_body(req, self.auth, false)?;
        let patch = ProfilePatch::from_body(&body)?;
        Ok(json_body(200, &self.app.update_me(&ctx, &patch).await?))
    }
}

impl FunctionalLane {
    /// `GET /v1/me/export?format=json|strong_csv`; the JSON a page at a time (`cursor`).
    pub(super) async fn export(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        match req.query_string_parameters().first("format") {
            None | Some("json") => {
                // Any sort key is a place in the caller's own partition.
                let (_, after) = page_params(req, |_| true)?;
                let export = self.app.export(&ctx, after.as_deref()).await?;
                let mut body = json!(export);
                body["next_cursor"] = json!(export.next.as_deref().map(encode_cursor));
                Ok(json_body(200, &body))
            }
            Some("strong_csv") => {
                // Any workout key is a place in the caller's own history.
                let (_, after) = page_params(req, |sk| sk.starts_with("WORKOUT#"))?;
                let (csv, next) = self.app.export_strong_csv(&ctx, after.as_deref()).await?;
                let mut resp = Response::new(Body::Text(csv));
                let headers = resp.headers_mut();
                headers.insert(
                    "content-type",
                    lambda_http::http::HeaderValue::from_static("text/csv; charset=utf-8"),
                );
                headers.insert(
                    "content-disposition",
                    lambda_http::http::HeaderValue::from_static(
                        "attachment; filename=\"workouts.csv\"",
                    ),
                );
                // The next page, a CSV of its own: `?format=strong_csv&cursor=<this>`.
                if let Some(next) = next
                    && let Ok(v) = lambda_http::http::HeaderValue::from_str(&encode_cursor(&next))
                {
                    headers.insert("x-next-cursor", v);
                }
                Ok(resp)
            }
            Some(_) => Err(invalid("format is json or strong_csv", "format").into()),
        }
    }

    /// `DELETE /v1/me`: 200 when nothing is left, 202 when the worker finishes it.
    pub(super) async fn delete_me(&self, req: &Request) -> Result<Response<Body>, ApiError> {
        let (ctx, _) = bind(req, self.auth, "")?;
        recent_sign_in(
            self.auth,
            api::claims_auth_time(req),
            Utc::now().timestamp(),
        )?;
        let deleted = self.app.delete_account(&ctx).await?;
        let status = if deleted.status == "deleted" {
            200
        } else {
            202
        };
        Ok(json_body(status, &deleted))
    }
}

/// How recent a sign-in deleting the account needs: a stolen token (valid for an hour) must not
/// be enough to wipe a lifter's years of training.
pub(crate) const RECENT_SIGN_IN_SECS: i64 = 5 * 60;

/// Deployed (JWT), the token's sign-in must be at most [`RECENT_SIGN_IN_SECS`] old; the local
/// stack's dev identity has no sign-in time to check.
fn recent_sign_in(auth: AuthMode, auth_time: Option<i64>, now: i64) -> Result<(), ApiError> {
    if auth == AuthMode::Dev {
        return Ok(());
    }
    match auth_time {
        Some(t)
            if now
                .checked_sub(t)
                .is_some_and(|age| age <= RECENT_SIGN_IN_SECS) =>
        {
            Ok(())
        }
        _ => Err(ApiError::new(
            ErrorCode::RecentSignInRequired,
            format!(
                "deleting the account needs a sign-in of the last {} minutes: sign in again, then delete",
                RECENT_SIGN_IN_SECS / 60
            ),
        )),
    }
}
