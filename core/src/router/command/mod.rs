//! The FAST command grammar, hand-written so it needs no regex compile on a cold start and can
//! tell "not a command" from "a command with a mistake in it" ("8@", "-8@100", "３x8").
//!
//! A message is a near-miss (an error) only when every token belongs to the command vocabulary
//! but the sequence is wrong; a message with any other word is simply not a command, so the app
//! falls back to the coach. The one exception is an exercise name in front of a set ("bench
//! 100x5", "squat: 5 @ 140"): a few words that are not conversation ([`STOP_WORDS`]), resolved
//! against the workout and the catalog when the command is applied. The README's grammar table
//! lists every form.

mod lexer;
pub use lexer::number_word;
mod sets;

use std::fmt;

use lexer::Tok;

use crate::domain::units::Unit;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Effort {
    Rir(u32),
    Rpe(f64),
}

/// The load of a typed set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Load {
    /// None typed: the planned weight ("8", "3 sets of 8").
    Planned,
    /// A weight, in `unit` (the lifter's when `None`).
    Weight { value: f64, unit: Option<Unit> },
    /// Bodyweight alone ("bw x 15").
    Bodyweight,
    /// Weight added to bodyweight ("+20 x 8", "bw + 10 kg").
    Added { value: f64, unit: Option<Unit> },
}

/// One way to read a typed set: how many sets, reps (none for a timed set), load, time, effort.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub sets: u32,
    pub reps: Option<u32>,
    pub load: Load,
    pub seconds: Option<u32>,
    pub effort: Option<Effort>,
}

/// A typed set: the exercise named in front, if any, and its readings: one, or several for a
/// message the plan must settle ("20x10": 20 kg × 10, or 10 kg × 20), the usual reading first.
#[derive(Debug, Clone, PartialEq)]
pub struct SetEntry {
    pub exercise: Option<String>,
    pub readings: Vec<Reading>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// "done": the current set, as planned.
    LogSet,
    /// A typed set: "8 @ 100", "bench 100x5", "3x8 @ 100", "plank 60s".
    Log(SetEntry),
    /// "now squats", "switch to rows": make an exercise the current one without logging.
    Switch {
        exercise: String,
    },
    NextSet,
    RestAck,
    Undo,
    SkipSet,
}

/// Most sets one command logs ("3x8 @ 100").
pub const MAX_SETS_AT_ONCE: u32 = 10;

/// Words that make a phrase conversation rather than an exercise name ("yesterday 100x5",
/// "can you log 8 @ 100").
pub(crate) const STOP_WORDS: [&str; 41] = [
    "i",
    "i'm",
    "im",
    "i've",
    "me",
    "my",
    "you",
    "your",
    "we",
    "can",
    "could",
    "would",
    "should",
    "please",
    "just",
    "did",
    "do",
    "does",
    "was",
    "is",
    "are",
    "today",
    "yesterday",
    "tomorrow",
    "what",
    "how",
    "why",
    "when",
    "and",
    "then",
    "also",
    "for",
    "a",
    "an",
    "to",
    "it",
    "that",
    "this",
    "log",
    "done",
    "now",
];

/// Longest exercise name, in words, in front of a set.
const MAX_NAME_WORDS: usize = 5;

/// A message that reads like a command but cannot be one; the message says how to fix it, and
/// `field` names the value at fault when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandError {
    pub message: String,
    pub field: Option<&'static str>,
}

impl CommandError {
    pub fn new(message: impl Into<String>) -> Self {
        CommandError {
            message: message.into(),
            field: None,
        }
    }

    pub fn field(mut self, field: &'static str) -> Self {
        self.field = Some(field);
        self
    }
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CommandError {}

/// Parses a message (prefix already removed). `Ok(None)`: not a command. The `&'static str` is
/// the grammar rule that matched, reported as the route's `matched_rule`.
pub fn parse(text: &str) -> Result<Option<(Command, &'static str)>, CommandError> {
    let text = text.trim();
    if text.is_empty() || text.len() > 64 {
        return Ok(None);
    }
    if !text.is_ascii() {
        return parse_non_ascii(text);
    }
    // Most commands arrive in lower case already: no copy for them.
    let lower: std::borrow::Cow<'_, str> = if text.bytes().any(|b| b.is_ascii_uppercase()) {
        text.to_ascii_lowercase().into()
    } else {
        text.into()
    };
    let Some(toks) = lexer::tokenize(&lower) else {
        return Ok(None);
    };
    match lexer::spell_out_numbers(&toks) {
        None => match_tokens(&toks),
        Some(spelled) => match lexer::tokenize(&spelled) {
            Some(toks) => match_tokens(&toks),
            None => Ok(None),
        },
    }
}

/// Curly apostrophes and "×" are fine ("what’s next", "100 × 8"); full-width digits are a
/// near-miss with a hint.
fn parse_non_ascii(text: &str) -> Result<Option<(Command, &'static str)>, CommandError> {
    let ascii: String = text
        .chars()
        .map(|c| match c {
            '’' | '‘' => '\'',
            '×' => 'x',
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            '\u{3000}' => ' ',
            other => other,
        })
        .collect();
    if !ascii.is_ascii() {
        return Ok(None);
    }
    let parsed = parse(&ascii)?;
    let full_width = text.chars().any(|c| ('\u{FF01}'..='\u{FF5E}').contains(&c));
    match parsed {
        Some(_) if full_width => Err(CommandError::new(format!(
            "full-width characters are not supported in set commands: type '{}' with ASCII digits and symbols",
            ascii.trim()
        ))),
        other => Ok(other),
    }
}

