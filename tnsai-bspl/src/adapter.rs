//! The transport-free adapter: one agent playing roles in one or more
//! protocols, driven by plain method calls.
//!
//! The adapter keeps the agent's [`Knowledge`] per protocol, computes the
//! enabled message forms, and checks every message the agent sends or
//! receives: a send the adornments forbid is refused with an [`EmitError`],
//! a reception inconsistent with the history with a [`ReceiveError`], and an
//! exact repeat is reported as a duplicate. Nothing is dropped silently and
//! nothing panics. The networking layer (in `tnsai_coordination::bspl`)
//! forwards [`Emitted::Sent`] messages to the agents playing the recipient
//! roles and feeds arriving messages to [`Adapter::receive`].
//!
//! ```
//! use std::sync::Arc;
//! use tnsai_bspl::{Adapter, EmitError, Specification};
//!
//! let spec = Specification::parse(include_str!("../protocols/purchase.bspl"))?;
//! let purchase = Arc::new(spec.into_protocol("Purchase").ok_or("no Purchase")?);
//! let mut buyer = Adapter::new("buyer");
//! buyer.play(purchase, &["Buyer"])?;
//!
//! let rfq = buyer.enabled().into_iter().find(|f| f.message == "rfq").ok_or("rfq")?;
//! buyer.emit(rfq.bind([("ID", "1"), ("item", "ball")]))?;
//! // Binding ID 1 again with another item would change an enactment's binding:
//! let again = buyer.emit(rfq.bind([("ID", "1"), ("item", "bat")]));
//! assert!(matches!(again, Err(EmitError::KeyReuse { .. })));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use crate::knowledge::{Checked, Direction, Enactment, KeyBinding, Knowledge, Observation};
use crate::message::{EnabledMessage, MessageInstance};
use crate::protocol::{Protocol, RoleView};

/// Why a message may not be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmitError {
    /// The agent plays no role in the message's protocol.
    #[error("the agent plays no role in protocol '{protocol}'")]
    UnknownProtocol {
        /// The protocol named by the message.
        protocol: String,
    },
    /// The protocol has no such message.
    #[error("protocol '{protocol}' has no message '{message}'")]
    UnknownMessage {
        /// The protocol.
        protocol: String,
        /// The name given.
        message: String,
    },
    /// The message names a sender other than the one the protocol gives.
    #[error("'{message}' is sent by {expected}, not {found}")]
    WrongSender {
        /// The message.
        message: String,
        /// The protocol's sender role.
        expected: String,
        /// The sender named in the message.
        found: String,
    },
    /// The agent does not play the message's sender role.
    #[error("the agent does not play {role}, the sender of '{message}'")]
    NotSenderRole {
        /// The message.
        message: String,
        /// The sender role.
        role: String,
    },
    /// The message names recipients other than the protocol's.
    #[error("'{message}' goes to {expected:?}, not {found:?}")]
    WrongRecipients {
        /// The message.
        message: String,
        /// The protocol's recipient roles.
        expected: Vec<String>,
        /// The recipients named in the message.
        found: Vec<String>,
    },
    /// `in` or `out` parameters without a value.
    #[error("'{message}' lacks values for {parameters:?}")]
    MissingParameters {
        /// The message.
        message: String,
        /// The parameters without a value.
        parameters: Vec<String>,
    },
    /// Values for parameters that are not `in` or `out` in the message
    /// (including `nil` parameters, which must stay unbound).
    #[error(
        "'{message}' carries values for {parameters:?}, which are not its in or out parameters"
    )]
    UnexpectedParameters {
        /// The message.
        message: String,
        /// The parameters that should not be there.
        parameters: Vec<String>,
    },
    /// An `in` parameter the agent does not know.
    #[error("'{message}' needs '{parameter}' bound first (it is 'in')")]
    UnboundIn {
        /// The message.
        message: String,
        /// The unknown parameter.
        parameter: String,
    },
    /// An `in` value differs from what the agent knows.
    #[error("'{message}' gives '{parameter}' = '{supplied}' but the agent knows '{known}'")]
    InMismatch {
        /// The message.
        message: String,
        /// The parameter.
        parameter: String,
        /// The known value.
        known: String,
        /// The value in the message.
        supplied: String,
    },
    /// An `out` parameter already bound in the enactment.
    #[error("'{message}' would bind '{parameter}', already bound to '{value}' (it is 'out')")]
    OutAlreadyBound {
        /// The message.
        message: String,
        /// The parameter.
        parameter: String,
        /// Its existing value.
        value: String,
    },
    /// A `nil` parameter bound in the enactment.
    #[error(
        "'{message}' requires '{parameter}' unknown, but it is bound to '{value}' (it is 'nil')"
    )]
    NilBound {
        /// The message.
        message: String,
        /// The parameter.
        parameter: String,
        /// Its value.
        value: String,
    },
    /// The message would create an enactment whose key binding is in use.
    #[error("'{message}' reuses key {key}: '{parameter}' is '{existing}' there, not '{supplied}'")]
    KeyReuse {
        /// The message.
        message: String,
        /// The key binding already in use.
        key: KeyBinding,
        /// A parameter whose value would change (or the reused key).
        parameter: String,
        /// The recorded value.
        existing: String,
        /// The value in the message.
        supplied: String,
    },
}

