//! Black-box tests of `POST /v1/import/strong` on the functional binary (through `cargo lambda
//! watch`, reviews handed to the worker binary as SQS batches): an export with every quirk of
//! the format imported and re-imported, the older layout in pounds, malformed files that write
//! nothing, and a two-year export of 5,000 rows.

use blackbox::{
    HttpCtx, check, eq, run_cases, sample_workout, test_runtime, unique_user, unselected,
    workspace_root,
};
use coach::domain::workout::{SetType, Workout};
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::Value;

type Ctx = HttpCtx;

type Case = fn(&Ctx) -> Result<(), Failed>;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "import";
    let cases: Vec<(&'static str, Case)> = vec![
        ("every_quirk_round_trip", every_quirk_round_trip),
        (
            "a_large_account_exports_in_pages",
            a_large_account_exports_in_pages,
        ),
        ("older_layout_in_pounds", older_layout_in_pounds),
        (
            "malformed_files_write_nothing",
            malformed_files_write_nothing,
        ),
        ("one_import_at_a_time", one_import_at_a_time),
        ("two_years_of_history", two_years_of_history),
        (
            "history_ended_months_ago_still_counts",
            history_ended_months_ago_still_counts,
        ),
        (
            "a_pound_file_without_a_unit_column",
            a_pound_file_without_a_unit_column,
        ),
        (
            "the_account_exports_whole_and_its_csv_reads_back",
            the_account_exports_whole_and_its_csv_reads_back,
        ),
        (
            "a_deleted_account_leaves_nothing_behind",
            a_deleted_account_leaves_nothing_behind,
        ),
        (
            "an_unresolved_exercise_merges_into_the_catalog",
            an_unresolved_exercise_merges_into_the_catalog,
        ),
        (
            "an_own_exercise_defined_counts_for_its_muscles",
            an_own_exercise_defined_counts_for_its_muscles,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let rt = test_runtime();
    let ctx = HttpCtx::start(&rt);
    run_cases(args, SUITE, rt, ctx, cases)
}

struct Reply {
    status: u16,
    body: Value,
}

fn import(ctx: &Ctx, user: &str, query: &str, content_type: &str, csv: &str) -> Reply {
    let url = format!("{}/v1/import/strong{query}", ctx.stack.base);
    let req = ctx
        .http
        .post(url)
        .header("content-type", content_type)
        .body(csv.to_string());
    send(ctx, req, user)
}

/// Sends a request as `user` and reads the answer as JSON (or the raw text).
fn send(ctx: &Ctx, req: reqwest::RequestBuilder, user: &str) -> Reply {
    ctx.rt.block_on(async {
        let resp = req
            .header("x-user-id", user)
            .send()
            .await
            .expect("request reaches cargo lambda watch");
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        Reply {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
        }
    })
}

fn functional(ctx: &Ctx, path: &str, user: &str, body: Value) -> Reply {
    let url = format!("{}{path}", ctx.stack.base);
    send(ctx, ctx.http.post(url).json(&body), user)
}

fn history(ctx: &Ctx, user: &str) -> Result<Vec<Workout>, Failed> {
    Ok(ctx.rt.block_on(ctx.stack.store.completed_workouts(user))?)
}

fn count(ctx: &Ctx, user: &str, prefix: &str) -> Result<usize, Failed> {
    Ok(ctx.rt.block_on(ctx.stack.store.count_items(user, prefix))?)
}

fn ok(r: &Reply) -> Result<&Value, Failed> {
    check(
        r.status == 200,
        format!("expected 200, got {}: {}", r.status, r.body),
    )?;
    Ok(&r.body)
}

/// The current layout with every quirk: warm-ups, drop and failure sets, a timed plank and a
/// carry, a rest-timer row, empty and filled RPE, notes with commas, quotes and a newline, an
/// exercise the catalog does not know, and two rows that cannot be imported.
const QUIRKS: &str = "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",W,40,10,0,0,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",1,80,8,0,0,\"felt heavy, \"\"grindy\"\"
belt on\",\"Good day, tired\",8.5
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",2,80,8,0,0,\"\",\"\",9
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",F,80,6,0,0,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",D,60,10,0,0,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Rest Timer\",Rest Timer,0,0,0,90,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Plank\",1,0,0,0,60,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Zercher Hack Thing (Machine)\",1,50,12,0,0,\"\",\"\",
2026-03-02 18:05:00,\"Push Day\",1h 9m,\"Bench Press (Barbell)\",X,80,6,0,0,\"\",\"\",
2026-03-11 07:00:00,\"Legs\",45m,\"Squat (Barbell)\",1,100,5,0,0,\"\",\"\",
2026-03-11 07:00:00,\"Legs\",45m,\"Squat (Barbell)\",2,102.5,5,0,0,\"\",\"\",
2026-03-11 07:00:00,\"Legs\",45m,\"Farmer's Walk\",1,32,0,0.04,0,\"\",\"\",
2026-03-11 07:00:00,\"Legs\",45m,\"Squat (Barbell)\",3,100,0,0,0,\"\",\"\",
2026-03-11 07:00:00,\"Legs\",45m,\"Rest Timer\",1,0,0,0,120,\"\",\"\",
";

fn every_quirk_round_trip(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("import");
    let r = import(ctx, &user, "?tz=Europe/Berlin&unit=kg", "text/csv", QUIRKS);
    let b = ok(&r)?.clone();
    eq(b["workouts"].as_u64(), Some(2), "workouts")?;
    eq(b["sets"].as_u64(), Some(10), "sets")?;
    eq(b["warmup_sets"].as_u64(), Some(1), "warm-ups")?;
    eq(b["drop_sets"].as_u64(), Some(1), "drop sets")?;
    eq(b["failure_sets"].as_u64(), Some(1), "failure sets")?;
    eq(b["timed_sets"].as_u64(), Some(2), "plank and carry")?;
    // Both rest timers, by Set Order and by name with a set number: no sets, no own exercise.
    eq(b["rest_timer_rows"].as_u64(), Some(2), "rest timers")?;
    eq(b["new_workouts"].as_u64(), Some(2), "new")?;
    let rejected: Vec<(u64, String)> = b["rejected"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| {
            (
                r["line"].as_u64().unwrap_or(0),
                r["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    eq(
        rejected.iter().map(|r| r.0).collect::<Vec<_>>(),
        vec![11, 15],
        "rejected lines",
    )?;
    check(
        rejected[0].1.contains("Set Order 'X'") && rejected[1].1.contains("0 reps"),
        format!("reasons: {rejected:?}"),
    )?;
    eq(
        b["exercises_created"][0]["id"].as_str(),
        Some("own-zercher-hack-thing-machine"),
        "own exercise",
    )?;
    // Bench, plank, squat and farmer's walk resolve.
    eq(b["exercises_resolved"].as_u64(), Some(4), "resolved")?;
    // Two ISO weeks (10 and 11), long before the last 13: no review is queued for them.
    eq(b["reviews"]["weeks"].as_u64(), Some(2), "weeks")?;
    eq(b["reviews"]["older_weeks"].as_u64(), Some(2), "older weeks")?;
    eq(b["reviews"]["enqueued"].as_u64(), Some(0), "enqueued")?;
    eq(&b["review_weeks"], &serde_json::json!([]), "review weeks")?;
    eq(count(ctx, &user, "REVIEW#")?, 0, "no review")?;
    eq(count(ctx, &user, "EXERCISE#")?, 1, "own exercises stored")?;

    let before = history(ctx, &user)?;
    eq(before.len(), 2, "stored workouts")?;
    let push = &before[0];
    eq(
        push.started_at.to_rfc3339(),
        "2026-03-02T17:05:00+00:00".to_string(),
        "local time in Berlin",
    )?;
    eq(
        push.notes.as_deref(),
        Some("Good day, tired"),
        "workout notes",
    )?;
    let bench = &push.exercises[0];
    eq(bench.exercise_id.as_str(), "barbell-bench-press", "bench")?;
    let types: Vec<SetType> = bench.sets.iter().map(|s| s.set_type).collect();
    eq(
        types,
        vec![
            SetType::Warmup,
            SetType::Working,
            SetType::Working,
            SetType::Working,
            SetType::Dropset,
        ],
        "set types in order",
    )?;
    let top = bench.sets[1].actual.clone().unwrap_or_default();
    eq(
        top.notes.as_deref(),
        Some("felt heavy, \"grindy\"\nbelt on"),
        "multi-line note",
    )?;
    eq(
        (top.rpe, top.rir),
        (Some(8.5), None),
        "RPE kept, no RIR invented",
    )?;
    eq(
        bench.sets[0].actual.as_ref().and_then(|a| a.rpe),
        None,
        "empty RPE stays empty",
    )?;
    check(
        bench.sets[3].actual.as_ref().is_some_and(|a| a.failure),
        "F is a set to failure",
    )?;
    let plank = push.exercises[1].sets[0].actual.clone().unwrap_or_default();
    eq((plank.reps, plank.seconds), (0, Some(60)), "timed plank")?;

    // The review of week 11, asked of the worker, sees the squat sets, not the carry: 2 working
    // sets, 202.5 × 5 kg.
    let job =
        serde_json::json!({"type": "weekly_review", "user_id": user, "week_ending": "2026-03-15"});
    let invoked = ctx.rt.block_on(ctx.stack.run_worker_job(&ctx.http, &job))?;
    eq(invoked, 200, "the worker ran")?;
    let review = ctx
        .rt
        .block_on(ctx.stack.store.latest_review(&user))?
        .unwrap_or_default();
    eq(review["id"].as_str(), Some("2026-W11"), "latest review")?;
    eq(
        review["training_load"]["volume_kg"].as_f64(),
        Some(1012.5),
        "strength volume leaves the carry out",
    )?;

    // An imported workout fixed by hand (a PATCH) keeps the fix and its version through a
    // re-import.
    let first = before[0].id.clone();
    let patch = ctx
        .http
        .patch(format!("{}/v1/workouts/{first}", ctx.stack.base))
        .json(&serde_json::json!({"name": "Fixed by hand"}));
    let fixed = send(ctx, patch, &user);
    let version = ok(&fixed)?["version"].as_u64();
    let before = history(ctx, &user)?;

    // The same file again: nothing changes, nothing is created twice.
    let again = import(ctx, &user, "?tz=Europe/Berlin&unit=kg", "text/csv", QUIRKS);
    let a = ok(&again)?;
    eq(a["new_workouts"].as_u64(), Some(0), "nothing new")?;
    eq(a["already_imported"].as_u64(), Some(2), "already imported")?;
    eq(
        a["exercises_created"].as_array().map(Vec::len),
        Some(0),
        "no new exercises",
    )?;
    eq(a["exercises_own"].as_u64(), Some(1), "known own exercise")?;
    eq(history(ctx, &user)?, before, "history unchanged")?;
    eq(
        history(ctx, &user)?[0].name.as_str(),
        "Fixed by hand",
        "the fix kept",
    )?;
    let read = get(ctx, &format!("/v1/workouts/{first}"), &user);
    eq(ok(&read)?["version"].as_u64(), version, "and its version")?;
    eq(
        a["reviews"]["enqueued"].as_u64(),
        Some(0),
        "nothing queued again",
    )?;
    eq(count(ctx, &user, "REVIEW#")?, 1, "reviews unchanged")?;
    eq(
        count(ctx, &user, "EXERCISE#")?,
        1,
        "own exercises unchanged",
    )
}

const OLDER: &str = "Date;Workout Name;Exercise Name;Set Order;Weight;Weight Unit;Reps;RPE;Distance;Distance Unit;Seconds;Notes;Workout Notes;Workout Duration
2021-05-10 07:30:00;\"Full body\";\"Deadlift (Barbell)\";1;225;lbs;5;;;;0;\"Felt strong; \"\"really\"\"\";\"Good day\";1h 5m
2021-05-10 07:30:00;\"Full body\";\"Deadlift (Barbell)\";2;102,5;kg;5;9;;;0;;;1h 5m
2021-05-10 07:30:00;\"Full body\";\"Running\";1;0;;0;;1,5;mi;600;;;1h 5m
";

fn older_layout_in_pounds(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("import-old");
    let r = import(
        ctx,
        &user,
        "?tz=America/New_York",
        "text/csv; charset=utf-8",
        OLDER,
    );
    let b = ok(&r)?;
    eq(b["layout"].as_str(), Some("strong_with_units"), "layout")?;
    eq(b["delimiter"].as_str(), Some(";"), "delimiter")?;
    eq(b["timezone"].as_str(), Some("America/New_York"), "timezone")?;
    let h = history(ctx, &user)?;
    eq(h.len(), 1, "one workout")?;
    let w = &h[0];
    // 07:30 in New York (EDT) is 11:30 UTC; 1h 5m long.
    eq(
        w.started_at.to_rfc3339(),
        "2021-05-10T11:30:00+00:00".to_string(),
        "start",
    )?;
    eq(
        w.completed_at.map(|c| (c - w.started_at).num_minutes()),
        Some(65),
        "duration",
    )?;
    let dl: Vec<f64> = w.exercises[0]
        .sets
        .iter()
        .filter_map(|s| s.actual.as_ref()?.weight_kg)
        .collect();
    check(
        (dl[0] - 102.058).abs() < 0.001 && dl[1] == 102.5,
        format!("225 lbs and 102,5 kg in kg: {dl:?}"),
    )?;
    let run = w.exercises[1].sets[0].actual.clone().unwrap_or_default();
    eq(
        (run.distance_m, run.seconds),
        (Some(2414.0), Some(600)),
        "1.5 mi run",
    )?;
    eq(
        b["exercises_created"][0]["id"].as_str(),
        Some("own-running"),
        "running is the lifter's own",
    )
}

/// A lifter's imports run one at a time (each may take 29 s of the lane's concurrency): a
/// second while one runs is 429 IMPORT_IN_PROGRESS with Retry-After, and writes nothing.
fn one_import_at_a_time(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("import-lease");
    let now = chrono::Utc::now();
    let running = ctx.rt.block_on(ctx.stack.store.take_lease(
        &user,
        "import",
        1,
        now + chrono::Duration::seconds(30),
        now,
    ))?;
    let running = running.map_err(|s| format!("the slot was busy for {s} s"))?;
    let r = import(ctx, &user, "?tz=Europe/Berlin&unit=kg", "text/csv", QUIRKS);
    eq(r.status, 429, &format!("while one runs: {}", r.body))?;
    eq(
        r.body["error"]["code"].as_str(),
        Some("IMPORT_IN_PROGRESS"),
        "code",
    )?;
    eq(history(ctx, &user)?.len(), 0, "nothing imported")?;
    ctx.rt.block_on(
        ctx.stack
            .store
            .give_back(&user, &running, chrono::Utc::now()),
    )?;
    let r = import(ctx, &user, "?tz=Europe/Berlin&unit=kg", "text/csv", QUIRKS);
    eq(
        ok(&r)?["new_workouts"].as_u64(),
        Some(2),
        "once it has finished",
    )?;
    // The finished import gave its own slot back.
    let r = import(ctx, &user, "?tz=Europe/Berlin&unit=kg", "text/csv", QUIRKS);
    eq(r.status, 200, "and the next one runs")
}

fn malformed_files_write_nothing(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("import-bad");
    let head = "Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n";
    let before_2000 = format!("{head}1900-01-01 10:00,A,Squat (Barbell),1,100,5\n");
    let too_many_rows = format!(
        "{head}{}",
        "2026-01-05 10:00,A,Squat (Barbell),1,100,5\n"
            .repeat(coach::import::strong::MAX_IMPORT_ROWS + 1)
    );
    let too_many_bytes = "a".repeat(coach::import::MAX_IMPORT_BYTES + 1);
    let cases: [(&str, &str, &str, u16, &str, &str); 9] = [
        (
            "",
            "text/csv",
            &too_many_bytes,
            413,
            "PAYLOAD_TOO_LARGE",
            "the limit is",
        ),
        (
            "",
            "text/csv",
            &before_2000,
            400,
            "IMPORT_MALFORMED",
            "line 2: the date 1900-01-01 10:00 is before 2000",
        ),
        (
            "",
            "text/csv",
            &too_many_rows,
            413,
            "IMPORT_TOO_LARGE",
            "at most 60000",
        ),
        (
            "",
            "text/csv",
            "Date,Workout Name,Exercise Name\n2026-01-01,A,Squat\n",
            400,
            "IMPORT_MALFORMED",
            "lacks Set Order, Weight, Reps",
        ),
        (
            "",
            "text/csv",
            "Date,Workout Name,Exercise Name,Set Order,Weight,Reps\n2026-01-05 10:00,A,Squat (Barbell),1,100,5\n2026-01-05 10:00,\"A,Squat,2,100,5\n",
            400,
            "IMPORT_MALFORMED",
            "line 3: a quoted field is never closed",
        ),
        ("", "text/csv", "", 400, "IMPORT_MALFORMED", "empty"),
        (
            "",
            "application/json",
            "{\"rows\": []}",
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            "text/csv",
        ),
        (
            "?tz=Mars/Olympus",
            "text/csv",
            QUIRKS,
            400,
            "VALIDATION_ERROR",
            "tz",
        ),
        (
            "?units=lb",
            "text/csv",
            QUIRKS,
            400,
            "VALIDATION_ERROR",
            "'units'",
        ),
    ];
    for (query, ct, body, status, code, words) in cases {
        let r = import(ctx, &user, query, ct, body);
        eq(r.status, status, &format!("status for {code} ({words})"))?;
        eq(r.body["error"]["code"].as_str(), Some(code), "code")?;
        let message = r.body["error"]["message"].as_str().unwrap_or("");
        check(
            message.contains(words),
            format!("'{message}' mentions '{words}'"),
        )?;
    }
    eq(count(ctx, &user, "WORKOUT#")?, 0, "no workout written")?;
    eq(count(ctx, &user, "EXERCISE#")?, 0, "no exercise written")?;
    eq(count(ctx, &user, "REVIEW#")?, 0, "no review")
}

/// Two years of push / pull / legs up to today, 5,000 rows, from `devstack strong-sample`.
fn two_years_of_history(ctx: &Ctx) -> Result<(), Failed> {
    let today = chrono::Utc::now().date_naive();
    let out = std::process::Command::new(workspace_root().join("target/debug/devstack"))
        .args([
            "strong-sample",
            "--rows",
            "5000",
            "--last-day",
            &today.to_string(),
        ])
        .output()?;
    check(out.status.success(), "devstack strong-sample runs")?;
    let csv = String::from_utf8(out.stdout)?;
    let user = unique_user("import-2y");
    let started = std::time::Instant::now();
    let r = import(ctx, &user, "?tz=Europe/Berlin", "text/csv", &csv);
    let first = started.elapsed();
    let b = ok(&r)?;
    // 5,000 rows: 313 sessions of 16 rows (the last cut short), one rest-timer row each in
    // 105 push sessions bar the cut one.
    eq(b["rows"].as_u64(), Some(5000), "rows")?;
    eq(b["workouts"].as_u64(), Some(313), "workouts")?;
    eq(b["rest_timer_rows"].as_u64(), Some(104), "rest timers")?;
    eq(b["sets"].as_u64(), Some(4896), "sets")?;
    eq(b["rejected_rows"].as_u64(), Some(0), "nothing rejected")?;
    eq(
        b["exercises_created"].as_array().map(Vec::len),
        Some(0),
        "all resolved",
    )?;
    // 105 weeks, reviewed only within the last 13 (this week has a session from Friday on).
    eq(b["reviews"]["weeks"].as_u64(), Some(105), "weeks")?;
    let enqueued = b["reviews"]["enqueued"].as_u64().unwrap_or(0);
    check(
        (12..=13).contains(&enqueued),
        format!("the last 13 weeks reviewed: {}", b["reviews"]),
    )?;
    eq(
        b["reviews"]["older_weeks"].as_u64(),
        Some(105 - enqueued),
        "older weeks",
    )?;
    let oldest = today - chrono::Days::new(7 * 13);
    check(
        b["review_weeks"].as_array().is_some_and(|w| {
            w.len() as u64 == enqueued
                && w.iter().all(|d| {
                    d.as_str()
                        .and_then(|d| d.parse::<chrono::NaiveDate>().ok())
                        .is_some_and(|d| d > oldest)
                })
        }),
        format!("review weeks: {}", b["review_weeks"]),
    )?;
    eq(count(ctx, &user, "WORKOUT#")?, 313, "stored")?;
    eq(
        count(ctx, &user, "REVIEW#")? as u64,
        enqueued,
        "a review per recent week",
    )?;
    let started = std::time::Instant::now();
    let again = import(ctx, &user, "?tz=Europe/Berlin", "text/csv", &csv);
    let second = started.elapsed();
    eq(
        again.body["already_imported"].as_u64(),
        Some(313),
        "re-import",
    )?;
    eq(count(ctx, &user, "WORKOUT#")?, 313, "still 313")?;
    eq(
        again.body["reviews"]["already_reviewed"].as_u64(),
        Some(enqueued),
        "reviewed already, nothing new",
    )?;
    eq(
        again.body["reviews"]["enqueued"].as_u64(),
        Some(0),
        "a re-import queues nothing",
    )?;
    println!(
        "import: 5,000 rows, debug build, with {enqueued} weekly reviews run by the local worker: first {:.2} s, again {:.2} s",
        first.as_secs_f64(),
        second.as_secs_f64()
    );
    Ok(())
}

/// The reported defect: twenty months of bench twice a week, the last session nine months ago.
/// SUGGEST_WEIGHT said "No history of Bench Press or a related lift yet; 80 kg is a typical
/// start". Now the last session counts, lighter for the time away, and the answer says when;
/// a started workout plans the same load.
fn history_ended_months_ago_still_counts(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("import-old");
    let last = chrono::Utc::now().date_naive() - chrono::Days::new(274);
    let mut csv = String::from(
        "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n",
    );
    // 174 sessions, every 3.5 days back from `last`: 60 kg climbing to 100 kg × 5.
    for k in 0..174u64 {
        let day = last - chrono::Days::new(k * 7 / 2);
        let kg = 100.0 - 2.5 * (k / 9) as f64;
        for set in 1..=3 {
            csv.push_str(&format!(
                "{day} 18:00:00,\"Upper\",1h,\"Bench Press (Barbell)\",{set},{kg},5,0,0,\"\",\"\",\n"
            ));
        }
    }
    let r = import(ctx, &user, "?tz=UTC", "text/csv", &csv);
    eq(ok(&r)?["workouts"].as_u64(), Some(174), "imported")?;
    let ask = serde_json::json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "barbell-bench-press", "target_reps": 5});
    let r = functional(
        ctx,
        "/v1/functional",
        &user,
        serde_json::json!({ "message": ask.to_string() }),
    );
    let d = &r.body["data"];
    eq(
        d["source"].as_str(),
        Some("history"),
        "from the lifter's history",
    )?;
    // 274 days away: the 20 % cap of the detraining allowance, off the last 100 kg × 5.
    eq(
        d["weight_kg"].as_f64(),
        Some(80.0),
        "the last load, 20 % lighter",
    )?;
    let why = d["rationale"].as_str().unwrap_or_default();
    check(
        why.contains(&last.format("%-d %b %Y").to_string())
            && why.contains("100 kg × 5")
            && why.contains("9 months ago"),
        format!("the rationale says when and what: {why}"),
    )?;
    // A started workout plans the same number.
    let r = functional(
        ctx,
        "/v1/workouts",
        &user,
        serde_json::json!({"exercises": [{"exercise": "barbell-bench-press", "sets": 3, "reps": 5}]}),
    );
    check(r.status == 201, format!("started: {} {}", r.status, r.body))?;
    let planned: Vec<f64> = r.body["workout"]["exercises"][0]["sets"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|s| s["set_type"] == "working")
        .filter_map(|s| s["target"]["weight_kg"].as_f64())
        .collect();
    eq(
        planned,
        vec![80.0; 3],
        "the workout plans what SUGGEST_WEIGHT says",
    )
}

/// A pound lifter's export has no unit column; nothing says pounds but the weights.
fn a_pound_file_without_a_unit_column(ctx: &Ctx) -> Result<(), Failed> {
    // The reported defect: pound loads other than 135/225/315/405 were read as kilograms, a
    // 365 lb deadlift stored as 365 kg. Eight weeks of squats, bench and deadlifts on a pound
    // bar with pound plates: loads end in 5, and the deadlift is no kilogram load.
    let header = "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n";
    let mut csv = String::from(header);
    for week in 0..8u32 {
        let day = format!("2026-09-{:02} 18:00:00", 1 + 3 * week);
        for (name, start) in [
            ("Squat (Barbell)", 185),
            ("Bench Press (Barbell)", 135),
            ("Deadlift (Barbell)", 295),
        ] {
            for set in 1..=3 {
                let lb = start + 10 * week;
                csv.push_str(&format!(
                    "{day},\"Full\",1h,\"{name}\",{set},{lb},5,0,0,\"\",\"\",\n"
                ));
            }
        }
    }
    let user = unique_user("import-lb");
    let r = import(ctx, &user, "?tz=UTC", "text/csv", &csv);
    let b = ok(&r)?;
    eq(b["weight_unit"].as_str(), Some("lb"), "read as pounds")?;
    eq(
        b["weight_unit_source"].as_str(),
        Some("weights"),
        "decided by the weights",
    )?;
    let note = b["weight_unit_note"].as_str().unwrap_or_default();
    check(
        note.contains("no Weight Unit column") && note.contains("look like pounds"),
        format!("the answer says which unit and why: {note}"),
    )?;
    let h = history(ctx, &user)?;
    let top = h
        .iter()
        .flat_map(|w| &w.exercises)
        .filter(|e| e.exercise_id == "deadlift")
        .flat_map(|e| &e.sets)
        .filter_map(|s| s.actual.as_ref()?.weight_kg)
        .fold(0.0, f64::max);
    check(
        (top - 365.0 * 0.453_592_37).abs() < 1e-6,
        format!("the 365 lb deadlift stored as {top} kg"),
    )?;
    // The same file with ?unit=kg is read as asked, and the answer warns.
    let user = unique_user("import-lb");
    let r = import(ctx, &user, "?tz=UTC&unit=kg", "text/csv", &csv);
    let b = ok(&r)?;
    eq(
        (b["weight_unit"].as_str(), b["weight_unit_source"].as_str()),
        (Some("kg"), Some("request")),
        "as asked",
    )?;
    let note = b["weight_unit_note"].as_str().unwrap_or_default();
    check(
        note.contains("import again with unit=lb"),
        format!("a warning: {note}"),
    )?;
    // Three sessions of squats say too little: the lifter is asked, and nothing is written.
    let mut thin = String::from(header);
    for day in ["2026-10-05", "2026-10-08", "2026-10-12"] {
        for (set, lb) in [(1, 45), (2, 135), (3, 225)] {
            thin.push_str(&format!(
                "{day} 18:00:00,\"Legs\",1h,\"Squat (Barbell)\",{set},{lb},5,0,0,\"\",\"\",\n"
            ));
        }
    }
    let user = unique_user("import-thin");
    let r = import(ctx, &user, "?tz=UTC", "text/csv", &thin);
    eq(r.status, 422, &format!("asked: {}", r.body))?;
    eq(
        (
            r.body["error"]["code"].as_str(),
            r.body["error"]["field"].as_str(),
        ),
        (Some("IMPORT_UNIT_UNKNOWN"), Some("unit")),
        "the unit is asked for",
    )?;
    eq(history(ctx, &user)?.len(), 0, "nothing written")?;
    let r = import(ctx, &user, "?tz=UTC&unit=lb", "text/csv", &thin);
    eq(
        ok(&r)?["weight_unit_source"].as_str(),
        Some("request"),
        "answered",
    )?;
    Ok(())
}

fn get(ctx: &Ctx, path: &str, user: &str) -> Reply {
    let url = format!("{}{path}", ctx.stack.base);
    send(ctx, ctx.http.get(url), user)
}

fn delete_me(ctx: &Ctx, user: &str) -> Reply {
    let url = format!("{}/v1/me", ctx.stack.base);
    send(ctx, ctx.http.delete(url), user)
}

/// The real Strong export (four years of Olympic lifting) imported as `user`'s history.
fn import_real_export(ctx: &Ctx, user: &str) -> Result<(), Failed> {
    let csv = std::fs::read_to_string(
        workspace_root().join("tests/data/exports/strong-export-olympic.csv"),
    )?;
    let r = import(ctx, user, "?tz=Europe/Berlin&unit=kg", "text/csv", &csv);
    ok(&r).map(|_| ())
}

/// The real Strong export imported, exported whole as JSON and as a Strong CSV, and that CSV
/// imported by another lifter: the same history, item for item.
fn the_account_exports_whole_and_its_csv_reads_back(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("export");
    import_real_export(ctx, &user)?;
    // Names and notes a spreadsheet would run as formulas (CSV injection).
    let formulas = "Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n\
        2026-01-05 18:00:00,\"=HYPERLINK(\"\"http://x\"\",\"\"win\"\")\",1h,@Garage Contraption 3000,1,50,10,0,0,+2 next time,-felt heavy,\n";
    let r = import(
        ctx,
        &user,
        "?tz=Europe/Berlin&unit=kg",
        "text/csv",
        formulas,
    );
    eq(
        ok(&r)?["rejected_rows"].as_u64(),
        Some(0),
        "formulas import",
    )?;
    let patch = ctx.http.patch(format!("{}/v1/me", ctx.stack.base));
    let named = send(
        ctx,
        patch.json(&serde_json::json!({"name": "Oly", "timezone": "Europe/Berlin"})),
        &user,
    );
    ok(&named)?;

    let export = get(ctx, "/v1/me/export", &user);
    let b = ok(&export)?;
    let stored = ctx.rt.block_on(ctx.stack.store.user_items(&user))?.len();
    eq(
        b["items"].as_u64(),
        Some(stored as u64),
        "every stored item",
    )?;
    eq(b["user_id"].as_str(), Some(user.as_str()), "whose")?;
    eq(
        b["profile"]["display_name"].as_str(),
        Some("Oly"),
        "the profile",
    )?;
    let workouts = history(ctx, &user)?;
    eq(
        b["workouts"].as_array().map(Vec::len),
        Some(workouts.len()),
        "every workout",
    )?;
    eq(
        b["workouts"][0]["data"]["id"].as_str(),
        Some(workouts[0].id.as_str()),
        "oldest first, whole",
    )?;
    let listed: u64 = b
        .as_object()
        .map(|o| {
            o.values()
                .filter_map(|v| v.as_array())
                .map(|a| a.len() as u64)
                .sum()
        })
        .unwrap_or(0);
    let singles = [
        "profile",
        "coaching_context",
        "active_workout",
        "notification_state",
    ]
    .iter()
    .filter(|k| !b[**k].is_null())
    .count() as u64;
    eq(listed + singles, stored as u64, "each item in one section")?;

    let url = format!("{}/v1/me/export?format=strong_csv", ctx.stack.base);
    let (status, content_type, text) = ctx.rt.block_on(async {
        let resp = ctx.http.get(url).header("x-user-id", &user).send().await?;
        let status = resp.status().as_u16();
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        Ok::<_, reqwest::Error>((status, ct, resp.text().await?))
    })?;
    eq(status, 200, "csv")?;
    check(
        content_type.starts_with("text/csv"),
        format!("content type {content_type}"),
    )?;
    for cell in [",\"=", ",\"+", ",\"-", ",\"@"] {
        check(
            !text.contains(cell),
            format!("no cell starts a formula ({cell})"),
        )?;
    }
    check(
        text.contains("\"'=HYPERLINK(") && text.contains("\"'@Garage Contraption 3000\""),
        "formulas written as text",
    )?;
    let other = unique_user("export-back");
    let back = import(ctx, &other, "?tz=Europe/Berlin&unit=kg", "text/csv", &text);
    eq(
        ok(&back)?["rejected_rows"].as_u64(),
        Some(0),
        "every row reads back",
    )?;
    let again = history(ctx, &other)?;
    eq(again.len(), workouts.len(), "as many workouts")?;
    let differs = again.iter().zip(&workouts).position(|(a, b)| a != b);
    eq(differs, None, "the first workout that differs")?;

    let bad = get(ctx, "/v1/me/export?format=xml", &user);
    eq(bad.status, 400, "unknown format")?;
    eq(bad.body["error"]["field"].as_str(), Some("format"), "field")
}

/// The body of a GET and the response header `name`.
fn get_text(
    ctx: &Ctx,
    path: &str,
    user: &str,
    name: &str,
) -> Result<(u16, String, Option<String>), Failed> {
    let url = format!("{}{path}", ctx.stack.base);
    Ok(ctx.rt.block_on(async {
        let resp = ctx.http.get(url).header("x-user-id", user).send().await?;
        let status = resp.status().as_u16();
        let header = resp
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        Ok::<_, reqwest::Error>((status, resp.text().await?, header))
    })?)
}

/// Lambda's response limit: the body, escaped into its JSON payload, under 6 MB.
const LAMBDA_RESPONSE_BYTES: usize = 6 * 1024 * 1024;

/// An account larger than one response: 100 workouts of four lifts of 100 sets (the import's
/// most a lift), about 12 MB of items (one response of it would be a 502 deployed). The export comes a page at a time, each page
/// within Lambda's limit once escaped, together every item exactly once; the Strong CSV pages
/// hold whole workouts, each a file of its own that the import reads back.
fn a_large_account_exports_in_pages(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("export-big");
    for day in 1..=100 {
        let mut w = blackbox::bench_session(day, &[(100.0, 5, 2); 100]);
        let bench = w.exercises[0].clone();
        for (i, id) in ["back-squat", "deadlift", "overhead-press"]
            .into_iter()
            .enumerate()
        {
            let mut lift = bench.clone();
            lift.instance_id = format!("e{}", i + 2);
            lift.exercise_id = id.to_string();
            for s in &mut lift.sets {
                s.id = format!("{id}-{}", s.id);
            }
            w.exercises.push(lift);
        }
        ctx.rt
            .block_on(ctx.stack.store.put_completed_workout(&user, &w))?;
    }
    let stored = ctx.rt.block_on(ctx.stack.store.user_items(&user))?.len();
    let (mut cursor, mut keys, mut pages) = (None::<String>, Vec::new(), 0);
    loop {
        let path = match &cursor {
            None => "/v1/me/export".to_string(),
            Some(c) => format!("/v1/me/export?cursor={c}"),
        };
        let (status, text, _) = get_text(ctx, &path, &user, "none")?;
        eq(status, 200, &format!("page {pages}"))?;
        let escaped = serde_json::to_string(&text)?.len();
        check(
            escaped < LAMBDA_RESPONSE_BYTES,
            format!("page {pages} is {escaped} bytes escaped"),
        )?;
        let b: Value = serde_json::from_str(&text)?;
        for v in b.as_object().into_iter().flat_map(|o| o.values()) {
            keys.extend(
                v.as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e["key"].as_str().map(str::to_string)),
            );
        }
        pages += 1;
        match b["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
        check(pages < 50, "the pages end")?;
    }
    check(pages >= 3, format!("{pages} pages"))?;
    let unique: std::collections::BTreeSet<&String> = keys.iter().collect();
    eq(unique.len(), keys.len(), "no item twice")?;
    eq(keys.len(), stored, "every item")?;

    let (mut cursor, mut workouts, mut csv_pages) = (None::<String>, 0, Vec::new());
    loop {
        let path = match &cursor {
            None => "/v1/me/export?format=strong_csv".to_string(),
            Some(c) => format!("/v1/me/export?format=strong_csv&cursor={c}"),
        };
        let (status, text, next) = get_text(ctx, &path, &user, "x-next-cursor")?;
        eq(status, 200, "a csv page")?;
        check(
            serde_json::to_string(&text)?.len() < LAMBDA_RESPONSE_BYTES,
            "a csv page within the limit",
        )?;
        let dates: std::collections::BTreeSet<&str> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split(',').next())
            .collect();
        workouts += dates.len();
        csv_pages.push(text);
        match next {
            Some(c) => cursor = Some(c),
            None => break,
        }
        check(csv_pages.len() < 50, "the csv pages end")?;
    }
    check(
        csv_pages.len() >= 2,
        format!("{} csv pages", csv_pages.len()),
    )?;
    eq(workouts, 100, "every workout, none split across pages")?;
    let last = csv_pages.last().map(String::as_str).unwrap_or_default();
    let other = unique_user("export-big-back");
    let back = import(ctx, &other, "?unit=kg", "text/csv", last);
    eq(
        ok(&back)?["rejected_rows"].as_u64(),
        Some(0),
        &format!("the last page reads back alone: {}", back.body),
    )?;
    check(!history(ctx, &other)?.is_empty(), "its workouts imported")?;
    let forged = get(ctx, "/v1/me/export?format=strong_csv&cursor=zz", &user);
    eq(forged.status, 400, "a forged csv cursor")
}

/// Every item under the user's key, wherever it is: the partition, and the weekly roster's
/// entries (sort key the user), found by scanning the whole table.
fn items_anywhere(ctx: &Ctx, user: &str) -> Result<Vec<String>, Failed> {
    let pk = format!("USER#{user}");
    Ok(ctx.rt.block_on(async {
        let client = ctx.stack.dynoxide.client().await;
        let mut found = Vec::new();
        let mut start = None;
        loop {
            let page = client
                .scan()
                .table_name(blackbox::TABLE)
                .set_exclusive_start_key(start)
                .send()
                .await?;
            for item in page.items() {
                let get = |k: &str| item.get(k).and_then(|v| v.as_s().ok()).cloned();
                let (p, s) = (get("pk").unwrap_or_default(), get("sk").unwrap_or_default());
                if p == pk || s == user {
                    found.push(format!("{p} {s}"));
                }
            }
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return Ok::<_, aws_sdk_dynamodb::Error>(found),
            }
        }
    })?)
}

