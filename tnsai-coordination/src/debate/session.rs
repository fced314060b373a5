//! A debate session: its public snapshot and the rules that move it forward.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use tnsai_core::{AgentId, ConsensusStrategy, DebateSpec};

use super::events::DebateEvent;
use super::scoring::{DebateScorer, NO_CLEAR_POSITION, RoundTally, clamp_confidence, stance_key};
use crate::ProtocolError;

/// Where a debate stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DebateStatus {
    /// Rounds are still being played.
    InProgress,
    /// A round reached consensus; the decision is its leading stance.
    Consensus,
    /// `max_rounds` rounds ended without consensus.
    Deadlock,
    /// The initiator cancelled the debate.
    Cancelled,
}

impl DebateStatus {
    /// Whether the debate is over: nothing more is accepted.
    pub const fn is_final(self) -> bool {
        !matches!(self, DebateStatus::InProgress)
    }
}

impl std::fmt::Display for DebateStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DebateStatus::InProgress => "InProgress",
            DebateStatus::Consensus => "Consensus",
            DebateStatus::Deadlock => "Deadlock",
            DebateStatus::Cancelled => "Cancelled",
        })
    }
}

/// A participant's position in one round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebatePosition {
    agent: AgentId,
    stance: String,
    confidence: i32,
    argument: String,
    round: u32,
    timestamp: DateTime<Utc>,
}

impl DebatePosition {
    /// Who took the position.
    pub fn agent(&self) -> &AgentId {
        &self.agent
    }
    /// The stance, as its author spelled it.
    pub fn stance(&self) -> &str {
        &self.stance
    }
    /// Confidence, clamped to 1..=10.
    pub fn confidence(&self) -> i32 {
        self.confidence
    }
    /// The argument given for it.
    pub fn argument(&self) -> &str {
        &self.argument
    }
    /// The round (1-based).
    pub fn round(&self) -> u32 {
        self.round
    }
    /// When it was taken.
    pub fn timestamp(&self) -> DateTime<Utc> {
        self.timestamp
    }
}

/// A vote for or against a stance; recorded and shown, never scored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DebateVote {
    agent: AgentId,
    stance: String,
    support: bool,
    round: u32,
    timestamp: DateTime<Utc>,
}

impl DebateVote {
    /// Who voted.
    pub fn agent(&self) -> &AgentId {
        &self.agent
    }
    /// The stance voted on.
    pub fn stance(&self) -> &str {
        &self.stance
    }
    /// `true` for the stance, `false` against it.
    pub fn support(&self) -> bool {
        self.support
    }
    /// The round the vote was cast in.
    pub fn round(&self) -> u32 {
        self.round
    }
    /// When it was cast.
    pub fn timestamp(&self) -> DateTime<Utc> {
        self.timestamp
    }
}

/// An argument against another participant's position, with an alternative.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CounterArgument {
    agent: AgentId,
    target: AgentId,
    argument: String,
    alternative: String,
    round: u32,
    timestamp: DateTime<Utc>,
}

impl CounterArgument {
    /// Who argued.
    pub fn agent(&self) -> &AgentId {
        &self.agent
    }
    /// Whose position is argued against.
    pub fn target(&self) -> &AgentId {
        &self.target
    }
    /// The argument.
    pub fn argument(&self) -> &str {
        &self.argument
    }
    /// The proposed alternative.
    pub fn alternative(&self) -> &str {
        &self.alternative
    }
    /// The round it was made in.
    pub fn round(&self) -> u32 {
        self.round
    }
    /// When it was made.
    pub fn timestamp(&self) -> DateTime<Utc> {
        self.timestamp
    }
}

/// Why a round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RoundEnd {
    /// Every participant took a position.
    AllPositions,
    /// `round_timeout_ms` passed with at least one position.
    Timeout,
}

