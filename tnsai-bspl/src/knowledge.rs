//! An agent's local knowledge in one protocol: its history of sent and
//! received messages, indexed by enactment, and what follows from it: the
//! enabled message forms and whether a message may be sent or received.
//!
//! # Enactments
//!
//! A message instance belongs to the enactment identified by the values of
//! its key parameters (its *key binding*). A binding recorded under key
//! binding `k` is visible in every enactment whose key binding contains `k`:
//! `Start{id: 1}` is visible in `{id: 1, bidID: b1}`, but a `Bid{id: 1,
//! bidID: b1, ...}` is not visible in `{id: 1}`, since it belongs to a
//! sub-enactment.
//!
//! # Enabled forms
//!
//! Message `m` (sent by a role the agent plays) is enabled with `in` values
//! `v` when
//! * some recorded enactment knows all of `m`'s `in` parameters, with values
//!   `v` (an enactment identified by one of `m`'s `out` keys does not count:
//!   it is a sibling of the one `m` creates);
//! * in the enactment identified by `m`'s `in` keys (with values from `v`),
//!   none of `m`'s `out` or `nil` parameters is bound.
//!
//! A message without `in` parameters is always enabled, once, with no values.
//! A message without `out` parameters stays enabled after it is sent; sending
//! it again with the same values is reported as a duplicate. These are the
//! reference tool's adapter semantics, and its enabled sets agree with ours
//! on the fixture cases. Two differences are deliberate: a message with `in`
//! parameters but only `out` keys is never enabled (it would start an
//! enactment, where nothing is known yet; the verifier agrees), and every
//! enabled form can actually be sent (the reference adapter lists some it
//! then fails to send, e.g. `Inner/act` in a composed protocol).
//!
//! Sending checks the same conditions on the concrete message, plus that its
//! `out` keys do not name an enactment already recorded. Receiving checks
//! that the message agrees with what is recorded in its enactment; it does
//! not check `nil` parameters, since the sender may not have known them yet.

use std::collections::HashSet;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::Serialize;

use crate::adapter::{EmitError, ReceiveError};
use crate::message::{Bindings, EnabledMessage, MessageInstance};
use crate::protocol::Protocol;

/// Values of some key parameters, sorted by parameter name: the identity of
/// an enactment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct KeyBinding(Vec<(String, String)>);

impl KeyBinding {
    /// A key binding from (parameter, value) pairs; a parameter listed
    /// twice keeps its first value.
    pub fn new(pairs: impl IntoIterator<Item = (impl Into<String>, impl Into<String>)>) -> Self {
        let mut bindings = Bindings::new();
        for (parameter, value) in pairs {
            bindings
                .entry(parameter.into())
                .or_insert_with(|| value.into());
        }
        Self(bindings.into_iter().collect())
    }

    /// The values of `keys` in `bindings` (keys without a value are skipped).
    pub fn project<'a>(bindings: &Bindings, keys: impl IntoIterator<Item = &'a str>) -> Self {
        let mut pairs: Vec<(String, String)> = keys
            .into_iter()
            .filter_map(|k| bindings.get(k).map(|v| (k.to_owned(), v.clone())))
            .collect();
        pairs.sort();
        pairs.dedup();
        Self(pairs)
    }

    /// The (parameter, value) pairs, sorted by parameter.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }

    /// Whether no key is bound.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether every pair of `self` is in `other`.
    pub fn is_within(&self, other: &KeyBinding) -> bool {
        self.0.iter().all(|pair| other.0.contains(pair))
    }

    /// Whether the two share a key parameter and agree on every shared one:
    /// they describe the same enactment or one contains the other's.
    pub fn is_compatible(&self, other: &KeyBinding) -> bool {
        let mut shared = false;
        for (parameter, value) in &self.0 {
            if let Some((_, other_value)) = other.0.iter().find(|(p, _)| p == parameter) {
                if other_value != value {
                    return false;
                }
                shared = true;
            }
        }
        shared
    }

    fn as_bindings(&self) -> Bindings {
        self.0.iter().cloned().collect()
    }
}

impl std::fmt::Display for KeyBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("{")?;
        for (index, (parameter, value)) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{parameter}: {value}")?;
        }
        f.write_str("}")
    }
}

