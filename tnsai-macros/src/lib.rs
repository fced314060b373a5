//! The protocol attributes of tnsai: `#[direct_message]`, `#[broadcast]`, `#[pub_sub]`,
//! `#[request_reply]`, `#[debate]`, `#[agent]` and `#[actions]`.
//!
//! Use them through `tnsai_core` (`use tnsai_core::prelude::*;`), which re-exports them
//! with its default `macros` feature. Generated code names every path from
//! `::tnsai_core`, so an agent can be defined in a crate that depends on tnsai-core alone.
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
//!     /// Charges an order.
//!     #[action(name = "processOrder")]
//!     async fn process_order(&self, params: Params) -> ActionResult {
//!         Ok(serde_json::json!({ "order": params.require_str("orderId")?, "status": "charged" }))
//!     }
//! }
//!
//! let agent = BillingAgent;
//! assert!(agent.protocol_specs().request_reply().is_some());
//! assert_eq!(agent.actions()[0].name(), "processOrder");
//! assert_eq!(agent.actions()[0].description(), "Charges an order.");
//! ```
//!
//! # Struct attributes
//!
//! Each at most once, in any order and combination, on a struct or an enum; every
//! argument is optional:
//!
//! | attribute | arguments (defaults) |
//! |---|---|
//! | `#[direct_message]` | `endpoint = ""`, `transport = Auto`, `durable = false` |
//! | `#[broadcast]` | `topic = "default"`, `broker = ""`, `transport = Auto`, `can_publish = true`, `can_subscribe = true` |
//! | `#[pub_sub]` | `topics = [..]` (none), `broker`, `transport`, `can_publish`, `can_subscribe`, `filter` |
//! | `#[request_reply]` | `timeout = 30000` (ms, > 0), `endpoint`, `transport` |
//! | `#[debate]` | `max_rounds = 5` (≥ 1), `consensus_threshold` (in (0, 1], none), `strategy = Supermajority`, `round_timeout_ms` (> 0, none), `can_initiate = true`, `can_vote = true`, `broker`, `transport` |
//! | `#[agent]` | none: an agent without protocol attributes |
//!
//! `transport` is one of `Auto`, `Internal`, `Http`, `Nats` (or `TransportMode::Http`);
//! `Http` and `Nats` need a non-empty `endpoint` (`#[direct_message]`,
//! `#[request_reply]`) or `broker` (the others). `strategy` is one of `Majority`,
//! `Supermajority`, `WeightedConfidence`, `Unanimous` (or `ConsensusStrategy::Majority`).
//! `#[pub_sub]` topics are NATS-style patterns (`tnsai_core::TopicPattern`), the
//! `#[broadcast]` topic may not hold wildcards, and `filter` is a
//! `tnsai_core::PayloadFilter`; all three are checked at compile time.
//!
//! The outermost tnsai attribute expands first: it finds its siblings by the last segment
//! of their paths, removes them, and generates one `impl tnsai_core::Agent`. Other
//! attributes (`#[derive]`, docs, serde's) are left alone.
//!
//! Type parameters of an agent are bounded `Send + Sync + 'static` in the generated
//! impls (an agent is shared between tasks), and lifetimes must be `'static`.
//!
//! # Generic agents
//!
//! The generated `impl Agent` is generic over the agent's parameters and knows only the
//! bounds the struct declares, plus `Send + Sync + 'static`. An `#[actions]` block must
//! therefore be written for every instantiation (`impl<T> Wrapper<T>`, not
//! `impl Wrapper<u32>`; the latter is an error) and must not require more of its type
//! parameters than the struct declares: if it needs `T: Display`, declare
//! `struct Wrapper<T: Display>` as well. When the struct declares no such bound, a block
//! that requires one is a compile error ("conflicting implementations of trait
//! `ActionsBoundsMustBeDeclaredOnTheStruct`"); when the struct declares some bounds but
//! not all that the block needs, the compiler cannot tell and the agent has no actions,
//! so keep the two lists equal.
//!
//! # `#[actions]`
//!
//! Optional, on the agent's inherent impl block (at most one block per type). Inside it:
//!
//! * `#[action]`, `#[action(name = "processOrder")]`, `#[action(role = "billing-role")]`
//!   on `async fn name(&self, params: Params) -> ActionResult`. The default name is the
//!   method's name; names are unique within the block. The method's doc comment becomes
//!   the action's description: each line trimmed, leading and trailing blank lines
//!   dropped, lines joined with `\n`.
//! * `#[on_message_received]` on `async fn name(&self, message: Message)`, at most one.
//! * `#[language_model]` on `fn name(&self) -> Arc<dyn LanguageModel>` (any type that
//!   coerces to it, such as `Arc<ScriptedModel>`), at most one.
//!
//! The struct attribute finds the block without being told: `#[actions]` defines hidden
//! inherent functions (`__tnsai_actions`, `__tnsai_invoke_action`, and
//! `__tnsai_on_message_received` / `__tnsai_language_model` when marked), and the
//! generated `impl Agent` calls them as `Self::__tnsai_*`. Path resolution prefers
//! inherent functions over the blanket defaults of `tnsai_core::__private::NoActions`, so
//! an agent without `#[actions]` has no actions. A second `#[actions]` block for the same
//! type is a "duplicate definitions with name `__tnsai_actions`" error on both blocks.
//!
//! # Errors
//!
//! Every misuse is a compile error on the offending token: unknown keys (the message lists
//! the valid ones), values of the wrong type, duplicate keys or attributes, out-of-range
//! numbers, invalid topics and filters, a remote transport without an address, and
//! malformed `#[actions]` methods. All errors of an attribute are reported together, and
//! the item is still emitted so that the rest of the crate type-checks.