/// Why a received message is not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReceiveError {
    /// The agent plays no role in the message's protocol.
    #[error("the agent plays no role in protocol '{protocol}'")]
    UnknownProtocol {
        /// The protocol named by the message.
        protocol: String,
    },
    /// The protocol has no such message.
    #[error("protocol '{protocol}' has no message '{message}'")]
    UnknownMessage {
        /// The protocol.
        protocol: String,
        /// The name given.
        message: String,
    },
    /// The message names a sender other than the protocol's.
    #[error("'{message}' is sent by {expected}, not {found}")]
    WrongSender {
        /// The message.
        message: String,
        /// The protocol's sender role.
        expected: String,
        /// The sender named in the message.
        found: String,
    },
    /// The message names recipients other than the protocol's.
    #[error("'{message}' goes to {expected:?}, not {found:?}")]
    WrongRecipients {
        /// The message.
        message: String,
        /// The protocol's recipient roles.
        expected: Vec<String>,
        /// The recipients named in the message.
        found: Vec<String>,
    },
    /// The agent plays none of the message's recipient roles.
    #[error("the agent plays none of {recipients:?}, the recipients of '{message}'")]
    NotARecipient {
        /// The message.
        message: String,
        /// Its recipient roles.
        recipients: Vec<String>,
    },
    /// `in` or `out` parameters without a value.
    #[error("'{message}' lacks values for {parameters:?}")]
    MissingParameters {
        /// The message.
        message: String,
        /// The parameters without a value.
        parameters: Vec<String>,
    },
    /// Values for parameters that are not `in` or `out` in the message.
    #[error(
        "'{message}' carries values for {parameters:?}, which are not its in or out parameters"
    )]
    UnexpectedParameters {
        /// The message.
        message: String,
        /// The parameters that should not be there.
        parameters: Vec<String>,
    },
    /// A value contradicts the history of the same enactment.
    #[error("'{message}' gives '{parameter}' = '{received}' in {key}, where it is '{known}'")]
    Conflict {
        /// The message.
        message: String,
        /// The enactment.
        key: KeyBinding,
        /// The parameter.
        parameter: String,
        /// The recorded value.
        known: String,
        /// The value received.
        received: String,
    },
}

