//! LLM-driven BSPL enactment, as in the Ahoy paper: a language model decides which
//! enabled message the agent sends and how it binds the `out` parameters, so the same
//! code enacts any protocol, several at once, and reacts to external events.
//!
//! The parts, each usable alone:
//!
//! * [`PromptBuilder`]: the system prompt (BSPL semantics, the agent's roles, the
//!   protocols annotated one comment per message, tools, external events, the answer
//!   format, the user's goal) and the user prompt of each decision (the event, the
//!   history with bindings, pending external events, the numbered options);
//! * [`parse_answer`]: the model's JSON answer, found inside prose or code fences;
//! * [`ToolRegistry`]: local Rust functions the model may ask to run first;
//! * [`LlmDecisionMaker`]: the [`AsyncDecisionMaker`](super::AsyncDecisionMaker) tying
//!   them together, with validation before anything reaches the adapter;
//! * [`infer_termination`] and [`Terminations`]: when a role's part is over;
//! * [`RoleCatalog`]: which roles to play for a goal.
//!
//! Any [`LanguageModel`](tnsai_core::LanguageModel) works: the
//! `OpenAiClient` of the `openai` feature for a real server, a
//! [`ScriptedModel`](tnsai_core::ScriptedModel) for tests and offline runs.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Duration;
//! use tnsai_coordination::Platform;
//! use tnsai_coordination::bspl::decision::{Agent, DecisionContext, Trigger};
//! use tnsai_coordination::bspl::llm::{LlmDecisionMaker, Terminations};
//! use tnsai_coordination::bspl::{Adapter, Roster, Specification};
//! use tnsai_core::prelude::*;
//! use tnsai_core::ScriptedModel;
//!
//! #[direct_message]
//! struct Peer;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let spec = Specification::parse(
//!     "Ask { roles A, B parameters out id key, out question, out answer \
//!      A -> B: ask[out id key, out question] \
//!      B -> A: reply[in id key, in question, out answer] }",
//! )?;
//! let ask = Arc::new(spec.into_protocol("Ask").ok_or("missing")?);
//! let roster = Roster::new().with("Ask", "A", "alice").with("Ask", "B", "bob");
//! let platform = Platform::new();
//!
//! // Alice is driven by a (scripted) language model.
//! let mut adapter = Adapter::new("alice");
//! adapter.play(Arc::clone(&ask), &["A"])?;
//! Terminations::new().apply(&mut adapter)?; // A is done once it received reply
//! let model = Arc::new(
//!     ScriptedModel::new()
//!         .when_contains("already chosen", r#"{"choice": null}"#)
//!         .when_contains("event: start", r#"{"choice": 1, "params": {"id": "q1", "question": "time?"}}"#)
//!         .otherwise(r#"{"choice": null}"#),
//! );
//! let alice = platform.spawn("alice", Peer).await?.protocol_manager().unwrap()
//!     .enact(Agent::new(adapter), roster.clone())?;
//! alice.on_async(Trigger::Any, LlmDecisionMaker::new(model, "Ask Bob what time it is."));
//!
//! // Bob follows a rule.
//! let mut adapter = Adapter::new("bob");
//! adapter.play(ask, &["B"])?;
//! let mut bob = Agent::new(adapter);
//! bob.on(Trigger::EnabledChanged, |c: &DecisionContext<'_>| {
//!     c.enabled_named("reply").map(|f| f.bind([("answer", "noon")])).collect()
//! });
//! platform.spawn("bob", Peer).await?.protocol_manager().unwrap().enact(bob, roster)?.start().await?;
//!
//! alice.start().await?;
//! alice.wait_done(Duration::from_secs(5)).await?;
//! # Ok(())
//! # }
//! ```

mod answer;
mod causality;
mod decision_maker;
pub mod options;
mod prompt;
mod roles;
mod termination;
mod tools;
mod validate;
mod wording;

pub use answer::{Answer, AnswerError, AnswerErrorKind, Choice, parse_answer};
pub use decision_maker::{
    DecisionOutcome, DecisionRecord, DecisionReport, LlmDecisionMaker, ToolCall,
};
pub use options::DecisionOption;
pub use prompt::{ExternalEvent, PromptBuilder, Situation};
pub use roles::{
    RoleCandidate, RoleCatalog, RoleSelection, RoleSelectionError, RoleSelectionErrorKind,
    RoleSuggestion,
};
pub use termination::{Terminations, describe_termination, infer_termination};
pub use tools::{Tool, ToolError, ToolErrorKind, ToolRegistry, ToolRequest};
pub use validate::{AnswerProblem, AnswerProblemKind};
