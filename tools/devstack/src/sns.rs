//! A stand-in for SNS on 127.0.0.1 speaking its real wire format (the query protocol: a form
//! body with its `Action`, an XML answer), for `AWS_ENDPOINT_URL_SNS`: the local stack's
//! (`devstack sns`, which `make dev` starts; every push it would have sent is appended to a
//! JSON-lines file) and the black-box tests' (`blackbox::fake_sns`, which read them back).
//!
//! It keeps mobile platform endpoints as SNS does: one per token and application (created
//! again, the same one), with attributes, disabled when told the platform disabled the token
//! (`disable`), and refusing a publish to a disabled one with `EndpointDisabled`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

/// One `Publish` call: its form parameters, decoded.
#[derive(Debug, Clone)]
pub struct Published {
    pub params: BTreeMap<String, String>,
}

impl Published {
    pub fn topic(&self) -> Option<&str> {
        self.params.get("TopicArn").map(String::as_str)
    }

    /// The endpoint a push to one phone went to.
    pub fn target(&self) -> Option<&str> {
        self.params.get("TargetArn").map(String::as_str)
    }

    /// A phone's payload for `key` (APNS, APNS_SANDBOX, GCM) of a message of structure json.
    pub fn platform_payload(&self, key: &str) -> serde_json::Value {
        self.message()[key]
            .as_str()
            .and_then(|p| serde_json::from_str(p).ok())
            .unwrap_or_default()
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

/// A mobile platform endpoint: its application, token and attributes.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub arn: String,
    pub app: String,
    pub token: String,
    pub attributes: BTreeMap<String, String>,
}

#[derive(Default)]
struct State {
    published: Vec<Published>,
    endpoints: Vec<Endpoint>,
}

const NS: &str = "xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"";

fn ok(action: &str, result: &str) -> (u16, String) {
    let result = if result.is_empty() {
        String::new()
    } else {
        format!("<{action}Result>{result}</{action}Result>")
    };
    (
        200,
        format!(
            "<{action}Response {NS}>{result}<ResponseMetadata><RequestId>req</RequestId></ResponseMetadata></{action}Response>"
        ),
    )
}

fn error(status: u16, code: &str, message: &str) -> (u16, String) {
    (
        status,
        format!(
            "<ErrorResponse {NS}><Error><Type>Sender</Type><Code>{code}</Code><Message>{message}</Message></Error><RequestId>req</RequestId></ErrorResponse>"
        ),
    )
}

/// `Attributes.entry.N.key` / `.value` pairs of a request.
fn attributes(params: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    (1..=10)
        .filter_map(|i| {
            let k = params.get(&format!("Attributes.entry.{i}.key"))?;
            let v = params.get(&format!("Attributes.entry.{i}.value"))?;
            Some((k.clone(), v.clone()))
        })
        .collect()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn answer(state: &mut State, params: &BTreeMap<String, String>) -> (u16, String) {
    let get = |k: &str| params.get(k).cloned().unwrap_or_default();
    let find = |state: &State, arn: &str| state.endpoints.iter().position(|e| e.arn == arn);
    match get("Action").as_str() {
        "Publish" => publish(state, params),
        "CreatePlatformEndpoint" => {
            create_endpoint(state, get("PlatformApplicationArn"), get("Token"))
        }
        "SetEndpointAttributes" => match find(state, &get("EndpointArn")) {
            Some(i) => {
                state.endpoints[i].attributes.extend(attributes(params));
                ok("SetEndpointAttributes", "")
            }
            None => error(404, "NotFound", "Endpoint does not exist"),
        },
        "GetEndpointAttributes" => match find(state, &get("EndpointArn")) {
            Some(i) => {
                let entries: String = state.endpoints[i]
                    .attributes
                    .iter()
                    .map(|(k, v)| {
                        format!(
                            "<entry><key>{k}</key><value>{}</value></entry>",
                            xml_escape(v)
                        )
                    })
                    .collect();
                ok(
                    "GetEndpointAttributes",
                    &format!("<Attributes>{entries}</Attributes>"),
                )
            }
            None => error(404, "NotFound", "Endpoint does not exist"),
        },
        "DeleteEndpoint" => {
            let arn = get("EndpointArn");
            state.endpoints.retain(|e| e.arn != arn);
            ok("DeleteEndpoint", "")
        }
        other => error(400, "InvalidAction", &format!("{other} is not faked")),
    }
}

/// A publish to a topic, or to a phone's endpoint (refused when it is gone or disabled).
fn publish(state: &mut State, params: &BTreeMap<String, String>) -> (u16, String) {
    if let Some(target) = params.get("TargetArn") {
        match state.endpoints.iter().find(|e| &e.arn == target) {
            None => return error(404, "NotFound", "Endpoint does not exist"),
            Some(e) if e.attributes.get("Enabled").map(String::as_str) == Some("false") => {
                return error(400, "EndpointDisabled", "Endpoint is disabled");
            }
            Some(_) => {}
        }
    }
    state.published.push(Published {
        params: params.clone(),
    });
    let n = state.published.len();
    ok("Publish", &format!("<MessageId>fake-{n}</MessageId>"))
}

/// The endpoint of `token` in `app`: the existing one, or a new one, enabled.
fn create_endpoint(state: &mut State, app: String, token: String) -> (u16, String) {
    if token.is_empty() || app.is_empty() {
        return error(
            400,
            "InvalidParameter",
            "Token and PlatformApplicationArn are required",
        );
    }
    let existing = state
        .endpoints
        .iter()
        .find(|e| e.app == app && e.token == token);
    let arn = match existing {
        Some(e) => e.arn.clone(),
        None => {
            // The same id for the same token and application, across restarts too (the local
            // store keeps devices between runs): FNV-1a of both.
            let id = format!("{app}\n{token}")
                .bytes()
                .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                    (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                });
            let platform = app.split('/').nth(1).unwrap_or("APNS").to_string();
            let arn =
                format!("arn:aws:sns:us-east-1:000000000000:endpoint/{platform}/coach/{id:016x}");
            state.endpoints.push(Endpoint {
                arn: arn.clone(),
                app,
                token,
                attributes: BTreeMap::from([("Enabled".into(), "true".into())]),
            });
            arn
        }
    };
    ok(
        "CreatePlatformEndpoint",
        &format!("<EndpointArn>{arn}</EndpointArn>"),
    )
}

/// `application/x-www-form-urlencoded` into name → value.
pub fn form_decode(body: &str) -> BTreeMap<String, String> {
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

/// The fake's state, shared by its connections.
pub struct Sns {
    state: Mutex<State>,
    /// Where each publish is appended as a JSON line (the local stack's record of pushes).
    record: Option<PathBuf>,
}

impl Sns {
    pub fn new(record: Option<PathBuf>) -> Arc<Sns> {
        Arc::new(Sns {
            state: Mutex::new(State::default()),
            record,
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every publish so far, in order.
    pub fn published(&self) -> Vec<Published> {
        self.state().published.clone()
    }

    /// The endpoints that exist (created and not deleted).
    pub fn endpoints(&self) -> Vec<Endpoint> {
        self.state().endpoints.clone()
    }

    /// The platform reported `token` invalid (the app was removed): SNS disables its endpoint.
    pub fn disable(&self, token: &str) {
        for e in self
            .state()
            .endpoints
            .iter_mut()
            .filter(|e| e.token == token)
        {
            e.attributes.insert("Enabled".into(), "false".into());
        }
    }

    /// Answers one connection's request.
    pub async fn serve(self: Arc<Self>, mut sock: TcpStream) {
        let Some(req) = crate::http::read_http_request(&mut sock, &mut Vec::new()).await else {
            return;
        };
        let params = form_decode(&String::from_utf8_lossy(&req.body));
        let (status, xml, published) = {
            let mut state = self.state();
            let before = state.published.len();
            let (status, xml) = answer(&mut state, &params);
            let published = state.published.get(before).cloned();
            (status, xml, published)
        };
        if let (Some(p), Some(path)) = (published, &self.record) {
            let line = serde_json::json!({
                "at": chrono::Utc::now(),
                "target": p.target(),
                "topic": p.topic(),
                "message": p.message(),
            });
            let written = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| writeln!(f, "{line}"));
            if let Err(e) = written {
                eprintln!("fake SNS: could not record to {}: {e}", path.display());
            }
        }
        let head = format!(
            "HTTP/1.1 {status} OK\r\ncontent-type: text/xml\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            xml.len()
        );
        let _ = sock.write_all(head.as_bytes()).await;
        let _ = sock.write_all(xml.as_bytes()).await;
        let _ = sock.shutdown().await;
    }

    /// Serves every connection of `listener` until the process ends (`devstack sns`).
    pub async fn run(self: Arc<Self>, listener: TcpListener) {
        while let Ok((sock, _)) = listener.accept().await {
            tokio::spawn(self.clone().serve(sock));
        }
    }
}
