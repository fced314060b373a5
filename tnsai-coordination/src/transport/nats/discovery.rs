//! Discovery across platforms, kept in two NATS KV buckets.
//!
//! * `tnsai_agents` (live announcements): key `<agent id>.<platform id>` (the id encoded
//!   as in [`subject`](super::subject)), value an [`Announcement`] in JSON. Each platform
//!   puts one entry per local agent when it is spawned, renews it every heartbeat and
//!   deletes it when the agent is terminated or the platform shuts down. The bucket's
//!   `max_age` is the discovery TTL, so the server drops the entries of a platform that
//!   died; every platform also forgets, once per heartbeat, remote entries not renewed
//!   within the TTL (the server does not tell watchers about expiry).
//! * `tnsai_durable` (durable inboxes): key `<agent id>`, value the agent's description.
//!   It has no TTL: a durable inbox outlives its platform, so senders keep reaching it
//!   (through JetStream) while the agent is down. It goes away only through
//!   [`NatsTransport::retire_durable`](super::NatsTransport::retire_durable).

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use async_nats::jetstream::kv::Operation;
use chrono::{DateTime, Utc};
use dashmap::DashMap;
use serde::{Deserialize, Serialize};
use tnsai_core::AgentId;

use super::subject;
use crate::{AgentDescription, SubscriptionMatcher};

/// What a platform puts in the discovery bucket for one of its agents.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Announcement {
    /// The announcing platform.
    pub(crate) platform: String,
    /// When the platform last renewed the entry (its own clock).
    pub(crate) renewed_at: DateTime<Utc>,
    /// The agent.
    pub(crate) agent: AgentDescription,
}

/// An agent that another platform announced.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DiscoveredAgent {
    /// The id of the platform that runs it (several platforms may run the same agent id;
    /// each is listed).
    pub platform: String,
    /// What the platform says about the agent.
    pub description: AgentDescription,
}

struct Remote {
    description: AgentDescription,
    /// The subscriptions and filter, compiled once (every publication checks them).
    matcher: SubscriptionMatcher,
    seen: Instant,
}

impl Remote {
    fn new(description: AgentDescription, seen: Instant) -> Self {
        Self {
            matcher: description.matcher(),
            description,
            seen,
        }
    }
}

/// What this platform knows about agents elsewhere.
pub(crate) struct RemoteDirectory {
    own: String,
    ttl: Duration,
    live: DashMap<AgentId, HashMap<String, Remote>>,
    durable: DashMap<AgentId, AgentDescription>,
}

impl RemoteDirectory {
    pub(crate) fn new(own: String, ttl: Duration) -> Self {
        Self {
            own,
            ttl,
            live: DashMap::new(),
            durable: DashMap::new(),
        }
    }

    /// Applies one change of the discovery bucket.
    pub(crate) fn apply_announcement(&self, key: &str, operation: Operation, value: &[u8]) {
        let Some((id, platform)) = subject::parse_announcement_key(key) else {
            tracing::warn!(
                key,
                "ignoring a discovery entry whose key is not <agent>.<platform>"
            );
            return;
        };
        if platform == self.own {
            return;
        }
        let id = AgentId::from(id);
        match operation {
            Operation::Put => {
                let announcement: Announcement = match serde_json::from_slice(value) {
                    Ok(a) => a,
                    Err(error) => {
                        tracing::warn!(key, %error, "ignoring an unreadable discovery entry");
                        return;
                    }
                };
                if announcement.agent.id != id || announcement.platform != platform {
                    tracing::warn!(
                        key,
                        "ignoring a discovery entry whose value contradicts its key"
                    );
                    return;
                }
                // The entry's age by the announcer's clock, never more than the TTL, so that
                // an entry read from history is not taken for a fresh one.
                let age = (Utc::now() - announcement.renewed_at)
                    .to_std()
                    .unwrap_or_default()
                    .min(self.ttl);
                let seen = Instant::now().checked_sub(age).unwrap_or_else(Instant::now);
                self.live
                    .entry(id)
                    .or_default()
                    .insert(platform, Remote::new(announcement.agent, seen));
            }
            Operation::Delete | Operation::Purge => self.forget(&id, &platform),
        }
    }

    fn forget(&self, id: &AgentId, platform: &str) {
        let now_empty = match self.live.get_mut(id) {
            Some(mut platforms) => {
                platforms.remove(platform);
                platforms.is_empty()
            }
            None => false,
        };
        if now_empty {
            self.live.remove_if(id, |_, platforms| platforms.is_empty());
        }
    }

    /// Applies one change of the durable registry.
    pub(crate) fn apply_registration(&self, key: &str, operation: Operation, value: &[u8]) {
        let Ok(id) = subject::decode_token(key) else {
            tracing::warn!(
                key,
                "ignoring a durable registration whose key does not decode"
            );
            return;
        };
        let id = AgentId::from(id);
        match operation {
            Operation::Put => match serde_json::from_slice::<AgentDescription>(value) {
                Ok(description) if description.id == id => {
                    self.durable.insert(id, description);
                }
                Ok(_) => tracing::warn!(key, "ignoring a durable registration for another id"),
                Err(error) => {
                    tracing::warn!(key, %error, "ignoring an unreadable durable registration");
                }
            },
            Operation::Delete | Operation::Purge => {
                self.durable.remove(&id);
            }
        }
    }

    /// Forgets remote agents whose platform stopped renewing them.
    pub(crate) fn prune(&self, now: Instant) {
        self.live.retain(|id, platforms| {
            platforms.retain(|platform, remote| {
                let fresh = now.duration_since(remote.seen) <= self.ttl;
                if !fresh {
                    tracing::info!(agent_id = %id, platform, "forgetting a remote agent: its platform stopped announcing it");
                }
                fresh
            });
            !platforms.is_empty()
        });
    }

