//! `#[broadcast(topic = ..)]`: one message to everyone listening on the agent's topic.

use serde_json::Value;
use tnsai_core::{BroadcastSpec, Message, MessageKind, Paradigm};

use crate::link::Link;
use crate::{DeliveryReport, ProtocolError};

/// A view of the agent's `#[broadcast]` spec and link, made per call.
pub(crate) struct BroadcastHandler<'a> {
    spec: &'a BroadcastSpec,
    link: &'a Link,
}

impl<'a> BroadcastHandler<'a> {
    pub(crate) fn new(spec: &'a BroadcastSpec, link: &'a Link) -> Self {
        Self { spec, link }
    }

    pub(crate) async fn broadcast(&self, payload: Value) -> Result<DeliveryReport, ProtocolError> {
        if !self.spec.can_publish() {
            return Err(ProtocolError::PublishNotAllowed(Paradigm::Broadcast));
        }
        let message = Message::builder(MessageKind::Broadcast, self.link.id().clone())
            .topic(self.spec.topic())
            .payload(payload)
            .build();
        self.link.publish(message, self.spec.transport()).await
    }
}
