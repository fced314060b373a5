//! State-space exploration of one enactment of a protocol.
//!
//! The model is the one the reference tool simulates. Each role has local
//! knowledge: the `in` and `out` parameters of the messages it has sent or
//! received, restricted to those connected to the message's keys through
//! shared parameters. A role may emit a message when it knows every `in`
//! parameter and no `out` or `nil` parameter. A message without `out`
//! parameters is emitted at most once, and a message whose `out` keys were
//! all bound already belongs to another enactment. Every emitted message is
//! received by each recipient, separately and in any order. Optionally each
//! role may once receive the protocol's public `in` parameters from outside
//! ("external sources").
//!
//! Knowledge only grows, so a state is the set of events that happened and
//! the state graph is acyclic: breadth-first search over states visits each
//! state once and yields shortest counterexamples. The partial-order
//! reduction takes a pending reception alone when it is *passive*: receiving
//! it cannot make its recipient learn a parameter that is `out` or `nil` in a
//! message the recipient sends. Such a reception commutes with every other
//! event, so the reachable sets of emissions and the final states are the
//! same with or without trying the other orders. It is applied only when all
//! messages share one key set, where a role's knowledge is exactly the
//! parameters of what it observed.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use serde::Serialize;

use crate::protocol::{Adornment, Protocol};
use crate::verify::{VerifyError, VerifyOptions};

/// One step of a path through a protocol's state space.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// `role` sends `message` (shown `role!message`).
    Emission {
        /// The sending role.
        role: String,
        /// The message's unique name.
        message: String,
    },
    /// `role` receives `message` (shown `role?message`).
    Reception {
        /// The receiving role.
        role: String,
        /// The message's unique name.
        message: String,
    },
    /// `role` learns the public `in` parameters from outside the protocol
    /// (shown `role?external[...]`).
    ExternalInput {
        /// The role receiving the bindings.
        role: String,
        /// The public `in` parameters provided.
        parameters: Vec<String>,
    },
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Emission { role, message } => write!(f, "{role}!{message}"),
            Self::Reception { role, message } => write!(f, "{role}?{message}"),
            Self::ExternalInput { role, parameters } => {
                write!(f, "{role}?external[{}]", parameters.join(", "))
            }
        }
    }
}

/// Reads the form [`Event`] displays: `role!message`, `role?message` or
/// `role?external[p, q]`.
impl std::str::FromStr for Event {
    type Err = VerifyError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let unreadable = || VerifyError::UnreadableEvent {
            text: text.to_owned(),
        };
        let split = text.find(['!', '?']).ok_or_else(unreadable)?;
        let (role, rest) = text.split_at(split);
        let (marker, message) = rest.split_at(1);
        if role.is_empty() || message.is_empty() {
            return Err(unreadable());
        }
        let role = role.to_owned();
        if marker == "!" {
            return Ok(Self::Emission {
                role,
                message: message.to_owned(),
            });
        }
        match message
            .strip_prefix("external[")
            .and_then(|m| m.strip_suffix(']'))
        {
            Some(list) => Ok(Self::ExternalInput {
                role,
                parameters: list
                    .split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned)
                    .collect(),
            }),
            None => Ok(Self::Reception {
                role,
                message: message.to_owned(),
            }),
        }
    }
}

/// A fixed-size set of small integers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Bits(Vec<u64>);

impl Bits {
    fn with_capacity(size: usize) -> Self {
        Self(vec![0; size.div_ceil(64).max(1)])
    }

    fn insert(&mut self, index: usize) {
        self.0[index / 64] |= 1 << (index % 64);
    }

    fn contains(&self, index: usize) -> bool {
        self.0[index / 64] & (1 << (index % 64)) != 0
    }

    fn intersects(&self, other: &Self) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    fn is_subset(&self, other: &Self) -> bool {
        self.0.iter().zip(&other.0).all(|(a, b)| a & !b == 0)
    }

    fn union_with(&mut self, other: &Self) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    fn intersect_with(&mut self, other: &Self) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a &= b;
        }
    }

    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(word, bits)| {
            (0..64)
                .filter(move |bit| bits & (1 << bit) != 0)
                .map(move |bit| word * 64 + bit)
        })
    }
}

