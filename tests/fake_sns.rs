//! A fake SNS endpoint on 127.0.0.1 speaking the real wire format (the query protocol: a form
//! body with `Action=Publish`, an XML answer), for `AWS_ENDPOINT_URL_SNS`. It records every
//! publish (topic, message and attributes) for the tests to read back.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::fake_model::read_request;

/// One `Publish` call: its form parameters, decoded.
#[derive(Debug, Clone)]
pub struct Published {
    pub params: BTreeMap<String, String>,
}

impl Published {
    pub fn topic(&self) -> Option<&str> {
        self.params.get("TopicArn").map(String::as_str)
    }

    pub fn message(&self) -> serde_json::Value {
        self.params
            .get("Message")
            .and_then(|m| serde_json::from_str(m).ok())
            .unwrap_or_default()
    }

    /// A string message attribute by name.
    pub fn attribute(&self, name: &str) -> Option<&str> {
        (1..=10).find_map(|i| {
            let key = format!("MessageAttributes.entry.{i}");
            (self.params.get(&format!("{key}.Name"))? == name)
                .then(|| self.params.get(&format!("{key}.Value.StringValue")))
                .flatten()
                .map(String::as_str)
        })
    }
}

pub struct FakeSns {
    pub endpoint: String,
    published: Arc<Mutex<Vec<Published>>>,
    _server: crate::LoopbackServer,
}

impl FakeSns {
    pub fn start() -> FakeSns {
        let published = Arc::new(Mutex::new(Vec::new()));
        let shared = published.clone();
        let server =
            crate::LoopbackServer::start("fake SNS", move |sock| serve(sock, shared.clone()));
        FakeSns {
            endpoint: server.base.clone(),
            published,
            _server: server,
        }
    }

    pub fn published(&self) -> Vec<Published> {
        self.published
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

async fn serve(mut sock: TcpStream, published: Arc<Mutex<Vec<Published>>>) {
    let Some((_, _, body)) = read_request(&mut sock).await else {
        return;
    };
    let params = form_decode(&String::from_utf8_lossy(&body));
    let (status, xml) = if params.get("Action").map(String::as_str) == Some("Publish") {
        let n = {
            let mut p = published.lock().unwrap_or_else(|p| p.into_inner());
            p.push(Published {
                params: params.clone(),
            });
            p.len()
        };
        (
            200,
            format!(
                "<PublishResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><PublishResult><MessageId>fake-{n}</MessageId></PublishResult><ResponseMetadata><RequestId>req-{n}</RequestId></ResponseMetadata></PublishResponse>"
            ),
        )
    } else {
        (
            400,
            "<ErrorResponse><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>only Publish is faked</Message></Error><RequestId>x</RequestId></ErrorResponse>".to_string(),
        )
    };
    let head = format!(
        "HTTP/1.1 {status} OK\r\ncontent-type: text/xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        xml.len()
    );
    let _ = sock.write_all(head.as_bytes()).await;
    let _ = sock.write_all(xml.as_bytes()).await;
    let _ = sock.shutdown().await;
}

/// `application/x-www-form-urlencoded` into name → value.
fn form_decode(body: &str) -> BTreeMap<String, String> {
    let decode = |s: &str| {
        let bytes = s.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < bytes.len() => {
                    let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                    match u8::from_str_radix(hex, 16) {
                        Ok(b) => {
                            out.push(b);
                            i += 2;
                        }
                        Err(_) => out.push(b'%'),
                    }
                }
                b => out.push(b),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).to_string()
    };
    body.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}
