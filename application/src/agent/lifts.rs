//! Which lift a figure is about, for the number check: a coach's "your front squat e1RM is
//! 121 kg" is backed only by the front squat's data, not by the squat's 121 kg.
//!
//! A lift is named in text by a catalog name or alias ("Front Squat", "RDL", "bench"), the
//! lifter's own exercise names, or a lift's verb ("you benched 100"); the longest name wins
//! where names overlap ("front squat" is not "squat"). A figure is about the lift named
//! nearest before it in its sentence or line, else the first named after it ("105 kg on the
//! squat"), else no lift in particular.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::domain::catalog::catalog;

/// What may stand between a figure and the lift named right after it: "100 kg on the bench",
/// "140 for squats", "120 lb x 5 on your deadlift", "the 50s on dumbbell bench", "120 kg for
/// 3 conventional".
static NAMED_RIGHT_AFTER: LazyLock<regex_lite::Regex> = LazyLock::new(|| {
    regex_lite::Regex::new(
        r"(?i)^s?\s*(?:kg|kgs|lb|lbs)?\s*(?:(?:x|×|for)\s*\d{1,2}\s*(?:reps?\s+)?(?:(?:on|for|in|at)\s+(?:the\s+|your\s+|my\s+)?)?|(?:on|for|in|at)\s+(?:the\s+|your\s+|my\s+)?)$",
    )
    .unwrap_or_else(|e| panic!("named-after pattern: {e}"))
});

/// An article or possessive right before a figure: "a 140 kg deadlift", "your 100 kg bench".
static ATTRIBUTIVE_BEFORE: LazyLock<regex_lite::Regex> = LazyLock::new(|| {
    regex_lite::Regex::new(r"(?i)\b(?:a|an|the|your|my|his|her|their|that|this)\s+$")
        .unwrap_or_else(|e| panic!("attributive pattern: {e}"))
});
/// Nothing but a unit between a figure and a name.
static UNIT_ONLY: LazyLock<regex_lite::Regex> = LazyLock::new(|| {
    regex_lite::Regex::new(r"(?i)^s?\s*(?:kg|kgs|lb|lbs)?\s+$")
        .unwrap_or_else(|e| panic!("unit-only pattern: {e}"))
});

/// Verbs that name a lift ("you squatted 105 for 5"), and a bar that does ("the trap bar"),
/// with the catalog id they name.
const LIFT_VERBS: &[(&str, &str)] = &[
    ("squatted", "back-squat"),
    ("back squatted", "back-squat"),
    ("front squatted", "front-squat"),
    ("benched", "barbell-bench-press"),
    ("deadlifted", "deadlift"),
    ("pulled", "deadlift"),
    ("overhead", "overhead-press"),
    ("paused benched", "paused-bench-press"),
    ("pause benched", "paused-bench-press"),
    ("power cleaned", "power-clean"),
    ("hang cleaned", "hang-clean"),
    ("clean and jerked", "clean-and-jerk"),
    ("snatched", "snatch"),
    ("hip thrusted", "hip-thrust"),
    // What lifters call the lift by its bar ("250 for 5 on the trap bar").
    ("trap bar", "trap-bar-deadlift"),
    ("hex bar", "trap-bar-deadlift"),
];

/// Words that name a lift only when nothing better is named: "pulled" is a deadlift unless a
/// sumo, a trap bar or a block pull is named after it; "27.5 kg overhead" is a press unless
/// it is "on the log".
const WEAK_VERBS: &[&str] = &["pulled", "overhead"];

/// Names of lifts, as lower-case words, by their first word: each with the lift's id.
#[derive(Debug, Default, Clone)]
pub(crate) struct LiftNames {
    by_first: HashMap<String, Vec<(Vec<String>, String)>>,
}

/// The catalog's names, aliases and ids, and the lift verbs.
static CATALOG_NAMES: LazyLock<LiftNames> = LazyLock::new(|| {
    let mut names = LiftNames::default();
    for e in catalog().all() {
        names.add(&e.name, &e.id);
        names.add(&e.id, &e.id);
        for a in &e.aliases {
            names.add(a, &e.id);
        }
    }
    for (verb, id) in LIFT_VERBS {
        names.add(verb, id);
    }
    names
});

