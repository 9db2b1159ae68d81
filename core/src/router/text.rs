//! Reading free text for the SLOW intents and the routing signals in one pass, without regexes:
//! the text's word starts are found once, and each rule is a set of literals that must stand as
//! whole words (`\b…\b`), optionally followed within a few characters (on one line) by another
//! set. The same rules were regexes (regex-lite, 17 of them, each scanning the text: 38–50 µs a
//! message); the tests keep those regexes as the oracle and check both read a corpus alike.

use super::Intent;

/// A word character, as the regexes' `\b` saw one (regex-lite's classes are ASCII).
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// The lower-cased text and the byte offsets where its words start.
pub(super) struct Words<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Words<'a> {
    pub(super) fn new(text: &'a str) -> Words<'a> {
        let mut starts = Vec::new();
        let mut prev_word = false;
        for (i, c) in text.char_indices() {
            let w = is_word(c);
            if w && !prev_word {
                starts.push(i);
            }
            prev_word = w;
        }
        Words { text, starts }
    }

    /// Whether a word ends at byte `end` (the next character is not a word character).
    fn ends_word(&self, end: usize) -> bool {
        self.text[end..].chars().next().is_none_or(|c| !is_word(c))
    }

    /// Whether `lit` stands as a whole word at the word start `p`. The first byte is compared
    /// before the rest: most literals fail there, for the price of one comparison.
    fn is_at(&self, p: usize, lit: &str) -> bool {
        let (rest, lit_b) = (&self.text.as_bytes()[p..], lit.as_bytes());
        rest.len() >= lit_b.len()
            && rest[0] == lit_b[0]
            && rest[..lit_b.len()] == *lit_b
            && self.ends_word(p + lit_b.len())
    }

    /// Every match of any of `lits` as whole words: (start, end) byte offsets, in text order.
    fn all(&self, lits: &[&str]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for &p in &self.starts {
            for lit in lits {
                if self.is_at(p, lit) {
                    out.push((p, p + lit.len()));
                }
            }
        }
        out
    }

    /// Whether any of `lits` stands as a whole word.
    fn any(&self, lits: &[&str]) -> bool {
        self.starts
            .iter()
            .any(|&p| lits.iter().any(|lit| self.is_at(p, lit)))
    }

    /// `a` then, at most `gap` characters later on the same line, `b` (the regex
    /// `\b(a)\b.{0,gap}\b(b)\b`).
    fn near(&self, a: &[&str], gap: usize, b: &[&str]) -> bool {
        let (firsts, seconds) = (self.all(a), self.all(b));
        firsts.iter().any(|&(_, end)| {
            seconds.iter().any(|&(start, _)| {
                start >= end && {
                    let between = &self.text[end..start];
                    !between.contains('\n') && between.chars().count() <= gap
                }
            })
        })
    }

    /// `a`, then whitespace (at least one), then `b` as a whole word (`\b(a)\s+(b)\b`).
    fn spaced(&self, a: &[&str], b: &[&str]) -> bool {
        self.all(a).iter().any(|&(_, end)| {
            let rest = &self.text[end..];
            let trimmed = rest.trim_start_matches(is_space);
            let skipped = rest.len() - trimmed.len();
            skipped > 0
                && b.iter().any(|lit| {
                    trimmed.starts_with(lit) && self.ends_word(end + skipped + lit.len())
                })
        })
    }

    /// The first word starts the text and is one of `lits` (`^(…)\b`).
    fn opens_with(&self, lits: &[&str]) -> bool {
        self.starts.first() == Some(&0) && lits.iter().any(|lit| self.is_at(0, lit))
    }
}

