//! Use cases: one function per thing the product does, called by every adapter that offers it
//! (the HTTP lanes, the stream, the coach's tools, the queue). A use case takes the request's
//! context, a typed request and the ports it needs, and returns a typed outcome; adapters turn
//! that outcome into their wire format. Nothing here parses HTTP or writes SSE.
//!
//! Moved here so far: the FAST command (`command`). The other use cases still live in their
//! lanes (issue 18 moves them one by one).

pub mod command;

/// A store failure as the client sees it (the detail goes to the log only).
pub(crate) fn store_error(e: &crate::store::StoreError) -> crate::api::ApiError {
    tracing::error!(error = %e, "store call failed");
    crate::api::ApiError::store_unavailable()
}

/// Identifies a request for idempotency (the same `corr` must carry the same request): a short
/// hash of its parts.
pub(crate) fn fingerprint(parts: &[&str]) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}
