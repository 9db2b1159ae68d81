//! Effort figures: reps in reserve (RIR) and rate of perceived exertion (RPE). A model that
//! reads a lifter's sets can state an effort the data never held (Qwen 1.5B: "RIR: 0.5",
//! "reps in reserve: 10" of a lifter who logged none), and the prescription reads effort, so
//! an effort said to be the lifter's is held to the data as a weight is. Advice ("aim for RPE
//! 8", "leave 2 in reserve") is not a claim and is never checked.

use std::sync::LazyLock;

use chrono::NaiveDate;
use regex_lite::Regex;

use super::super::lifts::sentence_ends;

/// The two scales: RPE 10 is no reps left, so RPE = 10 − RIR.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scale {
    Rir,
    Rpe,
}

/// How close a stated effort must be to the data's: an average of 1.3 is "about 1", but RPE
/// is rated in halves, so a half is another rating; said to be about or an average, half a rep.
const TOLERANCE: f64 = 0.35;
const ABOUT_TOLERANCE: f64 = 0.5;

/// The scale first: "RIR 2", "RIR: 0.5", "**RIR:** 0.5", "RPE of 8", "rpe8", "reps in reserve:
/// 10".
static SCALE_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?P<k>rir|rpe|reps?\s+in\s+(?:the\s+)?reserve)[*_]*\s*(?:[:=][*_]*\s*|(?:of|is|was|were|at|around|about|averaged|averaging|~)\s+)*(?P<n>\d{1,2}(?:\.\d{1,2})?)\b")
        .unwrap_or_else(|e| panic!("effort pattern: {e}"))
});
/// The figure first: "2 RIR", "@8 RPE", "1 rep in reserve", "2 reps left in the tank".
static FIGURE_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|[^\d.])(?P<n>\d{1,2}(?:\.\d{1,2})?)\s*(?P<k>rir|rpe|reps?\s+in\s+(?:the\s+)?reserve|reps?\s+left(?:\s+in\s+the\s+tank)?)\b")
        .unwrap_or_else(|e| panic!("effort pattern: {e}"))
});
/// Right after a figure: a range or a list of them ("RPE 7-8", "RPE 8 to 9"), advice.
static RANGE_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:[-–/]|to|or)\s*\d")
        .unwrap_or_else(|e| panic!("effort range pattern: {e}"))
});
/// Right before a figure: a range's start ("1-2 RIR", "the 1-10 RPE scale") or a set's reps
/// ("100 kg x 5 RPE 8" is no RPE 5).
static BEFORE_FIGURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\d\s*(?:[-–/]|to|or)|[x×*]|for)\s*$")
        .unwrap_or_else(|e| panic!("effort before pattern: {e}"))
});
/// A lifter's own shorthand for RPE after a set, which the data may hold: "100x5 @8".
static AT_RPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\d\s*[x×]\s*\d{1,2}\s*@\s?(\d{1,2}(?:\.5)?)\b")
        .unwrap_or_else(|e| panic!("at-rpe pattern: {e}"))
});
/// Words of advice, a plan or an explanation in an effort's clause: a target, not what was done.
static ADVICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:aim|aiming|target|targets|targeting|leave|leaving|keep|keeping|stay|staying|stop|stopping|should|try|next|plan|planned|want|go for|work up|until|prescribe[ds]?|suggest(?:s|ed|ion)?|recommend(?:s|ed)?|would|could|you'd|if|when|between|build|cap|push|goal|instead|do|hit a|make|means?|this week|tomorrow|scale)\b")
        .unwrap_or_else(|e| panic!("effort advice pattern: {e}"))
});
/// Words that say an effort was the lifter's: "you logged RPE 9", "your RIR was 0", "last
/// week's top set at RIR 1", a session's day ("2026-11-21: 15 reps, RIR 3").
static CLAIMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:you(?:'ve| have)?\s+(?:\w+\s+){0,2}?(?:logged|rated|recorded|did|hit|had|got|were|averaged|left|managed|reported|went)|your\b[^.!?]{0,60}\b(?:was|were|averaged|came in|sat|has been|have been)|last (?:week|time|session)|yesterday|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b")
        .unwrap_or_else(|e| panic!("effort claimed pattern: {e}"))
});
static ISO_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\d{4}-\d{2}-\d{2})\b").unwrap_or_else(|e| panic!("date pattern: {e}"))
});
/// Words that make a figure said of an average or roughly: a wider tolerance.
static ABOUT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:about|around|roughly|average|averaged|averaging|mean|mostly)\b|~")
        .unwrap_or_else(|e| panic!("effort about pattern: {e}"))
});

