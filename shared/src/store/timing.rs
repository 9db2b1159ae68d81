//! The store times itself: every DynamoDB call, retries included, is counted on the current
//! request's log line (`store_calls`, `store_us`), so no code above has to.

use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextRef, FinalizerInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_smithy_runtime_api::box_error::BoxError;

#[derive(Debug)]
pub(super) struct StoreTiming;

impl Intercept for StoreTiming {
    fn name(&self) -> &'static str {
        "StoreTiming"
    }

    fn read_before_execution(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        crate::telemetry::store_call_started();
        Ok(())
    }

    fn read_after_execution(
        &self,
        _context: &FinalizerInterceptorContextRef<'_>,
        _runtime_components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        crate::telemetry::store_call_finished();
        Ok(())
    }
}
