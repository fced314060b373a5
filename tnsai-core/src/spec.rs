//! What an agent's protocol attributes declare.
//!
//! The attributes (`#[direct_message]`, `#[broadcast]`, ...) expand to a
//! [`ProtocolSpecs`] value returned by [`Agent::protocol_specs`](crate::Agent::protocol_specs);
//! an agent implemented by hand builds the same value with the `with_*` methods. The
//! platform checks it again with [`ProtocolSpecs::validate`] when it spawns the agent, so
//! a hand-written agent gets the same rules as an annotated one.

use std::collections::BTreeSet;
use std::time::Duration;

use tnsai_patterns::{PayloadFilter, TopicPattern, validate_topic};

use crate::{ConsensusStrategy, Paradigm, TransportMode};

/// A protocol spec that breaks the rules the attributes enforce at compile time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// A transport that needs an address was given none.
    #[error("#[{attribute}] uses transport = {transport} but its {field} is empty")]
    MissingAddress {
        /// The attribute, such as `direct_message`.
        attribute: &'static str,
        /// The transport that needs the address.
        transport: TransportMode,
        /// `endpoint` or `broker`.
        field: &'static str,
    },
    /// A topic or topic pattern is invalid.
    #[error("#[{attribute}] topic: {error}")]
    Topic {
        /// The attribute.
        attribute: &'static str,
        /// What is wrong with the topic.
        error: tnsai_patterns::TopicError,
    },
    /// The payload filter did not parse.
    #[error("#[pub_sub] filter: {0}")]
    Filter(tnsai_patterns::FilterError),
    /// `timeout` was zero.
    #[error("#[request_reply] timeout must be greater than 0 ms")]
    ZeroTimeout,
    /// `max_rounds` was zero.
    #[error("#[debate] max_rounds must be at least 1")]
    ZeroRounds,
    /// `round_timeout_ms` was zero.
    #[error("#[debate] round_timeout_ms must be greater than 0")]
    ZeroRoundTimeout,
    /// `consensus_threshold` was outside (0, 1].
    #[error("#[debate] consensus_threshold must be in (0, 1], got {0}")]
    Threshold(String),
}

fn check_address(
    attribute: &'static str,
    transport: TransportMode,
    field: &'static str,
    address: &str,
) -> Result<(), SpecError> {
    let needs_address = matches!(transport, TransportMode::Http | TransportMode::Nats);
    if needs_address && address.trim().is_empty() {
        return Err(SpecError::MissingAddress {
            attribute,
            transport,
            field,
        });
    }
    Ok(())
}

/// `#[direct_message(endpoint = "", transport = Auto)]`: running actions of other agents
/// and sending them text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DirectSpec {
    endpoint: String,
    transport: TransportMode,
    durable: bool,
}

impl DirectSpec {
    /// The defaults: no endpoint, `Auto` transport, not durable.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the endpoint (an HTTP base URL or NATS server URL for remote transports).
    pub fn with_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = endpoint.into();
        self
    }
    /// Sets the transport.
    pub fn with_transport(mut self, transport: TransportMode) -> Self {
        self.transport = transport;
        self
    }
    /// Routes the agent's inbox through a durable queue where the transport offers one.
    pub fn with_durable(mut self, durable: bool) -> Self {
        self.durable = durable;
        self
    }
    /// The endpoint; empty when none was given.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }
    /// The transport.
    pub fn transport(&self) -> TransportMode {
        self.transport
    }
    /// Whether the inbox is durable.
    pub fn durable(&self) -> bool {
        self.durable
    }
}

/// `#[broadcast(topic = "...")]`: one message to every agent listening on the topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BroadcastSpec {
    topic: String,
    broker: String,
    transport: TransportMode,
    can_publish: bool,
    can_subscribe: bool,
}

impl Default for BroadcastSpec {
    fn default() -> Self {
        Self {
            topic: Self::DEFAULT_TOPIC.to_owned(),
            broker: String::new(),
            transport: TransportMode::Auto,
            can_publish: true,
            can_subscribe: true,
        }
    }
}

impl BroadcastSpec {
    /// The topic used when the attribute names none.
    pub const DEFAULT_TOPIC: &'static str = "default";