/// An effort figure written in a text.
struct Stated {
    n: f64,
    scale: Scale,
    /// Where its number is.
    at: std::ops::Range<usize>,
    /// Written as a label's value ("RIR: 0.5", "**RPE**: 8").
    labelled: bool,
}

fn scale_of(k: &str) -> Scale {
    if k.eq_ignore_ascii_case("rpe") {
        Scale::Rpe
    } else {
        Scale::Rir
    }
}

fn stated(text: &str) -> Vec<Stated> {
    let mut out: Vec<Stated> = SCALE_FIRST
        .captures_iter(text)
        .filter_map(|c| {
            let (n, k) = (c.name("n")?, c.name("k")?);
            if RANGE_AFTER.is_match(text.get(n.end()..).unwrap_or_default()) {
                return None;
            }
            Some(Stated {
                n: n.as_str().parse().ok()?,
                scale: scale_of(k.as_str()),
                at: n.range(),
                labelled: text
                    .get(k.end()..n.start())
                    .unwrap_or_default()
                    .contains([':', '=']),
            })
        })
        .collect();
    // Where each scale-first word is: a figure before it is not its figure.
    let scale_words: Vec<usize> = SCALE_FIRST
        .captures_iter(text)
        .filter_map(|c| c.name("k").map(|k| k.start()))
        .collect();
    for c in FIGURE_FIRST.captures_iter(text) {
        let (Some(n), Some(k)) = (c.name("n"), c.name("k")) else {
            continue;
        };
        // "100 kg x 5 RPE 8": the scale is the next figure's; "1-2 RIR": a range.
        if scale_words.contains(&k.start())
            || BEFORE_FIGURE.is_match(text.get(..n.start()).unwrap_or_default())
        {
            continue;
        }
        let Ok(v) = n.as_str().parse() else { continue };
        out.push(Stated {
            n: v,
            scale: scale_of(k.as_str()),
            at: n.range(),
            labelled: false,
        });
    }
    out.sort_by_key(|s| s.at.start);
    out
}

/// The efforts the data holds, each on its own scale.
#[derive(Debug, Default, Clone)]
pub(super) struct Efforts(Vec<(f64, Scale)>);

impl Efforts {
    /// A tool result's number under `key`, when the key names an effort (`rir`, `avg_rir`,
    /// `target_rir`, `rpe`).
    pub(super) fn add_keyed(&mut self, key: &str, n: f64) {
        let key = key.to_ascii_lowercase();
        let scale = if key.split('_').any(|w| w == "rir") {
            Scale::Rir
        } else if key.split('_').any(|w| w == "rpe") {
            Scale::Rpe
        } else {
            return;
        };
        self.0.push((n, scale));
    }

    /// The efforts written in prose: the briefing, strings in tool data, the lifter's message.
    pub(super) fn add_prose(&mut self, text: &str) {
        self.0
            .extend(stated(text).into_iter().map(|s| (s.n, s.scale)));
        self.0.extend(
            AT_RPE
                .captures_iter(text)
                .filter_map(|c| c[1].parse().ok())
                .map(|n| (n, Scale::Rpe)),
        );
    }

    fn backs(&self, n: f64, scale: Scale, tolerance: f64) -> bool {
        self.0.iter().any(|(m, s)| {
            let m = if *s == scale { *m } else { 10.0 - m };
            (m - n).abs() <= tolerance
        })
    }

