//! A transport-free contract-net negotiation, managed from the manager's side
//! with many contractors at once.
//!
//! [`ContractNetNegotiation`] makes the CFPs, takes the answers the caller
//! feeds it, knows when bidding is over, asks a [`ProposalEvaluator`] for
//! the winner, makes the accept and reject messages and records the
//! winner's result. Sending and receiving is left to the caller, such as a
//! `ProtocolManager::negotiate` that owns a transport:
//!
//! ```
//! use chrono::{Duration, Utc};
//! use tnsai_fipa::{evaluator, ContractNetNegotiation, FipaMessage, NegotiationOutcome, Performative};
//!
//! let start = Utc::now();
//! let mut n = ContractNetNegotiation::new(
//!     "manager", "Translate 500 pages", ["anna", "bob"], start + Duration::minutes(5))?;
//! let cfps: Vec<FipaMessage> = n.call_for_proposals(); // send these
//!
//! // Answers come back over the transport; here they are made up.
//! let bid = |cfp: &FipaMessage, price: &str| cfp.create_reply()
//!     .performative(Performative::Propose).sender(cfp.receiver().unwrap_or_default())
//!     .content("2 days").user_parameter("X-price", price).build();
//! n.receive(&bid(&cfps[0], "500")?, start + Duration::minutes(1))?;
//! n.receive(&bid(&cfps[1], "450")?, start + Duration::minutes(2))?;
//!
//! // Everyone answered, so bidding is over before the deadline.
//! let decisions = n.award(&evaluator::lowest_price(), start + Duration::minutes(2))?;
//! assert_eq!(decisions[0].performative(), Performative::AcceptProposal);
//! assert_eq!(decisions[0].receiver(), Some("bob"));
//! assert_eq!(decisions[1].performative(), Performative::RejectProposal);
//!
//! let done = decisions[0].create_reply().performative(Performative::Inform)
//!     .sender("bob").content("delivered").build()?;
//! n.receive(&done, start + Duration::hours(30))?;
//! assert_eq!(n.outcome(), Some(&NegotiationOutcome::Awarded {
//!     winner: "bob".into(), result: "delivered".into() }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Phases
//!
//! | phase | event | result |
//! |---|---|---|
//! | `Bidding` | `propose` / `refuse` / `not-understood` from a contractor, in time, first answer | recorded |
//! | `Bidding` | answer after the deadline | [`NegotiationError::LateMessage`] |
//! | `Bidding` | second answer from a contractor | [`NegotiationError::DuplicateAnswer`] |
//! | any | message from a non-contractor / other conversation / without sender | [`NegotiationError::UnknownContractor`] / [`NegotiationError::WrongConversation`] / [`NegotiationError::MissingSender`] |
//! | `Bidding` | [`award`](ContractNetNegotiation::award) before everyone answered and before the deadline | [`NegotiationError::BiddingOpen`] |
//! | `Bidding` | `award`, no proposals, all refused | `Concluded`, [`NegotiationOutcome::AllRefused`] |
//! | `Bidding` | `award`, no proposals, all answered, some not understood | `Concluded`, [`NegotiationOutcome::NoProposals`] |
//! | `Bidding` | `award`, no proposals, someone silent | `Concluded`, [`NegotiationOutcome::DeadlinePassed`] |
//! | `Bidding` | `award`, evaluator picks none | rejects for all; `Concluded`, [`NegotiationOutcome::NoAcceptableProposal`] |
//! | `Bidding` | `award`, evaluator picks a proposer | accept for it, rejects for the rest; `Awarded` |
//! | `Awarded` | `inform` from the winner | `Concluded`, [`NegotiationOutcome::Awarded`] |
//! | `Awarded` | `failure` from the winner | `Concluded`, [`NegotiationOutcome::FailedAfterAcceptance`] |
//! | `Awarded` | result deadline passed ([`check_timeout`](ContractNetNegotiation::check_timeout) or a late result) | `Concluded`, [`NegotiationOutcome::ResultDeadlinePassed`] |
//! | `Awarded` | result from another contractor | [`NegotiationError::NotAwarded`] |
//! | `Concluded` | anything else | [`NegotiationError::Concluded`] (late bids still get `LateMessage` / `DuplicateAnswer`) |

