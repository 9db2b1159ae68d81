//! A model's settings: the provider, the model, the lane's defaults (temperature, output
//! tokens, thinking), read from variables the binary's `Config` holds; and the process's one
//! HTTP client for model calls.

use std::time::Duration;

use crate::domain::usage::CachePrice;

/// Which wire format a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Gemini,
    OpenAi,
    /// Amazon Bedrock's Converse API: no key, the function's role signs.
    Bedrock,
}

impl Provider {
    pub fn parse(s: &str) -> Option<Provider> {
        match s.trim().to_ascii_lowercase().as_str() {
            "gemini" | "google" => Some(Provider::Gemini),
            "openai" | "openai-compatible" => Some(Provider::OpenAi),
            "bedrock" | "aws-bedrock" => Some(Provider::Bedrock),
            _ => None,
        }
    }
}

pub(crate) const GEMINI_DEFAULT_BASE: &str = "https://generativelanguage.googleapis.com/v1beta";
pub(crate) const OPENAI_DEFAULT_BASE: &str = "https://api.openai.com/v1";

/// One lane's model settings, from the environment (README "Configuration").
#[derive(Debug, Clone, PartialEq)]
pub struct ModelConfig {
    pub provider: Provider,
    pub model: String,
    pub base_url: String,
    pub api_key: Option<String>,
    pub temperature: f32,
    pub max_output_tokens: u32,
    /// Gemini `thinkingBudget` (0 = off); `None` leaves the model's default.
    pub thinking_budget: Option<i32>,
    /// OpenAI-style token-limit field: `max_tokens`, or `max_completion_tokens` for reasoning models.
    pub max_tokens_field: String,
    /// How the provider is asked to cache the prompt's fixed prefix (instruction and tools).
    pub prompt_cache: PromptCache,
    /// What a cached input token costs against the daily allowance.
    pub cache_price: CachePrice,
}

/// How the fixed prefix of every request (the instruction and the tool declarations, byte for
/// byte the same across lifters and turns) is cached by the provider (`PROMPT_CACHE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptCache {
    /// Nothing asked: Gemini caches implicitly, and an unknown OpenAI-compatible server may
    /// refuse a field it does not know.
    Off,
    /// OpenAI's `prompt_cache_key`, one per lifter (hashed), so that their requests reach the
    /// servers holding their prefix.
    Key,
    /// llama.cpp's `cache_prompt`: the server reuses the KV cache of the common prefix.
    LlamaCpp,
    /// Bedrock cache points: after the instruction, and after the tools where the model takes
    /// one there (Claude; Nova takes them in the system and messages only).
    CachePoints,
}

impl PromptCache {
    /// `var` is the variable read (`SLOW_PROMPT_CACHE` or `PROMPT_CACHE`); a lane's own setting
    /// must fit its provider, the shared one is off for a lane whose provider cannot take it.
    fn parse(
        var: &str,
        s: &str,
        provider: Provider,
        model: &str,
        base_url: &str,
        shared: bool,
    ) -> Result<Self, String> {
        let fits = |c: PromptCache| match (c, provider) {
            (PromptCache::Off, _)
            | (PromptCache::Key | PromptCache::LlamaCpp, Provider::OpenAi)
            | (PromptCache::CachePoints, Provider::Bedrock) => Ok(c),
            _ if shared => Ok(PromptCache::Off),
            _ => Err(format!(
                "{var} is '{s}', which the {provider:?} provider does not take; use auto or off{}",
                match provider {
                    Provider::OpenAi => ", prompt_cache_key or cache_prompt",
                    Provider::Bedrock => " or cache_points",
                    Provider::Gemini => " (Gemini caches on its own)",
                }
            )),
        };
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => Ok(match provider {
                Provider::OpenAi if base_url.trim_end_matches('/') == OPENAI_DEFAULT_BASE => {
                    PromptCache::Key
                }
                Provider::Bedrock if bedrock_caches(model) => PromptCache::CachePoints,
                _ => PromptCache::Off,
            }),
            "off" | "none" => Ok(PromptCache::Off),
            "prompt_cache_key" | "key" => fits(PromptCache::Key),
            "cache_prompt" | "llama" | "llama.cpp" => fits(PromptCache::LlamaCpp),
            "cache_points" | "cachepoint" => fits(PromptCache::CachePoints),
            _ => Err(format!(
                "{var} is '{s}'; use auto, off, prompt_cache_key, cache_prompt or cache_points"
            )),
        }
    }
}

