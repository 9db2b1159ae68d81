//! The functional lane with `FUNCTIONAL_MODEL` set, against the scripted fake model server
//! (Gemini wire format): the model may reorder the top swap candidates and rephrase texts; a pick
//! outside the candidates, a rephrasing that changes a number, a slow model and a failing model
//! all leave the deterministic answer. Cases run one at a time: they share the fake's script.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use blackbox::fake_model::{Reply as ModelReply, Step};
use blackbox::{
    JsonReply, ModelCase, ModelStack, call_json, check, done_set, eq, sample_workout, unique_user,
    unselected,
};
use chrono::Utc;
use coach::domain::catalog::catalog;
use coach::domain::profile::Profile;
use coach::skills::swap;
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

type Ctx = ModelStack;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "functional_model";
    let cases: Vec<(&'static str, ModelCase)> = vec![
        ("swap_model_picks_a_candidate", swap_model_picks_a_candidate),
        (
            "swap_model_cannot_introduce_an_exercise",
            swap_model_cannot_introduce_an_exercise,
        ),
        (
            "slow_or_failing_model_leaves_the_rules_answer",
            slow_or_failing_model_leaves_the_rules_answer,
        ),
        (
            "model_calls_are_paid_from_the_lifters_allowance",
            model_calls_are_paid_from_the_lifters_allowance,
        ),
        (
            "nudge_rephrased_only_when_numbers_survive",
            nudge_rephrased_only_when_numbers_survive,
        ),
        (
            "event_message_rephrased_keeps_the_question",
            event_message_rephrased_keeps_the_question,
        ),
        (
            "text_the_rules_cannot_place_is_classified_by_the_model",
            text_the_rules_cannot_place_is_classified_by_the_model,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let ctx = ModelStack::start("FUNCTIONAL_MODEL", &[]);
    // First invocation builds and starts the function; keep that out of the timed case.
    ctx.fake.reply(ModelReply::status(
        400,
        json!({"error": {"code": 400, "message": "warm-up"}}),
    ));
    let _ = ctx.rt.block_on(call(
        &ctx,
        "/v1/functional",
        "warmup",
        json!({"message": "{\"intent\":\"SWAP_EXERCISE\",\"target\":\"squat\"}"}),
    ));
    ctx.run(args, SUITE, cases)
}

async fn call(ctx: &Ctx, path: &str, user: &str, body: Value) -> JsonReply {
    let url = format!("{}{path}", ctx.stack.base);
    call_json(&ctx.http, "POST", url, user, Some(body)).await
}

fn swap(ctx: &Ctx, user: &str) -> JsonReply {
    let payload = json!({"intent": "SWAP_EXERCISE", "target": "barbell bench press"});
    ctx.rt.block_on(call(
        ctx,
        "/v1/functional",
        user,
        json!({ "message": payload.to_string() }),
    ))
}

/// The rules' ranking for a user with no profile and no history, computed in-process.
fn rules_ranking() -> Vec<String> {
    let target = swap::resolve_target("barbell bench press", &[]).expect("bench press");
    let query = swap::SwapQuery {
        constraint: None,
        muscle: None,
        exclude: Vec::new(),
    };
    swap::rank(
        target,
        catalog().all(),
        &query,
        &Profile::default(),
        &HashMap::new(),
    )
    .iter()
    .map(|c| c.exercise.id.to_string())
    .collect()
}

fn model_json(v: Value) -> ModelReply {
    ModelReply::text(&[&v.to_string()])
}

fn swap_model_picks_a_candidate(ctx: &Ctx) -> Result<(), Failed> {
    let ranking = rules_ranking();
    check(ranking.len() >= 5, "at least five candidates")?;
    let pick = ranking[2].clone();
    ctx.fake.reply(model_json(
        json!({"exercise_id": pick, "reason": "Same pressing pattern with a freer path for the shoulders."}),
    ));
    let r = swap(ctx, &unique_user("swap-model"));
    eq(r.status, 200, &format!("status of {}", r.body))?;
    let d = &r.body["data"];
    eq(
        d["new_exercise"]["exercise_id"].as_str(),
        Some(pick.as_str()),
        "the model's pick",
    )?;
    eq(d["chosen_by"].as_str(), Some("model"), "chosen_by")?;
    let alternatives: Vec<&str> = d["alternatives"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["exercise_id"].as_str()).collect())
        .unwrap_or_default();
    eq(
        alternatives.first().copied(),
        Some(ranking[0].as_str()),
        "the rules' first choice stays an alternative",
    )?;
    check(
        !alternatives.contains(&pick.as_str()),
        "the pick is not also an alternative",
    )?;
    check(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("freer path")),
        format!("the model's reason in the message: {}", d["message"]),
    )?;
    // What the model was asked: the top five candidates, JSON out, temperature 0, no thinking.
    let reqs = ctx.fake.requests();
    eq(reqs.len(), 1, "one model request")?;
    let body = &reqs[0].body;
    // The key the function read from Secrets Manager at start-up, not the environment's decoy.
    eq(
        reqs[0].header("x-goog-api-key"),
        Some(ctx.secrets.value.as_str()),
        "api key header",
    )?;
    eq(
        body["generationConfig"]["responseMimeType"].as_str(),
        Some("application/json"),
        "json output",
    )?;
    eq(
        body["generationConfig"]["temperature"].as_f64(),
        Some(0.0),
        "temperature",
    )?;
    eq(
        body["generationConfig"]["thinkingConfig"]["thinkingBudget"].as_i64(),
        Some(0),
        "thinking off",
    )?;
    let asked: Value = serde_json::from_str(
        body["contents"][0]["parts"][0]["text"]
            .as_str()
            .unwrap_or_default(),
    )?;
    let offered: Vec<&str> = asked["candidates"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["exercise_id"].as_str()).collect())
        .unwrap_or_default();
    eq(
        offered,
        ranking.iter().take(5).map(String::as_str).collect(),
        "candidates offered",
    )
}

