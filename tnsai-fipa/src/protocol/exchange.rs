//! The engine shared by the two-party protocols (request, query, subscribe):
//! one initiating message, then answers, where anything else is an error.

use chrono::{DateTime, Utc};

use super::ProtocolState;
use super::conversation::Conversation;
use crate::message::FipaMessage;
use crate::performative::Performative;

/// What an answer does: the next state and whether the participant has now agreed.
pub(super) type AnswerRule = fn(agreed: bool, Performative) -> Option<(ProtocolState, bool)>;

enum Move {
    Start,
    Cancel,
    Answer(ProtocolState, bool),
}

#[derive(Debug, Clone, Default)]
pub(super) struct Exchange {
    pub(super) conversation: Conversation,
    agreed: bool,
}

impl Exchange {
    fn next(&self, m: &FipaMessage, initiating: &[Performative], rule: AnswerRule) -> Option<Move> {
        let p = m.performative();
        if self.conversation.state().is_terminal() {
            None
        } else if self.conversation.not_started() {
            initiating.contains(&p).then_some(Move::Start)
        } else if p == Performative::Cancel {
            Some(Move::Cancel)
        } else {
            rule(self.agreed, p).map(|(state, agreed)| Move::Answer(state, agreed))
        }
    }

    pub(super) fn is_valid(
        &self,
        m: &FipaMessage,
        initiating: &[Performative],
        rule: AnswerRule,
    ) -> bool {
        self.next(m, initiating, rule).is_some()
    }

    pub(super) fn agreed(&self) -> bool {
        self.agreed
    }

    pub(super) fn process_at(
        &mut self,
        m: &FipaMessage,
        now: DateTime<Utc>,
        initiating: &[Performative],
        rule: AnswerRule,
    ) -> ProtocolState {
        let conversation = &self.conversation;
        if conversation.state().is_terminal() {
            return conversation.state();
        }
        if self.conversation.check_timeout(now).is_terminal() {
            return self.conversation.state();
        }
        let next = self.next(m, initiating, rule);
        self.conversation.record(m);
        match next {
            None => self.conversation.set_state(ProtocolState::Error),
            Some(Move::Start) => {
                self.conversation.set_state(ProtocolState::AwaitingResponse);
                self.conversation.set_deadline(m.reply_by());
                self.conversation.check_timeout(now);
            }
            Some(Move::Cancel) => {
                self.conversation.cancel();
            }
            Some(Move::Answer(state, agreed)) => {
                // The first answer in time meets the initiating message's reply_by.
                self.conversation.set_deadline(None);
                self.agreed = agreed;
                self.conversation.set_state(state);
            }
        }
        self.conversation.state()
    }
}

