//! What can go wrong, per operation: spawning an agent, carrying a message, making a call.

use std::fmt;

use tnsai_core::{AgentId, Paradigm, SpecError, TopicError};

/// Why [`Platform::spawn`](crate::Platform::spawn) refused an agent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpawnError {
    /// The id was empty or only whitespace.
    #[error("agent id must not be empty")]
    EmptyId,
    /// Another agent on this platform already has the id.
    #[error("agent id `{0}` is already in use on this platform")]
    DuplicateId(AgentId),
    /// The agent's protocol specs break a rule (only possible for hand-written `Agent`
    /// implementations: the attributes check these rules at compile time).
    #[error("agent `{id}` has an invalid protocol spec: {error}")]
    InvalidSpec {
        /// The agent.
        id: AgentId,
        /// The broken rule.
        error: SpecError,
    },
    /// The platform was shut down.
    #[error("the platform has been shut down")]
    PlatformShutDown,
}

/// What kind of failure a [`TransportError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TransportErrorKind {
    /// The transport (or the sending agent's manager) is not started.
    NotStarted,
    /// No agent of that id is known to this transport.
    UnknownReceiver,
    /// The receiver exists but does not accept messages now (stopped or terminated).
    ReceiverUnavailable,
    /// The message could not be carried (network, broker, encoding).
    Delivery,
    /// The remote side refused the message.
    Rejected,
    /// No answer from the carrier in time.
    Timeout,
}

/// A transport could not carry a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransportError {
    kind: TransportErrorKind,
    agent: Option<AgentId>,
    message: String,
}

impl TransportError {
    /// An error of `kind` with a description.
    pub fn new(kind: TransportErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            agent: None,
            message: message.into(),
        }
    }
    /// The transport is not started.
    pub fn not_started() -> Self {
        Self::new(TransportErrorKind::NotStarted, "Transport not started")
    }
    /// `agent` is not known to the transport.
    pub fn unknown_receiver(agent: AgentId) -> Self {
        Self {
            kind: TransportErrorKind::UnknownReceiver,
            message: format!("Unknown receiver: {agent}"),
            agent: Some(agent),
        }
    }
    /// `agent` exists but does not accept messages.
    pub fn unavailable(agent: AgentId, reason: &str) -> Self {
        Self {
            kind: TransportErrorKind::ReceiverUnavailable,
            message: format!("Receiver {agent} is {reason}"),
            agent: Some(agent),
        }
    }
    /// What kind of failure this is.
    pub fn kind(&self) -> TransportErrorKind {
        self.kind
    }
    /// The agent the failure concerns, if any.
    pub fn agent(&self) -> Option<&AgentId> {
        self.agent.as_ref()
    }
    /// The description.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for TransportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TransportError {}

/// Why a [`ProtocolManager`](crate::ProtocolManager) call failed.
///
/// The display texts of the first variants are part of the contract:
/// `Direct message not configured for this agent` (and the other four paradigms),
/// `Request timed out`, `Debate not found`, `Unknown receiver: <id>` and
/// `Transport not started`. An action's own error displays as exactly its text.
///
/// Errors that happen at the receiver travel back as an error answer with a code
/// ([`ProtocolError::code`]) and are rebuilt into the same variant at the caller, whatever
/// transport carried them.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// The calling agent has no attribute for the paradigm.
    #[error("{}", not_configured_text(*.0))]
    NotConfigured(Paradigm),
    /// A request got no reply within its `#[request_reply]` timeout.
    #[error("Request timed out")]
    Timeout,
    /// No debate session has that id (for this agent).
    #[error("Debate not found")]
    DebateNotFound,
    /// No agent of that id is known.
    #[error("Unknown receiver: {0}")]
    UnknownReceiver(AgentId),
    /// The calling agent's manager is stopped (or its platform shut down).
    #[error("Transport not started")]
    TransportNotStarted,
    /// The action returned an error; this is its text.
    #[error("{0}")]
    ActionFailed(String),
    /// The action panicked; the receiving agent keeps running.
    #[error("{0}")]
    ActionPanicked(String),
    /// The receiver has no action of that name.
    #[error("{0}")]
    UnknownAction(String),
    /// The action is reserved for a role the call did not name, or the call named a role
    /// the action is not reserved for.
    #[error("{0}")]
    RoleMismatch(String),
    /// The receiver of `send_message` has no language model.
    #[error("{0}")]
    NoLanguageModel(String),
    /// The receiver's language model failed.
    #[error("{0}")]
    LanguageModel(String),
    /// `can_publish = false` forbids this agent to broadcast or publish.
    #[error("{} is disabled for this agent (can_publish = false)", publish_name(*.0))]
    PublishNotAllowed(Paradigm),
    /// The topic cannot be published to.
    #[error("Invalid topic: {0}")]
    InvalidTopic(TopicError),
    /// The payload could not be turned into JSON.
    #[error("Invalid payload: {0}")]
    InvalidPayload(String),
    /// The agent was terminated; its manager cannot start again.
    #[error("Agent {0} has been terminated")]
    Terminated(AgentId),
    /// The receiver stopped or was terminated before it answered.
    #[error("{0}")]
    ReceiverUnavailable(String),
    /// A debate call was refused (not a participant, a second position in a round, a
    /// finished session, `can_initiate`/`can_vote` false, ...); the text says which.
    #[error("{0}")]
    DebateRefused(String),
    /// A call's arguments were refused before anything was sent.
    #[error("{0}")]
    InvalidArgument(String),
    /// The message could not be carried.
    #[error("{0}")]
    Transport(TransportError),
    /// An error answer with a code this version does not know.
    #[error("{message}")]
    Remote {
        /// The error code the receiver sent.
        code: String,
        /// The receiver's error text.
        message: String,
    },
}

