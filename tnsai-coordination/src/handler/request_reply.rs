//! `#[request_reply(timeout = ..)]`: calls that wait for their reply, within a timeout.

use tnsai_core::{AgentId, Message, MessageKind, Params, RequestReplySpec};

use crate::ProtocolError;
use crate::link::Link;

/// A view of the agent's `#[request_reply]` spec and link, made per call.
pub(crate) struct RequestReplyHandler<'a> {
    spec: &'a RequestReplySpec,
    link: &'a Link,
}

impl<'a> RequestReplyHandler<'a> {
    pub(crate) fn new(spec: &'a RequestReplySpec, link: &'a Link) -> Self {
        Self { spec, link }
    }

    pub(crate) async fn request(
        &self,
        receiver: AgentId,
        action: String,
        params: Params,
    ) -> Result<Message, ProtocolError> {
        let message = Message::builder(MessageKind::Request, self.link.id().clone())
            .receiver(receiver)
            .action(action)
            .params(params)
            .build();
        self.link
            .call(message, self.spec.transport(), Some(self.spec.timeout()))
            .await
    }
}
