//! How a platform connects to NATS: servers, credentials, TLS, names and timings.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// How the connection authenticates. Secrets never appear in `Debug` output or logs.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum NatsAuth {
    /// No credentials (or credentials embedded in the server URL).
    #[default]
    None,
    /// A server token.
    Token(String),
    /// A user name and password.
    UserPassword {
        /// The user.
        user: String,
        /// The password.
        password: String,
    },
    /// A `.creds` file (JWT and NKey seed), as `nsc` writes them.
    CredentialsFile(PathBuf),
    /// An NKey seed (`SU...`).
    NKeySeed(String),
}

impl fmt::Debug for NatsAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NatsAuth::None => f.write_str("None"),
            NatsAuth::Token(_) => f.write_str("Token(<redacted>)"),
            NatsAuth::UserPassword { user, .. } => f
                .debug_struct("UserPassword")
                .field("user", user)
                .field("password", &"<redacted>")
                .finish(),
            NatsAuth::CredentialsFile(path) => {
                f.debug_tuple("CredentialsFile").field(path).finish()
            }
            NatsAuth::NKeySeed(_) => f.write_str("NKeySeed(<redacted>)"),
        }
    }
}

/// TLS settings passed through to async-nats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TlsSettings {
    pub(crate) required: bool,
    pub(crate) first: bool,
    pub(crate) root_certificates: Vec<PathBuf>,
    pub(crate) client_certificate: Option<(PathBuf, PathBuf)>,
}

/// Settings of a [`NatsTransport`](super::NatsTransport): where the server is, how to
/// authenticate, the names of the subjects, bucket and stream it uses, and its timings.
///
/// Every platform of one deployment must agree on the prefix, the bucket names and the
/// stream name; the timings are each platform's own.
///
/// ```
/// use std::time::Duration;
/// use tnsai_coordination::transport::nats::{NatsAuth, NatsConfig};
///
/// let config = NatsConfig::new("nats://127.0.0.1:4222")
///     .with_auth(NatsAuth::Token("s3cret".into()))
///     .with_heartbeat(Duration::from_millis(500))
///     .with_discovery_ttl(Duration::from_secs(2));
/// assert_eq!(config.discovery_bound(), Duration::from_millis(2500));
/// assert!(!format!("{config:?}").contains("s3cret"));
/// ```
#[derive(Clone)]
pub struct NatsConfig {
    pub(crate) servers: Vec<String>,
    pub(crate) auth: NatsAuth,
    pub(crate) tls: TlsSettings,
    pub(crate) client_name: Option<String>,
    pub(crate) prefix: String,
    pub(crate) discovery_bucket: String,
    pub(crate) durable_bucket: String,
    pub(crate) durable_stream: String,
    pub(crate) heartbeat: Duration,
    pub(crate) discovery_ttl: Duration,
    pub(crate) answer_timeout: Option<Duration>,
    pub(crate) publish_ack_timeout: Duration,
    pub(crate) durable_inboxes: bool,
    pub(crate) durable_ack_wait: Duration,
    pub(crate) durable_max_age: Duration,
    pub(crate) duplicate_window: Duration,
    pub(crate) route_retention: Duration,
    pub(crate) connection_timeout: Duration,
}

impl NatsConfig {
    /// Subject prefix used when none is set.
    pub const DEFAULT_PREFIX: &'static str = "tnsai";
    /// KV bucket of live announcements used when none is set.
    pub const DEFAULT_DISCOVERY_BUCKET: &'static str = "tnsai_agents";
    /// KV bucket of durable inbox registrations used when none is set.
    pub const DEFAULT_DURABLE_BUCKET: &'static str = "tnsai_durable";
    /// JetStream stream of durable inboxes used when none is set.
    pub const DEFAULT_DURABLE_STREAM: &'static str = "TNSAI_INBOX";

    /// Settings for one server URL (`nats://host:4222`, `tls://host:4222`; a URL may carry
    /// `user:password@`), with the defaults: prefix `tnsai`, heartbeat 2 s, discovery TTL
    /// 10 s, answers awaited at most 60 s, publication receipts 5 s, durable inboxes only
    /// for agents that ask (`durable = true`), JetStream ack wait 30 s, durable messages
    /// kept 7 days, duplicate window 2 minutes.
    pub fn new(url: impl Into<String>) -> Self {
        Self::with_servers([url.into()])
    }

