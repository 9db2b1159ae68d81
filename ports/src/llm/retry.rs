//! Model errors as values, which of them are worth another attempt, and how long to wait.
//!
//! Retried: 408, 429 (not a daily quota or `insufficient_quota`), 500, 502, 503, 504 and
//! connection errors; never another 4xx. The wait is the server's hint when it gave one (Gemini
//! `RetryInfo.retryDelay` or "Please retry in Ns.", OpenAI-style `retry-after-ms` /
//! `retry-after`), else 0.5 s × 2^n with jitter, capped at 8 s; a wait that does not fit in the
//! remaining deadline fails fast with the provider's message.

use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::Value;

/// Attempts per model call (the first plus two retries).
pub const MAX_ATTEMPTS: u32 = 3;
const BACKOFF_BASE: Duration = Duration::from_millis(500);
const BACKOFF_CAP: Duration = Duration::from_secs(8);
/// A server hint longer than this is not waited for.
pub(crate) const MAX_HINT: Duration = Duration::from_secs(120);
/// Provider messages are kept for logs, bounded.
const MAX_MESSAGE_CHARS: usize = 300;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// 429 that may be retried.
    RateLimited,
    /// A quota that will not come back within this request (daily, billing).
    QuotaExhausted,
    /// 5xx, 408.
    Unavailable,
    /// Another 4xx: our request or our key is wrong.
    Rejected,
    /// No connection.
    Connect,
    Timeout,
    /// The stream ended before its end marker.
    Truncated,
    /// Bytes we cannot read as the provider's format, or an invalid tool call.
    Malformed,
    /// The model itself failed to write a tool call (Gemini's `MALFORMED_FUNCTION_CALL`, known
    /// with streaming, tools and dynamic thinking together): worth one more try without thinking.
    MalformedCall,
    /// The provider refused to answer (safety, recitation, prompt blocked).
    Blocked,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ModelError {
    pub kind: ErrorKind,
    /// For logs: the provider's words, bounded. Never shown to the lifter as is.
    pub message: String,
    pub status: Option<u16>,
    pub retry_after: Option<Duration>,
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.status {
            Some(s) => write!(f, "{:?} ({s}): {}", self.kind, self.message),
            None => write!(f, "{:?}: {}", self.kind, self.message),
        }
    }
}

impl std::error::Error for ModelError {}

impl ModelError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ModelError {
        let mut message: String = message.into();
        if message.chars().count() > MAX_MESSAGE_CHARS {
            message = message.chars().take(MAX_MESSAGE_CHARS).collect::<String>() + "…";
        }
        ModelError {
            kind,
            message,
            status: None,
            retry_after: None,
        }
    }

    pub(super) fn transport(e: &reqwest::Error) -> ModelError {
        if e.is_timeout() {
            ModelError::new(ErrorKind::Timeout, format!("model request timed out: {e}"))
        } else {
            ModelError::new(ErrorKind::Connect, format!("cannot reach the model: {e}"))
        }
    }

    /// The code the app sees (SSE `error` event, logs).
    pub fn code(&self) -> &'static str {
        match self.kind {
            ErrorKind::RateLimited | ErrorKind::QuotaExhausted => "MODEL_RATE_LIMITED",
            ErrorKind::Timeout => "MODEL_TIMEOUT",
            ErrorKind::Blocked => "MODEL_REFUSED",
            ErrorKind::Rejected => "MODEL_REJECTED",
            ErrorKind::Unavailable
            | ErrorKind::Connect
            | ErrorKind::Truncated
            | ErrorKind::Malformed
            | ErrorKind::MalformedCall => "MODEL_UNAVAILABLE",
        }
    }

    fn retryable(&self) -> bool {
        matches!(
            self.kind,
            ErrorKind::RateLimited | ErrorKind::Unavailable | ErrorKind::Connect
        )
    }
}

/// How long to wait before attempt `attempt + 1`, or `None` to give up now.
pub(crate) fn delay_before_retry(
    err: &ModelError,
    attempt: u32,
    remaining: Duration,
) -> Option<Duration> {
    if !err.retryable() || attempt >= MAX_ATTEMPTS {
        return None;
    }
    let delay = match err.retry_after {
        Some(hint) if hint > MAX_HINT => return None,
        Some(hint) => hint,
        None => jittered(attempt),
    };
    // Leave the retry itself some time to run.
    (delay + Duration::from_millis(100) < remaining).then_some(delay)
}

/// 0.5 s × 2^(attempt-1), capped, then a random point in its upper half.
fn jittered(attempt: u32) -> Duration {
    let full = BACKOFF_BASE
        .saturating_mul(1 << attempt.saturating_sub(1).min(8))
        .min(BACKOFF_CAP);
    let r = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let fraction = 0.5 + (r % 1000) as f64 / 2000.0;
    full.mul_f64(fraction)
}

