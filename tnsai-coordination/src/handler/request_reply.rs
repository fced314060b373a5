//! `#[request_reply(timeout = ..)]`: calls that wait for their reply, within a timeout.

use tnsai_core::{AgentId, Message, MessageKind, Params, RequestReplySpec};

use crate::ProtocolError;
use crate::link::Link;

pub(crate) struct RequestReplyHandler {
    spec: RequestReplySpec,
}

impl RequestReplyHandler {
    pub(crate) fn new(spec: RequestReplySpec) -> Self {
        Self { spec }
    }

    pub(crate) async fn request(
        &self,
        link: &Link,
        receiver: AgentId,
        action: String,
        params: Params,
    ) -> Result<Message, ProtocolError> {
        let message = Message::builder(MessageKind::Request, link.id().clone())
            .receiver(receiver)
            .action(action)
            .params(params)
            .build();
        link.call(message, self.spec.transport(), Some(self.spec.timeout()))
            .await
    }
}
