//! Black-box tests of the lifter's own data on the functional binary (profile, and the routes
//! that follow it), over HTTP through `cargo lambda watch` against a dynoxide: answers checked
//! against what is stored, bad input and other users' ids included.

use blackbox::{
    HttpCtx, JsonReply, bench_session, check, eq, expect_err, run_cases, sample_template,
    sample_workout, test_runtime, unique_user, unselected,
};
use coach::domain::profile::Profile;
use coach::domain::strength::BestE1rm;
use coach::domain::workout::Workout;
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

type Ctx = HttpCtx;
type Case = fn(&Ctx) -> Result<(), Failed>;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "lifter_data";
    let cases: Vec<(&'static str, Case)> = vec![
        (
            "profile_reads_defaults_and_patches_what_it_names",
            profile_reads_defaults_and_patches_what_it_names,
        ),
        (
            "a_bad_profile_patch_names_the_field_and_writes_nothing",
            a_bad_profile_patch_names_the_field_and_writes_nothing,
        ),
        (
            "history_pages_newest_first_and_reads_one_workout",
            history_pages_newest_first_and_reads_one_workout,
        ),
        (
            "history_refuses_bad_pages_and_other_users_ids",
            history_refuses_bad_pages_and_other_users_ids,
        ),
        (
            "reviews_list_newest_first_and_read_by_any_day_of_their_week",
            reviews_list_newest_first_and_read_by_any_day_of_their_week,
        ),
        (
            "plans_show_the_routine_followed_and_the_templates",
            plans_show_the_routine_followed_and_the_templates,
        ),
        (
            "exercise_picker_searches_filters_and_pages",
            exercise_picker_searches_filters_and_pages,
        ),
        (
            "progress_charts_an_exercise_and_the_muscles_by_week",
            progress_charts_an_exercise_and_the_muscles_by_week,
        ),
        (
            "a_logged_workout_is_fixed_after_the_fact",
            a_logged_workout_is_fixed_after_the_fact,
        ),
        (
            "a_deleted_workout_takes_its_records_and_card_along",
            a_deleted_workout_takes_its_records_and_card_along,
        ),
        (
            "the_lifter_edits_a_template_and_the_routine_days",
            the_lifter_edits_a_template_and_the_routine_days,
        ),
        (
            "the_lifter_lists_follows_and_deletes_plans",
            the_lifter_lists_follows_and_deletes_plans,
        ),
        (
            "a_workout_is_saved_as_a_template",
            a_workout_is_saved_as_a_template,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let rt = test_runtime();
    let ctx = HttpCtx::start(&rt);
    let _ = call(&ctx, "GET", "/v1/me", "warmup", None);
    run_cases(args, SUITE, rt, ctx, cases)
}

fn call(ctx: &Ctx, method: &str, path: &str, user: &str, body: Option<Value>) -> JsonReply {
    ctx.call(method, path, user, body)
}

fn stored_profile(ctx: &Ctx, user: &str) -> Option<Profile> {
    let stored = ctx.rt.block_on(ctx.stack.store.stored_profile(user));
    stored.expect("store read").map(|s| s.profile)
}

fn profile_reads_defaults_and_patches_what_it_names(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("me");
    let r = call(ctx, "GET", "/v1/me", &user, None);
    eq(r.status, 200, "status")?;
    eq(r.body["user_id"].as_str(), Some(user.as_str()), "user_id")?;
    eq(r.body["name"].clone(), Value::Null, "no name yet")?;
    eq(r.body["unit"].as_str(), Some("kg"), "unit")?;
    eq(
        r.body["increments"]["barbell_kg"].as_f64(),
        Some(2.5),
        "default step",
    )?;
    eq(
        r.body["increments_set"].as_bool(),
        Some(false),
        "default steps",
    )?;
    eq(r.body["timezone"].as_str(), Some("UTC"), "timezone")?;
    eq(stored_profile(ctx, &user), None, "reading writes nothing")?;

    let patch = json!({
        "name": " Sam ", "unit": "lb", "bodyweight_kg": 82.5, "experience": "advanced",
        "equipment": ["barbell", "dumbbell", "barbell"], "timezone": "Europe/Berlin",
        "notification_preference": "minimal", "quiet_hours": {"start": "22:00", "end": "07:00"},
        "goals": ["bench 100 kg"], "age": 34, "increments": {"barbell_kg": 1.25}
    });
    let r = call(ctx, "PATCH", "/v1/me", &user, Some(patch));
    eq(r.status, 200, &format!("status of {}", r.body))?;
    eq(r.body["name"].as_str(), Some("Sam"), "name trimmed")?;
    eq(r.body["unit"].as_str(), Some("lb"), "unit")?;
    eq(
        r.body["equipment"].clone(),
        json!(["barbell", "dumbbell"]),
        "equipment, once each",
    )?;
    eq(
        r.body["increments"]["barbell_kg"].as_f64(),
        Some(1.25),
        "own step",
    )?;
    eq(r.body["increments_set"].as_bool(), Some(true), "own steps")?;
    eq(
        r.body["quiet_hours"].clone(),
        json!({"start": "22:00", "end": "07:00"}),
        "quiet hours",
    )?;
    let again = call(ctx, "GET", "/v1/me", &user, None);
    eq(
        again.body.clone(),
        r.body.clone(),
        "GET answers what PATCH answered",
    )?;
    let stored = stored_profile(ctx, &user).ok_or("profile stored")?;
    eq(stored.display_name.as_deref(), Some("Sam"), "stored name")?;
    eq(stored.bodyweight_kg, Some(82.5), "stored bodyweight")?;
    eq(stored.timezone.as_str(), "Europe/Berlin", "stored timezone")?;

    // Only what is named changes; null goes back to the default.
    let r = call(
        ctx,
        "PATCH",
        "/v1/me",
        &user,
        Some(json!({"name": null, "quiet_hours": null})),
    );
    eq(r.status, 200, "status")?;
    eq(r.body["name"].clone(), Value::Null, "name cleared")?;
    eq(
        r.body["quiet_hours"].clone(),
        Value::Null,
        "quiet hours off",
    )?;
    eq(
        r.body["bodyweight_kg"].as_f64(),
        Some(82.5),
        "bodyweight kept",
    )?;
    eq(r.body["unit"].as_str(), Some("lb"), "unit kept")?;

    // Another lifter sees only their own.
    let other = unique_user("me-other");
    let r = call(ctx, "GET", "/v1/me", &other, None);
    eq(r.body["bodyweight_kg"].clone(), Value::Null, "no leak")?;
    Ok(())
}

fn a_bad_profile_patch_names_the_field_and_writes_nothing(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("me-bad");
    let r = call(
        ctx,
        "PATCH",
        "/v1/me",
        &user,
        Some(json!({"name": "Alex", "unit": "kg"})),
    );
    eq(r.status, 200, "status")?;
    let before = stored_profile(ctx, &user);
    for (body, code, field) in [
        (json!({"name": ""}), "VALIDATION_ERROR", Some("name")),
        (
            json!({"name": "x".repeat(81)}),
            "VALIDATION_ERROR",
            Some("name"),
        ),
        (
            json!({"unit": "stone", "name": "Bob"}),
            "VALIDATION_ERROR",
            Some("unit"),
        ),
        (
            json!({"bodyweight_kg": 4000}),
            "VALIDATION_ERROR",
            Some("bodyweight_kg"),
        ),
        (
            json!({"timezone": "Mars/Olympus"}),
            "VALIDATION_ERROR",
            Some("timezone"),
        ),
        (
            json!({"equipment": ["jetpack"]}),
            "VALIDATION_ERROR",
            Some("equipment[0]"),
        ),
        (
            json!({"increments": {"barbell_kg": -1}}),
            "VALIDATION_ERROR",
            Some("increments.barbell_kg"),
        ),
        (
            json!({"quiet_hours": {"start": "22:00"}}),
            "VALIDATION_ERROR",
            Some("quiet_hours.end"),
        ),
        (
            json!({"goals": vec!["g"; 11]}),
            "VALIDATION_ERROR",
            Some("goals"),
        ),
        (json!({"nickname": "x"}), "UNKNOWN_FIELD", Some("nickname")),
        (json!(["name"]), "INVALID_BODY", None),
    ] {
        let r = call(ctx, "PATCH", "/v1/me", &user, Some(body.clone()));
        eq(r.status, 400, &format!("status for {body}: {}", r.body))?;
        eq(
            r.body["error"]["code"].as_str(),
            Some(code),
            &format!("code for {body}"),
        )?;
        if field.is_some() {
            eq(
                r.body["error"]["field"].as_str(),
                field,
                &format!("field for {body}"),
            )?;
        }
        eq(
            stored_profile(ctx, &user),
            before.clone(),
            &format!("unchanged after {body}"),
        )?;
    }
    expect_err(
        &call(ctx, "PUT", "/v1/me", &user, Some(json!({}))),
        405,
        "METHOD_NOT_ALLOWED",
        None,
    )?;
    Ok(())
}

/// Completed bench sessions 1, 3, 5, 7 and 9 days ago (ids `hist-<days>`).
fn seed_history(ctx: &Ctx, user: &str) {
    for days in [1, 3, 5, 7, 9] {
        let w = bench_session(days, &[(100.0, 8, 2), (100.0, 8, 1)]);
        let put = ctx.stack.store.put_completed_workout(user, &w);
        ctx.rt.block_on(put).expect("seed");
    }
}

fn history_pages_newest_first_and_reads_one_workout(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("history");
    seed_history(ctx, &user);
    let mut ids = Vec::new();
    let mut path = "/v1/workouts?limit=2".to_string();
    for page in 0.. {
        let r = call(ctx, "GET", &path, &user, None);
        eq(r.status, 200, &format!("status of {}", r.body))?;
        let items = r.body["items"].as_array().ok_or("items")?;
        check(items.len() <= 2, "a page holds at most the limit")?;
        for item in items {
            ids.push(item["id"].as_str().unwrap_or_default().to_string());
        }
        if page == 0 {
            let first = &items[0];
            eq(
                first["summary"]["sets"].as_u64(),
                Some(2),
                "the session's sets",
            )?;
            eq(
                first["summary"]["volume_kg"].as_f64(),
                Some(1600.0),
                "its volume",
            )?;
            eq(r.body["unit"].as_str(), Some("kg"), "unit")?;
        }
        match r.body["next_cursor"].as_str() {
            Some(c) => path = format!("/v1/workouts?limit=2&cursor={c}"),
            None => break,
        }
        check(page < 5, "pages end")?;
    }
    eq(
        ids,
        ["hist-1", "hist-3", "hist-5", "hist-7", "hist-9"]
            .map(String::from)
            .to_vec(),
        "every workout once, newest first",
    )?;

    let r = call(ctx, "GET", "/v1/workouts/hist-5", &user, None);
    eq(r.status, 200, "status")?;
    eq(
        r.body["workout"]["id"].as_str(),
        Some("hist-5"),
        "the workout",
    )?;
    eq(
        r.body["workout"]["status"].as_str(),
        Some("completed"),
        "completed",
    )?;
    let sets = &r.body["workout"]["exercises"][0]["sets"];
    eq(
        sets.as_array().map(Vec::len),
        Some(2),
        "whole, with its sets",
    )?;

    // The active workout is readable by its id too.
    let active = sample_workout("w-active", 2);
    let put = ctx.stack.store.replace_active_workout(&user, &active);
    ctx.rt.block_on(put).expect("seed active");
    let r = call(ctx, "GET", "/v1/workouts/w-active", &user, None);
    eq(
        r.body["workout"]["status"].as_str(),
        Some("active"),
        "the active one",
    )?;
    let r = call(ctx, "GET", "/v1/workouts?limit=10", &user, None);
    eq(
        r.body["items"].as_array().map(Vec::len),
        Some(5),
        "the history lists completed ones only",
    )?;
    Ok(())
}

fn history_refuses_bad_pages_and_other_users_ids(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("history-bad");
    seed_history(ctx, &user);
    let other = unique_user("history-other");
    // Another lifter's workout id is simply not found, and their list is empty.
    let r = call(ctx, "GET", "/v1/workouts/hist-3", &other, None);
    expect_err(&r, 404, "WORKOUT_NOT_FOUND", Some("id"))?;
    let r = call(ctx, "GET", "/v1/workouts", &other, None);
    eq(
        r.body["items"].clone(),
        json!([]),
        "nothing of the other lifter's",
    )?;
    eq(r.body["next_cursor"].clone(), Value::Null, "one page")?;
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=ten", "limit"),
        ("cursor=zz", "cursor"),
        // A cursor of another list (the notifications') is refused.
        ("cursor=4e4f54494659233230", "cursor"),
    ] {
        let r = call(ctx, "GET", &format!("/v1/workouts?{query}"), &user, None);
        expect_err(&r, 400, "VALIDATION_ERROR", Some(field))?;
    }
    let r = call(ctx, "GET", "/v1/workouts/bad%23id", &user, None);
    expect_err(&r, 400, "VALIDATION_ERROR", Some("id"))?;
    let r = call(ctx, "DELETE", "/v1/workouts", &user, None);
    expect_err(&r, 405, "METHOD_NOT_ALLOWED", None)?;
    Ok(())
}

