//! What the buttons answer: the envelope's `action` and, for each action, its `data` as a typed
//! struct (the field names are the wire format the app reads).

use serde::Serialize;
use serde_json::{Value, json};

use crate::analysis::history::Basis;
use crate::domain::catalog::{Equipment, Exercise, Muscle};
use crate::domain::profile::Profile;
use crate::domain::units::format_weight;
use crate::router::Intent;
use crate::skills::{autofill, monitor, suggest, swap};

/// What a button answers.
#[derive(Debug, Clone, PartialEq)]
pub enum ButtonAnswer {
    ReplaceExercise(SwapAnswer),
    Autofill(AutofillAnswer),
    Suggest(SuggestAnswer),
    /// `ADJUST_LOAD`: the planned load moved.
    Adjust(AdjustAnswer),
    /// A monitor verdict: `NUDGE` or `ALERT`.
    Nudge(Nudge),
    /// Nothing to say (the monitor's usual answer): `NULL`, `data: null`.
    Null,
    /// The answer an earlier request with this `corr` got, as it was stored.
    Replayed {
        action: &'static str,
        data: Value,
    },
}

impl ButtonAnswer {
    pub fn action(&self) -> &'static str {
        match self {
            ButtonAnswer::ReplaceExercise(_) => "REPLACE_EXERCISE",
            ButtonAnswer::Autofill(_) => "AUTOFILL",
            ButtonAnswer::Suggest(_) => "SUGGEST",
            ButtonAnswer::Adjust(_) => "ADJUST_LOAD",
            ButtonAnswer::Nudge(n) => match n.action {
                monitor::Action::Nudge => "NUDGE",
                monitor::Action::Alert => "ALERT",
            },
            ButtonAnswer::Null => "NULL",
            ButtonAnswer::Replayed { action, .. } => action,
        }
    }

    /// The envelope's `data`.
    pub fn data(&self) -> Value {
        match self {
            ButtonAnswer::ReplaceExercise(a) => json!(a),
            ButtonAnswer::Autofill(a) => json!(a),
            ButtonAnswer::Suggest(a) => json!(a),
            ButtonAnswer::Adjust(a) => json!(a),
            ButtonAnswer::Nudge(a) => json!(a),
            ButtonAnswer::Null => Value::Null,
            ButtonAnswer::Replayed { data, .. } => data.clone(),
        }
    }

    /// The answer as the app receives it, on `/v1/functional` and in the stream's `result`
    /// event: `{success, action, data, intent}`.
    pub fn to_envelope(&self, intent: Intent) -> Value {
        json!({ "success": true, "action": self.action(), "data": self.data(), "intent": intent.as_str() })
    }
}

/// `REPLACE_EXERCISE`: the best alternative, the next ones, and whether it was applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwapAnswer {
    pub old_exercise: ExerciseRef,
    pub new_exercise: SwapChoice,
    pub alternatives: Vec<SwapChoice>,
    pub applied: bool,
    /// Who picked `new_exercise`: the rules' ranking, or the small model among its top few.
    pub chosen_by: ChosenBy,
    pub message: String,
    /// Where the new exercise now is in the active workout, once applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exercise_instance_id: Option<String>,
    /// How its planned weights were set, once applied.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChosenBy {
    Rules,
    Model,
}

/// The exercise being replaced.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExerciseRef {
    pub exercise_id: String,
    pub name: String,
    pub equipment: Equipment,
}

impl From<&Exercise> for ExerciseRef {
    fn from(e: &Exercise) -> ExerciseRef {
        ExerciseRef {
            exercise_id: e.id.clone(),
            name: e.name.clone(),
            equipment: e.equipment,
        }
    }
}

/// A ranked alternative.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwapChoice {
    pub exercise_id: String,
    pub name: String,
    pub equipment: Equipment,
    pub primary_muscles: Vec<Muscle>,
    /// The rules' score, to two decimals.
    pub score: f64,
    pub reason: String,
}

