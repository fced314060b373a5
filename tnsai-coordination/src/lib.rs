//! The tnsai runtime: the [`Platform`] that hosts agents, the [`ProtocolManager`] that
//! speaks their paradigms, and the transports that carry their messages.
//!
//! ```
//! use tnsai_coordination::Platform;
//! use tnsai_core::prelude::*;
//!
//! #[direct_message]
//! #[request_reply(timeout = 2000)]
//! #[derive(Default)]
//! struct BillingAgent;
//!
//! #[actions]
//! impl BillingAgent {
//!     /// Charges an order.
//!     #[action(name = "processOrder")]
//!     async fn process_order(&self, params: Params) -> ActionResult {
//!         Ok(serde_json::json!({ "orderId": params.require_str("orderId")?, "status": "charged" }))
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let platform = Platform::new();
//! let billing = platform.spawn("billing-agent", BillingAgent::default()).await?;
//! let orders = platform.spawn("order-agent", BillingAgent::default()).await?;
//! let pm = orders.protocol_manager().expect("annotated agent");
//!
//! let reply = pm.request("billing-agent", "processOrder", params! { "orderId" => "12345" }).await?;
//! assert_eq!(reply.payload()["status"], "charged");
//! assert_eq!(reply.sender(), billing.id());
//!
//! let error = pm.request("nobody", "processOrder", Params::new()).await.unwrap_err();
//! assert_eq!(error.to_string(), "Unknown receiver: nobody");
//! platform.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! How a call travels: the manager's handler for the paradigm turns it into a
//! [`Message`](tnsai_core::Message); the platform's router hands it to a [`Transport`]
//! (in-process for local agents); the receiving platform puts it in the receiver's
//! bounded mailbox; the receiver runs the action (concurrently with its other actions, at
//! most [`PlatformConfig::max_concurrent_actions`] at once), its language model, or its
//! `#[on_message_received]` callback (one at a time, in arrival order); the answer comes
//! back the same way and completes exactly the call that asked.
//!
//! Two shortcuts keep local calls cheap without changing what they mean. A call to an
//! idle agent (nothing in its mailbox, an action slot free) skips the mailbox; and a
//! caller that waits for the answer drives that action in its own task instead of
//! starting a new one. An action always runs to the end: if its caller stops waiting (a
//! timeout, a cancelled future, an HTTP client that hangs up), the rest of the action is
//! handed to the runtime as a task of its own.
//!
//! Each message gets a `tracing` span (`tnsai.call`, `tnsai.publish`, `tnsai.receive`)
//! with `agent_id`, `paradigm` and `message_id`; the library installs no subscriber.

pub mod acl;
mod answer;
pub mod bspl;
pub mod debate;
mod delivery;
mod description;
mod detached;
mod directory;
mod dispatch;
mod error;
mod handler;
mod hosted;
mod link;
mod manager;
#[cfg(feature = "openai")]
pub mod openai;
mod pending;
mod platform;
pub mod transport;

pub use debate::{DebateEvent, DebateEvents, DebateSession, DebateStatus};
pub use delivery::DeliveryReport;
pub use description::{ActionDescription, AgentDescription, SubscriptionMatcher};
pub use error::{ProtocolError, SpawnError, TransportError, TransportErrorKind};
pub use manager::ProtocolManager;
pub use platform::{AgentHandle, Platform, PlatformConfig};
pub use transport::Transport;

/// FIPA ACL: messages, the ACL string encoding and conversation protocols (contract net
/// included). The `tnsai-fipa` crate, re-exported.
pub use tnsai_fipa as fipa;
