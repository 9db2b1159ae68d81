//! WORKER lane binary: builds the store client once, then handles SQS batches with partial
//! batch responses (see `coach::lanes::worker`).

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use coach::lanes::worker::SqsEvent;
use coach::lanes::worker::WorkerLane;
use lambda_runtime::{Error, LambdaEvent, service_fn};

/// The budget when the runtime gives no usable deadline: local emulators (cargo lambda watch
/// sends its timeout, 600000, where Lambda sends an epoch time in milliseconds).
const LOCAL_BUDGET: Duration = Duration::from_secs(30);

/// The invocation's deadline as an `Instant` (Lambda gives epoch milliseconds).
fn deadline(epoch_ms: u64) -> Instant {
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    match epoch_ms.checked_sub(now_ms) {
        Some(left) if left > 0 => Instant::now() + Duration::from_millis(left),
        _ => Instant::now() + LOCAL_BUDGET,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Error> {
    coach::telemetry::init();
    let failed = |e: String| Error::from(format!("worker configuration: {e}"));
    let config = coach::config::Config::from_env().map_err(failed)?;
    let lane = Arc::new(WorkerLane::from_config(&config).await.map_err(failed)?);
    // One failed response post does not end the process (`keep_serving`).
    coach::lanes::keep_serving(|| {
        let lane = lane.clone();
        lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
            let lane = lane.clone();
            async move {
                let until = deadline(event.context.deadline);
                Ok::<_, Error>(lane.handle(&event.payload, until).await)
            }
        }))
    })
    .await
}
