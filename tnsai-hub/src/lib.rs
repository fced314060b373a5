//! The tnsai agent hub and the `tnsai` command-line client.
//!
//! Two developers each have a coding agent, one changing an SDK, one a backend. The hub
//! lets those agents, on different machines, find each other and exchange messages with
//! structured context (a commit, the reason for a change, compatibility notes) through
//! a CLI that any agent able to run a shell command can use. It is a communication layer
//! only: **the hub never executes, evaluates or interprets what it receives**, and it
//! does not replace any agent's own loop.
//!
//! ```text
//! tnsai hub serve --listen 0.0.0.0:7700 --data /srv/tnsai     # on the shared machine
//! tnsai hub invite --data /srv/tnsai                          # prints a one-time code
//! tnsai pair http://hub:7700 7K2Q-MX9D-4HPA-WZ3 --name alice  # on each developer's machine
//! tnsai connect --name sdk-agent --project sdk                # the agent's listener
//! tnsai send --to bob/backend-agent --content "..." --context '{"commit": "abc123"}'
//! tnsai list --project sdk
//! tnsai inbox --unread
//! ```
//!
//! The same flow in process, through the code the CLI uses:
//!
//! ```
//! use std::time::Duration;
//! use tnsai_hub::client::{HubClient, SessionEvent};
//! use tnsai_hub::wire::{DeliveryStatus, Registration, SendRequest};
//! use tnsai_hub::{Hub, HubConfig};
//!
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let data = tempfile::tempdir()?;
//! let hub = Hub::open(HubConfig::new(data.path()))?.start("127.0.0.1:0").await?;
//!
//! // The administrator invites two devices; each trades its code for a token.
//! let mut clients = Vec::new();
//! for device in ["alice", "bob"] {
//!     let code = hub.hub().invite(Duration::from_secs(3600)).await?;
//!     let paired = HubClient::pair(&hub.url(), &code.expose(), device).await?;
//!     clients.push(HubClient::new(&hub.url(), paired.token)?);
//! }
//! let register = |name: &str| Registration { name: name.into(), ..Registration::default() };
//! let _alice = clients[0].open_session(&register("sdk-agent")).await?;
//! let mut bob = clients[1].open_session(&register("backend-agent")).await?;
//!
//! let context = serde_json::json!({ "commit": "abc123", "breaking": false });
//! let receipt = clients[0]
//!     .send(&SendRequest {
//!         to: "bob/backend-agent".into(),
//!         content: "Renamed Client::fetch to Client::get; the old name stays as an alias".into(),
//!         context: context.as_object().cloned(),
//!         from: None, // alice's device has one agent, so the hub knows who sends
//!     })
//!     .await?;
//! assert_eq!(receipt.status, DeliveryStatus::Live);
//!
//! let message = loop {
//!     if let SessionEvent::Message(message) = bob.next_event().await? {
//!         break message;
//!     }
//! };
//! assert_eq!(message.id(), receipt.id);
//! assert_eq!(message.sender().as_str(), "alice/sdk-agent");
//! assert_eq!(message.context_value("commit"), Some(&serde_json::json!("abc123")));
//! bob.ack(&[message.id()]).await?; // only after storing it
//! hub.shutdown().await?;
//! # Ok(())
//! # }
//! ```
//!
//! # Design decisions
//!
//! **Devices, owners and names.** A device pairs under a name (`--name`, default
//! `$USER`), unique among active devices. An agent's identity is `owner/name`; the owner
//! defaults to the device's name and `connect --owner` may set another. "The same name"
//! means the same `owner/name`. An identity belongs to the device that registered it:
//! another active device registering it is refused (`name_taken`), so one team member
//! cannot take over another's agent and its queued messages; revoking the device frees
//! the identity (its queued messages wait for whoever claims it next). Registrations
//! persist, so messages can be sent to an agent that is offline, and a device's agents
//! are known for the `--from` rules even when none is connected.
//!
//! **Sender stamping.** The hub sets `sender`, `id` (UUID v7) and `timestamp` of every
//! message. `send` without `--from` works when the device has exactly one agent; with
//! none it is refused (`no_agent`, 403); with several it needs `--from` (`from_required`,
//! 400); a `--from` that is not one of the device's agents is refused (`not_your_agent`,
//! 403). `--from` may be `name` or `owner/name`.
//!
//! **Messages** are tnsai-core [`Message`](tnsai_core::Message)s of kind `text`:
//! `sender` and `receiver` are `owner/name`, `content` is the text, `context` the JSON
//! object given with `--context`. They have the same JSON shape as everywhere in tnsai.
//! When the hub drops a queued message it tells its sender with a message of kind
//! `error` from `hub`, `in_reply_to` the dropped message, `payload` `{"code":
//! "dropped", "reason": "cap"|"age", "message_id", "recipient"}`.
//!
//! **Delivery.** Every accepted message is first committed to SQLite (WAL,
//! `synchronous=FULL`) and stays there until its recipient acknowledges it, so it
//! survives hub restarts and client crashes. If the recipient has a live connection the
//! hub wakes it and `send` answers `"status": "live"`, otherwise `"queued"`. A
//! connection reads its recipient's queue in sequence order (the order the hub accepted
//! the messages), backlog first, right after the registration answer; live messages
//! follow on the same path, so per-recipient order holds across reconnects.
//!
//! **Frames.** WebSocket text frames are JSON objects tagged by `type` (see
//! [`wire::ServerFrame`], [`wire::ClientFrame`] and [`socket`](crate::socket)): the
//! client sends `register` then `ack`s; the hub sends `registered`, `message`,
//! `presence` and, before closing on purpose, `error`. Close codes: 4001 replaced, 4003
//! revoked, 4009 refused, 1008 malformed frame, 1001 hub shutting down.
//!
//! **Acknowledgement.** The client appends each message to `inbox.jsonl`, `fsync`s,
//! prints it, and only then sends `{"type": "ack", "ids": [id]}`; the hub deletes the
//! message. A client that dies before acknowledging gets the message again on its next
//! connection; the inbox writes a message whose id it already holds only once and does
//! not print it again, so nothing is lost and nothing shows twice.
//!
//! **Limits.** Per recipient, at most `queue_cap` (100) messages wait, for at most
//! `queue_age` (24 h); beyond the cap the oldest are dropped first, and the `send` that
//! caused it lists them in `dropped`. Drop notices are counted apart from messages (a
//! notice never pushes out a message, and no notice is made about a dropped notice).
//! Content (64 KiB), context (16 KiB) and request bodies are bounded (413), each device
//! has a token-bucket rate limit (429 with `Retry-After`), and every refusal is a JSON
//! body `{"error": {"code", "message"}}` with its HTTP status ([`wire::RefusalCode`]).
//!
//! **Read marks.** `tnsai inbox` keeps the byte offset up to which it has shown
//! messages in a sidecar file `inbox.jsonl.read`; `--unread` starts there. The inbox is
//! append-only, so an offset is enough; if the file is replaced by a shorter one, the
//! mark resets.
//!
//! **Secrets.** Device tokens are 32 random bytes; the hub stores only SHA-256 hashes
//! of tokens and invite codes and compares in constant time. Config files are 0600.
//! Neither [`auth::DeviceToken`] nor [`auth::InviteCode`] shows its secret in `Debug`,
//! and nothing logs them. Revocation (`tnsai hub revoke`) takes effect at once: every
//! request checks the database, and the hub closes the device's connections within its
//! revocation poll (250 ms).

pub mod auth;
pub mod cli;
pub mod client;
pub mod config;
mod delivery;
mod hub;
pub mod identity;
pub mod inbox;
mod ratelimit;
mod server;
pub mod socket;
pub mod store;
pub mod wire;

pub use client::{HubClient, Session};
pub use config::{ClientConfig, HubConfig, Limits};
pub use hub::{Hub, RunningHub, ServeError};
pub use identity::Identity;
pub use inbox::Inbox;
pub use store::Store;
