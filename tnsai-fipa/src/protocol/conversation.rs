//! Bookkeeping every conversation protocol shares: state, deadline, history.

use chrono::{DateTime, Utc};

use super::ProtocolState;
use crate::message::FipaMessage;
use crate::performative::Performative;

#[derive(Debug, Clone, Default)]
pub(crate) struct Conversation {
    state: ProtocolState,
    deadline: Option<DateTime<Utc>>,
    history: Vec<FipaMessage>,
}

impl Conversation {
    pub(crate) fn state(&self) -> ProtocolState {
        self.state
    }

    pub(crate) fn set_state(&mut self, state: ProtocolState) {
        self.state = state;
    }

    pub(crate) fn deadline(&self) -> Option<DateTime<Utc>> {
        self.deadline
    }

    pub(crate) fn set_deadline(&mut self, deadline: Option<DateTime<Utc>>) {
        self.deadline = deadline;
    }

    pub(crate) fn history(&self) -> &[FipaMessage] {
        &self.history
    }

    pub(crate) fn record(&mut self, message: &FipaMessage) {
        self.history.push(message.clone());
    }

    pub(crate) fn deadline_passed(&self, now: DateTime<Utc>) -> bool {
        self.deadline.is_some_and(|deadline| now > deadline)
    }

    /// Moves to `TimedOut` when the pending deadline has passed.
    pub(crate) fn check_timeout(&mut self, now: DateTime<Utc>) -> ProtocolState {
        if !self.state.is_terminal() && self.deadline_passed(now) {
            self.state = ProtocolState::TimedOut;
        }
        self.state
    }

    pub(crate) fn cancel(&mut self) -> ProtocolState {
        if !self.state.is_terminal() {
            self.state = ProtocolState::Cancelled;
        }
        self.state
    }

    /// `Initial` becomes `AwaitingInitiation` once the initiating message exists.
    pub(crate) fn initiation_created(&mut self) {
        if self.state == ProtocolState::Initial {
            self.state = ProtocolState::AwaitingInitiation;
        }
    }

    pub(crate) fn not_started(&self) -> bool {
        matches!(
            self.state,
            ProtocolState::Initial | ProtocolState::AwaitingInitiation
        )
    }
}

/// A reply to `message` sent by its (first) receiver.
pub(crate) fn reply_from_receiver(
    message: &FipaMessage,
    performative: Performative,
    content: impl Into<String>,
) -> FipaMessage {
    let mut builder = message.create_reply().content(content);
    if let Some(receiver) = message.receiver() {
        builder = builder.sender(receiver);
    }
    builder.assemble(performative)
}

/// Whether `response` answers `original` within one conversation and is one
/// of the performatives `answers` allows.
pub(crate) fn answers(
    original: &FipaMessage,
    response: &FipaMessage,
    allowed: &[Performative],
) -> bool {
    response.in_reply_to() == Some(original.reply_key())
        && response.conversation_id() == original.conversation_id()
        && allowed.contains(&response.performative())
}
