//! The transport itself: what the server and the client share, and the `Transport`
//! implementation the platform's router sends through.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock, Weak};

use dashmap::DashMap;
use dashmap::mapref::entry::Entry;
use tnsai_core::{AgentId, BoxFuture, Message, MessageId, TransportMode};
use tokio::sync::{oneshot, watch};

use super::agora::{ProtocolDocument, SourceFetcher};
use super::auth::{IssuedToken, TokenId, TokenStore};
use super::client::{build_client, normalize_url};
use super::config::HttpConfig;
use super::conversations::Conversations;
use super::error::{BindError, PeerError};
use super::limits::RateLimiter;
use super::protocols::AgentProtocols;
use crate::transport::Transport;
use crate::{AgentDescription, DeliveryReport, Platform, TransportError};

/// What the HTTP server and client of one platform share.
pub(crate) struct Shared {
    pub(crate) config: HttpConfig,
    /// The platform; cleared when it shuts down, which breaks the cycle platform →
    /// transport → platform.
    platform: RwLock<Option<Platform>>,
    public_url: OnceLock<String>,
    local_addr: OnceLock<SocketAddr>,
    pub(crate) tokens: TokenStore,
    pub(crate) limiter: Option<RateLimiter>,
    pub(crate) conversations: Conversations,
    /// The protocols of local agents, built on first use and dropped when an agent
    /// joins or leaves under that id.
    catalogue: DashMap<AgentId, Arc<AgentProtocols>>,
    /// Protocol documents fetched from callers' sources, by hash.
    pub(crate) foreign: DashMap<String, Arc<ProtocolDocument>>,
    pub(crate) fetcher: SourceFetcher,
    pub(crate) client: reqwest::Client,
    pub(crate) peers: super::peers::Peers,
    /// Calls from other platforms whose answers go back in the HTTP response, by the id
    /// of the message that asked.
    inflight: DashMap<MessageId, oneshot::Sender<Message>>,
    /// How many such calls each remote sender has waiting: while it has any, this
    /// transport reaches it, so the router hands its answers here.
    inflight_senders: DashMap<AgentId, usize>,
    started: AtomicBool,
    discovery: AtomicBool,
    closing: watch::Sender<bool>,
    server: Mutex<Option<tokio::task::JoinHandle<()>>>,
    /// This state as a weak handle: background tasks started from `&Shared` (a request
    /// handler, the router's `send`) need an owned one.
    me: Weak<Shared>,
}

/// A registered call whose answer goes back in an HTTP response; dropping it (the
/// answer came, or the request was cancelled) unregisters the call.
pub(crate) struct AwaitedAnswer<'a> {
    shared: &'a Shared,
    id: MessageId,
    sender: AgentId,
}

impl Drop for AwaitedAnswer<'_> {
    fn drop(&mut self) {
        self.shared.inflight.remove(&self.id);
        if let Entry::Occupied(mut waiting) =
            self.shared.inflight_senders.entry(self.sender.clone())
        {
            *waiting.get_mut() -= 1;
            if *waiting.get() == 0 {
                waiting.remove();
            }
        }
    }
}

impl Shared {
    fn new(platform: &Platform, config: HttpConfig) -> Arc<Self> {
        let client = build_client(config.client_timeout);
        let fetcher =
            SourceFetcher::with_client(client.clone(), config.source_limit, config.source_timeout)
                .allow_http(config.fetch_http_sources);
        let public_url = OnceLock::new();
        if let Some(url) = &config.public_url {
            let _ = public_url.set(url.clone());
        }
        Arc::new_cyclic(|me| Self {
            me: Weak::clone(me),
            limiter: config.rate_limit.map(RateLimiter::new),
            conversations: Conversations::new(config.conversation_ttl, config.max_conversations),
            platform: RwLock::new(Some(platform.clone())),
            public_url,
            local_addr: OnceLock::new(),
            tokens: TokenStore::default(),
            catalogue: DashMap::new(),
            foreign: DashMap::new(),
            fetcher,
            client,
            peers: super::peers::Peers::default(),
            inflight: DashMap::new(),
            inflight_senders: DashMap::new(),
            started: AtomicBool::new(true),
            discovery: AtomicBool::new(false),
            closing: watch::channel(false).0,
            server: Mutex::new(None),
            config,
        })
    }

