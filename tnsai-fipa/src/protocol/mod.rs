//! FIPA interaction protocols as transport-free state machines.
//!
//! Each protocol object follows one conversation: feed it the messages of
//! that conversation (both directions) and read its [`ProtocolState`]. The
//! transition table of each protocol is on its type. Routing messages to the
//! right conversation (by conversation id) is the caller's job; the
//! protocols judge messages by performative, sender and receiver.
//!
//! Deadlines come from `reply_by`: `process_message` compares them with the
//! current time, `process_message_at` and `check_timeout` with a given one.

mod contract_net;
mod conversation;
mod exchange;
mod query;
mod request;
mod state;
mod subscribe;

use chrono::{DateTime, Utc};

use crate::message::FipaMessage;

pub use contract_net::ContractNetProtocol;
pub use query::QueryProtocol;
pub use request::RequestProtocol;
pub use state::ProtocolState;
pub use subscribe::SubscribeProtocol;

/// `fipa-request`.
pub const REQUEST_PROTOCOL: &str = "fipa-request";
/// `fipa-query`.
pub const QUERY_PROTOCOL: &str = "fipa-query";
/// `fipa-subscribe`.
pub const SUBSCRIBE_PROTOCOL: &str = "fipa-subscribe";
/// `fipa-contract-net`.
pub const CONTRACT_NET_PROTOCOL: &str = "fipa-contract-net";

/// What every conversation protocol offers, for code that handles several.
///
/// Each protocol type also has these as inherent methods, so they can be
/// called without importing this trait.
pub trait ConversationProtocol {
    /// The protocol's FIPA name, e.g. `fipa-request`.
    fn name(&self) -> &'static str;

    /// The current state.
    fn state(&self) -> ProtocolState;

    /// Feeds one message at time `now`; returns the new state.
    fn process_message_at(&mut self, message: &FipaMessage, now: DateTime<Utc>) -> ProtocolState;

    /// Feeds one message at the current time; returns the new state.
    fn process_message(&mut self, message: &FipaMessage) -> ProtocolState {
        self.process_message_at(message, Utc::now())
    }

    /// Applies a passed deadline at `now`.
    fn check_timeout(&mut self, now: DateTime<Utc>) -> ProtocolState;

    /// Calls the conversation off unless it already ended.
    fn cancel(&mut self) -> ProtocolState;

    /// Whether `message` would be taken as the next move.
    fn is_valid_message(&self, message: &FipaMessage) -> bool;

    /// Whether `response` is a legal answer to `original` in this protocol.
    fn is_valid_response(&self, original: &FipaMessage, response: &FipaMessage) -> bool;

    /// The messages taken so far, in order.
    fn history(&self) -> &[FipaMessage];

    /// The pending `reply_by` deadline.
    fn deadline(&self) -> Option<DateTime<Utc>>;

    /// See [`ProtocolState::is_complete`].
    fn is_complete(&self) -> bool {
        self.state().is_complete()
    }

    /// See [`ProtocolState::is_successful`].
    fn is_successful(&self) -> bool {
        self.state().is_successful()
    }
}
