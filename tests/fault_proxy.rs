//! A fault-injecting HTTP proxy between the SDK and dynoxide, on 127.0.0.1.
//!
//! Each request is forwarded or, with the configured probability, meets one of five faults:
//! - `throttle`: a 400 `ThrottlingException`, not forwarded;
//! - `server_error`: a 500 `InternalServerError`, not forwarded;
//! - `drop_before`: the connection closes before the request reaches the store;
//! - `drop_after`: the store applies the request, then the connection closes (the answer is lost);
//! - `stall_after`: the store applies the request, the answer never comes, and the connection
//!   closes after longer than the SDK's 2 s attempt timeout.
//!
//! The last two are the dangerous ones: the write happened but the caller cannot know. The proxy
//! also counts the IAM actions of every request by the lane that sent it (`app/coach-<lane>` in
//! the user agent), one count for all proxies of the test process ([`store_calls`]): every stack
//! puts a proxy in front of its store (at rate 0 it only records), so the IAM check
//! (`tests/iam.rs`) sees every store call of every suite.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::{HttpRequest, LoopbackServer, read_http_request};

pub const FAULTS: [&str; 5] = [
    "throttle",
    "server_error",
    "drop_before",
    "drop_after",
    "stall_after",
];

/// Faults that are not drawn at random, only set on purpose (`set_faults`): the store refusing
/// the function's role, or not knowing its table, in AWS's own words (account, role and table
/// ARNs), which no answer may repeat.
pub const REFUSALS: [&str; 2] = ["access_denied", "no_table"];

/// Longer than the lanes' attempt timeout (2 s), so the SDK gives up on the attempt.
const STALL: Duration = Duration::from_millis(2_300);

#[derive(Default)]
struct State {
    /// Percent of requests that meet a fault.
    rate: AtomicU32,
    /// The faults to draw from (all of them unless `set_faults` narrowed it).
    kinds: Mutex<Vec<&'static str>>,
    rng: AtomicU64,
    injected: Mutex<BTreeMap<&'static str, u64>>,
    /// Faults for the next requests of an operation, one each, before any drawn fault.
    scripted: Mutex<Vec<(String, &'static str)>>,
}

impl State {
    /// The scripted fault for the next `op` request, if one is waiting.
    fn scripted(&self, op: &str) -> Option<&'static str> {
        let mut s = self.scripted.lock().ok()?;
        let i = s.iter().position(|(o, _)| o == op)?;
        let (_, fault) = s.remove(i);
        if let Ok(mut m) = self.injected.lock() {
            *m.entry(fault).or_default() += 1;
        }
        Some(fault)
    }

    /// A fault for the next request, or none: xorshift over a fixed seed, so a run is repeatable
    /// up to the order in which concurrent requests arrive.
    fn draw(&self) -> Option<&'static str> {
        let mut x = self.rng.load(Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.rng.store(x, Ordering::Relaxed);
        if x % 100 >= u64::from(self.rate.load(Ordering::Relaxed)) {
            return None;
        }
        let kinds = self.kinds.lock().ok()?.clone();
        if kinds.is_empty() {
            return None;
        }
        let fault = kinds[((x / 100) % kinds.len() as u64) as usize];
        if let Ok(mut m) = self.injected.lock() {
            *m.entry(fault).or_default() += 1;
        }
        Some(fault)
    }
}

pub struct FaultProxy {
    pub endpoint: String,
    state: Arc<State>,
    _server: LoopbackServer,
}

impl FaultProxy {
    /// A proxy to `upstream` (dynoxide's endpoint) that injects no fault until `set_rate`.
    pub fn start(upstream: &str, seed: u64) -> FaultProxy {
        let state = Arc::new(State {
            rng: AtomicU64::new(seed.max(1)),
            kinds: Mutex::new(FAULTS.to_vec()),
            ..State::default()
        });
        let http = reqwest::Client::new();
        let upstream = upstream.to_string();
        let st = state.clone();
        let server = LoopbackServer::start("fault proxy", move |sock| {
            serve(sock, upstream.clone(), http.clone(), st.clone())
        });
        FaultProxy {
            endpoint: server.base.clone(),
            state,
            _server: server,
        }
    }

    /// From now on, `percent` of requests meet a fault, of any kind.
    pub fn set_rate(&self, percent: u32) {
        self.set_faults(percent, &FAULTS);
    }

