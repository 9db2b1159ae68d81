//! Read-apply-conditional-write with retry: when a write loses a race (a command and the
//! monitor writing the same workout, a batch write with unprocessed items) the state is read
//! again and the change re-applied after a short jittered pause. One place for how many
//! attempts and how long between them.
//!
//! ```ignore
//! let mut attempts = Attempts::new(MAX_ATTEMPTS);
//! while attempts.next().await {
//!     let state = read().await?;
//!     let changed = apply(&state)?;
//!     if write_if_unchanged(&changed, state.version).await? {
//!         return Ok(changed);
//!     } // else another writer came first: read again and re-apply
//! }
//! Err(conflict())
//! ```
//!
//! (A loop rather than a generic helper: each use case reads, applies and writes its own way.
//! The one write many callers share, an edit of the active workout, has its helper in
//! `app::active`, which takes a closure returning a future: an `async` closure's future is not
//! yet provably `Send`, and the Lambda runtime and the stream spawn these futures.)

use std::time::Duration;

/// The attempts of a read-apply-conditional-write loop: the first at once, each next one after
/// [`pause`], at most `max`.
#[derive(Debug)]
pub struct Attempts {
    max: u32,
    made: u32,
}

impl Attempts {
    pub fn new(max: u32) -> Attempts {
        Attempts { max, made: 0 }
    }

    /// Whether to make another attempt (after a pause if one was made); false once `max`
    /// attempts were made, when the caller answers with its conflict error.
    pub async fn next(&mut self) -> bool {
        if self.made >= self.max {
            return false;
        }
        if self.made > 0 {
            pause(self.made - 1).await;
        }
        self.made += 1;
        true
    }
}

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

    #[tokio::test]
    async fn attempts_stop_after_max() {
        let mut attempts = Attempts::new(3);
        let mut made = 0;
        while attempts.next().await {
            made += 1;
        }
        assert_eq!(made, 3);
        assert!(!attempts.next().await);
        assert!(!Attempts::new(0).next().await);
    }

    #[test]
    fn backoff_grows_and_is_bounded() {
        assert!(backoff(0) < backoff(3));
        assert!(backoff(10) <= Duration::from_micros(32_000 + 5_000));
    }
}
