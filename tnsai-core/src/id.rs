//! Agent identity.

use std::borrow::Borrow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The name an agent is known by on a platform, such as `"billing-agent"`.
///
/// Cloning is cheap (a reference count), so ids can travel in every message. An `AgentId`
/// converts from `&str`, `String` and `&AgentId`, which is what every call that names an
/// agent accepts:
///
/// ```
/// use tnsai_core::AgentId;
///
/// let id = AgentId::from("billing-agent");
/// assert_eq!(id.to_string(), "billing-agent");
/// assert_eq!(id, "billing-agent");
/// assert!(AgentId::from("").is_empty());
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AgentId(Arc<str>);

impl AgentId {
    /// Builds an id from any text. Empty ids are representable (so that conversion never
    /// fails) but a platform refuses to spawn an agent under one.
    pub fn new(id: impl AsRef<str>) -> Self {
        Self(Arc::from(id.as_ref()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the id is empty or only whitespace.
    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for AgentId {
    fn from(id: &str) -> Self {
        Self::new(id)
    }
}

impl From<String> for AgentId {
    fn from(id: String) -> Self {
        Self(Arc::from(id))
    }
}

impl From<&String> for AgentId {
    fn from(id: &String) -> Self {
        Self::new(id)
    }
}

impl From<&AgentId> for AgentId {
    fn from(id: &AgentId) -> Self {
        id.clone()
    }
}

impl From<AgentId> for String {
    fn from(id: AgentId) -> Self {
        id.0.to_string()
    }
}

impl AsRef<str> for AgentId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for AgentId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for AgentId {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for AgentId {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for AgentId {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<AgentId> for &str {
    fn eq(&self, other: &AgentId) -> bool {
        *self == &*other.0
    }
}

impl Serialize for AgentId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for AgentId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(Self::new(text))
    }
}