    pub(crate) fn platform(&self) -> Option<Platform> {
        self.platform
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub(crate) fn public_url(&self) -> Option<&str> {
        self.public_url.get().map(String::as_str)
    }

    pub(crate) fn is_started(&self) -> bool {
        self.started.load(Ordering::Acquire)
    }

    /// The protocols of the local agent `id`, or `None` when the platform hosts none.
    pub(crate) fn protocols_of(
        &self,
        platform: &Platform,
        id: &str,
    ) -> Option<Arc<AgentProtocols>> {
        if let Some(found) = self.catalogue.get(id) {
            return Some(Arc::clone(found.value()));
        }
        let description = platform.describe(id)?;
        let protocols = AgentProtocols::of(description);
        self.catalogue
            .insert(protocols.description.id.clone(), Arc::clone(&protocols));
        Some(protocols)
    }

    /// Registers a call from another platform whose answer must come back here.
    pub(crate) fn await_answer(
        &self,
        message: &Message,
    ) -> (AwaitedAnswer<'_>, oneshot::Receiver<Message>) {
        let (tx, rx) = oneshot::channel();
        self.inflight.insert(message.id(), tx);
        *self
            .inflight_senders
            .entry(message.sender().clone())
            .or_insert(0) += 1;
        let guard = AwaitedAnswer {
            shared: self,
            id: message.id(),
            sender: message.sender().clone(),
        };
        (guard, rx)
    }

    /// Remembers that `sender`'s platform is at `origin` (from `X-Tnsai-Origin`), and
    /// adds that platform as a peer when `learn_peers` is on.
    pub(crate) fn learn_origin(&self, origin: Option<&str>, sender: &AgentId) {
        if !self.config.learn_peers {
            return;
        }
        let Some(origin) = origin else { return };
        let Ok(url) = normalize_url(origin) else {
            return;
        };
        if self.public_url() == Some(url.as_str()) {
            return;
        }
        let peer = match self.peers.get(&url) {
            Some(peer) => peer,
            None => {
                let (peer, added) = self.peers.get_or_add(&url, None);
                if added {
                    self.spawn_listing(Arc::clone(&peer));
                }
                peer
            }
        };
        if !peer.hosts(sender) {
            self.peers.learn_route(sender, &peer);
        }
    }

    /// Adds the `http(s)://` addresses an agent's attributes name (`endpoint`,
    /// `broker`) as peers. Their listings are read in the background; one that does
    /// not answer yet stays a peer and is read again at every discovery interval.
    fn declare(&self, description: &AgentDescription) {
        for address in &description.addresses {
            // Other schemes (a NATS server) are another transport's business.
            let Ok(url) = normalize_url(address) else {
                continue;
            };
            if self.public_url() == Some(url.as_str()) {
                continue;
            }
            let (peer, added) = self.peers.get_or_add(&url, None);
            if added {
                tracing::debug!(agent_id = %description.id, %url, "peer named by an attribute");
                self.spawn_listing(peer);
            }
        }
    }

    fn spawn_listing(&self, peer: Arc<super::peers::Peer>) {
        let Some(me) = self.me() else { return };
        // Outside a runtime (a transport made in synchronous code) the first refresh
        // reads it instead.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            if let Err(error) = me.read_listing(&peer).await {
                tracing::debug!(%error, "could not read the listing of a platform that called");
            }
            me.ensure_discovery();
        });
    }

    fn me(&self) -> Option<Arc<Shared>> {
        self.me.upgrade()
    }

    /// Starts re-reading the peers' listings every `discovery_interval`, once.
    pub(crate) fn ensure_discovery(&self) {
        let Some(interval) = self.config.discovery_interval else {
            return;
        };
        if self.discovery.swap(true, Ordering::AcqRel) {
            return;
        }
        let Some(me) = self.me() else { return };
        let weak = Arc::downgrade(&me);
        let mut closing = self.closing.subscribe();
        drop(me);
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = tokio::time::sleep(interval) => {}
                    _ = closing.changed() => break,
                }
                let Some(shared) = weak.upgrade() else { break };
                if let Err(error) = shared.refresh_all().await {
                    tracing::debug!(%error, "a peer's listing could not be read");
                }
            }
        });
    }

    async fn send_now(&self, message: Message) -> Result<(), TransportError> {
        if !self.is_started() {
            return Err(TransportError::not_started());
        }
        if message.kind().is_answer()
            && let Some(id) = message.in_reply_to()
            && let Some((_, waiting)) = self.inflight.remove(&id)
        {
            if let Err(message) = waiting.send(message) {
                tracing::debug!(message_id = %message.id(), "the remote caller's request ended before its answer");
            }
            return Ok(());
        }
        self.send_remote(message).await
    }

    /// Stops the listener and the discovery task, and lets go of the platform.
    async fn close(&self) {
        self.started.store(false, Ordering::Release);
        let _ = self.closing.send(true);
        let server = self.server.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(server) = server
            && let Err(error) = server.await
        {
            tracing::debug!(%error, "the HTTP server task ended abnormally");
        }
        self.platform
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        self.inflight.clear();
    }
}

