//! Calls waiting for their answers.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use tnsai_core::{Message, MessageId};
use tokio::sync::oneshot;

/// The calls an agent is waiting on, keyed by the id of the message that started each.
///
/// An answer completes exactly the call whose id it names in `in_reply_to`; a call that
/// gave up (timed out, or its future was dropped) has removed its entry, so its late
/// answer finds nothing and is dropped, never handed to a later call.
#[derive(Debug, Default)]
pub(crate) struct PendingReplies {
    waiting: Mutex<HashMap<MessageId, oneshot::Sender<Message>>>,
}

impl PendingReplies {
    fn lock(&self) -> MutexGuard<'_, HashMap<MessageId, oneshot::Sender<Message>>> {
        // Entries are inserted and removed whole; a panic elsewhere cannot leave one torn.
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a call; the guard removes the entry when the call ends either way.
    pub(crate) fn register(&self, id: MessageId) -> (PendingGuard<'_>, oneshot::Receiver<Message>) {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(id, tx);
        (PendingGuard { pending: self, id }, rx)
    }

    /// Hands an answer to the call waiting for it; `false` when none is (a late answer).
    pub(crate) fn complete(&self, id: MessageId, answer: Message) -> bool {
        let waiting = self.lock().remove(&id);
        match waiting {
            Some(tx) => tx.send(answer).is_ok(),
            None => false,
        }
    }

    /// Ends every waiting call (their receivers see the channel closed).
    pub(crate) fn fail_all(&self) {
        self.lock().clear();
    }

    /// How many calls are waiting.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Removes a call's entry when the call finishes, times out or is dropped.
pub(crate) struct PendingGuard<'a> {
    pending: &'a PendingReplies,
    id: MessageId,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.pending.lock().remove(&self.id);
    }
}
