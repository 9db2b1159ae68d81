//! The shell examples of README.md and docs/api.md, run as written against a local stack, as a
//! reader runs them against `make dev`: every example block that talks to the local URL, with the
//! demo user freshly loaded (as `make dev` starts), through the real curl.
//!
//! Each curl call of a block is checked: its status is 2xx unless the comment beside it or the
//! sample output under it names that status (`# 422 NOT_A_COMMAND`), and every plain
//! `"key":"value"` of the sample output under it (values with `…`, `...` or `<` are placeholders)
//! is in the answer. The block's other commands (cargo lambda invoke, devstack) must succeed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use blackbox::{Stack, case_name, check, test_runtime, unselected, workspace_root};
use libtest_mimic::{Arguments, Conclusion, Failed, Trial};

/// The pages whose examples run; other pages' blocks need a deployed stack or AWS credentials.
const PAGES: &[&str] = &["README.md", "docs/api.md"];
/// The base URL the pages use.
const DOC_BASE: &str = "127.0.0.1:9000";

/// Records every curl call of an example (arguments' answer status and body) and prints the body
/// as curl would. `-o`/`-w` come last: the examples use neither.
const CURL_WRAPPER: &str = r#"#!/usr/bin/env bash
n=$(find "$DOCS_CALLS" -name '*.status' | wc -l)
"$REAL_CURL" "$@" -o "$DOCS_CALLS/$n.body" -w '%{http_code}' > "$DOCS_CALLS/$n.status" || exit $?
cat "$DOCS_CALLS/$n.body"
"#;

struct Block {
    /// The case's name: the page and the block's first line.
    name: String,
    page: &'static str,
    line: usize,
    script: String,
}

struct Ctx {
    stack: Stack,
    rt: tokio::runtime::Handle,
    scratch: PathBuf,
    real_curl: String,
}

/// The case that reads every shell example of the pages for a written-out date.
const NO_LITERAL_DATES: &str = "no_example_carries_a_literal_date";

pub fn suite(args: &Arguments) -> Conclusion {
    const SUITE: &str = "docs_examples";
    let blocks: Vec<(String, Block)> = PAGES
        .iter()
        .flat_map(|page| example_blocks(page))
        .map(|block| (block.name.clone(), block))
        .collect();
    assert!(
        blocks.len() >= 6,
        "found only {} example blocks",
        blocks.len()
    );
    let mut names: Vec<&str> = blocks.iter().map(|(name, _)| name.as_str()).collect();
    names.push(NO_LITERAL_DATES);
    let selection: Vec<(&str, ())> = names.into_iter().map(|n| (n, ())).collect();
    if let Some(skipped) = unselected(args, SUITE, &selection) {
        return skipped;
    }
    // The blocks share the demo user, as a reader's do: one at a time.
    let mut args = args.clone();
    args.test_threads = Some(1);
    let rt = test_runtime();
    // Phones register with a fake SNS, as under `make dev`.
    let sns = blackbox::fake_sns::FakeSns::start();
    let ctx = std::sync::Arc::new(Ctx {
        stack: rt.block_on(Stack::start_with(&[
            ("AWS_ENDPOINT_URL_SNS", sns.endpoint.clone()),
            ("PUSH_APNS_ARN", blackbox::APNS_APP.to_string()),
        ])),
        rt: rt.handle().clone(),
        scratch: scratch_dir(),
        real_curl: real_curl(),
    });
    let mut trials: Vec<Trial> = blocks
        .into_iter()
        .map(|(name, block)| {
            let ctx = ctx.clone();
            Trial::test(case_name(SUITE, &name), move || run_block(&ctx, &block))
        })
        .collect();
    trials.push(Trial::test(
        case_name(SUITE, NO_LITERAL_DATES),
        no_example_carries_a_literal_date,
    ));
    let conclusion = libtest_mimic::run(&args, trials);
    let _ = std::fs::remove_dir_all(&ctx.scratch);
    drop(ctx);
    drop(rt);
    conclusion
}

/// The `sh` blocks of `page` that call the local URL.
fn example_blocks(page: &'static str) -> Vec<Block> {
    shell_blocks(page)
        .into_iter()
        .filter(|block| block.script.contains(DOC_BASE))
        .collect()
}

/// Every `sh` block of `page`.
fn shell_blocks(page: &'static str) -> Vec<Block> {
    let text = std::fs::read_to_string(workspace_root().join(page))
        .unwrap_or_else(|e| panic!("cannot read {page}: {e}"));
    let mut blocks = Vec::new();
    let mut open: Option<(usize, Vec<&str>)> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut open, line.starts_with("```")) {
            (None, true) if line.trim_end() == "```sh" => open = Some((i + 2, Vec::new())),
            (Some(_), true) => {
                if let Some((first, lines)) = open.take() {
                    blocks.push(Block {
                        name: format!("{}_line_{first}", page.replace(['/', '.'], "_")),
                        page,
                        line: first,
                        script: lines.join("\n"),
                    });
                }
            }
            (Some((_, lines)), false) => lines.push(line),
            _ => {}
        }
    }
    blocks
}

/// An example that writes out a date passes on the day it was written and fails weeks later
/// (the server refuses a command time more than a day from its clock; a review's week empties
/// as the demo history moves on): examples compute their dates (`$(date -u +%F)`).
fn no_example_carries_a_literal_date() -> Result<(), Failed> {
    let found: Vec<String> = PAGES
        .iter()
        .flat_map(|page| shell_blocks(page))
        .flat_map(|block| {
            block
                .script
                .lines()
                .enumerate()
                .filter_map(|(i, line)| {
                    let date = literal_date(line)?;
                    Some(format!("{}:{}: {date}", block.page, block.line + i))
                })
                .collect::<Vec<_>>()
        })
        .collect();
    check(
        found.is_empty(),
        format!(
            "shell examples must compute their dates, not write them out: {}",
            found.join("; ")
        ),
    )
}

