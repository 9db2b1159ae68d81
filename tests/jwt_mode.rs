//! The API functions in their deployed mode, `AUTH_MODE=jwt` (the default), driven with the
//! events API Gateway sends them: REST v1 proxy events whose `requestContext.authorizer.claims`
//! carry the Cognito user (`sub`), through cargo lambda's invoke endpoint. What must hold for
//! the copilot, a functional route and the stream alike (README, configuration: AUTH_MODE):
//! - the user is the claim's `sub`; an `x-user-id` header is ignored;
//! - a prefix `user_id` equal to it is fine, a different one is 403 `USER_MISMATCH`;
//! - without a claim there is no identity: 401 `UNAUTHENTICATED`, whatever header or prefix
//!   the request carries, also on the local function URL.

use blackbox::{
    Stack, check, eq, run_cases, sample_workout, test_runtime, unique_user, unselected,
};
use libtest_mimic::{Arguments, Conclusion, Failed};
use serde_json::{Value, json};

struct Ctx {
    stack: Stack,
    http: reqwest::Client,
    rt: tokio::runtime::Handle,
}

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "jwt_mode";
    let cases: Vec<blackbox::Case<Ctx>> = vec![
        (
            "identity_is_the_claim_and_the_header_is_ignored",
            identity_is_the_claim_and_the_header_is_ignored,
        ),
        (
            "a_prefix_user_id_must_be_the_claim",
            a_prefix_user_id_must_be_the_claim,
        ),
        ("no_claim_is_a_401", no_claim_is_a_401),
        (
            "deleting_the_account_needs_a_recent_sign_in",
            deleting_the_account_needs_a_recent_sign_in,
        ),
    ];
    if let Some(skipped) = unselected(args, SUITE, &cases) {
        return skipped;
    }
    let rt = test_runtime();
    let stack = rt.block_on(Stack::start_with(&[("AUTH_MODE", "jwt".to_string())]));
    let ctx = Ctx {
        stack,
        http: blackbox::http_client(),
        rt: rt.handle().clone(),
    };
    run_cases(args, SUITE, rt, ctx, cases)
}

/// The routes: (function, method, path, message body or none).
const ROUTES: [(&str, &str, &str, bool); 3] = [
    ("fast", "POST", "/v1/copilot", true),
    ("functional", "GET", "/v1/workouts/active", false),
    ("slow", "POST", "/v1/stream", true),
];

/// A REST v1 proxy event as API Gateway sends it behind the Cognito authorizer (`sub`: the
/// claim, or none), with an `x-user-id` header when `header` is given.
fn event(
    method: &str,
    path: &str,
    message: Option<&str>,
    sub: Option<&str>,
    header: Option<&str>,
) -> Value {
    let mut headers = json!({"content-type": "application/json", "Host": "abc123.execute-api.us-east-1.amazonaws.com"});
    if let Some(h) = header {
        headers["x-user-id"] = json!(h);
    }
    let multi: serde_json::Map<String, Value> = headers
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), json!([v])))
        .collect();
    let mut context = json!({
        "resourcePath": path, "httpMethod": method, "path": format!("/prod{path}"),
        "accountId": "123456789012", "stage": "prod", "requestId": unique_user("req"),
        "identity": {"sourceIp": "203.0.113.10", "userAgent": "CoachApp/1.0"},
        "domainName": "abc123.execute-api.us-east-1.amazonaws.com", "apiId": "abc123",
        "protocol": "HTTP/1.1", "requestTimeEpoch": 1_795_341_600_000u64,
    });
    if let Some(sub) = sub {
        context["authorizer"] = json!({"claims": {"sub": sub, "token_use": "id"}});
    }
    json!({
        "resource": path, "path": path, "httpMethod": method,
        "headers": headers, "multiValueHeaders": multi,
        "queryStringParameters": null, "multiValueQueryStringParameters": null,
        "pathParameters": null, "stageVariables": null,
        "requestContext": context,
        "body": message.map(|m| json!({"message": m}).to_string()),
        "isBase64Encoded": false,
    })
}

/// An answer: status and body (the proxy response's, or the stream's).
struct Answer {
    status: u16,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    fn code(&self) -> Option<String> {
        self.json()["error"]["code"].as_str().map(str::to_string)
    }
}

/// Invokes `function` with `event` through cargo lambda's invoke endpoint. A buffered function
/// answers the proxy response JSON; the streaming one answers its status and stream.
fn invoke(ctx: &Ctx, function: &str, event: &Value) -> Result<Answer, Failed> {
    let url = format!(
        "http://127.0.0.1:{}/2015-03-31/functions/{function}/invocations",
        ctx.stack.port
    );
    let (status, text) = ctx.rt.block_on(async {
        let resp = ctx.http.post(url).body(event.to_string()).send().await?;
        let status = resp.status().as_u16();
        Ok::<_, reqwest::Error>((status, resp.text().await?))
    })?;
    if function == "slow" {
        return Ok(Answer { status, body: text });
    }
    let proxy: Value = serde_json::from_str(&text)?;
    Ok(Answer {
        status: proxy["statusCode"].as_u64().unwrap_or(0) as u16,
        body: proxy["body"].as_str().unwrap_or_default().to_string(),
    })
}

