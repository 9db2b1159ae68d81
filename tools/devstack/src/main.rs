//! Local stack helpers: the table and the demo user, the benchmarks (cold start, e2e, load,
//! where a cold start goes, the progression replay, the coaching benchmark), the coach's
//! evaluation and a terminal chat. `devstack --help` lists the commands and `devstack COMMAND
//! --help` their options; the work of each is in the library (`src/lib.rs`) or its module here.

mod chat;
mod coldstart;
mod e2e;
mod init_profile;
mod load;
mod replay;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use coach::domain::units::Unit;
use devstack::{demo, strong};

#[derive(Parser)]
#[command(
    name = "devstack",
    about = "Local stack helpers: the table and demo user, benchmarks, the coach's evaluation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create the table (if missing) and (re)load the demo user (TABLE_NAME,
    /// AWS_ENDPOINT_URL_DYNAMODB, as the functions read them).
    Setup,
    /// Median cold start of each function binary against the first one given (the baseline),
    /// measured with a local Runtime API.
    Coldstart {
        #[arg(long, default_value_t = 20)]
        runs: usize,
        /// An environment variable for the measured processes (repeatable).
        #[arg(long = "env", value_name = "K=V", value_parser = key_value)]
        env: Vec<(String, String)>,
        /// The baseline, then the binaries to compare with it.
        #[arg(required = true, num_args = 2.., value_name = "BIN")]
        bins: Vec<PathBuf>,
    },
    /// Seeds a user with a workout of N planned sets, sends N "done" one after another, and
    /// prints the median and p99 round trip.
    E2e {
        #[arg(long)]
        url: String,
        #[arg(long, default_value_t = 200)]
        n: usize,
    },
    /// N requests per functional route, for a user with the demo history.
    E2eFunctional {
        #[arg(long)]
        base: String,
        #[arg(long, default_value_t = 100)]
        n: usize,
    },
    /// The coach evaluation against a running stack (`make dev`, any model): a table of what
    /// each scenario did and cost (see eval.rs).
    Eval {
        #[arg(long, default_value = "http://127.0.0.1:9000")]
        base: String,
        /// Scenarios to run, comma-separated (default: all).
        #[arg(long, value_name = "SCENARIO[,SCENARIO…]")]
        only: Option<String>,
        /// Runs of each scenario (pass^k).
        #[arg(long, default_value_t = 1)]
        k: usize,
        /// The price table (default: tools/devstack/prices.tsv).
        #[arg(long)]
        prices: Option<PathBuf>,
        /// The Strong export the scripted lifter's history comes from.
        #[arg(long)]
        export: Option<PathBuf>,
    },
    /// A short journey against a running API, deployed or local (see smoke.rs).
    Smoke {
        #[arg(long)]
        url: String,
        #[command(flatten)]
        who: Who,
    },
    /// A terminal chat with the coach (/v1/stream), local or deployed, with /confirm for
    /// proposals.
    Chat {
        /// The API's base URL (`--base`: the local stack's older name for it).
        #[arg(long, alias = "base", default_value = "http://127.0.0.1:9000")]
        url: String,
        /// A Cognito ID token (deployed).
        #[arg(long)]
        token: Option<String>,
        /// The lifter (local stack; default: the demo user).
        #[arg(long, conflicts_with = "token")]
        user: Option<String>,
        #[arg(long)]
        conversation: Option<String>,
        #[arg(long)]
        workout: Option<String>,
    },
    /// Imports a Strong export for one user, as POST /v1/import/strong does (reviews go to
    /// QUEUE_URL or WORKER_INVOKE_URL when set), and prints the report.
    ImportStrong {
        #[arg(long)]
        user: String,
        #[arg(long)]
        file: PathBuf,
        /// The lifter's timezone (IANA name), for the export's local times.
        #[arg(long, value_parser = timezone)]
        tz: Option<chrono_tz::Tz>,
        /// kg or lb, when the export does not say.
        #[arg(long, value_parser = unit)]
        unit: Option<Unit>,
    },
    /// Prints a synthetic Strong export.
    StrongSample {
        #[arg(long, default_value_t = 5000)]
        rows: usize,
        /// The last day of training (default: today).
        #[arg(long, value_name = "YYYY-MM-DD")]
        last_day: Option<chrono::NaiveDate>,
    },
    /// A stand-in for SNS on 127.0.0.1 (`AWS_ENDPOINT_URL_SNS`): phones' endpoints and
    /// pushes, each push appended to `--record` as a JSON line (see sns.rs).
    Sns {
        #[arg(long)]
        port: u16,
        #[arg(long)]
        record: Option<PathBuf>,
    },
    /// Runs one worker queue message (its JSON, as queue::Job sends it), as the queue would;
    /// --dry-run prints the card, review or decision and writes nothing.
    Job {
        #[arg(long)]
        dry_run: bool,
        message: String,
    },
    /// N fast processes, each with its own local Runtime API, against the store: latency,
    /// errors and a consistency check of every logged set.
    LoadFast {
        #[arg(long, default_value_t = 20)]
        procs: usize,
        #[arg(long, default_value_t = 500)]
        commands: usize,
        #[arg(long, default_value_t = 20)]
        users: usize,
        fast_bin: PathBuf,
    },
    /// Where a cold start goes: each init step of the lanes, timed in fresh processes, median
    /// of N.
    InitProfile {
        /// One measured process (this binary runs itself with it).
        #[arg(long, hide = true)]
        child: bool,
        #[arg(long, default_value_t = 20)]
        runs: usize,
        #[arg(long = "env", value_name = "K=V", value_parser = key_value)]
        env: Vec<(String, String)>,
    },
    /// The progression model replayed over real Strong exports against what the lifter did (a
    /// markdown table; see replay.rs). `--unit lb` before a file reads it, and the files after
    /// it, in pounds.
    Replay {
        #[arg(required = true, num_args = 1.., allow_hyphen_values = true, value_name = "[--unit kg|lb] FILE")]
        files: Vec<String>,
    },
    /// The weekly fan-out over a roster of N lifters (fanout.rs): seeded, then run invocation
    /// by invocation within the worker's budget, as the queue continues it.
    Fanout {
        #[arg(long, default_value_t = 100_000)]
        lifters: usize,
        /// Seconds an invocation may take: the worker's Timeout in template.yaml.
        #[arg(long, default_value_t = 60)]
        budget_secs: u64,
        /// Only seed the roster (then run again without it to fan out).
        #[arg(long)]
        seed: bool,
    },
    /// The coaching benchmark on the committed real exports and any given (coaching/,
    /// docs/coaching.md).
    Coaching {
        /// development, held-out, given or all.
        #[arg(long)]
        split: Option<String>,
        files: Vec<PathBuf>,
    },
}