/// A closed round and how it was judged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundSummary {
    /// The round (1-based).
    pub round: u32,
    /// Why it ended.
    pub ended_by: RoundEnd,
    /// The tally.
    pub tally: RoundTally,
}

/// A snapshot of a debate: its rules, participants, positions, votes, counter-arguments
/// and outcome. Every call that touches a debate returns a fresh one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DebateSession {
    id: String,
    topic: String,
    initiator: AgentId,
    participants: Vec<AgentId>,
    strategy: ConsensusStrategy,
    consensus_threshold: Option<f64>,
    max_rounds: u32,
    round_timeout_ms: Option<u64>,
    status: DebateStatus,
    round: u32,
    decision: Option<String>,
    positions: Vec<DebatePosition>,
    votes: Vec<DebateVote>,
    counter_arguments: Vec<CounterArgument>,
    rounds: Vec<RoundSummary>,
    created_at: DateTime<Utc>,
}

impl DebateSession {
    /// The session id.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// What is debated.
    pub fn topic(&self) -> &str {
        &self.topic
    }
    /// The agent that started the debate and hosts the session.
    pub fn initiator(&self) -> &AgentId {
        &self.initiator
    }
    /// The agents that take positions (the initiator only when listed).
    pub fn participants(&self) -> &[AgentId] {
        &self.participants
    }
    /// Where the debate stands.
    pub fn status(&self) -> DebateStatus {
        self.status
    }
    /// The current round, or the last one once the debate is over (1-based).
    pub fn round(&self) -> u32 {
        self.round
    }
    /// The decision: the consensus stance, or after a deadlock the last round's leader or
    /// `No clear position`. `None` while in progress or when cancelled.
    pub fn decision(&self) -> Option<&str> {
        self.decision.as_deref()
    }
    /// Every position of every round, in submission order.
    pub fn positions(&self) -> &[DebatePosition] {
        &self.positions
    }
    /// Every vote, in order.
    pub fn votes(&self) -> &[DebateVote] {
        &self.votes
    }
    /// Every counter-argument, in order.
    pub fn counter_arguments(&self) -> &[CounterArgument] {
        &self.counter_arguments
    }
    /// The closed rounds with their tallies.
    pub fn rounds(&self) -> &[RoundSummary] {
        &self.rounds
    }
    /// The positions of the current round.
    pub fn current_positions(&self) -> impl Iterator<Item = &DebatePosition> {
        self.positions.iter().filter(move |p| p.round == self.round)
    }
    /// The consensus strategy (set by the initiator's `#[debate]`).
    pub fn strategy(&self) -> ConsensusStrategy {
        self.strategy
    }
    /// The explicit consensus threshold, if any.
    pub fn consensus_threshold(&self) -> Option<f64> {
        self.consensus_threshold
    }
    /// Rounds before a deadlock.
    pub fn max_rounds(&self) -> u32 {
        self.max_rounds
    }
    /// The round timeout, if any.
    pub fn round_timeout(&self) -> Option<Duration> {
        self.round_timeout_ms.map(Duration::from_millis)
    }
    /// When the debate started.
    pub fn created_at(&self) -> DateTime<Utc> {
        self.created_at
    }
    /// Whether `agent` takes positions in this debate.
    pub fn is_participant(&self, agent: &AgentId) -> bool {
        self.participants.contains(agent)
    }
}

/// A session as its host holds it: the snapshot plus what moves it forward.
pub(crate) struct SessionState {
    pub(crate) session: DebateSession,
    scorer: DebateScorer,
    deadline_passed: bool,
    next_seq: u64,
}

/// What a step changed, for the host to announce.
pub(crate) struct StepOutcome {
    pub(crate) events: Vec<(u64, DebateEvent)>,
    /// A new round started (so its timer must start).
    pub(crate) new_round: Option<u32>,
}