/// The Sunday ending the ISO week that holds `day`.
fn week_ending(day: chrono::NaiveDate) -> chrono::NaiveDate {
    use chrono::Datelike;
    day + chrono::Duration::days(7 - i64::from(day.weekday().number_from_monday()))
}

fn reviews_list_newest_first_and_read_by_any_day_of_their_week(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("reviews");
    seed_history(ctx, &user);
    let today = chrono::Utc::now().date_naive();
    let this_week = week_ending(today - chrono::Duration::days(1));
    let last_week = this_week - chrono::Duration::days(7);
    for sunday in [last_week, this_week] {
        let job =
            json!({"type": "weekly_review", "user_id": user, "week_ending": sunday.to_string()});
        let invoked = ctx.rt.block_on(ctx.stack.run_worker_job(&ctx.http, &job))?;
        eq(invoked, 200, "the worker ran")?;
    }
    let r = call(ctx, "GET", "/v1/reviews", &user, None);
    eq(r.status, 200, &format!("status of {}", r.body))?;
    let weeks: Vec<String> = r.body["items"]
        .as_array()
        .ok_or("items")?
        .iter()
        .filter_map(|i| i["week_ending"].as_str())
        .map(String::from)
        .collect();
    eq(
        weeks,
        vec![this_week.to_string(), last_week.to_string()],
        "newest first",
    )?;
    let r = call(ctx, "GET", "/v1/reviews?limit=1", &user, None);
    let next = r.body["next_cursor"].as_str().ok_or("a second page")?;
    let r = call(
        ctx,
        "GET",
        &format!("/v1/reviews?limit=1&cursor={next}"),
        &user,
        None,
    );
    eq(
        r.body["items"][0]["week_ending"].as_str(),
        Some(last_week.to_string().as_str()),
        "page two",
    )?;

    let r = call(ctx, "GET", &format!("/v1/reviews/{last_week}"), &user, None);
    eq(r.status, 200, "status")?;
    let wednesday = last_week - chrono::Duration::days(4);
    let by_wednesday = call(ctx, "GET", &format!("/v1/reviews/{wednesday}"), &user, None);
    eq(
        by_wednesday.body.clone(),
        r.body.clone(),
        "any day of the week finds it",
    )?;
    check(r.body["training_load"].is_object(), "the whole review")?;

    let long_ago = last_week - chrono::Duration::days(70);
    let r = call(ctx, "GET", &format!("/v1/reviews/{long_ago}"), &user, None);
    expect_err(&r, 404, "REVIEW_NOT_FOUND", Some("week_ending"))?;
    let other = unique_user("reviews-other");
    let r = call(
        ctx,
        "GET",
        &format!("/v1/reviews/{last_week}"),
        &other,
        None,
    );
    expect_err(&r, 404, "REVIEW_NOT_FOUND", Some("week_ending"))?;
    for bad in ["2026-13-01", "yesterday", "2026-1-5"] {
        let r = call(ctx, "GET", &format!("/v1/reviews/{bad}"), &user, None);
        expect_err(&r, 400, "VALIDATION_ERROR", Some("week_ending"))?;
    }
    Ok(())
}

