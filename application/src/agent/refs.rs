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

use super::critic::{Kind, LEFT_OUT, kind_above, kind_of_key, weights_in};
use crate::domain::units::{Unit, format_estimate, format_weight};

/// Put just before a figure rendered from a ref (an invisible word joiner). A model's own is
/// taken out of its text before refs are rendered, so only code's marks a figure as cited.
pub(crate) const CITED: char = '\u{2060}';

/// A ref as a model writes it: "[[w4]]", "[[ w4 ]]", "[w4]", "[[W4]]", escaped "\[\[w4\]\]".
static REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\\?\[(?:\\?\[)?\s*[wW]\s?(\d{1,4})\s*\\?\](?:\\?\])?")
        .unwrap_or_else(|e| panic!("ref pattern: {e}"))
});
/// A unit written after a ref ("[[w4]] kg"): the figure has its own.
static UNIT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s?(?:kgs?|lbs?|pounds|kilos)\b")
        .unwrap_or_else(|e| panic!("unit-after pattern: {e}"))
});
/// A number (and its unit) just before a ref ("109.3 [[w4]]", "109.3 kg [[w4]]").
static NUMBER_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|[^\d.])([+\-−]?\d+(?:\.\d+)?)\s*(?:kgs?|lbs?)?\s*$")
        .unwrap_or_else(|e| panic!("number-before pattern: {e}"))
});

/// One ref: the weight in kilograms, its kind, and its number as the tool result wrote it (in
/// the result's unit).
#[derive(Debug)]
struct Figure {
    kg: f64,
    kind: Kind,
    written: f64,
}

/// The refs handed out in one answer.
#[derive(Debug)]
pub(crate) struct Refs {
    unit: Unit,
    figures: Vec<Figure>,
}

impl Refs {
    pub fn new(unit: Unit) -> Self {
        Refs {
            unit,
            figures: Vec::new(),
        }
    }

