//! The cold-start baseline: a bare lambda_runtime hello-world, built with the same profile as the
//! lanes, so `devstack coldstart` can compare like with like in the same run.

use lambda_runtime::{Error, LambdaEvent, service_fn};
use serde_json::{Value, json};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(|_: LambdaEvent<Value>| async {
        Ok::<_, Error>(json!({ "hello": "world" }))
    }))
    .await
}
