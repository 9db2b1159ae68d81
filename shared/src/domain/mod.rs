//! The training domain: units, limits, the exercise catalog, workouts, plans, the profile, the
//! lifter's coaching context, strength arithmetic and warm-up ramps.

pub mod artifact;
pub mod catalog;
pub mod coaching;
pub mod limits;
pub mod plan;
pub mod profile;
pub mod strength;
pub mod units;
pub mod warmup;
pub mod workout;
