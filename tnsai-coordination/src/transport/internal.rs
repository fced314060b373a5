//! In-process delivery into the mailboxes of one platform's agents.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use tnsai_core::{AgentId, BoxFuture, Message, TransportMode};

use crate::directory::Directory;
use crate::pending::PendingReplies;
use crate::platform::PlatformCore;
use crate::transport::Transport;
use crate::{DeliveryReport, TransportError};

/// The in-process transport: delivers straight into the bounded mailboxes of the agents
/// on the same [`Platform`](crate::Platform).
///
/// Sending fails with `Transport not started` after [`stop`](Transport::stop) and with
/// `Unknown receiver: <id>` for an agent the platform does not host.
pub struct InternalTransport {
    directory: Arc<Directory>,
    /// Answers to callers that are not agents (`Platform::call`).
    gateway: Arc<PendingReplies>,
    /// The platform, to start action tasks directly (see `deliver_to`).
    platform: Weak<PlatformCore>,
    started: AtomicBool,
}

impl InternalTransport {
    pub(crate) fn new(
        directory: Arc<Directory>,
        gateway: Arc<PendingReplies>,
        platform: Weak<PlatformCore>,
    ) -> Self {
        Self {
            directory,
            gateway,
            platform,
            started: AtomicBool::new(true),
        }
    }

    /// For a caller that will wait for the answer: the receiver's work, to drive in the
    /// caller's task, when the receiver is local and idle. Otherwise the message comes
    /// back, to be sent the usual way.
    pub(crate) fn claim(&self, message: Message) -> Result<crate::detached::Detached, Message> {
        if !self.is_started() {
            return Err(message);
        }
        let agent = message.receiver().and_then(|id| self.local(id));
        match (agent, self.platform.upgrade()) {
            (Some(agent), Some(platform)) => crate::dispatch::claim_now(&agent, &platform, message),
            _ => Err(message),
        }
    }

    /// The local agent with this id, if the platform hosts it.
    pub(crate) fn local(&self, id: &AgentId) -> Option<Arc<crate::hosted::HostedAgent>> {
        self.directory.get(id.as_str())
    }

    /// Delivers to a local agent found with [`local`](Self::local), saving a second
    /// directory lookup on the hot path.
    pub(crate) async fn deliver_to(
        &self,
        agent: &Arc<crate::hosted::HostedAgent>,
        message: Message,
    ) -> Result<(), TransportError> {
        if !self.is_started() {
            return Err(TransportError::not_started());
        }
        let message = match self.platform.upgrade() {
            Some(platform) => match crate::dispatch::claim_now(agent, &platform, message) {
                Ok(work) => {
                    work.spawn();
                    return Ok(());
                }
                Err(message) => message,
            },
            None => message,
        };
        agent.deliver(message).await
    }

    async fn send_now(&self, message: Message) -> Result<(), TransportError> {
        if !self.is_started() {
            return Err(TransportError::not_started());
        }
        let Some(receiver) = message.receiver() else {
            return Err(TransportError::new(
                crate::TransportErrorKind::Delivery,
                "a message sent to one agent must name its receiver",
            ));
        };
        let Some(agent) = self.directory.get(receiver.as_str()) else {
            if message.kind().is_answer()
                && let Some(id) = message.in_reply_to()
                && self.gateway.complete(id, message.clone())
            {
                return Ok(());
            }
            return Err(TransportError::unknown_receiver(receiver.clone()));
        };
        self.deliver_to(&agent, message).await
    }

    async fn publish_now(&self, message: Message) -> DeliveryReport {
        if !self.is_started() {
            return DeliveryReport::default();
        }
        let Some(topic) = message.topic() else {
            return DeliveryReport::default();
        };
        let subscribers = self
            .directory
            .subscribers(topic, message.payload(), message.sender());
        let mut delivered = Vec::with_capacity(subscribers.len());
        let mut failed = Vec::new();
        for agent in subscribers {
            match agent.deliver(message.clone()).await {
                Ok(()) => delivered.push(agent.id.clone()),
                Err(error) => failed.push((agent.id.clone(), error.to_string())),
            }
        }
        DeliveryReport::new(delivered, failed)
    }
}

impl Transport for InternalTransport {
    fn mode(&self) -> TransportMode {
        TransportMode::Internal
    }

    fn start(&self) -> BoxFuture<'_, Result<(), TransportError>> {
        self.started.store(true, Ordering::Release);
        Box::pin(std::future::ready(Ok(())))
    }

    fn stop(&self) -> BoxFuture<'_, ()> {
        self.started.store(false, Ordering::Release);
        Box::pin(std::future::ready(()))
    }

    fn is_started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    fn reaches(&self, agent: &AgentId) -> bool {
        self.directory.contains(agent.as_str())
    }

    fn send(&self, message: Message) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(self.send_now(message))
    }

    fn publish(&self, message: Message) -> BoxFuture<'_, DeliveryReport> {
        Box::pin(self.publish_now(message))
    }
}
