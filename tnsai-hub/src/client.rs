//! The code the CLI uses to talk to a hub: [`HubClient`] for pairing, sending and
//! listing over HTTP, [`Session`] for one WebSocket connection, and [`listen`], the
//! loop behind `tnsai connect` (write to the inbox, then show, then acknowledge;
//! reconnect when the connection drops).

use std::future::Future;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::Url;
use reqwest::header::{AUTHORIZATION, HeaderValue};
use serde::de::DeserializeOwned;
use tnsai_core::{Message, MessageId};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message as WsMessage};

use crate::auth::DeviceToken;
use crate::inbox::{Appended, Inbox, InboxError};
use crate::wire::{
    AgentInfo, AgentList, CLOSE_GOING_AWAY, CLOSE_PROTOCOL, CLOSE_REPLACED, CLOSE_REVOKED,
    ClientFrame, ErrorBody, PairRequest, PairResponse, PresenceEvent, Refusal, RefusalCode,
    Registration, SendReceipt, SendRequest, ServerFrame,
};

/// What kind of failure a client operation met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RequestErrorKind {
    /// The hub refused, with this code.
    Refused(RefusalCode),
    /// The hub could not be reached.
    Unreachable,
    /// The hub's answer was not understood.
    InvalidResponse,
    /// The hub URL is not usable.
    InvalidUrl,
}

/// The part of every client error that is the same for every operation.
#[derive(Debug)]
enum Failure {
    Refused { status: u16, refusal: Refusal },
    Unreachable(reqwest::Error),
    InvalidResponse(String),
    InvalidUrl(String),
}

macro_rules! request_error {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, thiserror::Error)]
        #[non_exhaustive]
        pub enum $name {
            /// The hub answered with a refusal.
            #[error("the hub refused (HTTP {status}): {refusal}")]
            Refused {
                /// The HTTP status.
                status: u16,
                /// The hub's refusal.
                refusal: Refusal,
            },
            /// The hub could not be reached (or did not answer in time).
            #[error("cannot reach the hub: {0}")]
            Unreachable(#[source] reqwest::Error),
            /// The hub's answer could not be understood.
            #[error("unexpected answer from the hub: {0}")]
            InvalidResponse(String),
            /// The hub URL is not an `http` or `https` URL.
            #[error("invalid hub URL {0:?}: use http://host:port or https://host")]
            InvalidUrl(String),
        }

        impl $name {
            /// What kind of failure this is.
            pub fn kind(&self) -> RequestErrorKind {
                match self {
                    Self::Refused { refusal, .. } => RequestErrorKind::Refused(refusal.code),
                    Self::Unreachable(_) => RequestErrorKind::Unreachable,
                    Self::InvalidResponse(_) => RequestErrorKind::InvalidResponse,
                    Self::InvalidUrl(_) => RequestErrorKind::InvalidUrl,
                }
            }

            /// The hub's refusal, when it refused.
            pub fn refusal(&self) -> Option<&Refusal> {
                match self {
                    Self::Refused { refusal, .. } => Some(refusal),
                    _ => None,
                }
            }
        }

        impl From<Failure> for $name {
            fn from(failure: Failure) -> Self {
                match failure {
                    Failure::Refused { status, refusal } => Self::Refused { status, refusal },
                    Failure::Unreachable(e) => Self::Unreachable(e),
                    Failure::InvalidResponse(e) => Self::InvalidResponse(e),
                    Failure::InvalidUrl(e) => Self::InvalidUrl(e),
                }
            }
        }
    };
}

request_error! {
    /// `tnsai pair` failed.
    PairError
}
request_error! {
    /// `tnsai send` failed.
    SendError
}
request_error! {
    /// `tnsai list` failed.
    ListError
}

/// Opening a WebSocket session failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The hub refused the upgrade (`status` set) or the registration (error frame).
    #[error("the hub refused the connection: {refusal}")]
    Refused {
        /// The HTTP status of a refused upgrade.
        status: Option<u16>,
        /// The hub's refusal.
        refusal: Refusal,
    },
    /// The hub could not be reached.
    #[error("cannot reach the hub: {0}")]
    Unreachable(String),
    /// The hub spoke something other than the hub protocol.
    #[error("unexpected answer from the hub: {0}")]
    InvalidResponse(String),
    /// The hub URL is not usable.
    #[error("invalid hub URL {0:?}: use http://host:port or https://host")]
    InvalidUrl(String),
}

