//! Where a conversation stands.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The state of a conversation protocol run.
///
/// | state | meaning | [`is_complete`](Self::is_complete) | [`is_successful`](Self::is_successful) | [`is_terminal`](Self::is_terminal) |
/// |---|---|---|---|---|
/// | `Initial` | nothing has happened yet | no | no | no |
/// | `AwaitingInitiation` | the initiating message was created but not yet seen going out | no | no | no |
/// | `AwaitingResponse` | the initiator waits for an answer or a result | no | no | no |
/// | `Negotiating` | contract net: proposals are in, none accepted yet | no | no | no |
/// | `CompletedSuccess` | the protocol ended as hoped | yes | yes | yes |
/// | `CompletedFailure` | the protocol ended with a refusal or failure | yes | no | yes |
/// | `Cancelled` | the initiator called the conversation off | no | no | yes |
/// | `TimedOut` | a `reply_by` deadline passed without the awaited answer | no | no | yes |
/// | `Error` | a message the protocol does not allow arrived | yes | no | yes |
///
/// `is_complete` is true for the two completed states and `Error`, as promised
/// by the original API; `is_terminal` also counts `Cancelled` and `TimedOut`.
/// Protocols ignore messages once terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProtocolState {
    /// Nothing has happened yet.
    #[default]
    Initial,
    /// The initiating message was created but has not been processed yet.
    AwaitingInitiation,
    /// The initiator waits for an answer or a result.
    AwaitingResponse,
    /// Contract net: proposals have arrived and none is accepted yet.
    Negotiating,
    /// Ended as hoped.
    CompletedSuccess,
    /// Ended with a refusal, a failure or no acceptable proposal.
    CompletedFailure,
    /// Called off by the initiator.
    Cancelled,
    /// A `reply_by` deadline passed without the awaited answer.
    TimedOut,
    /// A message the protocol does not allow arrived.
    Error,
}

impl ProtocolState {
    /// True for `CompletedSuccess`, `CompletedFailure` and `Error`.
    pub fn is_complete(self) -> bool {
        matches!(
            self,
            Self::CompletedSuccess | Self::CompletedFailure | Self::Error
        )
    }

    /// True only for `CompletedSuccess`.
    pub fn is_successful(self) -> bool {
        self == Self::CompletedSuccess
    }

    /// True when no message can change the state any more: the completed
    /// states, `Error`, `Cancelled` and `TimedOut`.
    pub fn is_terminal(self) -> bool {
        self.is_complete() || matches!(self, Self::Cancelled | Self::TimedOut)
    }

    /// The kebab-case name, e.g. `"completed-success"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Initial => "initial",
            Self::AwaitingInitiation => "awaiting-initiation",
            Self::AwaitingResponse => "awaiting-response",
            Self::Negotiating => "negotiating",
            Self::CompletedSuccess => "completed-success",
            Self::CompletedFailure => "completed-failure",
            Self::Cancelled => "cancelled",
            Self::TimedOut => "timed-out",
            Self::Error => "error",
        }
    }
}

impl fmt::Display for ProtocolState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
