//! Effort figures: reps in reserve (RIR) and rate of perceived exertion (RPE). A model that
//! reads a lifter's sets can state an effort the data never held (Qwen 1.5B: "RIR: 0.5",
//! "reps in reserve: 10" of a lifter who logged none), and the prescription reads effort, so
//! an effort said to be the lifter's is held to the data as a weight is. Advice ("aim for RPE
//! 8", "leave 2 in reserve") is not a claim and is never checked.

use std::sync::LazyLock;

use regex_lite::Regex;

use super::super::lifts::sentence_ends;

/// The two scales: RPE 10 is no reps left, so RPE = 10 − RIR.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scale {
    Rir,
    Rpe,
}

/// How close a stated effort must be to the data's: an average of 1.3 is "about 1", but RPE
/// is rated in halves, so a half is another rating.
const TOLERANCE: f64 = 0.35;

/// "RIR 2", "RIR: 0.5", "RPE of 8", "reps in reserve: 10" (`a`); "2 RIR", "@8 RPE", "1 rep in
/// reserve" (`b`).
static EFFORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:(?P<ka>rir|rpe|reps?\s+in\s+(?:the\s+)?reserve)\b[*_]*\s*(?:[:=]\s*|(?:of|is|was|were|at|around|about|averaged|averaging|~)\s+)*(?P<a>\d{1,2}(?:\.\d{1,2})?)|@?\s?(?P<b>\d{1,2}(?:\.\d{1,2})?)\s*(?P<kb>rir|rpe|reps?\s+in\s+(?:the\s+)?reserve|reps?\s+left(?:\s+in\s+the\s+tank)?)\b)")
        .unwrap_or_else(|e| panic!("effort pattern: {e}"))
});
/// Right after the figure: a range or a list of them ("RPE 7-8", "RPE 8 to 9"), advice.
static RANGE_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:[-–/]|to|or)\s*\d")
        .unwrap_or_else(|e| panic!("effort range pattern: {e}"))
});
/// Words of advice in the sentence before an effort: a target, not what was done.
static ADVICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:aim|aiming|target|targets|targeting|leave|leaving|keep|keeping|stay|staying|stop|stopping|should|try|next|plan|planned|want|go for|work up|until|prescribe[ds]?|suggest(?:s|ed)?|recommend(?:s|ed)?|would|could|if|when|between|build|cap|push|goal|instead)\b")
        .unwrap_or_else(|e| panic!("effort advice pattern: {e}"))
});
/// Words that say an effort was the lifter's: "you logged RPE 9", "your RIR was 0", "last
/// week's top set at RIR 1", a session's date ("2026-11-21: 15 reps, RIR 3").
static CLAIMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:\d{4}-\d{2}-\d{2}|you|your|you're|you've|logged|rated|recorded|did|hit|was|were|averaged|average|mean|last (?:week|time|session)|yesterday|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b")
        .unwrap_or_else(|e| panic!("effort claimed pattern: {e}"))
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

fn stated(text: &str) -> Vec<Stated> {
    EFFORT
        .captures_iter(text)
        .filter_map(|c| {
            let (n, k) = c
                .name("a")
                .zip(c.name("ka"))
                .or_else(|| c.name("b").zip(c.name("kb")))?;
            let after = text.get(n.end()..).unwrap_or_default();
            if c.name("a").is_some() && RANGE_AFTER.is_match(after) {
                return None;
            }
            let scale = if k.as_str().eq_ignore_ascii_case("rpe") {
                Scale::Rpe
            } else {
                Scale::Rir
            };
            let between = text.get(k.end()..n.start()).unwrap_or_default();
            Some(Stated {
                n: n.as_str().parse().ok()?,
                scale,
                at: n.range(),
                labelled: c.name("a").is_some() && between.contains([':', '=']),
            })
        })
        .collect()
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
    }

    fn backs(&self, n: f64, scale: Scale) -> bool {
        self.0.iter().any(|(m, s)| {
            let m = if *s == scale { *m } else { 10.0 - m };
            (m - n).abs() <= TOLERANCE
        })
    }

    /// Where `text` states an effort as the lifter's that the data does not hold, or one no
    /// set can have (RPE above 10, more than 10 reps in reserve): each read in its sentence.
    pub(super) fn unbacked(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        stated(text)
            .into_iter()
            .filter(|s| {
                let start = sentence_ends(text, 0..s.at.start)
                    .next_back()
                    .map_or(0, |i| i + 1);
                let end = sentence_ends(text, s.at.end..text.len())
                    .next()
                    .unwrap_or(text.len());
                let before = &text[start..s.at.start];
                let claimed =
                    s.labelled || (CLAIMED.is_match(&text[start..end]) && !ADVICE.is_match(before));
                claimed && (s.n > 10.0 || !self.backs(s.n, s.scale))
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
        e.add_keyed("avg_rir", 1.3);
        e.add_prose("Bench 80 kg x 8 @ RPE 8.5 on Monday.");
        e
    }

    fn left_out(text: &str) -> Vec<&str> {
        efforts()
            .unbacked(text)
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
            "You logged RPE 8.5 on Monday's bench.",
            "That set was RPE 9, one rep in reserve.",
            "You hit 80 kg x 8 with 1 rep in reserve.",
            // Advice, however it is written.
            "Aim for RPE 8 next week.",
            "Leave 2 reps in reserve on every set.",
            "Keep your sets around RIR 2-3.",
            "Work up to RPE 7 before the top set.",
            "RPE 6 to 7 is a good warm-up.",
            "If the bar slows, stop at RIR 2.",
        ] {
            assert!(left_out(ok).is_empty(), "{ok}: {:?}", left_out(ok));
        }
        for (bad, figure) in [
            ("- **RIR**: 0.5", "0.5"),
            ("Reps in reserve: 10", "10"),
            ("Your last set was RPE 6.", "6"),
            ("You did 80 kg for 8 at RIR 4.", "4"),
            ("Your top set was RPE 11.", "11"),
        ] {
            assert_eq!(left_out(bad), [figure], "{bad}");
        }
    }

    #[test]
    fn a_lifter_who_logs_no_effort_has_none_to_cite() {
        let none = Efforts::default();
        assert_eq!(none.unbacked("- RIR: 2").len(), 1);
        assert!(none.unbacked("Aim for RIR 2 on these.").is_empty());
    }
}
