//! Black-box tests of the coach on `POST /v1/stream` with the scripted fake model (Gemini wire
//! format): proposals confirmed by endpoint and by chat, the critic on a streamed answer and on
//! a buffered high-risk one, workout-mode tools, destructive requests, conversation turns stored
//! once and replayed into the next request, memories and notifications.

use aws_sdk_dynamodb::types::AttributeValue;
use blackbox::fake_model::{Reply as ModelReply, Step};
use blackbox::{
    JsonReply, ModelCase, ModelStack, bench_session, call_json, check, eq, sample_workout,
    unique_user, unselected, weight_of, well_formed,
};
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

type Ctx = ModelStack;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "coach_agent";
    let cases: Vec<(&'static str, ModelCase)> = vec![
        (
            "plan_ppl_routine_confirmed_by_endpoint",
            plan_ppl_routine_confirmed_by_endpoint,
        ),
        (
            "chat_yes_applies_the_latest_proposal",
            chat_yes_applies_the_latest_proposal,
        ),
        (
            "chat_yes_applies_only_the_previous_turns_proposal",
            chat_yes_applies_only_the_previous_turns_proposal,
        ),
        (
            "every_option_of_the_destructive_gate_confirms",
            every_option_of_the_destructive_gate_confirms,
        ),
        (
            "tools_not_offered_this_turn_run_nothing",
            tools_not_offered_this_turn_run_nothing,
        ),
        (
            "a_spent_daily_allowance_stops_the_coach_not_the_commands",
            a_spent_daily_allowance_stops_the_coach_not_the_commands,
        ),
        (
            "parallel_streams_share_one_allowance",
            parallel_streams_share_one_allowance,
        ),
        (
            "a_coach_turn_costs_what_scale_md_says",
            a_coach_turn_costs_what_scale_md_says,
        ),
        (
            "an_invented_number_after_a_tool_never_reaches_the_lifter",
            an_invented_number_after_a_tool_never_reaches_the_lifter,
        ),
        (
            "a_cited_figure_is_the_datas_in_the_lifters_unit",
            a_cited_figure_is_the_datas_in_the_lifters_unit,
        ),
        (
            "high_risk_answer_is_revised_before_it_is_shown",
            high_risk_answer_is_revised_before_it_is_shown,
        ),
        (
            "a_looping_answer_is_cut_and_checked",
            a_looping_answer_is_cut_and_checked,
        ),
        (
            "workout_mode_adds_curls_with_warmups",
            workout_mode_adds_curls_with_warmups,
        ),
        (
            "reasoning_and_calls_written_as_text_never_reach_the_lifter",
            reasoning_and_calls_written_as_text_never_reach_the_lifter,
        ),
        ("a_models_slips_end_no_answer", a_models_slips_end_no_answer),
        (
            "a_turn_runs_at_most_eight_calls",
            a_turn_runs_at_most_eight_calls,
        ),
        (
            "an_empty_answer_is_an_error_not_silence",
            an_empty_answer_is_an_error_not_silence,
        ),
        (
            "a_memory_is_retired_only_when_the_lifter_confirms",
            a_memory_is_retired_only_when_the_lifter_confirms,
        ),
        (
            "memories_back_no_figures_and_corrections_are_the_apps",
            memories_back_no_figures_and_corrections_are_the_apps,
        ),
        (
            "the_coach_changes_only_what_the_lifter_said",
            the_coach_changes_only_what_the_lifter_said,
        ),
        (
            "a_retried_stream_replays_its_writes",
            a_retried_stream_replays_its_writes,
        ),
        (
            "a_retried_stream_replays_after_the_next_workout_started",
            a_retried_stream_replays_after_the_next_workout_started,
        ),
        (
            "model_loads_are_held_to_the_history_and_writes_keep_their_order",
            model_loads_are_held_to_the_history_and_writes_keep_their_order,
        ),
        (
            "destructive_request_needs_an_explicit_yes",
            destructive_request_needs_an_explicit_yes,
        ),
        (
            "the_workout_brief_recalls_sessions_and_readiness",
            the_workout_brief_recalls_sessions_and_readiness,
        ),
        (
            "turns_stored_once_and_replayed_as_history",
            turns_stored_once_and_replayed_as_history,
        ),
        (
            "memories_and_notifications_through_the_gate",
            memories_and_notifications_through_the_gate,
        ),
        (
            "the_intake_answers_write_the_profile",
            the_intake_answers_write_the_profile,
        ),
        (
            "the_coaching_journey_reaches_the_coach",
            the_coaching_journey_reaches_the_coach,
        ),
        (
            "terminal_chat_client_confirms_a_proposal",
            terminal_chat_client_confirms_a_proposal,
        ),
        (
            "a_proposal_is_confirmed_on_another_device",
            a_proposal_is_confirmed_on_another_device,
        ),
        (
            "analytics_tools_and_flags_share_the_analysis",
            analytics_tools_and_flags_share_the_analysis,
        ),
        (
            "coach_plans_lifts_last_done_months_ago",
            coach_plans_lifts_last_done_months_ago,
        ),
        (
            "every_surface_prescribes_the_same_load",
            every_surface_prescribes_the_same_load,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let ctx = ModelStack::start("SLOW_MODEL", &[]);
    ctx.fake.reply(ModelReply::text(&["warm"]));
    let _ = ctx.stream("warmup", json!({"message": "hello"}));
    ctx.run(args, SUITE, cases)
}

fn functional(ctx: &Ctx, user: &str, path: &str, body: Option<Value>) -> JsonReply {
    ctx.rt.block_on(call_json(
        &ctx.http,
        "POST",
        format!("{}{path}", ctx.stack.base),
        user,
        body,
    ))
}

fn count(ctx: &Ctx, user: &str, prefix: &str) -> Result<usize, Failed> {
    Ok(ctx.rt.block_on(ctx.stack.store.count_items(user, prefix))?)
}

/// The context block of the lifter's first turn in a Gemini request (the per-request data).
fn context_text(body: &Value) -> String {
    body["contents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["role"] == "user")
        .filter_map(|c| c["parts"][0]["text"].as_str())
        .filter_map(|t| t.split_once("</context>").map(|(data, _)| data.to_string()))
        .next_back()
        .unwrap_or_default()
}

fn system_text(body: &Value) -> String {
    body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn plan_ppl_routine_confirmed_by_endpoint(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-plan");
    ctx.fake.reply(ModelReply::calls(&[
        ("exercise_search", json!({"query": "bench press"})),
        ("exercise_search", json!({"query": "barbell row"})),
        ("exercise_search", json!({"query": "back squat"})),
    ]));
    let days = json!([
        {"label": "Push", "exercises": [{"exercise_id": "barbell-bench-press", "sets": 3, "reps": 8, "rep_range": [6, 10]}]},
        {"label": "Pull", "exercises": [{"exercise_id": "barbell-row", "sets": 3, "reps": 10}]},
        {"label": "Legs", "exercises": [{"exercise_id": "Squat (Barbell)", "sets": 4, "reps": 6}]},
    ]);
    ctx.fake.reply(ModelReply::calls(&[(
        "propose_routine",
        json!({"name": "Push Pull Legs", "days": days}),
    )]));
    ctx.fake.reply(ModelReply::text(&[
        "Here is a push/pull/legs split. ",
        "Confirm to save it.",
    ]));
    let s = ctx.stream(
        &user,
        json!({"message": "Plan me a push pull legs routine"}),
    );
    well_formed(&s)?;
    // Deployed, the model key is a secret the function reads once at start-up.
    eq(
        ctx.fake.requests()[0].header("x-goog-api-key"),
        Some(ctx.secrets.value.as_str()),
        "the key from Secrets Manager",
    )?;
    check(
        ctx.secrets.calls().iter().any(|(op, id)| {
            op == "secretsmanager.GetSecretValue" && id == blackbox::fake_secrets::SECRET_ARN
        }),
        format!("the secret was read: {:?}", ctx.secrets.calls()),
    )?;
    eq(
        s.kinds(),
        vec![
            "route",
            "status",
            "tool_start",
            "tool_start",
            "tool_start",
            "tool_end",
            "tool_end",
            "tool_end",
            "status",
            "tool_start",
            "tool_end",
            "artifact",
            "message",
            "message",
            "done",
        ],
        "events",
    )?;
    eq(
        s.events[0].1["intent"].as_str(),
        Some("PLAN_ROUTINE"),
        "intent",
    )?;
    let art = s.first("artifact").cloned().unwrap_or_default();
    eq(art["artifact_type"].as_str(), Some("routine"), "type")?;
    eq(art["status"].as_str(), Some("proposed"), "status")?;
    eq(
        art["actions"].clone(),
        json!(["confirm", "dismiss"]),
        "actions",
    )?;
    let id = art["artifact_id"].as_str().unwrap_or_default().to_string();
    let hash = art["content_hash"].as_str().unwrap_or_default().to_string();
    let content_days = art["artifact_content"]["routine"]["days"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    eq(content_days.len(), 3, "three days shown")?;
    eq(
        art["artifact_content"]["templates"][2]["exercises"][0]["exercise_id"].as_str(),
        Some("back-squat"),
        "names resolved to catalog ids",
    )?;
    // The id in the stream is the stored id, and nothing is applied yet.
    let stored = ctx.rt.block_on(ctx.stack.store.get_artifact(&user, &id))?;
    check(stored.is_some(), "the artifact is stored under its id")?;
    eq(
        count(ctx, &user, "ROUTINE#")?,
        0,
        "no routine before confirm",
    )?;
    // A stale hash is refused and changes nothing.
    let r = functional(
        ctx,
        &user,
        &format!("/v1/artifacts/{id}/confirm"),
        Some(json!({"content_hash": "0000"})),
    );
    eq(r.status, 409, "stale hash")?;
    eq(
        r.body["error"]["code"].as_str(),
        Some("STALE_CONTENT_HASH"),
        "code",
    )?;
    eq(count(ctx, &user, "ROUTINE#")?, 0, "nothing applied")?;
    // Another user cannot see it.
    let r = functional(
        ctx,
        &unique_user("c-other"),
        &format!("/v1/artifacts/{id}/confirm"),
        Some(json!({"content_hash": hash})),
    );
    eq(r.status, 404, "another user's artifact")?;
    // The right hash applies exactly the stored content.
    let r = functional(
        ctx,
        &user,
        &format!("/v1/artifacts/{id}/confirm"),
        Some(json!({"content_hash": hash})),
    );
    eq(r.status, 200, &format!("confirm: {}", r.body))?;
    eq(r.body["already_applied"].as_bool(), Some(false), "applied")?;
    let routine_id = r.body["applied"]["routine_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let routine = ctx
        .rt
        .block_on(ctx.stack.store.get_routine(&user, &routine_id))?
        .ok_or("the routine exists")?;
    eq(routine.name.as_str(), "Push Pull Legs", "routine name")?;
    let labels: Vec<&str> = routine.days.iter().map(|d| d.label.as_str()).collect();
    eq(labels, vec!["Push", "Pull", "Legs"], "days")?;
    let legs = ctx
        .rt
        .block_on(
            ctx.stack
                .store
                .get_template(&user, &routine.days[2].template_id),
        )?
        .ok_or("the legs template exists")?;
    eq(legs.exercises[0].sets.len(), 4, "4 squat sets")?;
    // Applying twice changes nothing the second time.
    let r = functional(
        ctx,
        &user,
        &format!("/v1/artifacts/{id}/confirm"),
        Some(json!({"content_hash": hash})),
    );
    eq(r.status, 200, "second confirm")?;
    eq(r.body["already_applied"].as_bool(), Some(true), "already")?;
    eq(count(ctx, &user, "ROUTINE#")?, 1, "one routine")?;
    eq(count(ctx, &user, "TEMPLATE#")?, 3, "three templates")?;
    // The routine is active: "start my next workout" starts its first day.
    let r = functional(ctx, &user, "/v1/workouts", Some(json!({"next": true})));
    eq(r.status, 201, &format!("start next: {}", r.body))?;
    check(
        r.body["workout"]["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("Push")),
        format!("first day: {}", r.body["workout"]["name"]),
    )?;
    let r = functional(ctx, &user, &format!("/v1/artifacts/{id}/dismiss"), None);
    eq(r.status, 409, "an applied proposal cannot be dismissed")
}

fn chat_yes_applies_the_latest_proposal(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-chat-yes");
    let conv = "(context: conversation_id=cv1)";
    let art = propose_arms(ctx, &user, "cv1")?;
    eq(art["artifact_type"].as_str(), Some("workout"), "type")?;
    let calls_before = ctx.fake.requests().len();
    let s = ctx.stream(&user, json!({"message": format!("{conv} Yes, save it!")}));
    well_formed(&s)?;
    eq(
        s.kinds(),
        vec!["route", "artifact", "message", "done"],
        "events",
    )?;
    let applied = s.first("artifact").cloned().unwrap_or_default();
    eq(
        &applied["artifact_id"],
        &art["artifact_id"],
        "the latest proposal",
    )?;
    eq(applied["status"].as_str(), Some("accepted"), "accepted")?;
    eq(ctx.fake.requests().len(), calls_before, "no model call")?;
    let active = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("the workout started")?;
    eq(active.value.name.as_str(), "Arms", "workout")?;
    eq(
        active.value.exercises[0].exercise_id.as_str(),
        "barbell-curl",
        "exactly the proposed exercise",
    )?;
    // Dismissing after acceptance is refused; a new dismiss of a new proposal works.
    let id = art["artifact_id"].as_str().unwrap_or_default();
    let r = functional(ctx, &user, &format!("/v1/artifacts/{id}/dismiss"), None);
    eq(r.status, 409, "applied")?;
    let r = functional(ctx, &user, "/v1/artifacts/a-nope/dismiss", None);
    eq(r.status, 404, "unknown id")
}

/// Proposes an arm workout in conversation `conv`; returns the artifact event.
fn propose_arms(ctx: &Ctx, user: &str, conv: &str) -> Result<Value, Failed> {
    ctx.fake.reply(ModelReply::calls(&[(
        "propose_workout",
        json!({"name": "Arms", "exercises": [{"exercise_id": "barbell-curl", "sets": 3, "reps": 10}]}),
    )]));
    ctx.fake
        .reply(ModelReply::text(&["An arm session; say yes to start it."]));
    let s = ctx.stream(
        user,
        json!({"message": format!("(context: conversation_id={conv}) plan me a quick arm workout")}),
    );
    well_formed(&s)?;
    s.first("artifact")
        .cloned()
        .ok_or_else(|| "a proposal".into())
}

/// A "yes" that is not an answer to the previous turn's proposal reaches the coach as text.
fn yes_goes_to_the_coach(ctx: &Ctx, user: &str, conv: &str, what: &str) -> Result<(), Failed> {
    let calls_before = ctx.fake.requests().len();
    ctx.fake.reply(ModelReply::text(&["Yes to what?"]));
    let s = ctx.stream(
        user,
        json!({"message": format!("(context: conversation_id={conv}) yes")}),
    );
    well_formed(&s)?;
    check(
        s.first("artifact").is_none(),
        format!("{what}: nothing applied: {:?}", s.kinds()),
    )?;
    eq(
        ctx.fake.requests().len(),
        calls_before + 1,
        &format!("{what}: the coach got the message"),
    )?;
    check(
        ctx.rt
            .block_on(ctx.stack.store.get_active_workout(user))?
            .is_none(),
        format!("{what}: no workout started"),
    )
}

fn chat_yes_applies_only_the_previous_turns_proposal(ctx: &Ctx) -> Result<(), Failed> {
    // Two turns later: an unrelated question came between.
    let user = unique_user("c-yes-late");
    let art = propose_arms(ctx, &user, "cv-late")?;
    ctx.fake.reply(ModelReply::text(&["Sleep matters."]));
    let s = ctx.stream(
        &user,
        json!({"message": "(context: conversation_id=cv-late) how much sleep do I need?"}),
    );
    well_formed(&s)?;
    yes_goes_to_the_coach(ctx, &user, "cv-late", "two turns later")?;
    let id = art["artifact_id"].as_str().unwrap_or_default();
    let stored = ctx
        .rt
        .block_on(ctx.stack.store.get_artifact(&user, id))?
        .ok_or("stored")?;
    eq(stored.status.as_str(), "proposed", "still pending")?;

    // In another conversation.
    let user = unique_user("c-yes-other");
    propose_arms(ctx, &user, "cv-a")?;
    yes_goes_to_the_coach(ctx, &user, "cv-b", "another conversation")?;

    // Changed after it was shown (no route edits a proposal: behind the lanes' backs, in the
    // store): refused as stale, nothing applied.
    let user = unique_user("c-yes-edited");
    let art = propose_arms(ctx, &user, "cv-e")?;
    let id = art["artifact_id"].as_str().unwrap_or_default();
    let mut stored = ctx
        .rt
        .block_on(ctx.stack.store.get_artifact(&user, id))?
        .ok_or("stored")?;
    if let coach::domain::artifact::Proposal::Workout { workout } = &mut stored.proposal {
        workout.name = "Arms and legs".into();
    }
    ctx.rt.block_on(async {
        ctx.stack
            .dynoxide
            .client()
            .await
            .update_item()
            .table_name(blackbox::TABLE)
            .key("pk", AttributeValue::S(format!("USER#{user}")))
            .key("sk", AttributeValue::S(format!("ARTIFACT#{id}")))
            .update_expression("SET doc = :d, content_hash = :h")
            .expression_attribute_values(":d", AttributeValue::S(stored.proposal.content_json()))
            .expression_attribute_values(":h", AttributeValue::S(stored.proposal.content_hash()))
            .send()
            .await
    })?;
    let calls_before = ctx.fake.requests().len();
    let s = ctx.stream(
        &user,
        json!({"message": "(context: conversation_id=cv-e) yes"}),
    );
    well_formed(&s)?;
    eq(
        s.first("error").and_then(|e| e["code"].as_str()),
        Some("STALE_CONTENT_HASH"),
        "edited: stale",
    )?;
    eq(ctx.fake.requests().len(), calls_before, "no model call")?;
    check(
        ctx.rt
            .block_on(ctx.stack.store.get_active_workout(&user))?
            .is_none(),
        "edited: nothing applied",
    )?;

    // Right after it was shown, in the same conversation: applied.
    let user = unique_user("c-yes-now");
    let art = propose_arms(ctx, &user, "cv-n")?;
    let s = ctx.stream(
        &user,
        json!({"message": "(context: conversation_id=cv-n) go ahead"}),
    );
    well_formed(&s)?;
    eq(
        s.first("artifact").map(|a| a["artifact_id"].clone()),
        Some(art["artifact_id"].clone()),
        "applied right after",
    )?;
    check(
        ctx.rt
            .block_on(ctx.stack.store.get_active_workout(&user))?
            .is_some(),
        "the workout started",
    )
}

/// Each destructive verb's clarification offers "Yes, {verb} it", and that answer hands the
/// request to the coach as confirmed.
fn every_option_of_the_destructive_gate_confirms(ctx: &Ctx) -> Result<(), Failed> {
    for verb in [
        "delete", "remove", "clear", "wipe", "erase", "purge", "reset",
    ] {
        let user = unique_user(&format!("c-gate-{verb}"));
        let conv = format!("(context: conversation_id=cv-{verb})");
        let request = format!("{verb} my workout history");
        let s = ctx.stream(&user, json!({"message": format!("{conv} {request}")}));
        well_formed(&s)?;
        let c = s
            .first("clarification")
            .cloned()
            .ok_or(format!("{verb}: a clarification"))?;
        let option = c["options"][0].as_str().unwrap_or_default().to_string();
        eq(option.as_str(), format!("Yes, {verb} it").as_str(), verb)?;
        ctx.fake.reset();
        ctx.fake.reply(ModelReply::text(&[
            "I can't do that from chat; use the app's settings.",
        ]));
        let s = ctx.stream(&user, json!({"message": format!("{conv} {option}")}));
        well_formed(&s)?;
        let reqs = ctx.fake.requests();
        eq(reqs.len(), 1, &format!("{verb}: the coach answers"))?;
        let body = reqs[0].body.to_string();
        check(
            body.contains(&request) && body.contains("confirm this explicitly"),
            format!("{verb}: the original request, confirmed"),
        )?;
    }
    Ok(())
}

/// A model that calls workout writes (and a name never declared) outside workout mode: each is
/// refused before it runs, and the lifter's active workout is unchanged.
fn tools_not_offered_this_turn_run_nothing(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-offered");
    let w = sample_workout("w-offered", 2);
    ctx.rt
        .block_on(ctx.stack.store.replace_active_workout(&user, &w))?;
    let before = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("active")?;
    ctx.fake.reply(ModelReply::calls(&[
        ("log_set", json!({"reps": 8, "weight_kg": 100})),
        ("remove_set", json!({"set_id": "bench-2"})),
        ("prescribe_set", json!({"set_id": "bench-1", "reps": 3})),
        (
            "add_exercise",
            json!({"exercise_id": "barbell-curl", "sets": 3}),
        ),
        (
            "swap_exercise",
            json!({"exercise_instance_id": "ex-bench", "exercise_id": "dumbbell-bench-press"}),
        ),
        ("complete_workout", json!({})),
        ("delete_history", json!({})),
    ]));
    ctx.fake
        .reply(ModelReply::text(&["Those need a workout in progress."]));
    let s = ctx.stream(
        &user,
        json!({"message": "log 8 at 100 and finish my workout"}),
    );
    well_formed(&s)?;
    eq(s.tool_oks(), vec![false; 7], "every call refused")?;
    let back = ctx.fake.requests()[1].body["contents"][2]["parts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let codes: Vec<String> = back
        .iter()
        .map(|p| {
            p["functionResponse"]["response"]["error"]["code"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let mut want = vec!["WORKOUT_MODE_ONLY".to_string(); 6];
    want.push("UNKNOWN_TOOL".into());
    eq(codes, want, "structured refusals")?;
    let after = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("still active")?;
    eq(after.version, before.version, "version unchanged")?;
    eq(after.value, before.value, "workout unchanged")?;
    eq(count(ctx, &user, "WORKOUT#2")?, 0, "nothing completed")?;
    // Workout mode offers the workout writes and none of the heavy tools.
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::text(&["Ready."]));
    let s = ctx.stream(
        &user,
        json!({"message": "(context: workout_id=w-offered) what should I focus on today?"}),
    );
    well_formed(&s)?;
    let offered: Vec<String> = ctx.fake.requests()[0].body["tools"][0]["functionDeclarations"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|f| f["name"].as_str().map(str::to_string))
        .collect();
    check(
        offered.contains(&"log_set".to_string()) && offered.contains(&"workout_state".to_string()),
        format!("workout tools offered: {offered:?}"),
    )?;
    for heavy in [
        "training_snapshot",
        "training_analysis",
        "training_set_query",
        "propose_routine",
    ] {
        check(
            !offered.iter().any(|o| o == heavy),
            format!("{heavy} not offered mid-workout"),
        )?;
    }
    Ok(())
}

/// The default allowance is 200,000 tokens a day; this lifter has spent 199,800. Each call
/// reserves its estimate while the count is under the allowance and settles at what the fake
/// reports, 132 tokens: the first call leaves 68, the second spends them, and the third is
/// never made. The next message is refused before any model call, with the
/// time the allowance resets; commands keep working.
fn a_spent_daily_allowance_stops_the_coach_not_the_commands(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-quota");
    let spent = |n: u64| coach::llm::Usage::new(n, 0, 0, 0, coach::llm::CachePrice::WHOLE);
    ctx.rt.block_on(
        ctx.stack
            .store
            .add_tokens(&user, chrono::Utc::now(), spent(199_800)),
    )?;
    ctx.fake.reply(ModelReply::calls(&[(
        "exercise_search",
        json!({"query": "bench"}),
    )]));
    ctx.fake.reply(ModelReply::calls(&[(
        "exercise_search",
        json!({"query": "squat"}),
    )]));
    ctx.fake.reply(ModelReply::text(&["never sent"]));
    let s = ctx.stream(&user, json!({"message": "compare bench and squat for me"}));
    well_formed(&s)?;
    eq(ctx.fake.requests().len(), 2, "two model calls, not three")?;
    let error = s.first("error").cloned().ok_or("an error event")?;
    eq(error["code"].as_str(), Some("QUOTA_EXCEEDED"), "code")?;
    check(
        error["resets_at"]
            .as_str()
            .is_some_and(|t| t.ends_with("T00:00:00Z")),
        format!("when it resets: {error}"),
    )?;
    let used = ctx
        .rt
        .block_on(blackbox::tokens_today(&ctx.stack.store, &user))?;
    eq(used, 199_800 + 2 * 132, "both calls counted")?;
    // Over the allowance: refused before any model call, and nothing counted.
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::text(&["never sent"]));
    let s = ctx.stream(&user, json!({"message": "and my deadlift?"}));
    well_formed(&s)?;
    eq(s.kinds(), vec!["route", "error", "done"], "refused at once")?;
    eq(
        s.first("error").and_then(|e| e["code"].as_str()),
        Some("QUOTA_EXCEEDED"),
        "code",
    )?;
    eq(ctx.fake.requests().len(), 0, "no model call")?;
    // Commands need no model and keep working.
    let s = ctx.stream(&user, json!({"message": "next"}));
    well_formed(&s)?;
    check(
        s.first("error").is_none(),
        format!("a command: {:?}", s.kinds()),
    )
}

/// Eight streams at once from a lifter one token short of the allowance: exactly one model
/// call is made in all, every other stream is refused (`QUOTA_EXCEEDED`, or the three-stream
/// lease's 429), and the day's count passes the allowance by that one call's cost. The local
/// runtime runs one invocation of a function at a time, so the streams queue here; the race
/// itself is `store`'s `racing_reservations_pass_the_allowance_by_one_estimate_at_most`.
fn parallel_streams_share_one_allowance(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-race");
    let allowance = coach::app::meter::DEFAULT_DAILY_TOKENS;
    let spent = coach::llm::Usage::new(allowance - 1, 0, 0, 0, coach::llm::CachePrice::WHOLE);
    ctx.rt
        .block_on(ctx.stack.store.add_tokens(&user, chrono::Utc::now(), spent))?;
    for _ in 0..8 {
        ctx.fake
            .reply(ModelReply::text(&["Bench twice a week this month."]));
    }
    let streams: Vec<blackbox::Streamed> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let user = &user;
                s.spawn(move || {
                    ctx.stream(
                        user,
                        json!({"message": format!("how should I plan my bench for month {i}?")}),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a stream's thread"))
            .collect()
    });
    let code = |s: &blackbox::Streamed| {
        s.first("error")
            .and_then(|e| e["code"].as_str().map(str::to_string))
    };
    let answered = streams
        .iter()
        .filter(|s| s.status == 200 && code(s).is_none())
        .count();
    let quota = streams
        .iter()
        .filter(|s| code(s).as_deref() == Some("QUOTA_EXCEEDED"))
        .count();
    let leased = streams.iter().filter(|s| s.status == 429).count();
    eq(ctx.fake.requests().len(), 1, "one model call in all")?;
    eq(answered, 1, "one answer")?;
    eq(quota + leased, 7, "every other stream refused")?;
    let used = ctx
        .rt
        .block_on(blackbox::tokens_today(&ctx.stack.store, &user))?;
    eq(
        used,
        allowance - 1 + 132,
        "the one call settled at its cost",
    )
}

/// What one coach answer with one tool call costs the store, in capacity units as the store
/// reports them (the recording proxy asks for them): the coach's figure in docs/scale.md, with a
/// ceiling about half again over it (`capacity` prices the other operations).
fn a_coach_turn_costs_what_scale_md_says(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-capacity");
    let units = || {
        blackbox::fault_proxy::capacity_used()
            .values()
            .fold((0.0, 0.0), |(r, w), (dr, dw)| (r + dr, w + dw))
    };
    // The history the question reads is seeded first, outside the measure.
    for w in [
        blackbox::bench_session(21, &[(90.0, 5, 2)]),
        blackbox::bench_session(7, &[(100.0, 5, 2)]),
    ] {
        ctx.rt
            .block_on(ctx.stack.store.put_completed_workout(&user, &w))?;
    }
    let before = units();
    ctx.fake.reply(ModelReply::calls(&[(
        "exercise_progress",
        json!({"exercise_id": "bench press", "weeks": 8}),
    )]));
    ctx.fake
        .reply(ModelReply::text(&["Your bench is ", "moving up."]));
    let s = ctx.stream(
        &user,
        json!({"message": "How is my bench press progressing?"}),
    );
    well_formed(&s)?;
    let after = units();
    let (read, write) = (after.0 - before.0, after.1 - before.1);
    println!("| a coach answer (two model calls, one tool) | {read:.1} | {write:.1} |");
    check(
        read > 0.0 && write > 0.0,
        "the store reported the turn's capacity",
    )?;
    check(
        read <= 14.0 && write <= 12.0,
        format!("{read:.1} read / {write:.1} write units, over 14 / 12"),
    )
}

/// What a real small model did: one paragraph over and over, with an invented load in it.
fn a_looping_answer_is_cut_and_checked(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-loop");
    let line = "Brace hard and keep the bar over mid-foot at 20.5 kg. ";
    let chunks: Vec<&str> = std::iter::repeat_n(line, 12).collect();
    ctx.fake.reply(ModelReply::text(&chunks));
    let s = ctx.stream(&user, json!({"message": "any squat tips?"}));
    well_formed(&s)?;
    let text = s.text();
    eq(
        text.matches("Brace hard and keep the bar over mid-foot at")
            .count(),
        3,
        &format!("cut at the third time: {text}"),
    )?;
    check(
        text.contains("repeating itself"),
        format!("the lifter is told: {text}"),
    )?;
    // No tool ran, so its numbers were held until checked: the invented load never showed.
    check(
        !text.contains("20.5 kg") && text.contains("[a figure I can't back with your data]"),
        format!("the invented load is left out: {text}"),
    )?;
    eq(s.kinds().last().copied(), Some("done"), "done")
}

/// After a tool has run the model has data, and still a figure it invents (or takes from
/// another lift) is held with its sentence and left out before the lifter reads it; a figure
/// the data backs streams as written, and no correction is needed.
fn an_invented_number_after_a_tool_never_reaches_the_lifter(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-critic");
    bench_and_its_progress_read(ctx, &user)?;
    ctx.fake.reply(ModelReply::text(&[
        "Your top set was 100 kg for 5. ",
        "Your best ever is 140 kg, and you did 100 kg x 9 once.",
    ]));
    let s = ctx.stream(&user, json!({"message": "How is my bench going?"}));
    well_formed(&s)?;
    let text = s.text();
    check(
        text.contains("Your top set was 100 kg for 5.")
            && !text.contains("140 kg")
            && !text.contains("x 9")
            && text
                .matches("[a figure I can't back with your data]")
                .count()
                == 2,
        format!("the backed set shows, the invented max and set do not: {text}"),
    )?;
    check(
        !text.contains("Correction"),
        format!("nothing left to correct: {text}"),
    )?;
    eq(s.kinds().last().copied(), Some("done"), "done")
}

/// A weight the model cites by its ref ([[w1]], split across chunks as a stream splits it) is
/// shown as the data's figure in the lifter's unit, whatever words are around it; a ref the
/// data did not give is left out; no bracket or mark reaches the lifter or the stored answer.
fn a_cited_figure_is_the_datas_in_the_lifters_unit(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-cite");
    bench_and_its_progress_read(ctx, &user)?;
    ctx.fake.reply(ModelReply::text(&[
        "Here it is: [[w",
        "1]] is the figure. ",
        "And [[w99]] is not.",
    ]));
    let asked =
        json!({"message": "(context: conversation_id=cv-cite corr=r-1) How is my bench going?"});
    let s = ctx.stream(&user, asked.clone());
    well_formed(&s)?;
    let text = s.text();
    // The figure the model read beside "w1" in the tool result.
    let reqs = ctx.fake.requests();
    let sent = &reqs[1].body["contents"];
    let cited = find_ref(sent, "w1").ok_or(format!("no w1 in what the model read: {sent}"))?;
    let shown: f64 = text
        .strip_prefix("Here it is: ")
        .and_then(|t| t.split(" kg").next())
        .and_then(|n| n.parse().ok())
        .ok_or(format!("a figure in kg after the words: {text}"))?;
    check(
        (shown - cited).abs() < 0.051,
        format!("w1 is {cited} in the data, shown as {shown}: {text}"),
    )?;
    check(
        text.ends_with("And [a figure I can't back with your data] is not.")
            && !text.contains("[[")
            && !text.contains('\u{2060}'),
        format!("the unknown ref left out, nothing else shown: {text}"),
    )?;
    eq(s.kinds().last().copied(), Some("done"), "done")?;
    // The same corr again: the stored answer, as the lifter read it.
    let again = ctx.stream(&user, asked);
    well_formed(&again)?;
    eq(again.text(), text, "the stored answer")
}

/// A lifter with a week-old bench session of 100 kg x 5, whose coach's first call reads the
/// bench's progress.
fn bench_and_its_progress_read(ctx: &Ctx, user: &str) -> Result<(), Failed> {
    ctx.rt.block_on(
        ctx.stack
            .store
            .put_completed_workout(user, &bench_session(7, &[(100.0, 5, 2)])),
    )?;
    ctx.fake.reply(ModelReply::calls(&[(
        "exercise_progress",
        json!({"exercise_id": "bench press"}),
    )]));
    Ok(())
}

/// The number written with ref `name` ("100 [[w1]]" in a tool result, "100 kg [[w1]]" in the
/// context), anywhere in `v`.
fn find_ref(v: &Value, name: &str) -> Option<f64> {
    match v {
        Value::String(s) => {
            let before = &s[..s.find(&format!(" [[{name}]]"))?];
            let before = before
                .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .trim_end();
            let start = before
                .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
                .map_or(0, |i| i + 1);
            before[start..].parse().ok()
        }
        Value::Object(m) => m.values().find_map(|x| find_ref(x, name)),
        Value::Array(a) => a.iter().find_map(|x| find_ref(x, name)),
        _ => None,
    }
}

fn high_risk_answer_is_revised_before_it_is_shown(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-risk");
    ctx.fake.reply(ModelReply::text(&[
        "Take 400 mg of ibuprofen ",
        "and push through the pain.",
    ]));
    ctx.fake.reply(ModelReply::text(&[
        "Stop overhead pressing today and get the shoulder checked by a doctor or physio.",
    ]));
    let s = ctx.stream(
        &user,
        json!({"message": "My shoulder hurts when I press. What should I take?"}),
    );
    well_formed(&s)?;
    eq(
        s.kinds(),
        vec!["route", "message", "done"],
        "one buffered message",
    )?;
    let text = s.text();
    check(
        !text.to_lowercase().contains("ibuprofen") && !text.contains("push through"),
        format!("nothing unsafe reached the lifter: {text}"),
    )?;
    check(text.contains("doctor"), format!("the revision: {text}"))?;
    let reqs = ctx.fake.requests();
    eq(reqs.len(), 2, "draft and one revision")?;
    let revise = reqs[1].body.to_string();
    check(
        revise.contains("broke these rules") && revise.contains("medication"),
        "the revision request names the rules",
    )?;
    eq(
        reqs[1].body["toolConfig"]["functionCallingConfig"]["mode"].as_str(),
        Some("NONE"),
        &format!("no tool may be called in the revision: {}", reqs[1].body),
    )
}

/// Reasoning and tool calls a model writes as text (Qwen2.5-Coder through llama.cpp's server
/// wrote both) never reach the lifter nor the stored conversation; a call written as text that
/// names an offered tool with JSON arguments runs; one that cannot run is explained to the
/// model once.
fn reasoning_and_calls_written_as_text_never_reach_the_lifter(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-markup");
    ctx.rt.block_on(
        ctx.stack
            .store
            .put_completed_workout(&user, &bench_session(5, &[(100.0, 5, 2)])),
    )?;
    let conv = "(context: conversation_id=cv-markup)";
    ctx.fake.reply(ModelReply::text(&[
        "<think>They ask about the bench; guess 140",
        " kg? No, call the tool.</think>Let me look. <tools><function name=\"exercise_",
        "progress\" arguments='{\"exercise_id\": \"bench press\", \"weeks\": 8}'/></tools>",
    ]));
    ctx.fake
        .reply(ModelReply::text(&["Your bench is moving up."]));
    let s = ctx.stream(
        &user,
        json!({"message": format!("{conv} How is my bench press going?")}),
    );
    well_formed(&s)?;
    eq(s.tool_oks(), vec![true], "the written call ran")?;
    eq(
        s.text(),
        "Let me look. Your bench is moving up.".to_string(),
        "what the lifter read",
    )?;
    check(
        !s.raw.contains("think") && !s.raw.contains("<tools"),
        "no markup in the stream",
    )?;
    let second = ctx.fake.requests()[1].body.to_string();
    check(
        second.contains("functionResponse") && second.contains("barbell-bench-press"),
        "the result went back to the model",
    )?;

    // A call the model wrote to a tool that does not exist: told once, then its answer.
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::text(&[
        "<tool_call>{\"name\": \"delete_history\", \"arguments\": {}}</tool_call>",
    ]));
    ctx.fake
        .reply(ModelReply::text(&["I can plan, log and review."]));
    let s = ctx.stream(
        &user,
        json!({"message": format!("{conv} what else can you do for me?")}),
    );
    well_formed(&s)?;
    eq(
        s.text(),
        "I can plan, log and review.".to_string(),
        "answered",
    )?;
    let reqs = ctx.fake.requests();
    eq(reqs.len(), 2, "told once")?;
    let told = reqs[1].body.to_string();
    check(
        told.contains("nothing ran") && !told.contains("<think"),
        "the model was told; the earlier turn is stored without its reasoning",
    )
}

/// A stream that failed after a write (the model broke off) and is retried with the same
/// `corr`: the model makes the same call again and gets the first answer back, marked replayed;
/// the set is logged once, not on the next set too. Two identical calls in one answer are two
/// writes.
fn a_retried_stream_replays_its_writes(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-retry");
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-retry", 3)),
    )?;
    let message = json!({"message": "(context: workout_id=w-retry corr=r-retry-1) log 8 reps and another 8 please"});
    let two_sets = || {
        ModelReply::calls(&[
            ("log_set", json!({"reps": 8})),
            ("log_set", json!({"reps": 8})),
        ])
    };
    ctx.fake.reply(two_sets());
    ctx.fake.reply(ModelReply::status(
        400,
        json!({"error": {"code": 400, "message": "bad request"}}),
    ));
    let s = ctx.stream(&user, message.clone());
    well_formed(&s)?;
    check(
        s.kinds().contains(&"error"),
        format!("the first attempt failed: {:?}", s.kinds()),
    )?;
    ctx.fake.reset();
    ctx.fake.reply(two_sets());
    ctx.fake.reply(ModelReply::text(&["Both sets logged."]));
    let s = ctx.stream(&user, message);
    well_formed(&s)?;
    eq(s.tool_oks(), vec![true, true], "both calls answered")?;
    let back = ctx.fake.requests()[1].body.to_string();
    eq(back.matches("already made").count(), 2, "both replayed")?;
    let w = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("still active")?
        .value;
    let done: Vec<&str> = w
        .exercises
        .iter()
        .flat_map(|e| e.sets.iter())
        .filter(|s| s.actual.is_some())
        .map(|s| s.id.as_str())
        .collect();
    eq(
        done,
        vec!["bench-1", "bench-2"],
        "two sets logged, not four",
    )
}

/// A stream that logged a set and then failed is retried after the lifter finished that workout
/// and started the next: the model's same call gets its first answer back (the replay comes
/// before the check of which workout is active), and the new workout is not touched.
fn a_retried_stream_replays_after_the_next_workout_started(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-retry-next");
    let store = &ctx.stack.store;
    ctx.rt
        .block_on(store.replace_active_workout(&user, &sample_workout("w-first", 3)))?;
    let message = json!({"message": "(context: workout_id=w-first corr=r-next-1) log 8 reps please, and tell me if that was enough"});
    let one_set = || ModelReply::calls(&[("log_set", json!({"reps": 8}))]);
    ctx.fake.reply(one_set());
    ctx.fake.reply(ModelReply::status(
        400,
        json!({"error": {"code": 400, "message": "bad request"}}),
    ));
    let s = ctx.stream(&user, message.clone());
    check(
        s.kinds().contains(&"error"),
        format!("the first attempt failed: {:?}", s.kinds()),
    )?;
    ctx.rt
        .block_on(store.replace_active_workout(&user, &sample_workout("w-next", 3)))?;
    let before = ctx.rt.block_on(store.get_active_workout(&user))?;
    ctx.fake.reset();
    ctx.fake.reply(one_set());
    ctx.fake.reply(ModelReply::text(&["That set is logged."]));
    let s = ctx.stream(&user, message);
    well_formed(&s)?;
    eq(s.tool_oks(), vec![true], "the call answered")?;
    let back = ctx.fake.requests()[1].body.to_string();
    check(
        back.contains("already made") && !back.contains("WORKOUT_MISMATCH"),
        format!("the model got the first answer back: {back}"),
    )?;
    let after = ctx.rt.block_on(store.get_active_workout(&user))?;
    eq(after, before, "the next workout untouched")
}

/// What only the lifter may decide: a new goal joins the others (it used to replace the list),
/// a unit the lifter never mentioned is refused and the call writes nothing, and a workout is
/// finished only when the lifter's message asks for it.
fn the_coach_changes_only_what_the_lifter_said(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-said");
    let goals = || -> Result<Vec<String>, Failed> {
        let state = ctx.rt.block_on(ctx.stack.store.user_state(
            &user,
            coach::store::Parts {
                coaching: true,
                ..Default::default()
            },
            None,
            chrono::Utc::now(),
        ))?;
        Ok(state.coaching.unwrap_or_default().goals.objectives)
    };
    let turn = |args: Value, message: &str| -> Result<Vec<bool>, Failed> {
        ctx.fake.reset();
        ctx.fake
            .reply(ModelReply::calls(&[("update_user_context", args)]));
        ctx.fake.reply(ModelReply::text(&["Noted."]));
        let s = ctx.stream(&user, json!({ "message": message }));
        well_formed(&s)?;
        Ok(s.tool_oks())
    };
    eq(
        turn(
            json!({"objectives": ["bench 100 kg"]}),
            "I want to bench 100 kg",
        )?,
        vec![true],
        "first goal",
    )?;
    eq(
        turn(
            json!({"objectives": ["squat 140 kg"], "unit": "lb"}),
            "I also want to squat 140 kg",
        )?,
        vec![false],
        "a unit the lifter did not mention",
    )?;
    check(
        ctx.fake.requests()[1]
            .body
            .to_string()
            .contains("NOT_STATED"),
        "the model is told why",
    )?;
    eq(
        goals()?,
        vec!["bench 100 kg".to_string()],
        "nothing written",
    )?;
    eq(
        turn(
            json!({"objectives": ["squat 140 kg"]}),
            "I also want to squat 140 kg",
        )?,
        vec![true],
        "second goal",
    )?;
    eq(
        goals()?,
        vec!["bench 100 kg".to_string(), "squat 140 kg".to_string()],
        "added, not replaced",
    )?;
    eq(
        turn(
            json!({"drop_objectives": ["Bench 100 kg"]}),
            "I hit the 100 kg bench, drop that goal",
        )?,
        vec![true],
        "dropped",
    )?;
    eq(
        goals()?,
        vec!["squat 140 kg".to_string()],
        "the other stays",
    )?;
    // A goal the lifter did not say is reached or given up stays.
    eq(
        turn(
            json!({"drop_objectives": ["squat 140 kg"]}),
            "thanks, talk soon",
        )?,
        vec![false],
        "not the lifter's word",
    )?;
    eq(goals()?, vec!["squat 140 kg".to_string()], "still there")?;
    // A yes to a question that did not ask to drop it, or a PR short of it, drops nothing.
    ctx.fake.reset();
    ctx.fake
        .reply(ModelReply::text(&["Still going for squat 140 kg?"]));
    well_formed(&ctx.stream(&user, json!({"message": "thanks, talk soon"})))?;
    eq(
        turn(json!({"drop_objectives": ["squat 140 kg"]}), "yes")?,
        vec![false],
        "yes to still going for it",
    )?;
    eq(
        turn(
            json!({"drop_objectives": ["squat 140 kg"]}),
            "I hit a squat PR of 130 today",
        )?,
        vec![false],
        "short of the goal",
    )?;

    // A workout is finished only when the lifter asks.
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-said", 2)),
    )?;
    ctx.fake.reset();
    ctx.fake
        .reply(ModelReply::calls(&[("complete_workout", json!({}))]));
    ctx.fake.reply(ModelReply::text(&["Two sets left."]));
    let s = ctx.stream(
        &user,
        json!({"message": "(context: workout_id=w-said) how many sets are left?"}),
    );
    well_formed(&s)?;
    eq(s.tool_oks(), vec![false], "not asked to finish")?;
    check(
        ctx.rt
            .block_on(ctx.stack.store.get_active_workout(&user))?
            .is_some(),
        "still active",
    )?;
    // A "yes" finishes the workout only when the coach's last answer asked about finishing it.
    let in_conv = |m: &str| json!({"message": format!("(context: workout_id=w-said conversation_id=cv-finish) {m}")});
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::text(&[
        "Two sets left. Want to add curls after them?",
    ]));
    well_formed(&ctx.stream(&user, in_conv("how many sets are left?")))?;
    ctx.fake
        .reply(ModelReply::calls(&[("complete_workout", json!({}))]));
    ctx.fake
        .reply(ModelReply::text(&["Shall I finish your workout here?"]));
    let s = ctx.stream(&user, in_conv("yes"));
    well_formed(&s)?;
    eq(s.tool_oks(), vec![false], "the yes was about curls")?;
    // "No, keep going" is no yes to "shall I finish?" (a review's example).
    ctx.fake
        .reply(ModelReply::calls(&[("complete_workout", json!({}))]));
    ctx.fake
        .reply(ModelReply::text(&["Shall I finish your workout here?"]));
    let s = ctx.stream(&user, in_conv("no, keep going"));
    well_formed(&s)?;
    eq(s.tool_oks(), vec![false], "keep going")?;
    ctx.fake
        .reply(ModelReply::calls(&[("complete_workout", json!({}))]));
    ctx.fake.reply(ModelReply::text(&["Workout finished."]));
    let s = ctx.stream(&user, in_conv("yes"));
    well_formed(&s)?;
    eq(s.tool_oks(), vec![true], "the yes to finishing")?;
    check(
        ctx.rt
            .block_on(ctx.stack.store.get_active_workout(&user))?
            .is_none(),
        "finished",
    )
}

/// Qwen2.5-Coder-1.5B once answered a progress question with only calls written as text that
/// could not run (here a tool that is not offered), twice: the lifter got a stream with no text
/// at all. Now an answer with
/// nothing in it is an `error` the app shows.
fn an_empty_answer_is_an_error_not_silence(ctx: &Ctx) -> Result<(), Failed> {
    ctx.fake.reply(ModelReply::text(&[
        "<tool_call>{\"name\": \"get_progress\", \"arguments\": {\"lift\": \"front squat\"}}</tool_call>",
    ]));
    ctx.fake.reply(ModelReply::text(&[
        "<tool_call>{\"name\": \"get_progress\", \"arguments\": {}}</tool_call>",
    ]));
    let s = ctx.stream(
        &unique_user("c-empty"),
        json!({"message": "How is my front squat progressing?"}),
    );
    well_formed(&s)?;
    eq(s.text(), String::new(), "no text reached the lifter")?;
    let error = s.first("error").cloned().ok_or("an error event")?;
    eq(error["code"].as_str(), Some("MODEL_EMPTY_ANSWER"), "code")?;
    eq(ctx.fake.requests().len(), 2, "told once, then stopped")
}

/// An injury the coach plans around is not forgotten on the model's word: `retire_memory`
/// proposes it, the memory stays active (and in the next context) until the lifter confirms,
/// and confirming retires exactly that memory. Before, the tool retired it at once.
fn a_memory_is_retired_only_when_the_lifter_confirms(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-retire");
    let knee = coach::domain::coaching::Memory {
        id: "m-knee".into(),
        text: "Left knee hurts on deep squats".into(),
        kind: Some("injury".into()),
        created_at: chrono::Utc::now(),
        retired_at: None,
    };
    ctx.rt.block_on(ctx.stack.store.put_memory(&user, &knee))?;
    let active = |ctx: &Ctx| -> Result<bool, Failed> {
        let all = ctx.rt.block_on(ctx.stack.store.memories(&user))?;
        Ok(all
            .iter()
            .any(|m| m.id == "m-knee" && m.retired_at.is_none()))
    };
    ctx.fake.reply(ModelReply::calls(&[(
        "retire_memory",
        json!({"memory_id": "m-knee"}),
    )]));
    ctx.fake.reply(ModelReply::text(&[
        "Shall I stop planning around the knee? Confirm and I will.",
    ]));
    let s = ctx.stream(&user, json!({"message": "hi coach, anything new?"}));
    well_formed(&s)?;
    let art = s.first("artifact").cloned().ok_or("a proposal")?;
    eq(
        art["artifact_type"].as_str(),
        Some("memory_retirement"),
        "type",
    )?;
    eq(
        art["artifact_content"]["memory"]["text"].as_str(),
        Some("Left knee hurts on deep squats"),
        "the memory shown",
    )?;
    check(active(ctx)?, "the memory stays until the lifter confirms")?;
    // The next request's context still holds it.
    ctx.fake.reply(ModelReply::text(&["Noted."]));
    let _ = ctx.stream(&user, json!({"message": "ok thanks"}));
    let last = ctx.fake.requests().last().map(|r| r.body.to_string());
    check(
        last.is_some_and(|b| b.contains("Left knee hurts on deep squats")),
        "still in the coach's context",
    )?;
    let id = art["artifact_id"].as_str().unwrap_or_default().to_string();
    let hash = art["content_hash"].as_str().unwrap_or_default().to_string();
    let r = functional(
        ctx,
        &user,
        &format!("/v1/artifacts/{id}/confirm"),
        Some(json!({"content_hash": hash})),
    );
    eq(r.status, 200, &format!("confirm: {}", r.body))?;
    eq(
        r.body["applied"]["memory_id"].as_str(),
        Some("m-knee"),
        "applied",
    )?;
    check(!active(ctx)?, "retired once confirmed")
}

/// A memory is text a model wrote down, not logged data: a figure in it backs no claim (a squat
/// "best" of 180 kg in a memory used to pass the check): it is left out. A correction (here of
/// a change no write made) is replayed to the model in the next turn as the app's fact check,
/// not as the coach's own words.
fn memories_back_no_figures_and_corrections_are_the_apps(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-memory-fig");
    ctx.rt.block_on(ctx.stack.store.put_memory(
        &user,
        &coach::domain::coaching::Memory {
            id: "m-squat".into(),
            text: "Squat best 180 kg".into(),
            kind: None,
            created_at: chrono::Utc::now(),
            retired_at: None,
        },
    ))?;
    ctx.rt.block_on(
        ctx.stack
            .store
            .put_completed_workout(&user, &bench_session(5, &[(100.0, 5, 2)])),
    )?;
    let conv = "(context: conversation_id=cv-memfig)";
    ctx.fake.reply(ModelReply::calls(&[(
        "exercise_progress",
        json!({"exercise_id": "bench press"}),
    )]));
    ctx.fake.reply(ModelReply::text(&[
        "Your squat best is 180 kg. I've updated your squat plan.",
    ]));
    let s = ctx.stream(
        &user,
        json!({"message": format!("{conv} how strong am I?")}),
    );
    well_formed(&s)?;
    check(
        !s.text().contains("180 kg") && s.text().contains("[a figure I can't back"),
        format!("the memory's figure is not data: {}", s.text()),
    )?;
    // A claim of a change no write made is corrected after the answer.
    check(
        s.text().contains("Correction"),
        format!("the unmade change is corrected: {}", s.text()),
    )?;
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::text(&["Noted."]));
    let s = ctx.stream(&user, json!({"message": format!("{conv} thanks")}));
    well_formed(&s)?;
    let history = ctx.fake.requests()[0].body.to_string();
    check(
        history.contains("The app's fact check, not the coach") && !history.contains("Correction:"),
        "the correction is replayed as the app's",
    )
}

/// A model that asks for ten lookups in one turn gets eight run and two refused, each answered.
fn a_turn_runs_at_most_eight_calls(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-calls");
    let calls: Vec<(&str, Value)> = (0..10)
        .map(|i| ("exercise_search", json!({"query": format!("press {i}")})))
        .collect();
    ctx.fake.reply(ModelReply::calls(&calls));
    ctx.fake.reply(ModelReply::text(&["Found them."]));
    let s = ctx.stream(&user, json!({"message": "find me every press variation"}));
    well_formed(&s)?;
    let mut want = vec![true; 8];
    want.extend([false, false]);
    eq(s.tool_oks(), want, "eight run, two refused")?;
    eq(
        ctx.fake.requests()[1]
            .body
            .to_string()
            .matches("TOO_MANY_CALLS")
            .count(),
        2,
        "the model is told which did not run",
    )
}

/// Real models' slips do not end the answer in an error: arguments that are not JSON go back to
/// the model as a tool error and it calls again; Gemini's MALFORMED_FUNCTION_CALL is tried once
/// more without thinking; an answer cut at the output cap says so.
fn a_models_slips_end_no_answer(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-slips");
    ctx.fake.reply(ModelReply::Stream(vec![Step::RawCall(
        "exercise_progress".into(),
        "{'exercise_id': 'bench press'".into(),
    )]));
    ctx.fake.reply(ModelReply::calls(&[(
        "exercise_progress",
        json!({"exercise_id": "bench press"}),
    )]));
    ctx.fake.reply(ModelReply::text(&[
        "You have no bench sessions logged yet.",
    ]));
    let s = ctx.stream(&user, json!({"message": "How is my bench press going?"}));
    well_formed(&s)?;
    check(
        !s.kinds().contains(&"error"),
        format!("no error: {:?}", s.kinds()),
    )?;
    eq(s.tool_oks(), vec![false, true], "refused, then run")?;
    check(
        s.text().contains("no bench sessions"),
        format!("answered: {}", s.text()),
    )?;
    check(
        ctx.fake.requests()[1]
            .body
            .to_string()
            .contains("INVALID_ARGUMENTS"),
        "the model was told what was wrong",
    )?;

    ctx.fake.reset();
    ctx.fake.reply(ModelReply::Stream(vec![Step::Finish(
        "MALFORMED_FUNCTION_CALL".into(),
    )]));
    ctx.fake
        .reply(ModelReply::text(&["Rest well and train tomorrow."]));
    let s = ctx.stream(&user, json!({"message": "Should I train today?"}));
    well_formed(&s)?;
    eq(
        s.text(),
        "Rest well and train tomorrow.".to_string(),
        "answered",
    )?;
    let reqs = ctx.fake.requests();
    eq(reqs.len(), 2, "tried once more")?;
    let budget =
        |i: usize| reqs[i].body["generationConfig"]["thinkingConfig"]["thinkingBudget"].as_i64();
    eq(
        (budget(0), budget(1)),
        (Some(1024), Some(0)),
        "the retry does not think",
    )?;

    ctx.fake.reset();
    ctx.fake.reply(ModelReply::Stream(vec![
        Step::Text("Start with three sets of".into()),
        Step::Finish("MAX_TOKENS".into()),
    ]));
    let s = ctx.stream(&user, json!({"message": "Write me a long warm-up routine"}));
    well_formed(&s)?;
    check(
        s.text().starts_with("Start with three sets of") && s.text().ends_with("ask me to go on.)"),
        format!("the cut is said: {}", s.text()),
    )
}

/// The codes of the tool errors the model was handed back after its first turn.
fn refusal_codes(ctx: &Ctx) -> Vec<String> {
    ctx.fake.requests()[1].body["contents"][2]["parts"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|p| {
            p["functionResponse"]["response"]["error"]["code"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

/// A load the model chooses is held to what the lifter's history supports (SUGGEST_WEIGHT's
/// answer and a step); a load the lifter names is theirs. Two writes of one turn land in the
/// order the model made them.
fn model_loads_are_held_to_the_history_and_writes_keep_their_order(
    ctx: &Ctx,
) -> Result<(), Failed> {
    let user = unique_user("c-bounds");
    for w in [
        bench_session(10, &[(100.0, 8, 2)]),
        bench_session(4, &[(100.0, 8, 2)]),
    ] {
        ctx.rt
            .block_on(ctx.stack.store.put_completed_workout(&user, &w))?;
    }
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-bounds", 3)),
    )?;
    let before = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("active")?;
    let in_workout = |m: &str| json!({"message": format!("(context: workout_id=w-bounds) {m}")});
    ctx.fake.reply(ModelReply::calls(&[
        (
            "prescribe_set",
            json!({"set_id": "bench-2", "weight_kg": 140}),
        ),
        (
            "add_exercise",
            json!({"exercise_id": "back-squat", "sets": 3, "reps": 5, "weight_kg": 200}),
        ),
    ]));
    ctx.fake
        .reply(ModelReply::text(&["Your plan stays as it is."]));
    let s = ctx.stream(&user, in_workout("make today harder"));
    well_formed(&s)?;
    eq(s.tool_oks(), vec![false, false], "both loads refused")?;
    eq(
        refusal_codes(ctx),
        vec!["LOAD_ABOVE_HISTORY".to_string(); 2],
        "refused as above the history",
    )?;
    let after = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("still active")?;
    eq(after.version, before.version, "workout unchanged")?;

    // The lifter names the load: it is used as given.
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::calls(&[(
        "prescribe_set",
        json!({"set_id": "bench-2", "weight_kg": 140}),
    )]));
    ctx.fake.reply(ModelReply::text(&["Done."]));
    let s = ctx.stream(&user, in_workout("put 140 kg on my second set"));
    well_formed(&s)?;
    eq(s.tool_oks(), vec![true], "the lifter's own load")?;
    let w = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("still active")?
        .value;
    let target = |id: &str| w.find_set(id).map(|p| w.set_at(p).target.clone());
    eq(
        target("bench-2").and_then(|t| t.weight_kg),
        Some(140.0),
        "stored",
    )?;

    // Two sets logged in one turn, each on the current set: in the order the model made them.
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::calls(&[
        ("log_set", json!({"reps": 10})),
        ("log_set", json!({"reps": 6})),
    ]));
    ctx.fake.reply(ModelReply::text(&["Both logged."]));
    let s = ctx.stream(
        &user,
        in_workout("record my next two sets please, ten and then six reps"),
    );
    well_formed(&s)?;
    eq(s.tool_oks(), vec![true, true], "both logged")?;
    let w = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("still active")?
        .value;
    let reps = |id: &str| {
        w.find_set(id)
            .and_then(|p| w.set_at(p).actual.as_ref().map(|a| a.reps))
    };
    eq(
        (reps("bench-1"), reps("bench-2")),
        (Some(10), Some(6)),
        "logged in order",
    )?;

    // A set the lifter did not report is not filled in by the model: reps and a weight the
    // message does not name and the plan does not give are refused, and nothing is logged.
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::calls(&[
        ("log_set", json!({"reps": 12})),
        ("log_set", json!({"reps": 8, "weight_kg": 120})),
    ]));
    ctx.fake
        .reply(ModelReply::text(&["How many reps, and at what weight?"]));
    let s = ctx.stream(&user, in_workout("log my set"));
    well_formed(&s)?;
    eq(s.tool_oks(), vec![false, false], "both refused")?;
    let back = ctx.fake.requests()[1].body.to_string();
    eq(
        back.matches("NOT_STATED").count(),
        2,
        "the model is told why",
    )?;
    let after = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("still active")?
        .value;
    eq(
        after.exercises,
        w.exercises,
        "nothing logged that the lifter did not say",
    )?;
    // A set done as planned is logged with the plan's reps and load.
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::calls(&[(
        "log_set",
        json!({"reps": 8, "weight_kg": 100}),
    )]));
    ctx.fake.reply(ModelReply::text(&["Logged."]));
    let s = ctx.stream(&user, in_workout("log that set as planned please"));
    well_formed(&s)?;
    eq(s.tool_oks(), vec![true], "the target, as planned")
}

fn workout_mode_adds_curls_with_warmups(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-curls");
    let w = sample_workout("w-curls", 2);
    ctx.rt
        .block_on(ctx.stack.store.replace_active_workout(&user, &w))?;
    ctx.fake.reply(ModelReply::calls(&[
        ("training_snapshot", json!({})),
        (
            "add_exercise",
            json!({"exercise_id": "barbell-curl", "sets": 3, "reps": 10, "weight_kg": 40, "warmup": true}),
        ),
    ]));
    ctx.fake
        .reply(ModelReply::text(&["Curls added with three warm-ups."]));
    let s = ctx.stream(
        &user,
        json!({"message": "(context: workout_id=w-curls) add barbell curls, 3x10 at 40 kg with warm-ups"}),
    );
    well_formed(&s)?;
    let ends: Vec<(String, bool)> = s
        .events
        .iter()
        .filter(|(k, _)| k == "tool_end")
        .map(|(_, v)| {
            (
                v["tool"].as_str().unwrap_or_default().to_string(),
                v["ok"].as_bool().unwrap_or(true),
            )
        })
        .collect();
    check(
        ends.contains(&("training_snapshot".into(), false))
            && ends.contains(&("add_exercise".into(), true)),
        format!("heavy tool refused, write ok: {ends:?}"),
    )?;
    let reqs = ctx.fake.requests();
    let first = &reqs[0].body;
    check(
        system_text(first).contains("Workout mode") && context_text(first).contains("w-curls"),
        "workout overlay and brief in the instruction",
    )?;
    let refused = reqs[1].body.to_string();
    check(
        refused.contains("HEAVY_TOOL_IN_WORKOUT") && refused.contains("workout_state"),
        "the refusal names the light alternative",
    )?;
    let active = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("still active")?
        .value;
    let curls = active.exercises.last().ok_or("an exercise")?;
    eq(
        curls.exercise_id.as_str(),
        "barbell-curl",
        "curls added last",
    )?;
    let sets: Vec<(String, Option<f64>, Option<u32>)> = curls
        .sets
        .iter()
        .map(|s| {
            (
                format!("{:?}", s.set_type).to_lowercase(),
                s.target.weight_kg,
                s.target.reps,
            )
        })
        .collect();
    // The empty bar for 10, then 55 % and 70 % of 40 kg (40 % is no jump over the bar),
    // half-up to 2.5 kg: 22 -> 22.5, 28 -> 27.5.
    eq(
        sets,
        vec![
            ("warmup".into(), Some(20.0), Some(10)),
            ("warmup".into(), Some(22.5), Some(3)),
            ("warmup".into(), Some(27.5), Some(2)),
            ("working".into(), Some(40.0), Some(10)),
            ("working".into(), Some(40.0), Some(10)),
            ("working".into(), Some(40.0), Some(10)),
        ],
        "warm-up ramp then working sets",
    )
}

/// The first working weight of `exercise_id` in a workout's JSON.
fn first_working_kg(w: &Value, exercise_id: &str) -> Option<f64> {
    w["exercises"]
        .as_array()?
        .iter()
        .find(|e| e["exercise_id"] == exercise_id)?["sets"]
        .as_array()?
        .iter()
        .find(|s| s["set_type"] == "working")?["target"]["weight_kg"]
        .as_f64()
}

fn coach_plans_lifts_last_done_months_ago(ctx: &Ctx) -> Result<(), Failed> {
    // Bench and squat at 100 × 8 seven months ago (imported), nothing since. The coach's
    // workouts start from them, 20 % lighter after the break, not from a level default
    // (75 kg bench, 90 kg squat) as when the tools read 8 weeks only.
    let user = unique_user("c-old");
    let bench = bench_session(200, &[(100.0, 8, 2); 3]);
    let mut squat = bench_session(201, &[(100.0, 8, 2); 3]);
    squat.id = "hist-squat".into();
    squat.exercises[0].exercise_id = "back-squat".into();
    ctx.rt
        .block_on(ctx.stack.store.put_history(&user, &[bench, squat], &[]))?;
    ctx.fake.reply(ModelReply::calls(&[(
        "propose_workout",
        json!({"name": "Push", "exercises": [{"exercise_id": "barbell-bench-press", "sets": 3, "reps": 8}]}),
    )]));
    ctx.fake
        .reply(ModelReply::text(&["A push day to come back with."]));
    let s = ctx.stream(&user, json!({"message": "plan me a push workout"}));
    well_formed(&s)?;
    let art = s.first("artifact").ok_or("a proposal")?;
    let w = &art["artifact_content"]["workout"];
    eq(
        first_working_kg(w, "barbell-bench-press"),
        Some(80.0),
        "bench after the break",
    )?;
    // In workout mode, an exercise the coach adds is planned the same way.
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-old", 1)),
    )?;
    ctx.fake.reply(ModelReply::calls(&[(
        "add_exercise",
        json!({"exercise_id": "back-squat", "sets": 3, "reps": 8}),
    )]));
    ctx.fake.reply(ModelReply::text(&["Squats added."]));
    let s = ctx.stream(
        &user,
        json!({"message": "(context: workout_id=w-old) add squats"}),
    );
    well_formed(&s)?;
    let active = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("still active")?
        .value;
    eq(
        first_working_kg(&serde_json::to_value(&active)?, "back-squat"),
        Some(80.0),
        "squat after the break",
    )
}

fn destructive_request_needs_an_explicit_yes(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-destroy");
    let conv = "(context: conversation_id=cv-d)";
    let s = ctx.stream(
        &user,
        json!({"message": format!("{conv} delete my workout history")}),
    );
    well_formed(&s)?;
    eq(s.kinds(), vec!["route", "clarification", "done"], "events")?;
    let c = s.first("clarification").cloned().unwrap_or_default();
    check(
        c["options"][0]
            .as_str()
            .is_some_and(|o| o.starts_with("Yes, delete")),
        format!("options: {}", c["options"]),
    )?;
    check(c["id"].is_string(), "an id")?;
    eq(ctx.fake.requests().len(), 0, "no model call")?;
    // The explicit yes hands the original request to the coach, marked as confirmed.
    ctx.fake.reply(ModelReply::text(&[
        "I can't delete history from chat; use the app's settings.",
    ]));
    let s = ctx.stream(&user, json!({"message": format!("{conv} Yes, delete it")}));
    well_formed(&s)?;
    let reqs = ctx.fake.requests();
    eq(reqs.len(), 1, "the coach answers the confirmed request")?;
    let body = reqs[0].body.to_string();
    check(
        body.contains("delete my workout history") && body.contains("confirm this explicitly"),
        "the original request, confirmed",
    )?;
    // Whole words only: "clearly" is not "clear".
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::text(&["Happy to help."]));
    let s = ctx.stream(
        &user,
        json!({"message": "I clearly need help with my routine"}),
    );
    well_formed(&s)?;
    check(
        s.first("clarification").is_none(),
        "no clarification for 'clearly'",
    )?;
    eq(ctx.fake.requests().len(), 1, "the coach answered")
}

fn turns_stored_once_and_replayed_as_history(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-conv");
    ctx.fake.reply(ModelReply::text(&["Hi Sam, noted."]));
    let first = json!({"message": "(context: conversation_id=cv2 corr=r-1) My name is Sam and I train at 6 am"});
    let s = ctx.stream(&user, first.clone());
    well_formed(&s)?;
    // The same corr again: the stored answer, no model call, nothing stored twice.
    let s = ctx.stream(&user, first);
    well_formed(&s)?;
    eq(s.text(), "Hi Sam, noted.".to_string(), "replayed answer")?;
    eq(
        ctx.fake.requests().len(),
        1,
        "one model call for two deliveries",
    )?;
    eq(count(ctx, &user, "CONV#cv2#MSG#")?, 1, "one stored turn")?;
    // The next message carries the conversation so far.
    ctx.fake.reply(ModelReply::text(&["Sure."]));
    let s = ctx.stream(
        &user,
        json!({"message": "(context: conversation_id=cv2 corr=r-2) What time do I train?"}),
    );
    well_formed(&s)?;
    let reqs = ctx.fake.requests();
    let contents = reqs[1].body["contents"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let raw: Vec<&str> = contents
        .iter()
        .map(|c| c["parts"][0]["text"].as_str().unwrap_or_default())
        .collect();
    check(
        raw.last().is_some_and(|t| t.starts_with("<context>"))
            && raw[..raw.len().saturating_sub(1)]
                .iter()
                .all(|t| !t.contains("<context>")),
        "the context goes with the new message only",
    )?;
    let texts: Vec<(String, String)> = contents
        .iter()
        .map(|c| {
            let t = c["parts"][0]["text"].as_str().unwrap_or_default();
            (
                c["role"].as_str().unwrap_or_default().to_string(),
                t.rsplit_once("</context>\n\n")
                    .map_or(t, |(_, m)| m)
                    .to_string(),
            )
        })
        .collect();
    eq(
        texts,
        vec![
            ("user".into(), "My name is Sam and I train at 6 am".into()),
            ("model".into(), "Hi Sam, noted.".into()),
            ("user".into(), "What time do I train?".into()),
        ],
        "history then the new message",
    )?;
    eq(count(ctx, &user, "CONV#cv2#MSG#")?, 2, "two stored turns")
}

/// In a workout the coach reads, before anything else: how ready the lifter is today (a health
/// reading the worker judged) and each exercise's last sessions and e1RM trend.
fn the_workout_brief_recalls_sessions_and_readiness(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-brief");
    for w in [
        bench_session(10, &[(95.0, 8, 2), (95.0, 8, 2)]),
        bench_session(3, &[(100.0, 8, 2), (100.0, 7, 1)]),
    ] {
        ctx.rt
            .block_on(ctx.stack.store.put_completed_workout(&user, &w))?;
    }
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&user, &sample_workout("w-brief", 3)),
    )?;
    // This morning's HRV, 30 % under the lifter's usual: the worker's decision.
    let job = json!({"type": "health_metric_changed", "user_id": user, "metric": "hrv",
        "value": 35.0, "baseline": 50.0, "observed_at": chrono::Utc::now() - chrono::Duration::hours(2)});
    eq(
        ctx.rt.block_on(ctx.stack.run_worker_job(&ctx.http, &job))?,
        200,
        "the decision",
    )?;
    ctx.fake.reply(ModelReply::text(&["Keep it light today."]));
    let s = ctx.stream(
        &user,
        json!({"message": "(context: workout_id=w-brief) how should I go today?"}),
    );
    well_formed(&s)?;
    let context = context_text(&ctx.fake.requests()[0].body);
    // Its weights carry refs the model may cite ("100 kg [[w2]]"): read without them.
    let bench: String = context
        .lines()
        .find(|l| l.starts_with("Bench Press: last"))
        .unwrap_or_default()
        .split(" [[")
        .map(|part| part.split_once("]]").map_or(part, |(_, rest)| rest))
        .collect();
    check(
        bench.contains("100 kg × 8 RIR 2") && bench.contains("95 kg × 8 RIR 2"),
        format!("the bench's last sessions, best set each: {context}"),
    )?;
    check(
        context.contains("Readiness today") && context.contains("HRV 35 vs baseline 50"),
        format!("today's readiness: {context}"),
    )
}

