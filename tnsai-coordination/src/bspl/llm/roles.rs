//! Choosing the roles an agent plays: list what it could play in the available
//! protocols, let a model suggest roles for the user's goal, and configure the adapter
//! for the roles the user or application confirms.
//!
//! ```
//! use std::sync::Arc;
//! use tnsai_coordination::bspl::llm::{RoleCatalog, Terminations};
//! use tnsai_coordination::bspl::{Adapter, Specification};
//! use tnsai_core::ScriptedModel;
//!
//! let spec = Specification::parse(include_str!("../../../../tnsai-bspl/protocols/purchase.bspl"))?;
//! let catalog = RoleCatalog::new(spec.protocols().iter().cloned().map(Arc::new));
//! let mut adapter = Adapter::new("alice");
//! let model = ScriptedModel::new().otherwise(r#"{"roles": [1], "reason": "she wants to buy"}"#);
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let suggestion = catalog.suggest(&model, &adapter, "Buy a kite").await?;
//! assert_eq!(suggestion.picks()[0].role, "Buyer");
//! // The application shows the suggestion to its user, who confirms it.
//! suggestion.confirm().configure(&mut adapter, &Terminations::new())?;
//! assert_eq!(adapter.roles("Purchase"), ["Buyer"]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::Write as _;
use std::sync::Arc;

use serde_json::Value;
use tnsai_bspl::{Adapter, Protocol, SetupError, Termination};
use tnsai_core::{CompletionRequest, LanguageModel, ModelError};

use super::answer::find_object;
use super::termination::{Terminations, describe, infer_termination};
use super::wording::join;

/// A role an agent could take on.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RoleCandidate {
    /// Its number in the list (from 1).
    pub number: usize,
    /// The protocol.
    pub protocol: Arc<Protocol>,
    /// The role.
    pub role: String,
    /// Messages it sends.
    pub sends: Vec<String>,
    /// Messages it receives.
    pub receives: Vec<String>,
    /// Whether it can start an enactment by itself.
    pub initiates: bool,
    /// When its part in an enactment is over (inferred).
    pub termination: Termination,
}

impl RoleCandidate {
    /// `Purchase:Buyer`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.protocol.name(), self.role)
    }

    /// One line for people and prompts.
    pub fn summary(&self) -> String {
        let mut text = format!("{} in {}:", self.role, self.protocol.name());
        if !self.sends.is_empty() {
            let _ = write!(text, " sends {}", join(&self.sends, "and"));
        }
        if !self.receives.is_empty() {
            if !self.sends.is_empty() {
                text.push(';');
            }
            let _ = write!(text, " receives {}", join(&self.receives, "and"));
        }
        if self.initiates {
            text.push_str("; can start enactments");
        }
        let _ = write!(text, "; done once it has {}.", describe(&self.termination));
        text
    }
}

/// What kind of failure a [`RoleSelectionError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RoleSelectionErrorKind {
    /// The model failed.
    Model,
    /// The model's answer was unusable twice.
    InvalidAnswer,
    /// No protocol has that role, or the agent plays it already.
    UnknownRole,
    /// There is no role left to choose from.
    NoCandidates,
}

/// Why no roles could be selected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RoleSelectionError {
    /// The model failed.
    #[error("{0}")]
    Model(#[from] ModelError),
    /// The model's answer was unusable twice.
    #[error("the model's role suggestion cannot be used: {problem}")]
    InvalidAnswer {
        /// The last answer.
        answer: String,
        /// What is wrong with it.
        problem: String,
    },
    /// No protocol has that role, or the agent plays it already.
    #[error("no role {role} of protocol {protocol} is available")]
    UnknownRole {
        /// The protocol asked for.
        protocol: String,
        /// The role asked for.
        role: String,
    },
    /// There is no role left to choose from.
    #[error("there is no role left to choose from")]
    NoCandidates,
}

impl RoleSelectionError {
    /// What kind of failure this is.
    pub fn kind(&self) -> RoleSelectionErrorKind {
        match self {
            Self::Model(_) => RoleSelectionErrorKind::Model,
            Self::InvalidAnswer { .. } => RoleSelectionErrorKind::InvalidAnswer,
            Self::UnknownRole { .. } => RoleSelectionErrorKind::UnknownRole,
            Self::NoCandidates => RoleSelectionErrorKind::NoCandidates,
        }
    }
}

/// The protocols an agent may take part in.
#[derive(Debug, Clone, Default)]
pub struct RoleCatalog {
    protocols: Vec<Arc<Protocol>>,
}