    /// Where `text` states an effort as the lifter's that the data does not hold, or one no
    /// set can have (RPE above 10, more than 10 reps in reserve): each read in its clause. A
    /// question claims nothing, nor a plan's day (a date after `today`).
    pub(super) fn unbacked(
        &self,
        text: &str,
        today: Option<NaiveDate>,
    ) -> Vec<std::ops::Range<usize>> {
        stated(text)
            .into_iter()
            .filter(|s| {
                let start = sentence_ends(text, 0..s.at.start)
                    .next_back()
                    .map_or(0, |i| i + 1);
                let end = sentence_ends(text, s.at.end..text.len())
                    .next()
                    .unwrap_or(text.len());
                if text[end..].starts_with('?') {
                    return false;
                }
                let sentence = &text[start..end];
                let clause_start = text[start..s.at.start]
                    .rfind([',', ';', '(', '—'])
                    .map_or(start, |i| start + i + 1);
                let clause_end = text[s.at.end..end]
                    .find([',', ';', ')', '—'])
                    .map_or(end, |i| s.at.end + i);
                let clause = &text[clause_start..clause_end];
                let planned_day = ISO_DATE.captures_iter(sentence).any(|c| {
                    match (NaiveDate::parse_from_str(&c[1], "%Y-%m-%d"), today) {
                        (Ok(d), Some(t)) => d > t,
                        _ => false,
                    }
                });
                let dated = ISO_DATE.is_match(sentence) && !planned_day;
                let claimed = !ADVICE.is_match(clause)
                    && !planned_day
                    && (s.labelled || dated || CLAIMED.is_match(sentence));
                let tolerance = if ABOUT.is_match(clause) {
                    ABOUT_TOLERANCE
                } else {
                    TOLERANCE
                };
                claimed && (s.n > 10.0 || !self.backs(s.n, s.scale, tolerance))
            })
            .map(|s| s.at)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn efforts() -> Efforts {
        let mut e = Efforts::default();
        e.add_keyed("rir", 1.0);
        e.add_keyed("avg_rir", 1.6);
        e.add_prose("Bench 80 kg x 8 @ RPE 8.5 on Monday; squat 100x5 @9.");
        e
    }

    fn left_out(text: &str) -> Vec<&str> {
        let today = NaiveDate::from_ymd_opt(2026, 11, 27);
        efforts()
            .unbacked(text, today)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn an_effort_said_to_be_the_lifters_is_the_datas() {
        for ok in [
            "Your top set was at RIR 1.",
            "- RIR: 1",
            "Your average RIR was about 1.",
            "Your sets averaged about RIR 2.",
            "You logged RPE 8.5 on Monday's bench.",
            "Your squat was 100 kg x 5 at RPE 9.",
            "You hit 80 kg x 8 with 1 rep in reserve.",
            "Last week you hit 80 kg x 8 RPE 9 on bench.",
            // Advice, plans, explanations and questions, however they are written.
            "Aim for RPE 8 next week.",
            "Leave 2 reps in reserve on every set.",
            "Keep your sets around RIR 2-3.",
            "Work up to RPE 7 before the top set.",
            "RPE 6 to 7 is a good warm-up.",
            "If the bar slows, stop at RIR 2.",
            "Hit a top single at RPE 8, then take 10% off for three back-off sets.",
            "Do your squats as 5 x 5 @ RPE 8 this week.",
            "At RPE 8 you'd typically get about 5 reps with 100 kg.",
            "RPE 8 means you could have done 2 more reps.",
            "Was that top set closer to an RPE 8 or an RPE 9?",
            "- **Target RPE**: 8",
            "**2026-12-02:** Squat 5 x 3 @ RPE 8 as planned.",
            "Your top sets have mostly been at 1-2 RIR.",
            "On the 1-10 RPE scale, 8 is a hard set.",
        ] {
            assert!(left_out(ok).is_empty(), "{ok}: {:?}", left_out(ok));
        }
        for (bad, figure) in [
            ("- **RIR**: 0.5", "0.5"),
            ("- **RIR:** 0.5", "0.5"),
            ("Reps in reserve: 10", "10"),
            ("Your last set was RPE 6.", "6"),
            ("You did 80 kg for 8 at RIR 4.", "4"),
            ("Your top set was RPE 11.", "11"),
            ("Last week you hit 80 kg x 8 RPE 6 on bench.", "6"),
            (
                "When you benched 100 kg on Monday, your last set was RPE 9.5.",
                "9.5",
            ),
            (
                "- **2026-11-21 Evening Workout**: 15 reps with 90 kg, RIR 3",
                "3",
            ),
        ] {
            assert_eq!(left_out(bad), [figure], "{bad}");
        }
    }

    #[test]
    fn a_lifter_who_logs_no_effort_has_none_to_cite() {
        let none = Efforts::default();
        assert_eq!(none.unbacked("- RIR: 2", None).len(), 1);
        assert!(none.unbacked("Aim for RIR 2 on these.", None).is_empty());
    }
}
