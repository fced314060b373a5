//! How an Agora request becomes a call on a local agent, and its answer an Agora answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tnsai_core::{AgentId, Message, MessageKind, Params};

use super::agora::{AgoraRequest, AgoraResponse, ProtocolDocument};
use super::conversations::Spoken;
use super::listing::{WireError, WireReport};
use super::protocols::{AgentProtocols, TNSAI_PROTOCOL};
use super::transport::Shared;
use crate::{Platform, ProtocolError, TransportError, TransportErrorKind};

/// How many fetched protocol documents are remembered.
const FOREIGN_CACHE: usize = 1024;

/// The request was not served within the request timeout (answered 504).
pub(crate) struct TimedOut;

/// An Agora answer, or the timeout.
pub(crate) type Answered = Result<AgoraResponse, TimedOut>;

/// Whether answers to this kind of message come back in the HTTP response: the
/// platform answers every action, request and text, and nothing else for sure.
pub(crate) fn answered_in_response(kind: MessageKind) -> bool {
    matches!(
        kind,
        MessageKind::Action | MessageKind::Request | MessageKind::Text
    )
}

fn wire_failure(code: &str, message: impl Into<String>) -> AgoraResponse {
    let error = WireError {
        code: code.to_owned(),
        message: message.into(),
    };
    let body = serde_json::to_string(&error).unwrap_or_default();
    let mut answer = AgoraResponse::failure(body);
    answer.message = Some(error.message);
    answer
}

fn transport_failure(error: &TransportError) -> AgoraResponse {
    let code = match error.kind() {
        TransportErrorKind::UnknownReceiver => "unknown_receiver",
        TransportErrorKind::ReceiverUnavailable => "receiver_unavailable",
        TransportErrorKind::NotStarted => "not_started",
        TransportErrorKind::Timeout => "timeout",
        _ => "delivery",
    };
    wire_failure(code, error.to_string())
}

/// The text a language model gets for a turn: the body alone for a first
/// natural-language turn; otherwise with the protocol it must follow and the turns so far
/// (the platform hands a model one text per call).
fn prompt(document: Option<&ProtocolDocument>, history: &[(String, String)], body: &str) -> String {
    if document.is_none() && history.is_empty() {
        return body.to_owned();
    }
    let mut text = String::new();
    if let Some(document) = document {
        text.push_str(
            "Answer a request made under the protocol below: follow its description of \
             the request and response bodies, and reply with the response body only.\n\n",
        );
        text.push_str(document.text());
        text.push_str("\n\n");
    }
    if !history.is_empty() {
        text.push_str("The conversation so far:\n");
        for (said, answered) in history {
            text.push_str(&format!("Caller: {said}\nYou: {answered}\n"));
        }
        text.push('\n');
    }
    text.push_str("The caller now says:\n");
    text.push_str(body);
    text
}

impl Shared {
    /// How long a gateway call may wait for the agent: the request timeout.
    fn call_limit(&self) -> Duration {
        self.config.request_timeout
    }

    /// Which of the agent's protocols the request speaks, or the rejection (or the
    /// timeout, while reading the protocol from its sources).
    pub(crate) async fn classify(
        &self,
        protocols: &AgentProtocols,
        request: &AgoraRequest,
    ) -> Result<Spoken, Answered> {
        let Some(hash) = request.protocol_hash.as_deref() else {
            return Ok(Spoken::Natural);
        };
        if hash == TNSAI_PROTOCOL.hash() {
            return Ok(Spoken::Tnsai);
        }
        if let Some(index) = protocols.action_index(hash) {
            return Ok(Spoken::Action(index));
        }
        let agent = &protocols.description.id;
        if !protocols.description.has_language_model {
            return Err(Ok(AgoraResponse::rejected(format!(
                "Agent {agent} does not implement protocol {hash} and has no language model to follow it"
            ))));
        }
        if let Some(document) = self.foreign.get(hash) {
            return Ok(Spoken::Foreign(Arc::clone(document.value())));
        }
        let fetch = self.fetcher.fetch_verified(hash, &request.protocol_sources);
        // Several sources may each take up to the source timeout.
        let fetched = tokio::time::timeout(self.config.request_timeout, fetch)
            .await
            .map_err(|_| Err(TimedOut))?;
        match fetched {
            Ok(document) => {
                let document = Arc::new(document);
                if self.foreign.len() >= FOREIGN_CACHE {
                    self.foreign.clear();
                }
                self.foreign.insert(hash.to_owned(), Arc::clone(&document));
                Ok(Spoken::Foreign(document))
            }
            Err(error) => Err(Ok(AgoraResponse::rejected(format!(
                "Protocol {hash} could not be read: {error}"
            )))),
        }
    }

