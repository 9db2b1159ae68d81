//! Holding back numbers the coach has not earned. A model fills gaps in its data with invented
//! loads (before any tool has run it knows only the briefing and the lifter's message; after,
//! a small model still gives one lift's figures as another's). So the text streams live, but
//! each sentence is held from its first digit until it ends, and then shown with every weight
//! the facts do not back replaced by a note: the lifter never reads an invented load, and no
//! after-the-fact correction is needed for it. A figure the model cites (`[[w4]]`) is held
//! the same way and shown as the data's figure (`refs`).

pub use super::critic::LEFT_OUT;
use super::critic::{Facts, mask_sentence};
use super::refs::{Refs, strip};

pub(crate) struct HoldBack<'f> {
    facts: &'f Facts,
    refs: &'f Refs,
    /// The sentence held since its first digit.
    held: String,
    /// A '.' was the last character held: a sentence end if whitespace follows, else a decimal.
    dot: bool,
    /// Everything released to the lifter, cited figures marked (`refs::CITED`).
    pub shown: String,
    /// The weights left out, as the model wrote them.
    pub left_out: Vec<String>,
}

impl<'f> HoldBack<'f> {
    pub fn new(facts: &'f Facts, refs: &'f Refs) -> Self {
        HoldBack {
            facts,
            refs,
            held: String::new(),
            dot: false,
            shown: String::new(),
            left_out: Vec::new(),
        }
    }

    /// The text to send now after the model's `delta`. What is released goes into `shown` at
    /// once, so a sentence later in the same delta is read with the words before it.
    pub fn push(&mut self, delta: &str) -> String {
        let from = self.shown.len();
        // Only code marks a figure as cited: a model's own mark (or one it copied from data) is
        // taken out before anything is shown or checked.
        for ch in strip(delta).chars() {
            // Held from a digit or a bracket (a ref, "[[w4]]").
            if self.held.is_empty() && !ch.is_ascii_digit() && ch != '[' {
                self.shown.push(ch);
                continue;
            }
            if self.dot && ch.is_whitespace() {
                self.held.push(ch);
                self.release();
                continue;
            }
            self.held.push(ch);
            self.dot = ch == '.';
            if matches!(ch, '!' | '?' | '\n') {
                self.release();
            }
        }
        strip(&self.shown[from..])
    }

    /// What is still held when the model's turn ends.
    pub fn finish(&mut self) -> String {
        let from = self.shown.len();
        self.release();
        strip(&self.shown[from..])
    }

