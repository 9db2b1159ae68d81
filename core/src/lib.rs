//! `coach-core`: the pure core of the strength-coach backend. Everything here is a function of
//! its arguments: no I/O crate is a dependency, so Cargo, not a convention, keeps storage,
//! queues, models and HTTP out.
//!
//! - `domain`: the training model and every type the store persists;
//! - `analysis`: pure functions over a history (series, progression, fatigue, cards, reviews);
//! - `router`: the FAST command grammar and the SLOW routing rules;
//! - `skills`: what the product decides (suggest, swap, the monitor, the copilot);
//! - `context`: the per-request context rebuilt from the message prefix.

pub mod analysis;
pub mod context;
pub mod domain;
pub mod router;
pub mod skills;