/// An HTTP error answer (before any stream) as an error value, in either provider's format.
pub(crate) fn from_status(status: u16, headers: &HeaderMap, body: &str) -> ModelError {
    let v: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    // Gemini and OpenAI both nest under "error"; old vLLM puts the fields at the top level.
    let e = if v["error"].is_object() {
        &v["error"]
    } else {
        &v
    };
    // Only the provider's own message is kept for the log: the rest of a body (details, an
    // echo of the request) may carry the lifter's words. A body that is not JSON (a proxy's
    // page) is named by its size and its first words.
    let message = e["message"].as_str().map_or_else(
        || {
            format!(
                "a body of {} bytes that is not the provider's JSON, starting {:?}",
                body.len(),
                body.chars().take(60).collect::<String>()
            )
        },
        str::to_string,
    );
    let kind = match status {
        429 if daily_or_billing(e) => ErrorKind::QuotaExhausted,
        429 => ErrorKind::RateLimited,
        408 | 500 | 502 | 503 | 504 => ErrorKind::Unavailable,
        _ => ErrorKind::Rejected,
    };
    let mut err = ModelError::new(kind, format!("HTTP {status}: {message}"));
    err.status = Some(status);
    err.retry_after = header_hint(headers)
        .or_else(|| gemini_retry_delay(e))
        .or_else(|| retry_in_message(&message));
    if refuses_streamed_tools(&err) {
        err.kind = ErrorKind::Rejected;
    }
    if headers
        .get("x-should-retry")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("false"))
    {
        err.kind = ErrorKind::Rejected;
    }
    err
}

/// A server that says it cannot stream with tools: llama.cpp's server ("Cannot use tools with
/// stream", a 500) and llama-cpp-python ("Automatic streaming tool choice is not supported").
/// Deterministic: asked again it answers the same.
pub(crate) fn refuses_streamed_tools(e: &ModelError) -> bool {
    let m = e.message.to_ascii_lowercase();
    m.contains("cannot use tools with stream")
        || m.contains("streaming tool choice is not supported")
}

/// Gemini per-day quotas (`quotaId` containing `PerDay`) and OpenAI `insufficient_quota`.
fn daily_or_billing(e: &Value) -> bool {
    if e["type"] == "insufficient_quota" || e["code"] == "insufficient_quota" {
        return true;
    }
    e["details"].as_array().is_some_and(|details| {
        details.iter().any(|d| {
            d["violations"].as_array().is_some_and(|vs| {
                vs.iter()
                    .any(|v| v["quotaId"].as_str().is_some_and(|q| q.contains("PerDay")))
            })
        })
    })
}

/// OpenAI-style `retry-after-ms`, then `retry-after` in seconds (HTTP-dates are ignored).
fn header_hint(headers: &HeaderMap) -> Option<Duration> {
    let get = |k: &str| headers.get(k).and_then(|v| v.to_str().ok());
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok()) {
        return hint_seconds(ms / 1000.0);
    }
    get("retry-after")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(hint_seconds)
}

/// Gemini `details[@type=…RetryInfo].retryDelay`: a protobuf Duration such as "26s" or "34.4s".
fn gemini_retry_delay(e: &Value) -> Option<Duration> {
    e["details"].as_array()?.iter().find_map(|d| {
        let t = d["@type"].as_str()?;
        if !t.ends_with("RetryInfo") {
            return None;
        }
        seconds(d["retryDelay"].as_str()?.strip_suffix('s')?)
    })
}

/// "Please retry in 47.174066935s." in a Gemini message.
fn retry_in_message(message: &str) -> Option<Duration> {
    let rest = &message[message.find("retry in ")? + "retry in ".len()..];
    let end = rest.find('s')?;
    seconds(&rest[..end])
}

fn seconds(s: &str) -> Option<Duration> {
    s.trim().parse::<f64>().ok().and_then(hint_seconds)
}

