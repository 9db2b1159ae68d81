//! A fake SQS endpoint on 127.0.0.1 that refuses every call the way SQS refuses a function whose
//! role lacks the permission (AWS JSON protocol: a 400 with `__type` and a message that names
//! the account, the role and the queue's ARN), for `AWS_ENDPOINT_URL_SQS`. The text is what must
//! never reach an answer: the lanes log it and answer with a code.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::AsyncWriteExt;

use crate::{LoopbackServer, read_http_request};

/// The refusal's message, with the markers an answer must not carry.
pub const DENIED: &str = "User: arn:aws:sts::123456789012:assumed-role/coach-FunctionalFunctionRole-1A2B3C4D/coach-functional is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:us-east-1:123456789012:coach-jobs because no identity-based policy allows the sqs:sendmessage action";

pub struct RefusingSqs {
    pub endpoint: String,
    calls: Arc<AtomicU64>,
    _server: LoopbackServer,
}

impl RefusingSqs {
    pub fn start() -> RefusingSqs {
        let calls = Arc::new(AtomicU64::new(0));
        let seen = calls.clone();
        let server = LoopbackServer::start("refusing SQS", move |mut sock| {
            let seen = seen.clone();
            async move {
                let mut buf = Vec::new();
                while read_http_request(&mut sock, &mut buf).await.is_some() {
                    seen.fetch_add(1, Ordering::Relaxed);
                    let body = serde_json::json!({
                        "__type": "com.amazon.coral.service#AccessDeniedException",
                        "message": DENIED,
                    })
                    .to_string();
                    let answer = format!(
                        "HTTP/1.1 400 Bad Request\r\ncontent-type: application/x-amz-json-1.0\r\nx-amzn-requestid: 7a62c49f-347e-4fc4-9331-6e8eEXAMPLE\r\nx-amzn-query-error: AccessDenied;Sender\r\ncontent-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                    if sock.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            }
        });
        RefusingSqs {
            endpoint: server.base.clone(),
            calls,
            _server: server,
        }
    }

    /// Calls refused so far.
    pub fn calls(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }
}
