//! Black-box tests of the functional binary: every intent, route and monitor rule over HTTP
//! through `cargo lambda watch` against a dynoxide, as the app sends them; outcomes checked in
//! the responses and in the stored items. One stack serves every case.

use blackbox::{
    HttpCtx, JsonReply, bench_session, call_json, check, done_set, eq, run_cases, sample_template,
    sample_workout, test_runtime, unique_user, unselected,
};
use chrono::{Duration, Utc};
use coach::domain::coaching::{CoachingContext, Phase};
use coach::domain::plan::{Routine, RoutineDay};
use coach::domain::profile::{NotificationPreference, Profile, QuietHours};
use coach::domain::units::Unit;
use coach::domain::workout::{SetStatus, Workout, WorkoutSet};
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

type Ctx = HttpCtx;

type Case = fn(&Ctx) -> Result<(), Failed>;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "functional_lane";
    let cases: Vec<(&'static str, Case)> = vec![
        ("suggest_weight_from_history", suggest_weight_from_history),
        (
            "suggest_weight_without_history",
            suggest_weight_without_history,
        ),
        ("autofill_sources_in_order", autofill_sources_in_order),
        (
            "swap_suggests_without_changing_anything",
            swap_suggests_without_changing_anything,
        ),
        (
            "swap_applies_in_place_with_rescaled_weights",
            swap_applies_in_place_with_rescaled_weights,
        ),
        (
            "adjust_load_moves_planned_sets_within_the_history",
            adjust_load_moves_planned_sets_within_the_history,
        ),
        (
            "swap_with_logged_sets_needs_confirm",
            swap_with_logged_sets_needs_confirm,
        ),
        ("monitor_rules_fire_once_each", monitor_rules_fire_once_each),
        (
            "monitor_ignores_other_events_without_reading",
            monitor_ignores_other_events_without_reading,
        ),
        (
            "monitor_records_are_against_all_history",
            monitor_records_are_against_all_history,
        ),
        (
            "monitor_workout_completed_completes_it",
            monitor_workout_completed_completes_it,
        ),
        (
            "workout_lifecycle_from_the_routine",
            workout_lifecycle_from_the_routine,
        ),
        ("adhoc_and_template_starts", adhoc_and_template_starts),
        (
            "a_workout_too_large_to_store_is_a_413",
            a_workout_too_large_to_store_is_a_413,
        ),
        ("app_events_walk_the_journey", app_events_walk_the_journey),
        (
            "forged_cursors_and_hidden_characters_get_a_clear_answer",
            forged_cursors_and_hidden_characters_get_a_clear_answer,
        ),
        (
            "notification_gate_suppresses_with_a_reason",
            notification_gate_suppresses_with_a_reason,
        ),
        (
            "bad_input_is_a_clear_4xx_and_writes_nothing",
            bad_input_is_a_clear_4xx_and_writes_nothing,
        ),
        (
            "another_users_instance_is_not_found",
            another_users_instance_is_not_found,
        ),
        ("other_lanes_and_later_routes", other_lanes_and_later_routes),
        (
            "a_button_object_is_the_body_too",
            a_button_object_is_the_body_too,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let rt = test_runtime();
    let ctx = HttpCtx::start(&rt);
    let _ = rt.block_on(call(&ctx, "GET", "/v1/workouts/active", "warmup", None));
    run_cases(args, SUITE, rt, ctx, cases)
}

type Reply = JsonReply;

async fn call(ctx: &Ctx, method: &str, path: &str, user: &str, body: Option<Value>) -> Reply {
    let url = format!("{}{path}", ctx.stack.base);
    call_json(&ctx.http, method, url, user, body).await
}

fn get(ctx: &Ctx, path: &str, user: &str) -> Reply {
    ctx.rt.block_on(call(ctx, "GET", path, user, None))
}

fn post(ctx: &Ctx, path: &str, user: &str, body: Value) -> Reply {
    ctx.rt.block_on(call(ctx, "POST", path, user, Some(body)))
}

/// A smart button or monitor event: the JSON object as the message, with an optional prefix.
fn button(ctx: &Ctx, user: &str, prefix: &str, payload: Value) -> Reply {
    post(
        ctx,
        "/v1/functional",
        user,
        json!({ "message": format!("{prefix}{payload}") }),
    )
}

fn expect_ok<'a>(r: &'a Reply, action: &str) -> Result<&'a Value, Failed> {
    eq(r.status, 200, &format!("status of {}", r.body))?;
    eq(r.body["success"].as_bool(), Some(true), "success")?;
    eq(
        r.body["action"].as_str(),
        Some(action),
        &format!("action of {}", r.body),
    )?;
    Ok(&r.body["data"])
}

fn expect_err(r: &Reply, status: u16, code: &str) -> Result<(), Failed> {
    eq(r.status, status, &format!("status of {}", r.body))?;
    eq(
        r.body["error"]["code"].as_str(),
        Some(code),
        &format!("code of {}", r.body),
    )
}

fn store<T>(
    ctx: &Ctx,
    f: impl std::future::Future<Output = Result<T, coach::store::StoreError>>,
) -> T {
    ctx.rt.block_on(f).expect("store call")
}

fn active(ctx: &Ctx, user: &str) -> Option<Workout> {
    store(ctx, ctx.stack.store.get_active_workout(user)).map(|v| v.value)
}

fn count(ctx: &Ctx, user: &str, prefix: &str) -> usize {
    store(ctx, ctx.stack.store.count_items(user, prefix))
}

fn put_history(ctx: &Ctx, user: &str, sessions: &[Workout]) {
    for w in sessions {
        store(ctx, ctx.stack.store.put_completed_workout(user, w));
    }
}

fn seed_active(ctx: &Ctx, user: &str, w: &Workout) {
    store(ctx, ctx.stack.store.replace_active_workout(user, w));
}

// ------------------------------------------------------------------ SUGGEST_WEIGHT

