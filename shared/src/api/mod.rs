//! HTTP edges shared by the API lanes: reading the message from a request, identity from the
//! authorizer, and the error envelope `{"error":{"code","message"}}` (never an internal detail).

use std::borrow::Cow;

use lambda_http::http::{HeaderValue, StatusCode, header};
use lambda_http::request::RequestContext;
use lambda_http::{Body, Request, RequestExt, Response};
use serde_json::{Value, json};

use crate::app::error::AppError;
pub use crate::app::error::ErrorCode;
use crate::domain::limits::{LimitError, MAX_BODY_BYTES, MAX_MESSAGE_CHARS};
use crate::store::StoreError;
use crate::telemetry::RequestLog;

/// An error as HTTP answers it: the use case's (or the adapter's own) error, its status, and for
/// a 405 the method the route takes (sent as `Allow`, RFC 9110).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApiError {
    pub status: u16,
    pub error: AppError,
    pub allow: Option<&'static str>,
    /// Seconds to wait before trying again (`Retry-After`), for a 429.
    pub retry_after: Option<i64>,
}

impl From<AppError> for ApiError {
    fn from(error: AppError) -> Self {
        Self {
            status: status(error.code),
            error,
            allow: None,
            retry_after: None,
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        AppError::from(e).into()
    }
}

impl From<LimitError> for ApiError {
    fn from(e: LimitError) -> Self {
        AppError::from(e).into()
    }
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        AppError::new(code, message).into()
    }

    /// 405 for `path`, which takes only `method`.
    pub fn method_not_allowed(method: &'static str, path: &str) -> Self {
        let mut e = Self::new(ErrorCode::MethodNotAllowed, format!("use {method} {path}"));
        e.allow = Some(method);
        e
    }

    /// Adds a top-level field to the error body.
    pub fn with(mut self, name: &str, value: Value) -> Self {
        self.error = self.error.with(name, value);
        self
    }

    pub fn field(mut self, field: impl Into<Cow<'static, str>>) -> Self {
        self.error = self.error.field(field);
        self
    }

    /// The code as the body writes it.
    pub fn code(&self) -> &'static str {
        self.error.code.as_str()
    }

    /// The envelope `{"error":{"code","message","field"?},"lane"?,…}`.
    pub fn body(&self) -> Value {
        let e = &self.error;
        let mut error = json!({ "code": e.code, "message": e.message });
        if let Some(f) = &e.field {
            error["field"] = json!(f);
        }
        let mut body = json!({ "error": error });
        if let Some(lane) = e.lane {
            body["lane"] = json!(lane);
        }
        if let (Some(extra), Value::Object(obj)) = (&e.extra, &mut body) {
            for (k, v) in extra.iter() {
                obj.insert(k.clone(), v.clone());
            }
        }
        body
    }

    pub fn to_response(&self) -> Response<Body> {
        let mut resp = json_response(self.status, &self.body().to_string());
        if let Some(m) = self.allow {
            resp.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static(m));
        }
        if let Some(secs) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
        }
        resp
    }

    pub fn internal() -> Self {
        AppError::internal().into()
    }
}

