//! `GET /agents`: the agents a platform hosts, for other platforms and clients to
//! discover (kept out of `/.wellknown`, whose map holds only protocol hashes).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tnsai_core::AgentId;

use crate::{AgentDescription, DeliveryReport};

/// What `GET /agents` answers: the platform, the hash of the tnsai message protocol it
/// speaks, and its agents.
///
/// ```json
/// {
///   "platform": "http://127.0.0.1:8080",
///   "protocol": "<hash of the tnsai message protocol>",
///   "agents": [
///     {
///       "id": "billing-agent",
///       "url": "http://127.0.0.1:8080/agents/billing-agent",
///       "paradigms": ["DIRECT"],
///       "subscriptions": [],
///       "filter": null,
///       "actions": [{"name": "processOrder", "role": null, "description": "Charges an order."}],
///       "has_language_model": false,
///       "protocols": {"processOrder": "<hash of its generated protocol document>"}
///     }
///   ]
/// }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlatformListing {
    /// The platform's base URL, when it knows it.
    pub platform: Option<String>,
    /// The hash of the tnsai message protocol.
    pub protocol: String,
    /// The agents, sorted by id.
    pub agents: Vec<AgentEntry>,
}

/// One agent in a [`PlatformListing`] (also what `GET /agents/<id>` answers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentEntry {
    /// What discovery tells about the agent.
    #[serde(flatten)]
    pub description: AgentDescription,
    /// Where Agora clients reach it (relative, `/agents/<id>`, when the platform does
    /// not know its own URL).
    pub url: String,
    /// The hash of each action's generated protocol document, by action name.
    pub protocols: BTreeMap<String, String>,
}

/// The body of the answer to a broadcast or publication sent to `POST /`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WireReport {
    pub(crate) delivered: Vec<AgentId>,
    #[serde(default)]
    pub(crate) failed: Vec<WireFailure>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WireFailure {
    pub(crate) agent: AgentId,
    pub(crate) reason: String,
}

impl From<&DeliveryReport> for WireReport {
    fn from(report: &DeliveryReport) -> Self {
        Self {
            delivered: report.delivered().to_vec(),
            failed: report
                .failed()
                .iter()
                .map(|(agent, reason)| WireFailure {
                    agent: agent.clone(),
                    reason: reason.clone(),
                })
                .collect(),
        }
    }
}

impl From<WireReport> for DeliveryReport {
    fn from(report: WireReport) -> Self {
        DeliveryReport::new(
            report.delivered,
            report
                .failed
                .into_iter()
                .map(|f| (f.agent, f.reason))
                .collect(),
        )
    }
}

/// The body of a tnsai-protocol `failure`: a transport error's code and text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WireError {
    pub(crate) code: String,
    pub(crate) message: String,
}