fn suggest_weight_from_history(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("suggest");
    put_history(
        ctx,
        &user,
        &[
            bench_session(9, &[(95.0, 8, 2)]),
            bench_session(2, &[(100.0, 8, 2), (100.0, 8, 1)]),
        ],
    );
    let r = button(
        ctx,
        &user,
        "",
        json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "barbell-bench-press", "target_reps": 8, "target_rir": 2}),
    );
    let d = expect_ok(&r, "SUGGEST")?;
    // The top of the 8 with the first set at the RIR asked (the second's RIR 1 is its
    // fatigue): one plate on.
    eq(
        d["weight_kg"].as_f64(),
        Some(102.5),
        "the next step from what was done",
    )?;
    eq(d["confidence"].as_str(), Some("high"), "confidence")?;
    eq(d["display"].as_str(), Some("102.5 kg"), "display")?;
    eq(
        d["basis"].as_array().map(Vec::len),
        Some(2),
        "basis: the latest session's sets",
    )?;
    eq(r.body["intent"].as_str(), Some("SUGGEST_WEIGHT"), "intent")?;
    // Fewer reps: heavier, but capped at +5 kg over the best for 5+ reps.
    let r = button(
        ctx,
        &user,
        "",
        json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "bench press", "target_reps": 5}),
    );
    eq(
        expect_ok(&r, "SUGGEST")?["weight_kg"].as_f64(),
        Some(105.0),
        "capped",
    )?;
    // A pound user gets pounds, on 5 lb plates.
    store(
        ctx,
        ctx.stack.store.put_profile(
            &user,
            &Profile {
                unit: Unit::Lb,
                ..Profile::default()
            },
        ),
    );
    let r = button(
        ctx,
        &user,
        "",
        json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "barbell-bench-press", "target_reps": 8}),
    );
    let d = expect_ok(&r, "SUGGEST")?;
    eq(d["unit"].as_str(), Some("lb"), "unit")?;
    let lb = d["weight"].as_f64().unwrap_or_default();
    check(
        (lb / 5.0 - (lb / 5.0).round()).abs() < 1e-6,
        format!("{lb} lb is not on a 5 lb step"),
    )
}

fn suggest_weight_without_history(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("suggest-new");
    let r = button(
        ctx,
        &user,
        "",
        json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "back-squat", "target_reps": 5}),
    );
    let d = expect_ok(&r, "SUGGEST")?;
    eq(d["confidence"].as_str(), Some("low"), "confidence")?;
    eq(d["source"].as_str(), Some("level"), "source")?;
    check(
        d["weight_kg"].as_f64().unwrap_or_default() > 0.0,
        "a starting weight",
    )?;
    eq(count(ctx, &user, ""), 0, "a suggestion writes nothing")
}

/// The button object itself as the body answers as the same object sent as the message text;
/// a malformed object is refused in either form, also for events the monitor ignores.
fn a_button_object_is_the_body_too(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("bare");
    let ask = json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "back-squat", "target_reps": 5});
    let as_text = button(ctx, &user, "", ask.clone());
    let bare = post(ctx, "/v1/functional", &user, ask);
    expect_ok(&bare, "SUGGEST")?;
    eq(bare.body.clone(), as_text.body.clone(), "the same answer")?;
    let r = post(
        ctx,
        "/v1/functional",
        &user,
        json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "back-squat", "target_reps": 5, "sets": 3}),
    );
    eq(r.status, 400, "unknown field")?;
    eq(r.body["action"].as_str(), Some("ERROR"), "in the envelope")?;
    let ignored = json!({"event_type": "REST_STARTED"});
    let r = post(ctx, "/v1/functional", &user, ignored);
    eq(r.status, 200, "an ignored event")?;
    eq(r.body["action"].as_str(), Some("NULL"), "is NULL")?;
    let r = post(
        ctx,
        "/v1/functional",
        &user,
        json!({"event_type": "REST_STARTED", "state_diff": "x"}),
    );
    eq(
        r.status,
        400,
        &format!("a malformed ignored event: {}", r.body),
    )?;
    eq(count(ctx, &user, ""), 0, "nothing written")
}

// ------------------------------------------------------------------ AUTOFILL_SET

fn autofill_sources_in_order(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("autofill");
    let mut w = sample_workout("w-af", 3);
    seed_active(ctx, &user, &w);
    let fill = |set_index: u32| {
        button(
            ctx,
            &user,
            "",
            json!({"intent": "AUTOFILL_SET", "exercise_instance_id": "ex-bench", "set_index": set_index}),
        )
    };
    // Nothing done, no history: the plan.
    let d = fill(1);
    let d = expect_ok(&d, "AUTOFILL")?;
    eq(
        (d["source"].as_str(), d["predicted_weight_kg"].as_f64()),
        (Some("plan"), Some(100.0)),
        "plan",
    )?;
    // History: today's plan still wins (the progression model made it when the workout
    // started; the coach or the lifter may have changed it since).
    put_history(
        ctx,
        &user,
        &[bench_session(3, &[(97.5, 8, 2), (97.5, 7, 1)])],
    );
    let d = fill(2);
    let d = expect_ok(&d, "AUTOFILL")?;
    eq(
        (d["source"].as_str(), d["predicted_weight_kg"].as_f64()),
        (Some("plan"), Some(100.0)),
        "the plan over the last session",
    )?;
    // Not in a workout: the progression model on the last session. 97.5 × 8 then 7 of the 8
    // planned: the 7 was inside the range, so 97.5 kg again, aiming for the 8 on every set
    // (autofill writes the aim; a 7 written down would be read next time as the 7 asked for).
    let other = unique_user("autofill-hist");
    put_history(
        ctx,
        &other,
        &[bench_session(3, &[(97.5, 8, 2), (97.5, 7, 1)])],
    );
    let r = button(
        ctx,
        &other,
        "",
        json!({"intent": "AUTOFILL_SET", "exercise_id": "barbell-bench-press", "set_index": 1}),
    );
    let d = expect_ok(&r, "AUTOFILL")?;
    eq(
        (
            d["source"].as_str(),
            d["predicted_weight_kg"].as_f64(),
            d["predicted_reps"].as_u64(),
        ),
        (Some("last_session"), Some(97.5), Some(8)),
        "last session",
    )?;
    // A set done today wins.
    w.exercises[0].sets[1] = done_set("bench-1", (100.0, 8, 2), (102.5, 8, 2), Utc::now());
    seed_active(ctx, &user, &w);
    let d = fill(2);
    let d = expect_ok(&d, "AUTOFILL")?;
    eq(
        (d["source"].as_str(), d["predicted_weight_kg"].as_f64()),
        (Some("previous_set_today"), Some(102.5)),
        "today",
    )?;
    // By exercise id, not in the workout, no history: an estimate.
    let r = button(
        ctx,
        &user,
        "",
        json!({"intent": "AUTOFILL_SET", "exercise_id": "leg-press", "set_index": 0, "target_reps": 12}),
    );
    let d = expect_ok(&r, "AUTOFILL")?;
    eq(
        (d["source"].as_str(), d["predicted_reps"].as_u64()),
        (Some("estimate"), Some(12)),
        "estimate",
    )?;
    // Out of range names the field.
    let r = fill(9);
    expect_err(&r, 400, "VALIDATION_ERROR")?;
    eq(
        r.body["error"]["field"].as_str(),
        Some("set_index"),
        "field",
    )?;
    eq(
        r.body["action"].as_str(),
        Some("ERROR"),
        "envelope on errors",
    )
}

// ------------------------------------------------------------------ SWAP_EXERCISE