/// Who a request is from: a Cognito ID token (deployed) or a user id (local stack).
#[derive(Args)]
#[group(required = true, multiple = false)]
struct Who {
    #[arg(long)]
    token: Option<String>,
    #[arg(long)]
    user: Option<String>,
}

fn key_value(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .ok_or_else(|| format!("'{s}' is not K=V"))
}

fn timezone(s: &str) -> Result<chrono_tz::Tz, String> {
    s.parse().map_err(|_| format!("unknown timezone {s}"))
}

fn unit(s: &str) -> Result<Unit, String> {
    Unit::parse(s).ok_or_else(|| "kg or lb".to_string())
}

fn table_name() -> Result<String, String> {
    std::env::var("TABLE_NAME").map_err(|_| "TABLE_NAME is not set".to_string())
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli.command).await {
        eprintln!("devstack: {e}");
        std::process::exit(1);
    }
}

#[expect(clippy::too_many_lines, reason = "the dispatch: one arm per command")]
async fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Setup => setup().await,
        Command::Coldstart { runs, env, bins } => coldstart(runs, &env, &bins).await,
        Command::E2e { url, n } => {
            let store = coach::store::Store::from_env("devstack", table_name()?).await;
            e2e::run(&store, &url, n).await
        }
        Command::E2eFunctional { base, n } => {
            let store = coach::store::Store::from_env("devstack", table_name()?).await;
            e2e::run_functional(&store, &base, n).await
        }
        Command::Eval {
            base,
            only,
            k,
            prices,
            export,
        } => eval(base, only, k, prices, export).await,
        Command::Smoke { url, who } => {
            let who = match (who.token, who.user) {
                (Some(t), _) => devstack::smoke::Identity::Token(t),
                (None, Some(u)) => devstack::smoke::Identity::User(u),
                (None, None) => {
                    return Err("devstack smoke needs --token (deployed) or --user (local)".into());
                }
            };
            devstack::smoke::run(&url, who).await.map(|_| ())
        }
        Command::Chat {
            url,
            token,
            user,
            conversation,
            workout,
        } => {
            let who = match (token, user) {
                (Some(t), _) => devstack::smoke::Identity::Token(t),
                (None, u) => {
                    devstack::smoke::Identity::User(u.unwrap_or_else(|| demo::DEMO_USER.into()))
                }
            };
            chat::run(chat::Options {
                base: url,
                who,
                conversation: conversation.unwrap_or_else(|| {
                    format!("chat-{}", chrono::Utc::now().format("%Y%m%d%H%M%S"))
                }),
                workout,
            })
            .await
        }
        Command::ImportStrong {
            user,
            file,
            tz,
            unit,
        } => import_strong(&user, &file, tz, unit).await,
        Command::StrongSample { rows, last_day } => {
            let last_day = last_day.unwrap_or_else(|| chrono::Utc::now().date_naive());
            print!("{}", strong::sample(rows, last_day));
            Ok(())
        }
        Command::Sns { port, record } => {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                .await
                .map_err(|e| format!("the fake SNS cannot listen on 127.0.0.1:{port}: {e}"))?;
            devstack::sns::Sns::new(record).run(listener).await;
            Ok(())
        }
        Command::Job { dry_run, message } => {
            let config = coach::config::Config::from_env()?;
            let lane = coach::lanes::worker::WorkerLane::from_config(&config).await?;
            let out = lane
                .jobs()
                .operate(&message, dry_run, chrono::Utc::now())
                .await?;
            println!(
                "{}",
                serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
            );
            Ok(())
        }
        Command::LoadFast {
            procs,
            commands,
            users,
            fast_bin,
        } => load_fast(procs, commands, users, &fast_bin).await,
        Command::InitProfile { child: true, .. } => {
            init_profile::child().await;
            Ok(())
        }
        Command::InitProfile {
            runs, env: extra, ..
        } => {
            let mut env = vec![
                ("AWS_REGION", "us-east-1"),
                ("AWS_ACCESS_KEY_ID", "profile"),
                ("AWS_SECRET_ACCESS_KEY", "profile"),
                ("QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/1/jobs"),
                ("NOTIFY_TOPIC_ARN", "arn:aws:sns:us-east-1:1:notify"),
                ("TABLE_NAME", "Coach"),
            ];
            env.extend(extra.iter().map(|(k, v)| (k.as_str(), v.as_str())));
            init_profile::measure(runs, &env).await
        }
        Command::Replay { files } => replay_files(&files),
        Command::Fanout {
            lifters,
            budget_secs,
            seed,
        } => {
            devstack::fanout::run(lifters, std::time::Duration::from_secs(budget_secs), seed).await
        }
        Command::Coaching { split, files } => {
            let split = match split {
                Some(s) => devstack::coaching::parse_split(&s)?,
                None => None,
            };
            let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
            print!("{}", devstack::coaching::run(&root, &files, split)?);
            Ok(())
        }
    }
}

