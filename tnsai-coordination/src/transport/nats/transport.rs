//! The [`NatsTransport`]: one platform's connection to a NATS deployment.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::Duration;

use async_nats::HeaderMap;
use async_nats::jetstream::{self, kv};
use chrono::Utc;
use dashmap::DashMap;
use tnsai_core::{AgentId, BoxFuture, Message, MessageId, MessageKind, TransportMode};
use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

use super::calls::{Calls, ReceiptEvent, failure};
use super::config::NatsConfig;
use super::discovery::{Announcement, DiscoveredAgent, RemoteDirectory};
use super::error::{NatsRetireError, NatsRetireErrorKind};
use super::routes::Routes;
use super::subject::{self, Subjects};
use super::wire::{self, PLATFORM_HEADER, REPLY_HEADER};
use crate::answer::error_answer;
use crate::transport::Transport;
use crate::{
    AgentDescription, DeliveryReport, Platform, ProtocolError, TransportError, TransportErrorKind,
};

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every value behind these locks is replaced whole; a panic cannot leave one torn.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A task that stops when told to, after finishing what it holds.
pub(crate) struct Worker {
    stop: Option<oneshot::Sender<()>>,
    handle: JoinHandle<()>,
}

impl Worker {
    pub(crate) fn new(stop: oneshot::Sender<()>, handle: JoinHandle<()>) -> Self {
        Self {
            stop: Some(stop),
            handle,
        }
    }

    /// Asks the task to stop and waits (at most `patience`) until it has.
    async fn finish(mut self, patience: Duration) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if tokio::time::timeout(patience, &mut self.handle)
            .await
            .is_err()
        {
            self.handle.abort();
        }
    }
}

/// One local agent as the transport serves it.
struct LocalAgent {
    description: AgentDescription,
    workers: Vec<Worker>,
}

/// A subscription to one topic pattern, shared by the local agents that use it.
struct TopicSubscription {
    users: usize,
    worker: Worker,
}

/// Publications seen recently, so that one arriving on two overlapping subscriptions
/// (`alerts.>` and `alerts.disk`) is delivered once.
struct RecentPublications {
    order: VecDeque<MessageId>,
    ids: HashSet<MessageId>,
}

impl RecentPublications {
    const CAPACITY: usize = 8192;

    fn new() -> Self {
        Self {
            order: VecDeque::with_capacity(Self::CAPACITY),
            ids: HashSet::with_capacity(Self::CAPACITY),
        }
    }

    /// `true` the first time `id` is seen.
    fn first(&mut self, id: MessageId) -> bool {
        if !self.ids.insert(id) {
            return false;
        }
        self.order.push_back(id);
        if self.order.len() > Self::CAPACITY
            && let Some(old) = self.order.pop_front()
        {
            self.ids.remove(&old);
        }
        true
    }
}

pub(crate) struct Inner {
    pub(crate) platform_id: String,
    pub(crate) config: NatsConfig,
    pub(crate) subjects: Subjects,
    pub(crate) client: async_nats::Client,
    pub(crate) jetstream: jetstream::Context,
    pub(crate) discovery: kv::Store,
    pub(crate) registry: kv::Store,
    pub(crate) stream: jetstream::stream::Stream,
    platform: RwLock<Option<Platform>>,
    started: AtomicBool,
    pub(crate) calls: Calls,
    pub(crate) routes: Routes,
    pub(crate) directory: RemoteDirectory,
    local: DashMap<AgentId, LocalAgent>,
    /// Serialises joins and leaves of the same agent, and topic bookkeeping.
    membership: tokio::sync::Mutex<()>,
    topics: Mutex<HashMap<String, TopicSubscription>>,
    recent: Mutex<RecentPublications>,
    background: Mutex<Vec<JoinHandle<()>>>,
    /// Wakes the heartbeat early (after a reconnect).
    pub(crate) renew_now: Notify,
    /// Counts lost connections, so that requests in flight end when one is lost.
    pub(crate) disconnects: tokio::sync::watch::Sender<u64>,
}

