//! App events (`POST /v1/events`): what the coach says when the app opens, a card is tapped, a
//! rating arrives or a flow completes. Texts come from templates here; nothing calls a model.
//! Pure: [`parse`] validates, [`respond`] returns the reply and the context to store.

use chrono::{DateTime, Duration, Utc};
use serde_json::{Map, Value};

use crate::domain::coaching::{CoachingContext, PendingQuestion, Phase};
use crate::domain::profile::Profile;

/// A check-in is due when the last one (and the last prompt) is at least this old.
pub(crate) const CHECKIN_INTERVAL: Duration = Duration::hours(20);

pub(crate) const EVENT_TYPES: [&str; 5] = [
    "app_opened_first_time",
    "app_opened",
    "card_tapped",
    "rating_submitted",
    "flow_completed",
];

/// The scale a check-in key is rated on (its card's default), when it is a card's.
pub fn scale_of(key: &str) -> Option<(i64, i64)> {
    CARDS.iter().find(|c| c.0 == key).map(|c| (c.2, c.3))
}

/// Check-in cards: key, question, default scale.
pub(crate) const CARDS: [(&str, &str, i64, i64); 6] = [
    (
        "stress_checkin",
        "Quick check-in: how stressed do you feel today?",
        1,
        5,
    ),
    ("energy_checkin", "How is your energy today?", 1, 5),
    ("sleep_checkin", "How well did you sleep last night?", 1, 5),
    (
        "soreness_checkin",
        "How sore are you from your last sessions?",
        1,
        5,
    ),
    (
        "readiness_checkin",
        "How ready do you feel to train today?",
        1,
        5,
    ),
    (
        "workout_feedback",
        "How hard did that workout feel overall?",
        1,
        10,
    ),
];

pub(crate) const FLOWS: [&str; 2] = ["getting_started", "goals_set"];

const GOALS_QUESTION: &str = "Now the big picture: what do you want your training to get you in the next three to six months?";

#[derive(Debug, Clone, PartialEq)]
pub enum AppEvent {
    FirstOpen,
    Open,
    CardTapped {
        key: String,
        scale: Option<(i64, i64)>,
    },
    Rating {
        value: i64,
        scale: Option<(i64, i64)>,
        key: Option<String>,
    },
    FlowCompleted {
        flow_id: String,
    },
}

impl AppEvent {
    pub fn kind(&self) -> &'static str {
        match self {
            AppEvent::FirstOpen => "app_opened_first_time",
            AppEvent::Open => "app_opened",
            AppEvent::CardTapped { .. } => "card_tapped",
            AppEvent::Rating { .. } => "rating_submitted",
            AppEvent::FlowCompleted { .. } => "flow_completed",
        }
    }
}

/// A validation failure: the field and what is wrong with it.
#[derive(Debug, Clone, PartialEq)]
pub struct EventError {
    pub field: &'static str,
    pub message: String,
}

fn err(field: &'static str, message: impl Into<String>) -> EventError {
    EventError {
        field,
        message: message.into(),
    }
}

fn string<'a>(obj: &'a Map<String, Value>, field: &'static str) -> Result<&'a str, EventError> {
    match obj.get(field) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim()),
        Some(_) => Err(err(field, format!("'{field}' must be a non-empty string"))),
        None => Err(err(field, format!("'{field}' is required"))),
    }
}

/// "1-5", "0 to 10", "rate_stress_1_to_5" or {"min": 1, "max": 5}.
pub(crate) fn parse_scale(v: &Value) -> Option<(i64, i64)> {
    let (min, max) = match v {
        Value::Object(o) => (o.get("min")?.as_i64()?, o.get("max")?.as_i64()?),
        Value::String(s) => {
            let nums: Vec<i64> = s
                .split(|c: char| !c.is_ascii_digit())
                .filter(|p| !p.is_empty())
                .filter_map(|p| p.parse().ok())
                .collect();
            match nums.as_slice() {
                [.., a, b] => (*a, *b),
                _ => return None,
            }
        }
        _ => return None,
    };
    (0..=100)
        .contains(&min)
        .then_some(())
        .filter(|_| max > min && max <= 100)
        .map(|_| (min, max))
}

