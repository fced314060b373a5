//! The agents a platform hosts and who listens on which topic.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use dashmap::DashMap;
use dashmap::mapref::entry::Entry;
use tnsai_core::{AgentId, TopicPattern};

use crate::hosted::HostedAgent;

/// Subscriptions split by kind: literal topics are a hash lookup, wildcard patterns a
/// scan (there are few of them in practice).
#[derive(Default)]
struct SubscriptionIndex {
    literal: HashMap<String, Vec<Arc<HostedAgent>>>,
    wildcard: Vec<(TopicPattern, Arc<HostedAgent>)>,
}

/// In-process discovery: the agents of one platform, by id and by topic.
#[derive(Default)]
pub(crate) struct Directory {
    agents: DashMap<AgentId, Arc<HostedAgent>>,
    subscriptions: RwLock<SubscriptionIndex>,
}

impl Directory {
    /// Adds an agent; `false` when its id is taken.
    pub(crate) fn insert(&self, agent: Arc<HostedAgent>, patterns: Vec<TopicPattern>) -> bool {
        match self.agents.entry(agent.id.clone()) {
            Entry::Occupied(_) => return false,
            Entry::Vacant(slot) => {
                slot.insert(Arc::clone(&agent));
            }
        }
        if !patterns.is_empty() {
            let mut index = self
                .subscriptions
                .write()
                .unwrap_or_else(|e| e.into_inner());
            for pattern in patterns {
                if pattern.is_wildcard() {
                    index.wildcard.push((pattern, Arc::clone(&agent)));
                } else {
                    let list = index
                        .literal
                        .entry(pattern.normalized().to_owned())
                        .or_default();
                    if !list.iter().any(|a| a.id == agent.id) {
                        list.push(Arc::clone(&agent));
                    }
                }
            }
        }
        true
    }

    /// Removes the agent with this id and its subscriptions.
    pub(crate) fn remove(&self, id: &AgentId) -> Option<Arc<HostedAgent>> {
        let (_, agent) = self.agents.remove(id)?;
        self.unsubscribe(&agent);
        Some(agent)
    }

    /// Removes exactly this agent: an agent spawned later under the same id stays.
    pub(crate) fn remove_exact(&self, agent: &Arc<HostedAgent>) -> bool {
        let removed = self
            .agents
            .remove_if(agent.id.as_str(), |_, hosted| Arc::ptr_eq(hosted, agent));
        if removed.is_some() {
            self.unsubscribe(agent);
        }
        removed.is_some()
    }

    fn unsubscribe(&self, agent: &HostedAgent) {
        let topics = agent.specs.subscriptions();
        if topics.is_empty() {
            return;
        }
        let mut index = self
            .subscriptions
            .write()
            .unwrap_or_else(|e| e.into_inner());
        for topic in topics {
            let key = topic.to_lowercase();
            if let Some(list) = index.literal.get_mut(&key) {
                list.retain(|a| a.id != agent.id);
                if list.is_empty() {
                    index.literal.remove(&key);
                }
            }
        }
        index.wildcard.retain(|(_, a)| a.id != agent.id);
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<HostedAgent>> {
        self.agents.get(id).map(|entry| Arc::clone(entry.value()))
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        self.agents.contains_key(id)
    }

    pub(crate) fn ids(&self) -> Vec<AgentId> {
        let mut ids: Vec<AgentId> = self.agents.iter().map(|e| e.key().clone()).collect();
        ids.sort_unstable();
        ids
    }

    pub(crate) fn len(&self) -> usize {
        self.agents.len()
    }

    /// Removes every agent, returning them.
    pub(crate) fn drain(&self) -> Vec<Arc<HostedAgent>> {
        let ids = self.ids();
        ids.iter().filter_map(|id| self.remove(id)).collect()
    }

    /// The agents that receive a message on `topic`: a subscription matches it (ignoring
    /// case), the agent is not `sender`, and its filter accepts the payload. Sorted by id,
    /// each agent once.
    pub(crate) fn subscribers(
        &self,
        topic: &str,
        payload: &serde_json::Value,
        sender: &AgentId,
    ) -> Vec<Arc<HostedAgent>> {
        let topic = topic.to_lowercase();
        let mut found: Vec<Arc<HostedAgent>> = {
            let index = self.subscriptions.read().unwrap_or_else(|e| e.into_inner());
            let literal = index.literal.get(&topic).into_iter().flatten();
            let wildcard = index
                .wildcard
                .iter()
                .filter(|(pattern, _)| pattern.matches_normalized(&topic))
                .map(|(_, agent)| agent);
            literal
                .chain(wildcard)
                .filter(|agent| agent.id != *sender)
                .cloned()
                .collect()
        };
        found.retain(|agent| agent.accepts(payload));
        found.sort_unstable_by(|a, b| a.id.cmp(&b.id));
        found.dedup_by(|a, b| a.id == b.id);
        found
    }
}