/// Why the adapter cannot be set up as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// The protocol has no such role.
    #[error("protocol '{protocol}' has no role '{role}'")]
    UnknownRole {
        /// The protocol.
        protocol: String,
        /// The role asked for.
        role: String,
    },
    /// The agent plays no role in the protocol.
    #[error("the agent plays no role in protocol '{protocol}'")]
    UnknownProtocol {
        /// The protocol.
        protocol: String,
    },
    /// Another protocol with the same name is already played.
    #[error("the agent already plays a different protocol named '{protocol}'")]
    ConflictingProtocol {
        /// The protocol name.
        protocol: String,
    },
    /// A termination condition for a role the agent does not play.
    #[error("the agent does not play '{role}' in protocol '{protocol}'")]
    RoleNotPlayed {
        /// The protocol.
        protocol: String,
        /// The role.
        role: String,
    },
    /// A termination condition names a message the protocol lacks.
    #[error("protocol '{protocol}' has no message '{message}'")]
    UnknownMessage {
        /// The protocol.
        protocol: String,
        /// The message.
        message: String,
    },
}

/// Result of [`Adapter::emit`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", content = "message", rename_all = "snake_case")]
pub enum Emitted {
    /// Recorded; hand it to the transport.
    Sent(MessageInstance),
    /// Exactly this message was already sent (or received); not sent again.
    Duplicate(MessageInstance),
}

impl Emitted {
    /// The message concerned.
    pub fn message(&self) -> &MessageInstance {
        match self {
            Self::Sent(message) | Self::Duplicate(message) => message,
        }
    }
}

/// Result of [`Adapter::receive`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Received {
    /// Recorded.
    Accepted,
    /// Exactly this message was already observed; nothing changed.
    Duplicate,
}

/// When a role has finished its part, judged on the agent's local history.
///
/// Conditions are evaluated per enactment (each key binding the agent has
/// recorded a message under); the role is done when there is at least one
/// enactment and every one of them satisfies the condition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// The agent sent this message in the enactment (or in one it contains
    /// or is contained in).
    Sent(String),
    /// The agent received this message in the enactment (idem).
    Received(String),
    /// Every public `out` parameter is bound in the enactment or in one
    /// containing it.
    Complete,
    /// The role has nothing left to send in the enactment (initiators aside).
    Quiescent,
    /// Any of the conditions holds.
    AnyOf(Vec<Termination>),
    /// All of the conditions hold.
    AllOf(Vec<Termination>),
}

#[derive(Debug, Clone)]
struct Participation {
    roles: Vec<String>,
    knowledge: Knowledge,
    terminations: IndexMap<String, Termination>,
}

/// One agent's adapter: the roles it plays and its local knowledge in each
/// protocol.
#[derive(Debug, Clone)]
pub struct Adapter {
    agent: String,
    participations: IndexMap<String, Participation>,
}

impl Adapter {
    /// An adapter for the agent called `agent`, playing nothing yet.
    pub fn new(agent: impl Into<String>) -> Self {
        Self {
            agent: agent.into(),
            participations: IndexMap::new(),
        }
    }

    /// The agent's name.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// Plays `roles` in `protocol` (adding to roles already played in it).
    pub fn play(
        &mut self,
        protocol: impl Into<Arc<Protocol>>,
        roles: &[&str],
    ) -> Result<(), SetupError> {
        let protocol = protocol.into();
        if let Some(role) = roles.iter().find(|r| !protocol.has_role(r)) {
            return Err(SetupError::UnknownRole {
                protocol: protocol.name().to_owned(),
                role: (*role).to_owned(),
            });
        }
        let participation = match self.participations.get_mut(protocol.name()) {
            Some(existing) => {
                if existing.knowledge.protocol() != &*protocol {
                    return Err(SetupError::ConflictingProtocol {
                        protocol: protocol.name().to_owned(),
                    });
                }
                existing
            }
            None => self
                .participations
                .entry(protocol.name().to_owned())
                .or_insert_with(|| Participation {
                    roles: Vec::new(),
                    knowledge: Knowledge::new(protocol.clone()),
                    terminations: IndexMap::new(),
                }),
        };
        for role in roles {
            if !participation.roles.iter().any(|r| r == role) {
                participation.roles.push((*role).to_owned());
            }
        }
        Ok(())
    }