/// The HTTP transport: serves this platform's agents to other platforms and Agora
/// clients, and carries messages to agents on other platforms.
///
/// * **Server**: each local agent is at `/agents/<id>`; each action has a generated
///   protocol document ([`action_protocol`](super::action_protocol)); `/.wellknown`
///   lists the protocol hashes with their sources; `GET /agents` lists the agents (see
///   [`PlatformListing`](super::PlatformListing)). Platform-to-platform messages travel
///   under the tnsai message protocol ([`TNSAI_PROTOCOL_DOCUMENT`](super::TNSAI_PROTOCOL_DOCUMENT)).
/// * **Client**: [`add_peer`](Self::add_peer) reads another platform's listing; the
///   router then sends messages for its agents here (local agents stay in-process), and
///   broadcasts and publications go to every peer, whose answers name the recipients in
///   the [`DeliveryReport`].
///
/// An attribute whose `endpoint` (or `broker`) is an `http(s)://` URL, such as
/// `#[direct_message(transport = Http, endpoint = "http://billing-host:8080")]`, names
/// the base URL of another platform: it becomes a peer when the agent is spawned (or
/// when the transport is created), and its listing is read in the background until it
/// answers.
///
/// `HttpTransport` is a cheap handle (clones share the transport). It adds itself to the
/// platform when created, and closes with [`Platform::shutdown`] or
/// [`shutdown`](Self::shutdown).
///
/// ```
/// use tnsai_coordination::Platform;
/// use tnsai_coordination::transport::http::{HttpConfig, HttpTransport};
/// use tnsai_core::prelude::*;
///
/// #[direct_message]
/// struct Caller;
///
/// #[direct_message]
/// struct Billing;
///
/// #[actions]
/// impl Billing {
///     /// Charges an order.
///     #[action(name = "processOrder")]
///     async fn process_order(&self, params: Params) -> ActionResult {
///         Ok(serde_json::json!({ "orderId": params.require_str("orderId")?, "status": "charged" }))
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Platform::new();
/// server.spawn("billing-agent", Billing).await?;
/// let http = server.serve_http(HttpConfig::new()).await?; // 127.0.0.1, a free port
///
/// let client = Platform::new();
/// let caller = client.spawn("order-agent", Caller).await?;
/// let link = HttpTransport::bind(&client, HttpConfig::new()).await?;
/// link.add_peer(http.url().unwrap()).await?;
///
/// let pm = caller.protocol_manager().unwrap();
/// let reply = pm.execute_action("billing-agent", "processOrder", params! { "orderId" => "7" }).await?;
/// assert_eq!(reply.payload()["status"], "charged");
/// client.shutdown().await;
/// server.shutdown().await;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct HttpTransport {
    shared: Arc<Shared>,
}

