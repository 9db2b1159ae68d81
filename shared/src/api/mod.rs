//! HTTP edges shared by the API lanes: reading the message from a request, identity from the
//! authorizer, and the error envelope `{"error":{"code","message"}}` (never an internal detail).

use std::borrow::Cow;

use lambda_http::http::{HeaderValue, StatusCode, header};
use lambda_http::request::RequestContext;
use lambda_http::{Body, Request, RequestExt, Response};
use serde_json::{Value, json};

use crate::domain::limits::{LimitError, MAX_BODY_BYTES, MAX_MESSAGE_CHARS};
use crate::telemetry::RequestLog;

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub message: String,
    /// The request field a validation error is about (`exercises[1].sets` inside a list).
    pub field: Option<Cow<'static, str>>,
    /// For 422 `NOT_A_COMMAND`: the lane the app should use instead.
    pub lane: Option<&'static str>,
    /// Top-level fields added to the error body (the functional envelope, the active workout
    /// of a 409). Boxed: errors travel in `Result`s and most have none.
    pub extra: Option<Box<serde_json::Map<String, Value>>>,
    /// For 405: the method the route takes, sent as the `Allow` header (RFC 9110).
    pub allow: Option<&'static str>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            status: code.status(),
            code: code.as_str(),
            message: message.into(),
            field: None,
            lane: None,
            extra: None,
            allow: None,
        }
    }

    /// 405 for `path`, which takes only `method`.
    pub fn method_not_allowed(method: &'static str, path: &str) -> Self {
        let mut e = Self::new(ErrorCode::MethodNotAllowed, format!("use {method} {path}"));
        e.allow = Some(method);
        e
    }

    /// Adds a top-level field to the error body.
    pub fn with(mut self, name: &str, value: Value) -> Self {
        self.extra
            .get_or_insert_with(Default::default)
            .insert(name.to_string(), value);
        self
    }

    pub fn field(mut self, field: impl Into<Cow<'static, str>>) -> Self {
        self.field = Some(field.into());
        self
    }

    pub fn body(&self) -> Value {
        let mut error = json!({ "code": self.code, "message": self.message });
        if let Some(f) = &self.field {
            error["field"] = json!(f);
        }
        let mut body = json!({ "error": error });
        if let Some(lane) = self.lane {
            body["lane"] = json!(lane);
        }
        if let (Some(extra), Value::Object(obj)) = (&self.extra, &mut body) {
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
        resp
    }

    pub fn internal() -> Self {
        Self::new(
            ErrorCode::Internal,
            "something went wrong on our side; the request was not applied, please retry",
        )
    }

    pub fn store_unavailable() -> Self {
        Self::new(
            ErrorCode::StoreUnavailable,
            "the training store is not reachable right now; nothing was changed, please retry",
        )
    }
}

