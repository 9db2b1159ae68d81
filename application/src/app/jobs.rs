//! The worker's jobs, run at least once each (the queue may deliver a message again):
//! `workout_completed` → a post-workout insight card; `weekly_review` → the review of one ISO
//! week; `health_metric_changed` → a decision, and a notification when the change matters and
//! the notification gate allows it; `push_notification` → a stored notification pushed to the
//! lifter's phones; `delete_account` → the rest of an account deletion;
//! `weekly_review_fanout` → a `weekly_review` for every user
//! active in the last 30 days.
//!
//! Idempotent: a job claims its subject first; its outputs and its completion are one
//! transaction. A redelivered message finds the job done and writes nothing; a run that crashed
//! leaves a claim whose lease ends with the invocation, and the redelivery runs it again to the
//! same end state (the outputs have deterministic keys).
//!
//! A job sent before its lifter deleted the account writes nothing: it meets the deletion's
//! marker before it claims, or, racing the deletion, in its completion's transaction.

use std::time::Instant;

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{Value, json};

use crate::analysis::{card, review};
use crate::domain::profile::Profile;
use crate::llm::Usage;
use crate::push::Push;
use crate::queue::{FanOut, Job, JobQueue, Message};
use crate::skills::health;
use crate::skills::notify::{self, Notification};
use crate::store::jobs::{Claim, Output, health_sk};
use crate::store::{Parts, Store, StoreError};

/// A record is not started with less than this left of the invocation (a job is a few store
/// calls and milliseconds of analysis; Lambda's own default timeout is 3 s).
pub const RECORD_MIN_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

/// Workouts the insight card reads at most, newest first: about eight years at five a week,
/// and at most a few tens of MB, so that no history an import can grow runs the worker out of
/// memory or time.
pub const CARD_HISTORY_WORKOUTS: usize = 2_000;

/// A health decision about a day this long gone (its start) notifies nobody.
pub const STALE_HEALTH_HOURS: i64 = 48;

/// A user is active with a completed workout in this many days.
pub const ACTIVE_DAYS: i64 = 30;
/// Reviews handed to SQS between two looks at the clock (ten batches of ten).
pub(crate) const FANOUT_ROUND: usize = 100;
/// Lifters read from the roster at once.
pub(crate) const FANOUT_PAGE: usize = 1_000;

/// The Sunday before `d` (a Sunday gives the one a week earlier: its own week is not over).
pub fn previous_sunday(d: NaiveDate) -> NaiveDate {
    crate::analysis::facts::week_start(d) - chrono::Days::new(1)
}

#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("another run holds the job; leave it for later")]
    Busy,
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Queue(#[from] crate::queue::QueueError),
}

/// What a job did, for the log and the command-line tool.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    /// What the job wrote, and the model tokens it spent (a card's summary).
    Done(Value, Usage),
    /// Already done by an earlier delivery.
    Duplicate,
    /// Sent before the lifter deleted the account: nothing done, nothing written.
    AccountDeleted,
    /// About a workout deleted before the job ran (read strongly consistent, so not one still
    /// being written): nothing to do, and nothing to deliver again.
    WorkoutGone,
}

/// The ports the jobs work through.
pub struct Worker {
    store: Store,
    /// Where the fan-out sends reviews; without SQS (locally) it runs them itself.
    queue: JobQueue,
    /// Where sent notifications are pushed: the lifter's phones, and the relay topic.
    push: Push,
    /// Writes the card's and the weekly review's summaries when `WORKER_MODEL` is set (see
    /// `card_summary`), paid for from the lifter's daily allowance.
    model: Option<(crate::llm::Model, super::meter::Meter)>,
}

impl Worker {
    pub fn new(store: Store, queue: JobQueue, push: Push) -> Self {
        Self {
            store,
            queue,
            push,
            model: None,
        }
    }

    /// The lane with a model for card summaries.
    pub fn with_model(
        mut self,
        model: Option<crate::llm::Model>,
        meter: super::meter::Meter,
    ) -> Self {
        self.model = model.map(|m| (m, meter));
        self
    }