    /// Settings for several servers of one cluster; the client picks one and fails over.
    pub fn with_servers<I, S>(servers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            servers: servers.into_iter().map(Into::into).collect(),
            auth: NatsAuth::None,
            tls: TlsSettings::default(),
            client_name: None,
            prefix: Self::DEFAULT_PREFIX.to_owned(),
            discovery_bucket: Self::DEFAULT_DISCOVERY_BUCKET.to_owned(),
            durable_bucket: Self::DEFAULT_DURABLE_BUCKET.to_owned(),
            durable_stream: Self::DEFAULT_DURABLE_STREAM.to_owned(),
            heartbeat: Duration::from_secs(2),
            discovery_ttl: Duration::from_secs(10),
            answer_timeout: Some(Duration::from_secs(60)),
            publish_ack_timeout: Duration::from_secs(5),
            durable_inboxes: false,
            durable_ack_wait: Duration::from_secs(30),
            durable_max_age: Duration::from_secs(7 * 24 * 3600),
            duplicate_window: Duration::from_secs(120),
            route_retention: Duration::from_secs(600),
            connection_timeout: Duration::from_secs(5),
        }
    }

    /// Sets the credentials.
    pub fn with_auth(mut self, auth: NatsAuth) -> Self {
        self.auth = auth;
        self
    }

    /// Requires TLS (also implied by a `tls://` URL).
    pub fn with_require_tls(mut self, required: bool) -> Self {
        self.tls.required = required;
        self
    }

    /// Starts TLS before the NATS handshake (servers configured with `handshake_first`).
    pub fn with_tls_first(mut self) -> Self {
        self.tls.first = true;
        self.tls.required = true;
        self
    }

    /// Trusts the CA certificates in this PEM file.
    pub fn with_root_certificate(mut self, pem: impl Into<PathBuf>) -> Self {
        self.tls.root_certificates.push(pem.into());
        self
    }

    /// Presents this client certificate and key (PEM files) for mutual TLS.
    pub fn with_client_certificate(
        mut self,
        certificate: impl Into<PathBuf>,
        key: impl Into<PathBuf>,
    ) -> Self {
        self.tls.client_certificate = Some((certificate.into(), key.into()));
        self
    }

    /// Names the connection (shown by the server's monitoring).
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = Some(name.into());
        self
    }

    /// Sets the subject prefix (dot-separated tokens of `[A-Za-z0-9_-]`), to keep several
    /// deployments apart on one server.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Sets the KV bucket of live announcements.
    pub fn with_discovery_bucket(mut self, bucket: impl Into<String>) -> Self {
        self.discovery_bucket = bucket.into();
        self
    }

    /// Sets the KV bucket of durable inbox registrations.
    pub fn with_durable_bucket(mut self, bucket: impl Into<String>) -> Self {
        self.durable_bucket = bucket.into();
        self
    }

    /// Sets the JetStream stream that holds durable inboxes.
    pub fn with_durable_stream(mut self, stream: impl Into<String>) -> Self {
        self.durable_stream = stream.into();
        self
    }

    /// How often this platform renews its agents' announcements (and forgets remote
    /// agents whose announcements stopped).
    pub fn with_heartbeat(mut self, heartbeat: Duration) -> Self {
        self.heartbeat = heartbeat;
        self
    }

    /// How long an announcement stays valid without renewal: the KV bucket's `max_age`
    /// when this platform creates it, and the age after which other platforms forget an
    /// agent whose platform stopped renewing. Must exceed the heartbeat.
    pub fn with_discovery_ttl(mut self, ttl: Duration) -> Self {
        self.discovery_ttl = ttl;
        self
    }

    /// How long a call carried over NATS waits for its answer before it fails with
    /// `Request timed out` (`None`: as long as the caller waits). A `#[request_reply]`
    /// timeout that is shorter wins.
    pub fn with_answer_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.answer_timeout = timeout;
        self
    }

    /// How long a broadcast or publication waits for the receipts of the platforms that
    /// host its remote recipients; a platform that does not answer in time has its
    /// recipients reported as failed.
    pub fn with_publish_ack_timeout(mut self, timeout: Duration) -> Self {
        self.publish_ack_timeout = timeout;
        self
    }

    /// Gives every agent of this platform a durable inbox, as if each had
    /// `#[direct_message(durable = true)]`.
    pub fn with_durable_inboxes(mut self, durable: bool) -> Self {
        self.durable_inboxes = durable;
        self
    }

    /// How long JetStream waits for a durable message's ack before it redelivers it (to
    /// this or another platform serving the agent).
    pub fn with_durable_ack_wait(mut self, wait: Duration) -> Self {
        self.durable_ack_wait = wait;
        self
    }

    /// How long the durable stream keeps a message that no platform consumed.
    pub fn with_durable_max_age(mut self, age: Duration) -> Self {
        self.durable_max_age = age;
        self
    }

    /// The JetStream duplicate window: a durable message published twice with the same
    /// id within it is stored once.
    pub fn with_duplicate_window(mut self, window: Duration) -> Self {
        self.duplicate_window = window;
        self
    }

    /// How long a receiving platform remembers where to send the answer to a message
    /// (messages that are never answered, such as debate events, are forgotten then).
    pub fn with_route_retention(mut self, retention: Duration) -> Self {
        self.route_retention = retention;
        self
    }

    /// How long connecting may take.
    pub fn with_connection_timeout(mut self, timeout: Duration) -> Self {
        self.connection_timeout = timeout;
        self
    }

    /// The server URLs.
    pub fn servers(&self) -> &[String] {
        &self.servers
    }

    /// The subject prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The heartbeat interval.
    pub fn heartbeat(&self) -> Duration {
        self.heartbeat
    }

    /// The discovery TTL.
    pub fn discovery_ttl(&self) -> Duration {
        self.discovery_ttl
    }

    /// The answer timeout.
    pub fn answer_timeout(&self) -> Option<Duration> {
        self.answer_timeout
    }

    /// Whether every agent gets a durable inbox.
    pub fn durable_inboxes(&self) -> bool {
        self.durable_inboxes
    }

    /// The longest time another platform keeps believing in an agent of this platform
    /// after the platform died without withdrawing it: the discovery TTL plus one
    /// heartbeat (remote entries are checked once per heartbeat). An agent that is
    /// terminated, or whose platform shuts down, is withdrawn at once.
    pub fn discovery_bound(&self) -> Duration {
        self.discovery_ttl + self.heartbeat
    }
}

