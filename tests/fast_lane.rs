//! Black-box tests of the fast binary: HTTP requests through `cargo lambda watch`, as the app
//! sends them, against a dynoxide; outcomes checked in the responses and in the stored workout.
//! One stack serves every case and is stopped before the process exits.

use blackbox::{
    HttpCtx, check, eq, run_cases, sample_workout, test_runtime, unique_user, unselected,
    workspace_root,
};
use coach::domain::profile::Profile;
use coach::domain::units::Unit;
use coach::domain::workout::SetStatus;
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

type Ctx = HttpCtx;

type Case = fn(&Ctx) -> Result<(), Failed>;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "fast_lane";
    let cases: Vec<(&'static str, Case)> = vec![
        (
            "full_workout_logged_by_commands",
            full_workout_logged_by_commands,
        ),
        (
            "shorthand_in_pounds_is_stored_in_kg",
            shorthand_in_pounds_is_stored_in_kg,
        ),
        (
            "undo_reverts_the_last_logged_set",
            undo_reverts_the_last_logged_set,
        ),
        (
            "a_name_many_exercises_share_is_a_question",
            a_name_many_exercises_share_is_a_question,
        ),
        (
            "skip_moves_on_and_next_reads_only",
            skip_moves_on_and_next_reads_only,
        ),
        (
            "no_active_workout_is_a_reply_without_a_write",
            no_active_workout_is_a_reply_without_a_write,
        ),
        (
            "concurrent_done_logs_distinct_sets",
            concurrent_done_logs_distinct_sets,
        ),
        (
            "retried_request_returns_the_first_answer",
            retried_request_returns_the_first_answer,
        ),
        (
            "a_retry_replays_after_the_next_workout_started",
            a_retry_replays_after_the_next_workout_started,
        ),
        (
            "corr_reused_for_another_command_is_refused",
            corr_reused_for_another_command_is_refused,
        ),
        (
            "prefix_workout_id_must_be_the_active_one",
            prefix_workout_id_must_be_the_active_one,
        ),
        ("monitor_skip_is_silent", monitor_skip_is_silent),
        (
            "not_a_command_points_to_the_right_lane",
            not_a_command_points_to_the_right_lane,
        ),
        (
            "bad_input_is_a_clear_4xx_and_writes_nothing",
            bad_input_is_a_clear_4xx_and_writes_nothing,
        ),
        (
            "every_sample_event_through_cargo_lambda_invoke",
            every_sample_event_through_cargo_lambda_invoke,
        ),
        (
            "stream_without_a_model_says_how_to_configure_one",
            stream_without_a_model_says_how_to_configure_one,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let rt = test_runtime();
    let ctx = HttpCtx::start(&rt);
    // Warm up: the first invocation starts the function process.
    let _ = rt.block_on(post(&ctx, "warmup", json!({"message": "next"})));
    run_cases(args, SUITE, rt, ctx, cases)
}

struct Reply {
    status: u16,
    body: Value,
    replayed: bool,
}

async fn send(ctx: &Ctx, user: Option<&str>, content_type: &'static str, body: String) -> Reply {
    send_owned(
        ctx.http.clone(),
        format!("{}/v1/copilot", ctx.stack.base),
        user.map(str::to_string),
        content_type,
        body,
    )
    .await
}

/// The request itself, with owned inputs so that it can run on its own task.
async fn send_owned(
    http: reqwest::Client,
    url: String,
    user: Option<String>,
    content_type: &'static str,
    body: String,
) -> Reply {
    let mut req = http
        .post(url)
        .header("content-type", content_type)
        .body(body);
    if let Some(u) = user {
        req = req.header("x-user-id", u);
    }
    let resp = req
        .send()
        .await
        .expect("request reaches cargo lambda watch");
    let status = resp.status().as_u16();
    let replayed = resp.headers().contains_key("idempotent-replay");
    let text = resp.text().await.unwrap_or_default();
    Reply {
        status,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
        replayed,
    }
}

async fn post(ctx: &Ctx, user: &str, body: Value) -> Reply {
    send(ctx, Some(user), "application/json", body.to_string()).await
}

fn say(ctx: &Ctx, user: &str, message: &str) -> Reply {
    ctx.rt
        .block_on(post(ctx, user, json!({ "message": message })))
}

fn seed(ctx: &Ctx, user: &str, bench_sets: usize) {
    ctx.rt
        .block_on(
            ctx.stack
                .store
                .replace_active_workout(user, &sample_workout("w-1", bench_sets)),
        )
        .expect("seeded");
}

fn stored(ctx: &Ctx, user: &str) -> (coach::domain::workout::Workout, u64) {
    let v = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(user))
        .expect("store read")
        .expect("an active workout");
    (v.value, v.version)
}

