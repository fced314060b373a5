//! Choosing the winning proposal.

use super::proposal::{AgentName, Proposal};

/// Picks the proposal to accept among those received in time, or none.
///
/// Any `Fn(&[Proposal]) -> Option<AgentName>` is an evaluator, so a closure
/// does for custom rules:
///
/// ```
/// use tnsai_fipa::{AgentName, Proposal};
/// // Prefer the proposal that promises the fastest delivery in its content.
/// let fastest = |proposals: &[Proposal]| -> Option<AgentName> {
///     proposals
///         .iter()
///         .filter(|p| p.content().contains("express"))
///         .map(|p| p.contractor().to_owned())
///         .next()
/// };
/// # let _ = fastest;
/// ```
///
/// Returning a name that did not propose makes
/// [`ContractNetNegotiation::award`](super::ContractNetNegotiation::award)
/// fail without changing anything; returning `None` rejects every proposal.
pub trait ProposalEvaluator {
    /// The contractor whose proposal wins, or `None` if none is acceptable.
    fn select(&self, proposals: &[Proposal]) -> Option<AgentName>;
}

impl<F> ProposalEvaluator for F
where
    F: Fn(&[Proposal]) -> Option<AgentName>,
{
    fn select(&self, proposals: &[Proposal]) -> Option<AgentName> {
        self(proposals)
    }
}

/// The proposal with the smallest `key`; proposals whose key is `None` (or
/// NaN) are never chosen, and ties go to the earliest proposal.
pub fn lowest_by<K>(key: K) -> impl Fn(&[Proposal]) -> Option<AgentName>
where
    K: Fn(&Proposal) -> Option<f64>,
{
    move |proposals: &[Proposal]| {
        proposals
            .iter()
            .filter_map(|p| key(p).filter(|k| !k.is_nan()).map(|k| (k, p)))
            .fold(None, |best: Option<(f64, &Proposal)>, (k, p)| match best {
                Some((best_key, _)) if best_key <= k => best,
                _ => Some((k, p)),
            })
            .map(|(_, p)| p.contractor().to_owned())
    }
}

/// The proposal with the largest `key`, e.g. a quality score; same rules as
/// [`lowest_by`].
pub fn highest_by<K>(key: K) -> impl Fn(&[Proposal]) -> Option<AgentName>
where
    K: Fn(&Proposal) -> Option<f64>,
{
    lowest_by(move |p| key(p).map(|k| -k))
}

/// The cheapest proposal by [`Proposal::price`]; proposals without a price
/// are never chosen.
pub fn lowest_price() -> impl Fn(&[Proposal]) -> Option<AgentName> {
    lowest_by(Proposal::price)
}

/// The first proposal received.
pub fn first_received() -> impl Fn(&[Proposal]) -> Option<AgentName> {
    |proposals: &[Proposal]| proposals.first().map(|p| p.contractor().to_owned())
}
