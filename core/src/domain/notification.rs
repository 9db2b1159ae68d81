//! Notifications the coach sends and the limit on how often: stored by the store, decided by
//! the gate in `skills::notify`.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

/// At most one notification per this window.
pub const RATE_LIMIT: Duration = Duration::hours(4);

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Priority {
    Low,
    #[default]
    Normal,
    High,
}

impl Priority {
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Normal => "normal",
            Priority::High => "high",
        }
    }
}

/// A notification that was sent (stored as `NOTIFY#<ts>#<id>`, listed by GET /v1/notifications).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    pub id: String,
    pub message: String,
    pub priority: Priority,
    /// What produced it: "checkin_prompt", "health_metric", "coach".
    pub source: String,
    /// "in_app" (shown when the app asked) or "push".
    pub channel: String,
    pub created_at: DateTime<Utc>,
}