const EDIT_VERBS: &[&str] = &[
    "edit", "modify", "update", "change", "adjust", "tweak", "swap", "replace", "remove", "add",
];
const DETERMINERS: &[&str] = &["my", "the", "this", "current"];
const PLAN_NOUNS: &[&str] = &[
    "routine",
    "program",
    "programme",
    "plan",
    "template",
    "split",
];
const CREATE_WANT: &[&str] = &[
    "create", "build", "make", "design", "plan", "write", "give", "want", "need",
];
const CREATE_WANT_NEW: &[&str] = &[
    "create", "build", "make", "design", "plan", "write", "give", "want", "need", "new",
];
/// `push[ /-]?pull[ /-]?legs?`, `upper[ /-]?lower`, `full[ -]body (plan|routine|program)`.
const SPLITS: &[&str] = &[
    "routine",
    "program",
    "programme",
    "split",
    "ppl",
    "pushpullleg",
    "pushpull leg",
    "pushpull/leg",
    "pushpull-leg",
    "push pullleg",
    "push pull leg",
    "push pull/leg",
    "push pull-leg",
    "push/pullleg",
    "push/pull leg",
    "push/pull/leg",
    "push/pull-leg",
    "push-pullleg",
    "push-pull leg",
    "push-pull/leg",
    "push-pull-leg",
    "pushpulllegs",
    "pushpull legs",
    "pushpull/legs",
    "pushpull-legs",
    "push pulllegs",
    "push pull legs",
    "push pull/legs",
    "push pull-legs",
    "push/pulllegs",
    "push/pull legs",
    "push/pull/legs",
    "push/pull-legs",
    "push-pulllegs",
    "push-pull legs",
    "push-pull/legs",
    "push-pull-legs",
    "upperlower",
    "upper lower",
    "upper/lower",
    "upper-lower",
    "full body plan",
    "full body routine",
    "full body program",
    "full-body plan",
    "full-body routine",
    "full-body program",
];
const STARTS: &[&str] = &["start", "begin", "let's do", "lets do"];
const SESSIONS_TODAY: &[&str] = &[
    "workout", "session", "training", "today's", "todays", "leg day", "push day", "pull day",
];
const NEXT_SESSION: &[&str] = &["next workout", "next session", "next training", "next day"];
const WHATS: &[&str] = &["what's", "what is", "what do i do", "what should i do"];
const WORKOUT_NOUNS: &[&str] = &["workout", "session"];
const HOW_IS: &[&str] = &["how's", "how is", "how are"];
const AM_I: &[&str] = &["am i", "have i", "is my", "are my"];
const PROGRESS_STATES: &[&str] = &[
    "progressing",
    "improving",
    "stall",
    "stalled",
    "stalling",
    "plateau",
    "plateaued",
    "plateauing",
    "getting stronger",
    "volume",
    "sets",
    "frequency",
];
const PROGRESS_WORDS: &[&str] = &[
    "progress",
    "plateau",
    "stall",
    "stalled",
    "stalling",
    "e1rm",
    "1rm",
    "personal record",
    "personal records",
    "pr",
    "prs",
    "trend",
];

/// The SLOW intent the text asks for, and its rule's name: first match wins. Words may stand
/// between the verb and the noun ("create me a push pull legs routine").
pub(super) fn slow_rule(w: &Words<'_>) -> Option<(Intent, &'static str)> {
    if edit_plan(w) {
        return Some((Intent::EditPlan, "pattern:edit_plan"));
    }
    if w.near(CREATE_WANT_NEW, 40, SPLITS) {
        return Some((Intent::PlanRoutine, "pattern:plan_routine"));
    }
    if w.near(STARTS, 20, SESSIONS_TODAY) {
        return Some((Intent::StartWorkout, "pattern:start_workout"));
    }
    if w.any(NEXT_SESSION) || w.near(WHATS, 20, &["today", "tomorrow"]) {
        return Some((Intent::NextWorkout, "pattern:next_workout"));
    }
    if w.near(CREATE_WANT, 40, WORKOUT_NOUNS) {
        return Some((Intent::PlanWorkout, "pattern:plan_workout"));
    }
    if w.spaced(HOW_IS, &["my"]) || w.spaced(AM_I, PROGRESS_STATES) || w.any(PROGRESS_WORDS) {
        return Some((Intent::AnalyzeProgress, "pattern:analyze_progress"));
    }
    None
}

