//! End-to-end latency of `/v1/copilot` "done" on the local stack: every request logs a set
//! (read, apply, conditional transactional write), so the figure includes the store round trips.

use std::time::{Duration, Instant};

use chrono::Utc;
use coach::domain::workout::{
    ExerciseInstance, SetTarget, SetType, Workout, WorkoutSet, WorkoutStatus,
};
use coach::store::Store;

fn workout(sets: usize) -> Workout {
    let per_exercise = 50;
    let exercises = (0..sets.div_ceil(per_exercise))
        .map(|e| ExerciseInstance {
            instance_id: format!("e2e-{e}"),
            exercise_id: "barbell-bench-press".into(),
            name: "Bench Press".into(),
            sets: (0..per_exercise.min(sets - e * per_exercise))
                .map(|s| {
                    WorkoutSet::planned(
                        format!("e2e-{e}-{s}"),
                        SetType::Working,
                        SetTarget {
                            reps: Some(8),
                            weight_kg: Some(100.0),
                            rir: Some(2),
                        },
                    )
                })
                .collect(),
            notes: None,
        })
        .collect();
    Workout {
        id: "e2e".into(),
        name: "Latency run".into(),
        status: WorkoutStatus::Active,
        started_at: Utc::now(),
        completed_at: None,
        template_id: None,
        routine_id: None,
        exercises,
        changes: Vec::new(),
    }
}

pub async fn run(store: &Store, url: &str, n: usize) -> Result<(), String> {
    let user = format!("e2e-{}", Utc::now().timestamp());
    store
        .replace_active_workout(&user, &workout(n))
        .await
        .map_err(|e| e.to_string())?;
    let http = reqwest::Client::new();
    let mut times: Vec<Duration> = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let resp = http
            .post(url)
            .header("content-type", "text/plain")
            .header("x-user-id", &user)
            .body("done")
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = resp.status();
        let body = resp.text().await.map_err(|e| e.to_string())?;
        times.push(t.elapsed());
        if !status.is_success() || !body.contains("Logged") {
            return Err(format!("unexpected answer {status}: {body}"));
        }
    }
    let done = store
        .get_active_workout(&user)
        .await
        .map_err(|e| e.to_string())?
        .map(|v| v.version)
        .unwrap_or(0);
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{n} sequential \"done\" requests, each logging a set (stored version {done}): median {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(times[n / 2]),
        ms(times[(n * 99 / 100).min(n - 1)]),
        ms(times[n - 1])
    );
    Ok(())
}
