//! Load on the FAST lane: N fast processes (N Lambda sandboxes), each with a Runtime API of its
//! own on 127.0.0.1, fed REST v1 events as the deployed API sends them (Cognito claims, a `corr`
//! per command), against one store. Users are shared by two processes each, so concurrent
//! commands for one lifter race on the workout's version. Reports the latency from handing
//! an event to the process to its response (handler + store), the errors, and then checks the
//! store: every set a response said it logged is done exactly once, and nothing else is.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use coach::domain::workout::SetStatus;
use coach::store::Store;
use devstack::http::{HttpRequest, read_http_request};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::process::Command;

/// What one process still has to send, and what came back.
struct Feed {
    /// (user, message) still to send, in order.
    queue: Vec<(String, String)>,
    /// request id -> (user, message, when the event was handed over).
    in_flight: HashMap<String, (String, String, Instant)>,
    latencies: Vec<Duration>,
    /// (user, status, body) of every answer.
    answers: Vec<(String, u16, Value)>,
    errors: Vec<String>,
    next_id: u64,
}

/// The commands: mostly sets (typed and "done"), some reads and some undos.
fn script(process: usize, commands: usize, users: &[String]) -> Vec<(String, String)> {
    (0..commands)
        .map(|i| {
            let user = users[i % users.len()].clone();
            let text = match i % 10 {
                0..=4 => "done",
                5 | 6 => "8 @ 100 kg rir 2",
                7 => "next",
                _ => "undo",
            };
            (
                user,
                format!("(context: corr=load-{process}-{i} tz=Europe/Stockholm) {text}"),
            )
        })
        .collect()
}

fn event(user: &str, message: &str, request_id: &str) -> String {
    json!({
        "resource": "/v1/copilot", "path": "/v1/copilot", "httpMethod": "POST",
        "headers": {"content-type": "application/json"},
        "multiValueHeaders": {"content-type": ["application/json"]},
        "queryStringParameters": null, "multiValueQueryStringParameters": null,
        "pathParameters": null, "stageVariables": null,
        "requestContext": {
            "resourceId": "r1", "resourcePath": "/v1/copilot", "httpMethod": "POST",
            "path": "/prod/v1/copilot", "accountId": "123456789012", "protocol": "HTTP/1.1",
            "stage": "prod", "requestId": request_id, "apiId": "load",
            "identity": {"sourceIp": "127.0.0.1", "userAgent": "load"},
            "authorizer": {"claims": {"sub": user, "token_use": "id"}}
        },
        "body": json!({ "message": message }).to_string(),
        "isBase64Encoded": false
    })
    .to_string()
}

pub struct Report {
    pub latencies: Vec<Duration>,
    pub answers: Vec<(String, u16, Value)>,
    pub errors: Vec<String>,
    pub wall: Duration,
}

/// Runs `procs` copies of `binary` with `commands` commands each over `users` (each user is
/// driven by two processes), with `env` for the processes.
pub async fn fast(
    binary: &Path,
    procs: usize,
    commands: usize,
    users: &[String],
    env: &[(String, String)],
) -> Result<Report, String> {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for p in 0..procs {
        // Process p drives users p and p+1 (mod the number of users): every user gets two.
        let mine = vec![
            users[p % users.len()].clone(),
            users[(p + 1) % users.len()].clone(),
        ];
        let feed = Arc::new(Mutex::new(Feed {
            queue: script(p, commands, &mine).into_iter().rev().collect(),
            in_flight: HashMap::new(),
            latencies: Vec::new(),
            answers: Vec::new(),
            errors: Vec::new(),
            next_id: 0,
        }));
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let mut child = Command::new(binary)
            .env_clear()
            .env("AWS_LAMBDA_RUNTIME_API", addr.to_string())
            .env("AWS_LAMBDA_FUNCTION_NAME", "fast")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_LOG_STREAM_NAME", "load")
            .env("AWS_LAMBDA_LOG_GROUP_NAME", "load")
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let f = feed.clone();
        tasks.push(tokio::spawn(async move {
            let served = serve_runtime_api(listener, f.clone());
            let done = async {
                loop {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    let f = f.lock().map_err(|_| "poisoned".to_string())?;
                    if f.queue.is_empty() && f.in_flight.is_empty() {
                        return Ok::<(), String>(());
                    }
                }
            };
            let outcome = tokio::select! {
                r = served => r,
                r = done => r,
                _ = tokio::time::sleep(Duration::from_secs(600)) => Err("timed out".into()),
            };
            let _ = child.kill().await;
            outcome.map(|()| feed)
        }));
    }
    let mut report = Report {
        latencies: Vec::new(),
        answers: Vec::new(),
        errors: Vec::new(),
        wall: Duration::ZERO,
    };
    for t in tasks {
        let feed = t.await.map_err(|e| e.to_string())??;
        let mut f = feed.lock().map_err(|_| "poisoned".to_string())?;
        report.latencies.append(&mut f.latencies);
        report.answers.append(&mut f.answers);
        report.errors.append(&mut f.errors);
    }
    report.wall = started.elapsed();
    Ok(report)
}

