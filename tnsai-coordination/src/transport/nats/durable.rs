//! Durable inboxes on JetStream.
//!
//! One stream (`TNSAI_INBOX` by default) captures `<prefix>.durable.>` with work-queue
//! retention: a message stays until it is acked, and then it is gone. Each durable agent
//! has a durable pull consumer `inbox-<id>` filtered to `<prefix>.durable.<id>`; every
//! platform that runs the agent binds to the same consumer, so each message goes to one
//! of them. Senders publish with `Nats-Msg-Id` set to the message's UUID, so a message
//! published twice within the duplicate window is stored once; the receiving platform
//! also remembers the ids it has taken, so a redelivery (an ack that was lost, an action
//! that outlived the ack wait) never runs the action twice. The ack is sent only after
//! the action has run and its answer is on its way; a message the agent refuses because
//! it is stopped or terminated is sent back (nak) and delivered when the agent is back.

use async_nats::jetstream::consumer::{AckPolicy, Consumer, DeliverPolicy, pull};
use async_nats::jetstream::stream::{RetentionPolicy, StorageType};
use async_nats::jetstream::{self, stream};

use super::config::NatsConfig;
use super::subject::{self, Subjects};
use super::transport::Inner;
use crate::AgentDescription;

/// The stream of durable inboxes, created by the first platform that needs it.
pub(crate) async fn open_stream(
    jetstream: &jetstream::Context,
    config: &NatsConfig,
) -> Result<stream::Stream, String> {
    let subjects = Subjects::new(&config.prefix);
    jetstream
        .get_or_create_stream(stream::Config {
            name: config.durable_stream.clone(),
            subjects: vec![subjects.durable_all()],
            retention: RetentionPolicy::WorkQueue,
            storage: StorageType::File,
            max_age: config.durable_max_age,
            duplicate_window: config.duplicate_window,
            ..Default::default()
        })
        .await
        .map_err(|error| {
            format!(
                "could not open the JetStream stream `{}` for durable inboxes: {error}",
                config.durable_stream
            )
        })
}

/// Binds to (or creates) the agent's consumer and registers its durable inbox, so that
/// senders keep using it while the agent is down.
pub(crate) async fn open_inbox(
    inner: &Inner,
    description: &AgentDescription,
) -> Result<Consumer<pull::Config>, String> {
    let id = description.id.as_str();
    let name = subject::consumer_name(id);
    let mailbox = inner
        .platform()
        .map_or(1024, |platform| platform.config().mailbox_capacity());
    let consumer = inner
        .stream
        .get_or_create_consumer(
            &name,
            pull::Config {
                durable_name: Some(name.clone()),
                description: Some(format!("durable inbox of tnsai agent {id}")),
                filter_subject: inner.subjects.durable(id),
                deliver_policy: DeliverPolicy::All,
                ack_policy: AckPolicy::Explicit,
                ack_wait: inner.config.durable_ack_wait,
                // At most as many unacked messages as the agent's mailbox holds, so a
                // backlog waits in the stream rather than in memory.
                max_ack_pending: i64::try_from(mailbox).unwrap_or(i64::MAX),
                ..Default::default()
            },
        )
        .await
        .map_err(|error| format!("could not open the durable consumer `{name}`: {error}"))?;
    let registration = serde_json::to_vec(description)
        .map_err(|error| format!("the agent's description did not serialise: {error}"))?;
    inner
        .registry
        .put(subject::durable_key(id), registration.into())
        .await
        .map_err(|error| format!("could not register the durable inbox of {id}: {error}"))?;
    Ok(consumer)
}
