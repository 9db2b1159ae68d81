//! The lifter's profile and preferences.

use serde::{Deserialize, Serialize};

use super::catalog::{Equipment, Exercise};
use super::units::Unit;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Experience {
    /// Also the lifter who has not said: a first load too light costs a set, one too heavy
    /// can cost an injury.
    #[default]
    Beginner,
    Intermediate,
    Advanced,
}

/// Smallest weight jumps the lifter can make, in kg, per kind of equipment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlateIncrements {
    pub barbell_kg: f64,
    pub dumbbell_kg: f64,
    pub machine_kg: f64,
}

impl PlateIncrements {
    /// Defaults from the reference: barbell 2.5 kg / 5 lb, dumbbell 2 kg / 5 lb,
    /// machine and cable 5 kg / 10 lb.
    pub fn default_for(unit: Unit) -> Self {
        match unit {
            Unit::Kg => Self {
                barbell_kg: 2.5,
                dumbbell_kg: 2.0,
                machine_kg: 5.0,
            },
            Unit::Lb => Self {
                barbell_kg: Unit::Lb.to_kg(5.0),
                dumbbell_kg: Unit::Lb.to_kg(5.0),
                machine_kg: Unit::Lb.to_kg(10.0),
            },
        }
    }

    pub fn for_equipment(&self, equipment: Equipment) -> f64 {
        use Equipment::*;
        match equipment {
            Barbell | EzBar | TrapBar | Smith | Plate => self.barbell_kg,
            Dumbbell | Kettlebell => self.dumbbell_kg,
            Cable | Machine | Sled => self.machine_kg,
            Bodyweight | Band | MedicineBall => self.barbell_kg,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    #[serde(default)]
    pub unit: Unit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub increments: Option<PlateIncrements>,
    /// Equipment the lifter can use; empty means a full commercial gym.
    #[serde(default)]
    pub equipment: Vec<Equipment>,
    #[serde(default = "default_tz")]
    pub timezone: String,
    #[serde(default)]
    pub experience: Experience,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bodyweight_kg: Option<f64>,
    #[serde(default)]
    pub goals: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age: Option<u32>,
    #[serde(default)]
    pub notification_preference: NotificationPreference,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_hours: Option<QuietHours>,
    /// The routine whose next day "start my next workout" starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_routine_id: Option<String>,
}

/// How much the coach may reach out unprompted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum NotificationPreference {
    /// Nothing unprompted.
    Off,
    /// Only what matters most (high priority).
    Minimal,
    /// Normal and high priority.
    #[default]
    Balanced,
    /// Everything the coach thinks is useful.
    Proactive,
}

/// A daily window without notifications, in the lifter's timezone; may span midnight
/// (22:00 to 07:00).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuietHours {
    pub start: chrono::NaiveTime,
    pub end: chrono::NaiveTime,
}

impl QuietHours {
    pub fn contains(&self, t: chrono::NaiveTime) -> bool {
        if self.start <= self.end {
            self.start <= t && t < self.end
        } else {
            t >= self.start || t < self.end
        }
    }
}

fn default_tz() -> String {
    "UTC".into()
}

impl Default for Profile {
    fn default() -> Self {
        Self {
            display_name: None,
            unit: Unit::Kg,
            increments: None,
            equipment: Vec::new(),
            timezone: default_tz(),
            experience: Experience::default(),
            bodyweight_kg: None,
            goals: Vec::new(),
            age: None,
            notification_preference: NotificationPreference::default(),
            quiet_hours: None,
            active_routine_id: None,
        }
    }
}

impl Profile {
    pub fn increments(&self) -> PlateIncrements {
        self.increments
            .clone()
            .unwrap_or_else(|| PlateIncrements::default_for(self.unit))
    }

    pub fn has_equipment(&self, equipment: Equipment) -> bool {
        self.equipment.is_empty()
            || equipment == Equipment::Bodyweight
            || self.equipment.contains(&equipment)
    }
}

/// The lifter's plate step for this exercise's equipment (a barbell's when unknown).
pub fn step_for(exercise: Option<&Exercise>, profile: &Profile) -> f64 {
    profile
        .increments()
        .for_equipment(exercise.map_or(Equipment::Barbell, |e| e.equipment))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increments_follow_unit_and_equipment() {
        let kg = Profile::default();
        assert_eq!(kg.increments().for_equipment(Equipment::Dumbbell), 2.0);
        assert_eq!(kg.increments().for_equipment(Equipment::Cable), 5.0);
        let lb = Profile {
            unit: Unit::Lb,
            ..Profile::default()
        };
        let step = lb.increments().for_equipment(Equipment::Barbell);
        assert!((Unit::Lb.from_kg(step) - 5.0).abs() < 1e-9);
    }

    #[test]
    fn quiet_hours_may_span_midnight() {
        let t = |h, m| chrono::NaiveTime::from_hms_opt(h, m, 0).unwrap();
        let night = QuietHours {
            start: t(22, 0),
            end: t(7, 0),
        };
        assert!(night.contains(t(23, 30)) && night.contains(t(3, 0)));
        assert!(!night.contains(t(7, 0)) && !night.contains(t(12, 0)));
        let lunch = QuietHours {
            start: t(12, 0),
            end: t(13, 0),
        };
        assert!(lunch.contains(t(12, 30)) && !lunch.contains(t(13, 0)));
        // NaiveTime serialises as "22:00:00" and also reads "22:00".
        let q: QuietHours = serde_json::from_str(r#"{"start":"22:00","end":"07:00"}"#).unwrap();
        assert_eq!(q, night);
    }

    #[test]
    fn empty_equipment_means_full_gym() {
        let p = Profile::default();
        assert!(p.has_equipment(Equipment::Machine));
        let home = Profile {
            equipment: vec![Equipment::Dumbbell],
            ..Profile::default()
        };
        assert!(!home.has_equipment(Equipment::Machine));
        assert!(home.has_equipment(Equipment::Bodyweight));
    }
}
