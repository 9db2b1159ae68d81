//! Each lifter's daily allowance of coach model tokens (`COACH_DAILY_TOKENS`), counted from the
//! providers' usage per UTC day. Over it, the coach answers `error` `QUOTA_EXCEEDED` with the
//! time it resets, and no model is called; commands and buttons never count and keep working.
//! A run that crosses the line mid-answer stops before its next model call.

use super::StreamEvent;
use chrono::{DateTime, Duration, Utc};

/// Tokens a lifter's coach answers may spend in a UTC day unless `COACH_DAILY_TOKENS` says
/// otherwise: about 20 long answers with tools (one is 5,000–15,000 tokens).
pub const DEFAULT_DAILY_TOKENS: u64 = 200_000;

/// The daily allowance; `None` is no cap (`COACH_DAILY_TOKENS=0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget(pub Option<u64>);

impl Budget {
    /// Tokens left today after `used`; `None` without a cap.
    pub fn left(self, used: u64) -> Option<u64> {
        self.0.map(|cap| cap.saturating_sub(used))
    }
}

/// When today's count starts again: the next midnight UTC.
pub fn resets_at(now: DateTime<Utc>) -> DateTime<Utc> {
    (now.date_naive() + Duration::days(1))
        .and_hms_opt(0, 0, 0)
        .map_or(now + Duration::days(1), |t| t.and_utc())
}

/// The stream's `error` event when the allowance is spent.
pub fn exceeded(now: DateTime<Utc>) -> StreamEvent {
    let at = resets_at(now);
    let mins = (at - now).num_minutes().max(1);
    StreamEvent::Error {
        code: "QUOTA_EXCEEDED".into(),
        message: format!(
            "You've used today's coaching allowance. It resets at 00:00 UTC, in {}h {:02}m. Workout commands and buttons keep working.",
            mins / 60,
            mins % 60
        ),
        resets_at: Some(at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowance_resets_at_the_next_utc_midnight() {
        let now: DateTime<Utc> = "2026-11-22T21:30:00Z".parse().unwrap();
        assert_eq!(resets_at(now).to_rfc3339(), "2026-11-23T00:00:00+00:00");
        let e: serde_json::Value = serde_json::from_str(&exceeded(now).to_json()).unwrap();
        assert_eq!(e["type"], "error");
        assert_eq!(e["code"], "QUOTA_EXCEEDED");
        assert_eq!(e["resets_at"], "2026-11-23T00:00:00Z");
        assert!(e["message"].as_str().unwrap().contains("in 2h 30m"), "{e}");
    }

    #[test]
    fn what_is_left() {
        assert_eq!(Budget(Some(1_000)).left(400), Some(600));
        assert_eq!(Budget(Some(1_000)).left(4_000), Some(0));
        assert_eq!(Budget(None).left(4_000), None);
    }
}