    /// From now on, `percent` of requests meet one of these faults.
    pub fn set_faults(&self, percent: u32, kinds: &[&'static str]) {
        if let Ok(mut k) = self.state.kinds.lock() {
            *k = kinds.to_vec();
        }
        self.state.rate.store(percent.min(100), Ordering::Relaxed);
    }

    /// The next request of operation `op` (e.g. `TransactWriteItems`) meets `fault`, whatever
    /// the rate; later ones are drawn as usual.
    pub fn fault_next(&self, op: &str, fault: &'static str) {
        if let Ok(mut s) = self.state.scripted.lock() {
            s.push((op.to_string(), fault));
        }
    }

    /// How many of each fault were injected.
    pub fn injected(&self) -> BTreeMap<&'static str, u64> {
        self.state
            .injected
            .lock()
            .map(|m| m.clone())
            .unwrap_or_default()
    }
}

/// lane -> (read units, write units) the store reported, over every proxy this process started.
static CAPACITY: LazyLock<Mutex<BTreeMap<String, (f64, f64)>>> =
    LazyLock::new(|| Mutex::new(BTreeMap::new()));

/// The capacity units each lane's store calls consumed so far, as the store reported them
/// (`ReturnConsumedCapacity: TOTAL`, which the proxy adds to every lane's request): `lane ->
/// (read, write)`. `docs/scale.md` prices the operations with it.
pub fn capacity_used() -> BTreeMap<String, (f64, f64)> {
    CAPACITY.lock().map(|c| c.clone()).unwrap_or_default()
}

/// Operations that report consumed capacity, and whether they read.
fn capacity_kind(op: &str) -> Option<bool> {
    match op {
        "GetItem" | "BatchGetItem" | "Query" | "Scan" | "TransactGetItems" => Some(true),
        "PutItem" | "UpdateItem" | "DeleteItem" | "BatchWriteItem" | "TransactWriteItems" => {
            Some(false)
        }
        _ => None,
    }
}

/// The request asking for its consumed capacity (the store does not check a signature).
fn with_capacity(body: &[u8]) -> Option<Vec<u8>> {
    let mut v: serde_json::Value = serde_json::from_slice(body).ok()?;
    v.as_object_mut()?
        .insert("ReturnConsumedCapacity".into(), "TOTAL".into());
    serde_json::to_vec(&v).ok()
}

/// The capacity units an answer reports (one table, or a list of them).
fn reported_units(answer: &[u8]) -> f64 {
    let Some(at) = answer.windows(4).position(|w| w == b"\r\n\r\n") else {
        return 0.0;
    };
    let v: serde_json::Value = serde_json::from_slice(&answer[at + 4..]).unwrap_or_default();
    let units = |c: &serde_json::Value| c["CapacityUnits"].as_f64().unwrap_or(0.0);
    match &v["ConsumedCapacity"] {
        serde_json::Value::Array(list) => list.iter().map(units).sum(),
        c => units(c),
    }
}

/// (lane, IAM action) -> requests, over every proxy this process started.
static STORE_CALLS: LazyLock<Mutex<BTreeMap<(String, String), u64>>> =
    LazyLock::new(|| Mutex::new(BTreeMap::new()));

/// Every IAM action each lane's store calls needed, over every proxy of this process so far:
/// `{"fast": {"BatchGetItem": 3, ...}, ...}` (calls from other clients, the tests' own, under
/// `other`).
pub fn store_calls() -> BTreeMap<String, BTreeMap<String, u64>> {
    let mut out: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    if let Ok(calls) = STORE_CALLS.lock() {
        for ((lane, action), n) in calls.iter() {
            *out.entry(lane.clone())
                .or_default()
                .entry(action.clone())
                .or_default() += n;
        }
    }
    out
}