impl ConnectError {
    /// What kind of failure this is.
    pub fn kind(&self) -> RequestErrorKind {
        match self {
            ConnectError::Refused { refusal, .. } => RequestErrorKind::Refused(refusal.code),
            ConnectError::Unreachable(_) => RequestErrorKind::Unreachable,
            ConnectError::InvalidResponse(_) => RequestErrorKind::InvalidResponse,
            ConnectError::InvalidUrl(_) => RequestErrorKind::InvalidUrl,
        }
    }

    /// Worth retrying: the hub is away, busy or failing, not refusing this device.
    fn is_transient(&self) -> bool {
        match self.kind() {
            RequestErrorKind::Unreachable => true,
            RequestErrorKind::Refused(code) => matches!(
                code,
                RefusalCode::RateLimited | RefusalCode::Internal | RefusalCode::Unknown
            ),
            _ => false,
        }
    }
}

fn base_url(hub_url: &str) -> Result<Url, Failure> {
    let invalid = || Failure::InvalidUrl(hub_url.to_owned());
    let mut url = Url::parse(hub_url.trim()).map_err(|_| invalid())?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(invalid());
    }
    url.set_query(None);
    url.set_fragment(None);
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

fn http_client() -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap_or_default()
}

async fn answer<T: DeserializeOwned>(
    sent: Result<reqwest::Response, reqwest::Error>,
) -> Result<T, Failure> {
    let response = sent.map_err(Failure::Unreachable)?;
    let status = response.status();
    let body = response.bytes().await.map_err(Failure::Unreachable)?;
    if status.is_success() {
        return serde_json::from_slice(&body).map_err(|e| Failure::InvalidResponse(e.to_string()));
    }
    Err(refusal_from(status.as_u16(), &body))
}