fn memories_and_notifications_through_the_gate(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-memory");
    // The lifter's iPhone, to which the reminder is pushed.
    let token = format!("{:0>64}", "e5");
    let reg = functional(
        ctx,
        &user,
        "/v1/devices",
        Some(json!({"platform": "apns", "token": token})),
    );
    eq(reg.status, 201, &format!("phone registered: {}", reg.body))?;
    ctx.fake.reply(ModelReply::calls(&[
        (
            "save_memory",
            json!({"text": "Left shoulder is cranky on overhead work", "kind": "injury"}),
        ),
        (
            "send_notification",
            json!({"message": "Deload week starts Monday"}),
        ),
    ]));
    ctx.fake
        .reply(ModelReply::text(&["Noted, and I'll remind you."]));
    let s = ctx.stream(
        &user,
        json!({"message": "Remember my left shoulder is cranky overhead, and remind me about the deload"}),
    );
    well_formed(&s)?;
    eq(s.tool_oks(), vec![true, true], "both tools ran")?;
    eq(count(ctx, &user, "MEMORY#")?, 1, "memory stored")?;
    eq(count(ctx, &user, "NOTIFY#")?, 1, "notification stored")?;
    let sent = ctx.fake.requests()[1].body.to_string();
    check(
        sent.contains("\\\"sent\\\":true") || sent.contains("\"sent\":true"),
        "the gate let it through",
    )?;
    // Pushed to the phone, once, by the worker.
    let arn = ctx
        .sns
        .endpoints()
        .into_iter()
        .find(|e| e.token == token)
        .map(|e| e.arn)
        .ok_or("the phone has an endpoint")?;
    let pushed: Vec<_> = ctx
        .sns
        .published()
        .into_iter()
        .filter(|p| p.target() == Some(arn.as_str()))
        .collect();
    eq(pushed.len(), 1, "one push")?;
    check(
        pushed[0]
            .platform_payload("APNS")
            .to_string()
            .contains("Deload week starts Monday"),
        "the reminder's words",
    )?;
    // A second one inside 4 hours is suppressed by the gate, and nothing is stored.
    ctx.fake.reset();
    ctx.fake.reply(ModelReply::calls(&[(
        "send_notification",
        json!({"message": "Another reminder"}),
    )]));
    ctx.fake.reply(ModelReply::text(&["That one has to wait."]));
    let s = ctx.stream(&user, json!({"message": "remind me again about it"}));
    well_formed(&s)?;
    let back = ctx.fake.requests()[1].body.to_string();
    check(
        back.contains("rate_limited"),
        "suppressed by the 4-hour limit",
    )?;
    eq(count(ctx, &user, "NOTIFY#")?, 1, "still one notification")?;
    // The memory reaches the next request's context.
    let system = context_text(&ctx.fake.requests()[0].body);
    check(
        system.contains("Left shoulder is cranky on overhead work"),
        "memory in the context",
    )
}

