//! Step-by-step construction of [`FipaMessage`]s, with the crate's defaults.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, SubsecRound, Utc};

use super::{ConversationId, DEFAULT_ENCODING, DEFAULT_LANGUAGE, FipaMessage, MessageId};
use crate::agent::AgentIdentifier;
use crate::performative::Performative;

/// User-defined parameter that carries [`FipaMessage::id`] in the string encoding.
pub(crate) const ID_PARAMETER: &str = "X-tnsai-id";
/// User-defined parameter that carries [`FipaMessage::timestamp`] in the string encoding.
pub(crate) const TIMESTAMP_PARAMETER: &str = "X-tnsai-timestamp";

/// Why a [`FipaMessageBuilder`] could not build a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// No performative was given; FIPA makes it the one mandatory parameter.
    #[error("a FIPA message needs a performative")]
    MissingPerformative,
    /// A user-defined parameter name cannot be written in the string encoding.
    #[error(
        "`{name}` is not a valid user-defined parameter name: it must start with `X-`, \
         have text after it, and contain no whitespace, control characters or parentheses"
    )]
    InvalidParameterName {
        /// The rejected name.
        name: String,
    },
    /// A user-defined parameter name is used by the string encoding itself.
    #[error("`{name}` is reserved: the ACL string encoding uses it for the message's own fields")]
    ReservedParameterName {
        /// The rejected name.
        name: String,
    },
    /// A time lies outside the years 0000 to 9999.
    #[error("{field} {value} lies outside the years 0000-9999 that a FIPA date-time can express")]
    DateOutOfRange {
        /// `reply_by` or `timestamp`.
        field: &'static str,
        /// The rejected time.
        value: DateTime<Utc>,
    },
}

/// Puts `X-` in front of a user-defined parameter name unless it starts with `X-`/`x-`.
pub(crate) fn normalize_user_parameter_name(name: String) -> String {
    if has_user_prefix(&name) {
        name
    } else {
        format!("X-{name}")
    }
}

fn has_user_prefix(name: &str) -> bool {
    name.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("X-"))
}

/// Whether `name` can be written as a `:X-...` word of the string encoding.
pub(crate) fn is_valid_user_parameter_name(name: &str) -> bool {
    has_user_prefix(name)
        && name.len() > 2
        && name
            .chars()
            .all(|c| u32::from(c) > 0x20 && c != '(' && c != ')')
}

fn is_reserved(name: &str) -> bool {
    [ID_PARAMETER, TIMESTAMP_PARAMETER]
        .iter()
        .any(|r| r.eq_ignore_ascii_case(name))
}

/// Truncation to milliseconds keeps a time equal after a trip through the FIPA
/// date-time format, which has no finer unit.
pub(crate) fn to_millis(time: DateTime<Utc>) -> DateTime<Utc> {
    time.trunc_subsecs(3)
}

fn check_year(field: &'static str, value: DateTime<Utc>) -> Result<(), BuildError> {
    if (0..=9999).contains(&value.year()) {
        Ok(())
    } else {
        Err(BuildError::DateOutOfRange { field, value })
    }
}

fn check_agent(agent: &AgentIdentifier) -> Result<(), BuildError> {
    for name in agent.user_parameters().keys() {
        if !is_valid_user_parameter_name(name) {
            return Err(BuildError::InvalidParameterName { name: name.clone() });
        }
    }
    agent.resolvers().iter().try_for_each(check_agent)
}

/// Builds a [`FipaMessage`]; get one from [`FipaMessage::builder`] or
/// [`FipaMessage::create_reply`].
///
/// Text setters take anything convertible into `String`. Agents can be given
/// by name (`sender`, `receiver`, ...) or as full [`AgentIdentifier`]s
/// (`sender_id`, `receiver_id`, ...).
///
/// ```
/// use tnsai_fipa::{FipaMessage, Performative};
/// let m = FipaMessage::builder()
///     .performative(Performative::Inform)
///     .sender("a")
///     .receivers(["b", "c"])
///     .content("done")
///     .user_parameter("priority", "high")
///     .build()?;
/// assert_eq!(m.receivers(), ["b", "c"]);
/// assert_eq!(m.user_parameter("X-priority"), Some("high"));
/// assert_eq!(m.reply_with(), Some(format!("reply-{}", m.id()).as_str()));
/// assert!(FipaMessage::builder().content("no act").build().is_err());
/// # Ok::<(), tnsai_fipa::BuildError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct FipaMessageBuilder {
    performative: Option<Performative>,
    id: Option<String>,
    sender: Option<AgentIdentifier>,
    receivers: Vec<AgentIdentifier>,
    reply_to: Vec<AgentIdentifier>,
    content: Option<String>,
    language: Option<String>,
    encoding: Option<String>,
    ontology: Option<String>,
    protocol: Option<String>,
    conversation_id: Option<String>,
    reply_with: Option<String>,
    in_reply_to: Option<String>,
    reply_by: Option<DateTime<Utc>>,
    timestamp: Option<DateTime<Utc>>,
    user_parameters: BTreeMap<String, String>,
}

