//! A fake AWS Secrets Manager endpoint on 127.0.0.1 speaking the real wire format (AWS JSON 1.1:
//! `x-amz-target: secretsmanager.GetSecretValue`, a JSON answer with `SecretString`), for
//! `AWS_ENDPOINT_URL_SECRETS_MANAGER`. It holds one secret and records what was asked for.

use std::sync::{Arc, Mutex};

use tokio::io::AsyncWriteExt;

use crate::{LoopbackServer, read_http_request};

pub const SECRET_ARN: &str =
    "arn:aws:secretsmanager:us-east-1:123456789012:secret:coach-model-key-AbCdEf";

pub struct FakeSecrets {
    pub endpoint: String,
    /// The secret's value: the model API key.
    pub value: String,
    /// (x-amz-target, SecretId) of every call.
    calls: Arc<Mutex<Vec<(String, String)>>>,
    _server: LoopbackServer,
}

impl FakeSecrets {
    pub fn start(value: &str) -> FakeSecrets {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let seen = calls.clone();
        let secret = value.to_string();
        let server = LoopbackServer::start("fake Secrets Manager", move |mut sock| {
            let seen = seen.clone();
            let secret = secret.clone();
            async move {
                let mut buf = Vec::new();
                while let Some(req) = read_http_request(&mut sock, &mut buf).await {
                    let body: serde_json::Value =
                        serde_json::from_slice(&req.body).unwrap_or_default();
                    let id = body["SecretId"].as_str().unwrap_or_default().to_string();
                    let target = req.header("x-amz-target").to_string();
                    if let Ok(mut c) = seen.lock() {
                        c.push((target.clone(), id.clone()));
                    }
                    let (status, answer) =
                        if target == "secretsmanager.GetSecretValue" && id == SECRET_ARN {
                            (
                                "200 OK",
                                serde_json::json!({
                                    "ARN": SECRET_ARN, "Name": "coach-model-key",
                                    "SecretString": secret, "VersionId": "v1",
                                    "VersionStages": ["AWSCURRENT"], "CreatedDate": 1.7e9,
                                }),
                            )
                        } else {
                            (
                                "400 Bad Request",
                                serde_json::json!({
                                    "__type": "ResourceNotFoundException",
                                    "Message": "Secrets Manager can't find the specified secret.",
                                }),
                            )
                        };
                    let text = answer.to_string();
                    let out = format!(
                        "HTTP/1.1 {status}\r\ncontent-type: application/x-amz-json-1.1\r\nx-amzn-requestid: fake\r\ncontent-length: {}\r\n\r\n{text}",
                        text.len()
                    );
                    if sock.write_all(out.as_bytes()).await.is_err() {
                        return;
                    }
                }
            }
        });
        FakeSecrets {
            endpoint: server.base.clone(),
            value: value.to_string(),
            calls,
            _server: server,
        }
    }

    /// Every call: (operation, secret id).
    pub fn calls(&self) -> Vec<(String, String)> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }
}
