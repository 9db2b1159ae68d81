//! Validation limits of the API contract (`openapi.yaml` states them). Each check names the field it rejects.

use std::fmt;

pub const MAX_WEIGHT_KG: f64 = 1500.0;
pub const MAX_REPS: u32 = 500;
pub const MAX_RIR: u32 = 5;
/// RPE accepted from lifters; RPE = 10 - RIR, so RIR 0..=5 spans RPE 5..=10.
pub const MIN_RPE: f64 = 5.0;
pub const MAX_RPE: f64 = 10.0;
pub const MAX_EXERCISES_PER_WORKOUT: usize = 50;
pub const MAX_SETS_PER_EXERCISE: usize = 100;
/// Sets in one workout, all exercises together (50 × 100 would not fit one stored item).
pub const MAX_SETS_PER_WORKOUT: usize = 500;
/// Longest timed set (a plank, a carry, a row).
pub(crate) const MAX_SET_SECONDS: u32 = 3 * 60 * 60;
/// Characters of all the notes of one workout together (its own, its exercises', its sets').
pub(crate) const MAX_WORKOUT_NOTES_CHARS: usize = 15_000;
/// The largest stored workout document. A DynamoDB item holds 400 KB; the rest is the item's
/// keys and attributes. Every workout within the limits above fits (a test builds the worst
/// case), so a request never meets the store's own limit as an endless "retry".
pub const MAX_WORKOUT_DOC_BYTES: usize = 350_000;
pub(crate) const MAX_DAYS_PER_ROUTINE: usize = 14;
pub const MAX_NAME_CHARS: usize = 200;
pub(crate) const MAX_NOTES_CHARS: usize = 5_000;
pub const MAX_MESSAGE_CHARS: usize = 10_000;
pub const MAX_BODY_BYTES: usize = 64 * 1024;

// The profile (`PATCH /v1/me`).
pub const MAX_DISPLAY_NAME_CHARS: usize = 80;
pub const MIN_BODYWEIGHT_KG: f64 = 20.0;
pub const MAX_BODYWEIGHT_KG: f64 = 400.0;
pub const MIN_AGE: u32 = 13;
pub const MAX_AGE: u32 = 120;
/// The largest smallest-jump a lifter can set for one kind of equipment.
pub const MAX_INCREMENT_KG: f64 = 50.0;
pub const MAX_GOALS: usize = 10;
pub const MAX_GOAL_CHARS: usize = 200;

/// A value outside the contract's limits.
#[derive(Debug, Clone, PartialEq)]
pub struct LimitError {
    pub field: &'static str,
    pub message: String,
    /// The workout as a whole would be too large to store (sets or notes in all): answered
    /// 413 rather than 400.
    pub too_large: bool,
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for LimitError {}

impl LimitError {
    /// An invalid value of `field` (400), for rules beyond the numeric limits here.
    pub fn invalid(field: &'static str, message: impl Into<String>) -> LimitError {
        err(field, message.into())
    }
}

fn err(field: &'static str, message: String) -> LimitError {
    LimitError {
        field,
        message,
        too_large: false,
    }
}

pub fn check_weight_kg(field: &'static str, kg: f64) -> Result<(), LimitError> {
    if !kg.is_finite() || kg < 0.0 {
        return Err(err(
            field,
            format!("must be between 0 and {MAX_WEIGHT_KG} kg"),
        ));
    }
    if kg > MAX_WEIGHT_KG {
        return Err(err(
            field,
            format!(
                "{} kg is above the {MAX_WEIGHT_KG} kg limit",
                super::units::format_number(kg, super::units::Unit::Kg)
            ),
        ));
    }
    Ok(())
}

/// Reps 0..=500; 0 only for a failed set.
pub fn check_reps(field: &'static str, reps: u32, failed: bool) -> Result<(), LimitError> {
    if reps > MAX_REPS {
        return Err(err(
            field,
            format!("{reps} is above the {MAX_REPS} rep limit"),
        ));
    }
    if reps == 0 && !failed {
        return Err(err(field, "0 reps is only allowed for a failed set".into()));
    }
    Ok(())
}

pub fn check_rir(field: &'static str, rir: u32) -> Result<(), LimitError> {
    if rir > MAX_RIR {
        return Err(err(
            field,
            format!("RIR must be between 0 and {MAX_RIR}, got {rir}"),
        ));
    }
    Ok(())
}

pub fn check_rpe(field: &'static str, rpe: f64) -> Result<(), LimitError> {
    let half_steps = rpe * 2.0;
    if !(MIN_RPE..=MAX_RPE).contains(&rpe) || half_steps.fract() != 0.0 {
        return Err(err(
            field,
            format!("RPE must be between {MIN_RPE} and {MAX_RPE} in steps of 0.5"),
        ));
    }
    Ok(())
}

/// Characters a name may not hold though they are not control characters: the bidirectional
/// overrides, embeddings and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what is
/// shown ("Squat\u{202E}tfil" reads as "Squatlift"), and the invisible spaces (zero-width space
/// U+200B, word joiner U+2060, byte order mark U+FEFF), which make two names that look alike
/// differ (with the invisible operators, deprecated format characters, the soft hyphen, the
/// Mongolian vowel separator and the Hangul fillers). The joiners that scripts and emoji need
/// (U+200C, U+200D) and the plain direction marks (U+200E, U+200F) stay.
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{200B}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{00AD}'
            | '\u{180E}'
            // Hangul fillers: names that look blank.
            | '\u{115F}'
            | '\u{1160}'
            | '\u{3164}'
            | '\u{FFA0}'
    )
}

