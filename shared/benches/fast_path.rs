//! The FAST path without I/O: context prefix + route + command parse, per message.
//! Baseline in the same run: the original system's router, a table of eight anchored regexes
//! tried in order (`original-behaviour.md` §1.2), on the message without its prefix.
//!
//!     cargo bench -p coach --bench fast_path

use std::hint::black_box;

use coach::context::split_prefix;
use coach::router::route;
use criterion::{Criterion, criterion_group, criterion_main};
use regex::Regex;

const MESSAGES: [(&str, &str); 4] = [
    ("done", "done"),
    (
        "shorthand_with_prefix",
        "(context: conversation_id=c1 user_id=u1 corr=r-123 workout_id=w1 tz=Europe/Stockholm) 8 @ 100kg rir 2",
    ),
    ("whats_next", "what's next?"),
    ("reps", "12 reps"),
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
        let text = split_prefix(msg).expect("valid prefix").1;
        c.bench_function(&format!("baseline_original_regex_table/{name}"), |b| {
            b.iter(|| black_box(table.iter().position(|re| re.is_match(black_box(text)))))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
