//! The context prefix: `(context: key=value ...) message`. Keys in any order, `canvas_id` is an
//! alias of `conversation_id`, the value `none` means absent, and anything malformed is an error
//! that says what is wrong (the original silently produced an empty context).

use std::fmt;

use chrono::{DateTime, FixedOffset, NaiveDate};
use chrono_tz::Tz;

const OPEN: &str = "(context:";
const KEYS: &str = "conversation_id (or canvas_id), user_id, corr, workout_id, today, tz, at";
/// Longest id value accepted in the prefix.
pub const MAX_ID_CHARS: usize = 128;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prefix<'a> {
    pub conversation_id: Option<&'a str>,
    pub user_id: Option<&'a str>,
    pub corr: Option<&'a str>,
    pub workout_id: Option<&'a str>,
    pub today: Option<NaiveDate>,
    pub tz: Option<Tz>,
    /// When the lifter sent the command (ISO 8601 with an offset), for commands queued offline.
    pub at: Option<DateTime<FixedOffset>>,
    /// Whether the message carried a prefix at all.
    pub present: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ContextError(pub String);

impl fmt::Display for ContextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ContextError {}

fn fail<T>(msg: impl Into<String>) -> Result<T, ContextError> {
    Err(ContextError(msg.into()))
}

/// Splits a message into its prefix and the rest (trimmed). A message without a prefix yields
/// an empty `Prefix` and the whole message.
pub fn split_prefix(message: &str) -> Result<(Prefix<'_>, &str), ContextError> {
    let trimmed = message.trim_start();
    let Some(body) = trimmed.strip_prefix(OPEN) else {
        return Ok((Prefix::default(), message.trim()));
    };
    let Some(close) = body.find(')') else {
        return fail("unclosed context prefix: missing ')' after the key=value pairs");
    };
    let mut prefix = Prefix {
        present: true,
        ..Prefix::default()
    };
    let mut seen: [bool; 7] = [false; 7];
    for pair in body[..close].split_ascii_whitespace() {
        let Some((key, value)) = pair.split_once('=') else {
            return fail(format!(
                "malformed context entry '{}': expected key=value",
                clip(pair)
            ));
        };
        let slot = slot_of(key)?;
        if seen[slot] {
            return fail(format!("duplicate context key '{key}'"));
        }
        seen[slot] = true;
        if value.is_empty() {
            return fail(format!(
                "context key '{key}' has an empty value (use 'none' for absent)"
            ));
        }
        if !value.eq_ignore_ascii_case("none") {
            prefix.set(slot, key, value)?;
        }
    }
    Ok((prefix, body[close + 1..].trim()))
}

/// Where a key's value goes (each key at most once); `canvas_id` is the older name of
/// `conversation_id`.
fn slot_of(key: &str) -> Result<usize, ContextError> {
    Ok(match key {
        "conversation_id" | "canvas_id" => 0,
        "user_id" => 1,
        "corr" => 2,
        "workout_id" => 3,
        "today" => 4,
        "tz" => 5,
        "at" => 6,
        _ => {
            return fail(format!(
                "unknown context key '{}'; known keys: {KEYS}",
                clip(key)
            ));
        }
    })
}

impl<'a> Prefix<'a> {
    /// Reads `value` into the field of `slot` ([`slot_of`] of `key`).
    fn set(&mut self, slot: usize, key: &str, value: &'a str) -> Result<(), ContextError> {
        match slot {
            0 => self.conversation_id = Some(id_value(key, value)?),
            1 => self.user_id = Some(id_value(key, value)?),
            2 => self.corr = Some(id_value(key, value)?),
            3 => self.workout_id = Some(id_value(key, value)?),
            4 => {
                let date = NaiveDate::parse_from_str(value, "%Y-%m-%d")
                    .ok()
                    .filter(|_| value.len() == 10);
                let Some(date) = date else {
                    return fail(format!(
                        "context key 'today' must be a date like 2026-03-01, got '{}'",
                        clip(value)
                    ));
                };
                self.today = Some(date);
            }
            6 => match DateTime::parse_from_rfc3339(value) {
                Ok(at) => self.at = Some(at),
                Err(_) => {
                    return fail(format!(
                        "context key 'at' must be a time with its offset like 2026-03-01T10:15:00+01:00, got '{}'",
                        clip(value)
                    ));
                }
            },
            _ => match value.parse::<Tz>() {
                Ok(tz) => self.tz = Some(tz),
                Err(_) => {
                    return fail(format!(
                        "context key 'tz' must be an IANA time zone like Europe/Stockholm, got '{}'",
                        clip(value)
                    ));
                }
            },
        }
        Ok(())
    }
}

/// The characters an id (user, conversation, workout, artifact, request) may have.
fn id_chars_ok(value: &str) -> bool {
    value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':' | b'@' | b'|'))
}