/// A message, or an external source of the public `in` parameters for one role.
struct Source {
    name: String,
    /// `None` for an external source.
    sender: Option<usize>,
    recipients: Vec<usize>,
    /// Index of the reception of the first recipient; the others follow.
    first_slot: usize,
    parameters: Bits,
    ins: Bits,
    outs: Bits,
    nils: Bits,
    keys: Bits,
    out_keys: Vec<usize>,
    /// Messages with the same key set share a group.
    key_group: usize,
}

impl Source {
    fn is_external(&self) -> bool {
        self.sender.is_none()
    }
}

struct Model {
    parameters: Vec<String>,
    roles: Vec<String>,
    sources: Vec<Source>,
    /// (source, recipient role) for every reception.
    slots: Vec<(usize, usize)>,
    /// For each role, the sources it observes, with the slot it observes them
    /// by (`None`: it is the sender, or the recipient of an external source).
    observed_by: Vec<Vec<(usize, Option<usize>)>>,
    single_key_context: bool,
    passive: Vec<bool>,
    public_outs: Bits,
    public_ins: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct State {
    emitted: Bits,
    received: Bits,
}

#[derive(Debug, Clone, Copy)]
enum Step {
    Emit(usize),
    Receive(usize),
}

/// What one exploration found.
pub(crate) struct Findings {
    pub(crate) states: usize,
    pub(crate) transitions: usize,
    /// First conflicting parameter and a path to it.
    pub(crate) unsafe_path: Option<(String, Vec<Event>)>,
    /// Each distinct set of public `out` parameters left unbound in a final
    /// state, with a shortest path to such a state, in the order found.
    pub(crate) incomplete: Vec<(Vec<String>, Vec<Event>)>,
    /// Parameters some reachable emission binds.
    pub(crate) bound: Vec<String>,
    /// Parameters some reachable emission has as `in` or `nil`.
    pub(crate) consumed: Vec<String>,
}

impl Model {
    fn new(protocol: &Protocol, external_sources: bool) -> Self {
        let mut parameters: Vec<String> = Vec::new();
        let mut index_of = HashMap::new();
        let mut intern = |name: &str, parameters: &mut Vec<String>| -> usize {
            *index_of.entry(name.to_owned()).or_insert_with(|| {
                parameters.push(name.to_owned());
                parameters.len() - 1
            })
        };
        for parameter in protocol
            .public_parameters()
            .iter()
            .chain(protocol.private_parameters())
        {
            intern(&parameter.name, &mut parameters);
        }
        for message in protocol.messages() {
            for parameter in message.parameters() {
                intern(&parameter.name, &mut parameters);
            }
        }
        let size = parameters.len();
        let bits_of = |names: &mut dyn Iterator<Item = &str>, parameters: &[String]| {
            let mut bits = Bits::with_capacity(size);
            for name in names {
                if let Some(index) = parameters.iter().position(|p| p == name) {
                    bits.insert(index);
                }
            }
            bits
        };

        let roles: Vec<String> = protocol.roles().to_vec();
        let role_index = |name: &str| roles.iter().position(|r| r == name).unwrap_or(0);

        let mut key_sets: Vec<Bits> = Vec::new();
        let mut sources = Vec::new();
        let mut slots = Vec::new();
        for message in protocol.messages() {
            let keys = bits_of(&mut message.keys().iter().map(String::as_str), &parameters);
            let key_group = match key_sets.iter().position(|k| *k == keys) {
                Some(group) => group,
                None => {
                    key_sets.push(keys.clone());
                    key_sets.len() - 1
                }
            };
            let outs = bits_of(&mut message.outs(), &parameters);
            let out_keys = keys.ones().filter(|k| outs.contains(*k)).collect();
            let recipients: Vec<usize> =
                message.recipients().iter().map(|r| role_index(r)).collect();
            let first_slot = slots.len();
            for recipient in &recipients {
                slots.push((sources.len(), *recipient));
            }
            sources.push(Source {
                name: message.name().to_owned(),
                sender: Some(role_index(message.sender())),
                recipients,
                first_slot,
                parameters: bits_of(
                    &mut message.parameters().iter().map(|p| p.name.as_str()),
                    &parameters,
                ),
                ins: bits_of(&mut message.ins(), &parameters),
                outs,
                nils: bits_of(&mut message.nils(), &parameters),
                keys,
                out_keys,
                key_group,
            });
        }
        let single_key_context = key_sets.len() <= 1;

        let public_ins: Vec<String> = protocol
            .public_adorned(Adornment::In)
            .map(str::to_owned)
            .collect();
        if external_sources && !public_ins.is_empty() {
            let ins = bits_of(&mut public_ins.iter().map(String::as_str), &parameters);
            let mut keys = ins.clone();
            keys.intersect_with(&bits_of(
                &mut protocol.keys().iter().map(String::as_str),
                &parameters,
            ));
            for (role, role_name) in roles.iter().enumerate() {
                sources.push(Source {
                    name: format!("external->{role_name}"),
                    sender: None,
                    recipients: vec![role],
                    first_slot: usize::MAX,
                    parameters: ins.clone(),
                    ins: ins.clone(),
                    outs: Bits::with_capacity(size),
                    nils: Bits::with_capacity(size),
                    keys: keys.clone(),
                    out_keys: Vec::new(),
                    key_group: usize::MAX,
                });
            }
        }

        let mut observed_by = vec![Vec::new(); roles.len()];
        for (index, source) in sources.iter().enumerate() {
            match source.sender {
                Some(sender) => observed_by[sender].push((index, None)),
                None => observed_by[source.recipients[0]].push((index, None)),
            }
            if !source.is_external() {
                for (offset, recipient) in source.recipients.iter().enumerate() {
                    observed_by[*recipient].push((index, Some(source.first_slot + offset)));
                }
            }
        }

        let mut forbidden = vec![Bits::with_capacity(size); roles.len()];
        for source in &sources {
            if let Some(sender) = source.sender {
                forbidden[sender].union_with(&source.outs);
                forbidden[sender].union_with(&source.nils);
            }
        }
        let externals_present = sources.iter().any(Source::is_external);
        let public_in_bits = bits_of(&mut public_ins.iter().map(String::as_str), &parameters);
        let passive = slots
            .iter()
            .map(|(source, recipient)| {
                let mut learned = sources[*source].ins.clone();
                learned.union_with(&sources[*source].outs);
                if externals_present {
                    learned.union_with(&public_in_bits);
                }
                !learned.intersects(&forbidden[*recipient])
            })
            .collect();

        let public_outs = bits_of(&mut protocol.public_adorned(Adornment::Out), &parameters);

        Self {
            parameters,
            roles,
            sources,
            slots,
            observed_by,
            single_key_context,
            passive,
            public_outs,
            public_ins,
        }
    }