fn swap_suggests_without_changing_anything(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("swap-s");
    let r = button(
        ctx,
        &user,
        "",
        json!({"intent": "SWAP_EXERCISE", "target": "Bench Press", "constraint": "machine"}),
    );
    let d = expect_ok(&r, "REPLACE_EXERCISE")?;
    eq(
        d["new_exercise"]["exercise_id"].as_str(),
        Some("machine-chest-press"),
        "best machine swap",
    )?;
    eq(
        d["applied"].as_bool(),
        Some(false),
        "not applied without an instance",
    )?;
    let alts = d["alternatives"].as_array().cloned().unwrap_or_default();
    check(
        !alts.is_empty() && alts.len() <= 5,
        format!("1 to 5 alternatives, got {}", alts.len()),
    )?;
    check(
        alts.iter()
            .all(|a| a["reason"].as_str().is_some_and(|r| !r.is_empty())),
        "each alternative has a reason",
    )?;
    check(
        alts.iter()
            .all(|a| a["exercise_id"] != "barbell-bench-press"),
        "never the target itself",
    )?;
    // Unknown target: close names suggested.
    let r = button(
        ctx,
        &user,
        "",
        json!({"intent": "SWAP_EXERCISE", "target": "benchh pres"}),
    );
    check(r.status == 200 || r.status == 400, "resolves or explains")?;
    let r = button(
        ctx,
        &user,
        "",
        json!({"intent": "SWAP_EXERCISE", "target": "dumbell flys machine thing"}),
    );
    expect_err(&r, 400, "UNKNOWN_EXERCISE")?;
    check(
        r.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("did you mean") || m.contains("could be")),
        format!("suggests names: {}", r.body),
    )?;
    eq(count(ctx, &user, ""), 0, "nothing written")
}

fn adjust_load_moves_planned_sets_within_the_history(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("adjust");
    // Two sessions of 100 kg × 8 at RIR 2 on the bench.
    for w in [
        blackbox::bench_session(9, &[(100.0, 8, 2), (100.0, 8, 2)]),
        blackbox::bench_session(4, &[(100.0, 8, 2), (100.0, 8, 2)]),
    ] {
        store(ctx, ctx.stack.store.put_completed_workout(&user, &w));
    }
    seed_active(ctx, &user, &sample_workout("w-adj", 3));
    let press = |corr: &str, body: Value| {
        button(
            ctx,
            &user,
            &format!("(context: corr={corr} workout_id=w-adj) "),
            body,
        )
    };
    let planned = |ctx: &Ctx| -> Vec<Option<f64>> {
        active(ctx, &user)
            .map(|w| {
                w.exercises[0]
                    .sets
                    .iter()
                    .map(|s| s.target.weight_kg)
                    .collect()
            })
            .unwrap_or_default()
    };
    // One step heavier on the bench: its working sets, not its warm-up.
    let one = json!({"intent": "ADJUST_LOAD", "exercise_instance_id": "ex-bench", "steps": 1});
    let r = press("adj-1", one.clone());
    let d = expect_ok(&r, "ADJUST_LOAD")?.clone();
    eq(
        (d["from_kg"].as_f64(), d["to_kg"].as_f64()),
        (Some(100.0), Some(102.5)),
        "a step",
    )?;
    eq(
        planned(ctx),
        vec![Some(50.0), Some(102.5), Some(102.5), Some(102.5)],
        "stored",
    )?;
    // The same press retried (same corr): the first answer, no second step.
    let again = press("adj-1", one);
    eq(
        expect_ok(&again, "ADJUST_LOAD")?["to_kg"].as_f64(),
        Some(102.5),
        "replayed",
    )?;
    eq(planned(ctx)[1], Some(102.5), "not moved twice")?;
    // Five steps more: held at what the history supports for 8 at RIR 2, and said.
    let r = press(
        "adj-2",
        json!({"intent": "ADJUST_LOAD", "exercise_instance_id": "ex-bench", "steps": 5}),
    );
    let d = expect_ok(&r, "ADJUST_LOAD")?.clone();
    let held = d["held_at_kg"].as_f64().ok_or(format!("held: {d}"))?;
    let to = d["to_kg"].as_f64().unwrap_or_default();
    check(
        to <= held && to < 102.5 + 5.0 * 2.5,
        format!("held at {held}: {d}"),
    )?;
    check(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("Held there")),
        format!("says why: {}", d["message"]),
    )?;
    // Ten percent lighter on one named set only.
    let r = press(
        "adj-3",
        json!({"intent": "ADJUST_LOAD", "set_id": "bench-3", "percent": -10, "scope": "set"}),
    );
    let d = expect_ok(&r, "ADJUST_LOAD")?.clone();
    eq(d["set_ids"].clone(), json!(["bench-3"]), "one set")?;
    let after = planned(ctx);
    check(
        after[3].is_some_and(|kg| kg < to) && after[2] == Some(to),
        format!("the named set alone: {after:?}"),
    )?;
    // A set with no load (pull-ups), a bad step, a logged set: refused, nothing changed.
    let before = planned(ctx);
    let r = press(
        "adj-4",
        json!({"intent": "ADJUST_LOAD", "exercise_instance_id": "ex-pullup", "steps": 1}),
    );
    eq(r.status, 400, &format!("no load to move: {}", r.body))?;
    let r = press("adj-5", json!({"intent": "ADJUST_LOAD", "steps": 9}));
    eq(
        r.body["error"]["field"].as_str(),
        Some("steps"),
        "steps out of range",
    )?;
    let r = press(
        "adj-6",
        json!({"intent": "ADJUST_LOAD", "steps": 1, "percent": 5}),
    );
    eq(r.status, 400, "steps or percent, not both")?;
    eq(planned(ctx), before, "nothing changed")
}

fn swap_applies_in_place_with_rescaled_weights(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("swap-a");
    seed_active(ctx, &user, &sample_workout("w-sw", 3));
    let r = button(
        ctx,
        &user,
        "(context: corr=sw-1 workout_id=w-sw) ",
        json!({"intent": "SWAP_EXERCISE", "target": "barbell-bench-press", "exercise_instance_id": "ex-bench", "constraint": "dumbbell"}),
    );
    let d = expect_ok(&r, "REPLACE_EXERCISE")?.clone();
    eq(d["applied"].as_bool(), Some(true), "applied")?;
    check(
        d["weights"]
            .as_str()
            .is_some_and(|w| w.contains("×0.33") && w.contains("per hand")),
        format!("says how weights changed: {}", d["weights"]),
    )?;
    let w = active(ctx, &user).ok_or("no active workout")?;
    let first = &w.exercises[0];
    eq(
        first.exercise_id.as_str(),
        d["new_exercise"]["exercise_id"]
            .as_str()
            .unwrap_or_default(),
        "swapped in place, first position",
    )?;
    eq(first.sets.len(), 4, "same planned sets")?;
    // 100 kg barbell × 0.33 (the cautious end of a dumbbell's share, a hand) = 33 kg, on the
    // 2 kg dumbbell step, rounded down: 32; never 100.
    let kg = first.sets[1].target.weight_kg.unwrap_or_default();
    check(
        (30.0..=40.0).contains(&kg) && (kg / 2.0).fract() == 0.0,
        format!("rescaled to dumbbells: {kg}"),
    )?;
    eq(
        w.exercises[1].exercise_id.as_str(),
        "pull-up",
        "the rest untouched",
    )?;
    // The retry with the same corr replays and changes nothing more.
    let again = button(
        ctx,
        &user,
        "(context: corr=sw-1 workout_id=w-sw) ",
        json!({"intent": "SWAP_EXERCISE", "target": "barbell-bench-press", "exercise_instance_id": "ex-bench", "constraint": "dumbbell"}),
    );
    eq(
        expect_ok(&again, "REPLACE_EXERCISE")?["new_exercise"].clone(),
        d["new_exercise"].clone(),
        "replayed",
    )?;
    eq(active(ctx, &user), Some(w), "replay wrote nothing")
}