/// The coach proposes on the phone; the lifter confirms on the tablet, which never saw the
/// stream: it lists the pending proposals, reads one with its hash, and confirms it.
fn a_proposal_is_confirmed_on_another_device(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-devices");
    let days = json!([
        {"label": "Upper", "exercises": [{"exercise_id": "barbell-bench-press", "sets": 3, "reps": 8}]},
        {"label": "Lower", "exercises": [{"exercise_id": "back-squat", "sets": 3, "reps": 5}]},
    ]);
    ctx.fake.reply(ModelReply::calls(&[(
        "propose_routine",
        json!({"name": "Upper Lower", "days": days}),
    )]));
    ctx.fake.reply(ModelReply::text(&["Confirm to save it."]));
    let s = ctx.stream(&user, json!({"message": "Plan me an upper lower routine"}));
    well_formed(&s)?;
    let art = s.first("artifact").cloned().unwrap_or_default();
    let id = art["artifact_id"].as_str().unwrap_or_default().to_string();
    let get = |path: &str, who: &str| {
        ctx.rt.block_on(call_json(
            &ctx.http,
            "GET",
            format!("{}{path}", ctx.stack.base),
            who,
            None,
        ))
    };
    let pending = get("/v1/artifacts", &user);
    eq(pending.status, 200, &format!("{}", pending.body))?;
    let items = pending.body["items"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    eq(items.len(), 1, "one pending proposal")?;
    eq(
        items[0]["artifact_id"].as_str(),
        Some(id.as_str()),
        "the stream's",
    )?;
    let one = get(&format!("/v1/artifacts/{id}"), &user);
    eq(
        one.body["content_hash"].clone(),
        art["content_hash"].clone(),
        "its hash",
    )?;
    eq(
        one.body["artifact_content"].clone(),
        art["artifact_content"].clone(),
        "what the phone was shown",
    )?;
    // Another lifter's device knows nothing of it.
    eq(
        get(&format!("/v1/artifacts/{id}"), &unique_user("c-other")).status,
        404,
        "not another lifter's",
    )?;
    let done = functional(
        ctx,
        &user,
        &format!("/v1/artifacts/{id}/confirm"),
        Some(json!({"content_hash": one.body["content_hash"]})),
    );
    eq(done.status, 200, &format!("confirmed: {}", done.body))?;
    eq(
        get("/v1/artifacts", &user).body["items"].clone(),
        json!([]),
        "nothing pending",
    )?;
    eq(
        get(&format!("/v1/artifacts/{id}"), &user).body["status"].as_str(),
        Some("accepted"),
        "read back as applied",
    )?;
    let routine = get("/v1/routines/active", &user);
    eq(
        routine.body["routine"]["name"].as_str(),
        Some("Upper Lower"),
        &format!("the routine: {}", routine.body),
    )
}

fn terminal_chat_client_confirms_a_proposal(ctx: &Ctx) -> Result<(), Failed> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let user = unique_user("c-term");
    ctx.fake.reply(ModelReply::calls(&[(
        "propose_workout",
        json!({"name": "Quick Legs", "exercises": [{"exercise_id": "back-squat", "sets": 3, "reps": 5}]}),
    )]));
    ctx.fake
        .reply(ModelReply::text(&["Here is a quick leg day."]));
    let mut child = Command::new(blackbox::devstack_bin())
        .args([
            "chat",
            "--url",
            &ctx.stack.base,
            "--user",
            &user,
            "--conversation",
            "cv-term",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("devstack is built by the test command: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("stdin")?
        .write_all(b"plan me a quick leg day\n/confirm\n/quit\n")?;
    let out = child.wait_with_output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    eq(
        out.status.success(),
        true,
        &format!("exit; stderr {}", String::from_utf8_lossy(&out.stderr)),
    )?;
    for want in [
        "[slow ",
        "propose_workout ok",
        "workout: Quick Legs [proposed]",
        "Squat: 3 × 5 @",
        "coach> Here is a quick leg day.",
        "accepted",
    ] {
        check(
            text.contains(want),
            format!("'{want}' in the transcript:\n{text}"),
        )?;
    }
    let active = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("confirmed from the terminal")?;
    eq(
        active.value.name.as_str(),
        "Quick Legs",
        "the proposed workout started",
    )
}

/// Five weeks of bench stuck at 80 kg × 8 at RIR 1, twice a week: the context's flags, the
/// training analysis and the muscle-group progress all report the same plateau from one analysis.
fn analytics_tools_and_flags_share_the_analysis(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-analysis");
    for days_ago in [1, 3, 8, 10, 15, 17, 22, 24, 29, 31] {
        ctx.rt.block_on(
            ctx.stack
                .store
                .put_completed_workout(&user, &bench_session(days_ago, &[(80.0, 8, 1); 3])),
        )?;
    }
    // The worker's card for the newest session, as the queue would have it written.
    let job = json!({"type": "workout_completed", "user_id": user, "workout_id": "hist-1"});
    let invoked = ctx.rt.block_on(ctx.stack.run_worker_job(&ctx.http, &job))?;
    eq(invoked, 200, "the worker ran")?;
    ctx.fake.reply(ModelReply::calls(&[
        ("training_analysis", json!({})),
        ("muscle_group_progress", json!({"muscle_group": "chest"})),
        ("muscle_group_progress", json!({"muscle_group": "elbows"})),
    ]));
    ctx.fake
        .reply(ModelReply::text(&["Your bench has stalled at 104 kg."]));
    let s = ctx.stream(
        &user,
        json!({"message": "how is my training going overall?"}),
    );
    well_formed(&s)?;
    // Beside the words, the muscle group's table: a row a week, the group's hard sets.
    let table = s
        .events
        .iter()
        .find(|(k, v)| k == "artifact" && v["artifact_type"] == "progress_table")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    eq(
        (
            table["status"].as_str(),
            table["artifact_content"]["columns"].clone(),
        ),
        (Some("shown"), json!(["week_start", "chest"])),
        &format!("the table: {table}"),
    )?;
    check(
        table["artifact_content"]["rows"]
            .as_array()
            .is_some_and(|r| r.len() >= 4),
        "a row a week with training",
    )?;
    let reqs = ctx.fake.requests();
    let system = context_text(&reqs[0].body);
    // e1RM of 80 × 8 at RIR 1: 80 × (1 + 9/30) = 104.
    check(
        system.contains("Training flags: Plateau: Bench Press (")
            && system.contains("weeks at e1RM ~104 kg"),
        format!("flags in the context: {system}"),
    )?;
    let results = reqs[1].body["contents"][2]["parts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    eq(results.len(), 3, "three results")?;
    let analysis = &results[0]["functionResponse"]["response"];
    let stall = &analysis["flags"]["plateaus"][0];
    eq(
        stall["exercise_id"].as_str(),
        Some("barbell-bench-press"),
        "the stalled lift",
    )?;
    // RIR 1 throughout: grinding without progress, so a deload.
    eq(stall["action"].as_str(), Some("deload"), "action")?;
    eq(
        analysis["progression_candidates"].as_array().map(Vec::len),
        Some(0),
        "no reserve, no progression",
    )?;
    let card = &analysis["latest_insight_cards"][0];
    check(
        card["flags"][0]["type"].as_str() == Some("stall")
            && card["flags"][0]["exercise_id"].as_str() == Some("barbell-bench-press"),
        format!("the worker's card, with the same stall: {card}"),
    )?;
    let chest = &results[1]["functionResponse"]["response"];
    eq(
        chest["top_exercises"][0]["exercise_id"].as_str(),
        Some("barbell-bench-press"),
        "top exercise",
    )?;
    check(
        chest["top_exercises"][0]["plateau"]["weeks"].as_u64() == stall["weeks"].as_u64(),
        "the same plateau from both tools",
    )?;
    // Sessions 1 and 3 days ago: 6 hard sets in the last 7 days, under chest's MEV of 10.
    eq(
        chest["last_7_days"][0]["hard_sets"].as_f64(),
        Some(6.0),
        "hard sets",
    )?;
    eq(
        chest["last_7_days"][0]["status"].as_str(),
        Some("below_mev"),
        "status",
    )?;
    eq(
        results[2]["functionResponse"]["response"]["error"]["code"].as_str(),
        Some("UNKNOWN_MUSCLE_GROUP"),
        "a clear error for an unknown group",
    )
}

/// The intake's answers in chat ("call me Sam, 34, lifting for 3 years") go through
/// update_user_context into the same profile the app's settings show (GET /v1/me); an answer
/// outside the limits is refused whole, naming the field, and writes nothing.
/// GROW inside the coach: a new lifter's general conversation carries the journey's guidance; the
/// name the lifter gives moves them on to goals, goals said in chat start the check-ins (as the
/// app's flows do), and a check-in rating from the app reaches the next turn with its scale.
fn the_coaching_journey_reaches_the_coach(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-grow");
    let turn = |message: &str, calls: Option<Value>| -> Result<(String, String), Failed> {
        ctx.fake.reset();
        if let Some(args) = calls {
            ctx.fake
                .reply(ModelReply::calls(&[("update_user_context", args)]));
        }
        ctx.fake.reply(ModelReply::text(&["Noted."]));
        let s = ctx.stream(&user, json!({ "message": message }));
        well_formed(&s)?;
        let first = &ctx.fake.requests()[0].body;
        Ok((system_text(first), context_text(first)))
    };
    let (system, context) = turn("hi coach", None)?;
    check(
        system.contains("Coaching journey") && system.contains("Way forward"),
        "a general conversation carries the GROW guidance",
    )?;
    check(
        !context.contains("Coaching:"),
        format!("a new lifter: intake, no line: {context}"),
    )?;
    turn("Call me Sam", Some(json!({"name": "Sam"})))?;
    let (_, context) = turn("hello again", None)?;
    check(
        context.contains("Coaching: phase goals"),
        format!("named: goals next: {context}"),
    )?;
    turn(
        "I want to squat 140 kg by June",
        Some(json!({"objectives": ["squat 140 kg by June"], "timeline": "June"})),
    )?;
    // The app's energy card, answered 2.
    for event in [
        json!({"type": "card_tapped", "intervention_key": "energy_checkin"}),
        json!({"type": "rating_submitted", "value": 2}),
    ] {
        let r = functional(ctx, &user, "/v1/events", Some(event));
        eq(r.status, 200, &format!("event: {}", r.body))?;
    }
    let (_, context) = turn("how should today go?", None)?;
    check(
        context.contains("Coaching: phase check-ins") && context.contains("energy 2 (1 to 5)"),
        format!("goals start the check-ins; the rating with its scale: {context}"),
    )?;
    // A way forward agreed in chat is kept for the next check-in.
    turn(
        "ok, I'll go lighter and sleep earlier",
        Some(
            json!({"grow_goal": "a good session on low energy", "way_forward": "lighter squats, in bed by 11"}),
        ),
    )?;
    let (_, context) = turn("morning", None)?;
    check(
        context.contains("way forward agreed: lighter squats, in bed by 11"),
        format!("the way forward: {context}"),
    )
}

fn the_intake_answers_write_the_profile(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("c-intake");
    ctx.fake.reply(ModelReply::calls(&[(
        "update_user_context",
        json!({"name": "Sam", "age": 34, "experience": "intermediate", "unit": "lb",
               "equipment": ["barbell", "dumbbell"], "notification_preference": "minimal",
               "objectives": ["bench 100 kg"], "timeline": null}),
    )]));
    ctx.fake
        .reply(ModelReply::text(&["Nice to meet you, Sam."]));
    let s = ctx.stream(
        &user,
        json!({"message": "Call me Sam. I'm 34, lifting 3 years, barbell and dumbbells at home, pounds please, only important notifications. I want to bench 100 kg."}),
    );
    well_formed(&s)?;
    eq(s.tool_oks(), vec![true], "the tool ran")?;
    let url = format!("{}/v1/me", ctx.stack.base);
    let me = ctx.rt.block_on(blackbox::call_json(
        &ctx.http,
        "GET",
        url.clone(),
        &user,
        None,
    ));
    eq(me.body["name"].as_str(), Some("Sam"), "name")?;
    eq(me.body["age"].as_u64(), Some(34), "age")?;
    eq(
        me.body["experience"].as_str(),
        Some("intermediate"),
        "experience",
    )?;
    eq(me.body["unit"].as_str(), Some("lb"), "unit")?;
    eq(
        me.body["equipment"].clone(),
        json!(["barbell", "dumbbell"]),
        "equipment",
    )?;
    eq(
        me.body["notification_preference"].as_str(),
        Some("minimal"),
        "notifications",
    )?;

    ctx.fake.reset();
    ctx.fake.reply(ModelReply::calls(&[(
        "update_user_context",
        json!({"age": 7, "name": "Samuel"}),
    )]));
    ctx.fake.reply(ModelReply::text(&["Hmm."]));
    let s = ctx.stream(&user, json!({"message": "I'm 7 and call me Samuel"}));
    well_formed(&s)?;
    eq(s.tool_oks(), vec![false], "refused")?;
    let back = ctx.fake.requests()[1].body.to_string();
    check(back.contains("age"), "the error names the field")?;
    let me = ctx
        .rt
        .block_on(blackbox::call_json(&ctx.http, "GET", url, &user, None));
    eq(me.body["name"].as_str(), Some("Sam"), "nothing written")
}

/// One model behind every surface. A real lifter's history (a public Strong export, moved so
/// that its last session was three days ago) is imported; then the next bench press and
/// deadlift are asked of SUGGEST_WEIGHT, of the coach's suggest_weight tool, of a started
/// workout's plan and of AUTOFILL_SET on it: every one prescribes the same load.
fn every_surface_prescribes_the_same_load(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("one-model");
    // Its dates are years old: moved so that a prescription is progression, not a return.
    let csv = devstack::eval::shift_export(
        &std::fs::read_to_string(
            blackbox::workspace_root().join("tests/data/exports/strong-breinsp.csv"),
        )?,
        chrono::Utc::now().date_naive() - chrono::Duration::days(3),
    )?;
    let imported = ctx.rt.block_on(async {
        let resp = ctx
            .http
            .post(format!(
                "{}/v1/import/strong?tz=UTC&unit=kg",
                ctx.stack.base
            ))
            .header("x-user-id", &user)
            .header("content-type", "text/csv")
            .body(csv)
            .send()
            .await
            .expect("request reaches cargo lambda watch");
        resp.status().as_u16()
    });
    eq(imported, 200, "imported")?;
    // The same history for a lifter with no workout started (autofill by exercise).
    let other = unique_user("one-model-idle");
    for w in ctx.rt.block_on(ctx.stack.store.completed_workouts(&user))? {
        ctx.rt
            .block_on(ctx.stack.store.put_completed_workout(&other, &w))?;
    }
    let lifts = [("barbell-bench-press", 8u32), ("deadlift", 5)];
    let mut suggested = Vec::new();
    for (id, reps) in lifts {
        let ask = json!({"intent": "SUGGEST_WEIGHT", "exercise_id": id, "target_reps": reps});
        let r = functional(
            ctx,
            &user,
            "/v1/functional",
            Some(json!({"message": ask.to_string()})),
        );
        let d = &r.body["data"];
        eq(
            d["source"].as_str(),
            Some("history"),
            &format!("{id}: {}", r.body),
        )?;
        let kg = d["weight_kg"]
            .as_f64()
            .ok_or(format!("{id}: no load: {}", r.body))?;
        suggested.push(kg);
        // The coach's tool, as the model reads it.
        let before = ctx.fake.requests().len();
        ctx.fake.reply(ModelReply::calls(&[(
            "suggest_weight",
            json!({"exercise_id": id, "target_reps": reps}),
        )]));
        ctx.fake
            .reply(ModelReply::text(&["Here is your next load."]));
        let s = ctx.stream(
            &user,
            json!({"message": format!("How much should I lift on {id} for {reps} reps next time?")}),
        );
        well_formed(&s)?;
        let reqs = ctx.fake.requests();
        let answer = reqs[before..]
            .iter()
            .flat_map(|r| r.body["contents"].as_array().cloned().unwrap_or_default())
            .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
            .find_map(|p| {
                (p["functionResponse"]["name"] == "suggest_weight")
                    .then(|| p["functionResponse"]["response"].clone())
            })
            .ok_or(format!("{id}: no suggest_weight result reached the model"))?;
        eq(
            weight_of(&answer["weight_kg"]),
            Some(kg),
            &format!("{id}: the coach's tool says what SUGGEST_WEIGHT says: {answer}"),
        )?;
    }
    // A started workout plans those loads, and autofill fills them.
    let exercises: Vec<Value> = lifts
        .iter()
        .map(|(id, reps)| json!({"exercise": id, "sets": 3, "reps": reps}))
        .collect();
    let r = functional(
        ctx,
        &user,
        "/v1/workouts",
        Some(json!({"exercises": exercises})),
    );
    eq(r.status, 201, &format!("started: {}", r.body))?;
    let planned = r.body["workout"]["exercises"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    eq(planned.len(), 2, "two exercises planned")?;
    for ((id, reps), (inst, kg)) in lifts.iter().zip(planned.iter().zip(&suggested)) {
        let sets = inst["sets"].as_array().cloned().unwrap_or_default();
        let first_working = sets
            .iter()
            .position(|s| s["set_type"] == "working")
            .ok_or(format!("{id}: no working set planned"))?;
        let loads: Vec<Option<f64>> = sets[first_working..]
            .iter()
            .map(|s| s["target"]["weight_kg"].as_f64())
            .collect();
        eq(
            loads,
            vec![Some(*kg); 3],
            &format!("{id}: the plan's working sets"),
        )?;
        let ask = json!({
            "intent": "AUTOFILL_SET",
            "exercise_instance_id": inst["instance_id"],
            "set_index": first_working,
        });
        let r = functional(
            ctx,
            &user,
            "/v1/functional",
            Some(json!({"message": ask.to_string()})),
        );
        eq(
            r.body["data"]["predicted_weight_kg"].as_f64(),
            Some(*kg),
            &format!("{id}: AUTOFILL_SET on the plan: {}", r.body),
        )?;
        // Named by exercise, with no plan to read: the model's own answer.
        let ask = json!({
            "intent": "AUTOFILL_SET",
            "exercise_id": id,
            "set_index": 0,
            "target_reps": reps,
        });
        let r = functional(
            ctx,
            &other,
            "/v1/functional",
            Some(json!({"message": ask.to_string()})),
        );
        eq(
            (
                r.body["data"]["source"].as_str(),
                r.body["data"]["predicted_weight_kg"].as_f64(),
            ),
            (Some("last_session"), Some(*kg)),
            &format!("{id}: AUTOFILL_SET from the history: {}", r.body),
        )?;
    }
    Ok(())
}
