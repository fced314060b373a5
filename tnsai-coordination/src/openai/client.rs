//! The chat-completions client: one POST per attempt, retries for answers that say
//! "later", typed errors for the rest.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use tnsai_core::{BoxFuture, CompletionRequest, LanguageModel, ModelError, ModelErrorKind};

use super::config::{OpenAiConfig, ResponseFormat};
use super::wire::{ChatRequest, answer_text, error_text};

/// A [`LanguageModel`] served over the OpenAI chat-completions API.
///
/// Give it to an agent's `#[language_model]` to answer `send_message` text, or to an
/// [`LlmDecisionMaker`](crate::bspl::llm::LlmDecisionMaker) to enact BSPL protocols.
/// Cheap to share behind an `Arc`; requests may run concurrently.
///
/// ```no_run
/// use std::sync::Arc;
/// use tnsai_coordination::openai::{OpenAiClient, OpenAiConfig};
/// use tnsai_core::LanguageModel;
///
/// # async fn run() -> Result<(), tnsai_core::ModelError> {
/// let model: Arc<dyn LanguageModel> = Arc::new(OpenAiClient::new(OpenAiConfig::from_env())?);
/// let answer = model.ask("Say hello in French").await?;
/// # Ok(()) }
/// ```
///
/// Errors carry a [`ModelErrorKind`]: `Unauthorized` (401, 403), `RateLimited` (429 after
/// the retries), `Unavailable` (5xx after the retries, or no connection), `Timeout`,
/// `InvalidRequest` (other 4xx, such as an unknown model), `MalformedResponse` (an answer
/// that is not a chat completion). The API key never appears in them, nor in `Debug`
/// output or logs.
pub struct OpenAiClient {
    http: reqwest::Client,
    config: OpenAiConfig,
    endpoint: String,
    /// Cleared when the server refused `response_format`, so it is not sent again.
    format_supported: AtomicBool,
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("endpoint", &self.endpoint)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// What one attempt came to.
enum Attempt {
    Answer(String),
    /// Worth trying again after the wait (the server's `Retry-After`, if it gave one).
    Retry(ModelError, Option<Duration>),
    /// The server refused `response_format`: ask again without it.
    DropFormat,
    Fail(ModelError),
}

impl OpenAiClient {
    /// A client for the server and model `config` names.
    ///
    /// # Errors
    ///
    /// [`ModelErrorKind::InvalidRequest`] when the base URL is not an `http` or `https`
    /// URL, or the model name is empty.
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        let base = config.base_url().trim().trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://"))
            || base.len() <= "https://".len()
        {
            return Err(ModelError::new(
                ModelErrorKind::InvalidRequest,
                format!("the base URL {base:?} is not an http(s) URL"),
            ));
        }
        if config.model().trim().is_empty() {
            return Err(ModelError::new(
                ModelErrorKind::InvalidRequest,
                "no model is configured",
            ));
        }
        let http = reqwest::Client::builder()
            .timeout(config.timeout())
            .build()
            .map_err(|e| {
                ModelError::new(
                    ModelErrorKind::InvalidRequest,
                    format!("cannot build the HTTP client: {e}"),
                )
            })?;
        Ok(Self {
            http,
            endpoint: format!("{base}/chat/completions"),
            format_supported: AtomicBool::new(true),
            config,
        })
    }

    /// A client configured from `OPENAI_BASE_URL`, `OPENAI_API_KEY` and `TNSAI_MODEL`
    /// (see [`OpenAiConfig::from_env`]).
    ///
    /// # Errors
    ///
    /// As [`new`](Self::new).
    pub fn from_env() -> Result<Self, ModelError> {
        Self::new(OpenAiConfig::from_env())
    }

