//! Where a cold start goes: the init steps the lane binaries take, in their order, each timed in
//! a fresh process (this binary again, `init-profile --child`), median of N runs per step.
//! Clients are built exactly as the lanes build them; nothing is sent.

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
    let queue = coach::queue::JobQueue::from_env(&aws);
    lap("SQS client (QUEUE_URL set)", &mut steps);
    let push = coach::push::Push::from_env(&aws);
    lap("SNS client (NOTIFY_TOPIC_ARN set)", &mut steps);
    let http = coach::llm::http_client();
    lap("model HTTP client (reqwest)", &mut steps);
    let n = coach::domain::catalog::catalog().len();
    lap("exercise catalog parse", &mut steps);
    std::hint::black_box((&store, &queue, &push, &http, n));
    for (name, d) in steps {
        println!("{}\t{name}", d.as_micros());
    }
}

/// Runs `runs` children and prints the median of each step (the parent's side).
pub async fn measure(runs: usize, env: &[(&str, &str)]) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut table: Vec<(String, Vec<u64>)> = Vec::new();
    for _ in 0..runs {
        let out = Command::new(&exe)
            .args(["init-profile", "--child"])
            .env_clear()
            .envs(env.iter().copied())
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
    Ok(())
}
