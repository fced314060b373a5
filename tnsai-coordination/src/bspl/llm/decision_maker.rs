//! The LLM decision maker: asks a language model which enabled message to send, runs
//! the tools it asks for, checks its answer and hands the bound message to the adapter.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::{self, Write as _};
use std::sync::{Arc, Mutex, PoisonError};

use tnsai_bspl::decision::Event;
use tnsai_bspl::{Adapter, Emitted, EnabledMessage, MessageInstance};
use tnsai_core::{BoxFuture, ChatMessage, CompletionRequest, LanguageModel, ModelError};
use tokio::sync::broadcast;

use super::answer::parse_answer;
use super::options::{self, DecisionOption, FormId};
use super::prompt::{ExternalEvent, PromptBuilder, Situation};
use super::termination::Terminations;
use super::tools::{ToolRegistry, ToolRequest};
use super::validate::{AnswerProblem, Verdict, validate};
use crate::bspl::{AsyncDecisionMaker, EnactmentContext};

/// How one decision ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum DecisionOutcome {
    /// The model chose an option; the bound message went to the adapter.
    Chosen {
        /// The option's number in the prompt.
        option: usize,
        /// The option's label.
        label: String,
        /// The message, bound.
        message: MessageInstance,
        /// The model's reason, if it gave one.
        reason: Option<String>,
    },
    /// The model chose to send nothing now.
    Declined {
        /// The model's reason, if it gave one.
        reason: Option<String>,
    },
    /// The answer was still unusable after asking again once: nothing was sent.
    Dropped {
        /// What was wrong with the last answer.
        problems: Vec<AnswerProblem>,
    },
    /// The model failed (unreachable, refused, timed out...): nothing was sent.
    ModelFailed(ModelError),
}

/// A tool the model asked for during a decision, and what it gave.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolCall {
    /// The request.
    pub request: ToolRequest,
    /// The result, or the error text.
    pub result: Result<serde_json::Value, String>,
}

/// One decision: what was asked, what the model said, what came of it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DecisionRecord {
    /// The deciding agent.
    pub agent: String,
    /// The event, as the prompt stated it.
    pub event: String,
    /// The labels of the options shown, numbered from 1.
    pub options: Vec<String>,
    /// How it ended.
    pub outcome: DecisionOutcome,
    /// Tools run along the way.
    pub tool_calls: Vec<ToolCall>,
    /// The whole chat: system prompt, user prompt, every answer and follow-up.
    pub transcript: Vec<ChatMessage>,
}

impl DecisionRecord {
    /// The user prompt that opened the decision.
    pub fn user_prompt(&self) -> Option<&str> {
        self.transcript
            .iter()
            .find(|m| m.role == tnsai_core::ChatRole::User)
            .map(|m| m.content.as_str())
    }

    /// How many times the model was called.
    pub fn calls(&self) -> usize {
        self.transcript
            .iter()
            .filter(|m| m.role == tnsai_core::ChatRole::Assistant)
            .count()
    }
}

impl fmt::Display for DecisionRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} | {} -> ", self.agent, self.event)?;
        match &self.outcome {
            DecisionOutcome::Chosen {
                option,
                label,
                message,
                reason,
            } => {
                write!(f, "chose {option}. {label}")?;
                let outs: Vec<String> = message
                    .bindings
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect();
                write!(f, " [{}]", outs.join(", "))?;
                if let Some(reason) = reason {
                    write!(f, " ({reason})")?;
                }
                Ok(())
            }
            DecisionOutcome::Declined { reason } => {
                f.write_str("sent nothing")?;
                match reason {
                    Some(reason) => write!(f, " ({reason})"),
                    None => Ok(()),
                }
            }
            DecisionOutcome::Dropped { problems } => {
                let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
                write!(f, "dropped: {}", problems.join("; "))
            }
            DecisionOutcome::ModelFailed(error) => write!(f, "model failed: {error}"),
        }
    }
}

/// What [`LlmDecisionMaker::decide_on`] produced.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct DecisionReport {
    /// Messages to send, each checked against the history.
    pub messages: Vec<MessageInstance>,
    /// The decisions taken, in order.
    pub records: Vec<DecisionRecord>,
}

