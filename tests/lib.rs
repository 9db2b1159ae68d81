//! Test support: processes the tests start on 127.0.0.1 (dynoxide, cargo lambda watch) and stop
//! again when dropped, plus fixtures built with the shared crate's own types.

pub mod coach_rig;
pub mod fake_model;
pub mod fake_secrets;
pub mod fake_sns;
pub mod fake_sqs;
pub mod fault_proxy;

// The one HTTP/1.1 request reader of the fakes, the fault proxy and devstack's Runtime APIs.
pub use devstack::http::{HttpRequest, read_http_request};

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::Utc;
use coach::domain::workout::{
    ExerciseInstance, SetResult, SetStatus, SetTarget, SetType, Workout, WorkoutSet, WorkoutStatus,
};
use coach::store::Store;

pub const TABLE: &str = "CoachTest";

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn wait_for_port(port: u16, timeout: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// The HTTP client of the black-box tests: a request (a stream read to its end included) that
/// takes ten minutes fails the case that made it, naming the request, instead of holding the
/// whole run until CI's own limit. Ten, not less: a function's first invocation may have cargo
/// lambda watch build it (a minute or two here, after a change or another build's features).
pub fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(600))
        .build()
        .expect("an HTTP client")
}

/// The devstack binary the test command builds (`cargo build --workspace`).
pub fn devstack_bin() -> PathBuf {
    std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| workspace_root().join("target"))
        .join("debug/devstack")
}

pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fake HTTP server on 127.0.0.1 (its own thread and runtime); every accepted connection is
/// handed to `serve`. Stops when dropped.
pub struct LoopbackServer {
    pub base: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LoopbackServer {
    pub fn start<F, Fut>(name: &str, serve: F) -> LoopbackServer
    where
        F: Fn(tokio::net::TcpStream) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap_or_else(|e| panic!("bind the {name}: {e}"));
        let port = std_listener.local_addr().expect("local addr").port();
        std_listener.set_nonblocking(true).expect("nonblocking");
        let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("fake server runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
                loop {
                    tokio::select! {
                        _ = &mut stopped => break,
                        accepted = listener.accept() => {
                            if let Ok((sock, _)) = accepted {
                                tokio::spawn(serve(sock));
                            }
                        }
                    }
                }
            });
            rt.shutdown_timeout(Duration::from_millis(200));
        });
        LoopbackServer {
            base: format!("http://127.0.0.1:{port}"),
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for LoopbackServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A child process in its own process group, stopped (with its children) on drop.
pub struct Proc(Child);

impl Proc {
    fn spawn(cmd: &mut Command) -> Proc {
        use std::os::unix::process::CommandExt;
        let child = cmd
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
        Proc(child)
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if matches!(self.0.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.wait();
    }
}

/// An in-memory local DynamoDB on a free loopback port: dynoxide, or AWS's own DynamoDB Local
/// when `STORE_BACKEND=dynamodb-local` (the jar's folder in `DYNAMODB_LOCAL_DIR`, run with
/// `java`), for the parity run of the store tests.
pub struct Dynoxide {
    pub endpoint: String,
    _proc: Proc,
}

impl Dynoxide {
    pub fn start() -> Dynoxide {
        let port = free_port();
        let (proc, wait) = if std::env::var("STORE_BACKEND").as_deref() == Ok("dynamodb-local") {
            let dir = std::env::var("DYNAMODB_LOCAL_DIR")
                .expect("DYNAMODB_LOCAL_DIR: the folder of DynamoDBLocal.jar");
            let proc = Proc::spawn(
                Command::new("java")
                    .current_dir(&dir)
                    .args([
                        "-Djava.library.path=./DynamoDBLocal_lib",
                        "-jar",
                        "DynamoDBLocal.jar",
                        "-inMemory",
                        "-disableTelemetry",
                        "-port",
                        &port.to_string(),
                    ])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null()),
            );
            // A JVM: seconds, not milliseconds.
            (proc, Duration::from_secs(60))
        } else {
            let bin = std::env::var("DYNOXIDE_BIN").unwrap_or_else(|_| "dynoxide".into());
            let proc = Proc::spawn(
                Command::new(bin)
                    .args([
                        "--host",
                        "127.0.0.1",
                        "--port",
                        &port.to_string(),
                        "--log",
                        "quiet",
                    ])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null()),
            );
            (proc, Duration::from_secs(10))
        };
        assert!(
            wait_for_port(port, wait),
            "the local store did not start on port {port}"
        );
        Dynoxide {
            endpoint: format!("http://127.0.0.1:{port}"),
            _proc: proc,
        }
    }

    /// A store client for this dynoxide, with the table created. DynamoDB Local's JVM accepts
    /// connections a moment before it answers them: the first call is retried for a while.
    pub async fn store(&self) -> Store {
        let store = Store::new(self.client().await, TABLE);
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match store.ensure_table().await {
                Ok(_) => return store,
                Err(e) if Instant::now() > deadline => panic!("table not created: {e}"),
                Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    }

    /// A plain DynamoDB client for this dynoxide, for what no product path does (editing a
    /// stored item behind the lanes' backs).
    pub async fn client(&self) -> aws_sdk_dynamodb::Client {
        aws_sdk_dynamodb::Client::new(&aws_config_for(&self.endpoint).await)
    }
}

async fn aws_config_for(endpoint: &str) -> aws_config::SdkConfig {
    aws_config::defaults(aws_config::BehaviorVersion::latest())
        .endpoint_url(endpoint)
        .region(aws_config::Region::new("us-east-1"))
        .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
            "test", "test", None, None, "tests",
        ))
        .load()
        .await
}