impl FipaMessageBuilder {
    pub(super) fn from_message(m: FipaMessage) -> Self {
        Self {
            performative: Some(m.performative),
            id: Some(m.id.to_string()),
            sender: m.sender,
            receivers: m.receivers,
            reply_to: m.reply_to,
            content: m.content,
            language: m.language,
            encoding: m.encoding,
            ontology: m.ontology,
            protocol: m.protocol,
            conversation_id: Some(m.conversation_id.to_string()),
            reply_with: m.reply_with,
            in_reply_to: m.in_reply_to,
            reply_by: m.reply_by,
            timestamp: Some(m.timestamp),
            user_parameters: m.user_parameters,
        }
    }

    /// Sets the communicative act (required).
    pub fn performative(mut self, performative: Performative) -> Self {
        self.performative = Some(performative);
        self
    }

    /// Sets the message id instead of a random one.
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Sets the sender by name.
    pub fn sender(mut self, name: impl Into<String>) -> Self {
        self.sender = Some(AgentIdentifier::new(name));
        self
    }

    /// Sets the sender's full identifier.
    pub fn sender_id(mut self, agent: AgentIdentifier) -> Self {
        self.sender = Some(agent);
        self
    }

    /// Makes `name` the only receiver, replacing any set before.
    pub fn receiver(mut self, name: impl Into<String>) -> Self {
        self.receivers = vec![AgentIdentifier::new(name)];
        self
    }

    /// Adds one more receiver.
    pub fn add_receiver(mut self, name: impl Into<String>) -> Self {
        self.receivers.push(AgentIdentifier::new(name));
        self
    }

