//! Calls waiting for their answers.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard, PoisonError};

use tnsai_core::{Message, MessageId};
use tokio::sync::oneshot;

/// Hashes message ids by folding their bytes, which is all a key needs here: the ids
/// that are inserted are made locally (UUID v7, whose low half is random), so nobody
/// else can choose them to collide; answers from elsewhere only look ids up. SipHash, the
/// default, cost more than any other step of a call's bookkeeping.
#[derive(Default)]
pub(crate) struct MessageIdHasher(u64);

impl Hasher for MessageIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.0 = self.0.rotate_left(23) ^ u64::from_le_bytes(word);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = self.0.rotate_left(23) ^ n as u64;
    }

    fn finish(&self) -> u64 {
        // Spread into the high bits too: hash tables take their control bits from there.
        self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

type Waiting = HashMap<MessageId, oneshot::Sender<Message>, BuildHasherDefault<MessageIdHasher>>;

/// The calls an agent is waiting on, keyed by the id of the message that started each.
///
/// An answer completes exactly the call whose id it names in `in_reply_to`; a call that
/// gave up (timed out, or its future was dropped) has removed its entry, so its late
/// answer finds nothing and is dropped, never handed to a later call.
#[derive(Debug, Default)]
pub(crate) struct PendingReplies {
    waiting: Mutex<Waiting>,
}

impl PendingReplies {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
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

    /// Whether a call is waiting for the answer to `id`.
    pub(crate) fn is_waiting(&self, id: MessageId) -> bool {
        self.lock().contains_key(&id)
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::hash::BuildHasher;

    use super::*;

    #[test]
    fn ids_made_in_a_burst_spread_over_the_table() {
        let hasher = BuildHasherDefault::<MessageIdHasher>::default();
        let buckets: HashSet<u64> = (0..10_000)
            .map(|_| hasher.hash_one(MessageId::new()) >> 54)
            .collect();
        // 1,024 buckets from the top bits, 10,000 ids: nearly all buckets are used.
        assert!(buckets.len() > 1_000, "{}", buckets.len());
    }
}
