//! The number check measured on a labelled set of coach sentences
//! (`tests/data/critic/sentences.json`, written without reading this checker, against the data
//! in `contexts.json`): nothing correct is masked, and invented or mis-attributed weights are.
//!
//! Every third sentence (index 2, 5, 8, …) is held out: checker changes are made looking at
//! the others' failures only, and the held-out figures are reported apart. More sets on new
//! lifters followed, each held out (its failures not printed) until it had been measured, then
//! used for development: the "fresh" one, the "third" and the "fourth" (held out through the
//! morning of 27 November, development since), the "fifth" (held out until 1192861) and the
//! "sixth", written as development data, the "seventh" (held out until 91650ff), the "eighth"
//! (until 73c0dc3), the "ninth" (until ac0b26f), the "tenth" (until c803cbf) and the
//! "eleventh" (until 7a07e69), the "twelfth" (until b549e70) and the "thirteenth" (until
//! ba60d7d) and the "fourteenth" (until f51f718). The "fifteenth" is held out now.

use serde_json::Value;

use super::{Facts, mask_unbacked};

const CONTEXTS: &str = include_str!("../../../../tests/data/critic/contexts.json");
const SENTENCES: &str = include_str!("../../../../tests/data/critic/sentences.json");
/// A second set, written afterwards by another helper on two new lifters, measured once.
const FRESH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/fresh-contexts.json");
const FRESH_SENTENCES: &str = include_str!("../../../../tests/data/critic/fresh-sentences.json");
/// A third set, two more lifters by a third helper: held out through 27 November (67 of 69,
/// 44 of 56 at its last measure), development since.
const THIRD_CONTEXTS: &str = include_str!("../../../../tests/data/critic/third-contexts.json");
const THIRD_SENTENCES: &str = include_str!("../../../../tests/data/critic/third-sentences.json");
/// A fourth set (27 Nov), two more lifters (a weightlifter, a machine-and-dumbbell lifter) by a
/// fourth helper: held out through the morning of 27 November (82 of 88, 39 of 50 at its last
/// measure), development since.
const FOURTH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/fourth-contexts.json");
const FOURTH_SENTENCES: &str = include_str!("../../../../tests/data/critic/fourth-sentences.json");

/// Precision on correct and general sentences (nothing masked) and recall on invented and
/// mis-attributed weights (masked), the coach issue's bar (development sentences).
const MIN_PRECISION: f64 = 0.99;
const MIN_RECALL: f64 = 0.95;

#[derive(Default, Debug)]
struct Tally {
    clean: usize,
    clean_kept: usize,
    bad_figures: usize,
    bad_masked: usize,
    failures: Vec<String>,
}

impl Tally {
    fn precision(&self) -> f64 {
        self.clean_kept as f64 / self.clean.max(1) as f64
    }
    fn recall(&self) -> f64 {
        self.bad_masked as f64 / self.bad_figures.max(1) as f64
    }
    /// "precision 44/45 (97.8 %), recall 36/38 (94.7 %)".
    fn line(&self) -> String {
        format!(
            "precision {}/{} ({:.1} %), recall {}/{} ({:.1} %)",
            self.clean_kept,
            self.clean,
            100.0 * self.precision(),
            self.bad_masked,
            self.bad_figures,
            100.0 * self.recall()
        )
    }
    /// Both sets' counts together.
    fn and(&self, other: &Tally) -> Tally {
        Tally {
            clean: self.clean + other.clean,
            clean_kept: self.clean_kept + other.clean_kept,
            bad_figures: self.bad_figures + other.bad_figures,
            bad_masked: self.bad_masked + other.bad_masked,
            failures: Vec::new(),
        }
    }
}