    /// Sets all receivers by name, replacing any set before.
    pub fn receivers<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.receivers = names.into_iter().map(AgentIdentifier::new).collect();
        self
    }

    /// Makes `agent` the only receiver, replacing any set before.
    pub fn receiver_id(mut self, agent: AgentIdentifier) -> Self {
        self.receivers = vec![agent];
        self
    }

    /// Adds one more receiver by full identifier.
    pub fn add_receiver_id(mut self, agent: AgentIdentifier) -> Self {
        self.receivers.push(agent);
        self
    }

    /// Sets all receivers by full identifier, replacing any set before.
    pub fn receiver_ids(mut self, agents: impl IntoIterator<Item = AgentIdentifier>) -> Self {
        self.receivers = agents.into_iter().collect();
        self
    }

    /// Makes `name` the only agent replies should go to, replacing any set before.
    pub fn reply_to(mut self, name: impl Into<String>) -> Self {
        self.reply_to = vec![AgentIdentifier::new(name)];
        self
    }

    /// Adds an agent replies should go to.
    pub fn add_reply_to(mut self, name: impl Into<String>) -> Self {
        self.reply_to.push(AgentIdentifier::new(name));
        self
    }

    /// Adds an agent replies should go to, by full identifier.
    pub fn add_reply_to_id(mut self, agent: AgentIdentifier) -> Self {
        self.reply_to.push(agent);
        self
    }

    /// Sets the content.
    pub fn content(mut self, content: impl Into<String>) -> Self {
        self.content = Some(content.into());
        self
    }

    /// Sets the content language (default `natural`).
    pub fn language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }

    /// Sets the content encoding (default `UTF-8`).
    pub fn encoding(mut self, encoding: impl Into<String>) -> Self {
        self.encoding = Some(encoding.into());
        self
    }

    /// Sets the ontology.
    pub fn ontology(mut self, ontology: impl Into<String>) -> Self {
        self.ontology = Some(ontology.into());
        self
    }

    /// Sets the interaction protocol, e.g. `fipa-request`.
    pub fn protocol(mut self, protocol: impl Into<String>) -> Self {
        self.protocol = Some(protocol.into());
        self
    }

    /// Sets the conversation id instead of a random one.
    pub fn conversation_id(mut self, id: impl Into<String>) -> Self {
        self.conversation_id = Some(id.into());
        self
    }

    /// Sets the expression replies must quote in `in_reply_to`.
    pub fn reply_with(mut self, expression: impl Into<String>) -> Self {
        self.reply_with = Some(expression.into());
        self
    }

    /// Marks the message as a reply to the one whose `reply_with` (or id) is given.
    pub fn in_reply_to(mut self, expression: impl Into<String>) -> Self {
        self.in_reply_to = Some(expression.into());
        self
    }

    /// Sets the latest time a reply is wanted by (kept to the millisecond).
    pub fn reply_by(mut self, deadline: DateTime<Utc>) -> Self {
        self.reply_by = Some(deadline);
        self
    }

    /// Sets the creation time instead of now (kept to the millisecond).
    pub fn timestamp(mut self, timestamp: DateTime<Utc>) -> Self {
        self.timestamp = Some(timestamp);
        self
    }

    /// Adds a user-defined parameter; `X-` is put in front of `name` unless it
    /// already starts with it. Invalid names make [`build`](Self::build) fail.
    pub fn user_parameter(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.user_parameters
            .insert(normalize_user_parameter_name(name.into()), value.into());
        self
    }

    /// Builds the message, applying the defaults described at [`FipaMessage::builder`].
    ///
    /// # Errors
    ///
    /// [`BuildError::MissingPerformative`] without a performative;
    /// [`BuildError::InvalidParameterName`] or [`BuildError::ReservedParameterName`]
    /// for a user-defined parameter that cannot be encoded;
    /// [`BuildError::DateOutOfRange`] for a time outside the years 0000-9999.
    pub fn build(self) -> Result<FipaMessage, BuildError> {
        let performative = self.performative.ok_or(BuildError::MissingPerformative)?;
        for name in self.user_parameters.keys() {
            if !is_valid_user_parameter_name(name) {
                return Err(BuildError::InvalidParameterName { name: name.clone() });
            }
            if is_reserved(name) {
                return Err(BuildError::ReservedParameterName { name: name.clone() });
            }
        }
        self.sender
            .iter()
            .chain(&self.receivers)
            .chain(&self.reply_to)
            .try_for_each(check_agent)?;
        if let Some(reply_by) = self.reply_by {
            check_year("reply_by", reply_by)?;
        }
        if let Some(timestamp) = self.timestamp {
            check_year("timestamp", timestamp)?;
        }
        Ok(self.assemble(performative))
    }

    /// Applies the defaults; callers must have validated what `build` checks,
    /// which holds trivially for messages made from names and text only.
    pub(crate) fn assemble(self, performative: Performative) -> FipaMessage {
        let id = self
            .id
            .map(MessageId::from)
            .unwrap_or_else(MessageId::random);
        let reply_with = match (self.reply_with, &self.in_reply_to) {
            (Some(reply_with), _) => Some(reply_with),
            (None, None) => Some(format!("reply-{id}")),
            (None, Some(_)) => None,
        };
        FipaMessage {
            performative,
            sender: self.sender,
            receivers: self.receivers,
            reply_to: self.reply_to,
            content: self.content,
            language: Some(self.language.unwrap_or_else(|| DEFAULT_LANGUAGE.to_owned())),
            encoding: Some(self.encoding.unwrap_or_else(|| DEFAULT_ENCODING.to_owned())),
            ontology: self.ontology,
            protocol: self.protocol,
            conversation_id: self
                .conversation_id
                .map(ConversationId::from)
                .unwrap_or_else(ConversationId::random),
            reply_with,
            in_reply_to: self.in_reply_to,
            reply_by: self.reply_by.map(to_millis),
            timestamp: to_millis(self.timestamp.unwrap_or_else(Utc::now)),
            user_parameters: self.user_parameters,
            id,
        }
    }
}