impl RoleCatalog {
    /// A catalog of `protocols`.
    pub fn new(protocols: impl IntoIterator<Item = Arc<Protocol>>) -> Self {
        Self {
            protocols: protocols.into_iter().collect(),
        }
    }

    /// The protocols.
    pub fn protocols(&self) -> &[Arc<Protocol>] {
        &self.protocols
    }

    /// Every role `adapter`'s agent does not play yet, numbered from 1, protocol by
    /// protocol in declaration order.
    pub fn candidates(&self, adapter: &Adapter) -> Vec<RoleCandidate> {
        let mut candidates = Vec::new();
        for protocol in &self.protocols {
            for view in adapter.playable_roles(protocol) {
                candidates.push(RoleCandidate {
                    number: candidates.len() + 1,
                    protocol: Arc::clone(protocol),
                    role: view.role.to_owned(),
                    sends: view.sends.iter().map(|m| m.name().to_owned()).collect(),
                    receives: view.receives.iter().map(|m| m.name().to_owned()).collect(),
                    initiates: view.initiates(),
                    termination: infer_termination(protocol, view.role)
                        .unwrap_or(Termination::Complete),
                });
            }
        }
        candidates
    }

    /// The request [`suggest`](Self::suggest) sends: plain text to print and inspect.
    pub fn prompt(&self, adapter: &Adapter, goal: &str) -> CompletionRequest {
        let candidates = self.candidates(adapter);
        prompt(&candidates, &self.protocols, goal)
    }

    /// Asks `model` which roles serve `goal`. Nothing is configured: the application
    /// shows the [`RoleSuggestion`] and [`confirm`](RoleSuggestion::confirm)s it (or
    /// picks otherwise). An unusable answer is asked again once.
    ///
    /// # Errors
    ///
    /// [`RoleSelectionError::NoCandidates`], [`RoleSelectionError::Model`], or
    /// [`RoleSelectionError::InvalidAnswer`] after two unusable answers.
    pub async fn suggest(
        &self,
        model: &dyn LanguageModel,
        adapter: &Adapter,
        goal: &str,
    ) -> Result<RoleSuggestion, RoleSelectionError> {
        let candidates = self.candidates(adapter);
        if candidates.is_empty() {
            return Err(RoleSelectionError::NoCandidates);
        }
        let mut request = prompt(&candidates, &self.protocols, goal);
        let mut asked_again = false;
        loop {
            let answer = model.complete(&request).await?;
            match read_picks(&answer, &candidates) {
                Ok((picks, reason)) => {
                    return Ok(RoleSuggestion {
                        picks: picks
                            .into_iter()
                            .map(|index| candidates[index].clone())
                            .collect(),
                        candidates,
                        reason,
                        answer,
                    });
                }
                Err(problem) if asked_again => {
                    return Err(RoleSelectionError::InvalidAnswer { answer, problem });
                }
                Err(problem) => {
                    asked_again = true;
                    request = request.assistant(answer).user(format!(
                        "Your answer cannot be used: {problem}. Answer again with one JSON object {{\"roles\": [<numbers>], \"reason\": \"...\"}}."
                    ));
                }
            }
        }
    }

    /// A selection of one role, without a model.
    ///
    /// # Errors
    ///
    /// [`RoleSelectionError::UnknownRole`] when no protocol of the catalog has it.
    pub fn select(&self, protocol: &str, role: &str) -> Result<RoleSelection, RoleSelectionError> {
        RoleSelection::new().and(self, protocol, role)
    }
}

fn prompt(
    candidates: &[RoleCandidate],
    protocols: &[Arc<Protocol>],
    goal: &str,
) -> CompletionRequest {
    let system = "You help choose the roles an agent plays in information protocols written in BSPL. \
A role is one party's part in a protocol: the messages it sends and receives. \
Pick every role the user's goal needs the agent to play, and no other. \
Answer with one JSON object and nothing else: {\"roles\": [<role numbers>], \"reason\": \"<one short sentence>\"}; \
use [] when no role fits.";
    let mut user = format!("Goal: {}\n\nRoles the agent could play:\n", goal.trim());
    for candidate in candidates {
        let _ = writeln!(user, "{}. {}", candidate.number, candidate.summary());
    }
    user.push_str("\nProtocols:\n");
    for protocol in protocols {
        let _ = writeln!(user, "\n{}", **protocol);
    }
    CompletionRequest::new()
        .system(system)
        .user(user)
        .json(true)
}

