//! The envelope every paradigm and every transport carries.

use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, LazyLock};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::{AgentId, Params};

/// A message's unique id: a UUID v7, so ids sort by creation time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MessageId(Uuid);

impl MessageId {
    /// A fresh, time-ordered id.
    pub fn new() -> Self {
        Self(Uuid::now_v7())
    }

    /// The id as a UUID.
    pub fn as_uuid(&self) -> Uuid {
        self.0
    }
}

impl Default for MessageId {
    fn default() -> Self {
        Self::new()
    }
}

impl From<Uuid> for MessageId {
    fn from(uuid: Uuid) -> Self {
        Self(uuid)
    }
}

impl fmt::Display for MessageId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl FromStr for MessageId {
    type Err = uuid::Error;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Uuid::parse_str(text).map(Self)
    }
}

/// What a message is for; receivers dispatch on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MessageKind {
    /// Run the named action (`execute_action`, `execute_role_action`).
    Action,
    /// Run the named action; the caller waits with a timeout (`request`).
    Request,
    /// Text for the receiver's language model (`send_message`).
    Text,
    /// A successful answer to an action, request, text or protocol message.
    Reply,
    /// A failed answer; `content` holds the error text and `payload.code` its kind.
    Error,
    /// A broadcast on the sender's topic.
    Broadcast,
    /// A publication to a topic.
    Publish,
    /// A debate step (start, position, vote, counter-argument, snapshot, cancel, event).
    Debate,
    /// A FIPA ACL message; the payload holds it.
    Acl,
    /// A BSPL protocol message; the payload holds it.
    Bspl,
}

impl MessageKind {
    /// Whether this kind answers another message (`Reply` or `Error`).
    pub const fn is_answer(self) -> bool {
        matches!(self, MessageKind::Reply | MessageKind::Error)
    }

    /// The kind's wire name, such as `"action"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            MessageKind::Action => "action",
            MessageKind::Request => "request",
            MessageKind::Text => "text",
            MessageKind::Reply => "reply",
            MessageKind::Error => "error",
            MessageKind::Broadcast => "broadcast",
            MessageKind::Publish => "publish",
            MessageKind::Debate => "debate",
            MessageKind::Acl => "acl",
            MessageKind::Bspl => "bspl",
        }
    }
}

impl fmt::Display for MessageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct MessageData {
    id: MessageId,
    kind: MessageKind,
    sender: AgentId,
    #[serde(default)]
    receiver: Option<AgentId>,
    #[serde(default)]
    topic: Option<String>,
    #[serde(default)]
    action: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    params: Params,
    #[serde(default)]
    payload: Value,
    #[serde(default)]
    content: Option<String>,
    // Shared: every answer in a conversation points at the same text.
    #[serde(default = "no_conversation")]
    conversation_id: Arc<str>,
    #[serde(default)]
    in_reply_to: Option<MessageId>,
    timestamp: DateTime<Utc>,
    #[serde(default)]
    context: Map<String, Value>,
}

fn no_conversation() -> Arc<str> {
    static EMPTY: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from(""));
    Arc::clone(&EMPTY)
}

/// The text of a message id, made without an intermediate `String`.
fn id_text(id: MessageId) -> Arc<str> {
    let mut buffer = uuid::Uuid::encode_buffer();
    Arc::from(&*id.0.hyphenated().encode_lower(&mut buffer))
}

/// A message between agents: the one envelope every paradigm and transport uses.
///
/// A message is immutable and cheap to clone (its data is shared), so a broadcast to a
/// thousand agents shares one allocation. Build one with [`Message::builder`], or answer
/// one with [`reply_builder`](Message::reply_builder).
///
/// # JSON shape
///
/// The HTTP and NATS transports send exactly this JSON; every key is always present
/// (`null` when unset), and readers accept a missing optional key as unset:
///
/// ```json
/// {
///   "id": "019a1f6e-8c1b-7d3e-9a55-0c2f1e4b6a70",
///   "kind": "action",
///   "sender": "order-agent",
///   "receiver": "billing-agent",
///   "topic": null,
///   "action": "processOrder",
///   "role": null,
///   "params": { "orderId": "12345" },
///   "payload": null,
///   "content": null,
///   "conversation_id": "019a1f6e-8c1b-7d3e-9a55-0c2f1e4b6a70",
///   "in_reply_to": null,
///   "timestamp": "2026-11-30T09:15:00.123456Z",
///   "context": {}
/// }
/// ```
///
/// `kind` is one of `action`, `request`, `text`, `reply`, `error`, `broadcast`,
/// `publish`, `debate`, `acl`, `bspl` ([`MessageKind`]); `id` and `in_reply_to` are UUIDs
/// (v7 for ids made here); `timestamp` is RFC 3339 in UTC; `context` carries
/// transport- and protocol-specific extras.
///
/// ```
/// use tnsai_core::{params, Message, MessageKind};
///
/// let request = Message::builder(MessageKind::Action, "order-agent")
///     .receiver("billing-agent")
///     .action("processOrder")
///     .params(params! { "orderId" => "12345" })
///     .build();
/// let reply = request
///     .reply_builder(MessageKind::Reply, "billing-agent")
///     .payload(serde_json::json!({ "status": "charged" }))
///     .build();
/// assert_eq!(reply.in_reply_to(), Some(request.id()));
/// assert_eq!(reply.receiver().unwrap(), "order-agent");
/// assert_eq!(reply.conversation_id(), request.conversation_id());
///
/// let json = serde_json::to_string(&request).unwrap();
/// let back: Message = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, request);
/// ```
#[derive(Clone, PartialEq)]
pub struct Message {
    data: Arc<MessageData>,
}

