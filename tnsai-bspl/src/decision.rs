//! Decision makers, as in the Kiko programming model: functions registered
//! for events that look at the enabled message forms and bind some of them.
//!
//! An [`Agent`] couples an [`Adapter`] with its decision makers. Each call
//! ([`Agent::init`], [`Agent::receive`], [`Agent::inject`]) dispatches the
//! event to the decision makers registered for it, sends what they bound
//! through the adapter's checks, and, while that changes the enabled set,
//! dispatches [`Event::EnabledChanged`] again. What they bound but the
//! adapter refused comes back in [`Step::rejected`], with the reason; it is
//! never sent. Everything is synchronous: the networking layer calls these
//! methods and ships [`Step::sent`].
//!
//! ```
//! use std::sync::Arc;
//! use tnsai_bspl::{Adapter, Specification};
//! use tnsai_bspl::decision::{Agent, DecisionContext, Trigger};
//!
//! let spec = Specification::parse(include_str!("../protocols/purchase.bspl"))?;
//! let purchase = Arc::new(spec.into_protocol("Purchase").ok_or("no Purchase")?);
//! let mut adapter = Adapter::new("seller");
//! adapter.play(purchase, &["Seller"])?;
//! let mut seller = Agent::new(adapter);
//! // Quote 10 for anything asked about.
//! seller.on(Trigger::EnabledChanged, |context: &DecisionContext<'_>| {
//!     context.enabled_named("quote").map(|form| form.bind([("price", "10")])).collect()
//! });
//!
//! let rfq = tnsai_bspl::MessageInstance::new(
//!     "Purchase", "rfq", "Buyer", [("ID", "7"), ("item", "kite")],
//! );
//! let step = seller.receive(rfq)?;
//! assert_eq!(step.sent.len(), 1);
//! assert_eq!(step.sent[0].get("price"), Some("10"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeSet;

use serde::Serialize;

use crate::adapter::{Adapter, EmitError, Emitted, ReceiveError, Received};
use crate::message::{EnabledMessage, MessageInstance};

/// What a decision maker reacts to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The agent starts.
    Init,
    /// A message was received and accepted.
    Received {
        /// The message.
        message: MessageInstance,
    },
    /// The enabled set changed (after a reception, an emission or an
    /// earlier decision).
    EnabledChanged {
        /// Forms that became enabled.
        added: Vec<EnabledMessage>,
        /// Forms that stopped being enabled.
        removed: Vec<EnabledMessage>,
    },
    /// Something happened outside the protocols (a user request, a timer, a
    /// stock update...), injected by the application.
    External {
        /// What happened.
        name: String,
        /// Its details.
        payload: serde_json::Value,
    },
}

/// Which events a decision maker is registered for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// [`Event::Init`].
    Init,
    /// [`Event::Received`], of any message or only of the one named (unique
    /// or qualified name).
    Received(Option<String>),
    /// [`Event::EnabledChanged`].
    EnabledChanged,
    /// [`Event::External`], of any name or only of the one given.
    External(Option<String>),
    /// Every event.
    Any,
}

impl Trigger {
    /// Reception of the message called `message`.
    pub fn received(message: impl Into<String>) -> Self {
        Self::Received(Some(message.into()))
    }

    /// The external event called `name`.
    pub fn external(name: impl Into<String>) -> Self {
        Self::External(Some(name.into()))
    }

    /// Whether the trigger fires on `event`.
    pub fn matches(&self, event: &Event) -> bool {
        match (self, event) {
            (Self::Any, _) | (Self::Init, Event::Init) => true,
            (Self::EnabledChanged, Event::EnabledChanged { .. }) => true,
            (Self::Received(filter), Event::Received { message }) => {
                filter.as_deref().is_none_or(|wanted| {
                    wanted == message.message
                        || wanted == format!("{}/{}", message.protocol, message.message)
                })
            }
            (Self::External(filter), Event::External { name, .. }) => {
                filter.as_deref().is_none_or(|wanted| wanted == name)
            }
            _ => false,
        }
    }
}

/// What a decision maker sees.
#[derive(Debug, Clone, Copy)]
pub struct DecisionContext<'a> {
    /// The event being handled.
    pub event: &'a Event,
    /// Every form currently enabled for the agent.
    pub enabled: &'a [EnabledMessage],
    /// The adapter: protocols, roles and histories, read-only.
    pub adapter: &'a Adapter,
}

impl<'a> DecisionContext<'a> {
    /// Enabled forms of the message called `message` (unique name).
    pub fn enabled_named(&self, message: &'a str) -> impl Iterator<Item = &'a EnabledMessage> {
        self.enabled
            .iter()
            .filter(move |form| form.message == message)
    }
}

/// Something that decides which enabled forms to send, and with what `out`
/// values. `Send`, so that an agent can be driven from any thread of an async
/// runtime.
pub trait DecisionMaker: Send {
    /// Returns the messages to send (usually built with
    /// [`EnabledMessage::bind`]); the adapter checks each one.
    fn decide(&mut self, context: &DecisionContext<'_>) -> Vec<MessageInstance>;
}

impl<F> DecisionMaker for F
where
    F: FnMut(&DecisionContext<'_>) -> Vec<MessageInstance> + Send,
{
    fn decide(&mut self, context: &DecisionContext<'_>) -> Vec<MessageInstance> {
        self(context)
    }
}

/// A message a decision maker bound that the adapter refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The message as bound.
    pub message: MessageInstance,
    /// Why it was refused.
    pub error: EmitError,
}

/// What handling one event produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Step {
    /// How the adapter took the received message, for [`Agent::receive`].
    pub reception: Option<Received>,
    /// Messages to hand to the transport, in order.
    pub sent: Vec<MessageInstance>,
    /// Bound messages identical to ones already sent (not sent again).
    pub duplicates: Vec<MessageInstance>,
    /// Bound messages the adapter refused.
    pub rejected: Vec<Rejected>,
    /// Whether dispatching stopped at [`Agent::max_rounds`] while the
    /// enabled set was still changing.
    pub round_limit_reached: bool,
}

type Registration = (Trigger, Box<dyn DecisionMaker>);

/// An adapter with decision makers.
pub struct Agent {
    adapter: Adapter,
    makers: Vec<Registration>,
    max_rounds: usize,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("adapter", &self.adapter)
            .field(
                "triggers",
                &self.makers.iter().map(|(t, _)| t).collect::<Vec<_>>(),
            )
            .field("max_rounds", &self.max_rounds)
            .finish()
    }
}