impl SessionState {
    pub(crate) fn new(
        id: String,
        topic: String,
        initiator: AgentId,
        participants: Vec<AgentId>,
        rules: &DebateSpec,
    ) -> Self {
        Self {
            session: DebateSession {
                id,
                topic,
                initiator,
                participants,
                strategy: rules.strategy(),
                consensus_threshold: rules.consensus_threshold(),
                max_rounds: rules.max_rounds(),
                round_timeout_ms: rules
                    .round_timeout()
                    .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
                status: DebateStatus::InProgress,
                round: 1,
                decision: None,
                positions: Vec::new(),
                votes: Vec::new(),
                counter_arguments: Vec::new(),
                rounds: Vec::new(),
                created_at: Utc::now(),
            },
            scorer: DebateScorer::new(rules.strategy(), rules.consensus_threshold()),
            deadline_passed: false,
            next_seq: 0,
        }
    }

    fn refuse(&self, text: String) -> ProtocolError {
        ProtocolError::DebateRefused(text)
    }

    fn ensure_open(&self) -> Result<(), ProtocolError> {
        let s = &self.session;
        if s.status.is_final() {
            return Err(self.refuse(format!(
                "Debate {} is over ({}); nothing more is accepted",
                s.id, s.status
            )));
        }
        Ok(())
    }

    fn ensure_member(&self, agent: &AgentId) -> Result<(), ProtocolError> {
        let s = &self.session;
        if s.initiator != *agent && !s.is_participant(agent) {
            return Err(self.refuse(format!(
                "Agent {agent} is not a participant of debate {}",
                s.id
            )));
        }
        Ok(())
    }

    /// Whether `agent` may read the session: the initiator and every participant.
    pub(crate) fn may_read(&self, agent: &AgentId) -> Result<(), ProtocolError> {
        self.ensure_member(agent)
    }

    fn event(&mut self, event: DebateEvent) -> (u64, DebateEvent) {
        let seq = self.next_seq;
        self.next_seq += 1;
        (seq, event)
    }

    pub(crate) fn submit(
        &mut self,
        agent: &AgentId,
        stance: &str,
        confidence: i32,
        argument: String,
    ) -> Result<StepOutcome, ProtocolError> {
        self.ensure_open()?;
        let s = &self.session;
        if !s.is_participant(agent) {
            return Err(self.refuse(format!(
                "Agent {agent} is not a participant of debate {}",
                s.id
            )));
        }
        if stance.trim().is_empty() {
            return Err(ProtocolError::InvalidArgument(
                "a debate position needs a non-empty stance".into(),
            ));
        }
        if s.current_positions().any(|p| p.agent == *agent) {
            return Err(self.refuse(format!(
                "Agent {agent} already took a position in round {} of debate {}",
                s.round, s.id
            )));
        }
        let round = s.round;
        self.session.positions.push(DebatePosition {
            agent: agent.clone(),
            stance: stance.to_owned(),
            confidence: clamp_confidence(confidence),
            argument,
            round,
            timestamp: Utc::now(),
        });
        let in_round = self.session.current_positions().count();
        let end = if in_round >= self.session.participants.len() {
            Some(RoundEnd::AllPositions)
        } else if self.deadline_passed {
            Some(RoundEnd::Timeout)
        } else {
            None
        };
        Ok(match end {
            Some(end) => self.close_round(end),
            None => StepOutcome {
                events: Vec::new(),
                new_round: None,
            },
        })
    }

    /// The round timer fired for `round`.
    pub(crate) fn round_deadline(&mut self, round: u32) -> StepOutcome {
        let s = &self.session;
        let current = !s.status.is_final() && s.round == round;
        if current && s.current_positions().next().is_some() {
            return self.close_round(RoundEnd::Timeout);
        }
        if current {
            // No position yet: the round ends with the first one that arrives.
            self.deadline_passed = true;
        }
        StepOutcome {
            events: Vec::new(),
            new_round: None,
        }
    }