/// How many items the user has under a sort-key prefix.
fn count(ctx: &Ctx, user: &str, prefix: &str) -> Result<usize, Failed> {
    ctx.rt
        .block_on(ctx.stack.store.count_items(user, prefix))
        .map_err(|e| e.to_string().into())
}

fn text(r: &Reply) -> String {
    r.body["text"].as_str().unwrap_or_default().to_string()
}

fn full_workout_logged_by_commands(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("full");
    seed(ctx, &user, 2);
    let r = say(ctx, &user, "done");
    eq(r.status, 200, "status")?;
    eq(r.body["lane"].clone(), json!("fast"), "lane")?;
    eq(r.body["intent"].clone(), json!("LOG_SET"), "intent")?;
    eq(
        text(&r).as_str(),
        "Logged Bench Press set 1 of 2: 8 × 100 kg, RIR 2.\nRest 2:00. Next: Bench Press set 2 of 2: 8 × 100 kg.",
        "reply",
    )?;
    let r = say(ctx, &user, "7 @ 102.5kg @9");
    eq(
        text(&r).as_str(),
        "Logged Bench Press set 2 of 2: 7 × 102.5 kg, RPE 9.\nRest 2:00. Next: Pull-Up set 1 of 2: 8 reps.",
        "reply",
    )?;
    let r = say(ctx, &user, "ready");
    eq(
        text(&r).as_str(),
        "Ready. Next: Pull-Up set 1 of 2: 8 reps.",
        "rest ack",
    )?;
    let r = say(ctx, &user, "10 reps");
    eq(
        text(&r).as_str(),
        "Logged Pull-Up set 1 of 2: 10 reps.\nRest 2:00. Next: Pull-Up set 2 of 2: 8 reps.",
        "reps",
    )?;
    let r = say(ctx, &user, "0");
    eq(
        text(&r).as_str(),
        "Logged Pull-Up set 2 of 2: 0 reps (failed).\nThat was the last planned set. Finish the workout when you're ready.",
        "failed set",
    )?;
    let r = say(ctx, &user, "done");
    check(
        text(&r).starts_with("No planned sets left"),
        format!("after the last set: {}", text(&r)),
    )?;

    let (w, version) = stored(ctx, &user);
    eq(version, 5, "one version per logged set")?;
    let bench = &w.exercises[0].sets;
    eq(bench[0].status, SetStatus::Planned, "warm-up untouched")?;
    let b2 = bench[2].actual.clone().ok_or("bench set 2 stored")?;
    eq(
        (b2.reps, b2.weight_kg, b2.rpe),
        (7, Some(102.5), Some(9.0)),
        "typed values stored",
    )?;
    let p2 = w.exercises[1].sets[1]
        .actual
        .clone()
        .ok_or("pull-up set 2 stored")?;
    eq((p2.reps, p2.failure), (0, true), "failed set")?;
    Ok(())
}

