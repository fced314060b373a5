//! The hub itself: its state, the operations the routes call, its background tasks,
//! and starting and stopping it.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use chrono::Utc;
use tnsai_core::{Message, MessageId, MessageKind};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::auth::{DeviceToken, InviteCode};
use crate::config::{HubConfig, Limits};
use crate::delivery::{Attached, Live};
use crate::identity::{
    Identity, MAX_DESCRIPTION_LEN, MAX_PROJECT_LEN, validate_label, validate_name,
};
use crate::ratelimit::RateLimiter;
use crate::server::ApiError;
use crate::store::{
    self, Authenticated, Claim, DeviceRecord, QueueLimits, Redeemed, RevokeError, Store,
    StoreError, now_ms,
};
use crate::wire::{
    AgentInfo, DeliveryStatus, PairRequest, PairResponse, RefusalCode, Registration, SendReceipt,
    SendRequest, ServerFrame,
};

/// Starting or running the hub failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The database could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The listen address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: String,
        /// The failure.
        source: std::io::Error,
    },
    /// The server stopped with an I/O error.
    #[error("server failed: {0}")]
    Io(#[source] std::io::Error),
}

/// A device that proved its token.
#[derive(Debug, Clone)]
pub(crate) struct Device {
    pub(crate) id: String,
    pub(crate) name: String,
}

/// The agent hub: cheap to clone; clones share one state.
///
/// Build one with [`Hub::open`], then [`Hub::serve`] it on a listener or
/// [`Hub::start`] it on an address.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    live: Live,
    limits: Limits,
    rate: RateLimiter,
    shutdown: watch::Sender<bool>,
    /// Devices known to be revoked, refreshed when the database changes.
    revoked: Mutex<std::collections::HashSet<String>>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("limits", &self.inner.limits)
            .finish_non_exhaustive()
    }
}

impl Hub {
    /// Opens the hub's database under `config.data_dir`.
    pub fn open(config: HubConfig) -> Result<Self, StoreError> {
        let store = Store::open(&config.data_dir)?;
        let limits = config.limits;
        let (shutdown, _) = watch::channel(false);
        Ok(Self {
            inner: Arc::new(Inner {
                store,
                live: Live::default(),
                rate: RateLimiter::new(limits.rate_per_second, limits.rate_burst),
                limits,
                shutdown,
                revoked: Mutex::new(Default::default()),
            }),
        })
    }

    /// The database, for administration (invites, revocation, devices).
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// The axum router serving this hub (HTTP routes and the WebSocket upgrade),
    /// for embedding it in another server or calling it in tests.
    pub fn router(&self) -> axum::Router {
        crate::server::router(self.clone())
    }

    pub(crate) fn live(&self) -> &Live {
        &self.inner.live
    }

    fn queue_limits(&self) -> QueueLimits {
        QueueLimits {
            cap: self.inner.limits.queue_cap.max(1),
            age: self.inner.limits.queue_age,
        }
    }

