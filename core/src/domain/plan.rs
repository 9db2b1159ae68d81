//! Templates (a day's exercises with planned sets) and routines (an ordered list of template days).

use serde::{Deserialize, Serialize};

use super::limits::{self, LimitError};
use super::workout::{SetTarget, SetType};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateSet {
    #[serde(default)]
    pub set_type: SetType,
    #[serde(flatten)]
    pub target: SetTarget,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TemplateExercise {
    pub exercise_id: String,
    pub name: String,
    pub sets: Vec<TemplateSet>,
    /// The rep range the lifter progresses through, e.g. 6..=10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rep_range: Option<(u32, u32)>,
    /// A superset or circuit: exercises sharing a group ("A") are done in rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The rest after each set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_seconds: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Template {
    pub id: String,
    pub name: String,
    pub exercises: Vec<TemplateExercise>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoutineDay {
    pub label: String,
    pub template_id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Routine {
    pub id: String,
    pub name: String,
    pub days: Vec<RoutineDay>,
    /// Index into `days` of the day the lifter trains next.
    #[serde(default)]
    pub next_day: usize,
}

impl Template {
    pub fn validate(&self) -> Result<(), LimitError> {
        limits::check_name("name", &self.name)?;
        limits::check_exercises(
            self.exercises
                .iter()
                .map(|e| (e.name.as_str(), e.sets.iter().map(|s| &s.target))),
        )
    }
}

impl Routine {
    pub fn validate(&self) -> Result<(), LimitError> {
        limits::check_name("name", &self.name)?;
        limits::check_count("days", self.days.len(), limits::MAX_DAYS_PER_ROUTINE)?;
        if self.days.is_empty() {
            return Err(LimitError {
                field: "days",
                message: "a routine needs at least one day".into(),
                too_large: false,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routine_day_limit() {
        let day = RoutineDay {
            label: "A".into(),
            template_id: "t".into(),
        };
        let mut r = Routine {
            id: "r".into(),
            name: "R".into(),
            days: vec![day; 14],
            next_day: 0,
        };
        assert!(r.validate().is_ok());
        r.days.push(r.days[0].clone());
        assert_eq!(r.validate().unwrap_err().field, "days");
    }
}
