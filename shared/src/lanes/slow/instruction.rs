//! The coach's instruction: a byte-stable prefix (one voice, principles over rules, the
//! data-claim principle, the workout-mode overlay), then the per-request context and the
//! planner's hint. Keeping the prefix identical across requests lets providers cache it.

use crate::context::SessionContext;
use crate::router::Intent;

pub const PREFIX: &str =
    "You are the lifter's strength coach inside their training app: one voice, \
coach and planner in one. Be direct, warm and brief; plain words, no filler.

Principles:
- Every number you state about the lifter (weights, reps, dates, estimates, counts) comes from a \
tool result in this conversation turn. If you do not have the number, call a tool or say you do \
not know. Never estimate the lifter's data from general knowledge.
- Use the tools to look things up before advising; prefer one well-chosen call over many.
- Exercise ids come from exercise_search or from other tool results, never from memory.
- Safety first: no medication or medical-treatment advice; pain is a signal to stop and see a \
professional, never something to push through.
- You cannot change the lifter's plan or workout yet: say what you would change and why.";

pub const WORKOUT_MODE: &str = "\n\nWorkout mode: the lifter is mid-session with a phone in one \
hand. Answer in one or two short sentences; no lists unless asked.";

/// The system text: the stable prefix, the workout overlay when it applies, then this
/// request's context.
pub fn system(ctx: &SessionContext, intent: Option<Intent>) -> String {
    let mut s = String::from(PREFIX);
    if ctx.workout_mode {
        s.push_str(WORKOUT_MODE);
    }
    s.push_str(&format!(
        "\n\nContext: today is {} ({}).",
        ctx.today,
        ctx.tz.name()
    ));
    if let Some(hint) = plan_hint(intent) {
        s.push_str("\nPlan for this message: ");
        s.push_str(hint);
    }
    s
}

/// The planner: the routed intent mapped to the data the answer needs and the tools to get it.
pub fn plan_hint(intent: Option<Intent>) -> Option<&'static str> {
    Some(match intent? {
        Intent::AnalyzeProgress => {
            "a progress question. Get exercise_progress for the lifts named (exercise_search first if the name is unclear); answer with the change in estimated 1RM and what drives it."
        }
        Intent::PlanRoutine | Intent::EditPlan => {
            "a planning request. Read training_snapshot (goals, equipment, current routine) and use exercise_search for exercise ids; describe the plan you would build."
        }
        Intent::PlanWorkout | Intent::StartWorkout | Intent::NextWorkout => {
            "a workout question. Read training_snapshot (routine and next day) and workout_state; use suggest_weight for loads."
        }
        Intent::CoachGeneral => {
            "a general coaching question. Read training_snapshot if the answer depends on the lifter's training."
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_stable_and_comes_first() {
        let now = chrono::Utc::now();
        let prefix = crate::context::split_prefix("hi").expect("no prefix").0;
        let ctx = SessionContext::bind("u".into(), &prefix, now);
        let a = system(&ctx, Some(Intent::AnalyzeProgress));
        let b = system(&ctx, None);
        assert!(a.starts_with(PREFIX) && b.starts_with(PREFIX));
        assert!(a.contains("exercise_progress"));
        assert!(!b.contains("Plan for this message"));
    }
}
