//! The FIPA Contract Net Interaction Protocol (FIPA SC00029), as seen by one
//! conversation object that observes every message in both directions.

use chrono::{DateTime, Utc};

use super::ProtocolState;
use super::conversation::{Conversation, answers, reply_from_receiver};
use crate::message::FipaMessage;
use crate::performative::Performative::{
    self, AcceptProposal, Cancel, Cfp, Failure, Inform, NotUnderstood, Propose, Refuse,
    RejectProposal,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Phase {
    #[default]
    Idle,
    Bidding,
    Awarded,
}

enum Move {
    Start,
    Bid,
    Decline(String),
    Accept(String),
    Reject(String),
    Outcome(bool),
    Cancel,
    Ignore,
}

/// One run of `fipa-contract-net`: a manager calls for proposals, bidders
/// propose or refuse, the manager accepts one proposal (rejecting others) and
/// the chosen contractor reports the result.
///
/// The object follows the whole conversation: feed it every message, from
/// either side, through [`process_message`](Self::process_message). For a
/// manager talking to many contractors at once under one deadline, see
/// [`ContractNetNegotiation`](crate::ContractNetNegotiation).
///
/// Bidders are the CFP's receivers; a CFP without receivers (broadcast) lets
/// anyone bid. Every proposal must name its sender, which is how
/// [`select_proposal`](Self::select_proposal) finds it:
/// [`create_proposal`](Self::create_proposal) takes the sender from the CFP's
/// first receiver, [`create_proposal_from`](Self::create_proposal_from) takes
/// it explicitly (needed for a broadcast CFP or for the other receivers).
///
/// | from | event | to |
/// |---|---|---|
/// | `Initial` | [`create_initial_message`](Self::create_initial_message) | `AwaitingInitiation` |
/// | `Initial`, `AwaitingInitiation` | `cfp` | `AwaitingResponse` (bidding; its `reply_by` is the bidding deadline) |
/// | `AwaitingResponse`, `Negotiating` (bidding) | `propose` from a bidder | `Negotiating` |
/// | bidding | `refuse` / `not-understood` from a bidder | unchanged, or `CompletedFailure` once every named bidder answered and no proposal is left unrejected |
/// | `Negotiating` | `reject-proposal` to a proposer | `Negotiating`, or `CompletedFailure` when bidding is over and every proposal is rejected |
/// | `Negotiating` | `accept-proposal` to a proposer | `AwaitingResponse` (awarded; its `reply_by` is the result deadline) |
/// | `AwaitingResponse` (awarded) | `inform` from the contractor | `CompletedSuccess`, [`result`](Self::result) = its content |
/// | `AwaitingResponse` (awarded) | `failure` from the contractor | `CompletedFailure` |
/// | `AwaitingResponse` (awarded) | `reject-proposal` to another proposer | unchanged |
/// | bidding | deadline passed, no proposal | `TimedOut` |
/// | bidding | deadline passed, proposals in | unchanged and bidding closes, or `CompletedFailure` if all are rejected |
/// | awarded | result deadline passed | `TimedOut` |
/// | any started, non-terminal | `cancel`, or [`cancel()`](Self::cancel) | `Cancelled` |
/// | bidding closed, or awarded | `propose` / `refuse` / `not-understood`, or a bidder's second answer, or one from a non-bidder or without sender | unchanged (ignored, not recorded) |
/// | awarded | `inform` / `failure` from anyone but the contractor | unchanged (ignored) |
/// | any non-terminal | any other message (e.g. `accept-proposal` to an agent that did not propose) | `Error` |
/// | terminal | anything | unchanged (ignored) |
///
/// Deadlines are checked against the current time by `process_message`, or
/// an explicit time by [`process_message_at`](Self::process_message_at) and
/// [`check_timeout`](Self::check_timeout).
#[derive(Debug, Clone, Default)]
pub struct ContractNetProtocol {
    conversation: Conversation,
    phase: Phase,
    initiator: Option<String>,
    participants: Vec<String>,
    proposals: Vec<FipaMessage>,
    declined: Vec<String>,
    rejected: Vec<String>,
    selected: Option<String>,
    contractor: Option<String>,
    result: Option<String>,
    failure_reason: Option<String>,
    bidding_closed: bool,
}

impl ContractNetProtocol {
    /// A conversation in the `Initial` state.
    pub fn new() -> Self {
        Self::default()
    }

    /// `"fipa-contract-net"`.
    pub fn name(&self) -> &'static str {
        super::CONTRACT_NET_PROTOCOL
    }

    /// The current state.
    pub fn state(&self) -> ProtocolState {
        self.conversation.state()
    }

    /// A `cfp` from `manager` to `contractor` for `task`; moves `Initial` to
    /// `AwaitingInitiation`. Set a bidding deadline by rebuilding it with
    /// `reply_by` (see [`FipaMessage::into_builder`]).
    pub fn create_initial_message(
        &mut self,
        manager: impl Into<String>,
        contractor: impl Into<String>,
        task: impl Into<String>,
    ) -> FipaMessage {
        self.conversation.initiation_created();
        FipaMessage::cfp(manager, contractor, task)
    }

    /// A `propose` answering `cfp`, sent by the CFP's first receiver. A CFP
    /// without receivers gives a proposal without sender, which cannot be
    /// selected: use [`create_proposal_from`](Self::create_proposal_from).
    pub fn create_proposal(&self, cfp: &FipaMessage, content: impl Into<String>) -> FipaMessage {
        reply_from_receiver(cfp, Propose, content)
    }

    /// A `propose` answering `cfp`, sent by `proposer`.
    pub fn create_proposal_from(
        &self,
        cfp: &FipaMessage,
        proposer: impl Into<String>,
        content: impl Into<String>,
    ) -> FipaMessage {
        cfp.create_reply()
            .sender(proposer)
            .content(content)
            .assemble(Propose)
    }

    /// A `refuse` answering `cfp`, sent by `bidder`.
    pub fn create_refusal_from(
        &self,
        cfp: &FipaMessage,
        bidder: impl Into<String>,
        reason: impl Into<String>,
    ) -> FipaMessage {
        cfp.create_reply()
            .sender(bidder)
            .content(reason)
            .assemble(Refuse)
    }

    /// An `accept-proposal` for `proposal`, from the manager, quoting the
    /// proposal's content.
    pub fn create_acceptance(&self, proposal: &FipaMessage) -> FipaMessage {
        self.manager_reply(
            proposal,
            AcceptProposal,
            proposal.content().unwrap_or_default(),
        )
    }

    /// A `reject-proposal` for `proposal`, from the manager.
    pub fn create_rejection(
        &self,
        proposal: &FipaMessage,
        reason: impl Into<String>,
    ) -> FipaMessage {
        self.manager_reply(proposal, RejectProposal, reason)
    }

    fn manager_reply(
        &self,
        proposal: &FipaMessage,
        performative: Performative,
        content: impl Into<String>,
    ) -> FipaMessage {
        let mut builder = proposal.create_reply().content(content);
        if let Some(manager) = proposal.receiver().or(self.initiator.as_deref()) {
            builder = builder.sender(manager);
        }
        builder.assemble(performative)
    }

    /// A reply to `message` from its first receiver, e.g. the contractor's
    /// `inform` or `failure` answering an `accept-proposal`.
    pub fn create_response(
        &self,
        message: &FipaMessage,
        performative: Performative,
        content: impl Into<String>,
    ) -> FipaMessage {
        reply_from_receiver(message, performative, content)
    }

    /// Marks the proposal of `proposer` as the one to accept. False when no
    /// open proposal from `proposer` exists or the contract is already awarded.
    pub fn select_proposal(&mut self, proposer: &str) -> bool {
        let open = self.phase == Phase::Bidding
            && !self.conversation.state().is_terminal()
            && self.proposal_from(proposer).is_some()
            && !self.rejected.iter().any(|r| r == proposer);
        if open {
            self.selected = Some(proposer.to_owned());
        }
        open
    }

    /// The proposer chosen by [`select_proposal`](Self::select_proposal) or by
    /// an accepted proposal.
    pub fn selected(&self) -> Option<&str> {
        self.selected.as_deref()
    }

    /// The contractor whose proposal was accepted.
    pub fn contractor(&self) -> Option<&str> {
        self.contractor.as_deref()
    }

    /// The proposals received, in order of arrival.
    pub fn proposals(&self) -> &[FipaMessage] {
        &self.proposals
    }

    /// The proposal sent by `proposer`.
    pub fn proposal_from(&self, proposer: &str) -> Option<&FipaMessage> {
        self.proposals.iter().find(|p| p.sender() == Some(proposer))
    }

    /// The bidders that refused or did not understand.
    pub fn declined(&self) -> &[String] {
        &self.declined
    }

    /// The bidders named by the CFP (empty for a broadcast CFP).
    pub fn participants(&self) -> &[String] {
        &self.participants
    }

    /// The content of the contractor's `inform`, once the protocol succeeded.
    pub fn result(&self) -> Option<&str> {
        self.result.as_deref()
    }

    /// The content of the contractor's `failure`.
    pub fn failure_reason(&self) -> Option<&str> {
        self.failure_reason.as_deref()
    }

    /// Whether new proposals are still taken (bidding, deadline not passed,
    /// not every named bidder answered).
    pub fn is_bidding_open(&self) -> bool {
        self.phase == Phase::Bidding
            && !self.conversation.state().is_terminal()
            && !self.bidding_over()
    }

    /// Feeds one message of the conversation, checking deadlines against the
    /// current time; returns the new state.
    pub fn process_message(&mut self, message: &FipaMessage) -> ProtocolState {
        self.process_message_at(message, Utc::now())
    }

    /// [`process_message`](Self::process_message) with an explicit current time.
    pub fn process_message_at(
        &mut self,
        message: &FipaMessage,
        now: DateTime<Utc>,
    ) -> ProtocolState {
        if self.check_timeout(now).is_terminal() {
            return self.state();
        }
        let Some(next) = self.classify(message) else {
            self.conversation.record(message);
            self.conversation.set_state(ProtocolState::Error);
            return self.state();
        };
        if matches!(next, Move::Ignore) {
            return self.state();
        }
        self.conversation.record(message);
        match next {
            Move::Start => {
                self.initiator = message.sender().map(str::to_owned);
                self.participants = message.receivers().into_iter().map(str::to_owned).collect();
                self.phase = Phase::Bidding;
                self.conversation.set_state(ProtocolState::AwaitingResponse);
                self.conversation.set_deadline(message.reply_by());
                self.check_timeout(now);
            }
            Move::Bid => {
                self.proposals.push(message.clone());
                self.conversation.set_state(ProtocolState::Negotiating);
            }
            Move::Decline(bidder) => {
                self.declined.push(bidder);
                if self.all_answered() && self.no_open_proposal() {
                    self.conversation.set_state(ProtocolState::CompletedFailure);
                }
            }
            Move::Reject(proposer) => {
                self.rejected.push(proposer);
                if self.phase == Phase::Bidding && self.bidding_over() && self.no_open_proposal() {
                    self.conversation.set_state(ProtocolState::CompletedFailure);
                }
            }
            Move::Accept(proposer) => {
                self.selected = Some(proposer.clone());
                self.contractor = Some(proposer);
                self.phase = Phase::Awarded;
                self.conversation.set_state(ProtocolState::AwaitingResponse);
                self.conversation.set_deadline(message.reply_by());
                self.check_timeout(now);
            }
            Move::Outcome(success) => {
                let content = message.content().map(str::to_owned);
                if success {
                    self.result = content;
                    self.conversation.set_state(ProtocolState::CompletedSuccess);
                } else {
                    self.failure_reason = content;
                    self.conversation.set_state(ProtocolState::CompletedFailure);
                }
            }
            Move::Cancel => {
                self.conversation.cancel();
            }
            Move::Ignore => {}
        }
        self.state()
    }

    /// Applies the deadline at `now`: bidding with no proposal, or an awarded
    /// contract without result, moves to `TimedOut`; bidding with proposals
    /// just closes.
    pub fn check_timeout(&mut self, now: DateTime<Utc>) -> ProtocolState {
        if self.state().is_terminal() || !self.conversation.deadline_passed(now) {
            return self.state();
        }
        if self.phase == Phase::Bidding && !self.proposals.is_empty() {
            self.bidding_closed = true;
            self.conversation.set_deadline(None);
            if self.no_open_proposal() {
                self.conversation.set_state(ProtocolState::CompletedFailure);
            }
            return self.state();
        }
        self.conversation.check_timeout(now)
    }

    /// Calls the conversation off (`Cancelled`) unless it already ended.
    pub fn cancel(&mut self) -> ProtocolState {
        self.conversation.cancel()
    }

    /// See [`ProtocolState::is_complete`].
    pub fn is_complete(&self) -> bool {
        self.state().is_complete()
    }

    /// See [`ProtocolState::is_successful`].
    pub fn is_successful(&self) -> bool {
        self.state().is_successful()
    }

    /// Whether `message` would be taken as the next move (deadlines aside):
    /// false both for messages that would move to `Error` and for ignored ones.
    pub fn is_valid_message(&self, message: &FipaMessage) -> bool {
        !matches!(self.classify(message), None | Some(Move::Ignore))
    }

    /// Whether `response` answers `original`: it quotes `original`'s
    /// `reply_with` (or id), shares its conversation id and is a legal answer
    /// (cfp: propose, refuse, not-understood; propose: accept-proposal,
    /// reject-proposal; accept-proposal and cancel: inform, failure).
    pub fn is_valid_response(&self, original: &FipaMessage, response: &FipaMessage) -> bool {
        let allowed: &[Performative] = match original.performative() {
            Cfp => &[Propose, Refuse, NotUnderstood],
            Propose => &[AcceptProposal, RejectProposal],
            AcceptProposal | Cancel => &[Inform, Failure],
            _ => &[],
        };
        answers(original, response, allowed)
    }

    /// The messages taken so far, in order (ignored ones are not kept).
    pub fn history(&self) -> &[FipaMessage] {
        self.conversation.history()
    }

    /// The pending deadline: bidding's, then the result's.
    pub fn deadline(&self) -> Option<DateTime<Utc>> {
        self.conversation.deadline()
    }

    fn may_bid(&self, bidder: &str) -> bool {
        self.participants.is_empty() || self.participants.iter().any(|p| p == bidder)
    }

    fn has_answered(&self, bidder: &str) -> bool {
        self.proposal_from(bidder).is_some() || self.declined.iter().any(|d| d == bidder)
    }

    fn all_answered(&self) -> bool {
        !self.participants.is_empty() && self.participants.iter().all(|p| self.has_answered(p))
    }

    /// Every proposal received so far has been rejected (or none arrived).
    fn no_open_proposal(&self) -> bool {
        self.proposals.len() == self.rejected.len()
    }

    fn bidding_over(&self) -> bool {
        self.bidding_closed || self.all_answered()
    }

    fn open_proposer(&self, message: &FipaMessage) -> Option<String> {
        let proposer = message.receiver()?;
        (self.proposal_from(proposer).is_some() && !self.rejected.iter().any(|r| r == proposer))
            .then(|| proposer.to_owned())
    }

    fn classify(&self, message: &FipaMessage) -> Option<Move> {
        let p = message.performative();
        if self.state().is_terminal() {
            return Some(Move::Ignore);
        }
        match self.phase {
            Phase::Idle => (p == Cfp).then_some(Move::Start),
            _ if p == Cancel => Some(Move::Cancel),
            Phase::Bidding => match p {
                Propose | Refuse | NotUnderstood => {
                    let Some(bidder) = message.sender() else {
                        return Some(Move::Ignore);
                    };
                    if self.bidding_over() || !self.may_bid(bidder) || self.has_answered(bidder) {
                        Some(Move::Ignore)
                    } else if p == Propose {
                        Some(Move::Bid)
                    } else {
                        Some(Move::Decline(bidder.to_owned()))
                    }
                }
                AcceptProposal => self.open_proposer(message).map(Move::Accept),
                RejectProposal => self.open_proposer(message).map(Move::Reject),
                _ => None,
            },
            Phase::Awarded => {
                let from_contractor =
                    message.sender().is_some() && message.sender() == self.contractor.as_deref();
                match p {
                    Inform | Failure if from_contractor => Some(Move::Outcome(p == Inform)),
                    Propose | Refuse | NotUnderstood | Inform | Failure => Some(Move::Ignore),
                    RejectProposal => match self.open_proposer(message) {
                        Some(proposer) if Some(proposer.as_str()) != self.contractor.as_deref() => {
                            Some(Move::Reject(proposer))
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
        }
    }
}

impl super::ConversationProtocol for ContractNetProtocol {
    fn name(&self) -> &'static str {
        super::CONTRACT_NET_PROTOCOL
    }

    fn state(&self) -> ProtocolState {
        ContractNetProtocol::state(self)
    }

    fn process_message_at(&mut self, message: &FipaMessage, now: DateTime<Utc>) -> ProtocolState {
        ContractNetProtocol::process_message_at(self, message, now)
    }

    fn check_timeout(&mut self, now: DateTime<Utc>) -> ProtocolState {
        ContractNetProtocol::check_timeout(self, now)
    }

    fn cancel(&mut self) -> ProtocolState {
        ContractNetProtocol::cancel(self)
    }

    fn is_valid_message(&self, message: &FipaMessage) -> bool {
        ContractNetProtocol::is_valid_message(self, message)
    }

    fn is_valid_response(&self, original: &FipaMessage, response: &FipaMessage) -> bool {
        ContractNetProtocol::is_valid_response(self, original, response)
    }

    fn history(&self) -> &[FipaMessage] {
        ContractNetProtocol::history(self)
    }

    fn deadline(&self) -> Option<DateTime<Utc>> {
        ContractNetProtocol::deadline(self)
    }
}