/// The IAM actions a request needs. Transactions have no action of their own: IAM checks each
/// item's (`PutItem`, `UpdateItem`, `DeleteItem`, `ConditionCheckItem`; `GetItem` for reads).
fn iam_actions(op: &str, body: &[u8]) -> Vec<String> {
    if op != "TransactWriteItems" && op != "TransactGetItems" {
        return vec![op.to_string()];
    }
    let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let mut out: Vec<String> = v["TransactItems"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item.as_object()?.keys().next().cloned())
        .map(|kind| match kind.as_str() {
            "Put" => "PutItem".to_string(),
            "Update" => "UpdateItem".to_string(),
            "Delete" => "DeleteItem".to_string(),
            "ConditionCheck" => "ConditionCheckItem".to_string(),
            "Get" => "GetItem".to_string(),
            other => other.to_string(),
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// One connection: requests one after another (keep-alive) until the client closes or a fault
/// closes it.
async fn serve(mut sock: TcpStream, upstream: String, http: reqwest::Client, state: Arc<State>) {
    let mut buf = Vec::new();
    while let Some(req) = read_http_request(&mut sock, &mut buf).await {
        let op = req
            .header("x-amz-target")
            .rsplit('.')
            .next()
            .unwrap_or_default()
            .to_string();
        let lane = req
            .header("user-agent")
            .split_whitespace()
            .find_map(|p| p.strip_prefix("app/coach-"))
            .unwrap_or("other")
            .to_string();
        if let Ok(mut m) = STORE_CALLS.lock() {
            for action in iam_actions(&op, &req.body) {
                *m.entry((lane.clone(), action)).or_default() += 1;
            }
        }
        let answer = match state.scripted(&op).or_else(|| state.draw()) {
            Some("throttle") => error_response(
                400,
                "com.amazonaws.dynamodb.v20120810#ThrottlingException",
                "Rate of requests exceeds the allowed throughput (injected).",
            ),
            Some("server_error") => error_response(
                500,
                "com.amazonaws.dynamodb.v20120810#InternalServerError",
                "Internal server error (injected).",
            ),
            Some("access_denied") => error_response(
                400,
                "com.amazon.coral.service#AccessDeniedException",
                &format!(
                    "User: arn:aws:sts::123456789012:assumed-role/coach-{lane}-role/coach-{lane} is not authorized to perform: dynamodb:{op} on resource: arn:aws:dynamodb:us-east-1:123456789012:table/CoachTest because no identity-based policy allows the dynamodb:{op} action"
                ),
            ),
            Some("no_table") => error_response(
                400,
                "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
                "Requested resource not found: Table: arn:aws:dynamodb:us-east-1:123456789012:table/CoachTest not found",
            ),
            Some("drop_before") => return,
            Some(fault @ ("drop_after" | "stall_after")) => {
                let _ = forward(&http, &upstream, &req).await;
                if fault == "stall_after" {
                    tokio::time::sleep(STALL).await;
                }
                return;
            }
            _ => {
                let reads = capacity_kind(&op).filter(|_| lane != "other");
                let asked = reads.and_then(|_| with_capacity(&req.body));
                let req = match asked {
                    Some(body) => HttpRequest { body, ..req },
                    None => req,
                };
                match forward(&http, &upstream, &req).await {
                    Some(a) => {
                        if let Some(reads) = reads
                            && let Ok(mut c) = CAPACITY.lock()
                        {
                            let units = reported_units(&a);
                            let e = c.entry(lane.clone()).or_default();
                            if reads {
                                e.0 += units;
                            } else {
                                e.1 += units;
                            }
                        }
                        a
                    }
                    None => return,
                }
            }
        };
        if sock.write_all(&answer).await.is_err() {
            return;
        }
    }
}

async fn forward(http: &reqwest::Client, upstream: &str, req: &HttpRequest) -> Option<Vec<u8>> {
    let method = reqwest::Method::from_bytes(req.method.as_bytes()).ok()?;
    let mut rb = http
        .request(method, format!("{upstream}{}", req.path))
        .body(req.body.clone());
    for (k, v) in &req.headers {
        if !["host", "content-length", "connection"].contains(&k.as_str()) {
            rb = rb.header(k, v);
        }
    }
    let resp = rb.send().await.ok()?;
    let status = resp.status();
    let headers: Vec<(String, String)> = resp
        .headers()
        .iter()
        .filter(|(k, _)| {
            !["content-length", "transfer-encoding", "connection"].contains(&k.as_str())
        })
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_string()))
        .collect();
    let body = resp.bytes().await.ok()?;
    let mut out = format!(
        "HTTP/1.1 {} {}\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&body);
    Some(bytes)
}

fn error_response(status: u16, kind: &str, message: &str) -> Vec<u8> {
    let body = serde_json::json!({ "__type": kind, "message": message }).to_string();
    format!(
        "HTTP/1.1 {status} Error\r\ncontent-type: application/x-amz-json-1.0\r\nx-amzn-requestid: injected\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}
