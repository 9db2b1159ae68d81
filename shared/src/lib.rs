//! `coach`: the shared brain of the strength-coach backend. Every lane binary is a thin adapter
//! over this crate; a request's context is a value passed down, never global state.

pub mod agent;
// The pure core is its own crate (no I/O dependency); re-exported so that `crate::domain::…`
// and `coach::domain::…` name it as before.
pub use coach_core::{analysis, context, domain, router, skills};
// The ports (store, queue, models, push, telemetry, retry, tls) likewise.
pub use coach_ports::{llm, push, queue, retry, store, telemetry, tls};
pub mod api;
pub mod app;
pub mod config;
/// Fuzz properties: for the fuzz targets (feature `fuzzing`) and the corpus replay test.
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod import;
pub mod lanes;
mod layers;
pub mod secrets;
