//! The receiving side of an exchange: where the answer to each received message goes,
//! which durable message to ack once it is answered, and which durable messages were
//! already taken (so a redelivery never runs an action twice).

use std::time::{Duration, Instant};

use async_nats::jetstream::message::Acker;
use dashmap::DashMap;
use dashmap::mapref::entry::Entry;
use tnsai_core::{AgentId, Message, MessageId};

/// Where one received message's answer goes.
pub(crate) struct Route {
    /// The message to answer.
    pub(crate) request: Message,
    /// The caller's reply subject.
    pub(crate) reply: Option<String>,
    /// The caller (the answer's receiver).
    pub(crate) caller: AgentId,
    /// The JetStream message to ack once the answer is sent (durable inboxes only).
    pub(crate) ack: Option<Acker>,
    since: Instant,
}

/// What became of a durable message id this platform has seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen {
    /// Delivered to the agent, not answered yet.
    InProgress,
    /// Answered and acked.
    Done(Instant),
}

#[derive(Default)]
pub(crate) struct Routes {
    routes: DashMap<MessageId, Route>,
    /// How many open routes lead to each caller, so that the platform's router knows this
    /// transport reaches a caller it never discovered (a gateway, say).
    callers: DashMap<AgentId, usize>,
    seen: DashMap<MessageId, Seen>,
}

impl Routes {
    /// Remembers where the answer to `request` goes.
    pub(crate) fn open(
        &self,
        request: Message,
        caller: AgentId,
        reply: Option<String>,
        ack: Option<Acker>,
    ) {
        let id = request.id();
        let route = Route {
            request,
            reply,
            caller: caller.clone(),
            ack,
            since: Instant::now(),
        };
        if self.routes.insert(id, route).is_none() {
            *self.callers.entry(caller).or_insert(0) += 1;
        }
    }

    /// Takes the route of the message `id` answers.
    pub(crate) fn take(&self, id: MessageId) -> Option<Route> {
        let (_, route) = self.routes.remove(&id)?;
        self.release(&route.caller);
        Some(route)
    }

    fn release(&self, caller: &AgentId) {
        if let Entry::Occupied(mut count) = self.callers.entry(caller.clone()) {
            *count.get_mut() -= 1;
            if *count.get() == 0 {
                count.remove();
            }
        }
    }

    /// Whether an answer to `caller` has somewhere to go.
    pub(crate) fn reaches(&self, caller: &AgentId) -> bool {
        self.callers.contains_key(caller)
    }

    /// Routes older than `retention`: their messages were never answered (debate events
    /// and the like), or their answer is long overdue.
    pub(crate) fn expire(&self, retention: Duration, now: Instant) -> Vec<Route> {
        let old: Vec<MessageId> = self
            .routes
            .iter()
            .filter(|route| now.duration_since(route.since) >= retention)
            .map(|route| *route.key())
            .collect();
        old.into_iter().filter_map(|id| self.take(id)).collect()
    }

    /// Every open route (the transport stops).
    pub(crate) fn drain(&self) -> Vec<Route> {
        let ids: Vec<MessageId> = self.routes.iter().map(|r| *r.key()).collect();
        ids.into_iter().filter_map(|id| self.take(id)).collect()
    }

    /// Marks a durable message as taken; `Some(state)` when it was seen before.
    pub(crate) fn first_sight(&self, id: MessageId) -> Option<Seen> {
        match self.seen.entry(id) {
            Entry::Occupied(seen) => Some(*seen.get()),
            Entry::Vacant(slot) => {
                slot.insert(Seen::InProgress);
                None
            }
        }
    }

    /// A durable message was answered and acked.
    pub(crate) fn done(&self, id: MessageId) {
        self.seen.insert(id, Seen::Done(Instant::now()));
    }

    /// A durable message goes back to its stream (refused, not run): its redelivery must
    /// be handled, not skipped.
    pub(crate) fn unsee(&self, id: MessageId) {
        self.seen.remove(&id);
    }

    /// Forgets durable ids answered longer than `retention` ago (JetStream's duplicate
    /// window guards the publishing side; this guards redeliveries).
    pub(crate) fn forget_seen(&self, retention: Duration, now: Instant) {
        self.seen.retain(|_, seen| match seen {
            Seen::InProgress => true,
            Seen::Done(at) => now.duration_since(*at) < retention,
        });
    }

    /// How many routes are open.
    pub(crate) fn len(&self) -> usize {
        self.routes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request() -> Message {
        Message::builder(tnsai_core::MessageKind::Action, "gateway")
            .receiver("worker")
            .build()
    }

    #[test]
    fn routes_count_their_callers() {
        let routes = Routes::default();
        let (first, second) = (request(), request());
        let (a, b) = (first.id(), second.id());
        routes.open(first, "gateway".into(), Some("r.1".into()), None);
        routes.open(second, "gateway".into(), Some("r.2".into()), None);
        assert!(routes.reaches(&"gateway".into()));
        assert_eq!(routes.take(a).unwrap().reply.as_deref(), Some("r.1"));
        assert!(routes.reaches(&"gateway".into()));
        assert!(routes.take(a).is_none());
        routes.take(b);
        assert!(!routes.reaches(&"gateway".into()));
        assert_eq!(routes.len(), 0);
    }

    #[test]
    fn old_routes_expire() {
        let routes = Routes::default();
        routes.open(request(), "c".into(), None, None);
        assert!(
            routes
                .expire(Duration::from_secs(60), Instant::now())
                .is_empty()
        );
        assert_eq!(routes.expire(Duration::ZERO, Instant::now()).len(), 1);
        assert!(!routes.reaches(&"c".into()));
    }

    #[test]
    fn durable_ids_are_taken_once() {
        let routes = Routes::default();
        let id = MessageId::new();
        assert_eq!(routes.first_sight(id), None);
        assert_eq!(routes.first_sight(id), Some(Seen::InProgress));
        routes.done(id);
        assert!(matches!(routes.first_sight(id), Some(Seen::Done(_))));
        routes.forget_seen(Duration::ZERO, Instant::now());
        assert_eq!(routes.first_sight(id), None);
        routes.unsee(id);
        assert_eq!(routes.first_sight(id), None);
    }
}