fn shorthand_in_pounds_is_stored_in_kg(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("pounds");
    seed(ctx, &user, 2);
    ctx.rt
        .block_on(ctx.stack.store.put_profile(
            &user,
            &Profile {
                unit: Unit::Lb,
                ..Profile::default()
            },
        ))
        .map_err(|e| e.to_string())?;
    let r = say(ctx, &user, "5@225");
    eq(
        text(&r).as_str(),
        "Logged Bench Press set 1 of 2: 5 × 225 lb.\nRest 3:00. Next: Bench Press set 2 of 2: 8 × 220.5 lb.",
        "reply in lb",
    )?;
    let kg = stored(ctx, &user).0.exercises[0].sets[1]
        .actual
        .clone()
        .ok_or("stored")?
        .weight_kg
        .ok_or("weight")?;
    check(
        (kg - 102.058_283_25).abs() < 1e-6,
        format!("stored {kg} kg"),
    )?;
    let r = say(ctx, &user, "6 @ 100 kg");
    check(
        text(&r).starts_with("Logged Bench Press set 2 of 2: 6 × 220.5 lb."),
        format!("typed kg shown in lb: {}", text(&r)),
    )?;
    Ok(())
}

fn a_name_many_exercises_share_is_a_question(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("row");
    seed(ctx, &user, 3);
    let (_, before) = stored(ctx, &user);
    // "row": the catalog has several. Asked which, with the command for each; nothing logged.
    let r = say(ctx, &user, "row 8 @ 60");
    eq(
        r.status,
        200,
        &format!("a question, not an error: {}", r.body),
    )?;
    let options: Vec<String> = r.body["data"]["clarification"]["options"]
        .as_array()
        .map(|o| {
            o.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    check(
        options.len() >= 2 && options.contains(&"barbell row 8 @ 60 kg".to_string()),
        format!("the rows as commands: {}", r.body),
    )?;
    eq(stored(ctx, &user).1, before, "nothing written")?;
    // The answer adds that row and logs it; its other sets are planned at the typed set.
    let a = say(ctx, &user, "barbell row 8 @ 60 kg");
    check(
        text(&a).contains("Logged Barbell Row set 1 of 3: 8 × 60 kg")
            && text(&a).contains("Next: Barbell Row set 2 of 3: 8 × 60 kg"),
        format!("logged: {}", text(&a)),
    )
}

fn undo_reverts_the_last_logged_set(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("undo");
    seed(ctx, &user, 3);
    say(ctx, &user, "done");
    say(ctx, &user, "6 @ 95");
    let r = say(ctx, &user, "undo");
    eq(r.body["intent"].clone(), json!("UNDO"), "intent")?;
    eq(
        text(&r).as_str(),
        "Undid Bench Press set 2 of 3 (6 × 95 kg); it is planned again.\nNext: Bench Press set 2 of 3: 8 × 100 kg.",
        "reply",
    )?;
    let (w, _) = stored(ctx, &user);
    eq(
        w.exercises[0].sets[2].status,
        SetStatus::Planned,
        "set 2 planned again",
    )?;
    check(
        w.exercises[0].sets[2].actual.is_none(),
        "set 2 has no result",
    )?;
    eq(
        w.exercises[0].sets[1].status,
        SetStatus::Done,
        "set 1 still done",
    )?;
    let r = say(ctx, &user, "undo");
    check(
        text(&r).starts_with("Undid Bench Press set 1 of 3"),
        text(&r),
    )?;
    let r = say(ctx, &user, "undo");
    check(text(&r).starts_with("Nothing to undo"), text(&r))?;
    Ok(())
}

fn skip_moves_on_and_next_reads_only(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("skip");
    seed(ctx, &user, 2);
    let r = say(ctx, &user, "skip");
    eq(
        text(&r).as_str(),
        "Skipped Bench Press set 1 of 2.\nNext: Bench Press set 2 of 2: 8 × 100 kg.",
        "skip reply",
    )?;
    let (_, before) = stored(ctx, &user);
    let r = say(ctx, &user, "what's next?");
    eq(
        text(&r).as_str(),
        "Next: Bench Press set 2 of 2: 8 × 100 kg.",
        "next",
    )?;
    eq(
        r.body["data"]["next"]["set_id"].clone(),
        json!("bench-2"),
        "next set id",
    )?;
    let (w, after) = stored(ctx, &user);
    eq(after, before, "next writes nothing")?;
    eq(
        w.exercises[0].sets[1].status,
        SetStatus::Skipped,
        "skipped stored",
    )?;
    Ok(())
}

fn no_active_workout_is_a_reply_without_a_write(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("none");
    let r = say(ctx, &user, "done");
    eq(r.status, 200, "status")?;
    eq(
        text(&r).as_str(),
        "No active workout. Start one in the app, then log sets here.",
        "reply",
    )?;
    eq(count(ctx, &user, "")?, 0, "items written")?;
    Ok(())
}

fn concurrent_done_logs_distinct_sets(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("race");
    seed(ctx, &user, 6);
    let replies = concurrently(ctx, &user, "done", 4);
    let mut ids: Vec<String> = replies
        .iter()
        .map(|r| {
            r.body["data"]["logged"]["set_id"]
                .as_str()
                .unwrap_or("?")
                .to_string()
        })
        .collect();
    for r in &replies {
        eq(r.status, 200, "status")?;
    }
    ids.sort();
    eq(
        ids,
        vec![
            "bench-1".to_string(),
            "bench-2".into(),
            "bench-3".into(),
            "bench-4".into(),
        ],
        "logged set ids",
    )?;
    let (w, version) = stored(ctx, &user);
    let done = w.exercises[0]
        .sets
        .iter()
        .filter(|s| s.status == SetStatus::Done)
        .count();
    eq((done, version), (4, 5), "done sets and version")?;
    Ok(())
}

/// Sends the same message `n` times at once, each from its own task, and collects the replies.
fn concurrently(ctx: &Ctx, user: &str, message: &str, n: usize) -> Vec<Reply> {
    ctx.rt.block_on(async {
        let handles: Vec<_> = (0..n)
            .map(|_| {
                let url = format!("{}/v1/copilot", ctx.stack.base);
                let body = json!({ "message": message }).to_string();
                tokio::spawn(send_owned(
                    ctx.http.clone(),
                    url,
                    Some(user.to_string()),
                    "application/json",
                    body,
                ))
            })
            .collect();
        let mut out = Vec::new();
        for h in handles {
            out.push(h.await.expect("task"));
        }
        out
    })
}

fn retried_request_returns_the_first_answer(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("retry");
    seed(ctx, &user, 3);
    let msg = "(context: corr=retry-1 conversation_id=c1) done";
    let first = say(ctx, &user, msg);
    let (_, v1) = stored(ctx, &user);
    let second = say(ctx, &user, msg);
    let (w, v2) = stored(ctx, &user);
    eq(first.status, 200, "first status")?;
    eq(second.body.clone(), first.body.clone(), "same answer")?;
    check(
        !first.replayed && second.replayed,
        "the retry is marked as a replay",
    )?;
    eq(v2, v1, "the retry wrote nothing")?;
    eq(
        w.exercises[0]
            .sets
            .iter()
            .filter(|s| s.status == SetStatus::Done)
            .count(),
        1,
        "one set logged",
    )?;
    // Retries racing each other also log once.
    let msg = "(context: corr=retry-2) done";
    let replies = concurrently(ctx, &user, msg, 3);
    check(
        replies.iter().all(|r| r.body == replies[0].body),
        "racing retries get one answer",
    )?;
    let (w, _) = stored(ctx, &user);
    eq(
        w.exercises[0]
            .sets
            .iter()
            .filter(|s| s.status == SetStatus::Done)
            .count(),
        2,
        "two sets logged in all",
    )?;
    Ok(())
}

/// A phone that lost the answer to "done" resends it (same `corr`, same workout prefix) after
/// the lifter finished that workout and started the next: it gets its first answer back, and
/// the new workout is not touched.
fn a_retry_replays_after_the_next_workout_started(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("retry-next");
    seed(ctx, &user, 2);
    let msg = "(context: corr=lost-1 workout_id=w-1) done";
    let first = say(ctx, &user, msg);
    eq(first.status, 200, "first status")?;
    ctx.rt
        .block_on(
            ctx.stack
                .store
                .replace_active_workout(&user, &sample_workout("w-2", 2)),
        )
        .map_err(|e| e.to_string())?;
    let (before, v1) = stored(ctx, &user);
    let again = say(ctx, &user, msg);
    eq(
        again.status,
        200,
        &format!("the retry's status: {}", again.body),
    )?;
    check(again.replayed, "the retry is marked as a replay")?;
    eq(again.body, first.body, "the first answer")?;
    let (after, v2) = stored(ctx, &user);
    eq(
        (after.id.as_str(), v2),
        ("w-2", v1),
        "the new workout untouched",
    )?;
    eq(after, before, "the new workout as it was")?;
    // A new command with the old workout's prefix is still refused.
    let stale = say(ctx, &user, "(context: corr=lost-2 workout_id=w-1) done");
    eq(
        (stale.status, stale.body["error"]["code"].clone()),
        (409, json!("WORKOUT_MISMATCH")),
        "a new command for the finished workout",
    )?;
    Ok(())
}

fn corr_reused_for_another_command_is_refused(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("reuse");
    seed(ctx, &user, 3);
    say(ctx, &user, "(context: corr=k1) done");
    let (_, v1) = stored(ctx, &user);
    let r = say(ctx, &user, "(context: corr=k1) skip");
    eq(
        (r.status, r.body["error"]["code"].clone()),
        (409, json!("IDEMPOTENCY_KEY_REUSED")),
        "reused corr",
    )?;
    eq(stored(ctx, &user).1, v1, "nothing written")?;
    Ok(())
}

fn prefix_workout_id_must_be_the_active_one(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("wid");
    seed(ctx, &user, 2);
    let r = say(ctx, &user, "(context: workout_id=w-old) done");
    eq(
        (r.status, r.body["error"]["code"].clone()),
        (409, json!("WORKOUT_MISMATCH")),
        "mismatch",
    )?;
    eq(stored(ctx, &user).1, 1, "nothing written")?;
    let r = say(ctx, &user, "(context: workout_id=w-1) done");
    eq(r.status, 200, "matching workout id")?;
    Ok(())
}

fn monitor_skip_is_silent(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("monitor");
    let r = ctx.rt.block_on(post(
        ctx,
        &user,
        json!({"message": "{\"event_type\":\"TIMER_TICK\",\"workout_state\":{}}"}),
    ));
    eq(
        (r.status, r.body["intent"].clone(), r.body["text"].clone()),
        (200, json!("MONITOR_SKIP"), json!("")),
        "silent ack",
    )?;
    Ok(())
}

fn not_a_command_points_to_the_right_lane(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("lanes");
    let r = say(ctx, &user, "how is my bench going?");
    eq(
        (
            r.status,
            r.body["error"]["code"].clone(),
            r.body["lane"].clone(),
        ),
        (422, json!("NOT_A_COMMAND"), json!("slow")),
        "coach message",
    )?;
    let r = say(
        ctx,
        &user,
        "{\"intent\":\"SUGGEST_WEIGHT\",\"exercise_id\":\"back-squat\"}",
    );
    eq(
        (r.status, r.body["lane"].clone()),
        (422, json!("functional")),
        "smart button",
    )?;
    let r = say(ctx, &user, "{\"intent\":\"TELEPORT\"}");
    eq(
        (r.status, r.body["error"]["code"].clone()),
        (400, json!("UNKNOWN_INTENT")),
        "unknown intent",
    )?;
    check(
        r.body["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("SWAP_EXERCISE"),
        "lists the known intents",
    )?;
    Ok(())
}

/// One bad request: who sends it, how, and the error it must get.
struct BadCase<'a> {
    name: &'a str,
    who: Option<&'a str>,
    content_type: &'static str,
    body: String,
    status: u16,
    code: &'a str,
    field: Option<&'a str>,
}

impl<'a> BadCase<'a> {
    fn new(
        name: &'a str,
        who: Option<&'a str>,
        content_type: &'static str,
        body: String,
        status: u16,
        code: &'a str,
        field: Option<&'a str>,
    ) -> Self {
        BadCase {
            name,
            who,
            content_type,
            body,
            status,
            code,
            field,
        }
    }
}

fn bad_input_is_a_clear_4xx_and_writes_nothing(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("bad");
    seed(ctx, &user, 3);
    let other = format!("{user}-other");
    let long = "a".repeat(10_001);
    let huge = format!(
        "{{\"message\":\"done\",\"pad\":\"{}\"}}",
        "p".repeat(65 * 1024)
    );
    let cases: Vec<BadCase> = vec![
        BadCase::new(
            "unclosed prefix",
            Some(&user),
            "application/json",
            json!({"message": "(context: corr=a done"}).to_string(),
            400,
            "INVALID_CONTEXT",
            None,
        ),
        BadCase::new(
            "unknown key",
            Some(&user),
            "application/json",
            json!({"message": "(context: colour=red) done"}).to_string(),
            400,
            "INVALID_CONTEXT",
            None,
        ),
        BadCase::new(
            "duplicate key",
            Some(&user),
            "application/json",
            json!({"message": "(context: corr=a corr=b) done"}).to_string(),
            400,
            "INVALID_CONTEXT",
            None,
        ),
        BadCase::new(
            "prefix user differs",
            Some(&user),
            "application/json",
            json!({"message": format!("(context: user_id={other}) done")}).to_string(),
            403,
            "USER_MISMATCH",
            None,
        ),
        BadCase::new(
            "no authentication",
            None,
            "application/json",
            json!({"message": "done"}).to_string(),
            401,
            "UNAUTHENTICATED",
            None,
        ),
        BadCase::new(
            "empty message",
            Some(&user),
            "application/json",
            json!({"message": "   "}).to_string(),
            400,
            "EMPTY_MESSAGE",
            Some("message"),
        ),
        BadCase::new(
            "10,001 characters",
            Some(&user),
            "text/plain",
            long,
            413,
            "MESSAGE_TOO_LONG",
            Some("message"),
        ),
        BadCase::new(
            "65 KiB body",
            Some(&user),
            "application/json",
            huge,
            413,
            "PAYLOAD_TOO_LARGE",
            None,
        ),
        BadCase::new(
            "JSON but not an object",
            Some(&user),
            "application/json",
            "[\"done\"]".into(),
            400,
            "INVALID_BODY",
            None,
        ),
        BadCase::new(
            "weight 2,000 kg",
            Some(&user),
            "application/json",
            json!({"message": "8 @ 2000 kg"}).to_string(),
            400,
            "VALIDATION_ERROR",
            Some("weight"),
        ),
        BadCase::new(
            "reps 501",
            Some(&user),
            "application/json",
            json!({"message": "501 reps"}).to_string(),
            400,
            "VALIDATION_ERROR",
            Some("reps"),
        ),
        BadCase::new(
            "rir 9",
            Some(&user),
            "application/json",
            json!({"message": "8 @ 100 rir 9"}).to_string(),
            400,
            "VALIDATION_ERROR",
            Some("rir"),
        ),
        BadCase::new(
            "negative reps",
            Some(&user),
            "application/json",
            json!({"message": "-8 @ 100"}).to_string(),
            400,
            "INVALID_COMMAND",
            None,
        ),
        BadCase::new(
            "negative weight",
            Some(&user),
            "application/json",
            json!({"message": "8 @ -100"}).to_string(),
            400,
            "INVALID_COMMAND",
            None,
        ),
        BadCase::new(
            "8@",
            Some(&user),
            "application/json",
            json!({"message": "8@"}).to_string(),
            400,
            "INVALID_COMMAND",
            None,
        ),
        BadCase::new(
            "full-width digits",
            Some(&user),
            "application/json",
            json!({"message": "８@１００"}).to_string(),
            400,
            "INVALID_COMMAND",
            None,
        ),
        BadCase::new(
            "only a prefix",
            Some(&user),
            "application/json",
            json!({"message": "(context: corr=x1 tz=UTC)"}).to_string(),
            400,
            "EMPTY_MESSAGE",
            Some("message"),
        ),
        BadCase::new(
            "invalid JSON",
            Some(&user),
            "application/json",
            "{\"message\": ".into(),
            400,
            "INVALID_JSON",
            None,
        ),
        BadCase::new(
            "bad timezone",
            Some(&user),
            "application/json",
            json!({"message": "(context: tz=Mars/Base) done"}).to_string(),
            400,
            "INVALID_CONTEXT",
            None,
        ),
    ];
    for BadCase {
        name,
        who,
        content_type,
        body,
        status,
        code,
        field,
    } in cases
    {
        let r = ctx.rt.block_on(send(ctx, who, content_type, body));
        eq(r.status, status, &format!("{name}: status"))?;
        eq(
            r.body["error"]["code"].as_str(),
            Some(code),
            &format!("{name}: code"),
        )?;
        check(
            r.body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.len() > 10),
            format!("{name}: a message that says what is wrong"),
        )?;
        if let Some(f) = field {
            eq(
                r.body["error"]["field"].as_str(),
                Some(f),
                &format!("{name}: field"),
            )?;
        }
    }
    let (w, version) = stored(ctx, &user);
    eq(version, 1, "no bad request wrote the workout")?;
    check(
        w.exercises
            .iter()
            .flat_map(|e| &e.sets)
            .all(|s| s.status == SetStatus::Planned),
        "every set still planned",
    )?;
    eq(count(ctx, &user, "IDEM#")?, 0, "no idempotency records")?;
    Ok(())
}

/// `cargo lambda invoke FUNCTION --data-file FILE` against this stack; its output as JSON, or
/// as text in `raw` (a streamed answer).
fn invoke_event(ctx: &Ctx, function: &str, event: &str) -> Result<(Value, String), Failed> {
    let file = std::env::temp_dir().join(format!("{}.json", unique_user("event")));
    std::fs::write(&file, event).map_err(|e| e.to_string())?;
    let out = std::process::Command::new("cargo")
        .args(["lambda", "invoke", "-A", "127.0.0.1", "-P"])
        .arg(ctx.stack.port.to_string())
        .arg(function)
        .arg("--data-file")
        .arg(&file)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&file);
    let raw = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok((serde_json::from_str(&raw).unwrap_or(Value::Null), raw))
}

