//! The weekly fan-out at scale (`scripts/bench.sh fanout`): a roster of N lifters seeded on the
//! local store, then the fan-out run as the worker runs it, each invocation within the worker's
//! time budget and continued through the queue, until every lifter's review is queued. The
//! queue is whatever `QUEUE_URL` and `AWS_ENDPOINT_URL_SQS` name (the bench's fake SQS).

use std::time::{Duration, Instant};

use chrono::Utc;
use coach::app::jobs::Report;
use coach::queue::FanOut;

/// Seeds `lifters` on this week's roster (`seed`), or fans out over the roster with `budget` an
/// invocation: two processes, so that the fan-out's memory is its own.
pub async fn run(lifters: usize, budget: Duration, seed: bool) -> Result<(), String> {
    let config = coach::config::Config::from_env()?;
    let store = coach::store::Store::from_env("devstack", config.table.clone()).await;
    store.ensure_table().await.map_err(|e| e.to_string())?;
    let lane = coach::lanes::worker::WorkerLane::from_config(&config).await?;
    let now = Utc::now();
    let seeding = Instant::now();
    if seed {
        let users: Vec<String> = (0..lifters).map(|i| format!("fanout-{i:07}")).collect();
        store
            .enrol_in_roster(&users, now)
            .await
            .map_err(|e| e.to_string())?;
    }
    let seeded = seeding.elapsed();
    if seed {
        println!(
            "roster of {lifters} seeded in {:.1} s (BatchWriteItem, 25 a request, 4 in flight)",
            seeded.as_secs_f64()
        );
        return Ok(());
    }
    let mut f = FanOut {
        week_ending: None,
        after: None,
    };
    let mut runs: Vec<(Duration, u64)> = Vec::new();
    let started = Instant::now();
    loop {
        let t = Instant::now();
        let report = lane
            .jobs()
            .fan_out(&f, t + budget, now)
            .await
            .map_err(|e| e.to_string())?;
        let Report::Done(v, _) = report else {
            return Err("the fan-out reported no work".into());
        };
        runs.push((t.elapsed(), v["handled"].as_u64().unwrap_or(0)));
        match v["continued_after"].as_str() {
            Some(after) if runs.len() < 1_000 => {
                f = FanOut {
                    week_ending: v["week_ending"].as_str().and_then(|d| d.parse().ok()),
                    after: Some(after.to_string()),
                };
            }
            _ => break,
        }
    }
    let total = started.elapsed();
    let queued: u64 = runs.iter().map(|(_, n)| n).sum();
    let longest = runs.iter().map(|(d, _)| *d).max().unwrap_or_default();
    println!(
        "fan-out: {queued} reviews queued in {:.1} s over {} invocation(s); the longest {:.1} s against the worker's budget of {} s",
        total.as_secs_f64(),
        runs.len(),
        longest.as_secs_f64(),
        budget.as_secs()
    );
    for (i, (d, n)) in runs.iter().enumerate() {
        println!(
            "  invocation {}: {n} queued in {:.1} s",
            i + 1,
            d.as_secs_f64()
        );
    }
    if queued != lifters as u64 {
        return Err(format!("{queued} reviews queued for {lifters} lifters"));
    }
    Ok(())
}
