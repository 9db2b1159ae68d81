//! Memory and context tools: what the coach keeps about the lifter across conversations, the
//! lifter's goals and focus, and notifications (through the same gate as app events: the
//! lifter's preference, quiet hours in their timezone, at most one every 4 hours).

use chrono::Utc;
use serde_json::{Value, json};

use super::{
    Does, Env, Offered, Output, Tool, ToolError, agrees, last_question, numbers_in, store_failed,
    str_arg,
};
use crate::app::profile::ProfilePatch;
use crate::domain::artifact::{Proposal, time_id};
use crate::domain::coaching::{MAX_MEMORIES, MAX_MEMORY_CHARS, Memory};
use crate::domain::limits;
use crate::domain::units::Unit;
use crate::skills::notify::{self, Notification, Priority};
use crate::store::Parts;

/// The profile's fields `update_user_context` writes (the intake's questions).
const PROFILE_FIELDS: [&str; 8] = [
    "name",
    "age",
    "experience",
    "bodyweight_kg",
    "unit",
    "equipment",
    "notification_preference",
    "quiet_hours",
];

/// Longest notification text (it goes to a phone's lock screen).
const MAX_NOTIFICATION_CHARS: usize = 240;

/// The memory, context and notification tools.
pub(super) const TOOLS: &[Tool] = &[
    Tool {
        name: "save_memory",
        description: "Keep a durable fact about the lifter for future conversations (an injury to train around, a schedule, a preference). Not for one-off details.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "text": {"type": "string", "description": "one short sentence"},
                "kind": {"type": "string", "description": "e.g. injury, schedule, preference"}
            }, "required": ["text"]}))
        },
        run: runs!(|env, _, args| save(env, args).await.map(Output::wrote)),
        offered: Offered::Always,
        for_progress: false,
        for_plans: true,
        does: Does::Writes,
        shown_as: "your notes",
    },
    Tool {
        name: "retire_memory",
        description: "Propose retiring a memory that is no longer true (by memory_id from list_memories): the lifter confirms it, and until then it stays.",
        parameters: || {
            Some(
                json!({"type": "object", "properties": {"memory_id": {"type": "string"}}, "required": ["memory_id"]}),
            )
        },
        run: runs!(|env, _, args| retire(env, args).await),
        offered: Offered::Always,
        for_progress: false,
        for_plans: false,
        does: Does::Proposes,
        shown_as: "your notes",
    },
    Tool {
        name: "list_memories",
        description: "The memories kept about the lifter, with their ids.",
        parameters: || None,
        run: runs!(|env, _, _| list(env).await.map(Output::read)),
        offered: Offered::Always,
        for_progress: false,
        for_plans: true,
        does: Does::Reads,
        shown_as: "your notes",
    },
    Tool {
        name: "update_user_context",
        description: "Update what the lifter told you about themselves: their profile (the intake's answers: name, age, experience, bodyweight, unit, equipment, notification preference, quiet hours; the same fields the app's settings change), their goals (objectives, timeline, current cycle such as 'cutting until May', active focus such as 'bench 100 kg by summer') and a check-in's GROW goal and way forward. Only what the lifter said; leave out the rest (name, age, bodyweight, unit and quiet hours are refused unless the lifter's message states them). A name moves a new lifter on to goals, goals to check-ins.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "what the lifter wants to be called"},
                "age": {"type": "integer", "minimum": 13, "maximum": 120},
                "experience": {"type": "string", "enum": ["beginner", "intermediate", "advanced"]},
                "bodyweight_kg": {"type": "number", "minimum": 20, "maximum": 400},
                "unit": {"type": "string", "enum": ["kg", "lb"]},
                "equipment": {"type": "array", "items": {"type": "string"}, "description": "what they can train with: barbell, dumbbell, machine, cable, kettlebell, band, bodyweight, ..."},
                "notification_preference": {"type": "string", "enum": ["off", "minimal", "balanced", "proactive"]},
                "quiet_hours": {"type": "object", "properties": {"start": {"type": "string", "description": "HH:MM"}, "end": {"type": "string", "description": "HH:MM"}}, "description": "when not to be notified, as the lifter says it"},
                "objectives": {"type": "array", "items": {"type": "string"}, "description": "goals to add (the others stay)"},
                "drop_objectives": {"type": "array", "items": {"type": "string"}, "description": "goals the lifter gave up or reached, as listed"},
                "timeline": {"type": "string"},
                "current_cycle": {"type": "string"},
                "active_focus": {"type": "string"},
                "grow_goal": {"type": "string", "description": "a check-in's goal (GROW's G)"},
                "way_forward": {"type": "string", "description": "a check-in's agreed next step (GROW's W)"}
            }}))
        },
        run: runs!(|env, _, args| update_context(env, args).await.map(Output::wrote)),
        offered: Offered::Always,
        for_progress: false,
        for_plans: true,
        does: Does::Writes,
        shown_as: "your notes",
    },
    Tool {
        name: "send_notification",
        description: "Send the lifter a notification later in the app (a reminder they asked for). The lifter's notification settings, quiet hours and a limit of one every 4 hours decide whether it is sent.",
        parameters: || {
            Some(json!({"type": "object", "properties": {
                "message": {"type": "string"},
                "priority": {"type": "string", "enum": ["low", "normal", "high"]}
            }, "required": ["message"]}))
        },
        run: runs!(|env, _, args| send(env, args).await),
        offered: Offered::Always,
        for_progress: false,
        for_plans: false,
        does: Does::Writes,
        shown_as: "your notifications",
    },
];

