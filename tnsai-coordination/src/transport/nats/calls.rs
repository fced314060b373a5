//! The sending side of the exchanges that do not use a NATS request: durable messages,
//! messages that may go unanswered (debate steps, ACL, BSPL), and publications waiting
//! for receipts.
//!
//! Such a message carries a reply subject `<prefix>.reply.<platform>.<token>`; the token
//! names the entry here. A call's entry ends with the first answer, with NATS's "no
//! responders" status (nobody serves the agent), when its deadline passes, or when the
//! connection is lost (core messages only: a durable message is safe in its stream and
//! its answer may still come).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dashmap::DashMap;
use tnsai_core::{AgentId, Message};
use tokio::sync::mpsc;

use super::wire::Receipt;
use crate::ProtocolError;
use crate::answer::error_answer;

/// A call waiting for its answer.
struct PendingCall {
    request: Message,
    durable: bool,
    deadline: Option<Instant>,
}

/// What a publication's collector hears.
#[derive(Debug)]
pub(crate) enum ReceiptEvent {
    /// One platform's receipt.
    Receipt(Receipt),
    /// No platform subscribes to the subject at all.
    NoResponders,
    /// The connection was lost.
    Disconnected,
}

/// How a reply subject's message was settled.
pub(crate) enum Settled {
    /// Hand this answer to the platform.
    Answer(Message),
    /// The token was a publication's; its collector got the event.
    Receipt,
    /// Nobody waits for the token any more (late, or a duplicate).
    Nobody,
}

#[derive(Default)]
pub(crate) struct Calls {
    next: AtomicU64,
    calls: DashMap<u64, PendingCall>,
    receipts: DashMap<u64, mpsc::UnboundedSender<ReceiptEvent>>,
}

