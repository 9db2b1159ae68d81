//! Reading request bodies: each route's body is a `#[serde(deny_unknown_fields)]` struct, read
//! here so that every route answers the same way: an unknown field is `UNKNOWN_FIELD` (a typo
//! must not be silently ignored), a value of the wrong type a `VALIDATION_ERROR` naming its
//! field (`exercises[1].sets`). What serde cannot say (a non-empty name, a number's range) the
//! checks below say, with the same field names.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::invalid;
use crate::app::error::{AppError, ErrorCode};
use crate::domain::limits;

/// The request `text` as a JSON object; an empty body is `{}` when `empty_ok`.
pub fn json_object(text: &str, empty_ok: bool) -> Result<Value, AppError> {
    if empty_ok && text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(v) if v.is_object() => Ok(v),
        Ok(_) => Err(AppError::new(
            ErrorCode::InvalidBody,
            "the request must be a JSON object",
        )),
        Err(e) => Err(AppError::new(
            ErrorCode::InvalidJson,
            format!("the request is not valid JSON: {e}"),
        )),
    }
}

/// Reads the body `T` out of the JSON object `v`.
pub fn read<T: DeserializeOwned>(v: &Value) -> Result<T, AppError> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        // serde quotes names in backticks; the app shows these messages.
        let message = e.inner().to_string().replace('`', "'");
        let at = |name: &str| {
            if path == "." {
                name.to_string()
            } else {
                format!("{path}.{name}")
            }
        };
        let quoted = |m: &str| m.split('\'').nth(1).unwrap_or_default().to_string();
        if message.starts_with("unknown field") {
            // The path already ends with the unknown field's name.
            let field = path.clone();
            let allowed = message.split_once(", expected ").map_or("", |(_, a)| a);
            let allowed = allowed.strip_prefix("one of ").unwrap_or(allowed);
            return AppError::new(
                ErrorCode::UnknownField,
                if message.contains("there are no fields") {
                    format!("unknown field '{field}': this request takes no fields")
                } else {
                    format!(
                        "unknown field '{field}'; allowed: {}",
                        allowed.replace('\'', "").replace(" or ", ", ")
                    )
                },
            )
            .field(field);
        }
        if message.starts_with("missing field") {
            let field = at(&quoted(&message));
            return invalid(&format!("'{field}' is required"), field);
        }
        AppError::new(ErrorCode::ValidationError, format!("'{path}': {message}")).field(path)
    })
}

/// A text field: trimmed, not empty and within the name limit; `None` when absent or null.
/// (`field` is a path such as `exercises[1].exercise` inside a list.)
pub fn text(v: Option<String>, field: &str) -> Result<Option<String>, AppError> {
    match v {
        None => Ok(None),
        Some(s) if s.trim().is_empty() => Err(invalid(
            &format!("'{field}' must be a non-empty string"),
            field.to_string(),
        )),
        Some(s) => {
            if let Err(e) = limits::check_name("text", &s) {
                return Err(invalid(
                    &format!("{field}: {}", e.message),
                    field.to_string(),
                ));
            }
            Ok(Some(s.trim().to_string()))
        }
    }
}

/// A text field that must be there.
pub fn required(v: Option<String>, field: &str) -> Result<String, AppError> {
    text(v, field)?.ok_or_else(|| invalid(&format!("'{field}' is required"), field.to_string()))
}

/// A whole number of at most `max`.
pub(crate) fn at_most(v: Option<u32>, field: &str, max: u32) -> Result<Option<u32>, AppError> {
    match v {
        Some(n) if n > max => Err(invalid(
            &format!("'{field}' must be a whole number from 0 to {max}"),
            field.to_string(),
        )),
        _ => Ok(v),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        target: String,
        sets: Option<Vec<Item>>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        reps: u32,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct NoFields {}

    fn error(v: serde_json::Value) -> (String, &'static str, String) {
        let e = read::<Body>(&v).unwrap_err();
        (
            e.field.unwrap_or_default().into_owned(),
            e.code.as_str(),
            e.message,
        )
    }

    #[test]
    fn errors_name_the_field_and_say_what_is_allowed() {
        let (field, code, message) = error(json!({"target": "bench", "colour": "red"}));
        assert_eq!((field.as_str(), code), ("colour", "UNKNOWN_FIELD"));
        assert_eq!(message, "unknown field 'colour'; allowed: target, sets");
        let (field, code, _) = error(json!({"target": "bench", "sets": [{"reps": 5}, {"rep": 5}]}));
        assert_eq!((field.as_str(), code), ("sets[1].rep", "UNKNOWN_FIELD"));
        let (field, code, message) = error(json!({"target": "bench", "sets": [{"reps": -1}]}));
        assert_eq!((field.as_str(), code), ("sets[0].reps", "VALIDATION_ERROR"));
        assert!(message.contains("-1"), "{message}");
        let (field, code, message) = error(json!({}));
        assert_eq!((field.as_str(), code), ("target", "VALIDATION_ERROR"));
        assert_eq!(message, "'target' is required");
        let e = read::<NoFields>(&json!({"force": true})).unwrap_err();
        assert_eq!(e.code, ErrorCode::UnknownField);
        assert_eq!(
            e.message,
            "unknown field 'force': this request takes no fields"
        );
    }

    #[test]
    fn text_fields_are_trimmed_and_not_empty() {
        assert_eq!(
            text(Some(" a ".into()), "name").unwrap().as_deref(),
            Some("a")
        );
        assert_eq!(text(None, "name").unwrap(), None);
        let e = text(Some("  ".into()), "exercises[0].exercise").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("exercises[0].exercise"));
        assert_eq!(
            at_most(Some(5), "reps", 4).unwrap_err().code,
            ErrorCode::ValidationError
        );
    }
}
