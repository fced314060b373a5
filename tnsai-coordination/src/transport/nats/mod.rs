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
//! | answers to actions, requests and text | the NATS request inbox `tnsai.inbox.<nuid>.<n>` |
//! | other answers, publication receipts | `tnsai.reply.<platform>.<token>` |
//! | live announcements | KV bucket `tnsai_agents`, key `<id>.<platform>` |
//! | durable inbox registrations | KV bucket `tnsai_durable`, key `<id>` |
//!
//! Every payload is the [`Message`](tnsai_core::Message) JSON, unchanged. Headers:
//! `Tnsai-Platform` (the publishing platform, on publications and durable messages),
//! `Tnsai-Reply-To` (the reply subject of a durable message) and `Nats-Msg-Id` (the
//! message UUID, for JetStream's de-duplication). Everything lives under the prefix, so
//! one NATS permission (`tnsai.>`, plus `$JS.API.>` and `$KV.>` for JetStream) covers a
//! deployment.
//!
//! # Calls, answers and timeouts
//!
//! An action, a request or a text message (the kinds that are always answered exactly
//! once) travels as a NATS request: the receiving platform puts the message in the
//! agent's mailbox and publishes the agent's answer to the request's inbox, and the
//! sending task hands that answer to the waiting call. Other messages to one agent
//! (debate steps, ACL and BSPL messages) carry the sending platform's reply subject
//! `tnsai.reply.<platform>.<token>` instead, since some of them are never answered.
//!
//! * Nobody serves the agent: NATS answers "no responders" at once and the call fails
//!   with [`ProtocolError::ReceiverUnavailable`](crate::ProtocolError::ReceiverUnavailable).
//!   A refusal (the agent is stopped) comes back as the receiving platform's own error.
//! * A `#[request_reply(timeout)]` ends the call with `Request timed out`; the late answer
//!   is dropped, never given to a later call.
//! * Every call carried over NATS also ends with `Request timed out` after
//!   [`NatsConfig::with_answer_timeout`] (60 s by default), so a receiver whose platform
//!   died mid-call cannot hold its caller forever (a `#[request_reply]` timeout that is
//!   shorter wins).
//! * A lost connection ends the calls in flight at once with an error that says so (their
//!   message or its answer may be lost); calls made while it is down fail with "not
//!   connected". The client reconnects by itself. Durable calls keep waiting: their
//!   message is safe in its stream.
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
//! host them (at most [`NatsConfig::with_publish_ack_timeout`], 5 s by default), so the
//! [`DeliveryReport`](crate::DeliveryReport) names the remote agents that got it and
//! lists as failed those whose platform did not confirm. Publications are not durable.
//!
//! # Discovery and its bound
//!
//! Each platform announces its agents (id, paradigms, topics, filter, actions) in the KV
//! bucket when they are spawned, renews them every heartbeat, and watches the bucket
//! (module `discovery` keeps the details). A terminated agent, and every agent of a
//! platform that shuts down, is withdrawn at once. An agent whose platform dies without
//! a word disappears from the others within [`NatsConfig::discovery_bound`]: the
//! discovery TTL plus one heartbeat, 12 s by default. Within that window a call to it
//! fails with "no responders" once the server has dropped the dead connection, or ends
//! with `Request timed out` after the answer timeout if the message went to the dead
//! connection; afterwards it fails at once with `Unknown receiver: <id>`.
//!
//! # Durable inboxes
//!
//! `#[direct_message(durable = true)]` or [`NatsConfig::with_durable_inboxes`] routes an
//! agent's inbox through JetStream: messages sent while the agent is down are stored
//! and delivered when it is back, each once (`Nats-Msg-Id` = the message UUID, plus the
//! ids the receiving platform has taken), and acked only after the action has run and
//! its answer is out. The registration outlives the agent's platform, so senders keep
//! reaching the inbox; [`NatsTransport::retire_durable`] removes it. Each once means:
//! unless the receiving platform crashes after the action ran and before the ack, when
//! JetStream redelivers it to the next platform serving the agent.

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
