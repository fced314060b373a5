//! What an action returns.

use std::fmt;

/// What an `#[action]` method returns: a JSON result, or the action's own error.
///
/// The `Ok` value becomes the reply message's [`payload`](crate::Message::payload); the
/// error's text reaches the caller as its error.
pub type ActionResult = Result<serde_json::Value, ActionError>;

/// An action's own error. Its text is what the caller sees.
///
/// ```
/// use tnsai_core::{ActionError, ActionResult};
///
/// fn check(amount: i64) -> ActionResult {
///     if amount < 0 {
///         return Err(ActionError::new("amount must not be negative"));
///     }
///     Ok(serde_json::json!({ "charged": amount }))
/// }
/// assert_eq!(check(-1).unwrap_err().to_string(), "amount must not be negative");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ActionError {
    message: String,
}

impl ActionError {
    /// An error with the given text.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The error's text.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for ActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ActionError").field(&self.message).finish()
    }
}

impl std::error::Error for ActionError {}

impl From<String> for ActionError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ActionError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl From<serde_json::Error> for ActionError {
    fn from(error: serde_json::Error) -> Self {
        Self::new(error.to_string())
    }
}