impl Message {
    /// Starts a message of `kind` from `sender`.
    pub fn builder(kind: MessageKind, sender: impl Into<AgentId>) -> MessageBuilder {
        let id = MessageId::new();
        MessageBuilder {
            data: Arc::new(MessageData {
                id,
                kind,
                sender: sender.into(),
                receiver: None,
                topic: None,
                action: None,
                role: None,
                params: Params::new(),
                payload: Value::Null,
                content: None,
                conversation_id: no_conversation(),
                in_reply_to: None,
                timestamp: Utc::now(),
                context: Map::new(),
            }),
        }
    }

    /// Starts an answer to this message from `sender`: addressed to this message's sender,
    /// in its conversation, `in_reply_to` this message's id.
    pub fn reply_builder(&self, kind: MessageKind, sender: impl Into<AgentId>) -> MessageBuilder {
        Message::builder(kind, sender)
            .receiver(self.data.sender.clone())
            .conversation_id(Arc::clone(&self.data.conversation_id))
            .in_reply_to(self.data.id)
    }

    /// A copy of this message's data in a builder, to derive a changed message.
    pub fn to_builder(&self) -> MessageBuilder {
        // Shares the data; the first change copies it.
        MessageBuilder {
            data: Arc::clone(&self.data),
        }
    }

    /// The unique id.
    pub fn id(&self) -> MessageId {
        self.data.id
    }
    /// What the message is for.
    pub fn kind(&self) -> MessageKind {
        self.data.kind
    }
    /// The sending agent.
    pub fn sender(&self) -> &AgentId {
        &self.data.sender
    }
    /// The receiving agent; `None` for broadcasts and publications.
    pub fn receiver(&self) -> Option<&AgentId> {
        self.data.receiver.as_ref()
    }
    /// The topic of a broadcast or publication.
    pub fn topic(&self) -> Option<&str> {
        self.data.topic.as_deref()
    }
    /// The action to run, for action and request messages.
    pub fn action(&self) -> Option<&str> {
        self.data.action.as_deref()
    }
    /// The role an action is invoked under (`execute_role_action`).
    pub fn role(&self) -> Option<&str> {
        self.data.role.as_deref()
    }
    /// The action's parameters.
    pub fn params(&self) -> &Params {
        &self.data.params
    }
    /// The JSON payload: an action's result in a reply, the data of a broadcast or
    /// publication, or `null`.
    pub fn payload(&self) -> &Value {
        &self.data.payload
    }
    /// The text of a text message or of a language model's answer (and the error text of
    /// an error answer).
    pub fn content(&self) -> Option<&str> {
        self.data.content.as_deref()
    }
    /// The conversation this message belongs to; a new call starts a conversation named
    /// after its first message's id, and answers keep it.
    pub fn conversation_id(&self) -> &str {
        &self.data.conversation_id
    }
    /// The message this one answers.
    pub fn in_reply_to(&self) -> Option<MessageId> {
        self.data.in_reply_to
    }
    /// When the message was created.
    pub fn timestamp(&self) -> DateTime<Utc> {
        self.data.timestamp
    }
    /// Transport- and protocol-specific extras.
    pub fn context(&self) -> &Map<String, Value> {
        &self.data.context
    }
    /// One context entry.
    pub fn context_value(&self, key: &str) -> Option<&Value> {
        self.data.context.get(key)
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &*self.data;
        let mut s = f.debug_struct("Message");
        s.field("id", &d.id)
            .field("kind", &d.kind)
            .field("sender", &d.sender);
        if let Some(receiver) = &d.receiver {
            s.field("receiver", receiver);
        }
        if let Some(topic) = &d.topic {
            s.field("topic", topic);
        }
        if let Some(action) = &d.action {
            s.field("action", action);
        }
        if let Some(role) = &d.role {
            s.field("role", role);
        }
        if !d.params.is_empty() {
            s.field("params", &d.params);
        }
        if !d.payload.is_null() {
            s.field("payload", &d.payload);
        }
        if let Some(content) = &d.content {
            s.field("content", content);
        }
        s.field("conversation_id", &d.conversation_id);
        if let Some(in_reply_to) = &d.in_reply_to {
            s.field("in_reply_to", in_reply_to);
        }
        s.field("timestamp", &d.timestamp);
        if !d.context.is_empty() {
            s.field("context", &d.context);
        }
        s.finish()
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.data.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut data = MessageData::deserialize(deserializer)?;
        if data.conversation_id.is_empty() {
            data.conversation_id = id_text(data.id);
        }
        Ok(Self {
            data: Arc::new(data),
        })
    }
}

