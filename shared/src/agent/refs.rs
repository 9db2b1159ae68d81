//! Weights the coach cites instead of writing. Each weight of a tool result carries its ref
//! (`"e1rm_kg": "109.3 [[w4]]"`, nine bytes more than the number); the model writes `[[w4]]`
//! and code puts the figure there, in the lifter's unit, so a cited figure is the data's by construction: it
//! cannot be invented, given to another lift, or converted wrongly. A figure the model writes
//! as digits is still checked (`critic`); a ref the data does not hold is left out.
//!
//! A cited figure is marked by [`CITED`] just before it, so the number check knows it is the
//! data's wherever the answer is read again (the hold-back, the final check, a scrub); the mark
//! is taken out of everything the lifter reads or the conversation stores.

use std::sync::LazyLock;

use regex_lite::Regex;
use serde_json::{Map, Value};

use super::critic::{Kind, LEFT_OUT, kind_of_key};
use crate::domain::units::{Unit, format_estimate, format_weight};

/// Put just before a figure rendered from a ref (an invisible word joiner). A model's own is
/// taken out of its text before refs are rendered, so only code's marks a figure as cited.
pub const CITED: char = '\u{2060}';

/// A ref as a model writes it: "[[w4]]", "[[ w4 ]]", "[w4]".
static REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[\[?\s*(w\d{1,4})\s*\]\]?").unwrap_or_else(|e| panic!("ref pattern: {e}"))
});
/// A unit written after a ref ("[[w4]] kg"): the figure has its own.
static UNIT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s?(?:kgs?|lbs?|pounds|kilos)\b")
        .unwrap_or_else(|e| panic!("unit-after pattern: {e}"))
});

/// The refs handed out in one answer: each a weight of a tool result and its kind.
#[derive(Debug)]
pub struct Refs {
    unit: Unit,
    /// Each ref's weight, kind, and number as the tool result wrote it.
    figures: Vec<(f64, Kind, String)>,
}

impl Refs {
    pub fn new(unit: Unit) -> Self {
        Refs {
            unit,
            figures: Vec::new(),
        }
    }

    /// `v` with each weight of its objects written with its ref (`"109.3 [[w4]]"`, numbered on
    /// from the refs already handed out in this answer). A weight in a list of bare numbers gets
    /// none: it is cited by writing it.
    pub fn annotate(&mut self, v: &Value) -> Value {
        let mut given = Vec::new();
        self.annotate_under(v, None, &mut given)
    }