/// Whether the agent sent or received a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The agent sent it.
    Sent,
    /// The agent received it.
    Received,
}

/// One entry of the local history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observation {
    /// Sent or received.
    pub direction: Direction,
    /// The message, with its unique name and recipients filled in.
    pub message: MessageInstance,
}

/// One enactment as the agent knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Enactment<'k> {
    /// Its identity.
    pub key: KeyBinding,
    /// Every binding visible in it (its own and its enclosing enactments').
    pub bindings: Bindings,
    /// The observations recorded under exactly this key binding, in order.
    pub observations: Vec<&'k Observation>,
}

/// A message's parameters by role, precomputed once per protocol.
#[derive(Debug, Clone)]
struct Schema {
    name: String,
    sender: String,
    recipients: Vec<String>,
    ins: Vec<String>,
    outs: Vec<String>,
    nils: Vec<String>,
    keys: Vec<String>,
    in_keys: Vec<String>,
    /// `in_keys` sorted, to compare with a key binding's parameters.
    sorted_in_keys: Vec<String>,
    out_keys: Vec<String>,
}

impl Schema {
    fn payload(&self) -> impl Iterator<Item = &String> {
        self.ins.iter().chain(&self.outs)
    }
}

#[derive(Debug, Clone, Default)]
struct Context {
    bindings: Bindings,
    observations: Vec<usize>,
}

/// The bindings visible in one enactment, looked up in place.
struct View<'a, 's> {
    key: &'a KeyBinding,
    recorded: Vec<&'s Context>,
}

impl View<'_, '_> {
    fn get(&self, parameter: &str) -> Option<&String> {
        self.key
            .pairs()
            .iter()
            .find(|(p, _)| p == parameter)
            .map(|(_, v)| v)
            .or_else(|| {
                self.recorded
                    .iter()
                    .find_map(|context| context.bindings.get(parameter))
            })
    }

    /// The values of all `parameters`, or `None` if one is unbound.
    fn project_all(&self, parameters: &[String]) -> Option<Bindings> {
        parameters
            .iter()
            .map(|p| self.get(p).map(|v| (p.clone(), v.clone())))
            .collect()
    }
}

/// Outcome of a successful check: the message is new (with the index of its
/// schema and the message normalised) or an exact repeat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Checked {
    New(usize, MessageInstance),
    Duplicate(MessageInstance),
}

/// Shape problems shared by emission and reception checks.
enum Shape {
    UnknownMessage,
    WrongSender { expected: String },
    WrongRecipients { expected: Vec<String> },
    Missing(Vec<String>),
    Unexpected(Vec<String>),
}

/// Local history and knowledge of one agent in one protocol.
#[derive(Debug, Clone)]
pub struct Knowledge {
    protocol: Arc<Protocol>,
    schemas: Vec<Schema>,
    observations: Vec<Observation>,
    contexts: IndexMap<KeyBinding, Context>,
    seen: HashSet<(usize, Bindings)>,
}

impl Knowledge {
    /// Empty knowledge of `protocol`.
    pub fn new(protocol: Arc<Protocol>) -> Self {
        let schemas = protocol
            .messages()
            .iter()
            .map(|m| {
                let ins: Vec<String> = m.ins().map(str::to_owned).collect();
                let outs: Vec<String> = m.outs().map(str::to_owned).collect();
                let keys = m.keys().to_vec();
                let in_keys: Vec<String> =
                    keys.iter().filter(|k| ins.contains(k)).cloned().collect();
                let mut sorted_in_keys = in_keys.clone();
                sorted_in_keys.sort();
                Schema {
                    name: m.name().to_owned(),
                    sender: m.sender().to_owned(),
                    recipients: m.recipients().to_vec(),
                    in_keys,
                    sorted_in_keys,
                    out_keys: keys.iter().filter(|k| outs.contains(k)).cloned().collect(),
                    nils: m.nils().map(str::to_owned).collect(),
                    ins,
                    outs,
                    keys,
                }
            })
            .collect();
        Self {
            protocol,
            schemas,
            observations: Vec::new(),
            contexts: IndexMap::new(),
            seen: HashSet::new(),
        }
    }

    /// The protocol.
    pub fn protocol(&self) -> &Protocol {
        &self.protocol
    }

    /// Every message sent or received, in order.
    pub fn observations(&self) -> &[Observation] {
        &self.observations
    }