    /// `v` with each weight of its objects written with its ref (`"109.3 [[w4]]"`, numbered on
    /// from the refs already handed out in this answer). A weight is a number under a key in
    /// kilograms or pounds (`…_kg`, `…_lb`, as a pound lifter's results are) or a set's
    /// `weight`; a count ("sets_delta") is none. A weight in a list of bare numbers gets no ref:
    /// it is cited by writing it.
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
                let mut out = Map::with_capacity(m.len());
                for (k, x) in m {
                    let kind = kind_of_key(k, above);
                    let in_lb = k.ends_with("_lb");
                    let weight = in_lb || k.ends_with("_kg") || k == "weight" || k == "load";
                    match (x, kind) {
                        (Value::Number(n), Some(kind)) if weight => {
                            let written = n.to_string();
                            let first = !given.contains(&(written.clone(), kind));
                            let cited = n.as_f64().filter(|_| first).map(|x| {
                                given.push((written.clone(), kind));
                                let kg = if in_lb { Unit::Lb.to_kg(x) } else { x };
                                let n = self.give(kg, kind, x);
                                Value::String(format!("{written} [[w{n}]]"))
                            });
                            out.insert(k.clone(), cited.unwrap_or_else(|| x.clone()));
                        }
                        _ => {
                            let inner = kind_above(Some(k), above);
                            out.insert(k.clone(), self.annotate_under(x, inner, given));
                        }
                    }
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    /// A new ref for a weight (`kg`; `written` as its source wrote it): its number.
    fn give(&mut self, kg: f64, kind: Kind, written: f64) -> usize {
        self.figures.push(Figure { kg, kind, written });
        self.figures.len()
    }

    /// `text` (the data lines of the lifter's context: "Strength …: Squat 121 kg") with a ref
    /// after each weight written with its unit ("Squat 121 kg [[w1]]"), its kind read from the
    /// words as the number check reads prose; a figure a line writes twice keeps its first ref.
    pub fn annotate_text(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 32);
        for line in text.split_inclusive('\n') {
            let mut given: Vec<(String, Kind)> = Vec::new();
            let mut from = 0;
            for w in weights_in(line, false) {
                let written = line[w.at.clone()].to_string();
                if given.contains(&(written.clone(), w.kind)) {
                    continue;
                }
                given.push((written, w.kind));
                let n = self.give(w.kg, w.kind, w.raw);
                out.push_str(&line[from..w.at.end]);
                out.push_str(&format!(" [[w{n}]]"));
                from = w.at.end;
            }
            out.push_str(&line[from..]);
        }
        out
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
            let (Some(all), Some(n)) = (c.get(0), c.get(1)) else {
                continue;
            };
            out.push_str(&text[from..all.start()]);
            from = all.end();
            let Some((f, figure)) = self.figure(n.as_str()) else {
                out.push_str(LEFT_OUT);
                left_out.push(all.as_str().to_string());
                continue;
            };
            // "109.3 [[w4]]", "100 kg [[w1]]", copied as the tool result wrote it, or rounded:
            // the number once.
            if let Some(m) = NUMBER_BEFORE.captures(&out).and_then(|c| c.get(1))
                && m.as_str()
                    .trim_start_matches(['+', '-', '−'])
                    .parse::<f64>()
                    .is_ok_and(|x| {
                        (x - f.written.abs()).abs() <= 0.06_f64.max(0.005 * f.written.abs())
                    })
            {
                out.truncate(m.start());
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

    /// `v` (a tool call's arguments) with the refs of its strings rendered and unmarked: a
    /// memory or a notification saved with "[[w4]]" keeps the figure, not a ref that means
    /// another figure in the next answer.
    pub fn render_args(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(strip(&self.render(s).0)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.render_args(x)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| (k.clone(), self.render_args(x)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// Ref number `n` and its figure in the lifter's unit: a load as a bar takes it (pounds to
    /// the half pound), an estimate to a tenth, a change as its size (the words say which way).
    fn figure(&self, n: &str) -> Option<(&Figure, String)> {
        let n: usize = n.parse().ok()?;
        let f = self.figures.get(n.checked_sub(1)?)?;
        let shown = match (f.kind, self.unit) {
            (Kind::Load | Kind::Goal | Kind::Best | Kind::TrainingMax, Unit::Lb) => {
                let lb = (self.unit.from_kg(f.kg) * 2.0).round() / 2.0;
                format_weight(self.unit.to_kg(lb), Unit::Lb)
            }
            (Kind::Load | Kind::Goal | Kind::Best | Kind::TrainingMax, Unit::Kg) => {
                format_weight(f.kg, Unit::Kg)
            }
            _ => format_estimate(f.kg.abs(), self.unit),
        };
        Some((f, shown))
    }
}

/// `text` without the marks of cited figures: what the lifter reads and the conversation keeps.
pub(crate) fn strip(text: &str) -> String {
    text.replace(CITED, "")
}

/// The figures of `text` rendered from refs, as shown ("116.7 kg").
pub(crate) fn cited_in(text: &str) -> Vec<String> {
    text.split(CITED)
        .skip(1)
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
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
pub(crate) fn is_cited(text: &str, at: usize) -> bool {
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
            "week_1_sets_kg": [62.5, 72.5],
            "vs_last_week": {"sets_delta": 5}
        }));
        let set = v["sessions"][0]["top_set"]["weight_kg"].as_str().unwrap();
        let max = v["sessions"][0]["e1rm_kg"].as_str().unwrap();
        let change = v["e1rm_change"]["change_kg"].as_str().unwrap();
        assert!(
            set.starts_with("102.5 [[w") && max.starts_with("109.33 [[w"),
            "{v}"
        );
        assert!(change.starts_with("-7.7 [[w"), "{v}");
        assert_eq!(v["sessions"][0]["top_set"]["reps"], 2);
        // A list of bare numbers, and a count, get none.
        assert_eq!(v["week_1_sets_kg"], json!([62.5, 72.5]));
        assert_eq!(v["vs_last_week"]["sets_delta"], 5);
        // Copied with its number (rounded, with its unit or not), the number is shown once; a
        // ref alone, spaced or not; a change as its size, the words saying which way.
        let r = |s: &str| s.rsplit_once(' ').unwrap().1.to_string();
        let (text, left_out) = kg.render(&format!(
            "Your top set was {set} x 2, an estimated max of 109.3 kg {}, down {}; not [[w99]].",
            r(max).replace("[[", "[[ "),
            r(change)
        ));
        assert_eq!(
            strip(&text),
            format!(
                "Your top set was 102.5 kg x 2, an estimated max of 109.3 kg, down 7.7 kg; not {LEFT_OUT}."
            )
        );
        assert_eq!(left_out, ["[[w99]]"]);
        assert!(is_cited(&text, text.find("102.5").unwrap()));
        assert_eq!(cited_in(&text), ["102.5 kg", "109.3 kg", "7.7 kg"]);
        // A figure the result repeats has one ref, at its first place.
        let mut one = Refs::new(Unit::Kg);
        let v = one.annotate(&json!({"basis": [{"weight_kg": 85.0}, {"weight_kg": 85.0}]}));
        assert_eq!(v["basis"][1]["weight_kg"], json!(85.0));
        assert_eq!(v["basis"][0]["weight_kg"], "85.0 [[w1]]");
        assert_eq!(strip(&one.render("Bench 85 [[w1]] kg.").0), "Bench 85 kg.");
        // Only code marks a figure as cited; brackets that are no ref stay.
        let (text, _) = kg.render("\u{2060}140 kg");
        assert!(!is_cited(&text, text.find("140").unwrap()));
        assert_eq!(
            kg.render("[[x]], [[see notes]] and [x]").0,
            "[[x]], [[see notes]] and [x]"
        );
        // Written as models write refs.
        for written in ["[w1]", "[[W1]]", "\\[\\[w1\\]\\]", "[[w 1]]"] {
            assert_eq!(strip(&one.render(written).0), "85 kg", "{written}");
        }
    }

    #[test]
    fn the_contexts_weights_have_refs_too() {
        let mut lb = Refs::new(Unit::Lb);
        let context = "Lifter: name Maureen, unit lb, bodyweight 142 lb, goals: trap bar deadlift 135 lb.\n\
                       Strength (weekly best e1RM, last 12 weeks): Leg Press 264 lb (+64 since week of 2026-09-07); Hip Thrust 135 lb.";
        let annotated = lb.annotate_text(context);
        assert!(
            annotated.contains("bodyweight 142 lb [[w1]]"),
            "{annotated}"
        );
        assert!(
            annotated.contains("Leg Press 264 lb [[w3]] (+64 since"),
            "{annotated}"
        );
        assert!(
            annotated.contains("Hip Thrust 135 lb [[w4]]."),
            "{annotated}"
        );
        assert_eq!(
            strip(&lb.render("Your leg press is at [[w3]].").0),
            "Your leg press is at 264 lb."
        );
    }

    /// A pound lifter's results come with `…_lb` keys (`tools::in_unit`).
    #[test]
    fn a_pound_lifters_refs_are_in_pounds() {
        let mut lb = Refs::new(Unit::Lb);
        let v = lb.annotate(&json!({
            "top_set": {"weight_lb": 225.0, "reps": 5},
            "e1rm_lb": 294.1,
            "e1rm_change": {"from_lb": 280.0, "to_lb": 290.0}
        }));
        let load = v["top_set"]["weight_lb"]
            .as_str()
            .unwrap()
            .rsplit_once(' ')
            .unwrap()
            .1;
        let max = v["e1rm_lb"].as_str().unwrap().rsplit_once(' ').unwrap().1;
        let from = v["e1rm_change"]["from_lb"]
            .as_str()
            .unwrap()
            .rsplit_once(' ')
            .unwrap()
            .1;
        let (text, _) = lb.render(&format!("{load} for 5, about {max}, from {from}."));
        assert_eq!(strip(&text), "225 lb for 5, about 294.1 lb, from 280 lb.");
        // A ref in a tool's argument is stored as its figure.
        assert_eq!(
            lb.render_args(&json!({"text": format!("Bench top set {load}")})),
            json!({"text": "Bench top set 225 lb"})
        );
    }
}
