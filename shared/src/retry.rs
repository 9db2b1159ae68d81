//! Waiting between attempts of a read-apply-conditional-write loop that lost a race (a command
//! and the monitor writing the same workout, a batch write with unprocessed items): one place
//! for the schedule every such loop uses.

use std::time::Duration;

/// Jittered exponential backoff before attempt `attempt + 1`: 2, 4, 8, 16, then 32 ms, plus up
/// to 5 ms of jitter.
pub fn backoff(attempt: u32) -> Duration {
    // Jitter from the clock's sub-millisecond noise; enough to split two racing retries.
    let jitter = u64::from(chrono::Utc::now().timestamp_subsec_nanos() % 5_000);
    Duration::from_micros((2_000u64 << attempt.min(4)) + jitter)
}

/// Sleeps [`backoff`]`(attempt)`.
pub async fn pause(attempt: u32) {
    tokio::time::sleep(backoff(attempt)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_bounded() {
        assert!(backoff(0) < backoff(3));
        assert!(backoff(10) <= Duration::from_micros(32_000 + 5_000));
    }
}