    /// Runs one job, `sent` to the queue at that time, under its claim (leased until `lease`).
    pub async fn run(
        &self,
        job: &Job,
        sent: DateTime<Utc>,
        lease: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<Report, JobError> {
        let user = job.user();
        if let Job::DeleteAccount { .. } = job {
            // Not claimed: the claim would be an item of the account it deletes, and deleting
            // twice is harmless.
            return self.delete_account(user, lease).await;
        }
        // About an account deleted since: not even a claim is written.
        if self
            .store
            .deleted_at(user)
            .await?
            .is_some_and(|deleted| deleted >= sent)
        {
            return Ok(Report::AccountDeleted);
        }
        let sk = crate::store::jobs::claim_sk(job.kind(), &job.subject());
        let rerun_done = matches!(job, Job::WeeklyReview { .. });
        let run = match self
            .store
            .claim_job(user, &sk, lease, rerun_done, now)
            .await?
        {
            Claim::Claimed { run } => run,
            Claim::Done => return Ok(Report::Duplicate),
            Claim::Busy => return Err(JobError::Busy),
        };
        let sink = Sink::Commit {
            sk: &sk,
            run: &run,
            sent,
        };
        let result = self.execute(job, &sink, now).await;
        if matches!(result, Err(_) | Ok(Report::WorkoutGone)) {
            // Give the claim back so the redelivery need not wait for the lease.
            if let Err(e) = self.store.release_job(user, &sk, &run).await {
                tracing::warn!(error = %e, "could not release a failed job's claim");
            }
        }
        result
    }

    /// Deletes what is left of an account until done or the lease (the invocation) is nearly
    /// over; then hands the rest to the next `delete_account` job.
    async fn delete_account(&self, user: &str, lease: DateTime<Utc>) -> Result<Report, JobError> {
        let mut deleted = 0;
        loop {
            let round = self
                .store
                .delete_user(user, crate::app::account::INLINE_DELETE_ITEMS)
                .await?;
            deleted += round.deleted;
            let finished = round.finished;
            let out_of_time = Utc::now()
                + chrono::Duration::from_std(RECORD_MIN_BUDGET).unwrap_or_default()
                > lease;
            if finished || out_of_time {
                if !finished {
                    self.queue
                        .send(&Job::DeleteAccount {
                            user_id: user.to_string(),
                        })
                        .await?;
                }
                return Ok(Report::Done(
                    json!({ "items_deleted": deleted, "finished": finished }),
                    Usage::default(),
                ));
            }
        }
    }

    /// The weekly fan-out: a `weekly_review` for every active user after `f.after`, handed to
    /// SQS a hundred at a time. When the invocation runs short it enqueues a continuation
    /// (`after` the last user handled) instead of failing half-way. Without SQS (locally,
    /// where the worker cannot invoke itself) it runs the reviews itself.
    pub async fn fan_out(
        &self,
        f: &FanOut,
        deadline: Instant,
        now: DateTime<Utc>,
    ) -> Result<Report, JobError> {
        let week_ending = f
            .week_ending
            .unwrap_or_else(|| previous_sunday(now.date_naive()));
        let review = |u: &str| Job::WeeklyReview {
            user_id: u.to_string(),
            week_ending,
        };
        let queued = matches!(self.queue, JobQueue::Sqs { .. });
        let mut handled: usize = 0;
        let mut after = f.after.clone();
        let mut continued_after = None;
        // A page of the roster at a time: memory stays flat however many lifters it holds.
        'pages: loop {
            let page = self
                .store
                .active_users_after(now, ACTIVE_DAYS, after.as_deref(), FANOUT_PAGE)
                .await?;
            for round in page.chunks(FANOUT_ROUND) {
                if queued
                    && deadline.saturating_duration_since(Instant::now()) < 2 * RECORD_MIN_BUDGET
                {
                    let next = FanOut {
                        week_ending: Some(week_ending),
                        after: after.clone(),
                    };
                    self.queue.send_fan_out(&next).await?;
                    continued_after = Some(after);
                    break 'pages;
                }
                if queued {
                    let jobs: Vec<Job> = round.iter().map(|u| review(u)).collect();
                    self.queue.send_all(&jobs).await?;
                } else {
                    for u in round {
                        let left = deadline.saturating_duration_since(Instant::now());
                        let lease =
                            Utc::now() + chrono::Duration::from_std(left).unwrap_or_default();
                        self.run(&review(u), Utc::now(), lease, Utc::now()).await?;
                    }
                }
                handled += round.len();
                after = round.last().cloned();
            }
            if page.len() < FANOUT_PAGE {
                break;
            }
        }
        Ok(Report::Done(
            json!({
            "week_ending": week_ending,
            "handled": handled,
            "mode": if queued { "queued" } else { "inline" },
            "continued_after": continued_after,
            }),
            Usage::default(),
        ))
    }

