//! `coach`: the strength-coach backend as one library. This crate holds the adapters (the
//! lanes, the HTTP edge `api`, `config`, `secrets`) and re-exports the crates below them: the
//! pure core, the ports and the application. Every lane binary is a thin adapter over it; a
//! request's context is a value passed down, never global state.

// The pure core is its own crate (no I/O dependency); re-exported so that `crate::domain::…`
// and `coach::domain::…` name it as before.
pub use coach_core::{analysis, context, domain, router, skills};
// The ports (store, queue, models, push, telemetry, retry, tls) likewise.
pub use coach_ports::{llm, push, queue, retry, store, telemetry, tls};
// And the application: the use cases, the import and the coach.
pub use coach_application::{agent, app, import};
pub(crate) mod api;
pub mod config;
/// Fuzz properties: for the fuzz targets (feature `fuzzing`) and the corpus replay test.
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod lanes;
pub mod secrets;
