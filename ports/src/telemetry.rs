//! One structured JSON log line per request: lane, intent, matched rule, corr, status, outcome,
//! handler and store time, and Lambda's request id. No message text and no user data. The
//! same line is the request's CloudWatch metrics record (embedded metric format).
//!
//! The line is filled in where things happen, not passed around: an adapter runs the request
//! inside [`scope`], code below it notes what it learns with [`record`], and the store times its
//! own calls (an SDK interceptor calls [`store_call_started`] and [`store_call_finished`]). Outside
//! a scope (tests, tools) these do nothing.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

use crate::domain::usage::Usage;

/// A user id as the logs name it: the first 16 hex digits of its SHA-256, the same on every
/// line and in every lane, and no way back to the id without the list of ids.
pub fn pseudonym(user_id: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(format!("coach-user:{user_id}").as_bytes())[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct RequestLog {
    pub level: &'static str,
    pub event: &'static str,
    pub lane: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intent: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_rule: Option<&'static str>,
    /// How sure the router was (`high`, `medium`, `low`), and what it saw in the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route_confidence: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub route_signals: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corr: Option<String>,
    /// The caller, pseudonymous ([`pseudonym`]): one lifter's requests (and abuse) can be
    /// followed across lines without their id in the logs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    pub status: u16,
    /// `ok`, `replayed`, `no_change`, or the error code.
    pub outcome: &'static str,
    pub latency_us: u64,
    /// Time spent waiting on the store; `latency_us - store_us` is the handler's own time.
    pub store_us: u64,
    pub store_calls: u32,
    /// Time spent waiting on a model, and what became of its answer: `used`, `discarded`
    /// (it broke a rule and the deterministic answer went out), `timeout` or `error`.
    #[serde(skip_serializing_if = "is_zero")]
    pub model_us: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'static str>,
    /// Model tokens the request spent (the provider's count, or an estimate where it gave none).
    #[serde(skip)]
    pub tokens: Usage,
    /// The request failed after its status went out (a stream that ended in an `error` event):
    /// counted in `Errors` like a 5xx.
    #[serde(skip)]
    pub failed_in_stream: bool,
    /// Store calls in flight and since when: concurrent calls count once in `store_us` (it is
    /// time the request waited, not the sum of the calls).
    #[serde(skip)]
    store_in_flight: u32,
    #[serde(skip)]
    store_busy_since: Option<Instant>,
    /// The line was handed to a task that outlives the response (the coach's stream) and is
    /// emitted there.
    #[serde(skip)]
    handed_off: bool,
}

tokio::task_local! {
    static CURRENT: Arc<Mutex<RequestLog>>;
}

/// Runs `fut` as the request `log` describes, and returns its output with the filled-in log.
pub async fn scope<F: Future>(log: RequestLog, fut: F) -> (F::Output, RequestLog) {
    let cell = Arc::new(Mutex::new(log));
    let out = CURRENT.scope(cell.clone(), fut).await;
    let mut log = match cell.lock() {
        Ok(mut l) => std::mem::take(&mut *l),
        Err(poisoned) => std::mem::take(&mut *poisoned.into_inner()),
    };
    log.close_store_timer();
    (out, log)
}

/// Notes something about the current request on its log line (nothing outside a scope).
pub fn record(f: impl FnOnce(&mut RequestLog)) {
    let _ = CURRENT.try_with(|cell| {
        if let Ok(mut log) = cell.lock() {
            f(&mut log);
        }
    });
}

/// Takes the current request's log for a task that outlives the response; the scope's own
/// copy is marked so that its adapter does not emit it too.
pub fn hand_off() -> RequestLog {
    let mut taken = RequestLog::default();
    record(|log| {
        taken = log.clone();
        log.handed_off = true;
    });
    taken
}

/// A store call began (the store's SDK interceptor calls this).
pub(crate) fn store_call_started() {
    record(|log| {
        log.store_calls += 1;
        log.store_in_flight += 1;
        if log.store_in_flight == 1 {
            log.store_busy_since = Some(Instant::now());
        }
    });
}

/// A store call ended.
pub(crate) fn store_call_finished() {
    record(|log| {
        log.store_in_flight = log.store_in_flight.saturating_sub(1);
        if log.store_in_flight == 0 {
            log.close_store_timer();
        }
    });
}

#[derive(Serialize)]
struct Line<'a> {
    #[serde(flatten)]
    log: &'a RequestLog,
    #[serde(flatten)]
    metrics: Metrics,
}

/// CloudWatch's embedded metric format: a log line with these fields is also a data point of
/// `Requests`, `Errors` (server errors, or failed jobs), `Latency` (milliseconds) and the model
/// tokens spent, `InputTokens`, `OutputTokens` and `CachedInputTokens` (0 without a model call), under the
/// dimension `lane`, in the namespace `METRICS_NAMESPACE` (the stack's name; `Coach` when
/// unset). CloudWatch extracts them from the log: no API call, no agent, nothing added to the
/// request's time. The template's alarms watch these metrics.
#[derive(Debug, Serialize)]
pub struct Metrics {
    #[serde(rename = "_aws")]
    meta: EmfMeta,
    #[serde(rename = "Requests")]
    requests: u32,
    #[serde(rename = "Errors")]
    errors: u32,
    #[serde(rename = "Latency")]
    latency_ms: f64,
    #[serde(rename = "InputTokens")]
    input_tokens: u64,
    #[serde(rename = "OutputTokens")]
    output_tokens: u64,
    #[serde(rename = "CachedInputTokens")]
    cached_input_tokens: u64,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct EmfMeta {
    timestamp: i64,
    cloud_watch_metrics: [EmfDirective; 1],
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct EmfDirective {
    namespace: &'static str,
    dimensions: [[&'static str; 1]; 1],
    metrics: [EmfMetric; 6],
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct EmfMetric {
    name: &'static str,
    unit: &'static str,
}

/// The namespace of the metrics, read once.
fn namespace() -> &'static str {
    static NAMESPACE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    NAMESPACE.get_or_init(|| {
        std::env::var("METRICS_NAMESPACE")
            .ok()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| "Coach".to_string())
    })
}

impl Metrics {
    /// One request (or job) of the line's `lane`, and the model tokens it spent.
    pub fn new(error: bool, latency_us: u64, tokens: Usage) -> Metrics {
        Metrics {
            meta: EmfMeta {
                timestamp: chrono::Utc::now().timestamp_millis(),
                cloud_watch_metrics: [EmfDirective {
                    namespace: namespace(),
                    dimensions: [["lane"]],
                    metrics: [
                        EmfMetric {
                            name: "Requests",
                            unit: "Count",
                        },
                        EmfMetric {
                            name: "Errors",
                            unit: "Count",
                        },
                        EmfMetric {
                            name: "Latency",
                            unit: "Milliseconds",
                        },
                        EmfMetric {
                            name: "InputTokens",
                            unit: "Count",
                        },
                        EmfMetric {
                            name: "OutputTokens",
                            unit: "Count",
                        },
                        EmfMetric {
                            name: "CachedInputTokens",
                            unit: "Count",
                        },
                    ],
                }],
            },
            requests: 1,
            errors: u32::from(error),
            latency_ms: latency_us as f64 / 1000.0,
            input_tokens: tokens.input_tokens,
            output_tokens: tokens.output_tokens,
            cached_input_tokens: tokens.cached_input_tokens,
        }
    }
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl RequestLog {
    pub fn new(lane: &'static str, request_id: Option<String>) -> Self {
        Self {
            level: "INFO",
            event: "request",
            lane,
            request_id,
            outcome: "ok",
            ..Self::default()
        }
    }

    /// Whether the line went to a task that emits it later (see [`hand_off`]).
    pub fn is_handed_off(&self) -> bool {
        self.handed_off
    }

    /// Adds the time since the store became busy (a call abandoned mid-flight still counts).
    fn close_store_timer(&mut self) {
        if let Some(since) = self.store_busy_since.take() {
            self.store_us += since.elapsed().as_micros() as u64;
        }
        self.store_in_flight = 0;
    }

    /// Adds a model call's tokens to the request's.
    pub fn record_tokens(&mut self, usage: Usage) {
        self.tokens += usage;
    }

    /// The log line, which is also the request's metrics record (EMF).
    pub fn to_line(&self) -> String {
        let line = Line {
            log: self,
            metrics: Metrics::new(
                self.status >= 500 || self.failed_in_stream,
                self.latency_us,
                self.tokens,
            ),
        };
        serde_json::to_string(&line)
            .unwrap_or_else(|_| String::from("{\"event\":\"request\",\"log_error\":true}"))
    }

    /// Writes the line to stdout, which Lambda ships to CloudWatch as one record.
    pub fn emit(&self) {
        println!("{}", self.to_line());
    }
}

/// Sets up `tracing` for warnings and errors: level from `AWS_LAMBDA_LOG_LEVEL` or `RUST_LOG`
/// (a plain level; INFO otherwise), JSON when `AWS_LAMBDA_LOG_FORMAT=JSON`, no timestamps
/// (CloudWatch adds them). Like lambda_runtime's default subscriber, minus the env-filter, whose
/// regex engine would add about half a megabyte to every binary.
pub fn init() {
    let level = ["AWS_LAMBDA_LOG_LEVEL", "RUST_LOG"]
        .iter()
        .find_map(|k| std::env::var(k).ok())
        .and_then(|l| l.trim().parse::<tracing::Level>().ok())
        .unwrap_or(tracing::Level::INFO);
    let json = std::env::var("AWS_LAMBDA_LOG_FORMAT").is_ok_and(|f| f.eq_ignore_ascii_case("json"));
    let fmt = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_target(false)
        .without_time()
        .with_ansi(false);
    // try_init: a second call (tests) keeps the first subscriber.
    let _ = if json {
        fmt.json().try_init()
    } else {
        fmt.try_init()
    };
}

/// The request's route in its log line: intent, rule, confidence and signals.
pub fn record_route(route: &coach_core::router::Route) {
    record(|log| {
        log.intent = route.intent.map(coach_core::router::Intent::as_str);
        log.matched_rule = Some(route.matched_rule);
        log.route_confidence = Some(route.confidence.as_str());
        log.route_signals.clone_from(&route.signals);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_the_caller_by_pseudonym_only() {
        let id = "1f2e3d4c-aaaa-bbbb-cccc-0123456789ab";
        let mut log = RequestLog::new("functional", None);
        log.user = Some(pseudonym(id));
        let line = serde_json::to_string(&log).unwrap();
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        let named = v["user"].as_str().unwrap_or_default();
        assert_eq!(named.len(), 16);
        assert!(named.bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(!line.contains(id) && !line.contains("1f2e3d4c"), "{line}");
        // The same lifter on every line, another lifter another name.
        assert_eq!(pseudonym(id), named);
        assert_ne!(pseudonym("someone-else"), named);
    }

    #[tokio::test]
    async fn concurrent_store_calls_count_once_in_the_time_waited() {
        let (_, log) = scope(RequestLog::new("fast", None), async {
            store_call_started();
            store_call_started();
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            store_call_finished();
            // One call still in flight: the wait is not over, nothing counted yet.
            let mut waited = u64::MAX;
            record(|l| waited = l.store_us);
            assert_eq!(waited, 0);
            store_call_finished();
            record(|l| l.outcome = "no_change");
        })
        .await;
        assert_eq!(log.store_calls, 2);
        assert_eq!(log.outcome, "no_change");
        assert!(log.store_us >= 5_000, "{}", log.store_us);
        // Outside a scope nothing is recorded and nothing fails.
        store_call_started();
        record(|l| l.outcome = "x");
    }

    #[test]
    fn log_line_is_json_without_message_text() {
        let mut log = RequestLog::new("fast", Some("req-1".into()));
        log.intent = Some("LOG_SET");
        log.matched_rule = Some("pattern:log_set");
        log.corr = Some("r1".into());
        log.status = 200;
        let v: serde_json::Value = serde_json::from_str(&log.to_line()).unwrap();
        assert_eq!(v["lane"], "fast");
        assert_eq!(v["request_id"], "req-1");
        assert_eq!(v["intent"], "LOG_SET");
        assert!(v.get("message").is_none() && v.get("user_id").is_none());
    }

    #[tokio::test]
    async fn the_log_line_says_how_a_message_was_routed() {
        let route = coach_core::router::route("how is my squat? it hurts")
            .unwrap_or_else(|e| panic!("{e}"));
        let (_, log) = scope(RequestLog::new("slow", None), async {
            record_route(&route)
        })
        .await;
        let v: serde_json::Value = serde_json::from_str(&log.to_line()).unwrap();
        assert_eq!(v["matched_rule"], "pattern:analyze_progress");
        assert_eq!(v["route_confidence"], "high");
        let signals = v["route_signals"].as_array().cloned().unwrap_or_default();
        assert!(signals.contains(&"mentions_pain".into()), "{v}");
        // A line without a route has neither.
        let quiet = RequestLog::new("slow", None).to_line();
        assert!(!quiet.contains("route_signals") && !quiet.contains("route_confidence"));
    }

    #[test]
    fn log_line_is_an_emf_record_of_the_lane() {
        let mut log = RequestLog::new("functional", None);
        log.status = 503;
        log.latency_us = 2_500;
        let v: serde_json::Value = serde_json::from_str(&log.to_line()).unwrap();
        let directive = &v["_aws"]["CloudWatchMetrics"][0];
        assert_eq!(directive["Dimensions"], serde_json::json!([["lane"]]));
        // Every metric the directive names is a number on the line, as EMF requires.
        for m in directive["Metrics"].as_array().unwrap() {
            assert!(v[m["Name"].as_str().unwrap()].is_number(), "{m}");
        }
        assert!(v["_aws"]["Timestamp"].as_i64().unwrap() > 1_700_000_000_000);
        assert_eq!(
            (v["Requests"].as_u64(), v["Errors"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(v["Latency"], 2.5);
        assert_eq!(v["lane"], "functional");

        assert_eq!(
            (v["InputTokens"].as_u64(), v["OutputTokens"].as_u64()),
            (Some(0), Some(0))
        );

        log.status = 404;
        log.record_tokens(Usage::new(
            1_200,
            80,
            900,
            0,
            crate::domain::usage::CachePrice::WHOLE,
        ));
        let v: serde_json::Value = serde_json::from_str(&log.to_line()).unwrap();
        assert_eq!(v["Errors"], 0, "a client error is not the service's error");
        assert_eq!(
            (v["InputTokens"].as_u64(), v["OutputTokens"].as_u64()),
            (Some(1_200), Some(80))
        );
        assert_eq!(v["CachedInputTokens"], 900);
    }
}