/// Fields every event may carry.
const COMMON_FIELDS: [&str; 4] = ["type", "id", "context", "timestamp"];

/// Every field an event of some type may carry.
pub(crate) const EVENT_FIELDS: [&str; 9] = [
    "id",
    "type",
    "intervention_key",
    "suggested_action",
    "context",
    "timestamp",
    "value",
    "scale",
    "flow_id",
];

/// The fields an event type adds to [`COMMON_FIELDS`]; `None` for an unknown type.
fn fields_of(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "app_opened_first_time" | "app_opened" => &[],
        "card_tapped" => &["intervention_key", "suggested_action"],
        "rating_submitted" => &["value", "scale", "intervention_key"],
        "flow_completed" => &["flow_id"],
        _ => return None,
    })
}

/// A field name as sent, short enough for an error message.
fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Validates an event object.
pub fn parse(obj: &Map<String, Value>) -> Result<AppEvent, EventError> {
    let kind = string(obj, "type").map_err(|e| EventError {
        message: format!("{}; one of: {}", e.message, EVENT_TYPES.join(", ")),
        ..e
    })?;
    if let Some(own) = fields_of(kind)
        && let Some(extra) = obj
            .keys()
            .find(|k| !COMMON_FIELDS.contains(&k.as_str()) && !own.contains(&k.as_str()))
    {
        let mut allowed: Vec<&str> = COMMON_FIELDS.to_vec();
        allowed.extend_from_slice(own);
        return Err(EventError {
            field: EVENT_FIELDS
                .iter()
                .find(|f| **f == extra.as_str())
                .copied()
                .unwrap_or("type"),
            message: format!(
                "'{}' is not a field of a {kind} event (its fields: {})",
                clip(extra),
                allowed.join(", ")
            ),
        });
    }
    match kind {
        "app_opened_first_time" => Ok(AppEvent::FirstOpen),
        "app_opened" => Ok(AppEvent::Open),
        "card_tapped" => {
            let key = string(obj, "intervention_key")?;
            let Some(card) = CARDS.iter().find(|c| c.0 == key) else {
                return Err(err(
                    "intervention_key",
                    format!(
                        "unknown intervention_key '{key}'; known: {}",
                        CARDS.map(|c| c.0).join(", ")
                    ),
                ));
            };
            let scale = obj.get("suggested_action").and_then(parse_scale);
            Ok(AppEvent::CardTapped {
                key: card.0.to_string(),
                scale,
            })
        }
        "rating_submitted" => parse_rating(obj),
        "flow_completed" => {
            let flow_id = string(obj, "flow_id")?;
            if !FLOWS.contains(&flow_id) {
                return Err(err(
                    "flow_id",
                    format!("unknown flow_id '{flow_id}'; known: {}", FLOWS.join(", ")),
                ));
            }
            Ok(AppEvent::FlowCompleted {
                flow_id: flow_id.to_string(),
            })
        }
        other => Err(err(
            "type",
            format!(
                "unknown event type '{other}'; one of: {}",
                EVENT_TYPES.join(", ")
            ),
        )),
    }
}