/// Every sample in `events/` (API Gateway REST v1 with Cognito claims, SQS batches) through
/// `cargo lambda invoke`, in name order, as two users: the answers the README's table promises.
fn every_sample_event_through_cargo_lambda_invoke(ctx: &Ctx) -> Result<(), Failed> {
    let dir = workspace_root().join("events");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    // The fast samples log into a seeded workout; the others start from nothing.
    let (lifter, other) = (unique_user("evt-fast"), unique_user("evt-app"));
    seed(ctx, &lifter, 3);
    let mut started: Option<String> = None;
    let mut checked = Vec::new();
    for path in &files {
        let name = path
            .file_stem()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let function = name.split('-').next().unwrap_or_default().to_string();
        let user = if function == "fast" { &lifter } else { &other };
        let mut event = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        event = event
            .replace("\"sub\": \"demo\"", &format!("\"sub\": \"{user}\""))
            .replace(
                "\\\"user_id\\\": \\\"demo\\\"",
                &format!("\\\"user_id\\\": \\\"{user}\\\""),
            );
        if name == "worker-workout-completed" {
            let id = started.clone().ok_or("the started workout")?;
            let done =
                call_json_blocking(ctx, "POST", &format!("/v1/workouts/{id}/complete"), &other);
            check(
                done.0 == 200 || done.0 == 202,
                format!("completed: {done:?}"),
            )?;
            event = event.replace("w-sample", &id);
        }
        let (v, raw) = invoke_event(ctx, &function, &event)?;
        let status = v["statusCode"].as_u64();
        let body: Value =
            serde_json::from_str(v["body"].as_str().unwrap_or("null")).unwrap_or(Value::Null);
        let failures: Vec<&str> = v["batchItemFailures"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["itemIdentifier"].as_str())
            .collect();
        let what = format!("{name}: {}", &raw[..raw.len().min(400)]);
        match name.as_str() {
            "fast-done" => eq(body["intent"].as_str(), Some("LOG_SET"), &what)?,
            "fast-next" => eq(body["intent"].as_str(), Some("NEXT_SET"), &what)?,
            "fast-shorthand" => eq(body["intent"].as_str(), Some("LOG_SET_SHORTHAND"), &what)?,
            "fast-undo" => eq(body["intent"].as_str(), Some("UNDO"), &what)?,
            "fast-not-a-command" => eq(
                (status, body["error"]["code"].as_str()),
                (Some(422), Some("NOT_A_COMMAND")),
                &what,
            )?,
            "fast-user-mismatch" => eq(
                (status, body["error"]["code"].as_str()),
                (Some(403), Some("USER_MISMATCH")),
                &what,
            )?,
            "functional-bad-body" => eq(
                (status, body["error"]["field"].as_str()),
                (Some(400), Some("exercises")),
                &what,
            )?,
            "functional-start-workout" => {
                eq(status, Some(201), &what)?;
                started = body["workout"]["id"].as_str().map(str::to_string);
            }
            "functional-active-workout"
            | "functional-app-event"
            | "functional-insights"
            | "functional-monitor"
            | "functional-suggest-weight" => eq(status, Some(200), &what)?,
            "slow-command" => check(
                raw.starts_with("event: route") && raw.contains("event: done"),
                format!("a stream from route to done: {what}"),
            )?,
            "worker-poison" => eq(failures, vec!["worker-poison-2", "worker-poison-3"], &what)?,
            "worker-workout-completed"
            | "worker-weekly-review"
            | "worker-health-metric"
            | "worker-delete-account"
            | "worker-fan-out" => check(
                v["batchItemFailures"].is_array() && failures.is_empty(),
                what,
            )?,
            _ => return Err(format!("{name}: a sample without an expectation here").into()),
        }
        checked.push(name);
    }
    // The fast samples logged for the claims' user: the first working set (after the warm-up)
    // done; the second logged, then undone.
    eq(
        stored(ctx, &lifter).0.exercises[0].sets[1].status,
        SetStatus::Done,
        "logged for the claims' user",
    )?;
    check(
        ["fast-", "functional-", "slow-", "worker-"]
            .iter()
            .all(|f| checked.iter().any(|c| c.starts_with(f))),
        format!("a sample for every function: {checked:?}"),
    )
}