#[derive(Clone)]
struct Settings {
    model: Arc<dyn LanguageModel>,
    prompts: PromptBuilder,
    max_tool_rounds: usize,
    max_messages_per_event: usize,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
}

/// What a maker remembers about one agent between decisions.
#[derive(Default)]
struct Memory {
    /// Forms already shown in some prompt (kept only while enabled).
    offered: HashSet<FormId>,
    /// Messages chosen but not yet seen in a snapshot, with how many decisions ago.
    in_flight: Vec<(MessageInstance, usize)>,
    /// The most recent snapshot of the agent's adapter any decision was given.
    latest: Option<Adapter>,
}

impl Memory {
    /// The history to decide on: the newer of the event's snapshot and the newest one
    /// seen before, with what earlier decisions chose applied.
    ///
    /// Snapshots are taken when an event is handled, and decisions wait for their
    /// turn, so a decision may be given a snapshot older than one an earlier decision
    /// saw. An adapter only ever grows (every accepted message is appended), so of two
    /// snapshots the one with more observations is the newer.
    fn history(&mut self, snapshot: &Adapter) -> Adapter {
        let newer = match &self.latest {
            Some(latest) if observations(latest) > observations(snapshot) => latest.clone(),
            _ => snapshot.clone(),
        };
        self.latest = Some(newer.clone());
        let mut working = newer;
        // A chosen message leaves the list once a snapshot shows it; one that never
        // shows (the enactor refused it) is forgotten after a while.
        self.in_flight.retain_mut(|(message, age)| {
            *age += 1;
            match working.emit(message.clone()) {
                Ok(Emitted::Duplicate(_)) => false,
                Ok(Emitted::Sent(_)) => true,
                Err(_) => *age <= IN_FLIGHT_DECISIONS,
            }
        });
        working
    }
}

fn observations(adapter: &Adapter) -> usize {
    adapter
        .protocols()
        .filter_map(|p| adapter.knowledge(p.name()))
        .map(|k| k.observations().len())
        .sum()
}

struct Shared {
    /// Held for the whole of a decision: decisions run one at a time. Keyed by agent,
    /// so one maker may serve several agents without mixing what they were offered.
    turn: tokio::sync::Mutex<HashMap<String, Memory>>,
    pending: Mutex<Vec<(u64, String, ExternalEvent)>>,
    next_ticket: Mutex<u64>,
    /// System prompts by what they depend on (agent, protocols, roles).
    system: Mutex<HashMap<String, Arc<str>>>,
    records: Mutex<VecDeque<DecisionRecord>>,
    events: broadcast::Sender<DecisionRecord>,
}

/// Lets a language model enact BSPL protocols, as in the Ahoy paper: the same code
/// plays any protocol, several at once, and reacts to external events.
///
/// Register it like any asynchronous decision maker, for every event:
///
/// ```
/// use std::sync::Arc;
/// use tnsai_coordination::bspl::decision::Trigger;
/// use tnsai_coordination::bspl::llm::LlmDecisionMaker;
/// use tnsai_core::ScriptedModel;
///
/// let model = Arc::new(ScriptedModel::new().otherwise(r#"{"choice": null}"#));
/// let maker = LlmDecisionMaker::new(model, "Buy a kite for at most 30 EUR.")
///     .with_max_tool_rounds(2);
/// // enactor.on_async(Trigger::Any, maker.clone());
/// # let _ = (Trigger::Any, maker);
/// ```
///
/// For each event it shows the model the options the event concerns (see
/// [`options`](super::options) for which), and asks for one choice. An answer with tool
/// requests gets the tools run and the results fed back, for at most
/// [`with_max_tool_rounds`](Self::with_max_tool_rounds) rounds. The choice and its values
/// are checked against the options and, on a copy of the history, by the adapter; an
/// unusable answer is sent back once with the reasons, and a second one is dropped and
/// reported ([`DecisionOutcome::Dropped`]): nothing the model says can make the agent
/// send a message the protocol forbids. After a choice that can be sent again (a form
/// that starts an enactment), the model is asked again for the same event, up to
/// [`with_max_messages_per_event`](Self::with_max_messages_per_event) messages.
///
/// Decisions of one maker run one at a time. Each decides on the newest history the
/// maker has been given (a decision that waited for its turn may hold an older
/// snapshot than an earlier one saw), with what earlier decisions chose applied even
/// before a snapshot shows it; external events that arrive meanwhile are listed as
/// pending in the prompts until their turn. One maker may serve several
/// agents (clones share everything): what it remembers is kept per agent name, but
/// their decisions then wait for each other; give each agent its own maker when that
/// matters. Every decision is recorded
/// ([`records`](Self::records), [`subscribe`](Self::subscribe)).
#[derive(Clone)]
pub struct LlmDecisionMaker {
    settings: Arc<Settings>,
    shared: Arc<Shared>,
}

