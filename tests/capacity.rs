//! What each thing a lifter does costs the store, in DynamoDB capacity units as the store
//! reports them (`ReturnConsumedCapacity: TOTAL`, which the recording proxy adds to every
//! function's request; dynoxide prices as DynamoDB does: a write unit per KB, a read unit per
//! 4 KB, half for an eventually consistent read, twice for a transaction). `docs/scale.md`
//! multiplies these by the usage it assumes. Each operation also has a ceiling here, about
//! half again what it costs today, so that a change that makes one dearer is seen.

use blackbox::{HttpCtx, bench_session, check, run_cases, test_runtime, unique_user, unselected};
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

type Ctx = HttpCtx;
/// Read and write units.
type Units = (f64, f64);
type Case = fn(&Ctx) -> Result<(), Failed>;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "capacity";
    let cases: Vec<(&'static str, Case)> = vec![(
        "each_operation_costs_what_scale_md_says",
        each_operation_costs_what_scale_md_says,
    )];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let rt = test_runtime();
    let ctx = HttpCtx::start(&rt);
    run_cases(args, SUITE, rt, ctx, cases)
}

/// Read and write units every function consumed so far, summed.
fn units() -> Units {
    blackbox::fault_proxy::capacity_used()
        .values()
        .fold((0.0, 0.0), |(r, w), (dr, dw)| (r + dr, w + dw))
}

/// Runs `op` and returns what it cost: (read units, write units).
fn cost(op: impl FnOnce() -> Result<(), Failed>) -> Result<Units, Failed> {
    let before = units();
    op()?;
    let after = units();
    Ok((after.0 - before.0, after.1 - before.1))
}

fn ok(r: &blackbox::JsonReply, what: &str) -> Result<Value, Failed> {
    check(
        (200..300).contains(&r.status),
        format!("{what}: {} {}", r.status, r.body),
    )?;
    Ok(r.body.clone())
}

fn each_operation_costs_what_scale_md_says(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("cap");
    // Eight weeks of history, two sessions a week: what the lanes read is not empty.
    for day in (2..58).step_by(4) {
        let w = bench_session(day, &[(100.0, 5, 2); 5]);
        ctx.rt
            .block_on(ctx.stack.store.put_completed_workout(&user, &w))?;
    }
    // Each operation: what it cost, and its ceiling.
    let mut table: Vec<(&str, Units, Units)> = Vec::new();
    let mut id = String::new();
    let start = cost(|| {
        let r = ctx.call(
            "POST",
            "/v1/workouts",
            &user,
            Some(json!({"name": "Push", "exercises": [{"exercise": "bench press", "sets": 5, "reps": 5}]})),
        );
        id = ok(&r, "start")?["workout"]["id"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        Ok(())
    })?;
    table.push(("start a workout (5 planned sets)", start, (7.0, 3.0)));
    let done = cost(|| {
        ok(
            &ctx.call(
                "POST",
                "/v1/copilot",
                &user,
                Some(json!({"message": "done"})),
            ),
            "done",
        )
        .map(drop)
    })?;
    table.push(("log a set (FAST \"done\")", done, (3.0, 6.0)));
    for _ in 0..4 {
        ok(
            &ctx.call(
                "POST",
                "/v1/copilot",
                &user,
                Some(json!({"message": "done"})),
            ),
            "done",
        )?;
    }
    let suggest = cost(|| {
        let m = json!({"intent": "SUGGEST_WEIGHT", "exercise_id": "barbell-bench-press", "target_reps": 5});
        ok(
            &ctx.call(
                "POST",
                "/v1/functional",
                &user,
                Some(json!({"message": m.to_string()})),
            ),
            "suggest",
        )
        .map(drop)
    })?;
    table.push(("suggest a weight", suggest, (5.5, 0.0)));
    let complete = cost(|| {
        ok(
            &ctx.call(
                "POST",
                &format!("/v1/workouts/{id}/complete"),
                &user,
                Some(json!({})),
            ),
            "complete",
        )
        .map(drop)
    })?;
    table.push((
        "complete a workout (and its card job)",
        complete,
        (15.0, 39.0),
    ));
    let review = cost(|| {
        let week = coach::lanes::worker::previous_sunday(chrono::Utc::now().date_naive());
        let body = json!({"type": "weekly_review", "user_id": user, "week_ending": week});
        let record = json!({
            "messageId": "cap-review", "receiptHandle": "cap-review", "body": body.to_string(),
            "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "0",
                           "SenderId": "test", "ApproximateFirstReceiveTimestamp": "0"},
            "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:coach-jobs", "awsRegion": "us-east-1",
        });
        let url = format!(
            "http://127.0.0.1:{}/2015-03-31/functions/worker/invocations",
            ctx.stack.port
        );
        let answer: Value = ctx.rt.block_on(async {
            ctx.http
                .post(url)
                .json(&json!({ "Records": [record] }))
                .send()
                .await?
                .json()
                .await
        })?;
        check(
            answer["batchItemFailures"]
                .as_array()
                .is_some_and(Vec::is_empty),
            format!("the review job: {answer}"),
        )
    })?;
    table.push(("a weekly review job", review, (8.0, 20.0)));
    let history = cost(|| ok(&ctx.call("GET", "/v1/workouts", &user, None), "history").map(drop))?;
    table.push(("a history page (20 workouts)", history, (6.0, 0.0)));
    let csv = std::fs::read_to_string(
        blackbox::workspace_root().join("tests/data/exports/strong-breinsp.csv"),
    )?;
    let rows = csv.lines().count() - 1;
    let importer = unique_user("cap-import");
    let import = cost(|| {
        let url = format!("{}/v1/import/strong?unit=kg", ctx.stack.base);
        let status = ctx.rt.block_on(async {
            ctx.http
                .post(url)
                .header("x-user-id", &importer)
                .header("content-type", "text/csv")
                .body(csv.clone())
                .send()
                .await
                .map(|r| r.status().as_u16())
        })?;
        check(status == 200, format!("import: {status}"))
    })?;
    let per_thousand = (
        import.0 * 1000.0 / rows as f64,
        import.1 * 1000.0 / rows as f64,
    );
    table.push(("import, per 1,000 rows", per_thousand, (2.0, 390.0)));
    let export =
        cost(|| ok(&ctx.call("GET", "/v1/me/export", &importer, None), "export").map(drop))?;
    table.push((
        "export (the imported account's first page)",
        export,
        (63.0, 0.0),
    ));

    println!("| operation | read units | write units |");
    println!("|---|---|---|");
    let mut over = Vec::new();
    for (what, (r, w), (max_r, max_w)) in &table {
        println!("| {what} | {r:.1} | {w:.1} |");
        if r > max_r || w > max_w {
            over.push(format!(
                "{what}: {r:.1} read / {w:.1} write, over {max_r} / {max_w}"
            ));
        }
    }
    check(
        table.iter().all(|(_, (r, w), _)| r + w > 0.0),
        "every operation reported its capacity",
    )?;
    check(
        over.is_empty(),
        format!("dearer than its ceiling: {over:?}"),
    )
}
