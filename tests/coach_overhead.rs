//! The SLOW lane's own overhead (a benchmark: `scripts/bench.sh slow`, release build), through
//! `coach_rig`: request to the first model request, and the model's first token to the
//! client's first byte of it, for 200 concurrent streams and then 30 one at a time; the
//! process's peak memory. Figures only; correctness under load is `coach_load`'s.

use std::time::{Duration, Instant};

use blackbox::coach_rig::{Rig, Seen, delay_ms, marker, one_stream};

const STREAMS: usize = 200;
/// Streams sent one after another for the overhead figures.
const SEQUENTIAL: usize = 30;

fn main() -> Result<(), String> {
    let rig = Rig::start(STREAMS)?;
    for i in 0..STREAMS {
        rig.script(i);
    }
    let before = peak_mib();
    let started = Instant::now();
    let users: Vec<usize> = (0..STREAMS).collect();
    let seen = rig.concurrent(&users, |i| format!("c-{i}"));
    let wall = started.elapsed();
    let peak = peak_mib();
    let errors = seen.iter().filter(|s| s.error().is_some()).count();
    let concurrent = figures(&seen, &rig.fake.requests(), delay_ms);

    // One stream at a time: the lane's own overhead, without 200-way queueing on two cores.
    rig.fake.reset();
    for i in 0..SEQUENTIAL {
        rig.fake.reply_for(
            &marker(i),
            blackbox::fake_model::Reply::text(&["Quick answer."]),
        );
    }
    let alone: Vec<Seen> = rig.rt.block_on(async {
        let mut out = Vec::new();
        for i in 0..SEQUENTIAL {
            out.push(one_stream(rig.lane.clone(), i, marker(i), &format!("s-{i}")).await);
        }
        out
    });
    let alone = figures(&alone, &rig.fake.requests(), |_| 0);
    println!(
        "coach_overhead: {STREAMS} concurrent streams in {:.0} ms, {errors} ended in an error, peak RSS {:.0} MiB ({:.0} MiB before them); concurrent: {concurrent}; one at a time ({SEQUENTIAL}): {alone}",
        wall.as_secs_f64() * 1e3,
        peak,
        before,
    );
    Ok(())
}

/// Peak resident memory of this process, in MiB (Linux).
fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(((v.len() as f64 - 1.0) * p).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

/// p50/p99 of request -> first model request, and of the model's first text (after its
/// scripted delay) -> the client's first byte of it.
fn figures(
    seen: &[Seen],
    requests: &[blackbox::fake_model::Recorded],
    delay_ms: impl Fn(usize) -> u64,
) -> String {
    let mut to_model = Vec::new();
    let mut token_to_byte = Vec::new();
    for s in seen {
        let m = marker(s.user);
        let mine: Vec<_> = requests
            .iter()
            .filter(|r| r.body.to_string().contains(&m))
            .collect();
        if let Some(first) = mine.iter().min_by_key(|r| r.at) {
            to_model.push(first.at.duration_since(s.sent_at).as_secs_f64() * 1e3);
        }
        if let (Some(text_turn), Some(got)) = (mine.iter().max_by_key(|r| r.at), s.first_message_at)
            && let Some(replied) = text_turn.replied_at
        {
            let first_token = replied + Duration::from_millis(delay_ms(s.user));
            token_to_byte.push(got.saturating_duration_since(first_token).as_secs_f64() * 1e3);
        }
    }
    format!(
        "request -> first model request p50 {:.2} ms p99 {:.2} ms; first token -> first byte p50 {:.2} ms p99 {:.2} ms",
        percentile(to_model.clone(), 0.5),
        percentile(to_model, 0.99),
        percentile(token_to_byte.clone(), 0.5),
        percentile(token_to_byte, 0.99),
    )
}