    pub(crate) fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.inner.shutdown.subscribe()
    }

    /// Makes a one-time invite code valid for `ttl`.
    pub async fn invite(&self, ttl: std::time::Duration) -> Result<InviteCode, StoreError> {
        let store = self.inner.store.clone();
        tokio::task::spawn_blocking(move || store.create_invite(ttl))
            .await
            .map_err(|e| StoreError::Task(e.to_string()))?
    }

    /// Revokes a device: its token stops working and its connections close now.
    pub async fn revoke(&self, device: &str) -> Result<DeviceRecord, RevokeError> {
        let store = self.inner.store.clone();
        let name = device.to_owned();
        let record = tokio::task::spawn_blocking(move || store.revoke_device(&name))
            .await
            .map_err(|e| StoreError::Task(e.to_string()))??;
        self.lock_revoked().insert(record.id.clone());
        self.inner.live.close_devices(|d| d == record.id);
        Ok(record)
    }

    fn lock_revoked(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.inner.revoked.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Serves HTTP and WebSocket on `listener` until [`RunningHub::shutdown`] (or
    /// forever), with the expiry sweeper and the revocation watcher running beside.
    pub async fn serve(self, listener: TcpListener) -> Result<(), ServeError> {
        let sweeper = tokio::spawn(self.clone().sweep_loop());
        let watcher = tokio::spawn(self.clone().revocation_loop());
        let mut stop = self.shutdown_signal();
        let app = self.router();
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                // Also ends when every sender is gone, which means the hub is gone.
                let _ = stop.wait_for(|stopped| *stopped).await;
            })
            .await;
        sweeper.abort();
        watcher.abort();
        served.map_err(ServeError::Io)
    }

    /// Binds `addr` (port 0 picks a free port) and serves in a background task.
    pub async fn start(self, addr: &str) -> Result<RunningHub, ServeError> {
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind {
                addr: addr.to_owned(),
                source,
            })?;
        let local = listener.local_addr().map_err(|source| ServeError::Bind {
            addr: addr.to_owned(),
            source,
        })?;
        let task = tokio::spawn(self.clone().serve(listener));
        Ok(RunningHub {
            hub: self,
            addr: local,
            task,
        })
    }

    async fn sweep_loop(self) {
        let mut tick = tokio::time::interval(self.inner.limits.sweep_interval);
        loop {
            tick.tick().await;
            let limits = self.queue_limits();
            match self
                .inner
                .store
                .call(move |c| store::expire(c, limits, now_ms()))
                .await
            {
                Ok(drops) => {
                    for sender in drops.notified() {
                        self.inner.live.wake(sender);
                    }
                }
                Err(e) => tracing::error!(error = %e, "expiry sweep failed"),
            }
        }
    }

    /// `tnsai hub revoke` writes to the database from another process; this notices
    /// (SQLite's `data_version` changes) and closes the revoked devices' connections.
    async fn revocation_loop(self) {
        let mut tick = tokio::time::interval(self.inner.limits.revocation_poll);
        let mut seen_version = None;
        loop {
            tick.tick().await;
            let result = self
                .inner
                .store
                .call(move |c| {
                    let version = store::data_version(c)?;
                    if seen_version == Some(version) {
                        return Ok((version, None));
                    }
                    Ok((version, Some(store::revoked_devices(c)?)))
                })
                .await;
            match result {
                Ok((version, fresh)) => {
                    seen_version = Some(version);
                    if let Some(fresh) = fresh {
                        *self.lock_revoked() = fresh;
                    }
                }
                Err(e) => tracing::error!(error = %e, "revocation check failed"),
            }
            // Checked every tick, so a connection that registered while its device
            // was being revoked is closed too.
            let revoked = self.lock_revoked().clone();
            let closed = self.inner.live.close_devices(|d| revoked.contains(d));
            if closed > 0 {
                tracing::info!(closed, "closed connections of revoked devices");
            }
        }
    }

    pub(crate) async fn pair(&self, request: PairRequest) -> Result<PairResponse, ApiError> {
        validate_name("device name", &request.device)
            .map_err(|e| ApiError::new(RefusalCode::InvalidRequest, e.to_string()))?;
        let code = InviteCode::new(&request.code);
        let device = request.device.clone();
        let outcome = self
            .inner
            .store
            .call(move |c| store::redeem_invite(c, &code, &device, now_ms()))
            .await?;
        match outcome {
            Redeemed::Paired { device_id, token } => {
                tracing::info!(device = %request.device, %device_id, "device paired");
                Ok(PairResponse {
                    device_id,
                    device: request.device,
                    token,
                })
            }
            Redeemed::Unknown => Err(ApiError::new(
                RefusalCode::InviteInvalid,
                "this invite code is not valid",
            )),
            Redeemed::Expired => Err(ApiError::new(
                RefusalCode::InviteExpired,
                "this invite code has expired; ask for a new one",
            )),
            Redeemed::Used => Err(ApiError::new(
                RefusalCode::InviteUsed,
                "this invite code was already used",
            )),
            Redeemed::NameTaken => Err(ApiError::new(
                RefusalCode::DeviceNameTaken,
                format!(
                    "a device named {:?} is already paired; pick another name",
                    request.device
                ),
            )),
        }
    }

    pub(crate) async fn authenticate(&self, token: DeviceToken) -> Result<Device, ApiError> {
        let outcome = self
            .inner
            .store
            .call(move |c| store::authenticate(c, &token))
            .await?;
        let device = match outcome {
            Authenticated::Device { id, name } => Device { id, name },
            Authenticated::Revoked => {
                return Err(ApiError::new(
                    RefusalCode::DeviceRevoked,
                    "this device was revoked; pair it again with a new invite",
                ));
            }
            Authenticated::Invalid => {
                return Err(ApiError::new(
                    RefusalCode::Unauthorized,
                    "missing or invalid device token",
                ));
            }
        };
        if let Err(wait) = self.inner.rate.check(&device.id, Instant::now()) {
            return Err(ApiError::rate_limited(wait));
        }
        Ok(device)
    }

    pub(crate) async fn send(
        &self,
        device: &Device,
        request: SendRequest,
    ) -> Result<SendReceipt, ApiError> {
        let limits = &self.inner.limits;
        if request.content.len() > limits.max_content_bytes {
            return Err(ApiError::new(
                RefusalCode::TooLarge,
                format!(
                    "content is {} bytes; the limit is {}",
                    request.content.len(),
                    limits.max_content_bytes
                ),
            ));
        }
        let context = request.context.unwrap_or_default();
        let context_len = serde_json::to_string(&context).map_or(usize::MAX, |s| s.len());
        if context_len > limits.max_context_bytes {
            return Err(ApiError::new(
                RefusalCode::TooLarge,
                format!(
                    "context is {context_len} bytes of JSON; the limit is {}",
                    limits.max_context_bytes
                ),
            ));
        }
        let to: Identity = request
            .to
            .parse()
            .map_err(|e: crate::identity::NameError| {
                ApiError::new(RefusalCode::InvalidRequest, e.to_string())
            })?;
        let device_id = device.id.clone();
        let recipient = to.clone();
        let (mine, known) = self
            .inner
            .store
            .call(move |c| {
                Ok((
                    store::device_agents(c, &device_id)?,
                    store::agent_known(c, &recipient)?,
                ))
            })
            .await?;
        let sender = choose_sender(&mine, request.from.as_deref())?;
        if !known {
            return Err(ApiError::new(
                RefusalCode::UnknownRecipient,
                format!("no agent {to} has ever registered on this hub"),
            ));
        }
        let mut builder = Message::builder(MessageKind::Text, &sender).receiver(&to);
        builder = builder.content(request.content);
        for (key, value) in context {
            builder = builder.context(key, value);
        }
        let message = builder.build();
        let receipt_id: MessageId = message.id();
        let timestamp = message.timestamp();
        let queue = self.queue_limits();
        let recipient = to.to_string();
        let stored = message.clone();
        let drops = self
            .inner
            .store
            .call(move |c| {
                store::enqueue(c, &stored, &recipient, queue, timestamp.timestamp_millis())
            })
            .await?;
        let live = self.inner.live.wake(&to.to_string());
        for notified in drops.notified() {
            self.inner.live.wake(notified);
        }
        tracing::info!(message = %receipt_id, from = %sender, to = %to, live, "message accepted");
        Ok(SendReceipt {
            id: receipt_id,
            status: if live {
                DeliveryStatus::Live
            } else {
                DeliveryStatus::Queued
            },
            sender: sender.to_string(),
            timestamp,
            dropped: drops.dropped,
        })
    }

    pub(crate) fn list(&self, project: Option<&str>) -> Vec<AgentInfo> {
        self.inner.live.online(project)
    }

    /// Claims the identity for the device and makes this connection its live one.
    pub(crate) async fn register(
        &self,
        device: &Device,
        registration: Registration,
    ) -> Result<(Identity, Attached, ServerFrame), ApiError> {
        let invalid = |e: crate::identity::NameError| {
            ApiError::new(RefusalCode::InvalidRequest, e.to_string())
        };
        let owner = registration.owner.unwrap_or_else(|| device.name.clone());
        let identity = Identity::new(owner, registration.name).map_err(invalid)?;
        let project = registration.project.filter(|p| !p.is_empty());
        let description = registration.description.filter(|d| !d.is_empty());
        if let Some(p) = &project {
            validate_label("project", p, MAX_PROJECT_LEN).map_err(invalid)?;
        }
        if let Some(d) = &description {
            validate_label("description", d, MAX_DESCRIPTION_LEN).map_err(invalid)?;
        }
        let (device_id, id2, p2, d2) = (
            device.id.clone(),
            identity.clone(),
            project.clone(),
            description.clone(),
        );
        let queue = self.queue_limits();
        let recipient = identity.to_string();
        let (claim, pending) = self
            .inner
            .store
            .call(move |c| {
                let claim = store::claim_agent(
                    c,
                    &device_id,
                    &id2,
                    p2.as_deref(),
                    d2.as_deref(),
                    now_ms(),
                )?;
                let pending = store::pending_count(c, &recipient, queue, now_ms())?;
                Ok((claim, pending))
            })
            .await?;
        if let Claim::Taken { device: holder } = claim {
            return Err(ApiError::new(
                RefusalCode::NameTaken,
                format!("{identity} belongs to device {holder:?}; choose another name or owner"),
            ));
        }
        let info = AgentInfo {
            agent: identity.to_string(),
            owner: identity.owner().to_owned(),
            name: identity.name().to_owned(),
            project,
            description,
            device: device.name.clone(),
            connected_at: Utc::now(),
        };
        let attached = self.inner.live.attach(&device.id, info.clone());
        if self.lock_revoked().contains(&device.id) {
            self.inner.live.close_devices(|d| d == device.id);
        }
        let online = self
            .inner
            .live
            .online(None)
            .into_iter()
            .filter(|a| a.agent != info.agent)
            .collect();
        tracing::info!(agent = %identity, device = %device.name, "agent connected");
        Ok((
            identity,
            attached,
            ServerFrame::Registered {
                agent: info,
                online,
                pending,
            },
        ))
    }

    pub(crate) async fn pending(
        &self,
        recipient: &Identity,
        after_seq: i64,
        batch: usize,
    ) -> Result<Vec<(i64, Message)>, StoreError> {
        let recipient = recipient.to_string();
        let queue = self.queue_limits();
        self.inner
            .store
            .call(move |c| store::pending(c, &recipient, after_seq, queue, now_ms(), batch))
            .await
    }

    pub(crate) async fn ack(
        &self,
        recipient: &Identity,
        ids: Vec<MessageId>,
    ) -> Result<usize, StoreError> {
        let recipient = recipient.to_string();
        self.inner
            .store
            .call(move |c| store::ack(c, &recipient, &ids))
            .await
    }
}