/// A minimal Lambda Runtime API: `next` hands out the feed's events one at a time, `response`
/// and `error` record what came back.
async fn serve_runtime_api(listener: TcpListener, feed: Arc<Mutex<Feed>>) -> Result<(), String> {
    loop {
        let (sock, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let feed = feed.clone();
        tokio::spawn(async move {
            let _ = connection(sock, feed).await;
        });
    }
}

async fn connection(mut sock: TcpStream, feed: Arc<Mutex<Feed>>) -> Result<(), String> {
    let _ = sock.set_nodelay(true);
    let mut buf = Vec::new();
    loop {
        let Some(HttpRequest {
            method, path, body, ..
        }) = read_http_request(&mut sock, &mut buf).await
        else {
            return Ok(());
        };
        if method == "GET" && path.ends_with("/invocation/next") {
            // Wait for work: an empty queue means the run is over (the process is then killed).
            let next = {
                let mut f = feed.lock().map_err(|_| "poisoned")?;
                f.queue.pop().map(|(user, message)| {
                    f.next_id += 1;
                    let id = format!("load-{}", f.next_id);
                    f.in_flight
                        .insert(id.clone(), (user.clone(), message.clone(), Instant::now()));
                    (id, event(&user, &message, "req"))
                })
            };
            let Some((id, body)) = next else {
                std::future::pending::<()>().await;
                return Ok(());
            };
            let deadline = chrono::Utc::now().timestamp_millis() + 30_000;
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nlambda-runtime-aws-request-id: {id}\r\nlambda-runtime-deadline-ms: {deadline}\r\nlambda-runtime-invoked-function-arn: arn:aws:lambda:us-east-1:123456789012:function:fast\r\nlambda-runtime-trace-id: Root=1-load\r\ncontent-length: {}\r\n\r\n",
                body.len()
            );
            // The clock starts when the event is handed over.
            if let Ok(mut f) = feed.lock()
                && let Some(entry) = f.in_flight.get_mut(&id)
            {
                entry.2 = Instant::now();
            }
            // One write: a head and a body in two segments meet Nagle and delayed ACKs (40 ms).
            let mut answer = head.into_bytes();
            answer.extend_from_slice(body.as_bytes());
            sock.write_all(&answer).await.map_err(|e| e.to_string())?;
            continue;
        }
        let parts: Vec<&str> = path.split('/').collect();
        // /2018-06-01/runtime/invocation/{id}/response | /error
        if method == "POST" && parts.len() >= 6 && parts[3] == "invocation" {
            let id = parts[4].to_string();
            let kind = parts[5];
            let mut f = feed.lock().map_err(|_| "poisoned")?;
            if let Some((user, message, at)) = f.in_flight.remove(&id) {
                let took = at.elapsed();
                f.latencies.push(took);
                let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                if kind == "response" {
                    let status = v["statusCode"].as_u64().unwrap_or(0) as u16;
                    let answer: Value = v["body"]
                        .as_str()
                        .and_then(|b| serde_json::from_str(b).ok())
                        .unwrap_or(Value::Null);
                    if status >= 400 {
                        f.errors.push(format!("{message}: {status} {answer}"));
                    }
                    f.answers.push((user, status, answer));
                } else {
                    f.errors.push(format!("{message}: invocation error {v}"));
                }
            }
        } else if method == "POST" && path.ends_with("/init/error") {
            let mut f = feed.lock().map_err(|_| "poisoned")?;
            f.errors
                .push(format!("init error: {}", String::from_utf8_lossy(&body)));
            f.queue.clear();
            f.in_flight.clear();
        }
        sock.write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
            .await
            .map_err(|e| e.to_string())?;
    }
}

/// Checks the store against the answers: for every user, the sets answers said were logged
/// (minus those an undo said it reverted) are exactly the sets stored as done.
pub async fn consistency(store: &Store, report: &Report) -> Result<String, String> {
    let mut expected: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for (user, status, answer) in &report.answers {
        if *status != 200 {
            continue;
        }
        let per_user = expected.entry(user.clone()).or_default();
        let data = &answer["data"];
        if let Some(id) = data["logged"]["set_id"].as_str() {
            *per_user.entry(id.to_string()).or_default() += 1;
        }
        if let Some(id) = data["undone"]["set_id"].as_str() {
            *per_user.entry(id.to_string()).or_default() -= 1;
        }
    }
    let mut sets = 0;
    let mut problems = Vec::new();
    for (user, counts) in &expected {
        let w = store
            .get_active_workout(user)
            .await
            .map_err(|e| e.to_string())?
            .ok_or(format!("{user}: no active workout"))?;
        let done: Vec<String> = w
            .value
            .exercises
            .iter()
            .flat_map(|e| &e.sets)
            .filter(|s| s.status == SetStatus::Done)
            .map(|s| s.id.clone())
            .collect();
        let want: Vec<String> = counts
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(id, _)| id.clone())
            .collect();
        if counts.values().any(|n| *n > 1 || *n < 0) {
            problems.push(format!(
                "{user}: a set logged twice or undone twice: {counts:?}"
            ));
        }
        let mut got = done.clone();
        got.sort();
        if got != want {
            problems.push(format!(
                "{user}: stored done {} sets, answers say {}",
                got.len(),
                want.len()
            ));
        }
        sets += done.len();
    }
    if problems.is_empty() {
        Ok(format!(
            "consistent: {} users, {sets} sets stored as done, each logged once by exactly one answer",
            expected.len()
        ))
    } else {
        Err(problems.join("; "))
    }
}
