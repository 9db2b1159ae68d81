//! What a model writes that is not for the lifter: reasoning (`<think>…</think>` from Qwen and
//! DeepSeek, `<thinking>…</thinking>` from Nova) and tool calls written as text by a model or a
//! server without a tool parser (Hermes-style `<tool_call>{…}</tool_call>`, Qwen2.5-Coder's
//! `<tools><function name="…" arguments='{…}'/></tools>`, a fenced JSON `{"name", "arguments"}`,
//! or that JSON bare at the start of a line, even in doubled braces as a template leaves it:
//! `{{"name": …, "arguments": {…}}}`; or a tag named as a tool, its arguments as attributes:
//! `<exercise_progress exercise_id="bench_press" weeks="26"></exercise_progress>`, which Qwen
//! 1.5B wrote to a pound lifter), and a tool's result echoed back (`<tool_response>`).
//!
//! The model's text streams through [`Markup`], which holds it from a possible opening marker
//! until it knows: reasoning is dropped, a call is kept for [`calls_in`] to read, anything else
//! is released as it was written (a fence that is not a call is shown whole, once closed).

use std::sync::LazyLock;

use regex_lite::Regex;
use serde_json::{Map, Value};

use crate::llm::{ToolCall, ToolSpec};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Not for the lifter: dropped.
    Reasoning,
    Call,
    /// A fenced block: a call if its content is one, else text.
    Fence,
}

/// Opening markers, what closes each, and what the block is.
const BLOCKS: &[(&str, &[&str], Kind)] = &[
    ("<think>", &["</think>"], Kind::Reasoning),
    ("<thinking>", &["</thinking>"], Kind::Reasoning),
    ("<tool_call>", &["</tool_call>"], Kind::Call),
    ("<tools>", &["</tools>"], Kind::Call),
    ("<function", &["</function>", "/>"], Kind::Call),
    ("<tool_response>", &["</tool_response>"], Kind::Reasoning),
    // The app's notes in the replayed history (`critic::as_replayed`), which a small model
    // copies into its next answer (Qwen 1.5B did): the app's words, not the coach's.
    ("[The app's fact check", &["]"], Kind::Reasoning),
    ("```", &["```"], Kind::Fence),
];

/// The characters a marker of `BLOCKS` starts with.
const MARKER_STARTS: [char; 3] = ['<', '`', '['];

/// A stream filter over one model turn's text.
#[derive(Default)]
pub(crate) struct Markup {
    /// Text that may be the start of an opening marker.
    pending: String,
    /// The block being read: its entry in `BLOCKS` and its text so far (marker included).
    block: Option<(usize, String)>,
    /// Calls written as text, whole (markers included).
    pub written_calls: Vec<String>,
    /// Reasoning or calls were taken out of the text.
    pub removed: bool,
    /// A bare JSON object being read from the start of a line, and its brace depth.
    json: Option<(String, usize)>,
    /// Text has been shown on the current line (a `{` after it is text, not a call).
    mid_line: bool,
    /// A bare JSON call just closed: closing braces the template doubled are its own.
    after_json_call: bool,
    /// A tag named as a tool being read: its name and its text so far.
    tag: Option<(String, String)>,
}

/// The opening of a tag named as a tool: a snake_case name with an underscore, then a space,
/// `>` or `/` (`<exercise_progress `); what may still become one (`<exercise_pro`).
static TOOL_TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^<([a-z][a-z0-9]*(?:_[a-z0-9]+)+)[\s/>]$")
        .unwrap_or_else(|e| panic!("tool tag pattern: {e}"))
});
static TOOL_TAG_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^<[a-z][a-z0-9_]{0,40}$").unwrap_or_else(|e| panic!("tool tag start: {e}"))
});
/// A tag's attribute: `weeks="26"`, `exercise_id='bench'`.
static TAG_ATTRIBUTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:"([^"]*)"|'([^']*)')"#)
        .unwrap_or_else(|e| panic!("tag attribute pattern: {e}"))
});

