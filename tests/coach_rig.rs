//! Many coach streams in one slow-lane process: the lane's own handler (`SlowLane::handle`,
//! built from the environment like the binary), the real store on dynoxide and the fake model
//! over HTTP. Used by the isolation test (`coach_load`, in `make test`) and by the overhead
//! benchmark (`coach_overhead`, `scripts/bench.sh slow`).
//!
//! Each user `i` has one completed bench session at its own weight; its message carries a
//! marker naming the user, and the fake answers each marker with a tool call
//! (`exercise_progress`) and then a text that names the marker, after a delay that differs by
//! user so that streams interleave.

use std::sync::Arc;
use std::time::{Duration, Instant};

use coach::lanes::slow::SlowLane;
use http_body_util::BodyExt;
use lambda_http::RequestExt;
use serde_json::json;

use crate::fake_model::{FakeModel, Reply, Step};
use crate::{Dynoxide, TABLE, bench_session, parse_sse};

pub struct Rig {
    pub lane: Arc<SlowLane>,
    pub fake: FakeModel,
    pub rt: tokio::runtime::Runtime,
    _dynoxide: Dynoxide,
}

/// The marker of user `i`'s message.
pub fn marker(i: usize) -> String {
    format!("[load-{i:03}]")
}

/// The user a marker names.
pub fn user_of(text: &str) -> Option<usize> {
    let at = text.find("[load-")? + "[load-".len();
    text.get(at..at + 3)?.parse().ok()
}

/// User `i`'s top set: its own, so a tool result shows whose data it is.
pub fn weight(i: usize) -> f64 {
    40.0 + i as f64 * 0.5
}

/// The fake model's delay before user `i`'s answer.
pub fn delay_ms(i: usize) -> u64 {
    (i % 7) as u64 * 15
}

/// One stream as the client read it.
pub struct Seen {
    pub user: usize,
    pub sent_at: Instant,
    pub first_message_at: Option<Instant>,
    pub raw: String,
}

impl Seen {
    /// Event types in order, heartbeats left out.
    pub fn kinds(&self) -> Vec<String> {
        parse_sse(&self.raw)
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| k != "heartbeat")
            .collect()
    }

    pub fn text(&self) -> String {
        parse_sse(&self.raw)
            .iter()
            .filter(|(k, _)| k == "message")
            .filter_map(|(_, v)| v["text"].as_str().map(str::to_string))
            .collect()
    }

    /// The code of the stream's `error` event, if it ended in one.
    pub fn error(&self) -> Option<String> {
        parse_sse(&self.raw)
            .into_iter()
            .find(|(k, _)| k == "error")
            .map(|(_, v)| v["code"].as_str().unwrap_or_default().to_string())
    }
}

impl Rig {
    /// The store, the fake model and the lane, with `users` users seeded.
    pub fn start(users: usize) -> Result<Rig, String> {
        let dynoxide = Dynoxide::start();
        let fake = FakeModel::start();
        // The lane reads its configuration from the environment, like the binary; set before
        // any thread of ours reads it.
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
            .build()
            .map_err(|e| e.to_string())?;
        let store = rt.block_on(dynoxide.store());
        rt.block_on(async {
            let seeds = (0..users).map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    store
                        .put_completed_workout(
                            &format!("load-user-{i:03}"),
                            &bench_session(3, &[(weight(i), 5, 2)]),
                        )
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
        let http = coach::llm::http_client()?;
        let config = coach::config::Config::from_env()?;
        let lane = Arc::new(rt.block_on(SlowLane::from_config(&config, &http))?);
        Ok(Rig {
            lane,
            fake,
            rt,
            _dynoxide: dynoxide,
        })
    }

    /// Scripts the fake for user `i` (afresh: what an earlier attempt left is forgotten): a
    /// tool call, then, after the user's delay, the answer naming the marker.
    pub fn script(&self, i: usize) {
        let m = marker(i);
        self.fake.forget(&m);
        self.fake.reply_for(
            &m,
            Reply::calls(&[("exercise_progress", json!({"exercise_id": "bench press"}))]),
        );
        self.fake.reply_for(
            &m,
            Reply::Stream(vec![
                Step::Delay(Duration::from_millis(delay_ms(i))),
                Step::Text(format!("Answer for {m}")),
            ]),
        );
    }
}

impl Rig {
    /// The messages of `users` at once (their `corr` from `corr`), each read to the end.
    pub fn concurrent(&self, users: &[usize], corr: impl Fn(usize) -> String) -> Vec<Seen> {
        let tasks: Vec<_> = users
            .iter()
            .map(|&i| {
                let (lane, corr) = (self.lane.clone(), corr(i));
                self.rt
                    .spawn(async move { one_stream(lane, i, marker(i), &corr).await })
            })
            .collect();
        self.rt.block_on(async {
            let mut out = Vec::with_capacity(tasks.len());
            for t in tasks {
                if let Ok(s) = t.await {
                    out.push(s);
                }
            }
            out
        })
    }
}

/// One `POST /v1/stream` through the lane's handler, read to the end. `corr` makes a retry of
/// the same request the same request, as the app sends it.
pub async fn one_stream(lane: Arc<SlowLane>, user: usize, mark: String, corr: &str) -> Seen {
    let body = json!({
        "message": format!("(context: corr={corr}) How is my bench press going? {mark}")
    });
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
