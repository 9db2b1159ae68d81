//! The slow binary with `MODEL_PROVIDER=bedrock`, through `cargo lambda watch`: the coach's
//! turns go to the fake Bedrock endpoint (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`) as signed
//! ConverseStream calls and come back as AWS event-stream frames. No API key and no secret:
//! the function's credentials sign (here the test's static ones).

use blackbox::fake_model::{Reply as ModelReply, Step};
use blackbox::{ModelCase, ModelStack, check, eq, unique_user, unselected, well_formed};
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

type Ctx = ModelStack;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "bedrock_lane";
    let cases: Vec<(&'static str, ModelCase)> = vec![
        (
            "coach_answers_through_bedrock",
            coach_answers_through_bedrock,
        ),
        (
            "a_revision_after_a_tool_keeps_the_tool_configuration",
            a_revision_after_a_tool_keeps_the_tool_configuration,
        ),
        (
            "the_fixed_prefix_is_cached_and_charged_at_its_price",
            the_fixed_prefix_is_cached_and_charged_at_its_price,
        ),
        (
            "throttling_is_retried_then_answered",
            throttling_is_retried_then_answered,
        ),
        (
            "an_exception_in_the_stream_ends_the_answer",
            an_exception_in_the_stream_ends_the_answer,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let ctx = ModelStack::start_with_fake("SLOW_MODEL", |fake| {
        vec![
            ("MODEL_PROVIDER", "bedrock".to_string()),
            ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", fake.bedrock_endpoint()),
            // Bedrock needs no key: no secret is configured, none is read.
            ("MODEL_API_KEY_SECRET_ARN", String::new()),
            // The fake's model id is no Claude or Nova: cache points asked for by name.
            ("PROMPT_CACHE", "cache_points".to_string()),
            ("SLOW_CACHED_INPUT_PRICE", "0.1".to_string()),
        ]
    });
    ctx.fake.reply(ModelReply::text(&["warm"]));
    let _ = ctx.stream("warmup", json!({"message": "hello"}));
    ctx.run(args, SUITE, cases)
}

fn coach_answers_through_bedrock(ctx: &Ctx) -> Result<(), Failed> {
    let s = ctx.ask_bench_progress(&unique_user("b-progress"))?;
    eq(s.text(), "Your bench is moving up.".to_string(), "text")?;
    let done = s.first("done").cloned().unwrap_or_default();
    // The fake's metadata frame says 120 uncached input and 12 output tokens a turn; two turns
    // (the cached prefix comes on top: the next case).
    let usage = &done["usage"];
    let n = |k: &str| usage[k].as_u64().unwrap_or(0);
    eq(
        n("input_tokens") - n("cached_input_tokens") - n("cache_write_tokens"),
        240,
        "uncached input from Bedrock's metadata",
    )?;
    eq(n("output_tokens"), 24, "output from Bedrock's metadata")?;
    let reqs = ctx.fake.requests();
    eq(reqs.len(), 2, "two model turns")?;
    for r in &reqs {
        eq(r.path.as_str(), "/model/fake-model/converse-stream", "path")?;
        let auth = r.header("authorization").unwrap_or_default();
        check(auth.starts_with("AWS4-HMAC-SHA256 "), "signed, no key")?;
    }
    let system = reqs[0].body["system"][0]["text"]
        .as_str()
        .unwrap_or_default();
    check(
        system.contains("exercise_progress"),
        "the planner hint names the tool",
    )?;
    // The tool's result is this user's stored data, sent back as the tool use's result.
    let msgs = reqs[1].body["messages"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    eq(msgs.len(), 3, "question, tool use, result")?;
    let call_id = msgs[1]["content"][0]["toolUse"]["toolUseId"].clone();
    eq(call_id.as_str(), Some("tooluse_fake1"), "the model's id")?;
    let result = &msgs[2]["content"][0]["toolResult"];
    eq(
        &result["toolUseId"],
        &call_id,
        "the result answers the call",
    )?;
    let data: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap_or("{}"))
        .unwrap_or_default();
    eq(
        data["exercise_id"].as_str(),
        Some("barbell-bench-press"),
        "resolved id",
    )?;
    eq(
        data["sessions"].as_array().map(Vec::len),
        Some(2),
        "both sessions",
    )?;
    eq(ctx.secrets.calls().len(), 0, "no secret read")
}

/// A high-risk answer that broke a rule after a tool ran is revised by the model, not scrubbed:
/// the revision turn still declares the tools (Converse refuses a history holding tool use
/// without them; before, the revision failed and the draft was scrubbed).
fn a_revision_after_a_tool_keeps_the_tool_configuration(ctx: &Ctx) -> Result<(), Failed> {
    ctx.fake.reply(ModelReply::calls(&[(
        "exercise_progress",
        json!({"exercise_id": "bench press", "weeks": 8}),
    )]));
    ctx.fake.reply(ModelReply::text(&[
        "Take 400 mg of ibuprofen and push through the pain.",
    ]));
    ctx.fake.reply(ModelReply::text(&[
        "Rest the shoulder and have a doctor or physio look at it.",
    ]));
    let s = ctx.stream(
        &unique_user("b-revise"),
        json!({"message": "My shoulder hurts when I bench. What should I take?"}),
    );
    well_formed(&s)?;
    let text = s.text();
    check(
        text.contains("physio") && !text.to_lowercase().contains("ibuprofen"),
        format!("the model's revision is shown: {text}"),
    )?;
    let reqs = ctx.fake.requests();
    eq(reqs.len(), 3, "tool turn, draft, revision")?;
    check(
        reqs[2].body["toolConfig"]["tools"].is_array(),
        "the revision declares the tools",
    )
}

/// The instruction and the tools are the same bytes for every lifter asking the same kind of
/// question: a cache point closes each, the first such request writes the prefix to the cache,
/// later ones read it, and the lifter's allowance is charged a tenth for what was read
/// (`SLOW_CACHED_INPUT_PRICE`), as is the day's counter.
fn the_fixed_prefix_is_cached_and_charged_at_its_price(ctx: &Ctx) -> Result<(), Failed> {
    let first = ctx.fake.requests().len();
    let _ = ctx.ask_bench_progress(&unique_user("b-cache-1"))?;
    let user = unique_user("b-cache-2");
    let s = ctx.ask_bench_progress(&user)?;
    let reqs = ctx.fake.requests();
    let r = &reqs[first];
    let system = r.body["system"].as_array().cloned().unwrap_or_default();
    eq(system.len(), 2, "the instruction, then a cache point")?;
    check(
        system[1]["cachePoint"]["type"] == "default",
        format!("a cache point after the instruction: {system:?}"),
    )?;
    let tools = r.body["toolConfig"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    check(
        tools.last().is_some_and(|t| t.get("cachePoint").is_some())
            && tools[..tools.len() - 1]
                .iter()
                .all(|t| t.get("toolSpec").is_some()),
        "one cache point, after the last tool",
    )?;
    // Every request of the second lifter reads the prefix the first one wrote.
    let done = s.first("done").cloned().unwrap_or_default();
    let usage = &done["usage"];
    let n = |k: &str| usage[k].as_u64().unwrap_or(0);
    check(
        n("cached_input_tokens") > 1_000,
        format!("the prefix read from the cache: {usage}"),
    )?;
    eq(n("cache_write_tokens"), 0, "nothing written again")?;
    // Each call read the same prefix and is charged on its own (rounded up per call).
    let calls = (reqs.len() - first) as u64 / 2;
    let cached = n("cached_input_tokens");
    eq(cached % calls, 0, "the same prefix each call")?;
    eq(
        n("charged_tokens"),
        n("total_tokens") - cached + calls * (cached / calls).div_ceil(10),
        "a cached token charged a tenth",
    )?;
    let today = ctx
        .rt
        .block_on(blackbox::tokens_today(&ctx.stack.store, &user))?;
    eq(
        today,
        n("charged_tokens"),
        "the day's counter is charged the same",
    )
}

fn throttling_is_retried_then_answered(ctx: &Ctx) -> Result<(), Failed> {
    ctx.fake.reply(ModelReply::Status {
        status: 429,
        body: json!({"message": "Too many requests, please wait before trying again."}),
        headers: vec![("x-amzn-errortype".into(), "ThrottlingException".into())],
    });
    ctx.fake.reply(ModelReply::text(&["Hello!"]));
    let s = ctx.stream(&unique_user("b-429"), json!({"message": "hello coach"}));
    well_formed(&s)?;
    eq(s.kinds(), vec!["route", "message", "done"], "events")?;
    eq(ctx.fake.requests().len(), 2, "retried once")
}

fn an_exception_in_the_stream_ends_the_answer(ctx: &Ctx) -> Result<(), Failed> {
    ctx.fake.reply(ModelReply::Stream(vec![
        Step::Text("Your squat".into()),
        Step::ErrorTail(json!({"type": "modelStreamErrorException", "message": "The model stream failed at token 42"})),
    ]));
    let s = ctx.stream(
        &unique_user("b-exception"),
        json!({"message": "hello coach"}),
    );
    well_formed(&s)?;
    eq(
        s.kinds(),
        vec!["route", "message", "error", "done"],
        "events",
    )?;
    let e = s.first("error").cloned().unwrap_or_default();
    eq(e["code"].as_str(), Some("MODEL_UNAVAILABLE"), "code")?;
    check(
        !s.raw.contains("token 42"),
        "Bedrock's words stay in the log",
    )?;
    eq(
        ctx.fake.requests().len(),
        1,
        "text already sent: no silent retry",
    )
}
