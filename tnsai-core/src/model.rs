//! Language models: what answers `send_message` text.

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// A boxed `Send` future, as object-safe async traits return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Who said a line of a chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    /// Instructions that frame the conversation.
    System,
    /// The asking side.
    User,
    /// The model's earlier answers.
    Assistant,
}

/// One line of a chat.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ChatMessage {
    /// Who said it.
    pub role: ChatRole,
    /// What was said.
    pub content: String,
}

impl ChatMessage {
    /// A system line.
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: ChatRole::System,
            content: content.into(),
        }
    }
    /// A user line.
    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: ChatRole::User,
            content: content.into(),
        }
    }
    /// An assistant line.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: ChatRole::Assistant,
            content: content.into(),
        }
    }
}

/// What is asked of a language model: a chat and how to answer it.
///
/// ```
/// use tnsai_core::CompletionRequest;
///
/// let request = CompletionRequest::new()
///     .system("You answer in one sentence.")
///     .user("Summarize the quarterly report")
///     .json(false);
/// assert_eq!(request.messages().len(), 2);
/// assert_eq!(request.last_user_text(), Some("Summarize the quarterly report"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CompletionRequest {
    messages: Vec<ChatMessage>,
    json: bool,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
}

impl CompletionRequest {
    /// An empty chat.
    pub fn new() -> Self {
        Self::default()
    }
    /// A chat of one user line.
    pub fn from_user(text: impl Into<String>) -> Self {
        Self::new().user(text)
    }
    /// Appends a system line.
    pub fn system(mut self, text: impl Into<String>) -> Self {
        self.messages.push(ChatMessage::system(text));
        self
    }
    /// Appends a user line.
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(ChatMessage::user(text));
        self
    }
    /// Appends an assistant line.
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push(ChatMessage::assistant(text));
        self
    }
    /// Asks for a JSON answer where the model supports it.
    pub fn json(mut self, json: bool) -> Self {
        self.json = json;
        self
    }
    /// Sets the sampling temperature.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }
    /// Caps the answer's length in tokens.
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }
    /// The chat lines.
    pub fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }
    /// Whether a JSON answer is wanted.
    pub fn wants_json(&self) -> bool {
        self.json
    }
    /// The sampling temperature, if set.
    pub fn temperature_value(&self) -> Option<f32> {
        self.temperature
    }
    /// The token cap, if set.
    pub fn max_tokens_value(&self) -> Option<u32> {
        self.max_tokens
    }
    /// The text of the last user line.
    pub fn last_user_text(&self) -> Option<&str> {
        self.messages
            .iter()
            .rev()
            .find(|m| m.role == ChatRole::User)
            .map(|m| m.content.as_str())
    }
}

/// What kind of failure a [`ModelError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModelErrorKind {
    /// The credentials were refused.
    Unauthorized,
    /// The service asked to slow down.
    RateLimited,
    /// No answer in time.
    Timeout,
    /// The service could not be reached or failed.
    Unavailable,
    /// The answer could not be understood.
    MalformedResponse,
    /// The request was refused as invalid.
    InvalidRequest,
    /// No answer is available for this request (e.g. a scripted model ran out).
    NoAnswer,
}

impl fmt::Display for ModelErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ModelErrorKind::Unauthorized => "unauthorized",
            ModelErrorKind::RateLimited => "rate limited",
            ModelErrorKind::Timeout => "timed out",
            ModelErrorKind::Unavailable => "unavailable",
            ModelErrorKind::MalformedResponse => "malformed response",
            ModelErrorKind::InvalidRequest => "invalid request",
            ModelErrorKind::NoAnswer => "no answer",
        })
    }
}

/// A language model's failure: a [`kind`](Self::kind) to match on and a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("language model {kind}: {message}")]
pub struct ModelError {
    kind: ModelErrorKind,
    message: String,
}