fn word(t: Option<&Tok<'_>>, options: &[&str]) -> bool {
    matches!(t, Some(Tok::Word(w)) if options.contains(w))
}

fn match_tokens(toks: &[Tok<'_>]) -> Result<Option<(Command, &'static str)>, CommandError> {
    // Trailing "!" or "." after a word command is enthusiasm, not syntax.
    let end = toks
        .iter()
        .rposition(|t| *t != Tok::Bang)
        .map_or(0, |p| p + 1);
    let words = &toks[..end];
    let is = |i: usize, opts: &[&str]| word(words.get(i), opts);
    let len = words.len();
    let set_suffix = |from: usize| len == from || (len == from + 1 && is(from, &["set"]));

    if is(0, &["log", "done", "finished", "completed", "complete"]) && set_suffix(1) {
        return Ok(Some((Command::LogSet, "pattern:log_set")));
    }
    if is(0, &["next"]) && set_suffix(1) {
        return Ok(Some((Command::NextSet, "pattern:next_set")));
    }
    if is(0, &["what's", "whats"])
        && is(1, &["next"])
        && (len == 2 || (len == 3 && words[2] == Tok::Question))
    {
        return Ok(Some((Command::NextSet, "pattern:whats_next")));
    }
    if len == 1 && is(0, &["rest", "resting", "ok", "okay", "ready"]) {
        return Ok(Some((Command::RestAck, "pattern:rest_ack")));
    }
    if is(0, &["undo"])
        && (len == 1
            || (len == 2 && is(1, &["last", "set"]))
            || (len == 3 && is(1, &["last"]) && is(2, &["set"])))
    {
        return Ok(Some((Command::Undo, "pattern:undo")));
    }
    if is(0, &["skip"]) && set_suffix(1) {
        return Ok(Some((Command::SkipSet, "pattern:skip_set")));
    }
    if toks.contains(&Tok::Bang) || toks.contains(&Tok::Question) {
        return Ok(None);
    }
    if let Some(name) = switch_target(toks) {
        return Ok(Some((Command::Switch { exercise: name }, "pattern:switch")));
    }
    // "[log] [name [:]] set".
    let from = usize::from(is(0, &["log"]));
    let name_len = toks[from..]
        .iter()
        .take_while(|t| {
            matches!(t, Tok::Word(_)) && !sets::starts_like_set(std::slice::from_ref(t))
        })
        .count();
    if name_len == 0 {
        return Ok(sets::parse(toks)?.map(|(readings, rule)| {
            let entry = SetEntry {
                exercise: None,
                readings,
            };
            (Command::Log(entry), rule)
        }));
    }
    let name = &toks[from..from + name_len];
    let mut rest = &toks[from + name_len..];
    if rest.first() == Some(&Tok::Colon) {
        rest = &rest[1..];
    }
    let Some(name) = exercise_name(name) else {
        return Ok(None);
    };
    Ok(sets::parse(rest)?.map(|(readings, rule)| {
        let entry = SetEntry {
            exercise: Some(name),
            readings,
        };
        (Command::Log(entry), rule)
    }))
}

/// "now squats", "switch to rows", "go to bench", "on to curls": the exercise named.
fn switch_target(toks: &[Tok<'_>]) -> Option<String> {
    let lead: &[&[&str]] = &[
        &["now"],
        &["switch", "to"],
        &["switching", "to"],
        &["go", "to"],
        &["going", "to"],
        &["move", "to"],
        &["moving", "to"],
        &["on", "to"],
        &["onto"],
    ];
    lead.iter().find_map(|words| {
        let matches = words
            .iter()
            .enumerate()
            .all(|(i, w)| toks.get(i) == Some(&Tok::Word(w)));
        if !matches || toks.len() == words.len() {
            return None;
        }
        let rest = &toks[words.len()..];
        rest.iter()
            .all(|t| matches!(t, Tok::Word(_)))
            .then(|| exercise_name(rest))
            .flatten()
    })
}

/// The words as an exercise name, or `None` when they read as conversation or set vocabulary.
fn exercise_name(toks: &[Tok<'_>]) -> Option<String> {
    if toks.is_empty() || toks.len() > MAX_NAME_WORDS {
        return None;
    }
    // Longer than any name the catalog matches: not a command (the matching's cost grows with it).
    let chars: usize = toks
        .iter()
        .map(|t| match t {
            Tok::Word(w) => w.chars().count() + 1,
            _ => 0,
        })
        .sum();
    if chars > crate::domain::catalog::MAX_MATCHED_CHARS + 1 {
        return None;
    }
    let mut name = String::with_capacity(24);
    for t in toks {
        let Tok::Word(w) = t else { return None };
        if STOP_WORDS.contains(w) || sets::in_vocabulary(t) {
            return None;
        }
        if !name.is_empty() {
            name.push(' ');
        }
        name.push_str(w);
    }
    Some(name)
}

#[cfg(test)]
mod tests;