/// The HTTP status of each error code (the only place codes meet HTTP).
pub fn status(code: ErrorCode) -> u16 {
    match code {
        ErrorCode::ArtifactAlreadyApplied => 409,
        ErrorCode::ArtifactDismissed => 409,
        ErrorCode::ArtifactExpired => 410,
        ErrorCode::ArtifactNotFound => 404,
        ErrorCode::ConfirmRequired => 409,
        ErrorCode::Conflict => 409,
        ErrorCode::EmptyMessage => 400,
        ErrorCode::ExerciseMismatch => 400,
        ErrorCode::ExerciseNotInWorkout => 404,
        ErrorCode::IdempotencyKeyReused => 409,
        ErrorCode::ImportMalformed => 400,
        ErrorCode::ImportTooLarge => 413,
        ErrorCode::ImportUnitUnknown => 422,
        ErrorCode::Internal => 500,
        ErrorCode::InvalidBody => 400,
        ErrorCode::InvalidCommand => 400,
        ErrorCode::InvalidContext => 400,
        ErrorCode::InvalidJson => 400,
        ErrorCode::MessageTooLong => 413,
        ErrorCode::MethodNotAllowed => 405,
        ErrorCode::NotACommand => 422,
        ErrorCode::NotAFunctionalRequest => 422,
        ErrorCode::NotFound => 404,
        ErrorCode::NoAlternatives => 422,
        ErrorCode::NoRoutine => 404,
        ErrorCode::PayloadTooLarge => 413,
        ErrorCode::QueueUnavailable | ErrorCode::PushUnavailable => 503,
        ErrorCode::RoutineBroken => 409,
        ErrorCode::RoutineNotFound => 404,
        ErrorCode::ReviewNotFound => 404,
        ErrorCode::ImportInProgress => 429,
        ErrorCode::TooManyStreams => 429,
        ErrorCode::RecentSignInRequired => 403,
        ErrorCode::ConversationNotFound => 404,
        ErrorCode::ExerciseNotFound => 404,
        ErrorCode::SetNotFound => 404,
        ErrorCode::StaleContentHash => 409,
        ErrorCode::StoreUnavailable => 503,
        ErrorCode::TemplateNotFound => 404,
        ErrorCode::TemplateInUse => 409,
        ErrorCode::Unauthenticated => 401,
        ErrorCode::UnknownConstraint => 400,
        ErrorCode::UnknownExercise => 400,
        ErrorCode::UnknownField => 400,
        ErrorCode::UnknownIntent => 400,
        ErrorCode::UnsupportedMediaType => 415,
        ErrorCode::UserMismatch => 403,
        ErrorCode::ValidationError => 400,
        ErrorCode::WorkoutActive => 409,
        ErrorCode::WorkoutMismatch => 409,
        ErrorCode::WorkoutNotFound => 404,
        ErrorCode::WorkoutTooLarge => 413,
    }
}

/// A JSON response with the content type set (so lambda_http does not base64 it).
pub(crate) fn json_response(status: u16, body: &str) -> Response<Body> {
    let mut resp = Response::new(Body::Text(body.to_string()));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// The request's log line, with Lambda's request id.
pub(crate) fn request_log(lane: &'static str, req: &Request) -> RequestLog {
    RequestLog::new(lane, req.lambda_context_ref().map(|c| c.request_id.clone()))
}

/// The route path as the event carried it, without a trailing slash.
pub fn path(req: &Request) -> String {
    let raw = req.raw_http_path();
    let p = raw.trim_end_matches('/');
    if p.is_empty() {
        "/".to_string()
    } else {
        p.to_string()
    }
}

/// The authorizer's `sub` claim: REST v1 events carry `authorizer.claims.sub` (Cognito user pool
/// authorizer); v2 events (HTTP APIs, function URLs behind a JWT authorizer) carry
/// `authorizer.jwt.claims.sub`.
pub fn claims_sub(req: &Request) -> Option<String> {
    match req.request_context_ref()? {
        RequestContext::ApiGatewayV1(ctx) => ctx
            .authorizer
            .fields
            .get("claims")?
            .get("sub")?
            .as_str()
            .map(str::to_string),
        RequestContext::ApiGatewayV2(ctx) => ctx
            .authorizer
            .as_ref()?
            .jwt
            .as_ref()?
            .claims
            .get("sub")
            .cloned(),
        _ => None,
    }
}

/// When the caller signed in (the token's `auth_time`, seconds since the epoch), from the
/// authorizer's claims; None without claims (the local stack's dev identity).
pub fn claims_auth_time(req: &Request) -> Option<i64> {
    let claim = match req.request_context_ref()? {
        RequestContext::ApiGatewayV1(ctx) => ctx
            .authorizer
            .fields
            .get("claims")?
            .get("auth_time")?
            .clone(),
        RequestContext::ApiGatewayV2(ctx) => serde_json::Value::String(
            ctx.authorizer
                .as_ref()?
                .jwt
                .as_ref()?
                .claims
                .get("auth_time")?
                .clone(),
        ),
        _ => return None,
    };
    // API Gateway passes claims as strings; a number is read too.
    claim
        .as_i64()
        .or_else(|| claim.as_str()?.trim().parse().ok())
}

pub(crate) fn header_str<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    req.headers().get(name)?.to_str().ok()
}