fn swap_with_logged_sets_needs_confirm(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("swap-c");
    let mut w = sample_workout("w-sc", 3);
    w.exercises[0].sets[1] = done_set("bench-1", (100.0, 8, 2), (100.0, 8, 2), Utc::now());
    seed_active(ctx, &user, &w);
    let ask = |confirm: bool| {
        button(
            ctx,
            &user,
            "",
            json!({"intent": "SWAP_EXERCISE", "target": "bench press", "exercise_instance_id": "ex-bench", "constraint": "machine", "confirm": confirm}),
        )
    };
    let r = ask(false);
    expect_err(&r, 409, "CONFIRM_REQUIRED")?;
    eq(
        active(ctx, &user),
        Some(w.clone()),
        "refused: nothing changed",
    )?;
    let r = ask(true);
    expect_ok(&r, "REPLACE_EXERCISE")?;
    let now = active(ctx, &user).ok_or("no active workout")?;
    eq(
        now.exercises[0].exercise_id.as_str(),
        "barbell-bench-press",
        "logged sets stay with the old exercise",
    )?;
    check(
        now.exercises[0]
            .sets
            .iter()
            .all(|s| s.status != SetStatus::Planned),
        "old keeps only logged sets",
    )?;
    eq(
        now.exercises[1].exercise_id.as_str(),
        "machine-chest-press",
        "new exercise inserted after",
    )?;
    eq(
        now.exercises[1].sets.len(),
        3,
        "the remaining planned sets moved (warm-up and two working)",
    )
}

// ------------------------------------------------------------------ MONITOR_STATE

fn monitor_rules_fire_once_each(ctx: &Ctx) -> Result<(), Failed> {
    let t0 = Utc::now() - Duration::minutes(30);
    let at = |m: i64| t0 + Duration::minutes(m);
    let plan = (100.0, 8, 2);
    let workout = |sets: Vec<WorkoutSet>| {
        let mut w = sample_workout("w-mon", 0);
        w.exercises[0].sets = sets;
        w
    };
    // (rule, action, severity, workout, history)
    let scenarios: Vec<(&str, &str, &str, Workout, Vec<Workout>)> = vec![
        (
            "weight_drop",
            "ALERT",
            "warning",
            workout(vec![
                done_set("a", plan, (100.0, 8, 2), at(0)),
                done_set("b", plan, (80.0, 8, 2), at(3)),
            ]),
            vec![],
        ),
        (
            "failure_sets",
            "ALERT",
            "alert",
            workout(vec![
                done_set("a", plan, (100.0, 6, 0), at(0)),
                done_set("b", plan, (100.0, 6, 0), at(3)),
                done_set("c", plan, (100.0, 6, 0), at(6)),
            ]),
            vec![],
        ),
        (
            "reps_shortfall",
            "NUDGE",
            "warning",
            workout(vec![done_set("a", plan, (100.0, 5, 0), at(0))]),
            vec![],
        ),
        (
            "go_heavier",
            "NUDGE",
            "info",
            workout(vec![
                done_set("a", plan, (100.0, 8, 4), at(0)),
                done_set("b", plan, (100.0, 8, 4), at(3)),
                done_set("c", plan, (100.0, 8, 4), at(6)),
            ]),
            vec![],
        ),
        (
            "long_rest",
            "NUDGE",
            "info",
            workout(vec![
                done_set("a", (90.0, 8, 2), (90.0, 8, 2), at(0)),
                done_set("b", (90.0, 8, 2), (90.0, 8, 2), at(5)),
            ]),
            vec![bench_session(
                7,
                &[(90.0, 8, 2), (90.0, 8, 2), (90.0, 8, 2), (90.0, 8, 2)],
            )],
        ),
        (
            "pr",
            "NUDGE",
            "info",
            workout(vec![done_set("a", plan, (105.0, 8, 2), at(0))]),
            vec![bench_session(7, &[(100.0, 8, 2)])],
        ),
    ];
    for (rule, action, severity, w, history) in scenarios {
        let user = unique_user(&format!("mon-{rule}"));
        put_history(ctx, &user, &history);
        seed_active(ctx, &user, &w);
        let event = json!({"event_type": "SET_COMPLETED", "state_diff": {}});
        let r = button(ctx, &user, "", event.clone());
        let d = expect_ok(&r, action)?;
        eq(d["rule"].as_str(), Some(rule), "rule")?;
        eq(
            d["severity"].as_str(),
            Some(severity),
            &format!("{rule} severity"),
        )?;
        check(
            d["message"].as_str().is_some_and(|m| m.len() > 20),
            format!("{rule} has a message"),
        )?;
        eq(r.body["intent"].as_str(), Some("MONITOR_STATE"), "intent")?;
        // The same event again: that nudge was already sent.
        let again = button(ctx, &user, "", event);
        check(
            again.body["data"]["rule"].as_str() != Some(rule),
            format!("{rule} sent twice"),
        )?;
    }
    Ok(())
}

fn monitor_records_are_against_all_history(ctx: &Ctx) -> Result<(), Failed> {
    // 120 × 8 seven months ago (imported), 100 × 8 last week: 105 × 8 today beats the recent
    // weeks but is no record; 125 × 8 is, against the old best.
    let user = unique_user("mon-allpr");
    let history = [
        bench_session(210, &[(120.0, 8, 2)]),
        bench_session(7, &[(100.0, 8, 2)]),
    ];
    store(ctx, ctx.stack.store.put_history(&user, &history, &[]));
    let set = |kg| {
        let mut w = sample_workout("w-allpr", 0);
        w.exercises[0].sets = vec![done_set("a", (100.0, 8, 2), (kg, 8, 2), Utc::now())];
        w
    };
    let event = json!({"event_type": "SET_COMPLETED", "state_diff": {"set_id": "a"}});
    seed_active(ctx, &user, &set(105.0));
    expect_ok(&button(ctx, &user, "", event.clone()), "NULL")?;
    seed_active(ctx, &user, &set(125.0));
    let r = button(ctx, &user, "", event);
    let d = expect_ok(&r, "NUDGE")?;
    eq(d["rule"].as_str(), Some("pr"), "rule")?;
    // 120 × (1 + 10/30) = 160 kg, the old best.
    check(
        d["message"]
            .as_str()
            .is_some_and(|m| m.contains("previous best 160 kg")),
        format!("against the old best: {}", d["message"]),
    )
}