/// `cargo lambda watch` serving the workspace's binaries against a dynoxide, with AUTH_MODE=dev.
pub struct Stack {
    pub base: String,
    pub port: u16,
    pub store: Store,
    _watch: Proc,
    /// The proxy that records the functions' store calls for the IAM check, when the stack
    /// started its own (`start_on` is given the caller's).
    _recorder: Option<fault_proxy::FaultProxy>,
    pub dynoxide: Dynoxide,
}

impl Stack {
    pub async fn start() -> Stack {
        Stack::start_with(&[]).await
    }

    /// A stack whose functions also get `extra` environment variables (no commas in values;
    /// `AUTH_MODE` replaces the default `dev`).
    /// The functions reach the store through a proxy that injects no fault and records every
    /// call for the IAM check.
    pub async fn start_with(extra: &[(&str, String)]) -> Stack {
        let dynoxide = Dynoxide::start();
        let recorder = fault_proxy::FaultProxy::start(&dynoxide.endpoint, 1);
        let mut stack = Stack::start_on(dynoxide, &recorder.endpoint, extra).await;
        stack._recorder = Some(recorder);
        stack
    }

    /// A stack over `dynoxide` whose functions reach the store at `functions_store` (a
    /// [`fault_proxy::FaultProxy`] in front of it, which records their calls for the IAM
    /// check); `store` (the tests' own client) talks to dynoxide directly.
    pub async fn start_on(
        dynoxide: Dynoxide,
        functions_store: &str,
        extra: &[(&str, String)],
    ) -> Stack {
        let store = dynoxide.store().await;
        let port = free_port();
        // AUTH_MODE=dev unless `extra` says otherwise.
        let auth = extra
            .iter()
            .find(|(k, _)| *k == "AUTH_MODE")
            .map_or("dev", |(_, v)| v.as_str());
        // Completing a workout hands the job to the worker through the same watch process.
        let env = format!(
            "AUTH_MODE={auth},TABLE_NAME={TABLE},AWS_ENDPOINT_URL_DYNAMODB={functions_store},AWS_REGION=us-east-1,AWS_ACCESS_KEY_ID=test,AWS_SECRET_ACCESS_KEY=test,RUST_LOG=warn,WORKER_INVOKE_URL=http://127.0.0.1:{port}/2015-03-31/functions/worker/invocations",
        );
        let env = extra
            .iter()
            .filter(|(k, _)| *k != "AUTH_MODE")
            .fold(env, |acc, (k, v)| format!("{acc},{k}={v}"));
        let watch = Proc::spawn(
            Command::new("cargo")
                .args([
                    "lambda",
                    "watch",
                    "--ignore-changes",
                    "-A",
                    "127.0.0.1",
                    "-P",
                    &port.to_string(),
                    "--env-var",
                    &env,
                ])
                .current_dir(workspace_root())
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        assert!(
            wait_for_port(port, Duration::from_secs(60)),
            "cargo lambda watch did not start on port {port}"
        );
        Stack {
            base: format!("http://127.0.0.1:{port}"),
            port,
            store,
            _watch: watch,
            _recorder: None,
            dynoxide,
        }
    }
}

impl Stack {
    /// Runs one worker message through the worker's invoke endpoint, as SQS would deliver it;
    /// returns the invocation's HTTP status.
    pub async fn run_worker_job(
        &self,
        http: &reqwest::Client,
        job: &serde_json::Value,
    ) -> reqwest::Result<u16> {
        let resp = http
            .post(format!(
                "http://127.0.0.1:{}/2015-03-31/functions/worker/invocations",
                self.port
            ))
            .body(coach::queue::sqs_event(&job.to_string()).to_string())
            .send()
            .await?;
        Ok(resp.status().as_u16())
    }
}

/// A user id no other test uses.
pub fn unique_user(name: &str) -> String {
    format!(
        "t-{name}-{}",
        Utc::now().timestamp_nanos_opt().unwrap_or_default()
    )
}

fn planned(
    id: &str,
    set_type: SetType,
    reps: u32,
    kg: Option<f64>,
    rir: Option<u32>,
) -> WorkoutSet {
    WorkoutSet::planned(
        id,
        set_type,
        SetTarget {
            reps: Some(reps),
            weight_kg: kg,
            rir,
        },
    )
}

/// A working set planned at `plan` and done at `done`, both (kg, reps, RIR), completed `at`.
pub fn done_set(
    id: &str,
    plan: (f64, u32, u32),
    done: (f64, u32, u32),
    at: chrono::DateTime<Utc>,
) -> WorkoutSet {
    let mut s = WorkoutSet::planned(
        id,
        SetType::Working,
        SetTarget {
            reps: Some(plan.1),
            weight_kg: Some(plan.0),
            rir: Some(plan.2),
        },
    );
    s.status = SetStatus::Done;
    s.actual = Some(SetResult {
        reps: done.1,
        weight_kg: Some(done.0),
        rir: Some(done.2),
        rpe: None,
        failure: false,
        ..Default::default()
    });
    s.completed_at = Some(at);
    s
}

/// A completed session `days_ago` with bench sets done at (kg, reps, rir), two minutes apart.
pub fn bench_session(days_ago: i64, sets: &[(f64, u32, u32)]) -> Workout {
    let start = Utc::now() - chrono::Duration::days(days_ago);
    Workout {
        current_exercise: None,
        bodyweight_kg: None,
        id: format!("hist-{days_ago}"),
        name: "Push".into(),
        status: WorkoutStatus::Completed,
        started_at: start,
        completed_at: Some(start + chrono::Duration::hours(1)),
        template_id: Some("t-push".into()),
        routine_id: None,
        exercises: vec![ExerciseInstance {
            group: None,
            rest: None,
            instance_id: "e1".into(),
            exercise_id: "barbell-bench-press".into(),
            name: "Bench Press".into(),
            sets: sets
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    done_set(
                        &format!("h{i}"),
                        *d,
                        *d,
                        start + chrono::Duration::minutes(2 * i as i64),
                    )
                })
                .collect(),
            notes: None,
            rep_range: None,
            primary_muscles: Vec::new(),
        }],
        changes: vec![],
        notes: None,
    }
}

