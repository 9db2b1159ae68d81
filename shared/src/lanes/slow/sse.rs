//! The event stream to the app: `event: <type>\ndata: <json>\n\n`, the JSON always carrying
//! `"type"`. One writer task owns the response body and frames the coach's events
//! (`agent::Emitter`); it sends a `heartbeat` whenever nothing else went out for the heartbeat
//! interval (also while the model is still thinking), and closes the channel when the client
//! has gone so the coach can stop the model.

use std::time::Duration;

use bytes::Bytes;
use lambda_http::lambda_runtime::streaming::{Body as StreamBody, Sender, channel};
use tokio::sync::mpsc;

use crate::agent::{Emitter, StreamEvent};

/// A heartbeat every 10 s while nothing else is sent (the API's contract).
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(10);
/// A client that takes no frame for this long is gone: the body's channel holds one frame, so
/// a reader that stops reading without closing would otherwise hold the turn (and the model
/// call, and the function) until the function's timeout.
pub(crate) const STALLED_CLIENT: Duration = Duration::from_secs(30);

/// One SSE frame: the event's type as its name, the event (with its `type`) as its data.
pub fn frame(event: &StreamEvent) -> Bytes {
    Bytes::from(format!(
        "event: {}\ndata: {}\n\n",
        event.kind(),
        event.to_json()
    ))
}

/// A streaming body and its emitter; the writer task ends when every emitter is dropped.
pub fn open(heartbeat: Duration) -> (Emitter, StreamBody) {
    let (sender, body) = channel();
    let (emit, rx) = Emitter::channel();
    tokio::spawn(write(sender, rx, heartbeat));
    (emit, body)
}

/// A body holding a few frames sent at once (answers that need no model).
pub(crate) fn body_of(frames: Vec<Bytes>) -> StreamBody {
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

async fn write(mut sender: Sender, mut rx: mpsc::Receiver<StreamEvent>, heartbeat: Duration) {
    loop {
        let next = tokio::select! {
            e = rx.recv() => match e {
                Some(e) => frame(&e),
                None => break,
            },
            () = tokio::time::sleep(heartbeat) => frame(&StreamEvent::Heartbeat),
        };
        match tokio::time::timeout(STALLED_CLIENT, sender.send_data(next)).await {
            Ok(Ok(())) => {}
            // Dropping `rx` on return closes the channel: every emitter sees the client gone.
            Ok(Err(_)) | Err(_) => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that holds the body open and stops reading: the turn is told the client has
    /// gone once a frame has waited `STALLED_CLIENT`, not at the function's timeout.
    #[tokio::test(start_paused = true)]
    async fn a_client_that_stops_reading_is_gone() {
        let (emit, body) = open(HEARTBEAT);
        let waited = tokio::time::Instant::now();
        // The first frame fills the channel; the next ones wait for a reader that never comes.
        let closed = tokio::time::timeout(Duration::from_secs(600), async {
            while emit.send(StreamEvent::message("x")).await {}
        })
        .await;
        assert!(closed.is_ok(), "still open after ten minutes");
        assert!(emit.client_gone());
        let after = waited.elapsed();
        assert!(
            after >= STALLED_CLIENT && after < STALLED_CLIENT + HEARTBEAT,
            "gone after {after:?}"
        );
        drop(body);
    }

    #[test]
    fn frames_carry_their_type_in_the_json() {
        let f = frame(&StreamEvent::ToolStart {
            tool: "exercise_search".into(),
            call_id: "c1".into(),
        });
        let text = String::from_utf8(f.to_vec()).expect("utf-8");
        let (head, data) = text.split_once('\n').expect("two lines");
        assert_eq!(head, "event: tool_start");
        assert!(text.ends_with("\n\n"));
        let v: serde_json::Value =
            serde_json::from_str(data.trim_end().strip_prefix("data: ").expect("data line"))
                .expect("json");
        assert_eq!(v["type"], "tool_start");
        assert_eq!(v["call_id"], "c1");
    }
}
