//! Black-box tests of logging sets the way lifters train: their notation, any order, extra
//! sets, supersets, and commands sent later from an offline queue (`POST
//! /v1/workouts/{id}/sync`), over HTTP through `cargo lambda watch` against a dynoxide. The
//! main case replays a real session from the Strong export in `tests/data/exports` and checks
//! every stored set.

use blackbox::{
    HttpCtx, JsonReply, check, eq, expect_err, parse_sse, run_cases, sample_workout, test_runtime,
    unique_user, unselected,
};
use chrono::{DateTime, Duration, Utc};
use coach::domain::workout::{SetStatus, SetTarget, Workout};
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

type Ctx = HttpCtx;
type Case = fn(&Ctx) -> Result<(), Failed>;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "set_logging";
    let cases: Vec<(&'static str, Case)> = vec![
        (
            "a_real_session_logged_out_of_order_and_partly_offline",
            a_real_session_logged_out_of_order_and_partly_offline,
        ),
        (
            "bad_sets_are_a_clear_4xx_and_write_nothing",
            bad_sets_are_a_clear_4xx_and_write_nothing,
        ),
        (
            "a_set_the_plan_cannot_settle_is_asked_about",
            a_set_the_plan_cannot_settle_is_asked_about,
        ),
        (
            "bad_sync_batches_are_refused_whole",
            bad_sync_batches_are_refused_whole,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let rt = test_runtime();
    let ctx = HttpCtx::start(&rt);
    let _ = say(&ctx, "warmup", "next");
    let _ = ctx.call("GET", "/v1/workouts/active", "warmup", None);
    run_cases(args, SUITE, rt, ctx, cases)
}

fn say(ctx: &Ctx, user: &str, message: &str) -> JsonReply {
    ctx.call(
        "POST",
        "/v1/copilot",
        user,
        Some(json!({ "message": message })),
    )
}

/// A command sent at `at` (as the app sends every command, so that offline ones keep their time).
fn say_at(ctx: &Ctx, user: &str, at: DateTime<Utc>, message: &str) -> Result<JsonReply, Failed> {
    let r = say(
        ctx,
        user,
        &format!("(context: at={}) {message}", at.to_rfc3339()),
    );
    eq(r.status, 200, &format!("'{message}': {}", r.body))?;
    Ok(r)
}

/// Stores `w` as the lifter's active workout.
fn seed(ctx: &Ctx, user: &str, w: &Workout) -> Result<(), Failed> {
    ctx.rt
        .block_on(ctx.stack.store.replace_active_workout(user, w))
        .map_err(|e| e.to_string().into())
}

fn sync(ctx: &Ctx, user: &str, workout: &str, commands: Value) -> JsonReply {
    let path = format!("/v1/workouts/{workout}/sync");
    ctx.call("POST", &path, user, Some(json!({ "commands": commands })))
}

fn active(ctx: &Ctx, user: &str) -> Option<(Workout, u64)> {
    let v = ctx.rt.block_on(ctx.stack.store.get_active_workout(user));
    v.expect("store read").map(|v| (v.value, v.version))
}

/// The done sets of each exercise in the stored workout, by exercise id: (reps, kg, seconds).
fn done_sets(w: &Workout, exercise_id: &str) -> Vec<(u32, Option<f64>)> {
    w.exercises
        .iter()
        .filter(|e| e.exercise_id == exercise_id)
        .flat_map(|e| &e.sets)
        .filter(|s| s.status == SetStatus::Done)
        .filter_map(|s| s.actual.as_ref().map(|a| (a.reps, a.weight_kg)))
        .collect()
}

/// The session of 26 July 2021 in the Strong export (`tests/data/exports`), its squats, presses,
/// crunches, good mornings and snatches, logged as a lifter in a busy gym would: the rack is taken
/// so good mornings come first, squats get four sets more than planned, snatches are not in the
/// plan, presses and crunches are a superset logged offline and synced later (twice, and then
/// overlapping), in the lifter's own notation throughout.
fn a_real_session_logged_out_of_order_and_partly_offline(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("session");
    let template = json!({"name": "Olympic day", "exercises": [
        {"exercise": "squat", "sets": 3, "reps": 3},
        {"exercise": "overhead press", "sets": 3, "reps": 4, "group": "A", "rest_seconds": 150},
        {"exercise": "crunch", "sets": 3, "reps": 25, "group": "A"},
        {"exercise": "good morning", "sets": 1, "reps": 15}
    ]});
    let r = ctx.call("PUT", "/v1/templates/t-oly", &user, Some(template));
    eq(r.status, 201, &format!("template: {}", r.body))?;
    let r = ctx.call(
        "POST",
        "/v1/workouts",
        &user,
        Some(json!({"template_id": "t-oly"})),
    );
    eq(r.status, 201, &format!("start: {}", r.body))?;
    // The lifter started an hour ago; each command carries the time it was sent.
    let (mut w, _) = active(ctx, &user).ok_or("a started workout")?;
    let t0 = Utc::now() - Duration::minutes(60);
    w.started_at = t0;
    seed(ctx, &user, &w)?;
    let at = |minutes: i64| t0 + Duration::minutes(minutes);
    let id = w.id.clone();

    let r = say_at(ctx, &user, at(4), "good morning 20kg x 15")?;
    eq(
        r.body["intent"].as_str(),
        Some("LOG_SET_SHORTHAND"),
        "intent",
    )?;
    check(
        r.body["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("Logged Good Morning set 1 of 1: 15 × 20 kg.")),
        format!("{}", r.body["text"]),
    )?;
    let r = say_at(ctx, &user, at(6), "now squats")?;
    eq(r.body["intent"].as_str(), Some("SWITCH_EXERCISE"), "switch")?;
    for (m, cmd) in [
        (8, "20kg x 10"),
        (11, "5 @ 50"),
        (14, "seventy kilos x four"),
        (17, "90 x 3"),
        (20, "2 @ 100"),
        (23, "110x2"),
        (26, "2@120"),
    ] {
        let r = say_at(ctx, &user, at(m), cmd)?;
        check(
            r.body["data"]["rest_seconds"].is_u64() || r.body["data"]["next"].is_null(),
            format!("rest given: {}", r.body),
        )?;
    }
    let r = say_at(ctx, &user, at(29), "snatch 40x3")?;
    check(
        r.body["data"]["added_exercise"].is_string(),
        format!("snatch added: {}", r.body),
    )?;
    say_at(ctx, &user, at(31), "2 @ 50")?;

    // Offline: the press and crunch superset, sent later in one batch.
    let batch = json!([
        {"corr": "q1", "at": at(35).to_rfc3339(), "message": "ohp 5kg x 20"},
        {"corr": "q2", "at": at(36).to_rfc3339(), "message": "25"},
        {"corr": "q3", "at": at(39).to_rfc3339(), "message": "4 @ 40"},
        {"corr": "q4", "at": at(40).to_rfc3339(), "message": "done"},
        {"corr": "q5", "at": at(43).to_rfc3339(), "message": "40kg x 4"},
        {"corr": "q6", "at": at(44).to_rfc3339(), "message": "skip"},
        {"corr": "q7", "at": at(47).to_rfc3339(), "message": "ohp 3 @ 50"}
    ]);
    let r = sync(ctx, &user, &id, batch.clone());
    eq(r.status, 200, &format!("sync: {}", r.body))?;
    let statuses: Vec<&str> = r.body["results"]
        .as_array()
        .ok_or("results")?
        .iter()
        .filter_map(|x| x["status"].as_str())
        .collect();
    let texts: Vec<&str> = r.body["results"]
        .as_array()
        .ok_or("results")?
        .iter()
        .filter_map(|x| x["answer"]["text"].as_str())
        .collect();
    eq(
        statuses,
        vec!["applied"; 7],
        &format!("every command applied: {texts:?}"),
    )?;
    let rest_in_round = &r.body["results"][0]["answer"]["data"];
    eq(
        (
            rest_in_round["rest_seconds"].as_u64(),
            rest_in_round["rest_source"].as_str(),
        ),
        (Some(0), Some("superset")),
        "straight on to the crunch",
    )?;
    let end_of_round = &r.body["results"][1]["answer"]["data"];
    eq(
        end_of_round["rest_seconds"].as_u64(),
        Some(150),
        "the template's rest after the round",
    )?;
    let (_, version) = active(ctx, &user).ok_or("active")?;
    // The same batch again (the app did not see the answer): nothing twice.
    let again = sync(ctx, &user, &id, batch.clone());
    eq(again.status, 200, "replay")?;
    eq(
        again.body["results"]
            .as_array()
            .map(|a| a.iter().all(|x| x["status"] == "replayed")),
        Some(true),
        "all replayed",
    )?;
    eq(
        again.body["results"].clone(),
        r.body["results"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(
                        |x| json!({"corr": x["corr"], "status": "replayed", "answer": x["answer"]}),
                    )
                    .collect::<Value>()
            })
            .unwrap_or_default(),
        "the first answers",
    )?;
    eq(active(ctx, &user).map(|a| a.1), Some(version), "no write")?;
    // An overlapping batch: the last two again, and one more snatch.
    let overlap = json!([batch[5], batch[6], {"corr": "q8", "at": at(52).to_rfc3339(), "message": "snatch 2 @ 50"}]);
    let r = sync(ctx, &user, &id, overlap);
    eq(r.status, 200, &format!("overlap: {}", r.body))?;
    let statuses: Vec<&str> = r.body["results"]
        .as_array()
        .ok_or("results")?
        .iter()
        .filter_map(|x| x["status"].as_str())
        .collect();
    eq(
        statuses,
        vec!["replayed", "replayed", "applied"],
        "only the new one applied",
    )?;

    let r = ctx.call("POST", &format!("/v1/workouts/{id}/complete"), &user, None);
    eq(r.status, 200, &format!("complete: {}", r.body))?;
    let r = ctx.call("GET", &format!("/v1/workouts/{id}"), &user, None);
    eq(r.status, 200, "read back")?;
    let w: Workout =
        serde_json::from_value(r.body["workout"].clone()).map_err(|e| e.to_string())?;
    eq(
        done_sets(&w, "good-morning"),
        vec![(15, Some(20.0))],
        "good mornings",
    )?;
    let squats: Vec<(u32, Option<f64>)> = [
        (10, 20.0),
        (5, 50.0),
        (4, 70.0),
        (3, 90.0),
        (2, 100.0),
        (2, 110.0),
        (2, 120.0),
    ]
    .iter()
    .map(|(r, k)| (*r, Some(*k)))
    .collect();
    eq(
        done_sets(&w, "back-squat"),
        squats,
        "squats: 3 planned and 4 extra",
    )?;
    eq(
        done_sets(&w, "snatch"),
        vec![(3, Some(40.0)), (2, Some(50.0)), (2, Some(50.0))],
        "snatches, added by name",
    )?;
    eq(
        done_sets(&w, "overhead-press"),
        vec![
            (20, Some(5.0)),
            (4, Some(40.0)),
            (4, Some(40.0)),
            (3, Some(50.0)),
        ],
        "presses",
    )?;
    let crunches = done_sets(&w, "crunch");
    eq(
        crunches.iter().map(|c| c.0).collect::<Vec<_>>(),
        vec![25, 25],
        "crunches",
    )?;
    let crunch = w
        .exercises
        .iter()
        .find(|e| e.exercise_id == "crunch")
        .ok_or("crunch")?;
    eq(
        crunch
            .sets
            .iter()
            .filter(|s| s.status == SetStatus::Skipped)
            .count(),
        1,
        "one crunch set skipped",
    )?;
    // Offline sets keep the time they were done.
    let press = w
        .exercises
        .iter()
        .find(|e| e.exercise_id == "overhead-press")
        .ok_or("press")?;
    let times: Vec<Option<DateTime<Utc>>> = press
        .sets
        .iter()
        .filter(|s| s.status == SetStatus::Done)
        .map(|s| s.completed_at)
        .collect();
    eq(
        times,
        vec![Some(at(35)), Some(at(39)), Some(at(43)), Some(at(47))],
        "press set times",
    )?;
    eq(
        w.exercises
            .iter()
            .find(|e| e.exercise_id == "back-squat")
            .and_then(|e| e.sets.iter().rev().find_map(|s| s.completed_at)),
        Some(at(26)),
        "the last squat's time",
    )?;
    Ok(())
}

fn bad_sets_are_a_clear_4xx_and_write_nothing(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("badsets");
    seed(ctx, &user, &sample_workout("w-bad", 2))?;
    let before = active(ctx, &user).ok_or("seeded")?;
    let far = (Utc::now() + Duration::days(3)).to_rfc3339();
    let cases: [(&str, u16, &str, Option<&str>); 8] = [
        ("zorbing 8 @ 100", 400, "UNKNOWN_EXERCISE", Some("message")),
        ("0x0", 400, "INVALID_COMMAND", None),
        ("3x", 400, "INVALID_COMMAND", None),
        ("x8", 400, "INVALID_COMMAND", None),
        ("20x8 @ 100", 400, "INVALID_COMMAND", Some("sets")),
        ("5x600 reps", 400, "VALIDATION_ERROR", Some("reps")),
        ("100 kg lb x 8", 400, "INVALID_COMMAND", None),
        ("+20 x 8", 400, "VALIDATION_ERROR", Some("weight")),
    ];
    for (msg, status, code, field) in cases {
        let r = say(ctx, &user, msg);
        expect_err(&r, status, code, field).map_err(|e| format!("{msg}: {e:?}"))?;
    }
    let r = say(ctx, &user, "zorbing 8 @ 100");
    check(
        r.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("did you mean") || m.contains("no exercise")),
        format!("{}", r.body),
    )?;
    let r = say(ctx, &user, &format!("(context: at={far}) done"));
    expect_err(&r, 400, "VALIDATION_ERROR", Some("at"))?;
    let bad_group = json!({"exercises": [{"exercise": "bench press", "group": "A 1"}]});
    let r = ctx.call("POST", "/v1/workouts", &user, Some(bad_group));
    expect_err(&r, 400, "VALIDATION_ERROR", Some("exercises[0].group"))?;
    eq(active(ctx, &user), Some(before), "nothing written")?;
    Ok(())
}

