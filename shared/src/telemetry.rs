//! One structured JSON log line per request: lane, intent, matched rule, corr, status, outcome,
//! handler and store time, and Lambda's request id. No message text and no user data.

use serde::Serialize;

#[derive(Debug, Default, Serialize)]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corr: Option<String>,
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

    /// The log of an HTTP request, with Lambda's request id.
    pub fn for_request(lane: &'static str, req: &lambda_http::Request) -> Self {
        use lambda_http::RequestExt;
        Self::new(lane, req.lambda_context_ref().map(|c| c.request_id.clone()))
    }

    pub fn to_line(&self) -> String {
        serde_json::to_string(self)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
