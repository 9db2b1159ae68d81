//! The FAST path without I/O: context prefix + route + command parse, per message form, and
//! the routing of SLOW text.
//! Baseline in the same run: the original system's router, a table of eight anchored regexes
//! tried in order (`original-behaviour.md` §1.2), on the message without its prefix.
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

fn bench(c: &mut Criterion) {
    let table = original_table();
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
        c.bench_function(&format!("baseline_original_regex_table/{name}"), |b| {
            b.iter(|| black_box(table.iter().position(|re| re.is_match(black_box(text)))))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