    /// The defaults: topic `"default"`, may publish and subscribe.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the topic.
    pub fn with_topic(mut self, topic: impl Into<String>) -> Self {
        self.topic = topic.into();
        self
    }
    /// Sets the broker address.
    pub fn with_broker(mut self, broker: impl Into<String>) -> Self {
        self.broker = broker.into();
        self
    }
    /// Sets the transport.
    pub fn with_transport(mut self, transport: TransportMode) -> Self {
        self.transport = transport;
        self
    }
    /// Whether this agent may broadcast.
    pub fn with_can_publish(mut self, can_publish: bool) -> Self {
        self.can_publish = can_publish;
        self
    }
    /// Whether this agent receives broadcasts on its topic.
    pub fn with_can_subscribe(mut self, can_subscribe: bool) -> Self {
        self.can_subscribe = can_subscribe;
        self
    }
    /// The topic.
    pub fn topic(&self) -> &str {
        &self.topic
    }
    /// The broker address; empty when none was given.
    pub fn broker(&self) -> &str {
        &self.broker
    }
    /// The transport.
    pub fn transport(&self) -> TransportMode {
        self.transport
    }
    /// Whether this agent may broadcast.
    pub fn can_publish(&self) -> bool {
        self.can_publish
    }
    /// Whether this agent receives broadcasts.
    pub fn can_subscribe(&self) -> bool {
        self.can_subscribe
    }
}

/// `#[pub_sub(topics = ["a", "b"])]`: publishing to topics and subscribing to patterns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PubSubSpec {
    topics: Vec<String>,
    broker: String,
    transport: TransportMode,
    can_publish: bool,
    can_subscribe: bool,
    filter: Option<String>,
}

impl Default for PubSubSpec {
    fn default() -> Self {
        Self {
            topics: Vec::new(),
            broker: String::new(),
            transport: TransportMode::Auto,
            can_publish: true,
            can_subscribe: true,
            filter: None,
        }
    }
}

impl PubSubSpec {
    /// The defaults: no subscriptions, may publish and subscribe, no filter.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the subscribed topics (NATS-style patterns: `metrics.*`, `alerts.>`).
    pub fn with_topics<I, T>(mut self, topics: I) -> Self
    where
        I: IntoIterator<Item = T>,
        T: Into<String>,
    {
        self.topics = topics.into_iter().map(Into::into).collect();
        self
    }
    /// Sets the broker address.
    pub fn with_broker(mut self, broker: impl Into<String>) -> Self {
        self.broker = broker.into();
        self
    }
    /// Sets the transport.
    pub fn with_transport(mut self, transport: TransportMode) -> Self {
        self.transport = transport;
        self
    }
    /// Whether this agent may publish.
    pub fn with_can_publish(mut self, can_publish: bool) -> Self {
        self.can_publish = can_publish;
        self
    }
    /// Whether this agent receives what is published to its topics.
    pub fn with_can_subscribe(mut self, can_subscribe: bool) -> Self {
        self.can_subscribe = can_subscribe;
        self
    }
    /// Sets a [`PayloadFilter`](tnsai_patterns::PayloadFilter) that received payloads must
    /// satisfy.
    pub fn with_filter(mut self, filter: impl Into<String>) -> Self {
        self.filter = Some(filter.into());
        self
    }
    /// The subscribed topic patterns.
    pub fn topics(&self) -> &[String] {
        &self.topics
    }
    /// The broker address; empty when none was given.
    pub fn broker(&self) -> &str {
        &self.broker
    }
    /// The transport.
    pub fn transport(&self) -> TransportMode {
        self.transport
    }
    /// Whether this agent may publish.
    pub fn can_publish(&self) -> bool {
        self.can_publish
    }
    /// Whether this agent receives publications.
    pub fn can_subscribe(&self) -> bool {
        self.can_subscribe
    }
    /// The payload filter text, if any.
    pub fn filter(&self) -> Option<&str> {
        self.filter.as_deref()
    }
}

/// `#[request_reply(timeout = 30000)]`: calls that wait for their reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestReplySpec {
    timeout: Duration,
    endpoint: String,
    transport: TransportMode,
}