/// An account of more items than a request deletes itself (two years of history, a workout
/// completed in the app with its insight card and roster entry, 2,000 own exercises): the
/// request deletes some and the worker the rest; nothing with the user's key is left, the
/// same identity then finds an empty account, and deleting again is harmless.
fn a_deleted_account_leaves_nothing_behind(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("delete");
    import_real_export(ctx, &user)?;
    let own: Vec<coach::domain::catalog::OwnExercise> = (0..2_000)
        .map(|i| coach::domain::catalog::OwnExercise {
            id: format!("own-drill-{i}"),
            name: format!("Drill {i}"),
            similar_to: None,
            ..Default::default()
        })
        .collect();
    ctx.rt
        .block_on(ctx.stack.store.put_history(&user, &[], &own))?;
    let mut w = sample_workout("w-delete", 2);
    for set in &mut w.exercises[0].sets {
        set.status = coach::domain::workout::SetStatus::Done;
        set.actual = Some(coach::domain::workout::SetResult {
            reps: 8,
            weight_kg: Some(100.0),
            ..Default::default()
        });
    }
    ctx.rt
        .block_on(ctx.stack.store.replace_active_workout(&user, &w))?;
    ok(&functional(
        ctx,
        "/v1/workouts/w-delete/complete",
        &user,
        serde_json::json!({}),
    ))?;
    eq(count(ctx, &user, "INSIGHT#")?, 1, "the insight card")?;
    let before = items_anywhere(ctx, &user)?;
    check(
        before.iter().any(|k| k.starts_with("ROSTER#")),
        "the roster lists the lifter",
    )?;
    check(before.len() > 2_000, format!("{} items", before.len()))?;

    let gone = delete_me(ctx, &user);
    eq(
        gone.status,
        202,
        &format!("handed to the worker: {}", gone.body),
    )?;
    eq(gone.body["status"].as_str(), Some("deleting"), "status")?;
    check(
        gone.body["items_deleted"]
            .as_u64()
            .is_some_and(|n| n >= 2_000),
        format!("deleted in the request: {}", gone.body),
    )?;
    // Locally the worker runs as the request hands it the job; on AWS the app would poll.
    let mut left = items_anywhere(ctx, &user)?;
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        left = items_anywhere(ctx, &user)?;
    }
    eq(left, Vec::<String>::new(), "nothing with the user's key")?;

    // The same identity afterwards: an empty account, not an error.
    let me = get(ctx, "/v1/me", &user);
    eq(ok(&me)?["name"].clone(), Value::Null, "a fresh profile")?;
    eq(
        ok(&get(ctx, "/v1/workouts", &user))?["items"].clone(),
        serde_json::json!([]),
        "no history",
    )?;
    let again = delete_me(ctx, &user);
    eq(again.status, 200, "deleting again")?;
    eq(
        again.body.clone(),
        serde_json::json!({"status": "deleted", "items_deleted": 0}),
        "nothing left to delete",
    )?;
    eq(
        items_anywhere(ctx, &user)?,
        Vec::<String>::new(),
        "still nothing",
    )
}