    /// Bindings visible in the enactment `key`: the key's own values and
    /// those recorded under any key binding within it.
    pub fn bindings(&self, key: &KeyBinding) -> Bindings {
        let mut bindings = key.as_bindings();
        self.merge_visible(key, &mut bindings);
        bindings
    }

    /// Every enactment a message was recorded under, in order of first use.
    pub fn enactments(&self) -> Vec<Enactment<'_>> {
        self.contexts
            .iter()
            .map(|(key, context)| Enactment {
                key: key.clone(),
                bindings: self.bindings(key),
                observations: context
                    .observations
                    .iter()
                    .map(|i| &self.observations[*i])
                    .collect(),
            })
            .collect()
    }

    /// Observations recorded under `key` or a key binding within it, i.e.
    /// in the enactment or one enclosing it.
    pub fn observations_within<'k>(
        &'k self,
        key: &KeyBinding,
    ) -> impl Iterator<Item = &'k Observation> + 'k {
        self.recorded_keys_within(key)
            .into_iter()
            .flat_map(|(_, context)| context.observations.iter().map(|i| &self.observations[*i]))
    }

    /// The key binding a message instance belongs to.
    pub fn key_of(&self, message: &MessageInstance) -> Option<KeyBinding> {
        let index = self.protocol.message_index(&message.message)?;
        Some(KeyBinding::project(
            &message.bindings,
            self.schemas[index].keys.iter().map(String::as_str),
        ))
    }

    /// Recorded key bindings within `key` (including `key` itself), with
    /// what was recorded under each.
    fn recorded_keys_within(&self, key: &KeyBinding) -> Vec<(&KeyBinding, &Context)> {
        let pairs = key.pairs();
        // Enumerating the subsets is cheap for the usual one to three keys;
        // beyond that, scanning the recorded contexts is cheaper.
        if pairs.len() <= 10 {
            let full = (1u32 << pairs.len()) - 1;
            (0u32..=full)
                .filter_map(|mask| {
                    if mask == full {
                        return self.contexts.get_key_value(key);
                    }
                    let subset = KeyBinding(
                        pairs
                            .iter()
                            .enumerate()
                            .filter(|(i, _)| mask & (1 << i) != 0)
                            .map(|(_, pair)| pair.clone())
                            .collect(),
                    );
                    self.contexts.get_key_value(&subset)
                })
                .collect()
        } else {
            self.contexts
                .iter()
                .filter(|(recorded, _)| recorded.is_within(key))
                .collect()
        }
    }

    /// Adds to `bindings` what was recorded under key bindings within `key`
    /// (earlier values win; checks keep them consistent).
    fn merge_visible(&self, key: &KeyBinding, bindings: &mut Bindings) {
        for (_, context) in self.recorded_keys_within(key) {
            for (p, v) in &context.bindings {
                bindings.entry(p.clone()).or_insert_with(|| v.clone());
            }
        }
    }

    /// Bindings recorded under key bindings within `key`, without the key's
    /// own values.
    fn recorded_within(&self, key: &KeyBinding) -> Bindings {
        let mut bindings = Bindings::new();
        self.merge_visible(key, &mut bindings);
        bindings
    }

    /// Enabled forms of the messages sent by any of `roles`, in message
    /// declaration order, then in the order their enactments were recorded.
    pub fn enabled(&self, roles: &[String]) -> Vec<EnabledMessage> {
        let mut forms: Vec<(usize, Bindings)> = Vec::new();
        let senders: Vec<usize> = (0..self.schemas.len())
            .filter(|i| roles.contains(&self.schemas[*i].sender))
            .collect();

        for index in &senders {
            if self.schemas[*index].ins.is_empty() {
                forms.push((*index, Bindings::new()));
            }
        }
        // A message with `in` parameters but no `in` key would start a new
        // enactment (its keys are all `out`), where nothing is known yet: it
        // can never be enabled.
        let dependent: Vec<usize> = senders
            .iter()
            .copied()
            .filter(|i| !self.schemas[*i].ins.is_empty() && !self.schemas[*i].in_keys.is_empty())
            .collect();
        if !dependent.is_empty() {
            for key in self.contexts.keys() {
                let known = self.view(key);
                for index in &dependent {
                    let schema = &self.schemas[*index];
                    if !self.usable(key, schema) {
                        continue;
                    }
                    let Some(ins) = known.project_all(&schema.ins) else {
                        continue;
                    };
                    let same_enactment = key.pairs().len() == schema.sorted_in_keys.len()
                        && key
                            .pairs()
                            .iter()
                            .zip(&schema.sorted_in_keys)
                            .all(|((p, _), k)| p == k);
                    let in_key;
                    let other;
                    let enactment = if same_enactment {
                        &known
                    } else {
                        in_key =
                            KeyBinding::project(&ins, schema.in_keys.iter().map(String::as_str));
                        other = self.view(&in_key);
                        &other
                    };
                    let blocked = schema
                        .outs
                        .iter()
                        .chain(&schema.nils)
                        .any(|p| enactment.get(p).is_some());
                    if !blocked {
                        forms.push((*index, ins));
                    }
                }
            }
        }

        // Declaration order, then order of first derivation (the order the
        // enactments were first recorded); the same form can be derived from
        // several enactments and is listed once.
        forms.sort_by_key(|(index, _)| *index);
        let mut seen = HashSet::new();
        let unique: Vec<bool> = forms
            .iter()
            .map(|(index, ins)| seen.insert((*index, ins)))
            .collect();
        forms
            .into_iter()
            .zip(unique)
            .filter(|(_, first)| *first)
            .map(|((index, ins), _)| self.form(index, ins))
            .collect()
    }

    /// What is visible in enactment `key`, without copying it.
    fn view<'a>(&self, key: &'a KeyBinding) -> View<'a, '_> {
        View {
            key,
            recorded: self
                .recorded_keys_within(key)
                .into_iter()
                .map(|(_, context)| context)
                .collect(),
        }
    }

    /// Whether what was recorded in enactment `key` may supply the `in`
    /// values of a message: not when `key` identifies a sibling of the
    /// enactment the message creates (it binds one of the message's `out`
    /// keys), since a new sub-enactment knows nothing of its siblings.
    fn usable(&self, key: &KeyBinding, schema: &Schema) -> bool {
        !key.pairs().iter().any(|(p, _)| schema.out_keys.contains(p))
    }

    fn form(&self, index: usize, ins: Bindings) -> EnabledMessage {
        let schema = &self.schemas[index];
        EnabledMessage {
            protocol: self.protocol.name().to_owned(),
            message: schema.name.clone(),
            sender: schema.sender.clone(),
            recipients: schema.recipients.clone(),
            ins,
            outs: schema.outs.clone(),
            nils: schema.nils.clone(),
            keys: schema.keys.clone(),
        }
    }

    /// Normalises the message name and recipients and checks the payload
    /// holds exactly the `in` and `out` parameters.
    fn check_shape(&self, message: &MessageInstance) -> Result<(usize, MessageInstance), Shape> {
        let index = self
            .protocol
            .message_index(&message.message)
            .ok_or(Shape::UnknownMessage)?;
        let schema = &self.schemas[index];
        if message.sender != schema.sender {
            return Err(Shape::WrongSender {
                expected: schema.sender.clone(),
            });
        }
        let mut normalised = message.clone();
        normalised.message = schema.name.clone();
        if normalised.recipients.is_empty() {
            normalised.recipients = schema.recipients.clone();
        } else {
            let mut given = normalised.recipients.clone();
            let mut expected = schema.recipients.clone();
            given.sort();
            expected.sort();
            if given != expected {
                return Err(Shape::WrongRecipients {
                    expected: schema.recipients.clone(),
                });
            }
            normalised.recipients = schema.recipients.clone();
        }
        let missing: Vec<String> = schema
            .payload()
            .filter(|p| !message.bindings.contains_key(*p))
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(Shape::Missing(missing));
        }
        let unexpected: Vec<String> = message
            .bindings
            .keys()
            .filter(|p| !schema.payload().any(|q| q == *p))
            .cloned()
            .collect();
        if !unexpected.is_empty() {
            return Err(Shape::Unexpected(unexpected));
        }
        Ok((index, normalised))
    }

    /// Checks that the agent, playing `roles`, may send `message` now.
    pub(crate) fn check_emission(
        &self,
        roles: &[String],
        message: &MessageInstance,
    ) -> Result<Checked, EmitError> {
        let protocol = self.protocol.name().to_owned();
        let name = message.message.clone();
        let (index, message) = self.check_shape(message).map_err(|shape| match shape {
            Shape::UnknownMessage => EmitError::UnknownMessage {
                protocol: protocol.clone(),
                message: name.clone(),
            },
            Shape::WrongSender { expected } => EmitError::WrongSender {
                message: name.clone(),
                expected,
                found: message.sender.clone(),
            },
            Shape::WrongRecipients { expected } => EmitError::WrongRecipients {
                message: name.clone(),
                expected,
                found: message.recipients.clone(),
            },
            Shape::Missing(parameters) => EmitError::MissingParameters {
                message: name.clone(),
                parameters,
            },
            Shape::Unexpected(parameters) => EmitError::UnexpectedParameters {
                message: name.clone(),
                parameters,
            },
        })?;
        let schema = &self.schemas[index];
        let name = schema.name.clone();
        if !roles.contains(&schema.sender) {
            return Err(EmitError::NotSenderRole {
                message: name,
                role: schema.sender.clone(),
            });
        }
        if self.seen.contains(&(index, message.bindings.clone())) {
            return Ok(Checked::Duplicate(message));
        }

        self.check_ins(index, &message)?;

        let full_key =
            KeyBinding::project(&message.bindings, schema.keys.iter().map(String::as_str));
        if !schema.out_keys.is_empty() {
            let reused = self
                .recorded_keys_within(&full_key)
                .iter()
                .any(|(recorded, _)| {
                    recorded
                        .pairs()
                        .iter()
                        .any(|(p, _)| schema.out_keys.contains(p))
                });
            if reused {
                let existing = self.recorded_within(&full_key);
                let (parameter, existing_value) = schema
                    .outs
                    .iter()
                    .filter(|p| !schema.out_keys.contains(p))
                    .find_map(|p| {
                        existing
                            .get(p)
                            .filter(|v| Some(*v) != message.bindings.get(p))
                            .map(|v| (p.clone(), v.clone()))
                    })
                    .unwrap_or_else(|| {
                        let key = schema.out_keys[0].clone();
                        let value = message.bindings.get(&key).cloned().unwrap_or_default();
                        (key, value)
                    });
                return Err(EmitError::KeyReuse {
                    message: name,
                    supplied: message
                        .bindings
                        .get(&parameter)
                        .cloned()
                        .unwrap_or_default(),
                    key: full_key,
                    parameter,
                    existing: existing_value,
                });
            }
        }

        let in_key =
            KeyBinding::project(&message.bindings, schema.in_keys.iter().map(String::as_str));
        let enactment = self.bindings(&in_key);
        if let Some(parameter) = schema.outs.iter().find(|p| enactment.contains_key(*p)) {
            return Err(EmitError::OutAlreadyBound {
                message: name,
                parameter: parameter.clone(),
                value: enactment[parameter].clone(),
            });
        }
        if let Some(parameter) = schema.nils.iter().find(|p| enactment.contains_key(*p)) {
            return Err(EmitError::NilBound {
                message: name,
                parameter: parameter.clone(),
                value: enactment[parameter].clone(),
            });
        }
        Ok(Checked::New(index, message))
    }

    /// Checks that every `in` value of `message` is known, together, in one
    /// recorded enactment.
    fn check_ins(&self, index: usize, message: &MessageInstance) -> Result<(), EmitError> {
        let schema = &self.schemas[index];
        if schema.ins.is_empty() {
            return Ok(());
        }
        if schema.in_keys.is_empty() {
            // All its keys are `out`: the message starts an enactment, in
            // which no `in` parameter can be known yet.
            return Err(EmitError::UnboundIn {
                message: schema.name.clone(),
                parameter: schema.ins[0].clone(),
            });
        }
        let in_key =
            KeyBinding::project(&message.bindings, schema.in_keys.iter().map(String::as_str));
        // Usually the enactment the `in` keys identify knows everything.
        if self.contexts.contains_key(&in_key) && self.usable(&in_key, schema) {
            let known = self.bindings(&in_key);
            if schema
                .ins
                .iter()
                .all(|p| known.get(p) == message.bindings.get(p))
            {
                return Ok(());
            }
        }
        // Among the enactments identified by the message's `in` keys, the one
        // agreeing with the most `in` values explains a refusal best; when no
        // enactment has those keys, the enactment itself is unknown.
        let mut best: Option<(usize, Bindings)> = None;
        for key in self.contexts.keys().filter(|key| self.usable(key, schema)) {
            let known = self.bindings(key);
            let agrees = |p: &String| known.get(p) == message.bindings.get(p);
            if !schema.in_keys.iter().all(agrees) {
                continue;
            }
            let agreeing = schema.ins.iter().filter(|p| agrees(p)).count();
            if agreeing == schema.ins.len() {
                return Ok(());
            }
            if best.as_ref().is_none_or(|(count, _)| agreeing > *count) {
                best = Some((agreeing, known));
            }
        }
        let Some((_, known)) = best else {
            return Err(EmitError::UnboundIn {
                message: schema.name.clone(),
                parameter: schema.in_keys.first().unwrap_or(&schema.ins[0]).clone(),
            });
        };
        for parameter in &schema.ins {
            let supplied = message.bindings.get(parameter).cloned().unwrap_or_default();
            match known.get(parameter) {
                None => {
                    return Err(EmitError::UnboundIn {
                        message: schema.name.clone(),
                        parameter: parameter.clone(),
                    });
                }
                Some(value) if *value != supplied => {
                    return Err(EmitError::InMismatch {
                        message: schema.name.clone(),
                        parameter: parameter.clone(),
                        known: value.clone(),
                        supplied,
                    });
                }
                Some(_) => {}
            }
        }
        Err(EmitError::UnboundIn {
            message: schema.name.clone(),
            parameter: schema.ins[0].clone(),
        })
    }

    /// Checks that the agent, playing `roles`, may accept `message`.
    pub(crate) fn check_reception(
        &self,
        roles: &[String],
        message: &MessageInstance,
    ) -> Result<Checked, ReceiveError> {
        let protocol = self.protocol.name().to_owned();
        let name = message.message.clone();
        let (index, message) = self.check_shape(message).map_err(|shape| match shape {
            Shape::UnknownMessage => ReceiveError::UnknownMessage {
                protocol: protocol.clone(),
                message: name.clone(),
            },
            Shape::WrongSender { expected } => ReceiveError::WrongSender {
                message: name.clone(),
                expected,
                found: message.sender.clone(),
            },
            Shape::WrongRecipients { expected } => ReceiveError::WrongRecipients {
                message: name.clone(),
                expected,
                found: message.recipients.clone(),
            },
            Shape::Missing(parameters) => ReceiveError::MissingParameters {
                message: name.clone(),
                parameters,
            },
            Shape::Unexpected(parameters) => ReceiveError::UnexpectedParameters {
                message: name.clone(),
                parameters,
            },
        })?;
        let schema = &self.schemas[index];
        if !schema.recipients.iter().any(|r| roles.contains(r)) {
            return Err(ReceiveError::NotARecipient {
                message: schema.name.clone(),
                recipients: schema.recipients.clone(),
            });
        }
        if self.seen.contains(&(index, message.bindings.clone())) {
            return Ok(Checked::Duplicate(message));
        }
        let key = KeyBinding::project(&message.bindings, schema.keys.iter().map(String::as_str));
        let recorded = self.recorded_within(&key);
        for (parameter, value) in &message.bindings {
            if let Some(known) = recorded.get(parameter)
                && known != value
            {
                return Err(ReceiveError::Conflict {
                    message: schema.name.clone(),
                    key,
                    parameter: parameter.clone(),
                    known: known.clone(),
                    received: value.clone(),
                });
            }
        }
        Ok(Checked::New(index, message))
    }

    /// Records a checked message.
    pub(crate) fn record(&mut self, index: usize, message: MessageInstance, direction: Direction) {
        let key = KeyBinding::project(
            &message.bindings,
            self.schemas[index].keys.iter().map(String::as_str),
        );
        let position = self.observations.len();
        let context = self.contexts.entry(key).or_default();
        for (p, v) in &message.bindings {
            context
                .bindings
                .entry(p.clone())
                .or_insert_with(|| v.clone());
        }
        context.observations.push(position);
        self.seen.insert((index, message.bindings.clone()));
        self.observations.push(Observation { direction, message });
    }
}
