//! The FIPA ACL message (FIPA SC00061), its builder and its JSON form.

mod builder;
mod ids;
mod json;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::agent::AgentIdentifier;
use crate::performative::Performative;

pub use builder::{BuildError, FipaMessageBuilder};
pub(crate) use builder::{
    ID_PARAMETER, TIMESTAMP_PARAMETER, normalize_user_parameter_name, to_millis,
};
pub use ids::{ConversationId, MessageId};

/// The content language a message gets when none is given.
pub const DEFAULT_LANGUAGE: &str = "natural";
/// The content encoding a message gets when none is given.
pub const DEFAULT_ENCODING: &str = "UTF-8";

/// A FIPA ACL message.
///
/// It holds the FIPA ACL parameters (performative, sender, receivers,
/// reply-to, content, language, encoding, ontology, protocol, conversation-id,
/// reply-with, in-reply-to, reply-by), user-defined `X-` parameters, and two
/// fields of this crate's own: a message [`id`](Self::id) and a creation
/// [`timestamp`](Self::timestamp).
///
/// Messages are immutable; make them with [`FipaMessage::builder`], one of the
/// factories ([`inform`](Self::inform), [`request`](Self::request),
/// [`query_if`](Self::query_if), [`cfp`](Self::cfp)), [`create_reply`](Self::create_reply),
/// by parsing the FIPA ACL string encoding (`str::parse`, [`crate::parse_acl`]) or
/// from JSON. [`Display`](std::fmt::Display) prints the string encoding
/// (`{:#}` puts one parameter per line).
///
/// Times are kept to the millisecond, the precision of a FIPA date-time, so that
/// every form of a message reads back equal to it.
///
/// # JSON
///
/// Serde writes an object with the FIPA parameter names; absent optional
/// parameters and empty lists are left out:
///
/// ```json
/// {
///   "id": "5d1c…", "performative": "request",
///   "sender": "agent-1", "receivers": ["agent-2"],
///   "reply-to": ["agent-3"],
///   "content": "Please perform analysis", "language": "natural",
///   "encoding": "UTF-8", "ontology": "market-analysis", "protocol": "fipa-request",
///   "conversation-id": "9b0e…", "reply-with": "reply-5d1c…", "in-reply-to": "r-0",
///   "reply-by": "2025-01-01T12:05:00Z", "timestamp": "2025-01-01T12:00:00.123Z",
///   "user-parameters": {"X-priority": "high"}
/// }
/// ```
///
/// Agent identifiers are strings or objects, see [`AgentIdentifier`]. Reading
/// JSON goes through the builder: `performative` is required, the rest get the
/// builder's defaults, and invalid user-defined parameter names are rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FipaMessage {
    pub(crate) id: MessageId,
    pub(crate) performative: Performative,
    pub(crate) sender: Option<AgentIdentifier>,
    pub(crate) receivers: Vec<AgentIdentifier>,
    pub(crate) reply_to: Vec<AgentIdentifier>,
    pub(crate) content: Option<String>,
    pub(crate) language: Option<String>,
    pub(crate) encoding: Option<String>,
    pub(crate) ontology: Option<String>,
    pub(crate) protocol: Option<String>,
    pub(crate) conversation_id: ConversationId,
    pub(crate) reply_with: Option<String>,
    pub(crate) in_reply_to: Option<String>,
    pub(crate) reply_by: Option<DateTime<Utc>>,
    pub(crate) timestamp: DateTime<Utc>,
    pub(crate) user_parameters: BTreeMap<String, String>,
}

impl FipaMessage {
    /// A builder with nothing set; [`FipaMessageBuilder::build`] fails until a
    /// performative is given.
    ///
    /// Defaults applied by `build`: a random id and conversation id, language
    /// `natural`, encoding `UTF-8`, timestamp now, and for a message that is
    /// not a reply (no `in_reply_to`) and has no `reply_with`, `reply-<id>`.
    pub fn builder() -> FipaMessageBuilder {
        FipaMessageBuilder::default()
    }

    /// An `inform` from `sender` to `receiver`.
    pub fn inform(
        sender: impl Into<String>,
        receiver: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self::factory(Performative::Inform, None, sender, receiver, content)
    }

    /// A `request` in the `fipa-request` protocol.
    pub fn request(
        sender: impl Into<String>,
        receiver: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self::factory(
            Performative::Request,
            Some(crate::protocol::REQUEST_PROTOCOL),
            sender,
            receiver,
            content,
        )
    }

    /// A `query-if` in the `fipa-query` protocol.
    pub fn query_if(
        sender: impl Into<String>,
        receiver: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self::factory(
            Performative::QueryIf,
            Some(crate::protocol::QUERY_PROTOCOL),
            sender,
            receiver,
            content,
        )
    }

    /// A `cfp` (call for proposals) in the `fipa-contract-net` protocol.
    pub fn cfp(
        sender: impl Into<String>,
        receiver: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self::factory(
            Performative::Cfp,
            Some(crate::protocol::CONTRACT_NET_PROTOCOL),
            sender,
            receiver,
            content,
        )
    }

    fn factory(
        performative: Performative,
        protocol: Option<&str>,
        sender: impl Into<String>,
        receiver: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        let mut builder = Self::builder()
            .sender(sender)
            .receiver(receiver)
            .content(content);
        if let Some(protocol) = protocol {
            builder = builder.protocol(protocol);
        }
        builder.assemble(performative)
    }

