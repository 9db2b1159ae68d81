//! The lifter's profile and preferences: `GET /v1/me` reads them, `PATCH /v1/me` changes the
//! fields it names (a field sent as `null` goes back to its default). The whole patch is checked
//! before anything is written, and the write is conditioned on the profile it was applied to,
//! so an edit racing the intake or the coach re-applies instead of undoing theirs.

use chrono::NaiveTime;
use serde::{Deserialize, Deserializer, Serialize};

use super::params::read;
use super::{App, MAX_ATTEMPTS, conflict, invalid};
use crate::app::error::AppError;
use crate::context::SessionContext;
use crate::domain::catalog::Equipment;
use crate::domain::limits::{
    self, MAX_AGE, MAX_BODYWEIGHT_KG, MAX_DISPLAY_NAME_CHARS, MAX_GOAL_CHARS, MAX_GOALS,
    MAX_INCREMENT_KG, MIN_AGE, MIN_BODYWEIGHT_KG,
};
use crate::domain::profile::{
    Experience, NotificationPreference, PlateIncrements, Profile, QuietHours,
};
use crate::domain::units::Unit;
use crate::retry::Attempts;

/// The profile as the app shows it: every field present (`null` when unset), increments as
/// they apply (the unit's defaults unless the lifter set their own).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Me {
    pub user_id: String,
    pub name: Option<String>,
    pub unit: Unit,
    pub bodyweight_kg: Option<f64>,
    pub experience: Experience,
    /// Equipment the lifter can use; empty means a full commercial gym.
    pub equipment: Vec<Equipment>,
    pub increments: PlateIncrements,
    /// Whether `increments` are the lifter's own (else the unit's defaults).
    pub increments_set: bool,
    pub timezone: String,
    pub notification_preference: NotificationPreference,
    pub quiet_hours: Option<QuietHoursView>,
    pub goals: Vec<String>,
    pub age: Option<u32>,
    pub active_routine_id: Option<String>,
}

/// Quiet hours as the app sends and reads them: `"HH:MM"` in the lifter's timezone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QuietHoursView {
    pub start: String,
    pub end: String,
}

impl Me {
    fn new(user_id: &str, p: Profile) -> Me {
        Me {
            user_id: user_id.to_string(),
            increments: p.increments(),
            increments_set: p.increments.is_some(),
            name: p.display_name,
            unit: p.unit,
            bodyweight_kg: p.bodyweight_kg,
            experience: p.experience,
            equipment: p.equipment,
            timezone: p.timezone,
            notification_preference: p.notification_preference,
            quiet_hours: p.quiet_hours.map(|q| QuietHoursView {
                start: q.start.format("%H:%M").to_string(),
                end: q.end.format("%H:%M").to_string(),
            }),
            goals: p.goals,
            age: p.age,
            active_routine_id: p.active_routine_id,
        }
    }
}

/// `PATCH /v1/me`: the fields to change. Absent: unchanged; `null`: back to the default.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfilePatch {
    #[serde(default, deserialize_with = "present")]
    pub name: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub unit: Option<Option<Unit>>,
    #[serde(default, deserialize_with = "present")]
    pub bodyweight_kg: Option<Option<f64>>,
    #[serde(default, deserialize_with = "present")]
    pub experience: Option<Option<Experience>>,
    #[serde(default, deserialize_with = "present")]
    pub equipment: Option<Option<Vec<Equipment>>>,
    /// Any of the three steps; the others keep their current value.
    #[serde(default, deserialize_with = "present")]
    pub increments: Option<Option<IncrementsPatch>>,
    #[serde(default, deserialize_with = "present")]
    pub timezone: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    pub notification_preference: Option<Option<NotificationPreference>>,
    #[serde(default, deserialize_with = "present")]
    pub quiet_hours: Option<Option<QuietHoursPatch>>,
    #[serde(default, deserialize_with = "present")]
    pub goals: Option<Option<Vec<String>>>,
    #[serde(default, deserialize_with = "present")]
    pub age: Option<Option<u32>>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncrementsPatch {
    pub barbell_kg: Option<f64>,
    pub dumbbell_kg: Option<f64>,
    pub machine_kg: Option<f64>,
}

/// Quiet hours as the app sends them: `"HH:MM"` in the lifter's timezone.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuietHoursPatch {
    #[serde(deserialize_with = "clock")]
    pub start: NaiveTime,
    #[serde(deserialize_with = "clock")]
    pub end: NaiveTime,
}

/// A field that is present, even as `null`, is `Some` (`Some(None)` for `null`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A display name: 1 to [`MAX_DISPLAY_NAME_CHARS`] as sent (what the contract's schema
/// counts), trimmed, no control characters.
fn checked_name(name: &str) -> Result<String, AppError> {
    let sent = name.chars().count();
    let name = name.trim();
    if let Some(c) = name.chars().find(|c| limits::is_hidden(*c)) {
        return Err(invalid(
            &format!("'name' {}", limits::hidden_message(c)),
            "name",
        ));
    }
    if name.is_empty() || sent > MAX_DISPLAY_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(invalid(
            &format!(
                "'name' is 1 to {MAX_DISPLAY_NAME_CHARS} characters, no control characters (null clears it)"
            ),
            "name",
        ));
    }
    Ok(name.to_string())
}