/// `verb .{0,40} determiner .{0,20} plan-noun`, the three in that order.
fn edit_plan(w: &Words<'_>) -> bool {
    let verbs = w.all(EDIT_VERBS);
    let dets = w.all(DETERMINERS);
    let nouns = w.all(PLAN_NOUNS);
    let within = |from: usize, to: usize, gap: usize| {
        to >= from && {
            let between = &w.text[from..to];
            !between.contains('\n') && between.chars().count() <= gap
        }
    };
    verbs.iter().any(|&(_, v_end)| {
        dets.iter().any(|&(d_start, d_end)| {
            within(v_end, d_start, 40)
                && nouns.iter().any(|&(n_start, _)| within(d_end, n_start, 20))
        })
    })
}

/// What the text shows, for the route's `signals`.
pub(super) fn signals(w: &Words<'_>) -> Vec<&'static str> {
    let checks: [(&'static str, bool); 11] = [
        (
            "has_first_person",
            w.any(&["my", "mine", "i", "i'm", "i've", "i'll", "i'd", "me"]),
        ),
        (
            "has_create_verb",
            w.any(&["create", "build", "make", "design", "plan", "write"]),
        ),
        (
            "has_edit_verb",
            w.any(&[
                "edit", "modify", "change", "update", "adjust", "swap", "replace",
            ]),
        ),
        (
            "has_analysis_verb",
            w.any(&[
                "analyse", "analyze", "review", "assess", "compare", "evaluate",
            ]),
        ),
        (
            "mentions_workout",
            w.any(&["workout", "session", "training"]),
        ),
        (
            "mentions_routine",
            w.any(&["routine", "program", "programme", "split", "ppl"]),
        ),
        (
            "mentions_data",
            w.any(&["progress", "history", "data", "performance", "stats"]),
        ),
        (
            "has_metric_word",
            w.any(&[
                "set",
                "sets",
                "volume",
                "frequency",
                "1rm",
                "e1rm",
                "pr",
                "personal record",
                "personal records",
            ]),
        ),
        (
            "mentions_training",
            w.any(&[
                "lift", "lifting", "squat", "bench", "deadlift", "press", "curl", "row", "rep",
                "reps", "weight", "kg", "lb", "lbs", "muscle", "gym", "exercise", "deload",
                "rest day",
            ]),
        ),
        (
            "mentions_pain",
            w.any(&[
                "pain", "hurt", "hurts", "injury", "injured", "sore", "strain", "strained",
                "tweak", "tweaked",
            ]),
        ),
        (
            "is_question",
            w.text.trim_end_matches(is_space).ends_with('?')
                || w.opens_with(&[
                    "how", "what", "why", "when", "should", "can", "could", "is", "are", "do",
                    "does", "will", "which",
                ]),
        ),
    ];
    checks
        .into_iter()
        .filter(|(_, hit)| *hit)
        .map(|(name, _)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_lite::Regex;

    /// The regexes these rules were, as the oracle.
    fn oracle_rules() -> Vec<(Intent, &'static str, Regex)> {
        let rx = |p: &str| Regex::new(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        vec![
            (
                Intent::EditPlan,
                "pattern:edit_plan",
                rx(
                    r"\b(edit|modify|update|change|adjust|tweak|swap|replace|remove|add)\b.{0,40}\b(my|the|this|current)\b.{0,20}\b(routine|program|programme|plan|template|split)\b",
                ),
            ),
            (
                Intent::PlanRoutine,
                "pattern:plan_routine",
                rx(
                    r"\b(create|build|make|design|plan|write|give|want|need|new)\b.{0,40}\b(routine|program|programme|split|ppl|push[ /-]?pull[ /-]?legs?|upper[ /-]?lower|full[ -]body (plan|routine|program))\b",
                ),
            ),
            (
                Intent::StartWorkout,
                "pattern:start_workout",
                rx(
                    r"\b(start|begin|let's do|lets do)\b.{0,20}\b(workout|session|training|today's|todays|leg day|push day|pull day)\b",
                ),
            ),
            (
                Intent::NextWorkout,
                "pattern:next_workout",
                rx(
                    r"\bnext (workout|session|training|day)\b|\bwhat('s| is| do i do| should i do)\b.{0,20}\b(today|tomorrow)\b",
                ),
            ),
            (
                Intent::PlanWorkout,
                "pattern:plan_workout",
                rx(
                    r"\b(create|build|make|design|plan|write|give|want|need)\b.{0,40}\b(workout|session)\b",
                ),
            ),
            (
                Intent::AnalyzeProgress,
                "pattern:analyze_progress",
                rx(
                    r"\bhow('s| is| are)\s+my\b|\b(am i|have i|is my|are my)\s+(progressing|improving|stall|stalled|stalling|plateau|plateaued|plateauing|getting stronger|volume|sets|frequency)\b|\b(progress|plateau|stall(ed|ing)?|e1rm|1rm|personal records?|prs?|trend)\b",
                ),
            ),
        ]
    }

    fn oracle_signals(table: &[(&'static str, Regex)], lower: &str) -> Vec<&'static str> {
        table
            .iter()
            .filter(|(_, re)| re.is_match(lower))
            .map(|(n, _)| *n)
            .collect()
    }

    fn oracle_signal_table() -> Vec<(&'static str, Regex)> {
        let rx = |p: &str| Regex::new(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        vec![
            (
                "has_first_person",
                rx(r"\b(my|mine|i|i'm|i've|i'll|i'd|me)\b"),
            ),
            (
                "has_create_verb",
                rx(r"\b(create|build|make|design|plan|write)\b"),
            ),
            (
                "has_edit_verb",
                rx(r"\b(edit|modify|change|update|adjust|swap|replace)\b"),
            ),
            (
                "has_analysis_verb",
                rx(r"\b(analy[sz]e|review|assess|compare|evaluate)\b"),
            ),
            ("mentions_workout", rx(r"\b(workout|session|training)\b")),
            (
                "mentions_routine",
                rx(r"\b(routine|program|programme|split|ppl)\b"),
            ),
            (
                "mentions_data",
                rx(r"\b(progress|history|data|performance|stats)\b"),
            ),
            (
                "has_metric_word",
                rx(r"\b(sets?|volume|frequency|1rm|e1rm|pr|personal records?)\b"),
            ),
            (
                "mentions_training",
                rx(
                    r"\b(lift|lifting|squat|bench|deadlift|press|curl|row|reps?|weight|kg|lbs?|muscle|gym|exercise|deload|rest day)\b",
                ),
            ),
            (
                "mentions_pain",
                rx(r"\b(pain|hurts?|injur(y|ed)|sore|strain(ed)?|tweak(ed)?)\b"),
            ),
            (
                "is_question",
                rx(r"\?\s*$|^(how|what|why|when|should|can|could|is|are|do|does|will|which)\b"),
            ),
        ]
    }

    /// What lifters write to a coach: the router's own cases, the evaluation's scenarios, and
    /// the edges of each rule (gaps of 20 and 40 characters, line breaks, apostrophes, words
    /// inside words).
    const CORPUS: &[&str] = &[
        "how is my bench progressing?",
        "build me a push pull legs routine for 4 days",
        "create me a push/pull/legs split",
        "make an upper-lower program",
        "give me a full-body routine please",
        "i want a new ppl",
        "change my routine to 4 days",
        "can you swap the squat in the current template for a leg press",
        "add curls to my plan",
        "remove the third day from this split",
        "start my workout",
        "let's do leg day",
        "lets do todays session",
        "begin the training now",
        "what's next today?",
        "what do i do tomorrow",
        "what should i do on my day off today",
        "next workout please",
        "what's my next session",
        "plan a workout for tomorrow",
        "write me a session",
        "i need a workout for a hotel gym",
        "how's my deadlift",
        "how are my lifts doing",
        "am i progressing on bench?",
        "have i stalled",
        "is my volume too high",
        "are my sets enough",
        "am i getting stronger",
        "did i hit a pr today?",
        "show my personal records",
        "what's my e1rm trend",
        "my 1rm is stuck, plateau?",
        "my shoulder hurts when i press",
        "i tweaked my back deadlifting",
        "sore knees after squats, should i rest?",
        "is a rest day ok",
        "what weight should i use for 5 reps at 100kg",
        "compare my bench to last month",
        "analyse my training history",
        "review my stats",
        "hello",
        "thanks coach!",
        "i'm tired today",
        "i've been lifting 3 years",
        "i'd like to deload",
        "chest day was great",
        "Progressing nicely. I'll keep going",
        "what is the best split\nfor me",
        "change\nmy routine",
        "edit                                            my routine",
        "edit                                       my                    routine",
        "start                     workout",
        "start                    workout",
        "make                                          a workout",
        "make                                        a workout",
        "progression is key",
        "prs",
        "what's today's plan",
        "lbs or kg?",
        "pushpulllegs routine",
        "push-pull-leg please build",
        "build upperlower",
        "build full body plan",
        "build full-body program",
        "how is\tmy squat",
        "how is  my squat",
        "howis my squat",
        "'progress'",
        "my_routine edit",
        "édit my routine",
        "do i need more sets",
        "which exercise for lats",
        "will it hurt",
        "stalling on ohp",
        "session_1 notes",
    ];

    #[test]
    fn the_one_pass_reads_the_corpus_as_the_regexes_did() {
        let rules = oracle_rules();
        let table = oracle_signal_table();
        for text in CORPUS {
            let lower = text.to_lowercase().replace('’', "'");
            let w = Words::new(&lower);
            let want = rules
                .iter()
                .find(|(_, _, re)| re.is_match(&lower))
                .map(|(i, n, _)| (*i, *n));
            assert_eq!(slow_rule(&w), want, "rule of {text:?}");
            assert_eq!(
                signals(&w),
                oracle_signals(&table, &lower),
                "signals of {text:?}"
            );
        }
    }

    #[test]
    fn random_sentences_of_the_rules_words_read_alike() {
        // Sentences drawn from the rules' own words and a few others, with spaces, line
        // breaks and punctuation between: a deterministic generator, many cases.
        let vocab: Vec<&str> = [
            EDIT_VERBS,
            DETERMINERS,
            PLAN_NOUNS,
            CREATE_WANT,
            STARTS,
            SESSIONS_TODAY,
            WHATS,
            HOW_IS,
            AM_I,
            PROGRESS_STATES,
            PROGRESS_WORDS,
            &[
                "a", "for", "me", "please", "today", "tomorrow", "i", "push", "pull", "legs",
                "upper", "lower", "full", "body", "new", "?", "x", "squat", "pain", "day",
            ],
        ]
        .concat();
        let seps = [" ", "  ", "-", "/", "\n", ", ", "'", ""];
        let rules = oracle_rules();
        let table = oracle_signal_table();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..20_000 {
            let len = 1 + next(8);
            let mut text = String::new();
            for k in 0..len {
                if k > 0 {
                    text.push_str(seps[next(seps.len())]);
                }
                text.push_str(vocab[next(vocab.len())]);
            }
            let w = Words::new(&text);
            let want = rules
                .iter()
                .find(|(_, _, re)| re.is_match(&text))
                .map(|(i, n, _)| (*i, *n));
            assert_eq!(slow_rule(&w), want, "rule of {text:?}");
            assert_eq!(
                signals(&w),
                oracle_signals(&table, &text),
                "signals of {text:?}"
            );
        }
    }
}
