//! The worker's optional model-written summaries (`WORKER_MODEL`): the insight card's and the
//! weekly review's. The model is given only the computed facts (the deterministic summary and
//! what it stands on: the card's highlights, flags and recommendations; the review's load,
//! trends, stalls, fatigue and consistency) and may only say them better: every number in its
//! text must be one of the facts' numbers, else the deterministic summary stays. It gets
//! [`SUMMARY_TIMEOUT`]; on a timeout or an error the rules' text stays, so a model outage never
//! fails a job.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::json;

use super::assist::{json_answer, numbers};
use crate::analysis::card::InsightCard;
use crate::analysis::review::WeeklyReview;
use crate::app::meter::Meter;
use crate::llm::{Model, Request, Turn, Usage};

/// The model's whole budget per card (retries included).
pub(crate) const SUMMARY_TIMEOUT: Duration = Duration::from_secs(5);
/// A summary is two or three sentences.
pub(crate) const MAX_SUMMARY_CHARS: usize = 600;

const INSTRUCTION: &str = "You write the summary of a post-workout card for a lifter, from the \
facts given and nothing else. Two or three short sentences, warm and direct, second person. Use \
only numbers that appear in the facts, written as they are written there; add no advice that \
the facts do not contain. Answer with a JSON object: {\"summary\": \"<the summary>\"}.";

const REVIEW_INSTRUCTION: &str = "You write the summary of a lifter's weekly training review, \
from the facts given and nothing else. Three or four short sentences, warm and direct, second \
person: how the week went, what is moving and what is stuck, and the one thing to do next week \
if the facts name one. Use only numbers that appear in the facts, written as they are written \
there; add no advice that the facts do not contain. Answer with a JSON object: {\"summary\": \
\"<the summary>\"}.";

/// What became of the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The model's text passed the check.
    Model,
    /// No model, or its text was rejected (the reason is logged).
    Rules,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Model => "model",
            Source::Rules => "rules",
        }
    }
}

/// Every fact the model may state, as text.
fn facts(card: &InsightCard) -> String {
    json!({
        "workout_id": card.workout_id,
        "summary": card.summary,
        "highlights": card.highlights.iter().map(|h| &h.message).collect::<Vec<_>>(),
        "flags": card.flags.iter().map(|f| &f.message).collect::<Vec<_>>(),
        "recommendations": card.recommendations.iter().map(|r| json!({
            "action": r.action, "reasoning": r.reasoning,
        })).collect::<Vec<_>>(),
    })
    .to_string()
}

/// Whether `text` is a usable summary given the facts: not empty, not too long, and every
/// number in it among the facts' numbers.
pub(crate) fn acceptable(text: &str, facts: &str) -> Result<(), String> {
    if text.trim().is_empty() {
        return Err("empty".into());
    }
    if text.chars().count() > MAX_SUMMARY_CHARS {
        return Err(format!("longer than {MAX_SUMMARY_CHARS} characters"));
    }
    let known: HashSet<String> = numbers(facts).into_iter().collect();
    match numbers(text).into_iter().find(|n| !known.contains(n)) {
        Some(n) => Err(format!("the number {n} is not among the facts")),
        None => Ok(()),
    }
}

/// Rewrites `card.summary` with the model's text when it passes the check. Returns where the
/// summary came from and the model tokens spent.
pub async fn summarise(
    model: Option<&(Model, Meter)>,
    user: &str,
    card: &mut InsightCard,
) -> (Source, Usage) {
    let (text, source, usage) =
        rewrite(model, user, INSTRUCTION, facts(card), &card.workout_id).await;
    if let Some(text) = text {
        card.summary = text;
    }
    (source, usage)
}

/// Every fact of a weekly review the model may state, as text.
fn review_facts(r: &WeeklyReview) -> String {
    json!({
        "week": r.id,
        "summary": r.summary,
        "training_load": r.training_load,
        "exercise_trends": r.exercise_trends,
        "progression_candidates": r.progression_candidates,
        "stalled_exercises": r.stalled_exercises,
        "fatigue": r.fatigue,
        "consistency": r.consistency,
    })
    .to_string()
}

/// [`summarise`] for a weekly review: `review.summary` and `review.summary_source` rewritten
/// when the model's text passes the same check.
pub async fn summarise_review(
    model: Option<&(Model, Meter)>,
    user: &str,
    review: &mut WeeklyReview,
) -> Usage {
    let facts = review_facts(review);
    let (text, source, usage) = rewrite(model, user, REVIEW_INSTRUCTION, facts, &review.id).await;
    if let Some(text) = text {
        review.summary = text;
    }
    review.summary_source = source.as_str().into();
    usage
}

/// The model's summary of `facts` under `instruction`, when it passes [`acceptable`]; `about`
/// names the card or review in the log.
async fn rewrite(
    model: Option<&(Model, Meter)>,
    user: &str,
    instruction: &str,
    facts: String,
    about: &str,
) -> (Option<String>, Source, Usage) {
    let Some((model, meter)) = model else {
        return (None, Source::Rules, Usage::default());
    };
    let req = Request {
        system: instruction.to_string(),
        turns: vec![Turn::user(facts.clone())],
        tools: Vec::new(),
        no_calls: false,
        no_thinking: false,
        json_output: true,
        cache_key: None,
    };
    let reservation = match meter.reserve(user, model, &req).await {
        Ok(r) => r,
        Err(refused) => {
            tracing::info!(?refused, "summary: model call not made");
            return (None, Source::Rules, Usage::default());
        }
    };
    let deadline = tokio::time::Instant::now() + SUMMARY_TIMEOUT;
    let answered = tokio::time::timeout(SUMMARY_TIMEOUT, model.complete(&req, deadline)).await;
    // A call cut off by the timeout was read in full: its input is counted.
    let spent = match &answered {
        Ok(Ok(done)) => done.usage,
        Ok(Err(_)) => Usage::default(),
        Err(_) => model.input_estimate(&req),
    };
    meter.settle(reservation, spent).await;
    let (answer, tokens) = match answered {
        Ok(Ok(done)) => (done.turn.text(), done.usage),
        Ok(Err(e)) => {
            tracing::warn!(code = e.code(), "summary: model call failed: {e}");
            return (None, Source::Rules, Usage::default());
        }
        Err(_) => {
            tracing::warn!("summary: the model took longer than {SUMMARY_TIMEOUT:?}");
            return (None, Source::Rules, Usage::default());
        }
    };
    let text = json_answer(&answer)
        .and_then(|v| v["summary"].as_str().map(|s| s.trim().to_string()))
        .unwrap_or_default();
    match acceptable(&text, &facts) {
        Ok(()) => (Some(text), Source::Model, tokens),
        Err(why) => {
            tracing::warn!(about, "summary: model text rejected: {why}");
            (None, Source::Rules, tokens)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_facts_numbers_pass() {
        let facts = r#"{"summary":"Push: 3 working sets, 1425 kg moved in 60 minutes.","highlights":["New estimated 1RM on Bench Press: 117.2 kg (was 111 kg)"]}"#;
        assert_eq!(
            acceptable(
                "Great push day: 3 working sets and 1425 kg moved, with a new estimated 1RM of 117.2 kg.",
                facts
            ),
            Ok(())
        );
        assert_eq!(
            acceptable("Bench is up to 120 kg now.", facts),
            Err("the number 120 is not among the facts".into())
        );
        assert!(acceptable("", facts).is_err());
        assert!(acceptable(&"a".repeat(MAX_SUMMARY_CHARS + 1), facts).is_err());
    }
}
