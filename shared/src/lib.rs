//! `coach`: the shared brain of the strength-coach backend. Every lane binary is a thin adapter
//! over this crate; a request's context is a value passed down, never global state.

pub mod agent;
pub mod analysis;
pub mod api;
pub mod app;
pub mod config;
pub mod context;
pub mod domain;
/// Fuzz properties: for the fuzz targets (feature `fuzzing`) and the corpus replay test.
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod import;
pub mod lanes;
mod layers;
pub mod llm;
pub mod push;
pub mod queue;
pub mod retry;
pub mod router;
pub mod secrets;
pub mod skills;
pub mod store;
pub mod telemetry;
pub mod tls;