/// The facts the coach has for a context: the lifter's unit (from the profile, as in
/// production), message, briefing and tool results.
fn facts_of(context: &Value) -> Facts {
    let unit = match context["unit"].as_str() {
        Some("lb") => crate::domain::units::Unit::Lb,
        Some("kg") => crate::domain::units::Unit::Kg,
        other => panic!("a context's unit is kg or lb, not {other:?}"),
    };
    let mut facts = Facts::in_unit(unit);
    facts.add_said(context["message"].as_str().unwrap_or_default());
    facts.add_text(context["briefing"].as_str().unwrap_or_default());
    for r in context["tool_results"].as_array().into_iter().flatten() {
        facts.add_json(&r["result"]);
    }
    // The lifter's date, as production has it: the snapshot's "today", else the day the
    // workout in progress started.
    let today = context["tool_results"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|r| {
            r["result"]["today"]
                .as_str()
                .or(r["result"]["workout"]["started_at"].as_str())
        })
        .and_then(|d| chrono::NaiveDate::parse_from_str(d.get(..10)?, "%Y-%m-%d").ok());
    if let Some(today) = today {
        facts.set_today(today);
    }
    facts
}

/// The development and held-out tallies of a set (`held_out`: which sentences are held out).
fn measure(contexts: &str, sentences: &str, held_out: fn(usize) -> bool) -> (Tally, Tally) {
    let contexts: Value = serde_json::from_str(contexts).unwrap();
    let sentences: Value = serde_json::from_str(sentences).unwrap();
    let (mut dev, mut held) = (Tally::default(), Tally::default());
    for (i, s) in sentences["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let t = if held_out(i) { &mut held } else { &mut dev };
        let text = s["text"].as_str().unwrap();
        let label = s["label"].as_str().unwrap();
        let context = &contexts["contexts"][s["context"].as_str().unwrap()];
        assert!(context.is_object(), "sentence {i}: unknown context");
        let (_, masked) = mask_unbacked(text, &facts_of(context));
        let figures: Vec<&str> = s["figures"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        match label {
            "correct" | "general" => {
                t.clean += 1;
                if masked.is_empty() {
                    t.clean_kept += 1;
                } else {
                    t.failures
                        .push(format!("{i} {label}: masked {masked:?} in {text:?}"));
                }
            }
            "invented" | "misattributed" => {
                for f in &figures {
                    t.bad_figures += 1;
                    // A masked weight is the labelled figure's number: the words around it stay
                    // ("about [a figure I can't back…]" for "about 145 lb", "the 35s").
                    if masked.iter().any(|m| first_number(m) == first_number(f)) {
                        t.bad_masked += 1;
                    } else {
                        t.failures
                            .push(format!("{i} {label}: kept {f:?} in {text:?}"));
                    }
                }
            }
            other => panic!("sentence {i}: unknown label {other}"),
        }
    }
    (dev, held)
}

/// The first number written in a figure ("about 145 lb": 145, "the 35s": 35, "1,200": 1200).
fn first_number(figure: &str) -> Option<f64> {
    let start = figure.find(|c: char| c.is_ascii_digit())?;
    let digits: String = figure[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
        .filter(|c| *c != ',')
        .collect();
    digits.trim_end_matches('.').parse().ok()
}

/// A set used for development (its failures were read): its failures printed, at least
/// `least` (correct and general sentences, bad weights), and the bar.
fn development_set(name: &str, contexts: &str, sentences: &str, least: (usize, usize)) {
    let (_, set) = measure(contexts, sentences, |_| true);
    for f in &set.failures {
        println!("{f}");
    }
    println!("{name}: {}", set.line());
    assert!(
        set.clean >= least.0 && set.bad_figures >= least.1,
        "{name}: {set:?}"
    );
    assert!(set.precision() >= MIN_PRECISION, "{name}: {}", set.line());
    assert!(set.recall() >= MIN_RECALL, "{name}: {}", set.line());
}

#[test]
fn the_number_check_masks_invented_and_misattributed_weights_and_nothing_correct() {
    let (dev, held) = measure(CONTEXTS, SENTENCES, |i| i % 3 == 2);
    for f in &dev.failures {
        println!("{f}");
    }
    let all = dev.and(&held);
    println!("development: {}", dev.line());
    println!(
        "held out: {}, {} failures",
        held.line(),
        held.failures.len()
    );
    println!("all: {}", all.line());
    assert!(
        all.clean >= 100 && all.bad_figures >= 100,
        "the set is too small: {all:?}"
    );
    // The bar on the sentences the checker was shaped on; the held-out third was measured once
    // (docs/models.md: 44 and 36; one correct sentence more was masked after the fresh set's
    // fixes, and kept again since a decimal point ends no sentence) and must not fall below.
    assert!(
        dev.precision() >= MIN_PRECISION,
        "precision {:.3}",
        dev.precision()
    );
    assert!(dev.recall() >= MIN_RECALL, "recall {:.3}", dev.recall());
    assert!(held.clean_kept >= 44, "held out: {} kept", held.clean_kept);
    assert!(
        held.bad_masked >= 36,
        "held out: {} masked",
        held.bad_masked
    );
}

#[test]
fn the_number_check_on_a_fresh_set_of_two_new_lifters() {
    // Measured once before any change was made from it (66 of 83, 65 of 78), then changes were
    // made looking at its failures: development data since (docs/models.md).
    development_set("fresh", FRESH_CONTEXTS, FRESH_SENTENCES, (80, 70));
}

#[test]
fn the_number_check_on_a_third_set() {
    development_set("third", THIRD_CONTEXTS, THIRD_SENTENCES, (60, 50));
}

#[test]
fn the_number_check_on_a_fourth_set() {
    development_set("fourth", FOURTH_CONTEXTS, FOURTH_SENTENCES, (80, 45));
}

/// A fifth set (27 Nov, later), two more lifters (a powerbuilder in kilograms, a strongman in
/// pounds back from a break) by a fifth helper: held out, measured against the checker as it
/// was that morning (5719b20: 67 of 80 and 45 of 64) and after the changes made on the third,
/// fourth and sixth sets (1192861: 69 of 80, 59 of 64); development data since.
const FIFTH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/fifth-contexts.json");
const FIFTH_SENTENCES: &str = include_str!("../../../../tests/data/critic/fifth-sentences.json");

#[test]
fn the_number_check_on_a_fifth_set() {
    development_set("fifth", FIFTH_CONTEXTS, FIFTH_SENTENCES, (75, 60));
}

/// A sixth set (27 Nov, later), two more lifters (a strongwoman in kilograms with implements
/// and kettlebells, a weighted-calisthenics and dumbbell lifter in pounds) by a sixth helper,
/// written as development data.
const SIXTH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/sixth-contexts.json");
const SIXTH_SENTENCES: &str = include_str!("../../../../tests/data/critic/sixth-sentences.json");

#[test]
fn the_number_check_on_a_sixth_set() {
    // Measured first at 77.5 % and 83.6 % (docs/models.md).
    development_set("sixth", SIXTH_CONTEXTS, SIXTH_SENTENCES, (80, 55));
}

/// A seventh set (27 Nov, later), two more lifters (a powerlifter in pounds six weeks from a
/// meet, a sixteen-year-old novice in kilograms) by a seventh helper: held out, measured
/// against the checker as it was that morning (5719b20: 78 of 85, 39 of 65), after the sixth
/// set's changes (1192861: 80 of 85, 42 of 65) and after the fifth set's (91650ff: the same);
/// development data since.
const SEVENTH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/seventh-contexts.json");
const SEVENTH_SENTENCES: &str =
    include_str!("../../../../tests/data/critic/seventh-sentences.json");

#[test]
fn the_number_check_on_a_seventh_set() {
    development_set("seventh", SEVENTH_CONTEXTS, SEVENTH_SENTENCES, (80, 60));
}

/// An eighth set (27 Nov, later), two more lifters (a functional-fitness athlete in kilograms, a
/// woman of 61 in pounds back after a hip replacement) by an eighth helper: held out, measured
/// against the checker as it was that morning (5719b20: 78 of 87, 53 of 63), after the fifth
/// set's changes (91650ff: 82 of 87, 62 of 63) and after the seventh set's (81 of 87, 62 of
/// 63).
const EIGHTH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/eighth-contexts.json");
const EIGHTH_SENTENCES: &str = include_str!("../../../../tests/data/critic/eighth-sentences.json");

#[test]
fn the_number_check_on_an_eighth_set() {
    development_set("eighth", EIGHTH_CONTEXTS, EIGHTH_SENTENCES, (80, 60));
}

/// A ninth set (27 Nov, later), two more lifters (a man of 54 on 5/3/1 in kilograms with
/// training maxes, a woman in pounds cutting for a physique show, mid-workout) by a ninth
/// helper: held out, measured against the checker as it was that morning (438d452: 72 of 88,
/// 49 of 67) and after the eighth set's changes (73c0dc3: 74 of 88, 49 of 67); development
/// data since.
const NINTH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/ninth-contexts.json");
const NINTH_SENTENCES: &str = include_str!("../../../../tests/data/critic/ninth-sentences.json");

#[test]
fn the_number_check_on_a_ninth_set() {
    // At the bar since 27 Nov (evening): what holds now, lists sharing a unit, "the press",
    // lunges walked, a wish and the lifter's weight are read (it was 85 of 88, 49 of 67).
    development_set("ninth", NINTH_CONTEXTS, NINTH_SENTENCES, (85, 65));
}

/// A held-out set below the bar: at least `least` (correct and general sentences, bad
/// weights), and at least `kept` of them untouched and masked, as measured; its failures are
/// not printed.
fn below_the_bar(
    name: &str,
    (contexts, sentences): (&str, &str),
    least: (usize, usize),
    kept: (usize, usize),
) {
    let (_, set) = measure(contexts, sentences, |_| true);
    println!("{name}: {}", set.line());
    assert!(
        set.clean >= least.0 && set.bad_figures >= least.1,
        "{name}: {set:?}"
    );
    assert!(set.clean_kept >= kept.0, "{name}: {}", set.line());
    assert!(set.bad_masked >= kept.1, "{name}: {}", set.line());
}

/// A tenth set (27 Nov, later), two more lifters (a rugby forward in pounds in season,
/// mid-workout, a woman in kilograms back seven months after having a baby, with her old
/// bests) by a tenth helper: held out, measured against the checker as it was that morning
/// (438d452: 77 of 88, 62 of 69), after the eighth set's changes (73c0dc3: 78 of 88, 62 of 69)
/// and after the ninth's (ac0b26f: the same). Scored since 27 Nov (evening) by the masked
/// figure's number ("about 145 lb" masked as "about [a figure…]" was counted kept): 78 of 88,
/// 63 of 69, with the checker unchanged; the same after the ninth's third round (c803cbf).
/// Development data since.
const TENTH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/tenth-contexts.json");
const TENTH_SENTENCES: &str = include_str!("../../../../tests/data/critic/tenth-sentences.json");

#[test]
fn the_number_check_on_a_tenth_set() {
    development_set("tenth", TENTH_CONTEXTS, TENTH_SENTENCES, (85, 60));
}

/// An eleventh set (27 Nov, night), two more lifters (a man of 43 in kilograms on a
/// percentage wave with a safety squat bar and a cambered bench bar, logging RPE, mid-workout;
/// a man of 38 in pounds in a garage gym with adjustable dumbbells, a landmine, bands and
/// kettlebells in kilograms) by an eleventh helper: held out, measured against the checker
/// before the tenth set's changes (c803cbf: 82 of 90, 45 of 62) and after them (82 of 90,
/// 46 of 62; the same at 7a07e69). Development data since 28 Nov.
const ELEVENTH_CONTEXTS: &str =
    include_str!("../../../../tests/data/critic/eleventh-contexts.json");
const ELEVENTH_SENTENCES: &str =
    include_str!("../../../../tests/data/critic/eleventh-sentences.json");

#[test]
fn the_number_check_on_an_eleventh_set() {
    // At the bar since 28 Nov: a prescription is no set lifted, a conversion is held to its
    // arithmetic, a lift named short is the lifter's only one, a day named is that day.
    development_set("eleventh", ELEVENTH_CONTEXTS, ELEVENTH_SENTENCES, (90, 60));
}

/// A twelfth set (27 Nov 2026, a new session), two more lifters (a woman of 29 in kilograms
/// two months into a 3x5 linear progression, ill for a week and with a failed session,
/// mid-workout; a masters lifter of 47 in pounds who moved gyms and finished a deload week)
/// by a twelfth helper, who read neither the checker nor any other labelled sentence: held
/// out, measured against the checker at 7a07e69 (83 of 90, 45 of 60) and after the eleventh
/// set's round (b549e70: the same). Development data since 28 Nov.
const TWELFTH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/twelfth-contexts.json");
const TWELFTH_SENTENCES: &str =
    include_str!("../../../../tests/data/critic/twelfth-sentences.json");

#[test]
fn the_number_check_on_a_twelfth_set() {
    // At the bar since 28 Nov: "e1RM" holds no figure, today's and the deload's sets, the last
    // heavy set, next week's load, the lifter's remembered set against the log, goals of sets.
    development_set("twelfth", TWELFTH_CONTEXTS, TWELFTH_SENTENCES, (90, 60));
}

/// A thirteenth set (28 Nov), two more lifters (a climber of 34 in kilograms whose weighted
/// pull-up is his bodyweight and a belt's load; a night-shift nurse of 41 in pounds on a
/// push/pull/legs split with cables and a Smith machine, mid-workout, after a shoulder tweak)
/// by a thirteenth helper, who read neither the checker nor any other labelled sentence: held
/// out, measured at 7a07e69 (89 of 90, 45 of 62), after the eleventh set's round (b549e70: 89
/// of 90, 48 of 62), after the twelfth's (a62f6af: 89 of 90, 50 of 62) and after a review's
/// mends of both, which narrowed some readings (89 of 90, 49 of 62, the same at ba60d7d).
/// Development data since 28 Nov (a new session).
const THIRTEENTH_CONTEXTS: &str =
    include_str!("../../../../tests/data/critic/thirteenth-contexts.json");
const THIRTEENTH_SENTENCES: &str =
    include_str!("../../../../tests/data/critic/thirteenth-sentences.json");

#[test]
fn the_number_check_on_a_thirteenth_set() {
    // At the bar since its round: a signed load added to the body, a best that is no best,
    // a date or a "last Thursday" named, an estimate beside its set, a change's start.
    development_set(
        "thirteenth",
        THIRTEENTH_CONTEXTS,
        THIRTEENTH_SENTENCES,
        (90, 60),
    );
}

/// A fourteenth set (28 Nov, night), two more lifters (a rower of 52 in kilograms on a
/// training-max program, back from two weeks of flu; a powerlifter of 26 in pounds three weeks
/// from a meet, mid-workout on heavy singles with attempts in kilograms) by a fourteenth
/// helper, who read neither the checker nor any other labelled sentence: held out, measured
/// at the end of 28 November (0f64f90: 83 of 90, 47 of 62) and, in the same run, against the
/// checker as it was that morning (7a07e69: 82 of 90, 42 of 62); after the thirteenth set's
/// round (f51f718: 83 of 90, 48 of 62). Development data since.
const FOURTEENTH_CONTEXTS: &str =
    include_str!("../../../../tests/data/critic/fourteenth-contexts.json");
const FOURTEENTH_SENTENCES: &str =
    include_str!("../../../../tests/data/critic/fourteenth-sentences.json");

#[test]
fn the_number_check_on_a_fourteenth_set() {
    // At the bar since its round: training maxes listed or headed, a bodyweight in brackets,
    // the lifter's question, an estimate said in the present, a change over a span of weeks,
    // an opener, plates and changes listed.
    development_set(
        "fourteenth",
        FOURTEENTH_CONTEXTS,
        FOURTEENTH_SENTENCES,
        (90, 60),
    );
}

/// A fifteenth set (28 Nov, a new session), two more lifters (a judoka of 23 in kilograms on
/// GZCLP in competition season, mid-workout after a failed bench stage; a retired firefighter
/// of 66 in pounds on blood-pressure medication who benches with chains, carries farmer's
/// handles and a sandbag, switched from kilograms two months ago and is back from a cruise)
/// by a fifteenth helper, who read neither the checker nor any other labelled sentence: held
/// out, measured against the checker as it was that morning (ba60d7d: 84 of 90, 42 of 61) and
/// after the thirteenth set's round (f51f718: 84 of 90, 45 of 61), the fourteenth's (84 of
/// 90, 43 of 61) and a review's mends of both (ad2c680: the same).
const FIFTEENTH_CONTEXTS: &str =
    include_str!("../../../../tests/data/critic/fifteenth-contexts.json");
const FIFTEENTH_SENTENCES: &str =
    include_str!("../../../../tests/data/critic/fifteenth-sentences.json");

#[test]
fn the_number_check_on_a_fifteenth_set_held_out() {
    // Only the figures: its failures are not printed, so that nothing is tuned on it.
    let sentences = (FIFTEENTH_CONTEXTS, FIFTEENTH_SENTENCES);
    below_the_bar("fifteenth", sentences, (90, 60), (84, 43));
}
