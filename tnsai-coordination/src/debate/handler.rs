//! `#[debate(..)]`: hosting the sessions an agent starts and taking part in others'.
//!
//! A session lives with its initiator. Every call about it from another agent's manager
//! travels as an ordinary `Debate` message to the initiator and is answered with a fresh
//! snapshot, so participants take part through their own managers on any transport. The
//! initiator sends each session event, numbered, to every participant, whose feed puts
//! them back in order.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Instant;

use serde_json::{Value, json};
use tnsai_core::{AgentId, BoxFuture, DebateSpec, Message, MessageKind, Params};

use super::events::{DebateEvent, DebateEvents, EventFeed};
use super::session::{DebateSession, SessionState, StepOutcome};
use crate::ProtocolError;
use crate::answer::error_answer;
use crate::hosted::InboundService;
use crate::link::Link;

/// The operations carried in a `Debate` message's `action`.
mod op {
    pub(super) const INVITE: &str = "invite";
    pub(super) const FORGET: &str = "forget";
    pub(super) const POSITION: &str = "position";
    pub(super) const VOTE: &str = "vote";
    pub(super) const COUNTER: &str = "counter";
    pub(super) const SNAPSHOT: &str = "snapshot";
    pub(super) const CANCEL: &str = "cancel";
    pub(super) const EVENT: &str = "event";
}

/// A step on a session, as the host applies it.
enum Step {
    Position {
        stance: String,
        confidence: i32,
        argument: String,
    },
    Vote {
        stance: String,
        support: bool,
    },
    Counter {
        target: AgentId,
        argument: String,
        alternative: String,
    },
    Snapshot,
    Cancel,
}

impl Step {
    fn op(&self) -> &'static str {
        match self {
            Step::Position { .. } => op::POSITION,
            Step::Vote { .. } => op::VOTE,
            Step::Counter { .. } => op::COUNTER,
            Step::Snapshot => op::SNAPSHOT,
            Step::Cancel => op::CANCEL,
        }
    }

    fn to_params(&self, session: &str) -> Params {
        let params = Params::new().with("session", session);
        match self {
            Step::Position {
                stance,
                confidence,
                argument,
            } => params
                .with("stance", stance.as_str())
                .with("confidence", *confidence)
                .with("argument", argument.as_str()),
            Step::Vote { stance, support } => params
                .with("stance", stance.as_str())
                .with("support", *support),
            Step::Counter {
                target,
                argument,
                alternative,
            } => params
                .with("target", target.as_str())
                .with("argument", argument.as_str())
                .with("alternative", alternative.as_str()),
            Step::Snapshot | Step::Cancel => params,
        }
    }

    fn from_message(message: &Message) -> Result<Self, ProtocolError> {
        let p = message.params();
        let text = |name: &str| {
            p.require_str(name)
                .map(str::to_owned)
                .map_err(|e| ProtocolError::InvalidArgument(e.to_string()))
        };
        Ok(match message.action().unwrap_or_default() {
            op::POSITION => Step::Position {
                stance: text("stance")?,
                confidence: p.get_i64("confidence").map_or(1, |c| {
                    c.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
                }),
                argument: text("argument").unwrap_or_default(),
            },
            op::VOTE => Step::Vote {
                stance: text("stance")?,
                support: p.get_bool("support").unwrap_or(true),
            },
            op::COUNTER => Step::Counter {
                target: AgentId::from(text("target")?),
                argument: text("argument").unwrap_or_default(),
                alternative: text("alternative").unwrap_or_default(),
            },
            op::SNAPSHOT => Step::Snapshot,
            op::CANCEL => Step::Cancel,
            other => {
                return Err(ProtocolError::InvalidArgument(format!(
                    "unknown debate operation `{other}`"
                )));
            }
        })
    }
}

