//! Routing: every lane calls `route` on the message (prefix removed) and gets the
//! lane, the intent, the rule that matched, a confidence and the signals. Pure; the FAST path
//! allocates only its token list, the SLOW rules compile their regexes on first use.

pub mod command;
mod text;

use serde::{Deserialize, Serialize};

pub use command::{Command, CommandError, Effort, Load, Reading, SetEntry};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lane {
    Fast,
    Functional,
    Slow,
}

impl Lane {
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Fast => "fast",
            Lane::Functional => "functional",
            Lane::Slow => "slow",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Intent {
    LogSet,
    LogSetShorthand,
    LogSetReps,
    LogSetTimed,
    SwitchExercise,
    NextSet,
    RestAck,
    Undo,
    SkipSet,
    MonitorSkip,
    SwapExercise,
    AutofillSet,
    SuggestWeight,
    AdjustLoad,
    MonitorState,
    PlanRoutine,
    PlanWorkout,
    EditPlan,
    AnalyzeProgress,
    StartWorkout,
    NextWorkout,
    CoachGeneral,
}

impl Intent {
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::LogSet => "LOG_SET",
            Intent::LogSetShorthand => "LOG_SET_SHORTHAND",
            Intent::LogSetReps => "LOG_SET_REPS",
            Intent::LogSetTimed => "LOG_SET_TIMED",
            Intent::SwitchExercise => "SWITCH_EXERCISE",
            Intent::NextSet => "NEXT_SET",
            Intent::RestAck => "REST_ACK",
            Intent::Undo => "UNDO",
            Intent::SkipSet => "SKIP_SET",
            Intent::MonitorSkip => "MONITOR_SKIP",
            Intent::SwapExercise => "SWAP_EXERCISE",
            Intent::AutofillSet => "AUTOFILL_SET",
            Intent::SuggestWeight => "SUGGEST_WEIGHT",
            Intent::AdjustLoad => "ADJUST_LOAD",
            Intent::MonitorState => "MONITOR_STATE",
            Intent::PlanRoutine => "PLAN_ROUTINE",
            Intent::PlanWorkout => "PLAN_WORKOUT",
            Intent::EditPlan => "EDIT_PLAN",
            Intent::AnalyzeProgress => "ANALYZE_PROGRESS",
            Intent::StartWorkout => "START_WORKOUT",
            Intent::NextWorkout => "NEXT_WORKOUT",
            Intent::CoachGeneral => "COACH_GENERAL",
        }
    }

    pub fn of_command(c: &Command) -> Intent {
        match c {
            Command::LogSet => Intent::LogSet,
            Command::Log(e) => match e.readings.as_slice() {
                [r] if r.seconds.is_some() => Intent::LogSetTimed,
                [r] if r.sets == 1 && r.load == Load::Planned => Intent::LogSetReps,
                _ => Intent::LogSetShorthand,
            },
            Command::Switch { .. } => Intent::SwitchExercise,
            Command::NextSet => Intent::NextSet,
            Command::RestAck => Intent::RestAck,
            Command::Undo => Intent::Undo,
            Command::SkipSet => Intent::SkipSet,
        }
    }
}

/// The structured intents the app sends as JSON (smart buttons and the monitor).
pub const FUNCTIONAL_INTENTS: [Intent; 5] = [
    Intent::SwapExercise,
    Intent::AutofillSet,
    Intent::SuggestWeight,
    Intent::AdjustLoad,
    Intent::MonitorState,
];

