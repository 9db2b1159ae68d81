//! No answer carries internal text. Every route is driven while the store refuses the function
//! (AccessDenied or an unknown table, in AWS's own words: account id, role and table ARNs) and
//! while the queue refuses it (SQS AccessDenied naming the queue's ARN); every body, streamed
//! or not, is scanned for what must stay in the logs: ARNs, the account id, hosts and URLs, SDK
//! error names and Rust error chains.

use blackbox::fake_sqs::RefusingSqs;
use blackbox::fault_proxy::{FaultProxy, REFUSALS};
use blackbox::{
    Dynoxide, Stack, check, eq, run_cases, sample_workout, test_runtime, unique_user, unselected,
};
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::json;

struct Ctx {
    stack: Stack,
    proxy: FaultProxy,
    sqs: RefusingSqs,
    http: reqwest::Client,
    rt: tokio::runtime::Handle,
}

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "leaks";
    let cases: Vec<blackbox::Case<Ctx>> = vec![(
        "no_answer_repeats_the_store_or_the_queue",
        no_answer_repeats_the_store_or_the_queue,
    )];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let rt = test_runtime();
    let sqs = RefusingSqs::start();
    let (stack, proxy) = rt.block_on(async {
        let dynoxide = Dynoxide::start();
        let proxy = FaultProxy::start(&dynoxide.endpoint, 0x1ea4);
        let env = [
            (
                "QUEUE_URL",
                "https://sqs.us-east-1.amazonaws.com/123456789012/coach-jobs".to_string(),
            ),
            ("AWS_ENDPOINT_URL_SQS", sqs.endpoint.clone()),
        ];
        let stack = Stack::start_on(dynoxide, &proxy.endpoint, &env).await;
        (stack, proxy)
    });
    let ctx = Ctx {
        stack,
        proxy,
        sqs,
        http: blackbox::http_client(),
        rt: rt.handle().clone(),
    };
    // One case: the store's refusals are switched on for the first part only.
    run_cases(args, SUITE, rt, ctx, cases)
}

/// What only logs may hold.
const FORBIDDEN: [&str; 19] = [
    "arn:",
    "123456789012",
    "amazonaws",
    "assumed-role",
    "not authorized",
    "coach-jobs",
    "CoachTest",
    "127.0.0.1",
    "localhost",
    "http://",
    "https://",
    "Exception",
    "service error",
    "dispatch failure",
    "ServiceError",
    "SdkError",
    "DisplayErrorContext",
    "Caused by",
    "panicked",
];

/// One request as the app sends it; the raw answer, whatever its type.
fn send(
    ctx: &Ctx,
    method: &str,
    path: &str,
    user: &str,
    body: Option<(&str, String)>,
) -> (u16, String) {
    let url = format!("{}{path}", ctx.stack.base);
    ctx.rt.block_on(async {
        let mut req = match method {
            "GET" => ctx.http.get(url),
            _ => ctx.http.post(url),
        }
        .header("x-user-id", user);
        if let Some((content_type, b)) = body {
            req = req.header("content-type", content_type).body(b);
        }
        match req.send().await {
            Ok(resp) => {
                let status = resp.status().as_u16();
                (status, resp.text().await.unwrap_or_default())
            }
            Err(e) => (0, format!("no answer: {e}")),
        }
    })
}