fn tokens_today(ctx: &Ctx, user: &str) -> Result<u64, Failed> {
    Ok(ctx
        .rt
        .block_on(blackbox::tokens_today(&ctx.stack.store, user))?)
}

/// The swap pick is counted against the lifter's daily allowance like the coach's answers; a
/// lifter who spent it gets the rules' answer and the model is not asked.
fn model_calls_are_paid_from_the_lifters_allowance(ctx: &Ctx) -> Result<(), Failed> {
    let ranking = rules_ranking();
    let pick = || model_json(json!({"exercise_id": ranking[1], "reason": "Same press."}));
    let user = unique_user("swap-paid");
    ctx.fake.reply(pick());
    let r = swap(ctx, &user);
    eq(
        r.body["data"]["chosen_by"].as_str(),
        Some("model"),
        "picked",
    )?;
    eq(
        tokens_today(ctx, &user)?,
        132,
        "the call, settled at its cost",
    )?;

    let spent_user = unique_user("swap-spent");
    let allowance = coach::app::meter::DEFAULT_DAILY_TOKENS;
    let spent = coach::llm::Usage::new(allowance, 0, 0, 0, coach::llm::CachePrice::WHOLE);
    ctx.rt
        .block_on(ctx.stack.store.add_tokens(&spent_user, Utc::now(), spent))?;
    ctx.fake.reset();
    ctx.fake.reply(pick());
    let r = swap(ctx, &spent_user);
    eq(r.status, 200, &format!("status of {}", r.body))?;
    let d = &r.body["data"];
    eq(d["chosen_by"].as_str(), Some("rules"), "the rules answer")?;
    eq(
        d["new_exercise"]["exercise_id"].as_str(),
        Some(ranking[0].as_str()),
        "the rules' first choice",
    )?;
    eq(ctx.fake.requests().len(), 0, "the model was not asked")?;
    eq(
        tokens_today(ctx, &spent_user)?,
        allowance,
        "nothing more counted",
    )
}

