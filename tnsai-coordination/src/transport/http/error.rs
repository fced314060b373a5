//! What can go wrong, per operation: binding the listener, adding a peer.

/// What kind of failure a [`BindError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BindErrorKind {
    /// The address could not be bound (in use, not permitted).
    Io,
    /// The platform was shut down.
    PlatformShutDown,
}

/// The HTTP listener could not be started
/// ([`HttpTransport::bind`](super::HttpTransport::bind)).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct BindError {
    kind: BindErrorKind,
    message: String,
    #[source]
    source: Option<std::io::Error>,
}

impl BindError {
    pub(crate) fn io(address: std::net::SocketAddr, source: std::io::Error) -> Self {
        Self {
            kind: BindErrorKind::Io,
            message: format!("could not listen on {address}: {source}"),
            source: Some(source),
        }
    }
    pub(crate) fn shut_down() -> Self {
        Self {
            kind: BindErrorKind::PlatformShutDown,
            message: "the platform has been shut down".to_owned(),
            source: None,
        }
    }
    /// What kind of failure this is.
    pub fn kind(&self) -> BindErrorKind {
        self.kind
    }
}

/// What kind of failure a [`PeerError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PeerErrorKind {
    /// The URL is not an `http(s)://` URL.
    InvalidUrl,
    /// The platform could not be reached, or did not answer in time.
    Unreachable,
    /// The platform refused the token (401).
    Unauthorized,
    /// The platform answered with another error status.
    Status,
    /// The answer is not a platform listing.
    InvalidListing,
    /// This transport was stopped.
    NotStarted,
}

/// Another platform could not be added or its listing read
/// ([`HttpTransport::add_peer`](super::HttpTransport::add_peer),
/// [`HttpTransport::refresh`](super::HttpTransport::refresh)).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{url}: {message}")]
#[non_exhaustive]
pub struct PeerError {
    kind: PeerErrorKind,
    url: String,
    message: String,
}

impl PeerError {
    pub(crate) fn new(kind: PeerErrorKind, url: &str, message: impl Into<String>) -> Self {
        Self {
            kind,
            url: url.to_owned(),
            message: message.into(),
        }
    }
    /// What kind of failure this is.
    pub fn kind(&self) -> PeerErrorKind {
        self.kind
    }
    /// The peer's URL.
    pub fn url(&self) -> &str {
        &self.url
    }
}