    /// Protocols the agent plays roles in.
    pub fn protocols(&self) -> impl Iterator<Item = &Protocol> {
        self.participations.values().map(|p| p.knowledge.protocol())
    }

    /// Roles the agent plays in `protocol` (empty if none).
    pub fn roles(&self, protocol: &str) -> &[String] {
        self.participations
            .get(protocol)
            .map_or(&[], |p| p.roles.as_slice())
    }

    /// Roles of `protocol` the agent could still take on, with what each one
    /// sends, receives, produces and needs.
    pub fn playable_roles<'p>(&self, protocol: &'p Protocol) -> Vec<RoleView<'p>> {
        let played = self.roles(protocol.name());
        protocol
            .roles()
            .iter()
            .filter(|role| !played.contains(role))
            .filter_map(|role| protocol.role_view(role))
            .collect()
    }

    /// The agent's knowledge in `protocol`.
    pub fn knowledge(&self, protocol: &str) -> Option<&Knowledge> {
        self.participations.get(protocol).map(|p| &p.knowledge)
    }

    /// Every enabled form, over all protocols the agent plays in.
    pub fn enabled(&self) -> Vec<EnabledMessage> {
        self.participations
            .values()
            .flat_map(|p| p.knowledge.enabled(&p.roles))
            .collect()
    }

    /// Enabled forms in one protocol (empty if the agent plays no role in it).
    pub fn enabled_in(&self, protocol: &str) -> Vec<EnabledMessage> {
        self.participations
            .get(protocol)
            .map(|p| p.knowledge.enabled(&p.roles))
            .unwrap_or_default()
    }

    /// Enabled forms of messages sent by `role` in `protocol`.
    pub fn enabled_for(&self, protocol: &str, role: &str) -> Vec<EnabledMessage> {
        self.participations
            .get(protocol)
            .filter(|p| p.roles.iter().any(|r| r == role))
            .map(|p| p.knowledge.enabled(&[role.to_owned()]))
            .unwrap_or_default()
    }

    /// Checks and records a message the agent sends.
    pub fn emit(&mut self, message: MessageInstance) -> Result<Emitted, EmitError> {
        let participation = self
            .participations
            .get_mut(&message.protocol)
            .ok_or_else(|| EmitError::UnknownProtocol {
                protocol: message.protocol.clone(),
            })?;
        match participation
            .knowledge
            .check_emission(&participation.roles, &message)?
        {
            Checked::Duplicate(message) => Ok(Emitted::Duplicate(message)),
            Checked::New(index, message) => {
                participation
                    .knowledge
                    .record(index, message.clone(), Direction::Sent);
                Ok(Emitted::Sent(message))
            }
        }
    }

    /// Checks and records a message the agent received.
    pub fn receive(&mut self, message: MessageInstance) -> Result<Received, ReceiveError> {
        let participation = self
            .participations
            .get_mut(&message.protocol)
            .ok_or_else(|| ReceiveError::UnknownProtocol {
                protocol: message.protocol.clone(),
            })?;
        match participation
            .knowledge
            .check_reception(&participation.roles, &message)?
        {
            Checked::Duplicate(_) => Ok(Received::Duplicate),
            Checked::New(index, message) => {
                participation
                    .knowledge
                    .record(index, message, Direction::Received);
                Ok(Received::Accepted)
            }
        }
    }

    /// Sets when `role` is done in `protocol`.
    pub fn set_termination(
        &mut self,
        protocol: &str,
        role: &str,
        condition: Termination,
    ) -> Result<(), SetupError> {
        let participation =
            self.participations
                .get_mut(protocol)
                .ok_or_else(|| SetupError::UnknownProtocol {
                    protocol: protocol.to_owned(),
                })?;
        if !participation.roles.iter().any(|r| r == role) {
            return Err(SetupError::RoleNotPlayed {
                protocol: protocol.to_owned(),
                role: role.to_owned(),
            });
        }
        if let Some(message) = unknown_message(participation.knowledge.protocol(), &condition) {
            return Err(SetupError::UnknownMessage {
                protocol: protocol.to_owned(),
                message,
            });
        }
        participation
            .terminations
            .insert(role.to_owned(), condition);
        Ok(())
    }

    /// Whether `role` reached its termination condition in `protocol`
    /// (false when none is set).
    pub fn is_done(&self, protocol: &str, role: &str) -> bool {
        let Some(participation) = self.participations.get(protocol) else {
            return false;
        };
        let Some(condition) = participation.terminations.get(role) else {
            return false;
        };
        let evaluation = Evaluation::new(&participation.knowledge, role);
        !evaluation.enactments.is_empty()
            && evaluation
                .enactments
                .iter()
                .all(|e| evaluation.holds(condition, &e.key))
    }

    /// Whether every role with a termination condition is done (false when
    /// no condition is set).
    pub fn all_done(&self) -> bool {
        let mut any = false;
        for (protocol, participation) in &self.participations {
            for role in participation.terminations.keys() {
                any = true;
                if !self.is_done(protocol, role) {
                    return false;
                }
            }
        }
        any
    }
}