/// An id the store can key: 1 to [`MAX_ID_CHARS`] characters of [`id_chars_ok`].
pub fn is_valid_id(value: &str) -> bool {
    !value.is_empty() && value.len() <= MAX_ID_CHARS && id_chars_ok(value)
}

fn id_value<'a>(key: &str, value: &'a str) -> Result<&'a str, ContextError> {
    if !id_chars_ok(value) {
        return fail(format!(
            "context key '{key}' has invalid characters in '{}' (letters, digits and - _ . : @ | only)",
            clip(value)
        ));
    }
    if value.len() > MAX_ID_CHARS {
        return fail(format!(
            "context key '{key}' is longer than {MAX_ID_CHARS} characters"
        ));
    }
    Ok(value)
}

/// Keeps error messages short whatever the client sent.
fn clip(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(MAX).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_keys_in_any_order() {
        let (p, rest) = split_prefix(
            "(context: tz=Europe/Stockholm today=2026-03-01 workout_id=w1 corr=r1 user_id=u1 conversation_id=c1) done",
        )
        .unwrap();
        assert_eq!(rest, "done");
        assert_eq!(p.conversation_id, Some("c1"));
        assert_eq!(p.user_id, Some("u1"));
        assert_eq!(p.corr, Some("r1"));
        assert_eq!(p.workout_id, Some("w1"));
        assert_eq!(p.today, NaiveDate::from_ymd_opt(2026, 3, 1));
        assert_eq!(p.tz, Some(chrono_tz::Europe::Stockholm));
        assert!(p.present);
    }

    #[test]
    fn at_is_a_time_with_its_offset() {
        let (p, rest) = split_prefix("(context: at=2026-03-01T10:15:30+01:00) done").unwrap();
        assert_eq!(rest, "done");
        assert_eq!(
            p.at.map(|t| t.to_rfc3339()),
            Some("2026-03-01T10:15:30+01:00".to_string())
        );
        for bad in ["2026-03-01T10:15:30", "yesterday", "2026-03-01"] {
            let e = split_prefix(&format!("(context: at={bad}) done")).unwrap_err();
            assert!(e.0.contains("'at'"), "{bad}: {e}");
        }
    }

    #[test]
    fn canvas_id_is_an_alias_and_none_means_absent() {
        let (p, rest) =
            split_prefix("(context: canvas_id=c2 user_id=u corr=none workout_id=None)\nhello")
                .unwrap();
        assert_eq!(p.conversation_id, Some("c2"));
        assert_eq!(p.corr, None);
        assert_eq!(p.workout_id, None);
        assert_eq!(rest, "hello");
    }

    #[test]
    fn no_prefix_is_the_whole_message() {
        let (p, rest) = split_prefix("  8 @ 100  ").unwrap();
        assert!(!p.present);
        assert_eq!(rest, "8 @ 100");
        assert_eq!(p, Prefix::default());
    }

    #[test]
    fn empty_prefix_is_allowed_and_message_may_be_empty() {
        let (p, rest) = split_prefix("(context: user_id=u1)").unwrap();
        assert_eq!(p.user_id, Some("u1"));
        assert_eq!(rest, "");
        let (p, rest) = split_prefix("(context:) hi").unwrap();
        assert!(p.present && p.user_id.is_none());
        assert_eq!(rest, "hi");
    }

    fn err(msg: &str) -> String {
        split_prefix(msg).unwrap_err().0
    }

    #[test]
    fn strict_errors_say_what_is_wrong() {
        assert!(err("(context: user_id=u1 done").contains("unclosed"));
        assert!(err("(context: user=u1) done").contains("unknown context key 'user'"));
        assert!(
            err("(context: user_id=u1 user_id=u2) done")
                .contains("duplicate context key 'user_id'")
        );
        assert!(err("(context: canvas_id=a conversation_id=b) hi").contains("duplicate"));
        assert!(err("(context: user_id) hi").contains("expected key=value"));
        assert!(err("(context: user_id=) hi").contains("empty value"));
        assert!(err("(context: today=2026-13-01) hi").contains("today"));
        assert!(err("(context: today=2026-3-1) hi").contains("today"));
        assert!(err("(context: tz=Mars/Olympus) hi").contains("IANA"));
        assert!(err("(context: user_id=a<b) hi").contains("invalid characters"));
        assert!(err(&format!("(context: corr={}) hi", "x".repeat(129))).contains("longer than"));
    }

    #[test]
    fn greedy_values_do_not_swallow_the_closing_paren() {
        let (p, rest) = split_prefix("(context: workout_id=w1) today=2026-03-01) hi").unwrap();
        assert_eq!(p.workout_id, Some("w1"));
        assert_eq!(rest, "today=2026-03-01) hi");
    }

    #[test]
    fn a_prefix_later_in_the_text_is_just_text() {
        let (p, rest) = split_prefix("hello (context: user_id=u1) world").unwrap();
        assert!(!p.present);
        assert_eq!(rest, "hello (context: user_id=u1) world");
    }
}
