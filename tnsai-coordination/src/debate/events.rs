//! Watching a debate unfold.

use std::collections::BTreeMap;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;

use super::session::RoundSummary;

/// Something that happened in a debate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum DebateEvent {
    /// A round ended; its tally says how it was judged.
    RoundClosed {
        /// The session.
        session: String,
        /// The round and its tally.
        summary: RoundSummary,
    },
    /// The debate reached consensus.
    Consensus {
        /// The session.
        session: String,
        /// The round that reached it.
        round: u32,
        /// The decided stance.
        decision: String,
    },
    /// The debate ended without consensus after its last round.
    Deadlock {
        /// The session.
        session: String,
        /// The last round.
        round: u32,
        /// The last round's leader, or `No clear position`.
        decision: String,
    },
    /// The initiator cancelled the debate.
    Cancelled {
        /// The session.
        session: String,
        /// The round it was cancelled in.
        round: u32,
    },
}

impl DebateEvent {
    /// Whether this event ends the debate.
    pub fn is_final(&self) -> bool {
        !matches!(self, DebateEvent::RoundClosed { .. })
    }
}

/// The events of one debate as they happen, from
/// [`ProtocolManager::debate_events`](crate::ProtocolManager::debate_events).
///
/// The stream ends after the final event (consensus, deadlock or cancellation). Events
/// that happened before it was opened are not replayed; read the session snapshot for
/// those. A reader that falls more than 64 events behind skips the oldest.
pub struct DebateEvents {
    inner: Option<BroadcastStream<DebateEvent>>,
}

impl DebateEvents {
    pub(crate) fn new(receiver: Option<broadcast::Receiver<DebateEvent>>) -> Self {
        Self {
            inner: receiver.map(BroadcastStream::new),
        }
    }

    /// The next event, or `None` once the debate is over.
    pub async fn recv(&mut self) -> Option<DebateEvent> {
        futures_util::StreamExt::next(self).await
    }
}

impl Stream for DebateEvents {
    type Item = DebateEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let Some(inner) = self.inner.as_mut() else {
            return Poll::Ready(None);
        };
        loop {
            match Pin::new(&mut *inner).poll_next(cx) {
                Poll::Ready(Some(Ok(event))) => return Poll::Ready(Some(event)),
                Poll::Ready(Some(Err(BroadcastStreamRecvError::Lagged(_)))) => continue,
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl std::fmt::Debug for DebateEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DebateEvents")
            .field("open", &self.inner.is_some())
            .finish()
    }
}

/// One agent's local feed of a session's events, restoring the host's order: events may
/// arrive out of order over any transport, so each carries the host's sequence number.
pub(crate) struct EventFeed {
    sender: Option<broadcast::Sender<DebateEvent>>,
    next_seq: u64,
    early: BTreeMap<u64, DebateEvent>,
}

impl EventFeed {
    pub(crate) fn new() -> Self {
        let (sender, _) = broadcast::channel(64);
        Self {
            sender: Some(sender),
            next_seq: 0,
            early: BTreeMap::new(),
        }
    }

    pub(crate) fn subscribe(&self) -> DebateEvents {
        DebateEvents::new(self.sender.as_ref().map(broadcast::Sender::subscribe))
    }

    /// Accepts event `seq`, passing on every event that is now in order. `true` when
    /// this passed the final event on (the session is over).
    pub(crate) fn accept(&mut self, seq: u64, event: DebateEvent) -> bool {
        if seq < self.next_seq {
            return false; // a duplicate
        }
        self.early.insert(seq, event);
        while let Some(event) = self.early.remove(&self.next_seq) {
            self.next_seq += 1;
            let last = event.is_final();
            if let Some(sender) = &self.sender {
                // No receiver is fine: nobody is watching.
                let _ = sender.send(event);
            }
            if last {
                // Dropping the sender ends every stream after its buffered events.
                self.sender = None;
                self.early.clear();
                return true;
            }
        }
        false
    }
}
