//! The events a coach turn produces, in order: text deltas, tool starts and ends, proposals,
//! a clarification, an error. The turn sends them to an [`Emitter`]; the adapter that opened
//! it (the SLOW lane's event stream) writes them to the client and closes the channel when the
//! client has gone, which the turn notices to stop the model.

use serde_json::Value;
use tokio::sync::mpsc;

/// One event: its type (`message`, `tool_start`, `artifact`, ...) and its data.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: &'static str,
    pub data: Value,
}

/// The sending side, cheap to clone. A closed channel is the disconnect signal.
#[derive(Clone)]
pub struct Emitter {
    tx: mpsc::Sender<Event>,
    trace: bool,
}

/// Events a turn may get ahead of the client before it waits.
const BUFFERED_EVENTS: usize = 64;

impl Emitter {
    /// An emitter and the receiving end its adapter drains.
    pub fn channel() -> (Emitter, mpsc::Receiver<Event>) {
        let (tx, rx) = mpsc::channel(BUFFERED_EVENTS);
        (Emitter { tx, trace: false }, rx)
    }

    /// This emitter, also sending what the turn saw (the local stack's `x-coach-trace`, for the
    /// coach evaluation): each tool's result in its `tool_end`, and a `trace` in `done`.
    pub fn traced(self) -> Emitter {
        Emitter {
            trace: true,
            ..self
        }
    }

    pub fn tracing(&self) -> bool {
        self.trace
    }

    /// Sends one event; `false` once the client has gone.
    pub async fn send(&self, kind: &'static str, data: Value) -> bool {
        self.tx.send(Event { kind, data }).await.is_ok()
    }

    pub fn client_gone(&self) -> bool {
        self.tx.is_closed()
    }

    /// Resolves when the client has gone.
    pub async fn gone(&self) {
        self.tx.closed().await
    }
}