/// Monitor events worth analysing; any other event type is acknowledged silently.
pub const SIGNIFICANT_EVENTS: [&str; 3] =
    ["SET_COMPLETED", "WORKOUT_COMPLETED", "EXERCISE_SWAPPED"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    High,
    Medium,
    Low,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Route {
    pub lane: Lane,
    pub intent: Option<Intent>,
    pub matched_rule: &'static str,
    pub confidence: Confidence,
    pub signals: Vec<&'static str>,
    /// The parsed command of a FAST text route, so the lane does not parse twice.
    #[serde(skip)]
    pub command: Option<Command>,
    /// A message that reads like a set command but has a mistake; routed SLOW, but the fast
    /// endpoint reports this instead of "not a command".
    #[serde(skip)]
    pub near_miss: Option<CommandError>,
}

impl Route {
    fn new(
        lane: Lane,
        intent: Option<Intent>,
        matched_rule: &'static str,
        confidence: Confidence,
    ) -> Self {
        Route {
            lane,
            intent,
            matched_rule,
            confidence,
            signals: Vec::new(),
            command: None,
            near_miss: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum RouteError {
    /// A JSON message whose `intent` is not one we know (400 `UNKNOWN_INTENT`).
    UnknownIntent(String),
}

impl std::fmt::Display for RouteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RouteError::UnknownIntent(got) => {
                let known: Vec<&str> = FUNCTIONAL_INTENTS.iter().map(|i| i.as_str()).collect();
                write!(
                    f,
                    "unknown intent '{got}'; known intents: {}",
                    known.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for RouteError {}

/// Routes a message whose context prefix has already been removed.
pub fn route(message: &str) -> Result<Route, RouteError> {
    route_depth(message, 0)
}

fn route_depth(message: &str, depth: u8) -> Result<Route, RouteError> {
    let text = message.trim();
    if text.starts_with('{')
        && let Ok(serde_json::Value::Object(obj)) = serde_json::from_str::<serde_json::Value>(text)
    {
        return route_object(&obj, depth);
    }
    Ok(route_text(text))
}

fn route_object(
    obj: &serde_json::Map<String, serde_json::Value>,
    depth: u8,
) -> Result<Route, RouteError> {
    if let Some(intent) = obj.get("intent") {
        let name = intent.as_str().unwrap_or_default();
        return match FUNCTIONAL_INTENTS.iter().find(|i| i.as_str() == name) {
            Some(&i) => Ok(Route::new(
                Lane::Functional,
                Some(i),
                "json:intent",
                Confidence::High,
            )),
            None => Err(RouteError::UnknownIntent(if name.is_empty() {
                intent.to_string()
            } else {
                name.to_string()
            })),
        };
    }
    if let Some(event) = obj.get("event_type") {
        let name = event.as_str().unwrap_or_default();
        return Ok(if SIGNIFICANT_EVENTS.contains(&name) {
            Route::new(
                Lane::Functional,
                Some(Intent::MonitorState),
                "json:monitor_significant",
                Confidence::High,
            )
        } else {
            Route::new(
                Lane::Fast,
                Some(Intent::MonitorSkip),
                "json:monitor_skip",
                Confidence::High,
            )
        });
    }
    if let Some(serde_json::Value::String(inner)) = obj.get("message")
        && obj.len() == 1
        && !inner.trim().is_empty()
        && depth == 0
    {
        return route_depth(inner, depth + 1);
    }
    let mut r = Route::new(Lane::Slow, None, "json:fallback", Confidence::Low);
    r.signals.push("json_object");
    Ok(r)
}

fn route_text(text: &str) -> Route {
    let near_miss = match command::parse(text) {
        Ok(Some((cmd, rule))) => {
            let mut r = Route::new(
                Lane::Fast,
                Some(Intent::of_command(&cmd)),
                rule,
                Confidence::High,
            );
            r.command = Some(cmd);
            return r;
        }
        Ok(None) => None,
        Err(e) => Some(e),
    };
    let lower = text.to_lowercase().replace('’', "'");
    let words = text::Words::new(&lower);
    let signals = text::signals(&words);
    let mut r = match text::slow_rule(&words) {
        Some((intent, rule)) => Route::new(Lane::Slow, Some(intent), rule, Confidence::High),
        None if signals.contains(&"is_question") || signals.contains(&"mentions_training") => {
            Route::new(
                Lane::Slow,
                Some(Intent::CoachGeneral),
                "default:coach_question",
                Confidence::Medium,
            )
        }
        None => Route::new(Lane::Slow, None, "default", Confidence::Low),
    };
    if near_miss.is_some() {
        r.signals.push("near_miss_command");
    }
    r.signals.extend(signals);
    r.near_miss = near_miss;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(msg: &str) -> Route {
        route(msg).unwrap()
    }

    #[test]
    fn commands_go_fast_with_their_intent() {
        for (msg, intent) in [
            ("done", Intent::LogSet),
            ("8 @ 100kg", Intent::LogSetShorthand),
            ("12 reps", Intent::LogSetReps),
            ("100x8", Intent::LogSetShorthand),
            ("plank 60s", Intent::LogSetTimed),
            ("now squats", Intent::SwitchExercise),
            ("what's next?", Intent::NextSet),
            ("ready", Intent::RestAck),
            ("undo", Intent::Undo),
            ("skip", Intent::SkipSet),
        ] {
            let route = r(msg);
            assert_eq!(
                (route.lane, route.intent, route.confidence),
                (Lane::Fast, Some(intent), Confidence::High),
                "{msg}"
            );
            assert!(route.command.is_some());
        }
    }

    #[test]
    fn json_intents_go_functional() {
        let route = r(r#"{"intent":"SWAP_EXERCISE","target":"Bench Press"}"#);
        assert_eq!(
            (route.lane, route.intent, route.matched_rule),
            (Lane::Functional, Some(Intent::SwapExercise), "json:intent")
        );
        let route = r(r#"{"target":"x","intent":"SUGGEST_WEIGHT"}"#);
        assert_eq!(route.intent, Some(Intent::SuggestWeight));
    }

    #[test]
    fn unknown_json_intent_is_an_error_listing_the_known_ones() {
        let e = route(r#"{"intent":"TELEPORT"}"#).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("TELEPORT")
                && text.contains("ADJUST_LOAD")
                && text.contains("SWAP_EXERCISE")
                && text.contains("MONITOR_STATE")
        );
        assert!(route(r#"{"intent":42}"#).is_err());
    }

    #[test]
    fn monitor_events_are_gated() {
        for ev in SIGNIFICANT_EVENTS {
            let route = r(&format!(r#"{{"event_type":"{ev}","state_diff":{{}}}}"#));
            assert_eq!(
                (route.lane, route.intent),
                (Lane::Functional, Some(Intent::MonitorState))
            );
        }
        let route = r(r#"{"event_type":"SET_COMPLETED"}"#);
        assert_eq!(route.intent, Some(Intent::MonitorState));
        let route = r(r#"{"event_type":"TIMER_TICK","workout_state":{}}"#);
        assert_eq!(
            (route.lane, route.intent, route.matched_rule),
            (Lane::Fast, Some(Intent::MonitorSkip), "json:monitor_skip")
        );
    }

    #[test]
    fn message_only_objects_route_their_text() {
        let route = r(r#"{"message":"done"}"#);
        assert_eq!(
            (route.lane, route.intent),
            (Lane::Fast, Some(Intent::LogSet))
        );
        let route = r(r#"{"message":"build me a ppl routine"}"#);
        assert_eq!(route.intent, Some(Intent::PlanRoutine));
    }

    #[test]
    fn other_json_and_non_objects_go_slow() {
        assert_eq!(r(r#"{"foo":1}"#).lane, Lane::Slow);
        assert_eq!(r(r#"["done"]"#).lane, Lane::Slow);
        assert_eq!(r(r#""done""#).lane, Lane::Slow);
    }

    #[test]
    fn slow_intents_from_rules() {
        for (msg, intent) in [
            ("Create me a push pull legs routine", Intent::PlanRoutine),
            ("create a ppl routine", Intent::PlanRoutine),
            ("I want a new program", Intent::PlanRoutine),
            ("build me a workout for today", Intent::PlanWorkout),
            ("can you change my routine to 4 days", Intent::EditPlan),
            ("how's my bench?", Intent::AnalyzeProgress),
            ("how’s my progress", Intent::AnalyzeProgress),
            ("am I progressing on squats", Intent::AnalyzeProgress),
            ("start my workout", Intent::StartWorkout),
            ("what's my next workout", Intent::NextWorkout),
            ("should I deload?", Intent::CoachGeneral),
        ] {
            let route = r(msg);
            assert_eq!(
                (route.lane, route.intent),
                (Lane::Slow, Some(intent)),
                "{msg}: {:?}",
                route.matched_rule
            );
        }
        let route = r("thanks!");
        assert_eq!(
            (
                route.lane,
                route.intent,
                route.matched_rule,
                route.confidence
            ),
            (Lane::Slow, None, "default", Confidence::Low)
        );
    }

    #[test]
    fn slow_routes_carry_signals() {
        let route = r("how is my bench volume?");
        assert!(route.signals.contains(&"has_first_person"));
        assert!(route.signals.contains(&"has_metric_word"));
        assert!(route.signals.contains(&"is_question"));
        assert!(
            r("my shoulder hurts when I press")
                .signals
                .contains(&"mentions_pain")
        );
    }

    #[test]
    fn near_misses_go_slow_but_are_kept() {
        let route = r("8@");
        assert_eq!(route.lane, Lane::Slow);
        assert!(route.near_miss.is_some());
        assert!(route.signals.contains(&"near_miss_command"));
    }
}
