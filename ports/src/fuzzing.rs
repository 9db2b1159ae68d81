//! The ports' fuzz properties (feature `fuzzing`): run by the fuzz targets and replayed over
//! the committed corpus by `coach::fuzzing`'s test.

use crate::llm::retry;

/// A model server's error answer (status, one wait header, body): never panics, whatever the
/// hint says (`inf`, `1e300`, negative); a hint is at most just over the longest wait we take,
/// and the wait chosen always fits in the time left.
pub fn model_error(data: &[u8]) {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(rest) = std::str::from_utf8(rest) else {
        return;
    };
    let status = [400, 408, 429, 500, 503][usize::from(selector % 5)];
    let name = ["retry-after", "retry-after-ms"][usize::from(selector / 5 % 2)];
    let (value, body) = rest.split_once('\n').unwrap_or((rest, ""));
    let mut headers = reqwest::header::HeaderMap::new();
    if let Ok(v) = reqwest::header::HeaderValue::from_str(value) {
        headers.insert(name, v);
    }
    let err = retry::from_status(status, &headers, body);
    if let Some(hint) = err.retry_after {
        assert!(hint <= retry::MAX_HINT + std::time::Duration::from_secs(1));
    }
    for remaining in [0, 1_000, 60_000, 900_000] {
        let remaining = std::time::Duration::from_millis(remaining);
        for attempt in 0..=retry::MAX_ATTEMPTS {
            if let Some(wait) = retry::delay_before_retry(&err, attempt, remaining) {
                assert!(wait < remaining, "a wait past the deadline");
            }
        }
    }
}
