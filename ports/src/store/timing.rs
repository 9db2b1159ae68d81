//! The store times itself: every DynamoDB call, from the SDK's `send` to its answer (retries
//! included), is counted on the current request's log line (`store_calls`, `store_us`), so no
//! code above has to. A call abandoned mid-flight (a timeout dropped it) still ends its timing.

use std::future::Future;

/// `.send().timed()`: the SDK call, timed for the request's log line.
pub(crate) trait Timed: Future + Sized {
    fn timed(self) -> impl Future<Output = Self::Output> {
        async move {
            let _call = Call::start();
            self.await
        }
    }
}

impl<F: Future> Timed for F {}

/// One store call in flight; its drop ends it, however the call ended.
struct Call;

impl Call {
    fn start() -> Call {
        crate::telemetry::store_call_started();
        Call
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        crate::telemetry::store_call_finished();
    }
}
