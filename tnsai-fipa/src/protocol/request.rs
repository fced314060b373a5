//! The FIPA Request Interaction Protocol (FIPA SC00026).

use super::ProtocolState::{self, AwaitingResponse, CompletedFailure, CompletedSuccess};
use super::exchange::{AnswerRule, Exchange, exchange_protocol};
use crate::message::FipaMessage;
use crate::performative::Performative::{self, Agree, Failure, Inform, NotUnderstood, Refuse};

/// One run of `fipa-request`: the initiator asks the participant to perform
/// an action; the participant may agree first, then reports the outcome.
///
/// Feed every message of the conversation, in both directions, to
/// [`process_message`](Self::process_message).
///
/// | from | event | to |
/// |---|---|---|
/// | `Initial` | [`create_initial_message`](Self::create_initial_message) | `AwaitingInitiation` |
/// | `Initial`, `AwaitingInitiation` | `request` | `AwaitingResponse` (its `reply_by` becomes the deadline) |
/// | `AwaitingResponse`, not agreed | `agree` | `AwaitingResponse`, agreed |
/// | `AwaitingResponse`, not agreed | `refuse`, `not-understood` | `CompletedFailure` |
/// | `AwaitingResponse` | `inform` | `CompletedSuccess` (the agree is optional) |
/// | `AwaitingResponse` | `failure` | `CompletedFailure` |
/// | `AwaitingResponse` | `cancel` | `Cancelled` |
/// | `AwaitingResponse`, before the first answer | `reply_by` passed (on any message or [`check_timeout`](Self::check_timeout)) | `TimedOut` |
/// | any non-terminal | [`cancel()`](Self::cancel) | `Cancelled` |
/// | any non-terminal | any other performative | `Error` |
/// | terminal | anything | unchanged (ignored) |
///
/// ```
/// use tnsai_fipa::{FipaMessage, Performative, ProtocolState, RequestProtocol};
/// let mut p = RequestProtocol::new();
/// let request = p.create_initial_message("client", "server", "restart");
/// assert_eq!(p.process_message(&request), ProtocolState::AwaitingResponse);
/// let agree = p.create_response(&request, Performative::Agree, "ok");
/// let done = p.create_response(&request, Performative::Inform, "restarted");
/// p.process_message(&agree);
/// assert_eq!(p.process_message(&done), ProtocolState::CompletedSuccess);
/// ```
#[derive(Debug, Clone, Default)]
pub struct RequestProtocol {
    exchange: Exchange,
}

impl RequestProtocol {
    const INITIATING: &'static [Performative] = &[Performative::Request];
    const ANSWERS: &'static [Performative] = &[Agree, Refuse, NotUnderstood, Inform, Failure];
    const RULE: AnswerRule = request_rule;

    /// A `request` from `sender` to `receiver` in this protocol; moves
    /// `Initial` to `AwaitingInitiation`.
    pub fn create_initial_message(
        &mut self,
        sender: impl Into<String>,
        receiver: impl Into<String>,
        content: impl Into<String>,
    ) -> FipaMessage {
        self.exchange.conversation.initiation_created();
        FipaMessage::request(sender, receiver, content)
    }

    /// Whether the participant has agreed.
    pub fn is_agreed(&self) -> bool {
        self.exchange.agreed()
    }
}

exchange_protocol!(RequestProtocol, super::REQUEST_PROTOCOL);

/// Answers to a request or query: an optional agree, then the outcome.
pub(super) fn request_rule(agreed: bool, p: Performative) -> Option<(ProtocolState, bool)> {
    match (agreed, p) {
        (false, Agree) => Some((AwaitingResponse, true)),
        (false, Refuse | NotUnderstood) => Some((CompletedFailure, false)),
        (_, Inform) => Some((CompletedSuccess, agreed)),
        (_, Failure) => Some((CompletedFailure, agreed)),
        _ => None,
    }
}