impl HttpTransport {
    /// A transport without a listener of its own, added to `platform`: it calls other
    /// platforms, and its [`router`](Self::router) can be served by your own server
    /// (then set [`HttpConfig::public_url`] so that other platforms can call back).
    /// Without a reachable URL, only actions, requests and text work towards other
    /// platforms (their answers come back in the response); debates, and broadcasts
    /// from other platforms, need this platform to be reachable.
    pub fn new(platform: &Platform, config: HttpConfig) -> Self {
        Self::build(platform, config, None)
    }

    fn build(platform: &Platform, config: HttpConfig, local: Option<SocketAddr>) -> Self {
        let shared = Shared::new(platform, config);
        if let Some(local) = local {
            let _ = shared.local_addr.set(local);
            let _ = shared.public_url.set(format!("http://{local}"));
        }
        let transport = Self { shared };
        platform.add_transport(Arc::new(transport.clone()));
        for description in platform.descriptions() {
            transport.shared.declare(&description);
        }
        transport
    }

    /// A transport listening on [`HttpConfig::listen`] (a free loopback port by
    /// default), added to `platform`.
    ///
    /// # Errors
    ///
    /// [`BindError`] when the address cannot be bound or the platform is shut down.
    pub async fn bind(platform: &Platform, config: HttpConfig) -> Result<Self, BindError> {
        if platform.is_shut_down() {
            return Err(BindError::shut_down());
        }
        let address = config.listen;
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| BindError::io(address, e))?;
        let local = listener
            .local_addr()
            .map_err(|e| BindError::io(address, e))?;
        let transport = Self::build(platform, config, Some(local));
        let shared = &transport.shared;
        let app = transport
            .router()
            .into_make_service_with_connect_info::<SocketAddr>();
        let mut closing = shared.closing.subscribe();
        let server = tokio::spawn(async move {
            let stop = async move {
                let _ = closing.wait_for(|closing| *closing).await;
            };
            if let Err(error) = axum::serve(listener, app)
                .with_graceful_shutdown(stop)
                .await
            {
                tracing::error!(%error, "the HTTP server stopped");
            }
        });
        *shared.server.lock().unwrap_or_else(|e| e.into_inner()) = Some(server);
        tracing::info!(url = %shared.public_url().unwrap_or_default(), "HTTP transport listening");
        Ok(transport)
    }

    /// The axum router that serves this platform (what [`bind`](Self::bind) serves), for
    /// mounting in a server of your own (behind TLS, say) or testing in-process.
    pub fn router(&self) -> axum::Router {
        super::server::router(Arc::clone(&self.shared))
    }

    /// The base URL other platforms reach this one at, once known.
    pub fn url(&self) -> Option<&str> {
        self.shared.public_url()
    }

    /// The bound address, for a transport made by [`bind`](Self::bind).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.shared.local_addr.get().copied()
    }

    /// The URL of a local agent (`<base URL>/agents/<id>`), once the base URL is known.
    pub fn agent_url(&self, id: &str) -> Option<String> {
        self.url()
            .map(|base| format!("{base}{}", super::urls::agent_path(id)))
    }

    /// The settings.
    pub fn config(&self) -> &HttpConfig {
        &self.shared.config
    }

    /// Adds the platform at `url` (its base URL, as [`url`](Self::url) gives it) and reads
    /// its listing; returns the ids of its agents. Adding a known peer reads its listing
    /// again.
    ///
    /// # Errors
    ///
    /// [`PeerError`]: an invalid URL (or this platform's own), an unreachable platform,
    /// a refused token, an answer that is not a listing.
    pub async fn add_peer(&self, url: &str) -> Result<Vec<AgentId>, PeerError> {
        self.shared.add_peer(url, None).await
    }

    /// [`add_peer`](Self::add_peer) for a platform that requires tokens: `token` is a
    /// bearer string that platform issued.
    ///
    /// # Errors
    ///
    /// As [`add_peer`](Self::add_peer).
    pub async fn add_peer_with_token(
        &self,
        url: &str,
        token: impl Into<String>,
    ) -> Result<Vec<AgentId>, PeerError> {
        self.shared.add_peer(url, Some(token.into())).await
    }

    /// Reads every peer's listing again (also done every
    /// [`discovery_interval`](HttpConfig::discovery_interval)).
    ///
    /// # Errors
    ///
    /// The first peer that could not be read (all are tried; it keeps its last listing).
    pub async fn refresh(&self) -> Result<(), PeerError> {
        self.shared.refresh_all().await
    }

    /// The base URLs of the known peers, added or learned.
    pub fn peers(&self) -> Vec<String> {
        self.shared
            .peers
            .all()
            .iter()
            .map(|p| p.url.clone())
            .collect()
    }

    /// Every agent the peers' listings name, with its platform's URL.
    pub fn remote_agents(&self) -> BTreeMap<AgentId, String> {
        self.shared.peers.remote_agents()
    }

    /// Issues a bearer token for a client or another platform. Only its hash is kept:
    /// the returned value is the only copy of the secret.
    pub fn issue_token(&self) -> IssuedToken {
        self.shared.tokens.issue()
    }

    /// Revokes a token; `false` when no live token has this id.
    pub fn revoke_token(&self, id: &TokenId) -> bool {
        self.shared.tokens.revoke(id)
    }

    /// How many multi-round conversations are open.
    pub fn open_conversations(&self) -> usize {
        self.shared.conversations.len()
    }

    /// Stops the listener and the discovery task; sends through this transport fail
    /// with `Transport not started` afterwards. [`Platform::shutdown`] does this too.
    pub async fn shutdown(&self) {
        self.shared.close().await;
    }
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("url", &self.url())
            .field("started", &self.shared.is_started())
            .field("peers", &self.peers())
            .finish_non_exhaustive()
    }
}

