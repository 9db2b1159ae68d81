//! Black-box tests of the slow binary's `POST /v1/stream` through `cargo lambda watch`, with
//! `SLOW_MODEL` pointing at the scripted fake model server (Gemini wire format): the event
//! order of the stream's contract (`openapi.yaml`), in-process FAST and FUNCTIONAL answers, tools over real stored data,
//! failing tools, the turn limit, model retries and failures, heartbeats. Cases run one at a
//! time because they share the fake's script.

use std::time::Duration;

use blackbox::fake_model::{Reply as ModelReply, Step};
use blackbox::{
    ModelCase, ModelStack, Streamed, check, eq, sample_workout, unique_user, unselected, weight_of,
    well_formed,
};
use coach::domain::workout::SetStatus;
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

type Ctx = ModelStack;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "slow_lane";
    let cases: Vec<(&'static str, ModelCase)> = vec![
        ("fast_commands_in_process", fast_commands_in_process),
        (
            "a_lifter_streams_at_most_three_answers",
            a_lifter_streams_at_most_three_answers,
        ),
        ("functional_json_in_process", functional_json_in_process),
        (
            "progress_answered_from_tool_data",
            progress_answered_from_tool_data,
        ),
        (
            "parallel_calls_and_a_failing_tool",
            parallel_calls_and_a_failing_tool,
        ),
        (
            "turn_limit_then_a_closing_answer",
            turn_limit_then_a_closing_answer,
        ),
        (
            "rate_limit_retried_then_answered",
            rate_limit_retried_then_answered,
        ),
        (
            "server_errors_end_in_error_then_done",
            server_errors_end_in_error_then_done,
        ),
        (
            "cut_stream_is_an_error_after_the_text",
            cut_stream_is_an_error_after_the_text,
        ),
        (
            "heartbeats_while_the_model_thinks",
            heartbeats_while_the_model_thinks,
        ),
        ("requests_that_cannot_stream", requests_that_cannot_stream),
        (
            "client_disconnect_stops_the_model_call",
            client_disconnect_stops_the_model_call,
        ),
        (
            "a_chat_reads_back_on_a_second_device",
            a_chat_reads_back_on_a_second_device,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let ctx = ModelStack::start("SLOW_MODEL", &[("STREAM_HEARTBEAT_MS", "300".to_string())]);
    // The first invocation builds and starts the function.
    ctx.fake.reply(ModelReply::text(&["warm"]));
    let _ = stream(&ctx, "warmup", json!({"message": "hello"}));
    ctx.run(args, SUITE, cases)
}

fn stream(ctx: &Ctx, user: &str, body: Value) -> Streamed {
    ctx.stream(user, body)
}

/// A GET on the functional lane of the same stack (the app's other routes).
fn get(ctx: &Ctx, path: &str, user: &str) -> blackbox::JsonReply {
    let url = format!("{}{path}", ctx.stack.base);
    ctx.rt
        .block_on(blackbox::call_json(&ctx.http, "GET", url, user, None))
}

/// A lifter may have three coach answers streaming at once (each may run 120 s and call a
/// model): a fourth is 429 TOO_MANY_STREAMS with Retry-After, before any model call; once one
/// has ended, the next streams.
fn a_lifter_streams_at_most_three_answers(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("s-streams");
    let now = chrono::Utc::now();
    let until = now + chrono::Duration::seconds(100);
    let mut held = Vec::new();
    for _ in 0..3 {
        let lease = ctx
            .rt
            .block_on(ctx.stack.store.take_lease(&user, "stream", 3, until, now))?;
        held.push(lease.map_err(|s| format!("a slot was busy for {s} s"))?);
    }
    let (status, retry_after, body) = ctx.rt.block_on(async {
        let resp = ctx
            .http
            .post(format!("{}/v1/stream", ctx.stack.base))
            .header("x-user-id", &user)
            .header("content-type", "application/json")
            .body(json!({"message": "how is my bench going?"}).to_string())
            .send()
            .await?;
        let status = resp.status().as_u16();
        let retry = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<i64>().ok());
        Ok::<_, reqwest::Error>((status, retry, resp.text().await?))
    })?;
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    eq(status, 429, &format!("a fourth stream: {body}"))?;
    eq(
        body["error"]["code"].as_str(),
        Some("TOO_MANY_STREAMS"),
        "code",
    )?;
    check(
        retry_after.is_some_and(|s| (1..=100).contains(&s)),
        format!("Retry-After {retry_after:?}"),
    )?;
    ctx.rt.block_on(
        ctx.stack
            .store
            .give_back(&user, &held[0], chrono::Utc::now()),
    )?;
    ctx.fake.reply(ModelReply::text(&["Your bench is moving."]));
    let s = stream(ctx, &user, json!({"message": "how is my bench going?"}));
    eq(s.status, 200, "a slot is free again")?;
    check(
        s.kinds().contains(&"done"),
        format!("events {:?}", s.kinds()),
    )
}

