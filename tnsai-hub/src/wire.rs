//! What travels between the hub and its clients: HTTP bodies, WebSocket frames and
//! refusals. Every body is JSON; every WebSocket frame is one JSON text frame with a
//! `type` tag. Messages inside frames are tnsai-core [`Message`]s, so they have the same
//! JSON shape as everywhere else in tnsai.

use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tnsai_core::{Message, MessageId};

use crate::auth::DeviceToken;

/// WebSocket close code: a newer connection registered the same `owner/name`.
pub const CLOSE_REPLACED: u16 = 4001;
/// WebSocket close code: the device was revoked.
pub const CLOSE_REVOKED: u16 = 4003;
/// WebSocket close code: the registration was refused (see the preceding error frame).
pub const CLOSE_REFUSED: u16 = 4009;
/// WebSocket close code: a frame was malformed (not JSON, unknown type, binary, too big).
pub const CLOSE_PROTOCOL: u16 = 1008;
/// WebSocket close code: the hub is shutting down.
pub const CLOSE_GOING_AWAY: u16 = 1001;

/// `POST /v1/pair`: trade an invite code for a device token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PairRequest {
    /// The invite code, as typed.
    pub code: String,
    /// The device's name; it becomes the default owner of the device's agents.
    pub device: String,
}

/// The answer to a successful pairing.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PairResponse {
    /// The device's id on the hub.
    pub device_id: String,
    /// The device's name.
    pub device: String,
    /// The device token; the hub keeps only its hash, so this is the only copy.
    pub token: DeviceToken,
}

/// `POST /v1/messages`: send a text message to an agent.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendRequest {
    /// The recipient, `owner/name`.
    pub to: String,
    /// The text.
    pub content: String,
    /// Structured extras (a commit, compatibility notes, ...); must be a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
    /// Which of this device's agents sends it: `name` or `owner/name`; optional when the
    /// device has exactly one agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// How a sent message reached its recipient.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    /// The recipient was connected and the hub pushed the message to its connection.
    Live,
    /// The recipient was offline; the message waits in its queue.
    Queued,
}

/// Why a queued message was dropped before delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropReason {
    /// The recipient's queue was full; the oldest message made room.
    Cap,
    /// The message waited longer than the queue's age limit.
    Age,
}

/// A message the hub dropped unread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DroppedMessage {
    /// The dropped message's id.
    pub id: MessageId,
    /// Who sent it (`owner/name`).
    pub sender: String,
    /// Who never got it (`owner/name`).
    pub recipient: String,
    /// Why it was dropped.
    pub reason: DropReason,
}

/// The answer to `POST /v1/messages`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SendReceipt {
    /// The message's id (UUID v7).
    pub id: MessageId,
    /// Live or queued.
    pub status: DeliveryStatus,
    /// The sender the hub stamped (`owner/name`).
    pub sender: String,
    /// The hub's timestamp.
    pub timestamp: DateTime<Utc>,
    /// Messages dropped from the recipient's queue to make room for this one.
    #[serde(default)]
    pub dropped: Vec<DroppedMessage>,
}

/// An agent as other members see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentInfo {
    /// `owner/name`.
    pub agent: String,
    /// The owner.
    pub owner: String,
    /// The agent's name.
    pub name: String,
    /// The project it works on.
    #[serde(default)]
    pub project: Option<String>,
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
    /// The name of the device it runs on.
    pub device: String,
    /// When its current connection registered.
    pub connected_at: DateTime<Utc>,
}

/// `GET /v1/agents`: the agents online now.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AgentList {
    /// Online agents, sorted by identity.
    pub agents: Vec<AgentInfo>,
}

/// Why the hub refused something; the `code` is stable, the `message` is for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RefusalCode {
    /// 400: the body or a frame is malformed or a field is invalid.
    InvalidRequest,
    /// 401: no token, a malformed token or an unknown one.
    Unauthorized,
    /// 401: the token's device was revoked.
    DeviceRevoked,
    /// 401: the invite code does not exist.
    InviteInvalid,
    /// 410: the invite code expired.
    InviteExpired,
    /// 410: the invite code was already used.
    InviteUsed,
    /// 409: another active device has this name.
    DeviceNameTaken,
    /// 409: another device's agent holds this `owner/name`.
    NameTaken,
    /// A newer connection registered this `owner/name` (WebSocket close 4001).
    Replaced,
    /// 403: `send` from a device that has registered no agent.
    NoAgent,
    /// 400: `send` without `from` from a device with several agents.
    FromRequired,
    /// 403: `from` names an agent that is not this device's.
    NotYourAgent,
    /// 404: the recipient never registered on this hub.
    UnknownRecipient,
    /// 413: the content, the context or the body is too large.
    TooLarge,
    /// 429: the device sends faster than its rate limit.
    RateLimited,
    /// 404: no such route.
    NotFound,
    /// 405: the route exists with another method.
    MethodNotAllowed,
    /// 415: the body is not declared as JSON.
    UnsupportedMediaType,
    /// 500: the hub failed; nothing was stored.
    Internal,
    /// A code this client does not know (a newer hub).
    #[serde(other)]
    Unknown,
}