fn monitor_ignores_other_events_without_reading(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("mon-skip");
    let r = button(
        ctx,
        &user,
        "",
        json!({"event_type": "REST_TIMER_STARTED", "state_diff": {"seconds": 90}}),
    );
    let d = expect_ok(&r, "NULL")?;
    eq(d.clone(), Value::Null, "data")?;
    // An ordinary set: NULL, and nothing claimed.
    let mut w = sample_workout("w-q", 2);
    w.exercises[0].sets[1] = done_set("bench-1", (100.0, 8, 2), (100.0, 8, 2), Utc::now());
    seed_active(ctx, &user, &w);
    let r = button(
        ctx,
        &user,
        "",
        json!({"intent": "MONITOR_STATE", "event_type": "SET_COMPLETED", "state_diff": {"set_id": "bench-1"}}),
    );
    expect_ok(&r, "NULL")?;
    eq(count(ctx, &user, "MONITOR#"), 0, "no claims")
}

fn monitor_workout_completed_completes_it(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("mon-done");
    seed_active(ctx, &user, &sample_workout("w-md", 2));
    let r = button(
        ctx,
        &user,
        "",
        json!({"event_type": "WORKOUT_COMPLETED", "workout_state": {"id": "w-md"}}),
    );
    expect_ok(&r, "NULL")?;
    eq(active(ctx, &user), None, "no active workout left")?;
    eq(count(ctx, &user, "WORKOUT#2"), 1, "in history")
}

// ------------------------------------------------------------------ workouts

