//! Where a cold start goes: the init steps the lane binaries take, in their order, each timed in
//! a fresh process (this binary again, `init-profile --child`), median of N runs per step; then
//! the first invocation's share: the fast lane's first store call (BatchGetItem) against a
//! canned local endpoint, which builds the SDK's connection pool and TLS configuration, and a
//! second one for comparison. Clients are built exactly as the lanes build them. The model
//! lanes' read of their API key from Secrets Manager is timed against the same endpoint (a
//! loopback round trip: on AWS the call to Secrets Manager's regional endpoint adds its own).

use std::time::{Duration, Instant};

use tokio::process::Command;

/// Runs the steps once and prints `step microseconds` lines (the child's side).
pub async fn child() {
    let mut steps: Vec<(&str, Duration)> = Vec::new();
    let mut t = Instant::now();
    let mut lap = |name, steps: &mut Vec<(&str, Duration)>| {
        steps.push((name, t.elapsed()));
        t = Instant::now();
    };
    coach::telemetry::init();
    lap("tracing subscriber", &mut steps);
    let aws = coach::store::aws_config_from_env("profile").await;
    lap("aws_config (env, region, credentials chain)", &mut steps);
    let store = coach::store::Store::from_config(&aws, "Coach");
    lap("DynamoDB client", &mut steps);
    let config = coach::config::Config::from_env();
    lap("configuration (environment)", &mut steps);
    let Ok(config) = config else {
        eprintln!("the configuration was not read: {config:?}");
        return;
    };
    let queue = coach::queue::JobQueue::new(&aws, &config.queue);
    lap("SQS client (QUEUE_URL set)", &mut steps);
    let push = coach::push::Push::new(&aws, config.push.clone());
    lap("SNS client (NOTIFY_TOPIC_ARN set)", &mut steps);
    let http = coach::llm::http_client();
    lap("model HTTP client (reqwest)", &mut steps);
    let bedrock = coach::llm::ModelConfig::from_vars(coach::llm::ModelLane::Slow, |k| match k {
        "SLOW_MODEL" => Some("amazon.nova-lite-v1:0".into()),
        "MODEL_PROVIDER" => Some("bedrock".into()),
        _ => None,
    })
    .ok()
    .flatten()
    .map(|c| coach::llm::ModelClients::new(&aws, None).model(c));
    lap(
        "Bedrock client (MODEL_PROVIDER=bedrock, instead of the HTTP one)",
        &mut steps,
    );
    let key = coach::secrets::model_api_key(&aws, &config, &[coach::llm::ModelLane::Slow]).await;
    lap(
        "model API key from Secrets Manager (client and GetSecretValue, local endpoint)",
        &mut steps,
    );
    if !matches!(key, Ok(Some(_))) {
        eprintln!("the canned secret was not read: {key:?}");
    }
    let n = coach::domain::catalog::catalog().len();
    lap(
        "exercise catalog parse (first request that needs it)",
        &mut steps,
    );
    let now = chrono::Utc::now();
    let first = store.copilot_state("profile", None, now).await.is_ok();
    lap(
        "first store call (connector, TLS roots, BatchGetItem)",
        &mut steps,
    );
    let second = store.copilot_state("profile", None, now).await.is_ok();
    lap("second store call, for comparison", &mut steps);
    if !(first && second) {
        eprintln!("the canned store call failed");
    }
    std::hint::black_box((&store, &queue, &push, &http, &bedrock, n, &key));
    for (name, d) in steps {
        println!("{}\t{name}", d.as_micros());
    }
}

/// Runs `runs` children and prints the median of each step (the parent's side).
pub async fn measure(runs: usize, env: &[(&str, &str)]) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    // A canned DynamoDB endpoint: every BatchGetItem finds nothing.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let endpoint = format!(
        "http://{}",
        listener.local_addr().map_err(|e| e.to_string())?
    );
    let server = tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                let mut buf = Vec::new();
                while let Some(req) = devstack::http::read_http_request(&mut sock, &mut buf).await {
                    // Secrets Manager (JSON 1.1) or DynamoDB (JSON 1.0), by the operation.
                    let (kind, body) = if req.header("x-amz-target").starts_with("secretsmanager.")
                    {
                        (
                            "1.1",
                            r#"{"ARN":"arn:aws:secretsmanager:us-east-1:123456789012:secret:k-AbCdEf","Name":"k","SecretString":"profile-key","VersionId":"v1"}"#,
                        )
                    } else {
                        ("1.0", r#"{"Responses":{"Coach":[]},"UnprocessedKeys":{}}"#)
                    };
                    let answer = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/x-amz-json-{kind}\r\ncontent-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    if sock.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    let mut table: Vec<(String, Vec<u64>)> = Vec::new();
    for _ in 0..runs {
        let out = Command::new(&exe)
            .args(["init-profile", "--child"])
            .env_clear()
            .envs(env.iter().copied())
            .env("AWS_ENDPOINT_URL_DYNAMODB", &endpoint)
            .env("AWS_ENDPOINT_URL_SECRETS_MANAGER", &endpoint)
            .env(
                "MODEL_API_KEY_SECRET_ARN",
                "arn:aws:secretsmanager:us-east-1:123456789012:secret:k-AbCdEf",
            )
            .env("SLOW_MODEL", "profile-model")
            .output()
            .await
            .map_err(|e| format!("cannot run the profile child: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        for (i, line) in text.lines().enumerate() {
            let Some((us, name)) = line.split_once('\t') else {
                continue;
            };
            let us: u64 = us.parse().map_err(|_| format!("bad line {line:?}"))?;
            if table.len() <= i {
                table.push((name.to_string(), Vec::new()));
            }
            table[i].1.push(us);
        }
    }
    println!("| init step (in the lanes' order) | median µs ({runs} fresh processes) |");
    println!("|---|---|");
    let mut total = 0;
    for (name, mut v) in table {
        v.sort_unstable();
        let median = v.get(v.len() / 2).copied().unwrap_or(0);
        total += median;
        println!("| {name} | {median} |");
    }
    println!("| sum of medians | {total} |");
    server.abort();
    Ok(())
}