fn swap_model_cannot_introduce_an_exercise(ctx: &Ctx) -> Result<(), Failed> {
    let ranking = rules_ranking();
    // Deadlift is no bench-press substitute; the 6th candidate is outside the choices offered.
    for pick in ["deadlift", ranking[5].as_str()] {
        ctx.fake.reset();
        ctx.fake.reply(model_json(
            json!({"exercise_id": pick, "reason": "Trust me."}),
        ));
        let r = swap(ctx, &unique_user("swap-rogue"));
        eq(r.status, 200, &format!("status of {}", r.body))?;
        let d = &r.body["data"];
        eq(
            d["new_exercise"]["exercise_id"].as_str(),
            Some(ranking[0].as_str()),
            &format!("pick {pick} ignored"),
        )?;
        eq(d["chosen_by"].as_str(), Some("rules"), "chosen_by")?;
        eq(ctx.fake.requests().len(), 1, "the model was asked")?;
    }
    Ok(())
}

fn slow_or_failing_model_leaves_the_rules_answer(ctx: &Ctx) -> Result<(), Failed> {
    let ranking = rules_ranking();
    ctx.fake.reply(ModelReply::Stream(vec![
        Step::Delay(Duration::from_secs(3)),
        Step::Text(json!({"exercise_id": ranking[1]}).to_string()),
    ]));
    let started = Instant::now();
    let r = swap(ctx, &unique_user("swap-slow"));
    let took = started.elapsed();
    eq(
        r.body["data"]["new_exercise"]["exercise_id"].as_str(),
        Some(ranking[0].as_str()),
        "slow model: rules' pick",
    )?;
    eq(
        r.body["data"]["chosen_by"].as_str(),
        Some("rules"),
        "chosen_by",
    )?;
    // The answer did not wait for the model's 3 s.
    check(
        took < Duration::from_millis(2500),
        format!("answered after {took:?}"),
    )?;

    ctx.fake.reset();
    ctx.fake.reply(ModelReply::status(
        401,
        json!({"error": {"code": 401, "message": "API key not valid."}}),
    ));
    let r = swap(ctx, &unique_user("swap-401"));
    eq(r.status, 200, "a failing model is not the lifter's problem")?;
    eq(
        r.body["data"]["chosen_by"].as_str(),
        Some("rules"),
        "chosen_by",
    )?;
    eq(
        r.body["data"]["new_exercise"]["exercise_id"].as_str(),
        Some(ranking[0].as_str()),
        "rules' pick",
    )
}

/// A reps-shortfall nudge for a fresh user (bench 100 x 5 at RIR 0 against a plan of 8 at RIR 2).
fn shortfall_nudge(ctx: &Ctx) -> Result<Value, Failed> {
    let user = unique_user("nudge");
    let mut w = sample_workout("w-nudge", 2);
    w.exercises[0].sets[1] = done_set("bench-1", (100.0, 8, 2), (100.0, 5, 0), Utc::now());
    ctx.rt
        .block_on(ctx.stack.store.replace_active_workout(&user, &w))?;
    let event = json!({"event_type": "SET_COMPLETED", "state_diff": {"set_id": "bench-1"}});
    let r = ctx.rt.block_on(call(
        ctx,
        "/v1/functional",
        &user,
        json!({ "message": event.to_string() }),
    ));
    eq(r.status, 200, &format!("status of {}", r.body))?;
    eq(
        r.body["action"].as_str(),
        Some("NUDGE"),
        &format!("action of {}", r.body),
    )?;
    Ok(r.body["data"].clone())
}

