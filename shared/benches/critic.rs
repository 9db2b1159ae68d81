//! The coach's number check on real-style sentences: the fourteenth labelled set (150
//! sentences of two lifters, `tests/data/critic/`), each checked against its lifter's message,
//! briefing and tool results as the SLOW lane checks an answer. Baseline in the same run: the
//! bag of numbers the check replaced (every number of a sentence must appear somewhere in the
//! data), which is faster and wrong both ways (docs/models.md).
//!
//!     cargo bench -p coach --bench critic

use std::collections::HashSet;
use std::hint::black_box;

use coach::agent::critic::{self, Facts};
use coach::domain::units::Unit;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;

const CONTEXTS: &str = include_str!("../../tests/data/critic/fourteenth-contexts.json");
const SENTENCES: &str = include_str!("../../tests/data/critic/fourteenth-sentences.json");

/// A lifter's facts, as the SLOW lane gathers them for a turn.
fn facts_of(context: &Value) -> Facts {
    let unit = if context["unit"] == "lb" {
        Unit::Lb
    } else {
        Unit::Kg
    };
    let mut facts = Facts::in_unit(unit);
    facts.add_said(context["message"].as_str().unwrap_or_default());
    facts.add_text(context["briefing"].as_str().unwrap_or_default());
    for r in context["tool_results"].as_array().into_iter().flatten() {
        facts.add_json(&r["result"]);
    }
    facts
}

/// Every number written in `text`.
fn numbers(text: &str) -> Vec<f64> {
    let re = regex::Regex::new(r"\d+(?:\.\d+)?").expect("number pattern");
    re.find_iter(text)
        .filter_map(|m| m.as_str().parse().ok())
        .collect()
}

fn bench(c: &mut Criterion) {
    let contexts: Value = serde_json::from_str(CONTEXTS).expect("contexts");
    let sentences: Value = serde_json::from_str(SENTENCES).expect("sentences");
    let cases: Vec<(String, &str)> = sentences["sentences"]
        .as_array()
        .expect("sentences")
        .iter()
        .map(|s| {
            (
                s["context"].as_str().unwrap_or_default().to_string(),
                s["text"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    let facts: Vec<(String, Facts)> = contexts["contexts"]
        .as_object()
        .expect("contexts")
        .iter()
        .map(|(id, c)| (id.clone(), facts_of(c)))
        .collect();
    let facts_for = |id: &str| &facts.iter().find(|(i, _)| i == id).expect("context").1;
    // The baseline's bag: every number in each lifter's data, as written.
    let bags: Vec<(String, HashSet<u64>)> = contexts["contexts"]
        .as_object()
        .expect("contexts")
        .iter()
        .map(|(id, c)| {
            let bag = numbers(&c.to_string())
                .into_iter()
                .map(|n| (n * 10.0).round() as u64)
                .collect();
            (id.clone(), bag)
        })
        .collect();
    let bag_for = |id: &str| &bags.iter().find(|(i, _)| i == id).expect("context").1;
    let number = regex::Regex::new(r"\d+(?:\.\d+)?").expect("number pattern");

    c.bench_function("critic/check_150_sentences", |b| {
        b.iter(|| {
            cases
                .iter()
                .map(|(id, text)| critic::check(black_box(text), facts_for(id), false).len())
                .sum::<usize>()
        })
    });
    c.bench_function("critic/facts_of_two_lifters", |b| {
        b.iter(|| {
            contexts["contexts"]
                .as_object()
                .expect("contexts")
                .values()
                .map(|c| black_box(facts_of(black_box(c))))
                .collect::<Vec<_>>()
        })
    });
    c.bench_function("baseline/number_bag_150_sentences", |b| {
        b.iter(|| {
            cases
                .iter()
                .map(|(id, text)| {
                    let bag = bag_for(id);
                    number
                        .find_iter(black_box(text))
                        .filter_map(|m| m.as_str().parse::<f64>().ok())
                        .filter(|n| !bag.contains(&((n * 10.0).round() as u64)))
                        .count()
                })
                .sum::<usize>()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
