//! An agent enacting BSPL protocols over the platform's transport.

use std::collections::BTreeSet;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tnsai_bspl::decision::{Agent as DecisionAgent, Event, Step, Trigger};
use tnsai_bspl::{Adapter, EnabledMessage, MessageInstance};
use tnsai_core::{AgentId, BoxFuture, Message, MessageKind, TransportMode};
use tokio::sync::{Mutex, broadcast, watch};

use super::Roster;
use crate::ProtocolError;
use crate::hosted::InboundService;
use crate::link::Link;

/// What an asynchronous decision maker sees: the event, the forms enabled for the agent,
/// and a snapshot of its adapter (protocols, roles, histories), taken when the event was
/// handled. Trying a bound message on a clone of the snapshot tells whether the adapter
/// will accept it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EnactmentContext {
    /// The agent deciding.
    pub agent: AgentId,
    /// What happened.
    pub event: Event,
    /// Every form the agent may send now.
    pub enabled: Vec<EnabledMessage>,
    /// The adapter as it stood.
    pub adapter: Adapter,
}

/// A decision maker that needs to wait (for a language model, a database, a person):
/// it runs outside the enactor's lock, and what it binds goes through the adapter's
/// checks before anything is sent.
pub trait AsyncDecisionMaker: Send + Sync + 'static {
    /// The messages to send, each an enabled form with its `out` parameters bound.
    fn decide<'a>(&'a self, context: &'a EnactmentContext) -> BoxFuture<'a, Vec<MessageInstance>>;
}

/// What happened in an enactment, for observers (logs, sequence diagrams, tests).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EnactmentEvent {
    /// A message left for the agent playing its recipient role.
    Sent {
        /// The receiving agent.
        to: AgentId,
        /// The message.
        message: MessageInstance,
        /// When it left (taken before handing it to the transport, so the order of
        /// these instants follows causality: an answer never precedes its cause).
        at: std::time::Instant,
    },
    /// A message was received and accepted.
    Received {
        /// The sending agent.
        from: AgentId,
        /// The message.
        message: MessageInstance,
    },
    /// A received message repeated one already received; it changed nothing.
    Duplicate {
        /// The message.
        message: MessageInstance,
    },
    /// A decision maker bound a message the adapter refused; it was not sent.
    Refused {
        /// The message as bound.
        message: MessageInstance,
        /// Why.
        reason: String,
    },
    /// A received message contradicted the history, or came from an agent that does not
    /// play its sender role; it was not accepted.
    Inconsistent {
        /// The sending agent.
        from: AgentId,
        /// The message.
        message: MessageInstance,
        /// Why.
        reason: String,
    },
    /// A sent message could not be carried to its receiver.
    Undelivered {
        /// The receiving agent.
        to: AgentId,
        /// The message.
        message: MessageInstance,
        /// Why.
        reason: String,
    },
    /// A role reached its termination condition.
    Done {
        /// The protocol.
        protocol: String,
        /// The role.
        role: String,
    },
}

struct State {
    agent: DecisionAgent,
    done: BTreeSet<(String, String)>,
}

pub(crate) struct EnactorInner {
    link: Link,
    mode: TransportMode,
    roster: Roster,
    state: Mutex<State>,
    makers: RwLock<Vec<(Trigger, Arc<dyn AsyncDecisionMaker>)>>,
    events: broadcast::Sender<EnactmentEvent>,
    all_done: watch::Sender<bool>,
}

/// An agent enacting BSPL protocols: its adapter and decision makers, connected to the
/// platform's transport. Messages travel as ordinary tnsai messages (kind `bspl`,
/// the [`MessageInstance`] JSON as payload) to the agents the [`Roster`] names.
///
/// Make one with [`ProtocolManager::enact`](crate::ProtocolManager::enact), then
/// [`start`](Self::start) it. Events are handled one at a time; asynchronous decision
/// makers run between them without holding the enactment up.
#[derive(Clone)]
pub struct Enactor {
    inner: Arc<EnactorInner>,
}

impl Enactor {
    pub(crate) fn new(
        link: Link,
        mode: TransportMode,
        agent: DecisionAgent,
        roster: Roster,
    ) -> Self {
        let (events, _) = broadcast::channel(1024);
        let (all_done, _) = watch::channel(false);
        Self {
            inner: Arc::new(EnactorInner {
                link,
                mode,
                roster,
                state: Mutex::new(State {
                    agent,
                    done: BTreeSet::new(),
                }),
                makers: RwLock::new(Vec::new()),
                events,
                all_done,
            }),
        }
    }

    pub(crate) fn service(&self) -> Arc<dyn InboundService> {
        Arc::new(self.clone())
    }

