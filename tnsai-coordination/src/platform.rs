//! The platform: where agents live and how they are started and stopped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use std::time::Duration;

use tnsai_core::{Agent, AgentId, Message, PayloadFilter, TopicPattern};
use tokio::sync::mpsc;

use crate::directory::Directory;
use crate::dispatch::spawn_dispatch;
use crate::hosted::HostedAgent;
use crate::pending::PendingReplies;
use crate::transport::router::Router;
use crate::transport::{InternalTransport, Transport};
use crate::{
    AgentDescription, DeliveryReport, ProtocolError, ProtocolManager, SpawnError, TransportError,
};

/// Settings of a [`Platform`].
///
/// ```
/// use tnsai_coordination::{Platform, PlatformConfig};
///
/// let config = PlatformConfig::new().with_mailbox_capacity(256).with_max_concurrent_actions(8);
/// let platform = Platform::with_config(config);
/// assert_eq!(platform.config().mailbox_capacity(), 256);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformConfig {
    mailbox_capacity: usize,
    max_concurrent_actions: usize,
    debate_retention: Duration,
    debate_call_timeout: Duration,
}

impl Default for PlatformConfig {
    fn default() -> Self {
        Self {
            mailbox_capacity: 1024,
            max_concurrent_actions: 64,
            debate_retention: Duration::from_secs(3600),
            debate_call_timeout: Duration::from_secs(30),
        }
    }
}

impl PlatformConfig {
    /// The defaults: mailboxes of 1024 messages, 64 concurrent actions per agent, finished
    /// debates kept for an hour, debate steps waiting 30 seconds for their answer.
    pub fn new() -> Self {
        Self::default()
    }
    /// How many messages wait in an agent's mailbox before senders have to wait (at
    /// least 1).
    pub fn with_mailbox_capacity(mut self, capacity: usize) -> Self {
        self.mailbox_capacity = capacity.max(1);
        self
    }
    /// How many actions one agent runs at once (at least 1); further calls wait in the
    /// mailbox.
    pub fn with_max_concurrent_actions(mut self, limit: usize) -> Self {
        self.max_concurrent_actions = limit.max(1);
        self
    }
    /// How long a finished debate (consensus, deadlock, cancelled) stays readable; after
    /// that its host forgets it and reading it answers `Debate not found`. Forgetting
    /// happens lazily, when the host starts another debate.
    pub fn with_debate_retention(mut self, retention: Duration) -> Self {
        self.debate_retention = retention;
        self
    }
    /// How long a debate step (an invitation, a position, a vote, a counter-argument, a
    /// snapshot, a cancellation) waits for the initiator's answer before failing with
    /// `Request timed out`; 30 seconds by default. A debate host answers at once, so only
    /// an unreachable host (a platform that went away, a transport that cannot carry the
    /// answer back) ever waits this long.
    pub fn with_debate_call_timeout(mut self, timeout: Duration) -> Self {
        self.debate_call_timeout = timeout;
        self
    }
    /// How long a debate step waits for the initiator's answer.
    pub fn debate_call_timeout(&self) -> Duration {
        self.debate_call_timeout
    }
    /// How long finished debates stay readable.
    pub fn debate_retention(&self) -> Duration {
        self.debate_retention
    }
    /// Mailbox capacity per agent.
    pub fn mailbox_capacity(&self) -> usize {
        self.mailbox_capacity
    }
    /// Concurrent actions per agent.
    pub fn max_concurrent_actions(&self) -> usize {
        self.max_concurrent_actions
    }
}

/// What every part of a platform shares.
pub(crate) struct PlatformCore {
    pub(crate) config: PlatformConfig,
    pub(crate) directory: Arc<Directory>,
    pub(crate) router: Router,
    /// Which agent hosts each debate session started on this platform.
    pub(crate) debate_hosts: dashmap::DashMap<String, AgentId>,
    /// Calls made through [`Platform::call`] by callers that are not agents.
    pub(crate) gateway_calls: Arc<PendingReplies>,
    shut_down: AtomicBool,
}

impl PlatformCore {
    pub(crate) async fn terminate(&self, hosted: &Arc<HostedAgent>) -> bool {
        let removed = self.directory.remove_exact(hosted);
        if removed {
            hosted.clear_services();
            hosted.mark_terminated();
            for transport in self.router.remotes() {
                transport.agent_left(&hosted.id).await;
            }
        }
        removed
    }
}

/// Where agents live: in-process discovery, bounded mailboxes, and the transports that
/// connect them.
///
/// Each platform owns its registry and its debate sessions; two platforms in one process
/// share nothing. The platform owns every agent it spawned until
/// [`terminate`](AgentHandle::terminate) or [`shutdown`](Platform::shutdown): dropping an
/// [`AgentHandle`] does not stop its agent. `Platform` is a cheap handle: clones share
/// the platform.
///
/// ```
/// use tnsai_coordination::Platform;
/// use tnsai_core::prelude::*;
///
/// #[agent]
/// struct Worker;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let platform = Platform::new();
/// let worker = platform.spawn("worker", Worker).await?;
/// assert!(worker.protocol_manager().is_none()); // #[agent] has no paradigms
/// assert!(platform.spawn("worker", Worker).await.is_err()); // ids are unique
/// platform.shutdown().await;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Platform {
    core: Arc<PlatformCore>,
}