    /// The configuration.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    async fn complete_with_retries(
        &self,
        request: &CompletionRequest,
    ) -> Result<String, ModelError> {
        let policy = self.config.retry();
        let mut json_format = request.wants_json()
            && match self.config.response_format() {
                ResponseFormat::Auto => self.format_supported.load(Ordering::Relaxed),
                ResponseFormat::JsonObject => true,
                ResponseFormat::Off => false,
            };
        let mut retry = 0;
        loop {
            match self.attempt(request, json_format).await {
                Attempt::Answer(text) => return Ok(text),
                Attempt::Fail(error) => return Err(error),
                Attempt::DropFormat => {
                    tracing::debug!(
                        model = self.config.model(),
                        "the server refused response_format; asking without it"
                    );
                    self.format_supported.store(false, Ordering::Relaxed);
                    json_format = false;
                }
                Attempt::Retry(error, retry_after) => {
                    if retry >= policy.max_retries {
                        return Err(error);
                    }
                    let wait = policy.delay(retry, retry_after);
                    tracing::debug!(
                        model = self.config.model(),
                        retry = retry + 1,
                        wait_ms = wait.as_millis() as u64,
                        error = %error,
                        "retrying a chat completion"
                    );
                    tokio::time::sleep(wait).await;
                    retry += 1;
                }
            }
        }
    }

    async fn attempt(&self, request: &CompletionRequest, json_format: bool) -> Attempt {
        let body = ChatRequest::new(&self.config, request, json_format);
        let mut call = self.http.post(&self.endpoint).json(&body);
        if let Some(key) = self.config.key() {
            call = call.bearer_auth(key.expose());
        }
        let response = match call.send().await {
            Ok(response) => response,
            Err(error) => return self.transport_failure(&error),
        };
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let text = match response.text().await {
            Ok(text) => text,
            Err(error) => return self.transport_failure(&error),
        };
        tracing::debug!(
            model = self.config.model(),
            status = status.as_u16(),
            bytes = text.len(),
            "chat completion answered"
        );
        if status.is_success() {
            return match answer_text(&text) {
                Ok(answer) => Attempt::Answer(answer),
                Err(error) => Attempt::Fail(self.scrubbed(error)),
            };
        }
        let reason = self.scrub(&error_text(&text));
        let error = |kind: ModelErrorKind| {
            ModelError::new(kind, format!("HTTP {}: {reason}", status.as_u16()))
        };
        match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                Attempt::Fail(error(ModelErrorKind::Unauthorized))
            }
            StatusCode::TOO_MANY_REQUESTS => {
                Attempt::Retry(error(ModelErrorKind::RateLimited), retry_after)
            }
            StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY
                if json_format
                    && self.config.response_format() == ResponseFormat::Auto
                    && text.contains("response_format") =>
            {
                Attempt::DropFormat
            }
            status if status.is_server_error() => {
                Attempt::Retry(error(ModelErrorKind::Unavailable), retry_after)
            }
            StatusCode::REQUEST_TIMEOUT => Attempt::Fail(error(ModelErrorKind::Timeout)),
            _ => Attempt::Fail(error(ModelErrorKind::InvalidRequest)),
        }
    }

    fn transport_failure(&self, error: &reqwest::Error) -> Attempt {
        // reqwest's error text names the URL, never the headers; scrub anyway in case a
        // key was written into the base URL.
        let text = self.scrub(&error.to_string());
        if error.is_timeout() {
            Attempt::Fail(ModelError::new(
                ModelErrorKind::Timeout,
                format!(
                    "no answer within {} ms: {text}",
                    self.config.timeout().as_millis()
                ),
            ))
        } else if error.is_decode() || error.is_body() {
            Attempt::Retry(
                ModelError::new(
                    ModelErrorKind::Unavailable,
                    format!("broken answer: {text}"),
                ),
                None,
            )
        } else {
            Attempt::Retry(
                ModelError::new(
                    ModelErrorKind::Unavailable,
                    format!("cannot reach {}: {text}", self.endpoint),
                ),
                None,
            )
        }
    }

    fn scrub(&self, text: &str) -> String {
        match self.config.key() {
            Some(key) if !key.expose().is_empty() => text.replace(key.expose(), "<redacted>"),
            _ => text.to_owned(),
        }
    }

    fn scrubbed(&self, error: ModelError) -> ModelError {
        ModelError::new(error.kind(), self.scrub(error.message()))
    }
}

fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let seconds: f64 = headers
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(3600.0)))
}

impl LanguageModel for OpenAiClient {
    fn complete<'a>(
        &'a self,
        request: &'a CompletionRequest,
    ) -> BoxFuture<'a, Result<String, ModelError>> {
        Box::pin(self.complete_with_retries(request))
    }

    fn name(&self) -> &str {
        self.config.model()
    }
}