fn workout_lifecycle_from_the_routine(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("life");
    store(
        ctx,
        ctx.stack.store.put_template(
            &user,
            &sample_template("t-push", "Push", ("barbell-bench-press", "Bench Press")),
        ),
    );
    store(
        ctx,
        ctx.stack.store.put_template(
            &user,
            &sample_template("t-legs", "Legs", ("back-squat", "Squat")),
        ),
    );
    let day = |t: &str| RoutineDay {
        label: t.into(),
        template_id: t.into(),
    };
    store(
        ctx,
        ctx.stack.store.put_routine(
            &user,
            &Routine {
                id: "r1".into(),
                name: "PL".into(),
                days: vec![day("t-push"), day("t-legs")],
                next_day: 0,
            },
        ),
    );
    put_history(
        ctx,
        &user,
        &[bench_session(3, &[(100.0, 8, 4), (100.0, 8, 4)])],
    );
    eq(
        get(ctx, "/v1/workouts/active", &user).body["workout"].clone(),
        Value::Null,
        "nothing active",
    )?;
    let r = post(ctx, "/v1/workouts", &user, json!({"next": true}));
    eq(r.status, 201, &format!("start: {}", r.body))?;
    let w = &r.body["workout"];
    let id = w["id"].as_str().unwrap_or_default().to_string();
    eq(
        w["template_id"].as_str(),
        Some("t-push"),
        "the routine's next day",
    )?;
    let sets = w["exercises"][0]["sets"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let warm: Vec<f64> = sets
        .iter()
        .filter(|s| s["set_type"] == "warmup")
        .filter_map(|s| s["target"]["weight_kg"].as_f64())
        .collect();
    check(
        warm.len() >= 3 && warm[0] == 20.0 && warm.windows(2).all(|w| w[1] > w[0]),
        format!("a warm-up ramp from the empty bar before a heavy compound: {warm:?}"),
    )?;
    let working: Vec<f64> = sets
        .iter()
        .filter(|s| s["set_type"] == "working")
        .filter_map(|s| s["target"]["weight_kg"].as_f64())
        .collect();
    // Last time 100 × 8 at RIR 4 (plan said 80): progression on what was done.
    eq(
        working,
        vec![105.0; 3],
        "planned weights from what was achieved",
    )?;
    // Starting again returns the active one.
    let again = post(ctx, "/v1/workouts", &user, json!({}));
    expect_err(&again, 409, "WORKOUT_ACTIVE")?;
    eq(
        again.body["workout"]["id"].as_str(),
        Some(id.as_str()),
        "409 carries the active workout",
    )?;
    let a = get(ctx, "/v1/workouts/active", &user);
    eq(a.body["current"]["number"].as_u64(), Some(1), "current set")?;
    // Complete: idempotent, hands the job to the local worker.
    let c = post(
        ctx,
        &format!("/v1/workouts/{id}/complete"),
        &user,
        json!({}),
    );
    eq(c.status, 200, &format!("complete: {}", c.body))?;
    eq(
        c.body["already_completed"].as_bool(),
        Some(false),
        "first completion",
    )?;
    eq(
        c.body["job"]["status"].as_str(),
        Some("invoked_locally"),
        "job handed to the worker",
    )?;
    eq(
        c.body["job"]["http_status"].as_u64(),
        Some(200),
        "the worker answered",
    )?;
    let c2 = post(
        ctx,
        &format!("/v1/workouts/{id}/complete"),
        &user,
        json!({}),
    );
    eq(
        c2.body["already_completed"].as_bool(),
        Some(true),
        "second completion",
    )?;
    // The worker wrote one insight card, however often the completion was sent.
    let cards = get(ctx, "/v1/insights", &user);
    eq(cards.status, 200, "insights")?;
    eq(
        cards.body["items"].as_array().map(Vec::len),
        Some(1),
        &format!("one card: {}", cards.body),
    )?;
    eq(
        cards.body["items"][0]["workout_id"].as_str(),
        Some(id.as_str()),
        "the card is this workout's",
    )?;
    eq(
        count(ctx, &user, "WORKOUT#2"),
        2,
        "the seeded session and this one, once",
    )?;
    eq(
        get(ctx, "/v1/workouts/active", &user).body["workout"].clone(),
        Value::Null,
        "nothing active after",
    )?;
    // The routine moved on: the next start is legs.
    let r = post(ctx, "/v1/workouts", &user, json!({"next": true}));
    eq(
        r.body["workout"]["template_id"].as_str(),
        Some("t-legs"),
        "next day",
    )?;
    let missing = post(ctx, "/v1/workouts/w-nope/complete", &user, json!({}));
    expect_err(&missing, 404, "WORKOUT_NOT_FOUND")
}

fn adhoc_and_template_starts(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("adhoc");
    let r = post(
        ctx,
        "/v1/workouts",
        &user,
        json!({"name": "Arms", "exercises": [{"exercise": "dumbbell curl", "sets": 2, "reps": 12}, {"exercise": "triceps-pushdown"}]}),
    );
    eq(r.status, 201, &format!("adhoc: {}", r.body))?;
    let ex = r.body["workout"]["exercises"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    eq(ex.len(), 2, "two exercises")?;
    eq(
        ex[0]["exercise_id"].as_str(),
        Some("dumbbell-curl"),
        "resolved by name",
    )?;
    eq(
        ex[0]["sets"].as_array().map(Vec::len),
        Some(2),
        "sets as asked",
    )?;
    eq(r.body["workout"]["name"].as_str(), Some("Arms"), "name")?;
    let id = r.body["workout"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    post(
        ctx,
        &format!("/v1/workouts/{id}/complete"),
        &user,
        json!({}),
    );
    // Empty ad hoc, then a template that does not exist.
    let r = post(ctx, "/v1/workouts", &user, json!({}));
    eq(r.status, 201, "empty start")?;
    eq(
        r.body["workout"]["exercises"].as_array().map(Vec::len),
        Some(0),
        "empty",
    )?;
    let id = r.body["workout"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    post(
        ctx,
        &format!("/v1/workouts/{id}/complete"),
        &user,
        json!({}),
    );
    let r = post(ctx, "/v1/workouts", &user, json!({"template_id": "nope"}));
    expect_err(&r, 404, "TEMPLATE_NOT_FOUND")?;
    let r = post(ctx, "/v1/workouts", &user, json!({"next": true}));
    expect_err(&r, 404, "NO_ROUTINE")
}

/// 50 exercises of 100 sets each were within the old limits, and their document (about 0.6 MB)
/// could never be stored: an endless 503. A workout holds at most 500 sets; past that the start
/// is a 413 naming the limit, and nothing is written. 500 sets start and are stored.
fn a_workout_too_large_to_store_is_a_413(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("too-large");
    let many = |sets: u32| {
        json!({"name": "Everything", "exercises": (0..50)
            .map(|_| json!({"exercise": "dumbbell curl", "sets": sets, "reps": 12}))
            .collect::<Vec<_>>()})
    };
    let r = post(ctx, "/v1/workouts", &user, many(100));
    expect_err(&r, 413, "WORKOUT_TOO_LARGE")?;
    eq(r.body["error"]["field"].as_str(), Some("sets"), "field")?;
    check(
        r.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("5000 sets") && m.contains("at most 500")),
        format!("names the limit: {}", r.body),
    )?;
    let active = get(ctx, "/v1/workouts/active", &user);
    eq(&active.body["workout"], &Value::Null, "nothing started")?;
    let r = post(ctx, "/v1/workouts", &user, many(10));
    eq(r.status, 201, &format!("500 sets: {}", r.body))?;
    let stored = ctx
        .rt
        .block_on(ctx.stack.store.get_active_workout(&user))?
        .ok_or("stored")?;
    eq(
        stored
            .value
            .exercises
            .iter()
            .map(|e| e.sets.len())
            .sum::<usize>(),
        500,
        "500 sets stored",
    )
}

// ------------------------------------------------------------------ app events

fn event(ctx: &Ctx, user: &str, body: Value) -> Reply {
    post(ctx, "/v1/events", user, body)
}

/// An offset cursor as large as a number gets is an empty page, not an overflow (a panic in a
/// debug build); one too large to be a number is not a cursor this endpoint returned. A name
/// with a text-direction override or an invisible space is refused, naming the character.
fn forged_cursors_and_hidden_characters_get_a_clear_answer(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("hostile");
    let hex = |s: &str| s.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    for prefix in ["EXERCISES#", "CONVERSATIONS#"] {
        let path = if prefix == "EXERCISES#" {
            "/v1/exercises"
        } else {
            "/v1/conversations"
        };
        let huge = hex(&format!("{prefix}{}", u64::MAX));
        let r = get(ctx, &format!("{path}?limit=100&cursor={huge}"), &user);
        eq(r.status, 200, &format!("{path} at u64::MAX: {}", r.body))?;
        eq(
            r.body["items"].as_array().map(Vec::len),
            Some(0),
            "no items",
        )?;
        eq(r.body["next_cursor"].clone(), Value::Null, "no next page")?;
        let beyond = hex(&format!("{prefix}{}0", u128::MAX));
        let r = get(ctx, &format!("{path}?cursor={beyond}"), &user);
        expect_err(&r, 400, "VALIDATION_ERROR")?;
    }
    let r = ctx.rt.block_on(call(
        ctx,
        "PATCH",
        "/v1/me",
        &user,
        Some(json!({"name": "Ana\u{202E}anA"})),
    ));
    expect_err(&r, 400, "VALIDATION_ERROR")?;
    eq(r.body["error"]["field"].as_str(), Some("name"), "field")?;
    check(
        r.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("U+202E")),
        format!("names the character: {}", r.body),
    )?;
    let r = post(
        ctx,
        "/v1/exercises",
        &user,
        json!({"name": "Bench\u{200B}Press", "equipment": "barbell", "primary_muscles": ["chest"]}),
    );
    expect_err(&r, 400, "VALIDATION_ERROR")?;
    eq(r.body["error"]["field"].as_str(), Some("name"), "field")?;
    let me = get(ctx, "/v1/me", &user);
    eq(me.body["name"].clone(), Value::Null, "name unchanged")?;
    Ok(())
}

fn app_events_walk_the_journey(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("journey");
    let r = event(ctx, &user, json!({"type": "app_opened_first_time"}));
    eq(r.status, 200, &format!("first open: {}", r.body))?;
    check(
        r.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("What should I call you")),
        "intake question",
    )?;
    eq(
        r.body["metadata"]["requires_response"].as_bool(),
        Some(true),
        "requires a response",
    )?;
    eq(r.body["suppressed"].clone(), Value::Null, "not suppressed")?;
    // During intake, opening the app says nothing.
    eq(
        event(ctx, &user, json!({"type": "app_opened"})).body["message"].clone(),
        Value::Null,
        "no check-in during intake",
    )?;
    let r = event(
        ctx,
        &user,
        json!({"type": "flow_completed", "flow_id": "getting_started"}),
    );
    check(
        r.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("big picture")),
        "goals question",
    )?;
    let r = event(
        ctx,
        &user,
        json!({"type": "card_tapped", "intervention_key": "stress_checkin", "suggested_action": "rate_stress_1_to_5"}),
    );
    eq(
        r.body["ui_hint"].as_str(),
        Some("rating_scale"),
        "rating scale",
    )?;
    let r = event(ctx, &user, json!({"type": "rating_submitted", "value": 6}));
    expect_err(&r, 400, "VALIDATION_ERROR")?;
    eq(
        r.body["error"]["field"].as_str(),
        Some("value"),
        "outside the scale",
    )?;
    let r = event(ctx, &user, json!({"type": "rating_submitted", "value": 2}));
    check(
        r.body["message"]
            .as_str()
            .is_some_and(|m| m.contains("stress 2/5")),
        format!("acknowledged: {}", r.body),
    )?;
    let r = event(
        ctx,
        &user,
        json!({"type": "flow_completed", "flow_id": "goals_set"}),
    );
    eq(r.status, 200, "goals set")?;
    // Check-ins phase: the last check-in (the rating) is recent, so nothing is due.
    eq(
        event(ctx, &user, json!({"type": "app_opened"})).body["message"].clone(),
        Value::Null,
        "check-in not due yet",
    )?;
    // Every accepted event is in the log (the rejected rating is not).
    eq(count(ctx, &user, "EVENT#"), 7, "seven events logged")?;
    // A due check-in is sent and listed.
    let due_user = unique_user("due");
    store(
        ctx,
        ctx.stack.store.put_coaching(
            &due_user,
            &CoachingContext {
                phase: Phase::Checkins,
                ..CoachingContext::default()
            },
        ),
    );
    let r = event(ctx, &due_user, json!({"type": "app_opened"}));
    check(
        r.body["message"].as_str().is_some(),
        format!("check-in prompt: {}", r.body),
    )?;
    let n = get(ctx, "/v1/notifications", &due_user);
    eq(n.body["items"].as_array().map(Vec::len), Some(1), "listed")?;
    eq(
        n.body["items"][0]["source"].as_str(),
        Some("checkin_prompt"),
        "source",
    )?;
    // The same corr replays the answer and logs nothing more.
    let body = json!({"message": "(context: corr=ev-9) {\"type\":\"app_opened\"}"});
    let first = event(ctx, &due_user, body.clone());
    let second = event(ctx, &due_user, body);
    eq(first.body.clone(), second.body.clone(), "replayed")?;
    eq(count(ctx, &due_user, "EVENT#"), 2, "two events, not three")
}

