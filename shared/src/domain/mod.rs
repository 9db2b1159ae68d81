//! The training domain: units, limits, the exercise catalog, workouts, plans and the profile.

pub mod catalog;
pub mod limits;
pub mod plan;
pub mod profile;
pub mod units;
pub mod workout;
