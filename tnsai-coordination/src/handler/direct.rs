//! `#[direct_message]`: running another agent's actions and sending it text.

use tnsai_core::{AgentId, DirectSpec, Message, MessageKind, Params};

use crate::ProtocolError;
use crate::link::Link;

/// A view of the agent's `#[direct_message]` spec and link, made per call.
pub(crate) struct DirectHandler<'a> {
    spec: &'a DirectSpec,
    link: &'a Link,
}

impl<'a> DirectHandler<'a> {
    pub(crate) fn new(spec: &'a DirectSpec, link: &'a Link) -> Self {
        Self { spec, link }
    }

    pub(crate) async fn execute_action(
        &self,
        receiver: AgentId,
        action: String,
        role: Option<String>,
        params: Params,
    ) -> Result<Message, ProtocolError> {
        let mut message = Message::builder(MessageKind::Action, self.link.id().clone())
            .receiver(receiver)
            .action(action)
            .params(params);
        if let Some(role) = role {
            message = message.role(role);
        }
        self.link
            .call(message.build(), self.spec.transport(), None)
            .await
    }

    pub(crate) async fn send_message(
        &self,
        receiver: AgentId,
        text: String,
    ) -> Result<Message, ProtocolError> {
        let message = Message::builder(MessageKind::Text, self.link.id().clone())
            .receiver(receiver)
            .content(text)
            .build();
        self.link.call(message, self.spec.transport(), None).await
    }
}
