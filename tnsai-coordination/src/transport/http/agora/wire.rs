//! The JSON bodies of Agora requests and answers.

use serde::{Deserialize, Serialize};

/// An Agora request: `POST` to an agent's URL (or, for later turns of a multi-round
/// conversation, to `<agent URL>/conversations/<id>`).
///
/// `protocolHash` is `null` for natural language; `protocolSources` may be missing or
/// `null` (the Python library sends `null` for its `negotiation` pseudo-protocol);
/// `multiround` is optional.
///
/// ```
/// use tnsai_coordination::transport::http::agora::AgoraRequest;
///
/// let request: AgoraRequest = serde_json::from_str(
///     r#"{"protocolHash": null, "protocolSources": [], "body": "Hello?", "multiround": true}"#,
/// ).unwrap();
/// assert_eq!(request.protocol_hash, None);
/// assert!(request.multiround);
/// assert_eq!(
///     serde_json::to_value(AgoraRequest::natural_language("Hi")).unwrap(),
///     serde_json::json!({"protocolHash": null, "protocolSources": [], "body": "Hi", "multiround": false}),
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgoraRequest {
    /// The protocol's hash; `None` for natural language.
    #[serde(default)]
    pub protocol_hash: Option<String>,
    /// Where the protocol document can be read (`data:` URIs, `http(s)://` URLs).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub protocol_sources: Vec<String>,
    /// The message: text under the protocol (JSON text for tnsai's protocols).
    pub body: String,
    /// Whether this starts a multi-round conversation.
    #[serde(default)]
    pub multiround: bool,
}

impl AgoraRequest {
    /// A request under the protocol with this hash.
    pub fn new(
        protocol_hash: impl Into<String>,
        protocol_sources: Vec<String>,
        body: impl Into<String>,
    ) -> Self {
        Self {
            protocol_hash: Some(protocol_hash.into()),
            protocol_sources,
            body: body.into(),
            multiround: false,
        }
    }

    /// A natural-language request (no protocol).
    pub fn natural_language(body: impl Into<String>) -> Self {
        Self {
            protocol_hash: None,
            protocol_sources: Vec::new(),
            body: body.into(),
            multiround: false,
        }
    }

    /// Marks the request as the first turn of a multi-round conversation.
    pub fn multiround(mut self, multiround: bool) -> Self {
        self.multiround = multiround;
        self
    }
}

fn null_as_empty<'de, D>(deserializer: D) -> Result<Vec<String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(Option::<Vec<String>>::deserialize(deserializer)?.unwrap_or_default())
}

/// How an Agora request went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgoraStatus {
    /// The request was served; the body is the answer under the protocol (which may
    /// itself report an error, where the protocol document prescribes how).
    Success,
    /// Something the protocol does not cover went wrong; the body says what.
    Failure,
    /// The protocol is not supported here; the body says why.
    Rejected,
}

/// An Agora answer (always HTTP 200): `{"status", "body"}`, plus `conversationId` on
/// the first answer of a multi-round conversation.
///
/// `body` is present in every answer, because the Python sender reads it without
/// checking `status`; `message` repeats the body's reason on answers that are not a
/// success, for clients that look there.
///
/// ```
/// use tnsai_coordination::transport::http::agora::{AgoraResponse, AgoraStatus};
///
/// let answer = AgoraResponse::success("42").with_conversation("c-1");
/// assert_eq!(
///     serde_json::to_value(&answer).unwrap(),
///     serde_json::json!({"status": "success", "body": "42", "conversationId": "c-1"}),
/// );
/// assert_eq!(AgoraResponse::rejected("no").status, AgoraStatus::Rejected);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgoraResponse {
    /// How the request went.
    pub status: AgoraStatus,
    /// The answer, or the reason it failed.
    #[serde(default)]
    pub body: String,
    /// The conversation to continue at `<agent URL>/conversations/<id>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// The reason, on answers that are not a success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl AgoraResponse {
    /// A successful answer.
    pub fn success(body: impl Into<String>) -> Self {
        Self {
            status: AgoraStatus::Success,
            body: body.into(),
            conversation_id: None,
            message: None,
        }
    }

    /// A failure the protocol does not cover.
    pub fn failure(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self {
            status: AgoraStatus::Failure,
            message: Some(reason.clone()),
            body: reason,
            conversation_id: None,
        }
    }

    /// The protocol is not supported.
    pub fn rejected(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self {
            status: AgoraStatus::Rejected,
            message: Some(reason.clone()),
            body: reason,
            conversation_id: None,
        }
    }

    /// Names the conversation this answer opens.
    pub fn with_conversation(mut self, id: impl Into<String>) -> Self {
        self.conversation_id = Some(id.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_shapes() {
        let negotiation: AgoraRequest = serde_json::from_str(
            r#"{"protocolHash": "negotiation", "protocolSources": null, "body": "hi", "multiround": true}"#,
        )
        .unwrap();
        assert!(negotiation.protocol_sources.is_empty());
        let minimal: AgoraRequest = serde_json::from_str(r#"{"body": ""}"#).unwrap();
        assert_eq!(minimal.protocol_hash, None);
        assert!(!minimal.multiround);
        assert!(serde_json::from_str::<AgoraRequest>(r#"{"body": 5}"#).is_err());
        assert!(
            serde_json::from_str::<AgoraRequest>(r#"{"protocolSources": "x", "body": ""}"#)
                .is_err()
        );
        let failure = serde_json::to_value(AgoraResponse::failure("boom")).unwrap();
        assert_eq!(
            failure,
            serde_json::json!({"status": "failure", "body": "boom", "message": "boom"})
        );
    }
}