fn unknown_message(protocol: &Protocol, condition: &Termination) -> Option<String> {
    match condition {
        Termination::Sent(message) | Termination::Received(message) => {
            protocol.message(message).is_none().then(|| message.clone())
        }
        Termination::AnyOf(conditions) | Termination::AllOf(conditions) => {
            conditions.iter().find_map(|c| unknown_message(protocol, c))
        }
        Termination::Complete | Termination::Quiescent => None,
    }
}

/// Evaluates termination conditions for one role against its knowledge.
struct Evaluation<'k> {
    knowledge: &'k Knowledge,
    enactments: Vec<Enactment<'k>>,
    enabled: Vec<EnabledMessage>,
}

impl<'k> Evaluation<'k> {
    fn new(knowledge: &'k Knowledge, role: &str) -> Self {
        Self {
            knowledge,
            enactments: knowledge.enactments(),
            enabled: knowledge.enabled(&[role.to_owned()]),
        }
    }

    fn observed(&self, message: &str, direction: Direction, enactment: &KeyBinding) -> bool {
        let Some(name) = self.knowledge.protocol().message(message).map(|m| m.name()) else {
            return false;
        };
        let matches = |o: &&Observation| o.direction == direction && o.message.message == name;
        // Usually the message was recorded in the enactment itself or one
        // enclosing it; only otherwise look through the whole history for
        // one in a sub-enactment.
        self.knowledge
            .observations_within(enactment)
            .any(|o| matches(&o))
            || self
                .knowledge
                .observations()
                .iter()
                .filter(matches)
                .any(|o| {
                    self.knowledge
                        .key_of(&o.message)
                        .is_some_and(|key| key.is_compatible(enactment))
                })
    }

    fn holds(&self, condition: &Termination, enactment: &KeyBinding) -> bool {
        match condition {
            Termination::Sent(message) => self.observed(message, Direction::Sent, enactment),
            Termination::Received(message) => {
                self.observed(message, Direction::Received, enactment)
            }
            Termination::Complete => {
                let protocol = self.knowledge.protocol();
                self.enactments.iter().any(|e| {
                    enactment.is_within(&e.key)
                        && protocol
                            .public_adorned(crate::protocol::Adornment::Out)
                            .all(|p| e.bindings.contains_key(p))
                })
            }
            Termination::Quiescent => !self.enabled.iter().any(|form| {
                !form.is_initiator()
                    && KeyBinding::project(&form.ins, form.keys.iter().map(String::as_str))
                        .is_compatible(enactment)
            }),
            Termination::AnyOf(conditions) => conditions.iter().any(|c| self.holds(c, enactment)),
            Termination::AllOf(conditions) => conditions.iter().all(|c| self.holds(c, enactment)),
        }
    }
}