/// A request body: its content type and text.
type Body = Option<(&'static str, String)>;

fn json_body(v: serde_json::Value) -> Body {
    Some(("application/json", v.to_string()))
}

/// Every route of the API, with a request that reaches the store (and, for completion and
/// import, the queue).
fn every_route() -> Vec<(&'static str, String, Body)> {
    let message = |m: &str| json_body(json!({ "message": m }));
    let recent = chrono::Utc::now() - chrono::Duration::days(2);
    let csv = format!(
        "Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n{},Push,Bench Press (Barbell),1,100,5\n",
        recent.format("%Y-%m-%d %H:%M:%S")
    );
    vec![
        ("POST", "/v1/copilot".into(), message("done")),
        ("POST", "/v1/copilot".into(), message("next")),
        (
            "POST",
            "/v1/copilot".into(),
            message("(context: corr=leak-1) 8 @ 100"),
        ),
        ("POST", "/v1/stream".into(), message("done")),
        (
            "POST",
            "/v1/stream".into(),
            message("how is my bench going?"),
        ),
        (
            "POST",
            "/v1/stream".into(),
            message("delete my workout history"),
        ),
        (
            "POST",
            "/v1/stream".into(),
            message(r#"{"intent":"SUGGEST_WEIGHT","exercise_id":"bench press","target_reps":5}"#),
        ),
        (
            "POST",
            "/v1/functional".into(),
            message(r#"{"intent":"SUGGEST_WEIGHT","exercise_id":"bench press","target_reps":5}"#),
        ),
        (
            "POST",
            "/v1/functional".into(),
            message(
                r#"{"intent":"SWAP_EXERCISE","target":"Bench Press","exercise_instance_id":"ex-bench"}"#,
            ),
        ),
        (
            "POST",
            "/v1/functional".into(),
            message(r#"{"intent":"AUTOFILL_SET","exercise_instance_id":"ex-bench","set_index":1}"#),
        ),
        (
            "POST",
            "/v1/functional".into(),
            message(r#"{"event_type":"SET_COMPLETED","state_diff":{}}"#),
        ),
        (
            "POST",
            "/v1/events".into(),
            json_body(json!({"type": "app_opened"})),
        ),
        (
            "POST",
            "/v1/events".into(),
            json_body(json!({"type": "rating_submitted", "value": 3})),
        ),
        (
            "POST",
            "/v1/workouts".into(),
            json_body(json!({"exercises": [{"exercise": "dumbbell curl", "sets": 3, "reps": 12}]})),
        ),
        ("GET", "/v1/workouts/active".into(), None),
        (
            "POST",
            "/v1/workouts/w-leak/complete".into(),
            json_body(json!({})),
        ),
        (
            "POST",
            "/v1/artifacts/a-20261122101500-0a1b2/confirm".into(),
            json_body(json!({"content_hash": "00"})),
        ),
        (
            "POST",
            "/v1/artifacts/a-20261122101500-0a1b2/dismiss".into(),
            None,
        ),
        ("GET", "/v1/insights?limit=5".into(), None),
        ("GET", "/v1/notifications?limit=5".into(), None),
        (
            "POST",
            "/v1/import/strong?tz=UTC&unit=kg".into(),
            Some(("text/csv", csv)),
        ),
    ]
}

/// Checks one answer: a status, and nothing internal in its body.
fn clean(what: &str, status: u16, body: &str) -> Result<(), Failed> {
    check(status != 0, format!("{what}: {body}"))?;
    for word in FORBIDDEN {
        check(
            !body.contains(word),
            format!("{what} answered {status} with '{word}' in it: {body}"),
        )?;
    }
    Ok(())
}

fn no_answer_repeats_the_store_or_the_queue(ctx: &Ctx) -> Result<(), Failed> {
    let stored = no_answer_repeats_the_stores_refusal(ctx);
    ctx.proxy.set_rate(0);
    stored?;
    no_answer_repeats_the_queues_refusal(ctx)
}

fn no_answer_repeats_the_stores_refusal(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("leak-store");
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-leak", 3)),
    )?;
    let mut failed = 0;
    for refusal in REFUSALS {
        ctx.proxy.set_faults(100, &[refusal]);
        for (method, path, body) in every_route() {
            let (status, text) = send(ctx, method, &path, &user, body);
            clean(&format!("{refusal}: {method} {path}"), status, &text)?;
            // A refused store is a 5xx, or (on the stream) an error event.
            if status >= 500 || text.contains("event: error") {
                failed += 1;
            }
        }
    }
    let routes = every_route().len();
    eq(
        failed,
        REFUSALS.len() * routes,
        "every request met the refusal",
    )
}

fn no_answer_repeats_the_queues_refusal(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("leak-queue");
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-leak", 3)),
    )?;
    let before = ctx.sqs.calls();
    let routes = every_route();
    for (method, path, body) in routes {
        let (status, text) = send(ctx, method, &path, &user, body);
        clean(&format!("queue refused: {method} {path}"), status, &text)?;
        if path.contains("/complete") {
            eq(status, 503, &format!("completion: {text}"))?;
            check(
                text.contains("QUEUE_UNAVAILABLE"),
                format!("completion: {text}"),
            )?;
        }
        if path.contains("/import/") {
            eq(status, 200, &format!("import: {text}"))?;
            let b: serde_json::Value = serde_json::from_str(&text)?;
            eq(
                b["reviews"]["error"].as_str(),
                Some("QUEUE_UNAVAILABLE"),
                "the import says the reviews were not queued",
            )?;
            eq(b["reviews"]["enqueued"].as_u64(), Some(0), "none queued")?;
        }
    }
    check(
        ctx.sqs.calls() >= before + 2,
        "the completion and the import reached the queue",
    )
}
