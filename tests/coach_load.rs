//! 200 concurrent coach streams for 200 users in one slow-lane process: the lane's own handler
//! (`SlowLane::handle`, built from the environment like the binary), the real store on
//! dynoxide and the fake model over HTTP, with a different model delay per user so the streams
//! interleave. Every stream must be well formed, every tool result must be its own user's data,
//! and every answer must reach its own user. It also prints the lane's overhead figures quoted
//! in the README: request to first model request, model's first token to the client's first
//! byte of it, and the process's peak memory.

use std::sync::Arc;
use std::time::{Duration, Instant};

use blackbox::fake_model::{FakeModel, Reply, Step};
use blackbox::{Dynoxide, TABLE, bench_session, parse_sse};
use coach::lanes::slow::SlowLane;
use http_body_util::BodyExt;
use lambda_http::RequestExt;
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::json;

const STREAMS: usize = 200;
/// Streams sent one after another for the overhead figures.
const SEQUENTIAL: usize = 30;

fn main() {
    let args = Arguments::from_args();
    let trial = Trial::test("two_hundred_concurrent_streams_stay_apart", run);
    libtest_mimic::run(&args, vec![trial]).exit()
}

fn marker(i: usize) -> String {
    format!("[load-{i:03}]")
}

fn weight(i: usize) -> f64 {
    40.0 + i as f64 * 0.5
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

struct Seen {
    user: usize,
    sent_at: Instant,
    first_message_at: Option<Instant>,
    raw: String,
}

fn run() -> Result<(), Failed> {
    let dynoxide = Dynoxide::start();
    let fake = FakeModel::start();
    // The lane reads its configuration from the environment, like the binary; set before any
    // thread of ours reads it.
    let env = [
        ("TABLE_NAME", TABLE.to_string()),
        ("AUTH_MODE", "dev".to_string()),
        ("AWS_ENDPOINT_URL_DYNAMODB", dynoxide.endpoint.clone()),
        ("AWS_REGION", "us-east-1".to_string()),
        ("AWS_ACCESS_KEY_ID", "test".to_string()),
        ("AWS_SECRET_ACCESS_KEY", "test".to_string()),
        ("SLOW_MODEL", "fake-model".to_string()),
        ("MODEL_PROVIDER", "gemini".to_string()),
        ("GEMINI_API_KEY", "test-key".to_string()),
        ("GEMINI_BASE_URL", fake.gemini_base()),
    ];
    for (k, v) in env {
        // SAFETY: single-threaded here; the runtime and the lane start afterwards.
        unsafe { std::env::set_var(k, v) };
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let store = rt.block_on(dynoxide.store());
    rt.block_on(async {
        let seeds = (0..STREAMS).map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                let user = format!("load-user-{i:03}");
                store
                    .put_completed_workout(&user, &bench_session(3, &[(weight(i), 5, 2)]))
                    .await
            })
        });
        for s in seeds.collect::<Vec<_>>() {
            s.await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
        }
        Ok::<(), String>(())
    })?;
    for i in 0..STREAMS {
        let m = marker(i);
        fake.reply_for(
            &m,
            Reply::calls(&[("exercise_progress", json!({"exercise_id": "bench press"}))]),
        );
        // Different delays before the answer, so streams finish out of order.
        fake.reply_for(
            &m,
            Reply::Stream(vec![
                Step::Delay(Duration::from_millis((i % 7) as u64 * 15)),
                Step::Text(format!("Answer for {m}")),
            ]),
        );
    }
    let http = coach::llm::http_client()?;
    let lane = Arc::new(rt.block_on(SlowLane::from_env(&http))?);
    let before = peak_mib();
    let started = Instant::now();
    let seen: Vec<Seen> = rt.block_on(async {
        let tasks = (0..STREAMS).map(|i| tokio::spawn(one_stream(lane.clone(), i, marker(i))));
        futures_join(tasks.collect()).await
    });
    let wall = started.elapsed();
    let peak = peak_mib();
    let requests = fake.requests();

    // Every stream: route first, done last, its tool ran, its own answer.
    let mut errors = Vec::new();
    for s in &seen {
        let events = parse_sse(&s.raw);
        let kinds: Vec<&str> = events
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| *k != "heartbeat")
            .collect();
        let text: String = events
            .iter()
            .filter(|(k, _)| k == "message")
            .filter_map(|(_, v)| v["text"].as_str())
            .collect();
        let ok = kinds.first() == Some(&"route")
            && kinds.last() == Some(&"done")
            && !kinds.contains(&"error")
            && events
                .iter()
                .any(|(k, v)| k == "tool_end" && v["ok"] == true)
            && text == format!("Answer for {}", marker(s.user));
        if !ok {
            errors.push(format!("user {}: {kinds:?} {text}", s.user));
        }
    }
    if seen.len() != STREAMS {
        errors.push(format!("{} streams finished, want {STREAMS}", seen.len()));
    }
    // Every tool result the model saw is its own user's data.
    let mut checked = 0;
    for r in &requests {
        let body = r.body.to_string();
        if !body.contains("functionResponse") {
            continue;
        }
        let Some(i) = (0..STREAMS).find(|i| body.contains(&marker(*i))) else {
            errors.push("a tool turn without a marker".into());
            continue;
        };
        let result = &r.body["contents"][2]["parts"][0]["functionResponse"]["response"];
        let got = result["sessions"][0]["top_set"]["weight_kg"].as_f64();
        if got != Some(weight(i)) {
            errors.push(format!(
                "user {i} was given {got:?}, its own top set is {}",
                weight(i)
            ));
        }
        checked += 1;
    }
    if checked != STREAMS {
        errors.push(format!("{checked} tool turns checked, want {STREAMS}"));
    }
    let concurrent = figures(&seen, &requests, marker, |i| (i % 7) as u64 * 15);

    // One stream at a time: the lane's own overhead, without 200-way queueing on two cores.
    fake.reset();
    for j in 0..SEQUENTIAL {
        fake.reply_for(&seq_marker(j), Reply::text(&["Quick answer."]));
    }
    let alone: Vec<Seen> = rt.block_on(async {
        let mut out = Vec::new();
        for j in 0..SEQUENTIAL {
            out.push(one_stream(lane.clone(), j, seq_marker(j)).await);
        }
        out
    });
    let alone = figures(&alone, &fake.requests(), seq_marker, |_| 0);
    println!(
        "coach_load: {STREAMS} concurrent streams in {:.0} ms, {} errors, peak RSS {:.0} MiB ({:.0} MiB before them); concurrent: {concurrent}; one at a time ({SEQUENTIAL}): {alone}",
        wall.as_secs_f64() * 1e3,
        errors.len(),
        peak,
        before,
    );
    drop(lane);
    drop(rt);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n").into())
    }
}

