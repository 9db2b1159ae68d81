//! Reading request fields: strict (unknown fields refused), typed, the field named in errors.

use serde_json::{Map, Value};

use super::invalid;
use crate::api::{ApiError, ErrorCode};
use crate::domain::limits;

pub(crate) fn json_object(text: &str) -> Result<Map<String, Value>, ApiError> {
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err(ApiError::new(
            ErrorCode::InvalidBody,
            "the request must be a JSON object",
        )),
        Err(e) => Err(ApiError::new(
            ErrorCode::InvalidJson,
            format!("the request is not valid JSON: {e}"),
        )),
    }
}

/// Refuses fields the endpoint does not know (a typo must not be silently ignored).
pub(crate) fn only(p: &Map<String, Value>, allowed: &[&str]) -> Result<(), ApiError> {
    match p.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(ApiError::new(
            ErrorCode::UnknownField,
            if allowed.is_empty() {
                format!("unknown field '{k}': this request takes no fields")
            } else {
                format!("unknown field '{k}'; allowed: {}", allowed.join(", "))
            },
        )),
        None => Ok(()),
    }
}

pub(crate) fn req_str<'a>(p: &'a Map<String, Value>, f: &'static str) -> Result<&'a str, ApiError> {
    opt_str(p, f)?.ok_or_else(|| invalid(&format!("'{f}' is required"), f))
}

pub(crate) fn opt_str<'a>(
    p: &'a Map<String, Value>,
    f: &'static str,
) -> Result<Option<&'a str>, ApiError> {
    match p.get(f) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() => {
            limits::check_name(f, s)?;
            Ok(Some(s.trim()))
        }
        Some(_) => Err(invalid(&format!("'{f}' must be a non-empty string"), f)),
    }
}

pub(crate) fn opt_bool(p: &Map<String, Value>, f: &'static str) -> Result<Option<bool>, ApiError> {
    match p.get(f) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(invalid(&format!("'{f}' must be true or false"), f)),
    }
}

pub(crate) fn opt_uint(
    p: &Map<String, Value>,
    f: &'static str,
    max: u64,
) -> Result<Option<u64>, ApiError> {
    match p.get(f) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|n| *n <= max)
            .map(Some)
            .ok_or_else(|| invalid(&format!("'{f}' must be a whole number from 0 to {max}"), f)),
    }
}

pub(crate) fn req_uint(p: &Map<String, Value>, f: &'static str, max: u64) -> Result<u64, ApiError> {
    opt_uint(p, f, max)?.ok_or_else(|| invalid(&format!("'{f}' is required"), f))
}

/// Cursors are the last sort key, hex-encoded (opaque to the app, safe in a query string).
pub(crate) fn encode_cursor(sk: &str) -> String {
    sk.bytes().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn decode_cursor(c: &str) -> Option<String> {
    if !c.len().is_multiple_of(2) || c.len() > 400 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..c.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(c.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}