fn too_long(field: &str, max: usize) -> ToolError {
    ToolError::new(
        "INVALID_ARGUMENT",
        format!("'{field}' is longer than {max} characters"),
    )
}

async fn active_memories(env: &Env<'_>) -> Result<Vec<Memory>, ToolError> {
    let mut all = env
        .store
        .memories(&env.ctx.user_id)
        .await
        .map_err(|e| store_failed(&e))?;
    all.retain(|m| m.retired_at.is_none());
    Ok(all)
}

async fn save(env: &Env<'_>, args: &Value) -> Result<Value, ToolError> {
    let text = str_arg(args, "text")?;
    if text.chars().count() > MAX_MEMORY_CHARS {
        return Err(too_long("text", MAX_MEMORY_CHARS));
    }
    let active = active_memories(env).await?;
    if let Some(same) = active.iter().find(|m| m.text.eq_ignore_ascii_case(text)) {
        return Ok(json!({ "memory_id": same.id, "already_saved": true }));
    }
    if active.len() >= MAX_MEMORIES {
        return Err(ToolError::new(
            "TOO_MANY_MEMORIES",
            format!(
                "{MAX_MEMORIES} memories are kept; propose retiring one (retire_memory) and save this once the lifter confirms"
            ),
        ));
    }
    let now = Utc::now();
    let m = Memory {
        id: time_id("m", now),
        text: text.to_string(),
        kind: args["kind"].as_str().map(|k| k.chars().take(40).collect()),
        created_at: now,
        retired_at: None,
    };
    env.store
        .put_memory(&env.ctx.user_id, &m)
        .await
        .map_err(|e| store_failed(&e))?;
    Ok(json!({ "memory_id": m.id, "saved": true }))
}

/// A memory is what the coach plans around (an injury above all): the model proposes retiring
/// it and the lifter confirms, never the model alone.
async fn retire(env: &Env<'_>, args: &Value) -> Result<Output, ToolError> {
    let id = str_arg(args, "memory_id")?;
    let memory = active_memories(env)
        .await?
        .into_iter()
        .find(|m| m.id == id)
        .ok_or_else(|| {
            ToolError::new(
                "NOT_FOUND",
                format!("no active memory '{id}'; use list_memories"),
            )
        })?;
    super::propose::offer(env, Proposal::MemoryRetirement { memory }).await
}

async fn list(env: &Env<'_>) -> Result<Value, ToolError> {
    let active = active_memories(env).await?;
    Ok(
        json!({ "memories": active.iter().map(|m| json!({"memory_id": m.id, "text": m.text, "kind": m.kind, "saved": m.created_at.date_naive().to_string()})).collect::<Vec<_>>() }),
    )
}

