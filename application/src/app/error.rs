//! What a use case answers when it cannot do what was asked, in the application's own terms:
//! the code the app switches on, a message for the lifter, the request field at fault and any
//! detail to send with it. No HTTP here: the adapters map a code to its status (`api::status`)
//! and write the envelope.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::domain::limits::LimitError;
use crate::store::StoreError;

/// Every error a use case (or an adapter) answers with: the code the app switches on. Its HTTP
/// status is the adapter's (`api::status`); `openapi.yaml` lists the codes each route can
/// answer.
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
    /// One import of the lifter's is already running (429).
    ImportInProgress,
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
    /// The push service is not configured or did not answer (503).
    PushUnavailable,
    QueueUnavailable,
    /// Deleting the account needs a sign-in of the last few minutes, not just a valid token.
    RecentSignInRequired,
    ReviewNotFound,
    RoutineBroken,
    RoutineNotFound,
    SetNotFound,
    StaleContentHash,
    StoreUnavailable,
    /// A template a routine's day still uses cannot be deleted (409).
    TemplateInUse,
    TemplateNotFound,
    /// The lifter has as many coach answers streaming as they may (429).
    TooManyStreams,
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
    pub const ALL: [ErrorCode; 53] = [
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
        ErrorCode::ImportInProgress,
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
        ErrorCode::PushUnavailable,
        ErrorCode::QueueUnavailable,
        ErrorCode::RecentSignInRequired,
        ErrorCode::ReviewNotFound,
        ErrorCode::RoutineBroken,
        ErrorCode::RoutineNotFound,
        ErrorCode::SetNotFound,
        ErrorCode::StaleContentHash,
        ErrorCode::StoreUnavailable,
        ErrorCode::TemplateInUse,
        ErrorCode::TemplateNotFound,
        ErrorCode::TooManyStreams,
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
            ErrorCode::ImportInProgress => "IMPORT_IN_PROGRESS",
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
            ErrorCode::PushUnavailable => "PUSH_UNAVAILABLE",
            ErrorCode::QueueUnavailable => "QUEUE_UNAVAILABLE",
            ErrorCode::RoutineBroken => "ROUTINE_BROKEN",
            ErrorCode::RoutineNotFound => "ROUTINE_NOT_FOUND",
            ErrorCode::SetNotFound => "SET_NOT_FOUND",
            ErrorCode::StaleContentHash => "STALE_CONTENT_HASH",
            ErrorCode::StoreUnavailable => "STORE_UNAVAILABLE",
            ErrorCode::TemplateInUse => "TEMPLATE_IN_USE",
            ErrorCode::TemplateNotFound => "TEMPLATE_NOT_FOUND",
            ErrorCode::TooManyStreams => "TOO_MANY_STREAMS",
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
            ErrorCode::RecentSignInRequired => "RECENT_SIGN_IN_REQUIRED",
            ErrorCode::ReviewNotFound => "REVIEW_NOT_FOUND",
            ErrorCode::ConversationNotFound => "CONVERSATION_NOT_FOUND",
            ErrorCode::ExerciseNotFound => "EXERCISE_NOT_FOUND",
            ErrorCode::WorkoutTooLarge => "WORKOUT_TOO_LARGE",
        }
    }
}

impl serde::Serialize for ErrorCode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A use case's error.
#[derive(Debug, Clone, PartialEq)]
pub struct AppError {
    pub code: ErrorCode,
    pub message: String,
    /// The request field the error is about (`exercises[1].sets` inside a list).
    pub field: Option<Cow<'static, str>>,
    /// For `NOT_A_COMMAND`: the lane the app should use instead.
    pub lane: Option<&'static str>,
    /// Top-level fields sent with the error (the functional envelope, the active workout of a
    /// `WORKOUT_ACTIVE`). Boxed: errors travel in `Result`s and most have none.
    pub extra: Option<Box<Map<String, Value>>>,
}

impl AppError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            field: None,
            lane: None,
            extra: None,
        }
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

/// A failed store call: logged with its cause, answered as `STORE_UNAVAILABLE` (the lifter is
/// told nothing changed and to retry; the cause stays in the log).
impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        tracing::error!(error = %e, "store call failed");
        AppError::store_unavailable()
    }
}

impl From<LimitError> for AppError {
    fn from(e: LimitError) -> Self {
        if e.too_large {
            return AppError::new(ErrorCode::WorkoutTooLarge, e.to_string()).field(e.field);
        }
        AppError::new(ErrorCode::ValidationError, e.to_string()).field(e.field)
    }
}
