//! The notification gate: decides, without any model, whether the coach may reach out now.
//! Used by app events (proactive check-in prompts), the worker (health-metric notifications)
//! and the coach's send_notification tool.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::Serialize;

pub use crate::domain::notification::{Notification, Priority, RATE_LIMIT};
use crate::domain::profile::{NotificationPreference, Profile};

/// Why a notification was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Suppressed {
    /// The lifter turned notifications off.
    PreferenceOff,
    /// "minimal" lets only high-priority notifications through.
    BelowPreference,
    /// Inside the lifter's quiet hours, in their timezone.
    QuietHours,
    /// Another notification went out less than four hours ago.
    RateLimited,
}

impl Suppressed {
    pub fn as_str(self) -> &'static str {
        match self {
            Suppressed::PreferenceOff => "preference_off",
            Suppressed::BelowPreference => "below_preference",
            Suppressed::QuietHours => "quiet_hours",
            Suppressed::RateLimited => "rate_limited",
        }
    }
}

/// The lifter's timezone, UTC when the profile's is not a known zone.
pub fn timezone(profile: &Profile) -> Tz {
    profile.timezone.parse().unwrap_or(Tz::UTC)
}

/// Checks preference, quiet hours and the rate limit, in that order.
pub fn gate(
    profile: &Profile,
    priority: Priority,
    last_sent: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Result<(), Suppressed> {
    match profile.notification_preference {
        NotificationPreference::Off => return Err(Suppressed::PreferenceOff),
        NotificationPreference::Minimal if priority < Priority::High => {
            return Err(Suppressed::BelowPreference);
        }
        NotificationPreference::Balanced if priority < Priority::Normal => {
            return Err(Suppressed::BelowPreference);
        }
        _ => {}
    }
    if let Some(q) = profile.quiet_hours
        && q.contains(now.with_timezone(&timezone(profile)).time())
    {
        return Err(Suppressed::QuietHours);
    }
    if last_sent.is_some_and(|t| now - t < RATE_LIMIT) {
        return Err(Suppressed::RateLimited);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::profile::QuietHours;
    use chrono::{NaiveTime, TimeZone};

    fn at(h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 20, h, 0, 0).unwrap()
    }

    #[test]
    fn preference_decides_first() {
        let mut p = Profile {
            notification_preference: NotificationPreference::Off,
            ..Profile::default()
        };
        assert_eq!(
            gate(&p, Priority::High, None, at(12)),
            Err(Suppressed::PreferenceOff)
        );
        p.notification_preference = NotificationPreference::Minimal;
        assert_eq!(
            gate(&p, Priority::Normal, None, at(12)),
            Err(Suppressed::BelowPreference)
        );
        assert_eq!(gate(&p, Priority::High, None, at(12)), Ok(()));
        p.notification_preference = NotificationPreference::Balanced;
        assert_eq!(
            gate(&p, Priority::Low, None, at(12)),
            Err(Suppressed::BelowPreference)
        );
        p.notification_preference = NotificationPreference::Proactive;
        assert_eq!(gate(&p, Priority::Low, None, at(12)), Ok(()));
    }

    #[test]
    fn quiet_hours_are_in_the_lifters_timezone_and_span_midnight() {
        let p = Profile {
            timezone: "America/New_York".into(),
            quiet_hours: Some(QuietHours {
                start: NaiveTime::from_hms_opt(22, 0, 0).unwrap(),
                end: NaiveTime::from_hms_opt(7, 0, 0).unwrap(),
            }),
            ..Profile::default()
        };
        // 03:00 UTC is 22:00 in New York (EST): quiet. 12:00 UTC is 07:00: not quiet.
        assert_eq!(
            gate(&p, Priority::Normal, None, at(3)),
            Err(Suppressed::QuietHours)
        );
        assert_eq!(gate(&p, Priority::Normal, None, at(12)), Ok(()));
        assert_eq!(
            gate(&p, Priority::Normal, None, at(8)),
            Err(Suppressed::QuietHours)
        );
    }

    #[test]
    fn one_notification_per_four_hours() {
        let p = Profile::default();
        let last = Some(at(8));
        assert_eq!(
            gate(&p, Priority::Normal, last, at(11)),
            Err(Suppressed::RateLimited)
        );
        assert_eq!(gate(&p, Priority::Normal, last, at(12)), Ok(()));
    }
}