fn plans_show_the_routine_followed_and_the_templates(ctx: &Ctx) -> Result<(), Failed> {
    use coach::domain::plan::{Routine, RoutineDay};
    let user = unique_user("plans");
    // Nothing yet: no routine to follow, no templates.
    let r = call(ctx, "GET", "/v1/routines/active", &user, None);
    eq(r.status, 200, "status")?;
    eq(
        r.body.clone(),
        json!({"routine": null, "next_day": null, "templates": []}),
        "none yet",
    )?;
    let r = call(ctx, "GET", "/v1/templates", &user, None);
    eq(r.body.clone(), json!({"items": []}), "no templates")?;

    let store = &ctx.stack.store;
    let seed = async {
        store
            .put_template(
                &user,
                &sample_template("t-push", "Push", ("barbell-bench-press", "Bench Press")),
            )
            .await?;
        store
            .put_template(
                &user,
                &sample_template("t-legs", "Legs", ("back-squat", "Squat")),
            )
            .await?;
        store
            .put_template(
                &user,
                &sample_template("t-arms", "Arms", ("dumbbell-curl", "Curl")),
            )
            .await?;
        let days = [("Push", "t-push"), ("Legs", "t-legs")].map(|(label, t)| RoutineDay {
            label: label.into(),
            template_id: t.into(),
        });
        let routine = Routine {
            id: "r-ppl".into(),
            name: "Push/Legs".into(),
            days: days.to_vec(),
            next_day: 1,
        };
        store.put_routine(&user, &routine).await
    };
    ctx.rt.block_on(seed).expect("seed plans");

    let r = call(ctx, "GET", "/v1/routines/active", &user, None);
    eq(
        r.body["routine"]["id"].as_str(),
        Some("r-ppl"),
        "the only routine is followed",
    )?;
    eq(
        r.body["next_day"].as_str(),
        Some("Legs"),
        "the day that comes next",
    )?;
    let mut ids: Vec<&str> = r.body["templates"]
        .as_array()
        .ok_or("templates")?
        .iter()
        .filter_map(|t| t["id"].as_str())
        .collect();
    ids.sort();
    eq(
        ids,
        vec!["t-legs", "t-push"],
        "the templates of its days, not the others",
    )?;

    let r = call(ctx, "GET", "/v1/templates", &user, None);
    let names: Vec<&str> = r.body["items"]
        .as_array()
        .ok_or("items")?
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    eq(
        names,
        vec!["Arms", "Legs", "Push"],
        "every template, by name",
    )?;
    let r = call(ctx, "GET", "/v1/templates/t-legs", &user, None);
    eq(r.status, 200, "status")?;
    eq(
        r.body["exercises"][0]["exercise_id"].as_str(),
        Some("back-squat"),
        "whole",
    )?;

    let other = unique_user("plans-other");
    let r = call(ctx, "GET", "/v1/templates/t-legs", &other, None);
    expect_err(&r, 404, "TEMPLATE_NOT_FOUND", Some("id"))?;
    let r = call(ctx, "GET", "/v1/routines/active", &other, None);
    eq(r.body["routine"].clone(), Value::Null, "no leak")?;
    // A profile that names a routine that is gone follows nothing (not an error).
    let gone = unique_user("plans-gone");
    let profile = Profile {
        active_routine_id: Some("r-deleted".into()),
        ..Profile::default()
    };
    let put = ctx.stack.store.put_profile(&gone, &profile);
    ctx.rt.block_on(put).expect("seed profile");
    let r = call(ctx, "GET", "/v1/routines/active", &gone, None);
    eq(r.status, 200, &format!("status of {}", r.body))?;
    eq(r.body["routine"].clone(), Value::Null, "nothing to follow")?;
    let r = call(ctx, "GET", "/v1/templates/bad%23id", &user, None);
    expect_err(&r, 400, "VALIDATION_ERROR", Some("id"))?;
    let r = call(ctx, "POST", "/v1/templates", &user, Some(json!({})));
    expect_err(&r, 405, "METHOD_NOT_ALLOWED", None)?;
    Ok(())
}