/// The request's media type, lower case, without parameters ("text/csv; charset=utf-8" gives
/// "text/csv"); empty when absent.
pub(crate) fn media_type(req: &Request) -> String {
    header_str(req, "content-type")
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// Reads the message: `{"message": "..."}` as JSON, or the whole body as `text/plain`.
/// Enforces the body (64 KiB) and message (10,000 characters) limits.
pub(crate) fn extract_message(req: &Request) -> Result<String, ApiError> {
    read_message(req, false)
}

/// Like [`extract_message`], but a JSON body without a `message` is itself the message (the
/// structured endpoints accept `{"type": "app_opened"}` as well as `{"message": "..."}`).
pub(crate) fn extract_payload(req: &Request) -> Result<String, ApiError> {
    read_message(req, true)
}

/// Like [`extract_payload`], for a route whose JSON body may be larger than a message (a batch
/// of health samples): up to `max_bytes`, body and message alike.
pub(crate) fn extract_large_payload(req: &Request, max_bytes: usize) -> Result<String, ApiError> {
    read_message_within(req, true, max_bytes, max_bytes)
}

fn read_message(req: &Request, bare_object: bool) -> Result<String, ApiError> {
    read_message_within(req, bare_object, MAX_BODY_BYTES, MAX_MESSAGE_CHARS)
}

fn read_message_within(
    req: &Request,
    bare_object: bool,
    max_bytes: usize,
    max_chars: usize,
) -> Result<String, ApiError> {
    let bytes: &[u8] = match req.body() {
        Body::Empty => &[],
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => &[],
    };
    if bytes.len() > max_bytes {
        return Err(ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the request body is {} bytes; the limit is {max_bytes}",
                bytes.len()
            ),
        ));
    }
    let content_type = media_type(req);
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(ApiError::new(
            ErrorCode::InvalidBody,
            "the request body is not UTF-8 text",
        ));
    };
    let looks_json = content_type.is_empty() && text.trim_start().starts_with(['{', '[']);
    let message =
        if content_type == "application/json" || content_type.ends_with("+json") || looks_json {
            let value: Value = serde_json::from_str(text).map_err(|e| {
                ApiError::new(
                    ErrorCode::InvalidJson,
                    format!("the request body is not valid JSON: {e}"),
                )
            })?;
            let Value::Object(mut obj) = value else {
                return Err(ApiError::new(
                    ErrorCode::InvalidBody,
                    "the request body must be a JSON object like {\"message\": \"done\"}",
                ));
            };
            match obj.remove("message") {
                Some(Value::String(m)) => m,
                Some(_) => {
                    return Err(ApiError::new(
                        ErrorCode::InvalidBody,
                        "'message' must be a string",
                    )
                    .field("message"));
                }
                None if bare_object => Value::Object(obj).to_string(),
                None => {
                    return Err(ApiError::new(
                        ErrorCode::InvalidBody,
                        "the JSON body needs a 'message' string",
                    )
                    .field("message"));
                }
            }
        } else if content_type.is_empty() || content_type.starts_with("text/") {
            text.to_string()
        } else {
            return Err(ApiError::new(
                ErrorCode::UnsupportedMediaType,
                format!("send application/json or text/plain, not {content_type}"),
            ));
        };
    let chars = message.chars().count();
    if chars > max_chars {
        return Err(ApiError::new(
            ErrorCode::MessageTooLong,
            format!("the message is {chars} characters; the limit is {max_chars}"),
        )
        .field("message"));
    }
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spec's `Error.code` enum is the code's: an app's generated client knows every code.
    #[test]
    fn the_spec_lists_exactly_the_error_codes() {
        let spec = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../openapi.yaml"));
        let line = spec
            .lines()
            .find(|l| l.trim_start().starts_with("code: {type: string, enum: ["))
            .unwrap_or_default();
        let listed: std::collections::BTreeSet<&str> = line
            .split_once('[')
            .and_then(|(_, rest)| rest.split_once(']'))
            .map(|(inside, _)| inside.split(',').map(str::trim).collect())
            .unwrap_or_default();
        let ours: std::collections::BTreeSet<&str> =
            ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(listed, ours);
        for c in ErrorCode::ALL {
            assert!((400..600).contains(&status(c)), "{c:?}");
        }
    }
    use lambda_http::http;

    fn req(content_type: Option<&str>, body: &str) -> Request {
        let mut b = http::Request::builder().method("POST").uri("/v1/copilot");
        if let Some(ct) = content_type {
            b = b.header("content-type", ct);
        }
        b.body(Body::Text(body.to_string())).unwrap()
    }

    #[test]
    fn reads_json_and_text_bodies() {
        assert_eq!(
            extract_message(&req(Some("application/json"), r#"{"message":"done"}"#)).unwrap(),
            "done"
        );
        assert_eq!(
            extract_message(&req(Some("text/plain; charset=utf-8"), "8 @ 100")).unwrap(),
            "8 @ 100"
        );
        assert_eq!(
            extract_message(&req(None, r#"{"message":"next"}"#)).unwrap(),
            "next"
        );
        assert_eq!(extract_message(&req(None, "next")).unwrap(), "next");
    }

    #[test]
    fn rejects_bad_bodies_with_clear_codes() {
        let code = |ct, body: &str| extract_message(&req(ct, body)).unwrap_err();
        assert_eq!(
            code(Some("application/json"), "[1,2]").code(),
            "INVALID_BODY"
        );
        assert_eq!(
            code(Some("application/json"), "\"done\"").code(),
            "INVALID_BODY"
        );
        assert_eq!(code(Some("application/json"), "{").code(), "INVALID_JSON");
        assert_eq!(
            code(Some("application/json"), r#"{"message":5}"#)
                .error
                .field,
            Some("message".into())
        );
        assert_eq!(code(Some("application/xml"), "<m/>").status, 415);
        let long = "a".repeat(10_001);
        let e = code(Some("text/plain"), &long);
        assert_eq!((e.status, e.code()), (413, "MESSAGE_TOO_LONG"));
        assert!(extract_message(&req(Some("text/plain"), &"a".repeat(10_000))).is_ok());
        let big = format!(r#"{{"message":"x","pad":"{}"}}"#, "p".repeat(65 * 1024));
        assert_eq!(code(Some("application/json"), &big).status, 413);
    }

    #[test]
    fn method_not_allowed_names_the_method_in_allow() {
        let r = ApiError::method_not_allowed("GET", "/v1/insights").to_response();
        assert_eq!(r.status(), 405);
        assert_eq!(
            r.headers().get("allow").map(|v| v.as_bytes()),
            Some(&b"GET"[..])
        );
        assert_eq!(
            ApiError::internal().to_response().headers().get("allow"),
            None
        );
    }

    #[test]
    fn error_body_names_field_and_lane() {
        let mut e = ApiError::new(ErrorCode::NotACommand, "not a command");
        e.error.lane = Some("slow");
        assert_eq!(
            e.body(),
            json!({"error":{"code":"NOT_A_COMMAND","message":"not a command"},"lane":"slow"})
        );
        let e: ApiError = LimitError {
            field: "weight",
            message: "too heavy".into(),
            too_large: false,
        }
        .into();
        assert_eq!(e.body()["error"]["field"], "weight");
    }
}
