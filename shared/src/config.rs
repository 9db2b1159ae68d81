//! What a binary reads from its environment, read once in `main` and handed to the lane: every
//! setting parsed and checked before the first request, so a malformed one stops the start with
//! a message naming its variable. Nothing below `main` reads the environment (the AWS SDK's own
//! variables aside, and the log format the subscriber reads before this).

use std::collections::HashMap;
use std::time::Duration;

use crate::app::meter::{Budget, DEFAULT_DAILY_TOKENS};
use crate::context::AuthMode;
use crate::llm::{ModelConfig, ModelLane};
use crate::queue::QueueTarget;

/// Every setting of the lane binaries (a binary uses the ones it needs).
#[derive(Debug, Clone)]
pub struct Config {
    /// `TABLE_NAME`: the DynamoDB table.
    pub table: String,
    /// `AUTH_MODE`: `jwt` (default) or `dev`.
    pub auth: AuthMode,
    /// `QUEUE_URL` (SQS), else `WORKER_INVOKE_URL` (the local worker), else none.
    pub queue: QueueTarget,
    /// Where pushes go: `NOTIFY_TOPIC_ARN` (a relay's SNS topic) and the SNS platform
    /// applications `PUSH_APNS_ARN`, `PUSH_APNS_SANDBOX_ARN`, `PUSH_FCM_ARN`.
    pub push: crate::push::PushTargets,
    /// `COACH_DAILY_TOKENS`: each lifter's daily model tokens (0: no cap).
    pub budget: Budget,
    /// `STAGE_DAILY_TOKENS`: every lifter's daily model tokens together (unset or 0: no cap).
    pub stage_budget: Budget,
    /// `STREAM_HEARTBEAT_MS`: tests shorten the stream's heartbeat; `None` is the contract's.
    pub heartbeat: Option<Duration>,
    /// `MODEL_API_KEY_SECRET_ARN`: the Secrets Manager secret holding the model API key.
    pub model_key_secret: Option<String>,
    /// The model settings (`<LANE>_MODEL`, `MODEL_PROVIDER`, ...), read by [`Config::model`]
    /// once the key is known.
    vars: HashMap<String, String>,
}

impl Config {
    /// Reads the process environment.
    pub fn from_env() -> Result<Config, String> {
        Self::from_vars(std::env::vars().collect())
    }