impl Markup {
    /// The text to show after the model's `delta`.
    pub fn push(&mut self, delta: &str) -> String {
        let mut out = String::new();
        for ch in delta.chars() {
            if self.after_json_call && ch == '}' {
                continue;
            }
            self.after_json_call = false;
            if let Some((json, depth)) = &mut self.json {
                // A call on one line may leave a brace open ("{{…}" from a template): its line's
                // end closes it.
                let line_end = ch == '\n' && *depth <= 1 && json.trim_end().ends_with('}');
                if !line_end {
                    json.push(ch);
                    match ch {
                        '{' => *depth += 1,
                        '}' => *depth = depth.saturating_sub(1),
                        _ => {}
                    }
                }
                if line_end || *depth == 0 {
                    let (json, _) = self.json.take().unwrap_or_default();
                    out.push_str(&self.close_json(json));
                    if line_end {
                        out.push(ch);
                        self.mid_line = false;
                    }
                }
                continue;
            }
            if ch == '{'
                && self.pending.is_empty()
                && self.block.is_none()
                && self.tag.is_none()
                && !self.mid_line
            {
                self.json = Some((ch.to_string(), 1));
                continue;
            }
            if ch == '\n' {
                self.mid_line = false;
            } else if !ch.is_whitespace() && self.block.is_none() {
                self.mid_line = true;
            }
            if let Some((name, text)) = &mut self.tag {
                text.push(ch);
                let closed = text.ends_with(&format!("</{name}>")) || text.ends_with("/>");
                if closed {
                    let (_, text) = self.tag.take().unwrap_or_default();
                    self.removed = true;
                    self.written_calls.push(text);
                }
                continue;
            }
            if let Some((i, block)) = &mut self.block {
                block.push(ch);
                let (opener, closers, _) = BLOCKS[*i];
                if closers
                    .iter()
                    .any(|c| block.ends_with(c) && block.len() >= opener.len() + c.len())
                {
                    let (i, block) = self.block.take().unwrap_or_default();
                    out.push_str(&self.close(i, block));
                }
                continue;
            }
            if self.pending.is_empty() && !MARKER_STARTS.contains(&ch) {
                out.push(ch);
                continue;
            }
            self.pending.push(ch);
            self.settle(&mut out);
        }
        out
    }

    /// What is left when the turn ends: an unclosed reasoning block is dropped, an unclosed
    /// call kept, anything else shown.
    pub fn finish(&mut self) -> String {
        let mut out = std::mem::take(&mut self.pending);
        if let Some((_, text)) = self.tag.take() {
            self.removed = true;
            self.written_calls.push(text);
        }
        if let Some((json, _)) = self.json.take() {
            out.push_str(&self.close_json(json));
        }
        if let Some((i, block)) = self.block.take() {
            match BLOCKS[i].2 {
                Kind::Reasoning => self.removed = true,
                Kind::Call => {
                    self.removed = true;
                    self.written_calls.push(block);
                }
                Kind::Fence => out.push_str(&block),
            }
        }
        out
    }

    /// Moves `pending` on: into a block when it is an opening marker, out as text once it
    /// cannot become one.
    fn settle(&mut self, out: &mut String) {
        loop {
            if let Some(i) = BLOCKS.iter().position(|(o, _, _)| *o == self.pending) {
                self.block = Some((i, std::mem::take(&mut self.pending)));
                return;
            }
            if self.pending.is_empty()
                || BLOCKS.iter().any(|(o, _, _)| o.starts_with(&self.pending))
            {
                return;
            }
            if let Some(name) = TOOL_TAG.captures(&self.pending).map(|c| c[1].to_string()) {
                self.tag = Some((name, std::mem::take(&mut self.pending)));
                return;
            }
            if TOOL_TAG_START.is_match(&self.pending) {
                return;
            }
            // Not a marker: release up to the next character that could start one.
            let next = self.pending[1..]
                .find(MARKER_STARTS)
                .map_or(self.pending.len(), |p| p + 1);
            out.extend(self.pending.drain(..next));
        }
    }