/// Every error the API answers with: its code (what the app switches on) and HTTP status in
/// one place. `openapi.yaml` lists the codes each route can answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    ArtifactAlreadyApplied,
    ArtifactDismissed,
    ArtifactExpired,
    ArtifactNotFound,
    ConfirmRequired,
    Conflict,
    ConversationNotFound,
    EmptyMessage,
    ExerciseMismatch,
    ExerciseNotFound,
    ExerciseNotInWorkout,
    IdempotencyKeyReused,
    ImportMalformed,
    ImportTooLarge,
    /// An import whose weights do not say kilograms or pounds: the lifter is asked.
    ImportUnitUnknown,
    Internal,
    InvalidBody,
    InvalidCommand,
    InvalidContext,
    InvalidJson,
    MessageTooLong,
    MethodNotAllowed,
    NotACommand,
    NotAFunctionalRequest,
    NotFound,
    NoAlternatives,
    NoRoutine,
    PayloadTooLarge,
    QueueUnavailable,
    ReviewNotFound,
    RoutineBroken,
    RoutineNotFound,
    SetNotFound,
    StaleContentHash,
    StoreUnavailable,
    TemplateNotFound,
    Unauthenticated,
    UnknownConstraint,
    UnknownExercise,
    UnknownField,
    UnknownIntent,
    UnsupportedMediaType,
    UserMismatch,
    ValidationError,
    WorkoutActive,
    WorkoutMismatch,
    WorkoutNotFound,
    WorkoutTooLarge,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 48] = [
        ErrorCode::ArtifactAlreadyApplied,
        ErrorCode::ArtifactDismissed,
        ErrorCode::ArtifactExpired,
        ErrorCode::ArtifactNotFound,
        ErrorCode::ConfirmRequired,
        ErrorCode::Conflict,
        ErrorCode::ConversationNotFound,
        ErrorCode::EmptyMessage,
        ErrorCode::ExerciseMismatch,
        ErrorCode::ExerciseNotFound,
        ErrorCode::ExerciseNotInWorkout,
        ErrorCode::IdempotencyKeyReused,
        ErrorCode::ImportMalformed,
        ErrorCode::ImportTooLarge,
        ErrorCode::ImportUnitUnknown,
        ErrorCode::Internal,
        ErrorCode::InvalidBody,
        ErrorCode::InvalidCommand,
        ErrorCode::InvalidContext,
        ErrorCode::InvalidJson,
        ErrorCode::MessageTooLong,
        ErrorCode::MethodNotAllowed,
        ErrorCode::NotACommand,
        ErrorCode::NotAFunctionalRequest,
        ErrorCode::NotFound,
        ErrorCode::NoAlternatives,
        ErrorCode::NoRoutine,
        ErrorCode::PayloadTooLarge,
        ErrorCode::QueueUnavailable,
        ErrorCode::ReviewNotFound,
        ErrorCode::RoutineBroken,
        ErrorCode::RoutineNotFound,
        ErrorCode::SetNotFound,
        ErrorCode::StaleContentHash,
        ErrorCode::StoreUnavailable,
        ErrorCode::TemplateNotFound,
        ErrorCode::Unauthenticated,
        ErrorCode::UnknownConstraint,
        ErrorCode::UnknownExercise,
        ErrorCode::UnknownField,
        ErrorCode::UnknownIntent,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::UserMismatch,
        ErrorCode::ValidationError,
        ErrorCode::WorkoutActive,
        ErrorCode::WorkoutMismatch,
        ErrorCode::WorkoutNotFound,
        ErrorCode::WorkoutTooLarge,
    ];

    pub fn status(self) -> u16 {
        match self {
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
            ErrorCode::QueueUnavailable => 503,
            ErrorCode::RoutineBroken => 409,
            ErrorCode::RoutineNotFound => 404,
            ErrorCode::ReviewNotFound => 404,
            ErrorCode::ConversationNotFound => 404,
            ErrorCode::ExerciseNotFound => 404,
            ErrorCode::SetNotFound => 404,
            ErrorCode::StaleContentHash => 409,
            ErrorCode::StoreUnavailable => 503,
            ErrorCode::TemplateNotFound => 404,
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

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ArtifactAlreadyApplied => "ARTIFACT_ALREADY_APPLIED",
            ErrorCode::ArtifactDismissed => "ARTIFACT_DISMISSED",
            ErrorCode::ArtifactExpired => "ARTIFACT_EXPIRED",
            ErrorCode::ArtifactNotFound => "ARTIFACT_NOT_FOUND",
            ErrorCode::ConfirmRequired => "CONFIRM_REQUIRED",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::EmptyMessage => "EMPTY_MESSAGE",
            ErrorCode::ExerciseMismatch => "EXERCISE_MISMATCH",
            ErrorCode::ExerciseNotInWorkout => "EXERCISE_NOT_IN_WORKOUT",
            ErrorCode::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            ErrorCode::ImportMalformed => "IMPORT_MALFORMED",
            ErrorCode::ImportTooLarge => "IMPORT_TOO_LARGE",
            ErrorCode::ImportUnitUnknown => "IMPORT_UNIT_UNKNOWN",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::InvalidBody => "INVALID_BODY",
            ErrorCode::InvalidCommand => "INVALID_COMMAND",
            ErrorCode::InvalidContext => "INVALID_CONTEXT",
            ErrorCode::InvalidJson => "INVALID_JSON",
            ErrorCode::MessageTooLong => "MESSAGE_TOO_LONG",
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::NotACommand => "NOT_A_COMMAND",
            ErrorCode::NotAFunctionalRequest => "NOT_A_FUNCTIONAL_REQUEST",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::NoAlternatives => "NO_ALTERNATIVES",
            ErrorCode::NoRoutine => "NO_ROUTINE",
            ErrorCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ErrorCode::QueueUnavailable => "QUEUE_UNAVAILABLE",
            ErrorCode::RoutineBroken => "ROUTINE_BROKEN",
            ErrorCode::RoutineNotFound => "ROUTINE_NOT_FOUND",
            ErrorCode::SetNotFound => "SET_NOT_FOUND",
            ErrorCode::StaleContentHash => "STALE_CONTENT_HASH",
            ErrorCode::StoreUnavailable => "STORE_UNAVAILABLE",
            ErrorCode::TemplateNotFound => "TEMPLATE_NOT_FOUND",
            ErrorCode::Unauthenticated => "UNAUTHENTICATED",
            ErrorCode::UnknownConstraint => "UNKNOWN_CONSTRAINT",
            ErrorCode::UnknownExercise => "UNKNOWN_EXERCISE",
            ErrorCode::UnknownField => "UNKNOWN_FIELD",
            ErrorCode::UnknownIntent => "UNKNOWN_INTENT",
            ErrorCode::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            ErrorCode::UserMismatch => "USER_MISMATCH",
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::WorkoutActive => "WORKOUT_ACTIVE",
            ErrorCode::WorkoutMismatch => "WORKOUT_MISMATCH",
            ErrorCode::WorkoutNotFound => "WORKOUT_NOT_FOUND",
            ErrorCode::ReviewNotFound => "REVIEW_NOT_FOUND",
            ErrorCode::ConversationNotFound => "CONVERSATION_NOT_FOUND",
            ErrorCode::ExerciseNotFound => "EXERCISE_NOT_FOUND",
            ErrorCode::WorkoutTooLarge => "WORKOUT_TOO_LARGE",
        }
    }
}

