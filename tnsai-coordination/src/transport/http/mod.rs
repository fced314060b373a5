//! The HTTP transport: platforms on different hosts, speaking the Agora protocol.
//!
//! [`HttpTransport`] serves a platform's agents over HTTP and carries messages to agents
//! on other platforms. Any Agora-speaking client (the Agora protocol's Python library,
//! curl) can call a tnsai agent's actions and its language model; tnsai platforms use
//! the same wire for every paradigm.
//!
//! # Wire
//!
//! * Each local agent is at `/agents/<id>`. An Agora request is `POST <agent URL>` with
//!   `{"protocolHash", "protocolSources", "body", "multiround"}`; the answer is HTTP 200
//!   with `{"status": "success" | "failure" | "rejected", "body"}` (see [`agora`]).
//! * Each action has a generated protocol document ([`action_protocol`]): its body is a
//!   JSON object of parameters, its answer `{"ok": true, "result": ..}` or `{"ok":
//!   false, "error": .., "code": ..}` for the action's own error.
//! * A `null` `protocolHash` is natural language, answered by the agent's language
//!   model (a `failure` naming the reason when it has none).
//! * A protocol the agent does not implement is read from the request's sources
//!   (`data:` URIs, `http(s)://` URLs with a size limit and a timeout) and followed by
//!   the agent's language model; without one it is `rejected`.
//! * Multi-round: the first answer carries `conversationId`; later turns `POST <agent
//!   URL>/conversations/<id>`, and `DELETE` closes it.
//! * `GET /.wellknown` (and `/wellknown`) maps every protocol hash this platform speaks
//!   to its sources; `GET /agents` lists the agents ([`PlatformListing`]).
//! * Platform-to-platform traffic travels under one protocol,
//!   [`TNSAI_PROTOCOL_DOCUMENT`], whose body is a [`Message`](tnsai_core::Message) as
//!   JSON: to `/agents/<receiver>` for directed messages (the answer to an action,
//!   request or text comes back in the response; other answers and debate events travel
//!   as messages of their own to the sender's platform, named in `X-Tnsai-Origin`), and
//!   to `/` for broadcasts and publications (the response lists who received them).
//!
//! # Discovery
//!
//! [`HttpTransport::add_peer`] reads another platform's listing; the router then sends
//! messages for its agents over HTTP (local agents always stay in-process), and
//! broadcasts and publications go to every peer. Listings are read again every
//! [`HttpConfig::discovery_interval`]. A platform that calls this one and names its URL
//! becomes a peer too ([`HttpConfig::learn_peers`]).
//!
//! # Security and limits
//!
//! Bearer tokens ([`HttpConfig::require_tokens`], [`HttpTransport::issue_token`]; only
//! SHA-256 hashes are stored, compared in constant time), a body limit (413), a
//! per-sender rate limit (429) and a request timeout (504), all in [`HttpConfig`]. Bad
//! input gets a JSON error (400, 404), never a panic. TLS: serve [`HttpTransport::router`]
//! behind a TLS-terminating reverse proxy (or your own rustls server) and set
//! [`HttpConfig::public_url`] to the `https://` URL; calls to `https://` peers use rustls.

pub mod agora;
mod auth;
mod client;
mod config;
mod conversations;
mod error;
mod gateway;
mod limits;
mod listing;
mod oversized;
mod peers;
mod protocols;
mod server;
mod transport;
mod urls;

pub use auth::{IssuedToken, TokenId};
pub use config::{HttpConfig, RateLimit};
pub use error::{BindError, BindErrorKind, PeerError, PeerErrorKind};
pub use listing::{AgentEntry, PlatformListing};
pub use protocols::{TNSAI_PROTOCOL_DOCUMENT, action_protocol, tnsai_protocol_hash};
pub use transport::HttpTransport;
