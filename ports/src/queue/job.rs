//! What the queue carries: a user's job (`workout_completed`, `weekly_review`,
//! `health_metric_changed`, `delete_account`, `push_notification`) or the weekly schedule's fan-out. Producers build a [`Job`]; the
//! worker parses each record with [`Message::parse`], whose error says why a record can never
//! succeed.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::domain::calendar::iso_week_id;

/// A job, as the queue carries it (`to_message` gives the JSON every producer sends).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Job {
    WorkoutCompleted {
        user_id: String,
        workout_id: String,
        /// The workout's version when the lifter edited it after completion (0: as completed):
        /// each edit runs its card again, once.
        #[serde(default, skip_serializing_if = "is_zero")]
        revision: u64,
    },
    WeeklyReview {
        user_id: String,
        week_ending: NaiveDate,
    },
    HealthMetricChanged {
        user_id: String,
        metric: String,
        value: f64,
        baseline: f64,
        observed_at: DateTime<Utc>,
    },
    /// The rest of an account deletion that `DELETE /v1/me` did not finish.
    DeleteAccount { user_id: String },
    /// A notification already stored and let through the gate (the coach's reminder), to push
    /// to the lifter's phones.
    PushNotification {
        user_id: String,
        notification: crate::domain::notification::Notification,
    },
}

pub const JOB_TYPES: [&str; 6] = [
    "workout_completed",
    "weekly_review",
    "health_metric_changed",
    "delete_account",
    "push_notification",
    FANOUT_TYPE,
];

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The weekly schedule's message: review a week for every active user.
pub const FANOUT_TYPE: &str = "weekly_review_fanout";

/// `weekly_review_fanout`. Not claimed: delivered twice, it enqueues the same reviews again,
/// and a review is rewritten, never duplicated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FanOut {
    /// The Sunday that ends the week; by default the last Sunday before the run (UTC), which
    /// the schedule's Monday noon (UTC) makes a finished week in every timezone.
    #[serde(default)]
    pub week_ending: Option<NaiveDate>,
    /// Users up to and including this one were handled by an earlier run (a continuation).
    #[serde(default)]
    pub after: Option<String>,
}

impl FanOut {
    /// The queue message: the fields with the fan-out's `type`.
    pub fn to_message(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("type".into(), Value::from(FANOUT_TYPE));
        }
        v
    }
}

/// A queue message: one user's job, or the weekly fan-out.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Job(Job),
    FanOut(FanOut),
}

impl Message {
    pub fn parse(body: &str) -> Result<Message, String> {
        let mut v: Value =
            serde_json::from_str(body).map_err(|e| format!("the body is not JSON: {e}"))?;
        if v["type"] != FANOUT_TYPE {
            return Job::from_value(v).map(Message::Job);
        }
        if let Some(o) = v.as_object_mut() {
            o.remove("type");
        }
        serde_json::from_value(v)
            .map(Message::FanOut)
            .map_err(|e| format!("a {FANOUT_TYPE} message is malformed: {e}"))
    }
}

impl Job {
    /// Parses a record body; the error says why it can never succeed.
    pub fn parse(body: &str) -> Result<Job, String> {
        Job::from_value(
            serde_json::from_str(body).map_err(|e| format!("the body is not JSON: {e}"))?,
        )
    }

    fn from_value(v: Value) -> Result<Job, String> {
        let kind = v["type"].as_str().unwrap_or_default().to_string();
        if !JOB_TYPES.contains(&kind.as_str()) || kind == FANOUT_TYPE {
            return Err(format!(
                "unknown job type '{kind}' (known: {})",
                JOB_TYPES.join(", ")
            ));
        }
        let job: Job =
            serde_json::from_value(v).map_err(|e| format!("a {kind} job is malformed: {e}"))?;
        if job.user().trim().is_empty() {
            return Err(format!("a {kind} job has an empty user_id"));
        }
        Ok(job)
    }

    /// The queue message for this job, as every producer sends it.
    pub fn to_message(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    pub fn user(&self) -> &str {
        match self {
            Job::WorkoutCompleted { user_id, .. }
            | Job::WeeklyReview { user_id, .. }
            | Job::HealthMetricChanged { user_id, .. }
            | Job::DeleteAccount { user_id }
            | Job::PushNotification { user_id, .. } => user_id,
        }
    }

    pub fn kind(&self) -> &'static str {
        match self {
            Job::WorkoutCompleted { .. } => "workout_completed",
            Job::WeeklyReview { .. } => "weekly_review",
            Job::HealthMetricChanged { .. } => "health_metric_changed",
            Job::DeleteAccount { .. } => "delete_account",
            Job::PushNotification { .. } => "push_notification",
        }
    }

