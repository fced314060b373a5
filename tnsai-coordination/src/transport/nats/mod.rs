//! The NATS transport: agents on many machines through a broker, with discovery in NATS
//! KV and durable inboxes on JetStream.
//!
//! ```no_run
//! use tnsai_coordination::Platform;
//! use tnsai_coordination::transport::nats::NatsConfig;
//! use tnsai_core::prelude::*;
//!
//! #[direct_message(transport = Nats, endpoint = "nats://127.0.0.1:4222", durable = true)]
//! #[request_reply(timeout = 2000, transport = Nats, endpoint = "nats://127.0.0.1:4222")]
//! #[derive(Default)]
//! struct Billing;
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let platform = Platform::new();
//! platform.connect_nats(NatsConfig::new("nats://127.0.0.1:4222")).await?;
//! platform.spawn("billing", Billing).await?; // announced to every connected platform
//! # Ok(())
//! # }
//! ```
//!
//! # Layout
//!
//! Under a prefix (`tnsai` by default, [`NatsConfig::with_prefix`]); ids and topic tokens
//! are encoded as [`subject`] describes:
//!
//! | what | where |
//! |---|---|
//! | direct actions, text, requests, debate steps to an agent | `tnsai.agent.<id>`, queue group `tnsai` |
//! | durable inbox of an agent | `tnsai.durable.<id>` in stream `TNSAI_INBOX`, consumer `inbox-<id>` |
//! | broadcasts and publications | `tnsai.topic.<topic>` (lower-cased; subscriptions use NATS's own `*` and `>`) |
//! | answers and publication receipts | `tnsai.reply.<platform>.<token>` |
//! | live announcements | KV bucket `tnsai_agents`, key `<id>.<platform>` |
//! | durable inbox registrations | KV bucket `tnsai_durable`, key `<id>` |
//!
//! Every payload is the [`Message`](tnsai_core::Message) JSON, unchanged. Headers:
//! `Tnsai-Platform` (the publishing platform, on publications and durable messages),
//! `Tnsai-Reply-To` (the reply subject of a durable message) and `Nats-Msg-Id` (the
//! message UUID, for JetStream's de-duplication).
//!
//! # Calls and answers
//!
//! A message to one agent is published with a reply subject of the sending platform
//! (`tnsai.reply.<platform>.<token>`). The receiving platform remembers it, puts the
//! message in the agent's mailbox and publishes the agent's answer there; the sending
//! platform hands the answer to the waiting call. When no platform serves the agent,
//! NATS answers "no responders" at once and the call fails with
//! [`ProtocolError::ReceiverUnavailable`](crate::ProtocolError::ReceiverUnavailable); a
//! refusal (the agent is stopped) comes back as the platform's own error. Timeouts: a
//! `#[request_reply(timeout)]` ends the call with `Request timed out` and a late answer is
//! dropped; every call carried over NATS also ends with `Request timed out` after
//! [`NatsConfig::with_answer_timeout`] (60 s by default), so a receiver whose platform
//! died mid-call cannot hold its caller forever. A lost connection ends the calls it
//! carried with an error saying so (durable calls keep waiting: their message is safe).
//!
//! Several platforms may run the same agent id: they share its subject as a queue group
//! (and its durable consumer), so each call reaches exactly one of them.
//!
//! # Broadcasts and publications
//!
//! A publication goes to `tnsai.topic.<topic>`; each platform subscribes once per
//! distinct pattern of its agents and hands what arrives to its local subscribers (the
//! usual recipient rule: sender skipped, `can_subscribe`, filters). When discovery knows
//! remote recipients, the publisher asks for receipts and waits for the platforms that
//! host them (at most [`NatsConfig::with_publish_ack_timeout`]), so the
//! [`DeliveryReport`](crate::DeliveryReport) names the remote agents that got it and
//! lists as failed those whose platform did not confirm.
//!
//! # Discovery and its bound
//!
//! See [`discovery`](self#discovery-and-its-bound) below: a terminated agent, or every
//! agent of a platform that shuts down, is withdrawn at once; an agent whose platform
//! dies disappears from the others within [`NatsConfig::discovery_bound`] (discovery TTL
//! plus one heartbeat: 12 s by default). Until then a call to it fails at once with "no
//! responders" (its subscriptions died with its connection).
//!
//! # Durable inboxes
//!
//! `#[direct_message(durable = true)]` or [`NatsConfig::with_durable_inboxes`] routes an
//! agent's inbox through JetStream; see the `durable` notes: messages sent while the
//! agent is down are stored and delivered when it is back, each once, and acked only
//! after the action ran. Broadcasts and publications are not durable.

mod calls;
mod config;
mod connect;
mod discovery;
mod durable;
mod error;
mod inbound;
mod routes;
pub mod subject;
mod transport;
mod wire;

pub use config::{NatsAuth, NatsConfig};
pub use discovery::DiscoveredAgent;
pub use error::{NatsConnectError, NatsConnectErrorKind, NatsRetireError, NatsRetireErrorKind};
pub use transport::NatsTransport;
