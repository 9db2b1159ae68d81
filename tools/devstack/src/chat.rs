//! `devstack chat`: a terminal client for the coach on the local stack. It streams each message
//! from `/v1/stream` and prints the events as a lifter would read them: the coach's text as it
//! arrives, tool activity on dim lines, proposals as a card with `/confirm` and `/dismiss`,
//! questions with their options, errors plainly.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

use std::io::IsTerminal;
use std::sync::LazyLock;

/// Styles only on a terminal (a pipe or a log gets plain text).
static COLOR: LazyLock<bool> = LazyLock::new(|| std::io::stdout().is_terminal());

fn style(code: &'static str) -> &'static str {
    if *COLOR { code } else { "" }
}

pub struct Options {
    /// The API's base URL: the local stack's, or a deployed stack's `ApiUrl`.
    pub base: String,
    /// A Cognito ID token (deployed) or a user id (local).
    pub who: devstack::smoke::Identity,
    pub conversation: String,
    pub workout: Option<String>,
}

#[allow(non_snake_case)]
pub async fn run(o: Options) -> Result<(), String> {
    let (DIM, BOLD, RESET) = (style("\x1b[2m"), style("\x1b[1m"), style("\x1b[0m"));
    let http = reqwest::Client::new();
    let mut last_artifact: Option<(String, String)> = None;
    println!(
        "{BOLD}coach chat{RESET} as {} on {} (conversation {}). /confirm, /dismiss, /quit.",
        o.who.describe(),
        o.base,
        o.conversation
    );
    let stdin = std::io::stdin();
    let mut n = 0u32;
    loop {
        print!("\n{BOLD}you>{RESET} ");
        std::io::stdout().flush().map_err(|e| e.to_string())?;
        let mut line = String::new();
        if stdin
            .lock()
            .read_line(&mut line)
            .map_err(|e| e.to_string())?
            == 0
        {
            return Ok(());
        }
        let line = line.trim();
        match line {
            "" => continue,
            "/quit" | "/exit" => return Ok(()),
            "/confirm" | "/dismiss" => {
                match &last_artifact {
                    Some(shown) => decide(&http, &o, shown, &line[1..]).await?,
                    None => println!("{DIM}no proposal to {}{RESET}", &line[1..]),
                }
                continue;
            }
            _ => {}
        }
        n += 1;
        let prefix = format!(
            "(context: conversation_id={} corr=chat-{}-{n} workout_id={})",
            o.conversation,
            chrono::Utc::now().timestamp_millis(),
            o.workout.as_deref().unwrap_or("none")
        );
        let resp = http
            .post(format!("{}/v1/stream", o.base))
            .header(o.who.header().0, o.who.header().1)
            .header("content-type", "application/json")
            .body(json!({ "message": format!("{prefix} {line}") }).to_string())
            .send()
            .await
            .map_err(|e| format!("the slow lane did not answer: {e}"))?;
        if !resp.status().is_success() {
            println!(
                "! HTTP {}: {}",
                resp.status(),
                resp.text().await.unwrap_or_default()
            );
            continue;
        }
        let mut in_text = false;
        devstack::events::each_event(resp, |v| show(&v, &mut in_text, &mut last_artifact)).await?;
    }
}

/// Confirms (`action` "confirm", with the hash shown) or dismisses the last proposal shown.
#[allow(non_snake_case)]
async fn decide(
    http: &reqwest::Client,
    o: &Options,
    (id, hash): &(String, String),
    action: &str,
) -> Result<(), String> {
    let BOLD = style("\x1b[1m");
    let RESET = style("\x1b[0m");
    let body = if action == "confirm" {
        json!({ "content_hash": hash })
    } else {
        json!({})
    };
    let url = format!("{}/v1/artifacts/{id}/{action}", o.base);
    let resp = http
        .post(url)
        .header(o.who.header().0, o.who.header().1)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| format!("the functional lane did not answer: {e}"))?;
    let status = resp.status().as_u16();
    let v: Value = resp.json().await.unwrap_or(Value::Null);
    if status == 200 {
        println!(
            "{BOLD}{}{RESET} {}",
            v["artifact"]["status"].as_str().unwrap_or("done"),
            v["applied"]
        );
    } else {
        println!("! {}: {}", v["error"]["code"], v["error"]["message"]);
    }
    Ok(())
}

