//! The lifter's coaching context beyond the profile: where they are in the journey
//! (intake → goals → check-ins), their goals and focus, and check-in state. One document per user.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Getting to know the lifter (name, experience, notification preference).
    #[default]
    Intake,
    /// Agreeing on long-term goals.
    Goals,
    /// Ongoing check-ins.
    Checkins,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Goals {
    #[serde(default)]
    pub objectives: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeline: Option<String>,
    /// e.g. "cutting until May", "maintenance".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_cycle: Option<String>,
    /// e.g. "bench 100 kg by summer".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_focus: Option<String>,
}

/// A question the coach asked and is waiting on (so a rating knows its scale).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingQuestion {
    pub key: String,
    pub min: i64,
    pub max: i64,
    pub asked_at: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CheckIn {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_checkin_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_prompted_at: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<PendingQuestion>,
    /// The latest rating per question key, e.g. {"stress_checkin": 2}.
    #[serde(default)]
    pub latest: std::collections::BTreeMap<String, i64>,
    /// The goal of the last GROW conversation ("a good bench session despite the poor night").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grow_goal: Option<String>,
    /// Its way forward: what the lifter said they will do next.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub way_forward: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CoachingContext {
    #[serde(default)]
    pub phase: Phase,
    #[serde(default)]
    pub goals: Goals,
    #[serde(default)]
    pub checkin: CheckIn,
}

/// Most memories a lifter keeps active; the coach retires one before saving past this.
pub const MAX_MEMORIES: usize = 50;
/// Longest memory text.
pub const MAX_MEMORY_CHARS: usize = 500;

/// Something the coach keeps about the lifter across conversations ("left shoulder is cranky on
/// overhead work", "trains at 6 am").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Memory {
    pub id: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub created_at: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retired_at: Option<DateTime<Utc>>,
}
