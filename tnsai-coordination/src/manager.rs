//! The `ProtocolManager`: an agent's handle on every paradigm it speaks.

use std::collections::BTreeSet;
use std::future::Future;
use std::sync::{Arc, Weak};

use serde::Serialize;
use tnsai_core::{AgentId, Message, MessageKind, Paradigm, Params, TransportMode};

use crate::debate::handler::DebateHandler;
use crate::debate::{DebateEvents, DebateSession};
use crate::handler::broadcast::BroadcastHandler;
use crate::handler::contract_net::ContractNetHandler;
use crate::handler::direct::DirectHandler;
use crate::handler::pub_sub::PubSubHandler;
use crate::handler::request_reply::RequestReplyHandler;
use crate::handler::to_payload;
use crate::hosted::HostedAgent;
use crate::link::Link;
use crate::platform::PlatformCore;
use crate::{DeliveryReport, ProtocolError};

/// The link and the one stateful handler; the other handlers are views over the hosted
/// agent's specs made per call, so a manager costs a few words per agent.
struct ManagerInner {
    link: Link,
    debate: Option<Arc<DebateHandler>>,
}

/// An agent's handle on the paradigms its attributes declare: one handler per attribute.
///
/// A call to a paradigm the agent does not declare fails with
/// [`ProtocolError::NotConfigured`] (`Broadcast not configured for this agent`, ...).
/// The manager is a cheap `Clone + Send + Sync + 'static` handle, and every call returns
/// a `Send + 'static` future, so calls can be spawned as tasks.
///
/// ```
/// use tnsai_coordination::Platform;
/// use tnsai_core::prelude::*;
///
/// #[direct_message]
/// struct Caller;
///
/// #[agent]
/// struct Calculator;
///
/// #[actions]
/// impl Calculator {
///     #[action]
///     async fn add(&self, params: Params) -> ActionResult {
///         Ok(serde_json::json!(params.require_i64("a")? + params.require_i64("b")?))
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let platform = Platform::new();
/// let caller = platform.spawn("caller", Caller).await?;
/// platform.spawn("calculator", Calculator).await?;
/// let pm = caller.protocol_manager().expect("annotated agent");
///
/// let reply = pm.execute_action("calculator", "add", params! { "a" => 2, "b" => 3 }).await?;
/// assert_eq!(reply.payload(), &serde_json::json!(5));
///
/// let error = pm.broadcast("hello").await.unwrap_err();
/// assert_eq!(error.to_string(), "Broadcast not configured for this agent");
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ProtocolManager {
    inner: Arc<ManagerInner>,
}

impl ProtocolManager {
    pub(crate) fn new(hosted: Arc<HostedAgent>, core: Weak<PlatformCore>) -> Self {
        let link = Link::new(Arc::clone(&hosted), core);
        let debate = hosted
            .specs
            .debate()
            .cloned()
            .map(|spec| DebateHandler::new(spec, link.clone()));
        if let Some(debate) = &debate {
            hosted.register_service(MessageKind::Debate, Arc::clone(debate) as _);
        }
        Self {
            inner: Arc::new(ManagerInner { link, debate }),
        }
    }

    /// Starts (or restarts) the manager: the agent sends and receives again.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::Terminated`] when the agent was terminated.
    pub async fn start(&self) -> Result<(), ProtocolError> {
        let hosted = &self.inner.link.hosted;
        if hosted.is_terminated() {
            return Err(ProtocolError::Terminated(hosted.id.clone()));
        }
        hosted.set_started(true);
        Ok(())
    }

    /// Stops the manager: calls fail with `Transport not started`, calls waiting for an
    /// answer end with that error, and messages sent to the agent are refused (a broadcast
    /// reports it under [`failed`](DeliveryReport::failed)) until [`start`](Self::start).
    pub async fn stop(&self) {
        self.inner.link.hosted.set_started(false);
    }

    /// Whether the manager is started.
    pub fn is_started(&self) -> bool {
        self.inner.link.hosted.is_started()
    }