#[allow(non_snake_case)]
#[expect(
    clippy::too_many_lines,
    reason = "one arm per stream event the chat prints"
)]
fn show(v: &Value, in_text: &mut bool, last_artifact: &mut Option<(String, String)>) {
    let (DIM, BOLD, RESET) = (style("\x1b[2m"), style("\x1b[1m"), style("\x1b[0m"));
    let kind = v["type"].as_str().unwrap_or_default();
    let line_break = |in_text: &mut bool| {
        if *in_text {
            println!();
            *in_text = false;
        }
    };
    match kind {
        "route" => println!(
            "{DIM}[{} {}]{RESET}",
            v["lane"].as_str().unwrap_or("?"),
            v["intent"].as_str().unwrap_or("-")
        ),
        "message" => {
            if !*in_text {
                print!("{BOLD}coach>{RESET} ");
            }
            print!("{}", v["text"].as_str().unwrap_or_default());
            *in_text = true;
            let _ = std::io::stdout().flush();
        }
        "status" => {
            line_break(in_text);
            println!("{DIM}  {}{RESET}", v["text"].as_str().unwrap_or_default());
        }
        "tool_start" => {}
        "tool_end" => println!(
            "{DIM}  ↳ {} {} ({} ms){RESET}",
            v["tool"].as_str().unwrap_or_default(),
            if v["ok"].as_bool() == Some(true) {
                "ok"
            } else {
                "failed"
            },
            v["elapsed_ms"]
        ),
        "artifact" if v["artifact_type"] == "progress_chart" => {
            line_break(in_text);
            let content = &v["artifact_content"];
            println!(
                "┌ {BOLD}chart{RESET}: {}",
                content["title"].as_str().unwrap_or_default()
            );
            let unit = content["unit"].as_str().unwrap_or_default();
            for p in content["points"].as_array().into_iter().flatten() {
                println!(
                    "│ week of {}: {} {unit}",
                    p["week_start"].as_str().unwrap_or_default(),
                    p["e1rm"]
                );
            }
            println!("└");
        }
        "artifact" => {
            line_break(in_text);
            let content = &v["artifact_content"];
            let title = content["routine"]["name"]
                .as_str()
                .or(content["template"]["name"].as_str())
                .or(content["workout"]["name"].as_str())
                .unwrap_or("proposal");
            println!(
                "┌ {BOLD}{}{RESET}: {title} [{}]",
                v["artifact_type"].as_str().unwrap_or_default(),
                v["status"].as_str().unwrap_or_default()
            );
            if let Some(days) = content["templates"].as_array() {
                for t in days {
                    let names: Vec<&str> = t["exercises"]
                        .as_array()
                        .map(|a| a.iter().filter_map(|e| e["name"].as_str()).collect())
                        .unwrap_or_default();
                    println!(
                        "│ {}: {}",
                        t["name"].as_str().unwrap_or_default(),
                        names.join(", ")
                    );
                }
            }
            if let Some(ex) = content["workout"]["exercises"].as_array() {
                for e in ex {
                    let sets = e["sets"].as_array().cloned().unwrap_or_default();
                    let warmups = sets.iter().filter(|s| s["set_type"] == "warmup").count();
                    let first = sets.iter().find(|s| s["set_type"] != "warmup");
                    println!(
                        "│ {}: {} × {} @ {} kg{}",
                        e["name"].as_str().unwrap_or_default(),
                        sets.len() - warmups,
                        first.map_or(json!("?"), |s| s["target"]["reps"].clone()),
                        first.map_or(json!("?"), |s| s["target"]["weight_kg"].clone()),
                        if warmups > 0 {
                            format!(" (+{warmups} warm-up sets)")
                        } else {
                            String::new()
                        }
                    );
                }
            }
            if v["status"] == "proposed" {
                println!("└ /confirm to apply, /dismiss to drop");
                *last_artifact = Some((
                    v["artifact_id"].as_str().unwrap_or_default().to_string(),
                    v["content_hash"].as_str().unwrap_or_default().to_string(),
                ));
            } else {
                println!("└ {}", v["status"].as_str().unwrap_or_default());
            }
        }
        "clarification" => {
            line_break(in_text);
            println!("? {}", v["question"].as_str().unwrap_or_default());
            if let Some(opts) = v["options"].as_array() {
                for o in opts {
                    println!("  - {}", o.as_str().unwrap_or_default());
                }
            }
        }
        "result" => {
            line_break(in_text);
            println!("{} {}", v["action"].as_str().unwrap_or_default(), v["data"]);
        }
        "error" => {
            line_break(in_text);
            println!(
                "! {}: {}",
                v["code"].as_str().unwrap_or_default(),
                v["message"].as_str().unwrap_or_default()
            );
        }
        "done" => {
            line_break(in_text);
            println!("{DIM}[done in {} ms]{RESET}", v["latency_ms"]);
        }
        _ => {}
    }
}