mod actions_attr;
mod agent_attr;
mod args;
mod bounds;
mod codegen;
mod errors;
mod expand;

use proc_macro::TokenStream;

use crate::actions_attr::Marker;
use crate::agent_attr::Kind;

/// Direct messaging: other agents run this agent's actions and send it text.
///
/// Arguments: `endpoint = ""` (the HTTP base URL or NATS server URL for remote
/// transports), `transport = Auto`, `durable = false`.
///
/// ```
/// use tnsai_core::prelude::*;
///
/// #[direct_message(endpoint = "http://127.0.0.1:8080", transport = Http)]
/// struct Remote;
///
/// let spec = Remote.protocol_specs();
/// assert_eq!(spec.direct().unwrap().transport(), TransportMode::Http);
/// ```
#[proc_macro_attribute]
pub fn direct_message(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::agent(Kind::DirectMessage, args.into(), item.into()).into()
}

/// Broadcast: one message to every agent listening on the topic.
///
/// Arguments: `topic = "default"` (no wildcards), `broker = ""`, `transport = Auto`,
/// `can_publish = true`, `can_subscribe = true`.
///
/// ```
/// use tnsai_core::prelude::*;
///
/// #[broadcast(topic = "news", can_publish = false)]
/// struct Reader;
///
/// let specs = Reader.protocol_specs();
/// assert_eq!(specs.broadcast().unwrap().topic(), "news");
/// ```
#[proc_macro_attribute]
pub fn broadcast(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::agent(Kind::Broadcast, args.into(), item.into()).into()
}

/// Publish/subscribe: publishing to topics and subscribing to NATS-style patterns.
///
/// Arguments: `topics = ["alerts.>", "metrics.*"]` (none by default; not empty when
/// given), `broker`, `transport`, `can_publish = true`, `can_subscribe = true`, and
/// `filter` (a payload filter such as `"severity == \"high\""`).
///
/// ```
/// use tnsai_core::prelude::*;
///
/// #[pub_sub(topics = ["alerts.>"], filter = "severity == \"high\"")]
/// struct Pager;
///
/// let specs = Pager.protocol_specs();
/// assert_eq!(specs.pub_sub().unwrap().topics(), ["alerts.>"]);
/// ```
#[proc_macro_attribute]
pub fn pub_sub(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::agent(Kind::PubSub, args.into(), item.into()).into()
}