    /// A builder for a reply to this message.
    ///
    /// It sets `in_reply_to` to this message's `reply_with` (or its id when it
    /// has none), addresses the reply to this message's `reply_to` agents or,
    /// when there are none, to its sender, and copies the conversation id,
    /// protocol, language, encoding and ontology. Sender and performative are
    /// left for the caller.
    pub fn create_reply(&self) -> FipaMessageBuilder {
        let to = if self.reply_to.is_empty() {
            self.sender.iter().cloned().collect()
        } else {
            self.reply_to.clone()
        };
        let mut builder = Self::builder()
            .receiver_ids(to)
            .in_reply_to(
                self.reply_with
                    .clone()
                    .unwrap_or_else(|| self.id.as_str().to_owned()),
            )
            .conversation_id(self.conversation_id.as_str());
        if let Some(protocol) = &self.protocol {
            builder = builder.protocol(protocol.as_str());
        }
        if let Some(language) = &self.language {
            builder = builder.language(language.as_str());
        }
        if let Some(encoding) = &self.encoding {
            builder = builder.encoding(encoding.as_str());
        }
        if let Some(ontology) = &self.ontology {
            builder = builder.ontology(ontology.as_str());
        }
        builder
    }

    /// A builder holding every field of this message, to derive a changed copy.
    pub fn into_builder(self) -> FipaMessageBuilder {
        FipaMessageBuilder::from_message(self)
    }

    /// This message's identifier.
    pub fn id(&self) -> &MessageId {
        &self.id
    }

    /// The communicative act.
    pub fn performative(&self) -> Performative {
        self.performative
    }

    /// The sender's name.
    pub fn sender(&self) -> Option<&str> {
        self.sender.as_ref().map(AgentIdentifier::name)
    }

    /// The sender's full identifier.
    pub fn sender_id(&self) -> Option<&AgentIdentifier> {
        self.sender.as_ref()
    }

    /// The first receiver's name; see [`receivers`](Self::receivers) for all.
    pub fn receiver(&self) -> Option<&str> {
        self.receivers.first().map(AgentIdentifier::name)
    }

    /// The names of all receivers, in order.
    pub fn receivers(&self) -> Vec<&str> {
        self.receivers.iter().map(AgentIdentifier::name).collect()
    }

    /// The full identifiers of all receivers.
    pub fn receiver_ids(&self) -> &[AgentIdentifier] {
        &self.receivers
    }

    /// The names of the agents replies should go to instead of the sender.
    pub fn reply_to(&self) -> Vec<&str> {
        self.reply_to.iter().map(AgentIdentifier::name).collect()
    }

    /// The full identifiers of the agents replies should go to.
    pub fn reply_to_ids(&self) -> &[AgentIdentifier] {
        &self.reply_to
    }

    /// The content.
    pub fn content(&self) -> Option<&str> {
        self.content.as_deref()
    }

    /// The language the content is expressed in.
    pub fn language(&self) -> Option<&str> {
        self.language.as_deref()
    }

    /// The encoding of the content.
    pub fn encoding(&self) -> Option<&str> {
        self.encoding.as_deref()
    }

    /// The ontology giving the content's symbols their meaning.
    pub fn ontology(&self) -> Option<&str> {
        self.ontology.as_deref()
    }

    /// The interaction protocol, e.g. `fipa-request`.
    pub fn protocol(&self) -> Option<&str> {
        self.protocol.as_deref()
    }

    /// The conversation this message belongs to.
    pub fn conversation_id(&self) -> &ConversationId {
        &self.conversation_id
    }

    /// The expression a reply should quote in its `in_reply_to`.
    pub fn reply_with(&self) -> Option<&str> {
        self.reply_with.as_deref()
    }

    /// The `reply_with` (or id) of the message this one answers.
    pub fn in_reply_to(&self) -> Option<&str> {
        self.in_reply_to.as_deref()
    }

    /// The latest time by which the sender wants a reply.
    pub fn reply_by(&self) -> Option<DateTime<Utc>> {
        self.reply_by
    }

    /// When the message was created.
    pub fn timestamp(&self) -> DateTime<Utc> {
        self.timestamp
    }

    /// User-defined parameters, keyed by their full `X-` name.
    pub fn user_parameters(&self) -> &BTreeMap<String, String> {
        &self.user_parameters
    }

    /// One user-defined parameter; `name` may omit the `X-` prefix.
    pub fn user_parameter(&self, name: &str) -> Option<&str> {
        self.user_parameters
            .get(&normalize_user_parameter_name(name.to_owned()))
            .map(String::as_str)
    }

    /// Whether this message answers another (it has `in_reply_to`).
    pub fn is_reply(&self) -> bool {
        self.in_reply_to.is_some()
    }

    /// Whether `reply_by` is set and lies before `now`.
    pub fn is_expired_at(&self, now: DateTime<Utc>) -> bool {
        self.reply_by.is_some_and(|deadline| now > deadline)
    }

    /// What a reply must quote in `in_reply_to`: `reply_with`, or the id.
    pub fn reply_key(&self) -> &str {
        self.reply_with.as_deref().unwrap_or(self.id.as_str())
    }
}
