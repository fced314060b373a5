//! What a broadcast or publication reached.

use tnsai_core::AgentId;

/// Who received a broadcast or publication, and who could not be reached and why.
///
/// Both lists are sorted by agent id. An agent that does not subscribe to the topic, or
/// whose filter refuses the payload, is in neither list.
///
/// ```
/// use tnsai_coordination::DeliveryReport;
///
/// let report = DeliveryReport::default();
/// assert!(report.delivered().is_empty() && report.failed().is_empty());
/// assert!(report.is_complete());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeliveryReport {
    delivered: Vec<AgentId>,
    failed: Vec<(AgentId, String)>,
}

impl DeliveryReport {
    /// Builds a report; both lists are sorted (and de-duplicated) here.
    pub fn new(mut delivered: Vec<AgentId>, mut failed: Vec<(AgentId, String)>) -> Self {
        delivered.sort_unstable();
        delivered.dedup();
        failed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        failed.dedup_by(|a, b| a.0 == b.0);
        Self { delivered, failed }
    }

    /// The agents that received the message, sorted by id.
    pub fn delivered(&self) -> &[AgentId] {
        &self.delivered
    }

    /// The agents that could not be reached, with the reason, sorted by id.
    pub fn failed(&self) -> &[(AgentId, String)] {
        &self.failed
    }

    /// Whether every recipient was reached.
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
    }

    /// Adds another report's recipients (for deliveries that crossed several transports).
    pub fn merge(self, other: DeliveryReport) -> DeliveryReport {
        let mut delivered = self.delivered;
        delivered.extend(other.delivered);
        let mut failed = self.failed;
        failed.extend(other.failed);
        DeliveryReport::new(delivered, failed)
    }
}
