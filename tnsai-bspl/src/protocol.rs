//! The protocol model: roles, parameters with adornments, messages (with
//! messages of referenced protocols flattened in) and the specification that
//! holds several protocols.
//!
//! The model keeps two views of a protocol. [`Protocol::declarations`] is the
//! body as written (messages and references in order), which the printer uses;
//! [`Protocol::messages`] is the resolved view every other part of the crate
//! works on, where a reference such as `Inner(A, B, item, result)` has been
//! replaced by the referenced protocol's messages, renamed to
//! `<Reference>/<message>` and with roles and parameters substituted.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::parser::{ParseError, parse_document};
use crate::resolve::resolve;
use crate::syntax::Position;
use crate::verify::Diagnostic;

/// How a parameter relates to the knowledge of a message's sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Adornment {
    /// The sender must already know the binding.
    In,
    /// The sender creates the binding (once per enactment, never changed).
    Out,
    /// The sender must not know the binding.
    Nil,
    /// Protocol-level only: either `in` or `out`.
    Any,
    /// Protocol-level only: the parameter may stay unbound.
    Opt,
}

impl Adornment {
    /// The adornment written as `word`, if `word` is one.
    pub fn from_keyword(word: &str) -> Option<Self> {
        match word {
            "in" => Some(Self::In),
            "out" => Some(Self::Out),
            "nil" => Some(Self::Nil),
            "any" => Some(Self::Any),
            "opt" => Some(Self::Opt),
            _ => None,
        }
    }

    /// The keyword as written in BSPL text.
    pub fn keyword(self) -> &'static str {
        match self {
            Self::In => "in",
            Self::Out => "out",
            Self::Nil => "nil",
            Self::Any => "any",
            Self::Opt => "opt",
        }
    }
}

impl fmt::Display for Adornment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// A parameter as declared: in a protocol's `parameters` or `private` list,
/// in a message declaration, or as an argument of a reference.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Parameter {
    /// Parameter name.
    pub name: String,
    /// Adornment as written, if any.
    pub adornment: Option<Adornment>,
    /// Whether `key` was written for it.
    pub key: bool,
    /// Type tags written after `:` (kept on protocol parameters only, as the
    /// reference tool does).
    pub tags: Vec<String>,
}

/// A message declaration as written in a protocol body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MessageDeclaration {
    /// Message name as written.
    pub name: String,
    /// Sender role.
    pub sender: String,
    /// Recipient roles.
    pub recipients: Vec<String>,
    /// Parameters as written (adornment and `key` exactly as declared).
    pub parameters: Vec<Parameter>,
}

/// A reference to another protocol, e.g. `Inner(A, B, item, result)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    /// Name unique within the enclosing protocol: the referenced protocol's
    /// name, followed by a counter from the second reference to it on
    /// (`Order`, `Order2`); it prefixes the messages it contributes.
    pub name: String,
    /// Name of the referenced protocol.
    pub protocol: String,
    /// Roles of the enclosing protocol bound to the referenced roles, in order.
    pub roles: Vec<String>,
    /// Parameters of the enclosing protocol bound to the referenced public
    /// parameters, in order, as written at the reference.
    pub parameters: Vec<Parameter>,
}

/// One entry of a protocol body, in source order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Declaration {
    /// A message declared directly in this protocol.
    Message(MessageDeclaration),
    /// A reference to another protocol.
    Reference(Reference),
}

/// A parameter of a resolved message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct MessageParameter {
    /// Parameter name in the enclosing protocol.
    pub name: String,
    /// `in`, `out`, `nil`, or none when the declaration wrote none.
    pub adornment: Option<Adornment>,
    /// Whether it identifies the message's enactment: declared `key` in the
    /// message or key in the protocol that declares it.
    pub key: bool,
}

/// A message of a protocol after references are resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Message {
    pub(crate) name: String,
    pub(crate) message_name: String,
    pub(crate) qualified_name: String,
    pub(crate) sender: String,
    pub(crate) recipients: Vec<String>,
    pub(crate) parameters: Vec<MessageParameter>,
    pub(crate) keys: Vec<String>,
}

impl Message {
    /// Name unique in the protocol: the bare name, or `<Reference>/<name>`
    /// for a message contributed by a referenced protocol.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The bare message name as declared.
    pub fn message_name(&self) -> &str {
        &self.message_name
    }

    /// `<protocol or reference>/<name>`, the name the reference tool puts on
    /// the wire.
    pub fn qualified_name(&self) -> &str {
        &self.qualified_name
    }

    /// The sending role.
    pub fn sender(&self) -> &str {
        &self.sender
    }

    /// The receiving roles.
    pub fn recipients(&self) -> &[String] {
        &self.recipients
    }

    /// Parameters in declaration order.
    pub fn parameters(&self) -> &[MessageParameter] {
        &self.parameters
    }

    /// The parameter called `name`, if the message has one.
    pub fn parameter(&self, name: &str) -> Option<&MessageParameter> {
        self.parameters.iter().find(|p| p.name == name)
    }

