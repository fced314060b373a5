//! Contract-net negotiation over the transport, driven by `#[direct_message]`.

use std::time::Duration;

use chrono::Utc;
use futures_util::StreamExt;
use futures_util::stream::FuturesUnordered;
use tnsai_core::{AgentId, DirectSpec};
use tnsai_fipa::{ContractNetNegotiation, NegotiationReport, Performative, ProposalEvaluator};

use crate::ProtocolError;
use crate::acl;
use crate::link::Link;

/// A view of the agent's `#[direct_message]` spec and link, made per negotiation.
pub(crate) struct ContractNetHandler<'a> {
    spec: &'a DirectSpec,
    link: &'a Link,
}

fn invalid(error: impl std::fmt::Display) -> ProtocolError {
    ProtocolError::InvalidArgument(error.to_string())
}

impl<'a> ContractNetHandler<'a> {
    pub(crate) fn new(spec: &'a DirectSpec, link: &'a Link) -> Self {
        Self { spec, link }
    }

    /// Sends a CFP to every contractor, collects proposals and refusals until all
    /// answered or `bidding` passed, lets `evaluator` pick, accepts the winner and
    /// rejects the rest, then waits up to `bidding` again for the winner's result.
    pub(crate) async fn negotiate<E>(
        &self,
        task: String,
        contractors: Vec<AgentId>,
        bidding: Duration,
        evaluator: E,
    ) -> Result<NegotiationReport, ProtocolError>
    where
        E: ProposalEvaluator,
    {
        self.link.ready()?;
        let window = chrono::Duration::from_std(bidding).map_err(invalid)?;
        let deadline = Utc::now() + window;
        let names: Vec<String> = contractors.iter().map(ToString::to_string).collect();
        let mut negotiation =
            ContractNetNegotiation::new(self.link.id().as_str(), task, names, deadline)
                .map_err(invalid)?
                .with_result_deadline(deadline + window);

        let mode = self.spec.transport();
        let mut bids = FuturesUnordered::new();
        for cfp in negotiation.call_for_proposals() {
            let message = acl::to_message(self.link.id(), &cfp)?;
            bids.push(self.link.call(message, mode, Some(bidding)));
        }
        while let Some(answer) = bids.next().await {
            match answer.and_then(|answer| acl::from_message(&answer)) {
                Ok(bid) => {
                    if let Err(error) = negotiation.receive(&bid, Utc::now()) {
                        tracing::debug!(%error, "a contractor's answer was turned down");
                    }
                }
                // Silent past the deadline: the contractor counts as not having answered.
                Err(ProtocolError::Timeout) => {}
                Err(error) => tracing::warn!(%error, "a call for proposals was not delivered"),
            }
        }

        // Everyone answered, or every call waited out the deadline.
        let closed_at = if negotiation.all_answered() {
            Utc::now()
        } else {
            Utc::now().max(deadline + chrono::Duration::milliseconds(1))
        };
        let decisions = negotiation.award(&evaluator, closed_at).map_err(invalid)?;
        let (accept, rejects): (Vec<_>, Vec<_>) = decisions
            .into_iter()
            .partition(|m| m.performative() == Performative::AcceptProposal);
        for reject in rejects {
            let message = acl::to_message(self.link.id(), &reject)?;
            if let Err(error) = self.link.send(message, mode).await {
                tracing::debug!(%error, "a reject-proposal was not delivered");
            }
        }
        if let Some(accept) = accept.first() {
            let message = acl::to_message(self.link.id(), accept)?;
            match self.link.call(message, mode, Some(bidding)).await {
                Ok(answer) => {
                    let result = acl::from_message(&answer)?;
                    if let Err(error) = negotiation.receive(&result, Utc::now()) {
                        tracing::warn!(%error, "the winner's result was turned down");
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "no result from the winner");
                }
            }
            negotiation.check_timeout(deadline + window + chrono::Duration::milliseconds(1));
        }
        negotiation.report().ok_or_else(|| {
            ProtocolError::InvalidArgument("the negotiation did not conclude".into())
        })
    }
}
