//! Multi-round Agora conversations: which agent and protocol each one talks to, and what
//! was said so far.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tnsai_core::AgentId;

use super::agora::ProtocolDocument;

/// The protocol a conversation was opened under.
#[derive(Clone)]
pub(crate) enum Spoken {
    /// Natural language, answered by the agent's language model.
    Natural,
    /// One of the agent's actions, by its index in the agent's protocols.
    Action(usize),
    /// The tnsai message protocol.
    Tnsai,
    /// A protocol this platform does not implement, answered by the agent's language
    /// model with the document as context.
    Foreign(Arc<ProtocolDocument>),
}

/// A conversation as a turn needs it.
#[derive(Clone)]
pub(crate) struct Turn {
    pub(crate) spoken: Spoken,
    /// Earlier turns: what the caller said and what the agent answered.
    pub(crate) history: Vec<(String, String)>,
}

struct Conversation {
    agent: AgentId,
    turn: Turn,
    last_used: Instant,
}

pub(crate) struct Conversations {
    open: Mutex<HashMap<String, Conversation>>,
    ttl: Duration,
    max: usize,
}

impl Conversations {
    pub(crate) fn new(ttl: Duration, max: usize) -> Self {
        Self {
            open: Mutex::new(HashMap::new()),
            ttl,
            max,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Conversation>> {
        // Entries are replaced whole; a panic cannot leave one torn.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens a conversation with `agent` and returns its id (random, so that nobody can
    /// guess another caller's conversation).
    pub(crate) fn open(&self, agent: AgentId, spoken: Spoken) -> String {
        let id = uuid::Uuid::new_v4().to_string();
        let now = Instant::now();
        let mut open = self.lock();
        open.retain(|_, c| now.duration_since(c.last_used) < self.ttl);
        if open.len() >= self.max {
            let oldest = open
                .iter()
                .min_by_key(|(_, c)| c.last_used)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                open.remove(&oldest);
            }
        }
        open.insert(
            id.clone(),
            Conversation {
                agent,
                turn: Turn {
                    spoken,
                    history: Vec::new(),
                },
                last_used: now,
            },
        );
        id
    }

    /// The conversation `id` of `agent`, if it is open and not expired.
    pub(crate) fn get(&self, agent: &str, id: &str) -> Option<Turn> {
        let now = Instant::now();
        let mut open = self.lock();
        let conversation = open.get_mut(id).filter(|c| c.agent.as_str() == agent)?;
        if now.duration_since(conversation.last_used) >= self.ttl {
            open.remove(id);
            return None;
        }
        conversation.last_used = now;
        Some(conversation.turn.clone())
    }

    /// Adds a turn to the conversation's history.
    pub(crate) fn record(&self, id: &str, said: String, answered: String) {
        if let Some(conversation) = self.lock().get_mut(id) {
            conversation.turn.history.push((said, answered));
            conversation.last_used = Instant::now();
        }
    }

    /// Closes the conversation; `false` when `agent` has no open conversation `id`.
    pub(crate) fn close(&self, agent: &str, id: &str) -> bool {
        let mut open = self.lock();
        if open.get(id).is_some_and(|c| c.agent.as_str() == agent) {
            open.remove(id);
            true
        } else {
            false
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_get_record_close() {
        let conversations = Conversations::new(Duration::from_secs(60), 2);
        let id = conversations.open("a".into(), Spoken::Natural);
        assert!(conversations.get("b", &id).is_none(), "bound to its agent");
        conversations.record(&id, "hi".into(), "hello".into());
        assert_eq!(conversations.get("a", &id).unwrap().history.len(), 1);
        let _second = conversations.open("a".into(), Spoken::Tnsai);
        let _third = conversations.open("a".into(), Spoken::Tnsai);
        assert_eq!(conversations.len(), 2, "the oldest went");
        assert!(!conversations.close("a", &id));
    }

    #[test]
    fn expired_conversations_are_gone() {
        let conversations = Conversations::new(Duration::ZERO, 10);
        let id = conversations.open("a".into(), Spoken::Natural);
        assert!(conversations.get("a", &id).is_none());
    }
}
