//! FUNCTIONAL lane binary: builds the store and queue clients once, then serves the structured
//! routes (smart buttons, monitor, app events, workouts, notifications). The model client is
//! built once here too, and used only when `FUNCTIONAL_MODEL` is set.

use coach::lanes::functional::FunctionalLane;
use lambda_http::{Error, service_fn};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    coach::telemetry::init();
    let failed = |e: String| Error::from(format!("functional lane configuration: {e}"));
    let config = coach::config::Config::from_env().map_err(failed)?;
    let http = coach::llm::http_client().map_err(failed)?;
    let lane = FunctionalLane::from_config(&config, &http)
        .await
        .map_err(failed)?;
    let lane = &lane;
    // One failed response post does not end the process (`keep_serving`).
    coach::lanes::keep_serving(|| {
        lambda_http::run(service_fn(move |req| async move {
            Ok::<_, Error>(lane.handle(req).await)
        }))
    })
    .await
}
