//! The set expressions lifters type and dictate: "8 @ 100", "100x8", "3x8 @ 100",
//! "3 sets of 8", "+20 x 8", "bw x 15", "60s", "1:30", with effort ("@8", "rpe 8.5", "rir 2").
//! An "AxB" whose numbers could be read more than one way yields every reading; the copilot
//! settles it with the planned set, or asks.

use super::lexer::Tok;
use super::{CommandError, Effort, Load, MAX_SETS_AT_ONCE, Reading};
use crate::domain::units::Unit;

/// Longest number a lifter can sensibly type; longer is "too large", never an overflow.
const MAX_DIGITS: usize = 7;

const TIME_WORDS: [&str; 9] = [
    "s", "sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes",
];

/// Words a set expression may contain; a message with any other word is not a command.
const SET_VOCABULARY: [&str; 14] = [
    "log",
    "rep",
    "reps",
    "at",
    "rir",
    "rpe",
    "set",
    "sets",
    "of",
    "bw",
    "bodyweight",
    "body",
    "weight",
    "times",
];

pub(super) fn in_vocabulary(t: &Tok<'_>) -> bool {
    match t {
        Tok::Word(w) => {
            SET_VOCABULARY.contains(w) || TIME_WORDS.contains(w) || Unit::parse(w).is_some()
        }
        Tok::Question | Tok::Bang => false,
        _ => true,
    }
}

/// Whether the tokens start like a set ("8", "+20", "@", "bw", "x8").
pub(super) fn starts_like_set(toks: &[Tok<'_>]) -> bool {
    match toks.first() {
        Some(Tok::Num(_) | Tok::Minus | Tok::At | Tok::Plus | Tok::Times) => true,
        Some(Tok::Word("bw" | "bodyweight")) => true,
        Some(Tok::Word("body")) => toks.get(1) == Some(&Tok::Word("weight")),
        Some(Tok::Word("log")) => starts_like_set(&toks[1..]),
        _ => false,
    }
}

fn near_miss<T>(msg: &str) -> Result<T, CommandError> {
    Err(CommandError::new(format!(
        "{msg}; log a set like '8 @ 100', '100x8', '3x8 @ 100' or '8 reps'"
    )))
}

/// A weight or bodyweight as typed: `100`, `100 kg`, `+20`, `bw`, `bw + 10 lb`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Quantity<'a> {
    Number { text: &'a str, unit: Option<Unit> },
    Added { value: f64, unit: Option<Unit> },
    Bodyweight,
}

struct Cursor<'t, 'a> {
    toks: &'t [Tok<'a>],
    i: usize,
}

impl<'a> Cursor<'_, 'a> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<Tok<'a>> {
        self.toks.get(self.i + k).copied()
    }
    fn eat(&mut self, t: Tok<'_>) -> bool {
        let hit = self.peek() == Some(t);
        self.i += usize::from(hit);
        hit
    }
    fn eat_word(&mut self, options: &[&str]) -> bool {
        let hit = matches!(self.peek(), Some(Tok::Word(w)) if options.contains(&w));
        self.i += usize::from(hit);
        hit
    }
    fn number(&mut self) -> Option<&'a str> {
        match self.peek() {
            Some(Tok::Num(n)) => {
                self.i += 1;
                Some(n)
            }
            _ => None,
        }
    }
    fn unit(&mut self) -> Result<Option<Unit>, CommandError> {
        let Some(Tok::Word(w)) = self.peek() else {
            return Ok(None);
        };
        let Some(u) = Unit::parse(w) else {
            return Ok(None);
        };
        self.i += 1;
        if let Some(Tok::Word(w2)) = self.peek()
            && Unit::parse(w2).is_some()
        {
            return near_miss("a weight has one unit, got two");
        }
        Ok(Some(u))
    }
    fn bodyweight(&mut self) -> bool {
        if self.eat_word(&["bw", "bodyweight"]) {
            return true;
        }
        if self.peek() == Some(Tok::Word("body")) && self.peek_at(1) == Some(Tok::Word("weight")) {
            self.i += 2;
            return true;
        }
        false
    }
    /// `+ N [unit]`, `bw [+ N [unit]]`, or `N [unit]`.
    fn quantity(&mut self) -> Result<Option<Quantity<'a>>, CommandError> {
        if self.bodyweight() {
            if self.eat(Tok::Plus) {
                return self.added().map(Some);
            }
            return Ok(Some(Quantity::Bodyweight));
        }
        if self.eat(Tok::Plus) {
            return self.added().map(Some);
        }
        let Some(text) = self.number() else {
            return Ok(None);
        };
        let unit = self.unit()?;
        Ok(Some(Quantity::Number { text, unit }))
    }
    fn added(&mut self) -> Result<Quantity<'a>, CommandError> {
        let Some(text) = self.number() else {
            return near_miss("the added weight is missing after '+'");
        };
        let value = decimal(text, "weight")?;
        let unit = self.unit()?;
        Ok(Quantity::Added { value, unit })
    }
}