impl RefusalCode {
    /// The wire name, such as `from_required`.
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalCode::InvalidRequest => "invalid_request",
            RefusalCode::Unauthorized => "unauthorized",
            RefusalCode::DeviceRevoked => "device_revoked",
            RefusalCode::InviteInvalid => "invite_invalid",
            RefusalCode::InviteExpired => "invite_expired",
            RefusalCode::InviteUsed => "invite_used",
            RefusalCode::DeviceNameTaken => "device_name_taken",
            RefusalCode::NameTaken => "name_taken",
            RefusalCode::Replaced => "replaced",
            RefusalCode::NoAgent => "no_agent",
            RefusalCode::FromRequired => "from_required",
            RefusalCode::NotYourAgent => "not_your_agent",
            RefusalCode::UnknownRecipient => "unknown_recipient",
            RefusalCode::TooLarge => "too_large",
            RefusalCode::RateLimited => "rate_limited",
            RefusalCode::NotFound => "not_found",
            RefusalCode::MethodNotAllowed => "method_not_allowed",
            RefusalCode::UnsupportedMediaType => "unsupported_media_type",
            RefusalCode::Internal => "internal",
            RefusalCode::Unknown => "unknown",
        }
    }

    /// The HTTP status the hub answers this refusal with.
    pub fn http_status(self) -> u16 {
        match self {
            RefusalCode::InvalidRequest | RefusalCode::FromRequired => 400,
            RefusalCode::Unauthorized | RefusalCode::DeviceRevoked | RefusalCode::InviteInvalid => {
                401
            }
            RefusalCode::NoAgent | RefusalCode::NotYourAgent => 403,
            RefusalCode::UnknownRecipient | RefusalCode::NotFound => 404,
            RefusalCode::MethodNotAllowed => 405,
            RefusalCode::DeviceNameTaken | RefusalCode::NameTaken | RefusalCode::Replaced => 409,
            RefusalCode::InviteExpired | RefusalCode::InviteUsed => 410,
            RefusalCode::TooLarge => 413,
            RefusalCode::UnsupportedMediaType => 415,
            RefusalCode::RateLimited => 429,
            RefusalCode::Internal | RefusalCode::Unknown => 500,
        }
    }
}

impl fmt::Display for RefusalCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal: the `error` member of every error body and of error frames.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    /// The stable code.
    pub code: RefusalCode,
    /// A sentence for people.
    pub message: String,
}

impl Refusal {
    /// A refusal with a message.
    pub fn new(code: RefusalCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

/// Every error body: `{"error": {"code": "...", "message": "..."}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The refusal.
    pub error: Refusal,
}

/// The registration a client sends as its first WebSocket frame.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Registration {
    /// The agent's name.
    pub name: String,
    /// The owner; the device's name when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The project it works on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Frames a client sends.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientFrame {
    /// `{"type": "register", "name": ..., "owner": ..., "project": ..., "description": ...}`;
    /// first frame only.
    Register(Registration),
    /// `{"type": "ack", "ids": [...]}`: these messages are safely in the inbox; the hub
    /// deletes them.
    Ack {
        /// Message ids.
        ids: Vec<MessageId>,
    },
}

/// Whether an agent came or went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PresenceEvent {
    /// It connected (or reconnected, replacing its previous connection).
    Online,
    /// Its connection closed.
    Offline,
}

/// Frames the hub sends.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // frames are built once and serialized at once
pub enum ServerFrame {
    /// The answer to `register`: this agent as others see it, who else is online, and
    /// how many queued messages follow.
    Registered {
        /// This agent.
        agent: AgentInfo,
        /// The other online agents.
        online: Vec<AgentInfo>,
        /// Queued messages about to be delivered.
        pending: u64,
    },
    /// A message for this agent; acknowledge it by id.
    Message {
        /// The message.
        message: Message,
    },
    /// Another agent came online or went offline.
    Presence {
        /// Online or offline.
        event: PresenceEvent,
        /// The agent.
        agent: AgentInfo,
    },
    /// Why the hub is about to close this connection.
    Error {
        /// The refusal.
        error: Refusal,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frames_have_a_type_tag() {
        let ack: ClientFrame = serde_json::from_value(
            json!({"type": "ack", "ids": ["019a1f6e-8c1b-7d3e-9a55-0c2f1e4b6a70"]}),
        )
        .unwrap();
        assert!(matches!(ack, ClientFrame::Ack { ref ids } if ids.len() == 1));
        let reg = serde_json::to_value(ClientFrame::Register(Registration {
            name: "sdk-agent".into(),
            ..Registration::default()
        }))
        .unwrap();
        assert_eq!(reg, json!({"type": "register", "name": "sdk-agent"}));
        assert!(
            serde_json::from_value::<ClientFrame>(json!({"type": "exec", "cmd": "rm"})).is_err()
        );
        assert!(
            serde_json::from_value::<ClientFrame>(json!({"type": "ack", "ids": [], "x": 1}))
                .is_err()
        );
    }

    #[test]
    fn refusal_codes_round_trip_and_unknown_codes_are_tolerated() {
        for code in [
            RefusalCode::FromRequired,
            RefusalCode::NotYourAgent,
            RefusalCode::RateLimited,
        ] {
            let text = serde_json::to_value(code).unwrap();
            assert_eq!(text, code.as_str());
            assert_eq!(serde_json::from_value::<RefusalCode>(text).unwrap(), code);
        }
        let future: RefusalCode = serde_json::from_value(json!("quota_exceeded")).unwrap();
        assert_eq!(future, RefusalCode::Unknown);
    }
}
