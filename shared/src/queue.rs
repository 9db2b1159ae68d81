//! The worker queue. Deployed, jobs go to SQS (`QUEUE_URL`). Locally, with no queue, the job is
//! wrapped in the SQS event shape the worker receives and handed to the worker through cargo
//! lambda's local invoke endpoint (`WORKER_INVOKE_URL`), so the whole flow runs on one machine.
//! With neither configured, nothing is sent and the caller says so.

use std::time::Duration;

use serde_json::{Value, json};

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

/// How long the local worker may take to answer.
const LOCAL_INVOKE_TIMEOUT: Duration = Duration::from_secs(10);

impl JobQueue {
    /// `QUEUE_URL` (SQS) or else `WORKER_INVOKE_URL` (local), from the environment.
    pub fn from_env(config: &aws_config::SdkConfig) -> JobQueue {
        let var = |k| {
            std::env::var(k)
                .ok()
                .filter(|v: &String| !v.trim().is_empty())
        };
        if let Some(url) = var("QUEUE_URL") {
            return JobQueue::Sqs {
                client: aws_sdk_sqs::Client::new(config),
                url,
            };
        }
        if let Some(url) = var("WORKER_INVOKE_URL") {
            let http = reqwest::Client::builder()
                .timeout(LOCAL_INVOKE_TIMEOUT)
                .build()
                .unwrap_or_default();
            return JobQueue::LocalInvoke { http, url };
        }
        JobQueue::Disabled
    }

    /// Sends one job (a DESIGN §5 worker message).
    pub async fn send(&self, job: &Value) -> Result<Delivery, QueueError> {
        let body = job.to_string();
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

/// The event SQS hands a Lambda for one message.
pub fn sqs_event(body: &str) -> Value {
    let now = chrono::Utc::now();
    let id = format!("local-{}", now.timestamp_nanos_opt().unwrap_or_default());
    json!({
        "Records": [{
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
        }]
    })
}