/// The NATS transport: carries a platform's messages to agents on other platforms
/// through a NATS server, and keeps discovery in NATS KV.
///
/// Connect it with [`Platform::connect_nats`] (or [`NatsTransport::connect`]): it adds
/// itself to the platform, announces the platform's agents and learns everybody
/// else's. The handle is cheap to clone; [`Platform::shutdown`] stops it (withdrawing
/// every announcement), or call [`Transport::stop`] to leave NATS alone.
///
/// What travels where is described in the [module documentation](super).
#[derive(Clone)]
pub struct NatsTransport {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Parts {
    pub(crate) platform_id: String,
    pub(crate) config: NatsConfig,
    pub(crate) client: async_nats::Client,
    pub(crate) jetstream: jetstream::Context,
    pub(crate) discovery: kv::Store,
    pub(crate) registry: kv::Store,
    pub(crate) stream: jetstream::stream::Stream,
    pub(crate) platform: Platform,
}

impl NatsTransport {
    pub(crate) fn from_parts(parts: Parts) -> Self {
        let subjects = Subjects::new(&parts.config.prefix);
        let ttl = parts.config.discovery_ttl;
        Self {
            inner: Arc::new(Inner {
                directory: RemoteDirectory::new(parts.platform_id.clone(), ttl),
                platform_id: parts.platform_id,
                config: parts.config,
                subjects,
                client: parts.client,
                jetstream: parts.jetstream,
                discovery: parts.discovery,
                registry: parts.registry,
                stream: parts.stream,
                platform: RwLock::new(Some(parts.platform)),
                started: AtomicBool::new(true),
                calls: Calls::default(),
                routes: Routes::default(),
                local: DashMap::new(),
                membership: tokio::sync::Mutex::new(()),
                topics: Mutex::new(HashMap::new()),
                recent: Mutex::new(RecentPublications::new()),
                background: Mutex::new(Vec::new()),
                renew_now: Notify::new(),
                disconnects: tokio::sync::watch::Sender::new(0),
            }),
        }
    }

    pub(crate) fn add_background(&self, task: JoinHandle<()>) {
        lock(&self.inner.background).push(task);
    }

    /// This platform's id on NATS (a UUID in simple form, fresh for every connection):
    /// the last token of its announcement keys and reply subjects.
    pub fn platform_id(&self) -> &str {
        &self.inner.platform_id
    }

    /// The settings it was connected with.
    pub fn config(&self) -> &NatsConfig {
        &self.inner.config
    }

    /// Whether the connection to the server is up now (it reconnects by itself).
    pub fn is_connected(&self) -> bool {
        self.inner.client.connection_state() == async_nats::connection::State::Connected
    }

    /// The agents other platforms announce, sorted by id then platform. An agent run by
    /// several platforms (a queue group) is listed once per platform.
    pub fn discovered(&self) -> Vec<DiscoveredAgent> {
        self.inner.directory.snapshot()
    }

    /// The agent ids with a durable inbox anywhere in the deployment, sorted.
    pub fn durable_agents(&self) -> Vec<AgentId> {
        self.inner.directory.durable_ids()
    }

    /// How long, at most, other platforms keep believing in an agent of this platform
    /// after it died without withdrawing it (see [`NatsConfig::discovery_bound`]).
    pub fn discovery_bound(&self) -> Duration {
        self.inner.config.discovery_bound()
    }