fn a_set_the_plan_cannot_settle_is_asked_about(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("ask");
    let mut w = sample_workout("w-ask", 2);
    w.exercises[0].sets[1].target = SetTarget::default();
    seed(ctx, &user, &w)?;
    let before = active(ctx, &user);
    let r = say(ctx, &user, "20x10");
    eq(r.status, 200, "a question is an answer")?;
    let options = r.body["data"]["clarification"]["options"]
        .as_array()
        .cloned()
        .ok_or("options")?;
    eq(
        options.clone(),
        vec![json!("10 @ 20 kg"), json!("20 @ 10 kg")],
        "options",
    )?;
    eq(active(ctx, &user), before.clone(), "nothing logged")?;
    // On the stream, the same question comes as a clarification event.
    let r = ctx.call(
        "POST",
        "/v1/stream",
        &user,
        Some(json!({"message": "20x10"})),
    );
    let events = parse_sse(r.body.as_str().unwrap_or_default());
    let kinds: Vec<&str> = events.iter().map(|(k, _)| k.as_str()).collect();
    eq(
        kinds,
        vec!["route", "message", "clarification", "done"],
        "stream events",
    )?;
    eq(
        events[2].1["options"].clone(),
        json!(options),
        "the same options",
    )?;
    eq(active(ctx, &user), before, "still nothing logged")?;
    let r = say(ctx, &user, "20 @ 10 kg");
    eq(
        r.body["data"]["logged"]["reps"].as_u64(),
        Some(20),
        "the option logs",
    )?;
    Ok(())
}

