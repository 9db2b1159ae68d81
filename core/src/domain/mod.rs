//! The training domain: units, limits, the exercise catalog, workouts, plans, the profile, the
//! lifter's coaching context, strength arithmetic, warm-up ramps, notifications, token usage and
//! ISO weeks: everything the store persists.

pub mod artifact;
pub mod calendar;
pub mod catalog;
pub mod coaching;
pub mod health;
pub mod limits;
pub mod notification;
pub mod plan;
pub mod profile;
pub mod strength;
pub mod units;
pub mod usage;
pub(crate) mod warmup;
pub mod workout;