    /// The held sentence, its unbacked weights replaced, added to what is shown.
    fn release(&mut self) {
        self.dot = false;
        let (held, unknown) = self.refs.render(&std::mem::take(&mut self.held));
        self.left_out.extend(unknown);
        // The sentence's words already shown (none hold a digit) give the held figures their
        // sense: "Add " makes "5 kg next week." a change.
        // A list item reads with the heading above it (`critic::mask_sentence`).
        let start = self.shown.rfind(['.', '!', '?', '\n']).map_or(0, |i| i + 1);
        let text = format!("{}{held}", self.shown);
        let (masked, left_out) = mask_sentence(&text, start, self.facts);
        self.left_out.extend(left_out);
        // What the lifter has not read yet: the held part.
        let released = masked[self.shown.len() - start..].to_string();
        self.shown.push_str(&released);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `text` in small chunks, as a stream does; returns what the lifter saw.
    fn streamed(facts: &Facts, text: &str, chunk: usize) -> (String, Vec<String>) {
        let refs = Refs::new(crate::domain::units::Unit::Kg);
        let mut h = HoldBack::new(facts, &refs);
        let chars: Vec<char> = text.chars().collect();
        let mut seen = String::new();
        for c in chars.chunks(chunk) {
            seen.push_str(&h.push(&c.iter().collect::<String>()));
        }
        seen.push_str(&h.finish());
        assert_eq!(seen, strip(&h.shown));
        (seen, h.left_out)
    }

    #[test]
    fn invented_loads_never_reach_the_lifter() {
        let mut facts = Facts::default();
        facts.add_said("my squat is 100 kg for 5, what next?");
        for chunk in [1, 3, 7, 100] {
            let (seen, left) = streamed(
                &facts,
                "Great work. Your e1RM is 79.2 kg. Try 102.5 kg for 5 next, then 100 kg.\nRest well!",
                chunk,
            );
            assert_eq!(
                seen,
                format!(
                    "Great work. Your e1RM is {LEFT_OUT}. Try {LEFT_OUT} for 5 next, then 100 kg.\nRest well!"
                ),
                "chunks of {chunk}"
            );
            assert_eq!(left, ["79.2 kg", "102.5 kg"]);
        }
    }

    #[test]
    fn invented_loads_without_a_unit_never_reach_the_lifter() {
        let mut facts = Facts::default();
        facts.add_said("my squat is 100 kg for 5, what next?");
        for chunk in [1, 3, 7, 100] {
            let (seen, left) = streamed(
                &facts,
                "You squatted 100 for 5. Next: 5 @ 105, then 3 x 8 at 90.",
                chunk,
            );
            assert_eq!(
                seen,
                format!("You squatted 100 for 5. Next: 5 @ {LEFT_OUT}, then 3 x 8 at {LEFT_OUT}."),
                "chunks of {chunk}"
            );
            assert_eq!(left, ["105", "90"]);
        }
    }

    #[test]
    fn a_change_is_read_with_the_words_already_shown() {
        let facts = Facts::default();
        for chunk in [1, 4, 100] {
            let (seen, left) = streamed(
                &facts,
                "Good session. Add 5 kg next week, then 2.5 kg.",
                chunk,
            );
            assert_eq!(
                seen, "Good session. Add 5 kg next week, then 2.5 kg.",
                "chunks of {chunk}"
            );
            assert!(left.is_empty());
            let (seen, _) = streamed(&facts, "Good session. Squat 140 kg next week.", chunk);
            assert_eq!(
                seen,
                format!("Good session. Squat {LEFT_OUT} next week."),
                "chunks of {chunk}"
            );
        }
    }

    #[test]
    fn a_cited_figure_streams_as_the_datas() {
        let result = serde_json::json!({"sessions": [
            {"exercise_id": "bench-press", "e1rm_kg": 116.7, "top_set": {"weight_kg": 100, "reps": 5}},
            {"exercise_id": "squat", "e1rm_kg": 150.2, "top_set": {"weight_kg": 130, "reps": 5}}
        ]});
        let mut facts = Facts::in_unit(crate::domain::units::Unit::Kg);
        facts.add_json(&result);
        let mut refs = Refs::new(crate::domain::units::Unit::Kg);
        let seen_by_model = refs.annotate(&result);
        assert_eq!(seen_by_model["sessions"][0]["e1rm_kg"], "116.7 [[w1]]");
        assert_eq!(
            seen_by_model["sessions"][0]["top_set"]["weight_kg"],
            "100 [[w2]]"
        );
        assert_eq!(seen_by_model["sessions"][1]["e1rm_kg"], "150.2 [[w3]]");
        let text = "Your bench e1RM is [[w1]] and your top set was 100 [[w2]] x 5. \
                    Not [[w2]] x 9, nor [[w7]]. Your squat e1RM is [[w1]]. Try [[w1]] for 5 on \
                    bench. Try \u{2060}140 kg for 5.";
        for chunk in [1, 3, 100] {
            let mut h = HoldBack::new(&facts, &refs);
            let chars: Vec<char> = text.chars().collect();
            let mut seen = String::new();
            for c in chars.chunks(chunk) {
                seen.push_str(&h.push(&c.iter().collect::<String>()));
            }
            seen.push_str(&h.finish());
            // The data's figures, as said of what they are; the reps no set had, a ref not
            // given, the bench's figure said of the squat, an estimate as a set to do and a
            // figure behind a model's own mark are left out.
            assert_eq!(
                seen,
                format!(
                    "Your bench e1RM is 116.7 kg and your top set was 100 kg x 5. \
                     Not {LEFT_OUT}, nor {LEFT_OUT}. Your squat e1RM is {LEFT_OUT}. Try \
                     {LEFT_OUT} on bench. Try {LEFT_OUT} for 5."
                ),
                "chunks of {chunk}"
            );
            assert_eq!(
                h.left_out,
                [
                    "[[w7]]",
                    "100 kg x 9",
                    "116.7 kg",
                    "116.7 kg for 5",
                    "140 kg"
                ]
            );
        }
    }

    #[test]
    fn text_without_digits_flows_as_it_comes() {
        let facts = Facts::default();
        let refs = Refs::new(crate::domain::units::Unit::Kg);
        let mut h = HoldBack::new(&facts, &refs);
        assert_eq!(h.push("Keep your back "), "Keep your back ");
        assert_eq!(h.push("flat and do 3"), "flat and do ");
        assert_eq!(h.push(" sets."), "");
        assert_eq!(h.push(" Then"), "3 sets. Then");
        assert_eq!(h.finish(), "");
    }
}