fn exercise_picker_searches_filters_and_pages(ctx: &Ctx) -> Result<(), Failed> {
    use coach::domain::catalog::OwnExercise;
    let user = unique_user("picker");
    let own = OwnExercise {
        id: "own-zercher-pause".into(),
        name: "Zercher Squat Pause".into(),
        similar_to: Some("back-squat".into()),
        ..Default::default()
    };
    let own = [own];
    let put = ctx.stack.store.put_history(&user, &[], &own);
    ctx.rt.block_on(put).expect("seed own exercise");

    let first = |q: &str, who: &str| -> Value {
        let r = call(ctx, "GET", &format!("/v1/exercises?q={q}"), who, None);
        r.body["items"][0].clone()
    };
    eq(
        first("bech%20pres", &user)["exercise_id"].as_str(),
        Some("barbell-bench-press"),
        "a typo",
    )?;
    eq(
        first("Bench%20Press%20(Barbell)", &user)["exercise_id"].as_str(),
        Some("barbell-bench-press"),
        "Name (Equipment)",
    )?;
    eq(
        first("benchpress", &user)["exercise_id"].as_str(),
        Some("barbell-bench-press"),
        "words run together",
    )?;
    let zercher = first("zercher%20pause", &user);
    eq(
        zercher["exercise_id"].as_str(),
        Some("own-zercher-pause"),
        "the lifter's own",
    )?;
    eq(zercher["own"].as_bool(), Some(true), "marked own")?;
    eq(
        zercher["similar_to"].as_str(),
        Some("back-squat"),
        "with its likely twin",
    )?;
    check(
        first("zercher%20pause", &unique_user("picker-other"))["exercise_id"]
            != "own-zercher-pause",
        "another lifter does not see it",
    )?;

    let r = call(
        ctx,
        "GET",
        "/v1/exercises?equipment=dumbbell&muscle=chest&limit=100",
        &user,
        None,
    );
    eq(r.status, 200, "status")?;
    let items = r.body["items"].as_array().ok_or("items")?;
    check(!items.is_empty(), "dumbbell chest exercises exist")?;
    check(
        items
            .iter()
            .all(|i| i["equipment"] == "dumbbell" && i["own"] == false),
        "only dumbbell exercises, no own ones (they have no equipment to filter on)",
    )?;

    // The whole list, a page at a time: every exercise once.
    let mut seen = std::collections::BTreeSet::new();
    let mut path = "/v1/exercises?limit=100".to_string();
    let mut total = 0;
    for _ in 0..10 {
        let r = call(ctx, "GET", &path, &user, None);
        total = r.body["total"].as_u64().ok_or("total")?;
        for i in r.body["items"].as_array().ok_or("items")? {
            check(
                seen.insert(i["exercise_id"].to_string()),
                "no exercise twice",
            )?;
        }
        match r.body["next_cursor"].as_str() {
            Some(c) => path = format!("/v1/exercises?limit=100&cursor={c}"),
            None => break,
        }
    }
    eq(seen.len() as u64, total, "every exercise once")?;
    check(
        seen.contains("\"own-zercher-pause\""),
        "own exercises are listed too",
    )?;

    for (query, field) in [
        ("equipment=jetpack", "equipment"),
        ("muscle=wings", "muscle"),
        ("pattern=dance", "pattern"),
        ("cursor=zz", "cursor"),
        ("limit=0", "limit"),
    ] {
        let r = call(ctx, "GET", &format!("/v1/exercises?{query}"), &user, None);
        expect_err(&r, 400, "VALIDATION_ERROR", Some(field))?;
    }
    Ok(())
}