/// The active workout the answer names, whatever the route's shape.
fn workout_named(function: &str, a: &Answer) -> Option<String> {
    let v = match function {
        "slow" => blackbox::parse_sse(&a.body)
            .into_iter()
            .find(|(k, _)| k == "message")
            .map(|(_, v)| v["data"]["workout_id"].clone())?,
        "functional" => a.json()["workout"]["id"].clone(),
        _ => a.json()["data"]["workout_id"].clone(),
    };
    v.as_str().map(str::to_string)
}

fn identity_is_the_claim_and_the_header_is_ignored(ctx: &Ctx) -> Result<(), Failed> {
    let lifter = unique_user("jwt-lifter");
    let intruder = unique_user("jwt-intruder");
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&lifter, &sample_workout("w-jwt", 2)),
    )?;
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&intruder, &sample_workout("w-intruder", 2)),
    )?;
    for (function, method, path, has_body) in ROUTES {
        let message = has_body.then_some("next");
        let a = invoke(
            ctx,
            function,
            &event(method, path, message, Some(&lifter), Some(&intruder)),
        )?;
        eq(a.status, 200, &format!("{function}: {}", a.body))?;
        eq(
            workout_named(function, &a).as_deref(),
            Some("w-jwt"),
            &format!("{function}: the claim's workout, not the header's"),
        )?;
    }
    Ok(())
}

fn a_prefix_user_id_must_be_the_claim(ctx: &Ctx) -> Result<(), Failed> {
    let lifter = unique_user("jwt-prefix");
    ctx.rt.block_on(
        ctx.stack
            .store
            .replace_active_workout(&lifter, &sample_workout("w-prefix", 2)),
    )?;
    for (function, _, path, _) in ROUTES {
        // Every route with a message body; the functional lane's is /v1/functional.
        let path = if function == "functional" {
            "/v1/functional"
        } else {
            path
        };
        let other = "(context: user_id=someone-else) next";
        let a = invoke(
            ctx,
            function,
            &event("POST", path, Some(other), Some(&lifter), None),
        )?;
        eq(a.status, 403, &format!("{function}: {}", a.body))?;
        eq(
            a.code().as_deref(),
            Some("USER_MISMATCH"),
            &format!("{function}: code"),
        )?;
        let same = format!("(context: user_id={lifter}) next");
        let a = invoke(
            ctx,
            function,
            &event("POST", path, Some(&same), Some(&lifter), None),
        )?;
        // The functional lane answers "next" as not its request (422, the lane to use); what
        // matters is that the identity was accepted.
        check(
            a.status == 200 || (function == "functional" && a.status == 422),
            format!(
                "{function}: the same user in the prefix: {} {}",
                a.status, a.body
            ),
        )?;
    }
    Ok(())
}

fn no_claim_is_a_401(ctx: &Ctx) -> Result<(), Failed> {
    let lifter = unique_user("jwt-none");
    for (function, method, path, has_body) in ROUTES {
        let prefixed = format!("(context: user_id={lifter}) next");
        let message = has_body.then_some(prefixed.as_str());
        let a = invoke(
            ctx,
            function,
            &event(method, path, message, None, Some(&lifter)),
        )?;
        eq(a.status, 401, &format!("{function}: {}", a.body))?;
        eq(
            a.code().as_deref(),
            Some("UNAUTHENTICATED"),
            &format!("{function}: code"),
        )?;
    }
    // The local function URL carries no authorizer either: the dev header is no identity here.
    let r = ctx.rt.block_on(blackbox::call_json(
        &ctx.http,
        "POST",
        format!("{}/v1/copilot", ctx.stack.base),
        &lifter,
        Some(json!({"message": "next"})),
    ));
    eq(r.status, 401, "function URL with x-user-id")?;
    eq(
        r.body["error"]["code"].as_str(),
        Some("UNAUTHENTICATED"),
        "code",
    )
}

/// A stolen token (valid for an hour) must not wipe an account: DELETE /v1/me needs a sign-in
/// (`auth_time`) of the last 5 minutes; an older one, or none, is a 403 and nothing is deleted.
fn deleting_the_account_needs_a_recent_sign_in(ctx: &Ctx) -> Result<(), Failed> {
    let sub = unique_user("deleter");
    let now = chrono::Utc::now().timestamp();
    let with_sign_in = |auth_time: Option<i64>| {
        let mut e = event("DELETE", "/v1/me", None, Some(&sub), None);
        if let Some(t) = auth_time {
            e["requestContext"]["authorizer"]["claims"]["auth_time"] = json!(t.to_string());
        }
        e
    };
    let seeded = event("POST", "/v1/workouts", Some("{}"), Some(&sub), None);
    let started = invoke(ctx, "functional", &seeded)?;
    eq(
        started.status,
        201,
        &format!("a workout to keep: {}", started.body),
    )?;
    for (auth_time, what) in [
        (Some(now - 45 * 60), "45 minutes ago"),
        (None, "no auth_time"),
    ] {
        let r = invoke(ctx, "functional", &with_sign_in(auth_time))?;
        eq(
            (r.status, r.code()),
            (403, Some("RECENT_SIGN_IN_REQUIRED".to_string())),
            what,
        )?;
    }
    let active = invoke(
        ctx,
        "functional",
        &event("GET", "/v1/workouts/active", None, Some(&sub), None),
    )?;
    eq(active.status, 200, "the workout is still there")?;
    let r = invoke(ctx, "functional", &with_sign_in(Some(now - 60)))?;
    eq(r.status, 200, &format!("a minute ago: {}", r.body))
}
