//! `coach-ports`: the coach's ports to the outside, each a leaf over the core's `domain`:
//!
//! - `store`: DynamoDB, one table; it owns its keys and items;
//! - `queue`: the worker's jobs (SQS, or locally the worker's invoke endpoint);
//! - `llm`: model servers (Gemini, OpenAI-compatible, Bedrock's ConverseStream);
//! - `push`: SNS push notifications;
//! - `telemetry`: the request's log line and metrics (EMF);
//! - `retry`: `Attempts`, every read-apply-write loop's budget;
//! - `tls`: the compiled-in roots of trust the HTTPS clients share.
//!
//! Cargo keeps the direction: this crate depends on `coach-core` and cannot name the use cases,
//! the coach or the lanes above it, and nothing here speaks the HTTP of the API.

// `crate::domain::…` in the ports names the core's.
use coach_core::domain;

/// Fuzz properties: for the fuzz targets (feature `fuzzing`) and the corpus replay test.
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod llm;
pub mod push;
pub mod queue;
pub mod retry;
pub mod store;
pub mod telemetry;
pub mod tls;
