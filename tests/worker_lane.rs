//! Black-box tests of the worker binary: SQS events posted to its invoke endpoint in `cargo
//! lambda watch` (as Lambda's event source mapping delivers them), outcomes checked in the
//! partial-batch response and in the stored items: redelivery, a poison record in a batch, a
//! crashed run retried, weekly reviews rewritten, and the health-metric gate's reasons; and
//! the proactive path whole: health samples in over HTTP, the queued decision, and one push per
//! phone on the fake SNS (none in quiet hours, none to a phone that is gone or changed hands).

use blackbox::fake_model::{FakeModel, Reply};
use blackbox::fake_sns::FakeSns;
use blackbox::{
    Stack, bench_session, call_json, check, eq, run_cases, test_runtime, unique_user, unselected,
};
use chrono::{Duration, Utc};
use coach::domain::profile::{NotificationPreference, Profile, QuietHours};
use coach::skills::notify::{Notification, Priority};
use coach::store::jobs::Claim;
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

const TOPIC: &str = "arn:aws:sns:us-east-1:000000000000:coach-notify";

struct Ctx {
    stack: Stack,
    sns: FakeSns,
    model: FakeModel,
    http: reqwest::Client,
    rt: tokio::runtime::Handle,
}

type Case = fn(&Ctx) -> Result<(), Failed>;

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "worker_lane";
    let cases: Vec<(&'static str, Case)> = vec![
        ("card_once_under_redelivery", card_once_under_redelivery),
        (
            "a_card_reads_a_bounded_history_and_says_so",
            a_card_reads_a_bounded_history_and_says_so,
        ),
        ("the_smoke_journey_passes", the_smoke_journey_passes),
        ("poison_records_fail_alone", poison_records_fail_alone),
        ("crashed_run_is_retried", crashed_run_is_retried),
        (
            "weekly_review_rewritten_not_duplicated",
            weekly_review_rewritten_not_duplicated,
        ),
        ("health_gate_reasons", health_gate_reasons),
        (
            "weekly_fan_out_reviews_active_users",
            weekly_fan_out_reviews_active_users,
        ),
        ("operator_runs_a_job_dry", operator_runs_a_job_dry),
        (
            "jobs_queued_before_an_account_deletion_leave_nothing",
            jobs_queued_before_an_account_deletion_leave_nothing,
        ),
        (
            "model_summary_is_checked_against_the_facts",
            model_summary_is_checked_against_the_facts,
        ),
        (
            "weekly_review_narrative_is_checked_against_the_facts",
            weekly_review_narrative_is_checked_against_the_facts,
        ),
        (
            "a_departure_from_baseline_pushes_once_to_each_phone",
            a_departure_from_baseline_pushes_once_to_each_phone,
        ),
        ("quiet_hours_hold_the_push", quiet_hours_hold_the_push),
        ("phones_come_and_go", phones_come_and_go),
        (
            "health_samples_are_checked_and_weigh_ins_set_the_bodyweight",
            health_samples_are_checked_and_weigh_ins_set_the_bodyweight,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let rt = test_runtime();
    // Sent push notifications go to a fake SNS endpoint; card summaries to a fake model (a
    // card it has no scripted answer for gets a 400 and keeps the rules' summary).
    let sns = FakeSns::start();
    let model = FakeModel::start();
    let stack = rt.block_on(Stack::start_with(&[
        ("NOTIFY_TOPIC_ARN", TOPIC.to_string()),
        ("PUSH_APNS_ARN", APNS_APP.to_string()),
        ("PUSH_FCM_ARN", FCM_APP.to_string()),
        ("AWS_ENDPOINT_URL_SNS", sns.endpoint.clone()),
        ("WORKER_MODEL", "gemini-test".to_string()),
        ("GEMINI_BASE_URL", model.gemini_base()),
        ("GEMINI_API_KEY", "test".to_string()),
    ]));
    let ctx = Ctx {
        stack,
        sns,
        model,
        http: blackbox::http_client(),
        rt: rt.handle().clone(),
    };
    // The first invocation builds and starts the worker.
    let _ = rt.block_on(invoke(
        &ctx,
        &[("warm", json!({"type": "nothing"}).to_string())],
    ));
    run_cases(args, SUITE, rt, ctx, cases)
}

/// One SQS batch of (message id, body) records; returns the failed message ids.
async fn invoke(ctx: &Ctx, records: &[(&str, String)]) -> Result<Vec<String>, Failed> {
    let records: Vec<Value> = records
        .iter()
        .map(|(id, body)| {
            json!({
                "messageId": id, "receiptHandle": id, "body": body,
                "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "0",
                               "SenderId": "test", "ApproximateFirstReceiveTimestamp": "0"},
                "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:000000000000:coach-jobs", "awsRegion": "us-east-1",
            })
        })
        .collect();
    let url = format!(
        "http://127.0.0.1:{}/2015-03-31/functions/worker/invocations",
        ctx.stack.port
    );
    let resp = ctx
        .http
        .post(url)
        .json(&json!({ "Records": records }))
        .send()
        .await?;
    let body: Value = resp.json().await?;
    Ok(body["batchItemFailures"]
        .as_array()
        .ok_or_else(|| format!("not a batch response: {body}"))?
        .iter()
        .filter_map(|f| f["itemIdentifier"].as_str().map(str::to_string))
        .collect())
}