/// A template `id` of one exercise `(id, name)`: 3 working sets of 8 at 80 kg, RIR 2, range 6-8.
pub fn sample_template(
    id: &str,
    name: &str,
    exercise: (&str, &str),
) -> coach::domain::plan::Template {
    coach::domain::plan::Template {
        id: id.into(),
        name: name.into(),
        exercises: vec![coach::domain::plan::TemplateExercise {
            group: None,
            rest_seconds: None,
            exercise_id: exercise.0.into(),
            name: exercise.1.into(),
            sets: (0..3)
                .map(|_| coach::domain::plan::TemplateSet {
                    set_type: SetType::Working,
                    target: SetTarget {
                        reps: Some(8),
                        weight_kg: Some(80.0),
                        rir: Some(2),
                    },
                })
                .collect(),
            rep_range: Some((6, 8)),
        }],
    }
}

/// Bench press (a warm-up and `bench_sets` working sets at 100 kg x 8, RIR 2), then pull-ups (2 x 8).
pub fn sample_workout(id: &str, bench_sets: usize) -> Workout {
    let mut bench = vec![planned(
        "bench-wu",
        SetType::Warmup,
        10,
        Some(50.0),
        Some(5),
    )];
    bench.extend((1..=bench_sets).map(|n| {
        planned(
            &format!("bench-{n}"),
            SetType::Working,
            8,
            Some(100.0),
            Some(2),
        )
    }));
    Workout {
        current_exercise: None,
        bodyweight_kg: None,
        id: id.into(),
        name: "Push".into(),
        status: WorkoutStatus::Active,
        started_at: Utc::now(),
        completed_at: None,
        template_id: None,
        routine_id: None,
        exercises: vec![
            ExerciseInstance {
                group: None,
                rest: None,
                instance_id: "ex-bench".into(),
                exercise_id: "barbell-bench-press".into(),
                name: "Bench Press".into(),
                sets: bench,
                notes: None,
                rep_range: None,
                primary_muscles: Vec::new(),
            },
            ExerciseInstance {
                group: None,
                rest: None,
                instance_id: "ex-pullup".into(),
                exercise_id: "pull-up".into(),
                name: "Pull-Up".into(),
                sets: (1..=2)
                    .map(|n| planned(&format!("pull-{n}"), SetType::Working, 8, None, None))
                    .collect(),
                notes: None,
                rep_range: None,
                primary_muscles: Vec::new(),
            },
        ],
        changes: Vec::new(),
        notes: None,
    }
}

