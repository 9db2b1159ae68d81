//! FAST lane binary: builds the store client once, then serves `POST /v1/copilot`.

use coach::lanes::fast::FastLane;
use lambda_http::{Error, service_fn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    coach::telemetry::init();
    let lane = FastLane::from_env()
        .await
        .map_err(|e| Error::from(format!("fast lane configuration: {e}")))?;
    let lane = &lane;
    lambda_http::run(service_fn(move |req| async move {
        Ok::<_, Error>(lane.handle(req).await)
    }))
    .await
}