impl fmt::Debug for LlmDecisionMaker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmDecisionMaker")
            .field("model", &self.settings.model.name())
            .field("goal", &self.settings.prompts.goal())
            .field("max_tool_rounds", &self.settings.max_tool_rounds)
            .field(
                "max_messages_per_event",
                &self.settings.max_messages_per_event,
            )
            .finish_non_exhaustive()
    }
}

/// Records kept for [`LlmDecisionMaker::records`]; older ones are forgotten.
const RECORDS_KEPT: usize = 256;

/// System prompts cached (one per agent and set of roles); past it the cache restarts.
const SYSTEM_PROMPTS_KEPT: usize = 64;

/// Decisions an unconfirmed chosen message is remembered for.
const IN_FLIGHT_DECISIONS: usize = 32;

/// Tool requests run per answer; more are refused with a note.
const TOOL_REQUESTS_PER_ANSWER: usize = 8;

impl LlmDecisionMaker {
    /// Tool rounds per decision by default.
    pub const DEFAULT_MAX_TOOL_ROUNDS: usize = 3;
    /// Messages per event by default.
    pub const DEFAULT_MAX_MESSAGES_PER_EVENT: usize = 4;

    /// A decision maker asking `model`, for an agent whose user wants `goal`.
    pub fn new(model: Arc<dyn LanguageModel>, goal: impl Into<String>) -> Self {
        Self::with_prompts(model, PromptBuilder::new(goal))
    }

    /// A decision maker with prompts configured beforehand (notes, tools, terminations).
    pub fn with_prompts(model: Arc<dyn LanguageModel>, prompts: PromptBuilder) -> Self {
        let (events, _) = broadcast::channel(256);
        Self {
            settings: Arc::new(Settings {
                model,
                prompts,
                max_tool_rounds: Self::DEFAULT_MAX_TOOL_ROUNDS,
                max_messages_per_event: Self::DEFAULT_MAX_MESSAGES_PER_EVENT,
                temperature: None,
                max_tokens: None,
            }),
            shared: Arc::new(Shared {
                turn: tokio::sync::Mutex::new(HashMap::new()),
                pending: Mutex::new(Vec::new()),
                next_ticket: Mutex::new(0),
                system: Mutex::new(HashMap::new()),
                records: Mutex::new(VecDeque::new()),
                events,
            }),
        }
    }

    fn configure(mut self, change: impl FnOnce(&mut Settings)) -> Self {
        change(Arc::make_mut(&mut self.settings));
        // The system prompts may depend on what changed.
        lock(&self.shared.system).clear();
        self
    }

    /// The tools the model may ask for.
    pub fn with_tools(self, tools: ToolRegistry) -> Self {
        self.configure(|s| s.prompts = s.prompts.clone().with_tools(tools))
    }

    /// Adds a note to the system prompt's comment on `message` of `protocol`.
    pub fn with_note(
        self,
        protocol: impl Into<String>,
        message: impl Into<String>,
        note: impl Into<String>,
    ) -> Self {
        let (protocol, message, note) = (protocol.into(), message.into(), note.into());
        self.configure(|s| s.prompts = s.prompts.clone().with_note(protocol, message, note))
    }

    /// Termination conditions to use instead of the inferred ones.
    pub fn with_terminations(self, terminations: Terminations) -> Self {
        self.configure(|s| s.prompts = s.prompts.clone().with_terminations(terminations))
    }

