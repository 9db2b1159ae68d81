//! Proposals (artifacts): changes to the lifter's plans that the coach drafts and the lifter
//! confirms by id and content hash. What is stored is exactly what confirming applies: a new
//! routine with its templates, an updated routine or template, or a planned workout to start.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::coaching::Memory;
use super::plan::{Routine, Template};
use super::workout::Workout;

/// How long a proposal waits for the lifter before it expires.
pub const PROPOSAL_TTL_DAYS: i64 = 7;
/// Largest stored proposal (one of the API's limits).
pub(crate) const MAX_ARTIFACT_BYTES: usize = 50 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArtifactStatus {
    Proposed,
    Accepted,
    Dismissed,
}

impl ArtifactStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactStatus::Proposed => "proposed",
            ArtifactStatus::Accepted => "accepted",
            ArtifactStatus::Dismissed => "dismissed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "proposed" => ArtifactStatus::Proposed,
            "accepted" => ArtifactStatus::Accepted,
            "dismissed" => ArtifactStatus::Dismissed,
            _ => return None,
        })
    }
}

/// What confirming applies. Ids of new routines and templates are fixed when the proposal is
/// made, so applying twice writes the same items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Proposal {
    /// A new routine and its day templates; it becomes the active routine.
    Routine {
        routine: Routine,
        templates: Vec<Template>,
    },
    /// An existing routine rewritten (same id), with new day templates.
    RoutineUpdate {
        routine: Routine,
        templates: Vec<Template>,
    },
    /// An existing template rewritten (same id).
    TemplateUpdate { template: Template },
    /// A planned workout (weights and warm-ups included) that confirming starts.
    Workout { workout: Workout },
    /// A memory the coach would stop planning around (an injury healed, a schedule changed):
    /// confirming retires it. The lifter says so, not the model alone.
    MemoryRetirement { memory: Memory },
}

impl Proposal {
    /// The `artifact_type` of the stream's `artifact` event.
    pub fn artifact_type(&self) -> &'static str {
        match self {
            Proposal::Routine { .. } => "routine",
            Proposal::RoutineUpdate { .. } => "routine_update",
            Proposal::TemplateUpdate { .. } => "template_update",
            Proposal::Workout { .. } => "workout",
            Proposal::MemoryRetirement { .. } => "memory_retirement",
        }
    }

    /// The serialised content: what is stored, hashed and shown.
    pub fn content_json(&self) -> String {
        // A derived Serialize of plain structs cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A short hash of the content: the app sends it back to confirm exactly what it showed.
    pub fn content_hash(&self) -> String {
        content_hash(&self.content_json())
    }
}

pub fn content_hash(content_json: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(content_json.as_bytes())
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    pub id: String,
    pub proposal: Proposal,
    pub content_hash: String,
    pub status: ArtifactStatus,
    pub conversation_id: Option<String>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// What applying it wrote (ids), once accepted.
    pub applied: Option<serde_json::Value>,
}

impl Artifact {
    pub fn new(
        proposal: Proposal,
        conversation_id: Option<String>,
        now: DateTime<Utc>,
    ) -> Artifact {
        Artifact {
            id: new_artifact_id(now),
            content_hash: proposal.content_hash(),
            proposal,
            status: ArtifactStatus::Proposed,
            conversation_id,
            created_at: now,
            expires_at: now + chrono::Duration::days(PROPOSAL_TTL_DAYS),
            applied: None,
        }
    }

    pub fn is_expired(&self, now: DateTime<Utc>) -> bool {
        self.status == ArtifactStatus::Proposed && now >= self.expires_at
    }
}

/// An id that sorts by creation time (the newest pending proposal is found by a reverse query).
pub(crate) fn new_artifact_id(now: DateTime<Utc>) -> String {
    time_id("a", now)
}

/// `<prefix>-<yyyymmddHHMMSS>-<microseconds in hex>`: sorts by time, and two ids made in one
/// second differ. Used for artifacts, the plans they create, memories and notifications.
pub fn time_id(prefix: &str, now: DateTime<Utc>) -> String {
    format!(
        "{prefix}-{}-{:05x}",
        now.format("%Y%m%d%H%M%S"),
        now.timestamp_subsec_micros() & 0xfffff
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_follows_the_content() {
        let t = Template {
            id: "t1".into(),
            name: "Push".into(),
            exercises: vec![],
        };
        let a = Proposal::TemplateUpdate {
            template: t.clone(),
        };
        let mut t2 = t;
        t2.name = "Push B".into();
        let b = Proposal::TemplateUpdate { template: t2 };
        assert_eq!(a.content_hash(), a.clone().content_hash());
        assert_ne!(a.content_hash(), b.content_hash());
        assert_eq!(a.content_hash().len(), 32);
        assert!(a.content_json().contains("\"kind\":\"template_update\""));
    }

    #[test]
    fn ids_sort_by_time_and_expiry_is_seven_days() {
        let t0 = chrono::DateTime::parse_from_rfc3339("2026-11-20T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let t1 = t0 + chrono::Duration::seconds(1);
        assert!(new_artifact_id(t0) < new_artifact_id(t1));
        let a = Artifact::new(
            Proposal::TemplateUpdate {
                template: Template {
                    id: "t".into(),
                    name: "n".into(),
                    exercises: vec![],
                },
            },
            None,
            t0,
        );
        assert!(!a.is_expired(t0 + chrono::Duration::days(6)));
        assert!(a.is_expired(t0 + chrono::Duration::days(7)));
    }
}