impl Calls {
    fn token(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Registers a call; its answer (or its failure) comes back as [`Settled::Answer`].
    pub(crate) fn register_call(
        &self,
        request: Message,
        durable: bool,
        timeout: Option<Duration>,
    ) -> u64 {
        let token = self.token();
        let deadline = timeout.map(|t| Instant::now() + t);
        self.calls.insert(
            token,
            PendingCall {
                request,
                durable,
                deadline,
            },
        );
        token
    }

    /// Forgets a call whose message could not be sent (the send itself reports why).
    pub(crate) fn cancel_call(&self, token: u64) {
        self.calls.remove(&token);
    }

    /// Registers a publication waiting for receipts.
    pub(crate) fn register_receipts(&self) -> (u64, mpsc::UnboundedReceiver<ReceiptEvent>) {
        let token = self.token();
        let (tx, rx) = mpsc::unbounded_channel();
        self.receipts.insert(token, tx);
        (token, rx)
    }

    /// Forgets a publication once its receipts are in (or its wait is over).
    pub(crate) fn end_receipts(&self, token: u64) {
        self.receipts.remove(&token);
    }

    /// An answer (or receipt) arrived for `token`.
    pub(crate) fn settle(&self, token: u64, payload: &[u8]) -> Settled {
        if let Some(collector) = self.receipts.get(&token) {
            match serde_json::from_slice::<Receipt>(payload) {
                Ok(receipt) => {
                    // The collector may have stopped waiting: then the receipt is late.
                    let _ = collector.send(ReceiptEvent::Receipt(receipt));
                }
                Err(error) => tracing::warn!(%error, "ignoring an unreadable publication receipt"),
            }
            return Settled::Receipt;
        }
        let Some((_, call)) = self.calls.remove(&token) else {
            return Settled::Nobody;
        };
        match super::wire::decode(payload) {
            Ok(answer) if answer.in_reply_to() == Some(call.request.id()) => {
                Settled::Answer(answer)
            }
            Ok(answer) => {
                tracing::warn!(
                    message_id = %answer.id(),
                    "an answer arrived for another call's reply subject; refusing it"
                );
                Settled::Answer(failure(
                    &call.request,
                    "remote",
                    "the receiving platform answered with a message for another call",
                ))
            }
            Err(error) => Settled::Answer(failure(
                &call.request,
                "remote",
                &format!("the receiving platform sent an unreadable answer: {error}"),
            )),
        }
    }

    /// NATS said nobody subscribes to the subject `token`'s message went to.
    pub(crate) fn no_responders(&self, token: u64) -> Settled {
        if let Some(collector) = self.receipts.get(&token) {
            let _ = collector.send(ReceiptEvent::NoResponders);
            return Settled::Receipt;
        }
        match self.calls.remove(&token) {
            Some((_, call)) => {
                let receiver = call
                    .request
                    .receiver()
                    .map(AgentId::to_string)
                    .unwrap_or_default();
                tracing::warn!(
                    agent_id = %receiver,
                    message_id = %call.request.id(),
                    "no platform serves the receiver over NATS; the message was not delivered"
                );
                Settled::Answer(failure(
                    &call.request,
                    "receiver_unavailable",
                    &format!(
                        "Receiver {receiver} is unavailable: no platform serves it over NATS (it is offline)"
                    ),
                ))
            }
            None => Settled::Nobody,
        }
    }

    /// Ends every call whose deadline passed, with a timeout answer.
    pub(crate) fn expire(&self, now: Instant) -> Vec<Message> {
        let expired: Vec<u64> = self
            .calls
            .iter()
            .filter(|entry| entry.deadline.is_some_and(|d| d <= now))
            .map(|entry| *entry.key())
            .collect();
        expired
            .into_iter()
            .filter_map(|token| self.calls.remove(&token))
            .map(|(_, call)| {
                let error = ProtocolError::Timeout;
                error_answer(&call.request, receiver_of(&call.request), &error)
            })
            .collect()
    }

    /// The connection was lost: calls whose message went over core NATS cannot be
    /// answered any more (the message or its answer may be lost), so they end now with
    /// a clear error. Durable calls keep waiting; publications stop waiting.
    pub(crate) fn disconnected(&self) -> Vec<Message> {
        for collector in self.receipts.iter() {
            let _ = collector.send(ReceiptEvent::Disconnected);
        }
        let lost: Vec<u64> = self
            .calls
            .iter()
            .filter(|entry| !entry.durable)
            .map(|entry| *entry.key())
            .collect();
        lost.into_iter()
            .filter_map(|token| self.calls.remove(&token))
            .map(|(_, call)| {
                let receiver = receiver_of(&call.request).to_string();
                failure(
                    &call.request,
                    "transport",
                    &format!(
                        "Lost the connection to the NATS server before {receiver} answered; the call may or may not have run"
                    ),
                )
            })
            .collect()
    }

    /// The transport stops: every call ends.
    pub(crate) fn stop(&self) -> Vec<Message> {
        for collector in self.receipts.iter() {
            let _ = collector.send(ReceiptEvent::Disconnected);
        }
        let tokens: Vec<u64> = self.calls.iter().map(|e| *e.key()).collect();
        tokens
            .into_iter()
            .filter_map(|token| self.calls.remove(&token))
            .map(|(_, call)| failure(&call.request, "not_started", "Transport not started"))
            .collect()
    }

    /// How many calls wait.
    pub(crate) fn len(&self) -> usize {
        self.calls.len()
    }
}

fn receiver_of(message: &Message) -> &AgentId {
    message.receiver().unwrap_or_else(|| message.sender())
}

/// An error answer to `request`, as if its receiver had sent it.
pub(crate) fn failure(request: &Message, code: &str, text: &str) -> Message {
    let error = ProtocolError::from_code(code, text);
    let answer = error_answer(request, receiver_of(request), &error);
    // `from_code` keeps unknown codes as they are, so the caller sees this code.
    debug_assert_eq!(error.code(), code);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::into_result;
    use tnsai_core::MessageKind;

    fn request() -> Message {
        Message::builder(MessageKind::Action, "caller")
            .receiver("worker")
            .action("echo")
            .build()
    }

    #[test]
    fn an_answer_settles_its_call_once() {
        let calls = Calls::default();
        let request = request();
        let token = calls.register_call(request.clone(), false, None);
        let answer = request.reply_builder(MessageKind::Reply, "worker").build();
        let payload = serde_json::to_vec(&answer).unwrap();
        assert!(matches!(calls.settle(token, &payload), Settled::Answer(a) if a == answer));
        assert!(matches!(calls.settle(token, &payload), Settled::Nobody));
        assert_eq!(calls.len(), 0);
    }

    #[test]
    fn no_responders_is_a_clear_error_for_the_caller() {
        let calls = Calls::default();
        let token = calls.register_call(request(), false, None);
        let Settled::Answer(answer) = calls.no_responders(token) else {
            panic!("expected an error answer");
        };
        let error = into_result(answer).unwrap_err();
        assert!(
            matches!(error, ProtocolError::ReceiverUnavailable(_)),
            "{error:?}"
        );
        assert!(
            error.to_string().contains("worker is unavailable"),
            "{error}"
        );
    }

    #[test]
    fn deadlines_end_calls_with_a_timeout_and_disconnects_spare_durable_calls() {
        let calls = Calls::default();
        calls.register_call(request(), false, Some(Duration::ZERO));
        calls.register_call(request(), true, None);
        let core = calls.register_call(request(), false, None);
        let expired = calls.expire(Instant::now());
        assert_eq!(expired.len(), 1);
        assert_eq!(
            into_result(expired[0].clone()).unwrap_err(),
            ProtocolError::Timeout
        );
        let lost = calls.disconnected();
        assert_eq!(lost.len(), 1);
        let error = into_result(lost[0].clone()).unwrap_err();
        assert_eq!(error.code(), "transport");
        assert!(matches!(calls.settle(core, b"{}"), Settled::Nobody));
        assert_eq!(calls.len(), 1);
        assert_eq!(calls.stop().len(), 1);
    }
}