fn progress_charts_an_exercise_and_the_muscles_by_week(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("progress");
    // Three weeks of bench, eight days apart (so in three ISO weeks), each heavier.
    for (days, kg) in [(22, 90.0), (14, 95.0), (6, 100.0)] {
        let w = bench_session(days, &[(kg, 5, 2), (kg, 5, 2)]);
        let put = ctx.stack.store.put_completed_workout(&user, &w);
        ctx.rt.block_on(put).expect("seed");
    }
    let r = call(
        ctx,
        "GET",
        "/v1/progress/exercises/barbell-bench-press?weeks=8",
        &user,
        None,
    );
    eq(r.status, 200, &format!("status of {}", r.body))?;
    eq(r.body["name"].as_str(), Some("Bench Press"), "name")?;
    let points = r.body["points"].as_array().ok_or("points")?;
    eq(points.len(), 3, "one point per week with training")?;
    let loads: Vec<Option<f64>> = points.iter().map(|p| p["load_max_kg"].as_f64()).collect();
    eq(
        loads,
        vec![Some(90.0), Some(95.0), Some(100.0)],
        "oldest first",
    )?;
    let prs: Vec<Option<bool>> = points.iter().map(|p| p["pr"].as_bool()).collect();
    eq(prs, vec![Some(false), Some(true), Some(true)], "PR weeks")?;
    eq(points[0]["sets"].as_u64(), Some(2), "sets")?;
    eq(points[0]["volume_kg"].as_f64(), Some(900.0), "volume")?;
    check(r.body["trend"]["trend"].is_string(), "a trend")?;

    let r = call(
        ctx,
        "GET",
        "/v1/progress/exercises/barbell-bench-press?weeks=1",
        &user,
        None,
    );
    eq(
        r.body["points"].as_array().map(Vec::len),
        Some(1),
        "the window",
    )?;

    let r = call(ctx, "GET", "/v1/progress/muscles?weeks=8", &user, None);
    eq(r.status, 200, "status")?;
    let weeks = r.body["points"].as_array().ok_or("points")?;
    eq(weeks.len(), 3, "weeks with training")?;
    let chest = weeks[0]["groups"]
        .as_array()
        .ok_or("groups")?
        .iter()
        .find(|g| g["muscle_group"] == "chest")
        .cloned()
        .ok_or("chest listed")?;
    eq(
        chest["hard_sets"].as_f64(),
        Some(2.0),
        "two hard sets of chest",
    )?;
    eq(
        chest["status"].as_str(),
        Some("below_mev"),
        "against its landmarks",
    )?;

    let other = unique_user("progress-other");
    let r = call(
        ctx,
        "GET",
        "/v1/progress/exercises/barbell-bench-press",
        &other,
        None,
    );
    eq(r.body["points"].clone(), json!([]), "no leak")?;
    for path in [
        "/v1/progress/exercises/barbell-bench-press?weeks=0",
        "/v1/progress/exercises/barbell-bench-press?weeks=105",
        "/v1/progress/muscles?weeks=many",
    ] {
        expect_err(
            &call(ctx, "GET", path, &user, None),
            400,
            "VALIDATION_ERROR",
            Some("weeks"),
        )?;
    }
    let r = call(ctx, "GET", "/v1/progress/exercises/bad%23id", &user, None);
    expect_err(&r, 400, "VALIDATION_ERROR", Some("id"))?;
    Ok(())
}

fn bench_best(ctx: &Ctx, user: &str) -> Result<BestE1rm, Failed> {
    Ok(ctx
        .rt
        .block_on(ctx.stack.store.bests(user, "barbell-bench-press"))?)
}

fn best_of(workouts: &[&Workout]) -> BestE1rm {
    BestE1rm::of_exercise(workouts.iter().copied(), "barbell-bench-press")
}

