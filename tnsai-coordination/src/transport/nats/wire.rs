//! What travels in a NATS message: the `Message` JSON as the payload, a few headers, and
//! the receipts platforms send for publications.

use serde::{Deserialize, Serialize};
use tnsai_core::{AgentId, Message};

use crate::{DeliveryReport, TransportError, TransportErrorKind};

/// The platform that published a broadcast or publication (its own subscriptions skip
/// it: its local subscribers were served in-process).
pub(crate) const PLATFORM_HEADER: &str = "Tnsai-Platform";
/// Where the answer to a durable message goes (a JetStream message's own reply subject
/// is its ack subject).
pub(crate) const REPLY_HEADER: &str = "Tnsai-Reply-To";

/// The message's JSON (the shape documented on [`Message`]).
pub(crate) fn encode(message: &Message) -> Result<Vec<u8>, TransportError> {
    serde_json::to_vec(message).map_err(|error| {
        TransportError::new(
            TransportErrorKind::Delivery,
            format!("message {} does not serialise: {error}", message.id()),
        )
    })
}

/// A message from its JSON.
pub(crate) fn decode(payload: &[u8]) -> Result<Message, serde_json::Error> {
    serde_json::from_slice(payload)
}

/// A platform's answer to a broadcast or publication that asked for receipts: which of
/// its agents got it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Receipt {
    pub(crate) platform: String,
    pub(crate) delivered: Vec<AgentId>,
    pub(crate) failed: Vec<(AgentId, String)>,
}

impl Receipt {
    pub(crate) fn new(platform: &str, report: &DeliveryReport) -> Self {
        Self {
            platform: platform.to_owned(),
            delivered: report.delivered().to_vec(),
            failed: report.failed().to_vec(),
        }
    }

    pub(crate) fn into_report(self) -> DeliveryReport {
        DeliveryReport::new(self.delivered, self.failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tnsai_core::MessageKind;

    #[test]
    fn messages_round_trip_through_the_payload() {
        let message = Message::builder(MessageKind::Action, "a")
            .receiver("b")
            .action("echo")
            .build();
        let back = decode(&encode(&message).unwrap()).unwrap();
        assert_eq!(back, message);
        assert!(decode(b"{not json").is_err());
    }

    #[test]
    fn receipts_keep_both_lists() {
        let report = DeliveryReport::new(vec!["x".into()], vec![("y".into(), "down".into())]);
        let receipt = Receipt::new("p", &report);
        let json = serde_json::to_vec(&receipt).unwrap();
        let back: Receipt = serde_json::from_slice(&json).unwrap();
        assert_eq!(back.into_report(), report);
    }
}