    /// Reads `vars` (a test's settings, or the environment's).
    pub fn from_vars(vars: HashMap<String, String>) -> Result<Config, String> {
        let get = |k: &str| {
            vars.get(k)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let table = get("TABLE_NAME").ok_or("TABLE_NAME is not set")?;
        let auth = AuthMode::from_setting(get("AUTH_MODE").as_deref())?;
        let queue = match (get("QUEUE_URL"), get("WORKER_INVOKE_URL")) {
            (Some(url), _) => QueueTarget::Sqs { url },
            (None, Some(url)) => QueueTarget::LocalInvoke { url },
            (None, None) => QueueTarget::Disabled,
        };
        let tokens = |var: &str, default: Option<u64>| match get(var) {
            None => Ok(Budget(default)),
            Some(v) => match v.parse::<u64>() {
                Ok(0) => Ok(Budget(None)),
                Ok(n) => Ok(Budget(Some(n))),
                Err(_) => Err(format!(
                    "{var} must be a whole number of tokens (0 for no cap), not '{v}'"
                )),
            },
        };
        let budget = tokens("COACH_DAILY_TOKENS", Some(DEFAULT_DAILY_TOKENS))?;
        let stage_budget = tokens("STAGE_DAILY_TOKENS", None)?;
        let heartbeat = match get("STREAM_HEARTBEAT_MS") {
            None => None,
            Some(v) => Some(
                v.parse::<u64>()
                    .ok()
                    .filter(|ms| *ms >= 100)
                    .map(Duration::from_millis)
                    .ok_or_else(|| {
                        format!(
                            "STREAM_HEARTBEAT_MS must be at least 100 (milliseconds), not '{v}'"
                        )
                    })?,
            ),
        };
        Ok(Config {
            table,
            auth,
            queue,
            push: crate::push::PushTargets {
                topic: get("NOTIFY_TOPIC_ARN"),
                apps: [
                    ("apns", "PUSH_APNS_ARN"),
                    ("apns_sandbox", "PUSH_APNS_SANDBOX_ARN"),
                    ("fcm", "PUSH_FCM_ARN"),
                ]
                .into_iter()
                .filter_map(|(platform, var)| get(var).map(|arn| (platform, arn)))
                .collect(),
            },
            budget,
            stage_budget,
            heartbeat,
            model_key_secret: get(crate::secrets::SECRET_VAR),
            vars,
        })
    }

    /// What pays for the model calls: the daily allowances counted in `store`.
    pub fn meter(&self, store: &crate::store::Store) -> crate::app::meter::Meter {
        crate::app::meter::Meter::new(store.clone(), self.budget, self.stage_budget)
    }

    /// Whether `<LANE>_MODEL` names a model.
    pub fn has_model(&self, lane: ModelLane) -> bool {
        self.vars
            .get(&format!("{}_MODEL", lane.prefix()))
            .is_some_and(|m| !m.trim().is_empty())
    }

    /// The lane's model settings (`None`: no model), checked (a binary asks for its lanes' at
    /// start-up); `secret_key`, the key read from [`Config::model_key_secret`], takes the place
    /// of `GEMINI_API_KEY` / `OPENAI_API_KEY`.
    pub fn model(
        &self,
        lane: ModelLane,
        secret_key: Option<&str>,
    ) -> Result<Option<ModelConfig>, String> {
        ModelConfig::from_vars(lane, |k| match (k, secret_key) {
            ("GEMINI_API_KEY" | "OPENAI_API_KEY", Some(key)) => Some(key.to_string()),
            _ => self.vars.get(k).cloned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Config, String> {
        Config::from_vars(
            vars.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn reads_every_setting_and_names_the_bad_one() {
        let c = config(&[
            ("TABLE_NAME", "coach"),
            ("AUTH_MODE", "dev"),
            ("WORKER_INVOKE_URL", "http://127.0.0.1:9000/worker"),
            ("COACH_DAILY_TOKENS", "0"),
            ("STAGE_DAILY_TOKENS", "5000000"),
            ("STREAM_HEARTBEAT_MS", "250"),
        ])
        .unwrap();
        assert_eq!(c.auth, AuthMode::Dev);
        assert_eq!(
            c.queue,
            QueueTarget::LocalInvoke {
                url: "http://127.0.0.1:9000/worker".into()
            }
        );
        assert_eq!(c.budget, Budget(None));
        assert_eq!(c.stage_budget, Budget(Some(5_000_000)));
        assert_eq!(c.heartbeat, Some(Duration::from_millis(250)));
        assert!(!c.has_model(ModelLane::Slow));

        let err = |vars: &[(&str, &str)]| config(vars).unwrap_err();
        assert!(err(&[]).contains("TABLE_NAME"));
        assert!(
            err(&[("TABLE_NAME", "t"), ("COACH_DAILY_TOKENS", "lots")])
                .contains("COACH_DAILY_TOKENS")
        );
        assert!(
            err(&[("TABLE_NAME", "t"), ("STAGE_DAILY_TOKENS", "-1")])
                .contains("STAGE_DAILY_TOKENS")
        );
        assert!(
            err(&[("TABLE_NAME", "t"), ("STREAM_HEARTBEAT_MS", "5")])
                .contains("STREAM_HEARTBEAT_MS")
        );
        assert!(err(&[("TABLE_NAME", "t"), ("AUTH_MODE", "open")]).contains("AUTH_MODE"));
        let c = config(&[
            ("TABLE_NAME", "t"),
            ("SLOW_MODEL", "m"),
            ("MODEL_PROVIDER", "x"),
        ]);
        let bad = c.unwrap().model(ModelLane::Slow, Some("k")).unwrap_err();
        assert!(bad.contains("MODEL_PROVIDER"), "{bad}");
    }

    #[test]
    fn the_secret_key_takes_the_place_of_the_variable() {
        let c = config(&[("TABLE_NAME", "t"), ("SLOW_MODEL", "gemini-2.5-flash")]).unwrap();
        assert!(c.has_model(ModelLane::Slow));
        let no_key = c.model(ModelLane::Slow, None).unwrap_err();
        assert!(no_key.contains("GEMINI_API_KEY"), "{no_key}");
        let m = c
            .model(ModelLane::Slow, Some("from-secret"))
            .unwrap()
            .unwrap();
        assert_eq!(m.api_key.as_deref(), Some("from-secret"));
        assert!(c.model(ModelLane::Worker, None).unwrap().is_none());
    }
}
