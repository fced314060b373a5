//! How a negotiation ended, and its record.

use crate::message::{ConversationId, FipaMessage};

use super::proposal::{AgentName, Proposal};

/// How a contract-net negotiation ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NegotiationOutcome {
    /// The winner was accepted and reported success (`inform`).
    Awarded {
        /// The contractor.
        winner: AgentName,
        /// The content of its `inform`.
        result: String,
    },
    /// The winner was accepted and then reported `failure`.
    FailedAfterAcceptance {
        /// The contractor.
        winner: AgentName,
        /// The content of its `failure`.
        reason: String,
    },
    /// The winner was accepted but sent no result before the result deadline.
    ResultDeadlinePassed {
        /// The contractor.
        winner: AgentName,
    },
    /// Proposals arrived but the evaluator found none acceptable; all were rejected.
    NoAcceptableProposal {
        /// How many proposals were rejected.
        rejected: usize,
    },
    /// Every contractor answered, none proposed, and at least one did not
    /// understand the call (otherwise the outcome is `AllRefused`).
    NoProposals {
        /// Contractors that refused.
        refused: Vec<AgentName>,
        /// Contractors that answered `not-understood`.
        not_understood: Vec<AgentName>,
    },
    /// Every contractor refused.
    AllRefused,
    /// The bidding deadline passed without a single proposal.
    DeadlinePassed {
        /// Contractors that never answered.
        silent: Vec<AgentName>,
    },
}

impl NegotiationOutcome {
    /// True only for [`NegotiationOutcome::Awarded`].
    pub fn is_success(&self) -> bool {
        matches!(self, Self::Awarded { .. })
    }

    /// The accepted contractor, for the outcomes that have one.
    pub fn winner(&self) -> Option<&str> {
        match self {
            Self::Awarded { winner, .. }
            | Self::FailedAfterAcceptance { winner, .. }
            | Self::ResultDeadlinePassed { winner } => Some(winner),
            _ => None,
        }
    }
}

/// The outcome of a concluded negotiation with everything that led to it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NegotiationReport {
    /// How it ended.
    pub outcome: NegotiationOutcome,
    /// The conversation all its messages share.
    pub conversation_id: ConversationId,
    /// The proposals received in time, in order of arrival.
    pub proposals: Vec<Proposal>,
    /// Every message sent or taken, in order: the CFPs, the answers taken,
    /// the accept and reject messages, and the winner's result.
    pub history: Vec<FipaMessage>,
}