async fn setup() -> Result<(), String> {
    let table = table_name()?;
    let store = coach::store::Store::from_env("devstack", table.clone()).await;
    let created = store.ensure_table().await.map_err(|e| e.to_string())?;
    let n = demo::load(&store, chrono::Utc::now())
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "table {table}: {}; demo user '{}': profile, 3 templates, routine, {n} past workouts, active workout reset",
        if created { "created" } else { "exists" },
        demo::DEMO_USER
    );
    Ok(())
}

async fn coldstart(
    runs: usize,
    extra: &[(String, String)],
    bins: &[PathBuf],
) -> Result<(), String> {
    let mut env = vec![
        ("TABLE_NAME", "Coach"),
        ("AWS_REGION", "us-east-1"),
        ("AWS_ACCESS_KEY_ID", "coldstart"),
        ("AWS_SECRET_ACCESS_KEY", "coldstart"),
    ];
    env.extend(extra.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let mut baseline = None;
    println!("| binary | size (bytes) | median cold start (ms, {runs} runs) | vs baseline |");
    println!("|---|---|---|---|");
    for bin in bins {
        let mut times = coldstart::measure(bin, runs, &env).await?;
        let med = coldstart::median(&mut times);
        let base = *baseline.get_or_insert(med);
        let size = std::fs::metadata(bin).map(|m| m.len()).unwrap_or(0);
        println!(
            "| {} | {size} | {:.2} | {:.2}× |",
            bin.display(),
            med.as_secs_f64() * 1e3,
            med.as_secs_f64() / base.as_secs_f64()
        );
    }
    Ok(())
}

async fn eval(
    base: String,
    only: Option<String>,
    k: usize,
    prices: Option<PathBuf>,
    export: Option<PathBuf>,
) -> Result<(), String> {
    let root = std::env::current_dir().map_err(|e| e.to_string())?;
    let target = devstack::eval::Target {
        base,
        user_prefix: format!("eval-{}", chrono::Utc::now().format("%Y%m%d%H%M%S")),
        export: export.unwrap_or_else(|| root.join(devstack::eval::EXPORT)),
        pound_export: root.join(devstack::eval::POUND_EXPORT),
    };
    let prices = prices.unwrap_or_else(|| root.join("tools/devstack/prices.tsv"));
    let text = std::fs::read_to_string(&prices)
        .map_err(|e| format!("cannot read {}: {e}", prices.display()))?;
    let prices = devstack::eval::parse_prices(&text)?;
    let table = devstack::eval::run_cli(target, &prices, only.as_deref(), k).await?;
    println!("{table}");
    Ok(())
}

async fn import_strong(
    user: &str,
    file: &std::path::Path,
    tz: Option<chrono_tz::Tz>,
    unit: Option<Unit>,
) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let config = coach::config::Config::from_env()?;
    let aws = coach::store::aws_config_from_env("devstack").await;
    let store = coach::store::Store::from_config(&aws, config.table.clone());
    let queue = coach::queue::JobQueue::new(&aws, &config.queue);
    let started = std::time::Instant::now();
    let out =
        coach::import::strong_export(&store, &queue, user, &text, tz, unit, chrono::Utc::now())
            .await
            .map_err(|e| e.to_string())?;
    eprintln!(
        "imported in {:.0} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    println!(
        "{}",
        serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
    );
    Ok(())
}

