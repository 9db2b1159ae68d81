//! `POST /v1/health/samples`: the app's health readings (HealthKit, Health Connect) in batches.
//! Each sample is stored once by its own id; each metric's newest day is compared with the
//! lifter's baseline (`domain::health`), and a departure that matters (`skills::health`) on the
//! lifter's today queues `health_metric_changed`, whose job decides and sends the notification
//! through the gate. A recent weigh-in newer than every stored one sets the profile's
//! bodyweight (the week's median).
//!
//! Retry-safe: a batch sent again stores nothing new and queues the same jobs, which the worker
//! runs once (one decision per metric and day: the job's subject is the metric and the local
//! day). Validated whole before anything is written.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use serde::Serialize;
use serde_json::Value;

use super::{App, checked_id, invalid};
use crate::app::error::{AppError, ErrorCode};
use crate::context::SessionContext;
use crate::domain::health::{self, BASELINE_DAYS, MAX_SAMPLES, Metric, Sample};
use crate::queue::Job;
use crate::skills::{health as assess, notify};
use crate::store::Parts;
use crate::store::health::{HEALTH_SAMPLE_TTL_DAYS, sample_sk};

/// A weigh-in newer than this may set the profile's bodyweight (a backfill never does).
pub const RECENT_HOURS: i64 = 36;
/// Samples a baseline reads at most (29 days of a metric read many times a day).
const MAX_WINDOW_SAMPLES: usize = 3_000;
/// Days of weigh-ins the profile's bodyweight is the median of...
const WEIGH_IN_DAYS: u64 = 7;
/// ...once there are this many days with one.
const WEIGH_IN_MIN_DAYS: usize = 3;
/// Clocks differ: a sample this far ahead of the server is still accepted.
const CLOCK_SKEW_MINUTES: i64 = 5;
const MAX_SOURCE_CHARS: usize = 64;

/// What a batch did.
#[derive(Debug, Clone, Serialize)]
pub struct HealthOutcome {
    /// Samples stored now.
    pub accepted: usize,
    /// Samples already stored (sent before).
    pub duplicates: usize,
    /// Samples older than the retention (not kept).
    pub too_old: usize,
    /// Each metric of the batch: its newest day, against the lifter's baseline.
    pub metrics: Vec<MetricOutcome>,
    /// The profile's bodyweight when this batch set it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bodyweight_kg: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MetricOutcome {
    pub metric: Metric,
    pub unit: &'static str,
    /// The lifter's local day.
    pub day: NaiveDate,
    pub value: f64,
    /// The median of the days before, once there are enough of them.
    pub baseline: Option<f64>,
    pub baseline_days: usize,
    /// Why the reading does or does not matter (the assessment's reason).
    pub reason: String,
    /// A `health_metric_changed` job was queued for it.
    pub queued: bool,
}

/// The samples of a request body `{"samples": [{id, metric, value, unit, observed_at,
/// source}]}`, each converted to its metric's unit; the first bad one is the error, naming its
/// place (`samples[3].unit`).
pub fn parse_samples(body: &Value, now: DateTime<Utc>) -> Result<Vec<Sample>, AppError> {
    let list = body["samples"]
        .as_array()
        .ok_or_else(|| invalid("samples must be a list of readings", "samples"))?;
    if list.is_empty() || list.len() > MAX_SAMPLES {
        return Err(invalid(
            &format!("send 1 to {MAX_SAMPLES} samples at a time"),
            "samples",
        ));
    }
    let mut seen = BTreeSet::new();
    list.iter()
        .enumerate()
        .map(|(i, v)| {
            let field = |f: &str| format!("samples[{i}].{f}");
            let text = |f: &str| {
                v[f].as_str()
                    .ok_or_else(|| invalid(&format!("{f} is required text"), field(f)))
            };
            let id = checked_id(text("id")?, "id").map_err(|e| e.field(field("id")))?;
            if !seen.insert(id) {
                return Err(invalid(
                    "a sample id appears twice in the batch",
                    field("id"),
                ));
            }
            let metric = Metric::parse(text("metric")?).ok_or_else(|| {
                let names: Vec<&str> = Metric::ALL.iter().map(|m| m.as_str()).collect();
                invalid(
                    &format!("metric is one of {}", names.join(", ")),
                    field("metric"),
                )
            })?;
            let raw = v["value"]
                .as_f64()
                .ok_or_else(|| invalid("value must be a number", field("value")))?;
            let value = metric
                .convert(raw, text("unit")?)
                .map_err(|m| invalid(&m, field("unit")))?;
            let observed_at = DateTime::parse_from_rfc3339(text("observed_at")?)
                .map_err(|_| invalid("observed_at must be an RFC 3339 time", field("observed_at")))?
                .with_timezone(&Utc);
            if observed_at > now + Duration::minutes(CLOCK_SKEW_MINUTES) {
                return Err(invalid(
                    "observed_at is in the future",
                    field("observed_at"),
                ));
            }
            let source = match &v["source"] {
                Value::Null => "unknown",
                Value::String(s)
                    if !s.trim().is_empty() && s.chars().count() <= MAX_SOURCE_CHARS =>
                {
                    s.trim()
                }
                _ => {
                    return Err(invalid(
                        &format!("source is text of 1 to {MAX_SOURCE_CHARS} characters"),
                        field("source"),
                    ));
                }
            };
            Ok(Sample {
                id: id.to_string(),
                metric,
                value,
                observed_at,
                source: source.to_string(),
            })
        })
        .collect()
}

