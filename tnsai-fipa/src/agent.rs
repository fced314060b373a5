//! FIPA agent identifiers: a name plus optional transport addresses and resolvers.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::message::normalize_user_parameter_name;

/// An agent identifier (`agent-identifier` in FIPA SC00023): the agent's globally
/// unique name, the transport addresses it can be reached at, name-resolution
/// services and user-defined `X-` parameters.
///
/// Most code only needs the name; `AgentIdentifier` converts from `&str` and
/// `String`, compares equal to a `&str` holding its name, and displays as its name.
///
/// ```
/// use tnsai_fipa::AgentIdentifier;
/// let aid = AgentIdentifier::new("buyer@platform")
///     .with_address("http://platform:7778/acc");
/// assert_eq!(aid, "buyer@platform");
/// assert_eq!(aid.addresses(), ["http://platform:7778/acc"]);
/// ```
///
/// In JSON an identifier that has only a name is a plain string
/// (`"buyer@platform"`); otherwise it is an object
/// `{"name": ..., "addresses": [...], "resolvers": [...], "user-parameters": {...}}`
/// whose empty members are left out.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentIdentifier {
    name: String,
    addresses: Vec<String>,
    resolvers: Vec<AgentIdentifier>,
    user_parameters: BTreeMap<String, String>,
}

impl AgentIdentifier {
    /// An identifier with just a name.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            addresses: Vec::new(),
            resolvers: Vec::new(),
            user_parameters: BTreeMap::new(),
        }
    }

    /// Adds a transport address (a URL such as `http://host:7778/acc`).
    pub fn with_address(mut self, url: impl Into<String>) -> Self {
        self.addresses.push(url.into());
        self
    }

    /// Adds a name-resolution service, itself an agent.
    pub fn with_resolver(mut self, resolver: AgentIdentifier) -> Self {
        self.resolvers.push(resolver);
        self
    }

    /// Adds a user-defined parameter; `X-` is put in front of `name` unless it
    /// already starts with it. The name is checked when a message holding this
    /// identifier is built.
    pub fn with_user_parameter(
        mut self,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        self.user_parameters
            .insert(normalize_user_parameter_name(name.into()), value.into());
        self
    }

    /// The agent's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The transport addresses, in order of preference.
    pub fn addresses(&self) -> &[String] {
        &self.addresses
    }

    /// The name-resolution services.
    pub fn resolvers(&self) -> &[AgentIdentifier] {
        &self.resolvers
    }

    /// The user-defined parameters, keyed by their full `X-` name.
    pub fn user_parameters(&self) -> &BTreeMap<String, String> {
        &self.user_parameters
    }

    pub(crate) fn from_parts(
        name: String,
        addresses: Vec<String>,
        resolvers: Vec<AgentIdentifier>,
        user_parameters: BTreeMap<String, String>,
    ) -> Self {
        Self {
            name,
            addresses,
            resolvers,
            user_parameters,
        }
    }

    fn is_name_only(&self) -> bool {
        self.addresses.is_empty() && self.resolvers.is_empty() && self.user_parameters.is_empty()
    }
}

impl From<&str> for AgentIdentifier {
    fn from(name: &str) -> Self {
        Self::new(name)
    }
}

impl From<String> for AgentIdentifier {
    fn from(name: String) -> Self {
        Self::new(name)
    }
}

impl From<&String> for AgentIdentifier {
    fn from(name: &String) -> Self {
        Self::new(name.as_str())
    }
}

impl PartialEq<str> for AgentIdentifier {
    fn eq(&self, other: &str) -> bool {
        self.name == other
    }
}

impl PartialEq<&str> for AgentIdentifier {
    fn eq(&self, other: &&str) -> bool {
        self.name == *other
    }
}

impl fmt::Display for AgentIdentifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct FullRepr {
    name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    addresses: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    resolvers: Vec<AgentIdentifier>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    user_parameters: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum AnyRepr {
    Name(String),
    Full(FullRepr),
}

impl Serialize for AgentIdentifier {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.is_name_only() {
            return serializer.serialize_str(&self.name);
        }
        FullRepr {
            name: self.name.clone(),
            addresses: self.addresses.clone(),
            resolvers: self.resolvers.clone(),
            user_parameters: self.user_parameters.clone(),
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for AgentIdentifier {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(match AnyRepr::deserialize(deserializer)? {
            AnyRepr::Name(name) => Self::new(name),
            AnyRepr::Full(full) => Self::from_parts(
                full.name,
                full.addresses,
                full.resolvers,
                full.user_parameters,
            ),
        })
    }
}