fn refusal_from(status: u16, body: &[u8]) -> Failure {
    match serde_json::from_slice::<ErrorBody>(body) {
        Ok(ErrorBody { error }) => Failure::Refused {
            status,
            refusal: error,
        },
        Err(_) => Failure::InvalidResponse(format!(
            "HTTP {status}: {}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        )),
    }
}

/// A paired device's handle on its hub.
#[derive(Debug, Clone)]
pub struct HubClient {
    base: Url,
    token: DeviceToken,
    http: reqwest::Client,
}

/// The hub's answer to a registration.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Registered {
    /// This agent as others see it.
    pub agent: AgentInfo,
    /// The other agents online.
    pub online: Vec<AgentInfo>,
    /// Queued messages about to arrive.
    pub pending: u64,
}

impl HubClient {
    /// A client for the hub at `hub_url` using `token`.
    pub fn new(hub_url: &str, token: DeviceToken) -> Result<Self, ConnectError> {
        let base = base_url(hub_url).map_err(|_| ConnectError::InvalidUrl(hub_url.to_owned()))?;
        Ok(Self {
            base,
            token,
            http: http_client(),
        })
    }

    /// Trades an invite `code` for a device token, naming the device `device`.
    pub async fn pair(hub_url: &str, code: &str, device: &str) -> Result<PairResponse, PairError> {
        let url = base_url(hub_url)?
            .join("v1/pair")
            .map_err(|_| PairError::InvalidUrl(hub_url.to_owned()))?;
        let request = PairRequest {
            code: code.to_owned(),
            device: device.to_owned(),
        };
        Ok(answer(http_client().post(url).json(&request).send().await).await?)
    }

    fn endpoint(&self, path: &str) -> Result<Url, Failure> {
        self.base
            .join(path)
            .map_err(|_| Failure::InvalidUrl(self.base.to_string()))
    }

    fn bearer(&self) -> HeaderValue {
        let mut value = HeaderValue::from_str(&format!("Bearer {}", self.token.expose()))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer invalid"));
        value.set_sensitive(true);
        value
    }

    /// Sends a message; the hub stamps its id, time and sender.
    pub async fn send(&self, request: &SendRequest) -> Result<SendReceipt, SendError> {
        let url = self.endpoint("v1/messages")?;
        let sent = self
            .http
            .post(url)
            .header(AUTHORIZATION, self.bearer())
            .json(request)
            .send()
            .await;
        Ok(answer(sent).await?)
    }

    /// The agents online now, optionally of one project.
    pub async fn list(&self, project: Option<&str>) -> Result<Vec<AgentInfo>, ListError> {
        let mut url = self.endpoint("v1/agents")?;
        if let Some(project) = project {
            url.query_pairs_mut().append_pair("project", project);
        }
        let sent = self
            .http
            .get(url)
            .header(AUTHORIZATION, self.bearer())
            .send()
            .await;
        let list: AgentList = answer(sent).await?;
        Ok(list.agents)
    }

    /// Opens a WebSocket, registers the agent and waits for the hub's answer.
    pub async fn open_session(&self, registration: &Registration) -> Result<Session, ConnectError> {
        let mut url = self
            .base
            .join("v1/connect")
            .map_err(|_| ConnectError::InvalidUrl(self.base.to_string()))?;
        let scheme = if url.scheme() == "https" { "wss" } else { "ws" };
        url.set_scheme(scheme)
            .map_err(|()| ConnectError::InvalidUrl(self.base.to_string()))?;
        let mut request = url
            .as_str()
            .into_client_request()
            .map_err(|e| ConnectError::InvalidUrl(e.to_string()))?;
        request.headers_mut().insert(AUTHORIZATION, self.bearer());
        let config = WebSocketConfig::default()
            .max_message_size(Some(MAX_FRAME))
            .max_frame_size(Some(MAX_FRAME));
        let connecting = tokio_tungstenite::connect_async_with_config(request, Some(config), true);
        let (mut ws, _) = match tokio::time::timeout(Duration::from_secs(15), connecting).await {
            Err(_) => return Err(ConnectError::Unreachable("timed out".into())),
            Ok(Ok(connected)) => connected,
            Ok(Err(tungstenite::Error::Http(response))) => {
                let status = response.status().as_u16();
                let body = response.body().as_deref().unwrap_or_default();
                return Err(match refusal_from(status, body) {
                    Failure::Refused { status, refusal } => ConnectError::Refused {
                        status: Some(status),
                        refusal,
                    },
                    other => ConnectError::InvalidResponse(format!("{other:?}")),
                });
            }
            Ok(Err(e)) => return Err(ConnectError::Unreachable(e.to_string())),
        };
        let frame = serde_json::to_string(&ClientFrame::Register(registration.clone()))
            .map_err(|e| ConnectError::InvalidResponse(e.to_string()))?;
        ws.send(WsMessage::Text(frame.into()))
            .await
            .map_err(|e| ConnectError::Unreachable(e.to_string()))?;
        let mut session = Frames {
            ws,
            last_error: None,
        };
        loop {
            match session.next_frame().await {
                Ok(ServerFrame::Registered {
                    agent,
                    online,
                    pending,
                }) => {
                    let registered = Registered {
                        agent,
                        online,
                        pending,
                    };
                    return Ok(session.with(registered));
                }
                // Presence may race ahead of the answer; the answer's list covers it.
                Ok(ServerFrame::Presence { .. }) => continue,
                Ok(other) => {
                    return Err(ConnectError::InvalidResponse(format!(
                        "expected a registration answer, got {other:?}"
                    )));
                }
                Err(SessionError::Closed {
                    refusal: Some(refusal),
                    ..
                }) => {
                    return Err(ConnectError::Refused {
                        status: None,
                        refusal,
                    });
                }
                Err(e) => return Err(ConnectError::Unreachable(e.to_string())),
            }
        }
    }
}

/// The hub pings every 30 s; this long without any frame means the connection is dead
/// even though no error was seen (a vanished network), so `listen` reconnects.
const SILENCE_LIMIT: Duration = Duration::from_secs(95);

/// The largest frame the client accepts; a hub's frames are far smaller.
const MAX_FRAME: usize = 4 << 20;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Something that arrived on a session.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionEvent {
    /// A message; acknowledge it with [`Session::ack`] once it is stored.
    Message(Message),
    /// Another agent came online or went offline.
    Presence {
        /// Online or offline.
        event: PresenceEvent,
        /// The agent.
        agent: AgentInfo,
    },
}

/// Why a session ended.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The hub closed the connection (`code` is the close code when one was sent).
    #[error("the hub closed the connection{}", .refusal.as_ref().map(|r| format!(": {r}")).unwrap_or_default())]
    Closed {
        /// The WebSocket close code.
        code: Option<u16>,
        /// The hub's reason, from its error frame.
        refusal: Option<Refusal>,
    },
    /// The connection broke.
    #[error("connection lost: {0}")]
    Lost(String),
    /// The hub sent something that is not a hub frame.
    #[error("unexpected frame from the hub: {0}")]
    Protocol(String),
}