fn nudge_rephrased_only_when_numbers_survive(ctx: &Ctx) -> Result<(), Failed> {
    // A rephrasing that drops the numbers is discarded.
    ctx.fake.reply(model_json(
        json!({"text": "Tough set! Maybe lighten the load a bit."}),
    ));
    let d = shortfall_nudge(ctx)?;
    eq(
        d["phrased_by"].as_str(),
        Some("rules"),
        "invented wording discarded",
    )?;
    let template = d["message"].as_str().unwrap_or_default().to_string();
    check(
        template.chars().any(|c| c.is_ascii_digit()),
        format!("the template has numbers: {template}"),
    )?;
    eq(d["rule"].as_str(), Some("reps_shortfall"), "rule")?;

    // One that keeps every number is used; rule and severity stay the rules'.
    let rephrased = format!("Heads up: {template}");
    ctx.fake.reset();
    ctx.fake.reply(model_json(json!({ "text": rephrased })));
    let d = shortfall_nudge(ctx)?;
    eq(d["phrased_by"].as_str(), Some("model"), "phrased_by")?;
    eq(
        d["message"].as_str(),
        Some(rephrased.as_str()),
        "the model's wording",
    )?;
    eq(d["rule"].as_str(), Some("reps_shortfall"), "rule")?;
    eq(d["severity"].as_str(), Some("warning"), "severity")
}

fn event_message_rephrased_keeps_the_question(ctx: &Ctx) -> Result<(), Failed> {
    let first_open = json!({"type": "app_opened_first_time"});
    // A rephrasing that stops asking is discarded.
    ctx.fake
        .reply(model_json(json!({"text": "Welcome aboard."})));
    let user = unique_user("ev-model");
    let r = ctx
        .rt
        .block_on(call(ctx, "/v1/events", &user, first_open.clone()));
    eq(r.status, 200, &format!("status of {}", r.body))?;
    let template = r.body["message"].as_str().unwrap_or_default().to_string();
    check(
        template.contains("What should I call you"),
        format!("template question: {template}"),
    )?;

    ctx.fake.reset();
    ctx.fake.reply(model_json(
        json!({"text": "Hey, welcome! What should I call you?"}),
    ));
    let user = unique_user("ev-model");
    let r = ctx.rt.block_on(call(ctx, "/v1/events", &user, first_open));
    eq(
        r.body["message"].as_str(),
        Some("Hey, welcome! What should I call you?"),
        "rephrased",
    )?;
    eq(
        r.body["metadata"]["requires_response"].as_bool(),
        Some(true),
        "still asks",
    )?;
    eq(ctx.fake.requests().len(), 1, "one model call")
}

/// The router's rules first; a coach message they cannot place goes to the small model, whose
/// answer counts only when it names a SLOW intent.
fn text_the_rules_cannot_place_is_classified_by_the_model(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("m-classify");
    let route_of = |message: &str, answer: &str, marker: &str| {
        ctx.fake.reply_for(
            marker,
            ModelReply::text(&[&json!({ "intent": answer }).to_string()]),
        );
        let s = ctx.stream(&user, json!({ "message": message }));
        s.events.first().map(|e| e.1.clone()).unwrap_or_default()
    };
    // No rule places it (no plan, progress or workout words): the model's answer is taken.
    let r = route_of(
        "numbers feel stuck lately, thoughts qz71",
        "ANALYZE_PROGRESS",
        "qz71",
    );
    eq(
        (
            r["intent"].as_str(),
            r["matched_rule"].as_str(),
            r["confidence"].as_str(),
        ),
        (
            Some("ANALYZE_PROGRESS"),
            Some("model:classifier"),
            Some("medium"),
        ),
        &format!("classified: {r}"),
    )?;
    // An answer outside the SLOW intents (a FAST command's) is no intent.
    let r = route_of(
        "numbers feel stuck lately, thoughts qz72",
        "LOG_SET",
        "qz72",
    );
    eq(
        r["intent"].clone(),
        Value::Null,
        &format!("not a model's to give: {r}"),
    )?;
    // Text the rules place never reaches the model.
    let r = route_of("how is my bench progressing? qz73", "PLAN_ROUTINE", "qz73");
    eq(
        (r["intent"].as_str(), r["matched_rule"].as_str()),
        (Some("ANALYZE_PROGRESS"), Some("pattern:analyze_progress")),
        "the rule's",
    )?;
    let asked = ctx
        .fake
        .requests()
        .iter()
        .any(|q| q.body.to_string().contains("qz73"));
    ctx.fake.forget("qz73");
    check(!asked, "no model call")
}