    /// Serves one turn under `spoken` for the local agent `agent`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn answer(
        &self,
        platform: &Platform,
        protocols: &AgentProtocols,
        spoken: &Spoken,
        history: &[(String, String)],
        body: &str,
        origin: Option<&str>,
        conversation: Option<&str>,
    ) -> Answered {
        let agent = &protocols.description.id;
        match spoken {
            Spoken::Natural => {
                self.text(platform, agent, prompt(None, history, body), conversation)
                    .await
            }
            Spoken::Foreign(document) => {
                let text = prompt(Some(document), history, body);
                self.text(platform, agent, text, conversation).await
            }
            Spoken::Action(index) => match protocols.actions.get(*index) {
                Some(action) => {
                    self.action(
                        platform,
                        agent,
                        &action.name,
                        action.role.as_deref(),
                        body,
                        conversation,
                    )
                    .await
                }
                None => Ok(AgoraResponse::rejected(format!(
                    "Agent {agent} no longer implements that action"
                ))),
            },
            Spoken::Tnsai => self.message(platform, agent, body, origin).await,
        }
    }

    /// A sender id for an Agora caller: unique per call (a counter, not a random id,
    /// which would cost a system call per request) and never an agent's, so no transport
    /// reaches it and its answer completes the gateway call.
    fn caller() -> AgentId {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        AgentId::from(format!("agora:{}", NEXT.fetch_add(1, Ordering::Relaxed)))
    }

    async fn text(
        &self,
        platform: &Platform,
        agent: &AgentId,
        text: String,
        conversation: Option<&str>,
    ) -> Answered {
        let mut message = Message::builder(MessageKind::Text, Self::caller())
            .receiver(agent.clone())
            .content(text);
        if let Some(conversation) = conversation {
            message = message.conversation_id(conversation);
        }
        match platform.call(message.build(), self.call_limit()).await {
            Ok(reply) => Ok(AgoraResponse::success(reply.content().unwrap_or_default())),
            Err(ProtocolError::Timeout) => Err(TimedOut),
            Err(error) => Ok(AgoraResponse::failure(error.to_string())),
        }
    }

    async fn action(
        &self,
        platform: &Platform,
        agent: &AgentId,
        name: &str,
        role: Option<&str>,
        body: &str,
        conversation: Option<&str>,
    ) -> Answered {
        let refused = |error: &ProtocolError| {
            AgoraResponse::success(
                json!({ "ok": false, "error": error.to_string(), "code": error.code() })
                    .to_string(),
            )
        };
        let params = match parse_params(body) {
            Ok(params) => params,
            Err(error) => return Ok(refused(&error)),
        };
        let mut message = Message::builder(MessageKind::Action, Self::caller())
            .receiver(agent.clone())
            .action(name)
            .params(params);
        if let Some(role) = role {
            message = message.role(role);
        }
        if let Some(conversation) = conversation {
            message = message.conversation_id(conversation);
        }
        Ok(
            match platform.call(message.build(), self.call_limit()).await {
                Ok(reply) => AgoraResponse::success(
                    serde_json::to_string(&ActionSuccess {
                        ok: true,
                        result: reply.payload(),
                    })
                    .unwrap_or_default(),
                ),
                Err(
                    error @ (ProtocolError::ActionFailed(_) | ProtocolError::InvalidArgument(_)),
                ) => refused(&error),
                Err(ProtocolError::Timeout) => return Err(TimedOut),
                Err(error) => AgoraResponse::failure(error.to_string()),
            },
        )
    }

    /// A tnsai message for the local agent `agent`: delivered, and for actions, requests
    /// and text answered in the response.
    async fn message(
        &self,
        platform: &Platform,
        agent: &AgentId,
        body: &str,
        origin: Option<&str>,
    ) -> Answered {
        let message: Message = match serde_json::from_str(body) {
            Ok(message) => message,
            Err(e) => {
                return Ok(wire_failure(
                    "invalid_message",
                    format!("not a tnsai message: {e}"),
                ));
            }
        };
        if message.receiver() != Some(agent) {
            return Ok(wire_failure(
                "invalid_message",
                format!(
                    "the message is for {}, not for {agent}",
                    message
                        .receiver()
                        .map_or_else(|| "no receiver".to_owned(), ToString::to_string)
                ),
            ));
        }
        self.learn_origin(origin, message.sender());
        if !answered_in_response(message.kind()) {
            if !message.kind().is_answer() && self.peers.find(message.sender()).is_none() {
                // Its answer, if the receiver sends one, will find no way back.
                tracing::warn!(
                    sender = %message.sender(),
                    kind = %message.kind(),
                    "a message came from a platform that named no URL (X-Tnsai-Origin) and is no peer: answers to it cannot be delivered"
                );
            }
            return Ok(match platform.deliver(message).await {
                Ok(()) => AgoraResponse::success(""),
                Err(error) => transport_failure(&error),
            });
        }
        let (_waiting, answer) = self.await_answer(&message);
        let exchange = async {
            platform.deliver(message).await?;
            Ok::<_, TransportError>(answer.await)
        };
        let answer = match tokio::time::timeout(self.config.request_timeout, exchange).await {
            Err(_) => return Err(TimedOut),
            Ok(Err(error)) => return Ok(transport_failure(&error)),
            Ok(Ok(answer)) => answer,
        };
        Ok(match answer {
            Ok(answer) => match serde_json::to_string(&answer) {
                Ok(body) => AgoraResponse::success(body),
                Err(e) => wire_failure("delivery", format!("could not encode the answer: {e}")),
            },
            Err(_) => wire_failure(
                "receiver_unavailable",
                format!("{agent} stopped before it answered"),
            ),
        })
    }

    /// A broadcast or publication for this platform's subscribers.
    pub(crate) async fn publication(
        &self,
        platform: &Platform,
        body: &str,
        origin: Option<&str>,
    ) -> Answered {
        let message: Message = match serde_json::from_str(body) {
            Ok(message) => message,
            Err(e) => {
                return Ok(wire_failure(
                    "invalid_message",
                    format!("not a tnsai message: {e}"),
                ));
            }
        };
        if !matches!(
            message.kind(),
            MessageKind::Broadcast | MessageKind::Publish
        ) || message.topic().is_none()
        {
            return Ok(wire_failure(
                "invalid_message",
                "the platform URL takes broadcasts and publications with a topic; send other messages to /agents/<receiver>",
            ));
        }
        self.learn_origin(origin, message.sender());
        // Full mailboxes make delivery wait; the request timeout bounds that.
        let report = tokio::time::timeout(
            self.config.request_timeout,
            platform.deliver_publication(message),
        )
        .await
        .map_err(|_| TimedOut)?;
        Ok(AgoraResponse::success(
            serde_json::to_string(&WireReport::from(&report)).unwrap_or_default(),
        ))
    }
}