impl From<&swap::Candidate<'_>> for SwapChoice {
    fn from(c: &swap::Candidate<'_>) -> SwapChoice {
        SwapChoice {
            exercise_id: c.exercise.id.clone(),
            name: c.exercise.name.clone(),
            equipment: c.exercise.equipment,
            primary_muscles: c.exercise.primary_muscles.clone(),
            score: (c.score * 100.0).round() / 100.0,
            reason: c.reason.clone(),
        }
    }
}

/// `ADJUST_LOAD`: what moved, in kg and in the lifter's unit, and why it stopped short when the
/// history held it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdjustAnswer {
    #[serde(flatten)]
    pub adjusted: crate::skills::adjust::Adjusted,
    pub unit: &'static str,
    pub message: String,
}

/// `AUTOFILL`: the weight, reps and effort predicted for one set, in the lifter's unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AutofillAnswer {
    pub exercise_id: String,
    pub exercise_instance_id: Option<String>,
    pub set_index: usize,
    pub predicted_weight_kg: Option<f64>,
    pub predicted_weight: Option<f64>,
    pub unit: &'static str,
    pub display: Option<String>,
    pub predicted_reps: u32,
    pub predicted_rir: Option<u32>,
    pub source: autofill::AutofillSource,
}

impl AutofillAnswer {
    pub fn new(
        p: &autofill::Prediction,
        exercise_id: &str,
        instance_id: Option<&str>,
        set_index: usize,
        profile: &Profile,
    ) -> AutofillAnswer {
        AutofillAnswer {
            exercise_id: exercise_id.to_string(),
            exercise_instance_id: instance_id.map(str::to_string),
            set_index,
            predicted_weight_kg: p.weight_kg,
            predicted_weight: p.weight_kg.map(|w| profile.unit.from_kg(w)),
            unit: profile.unit.label(),
            display: p.weight_kg.map(|w| format_weight(w, profile.unit)),
            predicted_reps: p.reps,
            predicted_rir: p.rir,
            source: p.source,
        }
    }
}

/// `SUGGEST`: a weight for reps at an effort, how sure, and the sets it rests on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuggestAnswer {
    pub exercise_id: String,
    pub target_reps: u32,
    pub target_rir: u32,
    pub weight_kg: f64,
    pub weight: f64,
    pub unit: &'static str,
    pub display: String,
    pub confidence: suggest::Confidence,
    pub source: suggest::Source,
    pub rationale: String,
    pub basis: Vec<Basis>,
}

impl SuggestAnswer {
    pub fn new(
        s: suggest::Suggestion,
        exercise_id: &str,
        reps: u32,
        rir: u32,
        profile: &Profile,
    ) -> SuggestAnswer {
        SuggestAnswer {
            exercise_id: exercise_id.to_string(),
            target_reps: reps,
            target_rir: rir,
            weight_kg: s.weight_kg,
            weight: profile.unit.from_kg(s.weight_kg),
            unit: profile.unit.label(),
            display: format_weight(s.weight_kg, profile.unit),
            confidence: s.confidence,
            source: s.source,
            rationale: s.rationale,
            basis: s.basis,
        }
    }
}

/// `NUDGE` / `ALERT`: what the monitor says about a set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Nudge {
    #[serde(skip)]
    pub action: monitor::Action,
    pub message: String,
    pub severity: monitor::Severity,
    pub rule: &'static str,
    /// The exercise it is about ("*" for the whole workout).
    pub exercise_id: String,
    /// Whose words `message` is: the rule's, or the small model's rephrasing of them.
    pub phrased_by: ChosenBy,
}

impl From<monitor::Verdict> for Nudge {
    fn from(v: monitor::Verdict) -> Nudge {
        Nudge {
            action: v.action,
            message: v.message,
            severity: v.severity,
            rule: v.rule,
            exercise_id: v.exercise_id,
            phrased_by: ChosenBy::Rules,
        }
    }
}