/// What a name with a [`is_hidden`] character is told.
pub fn hidden_message(c: char) -> String {
    format!(
        "must not contain invisible or text-direction characters (U+{:04X})",
        u32::from(c)
    )
}

/// A name as the lifter (or the coach, or a file) sends it: [`check_name`], and none of the
/// [`is_hidden`] characters. Stored names are checked with `check_name` alone, so one saved
/// before this rule never blocks an edit of its workout.
pub fn check_entered_name(field: &'static str, name: &str) -> Result<(), LimitError> {
    check_name(field, name)?;
    if let Some(c) = name.chars().find(|c| is_hidden(*c)) {
        return Err(err(field, hidden_message(c)));
    }
    Ok(())
}

pub fn check_name(field: &'static str, name: &str) -> Result<(), LimitError> {
    let n = name.chars().count();
    if name.trim().is_empty() {
        return Err(err(field, "must not be empty".into()));
    }
    if name.chars().any(char::is_control) {
        return Err(err(field, "must not contain control characters".into()));
    }
    if n > MAX_NAME_CHARS {
        return Err(err(
            field,
            format!("{n} characters is above the {MAX_NAME_CHARS} character limit"),
        ));
    }
    Ok(())
}

pub fn check_notes(field: &'static str, notes: &str) -> Result<(), LimitError> {
    // Line breaks and tabs are text; other control characters are not (and would take six
    // bytes each once stored as JSON).
    if notes
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(err(
            field,
            "must not contain control characters other than line breaks and tabs".into(),
        ));
    }
    let n = notes.chars().count();
    if n > MAX_NOTES_CHARS {
        return Err(err(
            field,
            format!("{n} characters is above the {MAX_NOTES_CHARS} character limit"),
        ));
    }
    Ok(())
}

pub fn check_count(field: &'static str, count: usize, max: usize) -> Result<(), LimitError> {
    if count > max {
        return Err(err(field, format!("{count} is above the limit of {max}")));
    }
    Ok(())
}

/// Longest id stored inside a workout (the store's key limit for ids, as for ids in requests).
pub(crate) const MAX_ID_LEN: usize = 128;

/// An id inside a stored document: 1 to [`MAX_ID_LEN`] printable ASCII characters.
pub(crate) fn check_id(field: &'static str, id: &str) -> Result<(), LimitError> {
    if id.is_empty() || id.len() > MAX_ID_LEN || !id.chars().all(|c| c.is_ascii_graphic()) {
        return Err(err(
            field,
            format!("an id is 1 to {MAX_ID_LEN} printable ASCII characters"),
        ));
    }
    Ok(())
}

