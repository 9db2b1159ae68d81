//! The event stream to the app (DESIGN §5): `event: <type>\ndata: <json>\n\n`, the JSON always
//! carrying `"type"`. One writer task owns the response body; it sends a `heartbeat` whenever
//! nothing else went out for the heartbeat interval (also while the model is still thinking),
//! and notices when the client has gone so the agent can stop the model.

use std::time::Duration;

use bytes::Bytes;
use lambda_http::lambda_runtime::streaming::{Body as StreamBody, Sender, channel};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// DESIGN §5: a heartbeat every 10 s while nothing else is sent.
pub const HEARTBEAT: Duration = Duration::from_secs(10);

/// One SSE frame.
pub fn frame(kind: &str, mut data: Value) -> Bytes {
    if let Value::Object(m) = &mut data {
        m.insert("type".into(), json!(kind));
    }
    Bytes::from(format!("event: {kind}\ndata: {data}\n\n"))
}

/// The sending side of the stream, cheap to clone. The writer drops its receiver when the
/// client has gone, so a closed channel is the disconnect signal.
#[derive(Clone)]
pub struct Emitter {
    tx: mpsc::Sender<Bytes>,
}

impl Emitter {
    /// Sends one event; `false` once the client has gone.
    pub async fn send(&self, kind: &str, data: Value) -> bool {
        self.send_frame(frame(kind, data)).await
    }

    /// Sends a frame made earlier (the `route` event).
    pub async fn send_frame(&self, f: Bytes) -> bool {
        self.tx.send(f).await.is_ok()
    }

    pub fn client_gone(&self) -> bool {
        self.tx.is_closed()
    }

    /// Resolves when the client has gone.
    pub async fn gone(&self) {
        self.tx.closed().await
    }
}

/// A streaming body and its emitter; the writer task ends when every emitter is dropped.
pub fn open(heartbeat: Duration) -> (Emitter, StreamBody) {
    let (sender, body) = channel();
    let (tx, rx) = mpsc::channel(64);
    tokio::spawn(write(sender, rx, heartbeat));
    (Emitter { tx }, body)
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

async fn write(mut sender: Sender, mut rx: mpsc::Receiver<Bytes>, heartbeat: Duration) {
    loop {
        let next = tokio::select! {
            f = rx.recv() => match f {
                Some(f) => f,
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