    /// What the job is about, which a run claims (with its kind) so that a redelivery does
    /// not run it twice: one workout, one ISO week, one metric observation.
    pub fn subject(&self) -> String {
        match self {
            Job::WorkoutCompleted {
                workout_id,
                revision: 0,
                ..
            } => workout_id.clone(),
            Job::WorkoutCompleted {
                workout_id,
                revision,
                ..
            } => format!("{workout_id}@v{revision}"),
            Job::WeeklyReview { week_ending, .. } => iso_week_id(*week_ending),
            Job::HealthMetricChanged {
                metric,
                observed_at,
                ..
            } => format!("{metric}@{}", observed_at.format("%Y-%m-%dT%H:%M:%SZ")),
            Job::DeleteAccount { .. } => "account".into(),
            Job::PushNotification { notification, .. } => notification.id.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_fan_out_message_parses_and_round_trips() {
        let m = Message::parse(r#"{"type":"weekly_review_fanout"}"#);
        assert_eq!(
            m,
            Ok(Message::FanOut(FanOut {
                week_ending: None,
                after: None
            }))
        );
        let m = Message::parse(
            r#"{"type":"weekly_review_fanout","week_ending":"2026-11-22","after":"u-17"}"#,
        );
        assert!(matches!(m, Ok(Message::FanOut(FanOut { after: Some(a), .. })) if a == "u-17"));
        let e = Message::parse(r#"{"type":"weekly_review_fanout","user_id":"u"}"#);
        assert!(e.is_err_and(|e| e.contains("unknown field `user_id`")));
        assert!(matches!(
            Message::parse(r#"{"type":"workout_completed","user_id":"u","workout_id":"w"}"#),
            Ok(Message::Job(Job::WorkoutCompleted { .. }))
        ));
        // A continuation carries its week and where it stopped, and parses back.
        let next = FanOut {
            week_ending: "2026-11-22".parse().ok(),
            after: Some("u-17".into()),
        };
        assert_eq!(
            Message::parse(&next.to_message().to_string()),
            Ok(Message::FanOut(next))
        );
    }

    #[test]
    fn a_job_round_trips_through_its_message() {
        let job = Job::WeeklyReview {
            user_id: "u1".into(),
            week_ending: "2026-11-22".parse().unwrap_or_default(),
        };
        assert_eq!(
            job.to_message(),
            json!({"type": "weekly_review", "user_id": "u1", "week_ending": "2026-11-22"})
        );
        assert_eq!(Job::parse(&job.to_message().to_string()), Ok(job));
    }

    #[test]
    fn jobs_parse_or_say_why_not() {
        let j = Job::parse(r#"{"type":"workout_completed","user_id":"u1","workout_id":"w1"}"#);
        assert_eq!(j.as_ref().map(Job::subject).ok().as_deref(), Some("w1"));
        let r = Job::parse(r#"{"type":"weekly_review","user_id":"u1","week_ending":"2026-11-22"}"#);
        assert_eq!(r.map(|j| j.subject()).ok().as_deref(), Some("2026-W47"));
        let h = Job::parse(
            r#"{"type":"health_metric_changed","user_id":"u1","metric":"hrv","value":40,"baseline":55,"observed_at":"2026-11-22T06:00:00Z"}"#,
        );
        assert_eq!(
            h.map(|j| j.subject()).ok().as_deref(),
            Some("hrv@2026-11-22T06:00:00Z")
        );
        let err = |b: &str| Job::parse(b).err().unwrap_or_default();
        assert!(err("not json").starts_with("the body is not JSON"));
        assert!(
            err(r#"{"type":"daily_brief","user_id":"u"}"#)
                .starts_with("unknown job type 'daily_brief'")
        );
        assert!(
            err(r#"{"type":"workout_completed","user_id":"u"}"#)
                .contains("missing field `workout_id`")
        );
        assert!(
            err(r#"{"type":"workout_completed","user_id":" ","workout_id":"w"}"#)
                .contains("empty user_id")
        );
    }
}