/// Applies the `--from` rules to the device's agents.
fn choose_sender(mine: &[Identity], from: Option<&str>) -> Result<Identity, ApiError> {
    if mine.is_empty() {
        return Err(ApiError::new(
            RefusalCode::NoAgent,
            "this device has no registered agent; run `tnsai connect --name <agent>` first",
        ));
    }
    let Some(from) = from else {
        return match mine {
            [only] => Ok(only.clone()),
            _ => Err(ApiError::new(
                RefusalCode::FromRequired,
                format!(
                    "this device has several agents ({}); say which one sends with --from",
                    join(mine)
                ),
            )),
        };
    };
    let matches: Vec<&Identity> = if from.contains('/') {
        mine.iter().filter(|a| a.to_string() == from).collect()
    } else {
        mine.iter().filter(|a| a.name() == from).collect()
    };
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ApiError::new(
            RefusalCode::NotYourAgent,
            format!(
                "{from:?} is not an agent of this device (its agents: {})",
                join(mine)
            ),
        )),
        _ => Err(ApiError::new(
            RefusalCode::FromRequired,
            format!("{from:?} is ambiguous here; use owner/name"),
        )),
    }
}

fn join(agents: &[Identity]) -> String {
    agents
        .iter()
        .map(Identity::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A hub serving in a background task.
#[derive(Debug)]
pub struct RunningHub {
    hub: Hub,
    addr: SocketAddr,
    task: JoinHandle<Result<(), ServeError>>,
}

impl RunningHub {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL clients use, `http://<addr>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The hub.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// Stops accepting, closes every WebSocket (close code 1001) and waits for the
    /// server task to end.
    pub async fn shutdown(self) -> Result<(), ServeError> {
        self.hub.inner.shutdown.send_replace(true);
        match self.task.await {
            Ok(result) => result,
            Err(e) => Err(ServeError::Io(std::io::Error::other(e.to_string()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<Identity> {
        list.iter().map(|s| s.parse().unwrap()).collect()
    }

    #[test]
    fn from_rules() {
        let code = |mine: &[&str], from: Option<&str>| {
            choose_sender(&ids(mine), from).map_err(|e| e.code())
        };
        assert_eq!(code(&[], None).unwrap_err(), RefusalCode::NoAgent);
        assert_eq!(code(&[], Some("x")).unwrap_err(), RefusalCode::NoAgent);
        assert_eq!(code(&["a/x"], None).unwrap().to_string(), "a/x");
        assert_eq!(code(&["a/x"], Some("x")).unwrap().to_string(), "a/x");
        assert_eq!(code(&["a/x"], Some("a/x")).unwrap().to_string(), "a/x");
        assert_eq!(
            code(&["a/x"], Some("y")).unwrap_err(),
            RefusalCode::NotYourAgent
        );
        assert_eq!(
            code(&["a/x"], Some("b/x")).unwrap_err(),
            RefusalCode::NotYourAgent
        );
        assert_eq!(
            code(&["a/x", "a/y"], None).unwrap_err(),
            RefusalCode::FromRequired
        );
        assert_eq!(code(&["a/x", "a/y"], Some("y")).unwrap().to_string(), "a/y");
        assert_eq!(
            code(&["a/x", "b/x"], Some("x")).unwrap_err(),
            RefusalCode::FromRequired
        );
        assert_eq!(
            code(&["a/x", "b/x"], Some("b/x")).unwrap().to_string(),
            "b/x"
        );
    }
}
