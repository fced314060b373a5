//! Who plays which role.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use tnsai_core::AgentId;

/// Which agent plays each role of each protocol, shared by the agents of an enactment.
///
/// A message for a role is sent to the agent the roster names; a received message is
/// accepted only from the agent that plays its sender role. Clones share the roster.
///
/// ```
/// use tnsai_coordination::bspl::Roster;
///
/// let roster = Roster::new()
///     .with("Purchase", "Buyer", "buyer")
///     .with("Purchase", "Seller", "seller");
/// assert_eq!(roster.agent("Purchase", "Seller").unwrap(), "seller");
/// assert!(roster.agent("Purchase", "Shipper").is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct Roster {
    roles: Arc<RwLock<HashMap<(String, String), AgentId>>>,
}

impl Roster {
    /// An empty roster.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names the agent that plays `role` in `protocol`, replacing any earlier one.
    pub fn assign(
        &self,
        protocol: impl Into<String>,
        role: impl Into<String>,
        agent: impl Into<AgentId>,
    ) {
        self.roles
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert((protocol.into(), role.into()), agent.into());
    }

    /// [`assign`](Self::assign), for chaining.
    pub fn with(
        self,
        protocol: impl Into<String>,
        role: impl Into<String>,
        agent: impl Into<AgentId>,
    ) -> Self {
        self.assign(protocol, role, agent);
        self
    }

    /// The agent that plays `role` in `protocol`.
    pub fn agent(&self, protocol: &str, role: &str) -> Option<AgentId> {
        self.roles
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(protocol.to_owned(), role.to_owned()))
            .cloned()
    }
}
