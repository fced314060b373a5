//! BSPL information protocols, enacted over the platform's transport.
//!
//! Everything of the `tnsai-bspl` crate is re-exported here: parsing and printing
//! protocols ([`Specification`]), verification ([`verify`]), the transport-free
//! [`Adapter`] and the synchronous decision makers of [`decision`]. This module adds
//! the networking: an [`Enactor`] connects an agent's adapter and decision makers to
//! its [`ProtocolManager`](crate::ProtocolManager), sends what they bind to the agents a
//! [`Roster`] names for the recipient roles, and feeds what arrives back in.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use tnsai_coordination::Platform;
//! use tnsai_coordination::bspl::decision::{Agent, DecisionContext, Trigger};
//! use tnsai_coordination::bspl::{Adapter, Roster, Specification, Termination};
//! use tnsai_core::prelude::*;
//!
//! #[direct_message]
//! struct Peer;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let spec = Specification::parse(
//!     "Greeting { roles A, B parameters out id key, out answer \
//!      A -> B: hello[out id key] \
//!      B -> A: reply[in id key, out answer] }",
//! )?;
//! let greeting = Arc::new(spec.into_protocol("Greeting").ok_or("missing")?);
//! let roster = Roster::new().with("Greeting", "A", "alice").with("Greeting", "B", "bob");
//! let platform = Platform::new();
//!
//! let mut adapter = Adapter::new("alice");
//! adapter.play(Arc::clone(&greeting), &["A"])?;
//! adapter.set_termination("Greeting", "A", Termination::Received("reply".into()))?;
//! let mut alice = Agent::new(adapter);
//! alice.on(Trigger::Init, |c: &DecisionContext<'_>| {
//!     c.enabled_named("hello").map(|f| f.bind([("id", "1")])).collect()
//! });
//!
//! let mut adapter = Adapter::new("bob");
//! adapter.play(Arc::clone(&greeting), &["B"])?;
//! let mut bob = Agent::new(adapter);
//! bob.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
//!     c.enabled_named("reply").map(|f| f.bind([("answer", "hi")])).collect()
//! });
//!
//! let alice_pm = platform.spawn("alice", Peer).await?.protocol_manager().unwrap();
//! let bob_pm = platform.spawn("bob", Peer).await?.protocol_manager().unwrap();
//! let alice = alice_pm.enact(alice, roster.clone())?;
//! bob_pm.enact(bob, roster)?.start().await?;
//! alice.start().await?;
//! alice.wait_done(Duration::from_secs(5)).await?;
//! # Ok(())
//! # }
//! ```

mod enactor;
pub mod llm;
mod roster;

pub use enactor::{AsyncDecisionMaker, EnactmentContext, EnactmentEvent, Enactor};
pub use roster::Roster;
pub use tnsai_bspl::*;