impl Default for RequestReplySpec {
    fn default() -> Self {
        Self {
            timeout: Self::DEFAULT_TIMEOUT,
            endpoint: String::new(),
            transport: TransportMode::Auto,
        }
    }
}

impl RequestReplySpec {
    /// 30 seconds, the attribute's default.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(30_000);

    /// The defaults: 30 s timeout, no endpoint, `Auto` transport.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
    /// Sets the endpoint.
    pub fn with_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.endpoint = endpoint.into();
        self
    }
    /// Sets the transport.
    pub fn with_transport(mut self, transport: TransportMode) -> Self {
        self.transport = transport;
        self
    }
    /// How long a request waits for its reply.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
    /// The endpoint; empty when none was given.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }
    /// The transport.
    pub fn transport(&self) -> TransportMode {
        self.transport
    }
}

/// `#[debate(...)]`: taking part in debates and, as initiator, setting their rules.
#[derive(Debug, Clone, PartialEq)]
pub struct DebateSpec {
    max_rounds: u32,
    consensus_threshold: Option<f64>,
    strategy: ConsensusStrategy,
    round_timeout: Option<Duration>,
    can_initiate: bool,
    can_vote: bool,
    broker: String,
    transport: TransportMode,
}

impl Default for DebateSpec {
    fn default() -> Self {
        Self {
            max_rounds: Self::DEFAULT_MAX_ROUNDS,
            consensus_threshold: None,
            strategy: ConsensusStrategy::Supermajority,
            round_timeout: None,
            can_initiate: true,
            can_vote: true,
            broker: String::new(),
            transport: TransportMode::Auto,
        }
    }
}

impl DebateSpec {
    /// Five rounds, the attribute's default.
    pub const DEFAULT_MAX_ROUNDS: u32 = 5;

    /// The defaults: 5 rounds, `Supermajority`, no explicit threshold, no round timeout,
    /// may initiate and vote.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the number of rounds before a deadlock.
    pub fn with_max_rounds(mut self, max_rounds: u32) -> Self {
        self.max_rounds = max_rounds;
        self
    }
    /// Sets an explicit threshold in (0, 1] that replaces the strategy's default share.
    pub fn with_consensus_threshold(mut self, threshold: f64) -> Self {
        self.consensus_threshold = Some(threshold);
        self
    }
    /// Sets the consensus strategy.
    pub fn with_strategy(mut self, strategy: ConsensusStrategy) -> Self {
        self.strategy = strategy;
        self
    }
    /// Ends a round this long after it started when it holds at least one position.
    pub fn with_round_timeout(mut self, timeout: Duration) -> Self {
        self.round_timeout = Some(timeout);
        self
    }
    /// Whether this agent may start debates.
    pub fn with_can_initiate(mut self, can_initiate: bool) -> Self {
        self.can_initiate = can_initiate;
        self
    }
    /// Whether this agent may vote.
    pub fn with_can_vote(mut self, can_vote: bool) -> Self {
        self.can_vote = can_vote;
        self
    }
    /// Sets the broker address.
    pub fn with_broker(mut self, broker: impl Into<String>) -> Self {
        self.broker = broker.into();
        self
    }
    /// Sets the transport.
    pub fn with_transport(mut self, transport: TransportMode) -> Self {
        self.transport = transport;
        self
    }
    /// Rounds before a deadlock.
    pub fn max_rounds(&self) -> u32 {
        self.max_rounds
    }
    /// The explicit consensus threshold, if any.
    pub fn consensus_threshold(&self) -> Option<f64> {
        self.consensus_threshold
    }
    /// The consensus strategy.
    pub fn strategy(&self) -> ConsensusStrategy {
        self.strategy
    }
    /// The round timeout, if any; without one a round waits for every position.
    pub fn round_timeout(&self) -> Option<Duration> {
        self.round_timeout
    }
    /// Whether this agent may start debates.
    pub fn can_initiate(&self) -> bool {
        self.can_initiate
    }
    /// Whether this agent may vote.
    pub fn can_vote(&self) -> bool {
        self.can_vote
    }
    /// The broker address; empty when none was given.
    pub fn broker(&self) -> &str {
        &self.broker
    }
    /// The transport.
    pub fn transport(&self) -> TransportMode {
        self.transport
    }
}