mod error;
pub mod evaluator;
mod outcome;
mod proposal;

use std::fmt;

use chrono::{DateTime, Utc};

use crate::message::{ConversationId, FipaMessage, to_millis};
use crate::performative::Performative::{
    self, AcceptProposal, Cfp, Failure, Inform, NotUnderstood, Propose, Refuse, RejectProposal,
};

pub use error::NegotiationError;
pub use evaluator::ProposalEvaluator;
pub use outcome::{NegotiationOutcome, NegotiationReport};
pub use proposal::{AgentName, Proposal};

/// Where a [`ContractNetNegotiation`] stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NegotiationPhase {
    /// CFPs are out; answers are taken until all arrived or the deadline passed.
    Bidding,
    /// A proposal was accepted; waiting for the winner's result.
    Awarded,
    /// The outcome is known.
    Concluded,
}

impl fmt::Display for NegotiationPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Bidding => "bidding",
            Self::Awarded => "waiting for the winner's result",
            Self::Concluded => "concluded",
        })
    }
}

#[derive(Debug, Clone)]
struct Contractor {
    name: AgentName,
    cfp: FipaMessage,
    answer: Option<Performative>,
}

/// The manager's side of a contract net with many contractors (see the
/// [module docs](self) for an example and the phase table).
///
/// All CFPs share one conversation id and carry the bidding deadline as
/// `reply_by`. Times are passed in by the caller, so the negotiation is
/// deterministic and testable.
#[derive(Debug, Clone)]
pub struct ContractNetNegotiation {
    manager: AgentName,
    task: String,
    conversation_id: ConversationId,
    deadline: DateTime<Utc>,
    result_deadline: Option<DateTime<Utc>>,
    contractors: Vec<Contractor>,
    proposals: Vec<Proposal>,
    phase: NegotiationPhase,
    acceptance: Option<(AgentName, FipaMessage)>,
    outcome: Option<NegotiationOutcome>,
    history: Vec<FipaMessage>,
}