    /// `given`: the figures of this result that have a ref already (as written, and kind): a
    /// figure the result repeats (a week's best that is a session's, a basis set listed twice)
    /// is written plain after its first, a ref per figure, not per place.
    fn annotate_under(
        &mut self,
        v: &Value,
        above: Option<Kind>,
        given: &mut Vec<(String, Kind)>,
    ) -> Value {
        match v {
            Value::Array(a) => Value::Array(
                a.iter()
                    .map(|x| self.annotate_under(x, above, given))
                    .collect(),
            ),
            Value::Object(m) => {
                let mut out = Map::with_capacity(m.len() * 2);
                for (k, x) in m {
                    let kind = kind_of_key(k, above);
                    match (x, kind) {
                        (Value::Number(n), Some(kind)) => {
                            let first = !given.contains(&(n.to_string(), kind));
                            let cited =
                                n.as_f64()
                                    .filter(|_| first && !k.ends_with("_lb"))
                                    .map(|kg| {
                                        given.push((n.to_string(), kind));
                                        self.figures.push((kg, kind, n.to_string()));
                                        Value::String(format!("{n} [[w{}]]", self.figures.len()))
                                    });
                            out.insert(k.clone(), cited.unwrap_or_else(|| x.clone()));
                        }
                        _ => {
                            let inner = kind.or(above).filter(|_| x.is_object() || x.is_array());
                            out.insert(k.clone(), self.annotate_under(x, inner, given));
                        }
                    }
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    /// `text` with each `[[w<n>]]` replaced by its figure in the lifter's unit, marked
    /// [`CITED`], and each ref the answer was not given by [`LEFT_OUT`]; with the refs left
    /// out, as written. A model's own marks are taken out first.
    pub fn render(&self, text: &str) -> (String, Vec<String>) {
        let text = strip(text);
        let mut out = String::with_capacity(text.len());
        let mut left_out = Vec::new();
        let mut from = 0;
        for c in REF.captures_iter(&text) {
            let (Some(all), Some(name)) = (c.get(0), c.get(1)) else {
                continue;
            };
            out.push_str(&text[from..all.start()]);
            from = all.end();
            let Some(figure) = self.figure(name.as_str()) else {
                out.push_str(LEFT_OUT);
                left_out.push(all.as_str().to_string());
                continue;
            };
            // "109.3 [[w4]]", copied as the tool result wrote it: the number once.
            if let Some(raw) = self.raw(name.as_str()) {
                let before = out.trim_end();
                let cut = before.len().saturating_sub(raw.len());
                if before.ends_with(raw)
                    && !before[..cut].ends_with(|c: char| c.is_ascii_digit() || c == '.')
                {
                    out.truncate(cut);
                }
            }
            out.push(CITED);
            out.push_str(&figure);
            // "[[w4]] kg": the unit once.
            if let Some(unit) = UNIT_AFTER.find(&text[from..]) {
                from += unit.end();
            }
        }
        out.push_str(&text[from..]);
        (out, left_out)
    }

    /// The number of ref `name` as the tool result wrote it ("109.3").
    fn raw(&self, name: &str) -> Option<&str> {
        let n: usize = name.strip_prefix('w')?.parse().ok()?;
        self.figures
            .get(n.checked_sub(1)?)
            .map(|(_, _, raw)| raw.as_str())
    }

    /// The figure of ref `name` ("w4") in the lifter's unit: a load as a bar takes it (pounds
    /// to the half pound), an estimate or a change to a tenth.
    fn figure(&self, name: &str) -> Option<String> {
        let n: usize = name.strip_prefix('w')?.parse().ok()?;
        let &(kg, kind, _) = self.figures.get(n.checked_sub(1)?)?;
        Some(match (kind, self.unit) {
            (Kind::Load | Kind::Goal | Kind::Best | Kind::TrainingMax, Unit::Lb) => {
                let lb = (self.unit.from_kg(kg) * 2.0).round() / 2.0;
                format_weight(self.unit.to_kg(lb), Unit::Lb)
            }
            (Kind::Load | Kind::Goal | Kind::Best | Kind::TrainingMax, Unit::Kg) => {
                format_weight(kg, Unit::Kg)
            }
            _ => format_estimate(kg, self.unit),
        })
    }
}

/// `text` without the marks of cited figures: what the lifter reads and the conversation keeps.
pub fn strip(text: &str) -> String {
    text.replace(CITED, "")
}

/// The figures of `text` rendered from refs, as shown ("116.7 kg").
pub fn cited_in(text: &str) -> Vec<String> {
    text.split(CITED)
        .skip(1)
        .filter_map(|rest| {
            let number = rest.find(' ')?;
            let unit = rest[number + 1..]
                .find(|c: char| !c.is_ascii_alphabetic())
                .map_or(rest.len(), |u| number + 1 + u);
            Some(rest[..unit].to_string())
        })
        .collect()
}

/// Whether the figure that starts at `at` in `text` was cited (rendered from a ref).
pub fn is_cited(text: &str, at: usize) -> bool {
    text[..at].ends_with(CITED)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_ref_is_the_datas_figure_in_the_lifters_unit() {
        let mut kg = Refs::new(Unit::Kg);
        let v = kg.annotate(&json!({
            "exercise_id": "bench-press",
            "sessions": [{"top_set": {"weight_kg": 102.5, "reps": 2}, "e1rm_kg": 109.33}],
            "e1rm_change": {"from_kg": 117.0, "to_kg": 109.3, "change_kg": -7.7},
            "week_1_sets_kg": [62.5, 72.5]
        }));
        let set = v["sessions"][0]["top_set"]["weight_kg"].as_str().unwrap();
        let max = v["sessions"][0]["e1rm_kg"].as_str().unwrap();
        assert!(
            set.starts_with("102.5 [[w") && max.starts_with("109.33 [[w"),
            "{v}"
        );
        assert_eq!(v["sessions"][0]["top_set"]["reps"], 2);
        assert!(
            v["e1rm_change"]["change_kg"]
                .as_str()
                .unwrap()
                .contains("[[w")
        );
        assert_eq!(v["week_1_sets_kg"], json!([62.5, 72.5]));
        // Copied with its number, the number is shown once; a ref alone, spaced or not.
        let max_ref = max.trim_start_matches("109.33 ").replace("[[", "[[ ");
        let (text, left_out) = kg.render(&format!(
            "Your top set was {set} x 2, an estimated max of {max_ref} ([[w9]])."
        ));
        assert_eq!(
            strip(&text),
            format!("Your top set was 102.5 kg x 2, an estimated max of 109.3 kg ({LEFT_OUT}).")
        );
        assert_eq!(left_out, ["[[w9]]"]);
        // A figure the result repeats has one ref, at its first place.
        let mut one = Refs::new(Unit::Kg);
        let v = one.annotate(&json!({"basis": [{"weight_kg": 85.0}, {"weight_kg": 85.0}]}));
        assert_eq!(v["basis"][1]["weight_kg"], json!(85.0));
        assert!(
            v["basis"][0]["weight_kg"]
                .as_str()
                .unwrap()
                .ends_with("[[w1]]")
        );
        assert!(is_cited(&text, text.find("102.5").unwrap()));
        assert_eq!(cited_in(&text), ["102.5 kg", "109.3 kg"]);
        // A pound lifter's load is what the bar takes, to the half pound.
        let mut lb = Refs::new(Unit::Lb);
        lb.annotate(&json!({"e1rm_kg": 133.4, "weight_kg": 102.1}));
        let (text, _) = lb.render("[[w2]] for 5, about [[w1]].");
        assert_eq!(strip(&text), "225 lb for 5, about 294.1 lb.");
        // Only code marks a figure as cited.
        let (text, _) = kg.render("\u{2060}140 kg");
        assert!(!is_cited(&text, text.find("140").unwrap()));
        // Brackets that are no ref stay.
        assert_eq!(
            kg.render("[[see notes]] and [x]").0,
            "[[see notes]] and [x]"
        );
    }
}