    /// Registers an asynchronous decision maker for events matching `trigger`.
    pub fn on_async(&self, trigger: Trigger, maker: impl AsyncDecisionMaker) -> &Self {
        self.inner
            .makers
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push((trigger, Arc::new(maker)));
        self
    }

    /// Observes the enactment from now on.
    pub fn events(&self) -> broadcast::Receiver<EnactmentEvent> {
        self.inner.events.subscribe()
    }

    /// A snapshot of the adapter: protocols, roles, histories.
    pub async fn adapter(&self) -> Adapter {
        self.inner.state.lock().await.agent.adapter().clone()
    }

    /// The forms the agent may send now.
    pub async fn enabled(&self) -> Vec<EnabledMessage> {
        self.inner.state.lock().await.agent.adapter().enabled()
    }

    /// Whether every role the agent plays reached its termination condition.
    pub async fn is_done(&self) -> bool {
        self.inner.state.lock().await.agent.adapter().all_done()
    }

    /// Waits until every role reached its termination condition.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::Timeout`] when `timeout` passes first.
    pub async fn wait_done(&self, timeout: Duration) -> Result<(), ProtocolError> {
        let mut done = self.inner.all_done.subscribe();
        tokio::time::timeout(timeout, done.wait_for(|done| *done))
            .await
            .map_err(|_| ProtocolError::Timeout)?
            .map(|_| ())
            .map_err(|_| ProtocolError::TransportNotStarted)
    }

    /// Starts the enactment: the decision makers registered for `Init` run, and what
    /// they bind is sent.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::TransportNotStarted`] when the agent's manager is stopped.
    pub async fn start(&self) -> Result<Step, ProtocolError> {
        self.inner.link.ready()?;
        let (step, event, snapshot) = {
            let mut state = self.inner.state.lock().await;
            let step = state.agent.init();
            (step, Event::Init, state.agent.adapter().clone())
        };
        Ok(self.follow_up(step, event, snapshot).await)
    }

    /// Injects an event from outside the protocols (a user request, a timer, a stock
    /// update): the decision makers registered for it run.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::TransportNotStarted`] when the agent's manager is stopped.
    pub async fn inject(
        &self,
        name: impl Into<String>,
        payload: serde_json::Value,
    ) -> Result<Step, ProtocolError> {
        self.inner.link.ready()?;
        let name = name.into();
        let (step, snapshot) = {
            let mut state = self.inner.state.lock().await;
            let step = state.agent.inject(name.clone(), payload.clone());
            (step, state.agent.adapter().clone())
        };
        Ok(self
            .follow_up(step, Event::External { name, payload }, snapshot)
            .await)
    }

    /// Sends what a step produced, reports what it refused, then lets the asynchronous
    /// decision makers react, for as long as their emissions change the enabled set.
    async fn follow_up(&self, step: Step, event: Event, snapshot: Adapter) -> Step {
        let mut total = step;
        self.ship(&total).await;
        let mut event = event;
        let mut snapshot = snapshot;
        for _ in 0..DecisionAgent::DEFAULT_MAX_ROUNDS {
            let makers: Vec<Arc<dyn AsyncDecisionMaker>> = self
                .inner
                .makers
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .filter(|(trigger, _)| trigger.matches(&event))
                .map(|(_, maker)| Arc::clone(maker))
                .collect();
            if makers.is_empty() {
                break;
            }
            let context = EnactmentContext {
                agent: self.inner.link.id().clone(),
                enabled: snapshot.enabled(),
                event,
                adapter: snapshot,
            };
            let mut bound = Vec::new();
            for maker in makers {
                bound.extend(maker.decide(&context).await);
            }
            if bound.is_empty() {
                break;
            }
            let (step, after) = {
                let mut state = self.inner.state.lock().await;
                let step = state.agent.submit(bound);
                (step, state.agent.adapter().clone())
            };
            self.ship(&step).await;
            let before: BTreeSet<EnabledMessage> = context.enabled.into_iter().collect();
            let now: BTreeSet<EnabledMessage> = after.enabled().into_iter().collect();
            let changed = before != now;
            merge(&mut total, step);
            if !changed {
                break;
            }
            event = Event::EnabledChanged {
                added: now.difference(&before).cloned().collect(),
                removed: before.difference(&now).cloned().collect(),
            };
            snapshot = after;
        }
        self.check_done().await;
        total
    }

