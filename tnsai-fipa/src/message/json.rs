//! The serde form of [`FipaMessage`] (documented on the type).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::FipaMessage;
use crate::agent::AgentIdentifier;
use crate::performative::Performative;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct Wire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    performative: Performative,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sender: Option<AgentIdentifier>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    receivers: Vec<AgentIdentifier>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reply_to: Vec<AgentIdentifier>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    language: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    encoding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ontology: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    conversation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reply_with: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    in_reply_to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reply_by: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timestamp: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    user_parameters: BTreeMap<String, String>,
}

impl Serialize for FipaMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let m = self.clone();
        Wire {
            id: Some(m.id.to_string()),
            performative: m.performative,
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
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for FipaMessage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let w = Wire::deserialize(deserializer)?;
        let mut b = FipaMessage::builder()
            .performative(w.performative)
            .receiver_ids(w.receivers);
        if let Some(id) = w.id {
            b = b.id(id);
        }
        if let Some(sender) = w.sender {
            b = b.sender_id(sender);
        }
        for agent in w.reply_to {
            b = b.add_reply_to_id(agent);
        }
        if let Some(content) = w.content {
            b = b.content(content);
        }
        if let Some(language) = w.language {
            b = b.language(language);
        }
        if let Some(encoding) = w.encoding {
            b = b.encoding(encoding);
        }
        if let Some(ontology) = w.ontology {
            b = b.ontology(ontology);
        }
        if let Some(protocol) = w.protocol {
            b = b.protocol(protocol);
        }
        if let Some(conversation_id) = w.conversation_id {
            b = b.conversation_id(conversation_id);
        }
        if let Some(reply_with) = w.reply_with {
            b = b.reply_with(reply_with);
        }
        if let Some(in_reply_to) = w.in_reply_to {
            b = b.in_reply_to(in_reply_to);
        }
        if let Some(reply_by) = w.reply_by {
            b = b.reply_by(reply_by);
        }
        if let Some(timestamp) = w.timestamp {
            b = b.timestamp(timestamp);
        }
        for (name, value) in w.user_parameters {
            b = b.user_parameter(name, value);
        }
        b.build().map_err(serde::de::Error::custom)
    }
}