fn fast_commands_in_process(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("s-fast");
    let w = sample_workout("w-s-fast", 2);
    ctx.rt
        .block_on(ctx.stack.store.replace_active_workout(&user, &w))?;
    let s = stream(ctx, &user, json!({"message": "done"}));
    well_formed(&s)?;
    eq(s.kinds(), vec!["route", "message", "done"], "events")?;
    eq(s.events[0].1["lane"].as_str(), Some("fast"), "route lane")?;
    eq(
        s.events[0].1["intent"].as_str(),
        Some("LOG_SET"),
        "route intent",
    )?;
    check(
        s.text().starts_with("Logged"),
        format!("message: {}", s.text()),
    )?;
    let stored = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .map(|v| v.value);
    let done = stored.map_or(0, |w| {
        w.exercises
            .iter()
            .flat_map(|e| e.sets.iter())
            .filter(|s| s.status == SetStatus::Done)
            .count()
    });
    eq(done, 1, "the set is logged")?;
    eq(ctx.fake.requests().len(), 0, "no model call")
}

fn functional_json_in_process(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("s-func");
    let payload =
        json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "bench press", "target_reps": 5});
    let s = stream(ctx, &user, json!({ "message": payload.to_string() }));
    well_formed(&s)?;
    eq(s.kinds(), vec!["route", "result", "done"], "events")?;
    let result = s.first("result").cloned().unwrap_or_default();
    eq(result["success"].as_bool(), Some(true), "envelope success")?;
    eq(result["action"].as_str(), Some("SUGGEST"), "action")?;
    // A functional error is an error event, still followed by done.
    let bad = json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "bench press"});
    let s = stream(ctx, &user, json!({ "message": bad.to_string() }));
    well_formed(&s)?;
    eq(s.kinds(), vec!["route", "error", "done"], "events")?;
    eq(ctx.fake.requests().len(), 0, "no model call")
}

fn progress_answered_from_tool_data(ctx: &Ctx) -> Result<(), Failed> {
    let s = ctx.ask_bench_progress(&unique_user("s-progress"))?;
    eq(s.events[0].1["lane"].as_str(), Some("slow"), "route lane")?;
    eq(
        s.events[0].1["intent"].as_str(),
        Some("ANALYZE_PROGRESS"),
        "route intent",
    )?;
    // Why it routed so ("how is my bench progressing?"): the rule, how sure, what it saw.
    eq(
        (
            s.events[0].1["matched_rule"].as_str(),
            s.events[0].1["confidence"].as_str(),
        ),
        (Some("pattern:analyze_progress"), Some("high")),
        "route rule",
    )?;
    eq(
        s.events[0].1["signals"].clone(),
        json!(["has_first_person", "mentions_training", "is_question"]),
        "route signals",
    )?;
    let end = s.first("tool_end").cloned().unwrap_or_default();
    eq(end["tool"].as_str(), Some("exercise_progress"), "tool")?;
    eq(end["ok"].as_bool(), Some(true), "ok")?;
    eq(s.text(), "Your bench is moving up.".to_string(), "text")?;
    let done = s.first("done").cloned().unwrap_or_default();
    eq(done["lane"].as_str(), Some("slow"), "done lane")?;
    check(
        done["usage"]["total_tokens"]
            .as_u64()
            .is_some_and(|t| t > 0),
        "usage in done",
    )?;
    // What the model got back is this user's stored data.
    let reqs = ctx.fake.requests();
    eq(reqs.len(), 2, "two model turns")?;
    let system = reqs[0].body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default();
    check(
        system.contains("exercise_progress"),
        "the planner hint names the tool",
    )?;
    let result = &reqs[1].body["contents"][2]["parts"][0]["functionResponse"]["response"];
    eq(
        result["exercise_id"].as_str(),
        Some("barbell-bench-press"),
        "resolved id",
    )?;
    let sessions = result["sessions"].as_array().cloned().unwrap_or_default();
    eq(sessions.len(), 2, "both sessions")?;
    eq(
        weight_of(&sessions[0]["top_set"]["weight_kg"]),
        Some(100.0),
        "newest first",
    )?;
    check(
        weight_of(&result["e1rm_change"]["change_kg"]).is_some_and(|c| c > 0.0),
        format!("e1RM rose: {}", result["e1rm_change"]),
    )
}