/// A server URL with any password replaced, for `Debug` output and logs.
pub(crate) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        // `user:password@` keeps the user; a lone `token@` is a secret as a whole.
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:<redacted>@{host}"),
            None => format!("{scheme}://<redacted>@{host}"),
        },
        None => url.to_owned(),
    }
}

impl fmt::Debug for NatsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let servers: Vec<String> = self.servers.iter().map(|s| redact_url(s)).collect();
        f.debug_struct("NatsConfig")
            .field("servers", &servers)
            .field("auth", &self.auth)
            .field("tls", &self.tls)
            .field("client_name", &self.client_name)
            .field("prefix", &self.prefix)
            .field("discovery_bucket", &self.discovery_bucket)
            .field("durable_bucket", &self.durable_bucket)
            .field("durable_stream", &self.durable_stream)
            .field("heartbeat", &self.heartbeat)
            .field("discovery_ttl", &self.discovery_ttl)
            .field("answer_timeout", &self.answer_timeout)
            .field("publish_ack_timeout", &self.publish_ack_timeout)
            .field("durable_inboxes", &self.durable_inboxes)
            .field("durable_ack_wait", &self.durable_ack_wait)
            .field("durable_max_age", &self.durable_max_age)
            .field("duplicate_window", &self.duplicate_window)
            .field("route_retention", &self.route_retention)
            .field("connection_timeout", &self.connection_timeout)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_hides_every_secret() {
        let config = NatsConfig::new("nats://alice:hunter2@example.com:4222").with_auth(
            NatsAuth::UserPassword {
                user: "bob".into(),
                password: "pa55word".into(),
            },
        );
        let text = format!("{config:?}");
        assert!(
            !text.contains("hunter2") && !text.contains("pa55word"),
            "{text}"
        );
        assert!(text.contains("alice") && text.contains("bob"), "{text}");
        for auth in [
            NatsAuth::Token("tok3n".into()),
            NatsAuth::NKeySeed("SUSEED".into()),
        ] {
            let text = format!("{auth:?}");
            assert!(
                !text.contains("tok3n") && !text.contains("SUSEED"),
                "{text}"
            );
        }
    }

    #[test]
    fn urls_without_passwords_are_unchanged() {
        assert_eq!(redact_url("nats://127.0.0.1:4222"), "nats://127.0.0.1:4222");
        assert_eq!(redact_url("nats://tok@h:1"), "nats://<redacted>@h:1");
    }
}
