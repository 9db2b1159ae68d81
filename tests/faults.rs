//! Store faults: the lanes reach dynoxide through a fault-injecting proxy (`fault_proxy.rs`):
//! throttling, 500s, connections dropped before or after the store applied the request, and
//! answers that never come. The app retries a failed request as it would (same `corr`). What
//! must hold: every request ends in its answer or a clean error, and no write is duplicated,
//! lost or left half done. (The proxy's record of every lane's store calls goes to the IAM
//! check, `iam.rs`, with every other suite's.)
//!
//! The cases share one proxy and run one at a time, in order.

use std::collections::BTreeSet;
use std::sync::Arc;

use blackbox::fault_proxy::{FAULTS, FaultProxy};
use blackbox::{
    Dynoxide, Stack, call_json, case_name, check, eq, sample_workout, unique_user, unselected,
};
use coach::domain::workout::SetStatus;
use libtest_mimic::{Arguments, Conclusion, Failed, Trial};
use serde_json::{Value, json};

/// Percent of store requests that meet a fault while a case runs.
const FAULT_RATE: u32 = 30;
/// How often the app sends a failed request again.
const APP_RETRIES: usize = 10;

struct Ctx {
    stack: Stack,
    proxy: FaultProxy,
    http: reqwest::Client,
    rt: tokio::runtime::Handle,
}

