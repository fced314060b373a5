//! What the client needs to reach a server: where, which model, which key, how long to
//! wait and how to retry.

use std::fmt;
use std::time::Duration;

/// The base URL used when neither the configuration nor `OPENAI_BASE_URL` names one.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The model used when neither the configuration nor `TNSAI_MODEL` names one.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";

/// A secret API key. It is sent as a bearer token and never shown: `Debug` prints
/// `ApiKey(<redacted>)`, and it has no `Display`.
///
/// ```
/// use tnsai_coordination::openai::ApiKey;
///
/// let key = ApiKey::new("sk-very-secret");
/// assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the `Authorization` header and for scrubbing error texts.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Whether to ask the server for a JSON answer (`response_format: {"type": "json_object"}`)
/// when a [`CompletionRequest`](tnsai_core::CompletionRequest) wants JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ResponseFormat {
    /// Ask for it; if the server refuses the field (a 400 or 422 that names
    /// `response_format`), ask again without it and stop sending it to that server.
    /// Servers that ignore the field are fine too: the prompt still asks for JSON.
    #[default]
    Auto,
    /// Always ask for it when JSON is wanted; a refusal is an error.
    JsonObject,
    /// Never send the field; rely on the prompt alone.
    Off,
}

/// How often and how patiently to retry a request the server turned away for now
/// (429 and 5xx answers, refused or dropped connections).
///
/// The wait before retry `n` (counting from 0) is `initial_backoff × 2ⁿ`, capped at
/// `max_backoff`; a `Retry-After` header (in seconds) replaces it, under the same cap.
/// Timeouts are not retried: the timeout is the caller's budget for one answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 disables retrying).
    pub max_retries: u32,
    /// The first wait.
    pub initial_backoff: Duration,
    /// The longest wait.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry `retry` (0-based), or the server's `Retry-After`, capped.
    pub(crate) fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        let computed = retry_after.unwrap_or_else(|| {
            self.initial_backoff
                .saturating_mul(2u32.saturating_pow(retry.min(16)))
        });
        computed.min(self.max_backoff)
    }
}

/// Configuration of an [`OpenAiClient`](super::OpenAiClient): any server that speaks the
/// OpenAI chat-completions API (OpenAI, vLLM, llama.cpp's server, Ollama's `/v1`).
///
/// ```
/// use std::time::Duration;
/// use tnsai_coordination::openai::{ApiKey, OpenAiConfig, ResponseFormat};
///
/// let config = OpenAiConfig::new("http://127.0.0.1:11434/v1", "llama3.1")
///     .with_api_key(ApiKey::new("sk-secret"))
///     .with_timeout(Duration::from_secs(120))
///     .with_max_retries(2)
///     .with_response_format(ResponseFormat::Auto);
/// assert_eq!(config.model(), "llama3.1");
/// assert!(!format!("{config:?}").contains("sk-secret"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiConfig {
    base_url: String,
    model: String,
    api_key: Option<ApiKey>,
    timeout: Duration,
    retry: RetryPolicy,
    response_format: ResponseFormat,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self::new(DEFAULT_BASE_URL, DEFAULT_MODEL)
    }
}

impl OpenAiConfig {
    /// A server's base URL (the part before `/chat/completions`, e.g.
    /// `https://api.openai.com/v1`) and a model name; no key, a 60 s timeout, the
    /// default [`RetryPolicy`] and [`ResponseFormat::Auto`].
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            timeout: Duration::from_secs(60),
            retry: RetryPolicy::default(),
            response_format: ResponseFormat::Auto,
            temperature: None,
            max_tokens: None,
        }
    }

    /// Reads `OPENAI_BASE_URL` (default [`DEFAULT_BASE_URL`]), `OPENAI_API_KEY` (none when
    /// unset or empty: local servers rarely need one) and `TNSAI_MODEL` (default
    /// [`DEFAULT_MODEL`]) from the process environment.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) with the variables looked up by `lookup` (for tests
    /// and for applications with their own settings store).
    ///
    /// ```
    /// use tnsai_coordination::openai::OpenAiConfig;
    ///
    /// let config = OpenAiConfig::from_lookup(|name| match name {
    ///     "OPENAI_BASE_URL" => Some("http://127.0.0.1:8000/v1".to_owned()),
    ///     "TNSAI_MODEL" => Some("Qwen/Qwen2.5-7B-Instruct".to_owned()),
    ///     _ => None,
    /// });
    /// assert_eq!(config.base_url(), "http://127.0.0.1:8000/v1");
    /// assert!(!config.has_api_key());
    /// ```
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let present = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        let mut config = Self::new(
            present("OPENAI_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
            present("TNSAI_MODEL").unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
        );
        config.api_key = present("OPENAI_API_KEY").map(|key| ApiKey::new(key.trim()));
        config
    }

    /// Sets the base URL.
    pub fn with_base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into();
        self
    }

    /// Sets the model.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = model.into();
        self
    }

    /// Sets the API key, sent as `Authorization: Bearer <key>`.
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// How long one attempt may take, from sending the request to the last byte of the
    /// answer.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Retries after the first attempt.
    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.retry.max_retries = retries;
        self
    }

    /// The first and the longest wait between attempts.
    pub fn with_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.retry.initial_backoff = initial;
        self.retry.max_backoff = max.max(initial);
        self
    }

    /// Sets the whole retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Whether to send `response_format` when JSON is wanted.
    pub fn with_response_format(mut self, format: ResponseFormat) -> Self {
        self.response_format = format;
        self
    }

    /// The temperature for requests that set none.
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// The token cap for requests that set none.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// The base URL.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The model.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Whether a key is set (the key itself is never handed out).
    pub fn has_api_key(&self) -> bool {
        self.api_key.is_some()
    }

    pub(crate) fn key(&self) -> Option<&ApiKey> {
        self.api_key.as_ref()
    }

    /// The per-attempt timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The retry policy.
    pub fn retry(&self) -> RetryPolicy {
        self.retry
    }

    /// The `response_format` setting.
    pub fn response_format(&self) -> ResponseFormat {
        self.response_format
    }

    /// The temperature for requests that set none.
    pub fn temperature(&self) -> Option<f32> {
        self.temperature
    }

    /// The token cap for requests that set none.
    pub fn max_tokens(&self) -> Option<u32> {
        self.max_tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_and_honours_retry_after() {
        let policy = RetryPolicy {
            max_retries: 5,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(350),
        };
        assert_eq!(policy.delay(0, None), Duration::from_millis(100));
        assert_eq!(policy.delay(1, None), Duration::from_millis(200));
        assert_eq!(policy.delay(2, None), Duration::from_millis(350));
        assert_eq!(policy.delay(40, None), Duration::from_millis(350));
        assert_eq!(
            policy.delay(0, Some(Duration::from_millis(250))),
            Duration::from_millis(250)
        );
        assert_eq!(
            policy.delay(0, Some(Duration::from_secs(60))),
            Duration::from_millis(350)
        );
    }

    #[test]
    fn the_environment_fills_in_defaults() {
        let config = OpenAiConfig::from_lookup(|name| {
            (name == "OPENAI_API_KEY").then(|| "  sk-test  ".to_owned())
        });
        assert_eq!(config.base_url(), DEFAULT_BASE_URL);
        assert_eq!(config.model(), DEFAULT_MODEL);
        assert_eq!(config.key().map(ApiKey::expose), Some("sk-test"));
        let empty = OpenAiConfig::from_lookup(|_| Some(String::new()));
        assert!(!empty.has_api_key());
        assert_eq!(empty.model(), DEFAULT_MODEL);
    }
}
