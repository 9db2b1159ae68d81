//! One handler per lane; the binaries only build their clients and call these.

pub(crate) use crate::app::store_error;

pub mod fast;
pub mod functional;
pub mod slow;
pub mod worker;

use lambda_http::{Body, Request, Response};

use crate::api::{self, ApiError, ErrorCode};
use crate::context::{AuthError, AuthMode, SessionContext, authenticate, split_prefix};
use crate::telemetry::RequestLog;

/// Binds a request to its context: splits the message's prefix, authenticates (the prefix
/// `user_id` must match the authenticated user) and returns the context and the message text.
pub(crate) fn bind<'m>(
    req: &Request,
    auth: AuthMode,
    message: &'m str,
) -> Result<(SessionContext, &'m str), ApiError> {
    let (prefix, text) =
        split_prefix(message).map_err(|e| ApiError::new(ErrorCode::InvalidContext, e.0))?;
    let corr = prefix.corr.map(str::to_string);
    crate::telemetry::record(|log| log.corr = corr);
    let user = authenticate(
        auth,
        api::claims_sub(req).as_deref(),
        api::header_str(req, "x-user-id"),
        prefix.user_id,
    )
    .map_err(|e| match e {
        AuthError::UserMismatch => ApiError::new(ErrorCode::UserMismatch, e.to_string()),
        _ => ApiError::new(ErrorCode::Unauthenticated, e.to_string()),
    })?;
    Ok((
        SessionContext::bind(user, &prefix, chrono::Utc::now()),
        text,
    ))
}

/// Turns a lane's result into the response and emits the request's log line.
pub(crate) fn finish(
    mut log: RequestLog,
    started: std::time::Instant,
    result: Result<Response<Body>, ApiError>,
) -> Response<Body> {
    let resp = match result {
        Ok(resp) => resp,
        Err(e) => {
            log.outcome = e.code;
            e.to_response()
        }
    };
    log.status = resp.status().as_u16();
    log.latency_us = started.elapsed().as_micros() as u64;
    log.emit();
    resp
}