/// At most [`MAX_GOALS`] goals of 1 to [`MAX_GOAL_CHARS`] characters each, trimmed.
fn checked_goals(goals: &[String]) -> Result<Vec<String>, AppError> {
    if goals.len() > MAX_GOALS {
        return Err(invalid(&format!("at most {MAX_GOALS} goals"), "goals"));
    }
    if goals
        .iter()
        .any(|g| g.trim().is_empty() || g.chars().count() > MAX_GOAL_CHARS)
    {
        return Err(invalid(
            &format!("a goal is 1 to {MAX_GOAL_CHARS} characters"),
            "goals",
        ));
    }
    Ok(goals.iter().map(|g| g.trim().to_string()).collect())
}

impl ProfilePatch {
    /// Reads and checks the body of a `PATCH /v1/me`: every error names its field.
    pub fn from_body(body: &serde_json::Value) -> Result<ProfilePatch, AppError> {
        let mut patch: ProfilePatch = read(body)?;
        patch.check()?;
        Ok(patch)
    }

    fn check(&mut self) -> Result<(), AppError> {
        if let Some(Some(name)) = &mut self.name {
            *name = checked_name(name)?;
        }
        if let Some(Some(kg)) = self.bodyweight_kg
            && !(MIN_BODYWEIGHT_KG..=MAX_BODYWEIGHT_KG).contains(&kg)
        {
            return Err(invalid(
                &format!(
                    "'bodyweight_kg' is between {MIN_BODYWEIGHT_KG} and {MAX_BODYWEIGHT_KG} kg"
                ),
                "bodyweight_kg",
            ));
        }
        if let Some(Some(age)) = self.age
            && !(MIN_AGE..=MAX_AGE).contains(&age)
        {
            return Err(invalid(
                &format!("'age' is between {MIN_AGE} and {MAX_AGE}"),
                "age",
            ));
        }
        if let Some(Some(equipment)) = &mut self.equipment {
            let mut seen = Vec::new();
            equipment.retain(|e| {
                let new = !seen.contains(e);
                seen.push(*e);
                new
            });
        }
        if let Some(Some(inc)) = &self.increments {
            for (field, v) in [
                ("increments.barbell_kg", inc.barbell_kg),
                ("increments.dumbbell_kg", inc.dumbbell_kg),
                ("increments.machine_kg", inc.machine_kg),
            ] {
                if let Some(kg) = v
                    && !(kg > 0.0 && kg <= MAX_INCREMENT_KG)
                {
                    return Err(invalid(
                        &format!("a weight step is more than 0 and at most {MAX_INCREMENT_KG} kg"),
                        field,
                    ));
                }
            }
        }
        if let Some(Some(tz)) = &self.timezone
            && tz.parse::<chrono_tz::Tz>().is_err()
        {
            return Err(invalid(
                "'timezone' is an IANA timezone name, like Europe/Berlin",
                "timezone",
            ));
        }
        if let Some(Some(q)) = &self.quiet_hours
            && q.start == q.end
        {
            return Err(invalid(
                "quiet hours start and end at different times (null turns them off)",
                "quiet_hours",
            ));
        }
        if let Some(Some(goals)) = &mut self.goals {
            *goals = checked_goals(goals)?;
        }
        Ok(())
    }

    /// The profile with this patch applied (checked by [`ProfilePatch::from_body`]).
    pub fn apply(&self, mut p: Profile) -> Profile {
        let d = Profile::default();
        if let Some(v) = &self.name {
            p.display_name = v.clone();
        }
        if let Some(v) = self.unit {
            p.unit = v.unwrap_or(d.unit);
        }
        if let Some(v) = self.bodyweight_kg {
            p.bodyweight_kg = v;
        }
        if let Some(v) = self.experience {
            p.experience = v.unwrap_or(d.experience);
        }
        if let Some(v) = &self.equipment {
            p.equipment = v.clone().unwrap_or(d.equipment);
        }
        if let Some(v) = &self.increments {
            p.increments = v.as_ref().map(|i| {
                let now = p.increments();
                PlateIncrements {
                    barbell_kg: i.barbell_kg.unwrap_or(now.barbell_kg),
                    dumbbell_kg: i.dumbbell_kg.unwrap_or(now.dumbbell_kg),
                    machine_kg: i.machine_kg.unwrap_or(now.machine_kg),
                }
            });
        }
        if let Some(v) = &self.timezone {
            p.timezone = v.clone().unwrap_or(d.timezone);
        }
        if let Some(v) = self.notification_preference {
            p.notification_preference = v.unwrap_or(d.notification_preference);
        }
        if let Some(v) = &self.quiet_hours {
            p.quiet_hours = v.as_ref().map(|q| QuietHours {
                start: q.start,
                end: q.end,
            });
        }
        if let Some(v) = &self.goals {
            p.goals = v.clone().unwrap_or(d.goals);
        }
        if let Some(v) = self.age {
            p.age = v;
        }
        p
    }
}

