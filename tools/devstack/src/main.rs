//! Local stack helpers.
//!
//! - `devstack setup`: create the table (if missing) and (re)load the demo user, using
//!   `TABLE_NAME` and `AWS_ENDPOINT_URL_DYNAMODB` like the functions do.
//! - `devstack coldstart --runs N BIN...`: median cold start of each function binary against the
//!   first binary given (the baseline), measured with a local Runtime API.
//! - `devstack e2e --url URL [--n N]`: seeds a user with a workout of N planned sets, sends N
//!   "done" requests one after another, and prints the median and p99 round trip.
//! - `devstack eval [--base URL] [--only SCENARIO[,SCENARIO…]] [--k RUNS] [--prices FILE] [--export CSV]`: the coach
//!   evaluation against a running stack (`make dev`, any model): a table of what each scenario
//!   did and cost (see `eval.rs`).
//! - `devstack smoke --url URL (--token ID_TOKEN | --user U)`: a short journey against a running
//!   API, deployed or local (`make smoke API=... TOKEN=...`; see `smoke.rs`).
//! - `devstack chat [--url URL] [--token ID_TOKEN | --user U] [--conversation C] [--workout W]`:
//!   a terminal chat with the coach (`/v1/stream`), local or deployed, with `/confirm` for
//!   proposals.
//! - `devstack import-strong --user U --file F [--tz TZ] [--unit kg|lb]`: imports a Strong
//!   export for one user, as `POST /v1/import/strong` does (reviews go to `QUEUE_URL` or
//!   `WORKER_INVOKE_URL` when set), and prints the report.
//! - `devstack strong-sample --rows N [--last-day YYYY-MM-DD]`: prints a synthetic Strong export.
//! - `devstack job [--dry-run] 'MESSAGE'`: runs one worker queue message (its JSON, as `queue::Job` sends it) for
//!   one user, as the queue would; `--dry-run` prints the card, review or decision and writes
//!   nothing.
//! - `devstack load-fast [--procs N] [--commands N] [--users N] FAST_BIN`: N fast processes,
//!   each with its own local Runtime API, against the store; latency, errors and a consistency
//!   check of every logged set.
//! - `devstack init-profile [--runs N] [--env K=V]...`: where a cold start goes: each init step
//!   of the lanes, timed in fresh processes, median of N.
//! - `devstack replay [--unit kg|lb] FILE...`: the progression model replayed over real Strong
//!   exports against what the lifter did (a markdown table; see `replay.rs`).
//! - `devstack coaching [--split development|held-out|given|all] [FILE...]`: the coaching
//!   benchmark on the committed real exports and any given (`coaching/`, `docs/coaching.md`).

mod chat;
mod coldstart;
mod e2e;
mod init_profile;
mod load;
mod replay;

use devstack::{demo, strong};
use std::path::PathBuf;