fn notification_gate_suppresses_with_a_reason(ctx: &Ctx) -> Result<(), Failed> {
    let checkins = CoachingContext {
        phase: Phase::Checkins,
        ..CoachingContext::default()
    };
    let now_utc = Utc::now().time();
    let around_now = QuietHours {
        start: now_utc - Duration::hours(1),
        end: now_utc + Duration::hours(1),
    };
    let cases = [
        (
            "preference_off",
            Profile {
                notification_preference: NotificationPreference::Off,
                ..Profile::default()
            },
        ),
        (
            "quiet_hours",
            Profile {
                quiet_hours: Some(around_now),
                ..Profile::default()
            },
        ),
    ];
    for (reason, profile) in cases {
        let user = unique_user(reason);
        store(ctx, ctx.stack.store.put_profile(&user, &profile));
        store(ctx, ctx.stack.store.put_coaching(&user, &checkins));
        let r = event(ctx, &user, json!({"type": "app_opened"}));
        eq(r.body["suppressed"].as_str(), Some(reason), "reason")?;
        eq(r.body["message"].clone(), Value::Null, "no message")?;
        eq(count(ctx, &user, "NOTIFY"), 0, "nothing sent")?;
    }
    // Rate limit: a prompt two hours ago blocks the next one.
    let user = unique_user("rate");
    store(ctx, ctx.stack.store.put_coaching(&user, &checkins));
    let r = event(ctx, &user, json!({"type": "app_opened"}));
    check(r.body["message"].as_str().is_some(), "first prompt sent")?;
    let mut later = store(
        ctx,
        ctx.stack.store.user_state(
            &user,
            coach::store::Parts {
                coaching: true,
                ..Default::default()
            },
            None,
            Utc::now(),
        ),
    )
    .coaching
    .unwrap_or_default();
    // Make the check-in due again, but keep the notification two minutes old.
    later.checkin.last_prompted_at = Some(Utc::now() - Duration::hours(30));
    later.checkin.last_checkin_at = None;
    store(ctx, ctx.stack.store.put_coaching(&user, &later));
    let r = event(ctx, &user, json!({"type": "app_opened"}));
    eq(
        r.body["suppressed"].as_str(),
        Some("rate_limited"),
        "four-hour limit",
    )?;
    eq(
        get(ctx, "/v1/notifications?limit=5", &user).body["items"]
            .as_array()
            .map(Vec::len),
        Some(1),
        "one sent",
    )
}

// ------------------------------------------------------------------ bad input

