//! FIPA ACL messages, their string encoding, and FIPA conversation protocols,
//! without any networking. Re-exported as `tnsai_coordination::fipa`.
//!
//! - [`Performative`] and [`Category`]: the 22 FIPA communicative acts.
//! - [`FipaMessage`]: an ACL message with its builder, replies and factories;
//!   JSON through serde, the FIPA string encoding through `Display`/`FromStr`
//!   (module [`acl`]).
//! - [`RequestProtocol`], [`QueryProtocol`], [`SubscribeProtocol`],
//!   [`ContractNetProtocol`]: one conversation each, as a state machine over
//!   [`ProtocolState`] (module [`protocol`]).
//! - [`ContractNetNegotiation`]: the manager's side of a contract net with
//!   many contractors, for a transport to drive (module [`negotiation`]).
//!
//! ```
//! use tnsai_fipa::{ContractNetProtocol, FipaMessage, Performative, ProtocolState};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let m = FipaMessage::builder()
//!     .performative(Performative::Request)
//!     .sender("agent-1")
//!     .receiver("agent-2")
//!     .content("Please perform analysis")
//!     .protocol("fipa-request")
//!     .ontology("market-analysis")
//!     .reply_by(chrono::Utc::now() + chrono::Duration::minutes(5))
//!     .build()?;
//! let reply = m.create_reply().performative(Performative::Agree).sender("agent-2").content("ok").build()?;
//! assert_eq!(reply.in_reply_to(), m.reply_with());
//!
//! // The FIPA string encoding reads back to the same message.
//! let text = m.to_string();
//! assert!(text.starts_with("(request :sender (agent-identifier :name agent-1)"));
//! assert_eq!(text.parse::<FipaMessage>()?, m);
//!
//! let mut cnp = ContractNetProtocol::new();
//! let cfp = cnp.create_initial_message("manager", "translator", "Translate 500 pages");
//! cnp.process_message(&cfp);
//! let bid = cnp.create_proposal(&cfp, "2 days, 500 EUR");
//! cnp.process_message(&bid);
//! assert!(cnp.select_proposal("translator"));
//! let accept = cnp.create_acceptance(&bid);
//! cnp.process_message(&accept);
//! let done = cnp.create_response(&accept, Performative::Inform, "Translation delivered");
//! assert_eq!(cnp.process_message(&done), ProtocolState::CompletedSuccess);
//! assert_eq!(cnp.result(), Some("Translation delivered"));
//! # Ok(())
//! # }
//! ```

pub mod acl;
mod agent;
mod message;
pub mod negotiation;
mod performative;
pub mod protocol;

pub use acl::{AclError, parse_acl};
pub use agent::AgentIdentifier;
pub use message::{
    BuildError, ConversationId, DEFAULT_ENCODING, DEFAULT_LANGUAGE, FipaMessage,
    FipaMessageBuilder, MessageId,
};
pub use negotiation::{
    AgentName, ContractNetNegotiation, NegotiationError, NegotiationOutcome, NegotiationPhase,
    NegotiationReport, Proposal, ProposalEvaluator, evaluator,
};
pub use performative::{Category, Performative, UnknownPerformative};
pub use protocol::{
    CONTRACT_NET_PROTOCOL, ContractNetProtocol, ConversationProtocol, ProtocolState,
    QUERY_PROTOCOL, QueryProtocol, REQUEST_PROTOCOL, RequestProtocol, SUBSCRIBE_PROTOCOL,
    SubscribeProtocol,
};