fn usage() -> String {
    "usage: devstack setup | devstack coldstart [--runs N] [--env K=V]... BASELINE_BIN BIN... | devstack e2e --url URL [--n N] | devstack e2e-functional --base URL [--n N] | devstack eval [--base URL] [--only SCENARIO[,SCENARIO…]] [--k RUNS] [--prices FILE] [--export CSV] | devstack smoke --url URL (--token ID_TOKEN | --user U) | devstack chat [--url URL] [--token ID_TOKEN | --user U] [--conversation C] [--workout W] | devstack import-strong --user U --file F [--tz TZ] [--unit kg|lb] | devstack strong-sample --rows N [--last-day YYYY-MM-DD] | devstack load-fast [--procs N] [--commands N] [--users N] FAST_BIN | devstack init-profile [--runs N] [--env K=V]... | devstack replay [--unit kg|lb] FILE... | devstack coaching [--split development|held-out|given|all] [FILE...] | devstack job [--dry-run] '{\"type\":\"weekly_review\",\"user_id\":\"demo\",\"week_ending\":\"YYYY-MM-DD\"}'".into()
}

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("devstack: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("load-fast") => {
            let (mut procs, mut commands, mut users) = (20usize, 500usize, 20usize);
            let mut bin = None;
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                let mut num = || it.next().and_then(|n| n.parse().ok()).ok_or_else(usage);
                match a.as_str() {
                    "--procs" => procs = num()?,
                    "--commands" => commands = num()?,
                    "--users" => users = num()?,
                    _ => bin = Some(PathBuf::from(a)),
                }
            }
            let bin = bin.ok_or_else(usage)?;
            let table =
                std::env::var("TABLE_NAME").map_err(|_| "TABLE_NAME is not set".to_string())?;
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
            let report = load::fast(&bin, procs, commands, &users, &env).await?;
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
        Some("init-profile") if args.get(1).map(String::as_str) == Some("--child") => {
            init_profile::child().await;
            Ok(())
        }
        Some("init-profile") => {
            let mut runs = 20;
            let mut extra: Vec<(String, String)> = Vec::new();
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--runs" => {
                        runs = it.next().and_then(|n| n.parse().ok()).ok_or_else(usage)?;
                    }
                    "--env" => {
                        let kv = it
                            .next()
                            .and_then(|kv| kv.split_once('='))
                            .ok_or_else(usage)?;
                        extra.push((kv.0.to_string(), kv.1.to_string()));
                    }
                    _ => return Err(usage()),
                }
            }
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
        Some("setup") => {
            let table =
                std::env::var("TABLE_NAME").map_err(|_| "TABLE_NAME is not set".to_string())?;
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
        Some("coldstart") => {
            let mut runs = 20;
            let mut bins = Vec::new();
            let mut extra: Vec<(String, String)> = Vec::new();
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                if a == "--runs" {
                    runs = it.next().and_then(|n| n.parse().ok()).ok_or_else(usage)?;
                } else if a == "--env" {
                    let kv = it
                        .next()
                        .and_then(|kv| kv.split_once('='))
                        .ok_or_else(usage)?;
                    extra.push((kv.0.to_string(), kv.1.to_string()));
                } else {
                    bins.push(PathBuf::from(a));
                }
            }
            if bins.len() < 2 {
                return Err(usage());
            }
            let mut env = vec![
                ("TABLE_NAME", "Coach"),
                ("AWS_REGION", "us-east-1"),
                ("AWS_ACCESS_KEY_ID", "coldstart"),
                ("AWS_SECRET_ACCESS_KEY", "coldstart"),
            ];
            env.extend(extra.iter().map(|(k, v)| (k.as_str(), v.as_str())));
            let mut baseline = None;
            println!(
                "| binary | size (bytes) | median cold start (ms, {runs} runs) | vs baseline |"
            );
            println!("|---|---|---|---|");
            for bin in &bins {
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
        Some("e2e") => {
            let mut url = None;
            let mut n = 200usize;
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--url" => url = it.next().cloned(),
                    "--n" => n = it.next().and_then(|v| v.parse().ok()).ok_or_else(usage)?,
                    _ => return Err(usage()),
                }
            }
            let table =
                std::env::var("TABLE_NAME").map_err(|_| "TABLE_NAME is not set".to_string())?;
            let store = coach::store::Store::from_env("devstack", table).await;
            e2e::run(&store, &url.ok_or_else(usage)?, n).await
        }
        Some("e2e-functional") => {
            let mut base = None;
            let mut n = 100usize;
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--base" => base = it.next().cloned(),
                    "--n" => n = it.next().and_then(|v| v.parse().ok()).ok_or_else(usage)?,
                    _ => return Err(usage()),
                }
            }
            let table =
                std::env::var("TABLE_NAME").map_err(|_| "TABLE_NAME is not set".to_string())?;
            let store = coach::store::Store::from_env("devstack", table).await;
            e2e::run_functional(&store, &base.ok_or_else(usage)?, n).await
        }
        Some("eval") => {
            let root = std::env::current_dir().map_err(|e| e.to_string())?;
            let mut target = devstack::eval::Target {
                base: "http://127.0.0.1:9000".into(),
                user_prefix: format!("eval-{}", chrono::Utc::now().format("%Y%m%d%H%M%S")),
                export: root.join(devstack::eval::EXPORT),
                pound_export: root.join(devstack::eval::POUND_EXPORT),
            };
            let (mut prices, mut only) = (root.join("tools/devstack/prices.tsv"), None);
            let mut k = 1;
            let mut it = args.iter().skip(1);
            while let Some(a) = it.next() {
                let v = it.next().cloned().ok_or_else(usage)?;
                match a.as_str() {
                    "--base" => target.base = v,
                    "--export" => target.export = PathBuf::from(v),
                    "--prices" => prices = PathBuf::from(v),
                    "--only" => only = Some(v),
                    "--k" => k = v.parse().map_err(|_| usage())?,
                    _ => return Err(usage()),
                }
            }
            let text = std::fs::read_to_string(&prices)
                .map_err(|e| format!("cannot read {}: {e}", prices.display()))?;
            let prices = devstack::eval::parse_prices(&text)?;
            let table = devstack::eval::run_cli(target, &prices, only.as_deref(), k).await?;
            println!("{table}");
            Ok(())
        }
        Some("smoke") => {
            let (mut url, mut who) = (None, None);
            let mut it = args.iter().skip(1);
            while let Some(a) = it.next() {
                let v = it.next().cloned().ok_or_else(usage)?;
                match a.as_str() {
                    "--url" => url = Some(v),
                    "--token" => who = Some(devstack::smoke::Identity::Token(v)),
                    "--user" => who = Some(devstack::smoke::Identity::User(v)),
                    _ => return Err(usage()),
                }
            }
            let who = who.ok_or("devstack smoke needs --token (deployed) or --user (local)")?;
            devstack::smoke::run(&url.ok_or_else(usage)?, who)
                .await
                .map(|_| ())
        }
        Some("chat") => {
            let mut o = chat::Options {
                base: "http://127.0.0.1:9000".into(),
                who: devstack::smoke::Identity::User(demo::DEMO_USER.into()),
                conversation: format!("chat-{}", chrono::Utc::now().format("%Y%m%d%H%M%S")),
                workout: None,
            };
            let mut it = args.iter().skip(1);
            while let Some(a) = it.next() {
                let v = it.next().cloned().ok_or_else(usage)?;
                match a.as_str() {
                    // --base: the local stack's (the name before deployed APIs were reachable).
                    "--url" | "--base" => o.base = v,
                    "--user" => o.who = devstack::smoke::Identity::User(v),
                    "--token" => o.who = devstack::smoke::Identity::Token(v),
                    "--conversation" => o.conversation = v,
                    "--workout" => o.workout = Some(v),
                    _ => return Err(usage()),
                }
            }
            chat::run(o).await
        }
        Some("import-strong") => {
            let (mut user, mut file, mut tz, mut unit) = (None, None, None, None);
            let mut it = args.iter().skip(1);
            while let Some(a) = it.next() {
                let v = it.next().cloned().ok_or_else(usage)?;
                match a.as_str() {
                    "--user" => user = Some(v),
                    "--file" => file = Some(v),
                    "--tz" => tz = Some(v.parse().map_err(|_| format!("unknown timezone {v}"))?),
                    "--unit" => {
                        unit = Some(
                            coach::domain::units::Unit::parse(&v).ok_or("--unit is kg or lb")?,
                        )
                    }
                    _ => return Err(usage()),
                }
            }
            let (user, file) = (user.ok_or_else(usage)?, file.ok_or_else(usage)?);
            let text = std::fs::read_to_string(&file).map_err(|e| format!("{file}: {e}"))?;
            let config = coach::config::Config::from_env()?;
            let aws = coach::store::aws_config_from_env("devstack").await;
            let store = coach::store::Store::from_config(&aws, config.table.clone());
            let queue = coach::queue::JobQueue::new(&aws, &config.queue);
            let started = std::time::Instant::now();
            let out = coach::import::strong_export(
                &store,
                &queue,
                &user,
                &text,
                tz,
                unit,
                chrono::Utc::now(),
            )
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
        Some("job") => {
            let dry = args.iter().any(|a| a == "--dry-run");
            let body = args[1..]
                .iter()
                .find(|a| *a != "--dry-run")
                .ok_or_else(usage)?;
            let config = coach::config::Config::from_env()?;
            let lane = coach::lanes::worker::WorkerLane::from_config(&config).await?;
            let out = lane.jobs().operate(body, dry, chrono::Utc::now()).await?;
            println!(
                "{}",
                serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
            );
            Ok(())
        }
        Some("replay") => {
            // `--unit lb` before a file reads that file (and the ones after it) in pounds;
            // without it, a file without a unit column is read as the import reads it.
            let mut unit = None;
            let mut rows = Vec::new();
            let mut it = args.iter().skip(1);
            while let Some(a) = it.next() {
                if a == "--unit" {
                    let v = it.next().ok_or_else(usage)?;
                    unit = Some(coach::domain::units::Unit::parse(v).ok_or("--unit is kg or lb")?);
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
                return Err(usage());
            }
            replay::print(&rows);
            Ok(())
        }
        Some("coaching") => {
            let mut split = None;
            let mut given = Vec::new();
            let mut it = args.iter().skip(1);
            while let Some(a) = it.next() {
                if a == "--split" {
                    split = devstack::coaching::parse_split(it.next().ok_or_else(usage)?)?;
                } else {
                    given.push(PathBuf::from(a));
                }
            }
            let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
            print!("{}", devstack::coaching::run(&root, &given, split)?);
            Ok(())
        }
        Some("strong-sample") => {
            let mut rows = 5000usize;
            let mut last_day = chrono::Utc::now().date_naive();
            let mut it = args.iter().skip(1);
            while let Some(a) = it.next() {
                let v = it.next().ok_or_else(usage)?;
                match a.as_str() {
                    "--rows" => rows = v.parse().map_err(|_| usage())?,
                    "--last-day" => last_day = v.parse().map_err(|_| usage())?,
                    _ => return Err(usage()),
                }
            }
            print!("{}", strong::sample(rows, last_day));
            Ok(())
        }
        _ => Err(usage()),
    }
}
