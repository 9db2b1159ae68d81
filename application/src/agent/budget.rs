//! What the coach says when a day's tokens are spent (`app::meter` counts them): an `error`
//! `QUOTA_EXCEEDED` with the time it resets; no model is called, and commands and buttons keep
//! working. A run that crosses the line mid-answer stops before its next model call.

use super::StreamEvent;
use chrono::{DateTime, Duration, Utc};

/// When today's count starts again: the next midnight UTC.
pub fn resets_at(now: DateTime<Utc>) -> DateTime<Utc> {
    (now.date_naive() + Duration::days(1))
        .and_hms_opt(0, 0, 0)
        .map_or(now + Duration::days(1), |t| t.and_utc())
}

/// The stream's `error` event when the lifter's allowance is spent (`everyone`: the stage's
/// ceiling for all lifters is reached).
pub fn exceeded(now: DateTime<Utc>, everyone: bool) -> StreamEvent {
    let at = resets_at(now);
    let mins = (at - now).num_minutes().max(1);
    let whose = if everyone {
        "The coach has reached today's limit for everyone"
    } else {
        "You've used today's coaching allowance"
    };
    StreamEvent::Error {
        code: "QUOTA_EXCEEDED".into(),
        message: format!(
            "{whose}. It resets at 00:00 UTC, in {}h {:02}m. Workout commands and buttons keep working.",
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
        let e: serde_json::Value = serde_json::from_str(&exceeded(now, false).to_json()).unwrap();
        assert_eq!(e["type"], "error");
        assert_eq!(e["code"], "QUOTA_EXCEEDED");
        assert_eq!(e["resets_at"], "2026-11-23T00:00:00Z");
        assert!(e["message"].as_str().unwrap().contains("in 2h 30m"), "{e}");
    }
}