/// The candidate indices an answer picks, and its reason.
fn read_picks(
    answer: &str,
    candidates: &[RoleCandidate],
) -> Result<(Vec<usize>, Option<String>), String> {
    let object = find_object(answer, &["roles"]).ok_or("it holds no JSON object")?;
    let roles = match object.get("roles") {
        Some(Value::Array(roles)) => roles,
        _ => return Err("\"roles\" must be a list of role numbers".to_owned()),
    };
    let mut picks = Vec::new();
    for role in roles {
        let index = match role {
            Value::Number(n) => n
                .as_u64()
                .and_then(|n| candidates.iter().position(|c| c.number as u64 == n)),
            Value::String(text) => {
                let text = text.trim();
                text.parse::<usize>()
                    .ok()
                    .and_then(|n| candidates.iter().position(|c| c.number == n))
                    .or_else(|| {
                        candidates
                            .iter()
                            .position(|c| c.name().eq_ignore_ascii_case(text))
                    })
            }
            _ => None,
        };
        match index {
            Some(index) if !picks.contains(&index) => picks.push(index),
            Some(_) => {}
            None => {
                return Err(format!(
                    "{role} is not a role number from 1 to {}",
                    candidates.len()
                ));
            }
        }
    }
    let reason = object
        .get("reason")
        .and_then(Value::as_str)
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty());
    Ok((picks, reason))
}

/// What a model suggested; nothing is configured until it is confirmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleSuggestion {
    candidates: Vec<RoleCandidate>,
    picks: Vec<RoleCandidate>,
    reason: Option<String>,
    answer: String,
}

impl RoleSuggestion {
    /// Every role that was offered.
    pub fn candidates(&self) -> &[RoleCandidate] {
        &self.candidates
    }

    /// The roles suggested.
    pub fn picks(&self) -> &[RoleCandidate] {
        &self.picks
    }

    /// The model's reason, if it gave one.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The model's answer as it came.
    pub fn answer(&self) -> &str {
        &self.answer
    }

    /// Accepts the suggestion as it is.
    pub fn confirm(&self) -> RoleSelection {
        RoleSelection {
            roles: self
                .picks
                .iter()
                .map(|c| (Arc::clone(&c.protocol), c.role.clone()))
                .collect(),
        }
    }

    /// Accepts only the offered roles with these numbers (suggested or not): the user's
    /// own choice, informed by the suggestion. Unknown numbers are ignored.
    pub fn confirm_numbers(&self, numbers: &[usize]) -> RoleSelection {
        RoleSelection {
            roles: self
                .candidates
                .iter()
                .filter(|c| numbers.contains(&c.number))
                .map(|c| (Arc::clone(&c.protocol), c.role.clone()))
                .collect(),
        }
    }
}

/// Roles confirmed to be played.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoleSelection {
    roles: Vec<(Arc<Protocol>, String)>,
}

impl RoleSelection {
    /// No roles.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `role` of the catalog's `protocol`.
    ///
    /// # Errors
    ///
    /// [`RoleSelectionError::UnknownRole`] when no protocol of the catalog has it.
    pub fn and(
        mut self,
        catalog: &RoleCatalog,
        protocol: &str,
        role: &str,
    ) -> Result<Self, RoleSelectionError> {
        let found = catalog
            .protocols
            .iter()
            .find(|p| p.name() == protocol && p.has_role(role))
            .ok_or_else(|| RoleSelectionError::UnknownRole {
                protocol: protocol.to_owned(),
                role: role.to_owned(),
            })?;
        if !self
            .roles
            .iter()
            .any(|(p, r)| p.name() == protocol && r == role)
        {
            self.roles.push((Arc::clone(found), role.to_owned()));
        }
        Ok(self)
    }

    /// `(protocol, role)` pairs, in the order added.
    pub fn roles(&self) -> impl Iterator<Item = (&str, &str)> {
        self.roles.iter().map(|(p, r)| (p.name(), r.as_str()))
    }

    /// Whether nothing is selected.
    pub fn is_empty(&self) -> bool {
        self.roles.is_empty()
    }

    /// Plays the selected roles on `adapter` and sets each one's termination condition
    /// from `terminations` (inferred unless set there); returns the conditions set.
    ///
    /// # Errors
    ///
    /// The adapter's [`SetupError`] (for instance another protocol of the same name
    /// is played already).
    pub fn configure(
        &self,
        adapter: &mut Adapter,
        terminations: &Terminations,
    ) -> Result<Vec<(String, String, Termination)>, SetupError> {
        let mut set = Vec::new();
        for (protocol, role) in &self.roles {
            adapter.play(Arc::clone(protocol), &[role.as_str()])?;
            if let Some(condition) = terminations.condition(protocol, role) {
                adapter.set_termination(protocol.name(), role, condition.clone())?;
                set.push((protocol.name().to_owned(), role.clone(), condition));
            }
        }
        Ok(set)
    }
}