/// Builds a [`Message`]; see [`Message::builder`].
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct MessageBuilder {
    // Held in its final `Arc` from the start: moving the builder through a chain of
    // calls moves a pointer, and `build` allocates nothing.
    data: Arc<MessageData>,
}

impl MessageBuilder {
    fn data(&mut self) -> &mut MessageData {
        // Unique unless the builder came from `Message::to_builder`, whose first
        // change copies the shared data.
        Arc::make_mut(&mut self.data)
    }
    /// Sets the receiver.
    pub fn receiver(mut self, receiver: impl Into<AgentId>) -> Self {
        self.data().receiver = Some(receiver.into());
        self
    }
    /// Sets the topic.
    pub fn topic(mut self, topic: impl Into<String>) -> Self {
        self.data().topic = Some(topic.into());
        self
    }
    /// Sets the action name.
    pub fn action(mut self, action: impl Into<String>) -> Self {
        self.data().action = Some(action.into());
        self
    }
    /// Sets the role the action is invoked under.
    pub fn role(mut self, role: impl Into<String>) -> Self {
        self.data().role = Some(role.into());
        self
    }
    /// Sets the parameters.
    pub fn params(mut self, params: Params) -> Self {
        self.data().params = params;
        self
    }
    /// Sets the payload.
    pub fn payload(mut self, payload: Value) -> Self {
        self.data().payload = payload;
        self
    }
    /// Sets the text content.
    pub fn content(mut self, content: impl Into<String>) -> Self {
        self.data().content = Some(content.into());
        self
    }
    /// Sets the conversation id (by default the message's own id).
    pub fn conversation_id(mut self, conversation_id: impl Into<Arc<str>>) -> Self {
        self.data().conversation_id = conversation_id.into();
        self
    }
    /// Marks the message as the answer to `id`.
    pub fn in_reply_to(mut self, id: MessageId) -> Self {
        self.data().in_reply_to = Some(id);
        self
    }
    /// Sets the creation time (by default, when the builder was made).
    pub fn timestamp(mut self, timestamp: DateTime<Utc>) -> Self {
        self.data().timestamp = timestamp;
        self
    }
    /// Gives the message a fresh id (useful after [`Message::to_builder`]).
    pub fn fresh_id(mut self) -> Self {
        self.data().id = MessageId::new();
        self
    }
    /// Adds a context entry.
    pub fn context(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.data().context.insert(key.into(), value.into());
        self
    }
    /// Finishes the message.
    pub fn build(mut self) -> Message {
        if self.data.conversation_id.is_empty() {
            let id = self.data.id;
            self.data().conversation_id = id_text(id);
        }
        Message { data: self.data }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_sort_by_creation_time() {
        let a = MessageId::new();
        let b = MessageId::new();
        assert!(a < b);
    }

    #[test]
    fn json_shape_is_stable_and_complete() {
        let m = Message::builder(MessageKind::Publish, "monitor")
            .topic("alerts.disk")
            .payload(json!({"level": 3}))
            .context("trace", "abc")
            .build();
        let value = serde_json::to_value(&m).unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "action",
                "content",
                "context",
                "conversation_id",
                "id",
                "in_reply_to",
                "kind",
                "params",
                "payload",
                "receiver",
                "role",
                "sender",
                "timestamp",
                "topic"
            ]
        );
        assert_eq!(value["kind"], "publish");
        assert_eq!(value["receiver"], Value::Null);
        assert_eq!(value["conversation_id"], m.id().to_string());
    }

    #[test]
    fn minimal_json_is_accepted_and_bad_json_refused() {
        let m: Message = serde_json::from_value(json!({
            "id": "019a1f6e-8c1b-7d3e-9a55-0c2f1e4b6a70",
            "kind": "text",
            "sender": "a",
            "conversation_id": "",
            "timestamp": "2026-11-30T09:15:00Z",
            "content": "hi"
        }))
        .unwrap();
        assert_eq!(m.content(), Some("hi"));
        assert_eq!(m.conversation_id(), m.id().to_string());
        assert!(serde_json::from_value::<Message>(json!({"kind": "shout"})).is_err());
    }
}