impl Quantity<'_> {
    fn load(self) -> Result<Load, CommandError> {
        Ok(match self {
            Quantity::Number { text, unit } => Load::Weight {
                value: decimal(text, "weight")?,
                unit,
            },
            Quantity::Added { value, unit } => Load::Added { value, unit },
            Quantity::Bodyweight => Load::Bodyweight,
        })
    }
}

fn single(reps: Option<u32>, load: Load, effort: Option<Effort>) -> Reading {
    Reading {
        sets: 1,
        reps,
        load,
        seconds: None,
        effort,
    }
}

/// Parses a set expression (after any exercise name). `Ok(None)`: not a set at all.
pub(super) fn parse(
    toks: &[Tok<'_>],
) -> Result<Option<(Vec<Reading>, &'static str)>, CommandError> {
    if !starts_like_set(toks) || !toks.iter().all(in_vocabulary) {
        return Ok(None);
    }
    if toks.contains(&Tok::Minus) {
        return near_miss("negative numbers are not allowed");
    }
    let mut c = Cursor { toks, i: 0 };
    c.eat_word(&["log"]);
    if let Some(r) = timed(&mut c)? {
        return Ok(Some((vec![r], "pattern:timed")));
    }
    if c.peek() == Some(Tok::Times) {
        return near_miss("the weight is missing before 'x'");
    }
    if c.peek() == Some(Tok::At) {
        return near_miss("the reps are missing before '@'");
    }
    // "3 sets of 8 [@ 100]", "3 sets x 8".
    if let (Some(Tok::Num(n)), Some(Tok::Word("sets" | "set"))) = (c.peek(), c.peek_at(1)) {
        c.i += 2;
        let sets = set_count(n)?;
        if !(c.eat_word(&["of"]) || c.eat(Tok::Times)) {
            return near_miss("say how many reps, like '3 sets of 8'");
        }
        let Some(reps) = c.number() else {
            return near_miss("the reps are missing after 'sets of'");
        };
        let reps = whole_number(reps, "reps")?;
        c.eat_word(&["rep", "reps"]);
        let load = at_load(&mut c)?.unwrap_or(Load::Planned);
        let effort = effort(&mut c)?;
        return Ok(Some((
            vec![Reading {
                sets,
                reps: Some(reps),
                load,
                seconds: None,
                effort,
            }],
            "pattern:sets_of_reps",
        )));
    }
    let Some(first) = c.quantity()? else {
        return near_miss("could not read this set");
    };
    let reps_word = c.eat_word(&["rep", "reps"]);
    if c.eat(Tok::Times) {
        if reps_word {
            // "8 reps x 100".
            let Quantity::Number { text, .. } = first else {
                return near_miss("could not read this set");
            };
            let reps = whole_number(text, "reps")?;
            let Some(q) = c.quantity()? else {
                return near_miss("the weight is missing after 'x'");
            };
            let e = effort(&mut c)?;
            return Ok(Some((
                vec![single(Some(reps), q.load()?, e)],
                "pattern:weight_x_reps",
            )));
        }
        return times(first, &mut c).map(Some);
    }
    let Quantity::Number { text, unit: None } = first else {
        // "100 kg" alone, or "bw" alone: a weight without reps.
        return near_miss("the reps are missing");
    };
    let reps = whole_number(text, "reps")?;
    if let Some(load) = at_load(&mut c)? {
        let e = effort(&mut c)?;
        return Ok(Some((
            vec![single(Some(reps), load, e)],
            "pattern:log_shorthand",
        )));
    }
    let e = effort(&mut c)?;
    Ok(Some((
        vec![single(Some(reps), Load::Planned, e)],
        "pattern:log_reps",
    )))
}

/// `@ Q` or `at Q`: the load; `None` when the set has none. "@8" right after reps is a weight
/// (as "8@100"); effort comes after the weight.
fn at_load(c: &mut Cursor<'_, '_>) -> Result<Option<Load>, CommandError> {
    if !(c.peek() == Some(Tok::At) || c.peek() == Some(Tok::Word("at"))) {
        return Ok(None);
    }
    if c.peek_at(1) == Some(Tok::Word("rpe")) {
        return Ok(None);
    }
    c.i += 1;
    match c.quantity()? {
        Some(q) => q.load().map(Some),
        None => near_miss("the weight is missing after '@'"),
    }
}

/// "60s", "45 sec", "2 min", "1:30", optionally with a load ("60s @ 20").
fn timed(c: &mut Cursor<'_, '_>) -> Result<Option<Reading>, CommandError> {
    let (Some(Tok::Num(n)), next) = (c.peek(), c.peek_at(1)) else {
        return Ok(None);
    };
    let seconds = match next {
        Some(Tok::Word(w)) if TIME_WORDS.contains(&w) => {
            c.i += 2;
            let n = whole_number(n, "seconds")?;
            if w.starts_with('m') {
                n.saturating_mul(60)
            } else {
                n
            }
        }
        Some(Tok::Colon) => {
            let Some(Tok::Num(s)) = c.peek_at(2) else {
                return near_miss("a time is minutes:seconds, like '1:30'");
            };
            c.i += 3;
            let (m, s) = (whole_number(n, "minutes")?, whole_number(s, "seconds")?);
            if s >= 60 {
                return near_miss("a time is minutes:seconds with seconds under 60");
            }
            m.saturating_mul(60).saturating_add(s)
        }
        _ => return Ok(None),
    };
    if seconds == 0 {
        return near_miss("a timed set needs a time above zero");
    }
    let load = at_load(c)?.unwrap_or(Load::Planned);
    let e = effort(c)?;
    Ok(Some(Reading {
        sets: 1,
        reps: None,
        load,
        seconds: Some(seconds),
        effort: e,
    }))
}

/// After "A x": "100x8", "100 kg x 8", "8 x 100 kg", "+20 x 8", "bw x 15", "15 x bw",
/// "3x8 @ 100", and the plain "20x10" whose readings the plan settles.
fn times(
    first: Quantity<'_>,
    c: &mut Cursor<'_, '_>,
) -> Result<(Vec<Reading>, &'static str), CommandError> {
    let Some(second) = c.quantity()? else {
        return near_miss("the reps are missing after 'x'");
    };
    let reps_word = c.eat_word(&["rep", "reps"]);
    let rule = "pattern:weight_x_reps";
    match (first, second) {
        (Quantity::Number { unit: Some(_), .. }, Quantity::Number { unit: Some(_), .. }) => {
            near_miss("a set has one weight, got two")
        }
        // A weight (with a unit, added, or bodyweight) times reps.
        (
            q @ (Quantity::Number { unit: Some(_), .. }
            | Quantity::Added { .. }
            | Quantity::Bodyweight),
            Quantity::Number { text, unit: None },
        ) => {
            let reps = whole_number(text, "reps")?;
            let e = effort(c)?;
            Ok((vec![single(Some(reps), q.load()?, e)], rule))
        }
        // Reps times a weight: "8 x 100 kg", "15 x bw", "8 x +20".
        (Quantity::Number { text, unit: None }, q)
            if !matches!(q, Quantity::Number { unit: None, .. }) =>
        {
            if reps_word {
                return near_miss("could not read this set");
            }
            let reps = whole_number(text, "reps")?;
            let e = effort(c)?;
            Ok((vec![single(Some(reps), q.load()?, e)], rule))
        }
        (
            Quantity::Number {
                text: a,
                unit: None,
            },
            Quantity::Number {
                text: b,
                unit: None,
            },
        ) => plain_times(a, b, reps_word, c),
        _ => near_miss("could not read this set"),
    }
}

/// "A x B" with two plain numbers: weight × reps (as Strong and Hevy write a set), reps ×
/// weight, or A sets of B reps. A decimal is never reps, "B reps" is reps, and a load after "@"
/// makes it A sets of B; "@8" may be that load or an RPE, so both stay as readings.
fn plain_times(
    a: &str,
    b: &str,
    b_is_reps: bool,
    c: &mut Cursor<'_, '_>,
) -> Result<(Vec<Reading>, &'static str), CommandError> {
    let (av, bv) = (decimal(a, "weight")?, decimal(b, "reps")?);
    if av == 0.0 && bv == 0.0 {
        return near_miss("'0x0' has nothing to log");
    }
    let whole = |t: &str| !t.contains('.');
    let as_sets = whole(a) && whole(b) && (1.0..=f64::from(MAX_SETS_AT_ONCE)).contains(&av);
    let at = matches!(c.peek(), Some(Tok::At | Tok::Word("at")))
        && c.peek_at(1) != Some(Tok::Word("rpe"));
    let small_at = match (c.peek_at(1), c.peek_at(2)) {
        (Some(Tok::Num(n)), None) if at => n.parse::<f64>().ok().filter(|v| *v <= 10.0),
        _ => None,
    };
    if at && small_at.is_none() {
        // "3x8 @ 100": sets of reps at that load.
        let load = at_load(c)?.unwrap_or(Load::Planned);
        if !whole(a) || av < 1.0 || av > f64::from(MAX_SETS_AT_ONCE) {
            return Err(CommandError::new(format!(
                "'{a}x{b} @' reads as {a} sets of {b}: sets must be a whole number from 1 to {MAX_SETS_AT_ONCE} in one command"
            ))
            .field("sets"));
        }
        let reps = whole_number(b, "reps")?;
        let e = effort(c)?;
        let r = Reading {
            sets: av as u32,
            reps: Some(reps),
            load,
            seconds: None,
            effort: e,
        };
        return Ok((vec![r], "pattern:sets_of_reps"));
    }
    let (e, sets_load) = match small_at {
        Some(n) => {
            c.i += 2;
            (
                Some(Effort::Rpe(n)),
                Load::Weight {
                    value: n,
                    unit: None,
                },
            )
        }
        None => (effort(c)?, Load::Planned),
    };
    let mut readings = Vec::with_capacity(3);
    if whole(b) {
        let load = Load::Weight {
            value: av,
            unit: None,
        };
        readings.push(single(Some(bv as u32), load, e));
    }
    if whole(a) && !b_is_reps && a != b {
        let load = Load::Weight {
            value: bv,
            unit: None,
        };
        readings.push(single(Some(av as u32), load, e));
    }
    if as_sets && !b_is_reps {
        readings.push(Reading {
            sets: av as u32,
            reps: Some(bv as u32),
            load: sets_load,
            seconds: None,
            effort: if small_at.is_some() { None } else { e },
        });
    }
    if readings.is_empty() {
        return Err(CommandError::new(format!(
            "reps must be a whole number, got {b}"
        )));
    }
    Ok((readings, "pattern:weight_x_reps"))
}

fn effort(c: &mut Cursor<'_, '_>) -> Result<Option<Effort>, CommandError> {
    let hint = "; add effort as 'rir 2', 'rpe 8' or '@8' after the weight";
    let rest = &c.toks[c.i..];
    let found = match rest {
        [] => return Ok(None),
        [Tok::Word("rir"), Tok::Num(n)] => Effort::Rir(whole_number(n, "RIR")?),
        [Tok::At, Tok::Num(n)]
        | [Tok::Word("rpe"), Tok::Num(n)]
        | [Tok::At, Tok::Word("rpe"), Tok::Num(n)] => Effort::Rpe(decimal(n, "RPE")?),
        [Tok::Word("rir")] | [Tok::Word("rpe")] | [Tok::At] => {
            return Err(CommandError::new(format!(
                "the effort value is missing{hint}"
            )));
        }
        _ => {
            return Err(CommandError::new(format!(
                "could not read the end of this set command{hint}"
            )));
        }
    };
    c.i = c.toks.len();
    Ok(Some(found))
}

fn set_count(text: &str) -> Result<u32, CommandError> {
    let n = whole_number(text, "sets")?;
    if n == 0 || n > MAX_SETS_AT_ONCE {
        return Err(CommandError::new(format!(
            "sets must be 1 to {MAX_SETS_AT_ONCE} in one command, got {n}"
        ))
        .field("sets"));
    }
    Ok(n)
}

pub(super) fn whole_number(text: &str, what: &str) -> Result<u32, CommandError> {
    if text.contains('.') {
        return Err(CommandError::new(format!(
            "{what} must be a whole number, got {text}"
        )));
    }
    if text.len() > MAX_DIGITS {
        return Err(CommandError::new(format!("{what} {text} is too large")));
    }
    text.parse()
        .map_err(|_| CommandError::new(format!("{what} '{text}' is not a number")))
}

pub(super) fn decimal(text: &str, what: &str) -> Result<f64, CommandError> {
    let int_part = text.split('.').next().unwrap_or("");
    if int_part.len() > MAX_DIGITS || text.len() > MAX_DIGITS + 4 {
        return Err(CommandError::new(format!("{what} {text} is too large")));
    }
    if text.matches('.').count() > 1 || text.ends_with('.') {
        return Err(CommandError::new(format!(
            "{what} '{text}' is not a number"
        )));
    }
    text.parse()
        .map_err(|_| CommandError::new(format!("{what} '{text}' is not a number")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vocabulary_words_and_symbols() {
        for w in SET_VOCABULARY
            .iter()
            .chain(TIME_WORDS.iter())
            .chain(["kg", "lbs", "pounds"].iter())
        {
            assert!(in_vocabulary(&Tok::Word(w)), "{w}");
        }
        assert!(!in_vocabulary(&Tok::Word("bench")));
        assert!(in_vocabulary(&Tok::Num("8")) && !in_vocabulary(&Tok::Question));
    }
}