fn call_json_blocking(ctx: &Ctx, method: &str, path: &str, user: &str) -> (u16, Value) {
    let url = format!("{}{path}", ctx.stack.base);
    let r = ctx.rt.block_on(blackbox::call_json(
        &ctx.http,
        method,
        url,
        user,
        Some(json!({})),
    ));
    (r.status, r.body)
}

fn stream_without_a_model_says_how_to_configure_one(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("stream-nomodel");
    let body = ctx.rt.block_on(async {
        ctx.http
            .post(format!("{}/v1/stream", ctx.stack.base))
            .header("x-user-id", user.as_str())
            .header("content-type", "application/json")
            .body(json!({"message": "how is my bench going?"}).to_string())
            .send()
            .await
            .map_err(|e| e.to_string())?
            .text()
            .await
            .map_err(|e| e.to_string())
    })?;
    let events = blackbox::parse_sse(&body);
    let kinds: Vec<&str> = events.iter().map(|(k, _)| k.as_str()).collect();
    eq(kinds, vec!["route", "error", "done"], "events")?;
    eq(
        events[1].1["code"].as_str(),
        Some("MODEL_NOT_CONFIGURED"),
        "error code",
    )?;
    check(
        events[1].1["message"]
            .as_str()
            .is_some_and(|m| m.contains("SLOW_MODEL")),
        "says how to configure it",
    )
}
