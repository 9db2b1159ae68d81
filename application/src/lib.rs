//! `coach-application`: what the product does, over the core and the ports.
//!
//! - `app`: the use cases every adapter calls (one per thing the product does), answering
//!   typed outcomes and their own `AppError`;
//! - `import`: a Strong export into the history;
//! - `agent`: the coach (briefing, model loop, tools, critic, gate), emitting typed
//!   `StreamEvent`s.
//!
//! Cargo keeps the direction: this crate depends on `coach-core` and `coach-ports` and cannot
//! name the adapters above it (the lanes, the HTTP edge `api`, `config`), nor link the Lambda
//! runtime or an AWS SDK: a use case never speaks HTTP or DynamoDB.

// `crate::domain::…`, `crate::store::…` here name the core's and the ports'.
use coach_core::{analysis, context, domain, router, skills};
use coach_ports::{llm, push, queue, retry, store, telemetry};

pub mod agent;
pub mod app;
pub mod import;
