//! What can go wrong, per operation: connecting a platform to NATS, retiring a durable
//! inbox. Carrying messages fails with the platform's own
//! [`TransportError`](crate::TransportError).

/// What kind of failure a [`NatsConnectError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NatsConnectErrorKind {
    /// The [`NatsConfig`](super::NatsConfig) is unusable (a bad prefix, bucket or stream
    /// name, a TTL not above the heartbeat, no server, an unreadable credentials file).
    InvalidConfig,
    /// No connection to the server (unreachable, refused, TLS failure, timeout).
    Connection,
    /// The server refused the credentials.
    Authorization,
    /// JetStream is not enabled on the server, or its KV bucket or stream could not be
    /// created or opened.
    JetStream,
    /// The discovery watch or a subscription could not be set up.
    Subscription,
    /// The platform was shut down.
    PlatformShutDown,
}

/// Why [`NatsTransport::connect`](super::NatsTransport::connect) failed.
///
/// The text never contains credentials.
///
/// The text says what failed and why (the cause's own text is part of it, with any
/// credential scrubbed out).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("{message}")]
pub struct NatsConnectError {
    kind: NatsConnectErrorKind,
    message: String,
}

impl NatsConnectError {
    pub(crate) fn new(kind: NatsConnectErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> NatsConnectErrorKind {
        self.kind
    }
}

/// What kind of failure a [`NatsRetireError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NatsRetireErrorKind {
    /// The transport is stopped.
    NotStarted,
    /// JetStream refused to delete the consumer or purge the messages.
    JetStream,
    /// The registration could not be removed from the KV bucket.
    Registry,
}

/// Why [`NatsTransport::retire_durable`](super::NatsTransport::retire_durable) failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("{message}")]
pub struct NatsRetireError {
    kind: NatsRetireErrorKind,
    message: String,
}

impl NatsRetireError {
    pub(crate) fn new(kind: NatsRetireErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> NatsRetireErrorKind {
        self.kind
    }
}
