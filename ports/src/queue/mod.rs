//! The worker queue. Deployed, jobs go to SQS (`QUEUE_URL`). Locally, with no queue, the job is
//! wrapped in the SQS event shape the worker receives and handed to the worker through cargo
//! lambda's local invoke endpoint (`WORKER_INVOKE_URL`), so the whole flow runs on one machine.
//! With neither configured, nothing is sent and the caller says so.

mod job;

use std::time::Duration;

use serde_json::{Value, json};

pub use job::{FANOUT_TYPE, FanOut, JOB_TYPES, Job, Message};

#[derive(Debug, Clone)]
pub enum JobQueue {
    Sqs {
        client: aws_sdk_sqs::Client,
        url: String,
    },
    LocalInvoke {
        http: reqwest::Client,
        url: String,
    },
    Disabled,
}

/// Where jobs go: SQS (`QUEUE_URL`), the local worker (`WORKER_INVOKE_URL`), or nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueTarget {
    Sqs { url: String },
    LocalInvoke { url: String },
    Disabled,
}

/// What happened to a job.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    Queued {
        message_id: String,
    },
    /// The local worker ran it and answered (its batch-item failures, if any, are in the body).
    InvokedLocally {
        status: u16,
    },
    NotConfigured,
}

impl Delivery {
    pub fn as_str(&self) -> &'static str {
        match self {
            Delivery::Queued { .. } => "queued",
            Delivery::InvokedLocally { .. } => "invoked_locally",
            Delivery::NotConfigured => "not_configured",
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[error("could not enqueue the job: {0}")]
pub struct QueueError(String);

/// How long the local worker may take to answer (a batch of ten jobs).
const LOCAL_INVOKE_TIMEOUT: Duration = Duration::from_secs(30);
/// SQS takes at most ten messages per batch, and hands a worker at most ten per invocation.
pub(crate) const BATCH_MESSAGES: usize = 10;

impl JobQueue {
    /// The queue `target` names (SQS, the local worker, or none).
    pub fn new(aws: &aws_config::SdkConfig, target: &QueueTarget) -> JobQueue {
        match target {
            QueueTarget::Sqs { url } => JobQueue::Sqs {
                client: aws_sdk_sqs::Client::new(aws),
                url: url.clone(),
            },
            QueueTarget::LocalInvoke { url } => {
                let http = reqwest::Client::builder()
                    .timeout(LOCAL_INVOKE_TIMEOUT)
                    .build()
                    .unwrap_or_default();
                JobQueue::LocalInvoke {
                    http,
                    url: url.clone(),
                }
            }
            QueueTarget::Disabled => JobQueue::Disabled,
        }
    }

    /// Sends one job.
    pub async fn send(&self, job: &Job) -> Result<Delivery, QueueError> {
        self.send_body(job.to_message().to_string()).await
    }

    /// Sends the weekly fan-out (a continuation of one, with `after`).
    pub async fn send_fan_out(&self, fan_out: &FanOut) -> Result<Delivery, QueueError> {
        self.send_body(fan_out.to_message().to_string()).await
    }

    async fn send_body(&self, body: String) -> Result<Delivery, QueueError> {
        match self {
            JobQueue::Sqs { client, url } => {
                let out = client
                    .send_message()
                    .queue_url(url)
                    .message_body(body)
                    .send()
                    .await
                    .map_err(|e| {
                        QueueError(aws_sdk_sqs::error::DisplayErrorContext(&e).to_string())
                    })?;
                Ok(Delivery::Queued {
                    message_id: out.message_id().unwrap_or_default().to_string(),
                })
            }
            JobQueue::LocalInvoke { http, url } => {
                let resp = http
                    .post(url)
                    .header("content-type", "application/json")
                    .body(sqs_event(&body).to_string())
                    .send()
                    .await
                    .map_err(|e| QueueError(format!("local worker at {url}: {e}")))?;
                Ok(Delivery::InvokedLocally {
                    status: resp.status().as_u16(),
                })
            }
            JobQueue::Disabled => Ok(Delivery::NotConfigured),
        }
    }
}

impl JobQueue {
    /// Sends many jobs: SQS batches of ten, or locally one worker invocation per ten jobs (as
    /// SQS would deliver them). Returns how many were handed over.
    pub async fn send_all(&self, jobs: &[Job]) -> Result<usize, QueueError> {
        let mut sent = 0;
        for chunk in jobs.chunks(BATCH_MESSAGES) {
            let bodies: Vec<String> = chunk.iter().map(|j| j.to_message().to_string()).collect();
            match self {
                JobQueue::Sqs { client, url } => {
                    let entries = bodies
                        .iter()
                        .enumerate()
                        .map(|(i, b)| {
                            aws_sdk_sqs::types::SendMessageBatchRequestEntry::builder()
                                .id(format!("m{i}"))
                                .message_body(b)
                                .build()
                                .map_err(|e| QueueError(e.to_string()))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    let out = client
                        .send_message_batch()
                        .queue_url(url)
                        .set_entries(Some(entries))
                        .send()
                        .await
                        .map_err(|e| {
                            QueueError(aws_sdk_sqs::error::DisplayErrorContext(&e).to_string())
                        })?;
                    if let Some(f) = out.failed.first() {
                        return Err(QueueError(format!(
                            "{} of {} messages refused: {}",
                            out.failed.len(),
                            bodies.len(),
                            f.message.as_deref().unwrap_or(&f.code)
                        )));
                    }
                }
                JobQueue::LocalInvoke { http, url } => {
                    let resp = http
                        .post(url)
                        .header("content-type", "application/json")
                        .body(sqs_batch_event(&bodies).to_string())
                        .send()
                        .await
                        .map_err(|e| QueueError(format!("local worker at {url}: {e}")))?;
                    if !resp.status().is_success() {
                        return Err(QueueError(format!(
                            "local worker at {url} answered {}",
                            resp.status()
                        )));
                    }
                }
                JobQueue::Disabled => return Ok(sent),
            }
            sent += chunk.len();
        }
        Ok(sent)
    }

    /// "sqs", "local_invoke" or "disabled", for answers that say where jobs went.
    pub fn kind(&self) -> &'static str {
        match self {
            JobQueue::Sqs { .. } => "sqs",
            JobQueue::LocalInvoke { .. } => "local_invoke",
            JobQueue::Disabled => "disabled",
        }
    }
}

/// The event SQS hands a Lambda for one message.
pub fn sqs_event(body: &str) -> Value {
    sqs_batch_event(&[body.to_string()])
}

/// The event SQS hands a Lambda for a batch of messages.
pub(crate) fn sqs_batch_event(bodies: &[String]) -> Value {
    let now = chrono::Utc::now();
    let records: Vec<Value> = bodies
        .iter()
        .enumerate()
        .map(|(i, body)| sqs_record(body, i, now))
        .collect();
    json!({ "Records": records })
}

fn sqs_record(body: &str, i: usize, now: chrono::DateTime<chrono::Utc>) -> Value {
    let id = format!(
        "local-{}-{i}",
        now.timestamp_nanos_opt().unwrap_or_default()
    );
    json!({
            "messageId": id,
            "receiptHandle": id,
            "body": body,
            "attributes": {
                "ApproximateReceiveCount": "1",
                "SentTimestamp": now.timestamp_millis().to_string(),
                "SenderId": "local",
                "ApproximateFirstReceiveTimestamp": now.timestamp_millis().to_string(),
            },
            "messageAttributes": {},
            "md5OfBody": "",
            "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:coach-jobs-local",
            "awsRegion": "us-east-1",
    })
}
