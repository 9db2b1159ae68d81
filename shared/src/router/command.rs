//! The FAST command grammar, hand-written so it needs no regex compile on a cold start and can
//! tell "not a command" from "a command with a mistake in it" ("8@", "-8@100", "８@１００").
//!
//! A message is a near-miss (an error) only when every token belongs to the command vocabulary
//! but the sequence is wrong; a message with any other word is simply not a command, so the app
//! falls back to the coach.

use std::fmt;

use crate::domain::units::Unit;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Effort {
    Rir(u32),
    Rpe(f64),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// "done": the current set, as planned.
    LogSet,
    /// "8 @ 100 kg rir 2": the current set with typed reps and weight.
    LogShorthand {
        reps: u32,
        weight: f64,
        unit: Option<Unit>,
        effort: Option<Effort>,
    },
    /// "8", "12 reps": typed reps at the planned weight.
    LogReps {
        reps: u32,
        effort: Option<Effort>,
    },
    NextSet,
    RestAck,
    Undo,
    SkipSet,
}

/// A message that reads like a command but cannot be one; the text says how to fix it.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandError(pub String);

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CommandError {}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'a> {
    Num(&'a str),
    Word(&'a str),
    At,
    Minus,
    Question,
    Bang,
}

/// Longest number a lifter can sensibly type; longer is "too large", never an overflow.
const MAX_DIGITS: usize = 7;

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
    let lower = text.to_ascii_lowercase();
    let Some(toks) = tokenize(&lower) else {
        return Ok(None);
    };
    match_tokens(&toks)
}

/// Curly apostrophes are fine ("what’s next"); full-width digits are a near-miss with a hint.
fn parse_non_ascii(text: &str) -> Result<Option<(Command, &'static str)>, CommandError> {
    let ascii: String = text
        .chars()
        .map(|c| match c {
            '’' | '‘' => '\'',
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
        Some(_) if full_width => Err(CommandError(format!(
            "full-width characters are not supported in set commands: type '{}' with ASCII digits and symbols",
            ascii.trim()
        ))),
        other => Ok(other),
    }
}

fn tokenize(s: &str) -> Option<Vec<Tok<'_>>> {
    let b = s.as_bytes();
    let mut toks = Vec::with_capacity(8);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            toks.push(Tok::Num(&s[start..i]));
            continue;
        }
        if c.is_ascii_alphabetic() {
            while i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'\'') {
                i += 1;
            }
            toks.push(Tok::Word(&s[start..i]));
            continue;
        }
        toks.push(match c {
            b'@' => Tok::At,
            b'-' => Tok::Minus,
            b'?' => Tok::Question,
            b'!' | b'.' => Tok::Bang,
            _ => return None,
        });
        i += 1;
    }
    Some(toks)
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
    match_set_values(toks)
}

/// Words a set command may contain; a message with any other word is not a command.
const SET_VOCABULARY: [&str; 13] = [
    "log", "rep", "reps", "at", "rir", "rpe", "kg", "kgs", "kilo", "kilos", "lb", "lbs", "pound",
];

fn in_set_vocabulary(t: &Tok<'_>) -> bool {
    match t {
        Tok::Word(w) => SET_VOCABULARY.contains(w) || *w == "pounds" || Unit::parse(w).is_some(),
        _ => true,
    }
}

