//! WORKER lane: the SQS adapter of the worker's jobs (`app::jobs`). Each record is one queue
//! message; a record that is not JSON, has an unknown `type` or misses fields fails alone
//! (partial batch response) with a logged reason, and SQS dead-letters it after three
//! receives. One log line per record, which is also the worker's metrics record (EMF).

use std::time::Instant;

use chrono::{DateTime, Utc};

pub use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use futures_util::FutureExt;
use serde::Serialize;

pub use crate::app::jobs::{ACTIVE_DAYS, RECORD_MIN_BUDGET, previous_sunday};
use crate::app::jobs::{JobError, Report, Worker};
use crate::config::Config;
use crate::llm::Usage;
use crate::push::Push;
use crate::queue::{FANOUT_TYPE, JobQueue, Message};
use crate::store::Store;
use crate::telemetry::Metrics;

/// The SQS adapter of the worker's jobs (`app::jobs`).
pub struct WorkerLane {
    jobs: Worker,
}

/// One line per record: what became of it, and the worker's metrics (EMF, lane `worker`).
#[derive(Serialize)]
struct JobLog<'a> {
    level: &'static str,
    event: &'static str,
    lane: &'static str,
    message_id: &'a str,
    outcome: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(flatten)]
    metrics: Metrics,
}

impl WorkerLane {
    /// The worker `config` describes (read once in `main`).
    pub async fn from_config(config: &Config) -> Result<Self, String> {
        let aws = crate::store::aws_config_from_env("worker").await;
        // The model's client (an HTTP one with its TLS roots, or Bedrock's) only when a model
        // is configured.
        let lane = crate::llm::ModelLane::Worker;
        let key = crate::secrets::model_api_key(&aws, config, &[lane]).await?;
        let model = config
            .model(lane, key.as_deref())?
            .map(|c| crate::llm::ModelClients::new(&aws, None).model(c))
            .transpose()?;
        let store = Store::from_config(&aws, config.table.clone());
        let meter = config.meter(&store);
        Ok(Self::new(
            Worker::new(
                store,
                JobQueue::new(&aws, &config.queue),
                Push::new(&aws, config.push.clone()),
            )
            .with_model(model, meter),
        ))
    }

    pub fn new(jobs: Worker) -> Self {
        Self { jobs }
    }

    /// The jobs, for an operator's tool (`devstack job`).
    pub fn jobs(&self) -> &Worker {
        &self.jobs
    }

    /// Handles one SQS batch and answers the partial-batch response: the ids of the records to
    /// deliver again. `deadline` is the invocation's.
    pub async fn handle(&self, event: &SqsEvent, deadline: Instant) -> SqsBatchResponse {
        let mut response = SqsBatchResponse::default();
        for r in &event.records {
            let id = r.message_id.clone().unwrap_or_default();
            let started = Instant::now();
            let left = deadline.saturating_duration_since(started);
            let outcome = if left < RECORD_MIN_BUDGET {
                Err((
                    "OUT_OF_TIME",
                    "not started: too little of the invocation left".to_string(),
                ))
            } else {
                self.record(r.body.as_deref().unwrap_or_default(), sent_at(r), deadline)
                    .await
            };
            let tokens = match &outcome {
                Ok((_, Report::Done(_, u))) => *u,
                _ => Usage::default(),
            };
            let (outcome, reason) = match &outcome {
                Ok((kind, Report::Done(..))) => (format!("{kind}:done"), None),
                Ok((kind, Report::Duplicate)) => (format!("{kind}:duplicate"), None),
                Ok((kind, Report::AccountDeleted)) => (format!("{kind}:account_deleted"), None),
                Ok((kind, Report::WorkoutGone)) => (format!("{kind}:workout_gone"), None),
                Err((code, why)) => (code.to_string(), Some(why.clone())),
            };
            if reason.is_some() {
                let mut failure = BatchItemFailure::default();
                failure.item_identifier = id.clone();
                response.batch_item_failures.push(failure);
            }
            // A busy job (another delivery holds its claim) is redelivered, not an error.
            let error = reason.is_some() && outcome != "BUSY";
            let line = JobLog {
                level: if reason.is_some() { "WARN" } else { "INFO" },
                event: "job",
                lane: "worker",
                message_id: &id,
                outcome: &outcome,
                reason: reason.as_deref(),
                metrics: Metrics::new(error, started.elapsed().as_micros() as u64, tokens),
            };
            println!("{}", serde_json::to_string(&line).unwrap_or_default());
        }
        response
    }

    async fn record(
        &self,
        body: &str,
        sent: DateTime<Utc>,
        deadline: Instant,
    ) -> Result<(&'static str, Report), (&'static str, String)> {
        let message = Message::parse(body).map_err(|why| ("INVALID_JOB", why))?;
        let left = deadline.saturating_duration_since(Instant::now());
        let budget = left.saturating_sub(RECORD_MIN_BUDGET / 2);
        let lease = Utc::now() + chrono::Duration::from_std(left).unwrap_or_default();
        let (kind, work) = match &message {
            Message::Job(job) => (
                job.kind(),
                self.jobs.run(job, sent, lease, Utc::now()).boxed(),
            ),
            Message::FanOut(f) => (
                FANOUT_TYPE,
                self.jobs.fan_out(f, deadline, Utc::now()).boxed(),
            ),
        };
        match tokio::time::timeout(budget, work).await {
            Ok(Ok(r)) => Ok((kind, r)),
            Ok(Err(JobError::Busy)) => Err(("BUSY", JobError::Busy.to_string())),
            Ok(Err(e @ JobError::Invalid(_))) => Err(("INVALID_JOB", e.to_string())),
            Ok(Err(e @ JobError::Store(_))) => Err(("STORE_UNAVAILABLE", e.to_string())),
            Ok(Err(e @ JobError::Queue(_))) => Err(("QUEUE_UNAVAILABLE", e.to_string())),
            Err(_) => Err((
                "OUT_OF_TIME",
                "the job did not finish within the invocation".into(),
            )),
        }
    }
}

/// When SQS accepted the record (its `SentTimestamp`): a job sent before its lifter deleted the
/// account writes nothing. A record without one counts as sent now.
fn sent_at(r: &aws_lambda_events::event::sqs::SqsMessage) -> DateTime<Utc> {
    r.attributes
        .get("SentTimestamp")
        .and_then(|ms| ms.parse::<i64>().ok())
        .and_then(DateTime::from_timestamp_millis)
        .unwrap_or_else(Utc::now)
}
