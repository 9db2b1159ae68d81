//! End-to-end latency on the local stack, store round trips included:
//! - `/v1/copilot` "done": every request logs a set (read, apply, conditional transactional write);
//! - the functional lane: each smart-button intent, the monitor, an app event and the active
//!   workout, for a user loaded with the demo data (8 weeks of history).

use std::time::{Duration, Instant};

use chrono::Utc;
use coach::domain::workout::{
    ExerciseInstance, SetTarget, SetType, Workout, WorkoutSet, WorkoutStatus,
};
use coach::store::Store;

pub(crate) fn workout(sets: usize) -> Workout {
    let per_exercise = 50;
    let exercises = (0..sets.div_ceil(per_exercise))
        .map(|e| ExerciseInstance {
            group: None,
            rest: None,
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
            rep_range: None,
            primary_muscles: Vec::new(),
        })
        .collect();
    Workout {
        current_exercise: None,
        bodyweight_kg: None,
        id: "e2e".into(),
        name: "Latency run".into(),
        status: WorkoutStatus::Active,
        started_at: Utc::now(),
        completed_at: None,
        template_id: None,
        routine_id: None,
        exercises,
        changes: Vec::new(),
        notes: None,
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

/// Median and p99 of `n` sequential requests per functional intent.
pub async fn run_functional(store: &Store, base: &str, n: usize) -> Result<(), String> {
    let user = format!("e2e-fn-{}", Utc::now().timestamp());
    devstack::demo::load_for(store, &user, Utc::now())
        .await
        .map_err(|e| e.to_string())?;
    let http = reqwest::Client::new();
    let button = |payload: serde_json::Value| {
        Some(serde_json::json!({ "message": payload.to_string() }).to_string())
    };
    let cases: [(&str, &str, Option<String>); 6] = [
        (
            "SUGGEST_WEIGHT",
            "/functional",
            button(
                serde_json::json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "barbell-bench-press", "target_reps": 5}),
            ),
        ),
        (
            "AUTOFILL_SET",
            "/functional",
            button(
                serde_json::json!({"intent": "AUTOFILL_SET", "exercise_instance_id": "demo-a0", "set_index": 4}),
            ),
        ),
        (
            "SWAP_EXERCISE (ranked, not applied)",
            "/functional",
            button(
                serde_json::json!({"intent": "SWAP_EXERCISE", "target": "Overhead Press", "constraint": "dumbbell"}),
            ),
        ),
        (
            "MONITOR_STATE (SET_COMPLETED)",
            "/functional",
            button(serde_json::json!({"event_type": "SET_COMPLETED", "state_diff": {}})),
        ),
        (
            "app event (card_tapped, logged)",
            "/events",
            Some(
                serde_json::json!({"type": "card_tapped", "intervention_key": "energy_checkin"})
                    .to_string(),
            ),
        ),
        ("GET /v1/workouts/active", "/workouts/active", None),
    ];
    println!("| request | median ms | p99 ms |\n|---|---|---|");
    for (name, path, body) in cases {
        let url = format!("{base}{path}");
        let mut times: Vec<Duration> = Vec::with_capacity(n);
        for _ in 0..n {
            let req = match &body {
                Some(b) => http
                    .post(&url)
                    .header("content-type", "application/json")
                    .body(b.clone()),
                None => http.get(&url),
            }
            .header("x-user-id", &user);
            let t = Instant::now();
            let resp = req.send().await.map_err(|e| e.to_string())?;
            let status = resp.status();
            let text = resp.text().await.map_err(|e| e.to_string())?;
            times.push(t.elapsed());
            if !status.is_success() {
                return Err(format!("{name}: unexpected answer {status}: {text}"));
            }
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "| {name} | {:.2} | {:.2} |",
            ms(times[n / 2]),
            ms(times[(n * 99 / 100).min(n - 1)])
        );
    }
    Ok(())
}
