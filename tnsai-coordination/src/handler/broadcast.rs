//! `#[broadcast(topic = ..)]`: one message to everyone listening on the agent's topic.

use serde_json::Value;
use tnsai_core::{BroadcastSpec, Message, MessageKind, Paradigm};

use crate::link::Link;
use crate::{DeliveryReport, ProtocolError};

pub(crate) struct BroadcastHandler {
    spec: BroadcastSpec,
}

impl BroadcastHandler {
    pub(crate) fn new(spec: BroadcastSpec) -> Self {
        Self { spec }
    }

    pub(crate) async fn broadcast(
        &self,
        link: &Link,
        payload: Value,
    ) -> Result<DeliveryReport, ProtocolError> {
        if !self.spec.can_publish() {
            return Err(ProtocolError::PublishNotAllowed(Paradigm::Broadcast));
        }
        let message = Message::builder(MessageKind::Broadcast, link.id().clone())
            .topic(self.spec.topic())
            .payload(payload)
            .build();
        link.publish(message, self.spec.transport()).await
    }
}