    /// A bare JSON object read whole (or cut by the turn's end): a call is kept, anything
    /// else shown as written.
    fn close_json(&mut self, json: String) -> String {
        if written_call(&json).is_some() {
            self.removed = true;
            self.after_json_call = true;
            self.written_calls.push(json);
            String::new()
        } else {
            self.mid_line = !json.ends_with('\n');
            json
        }
    }

    /// A closed block: what to show of it.
    fn close(&mut self, i: usize, block: String) -> String {
        match BLOCKS[i].2 {
            Kind::Reasoning => {
                self.removed = true;
                String::new()
            }
            Kind::Call => {
                self.removed = true;
                self.written_calls.push(block);
                String::new()
            }
            Kind::Fence if written_call(&block).is_some() => {
                self.removed = true;
                self.written_calls.push(block);
                String::new()
            }
            Kind::Fence => block,
        }
    }
}

static FUNCTION_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"name\s*=\s*["']([A-Za-z0-9_\-]+)["']"#)
        .unwrap_or_else(|e| panic!("function name pattern: {e}"))
});
static FUNCTION_ARGUMENTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?s)arguments\s*=\s*(?:'(.*?)'|"((?:[^"\\]|\\.)*)")\s*/?>"#)
        .unwrap_or_else(|e| panic!("function arguments pattern: {e}"))
});

/// The (name, arguments) a block of text writes, if it writes a call at all; the arguments are
/// `None` when they are not a JSON object.
fn written_call(block: &str) -> Option<(String, Option<Value>)> {
    // A tag named as a tool: its attributes are the arguments, numbers read as numbers.
    let head = block
        .find([' ', '\n', '\t', '>', '/'])
        .and_then(|i| block.get(..=i))
        .unwrap_or_default();
    if !BLOCKS.iter().any(|(o, _, _)| block.starts_with(o))
        && let Some(c) = TOOL_TAG.captures(head)
    {
        let name = c[1].to_string();
        let head_end = block.find('>').unwrap_or(block.len());
        let mut args = Map::new();
        for a in TAG_ATTRIBUTE.captures_iter(&block[..head_end]) {
            let raw = a.get(2).or(a.get(3)).map_or("", |m| m.as_str());
            let value = raw
                .parse::<i64>()
                .map(Value::from)
                .or_else(|_| raw.parse::<f64>().map(Value::from))
                .unwrap_or_else(|_| Value::from(raw));
            args.insert(a[1].to_string(), value);
        }
        return Some((name, Some(Value::Object(args))));
    }
    if let Some(name) = FUNCTION_NAME.captures(block).map(|c| c[1].to_string())
        && block.contains("<function")
    {
        let args = FUNCTION_ARGUMENTS
            .captures(block)
            .and_then(|c| c.get(1).or(c.get(2)))
            .and_then(|m| serde_json::from_str::<Value>(m.as_str()).ok())
            .filter(Value::is_object);
        return Some((name, args));
    }
    // A JSON object with a name and its arguments (or parameters), possibly as a JSON string,
    // possibly in the doubled braces a chat template leaves ("{{…}}").
    let start = block.find('{')?;
    let end = block.rfind('}')?;
    let object = block.get(start..=end)?;
    let v: Value = serde_json::from_str(object).ok().or_else(|| {
        let inner = object.strip_prefix('{')?;
        serde_json::from_str(inner)
            .ok()
            .or_else(|| serde_json::from_str(inner.strip_suffix('}')?).ok())
    })?;
    let name = v["name"].as_str()?.to_string();
    let args = match v.get("arguments").or(v.get("parameters")) {
        None | Some(Value::Null) => Some(Value::Object(Map::new())),
        Some(a @ Value::Object(_)) => Some(a.clone()),
        Some(Value::String(s)) => serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object),
        Some(_) => None,
    };
    Some((name, args))
}