    /// Runs one queue message for an operator (`devstack job`): as the queue would, or with
    /// `dry` computing the output and writing nothing (a fan-out then lists whom it would
    /// review).
    pub async fn operate(
        &self,
        body: &str,
        dry: bool,
        now: DateTime<Utc>,
    ) -> Result<Value, String> {
        let message = Message::parse(body)?;
        let budget = std::time::Duration::from_secs(300);
        let out = match (&message, dry) {
            (Message::Job(job), true) => self.dry_run(job, now).await,
            (Message::Job(job), false) => {
                let lease = now + chrono::Duration::from_std(budget).unwrap_or_default();
                self.run(job, now, lease, now).await.map(|r| match r {
                    Report::Done(v, _) => v,
                    Report::Duplicate => {
                        json!({"duplicate": true, "note": "already done; nothing written"})
                    }
                    Report::AccountDeleted => {
                        json!({"account_deleted": true, "note": "the account was deleted; nothing written"})
                    }
                    Report::WorkoutGone => {
                        json!({"workout_gone": true, "note": "the workout was deleted; nothing written"})
                    }
                })
            }
            (Message::FanOut(f), true) => {
                let week_ending = f
                    .week_ending
                    .unwrap_or_else(|| previous_sunday(now.date_naive()));
                self.store
                    .active_users(now, ACTIVE_DAYS)
                    .await
                    .map(|users| json!({"week_ending": week_ending, "would_review": users}))
                    .map_err(JobError::from)
            }
            (Message::FanOut(f), false) => {
                self.fan_out(f, Instant::now() + budget, now)
                    .await
                    .map(|r| match r {
                        Report::Done(v, _) => v,
                        Report::Duplicate | Report::AccountDeleted | Report::WorkoutGone => {
                            Value::Null
                        }
                    })
            }
        };
        out.map_err(|e| e.to_string())
    }

    /// Computes a job's output without claiming or writing anything (`--dry-run`).
    pub async fn dry_run(&self, job: &Job, now: DateTime<Utc>) -> Result<Value, JobError> {
        match self.execute(job, &Sink::DryRun, now).await? {
            Report::Done(v, _) => Ok(v),
            Report::Duplicate | Report::AccountDeleted | Report::WorkoutGone => Ok(Value::Null),
        }
    }

    /// Works out a job's outputs and writes them through `sink`: each job decides what to
    /// write, and the sink decides whether anything is written.
    async fn execute(
        &self,
        job: &Job,
        sink: &Sink<'_>,
        now: DateTime<Utc>,
    ) -> Result<Report, JobError> {
        let user = job.user();
        let parts = Parts {
            profile: true,
            notify_state: true,
            ..Parts::default()
        };
        let state = self.store.user_state(user, parts, None, now).await?;
        let profile = state.profile.unwrap_or_default();
        let lifter = Lifter {
            user,
            tz: notify::timezone(&profile),
            profile,
            last_notified: state.last_notified,
        };
        match job {
            Job::WorkoutCompleted { workout_id, .. } => {
                self.post_workout_card(&lifter, workout_id, sink, now).await
            }
            Job::WeeklyReview { week_ending, .. } => {
                self.weekly_review(&lifter, *week_ending, sink, now).await
            }
            Job::HealthMetricChanged {
                metric,
                value,
                baseline,
                observed_at,
                ..
            } => {
                let reading = Reading {
                    metric,
                    value: *value,
                    baseline: *baseline,
                    observed_at: *observed_at,
                };
                self.health_decision(&lifter, &reading, sink, now).await
            }
            Job::PushNotification { notification, .. } => {
                // Claimed, then marked done, then pushed: at most once per phone.
                if !self.finish(user, sink, &[], now).await? {
                    return Err(JobError::Busy);
                }
                if !sink.writes() {
                    return Ok(Report::Done(
                        json!({ "would_push": notification.id }),
                        Usage::default(),
                    ));
                }
                // The job is done either way (a redelivery would not push): a failure is said.
                let delivery = super::devices::deliver(&self.push, &self.store, user, notification)
                    .await
                    .map_err(|e| {
                        tracing::warn!(error = %e, notification_id = %notification.id, "the phones were not read; the notification stays in the app's list");
                    })
                    .ok();
                Ok(Report::Done(
                    json!({ "delivery": delivery }),
                    Usage::default(),
                ))
            }
            Job::DeleteAccount { .. } => {
                // Only a dry run gets here (`run` deletes without a claim): what it would delete.
                let items = self.store.user_items(user).await?.len();
                Ok(Report::Done(
                    json!({ "would_delete": items }),
                    Usage::default(),
                ))
            }
        }
    }

