//! One handler per lane; the binaries only build their clients and call these.

pub mod fast;
pub mod functional;
pub mod slow;
pub mod worker;

use std::future::Future;
use std::time::Duration;

use lambda_http::{Body, Request, Response};

use crate::api::{self, ApiError, ErrorCode};
use crate::context::{AuthError, AuthMode, SessionContext, authenticate, split_prefix};
use crate::telemetry::RequestLog;

/// Runtime loops that may end in a row, each within a second of the last, before the process
/// gives up (the runtime API is gone, not one invocation's response).
const MAX_QUICK_RESTARTS: u32 = 5;

/// Serves invocations for as long as the runtime API answers: `run` is the runtime's loop
/// (`lambda_http::run_with_streaming_response(…)`, `lambda_http::run(…)` or
/// `lambda_runtime::run(…)`: every binary), which ends with an error when posting one
/// invocation's response fails (a client that went away mid-stream can do it). One failed
/// response is not a reason to end the process: in Lambda that costs a cold start, and under
/// `cargo lambda watch` the next invocation waited for a function that had exited. A loop that
/// keeps ending at once, though, is the process's end.
pub async fn keep_serving<F, Fut, E>(mut run: F) -> Result<(), E>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(), E>>,
    E: std::fmt::Display,
{
    let mut quick = 0;
    loop {
        let started = std::time::Instant::now();
        let Err(e) = run().await else {
            return Ok(());
        };
        quick = if started.elapsed() < Duration::from_secs(1) {
            quick + 1
        } else {
            1
        };
        tracing::error!(error = %e, restarts = quick, "the runtime loop ended; serving on");
        if quick >= MAX_QUICK_RESTARTS {
            return Err(e);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

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
    let pseudonym = crate::telemetry::pseudonym(&user);
    crate::telemetry::record(|log| log.user = Some(pseudonym));
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
            log.outcome = e.code();
            e.to_response()
        }
    };
    log.status = resp.status().as_u16();
    log.latency_us = started.elapsed().as_micros() as u64;
    log.emit();
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn one_failed_response_does_not_end_the_process() {
        // Ends twice after serving a while, then for good: served three times.
        let mut runs = 0;
        let r: Result<(), String> = keep_serving(|| {
            runs += 1;
            let n = runs;
            async move {
                tokio::time::sleep(Duration::from_secs(5)).await;
                if n < 3 {
                    Err(format!("post failed {n}"))
                } else {
                    Ok(())
                }
            }
        })
        .await;
        assert_eq!((r, runs), (Ok(()), 3));
        // A loop that keeps ending at once is given up.
        let mut runs = 0;
        let r: Result<(), String> = keep_serving(|| {
            runs += 1;
            async { Err("runtime API gone".to_string()) }
        })
        .await;
        assert_eq!(
            (r, runs),
            (Err("runtime API gone".to_string()), MAX_QUICK_RESTARTS)
        );
    }
}