/// Everything an agent's protocol attributes declare: one optional spec per paradigm.
///
/// ```
/// use std::time::Duration;
/// use tnsai_core::{DirectSpec, Paradigm, ProtocolSpecs, RequestReplySpec};
///
/// let specs = ProtocolSpecs::new()
///     .with_direct(DirectSpec::new())
///     .with_request_reply(RequestReplySpec::new().with_timeout(Duration::from_secs(5)));
/// assert!(specs.validate().is_ok());
/// assert_eq!(specs.paradigms().len(), 2);
/// assert!(specs.paradigms().contains(&Paradigm::RequestReply));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProtocolSpecs {
    // Boxed: a platform keeps one of these per agent, and most agents declare one or two
    // paradigms, so absent specs should cost a pointer, not their full size.
    direct: Option<Box<DirectSpec>>,
    broadcast: Option<Box<BroadcastSpec>>,
    pub_sub: Option<Box<PubSubSpec>>,
    request_reply: Option<Box<RequestReplySpec>>,
    debate: Option<Box<DebateSpec>>,
}

impl ProtocolSpecs {
    /// No paradigms: an agent that only receives.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds direct messaging.
    pub fn with_direct(mut self, spec: DirectSpec) -> Self {
        self.direct = Some(Box::new(spec));
        self
    }
    /// Adds broadcast.
    pub fn with_broadcast(mut self, spec: BroadcastSpec) -> Self {
        self.broadcast = Some(Box::new(spec));
        self
    }
    /// Adds publish/subscribe.
    pub fn with_pub_sub(mut self, spec: PubSubSpec) -> Self {
        self.pub_sub = Some(Box::new(spec));
        self
    }
    /// Adds request/reply.
    pub fn with_request_reply(mut self, spec: RequestReplySpec) -> Self {
        self.request_reply = Some(Box::new(spec));
        self
    }
    /// Adds debate.
    pub fn with_debate(mut self, spec: DebateSpec) -> Self {
        self.debate = Some(Box::new(spec));
        self
    }
    /// The direct spec, when declared.
    pub fn direct(&self) -> Option<&DirectSpec> {
        self.direct.as_deref()
    }
    /// The broadcast spec, when declared.
    pub fn broadcast(&self) -> Option<&BroadcastSpec> {
        self.broadcast.as_deref()
    }
    /// The publish/subscribe spec, when declared.
    pub fn pub_sub(&self) -> Option<&PubSubSpec> {
        self.pub_sub.as_deref()
    }
    /// The request/reply spec, when declared.
    pub fn request_reply(&self) -> Option<&RequestReplySpec> {
        self.request_reply.as_deref()
    }
    /// The debate spec, when declared.
    pub fn debate(&self) -> Option<&DebateSpec> {
        self.debate.as_deref()
    }

    /// The declared paradigms.
    pub fn paradigms(&self) -> BTreeSet<Paradigm> {
        [
            (self.direct.is_some(), Paradigm::Direct),
            (self.broadcast.is_some(), Paradigm::Broadcast),
            (self.pub_sub.is_some(), Paradigm::PubSub),
            (self.request_reply.is_some(), Paradigm::RequestReply),
            (self.debate.is_some(), Paradigm::Debate),
        ]
        .into_iter()
        .filter_map(|(declared, paradigm)| declared.then_some(paradigm))
        .collect()
    }

    /// Whether no paradigm is declared (an `#[agent]` without protocol attributes).
    pub fn is_empty(&self) -> bool {
        self.paradigms().is_empty()
    }

    /// The topic patterns this agent receives broadcasts and publications on: its
    /// broadcast topic (unless `can_subscribe = false`) and its pub/sub topics (same).
    pub fn subscriptions(&self) -> Vec<&str> {
        let broadcast = self
            .broadcast
            .iter()
            .filter(|b| b.can_subscribe)
            .map(|b| b.topic.as_str());
        let pub_sub = self
            .pub_sub
            .iter()
            .filter(|p| p.can_subscribe)
            .flat_map(|p| p.topics.iter().map(String::as_str));
        broadcast.chain(pub_sub).collect()
    }

