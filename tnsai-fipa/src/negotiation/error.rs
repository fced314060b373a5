//! Why the negotiation turned a message or a call down.

use chrono::{DateTime, Utc};

use super::NegotiationPhase;
use crate::message::{BuildError, ConversationId};
use crate::performative::Performative;

/// A message or call the negotiation does not accept. Nothing changes when
/// one is returned, so the caller can log it and go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NegotiationError {
    /// [`ContractNetNegotiation::new`](super::ContractNetNegotiation::new) got no contractors.
    #[error("a negotiation needs at least one contractor")]
    NoContractors,
    /// A contractor was listed twice.
    #[error("contractor `{name}` is listed twice")]
    DuplicateContractor {
        /// The repeated name.
        name: String,
    },
    /// The CFPs could not be built (e.g. a deadline past the year 9999).
    #[error("cannot build the calls for proposals: {0}")]
    InvalidCfp(#[from] BuildError),
    /// The message belongs to another conversation.
    #[error("message belongs to conversation `{found}`, not `{expected}`")]
    WrongConversation {
        /// This negotiation's conversation id.
        expected: ConversationId,
        /// The message's conversation id.
        found: ConversationId,
    },
    /// The message does not say who sent it.
    #[error("message has no sender")]
    MissingSender,
    /// The sender is not one of the contractors.
    #[error("`{name}` is not a contractor of this negotiation")]
    UnknownContractor {
        /// The sender.
        name: String,
    },
    /// The contractor already proposed, refused or did not understand.
    #[error("contractor `{contractor}` already answered the call for proposals")]
    DuplicateAnswer {
        /// The contractor.
        contractor: String,
    },
    /// The answer arrived after its deadline.
    #[error("message from `{contractor}` arrived at {received_at}, after the deadline {deadline}")]
    LateMessage {
        /// The contractor.
        contractor: String,
        /// The deadline it missed.
        deadline: DateTime<Utc>,
        /// When it arrived.
        received_at: DateTime<Utc>,
    },
    /// The message's `in_reply_to` does not quote the message it should answer.
    #[error(
        "message from `{contractor}` answers `{in_reply_to}`, which is not the message sent to it"
    )]
    UnrelatedReply {
        /// The contractor.
        contractor: String,
        /// What the message quoted.
        in_reply_to: String,
    },
    /// The performative makes no sense at this point of the negotiation.
    #[error("`{performative}` from `{contractor}` is not expected while {phase}")]
    UnexpectedPerformative {
        /// The contractor.
        contractor: String,
        /// The performative received.
        performative: Performative,
        /// Where the negotiation stood.
        phase: NegotiationPhase,
    },
    /// A result came from a contractor whose proposal was not accepted.
    #[error("`{contractor}` reported a result but was not awarded the contract")]
    NotAwarded {
        /// The contractor.
        contractor: String,
    },
    /// The negotiation already has its outcome.
    #[error("the negotiation has concluded")]
    Concluded,
    /// `award` was called while contractors may still answer.
    #[error("bidding is open until {deadline}: {pending} contractor(s) have not answered")]
    BiddingOpen {
        /// How many contractors have not answered.
        pending: usize,
        /// When bidding closes.
        deadline: DateTime<Utc>,
    },
    /// `award` was called after the award was made.
    #[error("the contract has already been awarded")]
    AlreadyAwarded,
    /// The evaluator chose an agent that made no proposal.
    #[error("the evaluator chose `{name}`, who made no proposal")]
    InvalidSelection {
        /// The chosen name.
        name: String,
    },
}