/// `"HH:MM"`, 24-hour, two digits each.
fn clock<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveTime, D::Error> {
    let text = String::deserialize(d)?;
    let b = text.as_bytes();
    let digits = |i: usize| b[i].is_ascii_digit() && b[i + 1].is_ascii_digit();
    let well_formed = b.len() == 5 && b[2] == b':' && digits(0) && digits(3);
    well_formed
        .then(|| NaiveTime::parse_from_str(&text, "%H:%M").ok())
        .flatten()
        .ok_or_else(|| serde::de::Error::custom("a time of day is \"HH:MM\" (24-hour)"))
}

impl App {
    /// `GET /v1/me`.
    pub async fn me(&self, ctx: &SessionContext) -> Result<Me, AppError> {
        Ok(Me::new(&ctx.user_id, self.profile(ctx).await?))
    }

    /// The stored profile, or the defaults.
    pub(crate) async fn profile(&self, ctx: &SessionContext) -> Result<Profile, AppError> {
        let stored = self.store.stored_profile(&ctx.user_id).await;
        Ok(stored?.map(|s| s.profile).unwrap_or_default())
    }

    /// `PATCH /v1/me`: applies `patch` to the stored profile, re-applied if another writer
    /// changed it meanwhile.
    pub async fn update_me(
        &self,
        ctx: &SessionContext,
        patch: &ProfilePatch,
    ) -> Result<Me, AppError> {
        let mut attempts = Attempts::new(MAX_ATTEMPTS);
        while attempts.next().await {
            let stored = self.store.stored_profile(&ctx.user_id).await;
            let stored = stored?;
            let before = stored
                .as_ref()
                .map(|s| s.profile.clone())
                .unwrap_or_default();
            let after = patch.apply(before.clone());
            if stored.is_some() && after == before {
                crate::telemetry::record(|log| log.outcome = "no_change");
                return Ok(Me::new(&ctx.user_id, after));
            }
            let written = self
                .store
                .replace_profile(&ctx.user_id, &after, stored.as_ref())
                .await;
            if written? {
                return Ok(Me::new(&ctx.user_id, after));
            }
        }
        Err(conflict())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn patch(v: serde_json::Value) -> Result<ProfilePatch, AppError> {
        ProfilePatch::from_body(&v)
    }

    #[test]
    fn a_patch_changes_what_it_names_and_null_restores_the_default() {
        let p = patch(
            json!({"name": "  Sam ", "unit": "lb", "increments": {"barbell_kg": 1.25},
            "quiet_hours": {"start": "22:00", "end": "07:00"}, "goals": [" bench 100"]}),
        )
        .unwrap();
        let before = Profile {
            bodyweight_kg: Some(80.0),
            ..Profile::default()
        };
        let after = p.apply(before);
        assert_eq!(after.display_name.as_deref(), Some("Sam"));
        assert_eq!(after.unit, Unit::Lb);
        assert_eq!(after.bodyweight_kg, Some(80.0), "not named: unchanged");
        let inc = after.increments.clone().unwrap();
        assert_eq!(inc.barbell_kg, 1.25);
        // The other steps are the defaults of the unit the patch switched to (5 lb).
        assert_eq!(inc.dumbbell_kg, Unit::Lb.to_kg(5.0));
        assert_eq!(after.goals, ["bench 100"]);
        assert!(
            after
                .quiet_hours
                .unwrap()
                .contains(NaiveTime::from_hms_opt(23, 0, 0).unwrap())
        );
        let cleared = patch(json!({"name": null, "increments": null, "unit": null}))
            .unwrap()
            .apply(after);
        assert_eq!(cleared.display_name, None);
        assert_eq!(cleared.increments, None);
        assert_eq!(cleared.unit, Unit::Kg);
    }

    #[test]
    fn bad_fields_are_named() {
        for (body, field) in [
            (json!({"name": ""}), "name"),
            (json!({"unit": "stone"}), "unit"),
            (json!({"bodyweight_kg": 5}), "bodyweight_kg"),
            (json!({"age": 3}), "age"),
            (json!({"timezone": "Mars/Olympus"}), "timezone"),
            (json!({"equipment": ["jetpack"]}), "equipment[0]"),
            (
                json!({"increments": {"barbell_kg": 0}}),
                "increments.barbell_kg",
            ),
            (
                json!({"quiet_hours": {"start": "25:00", "end": "07:00"}}),
                "quiet_hours.start",
            ),
            (
                json!({"quiet_hours": {"start": "07:00", "end": "07:00"}}),
                "quiet_hours",
            ),
            (json!({"goals": vec!["x"; 11]}), "goals"),
            (json!({"goals": [" "]}), "goals"),
            (
                json!({"quiet_hours": {"start": "7:00", "end": "08:00"}}),
                "quiet_hours.start",
            ),
            (
                json!({"quiet_hours": {"start": "07:00:60", "end": "08:00"}}),
                "quiet_hours.start",
            ),
            (json!({"nickname": "x"}), "nickname"),
        ] {
            let e = patch(body.clone()).expect_err(&body.to_string());
            assert_eq!(e.field.as_deref(), Some(field), "{body}");
        }
    }
}