    /// Rounds of tool requests per decision (0: tools are never run).
    pub fn with_max_tool_rounds(self, rounds: usize) -> Self {
        self.configure(|s| s.max_tool_rounds = rounds)
    }

    /// Messages one event may lead to (at least 1).
    pub fn with_max_messages_per_event(self, messages: usize) -> Self {
        self.configure(|s| s.max_messages_per_event = messages.max(1))
    }

    /// The sampling temperature asked for.
    pub fn with_temperature(self, temperature: f32) -> Self {
        self.configure(|s| s.temperature = Some(temperature))
    }

    /// The answer length cap asked for.
    pub fn with_max_tokens(self, max_tokens: u32) -> Self {
        self.configure(|s| s.max_tokens = Some(max_tokens))
    }

    /// The prompt builder.
    pub fn prompts(&self) -> &PromptBuilder {
        &self.settings.prompts
    }

    /// The system prompt for `adapter`'s agent (built once, then reused while the
    /// agent's protocols and roles stay the same).
    pub fn system_prompt(&self, adapter: &Adapter) -> Arc<str> {
        let signature = signature(adapter);
        let mut cached = lock(&self.shared.system);
        if let Some(prompt) = cached.get(&signature) {
            return Arc::clone(prompt);
        }
        let prompt: Arc<str> = self.settings.prompts.system_prompt(adapter).into();
        if cached.len() >= SYSTEM_PROMPTS_KEPT {
            cached.clear();
        }
        cached.insert(signature, Arc::clone(&prompt));
        prompt
    }

    /// The first request a decision about `event` would send the model, or `None` when
    /// the event offers no option. Changes nothing: for printing and inspecting prompts.
    pub async fn prompt_for(&self, event: &Event, adapter: &Adapter) -> Option<CompletionRequest> {
        let turn = self.shared.turn.lock().await;
        let terminations = self.settings.prompts.terminations();
        let no_memory = Memory::default();
        let memory = turn.get(adapter.agent()).unwrap_or(&no_memory);
        let forms = options::for_event(event, adapter, terminations, &memory.offered);
        drop(turn);
        if forms.is_empty() {
            return None;
        }
        let options = DecisionOption::number(forms);
        let pending = self.pending_events(adapter.agent());
        let situation = Situation::new(event, adapter, &options).with_pending(&pending);
        Some(self.request(adapter, &situation))
    }

    /// Every decision still remembered (the last 256), oldest first.
    pub fn records(&self) -> Vec<DecisionRecord> {
        lock(&self.shared.records).iter().cloned().collect()
    }

    /// Decisions from now on, as they are taken.
    pub fn subscribe(&self) -> broadcast::Receiver<DecisionRecord> {
        self.shared.events.subscribe()
    }

