//! The FIPA Subscribe Interaction Protocol (FIPA SC00035).

use super::ProtocolState::{self, AwaitingResponse, CompletedFailure};
use super::exchange::{AnswerRule, Exchange, exchange_protocol};
use crate::message::FipaMessage;
use crate::performative::Performative::{self, Agree, Failure, Inform, NotUnderstood, Refuse};

/// One run of `fipa-subscribe`: the initiator asks to be told whenever the
/// object described by the content changes; the participant agrees (or sends
/// a first notification straight away) and then sends an `inform` per change
/// until the initiator cancels or the participant fails.
///
/// A subscription has no successful end: it lives in `AwaitingResponse`
/// while active and ends `Cancelled`, `CompletedFailure` or `TimedOut`.
///
/// | from | event | to |
/// |---|---|---|
/// | `Initial` | [`create_initial_message`](Self::create_initial_message) | `AwaitingInitiation` |
/// | `Initial`, `AwaitingInitiation` | `subscribe` | `AwaitingResponse` (its `reply_by` becomes the deadline) |
/// | `AwaitingResponse`, not agreed | `agree` | `AwaitingResponse`, active |
/// | `AwaitingResponse` | `inform` | `AwaitingResponse`, active (one more notification) |
/// | `AwaitingResponse`, not agreed | `refuse`, `not-understood` | `CompletedFailure` |
/// | `AwaitingResponse` | `failure` | `CompletedFailure` |
/// | `AwaitingResponse` | `cancel` | `Cancelled` |
/// | `AwaitingResponse`, before the first answer | `reply_by` passed | `TimedOut` |
/// | any non-terminal | [`cancel()`](Self::cancel) | `Cancelled` |
/// | any non-terminal | any other performative | `Error` |
/// | terminal | anything | unchanged (ignored) |
///
/// ```
/// use tnsai_fipa::{Performative, ProtocolState, SubscribeProtocol};
/// let mut s = SubscribeProtocol::new();
/// let sub = s.create_initial_message("watcher", "stock-feed", "(price ACME)");
/// s.process_message(&sub);
/// s.process_message(&s.create_response(&sub, Performative::Agree, "ok"));
/// s.process_message(&s.create_response(&sub, Performative::Inform, "(= (price ACME) 10)"));
/// assert_eq!(s.notifications().count(), 1);
/// assert_eq!(s.cancel(), ProtocolState::Cancelled);
/// ```
#[derive(Debug, Clone, Default)]
pub struct SubscribeProtocol {
    exchange: Exchange,
}

impl SubscribeProtocol {
    const INITIATING: &'static [Performative] = &[Performative::Subscribe];
    const ANSWERS: &'static [Performative] = &[Agree, Refuse, NotUnderstood, Inform, Failure];
    const RULE: AnswerRule = subscribe_rule;

    /// A `subscribe` from `sender` to `receiver` in this protocol; moves
    /// `Initial` to `AwaitingInitiation`.
    pub fn create_initial_message(
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
            .protocol(super::SUBSCRIBE_PROTOCOL)
            .assemble(Performative::Subscribe)
    }

    /// Whether the subscription is active (agreed or notified).
    pub fn is_active(&self) -> bool {
        self.exchange.agreed() && !self.state().is_terminal()
    }

    /// The notifications (`inform`s) received so far, in order.
    pub fn notifications(&self) -> impl Iterator<Item = &FipaMessage> {
        // The first message is the subscribe itself, or one that caused `Error`.
        self.history()
            .iter()
            .skip(1)
            .filter(|m| m.performative() == Inform)
    }
}

exchange_protocol!(SubscribeProtocol, super::SUBSCRIBE_PROTOCOL);

fn subscribe_rule(agreed: bool, p: Performative) -> Option<(ProtocolState, bool)> {
    match (agreed, p) {
        (false, Agree) | (_, Inform) => Some((AwaitingResponse, true)),
        (false, Refuse | NotUnderstood) => Some((CompletedFailure, false)),
        (_, Failure) => Some((CompletedFailure, agreed)),
        _ => None,
    }
}
