//! The request context: the message prefix (`(context: …)`, see `prefix`) bound to the authenticated identity.
//! A `SessionContext` is rebuilt from scratch for every request and passed down as a value.

mod auth;
mod prefix;

pub use auth::{AuthError, AuthMode, authenticate};
pub use prefix::{ContextError, MAX_ID_CHARS, Prefix, is_valid_id, split_prefix};

use chrono::NaiveDate;
use chrono_tz::Tz;

/// Everything a lane knows about the request besides the message itself.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// The authenticated user; never taken from a tool argument or the model.
    pub user_id: String,
    pub conversation_id: Option<String>,
    /// The request's correlation id; also its idempotency key.
    pub corr: Option<String>,
    pub workout_id: Option<String>,
    pub workout_mode: bool,
    pub today: NaiveDate,
    pub tz: Tz,
    /// The client's time for the command (`at=`), for commands sent from an offline queue.
    pub client_time: Option<chrono::DateTime<chrono::Utc>>,
}

impl SessionContext {
    /// Binds a parsed prefix to the authenticated user. `today` defaults to the date in `tz`
    /// (UTC when absent) at `now`.
    pub fn bind(user_id: String, prefix: &Prefix<'_>, now: chrono::DateTime<chrono::Utc>) -> Self {
        let tz = prefix.tz.unwrap_or(Tz::UTC);
        let today = prefix
            .today
            .unwrap_or_else(|| now.with_timezone(&tz).date_naive());
        Self {
            user_id,
            conversation_id: prefix.conversation_id.map(str::to_string),
            corr: prefix.corr.map(str::to_string),
            workout_id: prefix.workout_id.map(str::to_string),
            workout_mode: prefix.workout_id.is_some(),
            today,
            tz,
            client_time: prefix.at.map(|t| t.with_timezone(&chrono::Utc)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn today_comes_from_the_timezone() {
        // 23:30 UTC on 1 March is already 2 March in Tokyo and still 1 March in New York.
        let now = chrono::Utc.with_ymd_and_hms(2026, 3, 1, 23, 30, 0).unwrap();
        let (p, _) = split_prefix("(context: tz=Asia/Tokyo) hi").unwrap();
        let ctx = SessionContext::bind("u".into(), &p, now);
        assert_eq!(ctx.today, NaiveDate::from_ymd_opt(2026, 3, 2).unwrap());
        let (p, _) = split_prefix("(context: tz=America/New_York) hi").unwrap();
        assert_eq!(
            SessionContext::bind("u".into(), &p, now).today,
            NaiveDate::from_ymd_opt(2026, 3, 1).unwrap()
        );
        let (p, _) = split_prefix("hi").unwrap();
        let ctx = SessionContext::bind("u".into(), &p, now);
        assert_eq!(
            (ctx.today, ctx.tz),
            (NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(), Tz::UTC)
        );
    }

    #[test]
    fn explicit_today_wins_and_workout_id_turns_on_workout_mode() {
        let now = chrono::Utc::now();
        let (p, _) =
            split_prefix("(context: today=2026-01-05 workout_id=w9 tz=Europe/Stockholm) done")
                .unwrap();
        let ctx = SessionContext::bind("u".into(), &p, now);
        assert_eq!(ctx.today, NaiveDate::from_ymd_opt(2026, 1, 5).unwrap());
        assert!(ctx.workout_mode);
        assert_eq!(ctx.workout_id.as_deref(), Some("w9"));
        let (p, _) = split_prefix("(context: workout_id=none) done").unwrap();
        assert!(!SessionContext::bind("u".into(), &p, now).workout_mode);
    }
}
