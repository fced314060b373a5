//! The other platforms this one knows, the agents each hosts, and where answers to
//! remote callers go.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};

use dashmap::DashMap;
use tnsai_core::AgentId;

use crate::{AgentDescription, SubscriptionMatcher};

/// Another platform: its base URL, the token it accepts from us, and its agents as its
/// listing last said.
pub(crate) struct Peer {
    pub(crate) url: String,
    pub(crate) token: RwLock<Option<String>>,
    /// Each agent with its subscriptions compiled once, when the listing arrives.
    agents: RwLock<HashMap<AgentId, (AgentDescription, SubscriptionMatcher)>>,
}

impl Peer {
    fn new(url: String, token: Option<String>) -> Self {
        Self {
            url,
            token: RwLock::new(token),
            agents: RwLock::new(HashMap::new()),
        }
    }

    pub(crate) fn token(&self) -> Option<String> {
        self.token.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn hosts(&self, agent: &AgentId) -> bool {
        self.agents
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains_key(agent)
    }

    pub(crate) fn set_agents(&self, agents: Vec<AgentDescription>) {
        let agents = agents
            .into_iter()
            .map(|d| {
                let matcher = d.matcher();
                (d.id.clone(), (d, matcher))
            })
            .collect();
        *self.agents.write().unwrap_or_else(|e| e.into_inner()) = agents;
    }

    pub(crate) fn agent_ids(&self) -> Vec<AgentId> {
        let mut ids: Vec<AgentId> = self
            .agents
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect();
        ids.sort_unstable();
        ids
    }

    /// The agents of this peer that, as far as its listing says, receive a message on
    /// `topic` with `payload` from `sender`.
    pub(crate) fn subscribers(
        &self,
        topic: &str,
        payload: &serde_json::Value,
        sender: &AgentId,
    ) -> Vec<AgentId> {
        self.agents
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .filter(|(d, matcher)| d.id != *sender && matcher.receives(topic, payload))
            .map(|(d, _)| d.id.clone())
            .collect()
    }
}

/// Every known peer, and the learned way back to remote callers.
#[derive(Default)]
pub(crate) struct Peers {
    list: RwLock<Vec<Arc<Peer>>>,
    /// Remote senders whose platform named itself in `X-Tnsai-Origin`: answers and
    /// debate events for them go there even before its listing is read.
    routes: DashMap<AgentId, Arc<Peer>>,
}

impl Peers {
    pub(crate) fn all(&self) -> Vec<Arc<Peer>> {
        self.list.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub(crate) fn get(&self, url: &str) -> Option<Arc<Peer>> {
        self.all().into_iter().find(|p| p.url == url)
    }

    /// The peer at `url`, added if new (`true` when it was).
    pub(crate) fn get_or_add(&self, url: &str, token: Option<String>) -> (Arc<Peer>, bool) {
        let mut list = self.list.write().unwrap_or_else(|e| e.into_inner());
        if let Some(peer) = list.iter().find(|p| p.url == url) {
            if token.is_some() {
                *peer.token.write().unwrap_or_else(|e| e.into_inner()) = token;
            }
            return (Arc::clone(peer), false);
        }
        let peer = Arc::new(Peer::new(url.to_owned(), token));
        list.push(Arc::clone(&peer));
        (peer, true)
    }

    pub(crate) fn remove(&self, url: &str) {
        self.list
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|p| p.url != url);
        self.routes.retain(|_, peer| peer.url != url);
    }

    /// The peer that hosts `agent`: the first whose listing names it, else the platform
    /// its messages came from.
    pub(crate) fn find(&self, agent: &AgentId) -> Option<Arc<Peer>> {
        let listed = self
            .list
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .find(|p| p.hosts(agent))
            .cloned();
        listed.or_else(|| self.routes.get(agent).map(|r| Arc::clone(r.value())))
    }

    pub(crate) fn learn_route(&self, sender: &AgentId, peer: &Arc<Peer>) {
        let known = self
            .routes
            .get(sender)
            .is_some_and(|r| Arc::ptr_eq(r.value(), peer));
        if !known {
            self.routes.insert(sender.clone(), Arc::clone(peer));
        }
    }

    /// Every remote agent a listing names, with its platform's URL.
    pub(crate) fn remote_agents(&self) -> BTreeMap<AgentId, String> {
        let mut agents = BTreeMap::new();
        for peer in self.all() {
            for id in peer.agent_ids() {
                agents.entry(id).or_insert_with(|| peer.url.clone());
            }
        }
        agents
    }
}
