//! A contractor's bid as the negotiation recorded it.

use chrono::{DateTime, Utc};

use crate::message::FipaMessage;

/// An agent's name, as used to identify contractors.
pub type AgentName = String;

/// A `propose` received in time from a contractor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    contractor: AgentName,
    received_at: DateTime<Utc>,
    message: FipaMessage,
}

impl Proposal {
    pub(super) fn new(
        contractor: AgentName,
        received_at: DateTime<Utc>,
        message: FipaMessage,
    ) -> Self {
        Self {
            contractor,
            received_at,
            message,
        }
    }

    /// Who proposed.
    pub fn contractor(&self) -> &str {
        &self.contractor
    }

    /// The proposal's content (empty when the message had none).
    pub fn content(&self) -> &str {
        self.message.content().unwrap_or_default()
    }

    /// When the negotiation received it.
    pub fn received_at(&self) -> DateTime<Utc> {
        self.received_at
    }

    /// The `propose` message itself.
    pub fn message(&self) -> &FipaMessage {
        &self.message
    }

    /// The offered price: the user-defined parameter `X-price` if present,
    /// otherwise the whole content if it is a number (`"480"`, `" 99.5 "`).
    /// `None` when neither holds a finite number.
    ///
    /// Proposals whose content is prose (`"2 days, 500 EUR"`) should carry
    /// the price in `X-price`, which keeps the evaluation free of guesswork.
    pub fn price(&self) -> Option<f64> {
        let text = self
            .message
            .user_parameter("X-price")
            .unwrap_or_else(|| self.content());
        text.trim().parse::<f64>().ok().filter(|p| p.is_finite())
    }
}
