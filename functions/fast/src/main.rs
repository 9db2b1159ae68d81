//! FAST lane binary: reads its configuration and builds the store client once, then serves
//! `POST /v1/copilot`.

use coach::lanes::fast::FastLane;
use lambda_http::{Error, service_fn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    coach::telemetry::init();
    let config = coach::config::Config::from_env()
        .map_err(|e| Error::from(format!("fast lane configuration: {e}")))?;
    let lane = FastLane::from_config(&config).await;
    let lane = &lane;
    // One failed response post does not end the process (`keep_serving`).
    coach::lanes::keep_serving(|| {
        lambda_http::run(service_fn(move |req| async move {
            Ok::<_, Error>(lane.handle(req).await)
        }))
    })
    .await
}