impl App {
    /// Stores a validated batch, updates the bodyweight and queues what departs from baseline.
    pub async fn record_health(
        &self,
        ctx: &SessionContext,
        samples: Vec<Sample>,
        now: DateTime<Utc>,
    ) -> Result<HealthOutcome, AppError> {
        let user = &ctx.user_id;
        let keep_from = now - Duration::days(HEALTH_SAMPLE_TTL_DAYS);
        let (kept, old): (Vec<Sample>, Vec<Sample>) = samples
            .into_iter()
            .partition(|s| s.observed_at >= keep_from);
        let parts = Parts {
            profile: true,
            ..Parts::default()
        };
        let profile = self
            .store
            .user_state(user, parts, None, now)
            .await?
            .profile
            .unwrap_or_default();
        // Duplicates by key: the batch's own keys are read, however much the lifter stored.
        let keys: Vec<String> = kept.iter().map(sample_sk).collect();
        let stored = self.store.stored_sample_keys(user, &keys).await?;
        let fresh: Vec<&Sample> = kept
            .iter()
            .filter(|s| !stored.contains(&sample_sk(s)))
            .collect();
        self.store.put_health_samples(user, &fresh).await?;
        let mut out = HealthOutcome {
            accepted: fresh.len(),
            duplicates: kept.len() - fresh.len(),
            too_old: old.len(),
            metrics: Vec::new(),
            bodyweight_kg: None,
        };
        let mut by_metric: BTreeMap<Metric, Vec<&Sample>> = BTreeMap::new();
        for s in &kept {
            by_metric.entry(s.metric).or_default().push(s);
        }
        let tz = notify::timezone(&profile);
        let mut jobs = Vec::new();
        let mut bodyweight = None;
        for (metric, new) in by_metric {
            let all = self
                .baseline_window(user, metric, &new, &fresh, tz, now)
                .await?;
            let all: Vec<&Sample> = all.iter().collect();
            if metric == Metric::BodyWeight {
                bodyweight = weigh_in(&new, &all, tz, now);
            }
            if let Some((m, job)) = judge(user, metric, &new, &all, &profile, now) {
                jobs.extend(job);
                out.metrics.push(m);
            }
        }
        if let Some(kg) = bodyweight
            && profile.bodyweight_kg != Some(kg)
        {
            let patch =
                super::profile::ProfilePatch::from_body(&serde_json::json!({"bodyweight_kg": kg}))?;
            self.update_me(ctx, &patch).await?;
            out.bodyweight_kg = Some(kg);
        }
        for job in &jobs {
            self.queue.send(job).await.map_err(|e| {
                tracing::error!(error = %e, "enqueue failed");
                AppError::new(
                    ErrorCode::QueueUnavailable,
                    "the samples are saved, but a change from your baseline could not be queued; send the batch again to queue it",
                )
            })?;
        }
        Ok(out)
    }
    /// The samples a baseline of `new`'s newest day reads (that day and the [`BASELINE_DAYS`]
    /// before it, at most [`MAX_WINDOW_SAMPLES`]), with the batch's fresh ones (a query may not
    /// see a write of a moment ago).
    async fn baseline_window(
        &self,
        user: &str,
        metric: Metric,
        new: &[&Sample],
        fresh: &[&Sample],
        tz: chrono_tz::Tz,
        now: DateTime<Utc>,
    ) -> Result<Vec<Sample>, AppError> {
        let newest = new.iter().map(|s| s.observed_at).max().unwrap_or(now);
        let day = newest.with_timezone(&tz).date_naive();
        let from = day_start(day, tz) - Duration::days(BASELINE_DAYS + 1);
        let mut all = self
            .store
            .health_samples(
                user,
                metric,
                from,
                now + Duration::days(1),
                MAX_WINDOW_SAMPLES,
            )
            .await?;
        let seen: BTreeSet<String> = all.iter().map(sample_sk).collect();
        all.extend(
            fresh
                .iter()
                .filter(|s| s.metric == metric && s.observed_at >= from)
                .filter(|s| !seen.contains(&sample_sk(s)))
                .map(|s| (*s).clone()),
        );
        Ok(all)
    }
}