impl Default for Platform {
    fn default() -> Self {
        Self::new()
    }
}

impl Platform {
    /// A platform with the in-process transport and the default [`PlatformConfig`].
    pub fn new() -> Self {
        Self::with_config(PlatformConfig::default())
    }

    /// A platform with the in-process transport and the given settings.
    pub fn with_config(config: PlatformConfig) -> Self {
        let directory = Arc::new(Directory::default());
        let gateway_calls = Arc::new(PendingReplies::default());
        // The in-process transport starts action tasks itself, so it needs the platform
        // it belongs to; a weak reference, since the platform owns it.
        let core = Arc::new_cyclic(|platform: &Weak<PlatformCore>| {
            let internal = Arc::new(InternalTransport::new(
                Arc::clone(&directory),
                Arc::clone(&gateway_calls),
                Weak::clone(platform),
            ));
            PlatformCore {
                config,
                directory,
                router: Router::new(internal),
                debate_hosts: dashmap::DashMap::new(),
                gateway_calls,
                shut_down: AtomicBool::new(false),
            }
        });
        Self { core }
    }

    /// The platform's settings.
    pub fn config(&self) -> &PlatformConfig {
        &self.core.config
    }

    /// Starts `agent` under `id` and returns its handle. The agent's
    /// [`ProtocolManager`] (present when it has protocol attributes) is already started.
    ///
    /// # Errors
    ///
    /// [`SpawnError::EmptyId`], [`SpawnError::DuplicateId`] when the id is in use on this
    /// platform, [`SpawnError::InvalidSpec`] for a hand-written agent whose specs break
    /// the attribute rules, [`SpawnError::PlatformShutDown`] after
    /// [`shutdown`](Self::shutdown).
    pub async fn spawn<A: Agent>(
        &self,
        id: impl Into<AgentId>,
        agent: A,
    ) -> Result<AgentHandle<A>, SpawnError> {
        let id = id.into();
        if id.is_empty() {
            return Err(SpawnError::EmptyId);
        }
        if self.core.shut_down.load(Ordering::Acquire) {
            return Err(SpawnError::PlatformShutDown);
        }
        let specs = agent.protocol_specs();
        let invalid = |error| SpawnError::InvalidSpec {
            id: id.clone(),
            error,
        };
        specs.validate().map_err(invalid)?;
        let patterns = specs
            .subscriptions()
            .into_iter()
            .map(TopicPattern::parse)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|error| {
                invalid(tnsai_core::SpecError::Topic {
                    attribute: "pub_sub",
                    error,
                })
            })?;
        let filter = specs
            .pub_sub()
            .and_then(|p| p.filter())
            .map(PayloadFilter::parse)
            .transpose()
            .map_err(|e| invalid(tnsai_core::SpecError::Filter(e)))?;

