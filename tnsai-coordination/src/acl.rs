//! FIPA ACL conversations between agents: how an agent answers ACL messages through its
//! actions, and how ACL messages travel as tnsai messages.
//!
//! An ACL message travels as a [`MessageKind::Acl`] message whose payload is the
//! [`FipaMessage`] JSON. The receiving agent answers it with the action named after the
//! message's performative, so a contract-net contractor is simply an agent with a `cfp`
//! and an `accept-proposal` action:
//!
//! | performative received | action run | answer |
//! |---|---|---|
//! | `cfp` | `cfp` | `propose` (the result, see [`propose`]), or `refuse` ([`refuse`], or the action's error) |
//! | `accept-proposal` | `accept-proposal` | `inform` with the result as content, or `failure` with the action's error |
//! | `request`, `request-when`, `request-whenever`, `query-if`, `query-ref`, `subscribe` | same name | `inform` with the result, or `failure` |
//! | anything else (`reject-proposal`, `inform`, ...) | same name, when the agent has it | none |
//!
//! The action's parameters are the ACL message's fields: `content`, `sender`,
//! `conversation_id`, `protocol`, `ontology`, `language`, `reply_by` (RFC 3339) and
//! `message` (the whole ACL message as JSON). An agent without the action answers
//! `not-understood`, naming what it lacks.
//!
//! ```
//! use tnsai_coordination::acl;
//! use tnsai_core::prelude::*;
//!
//! /// Translates documents for a fixed price per page.
//! #[agent]
//! struct Translator {
//!     euro_per_page: f64,
//! }
//!
//! #[actions]
//! impl Translator {
//!     /// Bids on a call for proposals.
//!     #[action(name = "cfp")]
//!     async fn bid(&self, params: Params) -> ActionResult {
//!         let task = params.require_str("content")?;
//!         if !task.contains("Translate") {
//!             return Ok(acl::refuse("I only translate"));
//!         }
//!         Ok(acl::propose(format!("{} EUR per page", self.euro_per_page), Some(self.euro_per_page)))
//!     }
//!
//!     /// Does the work once the proposal is accepted.
//!     #[action(name = "accept-proposal")]
//!     async fn deliver(&self, _params: Params) -> ActionResult {
//!         Ok(serde_json::json!("Translation delivered"))
//!     }
//! }
//! ```

use serde_json::{Value, json};
use tnsai_core::{AgentId, Message, MessageKind, Params};
use tnsai_fipa::{FipaMessage, Performative};

use crate::ProtocolError;
use crate::answer::error_answer;
use crate::dispatch::invoke_named;
use crate::hosted::HostedAgent;

/// The result of a `cfp` action that proposes: `content` is the proposal's text and
/// `price`, when given, travels as the `X-price` parameter that
/// [`evaluator::lowest_price`](tnsai_fipa::evaluator::lowest_price) reads.
pub fn propose(content: impl Into<String>, price: Option<f64>) -> Value {
    match price {
        Some(price) => json!({ "propose": content.into(), "price": price }),
        None => json!({ "propose": content.into() }),
    }
}

/// The result of a `cfp` action that declines, with its reason.
pub fn refuse(reason: impl Into<String>) -> Value {
    json!({ "refuse": reason.into() })
}

/// Wraps an ACL message in a tnsai message from `sender`.
pub(crate) fn to_message(sender: &AgentId, acl: &FipaMessage) -> Result<Message, ProtocolError> {
    let receiver = acl.receiver().ok_or_else(|| {
        ProtocolError::InvalidArgument("an ACL message must name a receiver".into())
    })?;
    let payload =
        serde_json::to_value(acl).map_err(|e| ProtocolError::InvalidPayload(e.to_string()))?;
    let mut message = Message::builder(MessageKind::Acl, sender.clone())
        .receiver(receiver)
        .action(acl.performative().as_str())
        .conversation_id(acl.conversation_id().to_string())
        .payload(payload);
    if let Some(content) = acl.content() {
        message = message.content(content);
    }
    Ok(message.build())
}

