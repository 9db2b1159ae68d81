//! Cold-start harness: a minimal Lambda Runtime API on 127.0.0.1. It starts a function binary
//! and measures the time from process start to its first `GET /runtime/invocation/next`, i.e.
//! the whole init phase, then stops the process. Median of N runs per binary.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use devstack::http::read_http_request;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::process::Command;

pub async fn measure(
    binary: &Path,
    runs: usize,
    env: &[(&str, &str)],
) -> Result<Vec<Duration>, String> {
    let mut out = Vec::with_capacity(runs);
    for _ in 0..runs {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| e.to_string())?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let mut cmd = Command::new(binary);
        cmd.env_clear()
            .env("AWS_LAMBDA_RUNTIME_API", addr.to_string())
            .env("AWS_LAMBDA_FUNCTION_NAME", "coldstart")
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_LOG_STREAM_NAME", "coldstart")
            .env("AWS_LAMBDA_LOG_GROUP_NAME", "coldstart")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let started = Instant::now();
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let accepted =
            tokio::time::timeout(Duration::from_secs(10), first_next_request(&listener)).await;
        let elapsed = started.elapsed();
        let _ = child.kill().await;
        match accepted {
            Ok(Ok(())) => out.push(elapsed),
            Ok(Err(e)) => return Err(e),
            Err(_) => {
                return Err(format!(
                    "{} never asked for an invocation",
                    binary.display()
                ));
            }
        }
    }
    Ok(out)
}

async fn first_next_request(listener: &TcpListener) -> Result<(), String> {
    loop {
        let (mut sock, _) = listener.accept().await.map_err(|e| e.to_string())?;
        let mut buf = Vec::new();
        while let Some(req) = read_http_request(&mut sock, &mut buf).await {
            if req.method == "GET" && req.path.ends_with("/runtime/invocation/next") {
                return Ok(());
            }
            let _ = sock
                .write_all(b"HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n")
                .await;
        }
    }
}

pub fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}
