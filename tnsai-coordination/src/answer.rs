//! How answers carry results and errors across any transport.

use serde_json::json;
use tnsai_core::{AgentId, Message, MessageKind, Paradigm};

use crate::ProtocolError;

/// An error answer to `request`: `content` is the error's text, `payload.code` its code.
pub(crate) fn error_answer(request: &Message, from: &AgentId, error: &ProtocolError) -> Message {
    request
        .reply_builder(MessageKind::Error, from.clone())
        .content(error.to_string())
        .payload(json!({ "code": error.code() }))
        .build()
}

/// Turns an answer into the caller's result: a `Reply` as is, an `Error` rebuilt into its
/// [`ProtocolError`] variant.
pub(crate) fn into_result(answer: Message) -> Result<Message, ProtocolError> {
    if answer.kind() != MessageKind::Error {
        return Ok(answer);
    }
    let code = answer
        .payload()
        .get("code")
        .and_then(|c| c.as_str())
        .unwrap_or("remote");
    Err(ProtocolError::from_code(
        code,
        answer.content().unwrap_or(""),
    ))
}

/// The paradigm a message belongs to, for tracing.
pub(crate) fn paradigm_of(kind: MessageKind) -> &'static str {
    match kind {
        MessageKind::Action | MessageKind::Text => Paradigm::Direct.key(),
        MessageKind::Request => Paradigm::RequestReply.key(),
        MessageKind::Broadcast => Paradigm::Broadcast.key(),
        MessageKind::Publish => Paradigm::PubSub.key(),
        MessageKind::Debate => Paradigm::Debate.key(),
        MessageKind::Acl => "FIPA",
        MessageKind::Bspl => "BSPL",
        _ => "ANSWER",
    }
}