// ---------------------------------------------------------------- checks and HTTP calls

/// A failed check with a message, for libtest-mimic cases.
/// A weight of a tool result as the model reads it: a number, or a number with its ref
/// ("100 [[w3]]", `agent::refs`).
pub fn weight_of(v: &serde_json::Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str()?.split_whitespace().next()?.parse().ok())
}

pub fn check(cond: bool, msg: impl Into<String>) -> Result<(), libtest_mimic::Failed> {
    if cond { Ok(()) } else { Err(msg.into().into()) }
}

pub fn eq<T: PartialEq + std::fmt::Debug>(
    got: T,
    want: T,
    what: &str,
) -> Result<(), libtest_mimic::Failed> {
    check(got == want, format!("{what}: got {got:?}, want {want:?}"))
}

/// An HTTP answer with its body parsed as JSON (or kept as a string).
#[derive(Debug)]
pub struct JsonReply {
    pub status: u16,
    pub body: serde_json::Value,
}

/// Checks an error answer: its status, code and the field it names.
pub fn expect_err(
    r: &JsonReply,
    status: u16,
    code: &str,
    field: Option<&str>,
) -> Result<(), libtest_mimic::Failed> {
    eq(r.status, status, &format!("status of {}", r.body))?;
    eq(r.body["error"]["code"].as_str(), Some(code), "code")?;
    eq(
        r.body["error"]["field"].as_str(),
        field,
        &format!("field of {}", r.body),
    )
}