pub(crate) struct DebateHandler {
    spec: DebateSpec,
    link: Link,
    /// Sessions this agent started and hosts.
    hosted: Mutex<HashMap<String, SessionState>>,
    /// Sessions this agent was invited to, with their host.
    invited: Mutex<HashMap<String, AgentId>>,
    /// Local event feeds, for hosted and invited sessions.
    feeds: Mutex<HashMap<String, EventFeed>>,
    /// Sessions that are over, in the order they ended, for retention.
    finished: Mutex<VecDeque<(Instant, String)>>,
    me: Weak<DebateHandler>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Session updates are applied whole under the lock; a panic cannot tear one.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl DebateHandler {
    pub(crate) fn new(spec: DebateSpec, link: Link) -> Arc<Self> {
        Arc::new_cyclic(|me| Self {
            spec,
            link,
            hosted: Mutex::new(HashMap::new()),
            invited: Mutex::new(HashMap::new()),
            feeds: Mutex::new(HashMap::new()),
            finished: Mutex::new(VecDeque::new()),
            me: Weak::clone(me),
        })
    }

    fn id(&self) -> &AgentId {
        self.link.id()
    }

    pub(crate) async fn start(
        &self,
        topic: String,
        participants: Vec<AgentId>,
    ) -> Result<DebateSession, ProtocolError> {
        let core = self.link.ready()?;
        if !self.spec.can_initiate() {
            return Err(ProtocolError::DebateRefused(format!(
                "Agent {} may not start debates (can_initiate = false)",
                self.id()
            )));
        }
        if topic.trim().is_empty() {
            return Err(ProtocolError::InvalidArgument(
                "a debate needs a non-empty topic".into(),
            ));
        }
        let mut unique: Vec<AgentId> = Vec::with_capacity(participants.len());
        for participant in participants {
            if participant.is_empty() {
                return Err(ProtocolError::InvalidArgument(
                    "a debate participant id must not be empty".into(),
                ));
            }
            if !unique.contains(&participant) {
                unique.push(participant);
            }
        }
        if unique.is_empty() {
            return Err(ProtocolError::InvalidArgument(
                "a debate needs at least one participant".into(),
            ));
        }
        self.prune(&core);
        let session_id = uuid::Uuid::now_v7().to_string();
        let mut invited = Vec::new();
        for participant in unique.iter().filter(|p| *p != self.id()) {
            let invitation = self
                .message(participant.clone(), op::INVITE)
                .params(
                    Params::new()
                        .with("session", session_id.as_str())
                        .with("topic", topic.as_str()),
                )
                .build();
            let timeout = Some(core.config.debate_call_timeout());
            match self
                .link
                .call(invitation, self.spec.transport(), timeout)
                .await
            {
                Ok(_) => invited.push(participant.clone()),
                Err(error) => {
                    self.forget_at(&session_id, &invited).await;
                    return Err(match error {
                        ProtocolError::Remote { code, .. } if code == "unsupported" => {
                            ProtocolError::DebateRefused(format!(
                                "Agent {participant} cannot take part in debates: it has no #[debate] attribute"
                            ))
                        }
                        other => other,
                    });
                }
            }
        }
        let state = SessionState::new(
            session_id.clone(),
            topic,
            self.id().clone(),
            unique,
            &self.spec,
        );
        let snapshot = state.session.clone();
        lock(&self.feeds).insert(session_id.clone(), EventFeed::new());
        lock(&self.hosted).insert(session_id.clone(), state);
        core.debate_hosts.insert(session_id, self.id().clone());
        self.start_round_timer(snapshot.id(), 1);
        Ok(snapshot)
    }

    /// Notes that a session this agent hosts or takes part in is over, for retention.
    fn finished(&self, session: &str) {
        lock(&self.finished).push_back((Instant::now(), session.to_owned()));
    }

    /// Forgets sessions that ended longer ago than the platform's debate retention. The
    /// queue is in order of ending, so this only looks at what it drops.
    fn prune(&self, core: &crate::platform::PlatformCore) {
        let retention = core.config.debate_retention();
        loop {
            let expired = {
                let mut finished = lock(&self.finished);
                match finished.front() {
                    Some((at, _)) if at.elapsed() > retention => finished.pop_front(),
                    _ => None,
                }
            };
            let Some((_, id)) = expired else { return };
            if lock(&self.hosted).remove(&id).is_some() {
                core.debate_hosts.remove(&id);
            }
            lock(&self.feeds).remove(&id);
            lock(&self.invited).remove(&id);
        }
    }

    async fn forget_at(&self, session: &str, agents: &[AgentId]) {
        for agent in agents {
            let forget = self
                .message(agent.clone(), op::FORGET)
                .params(Params::new().with("session", session))
                .build();
            if let Err(error) = self.link.send(forget, self.spec.transport()).await {
                tracing::debug!(%error, %agent, "could not withdraw a debate invitation");
            }
        }
    }

    fn message(&self, receiver: AgentId, operation: &str) -> tnsai_core::MessageBuilder {
        Message::builder(MessageKind::Debate, self.id().clone())
            .receiver(receiver)
            .action(operation)
    }

    pub(crate) async fn submit(
        &self,
        session: String,
        stance: String,
        confidence: i32,
        argument: String,
    ) -> Result<DebateSession, ProtocolError> {
        let step = Step::Position {
            stance,
            confidence,
            argument,
        };
        self.run(session, step).await
    }

    pub(crate) async fn vote(
        &self,
        session: String,
        stance: String,
        support: bool,
    ) -> Result<DebateSession, ProtocolError> {
        if !self.spec.can_vote() {
            return Err(ProtocolError::DebateRefused(format!(
                "Agent {} may not vote (can_vote = false)",
                self.id()
            )));
        }
        self.run(session, Step::Vote { stance, support }).await
    }

    pub(crate) async fn counter(
        &self,
        session: String,
        target: AgentId,
        argument: String,
        alternative: String,
    ) -> Result<DebateSession, ProtocolError> {
        let step = Step::Counter {
            target,
            argument,
            alternative,
        };
        self.run(session, step).await
    }

    pub(crate) async fn snapshot(&self, session: String) -> Result<DebateSession, ProtocolError> {
        self.run(session, Step::Snapshot).await
    }

    pub(crate) async fn cancel(&self, session: String) -> Result<DebateSession, ProtocolError> {
        self.run(session, Step::Cancel).await
    }

    pub(crate) fn events(&self, session: &str) -> Result<DebateEvents, ProtocolError> {
        lock(&self.feeds)
            .get(session)
            .map(EventFeed::subscribe)
            .ok_or(ProtocolError::DebateNotFound)
    }

    /// Applies `step` here when this agent hosts the session, or sends it to the host.
    async fn run(&self, session: String, step: Step) -> Result<DebateSession, ProtocolError> {
        let core = self.link.ready()?;
        if lock(&self.hosted).contains_key(&session) {
            let from = self.id().clone();
            return self.apply(&session, &from, step).await;
        }
        let host = lock(&self.invited).get(&session).cloned();
        // A non-participant on this platform still reaches the host, which says why it
        // refuses; elsewhere the session is simply not found.
        let host = host
            .or_else(|| core.debate_hosts.get(&session).map(|h| h.value().clone()))
            .ok_or(ProtocolError::DebateNotFound)?;
        let request = self
            .message(host, step.op())
            .params(step.to_params(&session))
            .build();
        let timeout = Some(core.config.debate_call_timeout());
        let answer = self
            .link
            .call(request, self.spec.transport(), timeout)
            .await
            .map_err(|error| match error {
                ProtocolError::UnknownReceiver(_) | ProtocolError::ReceiverUnavailable(_) => {
                    ProtocolError::DebateNotFound
                }
                other => other,
            })?;
        serde_json::from_value(answer.payload().clone()).map_err(|e| {
            ProtocolError::InvalidPayload(format!(
                "the debate host sent an unreadable session: {e}"
            ))
        })
    }

    /// The host's side of every step.
    async fn apply(
        &self,
        session: &str,
        from: &AgentId,
        step: Step,
    ) -> Result<DebateSession, ProtocolError> {
        let (snapshot, outcome) = {
            let mut hosted = lock(&self.hosted);
            let state = hosted
                .get_mut(session)
                .ok_or(ProtocolError::DebateNotFound)?;
            let outcome = match step {
                Step::Position {
                    stance,
                    confidence,
                    argument,
                } => state.submit(from, &stance, confidence, argument)?,
                Step::Vote { stance, support } => {
                    state.vote(from, &stance, support)?;
                    StepOutcome::none()
                }
                Step::Counter {
                    target,
                    argument,
                    alternative,
                } => {
                    state.counter(from, target, argument, alternative)?;
                    StepOutcome::none()
                }
                Step::Snapshot => {
                    state.may_read(from)?;
                    StepOutcome::none()
                }
                Step::Cancel => state.cancel(from)?,
            };
            (state.session.clone(), outcome)
        };
        self.announce(&snapshot, outcome);
        Ok(snapshot)
    }

    /// Passes a step's events to the local feed and to every other participant, and
    /// starts the next round's timer.
    fn announce(&self, snapshot: &DebateSession, outcome: StepOutcome) {
        if let Some(round) = outcome.new_round {
            self.start_round_timer(snapshot.id(), round);
        }
        if outcome.events.is_empty() {
            return;
        }
        let over = lock(&self.feeds)
            .get_mut(snapshot.id())
            .is_some_and(|feed| {
                let mut over = false;
                for (seq, event) in &outcome.events {
                    over |= feed.accept(*seq, event.clone());
                }
                over
            });
        if over {
            self.finished(snapshot.id());
        }
        let receivers: Vec<AgentId> = snapshot
            .participants()
            .iter()
            .filter(|p| *p != self.id())
            .cloned()
            .collect();
        if receivers.is_empty() {
            return;
        }
        let Some(me) = self.me.upgrade() else { return };
        let session = snapshot.id().to_owned();
        // Sent from a task so that the step's answer never waits on other mailboxes.
        tokio::spawn(async move {
            for (seq, event) in outcome.events {
                let payload = match serde_json::to_value(&event) {
                    Ok(payload) => payload,
                    Err(error) => {
                        tracing::error!(%error, "a debate event did not serialise");
                        continue;
                    }
                };
                for receiver in &receivers {
                    let message = me
                        .message(receiver.clone(), op::EVENT)
                        .params(
                            Params::new()
                                .with("session", session.as_str())
                                .with("seq", seq),
                        )
                        .payload(payload.clone())
                        .build();
                    if let Err(error) = me.link.send(message, me.spec.transport()).await {
                        tracing::debug!(%error, %receiver, "a debate event could not be delivered");
                    }
                }
            }
        });
    }

    fn start_round_timer(&self, session: &str, round: u32) {
        let Some(timeout) = self.spec.round_timeout() else {
            return;
        };
        let me = Weak::clone(&self.me);
        let session = session.to_owned();
        tokio::spawn(async move {
            tokio::time::sleep(timeout).await;
            let Some(handler) = me.upgrade() else { return };
            let outcome = {
                let mut hosted = lock(&handler.hosted);
                let Some(state) = hosted.get_mut(&session) else {
                    return;
                };
                let outcome = state.round_deadline(round);
                (state.session.clone(), outcome)
            };
            handler.announce(&outcome.0, outcome.1);
        });
    }

    /// A `Debate` message from another agent.
    async fn receive(&self, message: &Message) -> Result<Option<Value>, ProtocolError> {
        let session = message
            .params()
            .require_str("session")
            .map_err(|e| ProtocolError::InvalidArgument(e.to_string()))?
            .to_owned();
        match message.action().unwrap_or_default() {
            op::INVITE => {
                if let Ok(core) = self.link.ready() {
                    self.prune(&core);
                }
                lock(&self.invited).insert(session.clone(), message.sender().clone());
                lock(&self.feeds)
                    .entry(session)
                    .or_insert_with(EventFeed::new);
                Ok(Some(json!({ "accepted": true })))
            }
            op::FORGET => {
                let host = lock(&self.invited).get(&session).cloned();
                if host.as_ref() == Some(message.sender()) {
                    lock(&self.invited).remove(&session);
                    lock(&self.feeds).remove(&session);
                }
                Ok(None)
            }
            op::EVENT => {
                let from_host = lock(&self.invited).get(&session) == Some(message.sender());
                let seq = message.params().get("seq").and_then(Value::as_u64);
                match (
                    from_host,
                    seq,
                    serde_json::from_value::<DebateEvent>(message.payload().clone()),
                ) {
                    (true, Some(seq), Ok(event)) => {
                        let over = lock(&self.feeds)
                            .get_mut(&session)
                            .is_some_and(|feed| feed.accept(seq, event));
                        if over {
                            self.finished(&session);
                        }
                    }
                    _ => tracing::debug!(
                        session,
                        "ignoring a debate event that is not from the session's host"
                    ),
                }
                Ok(None)
            }
            _ => {
                let step = Step::from_message(message)?;
                let snapshot = self.apply(&session, message.sender(), step).await?;
                let payload = serde_json::to_value(&snapshot)
                    .map_err(|e| ProtocolError::InvalidPayload(e.to_string()))?;
                Ok(Some(payload))
            }
        }
    }
}

impl StepOutcome {
    fn none() -> Self {
        Self {
            events: Vec::new(),
            new_round: None,
        }
    }
}

impl InboundService for DebateHandler {
    fn handle(self: Arc<Self>, message: Message) -> BoxFuture<'static, Option<Message>> {
        Box::pin(async move {
            match self.receive(&message).await {
                Ok(Some(payload)) => Some(
                    message
                        .reply_builder(MessageKind::Reply, self.id().clone())
                        .payload(payload)
                        .build(),
                ),
                Ok(None) => None,
                Err(error) => Some(error_answer(&message, self.id(), &error)),
            }
        })
    }
}
