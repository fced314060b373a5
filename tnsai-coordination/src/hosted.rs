//! The platform's side of one agent: its mailbox, its waiting calls and its services.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use tnsai_core::{Agent, AgentId, BoxFuture, Message, MessageKind, PayloadFilter, ProtocolSpecs};
use tokio::sync::{Notify, mpsc};

use crate::TransportError;
use crate::pending::PendingReplies;

/// Handles one kind of protocol message for an agent (debate steps, ACL conversations,
/// BSPL enactments) and returns the answer to send back, if any.
pub(crate) trait InboundService: Send + Sync {
    fn handle(self: Arc<Self>, message: Message) -> BoxFuture<'static, Option<Message>>;
}

/// One agent as its platform holds it.
///
/// The platform owns this until the agent is terminated; the agent's dispatch task, the
/// directory and the agent's manager share it.
pub(crate) struct HostedAgent {
    pub(crate) id: AgentId,
    pub(crate) agent: Arc<dyn Agent>,
    pub(crate) specs: ProtocolSpecs,
    pub(crate) filter: Option<Box<PayloadFilter>>,
    /// Bounds how many of the agent's actions run at once.
    pub(crate) action_slots: tokio::sync::Semaphore,
    /// `None` is not a message but a wake-up: the dispatch task checks whether the agent
    /// was terminated. (`Option<Message>` is as small as `Message`.)
    mailbox: mpsc::Sender<Option<Message>>,
    pub(crate) pending: PendingReplies,
    started: AtomicBool,
    terminated: AtomicBool,
    /// Wakes a dispatch task that waits for an action slot when the agent is terminated.
    pub(crate) shutdown: Notify,
    services: RwLock<Vec<(MessageKind, Arc<dyn InboundService>)>>,
}

impl HostedAgent {
    pub(crate) fn new(
        id: AgentId,
        agent: Arc<dyn Agent>,
        specs: ProtocolSpecs,
        filter: Option<PayloadFilter>,
        mailbox: mpsc::Sender<Option<Message>>,
        max_concurrent_actions: usize,
    ) -> Self {
        Self {
            id,
            agent,
            specs,
            filter: filter.map(Box::new),
            action_slots: tokio::sync::Semaphore::new(max_concurrent_actions),
            mailbox,
            pending: PendingReplies::default(),
            started: AtomicBool::new(true),
            terminated: AtomicBool::new(false),
            shutdown: Notify::new(),
            services: RwLock::new(Vec::new()),
        }
    }

    /// Whether the agent accepts messages: started and not terminated.
    pub(crate) fn is_started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    pub(crate) fn is_terminated(&self) -> bool {
        self.terminated.load(Ordering::Acquire)
    }

    pub(crate) fn set_started(&self, started: bool) {
        self.started.store(started, Ordering::Release);
        if !started {
            self.pending.fail_all();
        }
    }

    /// Marks the agent terminated and wakes its dispatch task to close the mailbox.
    pub(crate) fn mark_terminated(&self) {
        self.terminated.store(true, Ordering::Release);
        self.set_started(false);
        // A full mailbox needs no wake-up: the task is busy and checks the flag next.
        let _ = self.mailbox.try_send(None);
        self.shutdown.notify_one();
    }

    /// Whether nothing waits in the mailbox.
    pub(crate) fn mailbox_is_empty(&self) -> bool {
        self.mailbox.capacity() == self.mailbox.max_capacity()
    }

    /// Whether a broadcast or publication with this payload passes the agent's filter.
    pub(crate) fn accepts(&self, payload: &serde_json::Value) -> bool {
        self.filter.as_ref().is_none_or(|f| f.matches(payload))
    }

    pub(crate) fn register_service(&self, kind: MessageKind, service: Arc<dyn InboundService>) {
        let mut services = self.services.write().unwrap_or_else(|e| e.into_inner());
        services.retain(|(k, _)| *k != kind);
        services.push((kind, service));
    }

    pub(crate) fn service(&self, kind: MessageKind) -> Option<Arc<dyn InboundService>> {
        let services = self.services.read().unwrap_or_else(|e| e.into_inner());
        services
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, s)| Arc::clone(s))
    }

    pub(crate) fn clear_services(&self) {
        self.services
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Puts a message where it belongs: an answer completes the call waiting for it (a
    /// late answer is dropped), anything else waits in the bounded mailbox, so a flood
    /// makes its senders wait instead of growing memory.
    pub(crate) async fn deliver(&self, message: Message) -> Result<(), TransportError> {
        if message.kind().is_answer() {
            let completed = message
                .in_reply_to()
                .is_some_and(|id| self.pending.complete(id, message.clone()));
            if !completed {
                tracing::debug!(
                    agent_id = %self.id,
                    message_id = %message.id(),
                    "dropping an answer that no call is waiting for (late or duplicate)"
                );
            }
            return Ok(());
        }
        if self.is_terminated() {
            return Err(TransportError::unavailable(self.id.clone(), "terminated"));
        }
        if !self.is_started() {
            return Err(TransportError::unavailable(self.id.clone(), "not started"));
        }
        self.mailbox
            .send(Some(message))
            .await
            .map_err(|_| TransportError::unavailable(self.id.clone(), "terminated"))
    }
}

impl std::fmt::Debug for HostedAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostedAgent")
            .field("id", &self.id)
            .field("started", &self.is_started())
            .field("terminated", &self.is_terminated())
            .field("waiting_calls", &self.pending.len())
            .finish_non_exhaustive()
    }
}
