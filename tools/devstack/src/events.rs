//! `POST /v1/stream`'s body read as the app reads it: each server-sent event's JSON, in order,
//! as it arrives (the chat prints them, the evaluation and the smoke test record them).

use coach::llm::sse::SseParser;
use serde_json::Value;

/// Calls `on` with every event of `resp`'s body; an error when the body breaks off.
pub async fn each_event(
    mut resp: reqwest::Response,
    mut on: impl FnMut(Value),
) -> Result<(), String> {
    let mut parser = SseParser::default();
    let mut seen = |data: String| on(serde_json::from_str(&data).unwrap_or(Value::Null));
    while let Some(chunk) = resp
        .chunk()
        .await
        .map_err(|e| format!("the stream broke off: {e}"))?
    {
        parser.push(&chunk).into_iter().for_each(&mut seen);
    }
    parser.finish().into_iter().for_each(&mut seen);
    Ok(())
}