/// What kind of [`SessionError`] this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SessionErrorKind {
    /// A newer connection registered the same agent.
    Replaced,
    /// The device was revoked.
    Revoked,
    /// The hub is shutting down or restarting.
    HubGoingAway,
    /// The hub closed the connection for another reason (see the refusal).
    Closed,
    /// The connection broke.
    Lost,
    /// The hub broke the protocol.
    Protocol,
}

impl SessionError {
    /// What kind of ending this is.
    pub fn kind(&self) -> SessionErrorKind {
        match self {
            SessionError::Closed { code, refusal } => {
                match (code, refusal.as_ref().map(|r| r.code)) {
                    (Some(CLOSE_REPLACED), _) | (_, Some(RefusalCode::Replaced)) => {
                        SessionErrorKind::Replaced
                    }
                    (Some(CLOSE_REVOKED), _) | (_, Some(RefusalCode::DeviceRevoked)) => {
                        SessionErrorKind::Revoked
                    }
                    (Some(CLOSE_GOING_AWAY), _) | (None, None) => SessionErrorKind::HubGoingAway,
                    _ => SessionErrorKind::Closed,
                }
            }
            SessionError::Lost(_) => SessionErrorKind::Lost,
            SessionError::Protocol(_) => SessionErrorKind::Protocol,
        }
    }
}

/// The frames of one WebSocket connection.
struct Frames {
    ws: Ws,
    last_error: Option<Refusal>,
}

/// One registered WebSocket connection to the hub, with the hub's registration answer.
pub struct Session {
    session: Frames,
    registered: Registered,
}

impl std::fmt::Debug for Frames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frames").finish_non_exhaustive()
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("registered", &self.registered)
            .finish_non_exhaustive()
    }
}

impl Frames {
    fn with(self, registered: Registered) -> Session {
        Session {
            session: self,
            registered,
        }
    }

    async fn next_frame(&mut self) -> Result<ServerFrame, SessionError> {
        loop {
            let next = tokio::time::timeout(SILENCE_LIMIT, self.ws.next()).await;
            let Ok(next) = next else {
                return Err(SessionError::Lost(format!(
                    "nothing heard from the hub for {} s",
                    SILENCE_LIMIT.as_secs()
                )));
            };
            let message = match next {
                None => {
                    return Err(SessionError::Closed {
                        code: None,
                        refusal: self.last_error.take(),
                    });
                }
                Some(Err(e)) => return Err(SessionError::Lost(e.to_string())),
                Some(Ok(message)) => message,
            };
            let text = match message {
                WsMessage::Text(text) => text,
                WsMessage::Close(frame) => {
                    return Err(SessionError::Closed {
                        code: frame.map(|f| u16::from(f.code)),
                        refusal: self.last_error.take(),
                    });
                }
                WsMessage::Ping(_) | WsMessage::Pong(_) | WsMessage::Frame(_) => continue,
                WsMessage::Binary(_) => {
                    return Err(SessionError::Protocol("binary frame".into()));
                }
            };
            match serde_json::from_str::<ServerFrame>(text.as_str()) {
                Ok(ServerFrame::Error { error }) => {
                    // The close frame follows; keep the reason for it.
                    self.last_error = Some(error);
                }
                Ok(frame) => return Ok(frame),
                Err(e) => return Err(SessionError::Protocol(e.to_string())),
            }
        }
    }
}

impl Session {
    /// The hub's registration answer.
    pub fn registered(&self) -> &Registered {
        &self.registered
    }

    /// The next message or presence notice; an error when the session ended.
    pub async fn next_event(&mut self) -> Result<SessionEvent, SessionError> {
        loop {
            match self.session.next_frame().await? {
                ServerFrame::Message { message } => return Ok(SessionEvent::Message(message)),
                ServerFrame::Presence { event, agent } => {
                    return Ok(SessionEvent::Presence { event, agent });
                }
                ServerFrame::Registered { .. } => {
                    return Err(SessionError::Protocol(
                        "a second registration answer".into(),
                    ));
                }
                ServerFrame::Error { .. } => continue,
            }
        }
    }

    /// Acknowledges messages: the hub deletes them. Call only once they are stored.
    pub async fn ack(&mut self, ids: &[MessageId]) -> Result<(), SessionError> {
        let frame = serde_json::to_string(&ClientFrame::Ack { ids: ids.to_vec() })
            .map_err(|e| SessionError::Protocol(e.to_string()))?;
        self.session
            .ws
            .send(WsMessage::Text(frame.into()))
            .await
            .map_err(|e| SessionError::Lost(e.to_string()))
    }