impl ContractNetNegotiation {
    /// Starts a negotiation: one CFP for `task` per contractor, from
    /// `manager`, with `deadline` (kept to the millisecond) as `reply_by`.
    ///
    /// # Errors
    ///
    /// [`NegotiationError::NoContractors`], [`NegotiationError::DuplicateContractor`],
    /// or [`NegotiationError::InvalidCfp`] for a deadline outside the years 0000-9999.
    pub fn new<I>(
        manager: impl Into<String>,
        task: impl Into<String>,
        contractors: I,
        deadline: DateTime<Utc>,
    ) -> Result<Self, NegotiationError>
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        let manager = manager.into();
        let task = task.into();
        let conversation_id = ConversationId::random();
        let mut list: Vec<Contractor> = Vec::new();
        for name in contractors {
            let name: String = name.into();
            if list.iter().any(|c| c.name == name) {
                return Err(NegotiationError::DuplicateContractor { name });
            }
            let cfp = FipaMessage::builder()
                .performative(Cfp)
                .sender(manager.as_str())
                .receiver(name.as_str())
                .content(task.as_str())
                .protocol(crate::protocol::CONTRACT_NET_PROTOCOL)
                .conversation_id(conversation_id.as_str())
                .reply_by(deadline)
                .build()?;
            list.push(Contractor {
                name,
                cfp,
                answer: None,
            });
        }
        if list.is_empty() {
            return Err(NegotiationError::NoContractors);
        }
        let history = list.iter().map(|c| c.cfp.clone()).collect();
        Ok(Self {
            manager,
            task,
            conversation_id,
            deadline: to_millis(deadline),
            result_deadline: None,
            contractors: list,
            proposals: Vec::new(),
            phase: NegotiationPhase::Bidding,
            acceptance: None,
            outcome: None,
            history,
        })
    }

    /// Gives the winner until `deadline` to report its result: the accept
    /// message carries it as `reply_by`, and a result arriving later (or
    /// [`check_timeout`](Self::check_timeout) after it) ends the negotiation
    /// with [`NegotiationOutcome::ResultDeadlinePassed`]. Without it the
    /// winner may take as long as it needs.
    pub fn with_result_deadline(mut self, deadline: DateTime<Utc>) -> Self {
        self.result_deadline = Some(to_millis(deadline));
        self
    }

    /// The CFPs to send, one per contractor, in the order given.
    pub fn call_for_proposals(&self) -> Vec<FipaMessage> {
        self.contractors.iter().map(|c| c.cfp.clone()).collect()
    }

    /// The manager's name.
    pub fn manager(&self) -> &str {
        &self.manager
    }

    /// The task put out to tender.
    pub fn task(&self) -> &str {
        &self.task
    }

    /// The conversation id all messages share.
    pub fn conversation_id(&self) -> &ConversationId {
        &self.conversation_id
    }

    /// The bidding deadline.
    pub fn deadline(&self) -> DateTime<Utc> {
        self.deadline
    }

    /// The contractors, in the order given.
    pub fn contractors(&self) -> impl Iterator<Item = &str> {
        self.contractors.iter().map(|c| c.name.as_str())
    }

    /// The contractors that have not answered yet.
    pub fn pending(&self) -> impl Iterator<Item = &str> {
        self.contractors
            .iter()
            .filter(|c| c.answer.is_none())
            .map(|c| c.name.as_str())
    }

    /// The contractors that answered `refuse`.
    pub fn refused(&self) -> impl Iterator<Item = &str> {
        self.answered_with(Refuse)
    }

    /// The contractors that answered `not-understood`.
    pub fn not_understood(&self) -> impl Iterator<Item = &str> {
        self.answered_with(NotUnderstood)
    }

    fn answered_with(&self, performative: Performative) -> impl Iterator<Item = &str> {
        self.contractors
            .iter()
            .filter(move |c| c.answer == Some(performative))
            .map(|c| c.name.as_str())
    }

    /// The proposals received in time, in order of arrival.
    pub fn proposals(&self) -> &[Proposal] {
        &self.proposals
    }

    /// The current phase.
    pub fn phase(&self) -> NegotiationPhase {
        self.phase
    }

    /// The accepted contractor, once awarded.
    pub fn winner(&self) -> Option<&str> {
        self.acceptance.as_ref().map(|(name, _)| name.as_str())
    }

    /// The outcome, once concluded.
    pub fn outcome(&self) -> Option<&NegotiationOutcome> {
        self.outcome.as_ref()
    }

    /// Every message sent or taken so far, in order.
    pub fn history(&self) -> &[FipaMessage] {
        &self.history
    }

    /// Whether every contractor has answered the CFP.
    pub fn all_answered(&self) -> bool {
        self.contractors.iter().all(|c| c.answer.is_some())
    }

    /// Whether the bidding deadline lies before `now`.
    pub fn deadline_passed(&self, now: DateTime<Utc>) -> bool {
        now > self.deadline
    }

    /// Whether bidding is over at `now`: everyone answered or the deadline passed.
    pub fn is_bidding_closed(&self, now: DateTime<Utc>) -> bool {
        self.phase != NegotiationPhase::Bidding || self.all_answered() || self.deadline_passed(now)
    }

    /// The outcome and the full record, once concluded.
    pub fn report(&self) -> Option<NegotiationReport> {
        Some(NegotiationReport {
            outcome: self.outcome.clone()?,
            conversation_id: self.conversation_id.clone(),
            proposals: self.proposals.clone(),
            history: self.history.clone(),
        })
    }

    /// Takes one message from a contractor, received at `now`, and returns the
    /// phase afterwards.
    ///
    /// # Errors
    ///
    /// The message is turned down, and nothing changes, when it belongs to
    /// another conversation, has no sender or an unknown one, answers the CFP
    /// a second time or after the deadline, quotes the wrong message in
    /// `in_reply_to`, has a performative that does not fit the phase, or
    /// reports a result without having won. See [`NegotiationError`].
    pub fn receive(
        &mut self,
        message: &FipaMessage,
        now: DateTime<Utc>,
    ) -> Result<NegotiationPhase, NegotiationError> {
        if message.conversation_id() != &self.conversation_id {
            return Err(NegotiationError::WrongConversation {
                expected: self.conversation_id.clone(),
                found: message.conversation_id().clone(),
            });
        }
        let sender = message.sender().ok_or(NegotiationError::MissingSender)?;
        let index = self
            .contractors
            .iter()
            .position(|c| c.name == sender)
            .ok_or_else(|| NegotiationError::UnknownContractor {
                name: sender.to_owned(),
            })?;
        let performative = message.performative();
        if matches!(performative, Propose | Refuse | NotUnderstood) {
            self.take_answer(index, message, now)?;
        } else if matches!(performative, Inform | Failure) {
            self.take_result(sender, message, now)?;
        } else {
            return Err(NegotiationError::UnexpectedPerformative {
                contractor: sender.to_owned(),
                performative,
                phase: self.phase,
            });
        }
        Ok(self.phase)
    }

    fn take_answer(
        &mut self,
        index: usize,
        message: &FipaMessage,
        now: DateTime<Utc>,
    ) -> Result<(), NegotiationError> {
        let contractor = &self.contractors[index];
        if contractor.answer.is_some() {
            return Err(NegotiationError::DuplicateAnswer {
                contractor: contractor.name.clone(),
            });
        }
        if self.phase != NegotiationPhase::Bidding || self.deadline_passed(now) {
            return Err(NegotiationError::LateMessage {
                contractor: contractor.name.clone(),
                deadline: self.deadline,
                received_at: now,
            });
        }
        check_reply(&contractor.name, &contractor.cfp, message)?;
        let name = contractor.name.clone();
        self.contractors[index].answer = Some(message.performative());
        if message.performative() == Propose {
            self.proposals
                .push(Proposal::new(name, now, message.clone()));
        }
        self.history.push(message.clone());
        Ok(())
    }

    fn take_result(
        &mut self,
        sender: &str,
        message: &FipaMessage,
        now: DateTime<Utc>,
    ) -> Result<(), NegotiationError> {
        if self.phase == NegotiationPhase::Awarded {
            self.check_timeout(now);
        }
        let Some((winner, accept)) = &self.acceptance else {
            return Err(match self.phase {
                NegotiationPhase::Concluded => NegotiationError::Concluded,
                _ => NegotiationError::UnexpectedPerformative {
                    contractor: sender.to_owned(),
                    performative: message.performative(),
                    phase: self.phase,
                },
            });
        };
        if winner != sender {
            return Err(NegotiationError::NotAwarded {
                contractor: sender.to_owned(),
            });
        }
        if self.phase == NegotiationPhase::Concluded {
            return match (self.result_deadline, &self.outcome) {
                (Some(deadline), Some(NegotiationOutcome::ResultDeadlinePassed { .. })) => {
                    Err(NegotiationError::LateMessage {
                        contractor: sender.to_owned(),
                        deadline,
                        received_at: now,
                    })
                }
                _ => Err(NegotiationError::Concluded),
            };
        }
        check_reply(winner, accept, message)?;
        let winner = winner.clone();
        let text = message.content().unwrap_or_default().to_owned();
        self.outcome = Some(if message.performative() == Inform {
            NegotiationOutcome::Awarded {
                winner,
                result: text,
            }
        } else {
            NegotiationOutcome::FailedAfterAcceptance {
                winner,
                reason: text,
            }
        });
        self.phase = NegotiationPhase::Concluded;
        self.history.push(message.clone());
        Ok(())
    }

    /// Ends an awarded negotiation whose result deadline lies before `now`
    /// with [`NegotiationOutcome::ResultDeadlinePassed`]; returns the outcome
    /// if concluded.
    pub fn check_timeout(&mut self, now: DateTime<Utc>) -> Option<&NegotiationOutcome> {
        if self.phase == NegotiationPhase::Awarded
            && self.result_deadline.is_some_and(|deadline| now > deadline)
            && let Some((winner, _)) = &self.acceptance
        {
            self.outcome = Some(NegotiationOutcome::ResultDeadlinePassed {
                winner: winner.clone(),
            });
            self.phase = NegotiationPhase::Concluded;
        }
        self.outcome.as_ref()
    }

    /// Closes bidding and decides, at `now`: asks `evaluator` to pick among
    /// the proposals and returns the messages to send, the `accept-proposal`
    /// for the winner first, then a `reject-proposal` for every other
    /// proposer. With no proposals, or none picked, the negotiation concludes
    /// (see the phase table); the returned list then holds only rejections,
    /// or nothing.
    ///
    /// # Errors
    ///
    /// [`NegotiationError::BiddingOpen`] while contractors may still answer,
    /// [`NegotiationError::AlreadyAwarded`] / [`NegotiationError::Concluded`]
    /// after the decision, [`NegotiationError::InvalidSelection`] when the
    /// evaluator names an agent that did not propose (nothing changes, so
    /// `award` can be called again with another evaluator).
    pub fn award<E>(
        &mut self,
        evaluator: &E,
        now: DateTime<Utc>,
    ) -> Result<Vec<FipaMessage>, NegotiationError>
    where
        E: ProposalEvaluator + ?Sized,
    {
        match self.phase {
            NegotiationPhase::Bidding => {}
            NegotiationPhase::Awarded => return Err(NegotiationError::AlreadyAwarded),
            NegotiationPhase::Concluded => return Err(NegotiationError::Concluded),
        }
        if !self.is_bidding_closed(now) {
            return Err(NegotiationError::BiddingOpen {
                pending: self.pending().count(),
                deadline: self.deadline,
            });
        }
        if self.proposals.is_empty() {
            self.conclude(self.no_proposal_outcome());
            return Ok(Vec::new());
        }
        let choice = evaluator.select(&self.proposals);
        if let Some(name) = &choice
            && !self.proposals.iter().any(|p| p.contractor() == name)
        {
            return Err(NegotiationError::InvalidSelection { name: name.clone() });
        }
        let mut decisions = Vec::with_capacity(self.proposals.len());
        if let Some(winner) = &choice
            && let Some(proposal) = self.proposals.iter().find(|p| p.contractor() == winner)
        {
            let mut accept = proposal
                .message()
                .create_reply()
                .sender(self.manager.as_str())
                .content(proposal.content());
            if let Some(deadline) = self.result_deadline {
                accept = accept.reply_by(deadline);
            }
            let accept = accept.assemble(AcceptProposal);
            self.acceptance = Some((winner.clone(), accept.clone()));
            decisions.push(accept);
        }
        for proposal in &self.proposals {
            if Some(proposal.contractor()) != choice.as_deref() {
                decisions.push(
                    proposal
                        .message()
                        .create_reply()
                        .sender(self.manager.as_str())
                        .content("another proposal was accepted")
                        .assemble(RejectProposal),
                );
            }
        }
        self.history.extend(decisions.iter().cloned());
        if choice.is_some() {
            self.phase = NegotiationPhase::Awarded;
        } else {
            self.conclude(NegotiationOutcome::NoAcceptableProposal {
                rejected: decisions.len(),
            });
        }
        Ok(decisions)
    }

    fn no_proposal_outcome(&self) -> NegotiationOutcome {
        if !self.all_answered() {
            NegotiationOutcome::DeadlinePassed {
                silent: self.pending().map(str::to_owned).collect(),
            }
        } else if self.contractors.iter().all(|c| c.answer == Some(Refuse)) {
            NegotiationOutcome::AllRefused
        } else {
            NegotiationOutcome::NoProposals {
                refused: self.refused().map(str::to_owned).collect(),
                not_understood: self.not_understood().map(str::to_owned).collect(),
            }
        }
    }

    fn conclude(&mut self, outcome: NegotiationOutcome) {
        self.outcome = Some(outcome);
        self.phase = NegotiationPhase::Concluded;
    }
}

/// A reply must quote the message it answers, if it quotes anything.
fn check_reply(
    contractor: &str,
    original: &FipaMessage,
    reply: &FipaMessage,
) -> Result<(), NegotiationError> {
    match reply.in_reply_to() {
        Some(quoted) if quoted != original.reply_key() => Err(NegotiationError::UnrelatedReply {
            contractor: contractor.to_owned(),
            in_reply_to: quoted.to_owned(),
        }),
        _ => Ok(()),
    }
}