/// The body of an action's successful answer, serialised without copying the result.
#[derive(serde::Serialize)]
struct ActionSuccess<'a> {
    ok: bool,
    result: &'a Value,
}

/// An action's parameters from a request body: a JSON object, or nothing.
fn parse_params(body: &str) -> Result<Params, ProtocolError> {
    if body.trim().is_empty() {
        return Ok(Params::new());
    }
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(map)) => Ok(Params::from(map)),
        Ok(Value::Null) => Ok(Params::new()),
        Ok(other) => Err(ProtocolError::InvalidArgument(format!(
            "the body must be a JSON object of parameters, not {}",
            match other {
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::String(_) => "a string",
                _ => "an array",
            }
        ))),
        Err(e) => Err(ProtocolError::InvalidArgument(format!(
            "the body is not JSON: {e}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_from_bodies() {
        assert!(parse_params("").unwrap().is_empty());
        assert!(parse_params("null").unwrap().is_empty());
        assert_eq!(parse_params(r#"{"a": 1}"#).unwrap().get_i64("a"), Some(1));
        assert!(matches!(
            parse_params("[1]"),
            Err(ProtocolError::InvalidArgument(_))
        ));
        assert!(matches!(
            parse_params("{"),
            Err(ProtocolError::InvalidArgument(_))
        ));
    }

    #[test]
    fn prompts_carry_history_and_protocol() {
        assert_eq!(prompt(None, &[], "hi"), "hi");
        let history = [("a".to_owned(), "b".to_owned())];
        let text = prompt(None, &history, "c");
        assert!(text.contains("Caller: a\nYou: b") && text.ends_with("c"));
        let document = ProtocolDocument::parse("---\nname: p\n---\nSay x.").unwrap();
        assert!(prompt(Some(&document), &[], "q").contains("Say x."));
    }
}