    /// Sends a raw text frame; for testing how the hub treats bad input.
    pub async fn send_raw(&mut self, text: &str) -> Result<(), SessionError> {
        self.session
            .ws
            .send(WsMessage::Text(text.to_owned().into()))
            .await
            .map_err(|e| SessionError::Lost(e.to_string()))
    }

    /// Closes the connection politely.
    pub async fn close(mut self) {
        let _ = self.session.ws.close(None).await;
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            while let Some(Ok(_)) = self.session.ws.next().await {}
        })
        .await;
    }
}

/// What [`listen`] reports as it goes.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ListenEvent {
    /// Registered (again); the queued messages follow.
    Connected(Registered),
    /// A new message, now in the inbox.
    Message(Message),
    /// A message the inbox already had (delivered again because its acknowledgement
    /// was lost); not shown again, acknowledged again.
    Duplicate(MessageId),
    /// Another agent came online or went offline.
    Presence {
        /// Online or offline.
        event: PresenceEvent,
        /// The agent.
        agent: AgentInfo,
    },
    /// The connection dropped; retrying after `retry_in`.
    Disconnected {
        /// Why.
        reason: String,
        /// The pause before the next attempt.
        retry_in: Duration,
    },
}

/// Why [`listen`] gave up.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ListenError {
    /// A newer connection registered the same agent.
    #[error("replaced: another connection registered this agent")]
    Replaced,
    /// The device was revoked.
    #[error("this device was revoked")]
    Revoked,
    /// The hub refused the connection or the registration.
    #[error(transparent)]
    Refused(ConnectError),
    /// The hub closed the session for a reason that retrying will not fix.
    #[error(transparent)]
    Session(SessionError),
    /// The inbox could not be written; unacknowledged messages stay on the hub.
    #[error(transparent)]
    Inbox(#[from] InboxError),
}

/// What kind of [`ListenError`] this is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ListenErrorKind {
    /// Replaced by a newer connection.
    Replaced,
    /// Device revoked.
    Revoked,
    /// Refused by the hub.
    Refused,
    /// Session closed for good.
    Session,
    /// Inbox failure.
    Inbox,
}

impl ListenError {
    /// What kind of failure this is.
    pub fn kind(&self) -> ListenErrorKind {
        match self {
            ListenError::Replaced => ListenErrorKind::Replaced,
            ListenError::Revoked => ListenErrorKind::Revoked,
            ListenError::Refused(_) => ListenErrorKind::Refused,
            ListenError::Session(_) => ListenErrorKind::Session,
            ListenError::Inbox(_) => ListenErrorKind::Inbox,
        }
    }
}

struct Backoff {
    next: Duration,
}

impl Backoff {
    const FIRST: Duration = Duration::from_millis(250);
    const MOST: Duration = Duration::from_secs(10);

    fn reset(&mut self) {
        self.next = Self::FIRST;
    }

    fn take(&mut self) -> Duration {
        let now = self.next;
        self.next = (self.next * 2).min(Self::MOST);
        now
    }
}

/// Runs an agent's connection until `stop` completes or the hub ends it for good:
/// registers, writes each message to `inbox` (fsync'd, once per id), reports it, then
/// acknowledges it; reconnects with backoff when the connection drops or the hub
/// restarts.
pub async fn listen(
    client: &HubClient,
    registration: &Registration,
    mut inbox: Inbox,
    mut report: impl FnMut(ListenEvent) + Send,
    stop: impl Future<Output = ()> + Send,
) -> Result<(), ListenError> {
    tokio::pin!(stop);
    let mut backoff = Backoff {
        next: Backoff::FIRST,
    };
    loop {
        let opened = tokio::select! {
            () = &mut stop => return Ok(()),
            opened = client.open_session(registration) => opened,
        };
        let reason = match opened {
            Ok(mut session) => {
                backoff.reset();
                report(ListenEvent::Connected(session.registered().clone()));
                let ended = tokio::select! {
                    () = &mut stop => None,
                    ended = pump(&mut session, &mut inbox, &mut report) => Some(ended),
                };
                match ended {
                    None => {
                        session.close().await;
                        return Ok(());
                    }
                    Some(Pumped::Inbox(e)) => {
                        session.close().await;
                        return Err(ListenError::Inbox(e));
                    }
                    Some(Pumped::Ended(e)) => match e.kind() {
                        SessionErrorKind::Replaced => return Err(ListenError::Replaced),
                        SessionErrorKind::Revoked => return Err(ListenError::Revoked),
                        SessionErrorKind::HubGoingAway | SessionErrorKind::Lost => e.to_string(),
                        SessionErrorKind::Closed if e_is_transient(&e) => e.to_string(),
                        _ => return Err(ListenError::Session(e)),
                    },
                }
            }
            Err(e) if e.is_transient() => e.to_string(),
            Err(ConnectError::Refused { refusal, .. })
                if refusal.code == RefusalCode::DeviceRevoked =>
            {
                return Err(ListenError::Revoked);
            }
            Err(e) => return Err(ListenError::Refused(e)),
        };
        let retry_in = backoff.take();
        report(ListenEvent::Disconnected { reason, retry_in });
        tokio::select! {
            () = &mut stop => return Ok(()),
            () = tokio::time::sleep(retry_in) => {}
        }
    }
}