impl Transport for HttpTransport {
    fn mode(&self) -> TransportMode {
        TransportMode::Http
    }

    fn start(&self) -> BoxFuture<'_, Result<(), TransportError>> {
        let result = if self.shared.platform().is_some() {
            self.shared.started.store(true, Ordering::Release);
            Ok(())
        } else {
            Err(TransportError::not_started())
        };
        Box::pin(std::future::ready(result))
    }

    fn stop(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let shut_down = self.shared.platform().is_none_or(|p| p.is_shut_down());
            if shut_down {
                self.shared.close().await;
            } else {
                self.shared.started.store(false, Ordering::Release);
            }
        })
    }

    fn is_started(&self) -> bool {
        self.shared.is_started()
    }

    fn reaches(&self, agent: &AgentId) -> bool {
        self.shared.is_started()
            && (self.shared.inflight_senders.contains_key(agent)
                || self.shared.peers.find(agent).is_some())
    }

    fn send(&self, message: Message) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(self.shared.send_now(message))
    }

    fn publish(&self, message: Message) -> BoxFuture<'_, DeliveryReport> {
        Box::pin(async move {
            if !self.shared.is_started() {
                return DeliveryReport::default();
            }
            self.shared.publish_remote(message).await
        })
    }

    fn agent_joined(&self, agent: &AgentDescription) -> BoxFuture<'_, ()> {
        self.shared.catalogue.remove(&agent.id);
        if self.shared.is_started() {
            self.shared.declare(agent);
        }
        Box::pin(std::future::ready(()))
    }

    fn agent_left(&self, agent: &AgentId) -> BoxFuture<'_, ()> {
        self.shared.catalogue.remove(agent);
        Box::pin(std::future::ready(()))
    }
}

impl Platform {
    /// Serves this platform over HTTP (the Agora wire format) and returns the transport:
    /// [`HttpTransport::bind`] with `config`.
    ///
    /// # Errors
    ///
    /// [`BindError`] when the address cannot be bound or the platform is shut down.
    pub async fn serve_http(&self, config: HttpConfig) -> Result<HttpTransport, BindError> {
        HttpTransport::bind(self, config).await
    }
}