/// A whole-workout size limit: over it is `too_large` (413), naming the limit.
pub(crate) fn check_workout_size(
    field: &'static str,
    what: &str,
    count: usize,
    max: usize,
) -> Result<(), LimitError> {
    if count > max {
        return Err(LimitError {
            field,
            message: format!(
                "the workout would have {count} {what}; a workout holds at most {max}"
            ),
            too_large: true,
        });
    }
    Ok(())
}

/// The structural limits shared by workouts and templates: exercise count, names, set count and
/// planned values. `exercises` yields each exercise's name and its planned sets.
pub(crate) fn check_exercises<'a, E, S>(exercises: E) -> Result<(), LimitError>
where
    E: ExactSizeIterator<Item = (&'a str, S)>,
    S: ExactSizeIterator<Item = &'a super::workout::SetTarget>,
{
    check_count("exercises", exercises.len(), MAX_EXERCISES_PER_WORKOUT)?;
    for (name, sets) in exercises {
        check_name("exercises.name", name)?;
        check_count("exercises.sets", sets.len(), MAX_SETS_PER_EXERCISE)?;
        for t in sets {
            if let Some(w) = t.weight_kg {
                check_weight_kg("sets.weight_kg", w)?;
            }
            if let Some(r) = t.reps {
                check_reps("sets.reps", r, true)?;
            }
            if let Some(r) = t.rir {
                check_rir("sets.rir", r)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weight_limits() {
        assert!(check_weight_kg("weight", 0.0).is_ok());
        assert!(check_weight_kg("weight", 1500.0).is_ok());
        let e = check_weight_kg("weight", 2000.0).unwrap_err();
        assert_eq!(e.field, "weight");
        assert!(e.message.contains("2000 kg"));
        assert!(check_weight_kg("weight", -1.0).is_err());
        assert!(check_weight_kg("weight", f64::NAN).is_err());
    }

    #[test]
    fn rep_limits() {
        assert!(check_reps("reps", 500, false).is_ok());
        assert_eq!(check_reps("reps", 501, false).unwrap_err().field, "reps");
        assert!(check_reps("reps", 0, false).is_err());
        assert!(check_reps("reps", 0, true).is_ok());
    }

    #[test]
    fn effort_limits() {
        assert!(check_rir("rir", 5).is_ok());
        assert!(check_rir("rir", 6).is_err());
        assert!(check_rpe("rpe", 8.5).is_ok());
        assert!(check_rpe("rpe", 8.3).is_err());
        assert!(check_rpe("rpe", 11.0).is_err());
    }

    #[test]
    fn text_limits() {
        assert!(check_name("name", &"a".repeat(200)).is_ok());
        assert!(check_name("name", &"a".repeat(201)).is_err());
        assert!(check_name("name", "  ").is_err());
        assert!(check_notes("notes", &"n".repeat(5001)).is_err());
        assert!(check_notes("notes", "line one\r\nline\ttwo").is_ok());
        assert!(check_notes("notes", "bell\u{7}").is_err());
        assert!(check_name("name", "Bench\nPress").is_err());
        // Reordering and invisible characters are refused; the joiners scripts and emoji use stay.
        for hidden in [
            "Squat\u{202E}tfil",
            "Bench\u{200B}Press",
            "\u{FEFF}Deadlift",
            "Row\u{2066}",
            "\u{3164}",
        ] {
            assert!(
                check_name("name", hidden).is_ok(),
                "stored names still read"
            );
            let e = check_entered_name("name", hidden).unwrap_err();
            assert!(e.message.contains("U+"), "{hidden:?}: {}", e.message);
        }
        assert!(check_entered_name("name", "می\u{200C}خواهم").is_ok());
        assert!(check_entered_name("name", "Family day \u{1F468}\u{200D}\u{1F467}").is_ok());
        assert!(check_count("exercises", 51, MAX_EXERCISES_PER_WORKOUT).is_err());
    }
}