fn e_is_transient(e: &SessionError) -> bool {
    match e {
        SessionError::Closed { code, refusal } => {
            *code != Some(CLOSE_PROTOCOL)
                && refusal
                    .as_ref()
                    .is_none_or(|r| matches!(r.code, RefusalCode::Internal | RefusalCode::Unknown))
        }
        _ => false,
    }
}

enum Pumped {
    Ended(SessionError),
    Inbox(InboxError),
}

async fn pump(
    session: &mut Session,
    inbox: &mut Inbox,
    report: &mut (impl FnMut(ListenEvent) + Send),
) -> Pumped {
    loop {
        let event = match session.next_event().await {
            Ok(event) => event,
            Err(e) => return Pumped::Ended(e),
        };
        let message = match event {
            SessionEvent::Message(message) => message,
            SessionEvent::Presence { event, agent } => {
                report(ListenEvent::Presence { event, agent });
                continue;
            }
        };
        let id = message.id();
        // The append fsyncs; keep it off the async workers.
        let taken = std::mem::replace(inbox, Inbox::new(inbox.path()));
        let joined = tokio::task::spawn_blocking(move || {
            let mut taken = taken;
            let appended = taken.append(&message);
            (taken, appended, message)
        })
        .await;
        let (returned, appended, message) = match joined {
            Ok(done) => done,
            Err(e) => {
                return Pumped::Inbox(InboxError {
                    path: inbox.path().to_path_buf(),
                    source: std::io::Error::other(e.to_string()),
                });
            }
        };
        *inbox = returned;
        match appended {
            Ok(Appended::Written) => report(ListenEvent::Message(message)),
            Ok(Appended::Duplicate) => report(ListenEvent::Duplicate(id)),
            Err(e) => return Pumped::Inbox(e),
        }
        if let Err(e) = session.ack(&[id]).await {
            return Pumped::Ended(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hub_urls_are_normalized_and_checked() {
        assert_eq!(
            base_url("http://127.0.0.1:7700").unwrap().as_str(),
            "http://127.0.0.1:7700/"
        );
        assert_eq!(
            base_url("https://example.org/hub?x=1")
                .unwrap()
                .join("v1/pair")
                .unwrap()
                .as_str(),
            "https://example.org/hub/v1/pair"
        );
        for bad in ["", "127.0.0.1:7700", "ftp://x", "http://"] {
            assert!(
                matches!(base_url(bad), Err(Failure::InvalidUrl(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn session_endings_are_classified() {
        let closed = |code, refusal: Option<RefusalCode>| SessionError::Closed {
            code,
            refusal: refusal.map(|c| Refusal::new(c, "x")),
        };
        assert_eq!(closed(Some(4001), None).kind(), SessionErrorKind::Replaced);
        assert_eq!(closed(Some(4003), None).kind(), SessionErrorKind::Revoked);
        assert_eq!(
            closed(None, Some(RefusalCode::DeviceRevoked)).kind(),
            SessionErrorKind::Revoked
        );
        assert_eq!(
            closed(Some(1001), None).kind(),
            SessionErrorKind::HubGoingAway
        );
        assert_eq!(closed(None, None).kind(), SessionErrorKind::HubGoingAway);
        assert_eq!(
            closed(Some(1008), Some(RefusalCode::InvalidRequest)).kind(),
            SessionErrorKind::Closed
        );
        assert!(!e_is_transient(&closed(
            Some(1008),
            Some(RefusalCode::InvalidRequest)
        )));
        assert!(e_is_transient(&closed(
            Some(1011),
            Some(RefusalCode::Internal)
        )));
    }
}