    /// Sends a step's messages to the agents playing their recipient roles.
    async fn ship(&self, step: &Step) {
        for rejected in &step.rejected {
            self.publish(EnactmentEvent::Refused {
                message: rejected.message.clone(),
                reason: rejected.error.to_string(),
            });
        }
        for message in &step.sent {
            for role in &message.recipients {
                let Some(to) = self.inner.roster.agent(&message.protocol, role) else {
                    self.publish(EnactmentEvent::Undelivered {
                        to: AgentId::from(format!("<{}:{role}>", message.protocol)),
                        message: message.clone(),
                        reason: format!("no agent plays role {role} of {}", message.protocol),
                    });
                    continue;
                };
                let at = std::time::Instant::now();
                let outcome = match to_message(self.inner.link.id(), &to, message) {
                    Ok(carrier) => self.inner.link.send(carrier, self.inner.mode).await,
                    Err(error) => Err(error),
                };
                match outcome {
                    Ok(()) => self.publish(EnactmentEvent::Sent {
                        to,
                        message: message.clone(),
                        at,
                    }),
                    Err(error) => self.publish(EnactmentEvent::Undelivered {
                        to,
                        message: message.clone(),
                        reason: error.to_string(),
                    }),
                }
            }
        }
    }

    async fn check_done(&self) {
        let mut state = self.inner.state.lock().await;
        let adapter = state.agent.adapter();
        let mut finished = Vec::new();
        for protocol in adapter.protocols() {
            for role in adapter.roles(protocol.name()) {
                if adapter.is_done(protocol.name(), role) {
                    finished.push((protocol.name().to_owned(), role.clone()));
                }
            }
        }
        let all_done = adapter.all_done();
        for (protocol, role) in finished {
            if state.done.insert((protocol.clone(), role.clone())) {
                self.publish(EnactmentEvent::Done { protocol, role });
            }
        }
        drop(state);
        self.inner.all_done.send_replace(all_done);
    }

    fn publish(&self, event: EnactmentEvent) {
        tracing::debug!(agent_id = %self.inner.link.id(), ?event, "bspl");
        // Nobody watching is fine.
        let _ = self.inner.events.send(event);
    }

    /// A `bspl` message from another agent.
    async fn receive(&self, carrier: Message) {
        let from = carrier.sender().clone();
        let message: MessageInstance = match serde_json::from_value(carrier.payload().clone()) {
            Ok(message) => message,
            Err(error) => {
                tracing::warn!(%from, %error, "a bspl message that is not a BSPL message instance");
                return;
            }
        };
        if self
            .inner
            .roster
            .agent(&message.protocol, &message.sender)
            .as_ref()
            != Some(&from)
        {
            self.publish(EnactmentEvent::Inconsistent {
                reason: format!(
                    "agent {from} does not play role {} of {}",
                    message.sender, message.protocol
                ),
                from,
                message,
            });
            return;
        }
        let outcome = {
            let mut state = self.inner.state.lock().await;
            state
                .agent
                .receive(message.clone())
                .map(|step| (step, state.agent.adapter().clone()))
        };
        match outcome {
            Ok((step, snapshot)) => {
                if step.reception == Some(tnsai_bspl::Received::Duplicate) {
                    self.publish(EnactmentEvent::Duplicate { message });
                    return;
                }
                self.publish(EnactmentEvent::Received {
                    from,
                    message: message.clone(),
                });
                self.follow_up(step, Event::Received { message }, snapshot)
                    .await;
            }
            Err(error) => self.publish(EnactmentEvent::Inconsistent {
                from,
                message,
                reason: error.to_string(),
            }),
        }
    }
}

impl InboundService for Enactor {
    fn handle(self: Arc<Self>, message: Message) -> BoxFuture<'static, Option<Message>> {
        Box::pin(async move {
            self.receive(message).await;
            None
        })
    }
}

impl std::fmt::Debug for Enactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Enactor")
            .field("agent", self.inner.link.id())
            .finish_non_exhaustive()
    }
}

fn merge(total: &mut Step, step: Step) {
    total.sent.extend(step.sent);
    total.duplicates.extend(step.duplicates);
    total.rejected.extend(step.rejected);
    total.round_limit_reached |= step.round_limit_reached;
}

/// Wraps a BSPL message for the agent playing one of its recipient roles. The
/// conversation is the protocol and the message's key bindings, e.g. `Purchase[ID=7]`.
fn to_message(
    from: &AgentId,
    to: &AgentId,
    message: &MessageInstance,
) -> Result<Message, ProtocolError> {
    let payload =
        serde_json::to_value(message).map_err(|e| ProtocolError::InvalidPayload(e.to_string()))?;
    Ok(Message::builder(MessageKind::Bspl, from.clone())
        .receiver(to.clone())
        .action(message.message.as_str())
        .payload(payload)
        .build())
}
