//! `#[pub_sub(topics = [..])]`: publishing to named topics.

use serde_json::Value;
use tnsai_core::{Message, MessageKind, Paradigm, PubSubSpec, validate_topic};

use crate::link::Link;
use crate::{DeliveryReport, ProtocolError};

pub(crate) struct PubSubHandler {
    spec: PubSubSpec,
}

impl PubSubHandler {
    pub(crate) fn new(spec: PubSubSpec) -> Self {
        Self { spec }
    }

    pub(crate) async fn publish(
        &self,
        link: &Link,
        topic: String,
        payload: Value,
    ) -> Result<DeliveryReport, ProtocolError> {
        if !self.spec.can_publish() {
            return Err(ProtocolError::PublishNotAllowed(Paradigm::PubSub));
        }
        validate_topic(&topic).map_err(ProtocolError::InvalidTopic)?;
        let message = Message::builder(MessageKind::Publish, link.id().clone())
            .topic(topic)
            .payload(payload)
            .build();
        link.publish(message, self.spec.transport()).await
    }
}