/// "[log] N [reps] (@|at) W [unit] [effort]" and "[log] N [reps] [effort]".
fn match_set_values(toks: &[Tok<'_>]) -> Result<Option<(Command, &'static str)>, CommandError> {
    let starts_like_set = match toks.first() {
        Some(Tok::Num(_) | Tok::Minus | Tok::At) => true,
        Some(Tok::Word("log")) => matches!(toks.get(1), Some(Tok::Num(_) | Tok::Minus)),
        _ => false,
    };
    if !starts_like_set || !toks.iter().all(in_set_vocabulary) {
        return Ok(None);
    }
    let near_miss = |msg: &str| {
        Err(CommandError(format!(
            "{msg}; log a set like '8 @ 100 kg', '8 @ 100 rir 2' or '8 reps'"
        )))
    };
    if toks.contains(&Tok::Minus) {
        return near_miss("negative numbers are not allowed");
    }
    let mut i = usize::from(toks[0] == Tok::Word("log"));
    let Some(Tok::Num(reps_text)) = toks.get(i) else {
        return near_miss("the reps are missing before '@'");
    };
    let reps = whole_number(reps_text, "reps")?;
    i += 1;
    if word(toks.get(i), &["rep", "reps"]) {
        i += 1;
    }
    let has_weight = matches!(toks.get(i), Some(Tok::At) | Some(Tok::Word("at")));
    if !has_weight {
        let effort = parse_effort(&toks[i..])?;
        return Ok(Some((
            Command::LogReps { reps, effort },
            "pattern:log_reps",
        )));
    }
    i += 1;
    let Some(Tok::Num(weight_text)) = toks.get(i) else {
        return near_miss("the weight is missing after '@'");
    };
    let weight = decimal(weight_text, "weight")?;
    i += 1;
    let unit = match toks.get(i) {
        Some(Tok::Word(w)) => match Unit::parse(w) {
            Some(u) => {
                i += 1;
                Some(u)
            }
            None => None,
        },
        _ => None,
    };
    let effort = parse_effort(&toks[i..])?;
    Ok(Some((
        Command::LogShorthand {
            reps,
            weight,
            unit,
            effort,
        },
        "pattern:log_shorthand",
    )))
}

fn parse_effort(rest: &[Tok<'_>]) -> Result<Option<Effort>, CommandError> {
    let hint = "; add effort as 'rir 2' or '@8' (RPE)";
    match rest {
        [] => Ok(None),
        [Tok::Word("rir"), Tok::Num(n)] => Ok(Some(Effort::Rir(whole_number(n, "RIR")?))),
        [Tok::At, Tok::Num(n)]
        | [Tok::Word("rpe"), Tok::Num(n)]
        | [Tok::At, Tok::Word("rpe"), Tok::Num(n)] => Ok(Some(Effort::Rpe(decimal(n, "RPE")?))),
        [Tok::Word("rir")] | [Tok::Word("rpe")] | [Tok::At] => {
            Err(CommandError(format!("the effort value is missing{hint}")))
        }
        _ => Err(CommandError(format!(
            "could not read the end of this set command{hint}"
        ))),
    }
}

fn whole_number(text: &str, what: &str) -> Result<u32, CommandError> {
    if text.contains('.') {
        return Err(CommandError(format!(
            "{what} must be a whole number, got {text}"
        )));
    }
    if text.len() > MAX_DIGITS {
        return Err(CommandError(format!("{what} {text} is too large")));
    }
    text.parse()
        .map_err(|_| CommandError(format!("{what} '{text}' is not a number")))
}

fn decimal(text: &str, what: &str) -> Result<f64, CommandError> {
    let int_part = text.split('.').next().unwrap_or("");
    if int_part.len() > MAX_DIGITS || text.len() > MAX_DIGITS + 4 {
        return Err(CommandError(format!("{what} {text} is too large")));
    }
    if text.matches('.').count() > 1 || text.ends_with('.') {
        return Err(CommandError(format!("{what} '{text}' is not a number")));
    }
    text.parse()
        .map_err(|_| CommandError(format!("{what} '{text}' is not a number")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(text: &str) -> Option<Command> {
        parse(text).unwrap().map(|(c, _)| c)
    }

    fn near_miss(text: &str) -> String {
        parse(text).unwrap_err().0
    }

    #[test]
    fn log_set_words() {
        for t in [
            "done",
            "DONE",
            " log ",
            "log set",
            "finished",
            "completed set",
            "done!",
            "Done.",
        ] {
            assert_eq!(cmd(t), Some(Command::LogSet), "{t}");
        }
    }

    #[test]
    fn shorthand_forms() {
        let sh = |reps, weight, unit, effort| {
            Some(Command::LogShorthand {
                reps,
                weight,
                unit,
                effort,
            })
        };
        assert_eq!(cmd("8@100"), sh(8, 100.0, None, None));
        assert_eq!(cmd("8 @ 100kg"), sh(8, 100.0, Some(Unit::Kg), None));
        assert_eq!(cmd("5@225lbs"), sh(5, 225.0, Some(Unit::Lb), None));
        assert_eq!(
            cmd("log 8 reps at 100kg"),
            sh(8, 100.0, Some(Unit::Kg), None)
        );
        assert_eq!(cmd("8 at 100"), sh(8, 100.0, None, None));
        assert_eq!(cmd("8 reps @ 100"), sh(8, 100.0, None, None));
        assert_eq!(cmd("8 @ 102.5 kg"), sh(8, 102.5, Some(Unit::Kg), None));
        assert_eq!(cmd("8@100 rir 2"), sh(8, 100.0, None, Some(Effort::Rir(2))));
        assert_eq!(
            cmd("8 @ 100 @9"),
            sh(8, 100.0, None, Some(Effort::Rpe(9.0)))
        );
        assert_eq!(
            cmd("8@100kg@8.5"),
            sh(8, 100.0, Some(Unit::Kg), Some(Effort::Rpe(8.5)))
        );
        assert_eq!(
            cmd("8 @ 225 pounds rpe 9"),
            sh(8, 225.0, Some(Unit::Lb), Some(Effort::Rpe(9.0)))
        );
    }

    #[test]
    fn rep_counts() {
        assert_eq!(
            cmd("8"),
            Some(Command::LogReps {
                reps: 8,
                effort: None
            })
        );
        assert_eq!(
            cmd("12 reps"),
            Some(Command::LogReps {
                reps: 12,
                effort: None
            })
        );
        assert_eq!(
            cmd("0"),
            Some(Command::LogReps {
                reps: 0,
                effort: None
            })
        );
        assert_eq!(
            cmd("10 reps rir 1"),
            Some(Command::LogReps {
                reps: 10,
                effort: Some(Effort::Rir(1))
            })
        );
    }

    #[test]
    fn navigation_words() {
        for t in [
            "next",
            "next set",
            "what's next?",
            "whats next",
            "what’s next",
            "What's Next",
        ] {
            assert_eq!(cmd(t), Some(Command::NextSet), "{t}");
        }
        for t in ["rest", "resting", "ok", "ready"] {
            assert_eq!(cmd(t), Some(Command::RestAck), "{t}");
        }
        for t in ["undo", "undo last", "undo last set"] {
            assert_eq!(cmd(t), Some(Command::Undo), "{t}");
        }
        assert_eq!(cmd("skip"), Some(Command::SkipSet));
        assert_eq!(cmd("skip set"), Some(Command::SkipSet));
    }

    #[test]
    fn matched_rules_name_the_pattern() {
        assert_eq!(parse("done").unwrap().unwrap().1, "pattern:log_set");
        assert_eq!(parse("8@100").unwrap().unwrap().1, "pattern:log_shorthand");
        assert_eq!(
            parse("what's next").unwrap().unwrap().1,
            "pattern:whats_next"
        );
    }

    #[test]
    fn conversation_is_not_a_command() {
        for t in [
            "how's my bench?",
            "done for today, thanks",
            "what is next",
            "okay",
            "5 sets of 5 at 100kg sounds good?",
            "\"done\"",
            "next week",
            "log my workout please",
            "8 x 100",
            "",
        ] {
            assert!(
                matches!(parse(t), Ok(None) | Ok(Some((Command::RestAck, _)))),
                "{t} -> {:?}",
                parse(t)
            );
        }
        assert_eq!(cmd("okay"), Some(Command::RestAck));
    }

    #[test]
    fn near_misses_are_errors_with_a_hint() {
        assert!(near_miss("8@").contains("weight is missing"));
        assert!(near_miss("@100").contains("reps are missing"));
        assert!(near_miss("-8@100").contains("negative"));
        assert!(near_miss("8@-100").contains("negative"));
        assert!(near_miss("8.5@100").contains("whole number"));
        assert!(near_miss("8@100 rir").contains("effort value is missing"));
        assert!(near_miss("99999999999@1").contains("too large"));
        assert!(near_miss("8@1.2.3").contains("not a number"));
        assert!(near_miss("８@１００").contains("full-width"));
        assert!(near_miss("８").contains("full-width"));
    }
}