    /// Whether another platform runs `id`, or `id` has a durable inbox.
    pub(crate) fn reaches(&self, id: &AgentId) -> bool {
        self.live.contains_key(id) || self.durable.contains_key(id)
    }

    /// Whether `id` has a durable inbox.
    pub(crate) fn is_durable(&self, id: &AgentId) -> bool {
        self.durable.contains_key(id)
    }

    /// The remote agents that receive a publication on `topic` with `payload`, by
    /// platform (the sender itself is skipped, as everywhere).
    pub(crate) fn recipients(
        &self,
        topic: &str,
        payload: &serde_json::Value,
        sender: &AgentId,
    ) -> BTreeMap<String, Vec<AgentId>> {
        let mut by_platform: BTreeMap<String, Vec<AgentId>> = BTreeMap::new();
        for entry in self.live.iter() {
            if entry.key() == sender {
                continue;
            }
            for (platform, remote) in entry.value() {
                if remote.matcher.receives(topic, payload) {
                    by_platform
                        .entry(platform.clone())
                        .or_default()
                        .push(entry.key().clone());
                }
            }
        }
        by_platform
    }

    /// Every remote agent, sorted by id then platform.
    pub(crate) fn snapshot(&self) -> Vec<DiscoveredAgent> {
        let mut agents: Vec<DiscoveredAgent> = self
            .live
            .iter()
            .flat_map(|entry| {
                entry
                    .value()
                    .iter()
                    .map(|(platform, remote)| DiscoveredAgent {
                        platform: platform.clone(),
                        description: remote.description.clone(),
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        agents.sort_by(|a, b| {
            (a.description.id.as_str(), a.platform.as_str())
                .cmp(&(b.description.id.as_str(), b.platform.as_str()))
        });
        agents
    }

    /// The ids with a durable inbox, sorted.
    pub(crate) fn durable_ids(&self) -> Vec<AgentId> {
        let mut ids: Vec<AgentId> = self.durable.iter().map(|e| e.key().clone()).collect();
        ids.sort_unstable();
        ids
    }

    /// Forgets everything (the transport stopped).
    pub(crate) fn clear(&self) {
        self.live.clear();
        self.durable.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn description(id: &str, topics: &[&str]) -> AgentDescription {
        AgentDescription {
            id: id.into(),
            paradigms: Vec::new(),
            subscriptions: topics.iter().map(|t| (*t).to_owned()).collect(),
            filter: None,
            actions: Vec::new(),
            has_language_model: false,
            durable: false,
            addresses: Vec::new(),
        }
    }

    fn put(directory: &RemoteDirectory, id: &str, platform: &str, topics: &[&str], age: i64) {
        let announcement = Announcement {
            platform: platform.to_owned(),
            renewed_at: Utc::now() - chrono::Duration::milliseconds(age),
            agent: description(id, topics),
        };
        directory.apply_announcement(
            &subject::announcement_key(id, platform),
            Operation::Put,
            &serde_json::to_vec(&announcement).unwrap(),
        );
    }

    #[test]
    fn announcements_come_and_go() {
        let directory = RemoteDirectory::new("me".into(), Duration::from_secs(10));
        put(&directory, "eu.worker", "p1", &["alerts.>"], 0);
        put(&directory, "eu.worker", "p2", &[], 0);
        put(&directory, "mine", "me", &[], 0);
        assert!(directory.reaches(&"eu.worker".into()));
        assert!(!directory.reaches(&"mine".into()), "own entries are local");
        assert_eq!(directory.snapshot().len(), 2);
        let recipients = directory.recipients("Alerts.disk", &json!({}), &"x".into());
        assert_eq!(recipients.len(), 1);
        assert_eq!(recipients["p1"], vec![AgentId::from("eu.worker")]);
        assert!(
            directory
                .recipients("alerts.disk", &json!({}), &"eu.worker".into())
                .is_empty()
        );
        directory.apply_announcement(
            &subject::announcement_key("eu.worker", "p1"),
            Operation::Delete,
            b"",
        );
        directory.apply_announcement(
            &subject::announcement_key("eu.worker", "p2"),
            Operation::Purge,
            b"",
        );
        assert!(!directory.reaches(&"eu.worker".into()));
    }

    #[test]
    fn stale_entries_are_pruned_and_bad_ones_ignored() {
        let directory = RemoteDirectory::new("me".into(), Duration::from_millis(500));
        put(&directory, "old", "p1", &[], 60_000);
        put(&directory, "new", "p1", &[], 0);
        directory.prune(Instant::now() + Duration::from_millis(100));
        assert!(directory.reaches(&"new".into()));
        assert!(!directory.reaches(&"old".into()));
        directory.apply_announcement("no-platform", Operation::Put, b"{}");
        directory.apply_announcement("a.p", Operation::Put, b"not json");
        assert!(!directory.reaches(&"a".into()));
    }

    #[test]
    fn durable_registrations_outlive_announcements() {
        let directory = RemoteDirectory::new("me".into(), Duration::from_millis(1));
        let value = serde_json::to_vec(&description("inbox", &[])).unwrap();
        directory.apply_registration(&subject::durable_key("inbox"), Operation::Put, &value);
        directory.prune(Instant::now() + Duration::from_secs(1));
        assert!(directory.reaches(&"inbox".into()) && directory.is_durable(&"inbox".into()));
        directory.apply_registration("inbox", Operation::Delete, b"");
        assert!(!directory.reaches(&"inbox".into()));
    }
}