fn bad_sync_batches_are_refused_whole(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("badsync");
    seed(ctx, &user, &sample_workout("w-sync", 2))?;
    let before = active(ctx, &user);
    let many: Vec<Value> = (0..51)
        .map(|i| json!({"corr": format!("m{i}"), "message": "done"}))
        .collect();
    expect_err(
        &sync(ctx, &user, "w-sync", json!(many)),
        413,
        "PAYLOAD_TOO_LARGE",
        Some("commands"),
    )?;
    let mixed = json!([{"corr": "a1", "message": "done"}, {"corr": "a2", "message": "done", "workout_id": "w-other"}]);
    expect_err(
        &sync(ctx, &user, "w-sync", mixed),
        400,
        "VALIDATION_ERROR",
        Some("commands[1].workout_id"),
    )?;
    let bad_middle = json!([{"corr": "b1", "message": "done"}, {"corr": "b2", "message": "8@"}, {"corr": "b3", "message": "done"}]);
    expect_err(
        &sync(ctx, &user, "w-sync", bad_middle),
        400,
        "INVALID_COMMAND",
        Some("commands[1].message"),
    )?;
    let chat = json!([{"corr": "c1", "message": "how is my bench going?"}]);
    expect_err(
        &sync(ctx, &user, "w-sync", chat),
        422,
        "NOT_A_COMMAND",
        Some("commands[0].message"),
    )?;
    let unknown =
        json!([{"corr": "d1", "message": "done"}, {"corr": "d2", "message": "zorbing 8 @ 100"}]);
    expect_err(
        &sync(ctx, &user, "w-sync", unknown),
        400,
        "UNKNOWN_EXERCISE",
        Some("commands[1].message"),
    )?;
    let far = json!([{"corr": "e1", "message": "done", "at": (Utc::now() - Duration::days(30)).to_rfc3339()}]);
    expect_err(
        &sync(ctx, &user, "w-sync", far),
        400,
        "VALIDATION_ERROR",
        Some("commands[0].at"),
    )?;
    eq(active(ctx, &user), before, "nothing written")?;
    // Another lifter's workout, and a workout that is not active.
    let other = unique_user("intruder");
    expect_err(
        &sync(
            ctx,
            &other,
            "w-sync",
            json!([{"corr": "f1", "message": "done"}]),
        ),
        404,
        "WORKOUT_NOT_FOUND",
        None,
    )?;
    expect_err(
        &sync(
            ctx,
            &user,
            "w-none",
            json!([{"corr": "f2", "message": "done"}]),
        ),
        404,
        "WORKOUT_NOT_FOUND",
        None,
    )?;
    Ok(())
}
