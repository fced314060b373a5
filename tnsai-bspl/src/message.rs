//! Messages as agents exchange them, and the enabled message forms an agent
//! may complete and send.
//!
//! Binding values are opaque strings: BSPL only compares bindings for
//! equality, and strings keep messages hashable, ordered and trivially
//! serialisable. An application with structured values encodes them itself
//! (for instance as JSON text).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Parameter name -> value.
pub type Bindings = BTreeMap<String, String>;

/// One message as sent or received: the unit the transport carries.
///
/// `message` is the message's unique name in its protocol: the bare name
/// (`rfq`) for a message declared in the protocol, and `<Reference>/<name>`
/// (`Order/Buy`) for one contributed by a referenced protocol, which is also
/// its qualified name; the adapter also accepts the qualified form of a bare
/// name (`Purchase/rfq`). `bindings` holds exactly the message's `in` and
/// `out` parameters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MessageInstance {
    /// Protocol name.
    pub protocol: String,
    /// Message name (see above).
    pub message: String,
    /// Sending role.
    pub sender: String,
    /// Receiving roles; left empty, the adapter fills them in from the
    /// protocol when sending.
    pub recipients: Vec<String>,
    /// Values of the message's `in` and `out` parameters.
    pub bindings: Bindings,
}

impl MessageInstance {
    /// A message with no recipients filled in yet.
    pub fn new(
        protocol: impl Into<String>,
        message: impl Into<String>,
        sender: impl Into<String>,
        bindings: impl IntoIterator<Item = (impl Into<String>, impl Into<String>)>,
    ) -> Self {
        Self {
            protocol: protocol.into(),
            message: message.into(),
            sender: sender.into(),
            recipients: Vec::new(),
            bindings: bindings
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    /// The value bound to `parameter`, if any.
    pub fn get(&self, parameter: &str) -> Option<&str> {
        self.bindings.get(parameter).map(String::as_str)
    }
}

/// A message the agent may send now: its `in` parameters are bound (to the
/// values shown) in one enactment, and none of its `out` or `nil` parameters
/// are. Complete it with [`EnabledMessage::bind`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EnabledMessage {
    /// Protocol name.
    pub protocol: String,
    /// Message name, as in [`MessageInstance::message`].
    pub message: String,
    /// Sending role (one the agent plays).
    pub sender: String,
    /// Receiving roles.
    pub recipients: Vec<String>,
    /// Values of the `in` parameters, from the agent's history.
    #[serde(rename = "in")]
    pub ins: Bindings,
    /// `out` parameters still to bind, in declaration order.
    #[serde(rename = "out")]
    pub outs: Vec<String>,
    /// `nil` parameters (unbound, and not to be sent), in declaration order.
    pub nils: Vec<String>,
    /// The message's key parameters, in declaration order.
    pub keys: Vec<String>,
}

impl EnabledMessage {
    /// The message this form becomes with the given `out` values; the
    /// adapter checks the result when it is sent.
    pub fn bind(
        &self,
        outs: impl IntoIterator<Item = (impl Into<String>, impl Into<String>)>,
    ) -> MessageInstance {
        let mut bindings = self.ins.clone();
        bindings.extend(outs.into_iter().map(|(k, v)| (k.into(), v.into())));
        MessageInstance {
            protocol: self.protocol.clone(),
            message: self.message.clone(),
            sender: self.sender.clone(),
            recipients: self.recipients.clone(),
            bindings,
        }
    }

    /// Whether the form starts an enactment (no `in` parameter).
    pub fn is_initiator(&self) -> bool {
        self.ins.is_empty()
    }
}