    fn close_round(&mut self, ended_by: RoundEnd) -> StepOutcome {
        let round = self.session.round;
        let tally = {
            let positions = self
                .session
                .current_positions()
                .map(|p| (p.stance.as_str(), p.confidence));
            self.scorer.score(positions)
        };
        // Report the spelling first seen in the whole session, not only in this round.
        let tally = self.with_first_spelling(tally);
        let summary = RoundSummary {
            round,
            ended_by,
            tally: tally.clone(),
        };
        self.session.rounds.push(summary.clone());
        let mut events = vec![self.event(DebateEvent::RoundClosed {
            session: self.session.id.clone(),
            summary,
        })];
        let mut new_round = None;
        if tally.consensus {
            let decision = tally.leader.unwrap_or_default();
            self.session.status = DebateStatus::Consensus;
            self.session.decision = Some(decision.clone());
            events.push(self.event(DebateEvent::Consensus {
                session: self.session.id.clone(),
                round,
                decision,
            }));
        } else if round >= self.session.max_rounds {
            let decision = tally.leader.unwrap_or_else(|| NO_CLEAR_POSITION.to_owned());
            self.session.status = DebateStatus::Deadlock;
            self.session.decision = Some(decision.clone());
            events.push(self.event(DebateEvent::Deadlock {
                session: self.session.id.clone(),
                round,
                decision,
            }));
        } else {
            self.session.round += 1;
            self.deadline_passed = false;
            new_round = Some(self.session.round);
        }
        StepOutcome { events, new_round }
    }

    fn with_first_spelling(&self, mut tally: RoundTally) -> RoundTally {
        let first = |stance: &str| {
            let key = stance_key(stance);
            self.session
                .positions
                .iter()
                .find(|p| stance_key(&p.stance) == key)
                .map(|p| p.stance.trim().to_owned())
                .unwrap_or_else(|| stance.to_owned())
        };
        for support in &mut tally.stances {
            support.stance = first(&support.stance);
        }
        tally.leader = tally.leader.as_deref().map(first);
        tally
    }

    pub(crate) fn vote(
        &mut self,
        agent: &AgentId,
        stance: &str,
        support: bool,
    ) -> Result<(), ProtocolError> {
        self.ensure_open()?;
        self.ensure_member(agent)?;
        if stance.trim().is_empty() {
            return Err(ProtocolError::InvalidArgument(
                "a debate vote needs a non-empty stance".into(),
            ));
        }
        let round = self.session.round;
        self.session.votes.push(DebateVote {
            agent: agent.clone(),
            stance: stance.to_owned(),
            support,
            round,
            timestamp: Utc::now(),
        });
        Ok(())
    }

    pub(crate) fn counter(
        &mut self,
        agent: &AgentId,
        target: AgentId,
        argument: String,
        alternative: String,
    ) -> Result<(), ProtocolError> {
        self.ensure_open()?;
        self.ensure_member(agent)?;
        if !self.session.is_participant(&target) {
            return Err(self.refuse(format!(
                "Agent {target} is not a participant of debate {}; only participants' positions can be countered",
                self.session.id
            )));
        }
        let round = self.session.round;
        self.session.counter_arguments.push(CounterArgument {
            agent: agent.clone(),
            target,
            argument,
            alternative,
            round,
            timestamp: Utc::now(),
        });
        Ok(())
    }

    pub(crate) fn cancel(&mut self, by: &AgentId) -> Result<StepOutcome, ProtocolError> {
        if self.session.initiator != *by {
            return Err(self.refuse(format!(
                "Only the initiator {} may cancel debate {}",
                self.session.initiator, self.session.id
            )));
        }
        self.ensure_open()?;
        self.session.status = DebateStatus::Cancelled;
        let event = self.event(DebateEvent::Cancelled {
            session: self.session.id.clone(),
            round: self.session.round,
        });
        Ok(StepOutcome {
            events: vec![event],
            new_round: None,
        })
    }
}