/// The bodyweight a batch's weigh-ins set: only when the newest of them is recent and no
/// stored weigh-in is newer (a backfill never overrides what the lifter typed), and then the
/// median of the last [`WEIGH_IN_DAYS`] days' weigh-ins when there are [`WEIGH_IN_MIN_DAYS`]
/// of them: one salty dinner or a shared scale does not move the loads of bodyweight lifts.
fn weigh_in(
    new: &[&Sample],
    all: &[&Sample],
    tz: chrono_tz::Tz,
    now: DateTime<Utc>,
) -> Option<f64> {
    let newest = new.iter().max_by_key(|s| (s.observed_at, &s.id))?;
    let newest_stored = all.iter().map(|s| s.observed_at).max()?;
    if newest.observed_at < newest_stored
        || now - newest.observed_at > Duration::hours(RECENT_HOURS)
    {
        return None;
    }
    let days = health::daily(Metric::BodyWeight, all, |t| {
        t.with_timezone(&tz).date_naive()
    });
    let last = newest.observed_at.with_timezone(&tz).date_naive();
    let week: Vec<f64> = days
        .range(last - chrono::Days::new(WEIGH_IN_DAYS - 1)..=last)
        .map(|(_, v)| *v)
        .collect();
    if week.len() < WEIGH_IN_MIN_DAYS {
        return Some(newest.value);
    }
    Some((health::median(&week) * 100.0).round() / 100.0)
}

/// One metric of a batch: its newest day (the lifter's) against the baseline of the days
/// before, and the job when the departure matters and is recent.
fn judge(
    user: &str,
    metric: Metric,
    new: &[&Sample],
    all: &[&Sample],
    profile: &crate::domain::profile::Profile,
    now: DateTime<Utc>,
) -> Option<(MetricOutcome, Option<Job>)> {
    let tz = notify::timezone(profile);
    let days = health::daily(metric, all, |t| t.with_timezone(&tz).date_naive());
    let newest = new.iter().map(|s| s.observed_at).max()?;
    let day = newest.with_timezone(&tz).date_naive();
    let value = *days.get(&day)?;
    let base = health::baseline(&days, day);
    let before = days
        .range(day - chrono::Days::new(BASELINE_DAYS as u64)..day)
        .count();
    let mut m = MetricOutcome {
        metric,
        unit: metric.unit(),
        day,
        value,
        baseline: base.map(|b| b.0),
        baseline_days: before,
        reason: format!(
            "no baseline yet: {before} of the {} days it needs",
            health::MIN_BASELINE_DAYS
        ),
        queued: false,
    };
    let Some((baseline, _)) = base else {
        return Some((m, None));
    };
    let a = assess::assess(metric.job_name(), value, baseline, profile);
    m.reason = a.reason;
    // Only about the lifter's today: a late sync of yesterday is history, not news.
    let today = now.with_timezone(&tz).date_naive();
    m.queued = a.significant && day == today;
    let job = m.queued.then(|| Job::HealthMetricChanged {
        user_id: user.to_string(),
        metric: metric.job_name().to_string(),
        value,
        baseline,
        observed_at: day_start(day, tz),
    });
    Some((m, job))
}

/// The first instant of the lifter's local `day`, in UTC: a decision's time (one per metric and
/// day).
fn day_start(day: NaiveDate, tz: chrono_tz::Tz) -> DateTime<Utc> {
    let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
    tz.from_local_datetime(&midnight)
        .earliest()
        .map_or_else(|| midnight.and_utc(), |t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_batch_is_refused_whole_naming_the_bad_sample() {
        let now = Utc::now();
        let at = (now - Duration::hours(2)).to_rfc3339();
        let ok = json!({"id": "a", "metric": "hrv", "value": 50, "unit": "ms", "observed_at": at});
        let bad =
            json!({"id": "b", "metric": "hrv", "value": 50, "unit": "bpm", "observed_at": at});
        let e = parse_samples(&json!({"samples": [ok, bad]}), now).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("samples[1].unit"), "{e:?}");
        let twice = parse_samples(&json!({"samples": [ok, ok]}), now).unwrap_err();
        assert_eq!(twice.field.as_deref(), Some("samples[1].id"));
        let future = json!({"id": "c", "metric": "steps", "value": 10, "unit": "count",
            "observed_at": (now + Duration::hours(1)).to_rfc3339()});
        assert!(parse_samples(&json!({"samples": [future]}), now).is_err());
        assert_eq!(
            parse_samples(&json!({"samples": [ok]}), now)
                .map(|s| s.len())
                .ok(),
            Some(1)
        );
    }

    #[test]
    fn a_decision_is_dated_at_the_start_of_the_lifters_day() {
        let day: NaiveDate = "2026-07-01".parse().unwrap_or_default();
        let t = day_start(day, chrono_tz::Europe::Berlin);
        assert_eq!(t.to_rfc3339(), "2026-06-30T22:00:00+00:00");
    }
}