    /// Decides about `event` for the agent whose history is `adapter`: what an enactor
    /// gets through [`AsyncDecisionMaker::decide`], and a way to drive the maker without
    /// one. The messages returned passed the adapter's checks on a copy of `adapter`.
    ///
    /// The maker takes what it returns as sent: later decisions apply it to the history
    /// they are given until that history shows it (or refuses it).
    pub async fn decide_on(&self, event: &Event, adapter: &Adapter) -> DecisionReport {
        let agent = adapter.agent();
        let ticket = match event {
            Event::External { name, payload } => Some(self.add_pending(
                agent,
                ExternalEvent {
                    name: name.clone(),
                    payload: payload.clone(),
                },
            )),
            _ => None,
        };
        let mut memories = self.shared.turn.lock().await;
        let turn = memories.entry(agent.to_owned()).or_default();
        if let Some(ticket) = ticket {
            lock(&self.shared.pending).retain(|(t, _, _)| *t != ticket);
        }
        let mut working = turn.history(adapter);
        let enabled: HashSet<FormId> = working.enabled().iter().map(FormId::of).collect();
        turn.offered.retain(|id| enabled.contains(id));

        let terminations = self.settings.prompts.terminations().clone();
        let base: HashSet<FormId> =
            options::for_event(event, &working, &terminations, &turn.offered)
                .iter()
                .map(FormId::of)
                .collect();
        let mut report = DecisionReport::default();
        if base.is_empty() {
            return report;
        }
        turn.offered.extend(base.iter().cloned());

        for _ in 0..self.settings.max_messages_per_event {
            // Later rounds show what is left of the first round's options.
            let forms: Vec<EnabledMessage> = options::open_forms(&working, &terminations)
                .into_iter()
                .filter(|form| base.contains(&FormId::of(form)))
                .collect();
            if forms.is_empty() {
                break;
            }
            let options = DecisionOption::number(forms);
            let pending = self.pending_events(agent);
            let situation = Situation::new(event, &working, &options)
                .with_pending(&pending)
                .with_chosen(&report.messages);
            let request = self.request(&working, &situation);
            let event_line = self.settings.prompts.event_line(event, &working);
            let record = self
                .converse(agent, event_line, request, &options, &working)
                .await;
            let chosen = match &record.outcome {
                DecisionOutcome::Chosen {
                    message, option, ..
                } => Some((message.clone(), options[option - 1].form.clone())),
                _ => None,
            };
            self.keep(record.clone());
            report.records.push(record);
            let Some((message, form)) = chosen else {
                break;
            };
            if !matches!(working.emit(message.clone()), Ok(Emitted::Sent(_))) {
                // The dry run accepted it a moment ago on the same history; never send
                // what the working copy refuses.
                break;
            }
            turn.in_flight.push((message.clone(), 0));
            report.messages.push(message);
            let again = working
                .enabled()
                .iter()
                .any(|f| FormId::of(f) == FormId::of(&form));
            if !again {
                break;
            }
        }
        report
    }

    fn request(&self, adapter: &Adapter, situation: &Situation<'_>) -> CompletionRequest {
        let mut request = CompletionRequest::new()
            .system(self.system_prompt(adapter).as_ref())
            .user(self.settings.prompts.user_prompt(situation))
            .json(true);
        if let Some(temperature) = self.settings.temperature {
            request = request.temperature(temperature);
        }
        if let Some(max_tokens) = self.settings.max_tokens {
            request = request.max_tokens(max_tokens);
        }
        request
    }

    /// One decision's conversation: tool rounds, at most one second chance.
    async fn converse(
        &self,
        agent: &str,
        event: String,
        mut request: CompletionRequest,
        options: &[DecisionOption],
        adapter: &Adapter,
    ) -> DecisionRecord {
        let mut tool_calls = Vec::new();
        let mut tool_rounds = 0;
        let mut asked_again = false;
        let outcome = loop {
            let text = match self.settings.model.complete(&request).await {
                Ok(text) => text,
                Err(error) => break DecisionOutcome::ModelFailed(error),
            };
            request = request.assistant(text.clone());
            let problems = match parse_answer(&text) {
                Err(error) => vec![AnswerProblem::Unreadable(error)],
                Ok(answer) if !answer.tool_requests.is_empty() => {
                    if tool_rounds >= self.settings.max_tool_rounds {
                        vec![AnswerProblem::TooManyToolRounds(
                            self.settings.max_tool_rounds,
                        )]
                    } else {
                        tool_rounds += 1;
                        let results = self.run_tools(&answer.tool_requests).await;
                        let left = self.settings.max_tool_rounds - tool_rounds;
                        request = request.user(tool_results_text(
                            &results,
                            left,
                            answer.choice.is_some(),
                            answer.tool_requests.len(),
                        ));
                        tool_calls.extend(results);
                        continue;
                    }
                }
                Ok(answer) => match validate(&answer, options, adapter) {
                    Ok(Verdict::Declined) => {
                        break DecisionOutcome::Declined {
                            reason: answer.reason,
                        };
                    }
                    Ok(Verdict::Chosen { option, message }) => {
                        break DecisionOutcome::Chosen {
                            option: options[option].number,
                            label: options[option].label.clone(),
                            message,
                            reason: answer.reason,
                        };
                    }
                    Err(problems) => problems,
                },
            };
            if asked_again {
                break DecisionOutcome::Dropped { problems };
            }
            asked_again = true;
            let reasons: Vec<String> = problems.iter().map(ToString::to_string).collect();
            request = request.user(format!(
                "Your answer cannot be used: {}. Answer again with one JSON object, choosing from the same options (or null).",
                reasons.join("; ")
            ));
        };
        match &outcome {
            DecisionOutcome::Chosen { label, .. } => {
                tracing::info!(agent_id = agent, %event, option = %label, "llm decision");
            }
            DecisionOutcome::Declined { .. } => {
                tracing::debug!(agent_id = agent, %event, "llm decision: nothing to send");
            }
            DecisionOutcome::Dropped { problems } => {
                let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
                tracing::warn!(agent_id = agent, %event, ?problems, "llm answer dropped");
            }
            DecisionOutcome::ModelFailed(error) => {
                tracing::warn!(agent_id = agent, %event, %error, "language model failed");
            }
        }
        DecisionRecord {
            agent: agent.to_owned(),
            event,
            options: options.iter().map(|o| o.label.clone()).collect(),
            outcome,
            tool_calls,
            transcript: request.messages().to_vec(),
        }
    }

