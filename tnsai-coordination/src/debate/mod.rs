//! Debates: rounds of positions scored by a consensus strategy.
//!
//! The initiator's `#[debate]` attribute sets a session's rules (strategy, threshold,
//! rounds, round timeout). Participants are the listed agents (the initiator only when
//! listed); each takes at most one position per round, through its own
//! [`ProtocolManager`](crate::ProtocolManager). A round ends when every participant has
//! a position, or when `round_timeout_ms` has passed and it holds at least one. Stances
//! compare trimmed and ignoring case, and a session reports the first spelling seen.
//! [`DebateScorer`] judges each round; after `max_rounds` rounds without consensus the
//! debate is a deadlock whose decision is the last round's leader, or
//! [`NO_CLEAR_POSITION`] when that round had none. Votes and counter-arguments are
//! recorded and shown, never scored. `Consensus`, `Deadlock` and `Cancelled` are final.

mod events;
pub(crate) mod handler;
mod scoring;
mod session;

pub use events::{DebateEvent, DebateEvents};
pub use scoring::{
    CONFIDENCE_RANGE, DebateScorer, NO_CLEAR_POSITION, RoundTally, StanceSupport, clamp_confidence,
    stance_key,
};
pub use session::{
    CounterArgument, DebatePosition, DebateSession, DebateStatus, DebateVote, RoundEnd,
    RoundSummary,
};
