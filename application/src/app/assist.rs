//! The functional lane's optional model (`FUNCTIONAL_MODEL`). The rules decide; the model may
//! only choose among the swap candidates the rules ranked, rephrase texts the rules wrote, and
//! place a coach message the router's rules could not (one of the SLOW intents, or none).
//! Anything else it says is discarded: a pick outside the candidates, a rephrasing that changes,
//! adds or drops a number, or drops the question. It gets 800 ms in all (retries included);
//! after that, or on any error, the deterministic answer goes out unchanged. Each call is paid
//! for from the lifter's daily allowance (`meter`); when it is spent, the rules answer alone.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::app::meter::Meter;
use crate::domain::catalog::Exercise;
use crate::llm::{Model, Request, Turn, Usage};
use crate::skills::swap::Candidate;

/// The model's whole budget per request.
pub const MODEL_TIMEOUT: Duration = Duration::from_millis(800);
/// How many of the top-ranked swap candidates the model may choose from.
pub(crate) const SWAP_CHOICES: usize = 5;
/// A rephrasing may be at most this many times longer than the template (plus a little).
const MAX_GROWTH: usize = 2;
const MAX_REASON_CHARS: usize = 160;

const SWAP_INSTRUCTION: &str = "You help a strength-training app choose a substitute exercise. \
Choose exactly one exercise from the candidates, by its exercise_id, the one that best keeps the \
training effect of the target for this lifter. Answer with a JSON object: \
{\"exercise_id\": \"<one of the candidate ids>\", \"reason\": \"<one short sentence without numbers>\"}.";

const REPHRASE_INSTRUCTION: &str = "You rephrase short messages of a strength coach to a lifter. \
Keep the meaning: every number and unit exactly as written, any question still asked, no new \
advice or facts. One or two short sentences, warm and direct. Answer with a JSON object: \
{\"text\": \"<the rephrased message>\"}.";

const CLASSIFY_INSTRUCTION: &str = "You sort a lifter's message to their strength coach into \
one kind. Kinds: PLAN_ROUTINE (a new multi-day program), EDIT_PLAN (change their routine or \
template), PLAN_WORKOUT (one session planned), START_WORKOUT (start training now), \
NEXT_WORKOUT (what to do next time), ANALYZE_PROGRESS (how a lift or their training is going), \
COACH_GENERAL (any other training question), NONE (not about training). Answer with a JSON \
object: {\"intent\": \"<one kind>\"}.";

/// The intents the classifier may answer: the SLOW lane's. A FAST command or a button is never
/// a model's guess.
pub const CLASSIFIED_INTENTS: [crate::router::Intent; 7] = [
    crate::router::Intent::PlanRoutine,
    crate::router::Intent::EditPlan,
    crate::router::Intent::PlanWorkout,
    crate::router::Intent::StartWorkout,
    crate::router::Intent::NextWorkout,
    crate::router::Intent::AnalyzeProgress,
    crate::router::Intent::CoachGeneral,
];

#[derive(Debug, Clone)]
pub struct Assist {
    /// The model and what pays for its calls; `None` without `FUNCTIONAL_MODEL`.
    model: Option<(Model, Meter)>,
}

impl Assist {
    pub fn new(model: Option<Model>, meter: Meter) -> Assist {
        Assist {
            model: model.map(|m| (m, meter)),
        }
    }