    /// Removes an agent's durable inbox from the deployment: its JetStream consumer, the
    /// messages still waiting in it, and its registration. Senders then get
    /// `Unknown receiver` while the agent is not running anywhere.
    ///
    /// # Errors
    ///
    /// [`NatsRetireError`] when the transport is stopped or JetStream or the KV bucket
    /// refuses.
    pub async fn retire_durable(&self, id: impl Into<AgentId>) -> Result<(), NatsRetireError> {
        let id = id.into();
        let inner = &self.inner;
        if !inner.is_started() {
            return Err(NatsRetireError::new(
                NatsRetireErrorKind::NotStarted,
                "Transport not started",
            ));
        }
        let consumer = subject::consumer_name(id.as_str());
        if let Err(error) = inner.stream.delete_consumer(&consumer).await
            && !matches!(
                error.kind(),
                jetstream::stream::ConsumerErrorKind::JetStream(ref e)
                    if e.error_code() == jetstream::ErrorCode::CONSUMER_NOT_FOUND
            )
        {
            return Err(NatsRetireError::new(
                NatsRetireErrorKind::JetStream,
                format!("could not delete the durable consumer of {id}: {error}"),
            ));
        }
        inner
            .stream
            .purge()
            .filter(inner.subjects.durable(id.as_str()))
            .await
            .map_err(|error| {
                NatsRetireError::new(
                    NatsRetireErrorKind::JetStream,
                    format!("could not purge the durable inbox of {id}: {error}"),
                )
            })?;
        inner
            .registry
            .purge(subject::durable_key(id.as_str()))
            .await
            .map_err(|error| {
                NatsRetireError::new(
                    NatsRetireErrorKind::Registry,
                    format!("could not remove the durable registration of {id}: {error}"),
                )
            })?;
        Ok(())
    }
}

impl std::fmt::Debug for NatsTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NatsTransport")
            .field("platform_id", &self.inner.platform_id)
            .field("started", &self.inner.is_started())
            .field("connected", &self.is_connected())
            .field("local_agents", &self.inner.local.len())
            .field("waiting_calls", &self.inner.calls.len())
            .field("open_routes", &self.inner.routes.len())
            .field("config", &self.inner.config)
            .finish()
    }
}