    /// Writes `outputs` with the job's completion (false: another run holds the job); a dry run
    /// writes nothing.
    async fn finish(
        &self,
        user: &str,
        sink: &Sink<'_>,
        outputs: &[Output<'_>],
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        match sink {
            Sink::DryRun => Ok(true),
            Sink::Commit { sk, run, sent } => {
                self.store
                    .finish_job(user, sk, run, outputs, *sent, now)
                    .await
            }
        }
    }

    /// The insight card after a completed workout (and the lifter's all-time records raised).
    async fn post_workout_card(
        &self,
        lifter: &Lifter<'_>,
        workout_id: &str,
        sink: &Sink<'_>,
        now: DateTime<Utc>,
    ) -> Result<Report, JobError> {
        let user = lifter.user;
        // Strongly consistent: a workout missing here was deleted, not still being written.
        // Bounded: the newest CARD_HISTORY_WORKOUTS, whatever imports made of the history.
        let (mut history, older_unread) = self
            .store
            .newest_completed_workouts_consistent(user, CARD_HISTORY_WORKOUTS)
            .await?;
        if older_unread && !history.iter().any(|w| w.id == workout_id) {
            // A workout older than those read (one logged long after it happened).
            match self.store.find_completed_workout(user, workout_id).await? {
                Some(w) => history.insert(0, w),
                None => return Ok(Report::WorkoutGone),
            }
        }
        let Some(w) = history.iter().find(|w| w.id == workout_id) else {
            return Ok(Report::WorkoutGone);
        };
        // The monitor's all-time records: raised here, where a failure is retried.
        if sink.writes() {
            self.store
                .raise_bests(user, std::slice::from_ref(w))
                .await?;
        }
        let mut c = card::post_workout_card(w, &history, &lifter.profile, lifter.tz, now);
        if older_unread {
            // Records are then the best of what was read, and say so.
            card::records_of_the_last(&mut c, CARD_HISTORY_WORKOUTS);
        }
        let (source, tokens) =
            super::card_summary::summarise(self.model.as_ref(), user, &mut c).await;
        c.summary_source = source.as_str().into();
        let out = json!(c);
        let card = Output::Insight {
            id: &c.id,
            card: &out,
            at: w.started_at,
        };
        if !self.finish(user, sink, &[card], now).await? {
            return Err(JobError::Busy);
        }
        Ok(Report::Done(out, tokens))
    }

    /// The review of the week ending `week_ending` (a Sunday, in the lifter's timezone).
    async fn weekly_review(
        &self,
        lifter: &Lifter<'_>,
        week_ending: NaiveDate,
        sink: &Sink<'_>,
        now: DateTime<Utc>,
    ) -> Result<Report, JobError> {
        let (from, to) = review::window(week_ending, lifter.tz);
        let history = self
            .store
            .completed_workouts_between(lifter.user, from, to)
            .await?;
        let mut r = review::weekly_review(&history, week_ending, &lifter.profile, lifter.tz, now);
        let tokens =
            super::card_summary::summarise_review(self.model.as_ref(), lifter.user, &mut r).await;
        let out = json!(r);
        let review = Output::Review {
            id: &r.id,
            review: &out,
        };
        if !self.finish(lifter.user, sink, &[review], now).await? {
            return Err(JobError::Busy);
        }
        Ok(Report::Done(out, tokens))
    }

    /// What to do about a health reading that departed from the lifter's baseline: the
    /// assessment, and a notification when it matters and the gate lets it through (pushed
    /// after the commit, at most once).
    async fn health_decision(
        &self,
        lifter: &Lifter<'_>,
        reading: &Reading<'_>,
        sink: &Sink<'_>,
        now: DateTime<Utc>,
    ) -> Result<Report, JobError> {
        let (user, profile) = (lifter.user, &lifter.profile);
        let Reading {
            metric,
            value,
            baseline,
            observed_at,
        } = *reading;
        let dsk = health_sk(observed_at, metric);
        if sink.writes()
            && let Some(d) = self.store.health_decision(user, &dsk).await?
        {
            // Decided by a run that crashed before marking the job done: finish it.
            if !self.finish(user, sink, &[], now).await? {
                return Err(JobError::Busy);
            }
            return Ok(Report::Done(d, Usage::default()));
        }
        // Decide first.
        let a = health::assess(metric, value, baseline, profile);
        // A reading's news is its day's: a job delivered late (retried, redriven) tells nobody.
        let stale = now - observed_at > chrono::Duration::hours(STALE_HEALTH_HOURS);
        let gate = (a.significant && !stale)
            .then(|| notify::gate(profile, a.priority, lifter.last_notified, now));
        let notification = match (&gate, &a.message) {
            (Some(Ok(())), Some(message)) => Some(health_notification(&dsk, message, &a, now)),
            _ => None,
        };
        let suppressed = match &gate {
            Some(Err(why)) => Some(why.as_str()),
            None if a.significant && stale => Some("stale"),
            _ => None,
        };
        // Then say it.
        let decision = |sent: Option<&Notification>, suppressed: Option<&str>| {
            json!({
                "metric": metric, "value": value, "baseline": baseline,
                "observed_at": observed_at, "assessment": a,
                "sent": sent.is_some(),
                "notification_id": sent.map(|n| n.id.clone()),
                "suppressed": suppressed,
                "decided_at": now,
            })
        };
        let d = decision(notification.as_ref(), suppressed);
        let output = Output::Health {
            sk: dsk.clone(),
            decision: &d,
            notification: notification.as_ref(),
        };
        if self.finish(user, sink, &[output], now).await? {
            let mut d = d;
            if let Some(n) = notification.as_ref().filter(|_| sink.writes()) {
                // After the commit: at most one publish per job and phone (see `push`).
                match super::devices::deliver(&self.push, &self.store, user, n).await {
                    Ok(delivery) => d["delivery"] = json!(delivery),
                    // The job is done (redelivered, it would not push): say so and go on.
                    Err(e) => {
                        tracing::warn!(error = %e, notification_id = %n.id, "the phones were not read; the notification stays in the app's list");
                    }
                }
            }
            return Ok(Report::Done(d, Usage::default()));
        }
        if notification.is_some() {
            // Another notification took the 4-hour lock meanwhile: record that instead.
            let d = decision(None, Some(notify::Suppressed::RateLimited.as_str()));
            let output = Output::Health {
                sk: dsk,
                decision: &d,
                notification: None,
            };
            if self.finish(user, sink, &[output], now).await? {
                return Ok(Report::Done(d, Usage::default()));
            }
        }
        Err(JobError::Busy)
    }
}

/// The notification a health decision sends: its id from the decision's key, so a rerun
/// writes the same one.
fn health_notification(
    dsk: &str,
    message: &str,
    a: &health::Assessment,
    now: DateTime<Utc>,
) -> Notification {
    Notification {
        id: format!(
            "n-{}",
            dsk.trim_start_matches("HEALTH#").replace([':', '#'], "-")
        ),
        message: message.to_string(),
        priority: a.priority,
        source: "health_metric".into(),
        channel: "push".into(),
        created_at: now,
    }
}

/// Where a job's outputs go: written with the job's completion under its claim, or (a dry run,
/// `devstack job --dry-run`) nowhere.
enum Sink<'a> {
    Commit {
        sk: &'a str,
        run: &'a str,
        sent: DateTime<Utc>,
    },
    DryRun,
}

impl Sink<'_> {
    fn writes(&self) -> bool {
        matches!(self, Sink::Commit { .. })
    }
}

/// The lifter a job is about, as its outputs need them.
struct Lifter<'a> {
    user: &'a str,
    profile: Profile,
    tz: chrono_tz::Tz,
    last_notified: Option<DateTime<Utc>>,
}

/// A health reading and the lifter's own baseline for it.
#[derive(Clone, Copy)]
struct Reading<'a> {
    metric: &'a str,
    value: f64,
    baseline: f64,
    observed_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fan_out_reviews_the_last_finished_week() {
        let d = |s: &str| s.parse::<NaiveDate>().unwrap_or_default();
        // Monday 23 November 2026 reviews the week ending Sunday the 22nd; that Sunday itself
        // reviews the week before (its own week is not over).
        assert_eq!(previous_sunday(d("2026-11-23")), d("2026-11-22"));
        assert_eq!(previous_sunday(d("2026-11-22")), d("2026-11-15"));
        assert_eq!(previous_sunday(d("2026-11-28")), d("2026-11-22"));
    }
}