/// One request as the app sends it: dev-mode identity header, a JSON body if any.
pub async fn call_json(
    http: &reqwest::Client,
    method: &str,
    url: String,
    user: &str,
    body: Option<serde_json::Value>,
) -> JsonReply {
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("an HTTP method");
    let mut req = http.request(method, url).header("x-user-id", user);
    if let Some(b) = body {
        req = req
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    let resp = req
        .send()
        .await
        .expect("request reaches cargo lambda watch");
    let status = resp.status().as_u16();
    let text = resp
        .text()
        .await
        .expect("the answer reads to its end within the client's timeout");
    JsonReply {
        status,
        body: serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
    }
}

/// The events of a server-sent-events body, in order: (type, data).
pub fn parse_sse(text: &str) -> Vec<(String, serde_json::Value)> {
    text.split("\n\n")
        .filter(|f| !f.trim().is_empty())
        .map(|f| {
            let mut kind = String::new();
            let mut data = String::new();
            for line in f.lines() {
                if let Some(k) = line.strip_prefix("event: ") {
                    kind = k.to_string();
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push_str(d);
                }
            }
            let v = serde_json::from_str(&data).unwrap_or(serde_json::Value::String(data));
            (kind, v)
        })
        .collect()
}

/// A stack whose functions talk to a scripted fake model (Gemini wire format), for cases that
/// run one at a time because they share the fake's script.
/// The SNS platform application iPhones register with in the tests.
pub const APNS_APP: &str = "arn:aws:sns:us-east-1:000000000000:app/APNS/coach";

pub struct ModelStack {
    pub stack: Stack,
    pub fake: fake_model::FakeModel,
    /// The model API key's secret, as deployed (the functions read it at start-up; the key in
    /// the environment is a decoy the fake model would see if they did not).
    pub secrets: fake_secrets::FakeSecrets,
    /// Where pushes to the lifters' phones go (iPhones: `PUSH_APNS_ARN`).
    pub sns: fake_sns::FakeSns,
    pub http: reqwest::Client,
    pub rt: tokio::runtime::Runtime,
}

/// One case of a `ModelStack` test binary.
pub type ModelCase = fn(&ModelStack) -> Result<(), libtest_mimic::Failed>;

impl ModelStack {
    /// `model_var` names the lane's model variable (`SLOW_MODEL`, `FUNCTIONAL_MODEL`); `extra`
    /// adds more environment.
    pub fn start(model_var: &str, extra: &[(&'static str, String)]) -> ModelStack {
        Self::start_with_fake(model_var, |_| extra.to_vec())
    }

    /// As [`ModelStack::start`], with environment that needs the fake's address (an endpoint);
    /// a variable given replaces the default of that name, and an empty value removes it.
    pub fn start_with_fake(
        model_var: &str,
        extra: impl FnOnce(&fake_model::FakeModel) -> Vec<(&'static str, String)>,
    ) -> ModelStack {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        let fake = fake_model::FakeModel::start();
        let secrets = fake_secrets::FakeSecrets::start("key-from-secrets-manager");
        let sns = fake_sns::FakeSns::start();
        let mut env = vec![
            ("PUSH_APNS_ARN", APNS_APP.to_string()),
            ("AWS_ENDPOINT_URL_SNS", sns.endpoint.clone()),
            (model_var, "fake-model".to_string()),
            ("MODEL_PROVIDER", "gemini".to_string()),
            (
                "GEMINI_API_KEY",
                "decoy-key-from-the-environment".to_string(),
            ),
            ("GEMINI_BASE_URL", fake.gemini_base()),
            (
                "MODEL_API_KEY_SECRET_ARN",
                fake_secrets::SECRET_ARN.to_string(),
            ),
            ("AWS_ENDPOINT_URL_SECRETS_MANAGER", secrets.endpoint.clone()),
        ];
        // An extra variable replaces the default of the same name; an empty one removes it.
        for (k, v) in extra(&fake) {
            env.retain(|(name, _)| *name != k);
            if !v.is_empty() {
                env.push((k, v));
            }
        }
        let stack = rt.block_on(Stack::start_with(&env));
        ModelStack {
            stack,
            fake,
            secrets,
            sns,
            http: http_client(),
            rt,
        }
    }

    /// A lifter with two bench sessions (90 then 100 kg) asks how the bench is progressing; the
    /// model, scripted, reads `exercise_progress` then answers "Your bench is moving up.". The
    /// stream is checked for its shape and its events' order; the rest is the caller's.
    pub fn ask_bench_progress(&self, user: &str) -> Result<Streamed, libtest_mimic::Failed> {
        for w in [
            bench_session(21, &[(90.0, 5, 2)]),
            bench_session(7, &[(100.0, 5, 2)]),
        ] {
            self.rt
                .block_on(self.stack.store.put_completed_workout(user, &w))?;
        }
        self.fake.reply(fake_model::Reply::calls(&[(
            "exercise_progress",
            serde_json::json!({"exercise_id": "bench press", "weeks": 8}),
        )]));
        self.fake
            .reply(fake_model::Reply::text(&["Your bench is ", "moving up."]));
        let s = self.stream(
            user,
            serde_json::json!({"message": "How is my bench press progressing?"}),
        );
        well_formed(&s)?;
        eq(
            s.kinds(),
            vec![
                "route",
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
        // Beside the words, the chart of the same weekly series the progress route draws: one
        // point a week with training, nothing to confirm.
        let chart = s.first("artifact").cloned().unwrap_or_default();
        eq(
            (
                chart["artifact_type"].as_str(),
                chart["status"].as_str(),
                chart["actions"].clone(),
            ),
            (Some("progress_chart"), Some("shown"), serde_json::json!([])),
            "the chart",
        )?;
        let tops: Vec<f64> = chart["artifact_content"]["points"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p["top_load"].as_f64())
            .collect();
        eq(tops, vec![90.0, 100.0], "a point a week, its heaviest load")?;
        check(
            s.first("tool_end")
                .is_some_and(|e| e.get("result").is_none())
                && s.first("done").is_some_and(|d| d.get("trace").is_none()),
            "no tool results and no trace without x-coach-trace",
        )?;
        Ok(s)
    }

    /// One `POST /v1/stream` as the app sends it, read to the end.
    pub fn stream(&self, user: &str, body: serde_json::Value) -> Streamed {
        self.rt.block_on(async {
            let resp = self
                .http
                .post(format!("{}/v1/stream", self.stack.base))
                .header("x-user-id", user)
                .header("content-type", "application/json")
                .body(body.to_string())
                .send()
                .await
                .expect("request reaches cargo lambda watch");
            let status = resp.status().as_u16();
            let content_type = resp
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_string();
            let raw = resp
                .text()
                .await
                .expect("the stream reads to its end within the client's timeout");
            Streamed {
                status,
                content_type,
                events: parse_sse(&raw),
                raw,
            }
        })
    }

    /// Runs `suite`'s `cases` one at a time, the fake's script and records cleared before each;
    /// then stops the stack and the fake.
    pub fn run(
        self,
        args: &libtest_mimic::Arguments,
        suite: &str,
        cases: Vec<(&'static str, ModelCase)>,
    ) -> libtest_mimic::Conclusion {
        let mut args = args.clone();
        args.test_threads = Some(1);
        let ctx = std::sync::Arc::new(self);
        let trials = cases
            .into_iter()
            .map(|(name, case)| {
                let ctx = ctx.clone();
                libtest_mimic::Trial::test(case_name(suite, name), move || {
                    ctx.fake.reset();
                    case(&ctx)
                })
            })
            .collect();
        libtest_mimic::run(&args, trials)
    }
}

/// The model tokens the lifter's daily counter holds (what the allowance was charged today).
pub async fn tokens_today(store: &Store, user: &str) -> Result<u64, coach::store::StoreError> {
    let parts = coach::store::Parts {
        token_usage: true,
        ..Default::default()
    };
    Ok(store
        .user_state(user, parts, None, Utc::now())
        .await?
        .tokens_today)
}

/// A multi-threaded runtime for a test binary's stack and cases.
pub fn test_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// What most black-box test binaries share: one local stack, an HTTP client and the runtime.
pub struct HttpCtx {
    pub stack: Stack,
    pub http: reqwest::Client,
    pub rt: tokio::runtime::Handle,
}

impl HttpCtx {
    /// Starts the stack on `rt`.
    pub fn start(rt: &tokio::runtime::Runtime) -> HttpCtx {
        HttpCtx {
            stack: rt.block_on(Stack::start()),
            http: http_client(),
            rt: rt.handle().clone(),
        }
    }

    /// `method` `path` (the deployed path, `/v1/...`) as `user` (dev identity), with a JSON body.
    pub fn call(
        &self,
        method: &str,
        path: &str,
        user: &str,
        body: Option<serde_json::Value>,
    ) -> JsonReply {
        let url = format!("{}{path}", self.stack.base);
        self.rt
            .block_on(call_json(&self.http, method, url, user, body))
    }
}

/// A named test case on a shared context.
pub type Case<C> = (&'static str, fn(&C) -> Result<(), libtest_mimic::Failed>);

/// Runs `suite`'s `cases` with libtest-mimic (the command line's filters and threads), each on
/// the shared `ctx`; then stops what `ctx` started, and the runtime.
pub fn run_cases<C: Send + Sync + 'static>(
    args: &libtest_mimic::Arguments,
    suite: &str,
    rt: tokio::runtime::Runtime,
    ctx: C,
    cases: Vec<Case<C>>,
) -> libtest_mimic::Conclusion {
    let ctx = std::sync::Arc::new(ctx);
    let trials = cases
        .into_iter()
        .map(|(name, case)| {
            let ctx = ctx.clone();
            libtest_mimic::Trial::test(case_name(suite, name), move || case(&ctx))
        })
        .collect();
    let conclusion = libtest_mimic::run(args, trials);
    drop(ctx);
    drop(rt);
    conclusion
}

/// A case's name in the one black-box test binary (`tests/suites.rs`): `suite::case`, so that
/// `cargo test -p blackbox --test suites fast_lane::` runs one suite.
pub fn case_name(suite: &str, case: &str) -> String {
    format!("{suite}::{case}")
}

/// What the command line makes of a suite before it starts anything: `None` when it runs one of
/// `cases`; otherwise the suite's conclusion (all filtered out, or listed: `--list` prints them).
/// A suite starts its stack only after this, so a filtered run starts only what it needs.
pub fn unselected<N: AsRef<str>, F>(
    args: &libtest_mimic::Arguments,
    suite: &str,
    cases: &[(N, F)],
) -> Option<libtest_mimic::Conclusion> {
    let trials = || {
        cases
            .iter()
            .map(|(name, _)| libtest_mimic::Trial::test(case_name(suite, name.as_ref()), || Ok(())))
    };
    if args.list {
        return Some(libtest_mimic::run(args, trials().collect()));
    }
    let selected = trials().filter(|t| !args.is_filtered_out(t)).count();
    (selected == 0).then_some(libtest_mimic::Conclusion {
        num_filtered_out: cases.len() as u64,
        num_passed: 0,
        num_failed: 0,
        num_ignored: 0,
        num_measured: 0,
    })
}

/// A read `/v1/stream` answer.
pub struct Streamed {
    pub status: u16,
    pub content_type: String,
    pub events: Vec<(String, serde_json::Value)>,
    pub raw: String,
}

impl Streamed {
    /// The event types in order, heartbeats left out (they depend on timing).
    pub fn kinds(&self) -> Vec<&str> {
        self.all_kinds()
            .into_iter()
            .filter(|k| *k != "heartbeat")
            .collect()
    }

    pub fn all_kinds(&self) -> Vec<&str> {
        self.events.iter().map(|(k, _)| k.as_str()).collect()
    }

    pub fn text(&self) -> String {
        self.events
            .iter()
            .filter(|(k, _)| k == "message")
            .filter_map(|(_, v)| v["text"].as_str())
            .collect()
    }

    /// Each `tool_end`'s `ok`, in order.
    pub fn tool_oks(&self) -> Vec<bool> {
        self.events
            .iter()
            .filter(|(k, _)| k == "tool_end")
            .filter_map(|(_, v)| v["ok"].as_bool())
            .collect()
    }

    pub fn first(&self, kind: &str) -> Option<&serde_json::Value> {
        self.events.iter().find(|(k, _)| k == kind).map(|(_, v)| v)
    }
}

/// The contract every stream keeps: `route` first, `done` last and once, every event's JSON
/// carries its type, tool_start/tool_end in pairs, status before the first tool_start.
pub fn well_formed(s: &Streamed) -> Result<(), libtest_mimic::Failed> {
    eq(s.status, 200, &format!("status; body {}", s.raw))?;
    check(
        s.content_type.starts_with("text/event-stream"),
        format!("content type {}", s.content_type),
    )?;
    let kinds = s.kinds();
    eq(kinds.first().copied(), Some("route"), "first event")?;
    eq(kinds.last().copied(), Some("done"), "last event")?;
    eq(
        kinds.iter().filter(|k| **k == "done").count(),
        1,
        "one done",
    )?;
    for (k, v) in &s.events {
        eq(v["type"].as_str(), Some(k.as_str()), "type in the JSON")?;
    }
    let starts: Vec<&serde_json::Value> = s
        .events
        .iter()
        .filter(|(k, _)| k == "tool_start")
        .map(|(_, v)| &v["call_id"])
        .collect();
    let ends: Vec<&serde_json::Value> = s
        .events
        .iter()
        .filter(|(k, _)| k == "tool_end")
        .map(|(_, v)| &v["call_id"])
        .collect();
    eq(starts.len(), ends.len(), "tool_start/tool_end pairs")?;
    for id in &starts {
        check(ends.contains(id), format!("tool_end for {id}"))?;
    }
    if let Some(first_tool) = kinds.iter().position(|k| *k == "tool_start") {
        check(
            kinds[..first_tool].contains(&"status"),
            "status before the first tool_start",
        )?;
    }
    Ok(())
}

/// Every event of one model call until it ends, and the error that ended it, if any.
pub async fn collect_events(
    m: &coach::llm::Model,
    req: &coach::llm::Request,
    deadline: tokio::time::Instant,
) -> (Vec<coach::llm::Event>, Option<coach::llm::ErrorKind>) {
    let mut stream = match m.stream(req, deadline).await {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(e.kind)),
    };
    let mut events = Vec::new();
    while let Some(ev) = stream.next().await {
        match ev {
            Ok(e) => events.push(e),
            Err(e) => return (events, Some(e.kind)),
        }
    }
    (events, None)
}