    /// The agent this manager belongs to.
    pub fn agent_id(&self) -> &AgentId {
        self.inner.link.id()
    }

    /// The paradigms the agent declares.
    pub fn paradigms(&self) -> BTreeSet<Paradigm> {
        self.inner.link.hosted.specs.paradigms()
    }

    /// Whether the agent declares the paradigm with this key (`"DIRECT"`, `"BROADCAST"`,
    /// `"PUBSUB"`, `"REQUEST_REPLY"`, `"DEBATE"`; case is ignored). Unknown keys answer
    /// `false`.
    pub fn has_paradigm(&self, key: &str) -> bool {
        key.parse::<Paradigm>()
            .is_ok_and(|p| self.inner.link.hosted.specs.paradigms().contains(&p))
    }

    /// Runs `action` on `receiver` and returns its reply, whose
    /// [`payload`](Message::payload) is the action's result. Needs `#[direct_message]`.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::UnknownReceiver`], [`ProtocolError::UnknownAction`],
    /// [`ProtocolError::RoleMismatch`] for a role action, [`ProtocolError::ActionFailed`]
    /// with the action's own error text, [`ProtocolError::ActionPanicked`].
    pub fn execute_action(
        &self,
        receiver: impl Into<AgentId>,
        action: impl Into<String>,
        params: Params,
    ) -> impl Future<Output = Result<Message, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let (receiver, action) = (receiver.into(), action.into());
        async move {
            this.direct()?
                .execute_action(receiver, action, None, params)
                .await
        }
    }

    /// Runs an action reserved for `role` (`#[action(role = "..")]`) on `receiver`.
    /// Needs `#[direct_message]`.
    ///
    /// # Errors
    ///
    /// As [`execute_action`](Self::execute_action); [`ProtocolError::RoleMismatch`] when the
    /// action is not reserved for `role`.
    pub fn execute_role_action(
        &self,
        receiver: impl Into<AgentId>,
        role: impl Into<String>,
        action: impl Into<String>,
        params: Params,
    ) -> impl Future<Output = Result<Message, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let (receiver, role, action) = (receiver.into(), role.into(), action.into());
        async move {
            this.direct()?
                .execute_action(receiver, action, Some(role), params)
                .await
        }
    }

    /// Sends text to `receiver`, whose language model answers; the answer is the reply's
    /// [`content`](Message::content). Needs `#[direct_message]`.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::NoLanguageModel`] when the receiver has no `#[language_model]`,
    /// [`ProtocolError::LanguageModel`] when its model fails.
    pub fn send_message(
        &self,
        receiver: impl Into<AgentId>,
        text: impl Into<String>,
    ) -> impl Future<Output = Result<Message, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let (receiver, text) = (receiver.into(), text.into());
        async move { this.direct()?.send_message(receiver, text).await }
    }

    /// Broadcasts `payload` on the agent's `#[broadcast]` topic to every agent whose
    /// broadcast topic equals it or whose `#[pub_sub]` topics match it (ignoring case),
    /// except the sender, agents with `can_subscribe = false` and agents whose filter
    /// refuses the payload.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::PublishNotAllowed`] with `can_publish = false`,
    /// [`ProtocolError::InvalidPayload`] when the payload does not serialise.
    pub fn broadcast<P: Serialize>(
        &self,
        payload: P,
    ) -> impl Future<Output = Result<DeliveryReport, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let payload = to_payload(&payload);
        async move { this.broadcast_handler()?.broadcast(payload?).await }
    }

    /// Publishes `payload` to `topic`, for every agent subscribed to it (the recipient
    /// rule of [`broadcast`](Self::broadcast), with NATS-style wildcards in subscriptions).
    /// Needs `#[pub_sub]`.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::PublishNotAllowed`] with `can_publish = false`,
    /// [`ProtocolError::InvalidTopic`] for an empty topic or one with wildcards,
    /// [`ProtocolError::InvalidPayload`].
    pub fn publish<P: Serialize>(
        &self,
        topic: impl Into<String>,
        payload: P,
    ) -> impl Future<Output = Result<DeliveryReport, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let topic = topic.into();
        let payload = to_payload(&payload);
        async move { this.pub_sub()?.publish(topic, payload?).await }
    }

    /// Runs `action` on `receiver` and waits for the reply at most the `#[request_reply]`
    /// timeout. A reply that arrives later is dropped. Needs `#[request_reply]`.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::Timeout`] (`Request timed out`), and the errors of
    /// [`execute_action`](Self::execute_action).
    pub fn request(
        &self,
        receiver: impl Into<AgentId>,
        action: impl Into<String>,
        params: Params,
    ) -> impl Future<Output = Result<Message, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let (receiver, action) = (receiver.into(), action.into());
        async move {
            this.request_reply()?
                .request(receiver, action, params)
                .await
        }
    }

    /// Runs a FIPA contract-net negotiation for `task`: sends a `cfp` to every contractor
    /// through the transport, collects proposals and refusals until all answered or
    /// `bidding` has passed, asks `evaluator` to pick (see
    /// [`fipa::evaluator`](tnsai_fipa::evaluator)), sends `accept-proposal` to the winner
    /// and `reject-proposal` to the others, and waits up to `bidding` again for the
    /// winner's `inform` or `failure`. Contractors answer through their `cfp` and
    /// `accept-proposal` actions (see [`acl`](crate::acl)). Needs `#[direct_message]`.
    ///
    /// The report holds the outcome, the proposals received in time and every message.
    ///
    /// ```
    /// use std::time::Duration;
    /// use tnsai_coordination::{acl, Platform, fipa::{evaluator, NegotiationOutcome}};
    /// use tnsai_core::prelude::*;
    ///
    /// #[direct_message]
    /// struct Manager;
    ///
    /// #[agent]
    /// struct Contractor { price: f64 }
    ///
    /// #[actions]
    /// impl Contractor {
    ///     #[action(name = "cfp")]
    ///     async fn bid(&self, _params: Params) -> ActionResult {
    ///         Ok(acl::propose(format!("{} EUR", self.price), Some(self.price)))
    ///     }
    ///     #[action(name = "accept-proposal")]
    ///     async fn work(&self, _params: Params) -> ActionResult {
    ///         Ok(serde_json::json!("done"))
    ///     }
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let platform = Platform::new();
    /// let manager = platform.spawn("manager", Manager).await?.protocol_manager().unwrap();
    /// platform.spawn("cheap", Contractor { price: 400.0 }).await?;
    /// platform.spawn("dear", Contractor { price: 900.0 }).await?;
    /// let report = manager
    ///     .negotiate("Translate 500 pages", ["cheap", "dear"], Duration::from_secs(1), evaluator::lowest_price())
    ///     .await?;
    /// assert_eq!(report.outcome, NegotiationOutcome::Awarded { winner: "cheap".into(), result: "done".into() });
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`ProtocolError::NotConfigured`] without `#[direct_message]`,
    /// [`ProtocolError::InvalidArgument`] for no contractors or a contractor listed twice.
    /// Contractors that cannot be reached count as silent in the report.
    pub fn negotiate<I, P, E>(
        &self,
        task: impl Into<String>,
        contractors: I,
        bidding: std::time::Duration,
        evaluator: E,
    ) -> impl Future<Output = Result<tnsai_fipa::NegotiationReport, ProtocolError>> + Send + 'static
    where
        I: IntoIterator<Item = P>,
        P: Into<AgentId>,
        E: tnsai_fipa::ProposalEvaluator + Send + 'static,
    {
        let this = self.clone();
        let task = task.into();
        let contractors: Vec<AgentId> = contractors.into_iter().map(Into::into).collect();
        async move {
            let link = &this.inner.link;
            let spec = link.hosted.specs.direct();
            let spec = spec.ok_or(ProtocolError::NotConfigured(Paradigm::Direct))?;
            ContractNetHandler::new(spec, link)
                .negotiate(task, contractors, bidding, evaluator)
                .await
        }
    }

    /// Connects a BSPL agent (an adapter with its decision makers) to this manager's
    /// transport: what its decision makers bind is sent to the agents `roster` names for
    /// the recipient roles, and BSPL messages that arrive are fed to it. Call
    /// [`Enactor::start`](crate::bspl::Enactor::start) to run its `Init` decision makers.
    /// An agent has at most one enactor (it may play many roles in many protocols); a
    /// second call replaces the first.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::InvalidArgument`] when a role the agent sends to has no agent in
    /// the roster.
    pub fn enact(
        &self,
        agent: tnsai_bspl::decision::Agent,
        roster: crate::bspl::Roster,
    ) -> Result<crate::bspl::Enactor, ProtocolError> {
        let adapter = agent.adapter();
        for protocol in adapter.protocols() {
            let roles = adapter.roles(protocol.name());
            for message in protocol.messages() {
                if !roles.iter().any(|r| r == message.sender()) {
                    continue;
                }
                for recipient in message.recipients() {
                    if roster.agent(protocol.name(), recipient).is_none() {
                        return Err(ProtocolError::InvalidArgument(format!(
                            "no agent plays role {recipient} of {} in the roster",
                            protocol.name()
                        )));
                    }
                }
            }
        }
        let link = self.inner.link.clone();
        let mode = link
            .hosted
            .specs
            .direct()
            .map_or(TransportMode::Auto, |d| d.transport());
        let enactor = crate::bspl::Enactor::new(link, mode, agent, roster);
        self.inner
            .link
            .hosted
            .register_service(MessageKind::Bspl, enactor.service());
        Ok(enactor)
    }

    /// Starts a debate on `topic` among `participants` (the initiator takes part only if
    /// listed; duplicates count once) and returns its session. This agent hosts the
    /// session and its `#[debate]` attribute sets the rules. Each participant is invited
    /// through the transport and must carry `#[debate]` itself.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::DebateRefused`] with `can_initiate = false` or when a participant
    /// has no `#[debate]`, [`ProtocolError::UnknownReceiver`] for an unknown participant,
    /// [`ProtocolError::InvalidArgument`] for an empty topic or participant list.
    pub fn start_debate<I, P>(
        &self,
        topic: impl Into<String>,
        participants: I,
    ) -> impl Future<Output = Result<DebateSession, ProtocolError>> + Send + 'static
    where
        I: IntoIterator<Item = P>,
        P: Into<AgentId>,
    {
        let this = self.clone();
        let topic = topic.into();
        let participants: Vec<AgentId> = participants.into_iter().map(Into::into).collect();
        async move { this.debate_handler()?.start(topic, participants).await }
    }

    /// Takes a position in the current round of a debate: a stance (compared trimmed and
    /// ignoring case), a confidence (clamped to 1..=10) and an argument. Returns the
    /// session as it stands afterwards.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::DebateNotFound`], and [`ProtocolError::DebateRefused`] for a
    /// non-participant, a second position in the same round, or a finished debate.
    pub fn submit_debate_position(
        &self,
        debate_id: impl AsRef<str>,
        stance: impl Into<String>,
        confidence: i32,
        argument: impl Into<String>,
    ) -> impl Future<Output = Result<DebateSession, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let (id, stance, argument) = (
            debate_id.as_ref().to_owned(),
            stance.into(),
            argument.into(),
        );
        async move {
            this.debate_handler()?
                .submit(id, stance, confidence, argument)
                .await
        }
    }

    /// Votes for (`support = true`) or against a stance. Votes are recorded and shown in
    /// the session, never scored.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::DebateRefused`] with `can_vote = false`, for an agent that is
    /// neither initiator nor participant, or a finished debate;
    /// [`ProtocolError::DebateNotFound`].
    pub fn vote_in_debate(
        &self,
        debate_id: impl AsRef<str>,
        stance: impl Into<String>,
        support: bool,
    ) -> impl Future<Output = Result<DebateSession, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let (id, stance) = (debate_id.as_ref().to_owned(), stance.into());
        async move { this.debate_handler()?.vote(id, stance, support).await }
    }

    /// Argues against `target`'s position, proposing an alternative. Recorded, not scored.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::DebateRefused`] when the target is not a participant, the caller
    /// is neither initiator nor participant, or the debate is finished;
    /// [`ProtocolError::DebateNotFound`].
    pub fn counter_argument(
        &self,
        debate_id: impl AsRef<str>,
        target: impl Into<AgentId>,
        argument: impl Into<String>,
        alternative: impl Into<String>,
    ) -> impl Future<Output = Result<DebateSession, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let id = debate_id.as_ref().to_owned();
        let (target, argument, alternative) = (target.into(), argument.into(), alternative.into());
        async move {
            this.debate_handler()?
                .counter(id, target, argument, alternative)
                .await
        }
    }

    /// A fresh snapshot of a debate, read from its host; the initiator and every
    /// participant may read it.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::DebateNotFound`], or [`ProtocolError::DebateRefused`] for any
    /// other agent.
    pub fn debate(
        &self,
        debate_id: impl AsRef<str>,
    ) -> impl Future<Output = Result<DebateSession, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let id = debate_id.as_ref().to_owned();
        async move { this.debate_handler()?.snapshot(id).await }
    }

    /// Cancels a debate; only its initiator may.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::DebateRefused`] for anyone else or a finished debate;
    /// [`ProtocolError::DebateNotFound`].
    pub fn cancel_debate(
        &self,
        debate_id: impl AsRef<str>,
    ) -> impl Future<Output = Result<DebateSession, ProtocolError>> + Send + 'static {
        let this = self.clone();
        let id = debate_id.as_ref().to_owned();
        async move { this.debate_handler()?.cancel(id).await }
    }

    /// The events of a debate this agent hosts or takes part in, from now on: each
    /// round's tally, then consensus, deadlock or cancellation (after which the stream
    /// ends).
    ///
    /// # Errors
    ///
    /// [`ProtocolError::NotConfigured`] without `#[debate]`,
    /// [`ProtocolError::DebateNotFound`] for a debate this agent is not part of.
    pub fn debate_events(&self, debate_id: impl AsRef<str>) -> Result<DebateEvents, ProtocolError> {
        self.debate_handler()?.events(debate_id.as_ref())
    }

    fn debate_handler(&self) -> Result<&Arc<DebateHandler>, ProtocolError> {
        self.inner
            .debate
            .as_ref()
            .ok_or(ProtocolError::NotConfigured(Paradigm::Debate))
    }

    fn direct(&self) -> Result<DirectHandler<'_>, ProtocolError> {
        let link = &self.inner.link;
        let spec = link.hosted.specs.direct();
        let spec = spec.ok_or(ProtocolError::NotConfigured(Paradigm::Direct))?;
        Ok(DirectHandler::new(spec, link))
    }

    fn broadcast_handler(&self) -> Result<BroadcastHandler<'_>, ProtocolError> {
        let link = &self.inner.link;
        let spec = link.hosted.specs.broadcast();
        let spec = spec.ok_or(ProtocolError::NotConfigured(Paradigm::Broadcast))?;
        Ok(BroadcastHandler::new(spec, link))
    }

    fn pub_sub(&self) -> Result<PubSubHandler<'_>, ProtocolError> {
        let link = &self.inner.link;
        let spec = link.hosted.specs.pub_sub();
        let spec = spec.ok_or(ProtocolError::NotConfigured(Paradigm::PubSub))?;
        Ok(PubSubHandler::new(spec, link))
    }

    fn request_reply(&self) -> Result<RequestReplyHandler<'_>, ProtocolError> {
        let link = &self.inner.link;
        let spec = link.hosted.specs.request_reply();
        let spec = spec.ok_or(ProtocolError::NotConfigured(Paradigm::RequestReply))?;
        Ok(RequestReplyHandler::new(spec, link))
    }
}

impl std::fmt::Debug for ProtocolManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProtocolManager")
            .field("agent_id", self.agent_id())
            .field("paradigms", &self.paradigms())
            .field("started", &self.is_started())
            .finish()
    }
}