    /// Checks the rules the attributes enforce at compile time.
    ///
    /// # Errors
    ///
    /// The first [`SpecError`] found.
    pub fn validate(&self) -> Result<(), SpecError> {
        if let Some(d) = &self.direct {
            check_address("direct_message", d.transport, "endpoint", &d.endpoint)?;
        }
        if let Some(b) = &self.broadcast {
            check_address("broadcast", b.transport, "broker", &b.broker)?;
            validate_topic(&b.topic).map_err(|error| SpecError::Topic {
                attribute: "broadcast",
                error,
            })?;
        }
        if let Some(p) = &self.pub_sub {
            check_address("pub_sub", p.transport, "broker", &p.broker)?;
            for topic in &p.topics {
                TopicPattern::parse(topic).map_err(|error| SpecError::Topic {
                    attribute: "pub_sub",
                    error,
                })?;
            }
            if let Some(filter) = &p.filter {
                PayloadFilter::parse(filter).map_err(SpecError::Filter)?;
            }
        }
        if let Some(r) = &self.request_reply {
            check_address("request_reply", r.transport, "endpoint", &r.endpoint)?;
            if r.timeout.is_zero() {
                return Err(SpecError::ZeroTimeout);
            }
        }
        if let Some(d) = &self.debate {
            check_address("debate", d.transport, "broker", &d.broker)?;
            if d.max_rounds == 0 {
                return Err(SpecError::ZeroRounds);
            }
            if d.round_timeout.is_some_and(|t| t.is_zero()) {
                return Err(SpecError::ZeroRoundTimeout);
            }
            if let Some(t) = d.consensus_threshold
                && !(t > 0.0 && t <= 1.0)
            {
                return Err(SpecError::Threshold(t.to_string()));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_attribute_table() {
        let r = RequestReplySpec::new();
        assert_eq!(r.timeout(), Duration::from_millis(30_000));
        let d = DebateSpec::new();
        assert_eq!(d.max_rounds(), 5);
        assert_eq!(d.strategy(), ConsensusStrategy::Supermajority);
        assert!(d.can_initiate() && d.can_vote());
        assert_eq!(d.round_timeout(), None);
        let b = BroadcastSpec::new();
        assert!(b.can_publish() && b.can_subscribe());
    }

    #[test]
    fn validation_refuses_what_the_attributes_refuse() {
        let zero = ProtocolSpecs::new()
            .with_request_reply(RequestReplySpec::new().with_timeout(Duration::ZERO));
        assert_eq!(zero.validate(), Err(SpecError::ZeroTimeout));
        let http =
            ProtocolSpecs::new().with_direct(DirectSpec::new().with_transport(TransportMode::Http));
        assert!(matches!(
            http.validate(),
            Err(SpecError::MissingAddress { .. })
        ));
        for bad in [0.0, -0.1, 1.01, f64::NAN] {
            let s =
                ProtocolSpecs::new().with_debate(DebateSpec::new().with_consensus_threshold(bad));
            assert!(
                matches!(s.validate(), Err(SpecError::Threshold(_))),
                "{bad}"
            );
        }
        let one = ProtocolSpecs::new().with_debate(DebateSpec::new().with_consensus_threshold(1.0));
        assert!(one.validate().is_ok());
        let wildcard_broadcast =
            ProtocolSpecs::new().with_broadcast(BroadcastSpec::new().with_topic("a.*"));
        assert!(wildcard_broadcast.validate().is_err());
    }

    #[test]
    fn subscriptions_skip_agents_that_do_not_subscribe() {
        let specs = ProtocolSpecs::new()
            .with_broadcast(
                BroadcastSpec::new()
                    .with_topic("news")
                    .with_can_subscribe(false),
            )
            .with_pub_sub(PubSubSpec::new().with_topics(["alerts.>", "metrics.*"]));
        assert_eq!(specs.subscriptions(), vec!["alerts.>", "metrics.*"]);
    }
}