fn opt_text(args: &Value, name: &str) -> Result<Option<String>, ToolError> {
    match &args[name] {
        Value::Null => Ok(None),
        v => {
            let t = v.as_str().map(str::trim).ok_or_else(|| {
                ToolError::new("INVALID_ARGUMENT", format!("'{name}' must be a string"))
            })?;
            limits::check_entered_name("name", t).map_err(|e| {
                ToolError::new("INVALID_ARGUMENT", format!("{name}: {}", e.message))
            })?;
            Ok(Some(t.to_string()))
        }
    }
}

/// A list of goals in the arguments (at most 10 short strings), if given.
fn goal_list(args: &Value, name: &str) -> Result<Option<Vec<String>>, ToolError> {
    match &args[name] {
        Value::Null => Ok(None),
        Value::Array(items) if items.len() <= 10 => Ok(Some(
            items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::trim)
                        .filter(|s| !s.is_empty() && s.chars().count() <= limits::MAX_NAME_CHARS)
                        .map(str::to_string)
                        .ok_or_else(|| {
                            ToolError::new(
                                "INVALID_ARGUMENT",
                                "each objective is a short non-empty string",
                            )
                        })
                })
                .collect::<Result<Vec<_>, _>>()?,
        )),
        _ => Err(ToolError::new(
            "INVALID_ARGUMENT",
            format!("'{name}' is a list of at most 10 strings"),
        )),
    }
}

/// The profile fields a model may set only when the lifter's own message states them: they
/// change every number the lifter reads (`unit`) or every load prescribed (`bodyweight_kg`), or
/// who the lifter is (`name`, `age`). Experience, equipment and the notification preference may
/// be read from what the lifter said ("lifting 3 years" is intermediate).
fn check_stated(field: &str, value: &Value, said: &str) -> Result<(), ToolError> {
    let lower = said.to_lowercase();
    let numbers = numbers_in(said);
    let words = |ws: &[&str]| {
        lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| ws.contains(&w))
    };
    let stated = match (field, value) {
        ("unit", Value::String(u)) if u == "lb" => words(&["lb", "lbs", "pound", "pounds"]),
        ("unit", Value::String(_)) => {
            words(&["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"])
        }
        ("bodyweight_kg", v) => v.as_f64().is_some_and(|kg| {
            numbers
                .iter()
                .any(|n| (n - kg).abs() <= 0.5 || (Unit::Lb.to_kg(*n) - kg).abs() <= 0.5)
        }),
        ("age", v) => v
            .as_f64()
            .is_some_and(|a| numbers.iter().any(|n| (n - a).abs() < 0.5)),
        ("name", Value::String(n)) => lower.contains(&n.trim().to_lowercase()),
        // Quiet hours only as the lifter says them: each end's hour in their message ("no
        // pings after 10 pm or before 7": 22:00 and 07:00).
        ("quiet_hours", v) => ["start", "end"].iter().all(|end| {
            v[end]
                .as_str()
                .and_then(|t| t.split(':').next()?.parse::<u32>().ok())
                .is_some_and(|h| {
                    numbers.iter().any(|n| {
                        (*n - f64::from(h)).abs() < 0.5 || (*n + 12.0 - f64::from(h)).abs() < 0.5
                    })
                })
        }),
        _ => true,
    };
    if stated {
        Ok(())
    } else {
        Err(ToolError::new(
            "NOT_STATED",
            format!(
                "the lifter's message does not state their {field}; ask them, and set it when they say it"
            ),
        ))
    }
}

/// Words that say a goal is reached or given up ("I hit it", "drop that goal").
const DROPPING: &[&str] = &[
    "drop", "remove", "delete", "reached", "reach", "hit", "achieved", "done", "finished",
    "forget", "abandon", "quit", "gave", "give", "longer", "nailed",
];