    async fn run_tools(&self, requests: &[ToolRequest]) -> Vec<ToolCall> {
        let mut calls = Vec::new();
        for request in requests.iter().take(TOOL_REQUESTS_PER_ANSWER) {
            let result = self
                .settings
                .prompts
                .tools()
                .call(request)
                .await
                .map_err(|e| e.to_string());
            calls.push(ToolCall {
                request: request.clone(),
                result,
            });
        }
        calls
    }

    fn add_pending(&self, agent: &str, event: ExternalEvent) -> u64 {
        let mut next = lock(&self.shared.next_ticket);
        *next += 1;
        let ticket = *next;
        lock(&self.shared.pending).push((ticket, agent.to_owned(), event));
        ticket
    }

    fn pending_events(&self, agent: &str) -> Vec<ExternalEvent> {
        lock(&self.shared.pending)
            .iter()
            .filter(|(_, owner, _)| owner == agent)
            .map(|(_, _, e)| e.clone())
            .collect()
    }

    fn keep(&self, record: DecisionRecord) {
        let mut records = lock(&self.shared.records);
        if records.len() == RECORDS_KEPT {
            records.pop_front();
        }
        records.push_back(record.clone());
        drop(records);
        // Nobody listening is fine.
        let _ = self.shared.events.send(record);
    }
}

fn tool_results_text(
    results: &[ToolCall],
    rounds_left: usize,
    had_choice: bool,
    requested: usize,
) -> String {
    let mut text = String::from("Tool results:\n");
    for call in results {
        let outcome = match &call.result {
            Ok(value) => value.to_string(),
            Err(error) => format!("error: {error}"),
        };
        let _ = writeln!(
            text,
            "- {} {}: {outcome}",
            call.request.tool, call.request.args
        );
    }
    if requested > results.len() {
        let _ = writeln!(
            text,
            "({} more requests were not run: at most {TOOL_REQUESTS_PER_ANSWER} per answer.)",
            requested - results.len()
        );
    }
    if had_choice {
        text.push_str("Your choice was set aside because you asked for tools; choose again with the results.\n");
    }
    if rounds_left == 0 {
        text.push_str(
            "No more tool requests are allowed for this decision: answer with a choice or null.",
        );
    } else {
        let _ = write!(
            text,
            "Now answer with a choice (or null), or ask for more tools ({rounds_left} more round{} allowed).",
            if rounds_left == 1 { "" } else { "s" }
        );
    }
    text
}

/// What the system prompt depends on in an adapter: its agent, protocols and roles.
fn signature(adapter: &Adapter) -> String {
    let mut text = adapter.agent().to_owned();
    for protocol in adapter.protocols() {
        let _ = write!(
            text,
            "|{}:{}",
            protocol.name(),
            adapter.roles(protocol.name()).join(",")
        );
    }
    text
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Every critical section here leaves its data consistent even if a panic interrupts it.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl AsyncDecisionMaker for LlmDecisionMaker {
    fn decide<'a>(&'a self, context: &'a EnactmentContext) -> BoxFuture<'a, Vec<MessageInstance>> {
        Box::pin(async move {
            self.decide_on(&context.event, &context.adapter)
                .await
                .messages
        })
    }
}
