//! The model API key from AWS Secrets Manager. Deployed, the key is not an environment
//! variable (anyone who can read the function's configuration could read it): the model lanes
//! get the secret's ARN in `MODEL_API_KEY_SECRET_ARN` and read its value once at start-up, and
//! only when one of their lanes has a model configured. Locally, `GEMINI_API_KEY` and
//! `OPENAI_API_KEY` still work (a secret, when set, takes their place).

use crate::config::Config;
use crate::llm::ModelLane;

pub(crate) const SECRET_VAR: &str = "MODEL_API_KEY_SECRET_ARN";

/// The key from the secret named by `MODEL_API_KEY_SECRET_ARN`, when it is set and one of
/// `lanes` has a model; `Ok(None)` otherwise. The secret is a plain string (the key itself).
pub async fn model_api_key(
    aws: &aws_config::SdkConfig,
    config: &Config,
    lanes: &[ModelLane],
) -> Result<Option<String>, String> {
    let Some(arn) = &config.model_key_secret else {
        return Ok(None);
    };
    if !lanes.iter().any(|l| config.has_model(*l)) {
        return Ok(None);
    }
    let client = aws_sdk_secretsmanager::Client::new(aws);
    let out = client
        .get_secret_value()
        .secret_id(arn)
        .send()
        .await
        .map_err(|e| {
            format!(
                "could not read the model API key from {SECRET_VAR}: {}",
                aws_sdk_secretsmanager::error::DisplayErrorContext(&e)
            )
        })?;
    out.secret_string()
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(|k| Some(k.to_string()))
        .ok_or_else(|| {
            format!(
                "the secret in {SECRET_VAR} has no text value; store the API key as a plain string"
            )
        })
}