/// The calls written as text that can run: each names a tool `offered` this turn with
/// arguments that are a JSON object. The others are returned as written, for the model to be
/// told.
pub(crate) fn calls_in(written: &[String], offered: &[ToolSpec]) -> (Vec<ToolCall>, Vec<String>) {
    let mut calls = Vec::new();
    let mut unusable = Vec::new();
    for block in written {
        match written_call(block) {
            Some((name, Some(args))) if offered.iter().any(|s| s.name == name) => {
                calls.push(ToolCall {
                    id: format!("text_call_{}", calls.len() + 1),
                    provider_id: false,
                    name,
                    args,
                    signature: None,
                    malformed: None,
                });
            }
            _ => unusable.push(block.chars().take(300).collect()),
        }
    }
    (calls, unusable)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Feeds `text` in chunks of `n` characters; returns what the lifter saw and the filter.
    fn streamed(text: &str, n: usize) -> (String, Markup) {
        let mut m = Markup::default();
        let chars: Vec<char> = text.chars().collect();
        let mut seen = String::new();
        for c in chars.chunks(n) {
            seen.push_str(&m.push(&c.iter().collect::<String>()));
        }
        seen.push_str(&m.finish());
        (seen, m)
    }

    fn offered() -> Vec<ToolSpec> {
        ["exercise_progress", "propose_routine"]
            .iter()
            .map(|n| ToolSpec {
                name: (*n).into(),
                description: String::new(),
                parameters: None,
            })
            .collect()
    }

    #[test]
    fn reasoning_never_reaches_the_lifter() {
        for n in [1, 2, 5, 100] {
            let (seen, m) = streamed(
                "<think>The lifter wants 100 kg? Let me guess 140.</think>Your bench is moving up. <thinking>check</thinking>Keep going.",
                n,
            );
            assert_eq!(
                seen, "Your bench is moving up. Keep going.",
                "chunks of {n}"
            );
            assert!(m.removed && m.written_calls.is_empty());
        }
        // Unclosed at the end: still dropped.
        let (seen, _) = streamed("Rest today.<think>maybe", 3);
        assert_eq!(seen, "Rest today.");
    }

    #[test]
    fn the_apps_notes_copied_from_the_history_never_reach_the_lifter() {
        // Qwen2.5-Coder-1.5B ended an answer with the note its history showed (27 Nov).
        let copied = "Keep going.\n\n[The app's fact check, not the coach, left out the figures marked so: the data did not back them.]";
        for n in [1, 5, 100] {
            assert_eq!(streamed(copied, n).0, "Keep going.\n\n", "chunks of {n}");
            // The hold-back's placeholder and other brackets pass as written.
            let kept =
                "Your max is [a figure I can't back with your data]; see [1] and [The plan].";
            assert_eq!(streamed(kept, n).0, kept, "chunks of {n}");
        }
    }

    #[test]
    fn a_tag_named_as_a_tool_is_a_call() {
        // Qwen2.5-Coder-1.5B's whole answer to a pound lifter's progress question (27 Nov).
        let tag = r#"<exercise_progress exercise_id="bench_press" weeks="26"></exercise_progress>"#;
        let closed = r#"<suggest_weight exercise_id='back-squat' target_reps="5"/>"#;
        for n in [1, 3, 100] {
            let (seen, m) = streamed(&format!("Let me look. {tag}\n{closed} Done."), n);
            assert_eq!(seen, "Let me look. \n Done.", "chunks of {n}");
            let (calls, unusable) = calls_in(&m.written_calls, &offered());
            assert_eq!(unusable.len(), 1, "suggest_weight is not offered here");
            assert_eq!(calls.len(), 1);
            assert_eq!(calls[0].name, "exercise_progress");
            assert_eq!(
                calls[0].args,
                json!({"exercise_id": "bench_press", "weeks": 26})
            );
        }
        // Tags that name no tool pass as written.
        for text in [
            "a <b>bold</b> claim",
            "keep reps <8 and load < 100 kg",
            "x<y",
        ] {
            assert_eq!(streamed(text, 1).0, text);
        }
    }

    #[test]
    fn calls_written_as_text_are_taken_out_and_read() {
        let qwen = r#"<tools><function name="exercise_progress" arguments='{"exercise_id": "front squat", "weeks": 26}'/></tools>"#;
        let hermes = r#"<tool_call>
{"name": "exercise_progress", "arguments": {"exercise_id": "bench press"}}
</tool_call>"#;
        let fenced = "```json\n{\"name\": \"propose_routine\", \"arguments\": \"{\\\"name\\\": \\\"A\\\"}\"}\n```";
        for n in [1, 4, 100] {
            let (seen, m) = streamed(
                &format!("Let me check. {qwen}{hermes}\n{fenced}\nOne moment."),
                n,
            );
            assert_eq!(seen, "Let me check. \n\nOne moment.", "chunks of {n}");
            let (calls, unusable) = calls_in(&m.written_calls, &offered());
            assert!(unusable.is_empty(), "{unusable:?}");
            let got: Vec<(&str, &Value)> =
                calls.iter().map(|c| (c.name.as_str(), &c.args)).collect();
            let (a, b, c) = (
                json!({"exercise_id": "front squat", "weeks": 26}),
                json!({"exercise_id": "bench press"}),
                json!({"name": "A"}),
            );
            assert_eq!(
                got,
                vec![
                    ("exercise_progress", &a),
                    ("exercise_progress", &b),
                    ("propose_routine", &c)
                ]
            );
        }
    }

    #[test]
    fn a_bare_json_call_and_an_echoed_result_never_reach_the_lifter() {
        // What Qwen2.5-Coder-1.5B wrote after a tool error, and what it echoed.
        let doubled = r#"{{"name": "exercise_progress", "arguments": {"exercise_id": "ez-bar-curl", "weeks": 4}}"#;
        let balanced = r#"{{"name": "exercise_progress", "arguments": {"weeks": 2}}}}"#;
        let echoed = r#"<tool_response>
{"error":{"code":"UNKNOWN_EXERCISE","message":"'curl' could be …"}}
</tool_response>"#;
        for n in [1, 3, 100] {
            let (seen, m) = streamed(&format!("{doubled}\n{echoed}\n{balanced}Done."), n);
            assert_eq!(seen, "\n\nDone.", "chunks of {n}");
            let (calls, unusable) = calls_in(&m.written_calls, &offered());
            assert!(unusable.is_empty(), "{unusable:?}");
            let args: Vec<&Value> = calls.iter().map(|c| &c.args).collect();
            assert_eq!(
                args,
                [
                    &json!({"exercise_id": "ez-bar-curl", "weeks": 4}),
                    &json!({"weeks": 2})
                ]
            );
        }
        // JSON that is no call, and a brace inside a line, are text.
        for n in [1, 3, 100] {
            for text in [
                "{\"sets\": 3, \"reps\": 5}\nThat is the plan.",
                "Sets {3} and reps.\n",
            ] {
                let (seen, m) = streamed(text, n);
                assert_eq!(seen, text, "chunks of {n}");
                assert!(!m.removed);
            }
        }
    }

    #[test]
    fn other_text_passes_as_written() {
        for n in [1, 3, 100] {
            for text in [
                "Keep 5 < 6 and <b>bold</b> as they are.",
                "Use `RIR 2` here.",
                "```\nsquat 3x5\n```\nThat is the plan.",
                "A fence ```{\"sets\": 3}``` stays.",
            ] {
                let (seen, m) = streamed(text, n);
                assert_eq!(seen, text, "chunks of {n}");
                assert!(!m.removed);
            }
        }
    }

    #[test]
    fn a_call_to_a_tool_not_offered_or_without_json_cannot_run() {
        let written = vec![
            r#"<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>"#.to_string(),
            r#"<tools><function name="exercise_progress" arguments='{exercise_id: bench}'/></tools>"#
                .to_string(),
        ];
        let (calls, unusable) = calls_in(&written, &offered());
        assert!(calls.is_empty());
        assert_eq!(unusable.len(), 2);
    }
}
