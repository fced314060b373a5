//! The Ahoy prompts: a system prompt built once per enactment, and a user prompt per
//! decision. Both are plain text, meant to be printed and read.

mod system;
mod user;

use std::collections::BTreeMap;

use serde_json::Value;
use tnsai_bspl::decision::Event;
use tnsai_bspl::{Adapter, MessageInstance};

use super::options::DecisionOption;
use super::termination::Terminations;
use super::tools::ToolRegistry;

/// An event from outside the protocols (a user request, a stock update), as prompts
/// show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalEvent {
    /// Its name, as injected.
    pub name: String,
    /// Its details.
    pub payload: Value,
}

/// What one decision is about: the input of [`PromptBuilder::user_prompt`].
#[derive(Debug, Clone, Copy)]
pub struct Situation<'a> {
    event: &'a Event,
    adapter: &'a Adapter,
    options: &'a [DecisionOption],
    pending: &'a [ExternalEvent],
    chosen: &'a [MessageInstance],
}

impl<'a> Situation<'a> {
    /// The agent of `adapter` deciding about `event`, with `options` to choose from.
    pub fn new(event: &'a Event, adapter: &'a Adapter, options: &'a [DecisionOption]) -> Self {
        Self {
            event,
            adapter,
            options,
            pending: &[],
            chosen: &[],
        }
    }

    /// External events that arrived and wait for their own decision.
    pub fn with_pending(mut self, pending: &'a [ExternalEvent]) -> Self {
        self.pending = pending;
        self
    }

    /// Messages already chosen while handling this event (they are in `adapter` too).
    pub fn with_chosen(mut self, chosen: &'a [MessageInstance]) -> Self {
        self.chosen = chosen;
        self
    }
}

/// Builds the Ahoy prompts.
///
/// The system prompt holds, in order: what the agent is; BSPL's semantics of `in`,
/// `out`, `nil` and keys in a few lines; the agent's roles and when each one's part is
/// over; every protocol it plays, with one comment per message saying what the message
/// means for the agent (computed from the adornments, plus any note added with
/// [`with_note`](Self::with_note)); the tools and how to request them; how external
/// events are treated; the answer format; and the user's goal.
///
/// The user prompt holds the event, the history of the enactments the event concerns
/// (every message with its bindings, and the key values in use), the external events
/// still waiting, and the numbered options, each with its known `in` values and the
/// `out` parameters to fill.
///
/// ```
/// use std::sync::Arc;
/// use tnsai_coordination::bspl::llm::PromptBuilder;
/// use tnsai_coordination::bspl::{Adapter, Specification};
///
/// let spec = Specification::parse(include_str!("../../../../../tnsai-bspl/protocols/purchase.bspl"))?;
/// let mut adapter = Adapter::new("buyer");
/// adapter.play(Arc::new(spec.into_protocol("Purchase").unwrap()), &["Buyer"])?;
/// let prompts = PromptBuilder::new("Buy a kite for at most 30 EUR.")
///     .with_note("Purchase", "accept", "Ship to 1 Main St.");
/// let system = prompts.system_prompt(&adapter);
/// assert!(system.contains("Buyer -> Seller: completed[in ID key, in item, in price, out satisfaction]"));
/// assert!(system.contains("Nothing makes it wait for deliver"));
/// assert!(system.ends_with("Buy a kite for at most 30 EUR.\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct PromptBuilder {
    goal: String,
    notes: BTreeMap<(String, String), String>,
    tools: ToolRegistry,
    terminations: Terminations,
    history_limit: usize,
}

impl PromptBuilder {
    /// Enactments shown per protocol in a user prompt, by default (the most recent).
    pub const DEFAULT_HISTORY_LIMIT: usize = 12;

    /// Prompts for an agent pursuing `goal` (natural language, from its user).
    pub fn new(goal: impl Into<String>) -> Self {
        Self {
            goal: goal.into(),
            notes: BTreeMap::new(),
            tools: ToolRegistry::new(),
            terminations: Terminations::new(),
            history_limit: Self::DEFAULT_HISTORY_LIMIT,
        }
    }

    /// Adds `note` to the comment on `message` of `protocol` (domain knowledge the
    /// adornments cannot say, such as "only after payment cleared").
    pub fn with_note(
        mut self,
        protocol: impl Into<String>,
        message: impl Into<String>,
        note: impl Into<String>,
    ) -> Self {
        self.notes
            .insert((protocol.into(), message.into()), note.into());
        self
    }

    /// The tools the system prompt lists.
    pub fn with_tools(mut self, tools: ToolRegistry) -> Self {
        self.tools = tools;
        self
    }

    /// The termination conditions the prompts state (inferred ones by default).
    pub fn with_terminations(mut self, terminations: Terminations) -> Self {
        self.terminations = terminations;
        self
    }

    /// How many enactments per protocol a user prompt shows (at least 1).
    pub fn with_history_limit(mut self, limit: usize) -> Self {
        self.history_limit = limit.max(1);
        self
    }

    /// The goal.
    pub fn goal(&self) -> &str {
        &self.goal
    }

    /// The tools.
    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    /// The termination conditions.
    pub fn terminations(&self) -> &Terminations {
        &self.terminations
    }

    /// The system prompt for the agent `adapter` belongs to, playing the roles it plays.
    pub fn system_prompt(&self, adapter: &Adapter) -> String {
        system::write(self, adapter)
    }

    /// The user prompt for one decision.
    pub fn user_prompt(&self, situation: &Situation<'_>) -> String {
        user::write(self, situation)
    }

    /// The line of a user prompt that states the event.
    pub fn event_line(&self, event: &Event, adapter: &Adapter) -> String {
        user::event_line(event, adapter)
    }

    pub(crate) fn note(&self, protocol: &str, message: &str) -> Option<&str> {
        self.notes
            .get(&(protocol.to_owned(), message.to_owned()))
            .map(String::as_str)
    }

    pub(crate) fn history_limit(&self) -> usize {
        self.history_limit
    }
}