fn bad_input_is_a_clear_4xx_and_writes_nothing(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("bad");
    seed_active(ctx, &user, &sample_workout("w-bad", 2));
    let before = active(ctx, &user);
    let items_before = count(ctx, &user, "");
    let b = |payload: Value| json!({ "message": payload.to_string() });
    let cases: Vec<(&str, &str, Value, u16, &str)> = vec![
        (
            "/v1/functional",
            "unknown intent",
            b(json!({"intent": "DANCE"})),
            400,
            "UNKNOWN_INTENT",
        ),
        (
            "/v1/functional",
            "missing target",
            b(json!({"intent": "SWAP_EXERCISE"})),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/functional",
            "unknown field",
            b(json!({"intent": "SWAP_EXERCISE", "target": "bench", "colour": "red"})),
            400,
            "UNKNOWN_FIELD",
        ),
        (
            "/v1/functional",
            "unknown constraint",
            b(json!({"intent": "SWAP_EXERCISE", "target": "bench", "constraint": "trampoline"})),
            400,
            "UNKNOWN_CONSTRAINT",
        ),
        (
            "/v1/functional",
            "bad muscle group",
            b(json!({"intent": "SWAP_EXERCISE", "target": "bench", "muscle_group": "elbows"})),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/functional",
            "exclude not a list",
            b(json!({"intent": "SWAP_EXERCISE", "target": "bench", "exclude": "squat"})),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/functional",
            "instance not in workout",
            b(
                json!({"intent": "SWAP_EXERCISE", "target": "bench", "exercise_instance_id": "ex-nope"}),
            ),
            404,
            "EXERCISE_NOT_IN_WORKOUT",
        ),
        (
            "/v1/functional",
            "target is not that instance",
            b(
                json!({"intent": "SWAP_EXERCISE", "target": "squat", "exercise_instance_id": "ex-bench"}),
            ),
            400,
            "EXERCISE_MISMATCH",
        ),
        (
            "/v1/functional",
            "autofill without exercise",
            b(json!({"intent": "AUTOFILL_SET", "set_index": 0})),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/functional",
            "set_index negative",
            b(
                json!({"intent": "AUTOFILL_SET", "exercise_instance_id": "ex-bench", "set_index": -1}),
            ),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/functional",
            "set_index out of range",
            b(
                json!({"intent": "AUTOFILL_SET", "exercise_instance_id": "ex-bench", "set_index": 7}),
            ),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/functional",
            "suggest unknown exercise",
            b(json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "quantum-curl", "target_reps": 8})),
            400,
            "UNKNOWN_EXERCISE",
        ),
        (
            "/v1/functional",
            "suggest missing reps",
            b(json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "back-squat"})),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/functional",
            "rir above 5",
            b(
                json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "back-squat", "target_reps": 5, "target_rir": 9}),
            ),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/functional",
            "monitor unknown set",
            b(json!({"event_type": "SET_COMPLETED", "state_diff": {"set_id": "nope"}})),
            404,
            "SET_NOT_FOUND",
        ),
        (
            "/v1/functional",
            "not JSON at all",
            json!({"message": "swap bench please"}),
            422,
            "NOT_A_FUNCTIONAL_REQUEST",
        ),
        (
            "/v1/functional",
            "bad prefix",
            json!({"message": "(context: bogus=1) {}"}),
            400,
            "INVALID_CONTEXT",
        ),
        (
            "/v1/events",
            "event without type",
            json!({"intervention_key": "stress_checkin"}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/events",
            "unknown event type",
            json!({"type": "app_closed"}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/events",
            "unknown card",
            json!({"type": "card_tapped", "intervention_key": "horoscope"}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/events",
            "rating without a scale",
            json!({"type": "rating_submitted", "value": 3}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/events",
            "rating outside its scale",
            json!({"type": "rating_submitted", "value": 11, "scale": "0-10"}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/events",
            "unknown flow",
            json!({"type": "flow_completed", "flow_id": "tour"}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/events",
            "unknown event field",
            json!({"type": "app_opened", "mood": "great"}),
            400,
            "UNKNOWN_FIELD",
        ),
        (
            "/v1/workouts",
            "two sources",
            json!({"template_id": "t", "next": true}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/workouts",
            "unknown exercise",
            json!({"exercises": [{"exercise": "quantum curl"}]}),
            400,
            "UNKNOWN_EXERCISE",
        ),
        (
            "/v1/workouts",
            "too many sets",
            json!({"exercises": [{"exercise": "bench", "sets": 101}]}),
            400,
            "VALIDATION_ERROR",
        ),
        (
            "/v1/workouts",
            "active already",
            json!({}),
            409,
            "WORKOUT_ACTIVE",
        ),
        (
            "/v1/workouts/w-bad/complete",
            "unknown field",
            json!({"force": true}),
            400,
            "UNKNOWN_FIELD",
        ),
    ];
    for (path, what, body, status, code) in cases {
        let r = post(ctx, path, &user, body);
        expect_err(&r, status, code)
            .map_err(|e| format!("{what}: {}", e.message().unwrap_or("")))?;
        check(
            r.body["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            format!("{what}: a message"),
        )?;
    }
    for (path, what, status) in [
        ("/v1/notifications?limit=0", "limit 0", 400),
        ("/v1/notifications?cursor=zz", "bad cursor", 400),
    ] {
        eq(get(ctx, path, &user).status, status, what)?;
    }
    eq(active(ctx, &user), before, "workout unchanged")?;
    eq(count(ctx, &user, ""), items_before, "no item written")
}

fn another_users_instance_is_not_found(ctx: &Ctx) -> Result<(), Failed> {
    let owner = unique_user("owner");
    let other = unique_user("other");
    seed_active(ctx, &owner, &sample_workout("w-own", 2));
    seed_active(ctx, &other, &sample_workout("w-oth", 2));
    let mut theirs = sample_workout("w-own", 2);
    theirs.exercises[0].instance_id = "ex-owners-only".into();
    seed_active(ctx, &owner, &theirs);
    let r = button(
        ctx,
        &other,
        "",
        json!({"intent": "AUTOFILL_SET", "exercise_instance_id": "ex-owners-only", "set_index": 0}),
    );
    expect_err(&r, 404, "EXERCISE_NOT_IN_WORKOUT")?;
    let unknown = button(
        ctx,
        &other,
        "",
        json!({"intent": "AUTOFILL_SET", "exercise_instance_id": "ex-never-existed", "set_index": 0}),
    );
    eq(
        r.body["error"]["message"]
            .as_str()
            .map(|m| m.replace("ex-owners-only", "X")),
        unknown.body["error"]["message"]
            .as_str()
            .map(|m| m.replace("ex-never-existed", "X")),
        "the same answer as for an id that never existed",
    )?;
    // And the prefix cannot claim to be the owner.
    let r = post(
        ctx,
        "/v1/functional",
        &other,
        json!({"message": format!("(context: user_id={owner}) {}", json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "back-squat", "target_reps": 5}))}),
    );
    expect_err(&r, 403, "USER_MISMATCH")
}

fn other_lanes_and_later_routes(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("routes");
    let r = post(ctx, "/v1/functional", &user, json!({"message": "done"}));
    expect_err(&r, 422, "NOT_A_FUNCTIONAL_REQUEST")?;
    eq(
        r.body["lane"].as_str(),
        Some("fast"),
        "points at the fast lane",
    )?;
    expect_err(
        &get(ctx, "/v1/import/strong", &user),
        405,
        "METHOD_NOT_ALLOWED",
    )?;
    expect_err(
        &get(ctx, "/v1/functional", &user),
        405,
        "METHOD_NOT_ALLOWED",
    )?;
    expect_err(&get(ctx, "/v1/nowhere", &user), 404, "NOT_FOUND")?;
    // Ids that could not be a store key are a 400 naming the field, before any store call.
    let long = "x".repeat(300);
    let r = post(
        ctx,
        &format!("/v1/artifacts/{long}/confirm"),
        &user,
        json!({"content_hash": "h"}),
    );
    expect_err(&r, 400, "VALIDATION_ERROR")?;
    eq(r.body["error"]["field"].as_str(), Some("id"), "field")?;
    let r = post(ctx, "/v1/workouts/bad%23id/complete", &user, json!({}));
    expect_err(&r, 400, "VALIDATION_ERROR")?;
    let r = post(ctx, "/v1/workouts", &user, json!({"template_id": long}));
    expect_err(&r, 400, "VALIDATION_ERROR")?;
    eq(
        r.body["error"]["field"].as_str(),
        Some("template_id"),
        "field",
    )?;
    // Errors about the body or identity on /v1/functional carry the envelope too.
    let r = post(ctx, "/v1/functional", &user, json!([1, 2]));
    expect_err(&r, 400, "INVALID_BODY")?;
    eq(
        r.body["success"].as_bool(),
        Some(false),
        "envelope on a body error",
    )?;
    eq(r.body["action"].as_str(), Some("ERROR"), "action")?;
    // An empty cursor is the first page.
    let r = get(ctx, "/v1/notifications?cursor=", &user);
    eq(r.status, 200, &format!("empty cursor: {}", r.body))?;
    let r = ctx.rt.block_on(async {
        ctx.http
            .get(format!("{}/v1/workouts/active", ctx.stack.base))
            .send()
            .await
            .map(|r| r.status().as_u16())
    });
    eq(r.map_err(|e| e.to_string())?, 401, "no identity")
}
