//! 200 concurrent coach streams for 200 users in one slow-lane process (`coach_rig`): every
//! answer reaches its own user, every tool result the model saw is its own user's data, and no
//! request is lost. Nothing here depends on timing: a stream that ends in a transient `error`
//! (on a loaded machine the store's 2 s attempt timeout can pass under 200-way queueing) is
//! sent again with the same `corr`, as the app does, up to `ATTEMPTS` times; how many were
//! retried is printed. The lane's latency and memory figures are a benchmark instead
//! (`coach_overhead`, `scripts/bench.sh slow`).

use std::collections::BTreeMap;

use blackbox::coach_rig::{Rig, Seen, marker, user_of, weight};
use libtest_mimic::{Arguments, Failed, Trial};

const STREAMS: usize = 200;
/// Sends of one request at most (the first and the app's retries).
const ATTEMPTS: usize = 5;
/// Errors worth another send: the store or the model was not reachable in time.
const TRANSIENT: [&str; 4] = [
    "STORE_UNAVAILABLE",
    "MODEL_UNAVAILABLE",
    "MODEL_TIMEOUT",
    "MODEL_RATE_LIMITED",
];

fn main() {
    let args = Arguments::from_args();
    let trial = Trial::test("two_hundred_concurrent_streams_stay_apart", run);
    libtest_mimic::run(&args, vec![trial]).exit()
}

fn run() -> Result<(), Failed> {
    let rig = Rig::start(STREAMS)?;
    for i in 0..STREAMS {
        rig.script(i);
    }
    let mut last: BTreeMap<usize, Seen> = BTreeMap::new();
    let mut pending: Vec<usize> = (0..STREAMS).collect();
    let mut retried = Vec::new();
    for attempt in 1..=ATTEMPTS {
        if attempt > 1 {
            retried.push(pending.len());
            for &i in &pending {
                rig.script(i);
            }
        }
        let round = rig.concurrent(&pending, |i| format!("load-{i:03}"));
        pending = round
            .iter()
            .filter(|s| s.error().is_some_and(|c| TRANSIENT.contains(&c.as_str())))
            .map(|s| s.user)
            .collect();
        for s in round {
            last.insert(s.user, s);
        }
        if pending.is_empty() {
            break;
        }
    }

    let mut errors = Vec::new();
    if last.len() != STREAMS {
        errors.push(format!("{} streams answered, want {STREAMS}", last.len()));
    }
    // Every stream: route first, done last, no error, its own answer.
    for (i, s) in &last {
        let kinds = s.kinds();
        let text = s.text();
        let ok = kinds.first().map(String::as_str) == Some("route")
            && kinds.last().map(String::as_str) == Some("done")
            && s.error().is_none()
            && text == format!("Answer for {}", marker(*i));
        if !ok {
            errors.push(format!("user {i}: {kinds:?} {text}"));
        }
    }
    // Every tool result the model saw is its own user's data.
    let mut checked = std::collections::BTreeSet::new();
    for r in rig.fake.requests() {
        let body = r.body.to_string();
        if !body.contains("functionResponse") {
            continue;
        }
        let Some(i) = user_of(&body) else {
            errors.push("a tool turn without a marker".into());
            continue;
        };
        let result = &r.body["contents"][2]["parts"][0]["functionResponse"]["response"];
        // A tool whose store read failed returns an error to the model; that is not a leak.
        if result.get("error").is_some() {
            continue;
        }
        let got = blackbox::weight_of(&result["sessions"][0]["top_set"]["weight_kg"]);
        if got != Some(weight(i)) {
            errors.push(format!(
                "user {i} was given {got:?}, its own top set is {}",
                weight(i)
            ));
        }
        checked.insert(i);
    }
    // (A tool whose read timed out answers the model an error: not every user need have a
    // result, but the check must have had data to look at.)
    if checked.is_empty() {
        errors.push("no tool result reached the model".into());
    }
    println!(
        "coach_load: {STREAMS} concurrent streams, each answered to its own user; tool results of {} users checked; sent again after a transient error: {retried:?}",
        checked.len()
    );
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n").into())
    }
}