impl Agent {
    /// Rounds of [`Event::EnabledChanged`] dispatched per call by default.
    pub const DEFAULT_MAX_ROUNDS: usize = 64;

    /// An agent around `adapter`, with no decision makers.
    pub fn new(adapter: Adapter) -> Self {
        Self {
            adapter,
            makers: Vec::new(),
            max_rounds: Self::DEFAULT_MAX_ROUNDS,
        }
    }

    /// Sets how many dispatch rounds one call may run (at least one).
    pub fn with_max_rounds(mut self, rounds: usize) -> Self {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Rounds one call may run.
    pub fn max_rounds(&self) -> usize {
        self.max_rounds
    }

    /// Registers `maker` for events matching `trigger`; makers run in
    /// registration order.
    pub fn on(&mut self, trigger: Trigger, maker: impl DecisionMaker + 'static) -> &mut Self {
        self.makers.push((trigger, Box::new(maker)));
        self
    }

    /// The adapter.
    pub fn adapter(&self) -> &Adapter {
        &self.adapter
    }

    /// The adapter, e.g. to send a message directly or set terminations.
    pub fn adapter_mut(&mut self) -> &mut Adapter {
        &mut self.adapter
    }

    /// Handles [`Event::Init`]: every initially enabled form counts as added.
    pub fn init(&mut self) -> Step {
        self.dispatch(Event::Init, BTreeSet::new(), Step::default())
    }

    /// Records a received message and handles [`Event::Received`]. An
    /// exact repeat is reported in [`Step::reception`] and triggers nothing.
    pub fn receive(&mut self, message: MessageInstance) -> Result<Step, ReceiveError> {
        let before: BTreeSet<EnabledMessage> = self.adapter.enabled().into_iter().collect();
        let reception = self.adapter.receive(message.clone())?;
        let step = Step {
            reception: Some(reception),
            ..Step::default()
        };
        if reception == Received::Duplicate {
            return Ok(step);
        }
        Ok(self.dispatch(Event::Received { message }, before, step))
    }

    /// Handles an [`Event::External`] injected by the application.
    pub fn inject(&mut self, name: impl Into<String>, payload: serde_json::Value) -> Step {
        let before = self.adapter.enabled().into_iter().collect();
        let event = Event::External {
            name: name.into(),
            payload,
        };
        self.dispatch(event, before, Step::default())
    }

    /// Sends messages decided outside the agent (for instance by an asynchronous
    /// decision maker that asked a language model) through the adapter's checks, then
    /// lets the registered makers react to the enabled set changing, as after any
    /// other emission. Refused messages come back in [`Step::rejected`], never sent.
    pub fn submit(&mut self, bound: Vec<MessageInstance>) -> Step {
        let before: BTreeSet<EnabledMessage> = self.adapter.enabled().into_iter().collect();
        let mut step = Step::default();
        for message in bound {
            match self.adapter.emit(message.clone()) {
                Ok(Emitted::Sent(sent)) => step.sent.push(sent),
                Ok(Emitted::Duplicate(repeat)) => step.duplicates.push(repeat),
                Err(error) => step.rejected.push(Rejected { message, error }),
            }
        }
        let after: BTreeSet<EnabledMessage> = self.adapter.enabled().into_iter().collect();
        let added: Vec<EnabledMessage> = after.difference(&before).cloned().collect();
        let removed: Vec<EnabledMessage> = before.difference(&after).cloned().collect();
        if added.is_empty() && removed.is_empty() {
            return step;
        }
        self.dispatch(Event::EnabledChanged { added, removed }, after, step)
    }

    fn dispatch(
        &mut self,
        mut event: Event,
        mut before: BTreeSet<EnabledMessage>,
        mut step: Step,
    ) -> Step {
        for _ in 0..self.max_rounds {
            let enabled = self.adapter.enabled();
            let mut bound = Vec::new();
            let context = DecisionContext {
                event: &event,
                enabled: &enabled,
                adapter: &self.adapter,
            };
            for (trigger, maker) in &mut self.makers {
                if trigger.matches(&event) {
                    bound.extend(maker.decide(&context));
                }
            }
            for message in bound {
                match self.adapter.emit(message.clone()) {
                    Ok(Emitted::Sent(sent)) => step.sent.push(sent),
                    Ok(Emitted::Duplicate(repeat)) => step.duplicates.push(repeat),
                    Err(error) => step.rejected.push(Rejected { message, error }),
                }
            }
            let after: BTreeSet<EnabledMessage> = self.adapter.enabled().into_iter().collect();
            let added: Vec<EnabledMessage> = after.difference(&before).cloned().collect();
            let removed: Vec<EnabledMessage> = before.difference(&after).cloned().collect();
            if added.is_empty() && removed.is_empty() {
                return step;
            }
            event = Event::EnabledChanged { added, removed };
            before = after;
        }
        step.round_limit_reached = true;
        step
    }
}
