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
    ///
    /// This compiles the agent's patterns and filter on every call; a transport that
    /// asks often keeps a [`matcher`](Self::matcher) instead.
    pub fn receives(&self, topic: &str, payload: &serde_json::Value) -> bool {
        self.matcher().receives(topic, payload)
    }

    /// The agent's subscriptions and filter, compiled once for repeated matching.
    pub fn matcher(&self) -> SubscriptionMatcher {
        SubscriptionMatcher {
            patterns: self
                .subscriptions
                .iter()
                .filter_map(|p| tnsai_core::TopicPattern::parse(p).ok())
                .collect(),
            filter: match &self.filter {
                None => FilterState::None,
                Some(text) => tnsai_core::PayloadFilter::parse(text)
                    .map_or(FilterState::Invalid, |f| FilterState::Valid(Box::new(f))),
            },
        }
    }
}

#[derive(Debug, Clone)]
enum FilterState {
    None,
    Valid(Box<tnsai_core::PayloadFilter>),
    /// A filter that did not parse (from another platform's listing) lets nothing
    /// through, rather than everything.
    Invalid,
}

/// An agent's subscriptions and payload filter, compiled: what a transport consults for
/// every publication to decide whether a remote agent receives it.
///
/// ```
/// use tnsai_coordination::Platform;
/// use tnsai_core::prelude::*;
///
/// #[pub_sub(topics = ["metrics.*"], filter = "value > 10")]
/// struct Watcher;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let platform = Platform::new();
/// platform.spawn("watcher", Watcher).await.unwrap();
/// let matcher = platform.describe("watcher").unwrap().matcher();
/// assert!(matcher.receives("metrics.cpu", &serde_json::json!({"value": 12})));
/// assert!(!matcher.receives("metrics.cpu", &serde_json::json!({"value": 3})));
/// assert!(!matcher.receives("logs.app", &serde_json::json!({"value": 12})));
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct SubscriptionMatcher {
    patterns: Vec<tnsai_core::TopicPattern>,
    filter: FilterState,
}

impl SubscriptionMatcher {
    /// Whether a message published to `topic` with `payload` reaches the agent.
    pub fn receives(&self, topic: &str, payload: &serde_json::Value) -> bool {
        let topic = topic.to_lowercase();
        self.patterns.iter().any(|p| p.matches_normalized(&topic))
            && match &self.filter {
                FilterState::None => true,
                FilterState::Valid(filter) => filter.matches(payload),
                FilterState::Invalid => false,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describe(subscriptions: &[&str], filter: Option<&str>) -> AgentDescription {
        AgentDescription {
            id: AgentId::from("remote"),
            paradigms: Vec::new(),
            subscriptions: subscriptions.iter().map(|s| (*s).to_owned()).collect(),
            filter: filter.map(str::to_owned),
            actions: Vec::new(),
            has_language_model: false,
            durable: false,
            addresses: Vec::new(),
        }
    }

    #[test]
    fn what_another_platform_lists_is_matched_safely() {
        let payload = serde_json::json!({"level": 5});
        // A filter that does not parse lets nothing through, rather than everything.
        assert!(!describe(&["alerts.>"], Some("level >=")).receives("alerts.disk", &payload));
        // A bad pattern matches nothing; the good ones still work.
        let mixed = describe(&["a.>.b", "alerts.*"], None).matcher();
        assert!(mixed.receives("ALERTS.disk", &payload));
        assert!(!mixed.receives("a.x.b", &payload));
    }
}
