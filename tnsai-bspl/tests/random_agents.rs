//! Property tests: on random small protocols, random decision makers never
//! get a message out that the adornments forbid, and the adapter accepts
//! exactly what the adornments allow.
//!
//! The generated protocols key every message by `id` alone, so the reference
//! semantics here is short: an agent knows, in enactment `id = v`, every
//! binding of every message it sent or received with `id = v`. A message may
//! be sent when all its `in` parameters are known there with the values it
//! carries and none of its `out` or `nil` parameters is.

mod common;

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use common::generate::design;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use tnsai_bspl::decision::{Agent, DecisionContext, Trigger};
use tnsai_bspl::{
    Adapter, Bindings, Direction, Emitted, MessageInstance, Observation, Protocol, Received,
    Specification,
};

/// xorshift64*: deterministic randomness for decision makers.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, numerator: u64, denominator: u64) -> bool {
        self.next() % denominator < numerator
    }
}

const VALUES: [&str; 3] = ["1", "2", "3"];

#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Accept,
    Duplicate,
    Refuse(String),
}

fn known_in(history: &[Observation], id: Option<&String>) -> Bindings {
    let mut known = Bindings::new();
    for observation in history {
        if observation.message.bindings.get("id") == id {
            for (p, v) in &observation.message.bindings {
                known.entry(p.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    known
}

/// Shape checks common to both directions; `Ok` carries the unique name.
fn shape(protocol: &Protocol, message: &MessageInstance) -> Result<String, String> {
    let schema = protocol
        .message(&message.message)
        .ok_or_else(|| format!("no message {}", message.message))?;
    if message.sender != schema.sender() {
        return Err("wrong sender".into());
    }
    if !message.recipients.is_empty() {
        let mut given = message.recipients.clone();
        let mut expected = schema.recipients().to_vec();
        given.sort();
        expected.sort();
        if given != expected {
            return Err("wrong recipients".into());
        }
    }
    let mut payload: Vec<&str> = schema.payload_parameters().collect();
    payload.sort_unstable();
    let given: Vec<&str> = message.bindings.keys().map(String::as_str).collect();
    if payload != given {
        return Err(format!("payload {given:?} is not {payload:?}"));
    }
    Ok(schema.name().to_owned())
}

fn is_repeat(history: &[Observation], name: &str, message: &MessageInstance) -> bool {
    history
        .iter()
        .any(|o| o.message.message == name && o.message.bindings == message.bindings)
}

fn emission_verdict(
    protocol: &Protocol,
    roles: &[String],
    message: &MessageInstance,
    history: &[Observation],
) -> Verdict {
    let name = match shape(protocol, message) {
        Ok(name) => name,
        Err(reason) => return Verdict::Refuse(reason),
    };
    let Some(schema) = protocol.message(&name) else {
        return Verdict::Refuse("unknown".into());
    };
    if !roles.iter().any(|r| r == schema.sender()) {
        return Verdict::Refuse("not my role".into());
    }
    if is_repeat(history, &name, message) {
        return Verdict::Duplicate;
    }
    let known = known_in(history, message.bindings.get("id"));
    for parameter in schema.ins() {
        if known.get(parameter) != message.bindings.get(parameter) {
            return Verdict::Refuse(format!("in {parameter} not known with that value"));
        }
    }
    for parameter in schema.outs().chain(schema.nils()) {
        if known.contains_key(parameter) {
            return Verdict::Refuse(format!("{parameter} already bound"));
        }
    }
    Verdict::Accept
}

fn reception_verdict(
    protocol: &Protocol,
    roles: &[String],
    message: &MessageInstance,
    history: &[Observation],
) -> Verdict {
    let name = match shape(protocol, message) {
        Ok(name) => name,
        Err(reason) => return Verdict::Refuse(reason),
    };
    let Some(schema) = protocol.message(&name) else {
        return Verdict::Refuse("unknown".into());
    };
    if !schema.recipients().iter().any(|r| roles.contains(r)) {
        return Verdict::Refuse("not a recipient".into());
    }
    if is_repeat(history, &name, message) {
        return Verdict::Duplicate;
    }
    let known = known_in(history, message.bindings.get("id"));
    for (parameter, value) in &message.bindings {
        if known.get(parameter).is_some_and(|k| k != value) {
            return Verdict::Refuse(format!("{parameter} conflicts"));
        }
    }
    Verdict::Accept
}

/// A message that may or may not respect the protocol: random message,
/// sometimes another sender, random subsets of its parameters (nil ones
/// included), sometimes an undeclared one.
fn random_message(protocol: &Protocol, rng: &mut Rng) -> MessageInstance {
    let schema = &protocol.messages()[rng.below(protocol.messages().len())];
    let sender = if rng.chance(1, 5) {
        protocol.roles()[rng.below(protocol.roles().len())].clone()
    } else {
        schema.sender().to_owned()
    };
    let mut bindings = Bindings::new();
    for parameter in schema.parameters() {
        let include = match parameter.adornment {
            Some(tnsai_bspl::Adornment::Nil) => rng.chance(1, 6),
            _ => !rng.chance(1, 8),
        };
        if include {
            bindings.insert(
                parameter.name.clone(),
                VALUES[rng.below(VALUES.len())].to_owned(),
            );
        }
    }
    if rng.chance(1, 10) {
        bindings.insert("undeclared".into(), "x".into());
    }
    MessageInstance {
        protocol: protocol.name().to_owned(),
        message: schema.name().to_owned(),
        sender,
        recipients: Vec::new(),
        bindings,
    }
}

fn parse_gen(text: &str) -> Arc<Protocol> {
    Arc::new(
        Specification::parse(text)
            .ok()
            .and_then(|s| s.into_protocol("Gen"))
            .unwrap_or_else(|| panic!("generated protocol rejected:\n{text}")),
    )
}

#[derive(Default)]
struct Totals {
    sent: Cell<usize>,
    refused: Cell<usize>,
    duplicates: Cell<usize>,
    reception_errors: Cell<usize>,
}

/// One agent per role, each with a random decision maker; runs the
/// in-memory network to quiescence, with some external events in between.
fn simulate(protocol: &Arc<Protocol>, seed: u64, totals: &Totals) -> Vec<Agent> {
    let mut agents: Vec<Agent> = Vec::new();
    let mut routes = HashMap::new();
    for (index, role) in protocol.roles().iter().enumerate() {
        let mut adapter = Adapter::new(role.clone());
        adapter
            .play(protocol.clone(), &[role.as_str()])
            .unwrap_or_else(|e| panic!("{e}"));
        let mut agent = Agent::new(adapter).with_max_rounds(16);
        let mut rng = Rng::new(seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut initiations = 2;
        let garbage_source = protocol.clone();
        agent.on(Trigger::Any, move |context: &DecisionContext<'_>| {
            let mut decisions = Vec::new();
            for form in context.enabled {
                if !rng.chance(1, 2) {
                    continue;
                }
                if form.is_initiator() {
                    if initiations == 0 {
                        continue;
                    }
                    initiations -= 1;
                }
                let outs: Vec<(String, String)> = form
                    .outs
                    .iter()
                    .map(|p| (p.clone(), VALUES[rng.below(VALUES.len())].to_owned()))
                    .collect();
                decisions.push(form.bind(outs));
            }
            if rng.chance(1, 3) {
                decisions.push(random_message(&garbage_source, &mut rng));
            }
            decisions
        });
        routes.insert(role.clone(), index);
        agents.push(agent);
    }

    let mut queue: VecDeque<(usize, MessageInstance)> = VecDeque::new();
    let route = |from: &str,
                 step: tnsai_bspl::decision::Step,
                 queue: &mut VecDeque<(usize, MessageInstance)>| {
        totals
            .refused
            .set(totals.refused.get() + step.rejected.len());
        totals
            .duplicates
            .set(totals.duplicates.get() + step.duplicates.len());
        for message in step.sent {
            assert_eq!(message.sender, from);
            totals.sent.set(totals.sent.get() + 1);
            for recipient in &message.recipients {
                queue.push_back((routes[recipient], message.clone()));
            }
        }
    };
    for agent in &mut agents {
        let step = agent.init();
        let name = agent.adapter().agent().to_owned();
        route(&name, step, &mut queue);
    }
    let mut rng = Rng::new(seed.rotate_left(17));
    for _ in 0..3 {
        while let Some((target, message)) = queue.pop_front() {
            let name = agents[target].adapter().agent().to_owned();
            match agents[target].receive(message) {
                Ok(step) => route(&name, step, &mut queue),
                // Unsafe random protocols let two roles bind one parameter
                // differently; the second binding is then refused here.
                Err(_) => totals
                    .reception_errors
                    .set(totals.reception_errors.get() + 1),
            }
        }
        let target = rng.below(agents.len());
        let name = agents[target].adapter().agent().to_owned();
        let step = agents[target].inject("tick", serde_json::Value::Null);
        route(&name, step, &mut queue);
    }
    agents
}

#[test]
fn random_decision_makers_never_emit_what_adornments_forbid() {
    let totals = Totals::default();
    let mut runner = TestRunner::new(Config::with_cases(160));
    let result = runner.run(&(design(), any::<u64>()), |(design, seed)| {
        let protocol = parse_gen(&design.text());
        let agents = simulate(&protocol, seed, &totals);
        for agent in &agents {
            let adapter = agent.adapter();
            let roles = adapter.roles("Gen").to_vec();
            let history = adapter
                .knowledge("Gen")
                .map(|k| k.observations().to_vec())
                .unwrap_or_default();
            for (position, observation) in history.iter().enumerate() {
                let earlier = &history[..position];
                let verdict = match observation.direction {
                    Direction::Sent => {
                        emission_verdict(&protocol, &roles, &observation.message, earlier)
                    }
                    Direction::Received => {
                        reception_verdict(&protocol, &roles, &observation.message, earlier)
                    }
                };
                prop_assert_eq!(
                    verdict,
                    Verdict::Accept,
                    "{} recorded {:?} {:?}\n{}",
                    adapter.agent(),
                    observation.direction,
                    observation.message,
                    design.text()
                );
            }
        }
        Ok(())
    });
    result.unwrap_or_else(|e| panic!("{e}"));
    // The runs did exercise both sides of the check.
    assert!(
        totals.sent.get() > 100,
        "only {} messages sent",
        totals.sent.get()
    );
    assert!(
        totals.refused.get() > 100,
        "only {} refusals",
        totals.refused.get()
    );
}

#[test]
fn the_adapter_accepts_exactly_what_adornments_allow() {
    let accepted = Cell::new(0);
    let refused = Cell::new(0);
    let mut runner = TestRunner::new(Config::with_cases(160));
    let result = runner.run(
        &(design(), any::<u64>(), 1u8..=15),
        |(design, seed, role_mask)| {
            let protocol = parse_gen(&design.text());
            let roles: Vec<String> = protocol
                .roles()
                .iter()
                .enumerate()
                .filter(|(i, _)| role_mask & (1 << i) != 0)
                .map(|(_, r)| r.clone())
                .collect();
            prop_assume!(!roles.is_empty());
            let mut adapter = Adapter::new("agent");
            let role_names: Vec<&str> = roles.iter().map(String::as_str).collect();
            adapter
                .play(protocol.clone(), &role_names)
                .unwrap_or_else(|e| panic!("{e}"));
            let mut rng = Rng::new(seed);

            for _ in 0..60 {
                let history = adapter
                    .knowledge("Gen")
                    .map(|k| k.observations().to_vec())
                    .unwrap_or_default();
                // Half of the attempts complete an enabled form; the rest are random.
                let enabled = adapter.enabled();
                let message = if !enabled.is_empty() && rng.chance(1, 2) {
                    let form = &enabled[rng.below(enabled.len())];
                    let outs: Vec<(String, String)> = form
                        .outs
                        .iter()
                        .map(|p| (p.clone(), VALUES[rng.below(VALUES.len())].to_owned()))
                        .collect();
                    let message = form.bind(outs);
                    // Completing an enabled form is allowed unless it reuses a key.
                    let verdict = emission_verdict(&protocol, &roles, &message, &history);
                    let reuses_key = form.is_initiator() && verdict != Verdict::Accept;
                    prop_assert!(
                        verdict == Verdict::Accept || reuses_key || verdict == Verdict::Duplicate,
                        "enabled form {:?} completed as {:?} is {:?}",
                        form,
                        message,
                        verdict
                    );
                    message
                } else {
                    random_message(&protocol, &mut rng)
                };
                let sends = roles.contains(&message.sender) && rng.chance(2, 3);
                if sends
                    || !protocol
                        .message(&message.message)
                        .is_some_and(|m| m.recipients().iter().any(|r| roles.contains(r)))
                {
                    let expected = emission_verdict(&protocol, &roles, &message, &history);
                    let outcome = adapter.emit(message.clone());
                    let got = match &outcome {
                        Ok(Emitted::Sent(_)) => Verdict::Accept,
                        Ok(Emitted::Duplicate(_)) => Verdict::Duplicate,
                        Err(e) => Verdict::Refuse(e.to_string()),
                    };
                    prop_assert_eq!(
                        std::mem::discriminant(&got),
                        std::mem::discriminant(&expected),
                        "emit {:?}: adapter {:?}, expected {:?}\n{}",
                        message,
                        outcome,
                        expected,
                        design.text()
                    );
                } else {
                    let expected = reception_verdict(&protocol, &roles, &message, &history);
                    let outcome = adapter.receive(message.clone());
                    let got = match &outcome {
                        Ok(Received::Accepted) => Verdict::Accept,
                        Ok(Received::Duplicate) => Verdict::Duplicate,
                        Err(e) => Verdict::Refuse(e.to_string()),
                    };
                    prop_assert_eq!(
                        std::mem::discriminant(&got),
                        std::mem::discriminant(&expected),
                        "receive {:?}: adapter {:?}, expected {:?}\n{}",
                        message,
                        outcome,
                        expected,
                        design.text()
                    );
                }
                match adapter.knowledge("Gen").map(|k| k.observations().len()) {
                    Some(n) if n > history.len() => accepted.set(accepted.get() + 1),
                    _ => refused.set(refused.get() + 1),
                }
            }

            // The enabled set is exactly what the reference semantics allows:
            // initiators once, and every other message of a played role for every
            // enactment where its ins are known and its outs and nils are not.
            let history = adapter
                .knowledge("Gen")
                .map(|k| k.observations().to_vec())
                .unwrap_or_default();
            let mut ids: Vec<&String> = history
                .iter()
                .filter_map(|o| o.message.bindings.get("id"))
                .collect();
            ids.sort();
            ids.dedup();
            let mut expected: Vec<(String, Bindings)> = Vec::new();
            for schema in protocol.messages() {
                if !roles.iter().any(|r| r == schema.sender()) {
                    continue;
                }
                if schema.is_initiator() {
                    expected.push((schema.name().to_owned(), Bindings::new()));
                    continue;
                }
                for id in &ids {
                    let known = known_in(&history, Some(id));
                    let ins: Option<Bindings> = schema
                        .ins()
                        .map(|p| known.get(p).map(|v| (p.to_owned(), v.clone())))
                        .collect();
                    let blocked = schema
                        .outs()
                        .chain(schema.nils())
                        .any(|p| known.contains_key(p));
                    // A message with `out id` starts a new enactment: its ins
                    // cannot be known there.
                    let creates = schema.outs().any(|p| p == "id");
                    if let (Some(ins), false, false) = (ins, blocked, creates) {
                        expected.push((schema.name().to_owned(), ins));
                    }
                }
            }
            expected.sort();
            let mut ours: Vec<(String, Bindings)> = adapter
                .enabled()
                .into_iter()
                .map(|f| (f.message, f.ins))
                .collect();
            ours.sort();
            prop_assert_eq!(ours, expected, "{}", design.text());
            Ok(())
        },
    );
    result.unwrap_or_else(|e| panic!("{e}"));
    assert!(accepted.get() > 500, "only {} accepted", accepted.get());
    assert!(refused.get() > 500, "only {} refused", refused.get());
}