impl Inner {
    pub(crate) fn is_started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    pub(crate) fn platform(&self) -> Option<Platform> {
        self.platform
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// `true` the first time this platform sees publication `id`.
    pub(crate) fn first_publication(&self, id: MessageId) -> bool {
        lock(&self.recent).first(id)
    }

    fn connected(&self) -> bool {
        self.client.connection_state() == async_nats::connection::State::Connected
    }

    /// Hands an answer that arrived (or that this transport made up for a failed call) to
    /// the local call waiting for it.
    pub(crate) async fn deliver_answer(&self, answer: Message) {
        let Some(platform) = self.platform() else {
            return;
        };
        if let Err(error) = platform.deliver(answer).await {
            tracing::debug!(%error, "an answer found no waiting call (it gave up, or its agent left)");
        }
    }

    /// A message for one of this platform's agents arrived: remember where its answer
    /// goes, then put it in the agent's mailbox. A refusal is answered at once (core) or
    /// sent back to the stream for later (durable).
    pub(crate) async fn accept(
        &self,
        message: Message,
        reply: Option<String>,
        ack: Option<jetstream::message::Acker>,
    ) {
        let id = message.id();
        let durable = ack.is_some();
        self.routes
            .open(message.clone(), message.sender().clone(), reply, ack);
        let delivered = match self.platform() {
            Some(platform) => platform.deliver(message.clone()).await,
            None => Err(TransportError::not_started()),
        };
        let Err(error) = delivered else {
            return;
        };
        let Some(route) = self.routes.take(id) else {
            return;
        };
        if durable {
            tracing::debug!(message_id = %id, %error, "durable message refused for now; it goes back to the stream");
            self.routes.unsee(id);
            if let Some(ack) = route.ack
                && let Err(error) = ack
                    .ack_with(jetstream::AckKind::Nak(Some(self.config.heartbeat)))
                    .await
            {
                tracing::warn!(message_id = %id, %error, "could not return a durable message to its stream; JetStream redelivers it after its ack wait");
            }
            return;
        }
        let answer = error_answer(&message, receiver_of(&message), &ProtocolError::from(error));
        self.reply(route.reply.as_deref(), &answer).await;
    }

    /// Publishes an answer to the caller's reply subject (or, lacking one, the caller's
    /// inbox).
    async fn reply(&self, reply: Option<&str>, answer: &Message) {
        let target = match reply {
            Some(reply) => reply.to_owned(),
            None => match answer.receiver() {
                Some(caller) => self.subjects.agent(caller.as_str()),
                None => return,
            },
        };
        match wire::encode(answer) {
            Ok(payload) => {
                if let Err(error) = self.client.publish(target, payload.into()).await {
                    tracing::warn!(message_id = %answer.id(), %error, "could not send an answer over NATS");
                }
            }
            Err(error) => tracing::error!(%error, "an answer did not serialise"),
        }
    }

    async fn send_answer(&self, answer: Message) -> Result<(), TransportError> {
        let Some(answered) = answer.in_reply_to() else {
            return Err(TransportError::new(
                TransportErrorKind::Delivery,
                "an answer must name the message it answers",
            ));
        };
        let payload = wire::encode(&answer)?;
        let Some(route) = self.routes.take(answered) else {
            // No route (it expired): try the caller's own inbox, where its platform
            // completes the call if it still waits.
            let caller = receiver_of(&answer).clone();
            if !self.directory.reaches(&caller) {
                return Err(TransportError::unknown_receiver(caller));
            }
            return self
                .client
                .publish(self.subjects.agent(caller.as_str()), payload.into())
                .await
                .map_err(|e| delivery_error("could not send an answer", e));
        };
        if let Some(ack) = &route.ack
            && is_refusal(&answer)
        {
            // The agent was stopped or terminated before it ran the message: the message
            // goes back to its stream and is delivered when the agent is back.
            self.routes.unsee(answered);
            if let Err(error) = ack
                .ack_with(jetstream::AckKind::Nak(Some(self.config.heartbeat)))
                .await
            {
                tracing::warn!(message_id = %answered, %error, "could not return a durable message to its stream; JetStream redelivers it after its ack wait");
            }
            return Ok(());
        }
        let target = route
            .reply
            .clone()
            .unwrap_or_else(|| self.subjects.agent(route.caller.as_str()));
        let sent = self
            .client
            .publish(target, payload.into())
            .await
            .map_err(|e| delivery_error("could not send an answer", e));
        if let Some(ack) = route.ack {
            // The action has run and its answer is out: only now is the message done.
            match ack.ack().await {
                Ok(()) => self.routes.done(answered),
                Err(error) => {
                    tracing::warn!(message_id = %answered, %error, "could not ack a durable message; a redelivery will be recognised and skipped");
                    self.routes.done(answered);
                }
            }
        }
        sent
    }

    async fn send_now(&self, message: Message) -> Result<(), TransportError> {
        if !self.is_started() {
            return Err(TransportError::not_started());
        }
        if message.kind().is_answer() {
            return self.send_answer(message).await;
        }
        let Some(receiver) = message.receiver().cloned() else {
            return Err(TransportError::new(
                TransportErrorKind::Delivery,
                "a message sent to one agent must name its receiver",
            ));
        };
        if !self.connected() {
            return Err(TransportError::new(
                TransportErrorKind::Delivery,
                format!(
                    "cannot send to {receiver}: not connected to the NATS server (reconnecting)"
                ),
            ));
        }
        let payload = wire::encode(&message)?;
        let durable = self.directory.is_durable(&receiver);
        if !durable
            && matches!(
                message.kind(),
                MessageKind::Action | MessageKind::Request | MessageKind::Text
            )
        {
            return self.request(message, &receiver, payload).await;
        }
        let token = self
            .calls
            .register_call(message.clone(), durable, self.config.answer_timeout);
        let reply = self.subjects.reply(&self.platform_id, token);
        let sent = if durable {
            self.send_durable(&message, &receiver, reply, payload).await
        } else {
            self.client
                .publish_with_reply(
                    self.subjects.agent(receiver.as_str()),
                    reply,
                    payload.into(),
                )
                .await
                .map_err(|e| delivery_error(&format!("could not send to {receiver}"), e))
        };
        if sent.is_err() {
            self.calls.cancel_call(token);
        }
        sent
    }

    /// Carries a message that is always answered exactly once (an action, a request, a
    /// text) as a NATS request, and hands the answer (or the reason there is none) to the
    /// waiting call from this task: the answer needs no detour through the platform's
    /// reply subscription.
    async fn request(
        &self,
        message: Message,
        receiver: &AgentId,
        payload: Vec<u8>,
    ) -> Result<(), TransportError> {
        let mut disconnects = self.disconnects.subscribe();
        let request = async_nats::Request::new()
            .payload(payload.into())
            .timeout(self.config.answer_timeout);
        let subject = self.subjects.agent(receiver.as_str());
        let outcome = tokio::select! {
            outcome = self.client.send_request(subject, request) => outcome,
            _ = disconnects.changed() => {
                let text = format!(
                    "Lost the connection to the NATS server before {receiver} answered; the call may or may not have run"
                );
                self.deliver_answer(failure(&message, "transport", &text)).await;
                return Ok(());
            }
        };
        let answer = match outcome {
            Ok(reply) => match wire::decode(&reply.payload) {
                Ok(answer) if answer.in_reply_to() == Some(message.id()) => answer,
                Ok(_) => failure(
                    &message,
                    "remote",
                    "the receiving platform answered with a message for another call",
                ),
                Err(error) => failure(
                    &message,
                    "remote",
                    &format!("the receiving platform sent an unreadable answer: {error}"),
                ),
            },
            Err(error) => match error.kind() {
                async_nats::RequestErrorKind::NoResponders => {
                    tracing::warn!(agent_id = %receiver, message_id = %message.id(), "no platform serves the receiver over NATS; the message was not delivered");
                    failure(
                        &message,
                        "receiver_unavailable",
                        &format!(
                            "Receiver {receiver} is unavailable: no platform serves it over NATS (it is offline)"
                        ),
                    )
                }
                async_nats::RequestErrorKind::TimedOut => {
                    failure(&message, "timeout", "Request timed out")
                }
                _ => {
                    return Err(delivery_error(
                        &format!("could not send to {receiver}"),
                        error,
                    ));
                }
            },
        };
        self.deliver_answer(answer).await;
        Ok(())
    }

    /// Stores a message in the receiver's durable inbox; `Ok` once JetStream has it.
    async fn send_durable(
        &self,
        message: &Message,
        receiver: &AgentId,
        reply: String,
        payload: Vec<u8>,
    ) -> Result<(), TransportError> {
        let mut headers = HeaderMap::new();
        headers.insert(REPLY_HEADER, reply.as_str());
        headers.insert(PLATFORM_HEADER, self.platform_id.as_str());
        let publish = jetstream::message::PublishMessage::build()
            .payload(payload.into())
            .headers(headers)
            // JetStream stores a message published twice with the same id once.
            .message_id(message.id().to_string());
        let ack = self
            .jetstream
            .send_publish(self.subjects.durable(receiver.as_str()), publish)
            .await
            .map_err(|e| delivery_error(&format!("could not queue for {receiver}"), e))?;
        let ack = ack.await.map_err(|e| {
            delivery_error(
                &format!("JetStream did not store the message for {receiver}"),
                e,
            )
        })?;
        if ack.duplicate {
            tracing::debug!(message_id = %message.id(), "durable message was already stored; JetStream kept one copy");
        }
        Ok(())
    }

    async fn publish_now(&self, message: Message) -> DeliveryReport {
        let Some(topic) = message.topic() else {
            return DeliveryReport::default();
        };
        let expected = self
            .directory
            .recipients(topic, message.payload(), message.sender());
        let fail_all = |reason: &str| {
            let failed = expected
                .values()
                .flatten()
                .map(|agent| (agent.clone(), reason.to_owned()))
                .collect();
            DeliveryReport::new(Vec::new(), failed)
        };
        if !self.is_started() {
            return fail_all("Transport not started");
        }
        let payload = match wire::encode(&message) {
            Ok(payload) => payload,
            Err(error) => return fail_all(&error.to_string()),
        };
        let subject = self.subjects.topic(topic);
        let mut headers = HeaderMap::new();
        headers.insert(PLATFORM_HEADER, self.platform_id.as_str());
        if expected.is_empty() {
            // No remote recipient is known: nothing to wait for, but a platform that
            // joined a moment ago still gets it.
            if let Err(error) = self
                .client
                .publish_with_headers(subject, headers, payload.into())
                .await
            {
                tracing::warn!(%error, "could not publish over NATS");
            }
            return DeliveryReport::default();
        }
        if !self.connected() {
            return fail_all("not connected to the NATS server (reconnecting)");
        }
        let (token, mut receipts) = self.calls.register_receipts();
        let reply = self.subjects.reply(&self.platform_id, token);
        if let Err(error) = self
            .client
            .publish_with_reply_and_headers(subject, reply, headers, payload.into())
            .await
        {
            self.calls.end_receipts(token);
            return fail_all(&format!("could not publish over NATS: {error}"));
        }
        let mut waiting: BTreeSet<&String> = expected.keys().collect();
        let mut report = DeliveryReport::default();
        let timeout = self.config.publish_ack_timeout;
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut reason = format!("no receipt from its platform within {timeout:?}");
        while !waiting.is_empty() {
            tokio::select! {
                event = receipts.recv() => match event {
                    Some(ReceiptEvent::Receipt(receipt)) => {
                        waiting.remove(&receipt.platform);
                        report = report.merge(receipt.into_report());
                    }
                    Some(ReceiptEvent::NoResponders) => {
                        reason = "no platform subscribes to the topic over NATS any more".to_owned();
                        break;
                    }
                    Some(ReceiptEvent::Disconnected) | None => {
                        reason = "lost the connection to the NATS server".to_owned();
                        break;
                    }
                },
                () = &mut deadline => break,
            }
        }
        self.calls.end_receipts(token);
        let missing: Vec<(AgentId, String)> = waiting
            .into_iter()
            .flat_map(|platform| expected[platform].iter())
            .filter(|agent| !report.delivered().contains(agent))
            .map(|agent| (agent.clone(), reason.clone()))
            .collect();
        report.merge(DeliveryReport::new(Vec::new(), missing))
    }

    /// Serves a newly spawned local agent: its inbox subscription (a queue group), its
    /// durable inbox if it has one, its topic subscriptions, then its announcement.
    pub(crate) async fn join(self: &Arc<Self>, description: AgentDescription) {
        if !self.is_started() {
            return;
        }
        let _membership = self.membership.lock().await;
        if self.local.contains_key(&description.id) {
            return;
        }
        let id = description.id.clone();
        for address in &description.addresses {
            let nats = ["nats://", "tls://", "ws://", "wss://"]
                .iter()
                .any(|scheme| address.starts_with(scheme));
            if nats && !self.config.servers.iter().any(|server| server == address) {
                // One connection per platform: the agent is served through this one.
                tracing::warn!(
                    agent_id = %id,
                    broker = %super::config::redact_url(address),
                    servers = %self.config.servers.iter().map(|s| super::config::redact_url(s)).collect::<Vec<_>>().join(", "),
                    "the agent names a NATS broker this platform is not connected to; it is served through the platform's connection"
                );
            }
        }
        let durable = description.durable || self.config.durable_inboxes;
        let mut workers = Vec::new();
        match self
            .client
            .queue_subscribe(
                self.subjects.agent(id.as_str()),
                self.subjects.queue_group().to_owned(),
            )
            .await
        {
            Ok(subscriber) => workers.push(super::inbound::spawn_inbox(
                Arc::clone(self),
                id.clone(),
                subscriber,
            )),
            Err(error) => {
                tracing::error!(agent_id = %id, %error, "could not subscribe to the agent's NATS inbox; remote callers cannot reach it");
            }
        }
        if durable {
            match super::durable::open_inbox(self, &description).await {
                Ok(consumer) => workers.push(super::inbound::spawn_durable(
                    Arc::clone(self),
                    id.clone(),
                    consumer,
                )),
                Err(error) => {
                    tracing::error!(agent_id = %id, %error, "could not open the agent's durable inbox");
                }
            }
        }
        for pattern in &description.subscriptions {
            self.subscribe_topic(pattern).await;
        }
        // The server must hold the subscriptions before anyone learns of the agent.
        if let Err(error) = self.client.flush().await {
            tracing::warn!(agent_id = %id, %error, "could not flush the agent's subscriptions");
        }
        self.announce(&description).await;
        self.local.insert(
            id,
            LocalAgent {
                description,
                workers,
            },
        );
    }

    /// Stops serving a local agent and withdraws its announcement (its durable inbox
    /// stays: messages keep arriving there while it is away).
    pub(crate) async fn leave(&self, id: &AgentId) {
        let _membership = self.membership.lock().await;
        let Some((_, agent)) = self.local.remove(id) else {
            return;
        };
        let key = subject::announcement_key(id.as_str(), &self.platform_id);
        let withdrawn = if self.connected() {
            self.discovery.delete(&key).await.map_err(|e| e.to_string())
        } else {
            Err("not connected".to_owned())
        };
        if let Err(error) = withdrawn {
            tracing::warn!(agent_id = %id, %error, "could not withdraw the agent's announcement; other platforms forget it after the discovery TTL");
        }
        for pattern in &agent.description.subscriptions {
            self.unsubscribe_topic(pattern).await;
        }
        for worker in agent.workers {
            worker.finish(Duration::from_secs(5)).await;
        }
    }

    async fn subscribe_topic(self: &Arc<Self>, pattern: &str) {
        let subject = self.subjects.pattern(pattern);
        if let Some(subscription) = lock(&self.topics).get_mut(&subject) {
            subscription.users += 1;
            return;
        }
        match self.client.subscribe(subject.clone()).await {
            Ok(subscriber) => {
                let worker = super::inbound::spawn_topic(Arc::clone(self), subscriber);
                lock(&self.topics).insert(subject, TopicSubscription { users: 1, worker });
            }
            Err(error) => {
                tracing::error!(pattern, %error, "could not subscribe to a topic over NATS; remote publications on it are not received");
            }
        }
    }

    async fn unsubscribe_topic(&self, pattern: &str) {
        let subject = self.subjects.pattern(pattern);
        let finished = {
            let mut topics = lock(&self.topics);
            match topics.get_mut(&subject) {
                Some(subscription) if subscription.users > 1 => {
                    subscription.users -= 1;
                    None
                }
                Some(_) => topics.remove(&subject),
                None => None,
            }
        };
        if let Some(subscription) = finished {
            subscription.worker.finish(Duration::from_secs(5)).await;
        }
    }

    fn announcement(&self, description: &AgentDescription) -> Option<Vec<u8>> {
        let announcement = Announcement {
            platform: self.platform_id.clone(),
            renewed_at: Utc::now(),
            agent: description.clone(),
        };
        serde_json::to_vec(&announcement)
            .inspect_err(|error| tracing::error!(%error, "an announcement did not serialise"))
            .ok()
    }

    async fn announce(&self, description: &AgentDescription) {
        let Some(value) = self.announcement(description) else {
            return;
        };
        let key = subject::announcement_key(description.id.as_str(), &self.platform_id);
        if let Err(error) = self.discovery.put(&key, value.into()).await {
            tracing::warn!(agent_id = %description.id, %error, "could not announce the agent; the next heartbeat tries again");
        }
    }

    /// Renews every local agent's announcement.
    pub(crate) async fn renew(&self) {
        if !self.connected() {
            return;
        }
        let descriptions: Vec<AgentDescription> = self
            .local
            .iter()
            .map(|agent| agent.description.clone())
            .collect();
        let puts = descriptions.iter().map(|d| self.announce(d));
        futures_util::future::join_all(puts).await;
    }

    async fn stop(&self) {
        if !self.started.swap(false, Ordering::AcqRel) {
            return;
        }
        let background: Vec<JoinHandle<()>> = lock(&self.background).drain(..).collect();
        for task in background {
            task.abort();
        }
        let ids: Vec<AgentId> = self.local.iter().map(|a| a.key().clone()).collect();
        for id in ids {
            self.leave(&id).await;
        }
        let topics: Vec<TopicSubscription> = lock(&self.topics).drain().map(|(_, t)| t).collect();
        for topic in topics {
            topic.worker.finish(Duration::from_secs(5)).await;
        }
        for answer in self.calls.stop() {
            self.deliver_answer(answer).await;
        }
        for route in self.routes.drain() {
            match route.ack {
                Some(ack) => {
                    // Not answered: another platform serving the agent, or this one when
                    // it is back, takes it.
                    let _ = ack.ack_with(jetstream::AckKind::Nak(None)).await;
                }
                None => {
                    let receiver = receiver_of(&route.request);
                    let error = ProtocolError::ReceiverUnavailable(format!(
                        "Receiver {receiver} is unavailable: its platform left NATS before it answered"
                    ));
                    let answer = error_answer(&route.request, receiver, &error);
                    self.reply(route.reply.as_deref(), &answer).await;
                }
            }
        }
        // Bounded: with the server unreachable there is nothing to flush to.
        let patience = Duration::from_secs(2);
        match tokio::time::timeout(patience, self.client.flush()).await {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                tracing::debug!(%error, "could not flush before closing the NATS connection")
            }
            Err(_) => tracing::warn!(
                "the NATS server did not confirm the last messages before the connection closed"
            ),
        }
        if let Ok(Err(error)) = tokio::time::timeout(patience, self.client.drain()).await {
            tracing::debug!(%error, "could not drain the NATS connection");
        }
        self.directory.clear();
        *self
            .platform
            .write()
            .unwrap_or_else(PoisonError::into_inner) = None;
    }
}