/// A server's wait hint in seconds as a duration: negative or not a number is no hint; a hint
/// too long to wait for (`inf`, `1e300`) is clamped to just over [`MAX_HINT`], which gives up.
/// The provider's text never reaches a `Duration` constructor that can panic.
fn hint_seconds(v: f64) -> Option<Duration> {
    if v.is_nan() || v < 0.0 {
        return None;
    }
    let too_long = MAX_HINT + Duration::from_secs(1);
    Some(if v >= too_long.as_secs_f64() {
        too_long
    } else {
        Duration::try_from_secs_f64(v).unwrap_or(too_long)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().expect("header value"));
        }
        h
    }

    #[test]
    fn gemini_429_with_retry_info_waits_the_hint() {
        let body = r#"{"error": {"code": 429, "message": "You exceeded your current quota.", "status": "RESOURCE_EXHAUSTED", "details": [
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": "GenerateContentInputTokensPerModelPerMinute-FreeTier"}]},
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"}]}}"#;
        let e = from_status(429, &HeaderMap::new(), body);
        assert_eq!(e.kind, ErrorKind::RateLimited);
        assert_eq!(e.retry_after, Some(Duration::from_millis(34_400)));
        assert_eq!(
            delay_before_retry(&e, 1, Duration::from_secs(60)),
            Some(Duration::from_millis(34_400))
        );
        // The hint does not fit in what is left of the invocation: fail fast.
        assert_eq!(delay_before_retry(&e, 1, Duration::from_secs(10)), None);
    }

    #[test]
    fn daily_quota_and_insufficient_quota_are_not_retried() {
        let gemini = r#"{"error": {"code": 429, "message": "quota", "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}"#;
        let openai = r#"{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}"#;
        for body in [gemini, openai] {
            let e = from_status(429, &HeaderMap::new(), body);
            assert_eq!(e.kind, ErrorKind::QuotaExhausted);
            assert_eq!(delay_before_retry(&e, 1, Duration::from_secs(60)), None);
        }
    }

    #[test]
    fn openai_hints_come_from_headers_and_ms_wins() {
        let body = r#"{"error": {"message": "Rate limit reached", "type": "tokens", "code": "rate_limit_exceeded"}}"#;
        let e = from_status(
            429,
            &headers(&[("retry-after-ms", "174"), ("retry-after", "1")]),
            body,
        );
        assert_eq!(e.retry_after, Some(Duration::from_millis(174)));
        let e = from_status(429, &headers(&[("retry-after", "2")]), body);
        assert_eq!(e.retry_after, Some(Duration::from_secs(2)));
        let e = from_status(429, &headers(&[("x-should-retry", "false")]), body);
        assert_eq!(delay_before_retry(&e, 1, Duration::from_secs(60)), None);
    }

    #[test]
    fn retry_delay_in_the_message_is_the_fallback() {
        let body = r#"{"error": {"code": 429, "message": "Quota exceeded. Please retry in 47.174066935s.", "status": "RESOURCE_EXHAUSTED"}}"#;
        let e = from_status(429, &HeaderMap::new(), body);
        let hint = e.retry_after.expect("hint");
        assert!((hint.as_secs_f64() - 47.174_066_935).abs() < 1e-6);
    }

    #[test]
    fn server_errors_retry_with_growing_jittered_backoff_then_stop() {
        let e = from_status(
            503,
            &HeaderMap::new(),
            r#"{"error":{"code":503,"message":"The model is overloaded."}}"#,
        );
        assert_eq!(e.kind, ErrorKind::Unavailable);
        let first = delay_before_retry(&e, 1, Duration::from_secs(60)).expect("retry");
        let second = delay_before_retry(&e, 2, Duration::from_secs(60)).expect("retry");
        assert!((Duration::from_millis(250)..=Duration::from_millis(500)).contains(&first));
        assert!((Duration::from_millis(500)..=Duration::from_secs(1)).contains(&second));
        assert_eq!(
            delay_before_retry(&e, MAX_ATTEMPTS, Duration::from_secs(60)),
            None
        );
    }

    #[test]
    fn other_client_errors_are_never_retried() {
        for status in [400, 401, 403, 404] {
            let e = from_status(status, &HeaderMap::new(), "{}");
            assert_eq!(e.kind, ErrorKind::Rejected);
            assert_eq!(delay_before_retry(&e, 1, Duration::from_secs(60)), None);
        }
    }

    #[test]
    fn absurd_hints_are_clamped_or_ignored_never_a_panic() {
        let body = r#"{"error": {"message": "slow down"}}"#;
        for v in ["inf", "1e300", "-1", "NaN", "-inf", "1e-320"] {
            for name in ["retry-after", "retry-after-ms"] {
                let mut h = HeaderMap::new();
                h.insert(name, v.parse().expect("header value"));
                let e = from_status(429, &h, body);
                if let Some(hint) = e.retry_after {
                    assert!(hint <= MAX_HINT + Duration::from_secs(1), "{name}: {v}");
                }
            }
            let gemini = format!(
                r#"{{"error": {{"code": 429, "message": "Please retry in {v}s.", "details": [{{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "{v}s"}}]}}}}"#
            );
            let e = from_status(429, &HeaderMap::new(), &gemini);
            if let Some(hint) = e.retry_after {
                assert!(hint <= MAX_HINT + Duration::from_secs(1), "retryDelay {v}");
            }
        }
        // Too long to wait: give up now rather than sleep past the deadline.
        let mut h = HeaderMap::new();
        h.insert("retry-after", "1e300".parse().expect("header value"));
        let e = from_status(429, &h, body);
        assert_eq!(delay_before_retry(&e, 1, Duration::from_secs(900)), None);
    }

    #[test]
    fn only_the_providers_message_is_logged() {
        let body = r#"{"error": {"code": 400, "message": "Invalid argument.", "details": [{"request": "my knee hurts, 140 kg"}]}}"#;
        let e = from_status(400, &HeaderMap::new(), body);
        assert_eq!(e.message, "HTTP 400: Invalid argument.");
        let page = format!("<html>{}</html>", "my knee hurts ".repeat(50));
        let e = from_status(502, &HeaderMap::new(), &page);
        assert!(
            e.message.contains("not the provider's JSON"),
            "{}",
            e.message
        );
        assert!(e.message.len() < 160, "{}", e.message);
    }

    #[test]
    fn long_provider_messages_are_bounded() {
        let e = ModelError::new(ErrorKind::Rejected, "x".repeat(5000));
        assert!(e.message.chars().count() <= MAX_MESSAGE_CHARS + 1);
    }
}
