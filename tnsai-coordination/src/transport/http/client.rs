//! The outbound side: carrying messages to other platforms and reading their listings.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use reqwest::StatusCode;
use tnsai_core::{AgentId, Message};

use super::agora::{AgoraRequest, AgoraResponse, AgoraStatus};
use super::error::{PeerError, PeerErrorKind};
use super::listing::{PlatformListing, WireError, WireReport};
use super::peers::Peer;
use super::protocols::{TNSAI_PROTOCOL, protocol_url};
use super::transport::Shared;
use super::urls::agent_path;
use crate::{DeliveryReport, TransportError, TransportErrorKind};

/// The header in which a platform names its own URL, so that answers and events for its
/// agents can come back.
pub(crate) const ORIGIN_HEADER: &str = "x-tnsai-origin";

/// How often a request refused with 429 is tried again before the send fails.
const RATE_LIMIT_RETRIES: u32 = 5;
/// The longest wait between such tries.
const MAX_RETRY_WAIT: Duration = Duration::from_secs(2);

pub(crate) fn build_client(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(timeout)
        .tcp_nodelay(true)
        .pool_max_idle_per_host(64)
        .build()
        .unwrap_or_default()
}

/// Checks that `url` is an `http(s)://` URL and returns it without a trailing `/`.
pub(crate) fn normalize_url(url: &str) -> Result<String, PeerError> {
    let parsed = url::Url::parse(url)
        .map_err(|e| PeerError::new(PeerErrorKind::InvalidUrl, url, e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host().is_none() {
        return Err(PeerError::new(
            PeerErrorKind::InvalidUrl,
            url,
            "a platform URL must be http:// or https:// with a host",
        ));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

impl Shared {
    /// Posts `message` under the tnsai protocol to `peer` at `path`.
    async fn post(
        &self,
        peer: &Peer,
        path: &str,
        message: &Message,
    ) -> Result<AgoraResponse, TransportError> {
        let encode = |e: serde_json::Error| {
            TransportError::new(
                TransportErrorKind::Delivery,
                format!("could not encode: {e}"),
            )
        };
        let body = serde_json::to_string(message).map_err(encode)?;
        // Peers know the tnsai protocol; the one short source is for other receivers.
        let sources = self
            .public_url()
            .map(|base| vec![protocol_url(base, TNSAI_PROTOCOL.hash())])
            .unwrap_or_default();
        let request = AgoraRequest::new(TNSAI_PROTOCOL.hash(), sources, body);
        let bytes = axum::body::Bytes::from(serde_json::to_vec(&request).map_err(encode)?);
        let url = format!("{}{}", peer.url, path);
        let token = peer.token();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut builder = self
                .client
                .post(&url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(bytes.clone());
            if let Some(token) = &token {
                builder = builder.bearer_auth(token);
            }
            if let Some(origin) = self.public_url() {
                builder = builder.header(ORIGIN_HEADER, origin);
            }
            let response = builder.send().await.map_err(|e| {
                let kind = if e.is_timeout() {
                    TransportErrorKind::Timeout
                } else {
                    TransportErrorKind::Delivery
                };
                TransportError::new(kind, format!("could not reach {url}: {e}"))
            })?;
            let status = response.status();
            if status == StatusCode::TOO_MANY_REQUESTS && attempt <= RATE_LIMIT_RETRIES {
                let wait = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok())
                    .map(Duration::from_secs)
                    .unwrap_or(Duration::from_millis(100) * attempt)
                    .min(MAX_RETRY_WAIT);
                tokio::time::sleep(wait).await;
                continue;
            }
            let text = response.text().await.map_err(|e| {
                TransportError::new(
                    TransportErrorKind::Delivery,
                    format!("could not read the answer of {url}: {e}"),
                )
            })?;
            return match status {
                StatusCode::OK => serde_json::from_str(&text).map_err(|e| {
                    TransportError::new(
                        TransportErrorKind::Delivery,
                        format!("{url} did not answer in Agora form: {e}"),
                    )
                }),
                StatusCode::NOT_FOUND => Err(match message.receiver() {
                    Some(receiver) => TransportError::unknown_receiver(receiver.clone()),
                    None => TransportError::new(TransportErrorKind::Rejected, text),
                }),
                StatusCode::GATEWAY_TIMEOUT => Err(TransportError::new(
                    TransportErrorKind::Timeout,
                    format!("{url} timed out: {text}"),
                )),
                StatusCode::UNAUTHORIZED
                | StatusCode::FORBIDDEN
                | StatusCode::PAYLOAD_TOO_LARGE
                | StatusCode::TOO_MANY_REQUESTS
                | StatusCode::BAD_REQUEST => Err(TransportError::new(
                    TransportErrorKind::Rejected,
                    format!("{url} refused the message ({status}): {text}"),
                )),
                _ => Err(TransportError::new(
                    TransportErrorKind::Delivery,
                    format!("{url} answered {status}: {text}"),
                )),
            };
        }
    }

    /// Carries a message to the remote agent its receiver names; an answer that comes
    /// back in the response is handed to the local caller waiting for it.
    pub(crate) async fn send_remote(&self, message: Message) -> Result<(), TransportError> {
        let receiver = message.receiver().cloned().ok_or_else(|| {
            TransportError::new(
                TransportErrorKind::Delivery,
                "a message sent to one agent must name its receiver",
            )
        })?;
        let peer = self
            .peers
            .find(&receiver)
            .ok_or_else(|| TransportError::unknown_receiver(receiver.clone()))?;
        if self.public_url().is_none()
            && !message.kind().is_answer()
            && !super::gateway::answered_in_response(message.kind())
        {
            // Debate steps and the like are answered by a message of their own, which
            // needs this platform to be reachable.
            tracing::warn!(
                kind = %message.kind(),
                receiver = %receiver,
                "sending a message whose answer must come back to this platform, which serves no URL"
            );
        }
        let answer = self
            .post(&peer, &agent_path(receiver.as_str()), &message)
            .await?;
        match answer.status {
            AgoraStatus::Success if answer.body.is_empty() => Ok(()),
            AgoraStatus::Success => {
                let reply: Message = serde_json::from_str(&answer.body).map_err(|e| {
                    TransportError::new(
                        TransportErrorKind::Delivery,
                        format!("{} sent an unreadable answer: {e}", peer.url),
                    )
                })?;
                let Some(platform) = self.platform() else {
                    return Err(TransportError::not_started());
                };
                if let Err(error) = platform.deliver(reply).await {
                    // The caller gave up (timed out) or went away: a late answer.
                    tracing::debug!(%error, "an answer from {} found no caller", peer.url);
                }
                Ok(())
            }
            AgoraStatus::Failure => Err(wire_error(&receiver, &answer.body)),
            AgoraStatus::Rejected => Err(TransportError::new(
                TransportErrorKind::Rejected,
                format!("{} rejected the message: {}", peer.url, answer.body),
            )),
        }
    }

    /// Carries a broadcast or publication to every peer; each reports who got it.
    pub(crate) async fn publish_remote(&self, message: Message) -> DeliveryReport {
        let peers = self.peers.all();
        let sends = peers.iter().map(|peer| {
            let message = &message;
            async move {
                let failed = |reason: String| {
                    let topic = message.topic().unwrap_or_default();
                    let missed = peer.subscribers(topic, message.payload(), message.sender());
                    if missed.is_empty() {
                        tracing::debug!(peer = %peer.url, %reason, "a publication did not reach a peer");
                    }
                    let failed = missed.into_iter().map(|id| (id, reason.clone())).collect();
                    DeliveryReport::new(Vec::new(), failed)
                };
                match self.post(peer, "/", message).await {
                    Ok(answer) if answer.status == AgoraStatus::Success => {
                        match serde_json::from_str::<WireReport>(&answer.body) {
                            Ok(report) => DeliveryReport::from(report),
                            Err(e) => failed(format!("{} sent an unreadable report: {e}", peer.url)),
                        }
                    }
                    Ok(answer) => failed(format!("{} refused: {}", peer.url, answer.body)),
                    Err(error) => failed(error.to_string()),
                }
            }
        });
        join_all(sends)
            .await
            .into_iter()
            .fold(DeliveryReport::default(), DeliveryReport::merge)
    }

    /// Reads `peer`'s listing and remembers its agents.
    pub(crate) async fn read_listing(&self, peer: &Peer) -> Result<Vec<AgentId>, PeerError> {
        let url = format!("{}/agents", peer.url);
        let mut request = self.client.get(&url);
        if let Some(token) = peer.token() {
            request = request.bearer_auth(token);
        }
        let response = request
            .send()
            .await
            .map_err(|e| PeerError::new(PeerErrorKind::Unreachable, &peer.url, e.to_string()))?;
        match response.status() {
            StatusCode::OK => {}
            StatusCode::UNAUTHORIZED => {
                return Err(PeerError::new(
                    PeerErrorKind::Unauthorized,
                    &peer.url,
                    "the platform refused the token",
                ));
            }
            status => {
                return Err(PeerError::new(
                    PeerErrorKind::Status,
                    &peer.url,
                    format!("GET /agents answered {status}"),
                ));
            }
        }
        let listing: PlatformListing = response
            .json()
            .await
            .map_err(|e| PeerError::new(PeerErrorKind::InvalidListing, &peer.url, e.to_string()))?;
        let ids = listing
            .agents
            .iter()
            .map(|a| a.description.id.clone())
            .collect();
        peer.set_agents(listing.agents.into_iter().map(|a| a.description).collect());
        Ok(ids)
    }

    /// Reads every peer's listing again; the first failure is returned after all were
    /// tried (a peer that cannot be read keeps its last listing).
    pub(crate) async fn refresh_all(&self) -> Result<(), PeerError> {
        let peers = self.peers.all();
        let results = join_all(peers.iter().map(|peer| self.read_listing(peer))).await;
        results
            .into_iter()
            .find_map(Result::err)
            .map_or(Ok(()), Err)
    }

    /// Adds the platform at `url` as a peer and reads its listing.
    pub(crate) async fn add_peer(
        self: &Arc<Self>,
        url: &str,
        token: Option<String>,
    ) -> Result<Vec<AgentId>, PeerError> {
        if !self.is_started() {
            return Err(PeerError::new(
                PeerErrorKind::NotStarted,
                url,
                "the HTTP transport is stopped",
            ));
        }
        let url = normalize_url(url)?;
        if self.public_url() == Some(url.as_str()) {
            return Err(PeerError::new(
                PeerErrorKind::InvalidUrl,
                &url,
                "that is this platform's own URL",
            ));
        }
        let (peer, added) = self.peers.get_or_add(&url, token);
        match self.read_listing(&peer).await {
            Ok(ids) => {
                self.ensure_discovery();
                Ok(ids)
            }
            Err(error) => {
                if added {
                    self.peers.remove(&url);
                }
                Err(error)
            }
        }
    }
}

/// The transport error a tnsai-protocol `failure` body describes.
fn wire_error(receiver: &AgentId, body: &str) -> TransportError {
    match serde_json::from_str::<WireError>(body) {
        Ok(error) => match error.code.as_str() {
            "unknown_receiver" => TransportError::unknown_receiver(receiver.clone()),
            "receiver_unavailable" => {
                TransportError::new(TransportErrorKind::ReceiverUnavailable, error.message)
            }
            // The remote platform's transport is stopped: for us its agent is unavailable.
            "not_started" => {
                TransportError::new(TransportErrorKind::ReceiverUnavailable, error.message)
            }
            "invalid_message" => TransportError::new(TransportErrorKind::Rejected, error.message),
            "timeout" => TransportError::new(TransportErrorKind::Timeout, error.message),
            _ => TransportError::new(TransportErrorKind::Delivery, error.message),
        },
        Err(_) => TransportError::new(TransportErrorKind::Delivery, body.to_owned()),
    }
}
