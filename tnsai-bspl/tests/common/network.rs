//! An in-memory message queue between agents: the transport stand-in for
//! multi-agent simulations.

use std::collections::{HashMap, VecDeque};

use tnsai_bspl::MessageInstance;
use tnsai_bspl::decision::{Agent, Rejected, Step};

/// Agents addressed by (protocol, role), and a FIFO of messages in flight.
#[derive(Default)]
pub(crate) struct Network {
    agents: Vec<Agent>,
    routes: HashMap<(String, String), usize>,
    queue: VecDeque<(usize, MessageInstance)>,
    /// Every message sent, with the sending agent's name, in order.
    pub(crate) sent: Vec<(String, MessageInstance)>,
    /// Every binding an agent's decision makers made that its adapter refused.
    pub(crate) rejected: Vec<(String, Rejected)>,
    /// Bound messages that repeated earlier ones.
    pub(crate) duplicates: usize,
}

impl Network {
    pub(crate) fn add(&mut self, agent: Agent) -> &mut Self {
        let index = self.agents.len();
        let adapter = agent.adapter();
        for protocol in adapter.protocols() {
            for role in adapter.roles(protocol.name()) {
                let previous = self
                    .routes
                    .insert((protocol.name().to_owned(), role.clone()), index);
                assert!(
                    previous.is_none(),
                    "two agents play {}:{role}",
                    protocol.name()
                );
            }
        }
        self.agents.push(agent);
        self
    }

    pub(crate) fn agent(&self, name: &str) -> &Agent {
        self.agents
            .iter()
            .find(|a| a.adapter().agent() == name)
            .unwrap_or_else(|| panic!("no agent {name}"))
    }

    fn index_of(&self, name: &str) -> usize {
        self.agents
            .iter()
            .position(|a| a.adapter().agent() == name)
            .unwrap_or_else(|| panic!("no agent {name}"))
    }

    fn route(&mut self, from: usize, step: Step) {
        let name = self.agents[from].adapter().agent().to_owned();
        self.duplicates += step.duplicates.len();
        for rejected in step.rejected {
            self.rejected.push((name.clone(), rejected));
        }
        assert!(!step.round_limit_reached, "{name}: dispatch did not settle");
        for message in step.sent {
            for role in &message.recipients {
                let target = *self
                    .routes
                    .get(&(message.protocol.clone(), role.clone()))
                    .unwrap_or_else(|| panic!("nobody plays {}:{role}", message.protocol));
                self.queue.push_back((target, message.clone()));
            }
            self.sent.push((name.clone(), message));
        }
    }

    pub(crate) fn init_all(&mut self) {
        for index in 0..self.agents.len() {
            let step = self.agents[index].init();
            self.route(index, step);
        }
    }

    pub(crate) fn inject(&mut self, agent: &str, event: &str, payload: serde_json::Value) {
        let index = self.index_of(agent);
        let step = self.agents[index].inject(event, payload);
        self.route(index, step);
    }

    /// Delivers queued messages until none is left; returns how many.
    pub(crate) fn run(&mut self) -> usize {
        let mut delivered = 0;
        while let Some((target, message)) = self.queue.pop_front() {
            delivered += 1;
            assert!(delivered < 100_000, "simulation does not settle");
            let name = self.agents[target].adapter().agent().to_owned();
            let step = self.agents[target]
                .receive(message.clone())
                .unwrap_or_else(|e| panic!("{name} refused {message:?}: {e}"));
            self.route(target, step);
        }
        delivered
    }

    /// Messages sent in `protocol` named `message`.
    pub(crate) fn sent_named(&self, protocol: &str, message: &str) -> Vec<&MessageInstance> {
        self.sent
            .iter()
            .map(|(_, m)| m)
            .filter(|m| m.protocol == protocol && m.message == message)
            .collect()
    }
}
