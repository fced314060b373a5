//! The tasks that take messages from NATS and hand them to the platform: one per local
//! agent's inbox, one per durable inbox, one per topic pattern, and one for the
//! platform's answers.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream;
use async_nats::jetstream::consumer::{Consumer, pull};
use futures_util::StreamExt;
use tnsai_core::{AgentId, MessageKind};
use tokio::sync::oneshot;

use super::calls::Settled;
use super::routes::Seen;
use super::transport::{Inner, Worker};
use super::wire::{self, PLATFORM_HEADER, REPLY_HEADER, Receipt};
use crate::ProtocolError;
use crate::answer::error_answer;

/// Serves an agent's core inbox (`<prefix>.agent.<id>`, queue group). When told to stop
/// it unsubscribes and still answers what the server had already sent it (with the
/// platform's refusal), so no caller is left waiting.
pub(crate) fn spawn_inbox(
    inner: Arc<Inner>,
    agent: AgentId,
    mut subscriber: async_nats::Subscriber,
) -> Worker {
    let (stop, mut stopped) = oneshot::channel();
    let handle = tokio::spawn(async move {
        loop {
            tokio::select! {
                biased;
                _ = &mut stopped => break,
                next = subscriber.next() => match next {
                    Some(message) => take_direct(&inner, &agent, message).await,
                    None => return,
                },
            }
        }
        if let Err(error) = subscriber.unsubscribe().await {
            tracing::debug!(agent_id = %agent, %error, "could not unsubscribe an agent inbox");
        }
        while let Some(message) = subscriber.next().await {
            take_direct(&inner, &agent, message).await;
        }
    });
    Worker::new(stop, handle)
}

async fn take_direct(inner: &Inner, agent: &AgentId, nats: async_nats::Message) {
    let message = match wire::decode(&nats.payload) {
        Ok(message) => message,
        Err(error) => {
            tracing::warn!(agent_id = %agent, subject = %nats.subject, %error, "dropping an undecodable NATS message (not a tnsai message)");
            return;
        }
    };
    if message.kind().is_answer() {
        // An answer whose route had expired comes to the caller's inbox.
        inner.deliver_answer(message).await;
        return;
    }
    let reply = nats.reply.map(|r| r.to_string());
    if message.receiver() != Some(agent) {
        tracing::warn!(agent_id = %agent, message_id = %message.id(), "refusing a message whose receiver is not the inbox's agent");
        let error = ProtocolError::InvalidArgument(format!(
            "message sent to the inbox of {agent} names another receiver"
        ));
        let answer = error_answer(&message, agent, &error);
        if let (Some(reply), Ok(payload)) = (reply, wire::encode(&answer)) {
            let _ = inner.client.publish(reply, payload.into()).await;
        }
        return;
    }
    inner.accept(message, reply, None).await;
}

/// Serves an agent's durable inbox: pulls from its JetStream consumer, skips what was
/// already taken, and leaves the ack to the moment the answer is sent.
pub(crate) fn spawn_durable(
    inner: Arc<Inner>,
    agent: AgentId,
    consumer: Consumer<pull::Config>,
) -> Worker {
    let (stop, mut stopped) = oneshot::channel();
    let handle = tokio::spawn(async move {
        loop {
            let mut messages = match consumer.messages().await {
                Ok(messages) => messages,
                Err(error) => {
                    tracing::warn!(agent_id = %agent, %error, "could not pull from the durable inbox; retrying");
                    tokio::select! {
                        _ = &mut stopped => return,
                        () = tokio::time::sleep(Duration::from_millis(500)) => continue,
                    }
                }
            };
            loop {
                tokio::select! {
                    biased;
                    _ = &mut stopped => return,
                    next = messages.next() => match next {
                        Some(Ok(message)) => take_durable(&inner, &agent, message).await,
                        Some(Err(error)) => {
                            // Missed heartbeats and the like during a reconnect: the
                            // stream goes on.
                            tracing::debug!(agent_id = %agent, %error, "durable inbox hiccup");
                        }
                        None => break,
                    },
                }
            }
        }
    });
    Worker::new(stop, handle)
}