    /// The model's choice among the first `SWAP_CHOICES` candidates: (index, reason).
    pub async fn pick_swap(
        &self,
        user: &str,
        target: &Exercise,
        candidates: &[Candidate<'_>],
    ) -> Option<(usize, String)> {
        let choices = &candidates[..candidates.len().min(SWAP_CHOICES)];
        if choices.len() < 2 {
            return None;
        }
        let facts = json!({
            "target": { "exercise_id": target.id, "name": target.name, "equipment": target.equipment },
            "candidates": choices.iter().map(|c| json!({
                "exercise_id": c.exercise.id,
                "name": c.exercise.name,
                "equipment": c.exercise.equipment,
                "why_it_qualifies": c.reason,
            })).collect::<Vec<_>>(),
        });
        let answer = self.ask(user, SWAP_INSTRUCTION, facts.to_string()).await?;
        let picked = parse_pick(&answer, choices);
        if picked.is_none() {
            crate::telemetry::record(|log| log.model = Some("discarded"));
        }
        picked
    }

    /// Whether there is a model to ask (the router's fallback is skipped without one).
    pub fn enabled(&self) -> bool {
        self.model.is_some()
    }

    /// The SLOW intent of a message the router's rules could not place, when the model names
    /// one of [`CLASSIFIED_INTENTS`]; anything else (NONE, an unknown word, a FAST intent, no
    /// answer in time) is no intent.
    pub async fn classify(&self, user: &str, text: &str) -> Option<crate::router::Intent> {
        let answer = self
            .ask(
                user,
                CLASSIFY_INSTRUCTION,
                json!({ "message": text }).to_string(),
            )
            .await?;
        let named = answer["intent"].as_str().unwrap_or_default();
        let intent = CLASSIFIED_INTENTS.into_iter().find(|i| i.as_str() == named);
        if intent.is_none() && named != "NONE" {
            crate::telemetry::record(|log| log.model = Some("discarded"));
        }
        intent
    }

    /// A rephrasing of `text` that keeps its numbers and its question, or `None`.
    pub async fn rephrase(&self, user: &str, text: &str) -> Option<String> {
        let answer = self
            .ask(
                user,
                REPHRASE_INSTRUCTION,
                json!({ "message": text }).to_string(),
            )
            .await?;
        let candidate = answer["text"].as_str().map(str::trim).unwrap_or_default();
        if keeps_meaning(text, candidate) {
            Some(candidate.to_string())
        } else {
            crate::telemetry::record(|log| log.model = Some("discarded"));
            None
        }
    }

    async fn ask(&self, user: &str, system: &str, facts: String) -> Option<Value> {
        let (model, meter) = self.model.as_ref()?;
        let started = Instant::now();
        let req = Request {
            system: system.to_string(),
            turns: vec![Turn::user(facts)],
            tools: Vec::new(),
            no_calls: false,
            no_thinking: false,
            json_output: true,
            cache_key: None,
        };
        let reservation = match meter.reserve(user, model, &req).await {
            Ok(r) => r,
            Err(refused) => {
                tracing::info!(?refused, "functional model call not made");
                crate::telemetry::record(|log| log.model = Some("unpaid"));
                return None;
            }
        };
        let deadline = tokio::time::Instant::now() + MODEL_TIMEOUT;
        let out = tokio::time::timeout(MODEL_TIMEOUT, model.complete(&req, deadline)).await;
        let waited = started.elapsed().as_micros() as u64;
        crate::telemetry::record(|log| log.model_us += waited);
        // A call cut off by the timeout was read in full: its input is counted.
        let read_only = model.input_estimate(&req);
        let turn = match out {
            Err(_) => {
                meter.settle(reservation, read_only).await;
                crate::telemetry::record(|log| log.model = Some("timeout"));
                return None;
            }
            Ok(Err(e)) => {
                meter.settle(reservation, Usage::default()).await;
                tracing::warn!(code = e.code(), "functional model call failed: {e}");
                let what = if e.code() == "MODEL_TIMEOUT" {
                    "timeout"
                } else {
                    "error"
                };
                crate::telemetry::record(|log| log.model = Some(what));
                return None;
            }
            Ok(Ok(done)) => {
                meter.settle(reservation, done.usage).await;
                crate::telemetry::record(|log| log.record_tokens(done.usage));
                done.turn
            }
        };
        match json_answer(&turn.text()) {
            Some(v) => {
                crate::telemetry::record(|log| log.model = Some("used"));
                Some(v)
            }
            None => {
                crate::telemetry::record(|log| log.model = Some("discarded"));
                None
            }
        }
    }
}

/// The JSON object in an answer, tolerating a Markdown code fence around it.
pub(crate) fn json_answer(text: &str) -> Option<Value> {
    let t = text.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .map_or(t, |rest| rest.trim_end().trim_end_matches("```"));
    serde_json::from_str::<Value>(t.trim())
        .ok()
        .filter(Value::is_object)
}

/// The picked candidate, only if it is one of `choices`; its reason only if it adds no number.
fn parse_pick(answer: &Value, choices: &[Candidate<'_>]) -> Option<(usize, String)> {
    let id = answer["exercise_id"].as_str()?;
    let index = choices.iter().position(|c| c.exercise.id == id)?;
    let reason = answer["reason"].as_str().map(str::trim).unwrap_or_default();
    let reason = if !reason.is_empty()
        && reason.chars().count() <= MAX_REASON_CHARS
        && numbers(reason).is_empty()
    {
        reason.to_string()
    } else {
        choices[index].reason.clone()
    };
    Some((index, reason))
}

/// The numbers in a text, as written ("100", "2.5", "8"), sorted.
pub(crate) fn numbers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let decimal_point = (c == '.' || c == ',')
            && !cur.is_empty()
            && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_ascii_digit() || decimal_point {
            cur.push(if c == ',' { '.' } else { c });
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.sort();
    out
}

/// Whether `rephrased` says what `original` says: the same numbers, the question still asked,
/// not empty, not much longer.
fn keeps_meaning(original: &str, rephrased: &str) -> bool {
    !rephrased.is_empty()
        && rephrased.chars().count() <= original.chars().count() * MAX_GROWTH + 40
        && numbers(original) == numbers(rephrased)
        && (!original.contains('?') || rephrased.contains('?'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::catalog::catalog;

    fn candidates() -> Vec<Candidate<'static>> {
        ["dumbbell-bench-press", "machine-chest-press"]
            .iter()
            .map(|id| Candidate {
                exercise: catalog().get(id).expect("catalog exercise"),
                score: 4.0,
                reason: "same primary muscles".into(),
            })
            .collect()
    }

    #[test]
    fn a_pick_outside_the_candidates_is_discarded() {
        let c = candidates();
        assert_eq!(
            parse_pick(
                &json!({"exercise_id": "machine-chest-press", "reason": "Easy to set up."}),
                &c
            ),
            Some((1, "Easy to set up.".into()))
        );
        assert_eq!(parse_pick(&json!({"exercise_id": "deadlift"}), &c), None);
        assert_eq!(
            parse_pick(&json!({"choice": "machine-chest-press"}), &c),
            None
        );
    }

    #[test]
    fn a_reason_with_invented_numbers_falls_back_to_the_rules_reason() {
        let c = candidates();
        assert_eq!(
            parse_pick(
                &json!({"exercise_id": "dumbbell-bench-press", "reason": "You pressed 40 kg last week."}),
                &c
            ),
            Some((0, "same primary muscles".into()))
        );
    }

    #[test]
    fn rephrasings_keep_numbers_and_questions() {
        let nudge = "Your reps fell 30% short of 8 at 100 kg; take 2.5 kg off?";
        assert!(keeps_meaning(
            nudge,
            "That was 30% under your 8 reps at 100 kg. Drop 2.5 kg?"
        ));
        assert!(!keeps_meaning(
            nudge,
            "Reps fell short at 100 kg; drop 5 kg?"
        ));
        assert!(!keeps_meaning(
            nudge,
            "30% short of 8 at 100 kg, so take 2.5 kg off."
        ));
        assert!(!keeps_meaning(nudge, ""));
        assert!(!keeps_meaning("Nice set.", &"Great work! ".repeat(20)));
        assert_eq!(numbers("2,5 kg x 10, then 3."), vec!["10", "2.5", "3"]);
    }

    #[test]
    fn fenced_json_is_accepted() {
        assert_eq!(
            json_answer("```json\n{\"text\": \"hi\"}\n```"),
            Some(json!({"text": "hi"}))
        );
        assert_eq!(json_answer("Sure! here it is"), None);
    }
}
