//! Transports: what carries a message from one agent to another.
//!
//! A transport knows envelopes, never paradigms: it carries a [`Message`] to the agent its
//! `receiver` names, or, for a broadcast or publication, to every agent it reaches that
//! subscribes to the message's topic. Handlers never know which transport carries their
//! messages; the platform's router picks one per receiver.

#[cfg(feature = "http")]
pub mod http;
mod internal;
#[cfg(feature = "nats")]
pub mod nats;
pub(crate) mod router;

pub use internal::InternalTransport;

use tnsai_core::{AgentId, BoxFuture, Message, TransportMode};

use crate::{AgentDescription, DeliveryReport, TransportError};

/// A carrier of messages between agents.
///
/// Every method is asynchronous and the trait is object-safe: the platform holds its
/// transports as `Arc<dyn Transport>`. A transport hands the messages it receives to its
/// platform with [`Platform::deliver`](crate::Platform::deliver).
pub trait Transport: Send + Sync + 'static {
    /// Which mode this transport implements.
    fn mode(&self) -> TransportMode;

    /// Starts carrying messages.
    fn start(&self) -> BoxFuture<'_, Result<(), TransportError>>;

    /// Stops carrying messages; sends fail with "Transport not started" afterwards.
    fn stop(&self) -> BoxFuture<'_, ()>;

    /// Whether the transport is started.
    fn is_started(&self) -> bool;

    /// Whether this transport can reach `agent` (it is local, or discovered elsewhere).
    fn reaches(&self, agent: &AgentId) -> bool;

    /// Carries `message` to the agent its `receiver` names.
    fn send(&self, message: Message) -> BoxFuture<'_, Result<(), TransportError>>;

    /// Carries a broadcast or publication to every subscriber of its topic that this
    /// transport reaches, except its sender, and reports who got it.
    fn publish(&self, message: Message) -> BoxFuture<'_, DeliveryReport>;

    /// A local agent was spawned: a transport that announces agents to other platforms
    /// does it here. The default does nothing.
    fn agent_joined(&self, agent: &AgentDescription) -> BoxFuture<'_, ()> {
        let _ = agent;
        Box::pin(std::future::ready(()))
    }

    /// A local agent was terminated. The default does nothing.
    fn agent_left(&self, agent: &AgentId) -> BoxFuture<'_, ()> {
        let _ = agent;
        Box::pin(std::future::ready(()))
    }
}
