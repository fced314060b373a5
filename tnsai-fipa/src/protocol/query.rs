//! The FIPA Query Interaction Protocol (FIPA SC00027).

use super::exchange::{AnswerRule, Exchange, exchange_protocol};
use super::request::request_rule;
use crate::message::FipaMessage;
use crate::performative::Performative::{self, Agree, Failure, Inform, NotUnderstood, Refuse};

/// One run of `fipa-query`: the initiator asks whether a proposition holds
/// (`query-if`) or for the objects matching a description (`query-ref`); the
/// participant may agree first, then answers with `inform`.
///
/// | from | event | to |
/// |---|---|---|
/// | `Initial` | [`create_initial_message`](Self::create_initial_message) | `AwaitingInitiation` |
/// | `Initial`, `AwaitingInitiation` | `query-if`, `query-ref` | `AwaitingResponse` (its `reply_by` becomes the deadline) |
/// | `AwaitingResponse`, not agreed | `agree` | `AwaitingResponse`, agreed |
/// | `AwaitingResponse`, not agreed | `refuse`, `not-understood` | `CompletedFailure` |
/// | `AwaitingResponse` | `inform` | `CompletedSuccess` |
/// | `AwaitingResponse` | `failure` | `CompletedFailure` |
/// | `AwaitingResponse` | `cancel` | `Cancelled` |
/// | `AwaitingResponse`, before the first answer | `reply_by` passed | `TimedOut` |
/// | any non-terminal | [`cancel()`](Self::cancel) | `Cancelled` |
/// | any non-terminal | any other performative | `Error` |
/// | terminal | anything | unchanged (ignored) |
///
/// ```
/// use tnsai_fipa::{FipaMessage, Performative, ProtocolState, QueryProtocol};
/// let mut q = QueryProtocol::new();
/// let ask = FipaMessage::query_if("monitor", "service", "Is the service healthy?");
/// q.process_message(&ask);
/// let answer = q.create_response(&ask, Performative::Inform, "true");
/// assert_eq!(q.process_message(&answer), ProtocolState::CompletedSuccess);
/// ```
#[derive(Debug, Clone, Default)]
pub struct QueryProtocol {
    exchange: Exchange,
}

impl QueryProtocol {
    const INITIATING: &'static [Performative] = &[Performative::QueryIf, Performative::QueryRef];
    const ANSWERS: &'static [Performative] = &[Agree, Refuse, NotUnderstood, Inform, Failure];
    const RULE: AnswerRule = request_rule;

    /// A `query-if` from `sender` to `receiver` in this protocol; moves
    /// `Initial` to `AwaitingInitiation`.
    pub fn create_initial_message(
        &mut self,
        sender: impl Into<String>,
        receiver: impl Into<String>,
        content: impl Into<String>,
    ) -> FipaMessage {
        self.exchange.conversation.initiation_created();
        FipaMessage::query_if(sender, receiver, content)
    }

    /// A `query-ref` from `sender` to `receiver` in this protocol; moves
    /// `Initial` to `AwaitingInitiation`.
    pub fn create_query_ref(
        &mut self,
        sender: impl Into<String>,
        receiver: impl Into<String>,
        content: impl Into<String>,
    ) -> FipaMessage {
        self.exchange.conversation.initiation_created();
        FipaMessage::builder()
            .sender(sender)
            .receiver(receiver)
            .content(content)
            .protocol(super::QUERY_PROTOCOL)
            .assemble(Performative::QueryRef)
    }

    /// Whether the participant has agreed.
    pub fn is_agreed(&self) -> bool {
        self.exchange.agreed()
    }
}

exchange_protocol!(QueryProtocol, super::QUERY_PROTOCOL);