    /// Key parameters in declaration order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// Names of the parameters with the given adornment, in declaration order.
    pub fn adorned(&self, adornment: Adornment) -> impl Iterator<Item = &str> {
        self.parameters
            .iter()
            .filter(move |p| p.adornment == Some(adornment))
            .map(|p| p.name.as_str())
    }

    /// Names of the `in` parameters.
    pub fn ins(&self) -> impl Iterator<Item = &str> {
        self.adorned(Adornment::In)
    }

    /// Names of the `out` parameters.
    pub fn outs(&self) -> impl Iterator<Item = &str> {
        self.adorned(Adornment::Out)
    }

    /// Names of the `nil` parameters.
    pub fn nils(&self) -> impl Iterator<Item = &str> {
        self.adorned(Adornment::Nil)
    }

    /// Names of the parameters a message instance carries (`in` and `out`),
    /// in declaration order.
    pub fn payload_parameters(&self) -> impl Iterator<Item = &str> {
        self.parameters
            .iter()
            .filter(|p| matches!(p.adornment, Some(Adornment::In | Adornment::Out)))
            .map(|p| p.name.as_str())
    }

    /// Whether the message needs no prior knowledge (it has no `in`
    /// parameter), so it can start an enactment.
    pub fn is_initiator(&self) -> bool {
        self.ins().next().is_none()
    }
}

/// What one role does in a protocol: the view an agent (or a prompt builder)
/// needs to decide whether and how to play it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoleView<'p> {
    /// The role.
    pub role: &'p str,
    /// Messages the role sends, in declaration order.
    pub sends: Vec<&'p Message>,
    /// Messages the role receives, in declaration order.
    pub receives: Vec<&'p Message>,
    /// Parameters the role creates (`out` in something it sends), sorted.
    pub produces: Vec<&'p str>,
    /// Parameters the role needs to know before sending (`in` in something it
    /// sends), sorted.
    pub needs: Vec<&'p str>,
}

impl RoleView<'_> {
    /// Whether the role can start an enactment on its own.
    pub fn initiates(&self) -> bool {
        self.sends.iter().any(|m| m.is_initiator())
    }
}

/// A resolved protocol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Protocol {
    pub(crate) name: String,
    pub(crate) roles: Vec<String>,
    pub(crate) public_parameters: Vec<Parameter>,
    pub(crate) private_parameters: Vec<Parameter>,
    pub(crate) declarations: Vec<Declaration>,
    pub(crate) messages: Vec<Message>,
    pub(crate) keys: Vec<String>,
}

impl Protocol {
    /// Protocol name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Roles in declaration order.
    pub fn roles(&self) -> &[String] {
        &self.roles
    }

    /// Whether `role` is one of the protocol's roles.
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r == role)
    }

    /// Public parameters in declaration order.
    pub fn public_parameters(&self) -> &[Parameter] {
        &self.public_parameters
    }

    /// Private parameters in declaration order (a name also declared public
    /// is kept only among the public ones).
    pub fn private_parameters(&self) -> &[Parameter] {
        &self.private_parameters
    }

    /// The declared parameter called `name`, public or private.
    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.public_parameters
            .iter()
            .chain(&self.private_parameters)
            .find(|p| p.name == name)
    }

    /// Whether `name` is a public parameter.
    pub fn is_public(&self, name: &str) -> bool {
        self.public_parameters.iter().any(|p| p.name == name)
    }

    /// Names of the public parameters with the given adornment.
    pub fn public_adorned(&self, adornment: Adornment) -> impl Iterator<Item = &str> {
        self.public_parameters
            .iter()
            .filter(move |p| p.adornment == Some(adornment))
            .map(|p| p.name.as_str())
    }

    /// The protocol's key parameters, public then private, in declaration order.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// The body as written: messages and references in order.
    pub fn declarations(&self) -> &[Declaration] {
        &self.declarations
    }

    /// Messages after resolving references, in declaration order; messages of
    /// a referenced protocol sit at the reference's position.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The message with the given unique name or qualified name.
    pub fn message(&self, name: &str) -> Option<&Message> {
        self.messages
            .iter()
            .find(|m| m.name == name)
            .or_else(|| self.messages.iter().find(|m| m.qualified_name == name))
    }

    /// Position of the message with the given unique or qualified name.
    pub fn message_index(&self, name: &str) -> Option<usize> {
        self.messages
            .iter()
            .position(|m| m.name == name)
            .or_else(|| self.messages.iter().position(|m| m.qualified_name == name))
    }

    /// Messages that need no `in` binding.
    pub fn initiators(&self) -> impl Iterator<Item = &Message> {
        self.messages.iter().filter(|m| m.is_initiator())
    }

    /// What `role` sends, receives, produces and needs; `None` for an unknown
    /// role.
    pub fn role_view(&self, role: &str) -> Option<RoleView<'_>> {
        let role = self.roles.iter().find(|r| *r == role)?;
        let sends: Vec<&Message> = self.messages.iter().filter(|m| m.sender == *role).collect();
        let receives = self
            .messages
            .iter()
            .filter(|m| m.recipients.iter().any(|r| r == role))
            .collect();
        let produces: BTreeSet<&str> = sends.iter().flat_map(|m| m.outs()).collect();
        let needs: BTreeSet<&str> = sends.iter().flat_map(|m| m.ins()).collect();
        Some(RoleView {
            role,
            sends,
            receives,
            produces: produces.into_iter().collect(),
            needs: needs.into_iter().collect(),
        })
    }
}