/// The agent a message is for (every message this transport carries to one agent names
/// it; the sender stands in for one that does not).
fn receiver_of(message: &Message) -> &AgentId {
    message.receiver().unwrap_or_else(|| message.sender())
}

/// Whether an answer says the agent refused the message without running it.
fn is_refusal(answer: &Message) -> bool {
    answer.kind() == MessageKind::Error
        && answer.payload().get("code").and_then(|c| c.as_str()) == Some("receiver_unavailable")
}

fn delivery_error(what: &str, error: impl std::fmt::Display) -> TransportError {
    TransportError::new(TransportErrorKind::Delivery, format!("{what}: {error}"))
}

impl Transport for NatsTransport {
    fn mode(&self) -> TransportMode {
        TransportMode::Nats
    }

    fn start(&self) -> BoxFuture<'_, Result<(), TransportError>> {
        let result = if self.inner.is_started() {
            Ok(())
        } else {
            Err(TransportError::new(
                TransportErrorKind::NotStarted,
                "Transport not started: a stopped NATS transport does not restart; connect a new one",
            ))
        };
        Box::pin(std::future::ready(result))
    }

    fn stop(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.inner.stop())
    }

    fn is_started(&self) -> bool {
        self.inner.is_started()
    }

    fn reaches(&self, agent: &AgentId) -> bool {
        self.inner.is_started()
            && (self.inner.directory.reaches(agent) || self.inner.routes.reaches(agent))
    }

    fn send(&self, message: Message) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(self.inner.send_now(message))
    }

    fn publish(&self, message: Message) -> BoxFuture<'_, DeliveryReport> {
        Box::pin(self.inner.publish_now(message))
    }

    fn agent_joined(&self, agent: &AgentDescription) -> BoxFuture<'_, ()> {
        let description = agent.clone();
        Box::pin(async move { self.inner.join(description).await })
    }

    fn agent_left(&self, agent: &AgentId) -> BoxFuture<'_, ()> {
        let id = agent.clone();
        Box::pin(async move { self.inner.leave(&id).await })
    }
}
