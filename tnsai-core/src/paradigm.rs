//! The five communication paradigms and the transports that carry them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A way agents talk to each other; an agent's protocol attributes say which it speaks.
///
/// Each paradigm has a stable key (`"DIRECT"`, `"BROADCAST"`, `"PUBSUB"`,
/// `"REQUEST_REPLY"`, `"DEBATE"`), which is what `ProtocolManager::has_paradigm` takes
/// and what [`FromStr`] parses (ignoring case).
///
/// ```
/// use tnsai_core::Paradigm;
///
/// assert_eq!(Paradigm::PubSub.key(), "PUBSUB");
/// assert_eq!("request_reply".parse::<Paradigm>(), Ok(Paradigm::RequestReply));
/// assert!("GOSSIP".parse::<Paradigm>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Paradigm {
    /// One agent runs an action of another, or sends it text (`#[direct_message]`).
    Direct,
    /// One message to every agent listening on the sender's topic (`#[broadcast]`).
    Broadcast,
    /// Messages published to named topics, received by their subscribers (`#[pub_sub]`).
    #[serde(rename = "PUBSUB")]
    PubSub,
    /// A call that waits for its reply, with a timeout (`#[request_reply]`).
    RequestReply,
    /// Rounds of positions scored by a consensus strategy (`#[debate]`).
    Debate,
}

impl Paradigm {
    /// Every paradigm, in key order.
    pub const ALL: [Paradigm; 5] = [
        Paradigm::Direct,
        Paradigm::Broadcast,
        Paradigm::PubSub,
        Paradigm::RequestReply,
        Paradigm::Debate,
    ];

    /// The paradigm's stable key, such as `"REQUEST_REPLY"`.
    pub const fn key(self) -> &'static str {
        match self {
            Paradigm::Direct => "DIRECT",
            Paradigm::Broadcast => "BROADCAST",
            Paradigm::PubSub => "PUBSUB",
            Paradigm::RequestReply => "REQUEST_REPLY",
            Paradigm::Debate => "DEBATE",
        }
    }
}

impl fmt::Display for Paradigm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// The text was not one of the paradigm keys.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown paradigm `{0}`; expected one of DIRECT, BROADCAST, PUBSUB, REQUEST_REPLY, DEBATE")]
pub struct UnknownParadigm(pub String);

impl FromStr for Paradigm {
    type Err = UnknownParadigm;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim();
        Paradigm::ALL
            .into_iter()
            .find(|p| p.key().eq_ignore_ascii_case(wanted))
            .ok_or_else(|| UnknownParadigm(text.to_owned()))
    }
}

/// Which transport carries a paradigm's messages.
///
/// `Auto` (the default) uses the in-process path for agents on the same platform and the
/// platform's network transport for agents known elsewhere.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum TransportMode {
    /// Pick per receiver: in-process when local, otherwise the network transport.
    #[default]
    Auto,
    /// Only in-process delivery.
    Internal,
    /// HTTP (the Agora wire format) to the attribute's endpoint.
    Http,
    /// A NATS broker at the attribute's broker URL.
    Nats,
}

impl fmt::Display for TransportMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TransportMode::Auto => "Auto",
            TransportMode::Internal => "Internal",
            TransportMode::Http => "Http",
            TransportMode::Nats => "Nats",
        })
    }
}