/// Everything that can go wrong turning text into protocols.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The text does not follow the grammar.
    #[error("syntax error at {0}")]
    Syntax(#[from] ParseError),
    /// Two protocols share a name.
    #[error("{position}: protocol '{name}' is defined more than once")]
    DuplicateProtocol {
        /// The repeated name.
        name: String,
        /// Where the second definition starts.
        position: Position,
    },
    /// A name is declared twice in the same list.
    #[error("{position}: {kind} '{name}' is declared more than once in protocol '{protocol}'")]
    DuplicateDeclaration {
        /// Protocol being declared.
        protocol: String,
        /// `role` or `parameter`.
        kind: &'static str,
        /// The repeated name.
        name: String,
        /// Where the repetition is.
        position: Position,
    },
    /// A reference names a protocol the text does not define.
    #[error("{position}: undefined protocol '{name}' referenced from '{protocol}'")]
    UndefinedProtocol {
        /// Referencing protocol.
        protocol: String,
        /// The missing protocol.
        name: String,
        /// Where the reference is.
        position: Position,
    },
    /// References form a cycle, so the protocol has no finite expansion.
    #[error("{position}: protocol references form a cycle: {}", cycle.join(" -> "))]
    CyclicReference {
        /// The protocols on the cycle, first repeated at the end.
        cycle: Vec<String>,
        /// Where the reference closing the cycle is.
        position: Position,
    },
    /// A reference passes the wrong number of roles or parameters.
    #[error(
        "{position}: reference to '{reference}' in '{protocol}' passes {found} arguments, expected {expected} ({roles} roles then {parameters} public parameters)"
    )]
    ReferenceArity {
        /// Referencing protocol.
        protocol: String,
        /// Referenced protocol.
        reference: String,
        /// Number of arguments the referenced protocol takes.
        expected: usize,
        /// Number written.
        found: usize,
        /// Roles of the referenced protocol.
        roles: usize,
        /// Public parameters of the referenced protocol.
        parameters: usize,
        /// Where the reference is.
        position: Position,
    },
    /// A message or reference names a role its protocol does not declare.
    #[error("{position}: unknown role '{role}' in {context} of protocol '{protocol}' (roles: {})", known.join(", "))]
    UnknownRole {
        /// Protocol being read.
        protocol: String,
        /// The unknown role.
        role: String,
        /// `message 'x'` or `reference 'Y'`.
        context: String,
        /// Declared roles.
        known: Vec<String>,
        /// Where the role is written.
        position: Position,
    },
    /// A message or reference uses a parameter its protocol does not declare.
    #[error("{position}: undeclared parameter '{parameter}' in {context} of protocol '{protocol}'")]
    UndeclaredParameter {
        /// Protocol being read.
        protocol: String,
        /// The undeclared parameter.
        parameter: String,
        /// `message 'x'` or `reference 'Y'`.
        context: String,
        /// Where the parameter is written.
        position: Position,
    },
    /// Two resolved messages end up with the same name.
    #[error("protocol '{protocol}' has two messages named '{name}'")]
    DuplicateMessageName {
        /// Protocol being read.
        protocol: String,
        /// The clashing name.
        name: String,
    },
    /// The protocol breaks a well-formedness rule (see [`Diagnostic`]).
    #[error("{position}: {diagnostic}")]
    IllFormed {
        /// The rule broken.
        diagnostic: Diagnostic,
        /// Where the protocol starts.
        position: Position,
    },
}

/// Protocols read from one text, with the warnings reading them produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Specification {
    pub(crate) protocols: Vec<Protocol>,
    pub(crate) warnings: Vec<Diagnostic>,
}

impl Specification {
    /// Parses, resolves and checks every protocol in `text`.
    ///
    /// Rejects what the reference tool rejects (syntax errors, undefined
    /// references, undeclared roles or parameters, protocols without a public
    /// key, messages without a key, `out` parameters nothing produces, `in`
    /// parameters a message produces) and, unlike it, also rejects duplicate
    /// definitions and cyclic references instead of silently picking one.
    pub fn parse(text: &str) -> Result<Self, LoadError> {
        let document = parse_document(text)?;
        let (protocols, warnings) = resolve(document)?;
        Ok(Self {
            protocols,
            warnings,
        })
    }

    /// Protocols in source order.
    pub fn protocols(&self) -> &[Protocol] {
        &self.protocols
    }

    /// The protocol called `name`.
    pub fn protocol(&self, name: &str) -> Option<&Protocol> {
        self.protocols.iter().find(|p| p.name == name)
    }

    /// Takes the protocol called `name` out of the specification.
    pub fn into_protocol(self, name: &str) -> Option<Protocol> {
        self.protocols.into_iter().find(|p| p.name == name)
    }

    /// Warnings produced while reading (e.g. a parameter declared both public
    /// and private, declared parameters no message uses).
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }
}

impl FromStr for Specification {
    type Err = LoadError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}
