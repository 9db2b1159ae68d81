//! SLOW lane binary: builds the store and model clients once, then serves `POST /v1/stream` as a
//! Lambda response stream (server-sent events).

use std::sync::Arc;

use coach::lanes::slow::SlowLane;
use lambda_http::{Error, service_fn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    coach::telemetry::init();
    let failed = |e: String| Error::from(format!("slow lane configuration: {e}"));
    let config = coach::config::Config::from_env().map_err(failed)?;
    let http = coach::llm::http_client().map_err(failed)?;
    let lane = Arc::new(
        SlowLane::from_config(&config, &http)
            .await
            .map_err(failed)?,
    );
    coach::lanes::keep_serving(|| {
        let lane = lane.clone();
        lambda_http::run_with_streaming_response(service_fn(move |req| {
            let lane = lane.clone();
            async move { Ok::<_, Error>(lane.handle(req).await) }
        }))
    })
    .await
}
