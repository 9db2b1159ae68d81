//! The FAST path without I/O: context prefix + route + command parse, per message form, and
//! the routing of SLOW text.
//! Baselines in the same run: the original system's router, a table of eight anchored regexes
//! tried in order (`original-behaviour.md` §1.2), on the message without its prefix; and, for
//! SLOW text, this router's previous reading of it (17 regex-lite patterns, each a scan of the
//! text) against the one pass that replaced it (`router::text`).
//!
//!     cargo bench -p coach --bench fast_path

use std::hint::black_box;

use coach::context::split_prefix;
use coach::router::route;
use criterion::{Criterion, criterion_group, criterion_main};
use regex::Regex;

/// One message per accepted form (the README's grammar table), then SLOW text, which runs the
/// most rules (every FAST form fails first, then the SLOW regexes and the signals).
const MESSAGES: [(&str, &str); 22] = [
    ("done", "done"),
    (
        "shorthand_with_prefix",
        "(context: conversation_id=c1 user_id=u1 corr=r-123 workout_id=w1 tz=Europe/Stockholm) 8 @ 100kg rir 2",
    ),
    (
        "with_client_time",
        "(context: corr=r-9 at=2026-11-23T18:05:00+01:00) 8 @ 100",
    ),
    ("whats_next", "what's next?"),
    ("reps", "12 reps"),
    ("weight_x_reps", "100kg x 8"),
    ("plain_a_x_b", "100x8"),
    ("sets_x_reps_at", "3x8 @ 100"),
    ("sets_of_reps", "3 sets of 8 at 100"),
    ("named", "bench 100x5"),
    ("named_colon", "squat: 5 @ 140"),
    ("added_weight", "+20 x 8"),
    ("bodyweight", "bw x 15"),
    ("timed_named", "plank 60s"),
    ("timed_mmss", "1:30"),
    ("rpe", "100x8 rpe 8.5"),
    ("number_words", "eight at a hundred"),
    ("switch", "now squats"),
    ("undo", "undo"),
    ("near_miss", "3x"),
    ("slow_text", "how is my bench progressing?"),
    ("slow_plan", "build me a push pull legs routine for 4 days"),
];

fn original_table() -> Vec<Regex> {
    [
        r"(?i)^(log|done|finished|completed)(\s+set)?$",
        r"(?i)^(\d+)\s*@\s*(\d+(?:\.\d+)?)\s*(?:kg|lbs?)?$",
        r"(?i)^(?:log\s+)?(\d+)\s*(?:reps?\s*)?(?:@|at)\s*(\d+(?:\.\d+)?)\s*(?:kg|lbs?|pounds?)?$",
        r"(?i)^next(\s+set)?$",
        r"(?i)^what.?s\s+next\??$",
        r"(?i)^(rest|resting|ok|ready)$",
        r"(?i)^log\s+set\b",
        r"(?i)^(\d+)\s*(?:reps?)?$",
    ]
    .iter()
    .map(|p| Regex::new(p).expect("valid baseline regex"))
    .collect()
}

/// The SLOW rules and signals as regex-lite patterns, as the router read text before the one
/// pass: the first rule that matches, and every signal.
fn previous_slow_reader() -> Vec<regex_lite::Regex> {
    [
        r"\b(edit|modify|update|change|adjust|tweak|swap|replace|remove|add)\b.{0,40}\b(my|the|this|current)\b.{0,20}\b(routine|program|programme|plan|template|split)\b",
        r"\b(create|build|make|design|plan|write|give|want|need|new)\b.{0,40}\b(routine|program|programme|split|ppl|push[ /-]?pull[ /-]?legs?|upper[ /-]?lower|full[ -]body (plan|routine|program))\b",
        r"\b(start|begin|let's do|lets do)\b.{0,20}\b(workout|session|training|today's|todays|leg day|push day|pull day)\b",
        r"\bnext (workout|session|training|day)\b|\bwhat('s| is| do i do| should i do)\b.{0,20}\b(today|tomorrow)\b",
        r"\b(create|build|make|design|plan|write|give|want|need)\b.{0,40}\b(workout|session)\b",
        r"\bhow('s| is| are)\s+my\b|\b(am i|have i|is my|are my)\s+(progressing|improving|stall|stalled|stalling|plateau|plateaued|plateauing|getting stronger|volume|sets|frequency)\b|\b(progress|plateau|stall(ed|ing)?|e1rm|1rm|personal records?|prs?|trend)\b",
        r"\b(my|mine|i|i'm|i've|i'll|i'd|me)\b",
        r"\b(create|build|make|design|plan|write)\b",
        r"\b(edit|modify|change|update|adjust|swap|replace)\b",
        r"\b(analy[sz]e|review|assess|compare|evaluate)\b",
        r"\b(workout|session|training)\b",
        r"\b(routine|program|programme|split|ppl)\b",
        r"\b(progress|history|data|performance|stats)\b",
        r"\b(sets?|volume|frequency|1rm|e1rm|pr|personal records?)\b",
        r"\b(lift|lifting|squat|bench|deadlift|press|curl|row|reps?|weight|kg|lbs?|muscle|gym|exercise|deload|rest day)\b",
        r"\b(pain|hurts?|injur(y|ed)|sore|strain(ed)?|tweak(ed)?)\b",
        r"\?\s*$|^(how|what|why|when|should|can|could|is|are|do|does|will|which)\b",
    ]
    .iter()
    .map(|p| regex_lite::Regex::new(p).expect("valid previous pattern"))
    .collect()
}

fn bench(c: &mut Criterion) {
    let table = original_table();
    let previous = previous_slow_reader();
    for (name, msg) in MESSAGES {
        c.bench_function(&format!("fast_path/{name}"), |b| {
            b.iter(|| {
                let (prefix, text) = split_prefix(black_box(msg)).expect("valid prefix");
                let r = route(text).expect("routes");
                black_box((prefix, r))
            })
        });
        if msg.starts_with("(context:") {
            // The prefix alone: how much of the whole is reading the context.
            c.bench_function(&format!("prefix_only/{name}"), |b| {
                b.iter(|| black_box(split_prefix(black_box(msg)).expect("valid prefix")))
            });
        }
        let text = split_prefix(msg).expect("valid prefix").1;
        if name.starts_with("slow_") {
            // The previous reading of SLOW text: the first of the 6 rules, and all 11 signals.
            c.bench_function(&format!("baseline_previous_slow_regexes/{name}"), |b| {
                b.iter(|| {
                    let lower = black_box(text).to_lowercase().replace('’', "'");
                    let rule = previous[..6].iter().position(|re| re.is_match(&lower));
                    let signals = previous[6..]
                        .iter()
                        .filter(|re| re.is_match(&lower))
                        .count();
                    black_box((rule, signals))
                })
            });
        }
        c.bench_function(&format!("baseline_original_regex_table/{name}"), |b| {
            b.iter(|| black_box(table.iter().position(|re| re.is_match(black_box(text)))))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