/// Request/reply: calls that wait for their reply.
///
/// Arguments: `timeout = 30000` (milliseconds, greater than 0), `endpoint`, `transport`.
///
/// ```
/// use std::time::Duration;
/// use tnsai_core::prelude::*;
///
/// #[request_reply(timeout = 5000)]
/// struct Quick;
///
/// let specs = Quick.protocol_specs();
/// assert_eq!(specs.request_reply().unwrap().timeout(), Duration::from_secs(5));
/// ```
#[proc_macro_attribute]
pub fn request_reply(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::agent(Kind::RequestReply, args.into(), item.into()).into()
}

/// Debate: taking part in debates and, as initiator, setting their rules.
///
/// Arguments: `max_rounds = 5` (at least 1), `consensus_threshold` (in (0, 1]),
/// `strategy = Supermajority`, `round_timeout_ms` (greater than 0), `can_initiate = true`,
/// `can_vote = true`, `broker`, `transport`.
///
/// ```
/// use tnsai_core::prelude::*;
///
/// #[debate(strategy = Majority, consensus_threshold = 0.6, max_rounds = 3)]
/// struct Judge;
///
/// let debate = Judge.protocol_specs().debate().cloned().unwrap();
/// assert_eq!(debate.strategy(), ConsensusStrategy::Majority);
/// assert_eq!(debate.consensus_threshold(), Some(0.6));
/// ```
#[proc_macro_attribute]
pub fn debate(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::agent(Kind::Debate, args.into(), item.into()).into()
}

/// An agent without protocol attributes (it can still have `#[actions]`). Takes no
/// arguments and cannot be combined with the protocol attributes.
///
/// ```
/// use tnsai_core::prelude::*;
///
/// #[agent]
/// struct Quiet;
///
/// assert!(Quiet.protocol_specs().is_empty());
/// ```
#[proc_macro_attribute]
pub fn agent(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::agent(Kind::Agent, args.into(), item.into()).into()
}

/// The agent's actions, message callback and language model, on its inherent impl block.
///
/// See the [crate documentation](crate#actions) for the methods it accepts.
///
/// ```
/// use std::sync::Arc;
/// use tnsai_core::prelude::*;
///
/// #[agent]
/// struct Helper;
///
/// #[actions]
/// impl Helper {
///     /// Says hello.
///     #[action(role = "greeter")]
///     async fn greet(&self, params: Params) -> ActionResult {
///         Ok(serde_json::json!(format!("hello {}", params.require_str("name")?)))
///     }
///
///     #[language_model]
///     fn model(&self) -> Arc<dyn LanguageModel> {
///         Arc::new(ScriptedModel::new().otherwise("hi"))
///     }
/// }
///
/// assert_eq!(Helper.actions()[0].role(), Some("greeter"));
/// assert!(Helper.language_model().is_some());
/// ```
#[proc_macro_attribute]
pub fn actions(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::actions(args.into(), item.into()).into()
}

/// Marks an action method inside an `#[actions]` block: `#[action]`,
/// `#[action(name = "processOrder")]`, `#[action(role = "billing-role")]`.
///
/// `#[actions]` consumes it; expanding on its own (outside such a block) is an error.
#[proc_macro_attribute]
pub fn action(_args: TokenStream, item: TokenStream) -> TokenStream {
    expand::misplaced_marker(Marker::Action, item.into()).into()
}

/// Marks the method that receives broadcasts and publications, inside an `#[actions]`
/// block. Expanding on its own (outside such a block) is an error.
#[proc_macro_attribute]
pub fn on_message_received(_args: TokenStream, item: TokenStream) -> TokenStream {
    expand::misplaced_marker(Marker::OnMessageReceived, item.into()).into()
}

/// Marks the method that returns the agent's language model, inside an `#[actions]`
/// block. Expanding on its own (outside such a block) is an error.
#[proc_macro_attribute]
pub fn language_model(_args: TokenStream, item: TokenStream) -> TokenStream {
    expand::misplaced_marker(Marker::LanguageModel, item.into()).into()
}