/// Bedrock models that take cache points: Amazon's Nova and the Claude models Bedrock caches
/// for (3.5 Haiku, 3.7 Sonnet, the 4 family); others, older Claude models among them, refuse a
/// request holding one, and a model not listed here is asked nothing unless
/// `PROMPT_CACHE=cache_points` says so.
fn bedrock_caches(model: &str) -> bool {
    const CLAUDE: [&str; 5] = [
        "claude-3-5-haiku",
        "claude-3-7-sonnet",
        "claude-sonnet-4",
        "claude-opus-4",
        "claude-haiku-4",
    ];
    model.contains("amazon.nova") || CLAUDE.iter().any(|c| model.contains(c))
}

/// Whether a Bedrock model takes a cache point after the tools (Nova does not).
pub(crate) fn bedrock_caches_tools(model: &str) -> bool {
    !model.contains("amazon.nova")
}

/// The default price of cached input against the allowance, as a share of an uncached input
/// token: the ratios of the providers' price lists (Gemini's implicit cache a quarter; OpenAI's
/// cached input half or less; Claude on Bedrock a tenth; Nova a quarter). A write is charged
/// whole, not at Claude's quarter more: the prefix is shared by every lifter, and the one whose
/// request happens to write it is not to pay for the others. `{LANE}_CACHED_INPUT_PRICE` and
/// `{LANE}_CACHE_WRITE_PRICE` set a contract's own.
fn default_cache_price(provider: Provider, model: &str) -> CachePrice {
    match provider {
        Provider::Gemini => CachePrice {
            read: 0.25,
            write: 1.0,
        },
        Provider::OpenAi => CachePrice {
            read: 0.5,
            write: 1.0,
        },
        Provider::Bedrock if model.contains("anthropic.claude") => CachePrice {
            read: 0.1,
            write: 1.0,
        },
        Provider::Bedrock => CachePrice {
            read: 0.25,
            write: 1.0,
        },
    }
}

/// The lanes that may call a model, with their default temperature and thinking budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelLane {
    Slow,
    Functional,
    Worker,
}

impl ModelLane {
    /// The lane's prefix in the settings' names (`SLOW_MODEL`).
    pub fn prefix(self) -> &'static str {
        match self {
            ModelLane::Slow => "SLOW",
            ModelLane::Functional => "FUNCTIONAL",
            ModelLane::Worker => "WORKER",
        }
    }

    fn default_temperature(self) -> f32 {
        match self {
            ModelLane::Slow => 0.3,
            ModelLane::Functional => 0.0,
            ModelLane::Worker => 0.2,
        }
    }

    fn default_max_output_tokens(self) -> u32 {
        match self {
            // Room for an answer after the thinking budget below (Gemini counts thinking
            // against this cap: at 2,048 dynamic thinking could leave no answer).
            ModelLane::Slow => 4096,
            ModelLane::Functional => 256,
            ModelLane::Worker => 1024,
        }
    }

    /// Thinking is off on the functional lane's fast path (an 800 ms budget leaves no room);
    /// the coach thinks within a fixed budget, not dynamically (dynamic thinking with streaming
    /// and tools is where Gemini's malformed calls are reported, and it can spend the cap).
    fn default_thinking_budget(self) -> Option<i32> {
        match self {
            ModelLane::Functional => Some(0),
            ModelLane::Slow => Some(1024),
            ModelLane::Worker => None,
        }
    }
}