fn post(ctx: &Ctx, path: &str, user: &str, body: Value) -> Reply {
    functional(ctx, path, user, body)
}

fn naming(workouts: &[Workout], id: &str) -> usize {
    workouts
        .iter()
        .filter(|w| w.exercises.iter().any(|e| e.exercise_id == id))
        .count()
}

/// The real export's "Clean (Barbell)" is no catalog name, so the import kept it as the lifter's
/// own; merged into the power clean, its history, records and picker follow, a second merge
/// changes nothing, and importing the file again files its sets under the power clean.
fn an_unresolved_exercise_merges_into_the_catalog(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("merge");
    import_real_export(ctx, &user)?;
    let own = "own-clean-barbell";
    let before = history(ctx, &user)?;
    let cleans = naming(&before, own);
    check(cleans > 10, format!("{cleans} workouts with cleans"))?;
    let picker = get(ctx, "/v1/exercises?q=clean", &user);
    check(
        ok(&picker)?["items"]
            .as_array()
            .is_some_and(|a| a.iter().any(|e| e["exercise_id"] == own)),
        "the picker lists the own exercise",
    )?;

    let path = format!("/v1/exercises/{own}/merge");
    let merged = post(
        ctx,
        &path,
        &user,
        serde_json::json!({"into": "power-clean"}),
    );
    let b = ok(&merged)?;
    eq(
        b["workouts_changed"].as_u64(),
        Some(cleans as u64),
        "workouts changed",
    )?;
    let after = history(ctx, &user)?;
    eq(naming(&after, own), 0, "no workout names it")?;
    eq(
        naming(&after, "power-clean"),
        cleans + naming(&before, "power-clean") - {
            // Workouts that had both count once.
            before
                .iter()
                .filter(|w| {
                    w.exercises.iter().any(|e| e.exercise_id == own)
                        && w.exercises.iter().any(|e| e.exercise_id == "power-clean")
                })
                .count()
        },
        "they name the power clean",
    )?;
    let bests = ctx
        .rt
        .block_on(ctx.stack.store.bests(&user, "power-clean"))?;
    eq(
        bests,
        coach::domain::strength::BestE1rm::of_exercise(&after, "power-clean"),
        "the power clean's best, from the merged history",
    )?;
    let last = ctx
        .rt
        .block_on(ctx.stack.store.last_sessions(&user, &[own]))?;
    eq(last.len(), 0, "no last session under the old id")?;
    let picker = get(ctx, "/v1/exercises?q=clean", &user);
    check(
        ok(&picker)?["items"]
            .as_array()
            .is_some_and(|a| !a.iter().any(|e| e["exercise_id"] == own)),
        "the picker no longer lists it",
    )?;
    let progress = get(ctx, "/v1/progress/exercises/power-clean?weeks=104", &user);
    let chart = ok(&progress)?;
    check(
        chart["points"].as_array().is_some_and(|p| !p.is_empty())
            && chart["best_ever_e1rm_kg"].as_f64()
                == bests
                    .rated
                    .into_iter()
                    .chain(bests.unrated)
                    .reduce(f64::max),
        format!("the power clean charts: {}", progress.body),
    )?;

    // Again: nothing left to change. Into another exercise: refused.
    let again = post(
        ctx,
        &path,
        &user,
        serde_json::json!({"into": "power-clean"}),
    );
    eq(
        ok(&again)?["workouts_changed"].as_u64(),
        Some(0),
        "idempotent",
    )?;
    let other = post(ctx, &path, &user, serde_json::json!({"into": "hang-clean"}));
    eq(other.status, 409, "already merged elsewhere")?;
    // The same file again: the cleans go to the power clean, not back to the own exercise.
    import_real_export(ctx, &user)?;
    eq(
        naming(&history(ctx, &user)?, own),
        0,
        "a re-import keeps the merge",
    )?;

    for (who, path, body, status, field) in [
        (
            user.as_str(),
            path.as_str(),
            serde_json::json!({"into": "no-such-lift"}),
            400,
            "into",
        ),
        (
            user.as_str(),
            "/v1/exercises/own-nothing/merge",
            serde_json::json!({"into": "power-clean"}),
            404,
            "id",
        ),
        (
            "merge-stranger",
            path.as_str(),
            serde_json::json!({"into": "power-clean"}),
            404,
            "id",
        ),
        (
            user.as_str(),
            path.as_str(),
            serde_json::json!({"into": "power-clean", "x": 1}),
            400,
            "x",
        ),
    ] {
        let r = post(ctx, path, who, body.clone());
        eq(r.status, status, &format!("{body}: {}", r.body))?;
        eq(
            r.body["error"]["field"].as_str(),
            Some(field),
            &format!("{body}"),
        )?;
    }
    Ok(())
}