fn run(ctx: &Ctx, records: &[(&str, String)]) -> Result<Vec<String>, Failed> {
    ctx.rt.block_on(invoke(ctx, records))
}

fn count(ctx: &Ctx, user: &str, prefix: &str) -> Result<usize, Failed> {
    Ok(ctx.rt.block_on(ctx.stack.store.count_items(user, prefix))?)
}

/// The newest card, as the app reads it (`GET /v1/insights`).
fn newest_card(ctx: &Ctx, user: &str) -> Value {
    let page = ctx.rt.block_on(call_json(
        &ctx.http,
        "GET",
        format!("{}/v1/insights", ctx.stack.base),
        user,
        None,
    ));
    page.body["items"][0].clone()
}

fn completed(user: &str, workout_id: &str) -> String {
    json!({"type": "workout_completed", "user_id": user, "workout_id": workout_id}).to_string()
}

/// Three weeks of bench, the last session a record.
fn seed_bench(ctx: &Ctx, user: &str) -> Result<String, Failed> {
    for (days_ago, kg) in [(15, 90.0), (8, 90.0), (1, 95.0)] {
        ctx.rt.block_on(
            ctx.stack
                .store
                .put_completed_workout(user, &bench_session(days_ago, &[(kg, 5, 2); 3])),
        )?;
    }
    Ok("hist-1".into())
}

/// A history longer than the card reads (imports can grow one without end): the card job
/// reads the newest 2,000 workouts, not all 2,002, and finishes. A bench record older than
/// those (150 kg, five and a half years ago) is unread, so the new 105 kg set is the best of
/// what was read: the card says "in your last 2000 workouts", in the highlight and the summary,
/// rather than claiming an all-time record.
fn a_card_reads_a_bounded_history_and_says_so(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-bounded");
    let read = coach::app::jobs::CARD_HISTORY_WORKOUTS;
    let mut all = vec![bench_session(read as i64 + 2, &[(150.0, 5, 2)])];
    all.extend((2..=read as i64 + 1).map(|day| bench_session(day, &[(100.0, 5, 2)])));
    all.push(bench_session(1, &[(105.0, 5, 2)]));
    ctx.rt.block_on(async {
        for w in &all {
            ctx.stack.store.put_completed_workout(&user, w).await?;
        }
        Ok::<_, coach::store::StoreError>(())
    })?;
    eq(
        run(ctx, &[("c", completed(&user, "hist-1"))])?,
        Vec::<String>::new(),
        "the card job",
    )?;
    let card = newest_card(ctx, &user);
    let records: Vec<&str> = card["highlights"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|h| h["type"] == "pr")
        .filter_map(|h| h["message"].as_str())
        .collect();
    check(
        !records.is_empty()
            && records
                .iter()
                .all(|m| m.contains(&format!("in your last {read} workouts"))),
        format!("records of the workouts read, said so: {records:?}"),
    )?;
    check(
        card["summary"]
            .as_str()
            .is_some_and(|s| s.contains(&format!("in your last {read} workouts"))),
        format!("the summary too: {}", card["summary"]),
    )
}

/// The schedule's message reviews last week for users active in the last 30 days (here run
/// by the worker itself: locally it has no SQS to hand the reviews to), and only for them.
fn weekly_fan_out_reviews_active_users(ctx: &Ctx) -> Result<(), Failed> {
    let active = unique_user("w-fan-active");
    let w = seed_bench(ctx, &active)?;
    let idle = unique_user("w-fan-idle");
    let old = bench_session(60, &[(80.0, 5, 2); 3]);
    ctx.rt
        .block_on(ctx.stack.store.put_completed_workout(&idle, &old))?;
    // Completing a workout puts its lifter on that week's roster.
    let failed = run(
        ctx,
        &[
            ("a", completed(&active, &w)),
            ("i", completed(&idle, &old.id)),
        ],
    )?;
    eq(failed, Vec::<String>::new(), "cards")?;
    let fan_out = json!({"type": "weekly_review_fanout"}).to_string();
    eq(
        run(ctx, &[("f1", fan_out.clone())])?,
        Vec::<String>::new(),
        "fan-out",
    )?;
    let week = coach::lanes::worker::previous_sunday(Utc::now().date_naive());
    let review = ctx
        .rt
        .block_on(ctx.stack.store.latest_review(&active))?
        .unwrap_or_default();
    eq(
        review["id"].as_str().map(str::to_string),
        Some(coach::analysis::review::iso_week_id(week)),
        "last week reviewed for the active lifter",
    )?;
    eq(
        count(ctx, &idle, "REVIEW#")?,
        0,
        "no review for the idle lifter",
    )?;
    // Delivered again: the review is rewritten, not duplicated.
    eq(run(ctx, &[("f2", fan_out)])?, Vec::<String>::new(), "again")?;
    eq(count(ctx, &active, "REVIEW#")?, 1, "one review")
}