/// Two weeks of bench history, the newer reviewed: a set mis-logged at 150 kg is fixed to 100,
/// a forgotten set added, the start moved; each edit is version-checked, the best e1RM follows
/// it down as well as up, the card and the review are written again, and a retried request
/// (same corr) changes nothing more.
fn a_logged_workout_is_fixed_after_the_fact(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("edit");
    let older = bench_session(21, &[(100.0, 5, 2), (100.0, 5, 2)]);
    let mut newer = bench_session(14, &[(150.0, 5, 2), (100.0, 5, 2)]);
    newer.id = "w-edit".into();
    ctx.rt.block_on(
        ctx.stack
            .store
            .put_history(&user, &[older.clone(), newer.clone()], &[]),
    )?;
    let utc = coach::skills::notify::timezone(&Profile::default());
    let week = coach::analysis::facts::week_ending(newer.started_at, utc);
    let review = json!({"type": "weekly_review", "user_id": user, "week_ending": week});
    eq(
        ctx.rt
            .block_on(ctx.stack.run_worker_job(&ctx.http, &review))?,
        200,
        "the week is reviewed",
    )?;
    let reviewed = call(ctx, "GET", &format!("/v1/reviews/{week}"), &user, None);
    let volume_before = reviewed.body["training_load"]["volume_kg"].as_f64();
    eq(
        bench_best(ctx, &user)?,
        best_of(&[&older, &newer]),
        "the typo's best",
    )?;

    let read = call(ctx, "GET", "/v1/workouts/w-edit", &user, None);
    eq(read.body["version"].as_u64(), Some(0), "never edited")?;
    let fix = json!({
        "version": 0,
        "sets": [{"id": "h0", "weight_kg": 100}],
        "add_sets": [{"exercise_instance_id": "e1", "reps": 5, "weight_kg": 100, "rir": 1}],
        "notes": "first set was 100, typo"
    });
    let fixed = call(
        ctx,
        "PATCH",
        "/v1/workouts/w-edit",
        &user,
        Some(fix.clone()),
    );
    eq(fixed.status, 200, &format!("edit: {}", fixed.body))?;
    eq(fixed.body["version"].as_u64(), Some(1), "version")?;
    let sets = &fixed.body["workout"]["exercises"][0]["sets"];
    eq(
        sets[0]["actual"]["weight_kg"].as_f64(),
        Some(100.0),
        "fixed set",
    )?;
    eq(sets[2]["actual"]["reps"].as_u64(), Some(5), "added set")?;
    eq(
        fixed.body["reruns"].clone(),
        json!({"insight_card": true, "review_weeks": [week]}),
        "what runs again",
    )?;
    // The best came down with the typo (150 × 5 was the only set that high).
    let edited: Workout = serde_json::from_value(fixed.body["workout"].clone())?;
    eq(
        bench_best(ctx, &user)?,
        best_of(&[&older, &edited]),
        "the best, lowered",
    )?;
    check(
        best_of(&[&older, &edited]) != best_of(&[&older, &newer]),
        "the edit changes the best",
    )?;
    let card = ctx.rt.block_on(ctx.stack.store.feed(
        &user,
        coach::store::activity::Feed::Insights,
        10,
        None,
        chrono::Utc::now(),
    ))?;
    eq(card.items.len(), 1, "one card")?;
    eq(
        card.items[0]["workout_id"].as_str(),
        Some("w-edit"),
        "its card",
    )?;
    let rereviewed = call(ctx, "GET", &format!("/v1/reviews/{week}"), &user, None);
    let volume_after = rereviewed.body["training_load"]["volume_kg"].as_f64();
    eq(
        volume_after,
        volume_before.map(|v| v - 150.0 * 5.0 + 100.0 * 5.0 + 100.0 * 5.0),
        "the review counts the fixed sets",
    )?;

    // The same edit on the version read before: someone changed it since.
    let stale = call(ctx, "PATCH", "/v1/workouts/w-edit", &user, Some(fix));
    eq(stale.status, 409, "stale version")?;
    eq(
        stale.body["error"]["field"].as_str(),
        Some("version"),
        "field",
    )?;

    // A retried request (same corr) gets the first answer and writes nothing more.
    let moved_start = (newer.started_at - chrono::Duration::hours(2))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let message = format!(
        "(context: corr=c-edit-move) {}",
        json!({"started_at": moved_start})
    );
    let first = call(
        ctx,
        "PATCH",
        "/v1/workouts/w-edit",
        &user,
        Some(json!({ "message": message })),
    );
    eq(first.status, 200, &format!("move: {}", first.body))?;
    let again = call(
        ctx,
        "PATCH",
        "/v1/workouts/w-edit",
        &user,
        Some(json!({ "message": message })),
    );
    eq(again.body.clone(), first.body.clone(), "replayed")?;
    let now = call(ctx, "GET", "/v1/workouts/w-edit", &user, None);
    eq(
        now.body["version"].as_u64(),
        Some(2),
        "one more version, not two",
    )?;
    eq(
        now.body["workout"]["started_at"].as_str(),
        Some(moved_start.as_str()),
        "moved",
    )?;
    let keys = ctx
        .rt
        .block_on(ctx.stack.store.count_items(&user, "WORKOUT#2"))?;
    eq(keys, 2, "moved, not copied")?;

    // Bad input changes nothing; another lifter's id is not found.
    let version_before = now.body["version"].as_u64();
    for (body, status, field) in [
        (json!({"sets": [{"id": "nope", "reps": 5}]}), 404, "sets.id"),
        (json!({"sets": [{"id": "h1", "reps": 5000}]}), 400, "sets"),
        (
            json!({"remove_sets": ["h0", "h1", "added-1"]}),
            400,
            "remove_sets",
        ),
        (json!({"name": ""}), 400, "name"),
        (json!({"colour": "red"}), 400, "colour"),
    ] {
        let r = call(
            ctx,
            "PATCH",
            "/v1/workouts/w-edit",
            &user,
            Some(body.clone()),
        );
        eq(r.status, status, &format!("{body}: {}", r.body))?;
        eq(
            r.body["error"]["field"].as_str(),
            Some(field),
            &format!("{body}"),
        )?;
    }
    let after = call(ctx, "GET", "/v1/workouts/w-edit", &user, None);
    eq(
        after.body["version"].as_u64(),
        version_before,
        "nothing written",
    )?;
    let theirs = call(
        ctx,
        "PATCH",
        "/v1/workouts/w-edit",
        &unique_user("edit-other"),
        Some(json!({"name": "Mine now"})),
    );
    eq(theirs.status, 404, "another lifter's workout")?;
    eq(
        theirs.body["error"]["code"].as_str(),
        Some("WORKOUT_NOT_FOUND"),
        "code",
    )
}

/// Deleting the session that holds the best and is the exercise's last: the best and the
/// last-session pointer fall back to the session before, the card goes, and a second deletion
/// finds nothing.
fn a_deleted_workout_takes_its_records_and_card_along(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("delete-w");
    let older = bench_session(10, &[(100.0, 5, 2)]);
    let mut newer = bench_session(3, &[(120.0, 5, 2)]);
    newer.id = "w-gone".into();
    ctx.rt.block_on(
        ctx.stack
            .store
            .put_history(&user, &[older.clone(), newer.clone()], &[]),
    )?;
    let job = json!({"type": "workout_completed", "user_id": user, "workout_id": "w-gone"});
    ctx.rt.block_on(ctx.stack.run_worker_job(&ctx.http, &job))?;
    let cards = |ctx: &Ctx| {
        ctx.rt
            .block_on(ctx.stack.store.count_items(&user, "INSIGHT#"))
    };
    eq(cards(ctx)?, 1, "the card")?;
    eq(
        bench_best(ctx, &user)?,
        best_of(&[&older, &newer]),
        "the newer's best",
    )?;

    let gone = call(ctx, "DELETE", "/v1/workouts/w-gone", &user, None);
    eq(gone.status, 200, &format!("delete: {}", gone.body))?;
    eq(gone.body["deleted"].as_str(), Some("w-gone"), "answer")?;
    eq(cards(ctx)?, 0, "the card is gone")?;
    eq(
        bench_best(ctx, &user)?,
        best_of(&[&older]),
        "the best falls back",
    )?;
    let last = ctx.rt.block_on(
        ctx.stack
            .store
            .last_sessions(&user, &["barbell-bench-press"]),
    )?;
    eq(
        last.iter().map(|w| w.id.clone()).collect::<Vec<_>>(),
        vec![older.id.clone()],
        "the last session is the one before",
    )?;
    let again = call(ctx, "DELETE", "/v1/workouts/w-gone", &user, None);
    eq(again.status, 404, "already deleted")?;
    let listed = call(ctx, "GET", "/v1/workouts", &user, None);
    eq(
        listed.body["items"].as_array().map(Vec::len),
        Some(1),
        "one workout left",
    )
}

