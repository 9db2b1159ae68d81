//! `devstack smoke` (`make smoke API=... TOKEN=...`): a short journey against a running API, local
//! or deployed, as the app would make it: start a workout, log sets with commands, press a
//! button, send a command over the event stream, complete the workout, and find its insight
//! card. Each step prints one line; the first failure stops the run with what was answered.
//! Deployed, the identity is a Cognito ID token (`--token`); locally, `--user` (`x-user-id`).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Who the requests are sent as.
pub enum Identity {
    /// A Cognito ID token, sent in `Authorization` (the deployed API's authorizer).
    Token(String),
    /// A user id in `x-user-id` (the local stack, `AUTH_MODE=dev`).
    User(String),
}

impl Identity {
    /// For a terminal line: the user id, never the token.
    pub fn describe(&self) -> String {
        match self {
            Identity::Token(_) => "the token's user".to_string(),
            Identity::User(u) => u.clone(),
        }
    }

    /// The header that carries it.
    pub fn header(&self) -> (&'static str, &str) {
        match self {
            Identity::Token(t) => ("authorization", t),
            Identity::User(u) => ("x-user-id", u),
        }
    }
}

/// How long the insight card may take (deployed, the worker runs from the queue).
const CARD_WAIT: Duration = Duration::from_secs(60);

struct Api {
    http: reqwest::Client,
    base: String,
    who: Identity,
}

impl Api {
    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let (name, value) = self.who.header();
        self.http
            .request(method, format!("{}{path}", self.base.trim_end_matches('/')))
            .header(name, value)
    }

    async fn json(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<(u16, Value), String> {
        let mut rb = self.request(method.clone(), path);
        if let Some(b) = body {
            rb = rb
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let resp = rb
            .send()
            .await
            .map_err(|e| format!("{method} {path}: no answer: {e}"))?;
        let status = resp.status().as_u16();
        Ok((status, resp.json().await.unwrap_or(Value::Null)))
    }
}

fn expect(step: &str, status: u16, want: &[u16], body: &Value) -> Result<(), String> {
    if want.contains(&status) {
        Ok(())
    } else {
        Err(format!("{step}: HTTP {status}: {body}"))
    }
}

/// Runs the journey; `Ok` holds the lines it printed.
#[expect(
    clippy::too_many_lines,
    reason = "the journey's steps in the order a lifter takes them"
)]
pub async fn run(base: &str, who: Identity) -> Result<Vec<String>, String> {
    let api = Api {
        http: reqwest::Client::new(),
        base: base.to_string(),
        who,
    };
    let mut lines = Vec::new();
    let mut say = |line: String| {
        println!("{line}");
        lines.push(line);
    };
    let started = Instant::now();
    use reqwest::Method as M;

    // A workout already running (an earlier smoke run that stopped) is finished first.
    let (status, body) = api.json(M::GET, "/v1/workouts/active", None).await?;
    expect("the active workout", status, &[200], &body)?;
    if let Some(id) = body["workout"]["id"].as_str() {
        let (s, b) = api
            .json(
                M::POST,
                &format!("/v1/workouts/{id}/complete"),
                Some(json!({})),
            )
            .await?;
        expect("finishing the earlier workout", s, &[200, 202], &b)?;
    }
    let (status, body) = api
        .json(
            M::POST,
            "/v1/workouts",
            Some(json!({"name": "Smoke test", "exercises": [
                {"exercise_id": "barbell-bench-press", "sets": 2, "reps": 5},
                {"exercise_id": "barbell-row", "sets": 1, "reps": 8},
            ]})),
        )
        .await?;
    expect("starting a workout", status, &[201], &body)?;
    let workout = body["workout"]["id"]
        .as_str()
        .ok_or_else(|| format!("starting a workout: no id in {body}"))?
        .to_string();
    say(format!("started workout {workout}"));

    for command in ["5 @ 60 kg", "done", "8 @ 50"] {
        let (status, body) = api
            .json(M::POST, "/v1/copilot", Some(json!({ "message": command })))
            .await?;
        expect(&format!("command {command:?}"), status, &[200], &body)?;
        say(format!(
            "{command:?}: {}",
            body["text"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .next()
                .unwrap_or_default()
        ));
    }

    let button =
        json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "barbell-bench-press", "target_reps": 5});
    let (status, body) = api.json(M::POST, "/v1/functional", Some(button)).await?;
    expect("a smart button", status, &[200], &body)?;
    say(format!(
        "button SUGGEST_WEIGHT: {}",
        body["text"].as_str().unwrap_or("answered")
    ));

    let kinds = stream(&api, "next").await?;
    if kinds.first().map(String::as_str) != Some("route")
        || kinds.last().map(String::as_str) != Some("done")
        || !kinds.iter().any(|k| k == "message")
    {
        return Err(format!(
            "the stream: events {kinds:?}, want route … message … done"
        ));
    }
    say(format!("stream \"next\": {}", kinds.join(" → ")));

    let (status, body) = api
        .json(
            M::POST,
            &format!("/v1/workouts/{workout}/complete"),
            Some(json!({})),
        )
        .await?;
    expect("completing the workout", status, &[200, 202], &body)?;
    say(format!(
        "completed; job {}",
        body["job"]["status"].as_str().unwrap_or("?")
    ));

    let waited = Instant::now();
    loop {
        let (status, body) = api.json(M::GET, "/v1/insights?limit=5", None).await?;
        expect("the insight cards", status, &[200], &body)?;
        let found = body["items"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["workout_id"].as_str() == Some(workout.as_str()));
        if let Some(card) = found {
            say(format!(
                "insight card: {}",
                card["summary"].as_str().unwrap_or("(no summary)")
            ));
            break;
        }
        if waited.elapsed() > CARD_WAIT {
            return Err(format!(
                "no insight card for {workout} after {} s: {body}",
                CARD_WAIT.as_secs()
            ));
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    say(format!(
        "smoke: ok in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(lines)
}

/// One message over `POST /v1/stream`: the event types in order.
async fn stream(api: &Api, message: &str) -> Result<Vec<String>, String> {
    let resp = api
        .request(reqwest::Method::POST, "/v1/stream")
        .header("content-type", "application/json")
        .body(json!({ "message": message }).to_string())
        .send()
        .await
        .map_err(|e| format!("the stream: no answer: {e}"))?;
    if !resp.status().is_success() {
        let status = resp.status();
        return Err(format!(
            "the stream: HTTP {status}: {}",
            resp.text().await.unwrap_or_default()
        ));
    }
    let mut kinds = Vec::new();
    crate::events::each_event(resp, |v| {
        kinds.push(v["type"].as_str().unwrap_or("?").to_string())
    })
    .await?;
    Ok(kinds)
}