type Case = fn(&Ctx) -> Result<(), Failed>;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "faults";
    let cases: Vec<(&str, Case)> = vec![
        (
            "a_failed_write_is_a_clean_error_and_changes_nothing",
            a_failed_write_is_a_clean_error_and_changes_nothing,
        ),
        (
            "fast_commands_under_faults_log_each_set_once",
            fast_commands_under_faults_log_each_set_once,
        ),
        (
            "a_lost_answer_without_corr_logs_one_set",
            a_lost_answer_without_corr_logs_one_set,
        ),
        (
            "a_lost_answer_stores_a_coach_turn_or_a_start_once",
            a_lost_answer_stores_a_coach_turn_or_a_start_once,
        ),
        (
            "workout_lifecycle_under_faults_is_whole",
            workout_lifecycle_under_faults_is_whole,
        ),
        (
            "import_under_faults_ends_complete_and_unduplicated",
            import_under_faults_ends_complete_and_unduplicated,
        ),
        (
            "stream_commands_under_faults_log_each_set_once",
            stream_commands_under_faults_log_each_set_once,
        ),
        (
            "every_kind_of_fault_was_injected",
            every_kind_of_fault_was_injected,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    // The cases change the proxy's fault rate: one at a time, and the count of faults last.
    let mut args = args.clone();
    args.test_threads = Some(1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let (stack, proxy) = rt.block_on(async {
        let dynoxide = Dynoxide::start();
        let proxy = FaultProxy::start(&dynoxide.endpoint, 0x5eed_fa17);
        let stack = Stack::start_on(dynoxide, &proxy.endpoint, &[]).await;
        (stack, proxy)
    });
    let ctx = Arc::new(Ctx {
        stack,
        proxy,
        http: blackbox::http_client(),
        rt: rt.handle().clone(),
    });
    // Warm up without faults: the first invocations start the function processes.
    rt.block_on(async {
        let _ = call_json(
            &ctx.http,
            "POST",
            fast_url(&ctx),
            "warmup",
            Some(json!({"message": "next"})),
        )
        .await;
        let _ = call_json(
            &ctx.http,
            "GET",
            format!("{}/v1/workouts/active", ctx.stack.base),
            "warmup",
            None,
        )
        .await;
    });
    let trials = cases
        .into_iter()
        .map(|(name, case)| {
            let ctx = ctx.clone();
            Trial::test(case_name(SUITE, name), move || {
                let result = case(&ctx);
                ctx.proxy.set_rate(0);
                result
            })
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    println!("faults injected over the run: {:?}", ctx.proxy.injected());
    drop(ctx);
    drop(rt);
    conclusion
}

fn fast_url(ctx: &Ctx) -> String {
    format!("{}/v1/copilot", ctx.stack.base)
}

/// Sends a request as the app does: again (the same request) while the answer is a 5xx or no
/// answer at all. Returns the final answer and how many tries it took.
fn with_app_retries(
    ctx: &Ctx,
    method: &str,
    url: &str,
    user: &str,
    body: Option<Value>,
) -> Result<(blackbox::JsonReply, usize), Failed> {
    for attempt in 1..=APP_RETRIES {
        let r = ctx.rt.block_on(call_json(
            &ctx.http,
            method,
            url.to_string(),
            user,
            body.clone(),
        ));
        if r.status < 500 {
            return Ok((r, attempt));
        }
        clean_error(&r)?;
    }
    Err(format!("{method} {url} still failing after {APP_RETRIES} tries").into())
}

/// A failed request answers a JSON error with a code and a message that says what to do.
fn clean_error(r: &blackbox::JsonReply) -> Result<(), Failed> {
    let code = r.body["error"]["code"].as_str().unwrap_or_default();
    let message = r.body["error"]["message"].as_str().unwrap_or_default();
    check(
        !code.is_empty() && message.len() > 10,
        format!("a {} must be a clean JSON error, got {}", r.status, r.body),
    )
}

fn a_failed_write_is_a_clean_error_and_changes_nothing(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("outage");
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-1", 3)),
    )?;
    // Every store request fails before it reaches the store, whatever the retries.
    ctx.proxy
        .set_faults(100, &["throttle", "server_error", "drop_before"]);
    let r = ctx.rt.block_on(call_json(
        &ctx.http,
        "POST",
        fast_url(ctx),
        &user,
        Some(json!({"message": "(context: corr=outage-1) done"})),
    ));
    ctx.proxy.set_rate(0);
    eq(r.status, 503, "status")?;
    eq(
        r.body["error"]["code"].as_str(),
        Some("STORE_UNAVAILABLE"),
        "code",
    )?;
    clean_error(&r)?;
    let w = ctx.rt.block_on(ctx.stack.store.get_active_workout(&user))?;
    let w = w.ok_or("the workout is still there")?;
    eq(w.version, 1, "nothing was written")?;
    // Once the store is back, the same request goes through, once.
    let (r, _) = with_app_retries(
        ctx,
        "POST",
        &fast_url(ctx),
        &user,
        Some(json!({"message": "(context: corr=outage-1) done"})),
    )?;
    eq(r.status, 200, "after the outage")?;
    Ok(())
}

fn fast_commands_under_faults_log_each_set_once(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("faulty-fast");
    const SETS: usize = 30;
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-1", SETS + 5)),
    )?;
    let before: u64 = ctx.proxy.injected().values().sum();
    ctx.proxy.set_rate(FAULT_RATE);
    let mut logged = Vec::new();
    let mut tries = 0;
    for i in 0..SETS {
        let msg = format!(
            "(context: corr=set-{i}) {}",
            if i % 3 == 0 { "done" } else { "8 @ 100" }
        );
        let (r, n) = with_app_retries(
            ctx,
            "POST",
            &fast_url(ctx),
            &user,
            Some(json!({ "message": msg })),
        )?;
        tries += n;
        eq(r.status, 200, &format!("set {i}: {}", r.body))?;
        logged.push(
            r.body["data"]["logged"]["set_id"]
                .as_str()
                .unwrap_or("?")
                .to_string(),
        );
    }
    ctx.proxy.set_rate(0);
    let distinct: BTreeSet<&String> = logged.iter().collect();
    eq(distinct.len(), SETS, "every answer names a different set")?;
    let w = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("the workout")?;
    let done: Vec<&str> = w.value.exercises[0]
        .sets
        .iter()
        .filter(|s| s.status == SetStatus::Done)
        .map(|s| s.id.as_str())
        .collect();
    eq(done.len(), SETS, "sets stored as done")?;
    eq(w.value.changes.len(), SETS, "one change per set")?;
    eq(w.version, SETS as u64 + 1, "one write per set")?;
    let after: u64 = ctx.proxy.injected().values().sum();
    check(
        after >= before + 10,
        format!(
            "faults must have been injected: {} (the app tried {tries} times)",
            after - before
        ),
    )
}

/// "done" without a `corr`: the store applies the transaction but its answer is lost (dropped,
/// or never sent before the SDK's attempt timeout), and the SDK sends the same transaction
/// again. Its `ClientRequestToken` makes that retry the first write's success, so one set is
/// logged, not two.
fn a_lost_answer_without_corr_logs_one_set(ctx: &Ctx) -> Result<(), Failed> {
    for fault in ["drop_after", "stall_after"] {
        let user = unique_user(&format!("lost-{fault}"));
        ctx.rt.block_on(
            ctx.stack
                .store
                .replace_active_workout(&user, &sample_workout("w-1", 3)),
        )?;
        ctx.proxy.fault_next("TransactWriteItems", fault);
        let r = ctx.rt.block_on(call_json(
            &ctx.http,
            "POST",
            fast_url(ctx),
            &user,
            Some(json!({"message": "done"})),
        ));
        eq(r.status, 200, &format!("{fault}: {}", r.body))?;
        eq(
            r.body["data"]["logged"]["set_id"].as_str(),
            Some("bench-1"),
            &format!("{fault}: the first set"),
        )?;
        let w = ctx
            .rt
            .block_on(ctx.stack.store.get_active_workout(&user))?
            .ok_or("the workout")?;
        let done: Vec<&str> = w
            .value
            .exercises
            .iter()
            .flat_map(|e| &e.sets)
            .filter(|s| s.status == SetStatus::Done)
            .map(|s| s.id.as_str())
            .collect();
        eq(done, vec!["bench-1"], &format!("{fault}: one set logged"))?;
        eq(w.version, 2, &format!("{fault}: one write"))?;
    }
    Ok(())
}

/// A coach turn (here a clarification, which needs no model) is stored with a conditional put
/// on its sequence number, and a workout is started with a conditional update. When such a
/// write's answer is lost and the SDK retries it into its own condition, the write is
/// recognised as this request's: the turn is not stored again at the next number, and the
/// start is answered 201.
fn a_lost_answer_stores_a_coach_turn_or_a_start_once(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("lost-turn");
    ctx.proxy.fault_next("PutItem", "drop_after");
    let text = ctx.rt.block_on(async {
        ctx.http
            .post(format!("{}/v1/stream", ctx.stack.base))
            .header("x-user-id", &user)
            .header("content-type", "application/json")
            .body(json!({"message": "delete my workout history"}).to_string())
            .send()
            .await?
            .text()
            .await
    })?;
    let kinds: Vec<String> = blackbox::parse_sse(&text)
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    eq(
        kinds,
        vec!["route".to_string(), "clarification".into(), "done".into()],
        "the clarification",
    )?;
    eq(
        ctx.rt
            .block_on(ctx.stack.store.count_items(&user, "CONV#"))?,
        1,
        "one stored turn",
    )?;
    // Starting a workout is a conditional update: a lost answer is still a 201, not a 409
    // about the workout this request itself started.
    ctx.proxy.fault_next("UpdateItem", "drop_after");
    let r = ctx.rt.block_on(call_json(
        &ctx.http,
        "POST",
        format!("{}/v1/workouts", ctx.stack.base),
        &user,
        Some(json!({"name": "Arms", "exercises": [{"exercise": "dumbbell curl", "sets": 3, "reps": 12}]})),
    ));
    eq(r.status, 201, &format!("start: {}", r.body))?;
    let active = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("started")?;
    eq(
        r.body["workout"]["id"].as_str(),
        Some(active.value.id.as_str()),
        "the answer names the stored workout",
    )
}

/// Start, log and complete a workout under faults: the completed workout is stored once, with
/// its sets, and the active slot is free again.
fn workout_lifecycle_under_faults_is_whole(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("faulty-life");
    let base = format!("{}/v1", ctx.stack.base);
    ctx.proxy.set_rate(FAULT_RATE);
    let (r, _) = with_app_retries(
        ctx,
        "POST",
        &format!("{base}/workouts"),
        &user,
        Some(
            json!({"name": "Arms", "exercises": [{"exercise": "dumbbell curl", "sets": 4, "reps": 12}]}),
        ),
    )?;
    // Started (201; also when the store applied it but the answer was lost and the SDK's retry
    // met its own condition), or, when the app sent it again after a 5xx, a 409 naming the
    // workout its first try created.
    check(
        r.status == 201 || r.status == 409,
        format!("start: {} {}", r.status, r.body),
    )?;
    let (active, _) =
        with_app_retries(ctx, "GET", &format!("{base}/workouts/active"), &user, None)?;
    let id = active.body["workout"]["id"]
        .as_str()
        .ok_or(format!("an active workout: {}", active.body))?
        .to_string();
    for i in 0..4 {
        let (r, _) = with_app_retries(
            ctx,
            "POST",
            &fast_url(ctx),
            &user,
            Some(json!({"message": format!("(context: corr=life-{i}) done")})),
        )?;
        eq(r.status, 200, "log")?;
    }
    let (r, _) = with_app_retries(
        ctx,
        "POST",
        &format!("{base}/workouts/{id}/complete"),
        &user,
        Some(json!({})),
    )?;
    check(
        r.status == 200,
        format!("complete: {} {}", r.status, r.body),
    )?;
    ctx.proxy.set_rate(0);
    let history = ctx.rt.block_on(ctx.stack.store.completed_workouts(&user))?;
    eq(history.len(), 1, "one completed workout")?;
    let done = history[0]
        .exercises
        .iter()
        .flat_map(|e| &e.sets)
        .filter(|s| s.status == SetStatus::Done)
        .count();
    eq(done, 4, "its four logged sets")?;
    let active = ctx.rt.block_on(ctx.stack.store.get_active_workout(&user))?;
    check(active.is_none(), "nothing is active after completing")
}

fn import_under_faults_ends_complete_and_unduplicated(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("faulty-import");
    let last = chrono::NaiveDate::from_ymd_opt(2026, 11, 20).ok_or("date")?;
    let csv = devstack::strong::sample(600, last);
    let url = format!("{}/v1/import/strong?tz=Europe/Berlin", ctx.stack.base);
    ctx.proxy.set_rate(FAULT_RATE);
    let mut answer = None;
    for _ in 0..APP_RETRIES {
        let r = ctx.rt.block_on(async {
            let resp = ctx
                .http
                .post(&url)
                .header("x-user-id", &user)
                .header("content-type", "text/csv")
                .body(csv.clone())
                .send()
                .await?;
            let status = resp.status().as_u16();
            let body: Value = resp.json().await.unwrap_or(Value::Null);
            Ok::<_, reqwest::Error>((status, body))
        })?;
        if r.0 == 200 {
            answer = Some(r.1);
            break;
        }
        check(
            r.0 >= 500 && r.1["error"]["code"].is_string(),
            format!("a failed import is a clean 5xx: {} {}", r.0, r.1),
        )?;
    }
    ctx.proxy.set_rate(0);
    let answer = answer.ok_or("the import never succeeded")?;
    let in_file = answer["workouts"].as_u64().ok_or("summary")? as usize;
    let history = ctx.rt.block_on(ctx.stack.store.completed_workouts(&user))?;
    let ids: BTreeSet<&str> = history.iter().map(|w| w.id.as_str()).collect();
    eq(history.len(), in_file, "every workout of the file, stored")?;
    eq(ids.len(), in_file, "each once")?;
    // The same file again, without faults: nothing new.
    let again = ctx.rt.block_on(async {
        ctx.http
            .post(&url)
            .header("x-user-id", &user)
            .header("content-type", "text/csv")
            .body(csv.clone())
            .send()
            .await?
            .json::<Value>()
            .await
    })?;
    eq(
        again["new_workouts"].as_u64(),
        Some(0),
        "a re-import adds nothing",
    )
}

/// Commands sent to the coach's stream are answered in-process by the fast skill: under faults
/// an answer is a `message` or an `error` event (then the app sends the same message again),
/// and each set is logged once.
fn stream_commands_under_faults_log_each_set_once(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("faulty-stream");
    const SETS: usize = 8;
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-1", SETS + 2)),
    )?;
    let url = format!("{}/v1/stream", ctx.stack.base);
    ctx.proxy.set_rate(FAULT_RATE);
    for i in 0..SETS {
        let body = json!({"message": format!("(context: corr=stream-{i}) done")});
        let mut answered = false;
        for _ in 0..APP_RETRIES {
            let text = ctx.rt.block_on(async {
                ctx.http
                    .post(&url)
                    .header("x-user-id", &user)
                    .header("content-type", "application/json")
                    .body(body.to_string())
                    .send()
                    .await?
                    .text()
                    .await
            })?;
            let events = blackbox::parse_sse(&text);
            let kinds: Vec<&str> = events.iter().map(|(k, _)| k.as_str()).collect();
            check(
                kinds.last() == Some(&"done"),
                format!("a stream always ends with done: {kinds:?}"),
            )?;
            if kinds.contains(&"message") {
                answered = true;
                break;
            }
            check(
                kinds.contains(&"error"),
                format!("no message means an error event: {kinds:?}"),
            )?;
        }
        check(answered, format!("set {i} never answered"))?;
    }
    ctx.proxy.set_rate(0);
    let w = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("the workout")?;
    let done = w.value.exercises[0]
        .sets
        .iter()
        .filter(|s| s.status == SetStatus::Done)
        .count();
    eq(done, SETS, "sets stored as done")?;
    eq(w.version, SETS as u64 + 1, "one write per set")
}

fn every_kind_of_fault_was_injected(ctx: &Ctx) -> Result<(), Failed> {
    let injected = ctx.proxy.injected();
    let missing: Vec<&&str> = FAULTS
        .iter()
        .filter(|f| !injected.contains_key(**f))
        .collect();
    check(
        missing.is_empty(),
        format!("every kind of fault must have been injected; missing {missing:?} ({injected:?})"),
    )
}