        let agent = Arc::new(agent);
        let (mailbox, inbox) = mpsc::channel(self.core.config.mailbox_capacity());
        let hosted = Arc::new(HostedAgent::new(
            id.clone(),
            Arc::clone(&agent) as Arc<dyn Agent>,
            specs,
            filter,
            mailbox,
            self.core.config.max_concurrent_actions(),
        ));
        if !self.core.directory.insert(Arc::clone(&hosted), patterns) {
            return Err(SpawnError::DuplicateId(id));
        }
        spawn_dispatch(Arc::clone(&hosted), inbox, Arc::clone(&self.core));
        let remotes = self.core.router.remotes();
        if !remotes.is_empty() {
            let description = AgentDescription::of(&hosted);
            for transport in remotes {
                transport.agent_joined(&description).await;
            }
        }
        let manager = (!hosted.specs.is_empty())
            .then(|| ProtocolManager::new(Arc::clone(&hosted), Arc::downgrade(&self.core)));
        tracing::debug!(agent_id = %id, "agent spawned");
        Ok(AgentHandle {
            agent,
            hosted,
            manager,
            core: Arc::downgrade(&self.core),
        })
    }

    /// Terminates the agent with this id; `false` when the platform hosts none.
    pub async fn terminate(&self, id: impl Into<AgentId>) -> bool {
        let id = id.into();
        match self.core.directory.get(id.as_str()) {
            Some(hosted) => self.core.terminate(&hosted).await,
            None => false,
        }
    }

    /// Terminates every agent and stops the transports. Later spawns fail.
    pub async fn shutdown(&self) {
        self.core.shut_down.store(true, Ordering::Release);
        let remotes = self.core.router.remotes();
        for hosted in self.core.directory.drain() {
            hosted.clear_services();
            hosted.mark_terminated();
            for transport in &remotes {
                transport.agent_left(&hosted.id).await;
            }
        }
        for transport in self.core.router.remotes() {
            transport.stop().await;
        }
        self.core.router.internal.stop().await;
    }

    /// Whether [`shutdown`](Self::shutdown) was called.
    pub fn is_shut_down(&self) -> bool {
        self.core.shut_down.load(Ordering::Acquire)
    }

    /// The ids of the agents this platform hosts, sorted.
    pub fn agents(&self) -> Vec<AgentId> {
        self.core.directory.ids()
    }

    /// Whether this platform hosts an agent with this id.
    pub fn contains(&self, id: &str) -> bool {
        self.core.directory.contains(id)
    }

    /// How many agents this platform hosts.
    pub fn len(&self) -> usize {
        self.core.directory.len()
    }

    /// Whether this platform hosts no agent.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What discovery tells about a local agent.
    pub fn describe(&self, id: &str) -> Option<AgentDescription> {
        self.core
            .directory
            .get(id)
            .map(|hosted| AgentDescription::of(&hosted))
    }

    /// Descriptions of every local agent, sorted by id.
    pub fn descriptions(&self) -> Vec<AgentDescription> {
        self.core
            .directory
            .ids()
            .iter()
            .filter_map(|id| self.describe(id.as_str()))
            .collect()
    }

    /// Sends `message` on behalf of a caller that is not an agent of this platform (an
    /// HTTP gateway, a command-line tool) and waits at most `timeout` for its answer. The
    /// message's sender names the caller; its answer is matched by id, never delivered to
    /// an agent.
    ///
    /// # Errors
    ///
    /// [`ProtocolError::Timeout`], and the errors the receiver answers with (the same as
    /// for [`ProtocolManager::execute_action`]).
    pub async fn call(
        &self,
        message: Message,
        timeout: Duration,
    ) -> Result<Message, ProtocolError> {
        let mode = tnsai_core::TransportMode::Auto;
        let gateway = &self.core.gateway_calls;
        self.core
            .router
            .call(gateway, message, mode, Some(timeout))
            .await
    }

    /// The in-process transport.
    pub fn internal_transport(&self) -> Arc<InternalTransport> {
        Arc::clone(&self.core.router.internal)
    }

    /// Adds a transport that reaches agents elsewhere; receivers the platform does not
    /// host are sent through the first transport that [reaches](Transport::reaches) them,
    /// and broadcasts and publications go through every transport.
    pub fn add_transport(&self, transport: Arc<dyn Transport>) {
        self.core.router.add_remote(transport);
    }

    /// Hands a message that arrived from another platform to the local agent it names
    /// (or, for an answer, to the local call waiting for it). Transports call this for
    /// what they receive.
    ///
    /// # Errors
    ///
    /// A [`TransportError`] when no local agent has the receiver's id or it is not
    /// accepting messages.
    pub async fn deliver(&self, message: Message) -> Result<(), TransportError> {
        self.core.router.internal.send(message).await
    }

    /// Hands a broadcast or publication that arrived from another platform to the local
    /// subscribers of its topic.
    pub async fn deliver_publication(&self, message: Message) -> DeliveryReport {
        self.core.router.internal.publish(message).await
    }
}

impl std::fmt::Debug for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Platform")
            .field("agents", &self.len())
            .field("config", &self.core.config)
            .field("shut_down", &self.is_shut_down())
            .finish()
    }
}

/// A spawned agent: its id, the agent value itself and its [`ProtocolManager`].
///
/// Dropping the handle does not stop the agent; [`terminate`](Self::terminate) does.
pub struct AgentHandle<A> {
    agent: Arc<A>,
    hosted: Arc<HostedAgent>,
    manager: Option<ProtocolManager>,
    core: Weak<PlatformCore>,
}

impl<A> Clone for AgentHandle<A> {
    fn clone(&self) -> Self {
        Self {
            agent: Arc::clone(&self.agent),
            hosted: Arc::clone(&self.hosted),
            manager: self.manager.clone(),
            core: Weak::clone(&self.core),
        }
    }
}

impl<A> AgentHandle<A> {
    /// The agent's id.
    pub fn id(&self) -> &AgentId {
        &self.hosted.id
    }

    /// The agent value (its state is shared with the running agent).
    pub fn agent(&self) -> &A {
        &self.agent
    }

    /// The agent value as a shared pointer.
    pub fn agent_arc(&self) -> Arc<A> {
        Arc::clone(&self.agent)
    }

    /// The agent's manager; `None` for an agent without protocol attributes (`#[agent]`).
    pub fn protocol_manager(&self) -> Option<ProtocolManager> {
        self.manager.clone()
    }

    /// Whether the agent was terminated.
    pub fn is_terminated(&self) -> bool {
        self.hosted.is_terminated()
    }

    /// Stops the agent's manager, removes it from discovery and refuses what is left in
    /// its mailbox. Actions already running finish and their answers are delivered.
    pub async fn terminate(&self) {
        if let Some(core) = self.core.upgrade() {
            core.terminate(&self.hosted).await;
        } else {
            self.hosted.mark_terminated();
        }
    }
}

impl<A> std::fmt::Debug for AgentHandle<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentHandle")
            .field("id", &self.hosted.id)
            .field("terminated", &self.hosted.is_terminated())
            .field("has_manager", &self.manager.is_some())
            .finish()
    }
}
