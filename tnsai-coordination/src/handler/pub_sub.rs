//! `#[pub_sub(topics = [..])]`: publishing to named topics.

use serde_json::Value;
use tnsai_core::{Message, MessageKind, Paradigm, PubSubSpec, validate_topic};

use crate::link::Link;
use crate::{DeliveryReport, ProtocolError};

/// A view of the agent's `#[pub_sub]` spec and link, made per call.
pub(crate) struct PubSubHandler<'a> {
    spec: &'a PubSubSpec,
    link: &'a Link,
}

impl<'a> PubSubHandler<'a> {
    pub(crate) fn new(spec: &'a PubSubSpec, link: &'a Link) -> Self {
        Self { spec, link }
    }

    pub(crate) async fn publish(
        &self,
        topic: String,
        payload: Value,
    ) -> Result<DeliveryReport, ProtocolError> {
        if !self.spec.can_publish() {
            return Err(ProtocolError::PublishNotAllowed(Paradigm::PubSub));
        }
        validate_topic(&topic).map_err(ProtocolError::InvalidTopic)?;
        let message = Message::builder(MessageKind::Publish, self.link.id().clone())
            .topic(topic)
            .payload(payload)
            .build();
        self.link.publish(message, self.spec.transport()).await
    }
}