/// A template created and rewritten in the app, a routine whose days name it or list their own
/// exercises, then started with "next": checked as the coach's proposals are, bad bodies naming
/// their field and writing nothing, another lifter's template not usable.
fn a_workout_is_saved_as_a_template(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("plan-save");
    // A completed session of 3 × 8 at RIR 2, the last done short (6 reps).
    let mut done = blackbox::bench_session(3, &[(100.0, 8, 2), (100.0, 8, 2), (100.0, 6, 1)]);
    // The last set was planned for 8 at RIR 2 and fell short.
    done.exercises[0].sets[2].target.reps = Some(8);
    done.exercises[0].sets[2].target.rir = Some(2);
    ctx.rt
        .block_on(ctx.stack.store.put_completed_workout(&user, &done))?;
    let path = format!("/v1/workouts/{}/template", done.id);
    let saved = call(
        ctx,
        "POST",
        &path,
        &user,
        Some(json!({"name": "Bench again"})),
    );
    eq(saved.status, 201, &format!("saved: {}", saved.body))?;
    let t = &saved.body["template"];
    eq(t["name"].as_str(), Some("Bench again"), "named")?;
    let sets = t["exercises"][0]["sets"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let reps: Vec<u64> = sets.iter().filter_map(|s| s["reps"].as_u64()).collect();
    // As prescribed: the short last set keeps its plan.
    eq(reps, vec![8, 8, 8], "the sets as planned")?;
    check(
        sets.iter().all(|s| s.get("weight_kg").is_none()),
        "no loads: the progression plans them when it starts",
    )?;
    // Saved again (a retry, or later): the same template, rewritten.
    let again = call(ctx, "POST", &path, &user, None);
    eq(again.status, 200, &format!("{}", again.body))?;
    eq(
        again.body["template"]["name"].as_str(),
        Some("Push"),
        "the workout's name by default",
    )?;
    let id = again.body["template"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    eq(
        call(ctx, "GET", &format!("/v1/templates/{id}"), &user, None).status,
        200,
        "listed",
    )?;
    // The active workout too: its warm-up left out, its planned sets as planned.
    let active = blackbox::sample_workout("w-save-active", 2);
    ctx.rt
        .block_on(ctx.stack.store.replace_active_workout(&user, &active))?;
    let from_active = call(
        ctx,
        "POST",
        "/v1/workouts/w-save-active/template",
        &user,
        None,
    );
    eq(from_active.status, 201, &format!("{}", from_active.body))?;
    let bench = &from_active.body["template"]["exercises"][0];
    eq(
        bench["sets"].as_array().map(Vec::len),
        Some(2),
        "working sets only",
    )?;
    // Unknown or another lifter's: 404, nothing written.
    let other = unique_user("plan-save-other");
    eq(
        call(ctx, "POST", &path, &other, None).status,
        404,
        "not theirs",
    )?;
    eq(
        call(ctx, "GET", "/v1/templates", &other, None).body["items"].clone(),
        json!([]),
        "nothing written",
    )
}

fn the_lifter_lists_follows_and_deletes_plans(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("plan-manage");
    let bench = json!({"name": "Bench day", "exercises": [{"exercise": "bench press", "sets": 3, "reps": 5}]});
    eq(
        call(ctx, "PUT", "/v1/templates/t-bench", &user, Some(bench)).status,
        201,
        "template",
    )?;
    for (id, name) in [("r-a", "Strength"), ("r-b", "Volume")] {
        let days = json!({"name": name, "days": [{"label": "Bench", "template_id": "t-bench"}]});
        let r = call(ctx, "PUT", &format!("/v1/routines/{id}"), &user, Some(days));
        eq(r.status, 201, &format!("routine {id}: {}", r.body))?;
    }
    // Two routines, none made active: listed by name, none followed.
    let list = call(ctx, "GET", "/v1/routines", &user, None);
    let names: Vec<&str> = list.body["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["name"].as_str())
        .collect();
    eq(names, vec!["Strength", "Volume"], "by name")?;
    eq(
        list.body["active_routine_id"].clone(),
        Value::Null,
        "none followed yet",
    )?;
    // Made active: "start my next workout" follows it.
    let on = call(ctx, "POST", "/v1/routines/r-b/activate", &user, None);
    eq(
        on.body["routine"]["id"].as_str(),
        Some("r-b"),
        &format!("{}", on.body),
    )?;
    eq(
        call(ctx, "GET", "/v1/routines", &user, None).body["active_routine_id"].as_str(),
        Some("r-b"),
        "followed",
    )?;
    eq(
        call(ctx, "POST", "/v1/routines/r-none/activate", &user, None).status,
        404,
        "an unknown routine",
    )?;
    // A template two routines use: refused, naming them; nothing deleted.
    let used = call(ctx, "DELETE", "/v1/templates/t-bench", &user, None);
    eq(used.status, 409, &format!("{}", used.body))?;
    eq(
        used.body["error"]["code"].as_str(),
        Some("TEMPLATE_IN_USE"),
        "code",
    )?;
    let msg = used.body["error"]["message"].as_str().unwrap_or_default();
    check(
        msg.contains("'Strength' (Bench)") && msg.contains("'Volume' (Bench)"),
        format!("names the routines and days: {msg}"),
    )?;
    eq(
        call(ctx, "GET", "/v1/templates/t-bench", &user, None).status,
        200,
        "still there",
    )?;
    // The followed routine deleted: no longer followed; the only one left is.
    let gone = call(ctx, "DELETE", "/v1/routines/r-b", &user, None);
    eq(
        gone.body["was_active"].as_bool(),
        Some(true),
        &format!("{}", gone.body),
    )?;
    eq(
        call(ctx, "GET", "/v1/routines/active", &user, None).body["routine"]["id"].as_str(),
        Some("r-a"),
        "the other, now the only one",
    )?;
    eq(
        call(ctx, "DELETE", "/v1/routines/r-b", &user, None).status,
        404,
        "gone",
    )?;
    eq(
        call(ctx, "DELETE", "/v1/routines/r-a", &user, None).status,
        200,
        "the last",
    )?;
    // No routine uses it now.
    eq(
        call(ctx, "DELETE", "/v1/templates/t-bench", &user, None).status,
        200,
        "deleted",
    )?;
    eq(
        call(ctx, "GET", "/v1/templates/t-bench", &user, None).status,
        404,
        "gone",
    )?;
    // Another lifter's ids are unknown.
    eq(
        call(
            ctx,
            "DELETE",
            "/v1/templates/t-bench",
            &unique_user("plan-other"),
            None,
        )
        .status,
        404,
        "not theirs",
    )
}

fn the_lifter_edits_a_template_and_the_routine_days(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("plan-edit");
    let push = json!({"name": "Push A", "exercises": [
        {"exercise": "bench press", "sets": 4, "reps": 6, "rir": 2, "rep_range": [5, 8]},
        {"exercise_id": "overhead-press", "sets": 3, "reps": 10}
    ]});
    let created = call(ctx, "PUT", "/v1/templates/t-push-a", &user, Some(push));
    eq(created.status, 201, &format!("created: {}", created.body))?;
    let t = &created.body["template"];
    eq(
        t["exercises"][0]["exercise_id"].as_str(),
        Some("barbell-bench-press"),
        "resolved",
    )?;
    eq(
        t["exercises"][0]["sets"].as_array().map(Vec::len),
        Some(4),
        "sets",
    )?;
    let renamed = call(
        ctx,
        "PUT",
        "/v1/templates/t-push-a",
        &user,
        Some(json!({"exercises": [{"exercise": "incline bench", "sets": 3, "reps": 8}]})),
    );
    eq(renamed.status, 200, &format!("replaced: {}", renamed.body))?;
    eq(
        renamed.body["template"]["name"].as_str(),
        Some("Push A"),
        "name kept",
    )?;
    let read = call(ctx, "GET", "/v1/templates/t-push-a", &user, None);
    eq(
        read.body["exercises"].as_array().map(Vec::len),
        Some(1),
        "stored",
    )?;

    let routine = json!({"name": "Two days", "days": [
        {"label": "Push", "template_id": "t-push-a"},
        {"label": "Legs", "exercises": [{"exercise": "squat", "sets": 5, "reps": 5}]}
    ]});
    let r = call(ctx, "PUT", "/v1/routines/r-two", &user, Some(routine));
    eq(r.status, 201, &format!("routine: {}", r.body))?;
    eq(
        r.body["routine"]["days"][0]["template_id"].as_str(),
        Some("t-push-a"),
        "kept",
    )?;
    eq(
        r.body["templates"].as_array().map(Vec::len),
        Some(1),
        "one new template",
    )?;
    let active = call(ctx, "GET", "/v1/routines/active", &user, None);
    eq(
        active.body["routine"]["id"].as_str(),
        Some("r-two"),
        "the only routine is followed",
    )?;
    let started = call(
        ctx,
        "POST",
        "/v1/workouts",
        &user,
        Some(json!({"next": true})),
    );
    eq(started.status, 201, &format!("next day: {}", started.body))?;
    eq(
        started.body["workout"]["template_id"].as_str(),
        Some("t-push-a"),
        "the edited template",
    )?;

    for (path, body, field) in [
        (
            "/v1/templates/t-push-a",
            json!({"exercises": [{"exercise": "flying carpet", "sets": 3}]}),
            "exercises[0]",
        ),
        (
            "/v1/templates/t-push-a",
            json!({"exercises": [{"exercise": "squat", "sets": 99}]}),
            "exercises[0].sets",
        ),
        (
            "/v1/templates/t-push-a",
            json!({"exercises": []}),
            "exercises",
        ),
        (
            "/v1/templates/t-push-a",
            json!({"exercises": [{"exercise": "squat", "weight": 5}]}),
            "exercises[0].weight",
        ),
        (
            "/v1/templates/t-new",
            json!({"exercises": [{"exercise": "squat"}]}),
            "name",
        ),
        (
            "/v1/routines/r-two",
            json!({"days": [{"label": "X", "template_id": "t-nope"}]}),
            "days[0].template_id",
        ),
        ("/v1/routines/r-two", json!({"days": []}), "days"),
        ("/v1/routines/r-two", json!({"dayz": []}), "dayz"),
    ] {
        let r = call(ctx, "PUT", path, &user, Some(body.clone()));
        eq(r.status, 400, &format!("{body}: {}", r.body))?;
        eq(
            r.body["error"]["field"].as_str(),
            Some(field),
            &format!("{body}"),
        )?;
    }
    let after = call(ctx, "GET", "/v1/templates/t-push-a", &user, None);
    eq(
        after.body.clone(),
        read.body.clone(),
        "nothing written by bad bodies",
    )?;
    // Another lifter cannot build a routine on this lifter's template.
    let theirs = call(
        ctx,
        "PUT",
        "/v1/routines/r-mine",
        &unique_user("plan-other"),
        Some(json!({"name": "Mine", "days": [{"label": "P", "template_id": "t-push-a"}]})),
    );
    eq(theirs.status, 400, "another lifter's template")?;
    eq(
        theirs.body["error"]["field"].as_str(),
        Some("days[0].template_id"),
        "field",
    )
}
