//! tnsai: agents that talk to each other.
//!
//! This umbrella crate re-exports the two crates applications use, and hosts the
//! workspace's examples and integration tests:
//!
//! * [`core`] (`tnsai-core`): the vocabulary and the protocol attributes;
//! * [`coordination`] (`tnsai-coordination`): the platform, the protocol manager and the
//!   transports.
//!
//! ```
//! use tnsai::coordination::Platform;
//! use tnsai::core::prelude::*;
//!
//! #[direct_message]
//! struct Greeter;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let platform = Platform::new();
//! let greeter = platform.spawn("greeter", Greeter).await?;
//! assert!(greeter.protocol_manager().unwrap().has_paradigm("DIRECT"));
//! # Ok(())
//! # }
//! ```

pub use tnsai_coordination as coordination;
pub use tnsai_core as core;
