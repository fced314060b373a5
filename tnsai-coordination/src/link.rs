//! A manager's connection to its platform: how calls go out and answers come back.

use std::sync::{Arc, Weak};
use std::time::Duration;

use tnsai_core::{AgentId, Message, TransportMode};
use tracing::Instrument;

use crate::answer::paradigm_of;
use crate::hosted::HostedAgent;
use crate::platform::PlatformCore;
use crate::{DeliveryReport, ProtocolError};

/// What every paradigm handler sends through: the agent's waiting calls and a weak
/// reference to its platform (weak, so that a manager kept after shutdown cannot keep
/// the platform alive; its calls answer "Transport not started").
#[derive(Clone)]
pub(crate) struct Link {
    pub(crate) hosted: Arc<HostedAgent>,
    core: Weak<PlatformCore>,
}

impl Link {
    pub(crate) fn new(hosted: Arc<HostedAgent>, core: Weak<PlatformCore>) -> Self {
        Self { hosted, core }
    }

    pub(crate) fn id(&self) -> &AgentId {
        &self.hosted.id
    }

    /// The platform, when this agent may send now.
    pub(crate) fn ready(&self) -> Result<Arc<PlatformCore>, ProtocolError> {
        if !self.hosted.is_started() {
            return Err(ProtocolError::TransportNotStarted);
        }
        self.core
            .upgrade()
            .ok_or(ProtocolError::TransportNotStarted)
    }

    /// Sends `message` and waits for its answer (at most `timeout`, counted from before
    /// the send, so a full mailbox at the receiver counts too).
    pub(crate) async fn call(
        &self,
        message: Message,
        mode: TransportMode,
        timeout: Option<Duration>,
    ) -> Result<Message, ProtocolError> {
        let core = self.ready()?;
        let span = tracing::info_span!(
            "tnsai.call",
            agent_id = %self.hosted.id,
            paradigm = paradigm_of(message.kind()),
            message_id = %message.id(),
        );
        core.router
            .call(&self.hosted.pending, message, mode, timeout)
            .instrument(span)
            .await
    }

    /// Sends `message` without waiting for an answer.
    pub(crate) async fn send(
        &self,
        message: Message,
        mode: TransportMode,
    ) -> Result<(), ProtocolError> {
        let core = self.ready()?;
        let span = tracing::info_span!(
            "tnsai.send",
            agent_id = %self.hosted.id,
            paradigm = paradigm_of(message.kind()),
            message_id = %message.id(),
        );
        core.router
            .send(message, mode)
            .instrument(span)
            .await
            .map_err(ProtocolError::from)
    }

    /// Delivers a broadcast or publication to every subscriber of its topic.
    pub(crate) async fn publish(
        &self,
        message: Message,
        mode: TransportMode,
    ) -> Result<DeliveryReport, ProtocolError> {
        let core = self.ready()?;
        let span = tracing::info_span!(
            "tnsai.publish",
            agent_id = %self.hosted.id,
            paradigm = paradigm_of(message.kind()),
            message_id = %message.id(),
        );
        Ok(core.router.publish(message, mode).instrument(span).await)
    }
}