impl ModelError {
    /// An error of `kind`.
    pub fn new(kind: ModelErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
    /// What kind of failure this is.
    pub fn kind(&self) -> ModelErrorKind {
        self.kind
    }
    /// The failure's description.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// A language model: answers a chat with text. Object-safe, so agents hand out
/// `Arc<dyn LanguageModel>`.
///
/// Implement [`complete`](Self::complete) by boxing an async block:
///
/// ```
/// use tnsai_core::{BoxFuture, CompletionRequest, LanguageModel, ModelError};
///
/// struct Shouter;
///
/// impl LanguageModel for Shouter {
///     fn complete<'a>(
///         &'a self,
///         request: &'a CompletionRequest,
///     ) -> BoxFuture<'a, Result<String, ModelError>> {
///         Box::pin(async move { Ok(request.last_user_text().unwrap_or("").to_uppercase()) })
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let model: std::sync::Arc<dyn LanguageModel> = std::sync::Arc::new(Shouter);
/// assert_eq!(model.ask("hello").await.unwrap(), "HELLO");
/// # });
/// ```
pub trait LanguageModel: Send + Sync {
    /// Answers the chat.
    fn complete<'a>(
        &'a self,
        request: &'a CompletionRequest,
    ) -> BoxFuture<'a, Result<String, ModelError>>;

    /// A short name for logs (the model's name, for example).
    fn name(&self) -> &str {
        "language-model"
    }
}

impl dyn LanguageModel {
    /// Asks a single user line.
    ///
    /// # Errors
    ///
    /// Whatever the model fails with.
    pub async fn ask(&self, text: &str) -> Result<String, ModelError> {
        self.complete(&CompletionRequest::from_user(text)).await
    }
}

/// A deterministic model for examples and tests: answers from scripted replies and
/// keyword rules, never from the network.
///
/// Queued replies ([`then_reply`](Self::then_reply)) are given first, one per request, in
/// order; after them, the first rule whose keyword occurs in the last user line (ignoring
/// case) answers; otherwise the fallback ([`otherwise`](Self::otherwise)), or a
/// [`ModelErrorKind::NoAnswer`] error. Every request is recorded for inspection.
///
/// ```
/// use std::sync::Arc;
/// use tnsai_core::{LanguageModel, ScriptedModel};
///
/// let model = Arc::new(
///     ScriptedModel::new()
///         .when_contains("summar", "Revenue grew 12% in Q3.")
///         .otherwise("I can only summarize reports."),
/// );
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let dyn_model: Arc<dyn LanguageModel> = model.clone();
/// assert_eq!(dyn_model.ask("Please SUMMARIZE the report").await.unwrap(), "Revenue grew 12% in Q3.");
/// assert_eq!(dyn_model.ask("Tell a joke").await.unwrap(), "I can only summarize reports.");
/// assert_eq!(model.requests().len(), 2);
/// # });
/// ```
#[derive(Debug, Default)]
pub struct ScriptedModel {
    rules: Vec<(String, String)>,
    fallback: Option<String>,
    queue: Mutex<VecDeque<Result<String, ModelError>>>,
    requests: Mutex<Vec<CompletionRequest>>,
}

impl ScriptedModel {
    /// A model with no answers yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers `answer` when the last user line contains `keyword` (ignoring case).
    pub fn when_contains(mut self, keyword: impl Into<String>, answer: impl Into<String>) -> Self {
        self.rules
            .push((keyword.into().to_lowercase(), answer.into()));
        self
    }

    /// Answers `answer` when nothing else does.
    pub fn otherwise(mut self, answer: impl Into<String>) -> Self {
        self.fallback = Some(answer.into());
        self
    }

    /// Queues a reply given to the next request, before any rule.
    pub fn then_reply(self, answer: impl Into<String>) -> Self {
        self.lock_queue().push_back(Ok(answer.into()));
        self
    }

    /// Queues a failure given to the next request, before any rule.
    pub fn then_fail(self, error: ModelError) -> Self {
        self.lock_queue().push_back(Err(error));
        self
    }

    /// Queues a reply at run time (for tests that script as they go).
    pub fn push_reply(&self, answer: impl Into<String>) {
        self.lock_queue().push_back(Ok(answer.into()));
    }

    /// Every request answered so far, in order.
    pub fn requests(&self) -> Vec<CompletionRequest> {
        self.requests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn lock_queue(&self) -> std::sync::MutexGuard<'_, VecDeque<Result<String, ModelError>>> {
        // A panic while holding this lock cannot leave the queue half-updated.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn answer(&self, request: &CompletionRequest) -> Result<String, ModelError> {
        self.requests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(request.clone());
        if let Some(queued) = self.lock_queue().pop_front() {
            return queued;
        }
        let text = request.last_user_text().unwrap_or("").to_lowercase();
        self.rules
            .iter()
            .find(|(keyword, _)| text.contains(keyword.as_str()))
            .map(|(_, answer)| answer.clone())
            .or_else(|| self.fallback.clone())
            .ok_or_else(|| {
                ModelError::new(
                    ModelErrorKind::NoAnswer,
                    "the scripted model has no answer for this prompt",
                )
            })
    }
}

impl LanguageModel for ScriptedModel {
    fn complete<'a>(
        &'a self,
        request: &'a CompletionRequest,
    ) -> BoxFuture<'a, Result<String, ModelError>> {
        let answer = self.answer(request);
        Box::pin(std::future::ready(answer))
    }

    fn name(&self) -> &str {
        "scripted"
    }
}