fn not_configured_text(paradigm: Paradigm) -> &'static str {
    match paradigm {
        Paradigm::Direct => "Direct message not configured for this agent",
        Paradigm::Broadcast => "Broadcast not configured for this agent",
        Paradigm::PubSub => "Publish/subscribe not configured for this agent",
        Paradigm::RequestReply => "Request/reply not configured for this agent",
        Paradigm::Debate => "Debate not configured for this agent",
    }
}

fn publish_name(paradigm: Paradigm) -> &'static str {
    match paradigm {
        Paradigm::Broadcast => "Broadcasting",
        _ => "Publishing",
    }
}

impl ProtocolError {
    /// The wire code an error answer carries for this error, when it can happen at the
    /// receiver.
    pub fn code(&self) -> &str {
        match self {
            ProtocolError::NotConfigured(_) => "not_configured",
            ProtocolError::Timeout => "timeout",
            ProtocolError::DebateNotFound => "debate_not_found",
            ProtocolError::UnknownReceiver(_) => "unknown_receiver",
            ProtocolError::TransportNotStarted => "not_started",
            ProtocolError::ActionFailed(_) => "action_failed",
            ProtocolError::ActionPanicked(_) => "action_panicked",
            ProtocolError::UnknownAction(_) => "unknown_action",
            ProtocolError::RoleMismatch(_) => "role_mismatch",
            ProtocolError::NoLanguageModel(_) => "no_language_model",
            ProtocolError::LanguageModel(_) => "language_model",
            ProtocolError::PublishNotAllowed(_) => "publish_not_allowed",
            ProtocolError::InvalidTopic(_) => "invalid_topic",
            ProtocolError::InvalidPayload(_) => "invalid_payload",
            ProtocolError::Terminated(_) => "terminated",
            ProtocolError::ReceiverUnavailable(_) => "receiver_unavailable",
            ProtocolError::DebateRefused(_) => "debate_refused",
            ProtocolError::InvalidArgument(_) => "invalid_argument",
            ProtocolError::Transport(_) => "transport",
            ProtocolError::Remote { code, .. } => code,
        }
    }

    /// Rebuilds an error from an error answer's code and text.
    pub fn from_code(code: &str, message: &str) -> Self {
        let text = message.to_owned();
        match code {
            "timeout" => ProtocolError::Timeout,
            "debate_not_found" => ProtocolError::DebateNotFound,
            "not_started" => ProtocolError::TransportNotStarted,
            "action_failed" => ProtocolError::ActionFailed(text),
            "action_panicked" => ProtocolError::ActionPanicked(text),
            "unknown_action" => ProtocolError::UnknownAction(text),
            "role_mismatch" => ProtocolError::RoleMismatch(text),
            "no_language_model" => ProtocolError::NoLanguageModel(text),
            "language_model" => ProtocolError::LanguageModel(text),
            "receiver_unavailable" => ProtocolError::ReceiverUnavailable(text),
            "debate_refused" => ProtocolError::DebateRefused(text),
            "invalid_argument" => ProtocolError::InvalidArgument(text),
            _ => ProtocolError::Remote {
                code: code.to_owned(),
                message: text,
            },
        }
    }
}

impl From<TransportError> for ProtocolError {
    fn from(error: TransportError) -> Self {
        match error.kind {
            TransportErrorKind::NotStarted => ProtocolError::TransportNotStarted,
            TransportErrorKind::UnknownReceiver => match error.agent {
                Some(agent) => ProtocolError::UnknownReceiver(agent),
                None => ProtocolError::Transport(error),
            },
            TransportErrorKind::ReceiverUnavailable => {
                ProtocolError::ReceiverUnavailable(error.message)
            }
            _ => ProtocolError::Transport(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_texts() {
        let texts = [
            (
                ProtocolError::NotConfigured(Paradigm::Direct),
                "Direct message not configured for this agent",
            ),
            (
                ProtocolError::NotConfigured(Paradigm::Broadcast),
                "Broadcast not configured for this agent",
            ),
            (
                ProtocolError::NotConfigured(Paradigm::PubSub),
                "Publish/subscribe not configured for this agent",
            ),
            (
                ProtocolError::NotConfigured(Paradigm::RequestReply),
                "Request/reply not configured for this agent",
            ),
            (
                ProtocolError::NotConfigured(Paradigm::Debate),
                "Debate not configured for this agent",
            ),
            (ProtocolError::Timeout, "Request timed out"),
            (ProtocolError::DebateNotFound, "Debate not found"),
            (
                ProtocolError::UnknownReceiver(AgentId::from("ghost")),
                "Unknown receiver: ghost",
            ),
            (ProtocolError::TransportNotStarted, "Transport not started"),
            (
                ProtocolError::ActionFailed("card declined".into()),
                "card declined",
            ),
        ];
        for (error, text) in texts {
            assert_eq!(error.to_string(), text);
        }
    }

    #[test]
    fn receiver_side_errors_survive_the_wire() {
        let errors = [
            ProtocolError::DebateNotFound,
            ProtocolError::ActionFailed("no".into()),
            ProtocolError::ActionPanicked("boom".into()),
            ProtocolError::UnknownAction("x".into()),
            ProtocolError::RoleMismatch("r".into()),
            ProtocolError::NoLanguageModel("m".into()),
            ProtocolError::DebateRefused("late".into()),
        ];
        for error in errors {
            let rebuilt = ProtocolError::from_code(error.code(), &error.to_string());
            assert_eq!(rebuilt, error);
        }
        assert!(matches!(
            ProtocolError::from_code("future_code", "hm"),
            ProtocolError::Remote { .. }
        ));
    }
}