impl From<LimitError> for ApiError {
    fn from(e: LimitError) -> Self {
        if e.too_large {
            return ApiError::new(ErrorCode::WorkoutTooLarge, e.to_string()).field(e.field);
        }
        ApiError::new(ErrorCode::ValidationError, e.to_string()).field(e.field)
    }
}

/// A JSON response with the content type set (so lambda_http does not base64 it).
pub fn json_response(status: u16, body: &str) -> Response<Body> {
    let mut resp = Response::new(Body::Text(body.to_string()));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// The request's log line, with Lambda's request id.
pub fn request_log(lane: &'static str, req: &Request) -> RequestLog {
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

pub fn header_str<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    req.headers().get(name)?.to_str().ok()
}

/// The request's media type, lower case, without parameters ("text/csv; charset=utf-8" gives
/// "text/csv"); empty when absent.
pub fn media_type(req: &Request) -> String {
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
pub fn extract_message(req: &Request) -> Result<String, ApiError> {
    read_message(req, false)
}

/// Like [`extract_message`], but a JSON body without a `message` is itself the message (the
/// structured endpoints accept `{"type": "app_opened"}` as well as `{"message": "..."}`).
pub fn extract_payload(req: &Request) -> Result<String, ApiError> {
    read_message(req, true)
}

fn read_message(req: &Request, bare_object: bool) -> Result<String, ApiError> {
    let bytes: &[u8] = match req.body() {
        Body::Empty => &[],
        Body::Text(t) => t.as_bytes(),
        Body::Binary(b) => b,
        _ => &[],
    };
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the request body is {} bytes; the limit is {MAX_BODY_BYTES}",
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
    if chars > MAX_MESSAGE_CHARS {
        return Err(ApiError::new(
            ErrorCode::MessageTooLong,
            format!("the message is {chars} characters; the limit is {MAX_MESSAGE_CHARS}"),
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
            assert!((400..600).contains(&c.status()), "{c:?}");
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
        assert_eq!(code(Some("application/json"), "[1,2]").code, "INVALID_BODY");
        assert_eq!(
            code(Some("application/json"), "\"done\"").code,
            "INVALID_BODY"
        );
        assert_eq!(code(Some("application/json"), "{").code, "INVALID_JSON");
        assert_eq!(
            code(Some("application/json"), r#"{"message":5}"#).field,
            Some("message".into())
        );
        assert_eq!(code(Some("application/xml"), "<m/>").status, 415);
        let long = "a".repeat(10_001);
        let e = code(Some("text/plain"), &long);
        assert_eq!((e.status, e.code), (413, "MESSAGE_TOO_LONG"));
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
        e.lane = Some("slow");
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