impl ModelConfig {
    /// Reads `<LANE>_MODEL`, `<LANE>_MODEL_PROVIDER` (else `MODEL_PROVIDER`, default gemini),
    /// `<LANE>_TEMPERATURE`, `<LANE>_MAX_OUTPUT_TOKENS`, `<LANE>_THINKING_BUDGET`, the
    /// provider's `*_BASE_URL` / `*_API_KEY`, `<LANE>_PROMPT_CACHE` (else `PROMPT_CACHE`),
    /// `<LANE>_CACHED_INPUT_PRICE` and `<LANE>_CACHE_WRITE_PRICE`.
    pub fn from_vars(
        lane: ModelLane,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<ModelConfig>, String> {
        let p = lane.prefix();
        let vars = Vars(var);
        let Some(model) = vars.get(&format!("{p}_MODEL")) else {
            return Ok(None);
        };
        let provider_var = format!("{p}_MODEL_PROVIDER");
        let provider = match vars
            .get(&provider_var)
            .or_else(|| vars.get("MODEL_PROVIDER"))
        {
            None => Provider::Gemini,
            Some(s) => Provider::parse(&s).ok_or_else(|| {
                format!("{provider_var} / MODEL_PROVIDER is '{s}'; use gemini, openai or bedrock")
            })?,
        };
        let temperature = vars.number(
            format!("{p}_TEMPERATURE"),
            f64::from(lane.default_temperature()),
            0.0..=2.0,
        )? as f32;
        let max_output_tokens = vars.number(
            format!("{p}_MAX_OUTPUT_TOKENS"),
            f64::from(lane.default_max_output_tokens()),
            1.0..=65_536.0,
        )? as u32;
        let thinking_budget = match vars.get(&format!("{p}_THINKING_BUDGET")) {
            None => lane.default_thinking_budget(),
            Some(s) => Some(s.parse::<i32>().ok().filter(|b| *b >= -1).ok_or_else(|| {
                format!("{p}_THINKING_BUDGET is '{s}'; use -1 (dynamic), 0 (off) or a token cap")
            })?),
        };
        let (base_url, api_key) = vars.endpoint(provider, p)?;
        let max_tokens_field = vars
            .get("OPENAI_MAX_TOKENS_FIELD")
            .unwrap_or_else(|| "max_tokens".to_string());
        if !matches!(
            max_tokens_field.as_str(),
            "max_tokens" | "max_completion_tokens"
        ) {
            return Err(format!(
                "OPENAI_MAX_TOKENS_FIELD is '{max_tokens_field}'; use max_tokens or max_completion_tokens"
            ));
        }
        let lane_cache = format!("{p}_PROMPT_CACHE");
        let prompt_cache = match vars.get(&lane_cache) {
            Some(s) => PromptCache::parse(&lane_cache, &s, provider, &model, &base_url, false)?,
            None => PromptCache::parse(
                "PROMPT_CACHE",
                &vars.get("PROMPT_CACHE").unwrap_or_default(),
                provider,
                &model,
                &base_url,
                true,
            )?,
        };
        let price = default_cache_price(provider, &model);
        let cache_price = CachePrice {
            read: vars.number(format!("{p}_CACHED_INPUT_PRICE"), price.read, 0.0..=1.0)?,
            write: vars.number(format!("{p}_CACHE_WRITE_PRICE"), price.write, 0.0..=10.0)?,
        };
        Ok(Some(ModelConfig {
            provider,
            model,
            base_url: base_url.trim_end_matches('/').to_string(),
            api_key,
            temperature,
            max_output_tokens,
            thinking_budget,
            max_tokens_field,
            prompt_cache,
            cache_price,
        }))
    }
}

/// The environment as the model settings read it.
struct Vars<F>(F);

impl<F: Fn(&str) -> Option<String>> Vars<F> {
    /// A variable's value, trimmed; empty is unset.
    fn get(&self, k: &str) -> Option<String> {
        (self.0)(k)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }

    /// A number within `range`, `default` when unset.
    fn number(
        &self,
        name: String,
        default: f64,
        range: std::ops::RangeInclusive<f64>,
    ) -> Result<f64, String> {
        match self.get(&name) {
            None => Ok(default),
            Some(s) => s
                .parse::<f64>()
                .ok()
                .filter(|v| range.contains(v))
                .ok_or_else(|| {
                    format!(
                        "{name} is '{s}'; use a number from {} to {}",
                        range.start(),
                        range.end()
                    )
                }),
        }
    }

    /// The provider's base URL and key (`p` the lane's prefix, named in the errors).
    fn endpoint(&self, provider: Provider, p: &str) -> Result<(String, Option<String>), String> {
        Ok(match provider {
            Provider::Gemini => {
                let key = self.get("GEMINI_API_KEY").ok_or_else(|| {
                    format!("{p}_MODEL is set but GEMINI_API_KEY is not; set the key (deployed: the secret in MODEL_API_KEY_SECRET_ARN)")
                })?;
                (
                    self.get("GEMINI_BASE_URL")
                        .unwrap_or_else(|| GEMINI_DEFAULT_BASE.into()),
                    Some(key),
                )
            }
            Provider::OpenAi => (
                self.get("OPENAI_BASE_URL")
                    .unwrap_or_else(|| OPENAI_DEFAULT_BASE.into()),
                self.get("OPENAI_API_KEY"),
            ),
            // The SDK finds the endpoint (region, AWS_ENDPOINT_URL_BEDROCK_RUNTIME) and signs.
            Provider::Bedrock => (String::new(), None),
        })
    }
}

/// The process's one HTTP client for model calls (rustls, connection pooling), built in main.
pub fn http_client() -> Result<reqwest::Client, String> {
    crate::tls::reqwest_builder()
        .connect_timeout(Duration::from_secs(5))
        .pool_idle_timeout(Duration::from_secs(60))
        .build()
        .map_err(|e| format!("cannot build the model HTTP client: {e}"))
}