    fn initial_state(&self) -> State {
        State {
            emitted: Bits::with_capacity(self.sources.len()),
            received: Bits::with_capacity(self.slots.len()),
        }
    }

    fn observes(&self, state: &State, source: usize, slot: Option<usize>) -> bool {
        match slot {
            Some(slot) => state.received.contains(slot),
            None => state.emitted.contains(source),
        }
    }

    /// Parameters `role` knows in the enactment identified by `context`
    /// (initially the keys of the message it considers sending).
    fn known(&self, state: &State, role: usize, context: &Bits) -> Bits {
        let mut context = context.clone();
        let mut known = Bits::with_capacity(self.parameters.len());
        let observations: Vec<usize> = self.observed_by[role]
            .iter()
            .filter(|(source, slot)| self.observes(state, *source, *slot))
            .map(|(source, _)| *source)
            .collect();
        let mut included = vec![false; observations.len()];
        loop {
            let mut grew = false;
            for (position, source) in observations.iter().enumerate() {
                let source = &self.sources[*source];
                if !included[position] && source.parameters.intersects(&context) {
                    included[position] = true;
                    known.union_with(&source.ins);
                    known.union_with(&source.outs);
                    context.union_with(&source.ins);
                    context.union_with(&source.outs);
                    grew = true;
                }
            }
            if !grew {
                return known;
            }
        }
    }

