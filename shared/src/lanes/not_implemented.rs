//! The answer of a lane whose issue has not landed yet: 501 `NOT_IMPLEMENTED`, logged like any
//! other request, so the app and the logs both say exactly what is missing.

use lambda_http::{Body, Request, Response};

use crate::api::ApiError;
use crate::telemetry::RequestLog;

pub fn respond(lane: &'static str, req: &Request) -> Response<Body> {
    let mut log = RequestLog::for_request(lane, req);
    let err = ApiError::not_implemented(&format!("the {lane} lane"));
    log.status = err.status;
    log.outcome = err.code;
    log.emit();
    err.to_response()
}