/// `--unit lb` before a file reads that file (and the ones after it) in pounds; without it, a
/// file without a unit column is read as the import reads it.
fn replay_files(args: &[String]) -> Result<(), String> {
    let mut unit = None;
    let mut rows = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--unit" {
            let v = it.next().ok_or("--unit is kg or lb")?;
            unit = Some(Unit::parse(v).ok_or("--unit is kg or lb")?);
            continue;
        }
        let text = std::fs::read_to_string(a).map_err(|e| format!("{a}: {e}"))?;
        let name = std::path::Path::new(a)
            .file_name()
            .map_or(a.clone(), |n| n.to_string_lossy().into_owned());
        let (read_as, report) = replay::replay(&text, unit)?;
        rows.push((name, read_as, report));
    }
    if rows.is_empty() {
        return Err("replay needs at least one Strong export".into());
    }
    replay::print(&rows);
    Ok(())
}

async fn load_fast(
    procs: usize,
    commands: usize,
    users: usize,
    bin: &std::path::Path,
) -> Result<(), String> {
    let table = table_name()?;
    let store = coach::store::Store::from_env("devstack", table.clone()).await;
    store.ensure_table().await.map_err(|e| e.to_string())?;
    let run = chrono::Utc::now().timestamp();
    let users: Vec<String> = (0..users.max(1))
        .map(|u| format!("load-{run}-{u}"))
        .collect();
    for u in &users {
        store
            .replace_active_workout(u, &e2e::workout(400))
            .await
            .map_err(|e| e.to_string())?;
    }
    let env: Vec<(String, String)> = [
        "TABLE_NAME",
        "AWS_ENDPOINT_URL_DYNAMODB",
        "AWS_REGION",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
    ]
    .iter()
    .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
    .chain([("RUST_LOG".to_string(), "warn".to_string())])
    .collect();
    let report = load::fast(bin, procs, commands, &users, &env).await?;
    let mut lat = report.latencies.clone();
    lat.sort();
    let pct = |p: usize| {
        lat.get((lat.len() * p / 100).min(lat.len().saturating_sub(1)))
            .copied()
            .unwrap_or_default()
    };
    println!(
        "{procs} fast processes x {commands} commands over {} users (each user driven by {} processes): {} answers in {:.1} s ({:.0} commands/s); handler + store latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; errors {}",
        users.len(),
        procs.min(2),
        report.answers.len(),
        report.wall.as_secs_f64(),
        report.answers.len() as f64 / report.wall.as_secs_f64(),
        pct(50).as_secs_f64() * 1000.0,
        pct(99).as_secs_f64() * 1000.0,
        lat.last().copied().unwrap_or_default().as_secs_f64() * 1000.0,
        report.errors.len()
    );
    for e in report.errors.iter().take(5) {
        println!("  error: {e}");
    }
    println!("{}", load::consistency(&store, &report).await?);
    if report.errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{} errors", report.errors.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parses(args: &[&str]) -> Command {
        let argv = std::iter::once("devstack").chain(args.iter().copied());
        match Cli::try_parse_from(argv) {
            Ok(cli) => cli.command,
            Err(e) => panic!("{args:?}: {e}"),
        }
    }

    /// The command lines the scripts, the Makefile, the tests and the docs use still parse, to
    /// what they mean.
    #[test]
    fn the_fake_sns_command_parses() {
        assert!(matches!(
            parses(&["sns", "--port", "9100", "--record", "p.jsonl"]),
            Command::Sns {
                port: 9100,
                record: Some(_)
            }
        ));
    }

    #[test]
    fn the_callers_command_lines_parse() {
        assert!(matches!(
            parses(&["replay", "--unit", "lb", "a.csv", "b.csv"]),
            Command::Replay { files } if files == ["--unit", "lb", "a.csv", "b.csv"]
        ));
        assert!(matches!(
            parses(&["coldstart", "--runs", "40", "--env", "SLOW_MODEL=x", "--env", "K=V=W", "bare", "fast"]),
            Command::Coldstart { runs: 40, env, bins }
                if env == [("SLOW_MODEL".into(), "x".into()), ("K".into(), "V=W".into())]
                    && bins.len() == 2
        ));
        assert!(matches!(
            parses(&["job", "--dry-run", r#"{"type":"weekly_review_fanout"}"#]),
            Command::Job { dry_run: true, message } if message.starts_with('{')
        ));
        assert!(matches!(
            parses(&["eval", "--base", "http://127.0.0.1:9000", "--only", "progress,pound", "--k", "4"]),
            Command::Eval { k: 4, only: Some(o), .. } if o == "progress,pound"
        ));
        assert!(matches!(
            parses(&[
                "import-strong",
                "--user",
                "u",
                "--file",
                "f.csv",
                "--tz",
                "Europe/Berlin",
                "--unit",
                "lb"
            ]),
            Command::ImportStrong {
                tz: Some(chrono_tz::Europe::Berlin),
                unit: Some(Unit::Lb),
                ..
            }
        ));
        assert!(matches!(
            parses(&[
                "strong-sample",
                "--rows",
                "5000",
                "--last-day",
                "2026-11-20"
            ]),
            Command::StrongSample {
                rows: 5000,
                last_day: Some(_)
            }
        ));
        assert!(matches!(
            parses(&[
                "load-fast",
                "--procs",
                "2",
                "--commands",
                "10",
                "--users",
                "2",
                "target/release/fast"
            ]),
            Command::LoadFast {
                procs: 2,
                commands: 10,
                users: 2,
                ..
            }
        ));
        assert!(matches!(
            parses(&["init-profile", "--child"]),
            Command::InitProfile { child: true, .. }
        ));
        assert!(matches!(
            parses(&["chat", "--base", "http://x"]),
            Command::Chat { url, .. } if url == "http://x"
        ));
        assert!(matches!(
            parses(&["coaching", "--split", "all"]),
            Command::Coaching { .. }
        ));
        assert!(matches!(parses(&["setup"]), Command::Setup));
    }

    /// What cannot mean anything is refused with a message, before anything runs.
    #[test]
    fn nonsense_is_refused() {
        for args in [
            &["smoke", "--url", "http://x"][..],
            &["smoke", "--url", "x", "--token", "t", "--user", "u"],
            &["coldstart", "only-one-binary"],
            &[
                "import-strong",
                "--user",
                "u",
                "--file",
                "f",
                "--unit",
                "stone",
            ],
            &["e2e", "--n", "many", "--url", "x"],
            &["replay"],
            &["no-such-command"],
        ] {
            let argv = std::iter::once("devstack").chain(args.iter().copied());
            assert!(Cli::try_parse_from(argv).is_err(), "{args:?}");
        }
    }
}