/// The lower-case words of `text` with where each starts and ends (letters and digits; "1rm"
/// is a word, "front-squat" two).
fn words(text: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((text[s..i].to_lowercase(), s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((text[s..].to_lowercase(), s, text.len()));
    }
    out
}

/// A loaded bodyweight lift and the lift itself: a lifter who logs "Weighted Pull-Up" at
/// +20 kg says "pull-ups at +20 kg".
const WEIGHTED: &[(&str, &str)] = &[
    ("weighted-pull-up", "pull-up"),
    ("weighted-chin-up", "chin-up"),
    ("weighted-dip", "chest-dip"),
];

/// Whether two lift ids are the same lift for what the lifter says: the same id, or a loaded
/// bodyweight lift and the lift itself.
pub(crate) fn same_lift(a: &str, b: &str) -> bool {
    let base = |id: &str| {
        WEIGHTED
            .iter()
            .find(|(w, _)| *w == id)
            .map_or(id.to_string(), |(_, b)| b.to_string())
    };
    a == b || base(a) == base(b)
}

/// Where sentences (or lines) end within `range` of `text`: ".", "!", "?", ";" or a line
/// break; not the point of a decimal ("67.5 to 72.5 kg" is one sentence).
pub(super) fn sentence_ends(
    text: &str,
    range: std::ops::Range<usize>,
) -> impl DoubleEndedIterator<Item = usize> + '_ {
    let bytes = text.as_bytes();
    text[range.clone()]
        .char_indices()
        .map(move |(i, c)| (range.start + i, c))
        .filter(move |&(i, c)| {
            matches!(c, '.' | '!' | '?' | '\n' | ';')
                && !(c == '.'
                    && i > 0
                    && bytes[i - 1].is_ascii_digit()
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        })
        .map(|(i, _)| i)
}

impl LiftNames {
    /// Adds `name` as a name of `id` (the first id to claim a name keeps it).
    pub fn add(&mut self, name: &str, id: &str) {
        let w: Vec<String> = words(name).into_iter().map(|(w, _, _)| w).collect();
        // "Paused Bench Press" is also "paused bench" (three words or more: "bench" alone is
        // the catalog's own alias, "overhead" is no lift).
        if w.len() >= 3 && w.last().is_some_and(|l| l == "press") {
            self.add_words(w[..w.len() - 1].to_vec(), id);
        }
        self.add_words(w, id);
    }

    /// Adds the lifter's own `name` of `id`, and the name without its equipment when that
    /// names no catalog lift: "Single-Arm Kettlebell Press" is also "single-arm press" (but
    /// "Dumbbell Bench Press" is not "bench press", the barbell's).
    pub fn add_lifters(&mut self, name: &str, id: &str) {
        const EQUIPMENT: &[&str] = &["kettlebell", "dumbbell", "barbell", "cable", "machine"];
        self.add(name, id);
        let w: Vec<String> = words(name).into_iter().map(|(w, _, _)| w).collect();
        let bare: Vec<String> = w
            .iter()
            .filter(|x| !EQUIPMENT.contains(&x.as_str()))
            .cloned()
            .collect();
        if bare.len() >= 2 && bare.len() < w.len() && CATALOG_NAMES.id_of(&bare.join(" ")).is_none()
        {
            self.add_words(bare, id);
        }
    }

    fn add_words(&mut self, w: Vec<String>, id: &str) {
        let Some(first) = w.first() else { return };
        let list = self.by_first.entry(first.clone()).or_default();
        if !list.iter().any(|(n, _)| *n == w) {
            list.push((w, id.to_string()));
        }
    }

    /// The lift `name` (an exercise id or a name) is, by the catalog or these names.
    pub fn id_of(&self, name: &str) -> Option<String> {
        if catalog().get(name).is_some() {
            return Some(name.to_string());
        }
        let w: Vec<String> = words(name).into_iter().map(|(w, _, _)| w).collect();
        [self, &*CATALOG_NAMES].iter().find_map(|names| {
            names
                .by_first
                .get(w.first()?)?
                .iter()
                .find(|(n, _)| *n == w)
                .map(|(_, id)| id.clone())
        })
    }

    /// The one lift of these names (the lifter's, from their data) whose name starts with
    /// `word`, when that word is one that only ever modifies a movement: "incline" is the
    /// lifter's "Incline Dumbbell Press" when it is the only incline lift in their data
    /// (ordinary words such as "close", "chest" or "good" name nothing on their own).
    fn only_lift_starting(&self, word: &str) -> Option<&str> {
        const MODIFIERS: &[&str] = &[
            "incline",
            "decline",
            "sumo",
            "paused",
            "pause",
            "deficit",
            "romanian",
            "bulgarian",
            "goblet",
            "hack",
            "pendlay",
            "arnold",
            "landmine",
            "zercher",
            "preacher",
            "spoto",
            "larsen",
            "snatch",
            "hang",
            // Strongman's implements name their lift: "the log", "axle", "yoke".
            "log",
            "axle",
            "yoke",
            "atlas",
            "sandbag",
        ];
        if !MODIFIERS.contains(&word) {
            return None;
        }
        let ids: Vec<&str> = self
            .by_first
            .get(word)?
            .iter()
            .map(|(_, id)| id.as_str())
            .collect();
        let first = *ids.first()?;
        ids.iter().all(|id| *id == first).then_some(first)
    }

    /// The lifter's pull: "deadlift" when their names hold it (or none are known), else
    /// their only lift whose id says "deadlift".
    fn pull(&self) -> Option<String> {
        let ids: Vec<&str> = self
            .by_first
            .values()
            .flatten()
            .map(|(_, id)| id.as_str())
            .filter(|id| id.contains("deadlift"))
            .collect();
        if ids.is_empty() || ids.contains(&"deadlift") {
            return Some("deadlift".to_string());
        }
        let first = ids[0];
        ids.iter().all(|id| *id == first).then(|| first.to_string())
    }

    /// "The press" alone: the overhead press, as 5/3/1 and most barbell programs call it, when
    /// the lifter's names hold it; else no lift (a bench press taught by this turn's one tool
    /// result is not "the press").
    fn press(&self) -> Option<&str> {
        self.by_first
            .values()
            .flatten()
            .any(|(_, id)| id == "overhead-press")
            .then_some("overhead-press")
    }

    /// The one lift of these names (the lifter's) whose name ends with `word`, a movement's
    /// noun: "rows" is the lifter's "Barbell Row" when it is their only row.
    fn only_lift_ending(&self, word: &str) -> Option<&str> {
        const NOUNS: &[&str] = &["row", "curl", "pulldown", "thrust", "extension", "raise"];
        let word = word.strip_suffix('s').unwrap_or(word);
        if !NOUNS.contains(&word) {
            return None;
        }
        let mut ids = self
            .by_first
            .values()
            .flatten()
            .filter(|(n, _)| n.len() >= 2 && n.last().is_some_and(|l| l == word))
            .map(|(_, id)| id.as_str());
        let first = ids.next()?;
        ids.all(|id| id == first).then_some(first)
    }

    /// The lifts named in `text`: (start, end, id), in order, the longest name where names
    /// overlap; these names and the catalog's.
    pub fn mentions(&self, text: &str) -> Vec<(usize, usize, String)> {
        let w = words(text);
        let mut out = Vec::new();
        let mut i = 0;
        while i < w.len() {
            let mut best: Option<(usize, &str)> = None;
            for names in [self, &*CATALOG_NAMES] {
                let word = w[i].0.as_str();
                let singular = word.strip_suffix('s').unwrap_or(word);
                let firsts = [word, singular];
                let candidates = firsts[..if singular == word { 1 } else { 2 }]
                    .iter()
                    .filter_map(|f| names.by_first.get(*f))
                    .flatten();
                for (name, id) in candidates {
                    let n = name.len();
                    // "front squats", "RDLs": a plural names the lift too.
                    let fits = i + n <= w.len()
                        && name
                            .iter()
                            .zip(&w[i..i + n])
                            .all(|(a, (b, _, _))| a == b || b.strip_suffix('s') == Some(a));
                    if fits && best.is_none_or(|(m, _)| n > m) {
                        best = Some((n, id));
                    }
                }
            }
            // "a nice step up from +40": an idiom, not the step-up.
            let idiom = best.is_some_and(|(n, id)| {
                id == "step-up"
                    && w.get(i + n).is_some_and(|(next, _, _)| {
                        ["from", "to", "in", "on", "the", "your", "a"].contains(&next.as_str())
                    })
            });
            if idiom {
                best = None;
            }
            // "Three sessions in a row", "raise your top set": words, not the row or the raise.
            let idiom_noun = (w[i].0 == "row" && i >= 2 && w[i - 1].0 == "a" && w[i - 2].0 == "in")
                || (w[i].0 == "raise"
                    && w.get(i + 1).is_some_and(|(n, _, _)| {
                        ["your", "the", "it", "that", "this", "my"].contains(&n.as_str())
                    }));
            let alone = || {
                if ["press", "presses"].contains(&w[i].0.as_str()) {
                    // "Press the floor away": a verb.
                    let verb = w.get(i + 1).is_some_and(|(n, _, _)| {
                        [
                            "the", "your", "it", "through", "into", "up", "out", "away", "hard",
                            "down",
                        ]
                        .contains(&n.as_str())
                    });
                    return (!verb).then(|| self.press()).flatten().map(|id| (1, id));
                }
                self.only_lift_starting(&w[i].0)
                    .or_else(|| {
                        (!idiom_noun)
                            .then(|| self.only_lift_ending(&w[i].0))
                            .flatten()
                    })
                    .map(|id| (1, id))
            };
            match best.or_else(alone) {
                Some((n, id)) => {
                    out.push((w[i].1, w[i + n - 1].2, id.to_string()));
                    i += n;
                }
                None => i += 1,
            }
        }
        out
    }

    /// The lift a figure at `at` (a byte offset) in `text` is about: the lift named right
    /// after it ("100 kg on bench", "140 for squats"), else the lift named nearest before it
    /// in its sentence or line, else the first named after it there.
    pub fn lift_at(&self, text: &str, at: std::ops::Range<usize>) -> Option<String> {
        let start = sentence_ends(text, 0..at.start)
            .next_back()
            .map_or(0, |i| i + 1);
        let end = sentence_ends(text, at.end..text.len())
            .next()
            .unwrap_or(text.len());
        let found = self.mentions(&text[start..end]);
        let is_weak = |(s, e, _): &&(usize, usize, String)| {
            WEAK_VERBS.contains(&text[start + s..start + e].to_ascii_lowercase().as_str())
        };
        let first_after = found.iter().find(|(s, _, _)| start + s >= at.end);
        // "a 140 kg deadlift": the lift the figure qualifies.
        let attributive = ATTRIBUTIVE_BEFORE.is_match(&text[start..at.start]);
        let next_to = first_after
            .filter(|(s, _, _)| {
                let between = &text[at.end..start + s];
                NAMED_RIGHT_AFTER.is_match(between) || (attributive && UNIT_ONLY.is_match(between))
            })
            .filter(|m| !is_weak(m));
        let before = found.iter().rfind(|(_, e, _)| start + e <= at.start);
        // A lift named after is the figure's only when no other figure comes first: in "525 at
        // RPE 8 and block pulls were 550", the block pull is 550's. A strong name first ("65 kg
        // overhead on the log" is the log's).
        let after: Vec<_> = found
            .iter()
            .filter(|(s, _, _)| {
                start + s >= at.end
                    && !text[at.end..start + s].contains(|c: char| c.is_ascii_digit())
            })
            .collect();
        let after = after
            .iter()
            .find(|m| !is_weak(m))
            .or(after.first())
            .copied();
        // A word that only says "a pull" or "overhead" gives way to the lift named after it
        // ("you pulled 112.5 kg for two triples sumo").
        // Within the clause: "you pulled 180 kg and squatted 150 kg" gives the squat no 180.
        let same_clause = |(s, _, _): &&(usize, usize, String)| {
            let between = text[at.end..start + s].to_ascii_lowercase();
            !between.contains([',', ';']) && !between.contains(" and ")
        };
        let before = before
            .filter(|m| !(is_weak(m) && after.is_some_and(|a| !is_weak(&a) && same_clause(&a))));
        let found = next_to.or(before).or(after)?;
        // "Pulled" is the lifter's pull: their deadlift, else their only deadlift of another
        // kind (sumo, trap bar), else no lift in particular.
        if text[start + found.0..start + found.1].eq_ignore_ascii_case("pulled") {
            return self.pull();
        }
        Some(found.2.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_name_is_the_lift() {
        let names = LiftNames::default();
        let text = "Your front squat e1RM is 98 kg and your squat is at 121 kg.";
        let ids: Vec<String> = names.mentions(text).into_iter().map(|m| m.2).collect();
        assert_eq!(ids, ["front-squat", "back-squat"]);
        let at = |fig: &str| {
            let s = text.find(fig).unwrap();
            names.lift_at(text, s..s + fig.len())
        };
        assert_eq!(at("98 kg").as_deref(), Some("front-squat"));
        assert_eq!(at("121 kg").as_deref(), Some("back-squat"));
    }

    #[test]
    fn the_first_word_of_the_lifters_only_lift_so_named_names_it() {
        let ids = |names: &LiftNames, text: &str| -> Vec<String> {
            names.mentions(text).into_iter().map(|m| m.2).collect()
        };
        let mut names = LiftNames::default();
        names.add("Incline Dumbbell Press", "incline-dumbbell-press");
        names.add("Seated Cable Row", "seated-cable-row");
        assert_eq!(
            ids(&names, "Your incline e1RM is up."),
            ["incline-dumbbell-press"]
        );
        // "seated" says no more than the stance.
        assert!(ids(&names, "Your seated work is steady.").is_empty());
        // Two incline lifts: "incline" names neither.
        names.add("Incline Bench Press", "incline-bench-press");
        assert!(ids(&names, "Your incline e1RM is up.").is_empty());
    }

    #[test]
    fn aliases_verbs_and_a_name_after_the_figure_name_the_lift() {
        let names = LiftNames::default();
        let lift = |text: &str, fig: &str| {
            let s = text.find(fig).unwrap();
            names.lift_at(text, s..s + fig.len())
        };
        assert_eq!(
            lift("Your RDL: 225 lb x 8.", "225").as_deref(),
            Some("romanian-deadlift")
        );
        assert_eq!(
            lift("You benched 72.5 for 8.", "72.5").as_deref(),
            Some("barbell-bench-press")
        );
        assert_eq!(
            lift("Put 105 kg on the squat.", "105 kg").as_deref(),
            Some("back-squat")
        );
        assert_eq!(
            lift("Hold your RDLs at 170 kg.", "170").as_deref(),
            Some("romanian-deadlift")
        );
        assert_eq!(
            lift("Front squats: 80 kg.", "80").as_deref(),
            Some("front-squat")
        );
        assert_eq!(lift("Squat went well. Then 80 kg for 8.", "80 kg"), None);
    }

    #[test]
    fn the_lifters_own_names_are_lifts_too() {
        let mut names = LiftNames::default();
        names.add("Zercher Good Morning", "own-zgm");
        assert_eq!(
            names.id_of("zercher good morning").as_deref(),
            Some("own-zgm")
        );
        assert_eq!(names.id_of("Front Squat").as_deref(), Some("front-squat"));
        assert_eq!(names.id_of("front-squat").as_deref(), Some("front-squat"));
        let text = "Your zercher good morning at 60 kg.";
        let at = text.find("60 kg").unwrap();
        assert_eq!(names.lift_at(text, at..at + 5).as_deref(), Some("own-zgm"));
    }
}