/// A rating's value (whole), its scale and the question it answers, when sent.
fn parse_rating(obj: &Map<String, Value>) -> Result<AppEvent, EventError> {
    let value = match obj.get("value") {
        Some(v) => v
            .as_i64()
            .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
            .ok_or_else(|| err("value", "'value' must be a whole number"))?,
        None => return Err(err("value", "'value' is required")),
    };
    let scale = match obj.get("scale") {
        Some(s) => Some(parse_scale(s).ok_or_else(|| {
            err(
                "scale",
                "'scale' must look like \"1-5\" or {\"min\":1,\"max\":5}",
            )
        })?),
        None => None,
    };
    let key = match obj.get("intervention_key") {
        Some(_) => Some(string(obj, "intervention_key")?.to_string()),
        None => None,
    };
    Ok(AppEvent::Rating { value, scale, key })
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reply {
    pub message: Option<String>,
    pub ui_hint: Option<&'static str>,
    pub requires_response: bool,
    /// Extra for the app (the rating scale, the choices).
    pub options: Option<Value>,
    /// Said unprompted (a check-in the lifter did not ask for): goes through the notification gate.
    pub proactive: bool,
    /// The context to store, when the event changed it.
    pub context: Option<CoachingContext>,
}

/// What the coach answers, given the lifter's profile and context. `Err` when the event does not
/// fit the state (a rating with no scale to check it against).
pub fn respond(
    event: &AppEvent,
    profile: &Profile,
    ctx: &CoachingContext,
    now: DateTime<Utc>,
) -> Result<Reply, EventError> {
    match event {
        AppEvent::FirstOpen => Ok(intake_question(profile)),
        AppEvent::Open => Ok(on_open(ctx, now)),
        AppEvent::CardTapped { key, scale } => Ok(on_card(key, *scale, ctx, now)),
        AppEvent::Rating { value, scale, key } => {
            on_rating(*value, *scale, key.as_deref(), ctx, now)
        }
        AppEvent::FlowCompleted { flow_id } => Ok(on_flow(flow_id, ctx)),
    }
}

/// The app opened: the check-in question, when one is due (in the check-in phase, neither
/// answered nor asked within [`CHECKIN_INTERVAL`]); nothing otherwise.
fn on_open(ctx: &CoachingContext, now: DateTime<Utc>) -> Reply {
    let due = ctx.phase == Phase::Checkins
        && ctx
            .checkin
            .last_checkin_at
            .is_none_or(|t| now - t >= CHECKIN_INTERVAL)
        && ctx
            .checkin
            .last_prompted_at
            .is_none_or(|t| now - t >= CHECKIN_INTERVAL);
    if !due {
        return Reply::default();
    }
    let (key, question, min, max) = CARDS[4];
    let mut next = ctx.clone();
    next.checkin.last_prompted_at = Some(now);
    next.checkin.pending = Some(PendingQuestion {
        key: key.into(),
        min,
        max,
        asked_at: now,
    });
    Reply {
        message: Some(question.to_string()),
        ui_hint: Some("rating_scale"),
        requires_response: true,
        options: Some(serde_json::json!({ "intervention_key": key, "min": min, "max": max })),
        proactive: true,
        context: Some(next),
    }
}

/// A card tapped: its question, on its scale (or the one the app sent), waiting for the rating.
fn on_card(
    key: &str,
    scale: Option<(i64, i64)>,
    ctx: &CoachingContext,
    now: DateTime<Utc>,
) -> Reply {
    let card = CARDS
        .iter()
        .find(|c| c.0 == key)
        .copied()
        .unwrap_or(CARDS[4]);
    let (min, max) = scale.unwrap_or((card.2, card.3));
    let mut next = ctx.clone();
    next.checkin.pending = Some(PendingQuestion {
        key: key.to_string(),
        min,
        max,
        asked_at: now,
    });
    Reply {
        message: Some(format!("{} ({min}–{max})", card.1)),
        ui_hint: Some("rating_scale"),
        requires_response: true,
        options: Some(serde_json::json!({ "intervention_key": key, "min": min, "max": max })),
        proactive: false,
        context: Some(next),
    }
}

/// A rating: checked against its scale (sent, else the waiting question's, else its card's),
/// kept as the latest for its key, and acknowledged.
fn on_rating(
    value: i64,
    scale: Option<(i64, i64)>,
    key: Option<&str>,
    ctx: &CoachingContext,
    now: DateTime<Utc>,
) -> Result<Reply, EventError> {
    let pending = ctx.checkin.pending.as_ref();
    let key = key
        .map(str::to_string)
        .or_else(|| pending.map(|p| p.key.clone()))
        .unwrap_or_else(|| "rating".into());
    let (min, max) = scale
        .or_else(|| pending.filter(|p| p.key == key).map(|p| (p.min, p.max)))
        .or_else(|| CARDS.iter().find(|c| c.0 == key).map(|c| (c.2, c.3)))
        .ok_or_else(|| {
            err(
                "scale",
                "'scale' is required: no question is waiting for this rating",
            )
        })?;
    if !(min..=max).contains(&value) {
        return Err(err(
            "value",
            format!("{value} is outside the scale {min}–{max}"),
        ));
    }
    let mut next = ctx.clone();
    next.checkin.latest.insert(key.clone(), value);
    next.checkin.last_checkin_at = Some(now);
    if next.checkin.pending.as_ref().is_some_and(|p| p.key == key) {
        next.checkin.pending = None;
    }
    Ok(Reply {
        message: Some(acknowledge(&key, value, min, max)),
        ui_hint: None,
        requires_response: false,
        options: None,
        proactive: false,
        context: Some(next),
    })
}

/// A flow finished: the phase it leads to (never back), and what comes next.
fn on_flow(flow_id: &str, ctx: &CoachingContext) -> Reply {
    let mut next = ctx.clone();
    let (phase, message, requires) = match flow_id {
        "getting_started" => (Phase::Goals, Some(GOALS_QUESTION.to_string()), true),
        _ => (
            Phase::Checkins,
            Some("Goals saved. I'll check in now and then; tap a card any time to tell me how you feel.".to_string()),
            false,
        ),
    };
    // Phases only move forward: replaying an old flow never sends the lifter back.
    if phase > next.phase {
        next.phase = phase;
    }
    Reply {
        message,
        ui_hint: requires.then_some("text_input"),
        requires_response: requires,
        options: None,
        proactive: false,
        context: Some(next),
    }
}

fn intake_question(profile: &Profile) -> Reply {
    let (message, hint, options) = if profile.display_name.is_none() {
        (
            "Welcome! I'm your strength coach. What should I call you?".to_string(),
            "text_input",
            None,
        )
    } else {
        (
            format!(
                "Welcome, {}! How long have you been lifting?",
                profile.display_name.as_deref().unwrap_or_default()
            ),
            "choice",
            Some(serde_json::json!({ "choices": ["beginner", "intermediate", "advanced"] })),
        )
    };
    Reply {
        message: Some(message),
        ui_hint: Some(hint),
        requires_response: true,
        options,
        proactive: false,
        context: None,
    }
}

fn acknowledge(key: &str, value: i64, min: i64, max: i64) -> String {
    let what = key.trim_end_matches("_checkin").replace('_', " ");
    let share = (value - min) as f64 / (max - min) as f64;
    // High stress or soreness, low energy, sleep or readiness: a gentler session.
    let rough = match key {
        "stress_checkin" | "soreness_checkin" => share >= 0.75,
        "energy_checkin" | "sleep_checkin" | "readiness_checkin" => share <= 0.25,
        _ => false,
    };
    let mut s = format!("Thanks, noted: {what} {value}/{max}.");
    if rough {
        s.push_str(" On a day like this, keep your working sets but stop one or two reps earlier.");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(v: Value) -> Result<AppEvent, EventError> {
        parse(v.as_object().unwrap())
    }

    #[test]
    fn fields_of_another_event_type_are_named() {
        let obj = |v: Value| v.as_object().cloned().unwrap_or_default();
        let e = parse(&obj(serde_json::json!({"type": "app_opened", "value": 3}))).unwrap_err();
        assert_eq!(e.field, "value");
        assert!(e.message.contains("not a field of a app_opened event"));
        assert!(
            parse(&obj(
                serde_json::json!({"type": "rating_submitted", "value": 3, "id": "e1", "timestamp": 1})
            ))
            .is_ok()
        );
    }

    #[test]
    fn parsing_names_the_bad_field() {
        assert_eq!(ev(json!({})).unwrap_err().field, "type");
        assert_eq!(ev(json!({"type": "dance"})).unwrap_err().field, "type");
        assert_eq!(
            ev(json!({"type": "card_tapped"})).unwrap_err().field,
            "intervention_key"
        );
        assert!(
            ev(json!({"type": "card_tapped", "intervention_key": "x"}))
                .unwrap_err()
                .message
                .contains("stress_checkin")
        );
        assert_eq!(
            ev(json!({"type": "rating_submitted", "value": "high"}))
                .unwrap_err()
                .field,
            "value"
        );
        assert_eq!(
            ev(json!({"type": "rating_submitted", "value": 3, "scale": "lots"}))
                .unwrap_err()
                .field,
            "scale"
        );
        assert_eq!(
            ev(json!({"type": "flow_completed", "flow_id": "x"}))
                .unwrap_err()
                .field,
            "flow_id"
        );
        assert_eq!(
            ev(json!({"type": "card_tapped", "intervention_key": "stress_checkin", "suggested_action": "rate_stress_0_to_10"})).unwrap(),
            AppEvent::CardTapped { key: "stress_checkin".into(), scale: Some((0, 10)) }
        );
    }

    #[test]
    fn card_then_rating_uses_the_cards_scale() {
        let now = Utc::now();
        let p = Profile::default();
        let ctx = CoachingContext::default();
        let card = ev(json!({"type": "card_tapped", "intervention_key": "stress_checkin", "suggested_action": "rate_stress_0_to_10"})).unwrap();
        let r = respond(&card, &p, &ctx, now).unwrap();
        assert_eq!(r.ui_hint, Some("rating_scale"));
        let ctx = r.context.unwrap();
        let rating = ev(json!({"type": "rating_submitted", "value": 11})).unwrap();
        assert_eq!(respond(&rating, &p, &ctx, now).unwrap_err().field, "value");
        let rating = ev(json!({"type": "rating_submitted", "value": 9})).unwrap();
        let r = respond(&rating, &p, &ctx, now).unwrap();
        assert!(r.message.unwrap().contains("stress 9/10"));
        let stored = r.context.unwrap();
        assert_eq!(stored.checkin.latest.get("stress_checkin"), Some(&9));
        assert!(stored.checkin.pending.is_none());
        // With nothing pending and no scale, the rating cannot be checked.
        let lone = ev(json!({"type": "rating_submitted", "value": 3})).unwrap();
        assert_eq!(
            respond(&lone, &p, &CoachingContext::default(), now)
                .unwrap_err()
                .field,
            "scale"
        );
    }

    #[test]
    fn checkins_are_due_once_a_day_and_only_after_intake_and_goals() {
        let now = Utc::now();
        let p = Profile::default();
        let open = AppEvent::Open;
        assert_eq!(
            respond(&open, &p, &CoachingContext::default(), now)
                .unwrap()
                .message,
            None
        );
        let ctx = CoachingContext {
            phase: Phase::Checkins,
            ..CoachingContext::default()
        };
        let r = respond(&open, &p, &ctx, now).unwrap();
        assert!(r.proactive && r.message.is_some());
        let ctx = r.context.unwrap();
        assert_eq!(
            respond(&open, &p, &ctx, now + Duration::hours(2))
                .unwrap()
                .message,
            None
        );
        assert!(
            respond(&open, &p, &ctx, now + Duration::hours(21))
                .unwrap()
                .message
                .is_some()
        );
    }

    #[test]
    fn flows_move_the_phase_forward_only() {
        let now = Utc::now();
        let p = Profile::default();
        let done = ev(json!({"type": "flow_completed", "flow_id": "getting_started"})).unwrap();
        let r = respond(&done, &p, &CoachingContext::default(), now).unwrap();
        assert_eq!(r.context.unwrap().phase, Phase::Goals);
        let later = CoachingContext {
            phase: Phase::Checkins,
            ..CoachingContext::default()
        };
        assert_eq!(
            respond(&done, &p, &later, now)
                .unwrap()
                .context
                .unwrap()
                .phase,
            Phase::Checkins
        );
        let first = respond(&AppEvent::FirstOpen, &p, &CoachingContext::default(), now).unwrap();
        assert!(first.message.unwrap().contains("What should I call you"));
    }
}