/// Hard sets over every week and group of the 104-week muscle chart.
fn charted_hard_sets(ctx: &Ctx, user: &str) -> Result<f64, Failed> {
    let chart = get(ctx, "/v1/progress/muscles?weeks=104", user);
    Ok(ok(&chart)?["points"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|p| p["groups"].as_array().into_iter().flatten())
        .filter_map(|g| g["hard_sets"].as_f64())
        .sum())
}

/// The real export's snatch pulls are no catalog exercise, so they counted for no muscle; once
/// the lifter says what they train, every stored set of them counts (the chart grows), the
/// picker's muscle filter finds them, and importing the file again keeps it so. A name the
/// catalog has, unknown equipment or muscles, and no primary muscle are refused.
fn an_own_exercise_defined_counts_for_its_muscles(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("own-define");
    import_real_export(ctx, &user)?;
    let own = "own-snatch-pull-barbell";
    let pulls = naming(&history(ctx, &user)?, own);
    check(pulls > 5, format!("{pulls} workouts with snatch pulls"))?;
    let before = charted_hard_sets(ctx, &user)?;

    let define = serde_json::json!({"name": "Snatch Pull (Barbell)", "equipment": "barbell",
        "primary_muscles": ["hamstrings", "glutes", "traps"], "movement_pattern": "hinge"});
    let defined = post(ctx, "/v1/exercises", &user, define.clone());
    eq(defined.status, 200, &format!("defined: {}", defined.body))?;
    eq(
        defined.body["created"].as_bool(),
        Some(false),
        "the import's, defined",
    )?;
    eq(
        defined.body["workouts_changed"].as_u64(),
        Some(pulls as u64),
        "every workout with it",
    )?;
    let after = charted_hard_sets(ctx, &user)?;
    check(
        after > before,
        format!("hard sets charted: {before} before, {after} after"),
    )?;
    let stored = history(ctx, &user)?;
    check(
        stored
            .iter()
            .flat_map(|w| w.exercises.iter())
            .filter(|e| e.exercise_id == own)
            .all(|e| e.primary_muscles.len() == 3),
        "every stored set of it names its muscles",
    )?;
    let found = get(
        ctx,
        "/v1/exercises?muscle=hamstrings&q=snatch%20pull",
        &user,
    );
    check(
        ok(&found)?["items"].as_array().is_some_and(|a| {
            a.iter()
                .any(|e| e["exercise_id"] == own && e["equipment"] == "barbell")
        }),
        format!("the filter finds it: {}", found.body),
    )?;
    import_real_export(ctx, &user)?;
    eq(
        charted_hard_sets(ctx, &user)?,
        after,
        "a re-import keeps the definition",
    )?;
    let again = post(ctx, "/v1/exercises", &user, define);
    eq(
        ok(&again)?["workouts_changed"].as_u64(),
        Some(0),
        "defining again changes nothing",
    )?;

    let new = post(
        ctx,
        "/v1/exercises",
        &user,
        serde_json::json!({"name": "Zercher Hack Thing", "equipment": "machine", "primary_muscles": ["quads"]}),
    );
    eq(new.status, 201, &format!("new: {}", new.body))?;
    eq(new.body["exercise"]["own"].as_bool(), Some(true), "own")?;
    for (body, status, field) in [
        (
            serde_json::json!({"name": "Bench Press (Barbell)", "equipment": "barbell", "primary_muscles": ["chest"]}),
            409,
            "name",
        ),
        (
            serde_json::json!({"name": "Sled Thing", "equipment": "jetpack", "primary_muscles": ["quads"]}),
            400,
            "equipment",
        ),
        (
            serde_json::json!({"name": "Sled Thing", "equipment": "sled", "primary_muscles": []}),
            400,
            "primary_muscles",
        ),
        (
            serde_json::json!({"name": "Sled Thing", "equipment": "sled", "primary_muscles": ["wings"]}),
            400,
            "primary_muscles",
        ),
        (
            serde_json::json!({"name": "Sled Thing", "equipment": "sled", "primary_muscles": ["quads"], "colour": "red"}),
            400,
            "colour",
        ),
        (
            serde_json::json!({"name": "", "equipment": "sled", "primary_muscles": ["quads"]}),
            400,
            "name",
        ),
    ] {
        let r = post(ctx, "/v1/exercises", &user, body.clone());
        eq(r.status, status, &format!("{body}: {}", r.body))?;
        eq(
            r.body["error"]["field"].as_str(),
            Some(field),
            &format!("{body}"),
        )?;
    }
    let picker = get(ctx, "/v1/exercises?q=sled%20thing", &user);
    check(
        ok(&picker)?["items"].as_array().is_some_and(|a| {
            !a.iter()
                .any(|e| e["own"] == true && e["name"] == "Sled Thing")
        }),
        "nothing written by the refused ones",
    )
}
