//! Settings of the HTTP transport.

use std::net::SocketAddr;
use std::time::Duration;

/// A per-sender rate limit: a token bucket that refills `per_second` requests a second
/// and holds at most `burst`. A sender is the bearer token when tokens are required,
/// otherwise the client's IP address.
///
/// ```
/// use tnsai_coordination::transport::http::RateLimit;
///
/// let limit = RateLimit::per_second(50).with_burst(100);
/// assert_eq!((limit.rate(), limit.burst()), (50, 100));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RateLimit {
    per_second: u32,
    burst: u32,
}

impl RateLimit {
    /// `per_second` requests a second (at least 1), with a burst of as many.
    pub fn per_second(per_second: u32) -> Self {
        let per_second = per_second.max(1);
        Self {
            per_second,
            burst: per_second,
        }
    }
    /// How many requests a sender may make at once after being idle (at least 1).
    pub fn with_burst(mut self, burst: u32) -> Self {
        self.burst = burst.max(1);
        self
    }
    /// Requests a second.
    pub fn rate(&self) -> u32 {
        self.per_second
    }
    /// The burst.
    pub fn burst(&self) -> u32 {
        self.burst
    }
}

/// Settings of an [`HttpTransport`](super::HttpTransport): where it listens, how it
/// protects itself, and how it talks to other platforms.
///
/// | setting | default |
/// |---|---|
/// | [`listen`](Self::listen) | `127.0.0.1:0` (a free loopback port) |
/// | [`public_url`](Self::public_url) | `http://<bound address>` |
/// | [`require_tokens`](Self::require_tokens) | `false` |
/// | [`body_limit`](Self::body_limit) | 2 MiB (larger requests get 413) |
/// | [`rate_limit`](Self::rate_limit) | none (429 once set and exceeded) |
/// | [`request_timeout`](Self::request_timeout) | 60 s (504 after it) |
/// | [`client_timeout`](Self::client_timeout) | 60 s for calls to other platforms |
/// | [`source_limit`](Self::source_limit) / [`source_timeout`](Self::source_timeout) | 256 KiB / 5 s per protocol source |
/// | [`fetch_http_sources`](Self::fetch_http_sources) | `true` |
/// | [`discovery_interval`](Self::discovery_interval) | 2 s between listing refreshes |
/// | [`conversation_ttl`](Self::conversation_ttl) / [`max_conversations`](Self::max_conversations) | 300 s / 10,000 |
/// | [`learn_peers`](Self::learn_peers) | `true` |
///
/// ```
/// use std::time::Duration;
/// use tnsai_coordination::transport::http::{HttpConfig, RateLimit};
///
/// let config = HttpConfig::new()
///     .listen("127.0.0.1:8080".parse().unwrap())
///     .require_tokens(true)
///     .body_limit(64 * 1024)
///     .rate_limit(Some(RateLimit::per_second(100)))
///     .request_timeout(Duration::from_secs(10));
/// assert!(config.tokens_required());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpConfig {
    pub(crate) listen: SocketAddr,
    pub(crate) public_url: Option<String>,
    pub(crate) require_tokens: bool,
    pub(crate) body_limit: usize,
    pub(crate) rate_limit: Option<RateLimit>,
    pub(crate) request_timeout: Duration,
    pub(crate) client_timeout: Duration,
    pub(crate) source_limit: usize,
    pub(crate) source_timeout: Duration,
    pub(crate) fetch_http_sources: bool,
    pub(crate) discovery_interval: Option<Duration>,
    pub(crate) conversation_ttl: Duration,
    pub(crate) max_conversations: usize,
    pub(crate) learn_peers: bool,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            public_url: None,
            require_tokens: false,
            body_limit: 2 * 1024 * 1024,
            rate_limit: None,
            request_timeout: Duration::from_secs(60),
            client_timeout: Duration::from_secs(60),
            source_limit: 256 * 1024,
            source_timeout: Duration::from_secs(5),
            fetch_http_sources: true,
            discovery_interval: Some(Duration::from_secs(2)),
            conversation_ttl: Duration::from_secs(300),
            max_conversations: 10_000,
            learn_peers: true,
        }
    }
}

impl HttpConfig {
    /// The defaults (see the table above).
    pub fn new() -> Self {
        Self::default()
    }
    /// The address to listen on; port 0 picks a free port.
    pub fn listen(mut self, address: SocketAddr) -> Self {
        self.listen = address;
        self
    }
    /// The base URL other platforms and clients use to reach this one (needed behind a
    /// reverse proxy, or when listening on `0.0.0.0`). A trailing `/` is dropped.
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into().trim_end_matches('/').to_owned());
        self
    }
    /// Whether every request needs `Authorization: Bearer <token>` with a token this
    /// platform issued ([`HttpTransport::issue_token`](super::HttpTransport::issue_token)).
    pub fn require_tokens(mut self, required: bool) -> Self {
        self.require_tokens = required;
        self
    }
    /// The largest request body accepted, in bytes.
    pub fn body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }
    /// The per-sender rate limit; `None` for none.
    pub fn rate_limit(mut self, limit: Option<RateLimit>) -> Self {
        self.rate_limit = limit;
        self
    }
    /// How long the server spends on one request (reading it, running the action,
    /// waiting for the answer) before it answers 504.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }
    /// How long a call to another platform may take.
    pub fn client_timeout(mut self, timeout: Duration) -> Self {
        self.client_timeout = timeout;
        self
    }
    /// The largest protocol document read from a source, in bytes.
    pub fn source_limit(mut self, bytes: usize) -> Self {
        self.source_limit = bytes;
        self
    }
    /// How long reading a protocol document from an `http(s)://` source may take.
    pub fn source_timeout(mut self, timeout: Duration) -> Self {
        self.source_timeout = timeout;
        self
    }
    /// Whether protocol documents are fetched from `http(s)://` sources (otherwise only
    /// `data:` sources are read).
    pub fn fetch_http_sources(mut self, fetch: bool) -> Self {
        self.fetch_http_sources = fetch;
        self
    }
    /// How often the listings of other platforms are read again; `None` reads them only
    /// when a peer is added or [`refresh`](super::HttpTransport::refresh) is called.
    pub fn discovery_interval(mut self, interval: Option<Duration>) -> Self {
        self.discovery_interval = interval;
        self
    }
    /// How long an idle multi-round conversation is kept.
    pub fn conversation_ttl(mut self, ttl: Duration) -> Self {
        self.conversation_ttl = ttl;
        self
    }
    /// How many multi-round conversations are kept at once; beyond it the oldest goes.
    pub fn max_conversations(mut self, max: usize) -> Self {
        self.max_conversations = max.max(1);
        self
    }
    /// Whether a platform that calls this one (naming its URL in `X-Tnsai-Origin`) is
    /// added as a peer, so that answers, debate events and broadcasts reach its agents.
    pub fn learn_peers(mut self, learn: bool) -> Self {
        self.learn_peers = learn;
        self
    }
    /// The listen address.
    pub fn listen_address(&self) -> SocketAddr {
        self.listen
    }
    /// Whether tokens are required.
    pub fn tokens_required(&self) -> bool {
        self.require_tokens
    }
}
