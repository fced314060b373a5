//! `#[direct_message]`: running another agent's actions and sending it text.

use tnsai_core::{AgentId, DirectSpec, Message, MessageKind, Params};

use crate::ProtocolError;
use crate::link::Link;

pub(crate) struct DirectHandler {
    spec: DirectSpec,
}

impl DirectHandler {
    pub(crate) fn new(spec: DirectSpec) -> Self {
        Self { spec }
    }

    pub(crate) async fn execute_action(
        &self,
        link: &Link,
        receiver: AgentId,
        action: String,
        role: Option<String>,
        params: Params,
    ) -> Result<Message, ProtocolError> {
        let mut message = Message::builder(MessageKind::Action, link.id().clone())
            .receiver(receiver)
            .action(action)
            .params(params);
        if let Some(role) = role {
            message = message.role(role);
        }
        link.call(message.build(), self.spec.transport(), None)
            .await
    }

    pub(crate) async fn send_message(
        &self,
        link: &Link,
        receiver: AgentId,
        text: String,
    ) -> Result<Message, ProtocolError> {
        let message = Message::builder(MessageKind::Text, link.id().clone())
            .receiver(receiver)
            .content(text)
            .build();
        link.call(message, self.spec.transport(), None).await
    }
}