/// The first `YYYY-MM-DD` of `line` that is a calendar date, other than the Lambda invoke API's
/// version in its path (`/2015-03-31/functions/`), which is not a time.
fn literal_date(line: &str) -> Option<String> {
    let line = line.replace("/2015-03-31/functions/", "/functions/");
    (0..line.len().saturating_sub(9))
        .filter_map(|at| line.get(at..at + 10))
        .find(|s| {
            s.as_bytes()[4] == b'-' && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
        })
        .map(str::to_string)
}

fn run_block(ctx: &Ctx, block: &Block) -> Result<(), Failed> {
    // As `make dev` starts: the demo user as devstack loads it.
    ctx.rt
        .block_on(devstack::demo::load(&ctx.stack.store, chrono::Utc::now()))
        .map_err(|e| format!("loading the demo user: {e}"))?;
    let dir = ctx
        .scratch
        .join(format!("{}-{}", block.page.replace('/', "-"), block.line));
    let calls = dir.join("calls");
    let bin = dir.join("bin");
    for d in [&calls, &bin] {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    write_executable(&bin.join("curl"), CURL_WRAPPER)?;
    let port = ctx.stack.port.to_string();
    let script = block
        .script
        .replace(DOC_BASE, &format!("127.0.0.1:{port}"))
        .replace("-P 9000", &format!("-P {port}"))
        .replace("/tmp/", &format!("{}/", dir.display()));
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-e", "-o", "pipefail", "-c", &script])
        .current_dir(workspace_root())
        .env("PATH", path)
        .env("DOCS_CALLS", &calls)
        .env("REAL_CURL", &ctx.real_curl)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("bash: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    check(
        out.status.success(),
        format!("the block failed ({}): {stderr}", out.status),
    )?;
    let expected = curl_examples(&block.script);
    let answers = (0..expected.len())
        .map(|n| {
            let read = |ext: &str| std::fs::read_to_string(calls.join(format!("{n}.{ext}")));
            match (read("status"), read("body")) {
                (Ok(status), Ok(body)) => Ok((status, body)),
                _ => Err(format!("curl call {n} left no record: {stderr}")),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    for (example, (status, body)) in expected.iter().zip(&answers) {
        let ok = status.starts_with('2') || example.notes.contains(status.as_str());
        check(
            ok,
            format!(
                "{}:{}: {} answered {status} (the page names no such status): {body}",
                block.page,
                block.line + example.line - 1,
                example.command
            ),
        )?;
        for pair in shown_pairs(&example.notes) {
            check(
                body.contains(&pair),
                format!(
                    "{}:{}: the page shows {pair}, the answer was: {body}",
                    block.page,
                    block.line + example.line - 1
                ),
            )?;
        }
    }
    Ok(())
}

/// A curl command of a block, its comment and the sample output under it.
struct CurlExample {
    line: usize,
    command: String,
    notes: String,
}

fn curl_examples(script: &str) -> Vec<CurlExample> {
    let mut examples: Vec<CurlExample> = Vec::new();
    // Whether comment lines now belong to the last curl call (not to a later other command).
    let mut attached = false;
    let mut continued = false;
    for (i, line) in script.lines().enumerate() {
        let trimmed = line.trim_start();
        if continued {
            continued = line.ends_with('\\');
        } else if trimmed.starts_with("curl ") {
            let (command, comment) = split_comment(trimmed);
            examples.push(CurlExample {
                line: i + 1,
                command: command.to_string(),
                notes: comment.to_string(),
            });
            attached = true;
            continued = line.ends_with('\\');
        } else if let Some(output) = trimmed.strip_prefix('#') {
            if let (true, Some(last)) = (attached, examples.last_mut()) {
                last.notes.push('\n');
                last.notes.push_str(output);
            }
        } else if !trimmed.is_empty() {
            attached = false;
        }
    }
    examples
}

/// A line's command and its comment, as the shell splits them: a `#` that starts a word,
/// outside quotes.
fn split_comment(line: &str) -> (&str, &str) {
    let mut quote = None;
    let mut previous = ' ';
    for (at, c) in line.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '#') if previous.is_whitespace() => {
                return (line[..at].trim_end(), &line[at + 1..]);
            }
            _ => {}
        }
        previous = c;
    }
    (line, "")
}

/// The plain `"key":"value"` pairs a sample output shows; placeholders left out.
fn shown_pairs(notes: &str) -> Vec<String> {
    let mut pairs = Vec::new();
    let mut rest = notes;
    while let Some(at) = rest.find("\":\"") {
        let key_start = rest[..at].rfind('"').map_or(at, |q| q + 1);
        let value = &rest[at + 3..];
        let Some(end) = value.find('"') else { break };
        let (key, value) = (&rest[key_start..at], &value[..end]);
        let placeholder = ["…", "...", "<"].iter().any(|p| value.contains(p));
        if !key.is_empty() && !key.contains(char::is_whitespace) && !placeholder {
            pairs.push(format!("\"{key}\":\"{value}\""));
        }
        rest = &rest[at + 3 + end + 1..];
    }
    pairs
}

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("coach-docs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// The curl the examples are written for, found before the wrapper goes first on PATH.
fn real_curl() -> String {
    let out = Command::new("bash")
        .args(["-c", "command -v curl"])
        .output()
        .expect("bash");
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(!path.is_empty(), "the examples need curl on PATH");
    path
}

fn write_executable(path: &Path, text: &str) -> Result<(), Failed> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("{}: {e}", path.display()).into())
}