/// With `WORKER_MODEL`, the model may write the card's summary from the card's facts; a text
/// with a number that is not among them is rejected and the rules' summary stays.
fn model_summary_is_checked_against_the_facts(ctx: &Ctx) -> Result<(), Failed> {
    let mut cards = Vec::new();
    for (name, answer) in [
        (
            "good",
            "A strong push day, with a new estimated best on the bench. Keep it going.",
        ),
        ("invented", "You benched 130 kg today, a new best."),
    ] {
        let user = unique_user(&format!("w-sum-{name}"));
        let mut w = bench_session(1, &[(95.0, 5, 2); 3]);
        w.id = format!(
            "sum-{name}-{}",
            Utc::now().timestamp_nanos_opt().unwrap_or_default()
        );
        ctx.rt
            .block_on(ctx.stack.store.put_completed_workout(&user, &w))?;
        let reply = json!({ "summary": answer }).to_string();
        ctx.model.reply_for(&w.id, Reply::text(&[&reply]));
        eq(
            run(ctx, &[("s", completed(&user, &w.id))])?,
            Vec::<String>::new(),
            "card",
        )?;
        cards.push((answer, newest_card(ctx, &user)));
    }
    let (answer, good) = &cards[0];
    eq(
        good["summary"].as_str(),
        Some(*answer),
        "the model's summary",
    )?;
    eq(good["summary_source"].as_str(), Some("model"), "source")?;
    let (_, invented) = &cards[1];
    eq(
        invented["summary_source"].as_str(),
        Some("rules"),
        "rejected",
    )?;
    check(
        invented["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("Push: 3 working sets, 1425 kg moved")),
        format!("the rules' summary stays: {}", invented["summary"]),
    )
}

/// The weekly review's summary, written by the model when it states only the review's facts.
fn weekly_review_narrative_is_checked_against_the_facts(ctx: &Ctx) -> Result<(), Failed> {
    // A week of its own (40 weeks back), so that no other case's review meets these replies.
    let sunday =
        coach::app::jobs::previous_sunday(Utc::now().date_naive()) - chrono::Days::new(7 * 40);
    let week = coach::domain::calendar::iso_week_id(sunday);
    let mut reviews = Vec::new();
    for (name, answer) in [
        (
            "good",
            "A steady week of pressing: your bench held its ground. Keep the plan as it is.",
        ),
        (
            "invented",
            "You moved 9999 kg this week, your best week ever.",
        ),
    ] {
        let user = unique_user(&format!("w-narr-{name}"));
        let days_ago = (Utc::now().date_naive() - sunday).num_days() + 2;
        ctx.rt.block_on(
            ctx.stack
                .store
                .put_completed_workout(&user, &bench_session(days_ago, &[(95.0, 5, 2); 3])),
        )?;
        let reply = json!({ "summary": answer }).to_string();
        ctx.model.reply_for(&week, Reply::text(&[&reply]));
        let job = json!({"type": "weekly_review", "user_id": user, "week_ending": sunday});
        eq(
            run(ctx, &[("n", job.to_string())])?,
            Vec::<String>::new(),
            "review",
        )?;
        let r = ctx
            .rt
            .block_on(ctx.stack.store.latest_review(&user))?
            .unwrap_or_default();
        reviews.push((answer, r));
    }
    let (answer, good) = &reviews[0];
    eq(
        good["id"].as_str(),
        Some(week.as_str()),
        "the week asked for",
    )?;
    eq(
        good["summary"].as_str(),
        Some(*answer),
        "the model's summary",
    )?;
    eq(good["summary_source"].as_str(), Some("model"), "source")?;
    let (_, invented) = &reviews[1];
    eq(
        invented["summary_source"].as_str(),
        Some("rules"),
        "rejected",
    )?;
    check(
        invented["summary"]
            .as_str()
            .is_some_and(|s| !s.contains("9999")),
        format!("the rules' summary stays: {}", invented["summary"]),
    )
}

/// `devstack job --dry-run` prints the card and writes nothing; without it the job runs once.
fn operator_runs_a_job_dry(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-operator");
    let w = seed_bench(ctx, &user)?;
    let devstack = |args: &[&str]| -> Result<Value, Failed> {
        let out =
            std::process::Command::new(blackbox::workspace_root().join("target/debug/devstack"))
                .args(args)
                .env("TABLE_NAME", blackbox::TABLE)
                .env("AWS_ENDPOINT_URL_DYNAMODB", &ctx.stack.dynoxide.endpoint)
                .env("AWS_REGION", "us-east-1")
                .env("AWS_ACCESS_KEY_ID", "test")
                .env("AWS_SECRET_ACCESS_KEY", "test")
                .output()?;
        check(
            out.status.success(),
            format!(
                "devstack {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
        )?;
        Ok(serde_json::from_slice(&out.stdout)?)
    };
    let job = completed(&user, &w);
    let card = devstack(&["job", "--dry-run", &job])?;
    eq(card["workout_id"].as_str(), Some(w.as_str()), "the card")?;
    eq(
        count(ctx, &user, "INSIGHT#")?,
        0,
        "a dry run writes no card",
    )?;
    eq(count(ctx, &user, "JOB#")?, 0, "and claims nothing")?;
    eq(count(ctx, &user, "BEST#")?, 0, "nor keeps a best")?;
    let fan_out = devstack(&["job", "--dry-run", r#"{"type":"weekly_review_fanout"}"#])?;
    check(
        fan_out["would_review"].is_array(),
        format!("the fan-out lists users: {fan_out}"),
    )?;
    let done = devstack(&["job", &job])?;
    eq(&done["id"], &card["id"], "the same card, written")?;
    eq(count(ctx, &user, "INSIGHT#")?, 1, "written once")?;
    let again = devstack(&["job", &job])?;
    eq(
        again["duplicate"].as_bool(),
        Some(true),
        "a second run is a duplicate",
    )
}

fn card_once_under_redelivery(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-card");
    let w = seed_bench(ctx, &user)?;
    // The same message twice in one batch, then redelivered in another.
    let failed = run(
        ctx,
        &[("m1", completed(&user, &w)), ("m2", completed(&user, &w))],
    )?;
    eq(failed, Vec::<String>::new(), "both records succeed")?;
    let failed = run(ctx, &[("m1-again", completed(&user, &w))])?;
    eq(failed, Vec::<String>::new(), "the redelivery succeeds")?;
    eq(count(ctx, &user, "INSIGHT#")?, 1, "one card")?;
    // The workout's best e1RM (its sets are rated) is kept for the monitor's records.
    eq(count(ctx, &user, "BEST#")?, 1, "one stored best")?;
    let card = &newest_card(ctx, &user);
    eq(
        card["workout_id"].as_str(),
        Some(w.as_str()),
        "the card's workout",
    )?;
    eq(card["type"].as_str(), Some("post_workout"), "type")?;
    // 95 × 5 at RIR 2: e1RM 95 × (1 + 7/30) = 117.2 over 90 × 7/30 → 111.0.
    eq(
        card["highlights"][0]["message"].as_str(),
        Some("New estimated 1RM on Bench Press: 117.2 kg (was 111 kg)"),
        "the record",
    )?;
    check(
        card["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("Push: 3 working sets, 1425 kg moved in 60 minutes.")),
        format!("summary: {}", card["summary"]),
    )
}

fn poison_records_fail_alone(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-poison");
    let w = seed_bench(ctx, &user)?;
    let failed = run(
        ctx,
        &[
            ("good", completed(&user, &w)),
            ("not-json", "{not json".into()),
            (
                "unknown",
                json!({"type": "daily_brief", "user_id": user}).to_string(),
            ),
            (
                "missing",
                json!({"type": "workout_completed", "user_id": user}).to_string(),
            ),
            ("no-workout", completed(&user, "w-does-not-exist")),
        ],
    )?;
    // A card for a workout deleted before the job ran is done, not delivered again until it
    // dead-letters (and alarms): the history is read strongly consistent, so it is not one
    // still being written.
    eq(
        failed,
        vec!["not-json".to_string(), "unknown".into(), "missing".into()],
        "exactly the bad records are reported",
    )?;
    eq(count(ctx, &user, "INSIGHT#")?, 1, "the good record's card")?;
    // The job for the missing workout gave its claim back: nothing is left holding it.
    eq(
        count(ctx, &user, "JOB#workout_completed#w-does-not-exist")?,
        0,
        "no claim left behind",
    )
}

fn crashed_run_is_retried(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-crash");
    let w = seed_bench(ctx, &user)?;
    let sk = format!("JOB#workout_completed#{w}");
    let now = Utc::now();
    // A run that is still going (its lease is live): the record fails and is redelivered later.
    let live = ctx.rt.block_on(ctx.stack.store.claim_job(
        &user,
        &sk,
        now + Duration::minutes(5),
        false,
        now,
    ))?;
    check(
        matches!(live, Claim::Claimed { .. }),
        "claimed by the other run",
    )?;
    eq(
        run(ctx, &[("busy", completed(&user, &w))])?,
        vec!["busy".to_string()],
        "busy",
    )?;
    eq(
        count(ctx, &user, "INSIGHT#")?,
        0,
        "nothing written meanwhile",
    )?;
    // Another run crashed: its claim is left with a lease that has ended. The redelivery
    // takes the job over and finishes it.
    let user2 = unique_user("w-crash2");
    let w2 = seed_bench(ctx, &user2)?;
    let sk2 = format!("JOB#workout_completed#{w2}");
    ctx.rt.block_on(ctx.stack.store.claim_job(
        &user2,
        &sk2,
        now - Duration::seconds(1),
        false,
        now - Duration::minutes(1),
    ))?;
    eq(
        run(ctx, &[("retry", completed(&user2, &w2))])?,
        Vec::<String>::new(),
        "retried",
    )?;
    eq(
        count(ctx, &user2, "INSIGHT#")?,
        1,
        "one card after the crash",
    )?;
    eq(
        run(ctx, &[("again", completed(&user2, &w2))])?,
        Vec::<String>::new(),
        "a later duplicate is acknowledged",
    )?;
    eq(count(ctx, &user2, "INSIGHT#")?, 1, "still one card")
}

fn weekly_review_rewritten_not_duplicated(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-review");
    seed_bench(ctx, &user)?;
    let today = Utc::now().date_naive();
    let job = json!({"type": "weekly_review", "user_id": user, "week_ending": today}).to_string();
    eq(
        run(ctx, &[("r1", job.clone())])?,
        Vec::<String>::new(),
        "first review",
    )?;
    let first = ctx.rt.block_on(ctx.stack.store.latest_review(&user))?;
    // A workout added to the week (an import, say), and the review asked for again.
    ctx.rt.block_on(
        ctx.stack
            .store
            .put_completed_workout(&user, &bench_session(0, &[(95.0, 5, 2); 2])),
    )?;
    eq(
        run(ctx, &[("r2", job)])?,
        Vec::<String>::new(),
        "second review",
    )?;
    eq(count(ctx, &user, "REVIEW#")?, 1, "one review for the week")?;
    let second = ctx
        .rt
        .block_on(ctx.stack.store.latest_review(&user))?
        .unwrap_or_default();
    let first = first.unwrap_or_default();
    eq(
        first["id"].clone(),
        second["id"].clone(),
        "the same ISO week",
    )?;
    let sets = |r: &Value| r["training_load"]["sets"].as_u64().unwrap_or(0);
    eq(
        sets(&second),
        sets(&first) + 2,
        "rewritten with the new sets",
    )
}

/// A lifter deletes the account while jobs about it wait in the queue (their workout's card,
/// the week's review, a health reading): delivered after the deletion, they write nothing and
/// send nothing.
fn jobs_queued_before_an_account_deletion_leave_nothing(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-gone");
    let w = seed_bench(ctx, &user)?;
    let today = Utc::now().date_naive();
    let jobs = [
        ("d1", completed(&user, &w)),
        (
            "d2",
            json!({"type": "weekly_review", "user_id": user, "week_ending": today}).to_string(),
        ),
        (
            "d3",
            health(
                &user,
                "resting_heart_rate",
                80.0,
                60.0,
                &Utc::now().to_rfc3339(),
            ),
        ),
    ];
    let deleted = ctx.rt.block_on(call_json(
        &ctx.http,
        "DELETE",
        format!("{}/v1/me", ctx.stack.base),
        &user,
        None,
    ));
    eq(deleted.status, 200, &format!("deleted: {}", deleted.body))?;
    let failed = run(ctx, &jobs)?;
    let left = ctx.rt.block_on(ctx.stack.store.user_items(&user))?;
    let keys: Vec<String> = left.iter().map(|i| i.key.clone()).collect();
    eq(
        keys,
        Vec::<String>::new(),
        &format!("items left (failed records {failed:?})"),
    )?;
    let pushed = ctx
        .sns
        .published()
        .into_iter()
        .filter(|p| p.attribute("user_id") == Some(user.as_str()))
        .count();
    eq(pushed, 0, "pushes to a deleted account")?;
    eq(
        failed,
        Vec::<String>::new(),
        "no record is retried for ever",
    )
}

/// A time this many hours ago, as a job carries it.
fn hours_ago(h: i64) -> String {
    (Utc::now() - Duration::hours(h)).to_rfc3339()
}

fn health(user: &str, metric: &str, value: f64, baseline: f64, at: &str) -> String {
    json!({"type": "health_metric_changed", "user_id": user, "metric": metric,
           "value": value, "baseline": baseline, "observed_at": at})
    .to_string()
}

fn decision(ctx: &Ctx, user: &str) -> Result<Value, Failed> {
    let page = ctx
        .rt
        .block_on(ctx.stack.store.page(user, "HEALTH#", 1, None, Utc::now()))?;
    Ok(page.items.into_iter().next().unwrap_or_default())
}

fn health_gate_reasons(ctx: &Ctx) -> Result<(), Failed> {
    // Sent: a resting heart rate 15 % up, for a lifter with default settings. Redelivered: once.
    let user = unique_user("w-hr");
    let job = health(&user, "resting_heart_rate", 69.0, 60.0, &hours_ago(2));
    eq(
        run(ctx, &[("h1", job.clone()), ("h2", job)])?,
        Vec::<String>::new(),
        "sent",
    )?;
    let d = decision(ctx, &user)?;
    eq(d["sent"].as_bool(), Some(true), &format!("decision: {d}"))?;
    eq(count(ctx, &user, "NOTIFY#")?, 1, "one notification")?;
    // Published to the topic once, after it was stored.
    let pushed = |u: &str| {
        ctx.sns
            .published()
            .into_iter()
            .filter(|p| p.attribute("user_id") == Some(u))
            .collect::<Vec<_>>()
    };
    let p = pushed(&user);
    eq(p.len(), 1, "one push")?;
    eq(p[0].topic(), Some(TOPIC), "topic")?;
    eq(
        p[0].attribute("notification_id"),
        d["notification_id"].as_str(),
        "the stored notification's id",
    )?;
    eq(
        p[0].message()["source"].as_str(),
        Some("health_metric"),
        "message",
    )?;
    // Not significant: recorded, nothing sent.
    let calm = unique_user("w-calm");
    run(
        ctx,
        &[(
            "h3",
            health(&calm, "resting_heart_rate", 61.0, 60.0, &hours_ago(2)),
        )],
    )?;
    let d = decision(ctx, &calm)?;
    eq(
        d["assessment"]["significant"].as_bool(),
        Some(false),
        "not significant",
    )?;
    eq(count(ctx, &calm, "NOTIFY#")?, 0, "nothing sent")?;
    // The gate's three reasons.
    let off = unique_user("w-off");
    let profile = Profile {
        notification_preference: NotificationPreference::Off,
        ..Profile::default()
    };
    ctx.rt
        .block_on(ctx.stack.store.put_profile(&off, &profile))?;
    let quiet = unique_user("w-quiet");
    let now = Utc::now().time();
    let profile = Profile {
        quiet_hours: Some(QuietHours {
            start: now - Duration::hours(1),
            end: now + Duration::hours(1),
        }),
        ..Profile::default()
    };
    ctx.rt
        .block_on(ctx.stack.store.put_profile(&quiet, &profile))?;
    let busy = unique_user("w-limit");
    let earlier = Notification {
        id: "n-earlier".into(),
        message: "Check in".into(),
        priority: Priority::Normal,
        source: "checkin_prompt".into(),
        channel: "in_app".into(),
        created_at: Utc::now() - Duration::hours(1),
    };
    ctx.rt
        .block_on(ctx.stack.store.send_notification(&busy, &earlier))?;
    for (u, id) in [(&off, "g1"), (&quiet, "g2"), (&busy, "g3")] {
        run(ctx, &[(id, health(u, "hrv", 35.0, 50.0, &hours_ago(3)))])?;
    }
    for (u, why) in [
        (&off, "preference_off"),
        (&quiet, "quiet_hours"),
        (&busy, "rate_limited"),
    ] {
        let d = decision(ctx, u)?;
        eq(d["sent"].as_bool(), Some(false), why)?;
        eq(d["suppressed"].as_str(), Some(why), &format!("reason: {d}"))?;
    }
    eq(
        count(ctx, &busy, "NOTIFY#")?,
        1,
        "only the earlier notification",
    )?;
    // A job delivered days after its reading (a redrive): decided, and told to nobody.
    let late = unique_user("w-late");
    run(
        ctx,
        &[("g4", health(&late, "hrv", 35.0, 50.0, &hours_ago(24 * 4)))],
    )?;
    let d = decision(ctx, &late)?;
    eq(
        (d["sent"].as_bool(), d["suppressed"].as_str()),
        (Some(false), Some("stale")),
        &format!("late: {d}"),
    )?;
    for u in [&calm, &off, &quiet, &busy, &late] {
        eq(pushed(u).len(), 0, "nothing pushed when nothing was sent")?;
    }
    Ok(())
}

/// `make smoke`'s journey (`devstack smoke`) against this local stack, as a new user: it must
/// keep passing here so that it still works against a deployed stack.
fn the_smoke_journey_passes(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("smoke");
    let out = std::process::Command::new(blackbox::devstack_bin())
        .args(["smoke", "--url", &ctx.stack.base, "--user", &user])
        .output()
        .map_err(|e| format!("devstack is built by the test command: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    check(
        out.status.success() && text.contains("smoke: ok"),
        format!(
            "smoke: {}\n{text}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    )?;
    // It ran as the app would: the workout it logged is stored, completed, with its sets.
    let url = format!("{}/v1/workouts?limit=1", ctx.stack.base);
    let r = ctx
        .rt
        .block_on(call_json(&ctx.http, "GET", url, &user, None));
    eq(r.status, 200, "history")?;
    eq(
        r.body["items"][0]["name"].as_str(),
        Some("Smoke test"),
        "the smoke workout in the history",
    )
}

// ------------------------------------------------ health samples in, pushes out to phones

use blackbox::APNS_APP;
const FCM_APP: &str = "arn:aws:sns:us-east-1:000000000000:app/GCM/coach";

fn api(
    ctx: &Ctx,
    method: &str,
    path: &str,
    user: &str,
    body: Option<Value>,
) -> blackbox::JsonReply {
    ctx.rt.block_on(call_json(
        &ctx.http,
        method,
        format!("{}{path}", ctx.stack.base),
        user,
        body,
    ))
}

/// 21 days of HRV around 50 ms (one of them a strap's bad 5 ms), each at this time of day on
/// the days before yesterday, and today's `today` ms a minute ago: whatever the hour, each
/// reading falls on a day of its own.
fn hrv_batch(today: f64) -> Value {
    let now = Utc::now();
    let mut samples: Vec<Value> = (2..=22)
        .map(|d| {
            json!({"id": format!("hk-hrv-{d}"), "metric": "hrv", "unit": "ms",
                   "value": if d == 9 { 5.0 } else { 50.0 },
                   "observed_at": (now - Duration::days(d)).to_rfc3339(), "source": "apple_watch"})
        })
        .collect();
    samples.push(
        json!({"id": "hk-hrv-today", "metric": "hrv", "unit": "ms", "value": today,
        "observed_at": (now - Duration::minutes(1)).to_rfc3339(), "source": "apple_watch"}),
    );
    json!({ "samples": samples })
}

fn register(ctx: &Ctx, user: &str, platform: &str, token: &str) -> Result<String, Failed> {
    let r = api(
        ctx,
        "POST",
        "/v1/devices",
        user,
        Some(json!({"platform": platform, "token": token})),
    );
    eq(r.status, 201, &format!("registered: {}", r.body))?;
    Ok(r.body["id"].as_str().unwrap_or_default().to_string())
}

/// The endpoint ARN of a lifter's phone token (on the fake).
fn endpoint_of(ctx: &Ctx, token: &str) -> Option<String> {
    ctx.sns
        .endpoints()
        .into_iter()
        .find(|e| e.token == token)
        .map(|e| e.arn)
}

/// Pushes to one endpoint.
fn pushes_to(ctx: &Ctx, arn: &str) -> Vec<blackbox::fake_sns::Published> {
    ctx.sns
        .published()
        .into_iter()
        .filter(|p| p.target() == Some(arn))
        .collect()
}

fn a_departure_from_baseline_pushes_once_to_each_phone(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-push");
    let (iphone, pixel) = (format!("{:0>64}", "a1"), format!("fcm:{user}"));
    register(ctx, &user, "apns", &iphone)?;
    register(ctx, &user, "fcm", &pixel)?;
    let batch = hrv_batch(35.0);
    let r = api(
        ctx,
        "POST",
        "/v1/health/samples",
        &user,
        Some(batch.clone()),
    );
    eq(r.status, 200, &format!("batch: {}", r.body))?;
    eq(r.body["accepted"].as_u64(), Some(22), "stored")?;
    let m = &r.body["metrics"][0];
    eq(
        m["baseline"].as_f64(),
        Some(50.0),
        &format!("the median shrugs off the 5 ms day: {m}"),
    )?;
    eq(m["baseline_days"].as_u64(), Some(21), "days")?;
    eq(m["queued"].as_bool(), Some(true), "a 30 % drop is queued")?;
    // The worker decided, stored one notification and pushed it to each phone once.
    let feed = api(ctx, "GET", "/v1/notifications", &user, None);
    let items = feed.body["items"].as_array().cloned().unwrap_or_default();
    eq(items.len(), 1, &format!("one notification: {}", feed.body))?;
    eq(
        items[0]["source"].as_str(),
        Some("health_metric"),
        "from the health decision",
    )?;
    let (a, f) = (
        endpoint_of(ctx, &iphone).ok_or("the iPhone has an endpoint")?,
        endpoint_of(ctx, &pixel).ok_or("the Pixel has an endpoint")?,
    );
    let (to_a, to_f) = (pushes_to(ctx, &a), pushes_to(ctx, &f));
    eq((to_a.len(), to_f.len()), (1, 1), "one push per phone")?;
    let aps = to_a[0].platform_payload("APNS");
    check(
        aps["aps"]["alert"]["body"]
            .as_str()
            .is_some_and(|b| b.contains("HRV is 35")),
        format!("the iPhone's alert says what changed: {aps}"),
    )?;
    eq(
        aps["notification_id"].clone(),
        items[0]["id"].clone(),
        "the stored notification's id",
    )?;
    let fcm = to_f[0].platform_payload("GCM");
    eq(
        fcm["fcmV1Message"]["message"]["data"]["notification_id"].clone(),
        items[0]["id"].clone(),
        "the Android payload (FCM v1) names it too",
    )?;
    // The app sends the same batch again (a retry): nothing stored twice, no second push.
    let again = api(ctx, "POST", "/v1/health/samples", &user, Some(batch));
    eq(
        (
            again.body["accepted"].as_u64(),
            again.body["duplicates"].as_u64(),
        ),
        (Some(0), Some(22)),
        "a retry stores nothing",
    )?;
    eq(count(ctx, &user, "HSAMPLE#")?, 22, "samples stored once")?;
    eq(count(ctx, &user, "NOTIFY#")?, 1, "still one notification")?;
    eq(
        (pushes_to(ctx, &a).len(), pushes_to(ctx, &f).len()),
        (1, 1),
        "still one push per phone",
    )
}

fn quiet_hours_hold_the_push(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-quiet");
    let now = Utc::now();
    let hm = |t: chrono::DateTime<Utc>| t.format("%H:%M").to_string();
    let me = api(
        ctx,
        "PATCH",
        "/v1/me",
        &user,
        Some(json!({"timezone": "UTC", "quiet_hours": {
            "start": hm(now - Duration::hours(1)), "end": hm(now + Duration::hours(1))}})),
    );
    eq(me.status, 200, &format!("quiet hours set: {}", me.body))?;
    let token = format!("{:0>64}", "b2");
    register(ctx, &user, "apns", &token)?;
    let r = api(
        ctx,
        "POST",
        "/v1/health/samples",
        &user,
        Some(hrv_batch(35.0)),
    );
    eq(
        r.body["metrics"][0]["queued"].as_bool(),
        Some(true),
        "queued",
    )?;
    let d = decision(ctx, &user)?;
    eq(
        d["suppressed"].as_str(),
        Some("quiet_hours"),
        &format!("held: {d}"),
    )?;
    eq(count(ctx, &user, "NOTIFY#")?, 0, "no notification")?;
    let arn = endpoint_of(ctx, &token).ok_or("an endpoint")?;
    eq(pushes_to(ctx, &arn).len(), 0, "no push in quiet hours")
}

fn phones_come_and_go(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-dev");
    let token = format!("{:0>64}", "c3");
    // Registered twice (the app does at every start): one phone.
    let id = register(ctx, &user, "apns", &token)?;
    eq(
        register(ctx, &user, "apns", &token)?,
        id.clone(),
        "the same phone",
    )?;
    let list = api(ctx, "GET", "/v1/devices", &user, None);
    eq(
        list.body["items"].as_array().map(Vec::len),
        Some(1),
        &format!("{}", list.body),
    )?;
    check(
        list.body.to_string().find("arn:").is_none(),
        "the endpoint is not shown",
    )?;
    // A bad platform or token: a 400, nothing registered.
    for bad in [
        json!({"platform": "webpush", "token": "x"}),
        json!({"platform": "fcm", "token": "a b"}),
    ] {
        let r = api(ctx, "POST", "/v1/devices", &user, Some(bad));
        eq(r.status, 400, &format!("refused: {}", r.body))?;
    }
    eq(count(ctx, &user, "DEVICE#")?, 1, "still one")?;
    // Removed: the endpoint goes too; removing it again is a 404.
    let del = api(ctx, "DELETE", &format!("/v1/devices/{id}"), &user, None);
    eq(del.status, 200, "removed")?;
    eq(endpoint_of(ctx, &token), None, "the endpoint is deleted")?;
    eq(
        api(ctx, "DELETE", &format!("/v1/devices/{id}"), &user, None).status,
        404,
        "gone",
    )?;

    // A phone another lifter signed in on since: not pushed to for the first, and forgotten.
    let (first, second) = (unique_user("w-dev1"), unique_user("w-dev2"));
    let shared = format!("{:0>64}", "d4");
    register(ctx, &first, "apns", &shared)?;
    register(ctx, &second, "apns", &shared)?;
    api(
        ctx,
        "POST",
        "/v1/health/samples",
        &first,
        Some(hrv_batch(35.0)),
    );
    eq(
        count(ctx, &first, "NOTIFY#")?,
        1,
        "the first lifter's notification is stored",
    )?;
    let arn = endpoint_of(ctx, &shared).ok_or("an endpoint")?;
    eq(
        pushes_to(ctx, &arn).len(),
        0,
        "not pushed to the second lifter's phone",
    )?;
    eq(
        count(ctx, &first, "DEVICE#")?,
        0,
        "and forgotten by the first",
    )?;
    eq(count(ctx, &second, "DEVICE#")?, 1, "but still the second's")?;

    // A phone whose app was removed (the platform disabled the token): forgotten at the push.
    let gone = unique_user("w-dev3");
    let old = format!("fcm:{gone}");
    register(ctx, &gone, "fcm", &old)?;
    ctx.sns.disable(&old);
    api(
        ctx,
        "POST",
        "/v1/health/samples",
        &gone,
        Some(hrv_batch(35.0)),
    );
    eq(count(ctx, &gone, "NOTIFY#")?, 1, "stored for the app")?;
    eq(
        count(ctx, &gone, "DEVICE#")?,
        0,
        "the disabled phone is forgotten",
    )?;
    eq(endpoint_of(ctx, &old), None, "and its endpoint deleted")
}

fn health_samples_are_checked_and_weigh_ins_set_the_bodyweight(ctx: &Ctx) -> Result<(), Failed> {
    let user = unique_user("w-bw");
    let now = Utc::now();
    let at = |h: i64| (now - Duration::hours(h)).to_rfc3339();
    // One bad sample refuses the batch whole, naming it.
    let bad = json!({"samples": [
        {"id": "s1", "metric": "resting_heart_rate", "value": 58, "unit": "bpm", "observed_at": at(1)},
        {"id": "s2", "metric": "resting_heart_rate", "value": 58, "unit": "ms", "observed_at": at(1)}]});
    let r = api(ctx, "POST", "/v1/health/samples", &user, Some(bad));
    eq(r.status, 400, &format!("{}", r.body))?;
    eq(
        r.body["error"]["field"].as_str(),
        Some("samples[1].unit"),
        "names the sample",
    )?;
    eq(count(ctx, &user, "HSAMPLE#")?, 0, "nothing stored")?;
    // A full batch (500 readings, about 75 KB: far more than a chat message) is taken whole;
    // one more is refused whole.
    let steps = |n: usize| {
        let samples: Vec<Value> = (0..n)
            .map(|i| {
                json!({"id": format!("hc-steps-{i}"), "metric": "steps", "value": 8000 + i,
                "unit": "count", "observed_at": at(1 + (i as i64) * 3), "source": "health_connect"})
            })
            .collect();
        json!({ "samples": samples })
    };
    let r = api(ctx, "POST", "/v1/health/samples", &user, Some(steps(501)));
    eq(
        r.body["error"]["field"].as_str(),
        Some("samples"),
        &format!("501: {}", r.body),
    )?;
    let r = api(ctx, "POST", "/v1/health/samples", &user, Some(steps(500)));
    eq(
        r.body["accepted"].as_u64(),
        Some(500),
        &format!("500: {}", r.body),
    )?;
    // Too few days for a baseline: stored, said, not queued.
    let few = json!({"samples": [
        {"id": "r1", "metric": "resting_heart_rate", "value": 58, "unit": "bpm", "observed_at": at(50)},
        {"id": "r2", "metric": "resting_heart_rate", "value": 75, "unit": "count/min", "observed_at": at(1)}]});
    let r = api(ctx, "POST", "/v1/health/samples", &user, Some(few));
    let m = &r.body["metrics"][0];
    eq(
        (m["queued"].as_bool(), m["baseline"].is_null()),
        (Some(false), true),
        &format!("{m}"),
    )?;
    // A weigh-in in pounds becomes the profile's bodyweight; an older one does not replace it.
    let w = |id: &str, lb: f64, h: i64| {
        json!({"samples": [{"id": id, "metric": "body_weight",
        "value": lb, "unit": "lb", "observed_at": at(h), "source": "withings"}]})
    };
    let r = api(
        ctx,
        "POST",
        "/v1/health/samples",
        &user,
        Some(w("w1", 180.0, 2)),
    );
    eq(
        r.body["bodyweight_kg"].as_f64(),
        Some(81.647),
        &format!("{}", r.body),
    )?;
    api(
        ctx,
        "POST",
        "/v1/health/samples",
        &user,
        Some(w("w0", 170.0, 72)),
    );
    let me = api(ctx, "GET", "/v1/me", &user, None);
    eq(
        me.body["bodyweight_kg"].as_f64(),
        Some(81.647),
        &format!("the newest weigh-in: {}", me.body),
    )
}