fn parallel_calls_and_a_failing_tool(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("s-parallel");
    ctx.fake.reply(ModelReply::calls(&[
        (
            "exercise_search",
            json!({"query": "incline dumbbell press"}),
        ),
        (
            "exercise_progress",
            json!({"exercise_id": "zzzz not a lift"}),
        ),
    ]));
    ctx.fake.reply(ModelReply::text(&["Found it."]));
    let s = stream(
        ctx,
        &user,
        json!({"message": "find me an incline press and my progress on it"}),
    );
    well_formed(&s)?;
    let ends: Vec<(Option<&str>, Option<bool>)> = s
        .events
        .iter()
        .filter(|(k, _)| k == "tool_end")
        .map(|(_, v)| (v["tool"].as_str(), v["ok"].as_bool()))
        .collect();
    eq(ends.len(), 2, "two tools ran")?;
    check(
        ends.contains(&(Some("exercise_search"), Some(true))),
        format!("search ok: {ends:?}"),
    )?;
    check(
        ends.contains(&(Some("exercise_progress"), Some(false))),
        format!("progress failed: {ends:?}"),
    )?;
    eq(s.text(), "Found it.".to_string(), "the loop went on")?;
    let reqs = ctx.fake.requests();
    let results = reqs[1].body["contents"][2]["parts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    eq(results.len(), 2, "one user content with both results")?;
    eq(
        results[1]["functionResponse"]["response"]["error"]["code"].as_str(),
        Some("UNKNOWN_EXERCISE"),
        "a structured error for the model",
    )?;
    let found = results[0]["functionResponse"]["response"]["results"][0]["exercise_id"].as_str();
    eq(found, Some("incline-dumbbell-press"), "search result")
}

fn turn_limit_then_a_closing_answer(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("s-limit");
    for i in 0..12 {
        ctx.fake.reply(ModelReply::calls(&[(
            "exercise_search",
            json!({"query": format!("curl {i}")}),
        )]));
    }
    ctx.fake.reply(ModelReply::text(&["Here is what I found."]));
    let s = stream(ctx, &user, json!({"message": "search everything"}));
    well_formed(&s)?;
    let reqs = ctx.fake.requests();
    eq(reqs.len(), 13, "12 tool turns and one closing turn")?;
    check(
        reqs[11].body.get("tools").is_some(),
        "tool turns offer tools",
    )?;
    eq(
        reqs[12].body["toolConfig"]["functionCallingConfig"]["mode"].as_str(),
        Some("NONE"),
        "the closing turn may call none",
    )?;
    eq(
        s.events.iter().filter(|(k, _)| k == "tool_start").count(),
        12,
        "12 tool calls",
    )?;
    eq(
        s.text(),
        "Here is what I found.".to_string(),
        "closing answer",
    )
}

fn rate_limit_retried_then_answered(ctx: &Ctx) -> Result<(), Failed> {
    ctx.fake.reply(ModelReply::status(429, json!({"error": {"code": 429, "message": "Resource exhausted.", "status": "RESOURCE_EXHAUSTED",
        "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.2s"}]}})));
    ctx.fake.reply(ModelReply::text(&["Hello!"]));
    let s = stream(
        ctx,
        &unique_user("s-429"),
        json!({"message": "hello coach"}),
    );
    well_formed(&s)?;
    eq(s.kinds(), vec!["route", "message", "done"], "events")?;
    eq(ctx.fake.requests().len(), 2, "retried once")
}

fn server_errors_end_in_error_then_done(ctx: &Ctx) -> Result<(), Failed> {
    for _ in 0..3 {
        ctx.fake.reply(ModelReply::status(503, json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}})));
    }
    let s = stream(
        ctx,
        &unique_user("s-503"),
        json!({"message": "hello coach"}),
    );
    well_formed(&s)?;
    eq(s.kinds(), vec!["route", "error", "done"], "events")?;
    let e = s.first("error").cloned().unwrap_or_default();
    eq(e["code"].as_str(), Some("MODEL_UNAVAILABLE"), "code")?;
    check(
        !s.raw.contains("overloaded"),
        "the provider's words stay in the log",
    )?;
    eq(ctx.fake.requests().len(), 3, "three attempts")
}

