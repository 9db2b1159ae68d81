//! The event stream to the app: `event: <type>\ndata: <json>\n\n`, the JSON always carrying
//! `"type"`. One writer task owns the response body and frames the coach's events
//! (`agent::Emitter`); it sends a `heartbeat` whenever nothing else went out for the heartbeat
//! interval (also while the model is still thinking), and closes the channel when the client
//! has gone so the coach can stop the model.

use std::time::Duration;

use bytes::Bytes;
use lambda_http::lambda_runtime::streaming::{Body as StreamBody, Sender, channel};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::agent::{Emitter, Event};

/// A heartbeat every 10 s while nothing else is sent (the API's contract).
pub const HEARTBEAT: Duration = Duration::from_secs(10);

/// One SSE frame.
pub fn frame(kind: &str, mut data: Value) -> Bytes {
    if let Value::Object(m) = &mut data {
        m.insert("type".into(), json!(kind));
    }
    Bytes::from(format!("event: {kind}\ndata: {data}\n\n"))
}

/// A streaming body and its emitter; the writer task ends when every emitter is dropped.
pub fn open(heartbeat: Duration) -> (Emitter, StreamBody) {
    let (sender, body) = channel();
    let (emit, rx) = Emitter::channel();
    tokio::spawn(write(sender, rx, heartbeat));
    (emit, body)
}

/// A body holding a few frames sent at once (answers that need no model).
pub fn body_of(frames: Vec<Bytes>) -> StreamBody {
    let (mut sender, body) = channel();
    tokio::spawn(async move {
        for f in frames {
            if sender.send_data(f).await.is_err() {
                break;
            }
        }
    });
    body
}

async fn write(mut sender: Sender, mut rx: mpsc::Receiver<Event>, heartbeat: Duration) {
    loop {
        let next = tokio::select! {
            e = rx.recv() => match e {
                Some(e) => frame(e.kind, e.data),
                None => break,
            },
            () = tokio::time::sleep(heartbeat) => frame("heartbeat", json!({})),
        };
        if sender.send_data(next).await.is_err() {
            // Dropping `rx` on return closes the channel: every emitter sees the client gone.
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_carry_their_type_in_the_json() {
        let f = frame(
            "tool_start",
            json!({"tool": "exercise_search", "call_id": "c1"}),
        );
        let text = String::from_utf8(f.to_vec()).expect("utf-8");
        let (head, data) = text.split_once('\n').expect("two lines");
        assert_eq!(head, "event: tool_start");
        assert!(text.ends_with("\n\n"));
        let v: Value =
            serde_json::from_str(data.trim_end().strip_prefix("data: ").expect("data line"))
                .expect("json");
        assert_eq!(v["type"], "tool_start");
        assert_eq!(v["call_id"], "c1");
    }
}