/// Reads the ACL message a tnsai message carries.
pub(crate) fn from_message(message: &Message) -> Result<FipaMessage, ProtocolError> {
    serde_json::from_value(message.payload().clone()).map_err(|e| {
        ProtocolError::InvalidPayload(format!("the message does not carry an ACL message: {e}"))
    })
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn params_of(acl: &FipaMessage, raw: &Value) -> Params {
    let mut params = Params::new()
        .with("content", acl.content().unwrap_or_default())
        .with("sender", acl.sender().unwrap_or_default())
        .with("conversation_id", acl.conversation_id().to_string())
        .with("message", raw.clone());
    for (name, value) in [
        ("protocol", acl.protocol()),
        ("ontology", acl.ontology()),
        ("language", acl.language()),
    ] {
        if let Some(value) = value {
            params.insert(name, value);
        }
    }
    if let Some(reply_by) = acl.reply_by() {
        params.insert("reply_by", reply_by.to_rfc3339());
    }
    params
}

/// Which performatives are answered, and how an action's result becomes the answer.
fn answer_for(
    incoming: Performative,
    result: Result<Value, String>,
) -> (Performative, String, Option<f64>) {
    match (incoming, result) {
        (Performative::Cfp, Ok(value)) => {
            if let Some(reason) = value.get("refuse") {
                (Performative::Refuse, text_of(reason), None)
            } else if let Some(content) = value.get("propose") {
                let price = value.get("price").and_then(Value::as_f64);
                (Performative::Propose, text_of(content), price)
            } else {
                (Performative::Propose, text_of(&value), None)
            }
        }
        (Performative::Cfp, Err(reason)) => (Performative::Refuse, reason, None),
        (_, Ok(value)) => {
            let content = value.get("result").map_or_else(|| text_of(&value), text_of);
            (Performative::Inform, content, None)
        }
        (_, Err(reason)) => (Performative::Failure, reason, None),
    }
}

fn expects_answer(performative: Performative) -> bool {
    use Performative::*;
    matches!(
        performative,
        Cfp | AcceptProposal
            | Request
            | RequestWhen
            | RequestWhenever
            | QueryIf
            | QueryRef
            | Subscribe
    )
}

/// Answers an ACL message through the agent's action named after its performative.
pub(crate) async fn answer(hosted: &HostedAgent, message: &Message) -> Option<Message> {
    let acl = match from_message(message) {
        Ok(acl) => acl,
        Err(error) => return Some(error_answer(message, &hosted.id, &error)),
    };
    let performative = acl.performative();
    let action = performative.as_str();
    let has_action = hosted.agent.actions().iter().any(|a| a.name() == action);
    let result = if has_action {
        Some(invoke_named(hosted, action, None, params_of(&acl, message.payload())).await)
    } else {
        None
    };
    if !expects_answer(performative) {
        return None;
    }
    let reply = acl.create_reply().sender(hosted.id.as_str());
    let reply = match result {
        None => reply
            .performative(Performative::NotUnderstood)
            .content(format!("agent {} has no `{action}` action", hosted.id)),
        Some(result) => {
            let (answer, content, price) =
                answer_for(performative, result.map_err(|e| e.to_string()));
            let reply = reply.performative(answer).content(content);
            match price {
                Some(price) => reply.user_parameter("X-price", price.to_string()),
                None => reply,
            }
        }
    };
    let answer = reply
        .build()
        .map_err(|e| ProtocolError::InvalidPayload(e.to_string()))
        .and_then(|acl| {
            serde_json::to_value(&acl).map_err(|e| ProtocolError::InvalidPayload(e.to_string()))
        });
    Some(match answer {
        Ok(payload) => message
            .reply_builder(MessageKind::Reply, hosted.id.clone())
            .payload(payload)
            .build(),
        Err(error) => error_answer(message, &hosted.id, &error),
    })
}
