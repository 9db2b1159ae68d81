//! WORKER lane binary: a skeleton until its issue lands. It processes nothing and reports every
//! record of the batch as failed, so SQS keeps the jobs (and dead-letters them after the
//! template's receive limit) instead of silently dropping them.

use lambda_runtime::{Error, LambdaEvent, service_fn};
use serde_json::{Value, json};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    coach::telemetry::init();
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| async move {
        let failures: Vec<Value> = event.payload["Records"]
            .as_array()
            .map(|records| {
                records.iter().filter_map(|r| r["messageId"].as_str()).map(|id| json!({ "itemIdentifier": id })).collect()
            })
            .unwrap_or_default();
        println!("{}", json!({"level":"WARN","event":"batch","lane":"worker","outcome":"NOT_IMPLEMENTED","records":failures.len()}));
        Ok::<_, Error>(json!({ "batchItemFailures": failures }))
    }))
    .await
}