fn cut_stream_is_an_error_after_the_text(ctx: &Ctx) -> Result<(), Failed> {
    ctx.fake.reply(ModelReply::Stream(vec![
        Step::Text("Your squat".into()),
        Step::Cut,
    ]));
    let s = stream(
        ctx,
        &unique_user("s-cut"),
        json!({"message": "hello coach"}),
    );
    well_formed(&s)?;
    eq(
        s.kinds(),
        vec!["route", "message", "error", "done"],
        "events",
    )?;
    eq(
        ctx.fake.requests().len(),
        1,
        "text already sent: no silent retry",
    )
}

fn heartbeats_while_the_model_thinks(ctx: &Ctx) -> Result<(), Failed> {
    // This stack's heartbeat interval is 300 ms (STREAM_HEARTBEAT_MS); the contract's is 10 s.
    ctx.fake.reply(ModelReply::Stream(vec![
        Step::Delay(Duration::from_millis(1200)),
        Step::Text("Still here.".into()),
    ]));
    let s = stream(
        ctx,
        &unique_user("s-beat"),
        json!({"message": "hello coach"}),
    );
    well_formed(&s)?;
    let kinds = s.all_kinds();
    let first_message = kinds
        .iter()
        .position(|k| *k == "message")
        .unwrap_or(kinds.len());
    let beats = kinds[..first_message]
        .iter()
        .filter(|k| **k == "heartbeat")
        .count();
    check(
        beats >= 2,
        format!("heartbeats before the first text: {kinds:?}"),
    )
}

fn requests_that_cannot_stream(ctx: &Ctx) -> Result<(), Failed> {
    let s = stream(ctx, &unique_user("s-bad"), json!({"message": "   "}));
    eq(s.status, 400, &format!("empty message: {}", s.raw))?;
    let v: Value = serde_json::from_str(&s.raw)?;
    eq(v["error"]["code"].as_str(), Some("EMPTY_MESSAGE"), "code")?;
    let status = ctx.rt.block_on(async {
        ctx.http
            .post(format!("{}/v1/stream", ctx.stack.base))
            .body(json!({"message": "hi"}).to_string())
            .header("content-type", "application/json")
            .send()
            .await
            .map(|r| r.status().as_u16())
    })?;
    eq(status, 401, "no identity")?;
    eq(ctx.fake.requests().len(), 0, "no model call")
}

/// The lifter closes the app mid-answer: the HTTP client drops the stream after the first text.
/// The lane closes its model call (the fake sees its next write fail) long before the scripted
/// answer would have ended, asks the model nothing more, and stores no half answer, so a retry
/// with the same `corr` runs again instead of replaying a fragment.
fn client_disconnect_stops_the_model_call(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("s-gone");
    let mut steps = vec![Step::Text("Let me look at that. ".into())];
    for i in 0..10 {
        steps.push(Step::Delay(Duration::from_millis(500)));
        steps.push(Step::Text(format!("part {i}. ")));
    }
    ctx.fake.reply(ModelReply::Stream(steps));
    let message = "(context: corr=gone-1) how should I structure my week?";
    let first = ctx.rt.block_on(async {
        let mut resp = ctx
            .http
            .post(format!("{}/v1/stream", ctx.stack.base))
            .header("x-user-id", &user)
            .header("content-type", "application/json")
            .body(json!({ "message": message }).to_string())
            .send()
            .await?;
        let mut seen = String::new();
        while !seen.contains("event: message") {
            match resp.chunk().await? {
                Some(c) => seen.push_str(&String::from_utf8_lossy(&c)),
                None => break,
            }
        }
        drop(resp);
        Ok::<_, reqwest::Error>(seen)
    })?;
    check(
        first.contains("Let me look at that."),
        format!("the first text arrived: {first}"),
    )?;
    // The scripted answer takes 5 s; a write that fails (not the stream's end) is a disconnect.
    let waited = std::time::Instant::now();
    while ctx.fake.client_disconnects() == 0 && waited.elapsed() < Duration::from_secs(4) {
        std::thread::sleep(Duration::from_millis(50));
    }
    eq(
        ctx.fake.client_disconnects(),
        1,
        "the model call was closed",
    )?;
    std::thread::sleep(Duration::from_millis(300));
    eq(ctx.fake.requests().len(), 1, "no further model turn")?;
    let stored = ctx
        .rt
        .block_on(ctx.stack.store.count_items(&user, "CONV#"))?;
    eq(stored, 0, "no half answer stored")?;
    // The retry with the same corr is answered afresh.
    ctx.fake.reply(ModelReply::text(&["Three full-body days."]));
    let s = stream(ctx, &user, json!({ "message": message }));
    well_formed(&s)?;
    eq(
        s.text(),
        "Three full-body days.".to_string(),
        "a fresh answer",
    )?;
    eq(ctx.fake.requests().len(), 2, "the retry asked the model")
}

