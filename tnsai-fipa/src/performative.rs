//! The 22 FIPA communicative acts and their categories (FIPA SC00037).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The broad speech-act class a [`Performative`] belongs to.
///
/// | category | performatives |
/// |---|---|
/// | `Assertive` | inform, inform-if, inform-ref, confirm, disconfirm |
/// | `Directive` | request, request-when, request-whenever, query-if, query-ref, cfp, subscribe, propagate, proxy |
/// | `Commissive` | agree, refuse, propose |
/// | `Declarative` | accept-proposal, reject-proposal, cancel, failure, not-understood |
/// | `Expressive` | none (kept so the classification is complete) |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// Commits the speaker to the truth of a proposition.
    Assertive,
    /// Tries to get the hearer to do something.
    Directive,
    /// Commits the speaker to a future course of action.
    Commissive,
    /// Changes the state of the conversation by being said.
    Declarative,
    /// Expresses an attitude; no FIPA act falls here.
    Expressive,
}

impl Category {
    /// The lowercase name of the category, e.g. `"directive"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Assertive => "assertive",
            Self::Directive => "directive",
            Self::Commissive => "commissive",
            Self::Declarative => "declarative",
            Self::Expressive => "expressive",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A FIPA communicative act: what the sender means by sending a message.
///
/// It is written, parsed and serialized by its FIPA name (`"accept-proposal"`);
/// parsing ignores case and also takes `_` for `-`, so `"ACCEPT_PROPOSAL"` works.
///
/// ```
/// use tnsai_fipa::{Category, Performative};
/// let p: Performative = "Accept-Proposal".parse().unwrap();
/// assert_eq!(p, Performative::AcceptProposal);
/// assert_eq!(p.to_string(), "accept-proposal");
/// assert_eq!(p.category(), Category::Declarative);
/// assert!("shout".parse::<Performative>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Performative {
    /// Accept a previously submitted proposal to perform an action.
    AcceptProposal,
    /// Agree to perform some action, possibly in the future.
    Agree,
    /// Tell an agent that it no longer needs to perform an action.
    Cancel,
    /// Call for proposals to perform an action.
    Cfp,
    /// Confirm that a proposition is true, where the receiver is unsure.
    Confirm,
    /// Tell the receiver that a proposition it believes is false.
    Disconfirm,
    /// Tell an agent that an attempted action failed.
    Failure,
    /// Tell the receiver that a proposition is true.
    Inform,
    /// Tell the receiver whether or not a proposition is true.
    InformIf,
    /// Tell the receiver the object that corresponds to a descriptor.
    InformRef,
    /// Tell the sender that its message was not understood.
    NotUnderstood,
    /// Pass an embedded message on to agents matching a descriptor, who propagate it further.
    Propagate,
    /// Submit a proposal to perform an action under given preconditions.
    Propose,
    /// Forward an embedded message to agents matching a descriptor.
    Proxy,
    /// Ask whether a proposition is true.
    QueryIf,
    /// Ask for the object referred to by a referential expression.
    QueryRef,
    /// Refuse to perform an action, with the reason.
    Refuse,
    /// Reject a proposal made during negotiation.
    RejectProposal,
    /// Ask the receiver to perform an action.
    Request,
    /// Ask the receiver to perform an action once a proposition becomes true.
    RequestWhen,
    /// Ask the receiver to perform an action every time a proposition becomes true.
    RequestWhenever,
    /// Ask to be notified whenever the value of a reference changes.
    Subscribe,
}

const ALL: [Performative; 22] = [
    Performative::AcceptProposal,
    Performative::Agree,
    Performative::Cancel,
    Performative::Cfp,
    Performative::Confirm,
    Performative::Disconfirm,
    Performative::Failure,
    Performative::Inform,
    Performative::InformIf,
    Performative::InformRef,
    Performative::NotUnderstood,
    Performative::Propagate,
    Performative::Propose,
    Performative::Proxy,
    Performative::QueryIf,
    Performative::QueryRef,
    Performative::Refuse,
    Performative::RejectProposal,
    Performative::Request,
    Performative::RequestWhen,
    Performative::RequestWhenever,
    Performative::Subscribe,
];

impl Performative {
    /// All 22 communicative acts, in alphabetical order of their FIPA names.
    pub fn all() -> &'static [Performative] {
        &ALL
    }

    /// The FIPA name, e.g. `"accept-proposal"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AcceptProposal => "accept-proposal",
            Self::Agree => "agree",
            Self::Cancel => "cancel",
            Self::Cfp => "cfp",
            Self::Confirm => "confirm",
            Self::Disconfirm => "disconfirm",
            Self::Failure => "failure",
            Self::Inform => "inform",
            Self::InformIf => "inform-if",
            Self::InformRef => "inform-ref",
            Self::NotUnderstood => "not-understood",
            Self::Propagate => "propagate",
            Self::Propose => "propose",
            Self::Proxy => "proxy",
            Self::QueryIf => "query-if",
            Self::QueryRef => "query-ref",
            Self::Refuse => "refuse",
            Self::RejectProposal => "reject-proposal",
            Self::Request => "request",
            Self::RequestWhen => "request-when",
            Self::RequestWhenever => "request-whenever",
            Self::Subscribe => "subscribe",
        }
    }

    /// The speech-act category (see [`Category`] for the full table).
    pub fn category(self) -> Category {
        match self {
            Self::Inform | Self::InformIf | Self::InformRef | Self::Confirm | Self::Disconfirm => {
                Category::Assertive
            }
            Self::Request
            | Self::RequestWhen
            | Self::RequestWhenever
            | Self::QueryIf
            | Self::QueryRef
            | Self::Cfp
            | Self::Subscribe
            | Self::Propagate
            | Self::Proxy => Category::Directive,
            Self::Agree | Self::Refuse | Self::Propose => Category::Commissive,
            Self::AcceptProposal
            | Self::RejectProposal
            | Self::Cancel
            | Self::Failure
            | Self::NotUnderstood => Category::Declarative,
        }
    }
}

impl fmt::Display for Performative {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text given to [`Performative::from_str`] names no FIPA communicative act.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown performative `{name}`: expected a FIPA communicative act such as `request` or `accept-proposal`"
)]
#[non_exhaustive]
pub struct UnknownPerformative {
    /// The text that was not recognised.
    pub name: String,
}

impl FromStr for Performative {
    type Err = UnknownPerformative;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ALL.iter()
            .copied()
            .find(|p| {
                let name = p.as_str().as_bytes();
                name.len() == s.len()
                    && name.iter().zip(s.bytes()).all(|(&n, c)| {
                        let c = if c == b'_' { b'-' } else { c };
                        n == c.to_ascii_lowercase()
                    })
            })
            .ok_or_else(|| UnknownPerformative { name: s.to_owned() })
    }
}

impl Serialize for Performative {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Performative {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}
