//! Skills: the deterministic functions every lane shares, free of HTTP and storage concerns.

pub mod adjust;
pub mod autofill;
pub mod copilot;
pub mod events;
pub mod health;
pub mod monitor;
pub mod notify;
pub mod proposals;
pub mod suggest;
pub mod swap;
pub mod workouts;
