//! Tokens of a command, and number words ("eight at a hundred") turned into digits the way
//! dictation produces them.

/// One token of a lower-cased ASCII message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Tok<'a> {
    Num(&'a str),
    Word(&'a str),
    At,
    Minus,
    Plus,
    /// "x", "*" or "×" between two numbers.
    Times,
    /// ":" or "," after an exercise name, or between minutes and seconds.
    Colon,
    Question,
    Bang,
}

/// Splits a lower-cased ASCII message; `None` when it holds a character no command has.
pub(super) fn tokenize(s: &str) -> Option<Vec<Tok<'_>>> {
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
            // "pull-ups", "t-bar": a hyphen between letters is part of the word.
            while i < b.len()
                && (b[i].is_ascii_alphabetic()
                    || b[i] == b'\''
                    || (b[i] == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic)))
            {
                i += 1;
            }
            let w = &s[start..i];
            let before_digit = b.get(i).is_some_and(u8::is_ascii_digit);
            if w == "x" {
                toks.push(Tok::Times);
            } else if before_digit && w.len() > 1 && w.ends_with('x') {
                // "100kgx8": a unit glued to the multiplication sign.
                toks.push(Tok::Word(&w[..w.len() - 1]));
                toks.push(Tok::Times);
            } else {
                toks.push(Tok::Word(w));
            }
            continue;
        }
        toks.push(match c {
            b'@' => Tok::At,
            b'-' => Tok::Minus,
            b'+' => Tok::Plus,
            b'*' => Tok::Times,
            b':' | b',' => Tok::Colon,
            b'?' => Tok::Question,
            b'!' | b'.' => Tok::Bang,
            _ => return None,
        });
        i += 1;
    }
    Some(toks)
}

const SMALL: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];

/// The value of a number word from zero to ninety ("six", "twenty"), lower case.
pub fn number_word(w: &str) -> Option<u32> {
    small(w).or_else(|| tens(w))
}

fn small(w: &str) -> Option<u32> {
    SMALL.iter().position(|s| *s == w).map(|n| n as u32)
}

fn tens(w: &str) -> Option<u32> {
    TENS.iter()
        .position(|s| *s == w)
        .map(|n| 20 + 10 * n as u32)
}

/// Whether `w` is a number word; a `match` (length, then bytes) because every word of every
/// command is checked.
fn is_number_word(w: &str) -> bool {
    matches!(
        w,
        "zero"
            | "one"
            | "two"
            | "three"
            | "four"
            | "five"
            | "six"
            | "seven"
            | "eight"
            | "nine"
            | "ten"
            | "eleven"
            | "twelve"
            | "thirteen"
            | "fourteen"
            | "fifteen"
            | "sixteen"
            | "seventeen"
            | "eighteen"
            | "nineteen"
            | "twenty"
            | "thirty"
            | "forty"
            | "fifty"
            | "sixty"
            | "seventy"
            | "eighty"
            | "ninety"
            | "hundred"
    )
}

/// A number said in words at the start of `words`: its value in digits and how many words it
/// took. "a hundred and twenty", "one hundred twenty five", "sixty two point five", and the way
/// lifters say loads, "two twenty five" (225).
fn spoken(words: &[&str]) -> Option<(String, usize)> {
    let at = |i: usize| words.get(i).copied().unwrap_or("");
    let digit = |w: &str| small(w).filter(|n| (1..=9).contains(n));
    let mut i = 0;
    let mut value = 0;
    if at(1) == "hundred" && (at(0) == "a" || digit(at(0)).is_some()) {
        value = 100 * digit(at(0)).unwrap_or(1);
        i = 2;
        if at(i) == "and" && (small(at(i + 1)).is_some() || tens(at(i + 1)).is_some()) {
            i += 1;
        }
    } else if at(0) == "hundred" {
        value = 100;
        i = 1;
    } else if let Some(d) = digit(at(0))
        && (tens(at(1)).is_some() || small(at(1)).is_some_and(|n| n >= 10))
    {
        value = 100 * d;
        i = 1;
    }
    if let Some(n) = small(at(i)) {
        value += n;
        i += 1;
    } else if let Some(t) = tens(at(i)) {
        value += t;
        i += 1;
        if let Some(d) = digit(at(i)) {
            value += d;
            i += 1;
        }
    }
    if i == 0 {
        return None;
    }
    let mut text = value.to_string();
    if at(i) == "point" && small(at(i + 1)).is_some_and(|n| n <= 9) {
        text.push('.');
        i += 1;
        while let Some(d) = small(at(i)).filter(|n| *n <= 9) {
            text.push(char::from(b'0' + d as u8));
            i += 1;
        }
    }
    Some((text, i))
}