/// The inherent API and [`ConversationProtocol`](super::ConversationProtocol)
/// impl of a protocol built on [`Exchange`]; the type needs an `exchange`
/// field and the associated `INITIATING`, `ANSWERS` and `RULE` items.
macro_rules! exchange_protocol {
    ($ty:ident, $name:expr) => {
        impl $ty {
            /// A conversation in the `Initial` state.
            pub fn new() -> Self {
                Self::default()
            }

            /// The protocol's FIPA name.
            pub fn name(&self) -> &'static str {
                $name
            }

            /// The current state.
            pub fn state(&self) -> $crate::protocol::ProtocolState {
                self.exchange.conversation.state()
            }

            /// Feeds one message of the conversation (in either direction),
            /// checking deadlines against the current time; returns the new state.
            pub fn process_message(
                &mut self,
                message: &$crate::message::FipaMessage,
            ) -> $crate::protocol::ProtocolState {
                self.process_message_at(message, ::chrono::Utc::now())
            }

            /// [`process_message`](Self::process_message) with an explicit current time.
            pub fn process_message_at(
                &mut self,
                message: &$crate::message::FipaMessage,
                now: ::chrono::DateTime<::chrono::Utc>,
            ) -> $crate::protocol::ProtocolState {
                self.exchange
                    .process_at(message, now, Self::INITIATING, Self::RULE)
            }

            /// Moves to `TimedOut` if the pending `reply_by` lies before `now`.
            pub fn check_timeout(
                &mut self,
                now: ::chrono::DateTime<::chrono::Utc>,
            ) -> $crate::protocol::ProtocolState {
                self.exchange.conversation.check_timeout(now)
            }

            /// Calls the conversation off (`Cancelled`) unless it already ended.
            pub fn cancel(&mut self) -> $crate::protocol::ProtocolState {
                self.exchange.conversation.cancel()
            }

            /// See [`ProtocolState::is_complete`]($crate::protocol::ProtocolState::is_complete).
            pub fn is_complete(&self) -> bool {
                self.state().is_complete()
            }

            /// See [`ProtocolState::is_successful`]($crate::protocol::ProtocolState::is_successful).
            pub fn is_successful(&self) -> bool {
                self.state().is_successful()
            }

            /// Whether `message` is a legal next move in the current state
            /// (deadlines aside); an illegal one would move the state to `Error`.
            pub fn is_valid_message(&self, message: &$crate::message::FipaMessage) -> bool {
                self.exchange
                    .is_valid(message, Self::INITIATING, Self::RULE)
            }

            /// Whether `response` answers `original`: it quotes `original`'s
            /// `reply_with` (or id) in `in_reply_to`, shares its conversation id
            /// and is an answer this protocol allows to that performative.
            pub fn is_valid_response(
                &self,
                original: &$crate::message::FipaMessage,
                response: &$crate::message::FipaMessage,
            ) -> bool {
                let allowed: &[$crate::performative::Performative] =
                    if original.performative() == $crate::performative::Performative::Cancel {
                        &[
                            $crate::performative::Performative::Inform,
                            $crate::performative::Performative::Failure,
                        ]
                    } else if Self::INITIATING.contains(&original.performative()) {
                        Self::ANSWERS
                    } else {
                        &[]
                    };
                $crate::protocol::conversation::answers(original, response, allowed)
            }

            /// The messages processed so far, in order.
            pub fn history(&self) -> &[$crate::message::FipaMessage] {
                self.exchange.conversation.history()
            }

            /// The pending `reply_by` deadline, if any.
            pub fn deadline(&self) -> Option<::chrono::DateTime<::chrono::Utc>> {
                self.exchange.conversation.deadline()
            }

            /// A reply to `message` from its first receiver, with the given
            /// performative and content.
            pub fn create_response(
                &self,
                message: &$crate::message::FipaMessage,
                performative: $crate::performative::Performative,
                content: impl Into<String>,
            ) -> $crate::message::FipaMessage {
                $crate::protocol::conversation::reply_from_receiver(message, performative, content)
            }
        }

        impl $crate::protocol::ConversationProtocol for $ty {
            fn name(&self) -> &'static str {
                $name
            }

            fn state(&self) -> $crate::protocol::ProtocolState {
                $ty::state(self)
            }

            fn process_message_at(
                &mut self,
                message: &$crate::message::FipaMessage,
                now: ::chrono::DateTime<::chrono::Utc>,
            ) -> $crate::protocol::ProtocolState {
                $ty::process_message_at(self, message, now)
            }

            fn check_timeout(
                &mut self,
                now: ::chrono::DateTime<::chrono::Utc>,
            ) -> $crate::protocol::ProtocolState {
                $ty::check_timeout(self, now)
            }

            fn cancel(&mut self) -> $crate::protocol::ProtocolState {
                $ty::cancel(self)
            }

            fn is_valid_message(&self, message: &$crate::message::FipaMessage) -> bool {
                $ty::is_valid_message(self, message)
            }

            fn is_valid_response(
                &self,
                original: &$crate::message::FipaMessage,
                response: &$crate::message::FipaMessage,
            ) -> bool {
                $ty::is_valid_response(self, original, response)
            }

            fn history(&self) -> &[$crate::message::FipaMessage] {
                $ty::history(self)
            }

            fn deadline(&self) -> Option<::chrono::DateTime<::chrono::Utc>> {
                $ty::deadline(self)
            }
        }
    };
}

pub(super) use exchange_protocol;