async fn take_durable(inner: &Inner, agent: &AgentId, message: jetstream::Message) {
    let (nats, acker) = message.split();
    let decoded = wire::decode(&nats.payload);
    let message = match decoded {
        Ok(message) if message.receiver() == Some(agent) && !message.kind().is_answer() => message,
        Ok(_) | Err(_) => {
            // It can never be delivered: terminate it rather than redeliver it forever.
            tracing::error!(agent_id = %agent, subject = %nats.subject, "durable inbox held a message that is not a tnsai message for this agent; terminating it");
            let _ = acker.ack_with(jetstream::AckKind::Term).await;
            return;
        }
    };
    match inner.routes.first_sight(message.id()) {
        None => {}
        Some(Seen::InProgress) => {
            // Redelivered while the action still runs: keep JetStream waiting.
            let _ = acker.ack_with(jetstream::AckKind::Progress).await;
            return;
        }
        Some(Seen::Done(_)) => {
            tracing::debug!(message_id = %message.id(), "durable message was already handled; acking its redelivery");
            let _ = acker.ack().await;
            return;
        }
    }
    let reply = nats
        .headers
        .as_ref()
        .and_then(|h| h.get(REPLY_HEADER))
        .map(|v| v.as_str().to_owned());
    inner.accept(message, reply, Some(acker)).await;
}

/// Serves one topic pattern (`<prefix>.topic.<pattern>`): hands each publication from
/// another platform to the local subscribers and, when asked, sends back a receipt.
pub(crate) fn spawn_topic(inner: Arc<Inner>, mut subscriber: async_nats::Subscriber) -> Worker {
    let (stop, mut stopped) = oneshot::channel();
    let handle = tokio::spawn(async move {
        loop {
            tokio::select! {
                biased;
                _ = &mut stopped => break,
                next = subscriber.next() => match next {
                    Some(message) => take_publication(&inner, message).await,
                    None => return,
                },
            }
        }
        let _ = subscriber.unsubscribe().await;
    });
    Worker::new(stop, handle)
}

async fn take_publication(inner: &Inner, nats: async_nats::Message) {
    let from_here = nats
        .headers
        .as_ref()
        .and_then(|h| h.get(PLATFORM_HEADER))
        .is_some_and(|p| p.as_str() == inner.platform_id);
    if from_here {
        return;
    }
    let message = match wire::decode(&nats.payload) {
        Ok(m) if matches!(m.kind(), MessageKind::Broadcast | MessageKind::Publish) => m,
        Ok(m) => {
            tracing::warn!(message_id = %m.id(), kind = %m.kind(), "ignoring a non-publication on a topic subject");
            return;
        }
        Err(error) => {
            tracing::warn!(subject = %nats.subject, %error, "dropping an undecodable publication");
            return;
        }
    };
    if !inner.first_publication(message.id()) {
        return;
    }
    let Some(platform) = inner.platform() else {
        return;
    };
    let report = platform.deliver_publication(message).await;
    if let Some(reply) = nats.reply {
        let receipt = Receipt::new(&inner.platform_id, &report);
        match serde_json::to_vec(&receipt) {
            Ok(payload) => {
                if let Err(error) = inner.client.publish(reply, payload.into()).await {
                    tracing::warn!(%error, "could not send a publication receipt");
                }
            }
            Err(error) => tracing::error!(%error, "a receipt did not serialise"),
        }
    }
}

/// Serves the platform's reply subject (`<prefix>.reply.<platform>.*`): answers to its
/// calls, NATS's "no responders" notices, and publication receipts.
pub(crate) async fn serve_replies(inner: Arc<Inner>, mut subscriber: async_nats::Subscriber) {
    while let Some(nats) = subscriber.next().await {
        let Some(token) = nats
            .subject
            .rsplit('.')
            .next()
            .and_then(|t| t.parse::<u64>().ok())
        else {
            continue;
        };
        let settled = if nats.status == Some(async_nats::StatusCode::NO_RESPONDERS) {
            inner.calls.no_responders(token)
        } else {
            inner.calls.settle(token, &nats.payload)
        };
        match settled {
            Settled::Answer(answer) => inner.deliver_answer(answer).await,
            Settled::Receipt => {}
            Settled::Nobody => {
                tracing::debug!(subject = %nats.subject, "dropping an answer nobody waits for (late or duplicate)");
            }
        }
    }
}