/// A goal is the lifter's to drop: their message names it (a word of it, and its figure when it
/// has one: "hit a squat PR of 130" does not drop "squat 140 kg") and says it is reached or
/// given up; or it agrees to the coach's last question, which named the goal and dropping it.
fn check_dropped(goal: &str, said: &str, asked: &str) -> Result<(), ToolError> {
    let words = |t: &str| -> Vec<String> {
        t.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() >= 3 || w.chars().all(|c| c.is_ascii_digit()) && !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let of_goal: Vec<String> = words(goal)
        .into_iter()
        .filter(|w| {
            !matches!(
                w.as_str(),
                "the" | "and" | "for" | "get" | "kg" | "lb" | "lbs"
            )
        })
        .collect();
    let figures: Vec<&String> = of_goal
        .iter()
        .filter(|w| w.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let names = |t: &str| {
        let w = words(t);
        w.iter().any(|x| of_goal.contains(x)) && figures.iter().all(|f| w.contains(f))
    };
    let dropping = |t: &str| words(t).iter().any(|w| DROPPING.contains(&w.as_str()));
    let stated = names(said) && dropping(said);
    let asked_about = last_question(asked).is_some_and(|q| names(q) && dropping(q));
    if stated || (asked_about && agrees(said)) {
        return Ok(());
    }
    Err(ToolError::new(
        "NOT_STATED",
        format!(
            "the lifter's message does not say the goal \"{goal}\" is reached or given up; ask them, and drop it when they say so"
        ),
    ))
}

async fn update_context(env: &Env<'_>, args: &Value) -> Result<Value, ToolError> {
    // Validate everything before reading or writing.
    let change = GoalsChange::read(args)?;
    // The profile's fields, checked as `PATCH /v1/me` checks them (null from a model: not said).
    let said: serde_json::Map<String, Value> = PROFILE_FIELDS
        .iter()
        .filter_map(|f| {
            Some((
                f.to_string(),
                args.get(*f).filter(|v| !v.is_null())?.clone(),
            ))
        })
        .collect();
    for (field, value) in &said {
        check_stated(field, value, env.said)?;
    }
    for goal in change.dropped.iter().flatten() {
        check_dropped(goal, env.said, env.asked)?;
    }
    let patch = if said.is_empty() {
        None
    } else {
        Some(ProfilePatch::from_body(&Value::Object(said)).map_err(|e| {
            let field = e.field.as_deref().unwrap_or("profile").to_string();
            ToolError::new("INVALID_ARGUMENT", format!("{field}: {}", e.message))
        })?)
    };
    if change.is_empty() && patch.is_none() {
        return Err(ToolError::new(
            "INVALID_ARGUMENT",
            "give at least one of the profile's fields or objectives, drop_objectives, timeline, current_cycle, active_focus, grow_goal, way_forward",
        ));
    }
    let profile = match &patch {
        Some(p) => Some(
            env.app
                .update_me(env.ctx, p)
                .await
                .map_err(|e| ToolError::new(e.code.as_str(), e.message))?,
        ),
        None => None,
    };
    if change.is_empty() {
        return Ok(json!({ "profile": profile }));
    }
    let coaching = change_goals(env, &change).await?;
    Ok(
        json!({ "goals": coaching.goals, "phase": coaching.phase, "checkin": {
        "grow_goal": coaching.checkin.grow_goal, "way_forward": coaching.checkin.way_forward,
    }, "profile": profile }),
    )
}

/// Applies `change` to the stored goals on the version read; an app event or another turn
/// that changed the context meanwhile is read again and the change applied to it.
async fn change_goals(
    env: &Env<'_>,
    change: &GoalsChange,
) -> Result<crate::domain::coaching::CoachingContext, ToolError> {
    let parts = Parts {
        coaching: true,
        ..Parts::default()
    };
    for _ in 0..3 {
        let state = env
            .store
            .user_state(&env.ctx.user_id, parts, None, Utc::now())
            .await
            .map_err(|e| store_failed(&e))?;
        let mut c = state.coaching.unwrap_or_default();
        change.advance(&mut c);
        change.clone().apply(&mut c.goals)?;
        let written = env
            .store
            .put_coaching_if(&env.ctx.user_id, &c, state.coaching_version)
            .await
            .map_err(|e| store_failed(&e))?;
        if written {
            return Ok(c);
        }
    }
    Err(ToolError::new(
        "CONFLICT",
        "the lifter's goals kept changing while this was saved; read them again and retry",
    ))
}

/// What `update_user_context` changes of the coaching goals.
#[derive(Clone)]
struct GoalsChange {
    objectives: Option<Vec<String>>,
    dropped: Option<Vec<String>>,
    timeline: Option<String>,
    cycle: Option<String>,
    focus: Option<String>,
    grow_goal: Option<String>,
    way_forward: Option<String>,
    /// The lifter gave their name (the intake's first answer): on to goals.
    named: bool,
}

impl GoalsChange {
    fn read(args: &Value) -> Result<GoalsChange, ToolError> {
        Ok(GoalsChange {
            objectives: goal_list(args, "objectives")?,
            dropped: goal_list(args, "drop_objectives")?,
            timeline: opt_text(args, "timeline")?,
            cycle: opt_text(args, "current_cycle")?,
            focus: opt_text(args, "active_focus")?,
            grow_goal: opt_text(args, "grow_goal")?,
            way_forward: opt_text(args, "way_forward")?,
            named: args["name"].as_str().is_some(),
        })
    }

    fn is_empty(&self) -> bool {
        self.objectives.is_none()
            && self.dropped.is_none()
            && self.timeline.is_none()
            && self.cycle.is_none()
            && self.focus.is_none()
            && self.grow_goal.is_none()
            && self.way_forward.is_none()
            && !self.named
    }

    /// The journey moved on by what was said, as the app's flows move it (never back): a name
    /// ends the intake, goals start the check-ins; a GROW goal and way forward are kept.
    fn advance(&self, c: &mut crate::domain::coaching::CoachingContext) {
        use crate::domain::coaching::Phase;
        let reached = if self.objectives.as_ref().is_some_and(|o| !o.is_empty()) {
            Phase::Checkins
        } else if self.named {
            Phase::Goals
        } else {
            Phase::Intake
        };
        if reached > c.phase {
            c.phase = reached;
        }
        if self.grow_goal.is_some() {
            c.checkin.grow_goal.clone_from(&self.grow_goal);
        }
        if self.way_forward.is_some() {
            // Not a check-in of its own: the ratings' time stays theirs.
            c.checkin.way_forward.clone_from(&self.way_forward);
        }
    }

    /// Objectives are added to the list and dropped by name: a new goal never deletes the
    /// others. At most 10.
    fn apply(self, g: &mut crate::domain::coaching::Goals) -> Result<(), ToolError> {
        let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b.trim());
        if let Some(d) = &self.dropped {
            g.objectives.retain(|o| !d.iter().any(|x| same(o, x)));
        }
        for o in self.objectives.unwrap_or_default() {
            if !g.objectives.iter().any(|x| same(x, &o)) {
                g.objectives.push(o);
            }
        }
        if g.objectives.len() > 10 {
            return Err(ToolError::new(
                "TOO_MANY_OBJECTIVES",
                "the lifter would have more than 10 objectives; ask which to drop (drop_objectives)",
            ));
        }
        g.timeline = self.timeline.or(g.timeline.take());
        g.current_cycle = self.cycle.or(g.current_cycle.take());
        g.active_focus = self.focus.or(g.active_focus.take());
        Ok(())
    }
}

async fn send(env: &Env<'_>, args: &Value) -> Result<Output, ToolError> {
    let message = str_arg(args, "message")?;
    if message.chars().count() > MAX_NOTIFICATION_CHARS {
        return Err(too_long("message", MAX_NOTIFICATION_CHARS));
    }
    let priority = match args["priority"].as_str() {
        None => Priority::Normal,
        Some("low") => Priority::Low,
        Some("normal") => Priority::Normal,
        Some("high") => Priority::High,
        Some(_) => {
            return Err(ToolError::new(
                "INVALID_ARGUMENT",
                "'priority' is low, normal or high",
            ));
        }
    };
    let now = Utc::now();
    let parts = Parts {
        profile: true,
        notify_state: true,
        ..Parts::default()
    };
    let state = env
        .store
        .user_state(&env.ctx.user_id, parts, None, now)
        .await
        .map_err(|e| store_failed(&e))?;
    let profile = state.profile.unwrap_or_default();
    if let Err(why) = notify::gate(&profile, priority, state.last_notified, now) {
        return Ok(Output::read(
            json!({ "sent": false, "suppressed": why.as_str() }),
        ));
    }
    let n = Notification {
        id: time_id("n", now),
        message: message.to_string(),
        priority,
        source: "coach".into(),
        // Stored for the app's list and pushed to the lifter's phones.
        channel: "push".into(),
        created_at: now,
    };
    let sent = env
        .store
        .send_notification(&env.ctx.user_id, &n)
        .await
        .map_err(|e| store_failed(&e))?;
    if sent {
        // To the lifter's phones, by the worker (the coach's stream does not wait on SNS). A
        // failure to queue leaves the notification in the app's list, which is still sent.
        let job = crate::queue::Job::PushNotification {
            user_id: env.ctx.user_id.clone(),
            notification: n.clone(),
        };
        if let Err(e) = env.app.queue.send(&job).await {
            tracing::warn!(error = %e, notification_id = %n.id, "the push was not queued");
        }
    }
    Ok(if sent {
        Output::wrote(json!({ "sent": true, "notification_id": n.id }))
    } else {
        Output::read(
            json!({ "sent": false, "suppressed": notify::Suppressed::RateLimited.as_str() }),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_hours_only_as_said_and_the_journey_moves_on_with_what_is_said() {
        let q = json!({"start": "22:00", "end": "07:00"});
        assert!(check_stated("quiet_hours", &q, "no pings after 10 pm or before 7 please").is_ok());
        assert!(check_stated("quiet_hours", &q, "keep quiet at night").is_err());
        let mut c = crate::domain::coaching::CoachingContext::default();
        let change = |args: Value| GoalsChange::read(&args).unwrap_or_else(|e| panic!("{e:?}"));
        change(json!({"name": "Sam"})).advance(&mut c);
        assert_eq!(c.phase, crate::domain::coaching::Phase::Goals);
        change(json!({"objectives": ["squat 140 kg by June"]})).advance(&mut c);
        assert_eq!(c.phase, crate::domain::coaching::Phase::Checkins);
        // Never back; a way forward is kept, and is not a check-in's ratings.
        change(json!({"name": "Sam", "way_forward": "sleep by 11 before squat days"}))
            .advance(&mut c);
        assert_eq!(c.phase, crate::domain::coaching::Phase::Checkins);
        assert_eq!(c.checkin.last_checkin_at, None);
        assert_eq!(
            c.checkin.way_forward.as_deref(),
            Some("sleep by 11 before squat days")
        );
    }

    #[test]
    fn identity_unit_and_bodyweight_only_as_the_lifter_states_them() {
        let said = "Call me Sam, I'm 34, I weigh 180 pounds, show me pounds";
        assert!(check_stated("name", &json!("Sam"), said).is_ok());
        assert!(check_stated("age", &json!(34), said).is_ok());
        assert!(check_stated("unit", &json!("lb"), said).is_ok());
        // 180 lb as kilograms.
        assert!(check_stated("bodyweight_kg", &json!(81.6), said).is_ok());
        let plain = "How is my bench going? I weigh 80 kg these days.";
        for (field, value) in [
            ("unit", json!("lb")),
            ("bodyweight_kg", json!(90)),
            ("age", json!(30)),
            ("name", json!("Alex")),
        ] {
            let e = check_stated(field, &value, plain).expect_err(field);
            assert_eq!(e.code, "NOT_STATED");
        }
        assert!(check_stated("bodyweight_kg", &json!(80), plain).is_ok());
        // Read from what was said, not stated word for word.
        assert!(check_stated("experience", &json!("intermediate"), "lifting 3 years").is_ok());
    }
}
