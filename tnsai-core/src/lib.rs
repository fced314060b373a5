//! The vocabulary of tnsai: agents, messages, parameters, paradigms, protocol specs and
//! the language-model trait. No runtime lives here; the `tnsai-coordination` crate runs
//! agents.
//!
//! An agent is a struct with protocol attributes. The attributes generate an [`Agent`]
//! implementation whose paths all start at `::tnsai_core`, so agents can be defined in a
//! crate that depends on this one alone:
//!
//! ```
//! use tnsai_core::prelude::*;
//!
//! /// Charges orders.
//! #[direct_message]
//! #[request_reply(timeout = 5000)]
//! #[derive(Default)]
//! struct BillingAgent;
//!
//! #[actions]
//! impl BillingAgent {
//!     /// Processes an order and reports its status.
//!     #[action(name = "processOrder")]
//!     async fn process_order(&self, params: Params) -> ActionResult {
//!         let order = params.require_str("orderId")?;
//!         Ok(serde_json::json!({ "orderId": order, "status": "charged" }))
//!     }
//! }
//!
//! let agent = BillingAgent;
//! assert!(agent.protocol_specs().paradigms().contains(&Paradigm::RequestReply));
//! assert_eq!(agent.actions()[0].name(), "processOrder");
//! ```
//!
//! Attributes (each at most once, any order, every argument optional):
//!
//! | attribute | arguments |
//! |---|---|
//! | `#[direct_message]` | `endpoint = ""`, `transport = Auto`, `durable = false` |
//! | `#[broadcast]` | `topic = "default"`, `broker = ""`, `transport = Auto`, `can_publish = true`, `can_subscribe = true` |
//! | `#[pub_sub]` | `topics = [..]`, `broker`, `transport`, `can_publish`, `can_subscribe`, `filter` |
//! | `#[request_reply]` | `timeout = 30000` (ms, > 0), `endpoint`, `transport` |
//! | `#[debate]` | `max_rounds = 5`, `consensus_threshold`, `strategy = Supermajority`, `round_timeout_ms`, `can_initiate = true`, `can_vote = true`, `broker`, `transport` |
//! | `#[agent]` | none: an agent without protocol attributes |
//!
//! `topics` are NATS-style patterns ([`TopicPattern`]) and `filter` is a
//! [`PayloadFilter`]; both are checked at compile time.

#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate self as tnsai_core;

mod action;
mod agent;
mod consensus;
mod id;
mod message;
mod model;
mod paradigm;
mod params;
mod spec;

pub use action::{ActionError, ActionResult};
pub use agent::{ActionFuture, ActionInfo, Agent, CallbackFuture};
pub use consensus::ConsensusStrategy;
pub use id::AgentId;
pub use message::{Message, MessageBuilder, MessageId, MessageKind};
pub use model::{
    BoxFuture, ChatMessage, ChatRole, CompletionRequest, LanguageModel, ModelError, ModelErrorKind,
    ScriptedModel,
};
pub use paradigm::{Paradigm, TransportMode, UnknownParadigm};
pub use params::Params;
pub use spec::{
    BroadcastSpec, DebateSpec, DirectSpec, ProtocolSpecs, PubSubSpec, RequestReplySpec, SpecError,
};
pub use tnsai_patterns::{FilterError, PayloadFilter, TopicError, TopicPattern, validate_topic};

#[cfg(feature = "macros")]
pub use tnsai_macros::{
    action, actions, agent, broadcast, debate, direct_message, language_model, on_message_received,
    pub_sub, request_reply,
};

/// Everything an agent definition needs: `use tnsai_core::prelude::*;`.
pub mod prelude {
    pub use crate::{
        ActionError, ActionResult, Agent, AgentId, ConsensusStrategy, LanguageModel, Message,
        MessageKind, Paradigm, Params, ScriptedModel, TransportMode, params,
    };

    #[cfg(feature = "macros")]
    pub use tnsai_macros::{
        action, actions, agent, broadcast, debate, direct_message, language_model,
        on_message_received, pub_sub, request_reply,
    };
}

/// Support for the code the attributes generate. Not a public API: it may change in any
/// release.
#[doc(hidden)]
pub mod __private {
    pub use serde_json;
    pub use std::sync::Arc;

    use crate::{ActionFuture, ActionInfo, CallbackFuture, LanguageModel, Message, Params};

    /// The answers for an agent without an `#[actions]` block.
    ///
    /// The struct attribute calls `Self::__tnsai_*` functions by path. When an `#[actions]`
    /// block exists it defines them as inherent functions, which path resolution prefers
    /// over trait functions; otherwise these blanket defaults answer. This is how the
    /// struct attribute finds the optional impl block without the user naming it.
    pub trait NoActions {
        /// No actions.
        fn __tnsai_actions() -> &'static [ActionInfo] {
            &[]
        }
        /// No action runs.
        fn __tnsai_invoke_action(
            self: Arc<Self>,
            name: &str,
            params: Params,
        ) -> Option<ActionFuture> {
            let _ = (name, params);
            None
        }
        /// No callback.
        fn __tnsai_on_message_received(
            self: Arc<Self>,
            message: Message,
        ) -> Option<CallbackFuture> {
            let _ = message;
            None
        }
        /// No model.
        fn __tnsai_language_model(&self) -> Option<Arc<dyn LanguageModel>> {
            None
        }
    }

    impl<T: ?Sized> NoActions for T {}

    /// A compile-time guard for generic agents; never implement it by hand.
    ///
    /// The generated `impl Agent` knows only the struct's own bounds (plus `Send + Sync +
    /// 'static`), so an `#[actions]` block that requires more of a type parameter is
    /// invisible to it: path resolution would silently fall back to [`NoActions`]. To make
    /// that a compile error, the struct attribute implements this trait for a generic
    /// agent whose struct declares no bounds beyond `Send`/`Sync`/lifetimes, and
    /// `#[actions]` implements it for a block that requires more. Both together are a
    /// "conflicting implementations" error whose trait name says the fix.
    pub trait ActionsBoundsMustBeDeclaredOnTheStruct {}

    /// Makes an action's future `Send + 'static` behind a box, keeping the error span on
    /// the user's method when its future is not `Send`.
    pub fn box_action<F>(future: F) -> ActionFuture
    where
        F: std::future::Future<Output = crate::ActionResult> + Send + 'static,
    {
        Box::pin(future)
    }

    /// Boxes a callback's future.
    pub fn box_callback<F>(future: F) -> CallbackFuture
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        Box::pin(future)
    }
}