/// The message with number words written as digits, or `None` when it has none (the usual case,
/// which then allocates nothing more).
pub(super) fn spell_out_numbers(toks: &[Tok<'_>]) -> Option<String> {
    if !toks
        .iter()
        .any(|t| matches!(t, Tok::Word(w) if is_number_word(w)))
    {
        return None;
    }
    let mut out = String::with_capacity(32);
    let mut i = 0;
    while i < toks.len() {
        if let Tok::Word(_) = toks[i] {
            let words: Vec<&str> = toks[i..]
                .iter()
                .map_while(|t| match t {
                    Tok::Word(w) => Some(*w),
                    _ => None,
                })
                .collect();
            if let Some((digits, used)) = spoken(&words) {
                out.push_str(&digits);
                out.push(' ');
                i += used;
                continue;
            }
        }
        out.push_str(match toks[i] {
            Tok::Num(s) | Tok::Word(s) => s,
            Tok::At => "@",
            Tok::Minus => "-",
            Tok::Plus => "+",
            Tok::Times => "x",
            Tok::Colon => ":",
            Tok::Question => "?",
            Tok::Bang => "!",
        });
        out.push(' ');
        i += 1;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelled(s: &str) -> String {
        let toks = tokenize(s).unwrap();
        spell_out_numbers(&toks).unwrap_or_else(|| s.to_string())
    }

    #[test]
    fn multiplication_signs_and_glued_units() {
        assert_eq!(
            tokenize("100x8").unwrap(),
            [Tok::Num("100"), Tok::Times, Tok::Num("8")]
        );
        assert_eq!(
            tokenize("100kgx8").unwrap(),
            [Tok::Num("100"), Tok::Word("kg"), Tok::Times, Tok::Num("8")]
        );
        assert_eq!(tokenize("3*8").unwrap()[1], Tok::Times);
        assert_eq!(tokenize("xylophone").unwrap(), [Tok::Word("xylophone")]);
    }

    #[test]
    fn number_words_are_recognised() {
        for w in SMALL.iter().chain(TENS.iter()).chain(["hundred"].iter()) {
            assert!(is_number_word(w), "{w}");
        }
        assert!(!is_number_word("a") && !is_number_word("bench"));
    }

    #[test]
    fn number_words_become_digits() {
        assert_eq!(spelled("eight at a hundred"), "8 at 100 ");
        assert_eq!(spelled("ten reps"), "10 reps ");
        assert_eq!(spelled("a hundred and twenty x five"), "120 x 5 ");
        assert_eq!(spelled("one hundred twenty five"), "125 ");
        assert_eq!(spelled("sixty two point five"), "62.5 ");
        assert_eq!(spelled("two twenty five for five"), "225 for 5 ");
        assert_eq!(spelled("three sets of eight"), "3 sets of 8 ");
        assert_eq!(spelled("twelve"), "12 ");
        assert_eq!(spelled("8 @ 100"), "8 @ 100", "no number words: unchanged");
        assert_eq!(spelled("a bench"), "a bench", "'a' alone is no number");
    }
}
