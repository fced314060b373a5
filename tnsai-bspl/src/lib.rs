//! BSPL (Blindingly Simple Protocol Language) information protocols, without
//! a network.
//!
//! A BSPL protocol specifies an interaction by roles, messages and
//! parameters. Parameters carry adornments: `in` (the sender must already
//! know the binding), `out` (the sender creates it; one binding per
//! enactment, never changed) and `nil` (the sender must not know it). Key
//! parameters identify an enactment. An agent may send exactly the messages
//! its local knowledge enables.
//!
//! This crate holds everything that needs no transport:
//!
//! * reading protocols ([`Specification::parse`]): the language as the
//!   reference Python tool (`bspl` 1.1.0) accepts it, plus the brace-less
//!   listing style of the Ahoy paper, with positioned errors
//!   ([`LoadError`], [`ParseError`]); printing them back (`Display`);
//! * the protocol model ([`Protocol`], [`Message`], [`RoleView`]), easy to
//!   walk for prompt builders;
//! * verification ([`verify`]): well-formedness, safety, liveness, unbound
//!   and unused parameters, with counterexample paths;
//! * the adapter core ([`Adapter`], [`Knowledge`]): local history per
//!   enactment, enabled message forms, checked emission and reception,
//!   termination conditions;
//! * decision makers ([`decision`]), as in the Kiko programming model.
//!
//! `tnsai_coordination::bspl` re-exports this crate and adds networking.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use tnsai_bspl::{Adapter, Specification, verify};
//!
//! let spec = Specification::parse(
//!     "Purchase {
//!        roles Buyer, Seller
//!        parameters out ID key, out item, out price
//!        Buyer -> Seller: rfq[out ID, out item]
//!        Seller -> Buyer: quote[in ID, in item, out price]
//!      }",
//! )?;
//! let purchase = spec.protocol("Purchase").ok_or("missing")?;
//!
//! let report = verify::verify(purchase)?;
//! assert!(report.safety.is_safe() && report.liveness.is_live());
//!
//! let purchase = Arc::new(purchase.clone());
//! let mut buyer = Adapter::new("alice");
//! buyer.play(purchase.clone(), &["Buyer"])?;
//! let mut seller = Adapter::new("bob");
//! seller.play(purchase, &["Seller"])?;
//!
//! // The buyer may start an enactment: rfq is enabled with nothing bound.
//! let rfq = buyer.enabled().into_iter().find(|f| f.message == "rfq").ok_or("rfq")?;
//! let sent = buyer.emit(rfq.bind([("ID", "1"), ("item", "ball")]))?;
//! seller.receive(sent.message().clone())?;
//!
//! // Now the seller knows ID and item, so quote is enabled for ID 1.
//! let quote = seller.enabled().into_iter().find(|f| f.message == "quote").ok_or("quote")?;
//! assert_eq!(quote.ins.get("item").map(String::as_str), Some("ball"));
//! assert_eq!(quote.outs, ["price"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod adapter;
pub mod decision;
mod knowledge;
mod message;
mod parser;
mod printer;
mod protocol;
mod resolve;
mod syntax;
pub mod verify;

pub use adapter::{Adapter, EmitError, Emitted, ReceiveError, Received, SetupError, Termination};
pub use knowledge::{Direction, Enactment, KeyBinding, Knowledge, Observation};
pub use message::{Bindings, EnabledMessage, MessageInstance};
pub use parser::ParseError;
pub use protocol::{
    Adornment, Declaration, LoadError, Message, MessageDeclaration, MessageParameter, Parameter,
    Protocol, Reference, RoleView, Specification,
};
pub use syntax::Position;