    fn viable(&self, state: &State, index: usize) -> bool {
        let source = &self.sources[index];
        if state.emitted.contains(index) {
            return false;
        }
        match source.sender {
            None => {
                let known = self.known(state, source.recipients[0], &source.keys);
                !source.ins.is_subset(&known)
            }
            Some(sender) => {
                let keys_taken = !source.out_keys.is_empty()
                    && source.out_keys.iter().all(|key| {
                        state.emitted.ones().any(|other| {
                            let other = &self.sources[other];
                            !other.is_external() && other.outs.contains(*key)
                        })
                    });
                if keys_taken {
                    return false;
                }
                let known = self.known(state, sender, &source.keys);
                source.ins.is_subset(&known)
                    && !source.outs.intersects(&known)
                    && !source.nils.intersects(&known)
            }
        }
    }

    fn successors(&self, state: &State, reduction: bool) -> Vec<Step> {
        let pending = self.slots.iter().enumerate().filter(|(slot, (source, _))| {
            state.emitted.contains(*source) && !state.received.contains(*slot)
        });
        if reduction
            && self.single_key_context
            && let Some((slot, _)) = pending.clone().find(|(slot, _)| self.passive[*slot])
        {
            return vec![Step::Receive(slot)];
        }
        let mut steps: Vec<Step> = (0..self.sources.len())
            .filter(|index| self.viable(state, *index))
            .map(Step::Emit)
            .collect();
        steps.extend(pending.map(|(slot, _)| Step::Receive(slot)));
        steps
    }

    fn apply(&self, state: &State, step: Step) -> State {
        let mut next = state.clone();
        match step {
            Step::Emit(index) => next.emitted.insert(index),
            Step::Receive(slot) => next.received.insert(slot),
        }
        next
    }

    fn event(&self, step: Step) -> Event {
        match step {
            Step::Emit(index) => {
                let source = &self.sources[index];
                match source.sender {
                    Some(sender) => Event::Emission {
                        role: self.roles[sender].clone(),
                        message: source.name.clone(),
                    },
                    None => Event::ExternalInput {
                        role: self.roles[source.recipients[0]].clone(),
                        parameters: self.public_ins.clone(),
                    },
                }
            }
            Step::Receive(slot) => {
                let (source, role) = self.slots[slot];
                Event::Reception {
                    role: self.roles[role].clone(),
                    message: self.sources[source].name.clone(),
                }
            }
        }
    }

    /// The first parameter that `index`, just emitted, binds although another
    /// role already bound it in the same key context.
    fn conflict(&self, state: &State, index: usize) -> Option<usize> {
        let source = &self.sources[index];
        source.outs.ones().find(|parameter| {
            state.emitted.ones().any(|other_index| {
                let other = &self.sources[other_index];
                other_index != index
                    && !other.is_external()
                    && other.outs.contains(*parameter)
                    && other.sender != source.sender
                    && (self.single_key_context || other.key_group == source.key_group)
            })
        })
    }

    fn missing_outs(&self, state: &State) -> Vec<String> {
        let mut known = Bits::with_capacity(self.parameters.len());
        for index in state.emitted.ones() {
            known.union_with(&self.sources[index].ins);
            known.union_with(&self.sources[index].outs);
        }
        let mut missing: Vec<String> = self
            .public_outs
            .ones()
            .filter(|p| !known.contains(*p))
            .map(|p| self.parameters[p].clone())
            .collect();
        missing.sort();
        missing
    }
}

/// What a replayed run leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunOutcome {
    /// A parameter two roles bound on the run, if any.
    pub conflict: Option<String>,
    /// Whether nothing can happen after the run.
    pub stuck: bool,
    /// Public `out` parameters no message on the run binds, sorted.
    pub unbound_outs: Vec<String>,
}