/// Coach turns in two conversations, then read back as a second device would: the list, the most
/// recently active first, and each conversation's messages newest first, a page at a time.
fn a_chat_reads_back_on_a_second_device(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("s-chat");
    let turns = [
        (
            "c-gym",
            "How should I warm up for squats?",
            "Two ramp-up sets.",
        ),
        ("c-gym", "And for bench?", "The same, lighter."),
        ("c-diet", "Is creatine worth it?", "For most lifters, yes."),
    ];
    for (conv, message, answer) in turns {
        ctx.fake.reply(ModelReply::text(&[answer]));
        let s = stream(
            ctx,
            &user,
            json!({ "message": format!("(context: conversation_id={conv}) {message}") }),
        );
        well_formed(&s)?;
        eq(s.text(), answer.to_string(), "the coach answered")?;
    }
    let list = get(ctx, "/v1/conversations", &user);
    eq(list.status, 200, "list")?;
    let ids: Vec<&str> = list.body["items"]
        .as_array()
        .map(|a| a.iter().filter_map(|c| c["id"].as_str()).collect())
        .unwrap_or_default();
    eq(ids, vec!["c-diet", "c-gym"], "most recently active first")?;
    let gym = &list.body["items"][1];
    eq(
        gym["title"].as_str(),
        Some("How should I warm up for squats?"),
        "title",
    )?;
    eq(gym["exchanges"].as_u64(), Some(2), "exchanges")?;
    check(
        gym["last_at"].as_str() > gym["started_at"].as_str(),
        "last after first",
    )?;

    let page = get(ctx, "/v1/conversations/c-gym/messages?limit=1", &user);
    eq(page.status, 200, "messages")?;
    eq(
        page.body["items"][0]["message"].as_str(),
        Some("And for bench?"),
        "newest first",
    )?;
    eq(
        page.body["items"][0]["answer"].as_str(),
        Some("The same, lighter."),
        "the answer",
    )?;
    eq(
        page.body["items"][0]["kind"].as_str(),
        Some("coach"),
        "kind",
    )?;
    let cursor = page.body["next_cursor"].as_str().unwrap_or_default();
    let rest = get(
        ctx,
        &format!("/v1/conversations/c-gym/messages?limit=1&cursor={cursor}"),
        &user,
    );
    eq(
        rest.body["items"][0]["message"].as_str(),
        Some("How should I warm up for squats?"),
        "second page",
    )?;

    // Another lifter sees none of it; a cursor of another conversation is refused.
    let other = unique_user("s-chat-other");
    eq(
        get(ctx, "/v1/conversations", &other).body["items"].clone(),
        json!([]),
        "other's list",
    )?;
    let theirs = get(ctx, "/v1/conversations/c-gym/messages", &other);
    eq(theirs.status, 404, "other's conversation")?;
    eq(
        theirs.body["error"]["code"].as_str(),
        Some("CONVERSATION_NOT_FOUND"),
        "code",
    )?;
    // The chat screen's first open, before any message: the default conversation, empty.
    let first = get(ctx, "/v1/conversations/default/messages", &other);
    eq(
        (
            first.status,
            first.body["items"].clone(),
            first.body["next_cursor"].clone(),
        ),
        (200, json!([]), Value::Null),
        "the default conversation before the first message",
    )?;
    let crossed = get(
        ctx,
        &format!("/v1/conversations/c-diet/messages?cursor={cursor}"),
        &user,
    );
    eq(crossed.status, 400, "a cursor of another conversation")?;
    eq(
        crossed.body["error"]["field"].as_str(),
        Some("cursor"),
        "field",
    )
}
