//! What discovery tells about an agent.

use serde::{Deserialize, Serialize};
use tnsai_core::{AgentId, Paradigm};

/// One action as discovery shows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ActionDescription {
    /// The name callers use.
    pub name: String,
    /// The role it is reserved for, if any.
    pub role: Option<String>,
    /// What it does (the method's doc comment).
    pub description: String,
}

/// An agent as discovery shows it: enough for another platform to address it, decide
/// whether it receives a topic, and call its actions.
///
/// ```
/// use tnsai_coordination::Platform;
/// use tnsai_core::prelude::*;
///
/// #[pub_sub(topics = ["alerts.>"], filter = "level >= 3")]
/// struct Pager;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let platform = Platform::new();
/// platform.spawn("pager", Pager).await.unwrap();
/// let pager = platform.describe("pager").unwrap();
/// assert_eq!(pager.subscriptions, ["alerts.>"]);
/// assert_eq!(pager.filter.as_deref(), Some("level >= 3"));
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentDescription {
    /// The agent's id.
    pub id: AgentId,
    /// The paradigms it speaks (its protocol attributes).
    pub paradigms: Vec<Paradigm>,
    /// The topic patterns it receives broadcasts and publications on.
    pub subscriptions: Vec<String>,
    /// Its payload filter, if any.
    pub filter: Option<String>,
    /// Its actions.
    pub actions: Vec<ActionDescription>,
    /// Whether a language model answers text sent to it.
    pub has_language_model: bool,
    /// Whether its direct inbox is durable (`#[direct_message(durable = true)]`): a
    /// transport with durable queues keeps the messages sent to it while it is away.
    #[serde(default)]
    pub durable: bool,
    /// The addresses its attributes name (`endpoint` of `#[direct_message]` and
    /// `#[request_reply]`, `broker` of the others), without duplicates: a transport
    /// connects to those it understands (the HTTP transport to `http(s)://` URLs).
    #[serde(default)]
    pub addresses: Vec<String>,
}

/// Every non-empty `endpoint`/`broker` the specs name, first occurrence first.
fn addresses(specs: &tnsai_core::ProtocolSpecs) -> Vec<String> {
    let named = [
        specs.direct().map(|d| d.endpoint()),
        specs.request_reply().map(|r| r.endpoint()),
        specs.broadcast().map(|b| b.broker()),
        specs.pub_sub().map(|p| p.broker()),
        specs.debate().map(|d| d.broker()),
    ];
    let mut addresses: Vec<String> = Vec::new();
    for address in named.into_iter().flatten().map(str::trim) {
        if !address.is_empty() && !addresses.iter().any(|a| a == address) {
            addresses.push(address.to_owned());
        }
    }
    addresses
}

impl AgentDescription {
    pub(crate) fn of(hosted: &crate::hosted::HostedAgent) -> Self {
        let specs = &hosted.specs;
        Self {
            id: hosted.id.clone(),
            paradigms: specs.paradigms().into_iter().collect(),
            subscriptions: specs
                .subscriptions()
                .into_iter()
                .map(str::to_owned)
                .collect(),
            filter: specs.pub_sub().and_then(|p| p.filter()).map(str::to_owned),
            actions: hosted
                .agent
                .actions()
                .iter()
                .map(|a| ActionDescription {
                    name: a.name().to_owned(),
                    role: a.role().map(str::to_owned),
                    description: a.description().to_owned(),
                })
                .collect(),
            has_language_model: hosted.agent.language_model().is_some(),
            durable: specs.direct().is_some_and(|d| d.durable()),
            addresses: addresses(specs),
        }
    }

    /// Whether this agent receives a message published to `topic` with `payload`.
    pub fn receives(&self, topic: &str, payload: &serde_json::Value) -> bool {
        let subscribed = self.subscriptions.iter().any(|pattern| {
            tnsai_core::TopicPattern::parse(pattern).is_ok_and(|p| p.matches(topic))
        });
        subscribed
            && self.filter.as_deref().is_none_or(|filter| {
                tnsai_core::PayloadFilter::parse(filter).is_ok_and(|f| f.matches(payload))
            })
    }
}
