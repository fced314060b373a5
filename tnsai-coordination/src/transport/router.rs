//! Picks the transport that carries each message.

use std::sync::{Arc, RwLock};

use std::time::Duration;

use tnsai_core::{Message, TransportMode};

use crate::answer::into_result;
use crate::pending::PendingReplies;
use crate::transport::{InternalTransport, Transport};
use crate::{DeliveryReport, ProtocolError, TransportError};

/// The platform's outbound side: local receivers go in-process, others to the first
/// remote transport that reaches them.
///
/// A handler passes its attribute's [`TransportMode`]: `Internal` never leaves the
/// process; `Http` and `Nats` prefer a transport of that mode for remote receivers. Local
/// receivers are always served in-process, whatever the mode: the receiving platform is
/// this one.
pub(crate) struct Router {
    pub(crate) internal: Arc<InternalTransport>,
    remotes: RwLock<Vec<Arc<dyn Transport>>>,
}

impl Router {
    pub(crate) fn new(internal: Arc<InternalTransport>) -> Self {
        Self {
            internal,
            remotes: RwLock::new(Vec::new()),
        }
    }

    pub(crate) fn add_remote(&self, transport: Arc<dyn Transport>) {
        self.remotes
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(transport);
    }

    pub(crate) fn remotes(&self) -> Vec<Arc<dyn Transport>> {
        self.remotes
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(crate) async fn send(
        &self,
        message: Message,
        mode: TransportMode,
    ) -> Result<(), TransportError> {
        let Some(receiver) = message.receiver() else {
            return self.internal.send(message).await;
        };
        if let Some(agent) = self.internal.local(receiver) {
            // An answer goes to the local agent only when it is the one waiting: the same
            // id may run on several platforms (a queue group), and the caller may be on
            // another one.
            let waiting_here = !message.kind().is_answer()
                || message
                    .in_reply_to()
                    .is_some_and(|id| agent.pending.is_waiting(id));
            if waiting_here || self.remotes().is_empty() {
                return self.internal.deliver_to(&agent, message).await;
            }
        }
        if mode == TransportMode::Internal {
            return self.internal.send(message).await;
        }
        let remotes = self.remotes();
        let remote = remotes
            .iter()
            .find(|t| t.mode() == mode && t.reaches(receiver))
            .or_else(|| remotes.iter().find(|t| t.reaches(receiver)))
            .cloned();
        // Not local and no transport reaches it: the in-process path still completes
        // answers to gateway callers, and otherwise says `Unknown receiver`.
        match remote {
            Some(transport) => transport.send(message).await,
            None => self.internal.send(message).await,
        }
    }

    /// Sends `message` for a caller waiting in `pending` and returns the answer, at most
    /// `timeout` later (counted from before the send, so a full mailbox counts too).
    /// A local, idle receiver's action runs in the caller's task while it waits.
    pub(crate) async fn call(
        &self,
        pending: &PendingReplies,
        message: Message,
        mode: TransportMode,
        timeout: Option<Duration>,
    ) -> Result<Message, ProtocolError> {
        let (_guard, answer) = pending.register(message.id());
        let exchange = async {
            match self.internal.claim(message) {
                Ok(work) => work.await,
                Err(message) => self.send(message, mode).await?,
            }
            answer.await.map_err(|_| ProtocolError::TransportNotStarted)
        };
        let answer = match timeout {
            Some(limit) => tokio::time::timeout(limit, exchange)
                .await
                .map_err(|_| ProtocolError::Timeout)??,
            None => exchange.await?,
        };
        into_result(answer)
    }

    pub(crate) async fn publish(&self, message: Message, mode: TransportMode) -> DeliveryReport {
        let mut report = self.internal.publish(message.clone()).await;
        if mode == TransportMode::Internal {
            return report;
        }
        for transport in self.remotes() {
            report = report.merge(transport.publish(message.clone()).await);
        }
        report
    }
}