/// Replays `path` step by step, failing at the first event that is not
/// possible at that point.
pub(crate) fn replay(
    protocol: &Protocol,
    path: &[Event],
    options: &VerifyOptions,
) -> Result<RunOutcome, VerifyError> {
    let model = Model::new(protocol, options.external_sources);
    let mut state = model.initial_state();
    let mut conflict = None;
    for (index, event) in path.iter().enumerate() {
        let step = model
            .successors(&state, false)
            .into_iter()
            .find(|step| model.event(*step) == *event)
            .ok_or_else(|| VerifyError::ImpossibleStep {
                protocol: protocol.name().to_owned(),
                index,
                event: event.to_string(),
            })?;
        state = model.apply(&state, step);
        if let (None, Step::Emit(emitted)) = (&conflict, step) {
            conflict = model
                .conflict(&state, emitted)
                .map(|p| model.parameters[p].clone());
        }
    }
    Ok(RunOutcome {
        conflict,
        stuck: model.successors(&state, false).is_empty(),
        unbound_outs: model.missing_outs(&state),
    })
}

/// Explores the state space; stops at the first conflict when
/// `stop_at_conflict` is set.
pub(crate) fn explore(
    protocol: &Protocol,
    options: &VerifyOptions,
    stop_at_conflict: bool,
) -> Result<Findings, VerifyError> {
    let model = Model::new(protocol, options.external_sources);
    let initial = model.initial_state();
    let mut states = vec![initial.clone()];
    let mut parents: Vec<Option<(usize, Step)>> = vec![None];
    let mut index: HashMap<State, usize> = HashMap::from([(initial, 0)]);
    let mut queue = VecDeque::from([0]);
    let mut transitions = 0;
    let mut findings = Findings {
        states: 0,
        transitions: 0,
        unsafe_path: None,
        incomplete: Vec::new(),
        bound: Vec::new(),
        consumed: Vec::new(),
    };
    let mut reachable = Bits::with_capacity(model.sources.len());

    let path_to = |parents: &[Option<(usize, Step)>], mut at: usize| {
        let mut steps = Vec::new();
        while let Some((parent, step)) = parents[at] {
            steps.push(model.event(step));
            at = parent;
        }
        steps.reverse();
        steps
    };

    while let Some(current) = queue.pop_front() {
        let state = states[current].clone();
        let steps = model.successors(&state, options.reduction);
        if steps.is_empty() {
            let missing = model.missing_outs(&state);
            if !missing.is_empty() && !findings.incomplete.iter().any(|(m, _)| *m == missing) {
                findings
                    .incomplete
                    .push((missing, path_to(&parents, current)));
            }
        }
        for step in steps {
            transitions += 1;
            let next = model.apply(&state, step);
            if index.contains_key(&next) {
                continue;
            }
            if states.len() >= options.max_states {
                return Err(VerifyError::StateLimit {
                    protocol: protocol.name().to_owned(),
                    limit: options.max_states,
                });
            }
            let id = states.len();
            index.insert(next.clone(), id);
            parents.push(Some((current, step)));
            if let Step::Emit(emitted) = step {
                reachable.insert(emitted);
                if findings.unsafe_path.is_none()
                    && let Some(parameter) = model.conflict(&next, emitted)
                {
                    findings.unsafe_path =
                        Some((model.parameters[parameter].clone(), path_to(&parents, id)));
                    if stop_at_conflict {
                        findings.states = id + 1;
                        findings.transitions = transitions;
                        return Ok(findings);
                    }
                }
            }
            states.push(next);
            queue.push_back(id);
        }
    }

    let mut bound = Bits::with_capacity(model.parameters.len());
    let mut consumed = Bits::with_capacity(model.parameters.len());
    for index in reachable.ones() {
        bound.union_with(&model.sources[index].outs);
        consumed.union_with(&model.sources[index].ins);
        consumed.union_with(&model.sources[index].nils);
    }
    findings.bound = bound.ones().map(|p| model.parameters[p].clone()).collect();
    findings.consumed = consumed
        .ones()
        .map(|p| model.parameters[p].clone())
        .collect();
    findings.states = states.len();
    findings.transitions = transitions;
    Ok(findings)
}