fn seq_marker(j: usize) -> String {
    format!("[seq-{j:03}]")
}

/// One `POST /v1/stream` through the lane's handler, read to the end.
async fn one_stream(lane: Arc<SlowLane>, user: usize, mark: String) -> Seen {
    let body = json!({ "message": format!("How is my bench press going? {mark}") });
    let req = lambda_http::http::Request::builder()
        .method("POST")
        .uri("/v1/stream")
        .header("content-type", "application/json")
        .header("x-user-id", format!("load-user-{user:03}"))
        .body(lambda_http::Body::from(body.to_string()))
        .expect("a request")
        .with_raw_http_path("/v1/stream");
    let sent_at = Instant::now();
    let mut body = lane.handle(req).await.into_body();
    let mut raw = String::new();
    let mut first_message_at = None;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { break };
        if let Ok(data) = frame.into_data() {
            let text = String::from_utf8_lossy(&data);
            if first_message_at.is_none() && text.starts_with("event: message") {
                first_message_at = Some(Instant::now());
            }
            raw.push_str(&text);
        }
    }
    Seen {
        user,
        sent_at,
        first_message_at,
        raw,
    }
}

/// p50/p99 of request -> first model request, and of the model's first text (after its
/// scripted delay) -> the client's first byte of it.
fn figures(
    seen: &[Seen],
    requests: &[blackbox::fake_model::Recorded],
    mark: impl Fn(usize) -> String,
    delay_ms: impl Fn(usize) -> u64,
) -> String {
    let mut to_model = Vec::new();
    let mut token_to_byte = Vec::new();
    for s in seen {
        let m = mark(s.user);
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

async fn futures_join(tasks: Vec<tokio::task::JoinHandle<Seen>>) -> Vec<Seen> {
    let mut out = Vec::with_capacity(tasks.len());
    for t in tasks {
        if let Ok(s) = t.await {
            out.push(s);
        }
    }
    out
}
