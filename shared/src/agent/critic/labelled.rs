//! The number check measured on a labelled set of coach sentences
//! (`tests/data/critic/sentences.json`, written without reading this checker, against the data
//! in `contexts.json`): nothing correct is masked, and invented or mis-attributed weights are.
//!
//! Every third sentence (index 2, 5, 8, …) is held out: checker changes are made looking at
//! the others' failures only, and the held-out figures are reported apart. Two more sets on
//! four new lifters followed: the "fresh" one, measured once and then used for development,
//! and the "third", held out (its failures are not printed).

use serde_json::Value;

use super::{Facts, mask_unbacked};

const CONTEXTS: &str = include_str!("../../../../tests/data/critic/contexts.json");
const SENTENCES: &str = include_str!("../../../../tests/data/critic/sentences.json");
/// A second set, written afterwards by another helper on two new lifters, measured once.
const FRESH_CONTEXTS: &str = include_str!("../../../../tests/data/critic/fresh-contexts.json");
const FRESH_SENTENCES: &str = include_str!("../../../../tests/data/critic/fresh-sentences.json");
/// A third set, two more lifters by a third helper: held out, measured once, never tuned on.
const THIRD_CONTEXTS: &str = include_str!("../../../../tests/data/critic/third-contexts.json");
const THIRD_SENTENCES: &str = include_str!("../../../../tests/data/critic/third-sentences.json");

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
}

fn facts_of(context: &Value) -> Facts {
    let mut facts = Facts::default();
    facts.add_said(context["message"].as_str().unwrap_or_default());
    facts.add_text(context["briefing"].as_str().unwrap_or_default());
    for r in context["tool_results"].as_array().into_iter().flatten() {
        facts.add_json(&r["result"]);
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
                    // A masked weight is written as the labelled figure or with its unit.
                    if masked
                        .iter()
                        .any(|m| m.starts_with(f) || f.starts_with(m.as_str()))
                    {
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

#[test]
fn the_number_check_masks_invented_and_misattributed_weights_and_nothing_correct() {
    let (dev, held) = measure(CONTEXTS, SENTENCES, |i| i % 3 == 2);
    for f in &dev.failures {
        println!("{f}");
    }
    let all = |f: fn(&Tally) -> (usize, usize)| {
        let (a, b) = (f(&dev), f(&held));
        (a.0 + b.0, a.1 + b.1)
    };
    let (kept, clean) = all(|t| (t.clean_kept, t.clean));
    let (masked, bad) = all(|t| (t.bad_masked, t.bad_figures));
    println!(
        "development: precision {}/{} ({:.1} %), recall {}/{} ({:.1} %)",
        dev.clean_kept,
        dev.clean,
        100.0 * dev.precision(),
        dev.bad_masked,
        dev.bad_figures,
        100.0 * dev.recall()
    );
    println!(
        "held out: precision {}/{} ({:.1} %), recall {}/{} ({:.1} %), {} failures",
        held.clean_kept,
        held.clean,
        100.0 * held.precision(),
        held.bad_masked,
        held.bad_figures,
        100.0 * held.recall(),
        held.failures.len()
    );
    let (precision, recall) = (kept as f64 / clean as f64, masked as f64 / bad as f64);
    println!(
        "all: precision {kept}/{clean} ({:.1} %), recall {masked}/{bad} ({:.1} %)",
        100.0 * precision,
        100.0 * recall
    );
    assert!(
        clean >= 100 && bad >= 100,
        "the set is too small: {clean} clean, {bad} bad"
    );
    // The bar on the sentences the checker was shaped on; the held-out third was measured once
    // (docs/models.md: 44 and 36; one correct sentence more was masked after the fresh set's
    // fixes) and must not fall below that.
    assert!(
        dev.precision() >= MIN_PRECISION,
        "precision {:.3}",
        dev.precision()
    );
    assert!(dev.recall() >= MIN_RECALL, "recall {:.3}", dev.recall());
    assert!(held.clean_kept >= 43, "held out: {} kept", held.clean_kept);
    assert!(
        held.bad_masked >= 36,
        "held out: {} masked",
        held.bad_masked
    );
}

#[test]
fn the_number_check_on_a_fresh_set_of_two_new_lifters() {
    let (_, fresh) = measure(FRESH_CONTEXTS, FRESH_SENTENCES, |_| true);
    for f in &fresh.failures {
        println!("{f}");
    }
    println!(
        "fresh: precision {}/{} ({:.1} %), recall {}/{} ({:.1} %), {} failures",
        fresh.clean_kept,
        fresh.clean,
        100.0 * fresh.precision(),
        fresh.bad_masked,
        fresh.bad_figures,
        100.0 * fresh.recall(),
        fresh.failures.len()
    );
    assert!(fresh.clean >= 80 && fresh.bad_figures >= 70, "{fresh:?}");
    // Measured once before any change was made from it (66 of 83, 65 of 78), then changes were
    // made looking at its failures: it is development data now, and these are its floors.
    assert!(fresh.clean_kept >= 80, "fresh: {} kept", fresh.clean_kept);
    assert!(fresh.bad_masked >= 69, "fresh: {} masked", fresh.bad_masked);
}

#[test]
fn the_number_check_on_a_third_set_held_out() {
    let (_, third) = measure(THIRD_CONTEXTS, THIRD_SENTENCES, |_| true);
    // Only the figures: its failures are not printed, so that nothing is tuned on it.
    println!(
        "third: precision {}/{} ({:.1} %), recall {}/{} ({:.1} %)",
        third.clean_kept,
        third.clean,
        100.0 * third.precision(),
        third.bad_masked,
        third.bad_figures,
        100.0 * third.recall()
    );
    assert!(third.clean >= 60 && third.bad_figures >= 50, "{third:?}");
    // As measured once (docs/models.md): below the bar on recall.
    assert!(third.clean_kept >= 67, "third: {} kept", third.clean_kept);
    assert!(third.bad_masked >= 40, "third: {} masked", third.bad_masked);
}
